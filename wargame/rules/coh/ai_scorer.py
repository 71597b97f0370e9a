"""The Conflict of Heroes players' shared reading of a decision: the seen
enemy, the objectives, expected fire results from the exact odds, AP to the
goal, and the players' own dice (a hash of the game seed and decision number:
the game's dice are never touched, so a game replays identically).

Example:
    >>> hit_kill(5, 14)
    (0.2777777777777778, 0.0)
"""

from __future__ import annotations

import hashlib
from functools import lru_cache
from typing import Any

from wargame.engine import Action, Decision, GameState

from .actions import Fire, Flame, Hide, IndirectFire, Move, Pivot, PlotArtillery, Rally
from .ai_ground import cost_field
from .odds import _fire_fractions

__all__ = ["ATTACKS", "Scorer", "ai_die", "hit_kill", "jitter", "plot_choice"]

#: The attacks the players weigh alike (indirect mortar fire, §12.0, and
#: flamethrowers, §19.1, through the same odds as fire).
ATTACKS = (Fire, IndirectFire, Flame)


def jitter(decision: Decision, i: int) -> float:
    text = f"coh-ai:{decision.seed}:{decision.number}:{i}".encode()
    return (
        int.from_bytes(hashlib.blake2b(text, digest_size=4).digest(), "little") / 2**40
    )


def ai_die(decision: Decision, salt: str) -> int:
    """A d6 of the player's own (the doctrine's dice, §20.3), from the game
    seed and decision number: the game's dice are never touched."""
    text = f"coh-ai-die:{decision.seed}:{decision.number}:{salt}".encode()
    digest = hashlib.blake2b(text, digest_size=4).digest()
    return 1 + int.from_bytes(digest, "little") % 6


@lru_cache(maxsize=4096)
def hit_kill(fp: int, dv: int, caps: int = 0) -> tuple[float, float]:
    """(chance of a hit marker, chance of a kill) of one attack roll (§7.0).

    >>> hit_kill(5, 14)
    (0.2777777777777778, 0.0)
    """
    p = _fire_fractions(fp, dv, caps)
    return float(p["hit"]), float(p["destroyed"])


class Scorer:
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
        self._fire: dict[Action, tuple[float, int]] = {}

    def fire_value(self, a: Any) -> tuple[float, int]:
        """Expected VP-weighted result of an attack, and the best 2d6 need
        (the attack's CAPs and Careful Aiming card counted)."""
        got = self._fire.get(a)
        if got is not None:
            return got
        v, r = self.view, self.rules
        lead = v.units[a.units[0]]
        kw = r.attack_kwargs(r.resolved_attack(v, self.side, a))
        if isinstance(a, Fire) and a.card:
            kw["bonus_fp"] = r.fire_card_fp(a)
        caps = int(getattr(a, "caps", 0) or 0)
        targets = [u for u in v.units_at(a.hex) if u.side != self.side and not u.hidden]
        best_need = 99
        value = 0.0
        for t in targets:
            fm = r.fire_math(
                v, lead, t, supporters=r._supporters_for(v, a, t), tgt_hex=a.hex, **kw
            )
            if fm is None:
                continue
            hit, kill = hit_kill(int(fm.fp), int(fm.dv), caps)
            if t.attrs.get("marked"):
                kill, hit = kill + hit, 0.0
            value += kill * 1.0 + hit * 0.4
            best_need = min(best_need, fm.needed - caps)
        if not targets:  # a suspected hex: a long shot at a hidden squad
            value = 0.03
        if a.hex != lead.hex:  # own units in a melee there are rolled against too
            for x in v.units_at(a.hex):
                if x.side != self.side or x.destroyed:
                    continue
                fm = r.fire_math(v, lead, x, tgt_hex=a.hex, **kw)
                if fm is not None:
                    hit, kill = hit_kill(int(fm.fp), int(fm.dv), caps)
                    value -= kill + 0.4 * hit
        self._fire[a] = (value, best_need)
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

    def ap_to_goal(self, h: str | None, goal: str | None, uid: str = "") -> float:
        """AP from ``h`` to ``goal`` the cheapest way for unit ``uid``'s
        mobility (foot if none; :func:`.ai_ground.cost_field`)."""
        if h is None or goal is None:
            return 0.0
        mob = str(self.rules.specs[uid].type.mobility) if uid else "foot"
        if mob not in ("foot", "tracked", "wheeled"):
            mob = "foot"
        return cost_field(self.rules.board, goal, mob).get(h, 99.0)


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
