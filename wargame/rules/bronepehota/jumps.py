"""Бронепехота 2008: jump packs (§9.4, Table 8), optional rule ``jump_packs``
(:mod:`.options`).

A soldier with ПрN in his Св may, once a turn and instead of walking, jump in
a straight line any way he likes, whatever his facing; the length of the jump
plus its height, both measured from the take-off point, is at most N steps
(Table 8).  He may not land where his figure cannot stand, and faces any way
on landing.

ASSUMPTIONS (docs, numbered): on the map the height of a jump is the highest
ground under its line above the take-off point (jumping down costs nothing);
a jump passes over figures and water but lands on dry ground clear of every
base; landing in contact with an enemy starts a melee, as a move does (§4.1
note).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, cast

from wargame.engine import Action, GameState, IllegalActionError, Point
from wargame.engine.points import bearing, check_on_map, distance, offset

from .actions import Fig, Move
from .damage import jump_allowed
from .table import Table

if TYPE_CHECKING:  # pragma: no cover
    from .ruleset import BronepehotaRuleset

__all__ = ["Jump", "Jumps"]


@dataclass(frozen=True)
class Jump(Move):
    """A soldier with a jump pack jumps to ``to`` instead of walking (§9.4),
    then faces ``facing`` (default: the way he jumped)."""

    type = "jump"


class Jumps(Table):
    """Jump packs (the module docstring)."""

    options: frozenset[str]

    def jump_height_steps(self, a: Point, b: Point) -> float:
        """The height of a jump from ``a`` to ``b`` in steps: the highest ground
        under its line above the take-off point (ASSUMPTION, module docstring)."""
        key = (a.x, a.y, b.x, b.y)
        memo: dict[tuple[float, ...], float] | None = getattr(self, "_jump_top", None)
        if memo is not None and key in memo:
            return memo[key]
        d = distance(a, b)
        n = max(2, math.ceil(d / 2.0) + 1)
        z0 = float(self.map.elevation(a.x, a.y))
        top = max(
            float(
                self.map.elevation(
                    a.x + (b.x - a.x) * k / (n - 1), a.y + (b.y - a.y) * k / (n - 1)
                )
            )
            for k in range(n)
        )
        out = max(0.0, top - z0) / self.step_m
        if memo is not None:  # the map does not change (issue 23, speed)
            memo[key] = out
        return out

    def jump_problem(self, state: GameState, f: Fig, to: Point) -> str | None:
        """Why soldier ``f`` may not jump to ``to`` (``None``: he may)."""
        if "jump_packs" not in self.options:
            return "§9.4: jump packs are an optional rule this scenario does not play"
        if f.machine is not None or f.soldier is None or f.soldier.jump is None:
            return f"§9.4: {f.model.id} has no jump pack (Пр in his Св)"
        try:
            check_on_map(to, self.map, "to")
        except ValueError as exc:
            return str(exc)
        a = self._pos(f)
        length = distance(a, to) / self.step_m
        if length == 0:
            return "§9.4: the jump goes nowhere"
        height = self.jump_height_steps(a, to)
        if not jump_allowed(length, height, f.soldier.jump):
            return (
                f"§9.4 Table 8: length {length:.2f} + height {height:.2f} steps is "
                f"more than his Пр{f.soldier.jump}"
            )
        if str(self.map.terrain_at([to.x], [to.y])[0]) == "water":
            return "§9.4: he cannot land in water (his figure cannot stand there)"
        r = f.model.radius_m
        for o in self._figures(state):
            if o.model.id == f.model.id or o.airborne:
                continue
            if distance(self._pos(o), to) < r + o.model.radius_m - 1e-6:
                return f"§9.4: he cannot land on {o.model.id}"
        return None

    def check_jump(self, state: GameState, action: Jump) -> None:
        """Raise :class:`IllegalActionError` unless ``action`` is legal now."""
        rs = cast("BronepehotaRuleset", self)
        f = rs._turn_to_act(state, action.unit, action.soldier, "move")
        if action.facing is not None and not math.isfinite(action.facing):
            raise IllegalActionError(f"facing {action.facing!r} is not a bearing")
        why = self.jump_problem(state, f, action.to)
        if why is not None:
            raise IllegalActionError(f"{f.model.id} cannot jump: {why}")

    def jump_actions(self, state: GameState, f: Fig) -> list[Action]:
        """A sample of jumps for ``f``: his full Пр toward the nearest enemy
        (into contact if it is that near) and toward each objective."""
        if "jump_packs" not in self.options or f.soldier is None:
            return []
        if f.machine is not None or f.soldier.jump is None:
            return []
        rs = cast("BronepehotaRuleset", self)
        try:
            rs._turn_to_act(state, f.unit.id, f.model.id, "move")
        except IllegalActionError:
            return []
        a = self._pos(f)
        reach = f.soldier.jump * self.step_m
        pts: list[Point] = []
        enemies = [e for e in self._figures(state) if e.unit.side != f.unit.side]
        if enemies:
            e = min(enemies, key=lambda e: distance(a, self._pos(e)))
            gap = distance(a, self._pos(e)) - f.model.radius_m - e.model.radius_m
            if gap > 0:
                pts.append(offset(a, bearing(a, self._pos(e)), min(reach, gap - 0.01)))
        for p, _ in self.objectives.values():
            if distance(a, p) > 0:
                pts.append(offset(a, bearing(a, p), min(reach, distance(a, p))))
        out: list[Action] = []
        for p in pts:
            p = Point(round(p.x, 2), round(p.y, 2))
            if self.jump_problem(state, f, p) is None:
                out.append(Jump(f.unit.id, f.model.id, p, None))
        return out
