"""Бронепехота 2008: the figures on the table — where they stand, whom they
touch, what they see (Table 5, by the map's line of sight), how a machine turns
and goes (Table 2), and what each figure fires and fights with (§7.1, §7.6-7.7,
Table 6).

:class:`Table` is the base of the rule system's class
(:class:`~.ruleset.BronepehotaRuleset`); the ground scale and the figures'
sizes are its ASSUMPTIONS (:mod:`.ruleset`'s docstring).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from wargame.engine import (
    GameState,
    IllegalActionError,
    Model,
    Point,
    RulesetBase,
    Scenario,
    Unit,
)
from wargame.engine.points import bearing, distance

from .actions import Fig, angle_off
from .data import Armlists, Machine, Soldier, Weapon
from .dice import Dice
from .melee import (
    frozen_defence,
    machine_strength,
    soldier_attack,
)
from .shooting import (
    check_rate_of_fire,
    spend_ammo,
)

if TYPE_CHECKING:  # pragma: no cover
    from .guns import Guns

#: A soldier's shot with a gun he touches names it ``gun:<its unit id>`` as
#: its weapon (§7.5 note 1: he declares the gun or his own weapon; :mod:`.guns`).
GUN_KEY = "gun:"

#: ASSUMPTION: metres of map per step (5 cm of table); see the module docstring.
STEP_M = 10.0
#: ASSUMPTION: a soldier's round base is 2.5 cm across on the table: a radius of
#: a quarter step; a light machine's footprint 8 cm across, a heavy one's 12 cm.
BASE_RADIUS_STEPS = 0.25
MACHINE_RADIUS_STEPS = {"light": 0.8, "heavy": 1.2}
#: Bases this close (in steps, beyond touching) still count as touching.
CONTACT_TOL_STEPS = 0.05
#: ASSUMPTION: eyes at 1.8 m; a soldier 2 m tall, a ground machine 4 m, seen at
#: these heights for its visible part (Table 5): all four full, three more than
#: half, fewer less than half.  A flier flies at 12 m (its stand, §4.2).
EYE_M = 1.8
SIGHT_HEIGHTS_M = {"soldier": (0.5, 1.0, 1.5, 2.0), "machine": (1.0, 2.0, 3.0, 4.0)}
FLIGHT_M = 12.0
#: Table 5's armour bonus by visibility; not visible: no shot (``None``).
COVER: dict[str, int | None] = {"full": 0, "more_than_half": 1, "less_than_half": 3}
#: ASSUMPTION: an objective is held by a side with a soldier within 2 steps.
HOLD_STEPS = 2.0


class Table(RulesetBase):
    """Figures, sight, manoeuvres and weapons (the module docstring)."""

    scenario: Scenario
    map: Any
    sides: list[str]
    arm: Armlists
    step_m: float
    limited_ammo: bool
    radius_m: float
    objectives: dict[str, tuple[Point, int]]
    pilots: dict[str, tuple[str, int]]
    loadouts: dict[str, tuple[Weapon, ...]]
    placed: dict[str, Any]
    _sight: dict[tuple[float, ...], float]
    #: ``(state, figures)`` while one :meth:`legal_actions` call reads ``state``
    _figs_memo: tuple[GameState, list[Fig], dict[str, Any]] | None = None

    def _machine_radius(self, mach: Machine) -> float:
        return MACHINE_RADIUS_STEPS["heavy" if mach.heavy else "light"] * self.step_m

    # -- figures ------------------------------------------------------------ #
    def _soldier(self, attrs: Mapping[str, Any]) -> Soldier:
        return self.arm.squads[str(attrs["squad"])].soldiers[int(attrs["n"]) - 1]

    def _fig(self, u: Unit, m: Model) -> Fig:
        if m.kind == "gun":  # §2: a gun, not a unit (:mod:`.guns`)
            return Fig(u, m, None, None, self.arm.guns[u.type])
        mach = self.arm.machines.get(u.type) if m.kind == "machine" else None
        if mach is None:
            return Fig(u, m, self._soldier(m.attrs), None)
        pilot = u.attrs.get("pilot")
        return Fig(u, m, None if pilot is None else self._soldier(pilot), mach)

    def fig(self, state: GameState, uid: str, mid: str) -> Fig:
        """The figure ``mid`` of unit ``uid``; IllegalActionError if not on the map."""
        u = state.units.get(uid)
        if u is None or u.destroyed:
            raise IllegalActionError(f"no unit {uid!r} on the map")
        for m in u.models:
            if m.id == mid and isinstance(m.position, Point):
                return self._fig(u, m)
        raise IllegalActionError(f"unit {uid} has no figure {mid!r} on the map")

    def _figures(self, state: GameState) -> list[Fig]:
        # within one legal_actions call the state does not change: the figures
        # are built once (issue 23, speed of play) and each caller gets a copy
        memo = self._figs_memo
        if memo is not None and memo[0] is state:
            return list(memo[1])
        return self._build_figures(state)

    @contextmanager
    def reading(self, state: GameState) -> Iterator[dict[str, Any]]:
        """While inside, ``state`` is only read (legal actions, the AI scoring
        them): its figures are built once, and the dict given stores other
        answers about it (issue 23, speed of play)."""
        before = self._figs_memo
        memo: dict[str, Any] = {}
        self._figs_memo = (state, self._build_figures(state), memo)
        try:
            yield memo
        finally:
            self._figs_memo = before

    def _memo(self, state: GameState) -> dict[str, Any] | None:
        """The answers remembered about ``state`` while :meth:`reading` it."""
        memo = self._figs_memo
        return memo[2] if memo is not None and memo[0] is state else None

    def _build_figures(self, state: GameState) -> list[Fig]:
        return [
            self._fig(u, m)
            for u in state.units.values()
            if not u.destroyed
            for m in u.models
            if isinstance(m.position, Point)
        ]

    def _pos(self, f: Fig) -> Point:
        p = f.model.position
        assert isinstance(p, Point)
        return p

    def _touching(
        self, state: GameState, side: str, at: Point, radius: float
    ) -> list[Fig]:
        """Enemy figures whose bases touch a base of ``radius`` at ``at``."""
        tol = CONTACT_TOL_STEPS * self.step_m
        return [
            f
            for f in self._figures(state)
            if f.unit.side != side
            and not f.airborne
            and distance(self._pos(f), at) <= radius + f.model.radius_m + tol
        ]

    def _ready(self, state: GameState, side: str) -> list[Unit]:
        """Units of ``side`` still to act: squads, and machines with a pilot."""
        return [
            u
            for u in state.units.values()
            if u.side == side
            and not u.destroyed
            and not u.attrs.get("acted")
            and u.type not in self.arm.guns  # §2: a gun is no unit
            and (
                self.arm.machines.get(u.type) is None
                or u.attrs.get("pilot")
                or not any(m.kind == "machine" for m in u.models)
            )
        ]

    def _soldiers_left(self, state: GameState, side: str) -> int:
        """Infantry and pilots of ``side`` alive (§1.1)."""
        n = 0
        for u in state.units.values():
            if u.side != side or u.destroyed:
                continue
            n += sum(m.kind == "soldier" for m in u.models)
            n += sum(m.kind == "machine" for m in u.models) and bool(
                u.attrs.get("pilot")
            )
        return n

    def _height(self, f: Fig) -> float:
        return FLIGHT_M if f.airborne else 0.0

    def visible_part(self, shooter: Fig, target: Fig) -> float:
        """The part (0..1) of ``target`` that ``shooter``'s eyes see (Table 5)."""
        a, b = self._pos(shooter), self._pos(target)
        eye = EYE_M + self._height(shooter)
        heights = self._sight_heights(target)
        key = (a.x, a.y, b.x, b.y, eye, *heights)
        if key not in self._sight:
            # the compiled pair test gives the free-point rule's answers bit
            # for bit (wargame.geo.los_points.los_pairs), without building a
            # sight profile for each height (issue 23, speed of play)
            seen = sum(
                bool(
                    self.map.los_pairs(
                        [(a.x, a.y)],
                        [(b.x, b.y)],
                        observer_height_m=eye,
                        target_height_m=h,
                    )[0, 0]
                )
                for h in heights
            )
            self._sight[key] = seen / len(heights)
        return self._sight[key]

    def _sight_heights(self, target: Fig) -> tuple[float, ...]:
        """The heights (m) of ``target`` that a shooter looks at (Table 5)."""
        return tuple(
            h + self._height(target)
            for h in SIGHT_HEIGHTS_M["machine" if target.machine else "soldier"]
        )

    def prefetch_sight(self, shooters: Iterable[Fig], targets: Iterable[Fig]) -> None:
        """Work out :meth:`visible_part` of each of ``shooters`` against every
        one of ``targets`` at once: one compiled call per eye, kind of target
        and height for them all instead of one per pair and height, the same
        answers bit for bit (:func:`wargame.geo.los_points.los_pairs`; issue
        23, speed of play)."""
        # (eye, target heights) -> shooter points, target points, missing keys
        todo: dict[
            tuple[float, tuple[float, ...]],
            tuple[dict[Point, None], dict[Point, None], set[tuple[float, ...]]],
        ] = {}
        ends = list(targets)
        for f in shooters:
            a = self._pos(f)
            eye = EYE_M + self._height(f)
            for t in ends:
                b = self._pos(t)
                heights = self._sight_heights(t)
                key = (a.x, a.y, b.x, b.y, eye, *heights)
                if key not in self._sight:
                    g = todo.setdefault((eye, heights), ({}, {}, set()))
                    g[0][a] = None
                    g[1][b] = None
                    g[2].add(key)
        for (eye, heights), (froms, tos, keys) in todo.items():
            xy_a = [(a.x, a.y) for a in froms]
            xy_b = [(b.x, b.y) for b in tos]
            seen = np.zeros((len(xy_a), len(xy_b)), dtype=np.int64)
            for h in heights:
                seen += self.map.los_pairs(
                    xy_a, xy_b, observer_height_m=eye, target_height_m=h
                )
            for i, a in enumerate(froms):
                for j, b in enumerate(tos):
                    key = (a.x, a.y, b.x, b.y, eye, *heights)
                    if key in keys:
                        self._sight[key] = int(seen[i, j]) / len(heights)

    def _machine_moves(
        self, f: Fig, to: Point, facing: float | None
    ) -> tuple[list[tuple[str, float]], float]:
        """Table 2 manoeuvres of a machine going straight to ``to``, and its facing."""
        a = self._pos(f)
        d = distance(a, to) / self.step_m
        assert f.machine is not None
        loco = f.machine.locomotion
        off = angle_off(f.model.facing, a, to)
        head = bearing(a, to)
        if off <= 1.0:
            moves: list[tuple[str, float]] = [("forward", d)]
            face = f.model.facing if f.model.facing is not None else head
        elif off >= 179.0 and loco != "flying":
            moves = [("backward", d)]
            face = f.model.facing if f.model.facing is not None else head
        else:
            moves = [("turn", off), ("forward", d)]
            face = head
        if facing is not None:
            d_face = abs((facing - face + 180.0) % 360.0 - 180.0)
            if d_face > 1.0:
                moves.append(("turn", d_face))
                face = facing
        return moves, face % 360.0

    def _weapon(self, f: Fig, key: str) -> Weapon | None:
        if f.machine is None or key not in f.unit.attrs.get("loadout", ()):
            return None
        return f.machine.weapon(key.rpartition("#")[0])

    def _dice(self, state: GameState, f: Fig, key: str) -> tuple[Dice, Dice] | str:
        """The range and power dice a figure fires with, or why it cannot."""
        if key.startswith(GUN_KEY):  # a soldier with a gun (§7.5)
            return cast("Guns", self).gun_dice(state, f, key)
        if f.machine is None:
            if key:
                return "§7.6: a soldier fires his personal weapon (no weapon name)"
            assert f.soldier is not None
            if f.soldier.range is None or f.soldier.power is None:
                return f"§7.1: soldier {f.model.id} has no ranged weapon (dashes)"
            return f.soldier.range, f.soldier.power
        w = self._weapon(f, key)
        if w is None or w.range is None or w.power is None:
            return f"{key!r} is not a ranged weapon of {f.unit.id}'s loadout (§2.2)"
        fired = list(state.vars.get("fired", ()))
        try:
            check_rate_of_fire(fired, key, f.machine.fire_rate)
            if self.limited_ammo:
                spend_ammo(int(f.unit.attrs["ammo"]), w.power)
        except IllegalActionError as exc:
            return str(exc)
        return w.range, w.power

    def _strength(self, f: Fig, *, surprised: bool = False) -> Dice | int:
        """Table 6: a soldier Д6+ББ; a machine Д6+armour+ББ; pilotless: armour."""
        if f.gun is not None:  # Table 6: a gun never attacks, defends by armour
            return frozen_defence(f.armour)
        if f.machine is None:
            assert f.soldier is not None
            return soldier_attack(f.soldier.melee)
        if f.soldier is None:
            return frozen_defence(f.armour)
        bb = [
            w.melee or 0
            for w in (self._weapon(f, k) for k in f.unit.attrs["loadout"])
            if w
        ]
        return machine_strength(f.armour, bb, surprised=surprised)

    # -- for players (ai.py) ------------------------------------------------ #
    def melee_strength(self, f: Fig, *, surprised: bool = False) -> Dice | int:
        """Table 6 strength of ``f`` (:meth:`_strength`), for the AI players."""
        return self._strength(f, surprised=surprised)

    def shot_dice(self, f: Fig, key: str = "") -> tuple[Dice, Dice] | None:
        """The range and power dice of ``f``'s personal weapon or loadout weapon
        ``key`` (§7.1, §2.2), ignoring rate of fire and ammunition."""
        if f.machine is None:
            s = f.soldier
            if s is None or s.range is None or s.power is None:
                return None
            return s.range, s.power
        w = self._weapon(f, key)
        if w is None or w.range is None or w.power is None:
            return None
        return w.range, w.power

    def figures_of(self, state: GameState) -> list[Fig]:
        """Every figure on the map (soldiers, machines)."""
        return self._figures(state)

    def position(self, f: Fig) -> Point:
        """Where figure ``f`` stands."""
        return self._pos(f)
