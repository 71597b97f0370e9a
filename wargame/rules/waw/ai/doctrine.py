"""The doctrine policy: objective-driven play by simple, readable drills.

Each decision is worked out from the state alone (nothing is remembered between
decisions, so a loaded or undone game plays on the same way):

* **Posture.**  A side attacks or defends: the scenario's ``posture`` hint, or,
  without one, it attacks while the enemy holds more objective VP.
* **Chits.**  Attackers activate.  A defender (or an attacker in contact while
  the enemy's units are still fresh) defers a chit when none of the formation's
  units has a worthwhile shot and the enemy still has chits in the cup: its
  units stay ready for opportunity fire.
* **Opportunity fire (overwatch).**  Fire at the moving unit when the best shot's
  expected damage is worth it, with the unit that has the best one.
* **Activation drill**, in order: the unit already moving finishes its bound
  (then fires on the move if it can); overwatch units fire at the best target;
  assaults with good odds on objectives or broken stacks; disrupted units rally
  with their HQ (or move to it); infantry dismounts near the objective or the
  enemy; then units move:

  - attackers advance **by bounds**: in contact, half the formation (alternating
    each turn) moves from cover to cover toward its objective while the other
    half stays put, ready for opportunity fire; out of contact all move;
  - one unit **holds** each objective the side controls (the nearest, infantry
    first); it does not leave it;
  - defenders take the reachable hex that best combines cover, firepower on the
    enemy and little exposure near the objectives;

  every mover keeps within its HQ's command range; the HQ moves to its units
  when some are out of command, by the offered path least likely to cost it a
  step (the cheapest on equal odds); then the activation ends.

All numbers (what a unit is worth, how much exposure weighs) are the policy's
judgement, not rules; every fact comes from the state and the rule system's
public helpers (:meth:`~wargame.rules.waw.WawRuleset.paths`,
:meth:`~wargame.rules.waw.WawRuleset.shot_odds`, ``in_command``...).
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from functools import lru_cache
from math import comb
from typing import Any

import numpy as np

from wargame.engine import Decision, Unit

from .. import (
    ASSAULT_TO_HIT,
    Activate,
    Assault,
    Defer,
    Dismount,
    EndActivation,
    Fire,
    HoldSupport,
    IndirectFire,
    LayBridge,
    Mount,
    Move,
    MoveHQ,
    Pass,
    Rally,
    RemoveSW,
    ReplaceHQ,
    SetMode,
)
from ..unit_attrs import carried_by, disrupted
from ._common import (
    FERRY_DELAY_MP,
    CheapScore,
    SideView,
    at,
    best_destination,
    cover_map,
    crossing_hexes,
    fallback,
    fire_gain,
    indirect_gain,
    mode_gain,
    replace_hq_choice,
    side_bridges,
    support_choice,
    sw_removal_choice,
    travel_map,
    waw_rules,
)

__all__ = ["DoctrinePolicy"]

#: Memo of the cheap part of the move score, per board and its inputs.
_CHEAP: weakref.WeakKeyDictionary[Any, dict[tuple[Any, ...], CheapScore]] = (
    weakref.WeakKeyDictionary()
)


#: Per board: the cover dice by hex number and the numbering's permutation of
#: the board's index (distance rows), built once.
_ARRAYS: weakref.WeakKeyDictionary[Any, dict[str, Any]] = weakref.WeakKeyDictionary()


def _board_arrays(board: Any, cover: dict[str, int]) -> dict[str, Any]:
    """Per-board constant arrays in label order: ``cover`` (defence dice),
    ``perm`` (the :attr:`~.board.WawBoard.index` of each hex) and ``travel``
    (:func:`_travel_array`'s memo)."""
    hit = _ARRAYS.get(board)
    if hit is None:
        names = board.ranks().names
        hit = _ARRAYS[board] = {
            "cover": np.array([cover[h] for h in names], dtype=np.float64),
            "perm": np.array([board.index[h] for h in names], dtype=np.intp),
            "travel": {},
        }
    return hit


def _travel_array(board: Any, travel: dict[str, float]) -> Any:
    """A :func:`travel_map` by hex number (99 MP where it has none), remembered
    per map (travel maps are themselves cached per board and inputs)."""
    memo: dict[int, tuple[dict[str, float], Any]] = _ARRAYS[board]["travel"]
    hit = memo.get(id(travel))
    if hit is None or hit[0] is not travel:
        if len(memo) > 512:
            memo.clear()
        arr = np.array(
            [travel.get(h, 99.0) for h in board.ranks().names], dtype=np.float64
        )
        hit = memo[id(travel)] = (travel, arr)
    return hit[1]


def _cheap_table(
    board: Any,
    cover: dict[str, int],
    travel: dict[str, float] | None,
    pull_hard: bool,
    pull: float,
    wanted: dict[str, int],
    hq_at: str | None,
    reach: int,
) -> CheapScore:
    """The cheap part of the move score of :meth:`_Plan._score` for every hex
    at once (numpy, in the board's label order): cover, the pull of the goal
    (travel MP), wanted objectives and staying in command range.  The same
    operations in the same order as one hex at a time, so the same floats."""
    ranks = board.ranks()
    consts = _board_arrays(board, cover)
    s = 0.25 * consts["cover"]
    if travel is not None:
        dist = np.minimum(_travel_array(board, travel), 99.0)
        s = s - (pull * dist if pull_hard else 0.2 * np.maximum(0.0, dist - 3))
    for h, vp in wanted.items():
        k = ranks.id_of.get(h)
        if k is not None:
            s[k] = s[k] + 0.6 * vp
    if hq_at is not None:
        row = np.array(board.distance_row(hq_at), dtype=np.int64)[consts["perm"]]
        s = np.where(row > reach + 1, s - 0.4, s)
    return CheapScore(ranks, s)


@lru_cache(maxsize=4096)
def assault_win_chance(attack_dice: int, defence_dice: int) -> float:
    """P(the attacker scores more hits than it takes) with dice hitting on 5+.

    The defender keeps its hex unless it takes more hits than it scores (the
    assault procedure of the rules); both sides roll their assault dice.

    Examples:
        >>> round(assault_win_chance(4, 0), 3)
        0.802
        >>> assault_win_chance(0, 3)
        0.0
    """
    p = (7 - ASSAULT_TO_HIT) / 6

    def pmf(n: int) -> list[float]:
        return [comb(n, k) * p**k * (1 - p) ** (n - k) for k in range(n + 1)]

    a, d = pmf(attack_dice), pmf(defence_dice)
    return float(
        sum(pa * pd for i, pa in enumerate(a) for j, pd in enumerate(d) if i > j)
    )


class DoctrinePolicy:
    """Objective-driven World at War play (see the module docstring).

    Args:
        seed: seed for the random fallback (other rule systems); ``None`` uses
            the game seed.
        posture: force ``"attack"`` or ``"defend"`` (default: the scenario's
            hint, else inferred from who holds the objectives).
        fire_threshold: least expected damage (in unit values) worth a shot in
            the side's own activation.
        overwatch_threshold: the same for opportunity fire.

    Examples:
        >>> from wargame.engine import Game
        >>> g = Game.from_scenario("test_remagen", seed=3,
        ...     policies={"nato": DoctrinePolicy(), "pact": DoctrinePolicy()})
        >>> g.run().winner in ("nato", "pact", None)
        True
    """

    def __init__(
        self,
        seed: int | None = None,
        posture: str | None = None,
        fire_threshold: float = 0.12,
        overwatch_threshold: float = 0.12,
    ) -> None:
        if seed is not None and seed < 0:
            raise ValueError("seed must be >= 0")
        if posture not in (None, "attack", "defend"):
            raise ValueError(f"posture must be 'attack' or 'defend', not {posture!r}")
        self.seed = seed
        self.posture = posture
        self.fire_threshold = float(fire_threshold)
        self.overwatch_threshold = float(overwatch_threshold)

    def __repr__(self) -> str:
        extra = f", posture={self.posture!r}" if self.posture else ""
        return f"DoctrinePolicy(seed={self.seed}{extra})"

    # ------------------------------------------------------------------ #
    def choose(self, decision: Decision) -> Any:
        """The doctrine's choice (see the module docstring)."""
        rules = waw_rules(decision)
        if rules is None:
            return fallback(decision, self.seed)
        acts = list(decision.legal_actions)
        if any(isinstance(a, RemoveSW) for a in acts):
            # the enemy's unplaced SW to remove (WaW 1.3.5)
            return sw_removal_choice(SideView(decision, rules), acts)
        plan = _Plan(SideView(decision, rules), self)
        if any(isinstance(a, ReplaceHQ) for a in acts):
            # WaW 1.3.3.3: the HQ comes back where it commands the most units
            return replace_hq_choice(plan.view, acts)
        if any(isinstance(a, Activate) for a in acts):
            return plan.chit(acts)
        if any(isinstance(a, HoldSupport) for a in acts):
            # fire support chit: call it on the best hex a spotter sees
            return support_choice(plan.view, acts, 3 * self.fire_threshold)
        if any(isinstance(a, Pass) for a in acts):
            return plan.overwatch(acts)
        return plan.act(acts)


class _Plan:
    """The doctrine's reading of one decision."""

    def __init__(self, view: SideView, policy: DoctrinePolicy) -> None:
        self.view = view
        self.policy = policy
        self.rules = view.rules
        self.state = view.state
        self.side = view.side
        st = self.state
        objs: list[tuple[str, int, str]] = list(self.rules.objectives)
        self.objectives = objs
        mine = sum(vp for h, vp, _n in objs if st.control.get(h) == self.side)
        theirs = sum(vp for h, vp, _n in objs if st.control.get(h) == view.enemy)
        posture = policy.posture or self.rules.scenario.posture(self.side)
        if posture is None:
            posture = "attack" if theirs > mine or (not mine and objs) else "defend"
        self.posture = posture
        self.held = [(h, vp) for h, vp, _n in objs if st.control.get(h) == self.side]
        self.wanted = [(h, vp) for h, vp, _n in objs if st.control.get(h) != self.side]
        self._garrison: dict[str, str] | None = None
        self._defences: dict[str, float] = {}
        #: the side's deployed MTU-55 bridges (entry costs), for route planning
        self.bridges = side_bridges(view)

    # -- chits ------------------------------------------------------------ #
    def chit(self, acts: list[Any]) -> Any:
        act = next(a for a in acts if isinstance(a, Activate))
        defer = next((a for a in acts if isinstance(a, Defer)), None)
        if defer is None:
            return act
        st = self.state
        enemy_chits = sum(
            1
            for c in st.decks.get("cup", ())
            if c in st.formations and st.formations[c].side == self.view.enemy
        )
        if enemy_chits == 0:
            return act
        members = self._members(act.formation)
        if any(disrupted(u) for u in members):
            return act
        thr = self.policy.fire_threshold
        if any(
            not disrupted(u) and self.view.firepower_at(u, at(u)) >= thr
            for u in members
        ):
            return act
        if self.posture == "attack":
            return act  # the attacker has no time to lose
        mine = {u.id for u in members}
        g = self._garrison_map()
        if any(uid in mine and st.units[uid].position != h for h, uid in g.items()):
            return act  # an objective to occupy: go now
        return defer

    # -- opportunity fire ------------------------------------------------- #
    def overwatch(self, acts: list[Any]) -> Any:
        fires = [a for a in acts if isinstance(a, Fire)]
        scored = sorted(
            ((fire_gain(self.view, a), i, a) for i, a in enumerate(fires)),
            key=lambda x: (-x[0], x[1]),
        )
        if scored and scored[0][0] >= self.policy.overwatch_threshold:
            return scored[0][2]
        return next(a for a in acts if isinstance(a, Pass))

    # -- activation ------------------------------------------------------- #
    def act(self, acts: list[Any]) -> Any:
        st = self.state
        view = self.view
        fid = st.vars.get("active")
        acting = st.vars.get("acting")
        moves = {
            (a.unit, a.to): a for a in acts if isinstance(a, Move) and not a.with_hq
        }
        fires = [a for a in acts if isinstance(a, Fire)]
        thr = self.policy.fire_threshold
        members = self._members(fid)
        bound = self._bounding(members)

        # 0. an MTU-55 on the water lays its bridge (seed 000 bridge units); one
        #    on its way to a crossing drives on
        for a in acts:
            if isinstance(a, LayBridge):
                return a
        if acting is not None and self.rules.unit_info(acting).is_bridge_layer:
            step = self._to_crossing(st.units[acting], moves)
            if step is not None:
                return step

        # 1. the unit already moving finishes its bound, then may fire
        if acting is not None and st.units[acting].side == self.side:
            u = st.units[acting]
            step = self._next_step(u, moves, bound)
            if step is not None:
                return step
            own = [a for a in fires if a.unit == u.id]
            best = self._best_fire(own)
            if best is not None and best[0] >= thr:
                return best[1]

        # 2. fire: units in overwatch first; an attacker's bounding units only
        #    at a very good shot (they have ground to cover)
        attack = self.posture == "attack"
        scored: list[tuple[float, int, Any]] = []
        for i, a in enumerate(fires):
            g = fire_gain(view, a)
            if attack and a.unit in bound and not self._holding(st.units[a.unit]):
                g /= 3.0
            scored.append((g, -i, a))
        # mortars fire indirectly at what an HQ or recon unit sees (1.3.4.3)
        for i, a in enumerate(acts):
            if isinstance(a, IndirectFire):
                scored.append((indirect_gain(view, a), -len(fires) - i, a))
        best_fire = max(scored, key=lambda x: (x[0], x[1]), default=None)
        if best_fire is not None and best_fire[0] >= thr:
            return best_fire[2]

        # 2b. a helicopter with nothing worth a shot in its mode tries the other
        #     side of its counter (WaW 9.0: firepower and sight differ)
        for a in acts:
            if isinstance(a, SetMode):
                u = st.units[a.unit]
                if any(f.unit == u.id and fire_gain(view, f) >= thr for f in fires):
                    continue
                if mode_gain(view, u, a.mode) >= thr:
                    return a

        # 3. assaults with good odds
        assault = self._best_assault([a for a in acts if isinstance(a, Assault)])
        if assault is not None:
            return assault

        # 4. rally (with the HQ if it is there or can be reached)
        for a in acts:
            if isinstance(a, Rally):
                u = st.units[a.unit]
                hq = self.rules.hq_of(st, u.formation)
                if hq is not None and not hq.destroyed and hq.position != u.position:
                    step = self._toward(u, hq.position, moves)
                    if step is not None:
                        return step
                return a

        # 5. dismount near the objective or the enemy; mount far from them
        for a in acts:
            if isinstance(a, Dismount) and self._dismount_here(st.units[a.unit]):
                return a
        for a in acts:
            if isinstance(a, Mount) and self._mount_here(st.units[a.unit]):
                return a

        # 5b. bridge layers drive to a crossing
        for u in sorted(members, key=lambda x: x.id):
            if (
                u.id != acting
                and self.rules.unit_info(u.id).is_bridge_layer
                and not u.attrs.get("deployed")
            ):
                step = self._to_crossing(u, moves)
                if step is not None:
                    return step

        # 6. moves
        movable = {k[0] for k in moves}
        for u in sorted(members, key=lambda x: x.id):
            if u.id == acting or u.id not in movable:
                continue
            if self._holding(u) or u.id not in bound:
                continue
            if not attack and self._well_placed(u):
                continue
            step = self._next_step(u, moves, bound, keep=0.3)
            if step is not None:
                return step

        # 7. bounding units that stay put may still take a fair shot
        if attack:
            late = [(g * 3.0, i, a) for g, i, a in scored if a.unit in bound]
            best_late = max(late, key=lambda x: (x[0], x[1]), default=None)
            if best_late is not None and best_late[0] >= thr:
                return best_late[2]

        # 8. the HQ to its units
        hq_move = self._hq_move([a for a in acts if isinstance(a, MoveHQ)], members)
        if hq_move is not None:
            return hq_move
        return next(a for a in acts if isinstance(a, EndActivation))

    # -- helpers ---------------------------------------------------------- #
    def _members(self, fid: str | None) -> list[Unit]:
        return [
            u
            for u in self.view.own
            if u.formation == fid and not self.rules.unit_info(u.id).is_hq
        ]

    def _best_fire(self, fires: list[Any]) -> tuple[float, Any] | None:
        best = None
        for a in fires:
            g = fire_gain(self.view, a)
            if best is None or g > best[0]:
                best = (g, a)
        return best

    def _garrison_map(self) -> dict[str, str]:
        """Objective hex -> the unit holding it (one per held objective)."""
        if self._garrison is not None:
            return self._garrison
        out: dict[str, str] = {}
        used: set[str] = set()
        free = [
            u
            for u in self.view.own
            if carried_by(u) is None
            and not self.rules.unit_info(u.id).is_hq
            # helicopters take no ground (rules assumption 43): no garrison duty
            and not self.rules.unit_info(u.id).is_helicopter
            and not (
                self.rules.unit_info(u.id).is_carrier
                and any(carried_by(p) == u.id for p in self.view.own)
            )
        ]
        # at most half the units garrison (attackers must keep going)
        limit = max(1, len(free) // 2) if self.posture == "attack" else len(free)
        for h, _vp in sorted(self.held, key=lambda x: (-x[1], x[0])):
            if len(out) >= limit:
                break
            cands = [u for u in free if u.id not in used]
            if not cands:
                break

            def rank(u: Unit, h: str = h) -> tuple[int, int, str]:
                inf = 0 if self.rules.unit_info(u.id).is_infantry else 1
                return (self.view.board.distance(u.position, h), inf, u.id)

            u = min(cands, key=rank)
            if self.view.board.distance(u.position, h) > 6:
                continue
            out[h] = u.id
            used.add(u.id)
        self._garrison = out
        return out

    def _holding(self, u: Unit) -> bool:
        """``u`` garrisons an objective it stands on: it stays."""
        g = self._garrison_map()
        return g.get(u.position) == u.id  # type: ignore[arg-type]

    def _in_contact(self, u: Unit) -> bool:
        """The enemy can hurt the unit where it stands (in range and sight)."""
        return self.view.threat(u, u.position) >= 0.1  # type: ignore[arg-type]

    def _bounding(self, members: list[Unit]) -> set[str]:
        """Units that move this activation (the rest keep overwatch)."""
        st = self.state
        out = set()
        movers = sorted(u.id for u in members)
        for i, uid in enumerate(movers):
            u = st.units[uid]
            if self.posture == "defend" or not self._in_contact(u):
                out.add(uid)
                continue
            # WaW has no such rule: a drill.  Alternate halves each turn.
            if (i + st.turn) % 2 == 0:
                out.add(uid)
        return out

    def _well_placed(self, u: Unit) -> bool:
        """A defender that covers the enemy from where it stands, little exposed,
        and has no objective to go to, stays (overwatch)."""
        here: str = u.position  # type: ignore[assignment]
        g = self._garrison_map()
        if any(uid == u.id and h != here for h, uid in g.items()):
            return False
        return self.view.threat(u, here) < 0.15 and self.view.firepower_at(u, here) > 0

    def _goal(self, u: Unit) -> str | None:
        """The objective this unit works toward."""
        g = self._garrison_map()
        for h, uid in g.items():
            if uid == u.id:
                return h
        if self.posture == "attack" and self.wanted:
            mob = self.rules.unit_info(u.id).mobility

            def pull(item: tuple[str, int]) -> tuple[float, str]:
                h, vp = item
                mp = travel_map(self.view.board, h, mob, self.bridges).get(
                    u.position,  # type: ignore[arg-type]
                    99.0,
                )
                return (-vp / (1.0 + mp / 6.0) / (1.0 + self._defence(h)), h)

            return min(self.wanted, key=pull)[0]
        for options in (self.held, self.wanted):
            if options:
                return self.view.nearest(at(u), [x for x, _vp in options])[1]
        return None

    def _defence(self, h: str) -> float:
        """How strongly the enemy holds a hex (its units on and next to it);
        remembered for the decision."""
        memo = self._defences
        hit = memo.get(h)
        if hit is None:
            row, index = self.view.board.distance_row(h), self.view.board.index
            hit = memo[h] = 0.5 * sum(
                self.view.value(t)
                for t in self.view.targets
                if row[index[t.position]] <= 1
            )
        return hit

    def _score(
        self, u: Unit, bound: set[str]
    ) -> tuple[Callable[[str], float], Callable[[str], float]]:
        view = self.view
        goal = self._goal(u)
        attack = self.posture == "attack"
        garrison = goal is not None and self._garrison_map().get(goal) == u.id
        wanted = dict(self.wanted)
        hq = self.rules.hq_of(self.state, u.formation)
        reach = 0
        if hq is not None and not hq.destroyed and hq.position is not None:
            side = self.rules.side_values(hq)
            reach = int(side.command_range or 0)
            if self.rules.unit_info(u.id).is_recon:
                reach *= 2
        urgency = self.state.turn / max(1, self.rules.scenario.turns)
        w_exp = 0.6 * (1.0 - 0.5 * urgency) if attack else 0.9
        w_fire = 0.35 if attack else 0.7

        travel = (
            travel_map(
                view.board, goal, self.rules.unit_info(u.id).mobility, self.bridges
            )
            if goal is not None
            else {}
        )

        cover = cover_map(view.board)
        hq_at = hq.position if reach and hq is not None else None

        # attackers press harder as the turns run out
        st = self.state
        pull = 0.3 * (1.0 + st.turn / max(1, self.rules.scenario.turns))

        # the cheap score depends only on these: memoised across decisions
        # (a pure function of its inputs, so play stays reproducible)
        key = (
            goal,
            self.rules.unit_info(u.id).mobility,
            garrison,
            attack,
            tuple(sorted(wanted.items())) if attack else (),
            hq_at,
            reach,
            round(pull, 6),
            tuple(sorted(self.bridges.items())),
        )
        per_board = _CHEAP.setdefault(view.board, {})
        table = per_board.get(key)
        if table is None:
            if len(per_board) > 2000:
                per_board.clear()
            table = per_board[key] = _cheap_table(
                view.board,
                cover,
                travel if goal is not None else None,
                garrison or attack,
                pull,
                wanted if attack else {},
                hq_at,
                reach,
            )
        score = table.score

        def costly(h: str) -> float:
            return w_fire * view.firepower_at(u, h) - w_exp * view.threat(u, h)

        return score, costly

    def _next_step(
        self, u: Unit, moves: dict[Any, Any], bound: set[str], keep: float = 0.0
    ) -> Any:
        score, costly = self._score(u, bound)
        # a unit already on the move re-plans from where it is (no memory
        # between decisions): its destination is still the best, so a short
        # list of candidates is enough
        acting = self.state.vars.get("acting") == u.id
        _s, dest, path = best_destination(
            self.view, u, score, costly=costly, keep=keep, shortlist=3 if acting else 6
        )
        if dest == u.position or len(path) < 2:
            return None
        return moves.get((u.id, path[1]))

    def _to_crossing(self, u: Unit, moves: dict[Any, Any]) -> Any:
        """Seed 000 bridge units: the MTU-55 drives to the crossing nearest its
        way to the goal (a water hex with land on two opposite sides)."""
        board = self.view.board
        goal = self._goal(u)
        here: str = u.position  # type: ignore[assignment]
        taken = set(self.bridges)
        best: tuple[int, str] | None = None
        for c in crossing_hexes(board):
            if c in taken:
                continue
            d = board.distance(here, c) + (
                board.distance(c, goal) if goal is not None else 0
            )
            if best is None or (d, c) < best:
                best = (d, c)
        if best is None:
            return None
        paths = self.rules.paths(self.state, u)
        if best[1] in paths:
            return self._toward(u, best[1], moves)
        # not reachable this turn: the reachable hex closest to it
        reach = min(paths, key=lambda h: (board.distance(h, best[1]), h))
        if reach == here:
            return None
        return self._toward(u, reach, moves)

    def _toward(self, u: Unit, h: str, moves: dict[Any, Any]) -> Any:
        paths = self.rules.paths(self.state, u)
        if h not in paths:
            return None
        path = paths[h][1]
        return moves.get((u.id, path[1])) if len(path) > 1 else None

    def _dismount_here(self, u: Unit) -> bool:
        """Infantry leaves its carrier close to its objective or the enemy.

        Never with a river (a ferry) still between it and the objective: on
        foot it would have to cross on its own.
        """
        goal = self._goal(u)
        if goal is None:
            return self.posture == "defend"
        walk = travel_map(self.view.board, goal, "foot").get(u.position, 99.0)  # type: ignore[arg-type]
        if walk >= FERRY_DELAY_MP:
            return False  # a ferry or a long walk lies ahead: ride on
        if self.posture == "defend":
            return True
        near, _ = self.view.nearest(at(u), [at(t) for t in self.view.targets])
        return walk <= 2.0 or near <= 2

    def _mount_here(self, u: Unit) -> bool:
        """An attacker's infantry far from its goal and the enemy boards its carrier.

        WaW 5.2: carried infantry moves at the carrier's speed but cannot fire,
        so only with more than 6 MP of walking ahead and no enemy within 4 hexes.
        """
        if self.posture != "attack":
            return False
        goal = self._goal(u)
        if goal is None:
            return False
        walk = travel_map(self.view.board, goal, "foot").get(u.position, 99.0)  # type: ignore[arg-type]
        near, _ = self.view.nearest(at(u), [at(t) for t in self.view.targets])
        return walk > 6.0 and near > 4

    def _best_assault(self, assaults: list[Any]) -> Any:
        st = self.state
        best: tuple[float, Any] | None = None
        objective = {h: vp for h, vp, _n in self.objectives}
        for a in assaults:
            u = st.units[a.unit]
            lead = 0
            if a.with_hq:
                hq = self.rules.hq_of(st, u.formation)
                lead = self.rules.leadership(hq) if hq is not None else 0
            dice = self.rules.side_values(u).assault + lead
            defenders = [x for x in self.view.targets if x.position == a.hex]
            ddice = sum(self.rules.side_values(x).assault for x in defenders)
            p = assault_win_chance(dice, ddice)
            broken = all(disrupted(x) or x.strength == "reduced" for x in defenders)
            if not (a.hex in objective or broken):
                continue
            need = 0.5 if self.posture == "attack" else 0.65
            if p < need:
                continue
            value = p * (
                objective.get(a.hex, 0) + sum(self.view.value(x) for x in defenders)
            )
            if best is None or value > best[0]:
                best = (value, a)
        return None if best is None else best[1]

    def _hq_move(self, hq_moves: list[Any], members: list[Unit]) -> Any:
        if not hq_moves:
            return None
        st = self.state
        hq = st.units[hq_moves[0].hq]
        side = self.rules.side_values(hq)
        reach = int(side.command_range or 0)
        d = self.view.board.distance

        def covered(h: str) -> tuple[int, int]:
            n = sum(1 for u in members if d(u.position, h) <= reach)
            dis = sum(1 for u in members if disrupted(u) and u.position == h)
            return (n, dis)

        here = covered(at(hq))
        if here[0] == len(members) and not any(disrupted(u) for u in members):
            return None
        best = max(hq_moves, key=lambda a: (covered(a.to), -d(at(hq), a.to), a.to))
        if covered(best.to) > here:
            return self._hq_path([a for a in hq_moves if a.to == best.to])
        return None

    def _hq_path(self, moves: list[Any]) -> Any:
        """Of the offered paths to one hex, the one least likely to cost the HQ
        a step (WaW HQ movement: the -1/-2 follow the path); on equal odds the
        cheapest (``path=None``)."""

        def risk(a: Any) -> tuple[float, bool]:
            loss = self.rules.hq_move_odds(self.state, a).loss
            return (round(loss, 9), a.path is not None)

        return min(moves, key=risk)
