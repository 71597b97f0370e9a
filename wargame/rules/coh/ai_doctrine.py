"""The Conflict of Heroes doctrine player: the rulebook's solitaire doctrine
(CoH 2e §20.2-20.3, research/coh.md §1.12) and, where the doctrine is
silent, sound small-unit tactics (each an ``ASSUMPTION:``, listed in
docs/rules/coh-2e.md, AI).

From the doctrine (§20.3):

* fires only at normal range and only when 2d6 needs 10 or less, at the
  easiest target (a firegroup's lower need makes it the choice);
* adds CAPs to an attack by its own 1d6: 1-2 two CAPs, 3-4 one, 5-6 none;
* rallies before firing unless a shot needs 8 or less;
* pivots towards adjacent threats; enters enemy hexes only if objectives;
* the defender falls back towards (and holds) the objective.

Where the doctrine is silent (ASSUMPTION):

* no fire into a hex where own units are in close combat (every unit in
  the hex is rolled against, §7.5.1);
* cards from the hand are played as :mod:`.ai_cards` says, Careful Aiming
  when it turns a doubtful shot (9+) into a good one (8 or less);
* a Command Action card's free action is the best shot, else a rally, else
  the move the unit would make;
* the attacker goes the cheapest way in AP to the objective
  (:func:`.ai_ground.cost_field`), through cover and out of the seen enemy's
  fire where it can; it steps from safety into the enemy's fire only with
  at least 3 unhit units (or all it has) within 2 hexes of it, so that
  it is not fed in one unit at a time, except in the last round; out of the
  enemy's fire it moves a stack together, but no more than two units share
  a hex in the seen enemy's fire or while the enemy has hidden units (every
  attack rolls against each unit in the hex, §7.5.1); a unit on an objective
  its side
  holds stays there; a unit in cover under fire stays in cover; a unit
  steps next to unhit enemies
  only to take an objective (it closes in on pinned or hit ones).

Example:
    >>> from wargame.engine import Game
    >>> g = Game.from_scenario("coh_partisans", seed=1,
    ...     policies={"german": DoctrinePolicy(), "soviet": DoctrinePolicy()})
    >>> g.step().type  # the Germans enter from the western edge
    'move'
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from wargame.engine import Action, Decision

from ._core import status_of
from .actions import (
    Fire,
    InitiativeBid,
    KeepRoll,
    Load,
    Move,
    Pass,
    Pivot,
    PlotArtillery,
    Rally,
    Spend,
    Unload,
)
from .ai_cards import card_plays, careful_aiming_worth
from .ai_ground import threats
from .ai_scorer import ATTACKS, Scorer, ai_die, plot_choice
from .luck import luck_choice

__all__ = ["DoctrinePolicy"]

#: Worth a card play must reach for the doctrine to make it (:mod:`.ai_cards`).
CARD_WORTH = 0.3
#: Unhit units within 2 hexes before a step from safety into enemy fire.
SUPPORT = 3
#: Score a step next to each unhit seen enemy costs (not into an objective).
CLOSE = 0.5
#: Score each own unit beyond two in the hex moved into costs.
CROWD = 0.5
_PAY_RANK = {"card": 0, "ap": 1, "opportunity": 2}


def _joins(a: Action, active: set[str]) -> bool:
    """Whether ``a`` is paid from the open pool by fresh units only."""
    units = getattr(a, "units", ())
    return (
        getattr(a, "pay", None) == "ap"
        and bool(units)
        and not any(x in active for x in units)
    )


def _pass(acts: list[Action]) -> Action:
    return next(a for a in acts if isinstance(a, Pass))


def _pick(cands: Sequence[tuple[float, int, Action]]) -> Action | None:
    return min(cands, key=lambda t: (t[0], t[1]))[2] if cands else None


class DoctrinePolicy:
    """The solitaire doctrine of CoH 2e §20.2-20.3 (module docstring)."""

    def choose(self, decision: Decision) -> Any:
        """The doctrine's action."""
        acts = list(decision.legal_actions)
        if isinstance(acts[0], InitiativeBid):
            return acts[0]  # ASSUMPTION: the doctrine bids no CAP (§20.2 is silent)
        if isinstance(acts[0], PlotArtillery):
            return plot_choice(decision)
        if isinstance(acts[0], KeepRoll):
            return luck_choice(decision)  # a Luck! window (card #12)
        s = Scorer(decision)
        with s.rules.memo_scope(s.view):  # the view is only read (_memo.py)
            return self._choose(decision, s, acts)

    def _choose(self, decision: Decision, s: Scorer, acts: list[Action]) -> Any:
        r, v, side = s.rules, s.view, s.side
        active = {
            u.id
            for u in v.units.values()
            if u.side == side and not u.destroyed and status_of(u) == "active"
        }
        if not active or r.pool(v, side) <= 0:
            got = self._decide(decision, s, acts)
            return got if got is not None else _pass(acts)
        # ASSUMPTION: a fresh unit does not join an open activation for an
        # action of its own (it would share the pool and be spent with it,
        # §3.0, seed 003 §9.0); the doctrine spends the activated units first.
        joins: list[Action] = []
        keep: list[Action] = []
        for a in acts:
            (joins if _joins(a, active) else keep).append(a)
        got = self._decide(decision, s, keep)
        if got is not None:
            return got
        spend = next((a for a in acts if isinstance(a, Spend)), None)
        if joins and spend is not None and self._decide(decision, s, acts) is not None:
            return spend
        return _pass(acts)

    def _decide(self, decision: Decision, s: Scorer, acts: list[Action]) -> Any:
        """The doctrine's choice among ``acts`` (``None``: nothing to do)."""
        r, v = s.rules, s.view
        free = r.free_action(v, s.side)
        if not free:
            plays = card_plays(s, acts)
            if plays and plays[0][0] >= CARD_WORTH:
                return plays[0][1]
        pays = ("card",) if free else ("ap", "opportunity")
        need, shot = self._shot(s, acts, pays)
        rallies = [
            (_PAY_RANK[a.pay], i, a)
            for i, a in enumerate(acts)
            if isinstance(a, Rally) and a.pay in pays
        ]
        if rallies and (shot is None or need > 8):
            return _pick(rallies)  # rallies first unless a shot needs <= 8 (§20.3)
        if shot is not None:
            return self._with_caps(decision, s, shot, need)
        posture = r.scenario.posture(s.side) or "attack"
        pays = ("card",) if free else ("ap",)  # an opportunity move wastes a unit
        move = (
            self._defend_move(s, acts, pays)
            if posture == "defend"
            else self._attack_move(s, acts, pays)
        )
        return self._pivot(s, acts, pays) or self._transport(s, acts, pays) or move

    # -- fire ----------------------------------------------------------- #
    def _shot(
        self, s: Scorer, acts: list[Action], pays: tuple[str, ...]
    ) -> tuple[int, Action | None]:
        """The easiest shot at normal range needing 10 or less (§20.3)."""
        r, v = s.rules, s.view
        fires = []
        for i, a in enumerate(acts):
            if not isinstance(a, ATTACKS) or a.pay not in pays:
                continue
            lead = v.units[a.units[0]]
            ut = r.specs[lead.id].type
            reach = int(ut.range or 0)
            if lead.hex is None or r.board.distance(lead.hex, a.hex) > reach:
                continue  # normal range only (§20.3)
            if a.hex != lead.hex and any(x.side == s.side for x in v.units_at(a.hex)):
                continue  # not into a melee of its own units (rolled against too)
            _, need = s.fire_value(a)
            if isinstance(a, Fire) and a.card:
                _, base = s.fire_value(replace(a, card=None))
                if not careful_aiming_worth(base, need):
                    continue
            if need <= 10:
                card = getattr(a, "card", None)
                key = need - 0.1 * (len(a.units) - 1) - (0.05 if card else 0.0)
                fires.append((key, _PAY_RANK[a.pay] * 1000 + i, a))
        if not fires:
            return 99, None
        best = min(fires, key=lambda t: (t[0], t[1]))
        return s.fire_value(best[2])[1], best[2]

    @staticmethod
    def _with_caps(decision: Decision, s: Scorer, shot: Action, need: int) -> Action:
        """CAPs by the doctrine's 1d6: 1-2 two, 3-4 one, 5-6 none (§20.3)."""
        if not isinstance(shot, ATTACKS) or need <= 2:
            return shot
        n = {1: 2, 2: 2, 3: 1, 4: 1}.get(ai_die(decision, "caps"), 0)
        for k in range(n, 0, -1):
            a = replace(shot, caps=k)
            if s.rules.why_not(s.view, a) is None:
                return a
        return shot

    # -- movement ------------------------------------------------------- #
    def _attack_move(
        self, s: Scorer, acts: list[Action], pays: tuple[str, ...]
    ) -> Action | None:
        """The attacker's move (module docstring: ASSUMPTION)."""
        r, v, side = s.rules, s.view, s.side
        goal = s.goal()
        if goal is None:
            return None
        board = r.board
        dist = board.distance
        expo: dict[str, int] = {}

        def fire_at(h: str) -> int:
            if h not in expo:
                expo[h] = threats(r, v, side, h)
            return expo[h]

        own = [u for u in v.units.values() if u.side == side and not u.destroyed]
        ready = [
            u
            for u in own
            if not u.attrs.get("marked")
            and (u.hex is not None or int(u.attrs.get("arrives", 1)) <= v.turn)
        ]
        need_support = min(SUPPORT, len(ready))
        unseen = int(v.vars.get(f"hidden_count:{r.other(side)}", 0)) > 0
        last_round = v.turn >= int(r.scenario.turns)
        held = {h for h in s.objectives if v.control.get(h) == side}
        cands: list[tuple[float, int, Action]] = []
        for i, a in enumerate(acts):
            if not isinstance(a, Move) or a.pay not in pays or a.hidden:
                continue
            movers = set(a.units)
            u = v.units[a.units[0]]
            frm, to = u.hex, (a.then[-1] if a.then else a.to[0])
            if any(e.hex == to for e in s.enemies) and to not in s.objectives:
                continue  # enters enemy hexes only if objectives (§20.3)
            if frm in held and not any(
                x.hex == frm and x.id not in movers for x in own
            ):
                continue  # holds the objective it took (ASSUMPTION)
            c = s.cost(a)
            e_to = fire_at(to)
            cover_to = board.cover(to)
            if frm is None:
                gain = 1.0 - 0.02 * s.ap_to_goal(to, goal, u.id)  # nearest entry
                e_from, cover_from = 0, False
            else:
                gain = (
                    s.ap_to_goal(frm, goal, u.id) - s.ap_to_goal(to, goal, u.id)
                ) / c
                e_from, cover_from = fire_at(frm), board.cover(frm)
            if cover_from and e_from and not cover_to and e_to:
                continue  # stays in cover under fire
            duck = bool(frm) and e_from > 0 and not cover_from and cover_to
            if gain <= 0 and not duck:
                continue
            if e_to and not e_from and not last_round:
                base = (to,) if frm is None else (to, frm)
                support = len(movers) + sum(
                    1
                    for x in ready
                    if x.id not in movers
                    and x.hex is not None
                    and min(dist(x.hex, h) for h in base) <= 2
                )
                if support < need_support:
                    continue  # not fed in one at a time (ASSUMPTION)
            # a pair moves together out of fire; no more than two share a hex
            # (every attack rolls against each unit in it, §7.5.1)
            crowd = len(movers) + sum(
                1 for x in own if x.hex == to and x.id not in movers
            )
            if e_to or unseen:
                stack = -CROWD * max(0, crowd - 2)
            else:
                stack = 0.3 * (len(movers) - 1)
            close = 0.0
            if to not in s.objectives:
                near = [e for e in s.enemies if board.distance(e.hex, to) == 1]
                close = sum(-0.3 if e.attrs.get("marked") else CLOSE for e in near)
            score = (
                gain
                + stack
                - close
                + (0.4 if cover_to else 0.0)
                - (0.05 if cover_to else 0.15) * e_to
                + (0.8 if duck else 0.0)
            )
            cands.append((-score, i, a))
        best = min(cands, key=lambda t: (t[0], t[1])) if cands else None
        return best[2] if best is not None and -best[0] > 0.1 else None

    def _defend_move(
        self, s: Scorer, acts: list[Action], pays: tuple[str, ...]
    ) -> Action | None:
        """The defender falls back towards the objective and holds within 2
        hexes of it (§20.3), staying in cover under fire."""
        r, v = s.rules, s.view
        goal = s.objectives[0] if s.objectives else s.goal()
        moves = []
        for i, a in enumerate(acts):
            if not isinstance(a, Move) or a.pay not in pays or a.hidden:
                continue
            u = v.units[a.units[0]]
            to = a.then[-1] if a.then else a.to[0]
            if any(e.hex == to for e in s.enemies) and to not in s.objectives:
                continue  # enters enemy hexes only if objectives (§20.3)
            if (
                u.hex is not None
                and r.board.cover(u.hex)
                and not r.board.cover(to)
                and any(r.sight(v, u.hex, e.hex).clear for e in s.enemies)
            ):
                continue  # stays in cover under fire
            if u.hex is not None and s.dist_to_goal(u.hex, goal) <= 2:
                continue  # holds near the objective (§20.3: falls back to it)
            gain = s.dist_to_goal(u.hex, goal) - s.dist_to_goal(to, goal)
            if gain > 0 or u.hex is None:
                cover = 0.5 if r.board.cover(to) else 0.0
                moves.append((-gain - cover + s.cost(a) * 0.1, i, a))
        return _pick(moves)

    @staticmethod
    def _transport(
        s: Scorer, acts: list[Action], pays: tuple[str, ...]
    ) -> Action | None:
        """Riders and passengers (CoH 2e §17): ASSUMPTION (the doctrine is
        silent).  All of a vehicle's units get off together once it is under
        seen enemy fire, an enemy is within 4 hexes or the goal within 3 (a
        transported unit is hit at the flank, §17.1, and cannot fire); unhit
        foot units get on an empty friendly vehicle in their hex while no seen
        enemy covers it and the goal is more than 6 hexes away."""
        r, v, side = s.rules, s.view, s.side
        goal = s.goal()
        best: tuple[int, int, Action] | None = None
        for a in acts:
            if not isinstance(a, Load | Unload) or a.pay not in pays:
                continue
            veh = v.units[a.units[0]]
            if veh.hex is None:
                continue
            under_fire = threats(r, v, side, veh.hex) > 0
            near = any(r.board.distance(e.hex, veh.hex) <= 4 for e in s.enemies)
            far = goal is None or r.board.distance(veh.hex, goal) > 6
            if isinstance(a, Unload):
                if len(a.units) - 1 < len(r.cargo(v, veh.id)):
                    continue  # all get off together
                there = goal is not None and s.dist_to_goal(veh.hex, goal) <= 3
                if not (under_fire or near or there):
                    continue
                rank = 0
            else:
                riders = [v.units[x] for x in a.units[1:]]
                if (
                    under_fire
                    or near
                    or not far
                    or r.cargo(v, veh.id)
                    or any(x.attrs.get("marked") for x in riders)
                    or any(r.specs[x.id].type.kind != "foot" for x in riders)
                ):
                    continue
                rank = 1
            if best is None or (rank, -len(a.units)) < (best[0], best[1]):
                best = (rank, -len(a.units), a)
        return best[2] if best else None

    @staticmethod
    def _pivot(s: Scorer, acts: list[Action], pays: tuple[str, ...]) -> Action | None:
        """Pivots towards a threat within 3 hexes not yet in the arc (§20.3)."""
        r, v = s.rules, s.view
        pivots = []
        for i, a in enumerate(acts):
            if isinstance(a, Pivot) and a.pay in pays:
                u = v.units[a.units[0]]
                near = [e for e in s.enemies if r.board.distance(u.hex, e.hex) <= 3]
                arc = r.board.in_arc
                if (
                    near
                    and not any(arc(u.hex, u.facing, e.hex) for e in near)
                    and any(arc(u.hex, a.facing, e.hex) for e in near)
                ):
                    pivots.append((0.0, i, a))
        return _pick(pivots)
