"""Conflict of Heroes players: greedy and doctrine, each deciding from its own
side's view only (the engine's :class:`~wargame.engine.Decision` carries it).

* :class:`GreedyPolicy` scores every legal action by its expected result per
  AP, from the exact odds (:func:`.odds.fire_odds` on the same FP and DV the
  dice use, so facing and cover count): expected hits and kills for fire, the
  rally chance for rally, ground gained towards the objective (or cover held)
  for moves, and passes when nothing is worth its points.
* :class:`DoctrinePolicy` follows the rulebook's solitaire doctrine (CoH 2e
  §20.2-20.3, research/coh.md §1.12): it acts only with an enemy in sight;
  fires only at normal range and only when 2d6 needs 10 or less, at the easiest
  target; rallies first unless a shot needs 8 or less; pivots towards threats;
  enters an enemy hex only if it is an objective; otherwise falls back towards
  (or holds) the objective.  ASSUMPTION: the doctrine's dice (when to add CAPs,
  hidden dummies) are left out: its CAP use is "top up the pool by at most 1
  CAP to fire again" (§20.3), and it bids no CAP for initiative.

Tie-breaks use a hash of the game seed and decision number, never the game's
dice, so a game replays identically.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any

from wargame.engine import Action, Decision, GameState

from .actions import (
    Fire,
    Flame,
    Hide,
    IndirectFire,
    InitiativeBid,
    KeepRoll,
    Move,
    Pass,
    Pivot,
    PlotArtillery,
    Rally,
    Spend,
    Stall,
)
from .luck import luck_choice
from .odds import fire_odds, rally_odds

#: The attacks the players weigh alike (indirect mortar fire, §12.0, and
#: flamethrowers, §19.1, through the same odds as fire).
ATTACKS = (Fire, IndirectFire, Flame)

__all__ = ["DoctrinePolicy", "GreedyPolicy"]


def _jitter(decision: Decision, i: int) -> float:
    text = f"coh-ai:{decision.seed}:{decision.number}:{i}".encode()
    return (
        int.from_bytes(hashlib.blake2b(text, digest_size=4).digest(), "little") / 2**40
    )


class _Scorer:
    """Shared reading of the view: enemies, objectives, expected fire results."""

    def __init__(self, decision: Decision) -> None:
        self.d = decision
        self.rules: Any = decision.rules
        self.view: GameState = decision.state
        self.side = decision.side
        v = self.view
        self.enemies = [
            u
            for u in v.units.values()
            if u.side != self.side and not u.destroyed and u.hex is not None
        ]
        self.objectives = sorted(self.rules.objective_hexes)

    def fire_value(self, a: Any) -> tuple[float, int]:
        """Expected VP-weighted result of an attack, and the best 2d6 need."""
        v, r = self.view, self.rules
        lead = v.units[a.units[0]]
        kw = r.attack_kwargs(r.resolved_attack(v, self.side, a))
        targets = [u for u in v.units_at(a.hex) if u.side != self.side and not u.hidden]
        best_need = 99
        value = 0.0
        for t in targets:
            fm = r.fire_math(
                v, lead, t, supporters=r._supporters_for(v, a, t), tgt_hex=a.hex, **kw
            )
            if fm is None:
                continue
            p = fire_odds(fm.fp, fm.dv)
            already = bool(t.attrs.get("marked"))
            kill = float(p["destroyed"]) + (float(p["hit"]) if already else 0.0)
            hit = 0.0 if already else float(p["hit"])
            value += kill * 1.0 + hit * 0.4
            best_need = min(best_need, fm.needed)
        if not targets:  # a suspected hex: a long shot at a hidden squad
            value = 0.03
        return value, best_need

    def cost(self, a: Action) -> int:
        r, v = self.rules, self.view
        for cls, fn in (
            (Move, r.move_problem),
            (Pivot, r.pivot_problem),
            (Fire, r.fire_problem),
            (IndirectFire, r.indirect_problem),
            (Flame, r.flame_problem),
            (Rally, r.rally_problem),
            (Hide, r.hide_problem),
        ):
            if isinstance(a, cls):
                _, c = fn(v, self.side, a)
                return max(1, int(c))
        return 1

    def goal(self) -> str | None:
        """The hex to make for: the nearest objective not held, else the
        nearest enemy."""
        v = self.view
        want = [h for h in self.objectives if v.control.get(h) != self.side]
        if want:
            return str(want[0])
        if self.enemies:
            return str(self.enemies[0].hex)
        return self.objectives[0] if self.objectives else None

    def dist_to_goal(self, h: str | None, goal: str | None) -> int:
        if h is None or goal is None:
            return 0
        return int(self.rules.board.distance(h, goal))


def plot_choice(decision: Decision) -> Action:
    """Off-board artillery (CoH 2e §12.3): the HE plot whose seven hexes hold
    the most seen enemy units, each own unit there counting -2; none when no
    plot scores above 0 (ASSUMPTION: both players plot alike)."""
    rules: Any = decision.rules
    view, side = decision.state, decision.side
    best: Action = decision.legal_actions[0]
    top = 0
    for a in decision.legal_actions:
        if not isinstance(a, PlotArtillery) or a.hex is None or a.smoke:
            continue
        pattern = {a.hex, *rules.board.neighbors(a.hex)}
        score = 0
        for u in view.units.values():
            if u.destroyed or u.hex not in pattern:
                continue
            if u.side == side:
                score -= 2
            elif not u.hidden:
                score += 1
        if score > top:
            best, top = a, score
    return best


class GreedyPolicy:
    """Expected result per AP from the exact odds (module docstring)."""

    def choose(self, decision: Decision) -> Any:
        """The action with the best score (see the module docstring)."""
        acts = list(decision.legal_actions)
        if isinstance(acts[0], InitiativeBid):
            return acts[0]
        if isinstance(acts[0], PlotArtillery):
            return plot_choice(decision)
        if isinstance(acts[0], KeepRoll):
            return luck_choice(decision)  # a Luck! window (card #12)
        s = _Scorer(decision)
        posture = s.rules.scenario.posture(s.side) or "attack"
        goal = s.goal()
        best, best_score = acts[0], float("-inf")
        for i, a in enumerate(acts):
            score = self._score(s, a, posture, goal) + _jitter(decision, i)
            if score > best_score:
                best, best_score = a, score
        return best

    def _score(self, s: _Scorer, a: Action, posture: str, goal: str | None) -> float:
        pay_pen = {"ap": 0.0, "opportunity": 0.02, "command": 0.15}.get(
            str(getattr(a, "pay", "ap")), 0.0
        )
        if isinstance(a, Pass):
            return 0.01
        if isinstance(a, Spend | Stall):
            return -1.0
        if isinstance(a, ATTACKS):
            value, _ = s.fire_value(a)
            return value / s.cost(a) * 3 - pay_pen
        if isinstance(a, Rally):
            u = s.view.units[a.units[0]]
            m = s.rules.marker(u)
            p = rally_odds(m.rally if m else None, s.rules.rally_bonus(s.view, u))
            return p * 0.5 / s.cost(a) * 3 - pay_pen
        if isinstance(a, Move):
            u = s.view.units[a.units[0]]
            to = a.then[-1] if a.then else a.to[0]
            gain = (
                s.dist_to_goal(u.hex, goal) - s.dist_to_goal(to, goal) if u.hex else 1
            )
            cover = 0.05 if s.rules.board.cover(to) else 0.0
            if posture == "defend" and u.hex is not None:
                return (0.02 * gain + cover - 0.05) / s.cost(a) - pay_pen
            return (0.06 * gain + cover) / s.cost(a) - pay_pen
        if isinstance(a, Pivot):
            u = s.view.units[a.units[0]]
            if u.hex is None:
                return -1.0
            near = [e for e in s.enemies if s.rules.board.distance(u.hex, e.hex) <= 6]
            facing_now = sum(
                1 for e in near if s.rules.board.in_arc(u.hex, u.facing, e.hex)
            )
            facing_new = sum(
                1 for e in near if s.rules.board.in_arc(u.hex, a.facing, e.hex)
            )
            return 0.05 * (facing_new - facing_now) - pay_pen
        return -0.5


class DoctrinePolicy:
    """The solitaire doctrine of CoH 2e §20.2-20.3 (module docstring)."""

    def choose(self, decision: Decision) -> Any:
        """The doctrine's action."""
        acts = list(decision.legal_actions)
        if isinstance(acts[0], InitiativeBid):
            return acts[0]
        if isinstance(acts[0], PlotArtillery):
            return plot_choice(decision)
        if isinstance(acts[0], KeepRoll):
            return luck_choice(decision)  # a Luck! window (card #12)
        s = _Scorer(decision)
        r, v = s.rules, s.view
        mine = [
            u
            for u in v.units.values()
            if u.side == s.side and not u.destroyed and u.hex is not None
        ]
        in_sight = {
            u.id for u in mine if any(r.sight(v, u.hex, e.hex).clear for e in s.enemies)
        }

        def pick(cands: Sequence[tuple[float, int, Action]]) -> Action | None:
            return min(cands, key=lambda t: (t[0], t[1]))[2] if cands else None

        pay_rank = {"ap": 0, "opportunity": 1, "command": 2}
        fires = []
        for i, a in enumerate(acts):
            if isinstance(a, ATTACKS) and a.pay != "command":
                lead = v.units[a.units[0]]
                ut = r.specs[lead.id].type
                if lead.hex is None or r.board.distance(lead.hex, a.hex) > int(
                    ut.range or 0
                ):
                    continue  # normal range only (§20.3)
                _, need = s.fire_value(a)
                if need <= 10:
                    fires.append(
                        (need - 0.1 * (len(a.units) - 1), pay_rank[a.pay] * 100 + i, a)
                    )
        easy = pick([f for f in fires if f[0] <= 8])
        rallies = [
            (pay_rank[a.pay], i, a)
            for i, a in enumerate(acts)
            if isinstance(a, Rally) and a.pay != "command"
        ]
        if rallies and easy is None:
            return pick(rallies)
        shot = easy or pick(fires)
        if shot is not None:
            return shot
        posture = r.scenario.posture(s.side) or "attack"
        goal = s.goal() if posture != "defend" or not s.objectives else s.objectives[0]
        moves = []
        for i, a in enumerate(acts):
            if isinstance(a, Move) and a.pay == "ap" and not a.hidden:
                u = v.units[a.units[0]]
                to = a.then[-1] if a.then else a.to[0]
                if any(e.hex == to for e in s.enemies) and to not in s.objectives:
                    continue  # enters enemy hexes only if objectives (§20.3)
                if (
                    u.hex is not None
                    and u.id in in_sight
                    and r.board.cover(u.hex)
                    and not r.board.cover(to)
                ):
                    continue  # stays in cover under fire
                if (
                    posture == "defend"
                    and u.hex is not None
                    and s.dist_to_goal(u.hex, goal) <= 2
                ):
                    continue  # holds near the objective (§20.3: falls back to it)
                gain = s.dist_to_goal(u.hex, goal) - s.dist_to_goal(to, goal)
                if gain > 0 or u.hex is None:
                    cover = 0.5 if r.board.cover(to) else 0.0
                    moves.append((-gain - cover + s.cost(a) * 0.1, i, a))
        pivots = []
        for i, a in enumerate(acts):
            if isinstance(a, Pivot) and a.pay == "ap":
                u = v.units[a.units[0]]
                threats = [e for e in s.enemies if r.board.distance(u.hex, e.hex) <= 3]
                if (
                    threats
                    and not any(r.board.in_arc(u.hex, u.facing, e.hex) for e in threats)
                    and any(r.board.in_arc(u.hex, a.facing, e.hex) for e in threats)
                ):
                    pivots.append((0.0, i, a))
        turn = pick(pivots) or pick(moves)
        if turn is not None:
            return turn
        return next(a for a in acts if isinstance(a, Pass))
