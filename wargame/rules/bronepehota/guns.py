"""Бронепехота 2008: guns on the map, served by infantry, and their capture
(official rules §2, §2.4, §4.1, §7.5-7.7, §8.1 Table 6, §9.2; research §2.4).

* A gun is a figure with its own armlist — rank, rate of fire, ammunition
  and durability tracks, one weapon (§2.4) — but not a unit: it never acts by
  itself (§2).  A scenario lists it among its units (``type`` = a gun of the
  armlists) with the soldiers who serve it (``crew``).
* An infantryman fires it when he touches it and his rank is at least the
  gun's (§7.5); before the shot he declares the gun or his own weapon, one or
  the other in a turn (§7.5 note 1, §7.6): a :class:`~.actions.Shoot` whose
  weapon is ``gun:<gun id>``.  The gun fires up to its own rate of fire a turn
  (§7.6), each shot costing its power dice of ammunition (§7.7); it cannot
  fire while infantrymen of both sides touch it (§7.5 note 3).  Unmanned, it
  cannot fire at all.  Its firing sector is the soldier's field of view
  (§7.5 note 2).
* A mobile gun moves with an infantryman who touches it, at half his speed:
  each speed point takes them half a step (§4.1, Table 1, Fig. 20), not while
  an enemy infantryman touches it; a stationary gun stays where it is (§2.4).
  :class:`MoveGun` is the soldier's move of the turn: the walk to the gun,
  then the way with it.
* A gun is a target (its armour = its durability cell, §5.2); in melee it
  never attacks and defends with its armour, no die (Table 6); at 0 it is
  destroyed (§5.1).
* A gun no infantryman touches goes to the first player who brings an
  infantryman into contact with it (§9.2; :class:`Capture`): the armlist
  passes with its tracks as they are.  Anyone may capture a gun; only a
  soldier of its rank fires it (§9.2 note); if neither the gun nor he has
  fired this turn he may fire it at once (§9.2).

ASSUMPTIONS (numbered on the docs page, 37-45): a gun's base is a step
across (:data:`GUN_RADIUS_STEPS`); range, sight and field of view of a gun's
shot are the firing soldier's (he touches it); only a gun of his own side is
fired or moved (an enemy's is captured first); capturing is no act of the
three (§3.2) and ends nothing; a soldier moving a gun may not end in contact
with an enemy; the crew starts touching the gun behind it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, cast

from wargame.engine import (
    Action,
    GameState,
    IllegalActionError,
    Model,
    ModelSpec,
    Point,
    RuleContext,
    ScenarioError,
    Unit,
    unit_change,
    var_change,
)
from wargame.engine.points import bearing, check_on_map, distance, offset

from .actions import Fig, Move, Shoot
from .damage import can_fire_gun
from .dice import Dice
from .movement import infantry_move_cost
from .shooting import spend_ammo
from .table import CONTACT_TOL_STEPS, GUN_KEY, Table

if TYPE_CHECKING:  # pragma: no cover
    from .ruleset import BronepehotaRuleset

#: ASSUMPTION: a gun's footprint is a step (5 cm) across: a radius of half a step.
GUN_RADIUS_STEPS = 0.5


def gun_key(gid: str) -> str:
    """The weapon a soldier names to fire gun ``gid`` (§7.5 note 1)."""
    return GUN_KEY + gid


@dataclass(frozen=True)
class MoveGun(Action):
    """Soldier ``soldier`` of ``unit`` walks straight to the mobile gun ``gun``
    (none if he touches it) and goes on with it, at half his speed, until the
    gun's centre is at ``to``; he then faces ``facing`` (§4.1)."""

    type = "move_gun"
    unit: str
    soldier: str
    gun: str
    to: Point
    facing: float | None = None


@dataclass(frozen=True)
class Capture(Action):
    """Soldier ``soldier`` of ``unit``, touching the enemy gun ``gun`` that no
    other infantryman touches, takes it for his side (§9.2)."""

    type = "capture"
    unit: str
    soldier: str
    gun: str


class Guns(Table):
    """Guns served by infantry, moved and captured (the module docstring)."""

    # -- set-up ------------------------------------------------------------- #
    def gun_specs(self, raw: Any) -> list[ModelSpec]:
        """The gun model of a scenario unit, if it is a gun (else none)."""
        if raw.get("type") not in self.arm.guns:
            return []
        return [ModelSpec("gun", GUN_RADIUS_STEPS * self.step_m)]

    def _unit_problems(self) -> list[str]:
        problems: list[str] = super()._unit_problems()  # type: ignore[misc]
        sc = self.scenario
        sides = {
            str(r.get("id")): cast("Any", self)._side_of(r)
            for r in sc.units
            if r.get("type") in self.arm.squads
        }
        squads = {
            str(r.get("id")): r for r in sc.units if r.get("type") in self.arm.squads
        }
        self.crews: dict[str, list[tuple[str, int]]] = {}
        taken: dict[str, str] = {
            f"{q}.{n}": uid for uid, (q, n) in getattr(self, "pilots", {}).items()
        }
        for i, raw in enumerate(sc.units):
            if raw.get("type") not in self.arm.guns:
                continue
            uid, where = str(raw.get("id")), f"units[{i}] ({raw.get('id')!r})"
            gun = self.arm.guns[str(raw["type"])]
            for k in ("pilot", "loadout"):
                if k in raw:
                    problems.append(
                        sc.problem(f"{where}.{k}", "a gun has no pilot nor loadout")
                    )
            crew = raw.get("crew", [])
            if not isinstance(crew, list) or not all(isinstance(c, str) for c in crew):
                problems.append(
                    sc.problem(f"{where}.crew", "must be a list of '<squad id>.<1-6>'")
                )
                continue
            self.crews[uid] = []
            for c in crew:
                sq_id, _, num = c.rpartition(".")
                if sq_id not in squads or not num.isdigit() or not 1 <= int(num) <= 6:
                    problems.append(
                        sc.problem(
                            f"{where}.crew",
                            f"{c!r}: name a soldier of a squad of the scenario, "
                            "'<squad id>.<1-6>'",
                        )
                    )
                elif sides[sq_id] != cast("Any", self)._side_of(raw):
                    problems.append(
                        sc.problem(f"{where}.crew", f"{c!r} is not on its side")
                    )
                elif c in taken:
                    problems.append(
                        sc.problem(
                            f"{where}.crew", f"{c!r} already serves {taken[c]!r}"
                        )
                    )
                else:
                    soldier = self.arm.squads[squads[sq_id]["type"]].soldiers[
                        int(num) - 1
                    ]
                    if soldier.rank < gun.rank:  # §7.5: he could not fire it
                        problems.append(
                            sc.problem(
                                f"{where}.crew",
                                f"{c!r} has rank {soldier.rank}, below "
                                f"{gun.name}'s rank {gun.rank} (§7.5)",
                            )
                        )
                    taken[c] = uid
                    self.crews[uid].append((sq_id, int(num)))
        return problems

    def initial_state(self) -> GameState:
        """The forces (:mod:`.forces`), then each gun on the map with its crew
        standing touching it behind it (ASSUMPTION), sliders at the top (§1.6)."""
        st: GameState = super().initial_state()  # type: ignore[misc]
        for raw in self.scenario.units:
            if raw.get("type") not in self.arm.guns:
                continue
            uid, gun = str(raw["id"]), self.arm.guns[str(raw["type"])]
            pu = self.placed.get(uid)
            side = raw.get("side") or st.formations[raw["formation"]].side
            pos = None if pu is None else pu.models[0].position
            face = None if pu is None else pu.models[0].facing
            model = Model(
                f"{uid}.g",
                "gun",
                position=pos,
                facing=face,
                radius_m=GUN_RADIUS_STEPS * self.step_m,
            )
            st.units[uid] = Unit(
                uid,
                raw.get("name", uid),
                side,
                raw.get("formation"),
                str(raw["type"]),
                None if pu is None else pu.position,
                facing=None if pu is None else round(pu.facing) % 360,
                models=(model,),
                attrs={"durability": gun.durability_max, "ammo": gun.ammo_max},
            )
            if not isinstance(pos, Point):
                continue
            for k, (sq_id, n) in enumerate(self.crews.get(uid, [])):
                back = (face or 0.0) + 180.0 + (45.0 if k % 2 else -45.0) * (k > 0)
                at = offset(pos, back, model.radius_m + self.radius_m + 0.01)
                at = Point(round(at.x, 2), round(at.y, 2))
                sq = st.units[sq_id]
                mid = f"{sq_id}.{n}"
                for o in st.units.values():
                    for m in o.models:
                        if m.id in (mid, model.id) or not isinstance(m.position, Point):
                            continue
                        if distance(m.position, at) < self.radius_m + m.radius_m:
                            raise ScenarioError(
                                [
                                    self.scenario.problem(
                                        f"units ({uid!r}).crew",
                                        f"{mid} set down behind the gun at "
                                        f"({at.x:.1f}, {at.y:.1f}) would stand on "
                                        f"{m.id}; move the gun or its squad",
                                    )
                                ]
                            )
                models = tuple(
                    replace(m, position=at, facing=face) if m.id == mid else m
                    for m in sq.models
                )
                sq.models = models
                sq.position = models[0].position
        return st

    # -- who, where --------------------------------------------------------- #
    def gun_fig(self, state: GameState, gid: str) -> Fig | None:
        """The gun ``gid`` on the map, if it is one."""
        u = state.units.get(gid)
        if u is None or u.destroyed or u.type not in self.arm.guns:
            return None
        for m in u.models:
            if m.kind == "gun" and isinstance(m.position, Point):
                return self._fig(u, m)
        return None

    def _touch(self, a: Point, ra: float, b: Fig) -> bool:
        gap = distance(a, self._pos(b)) - ra - b.model.radius_m
        return gap <= CONTACT_TOL_STEPS * self.step_m

    def gun_touchers(self, state: GameState, g: Fig) -> list[Fig]:
        """The infantrymen (either side) touching gun ``g``."""
        p = self._pos(g)
        return [
            f
            for f in self._figures(state)
            if f.infantry and self._touch(p, g.model.radius_m, f)
        ]

    def guns_at(self, state: GameState, at: Point, radius: float) -> list[Fig]:
        """The guns a base of ``radius`` at ``at`` touches."""
        return [
            g
            for g in self._figures(state)
            if g.gun is not None and self._touch(at, radius, g)
        ]

    def crew_of(self, state: GameState, g: Fig) -> list[str]:
        """The soldiers of the gun's side who touch it and may fire it (§7.5):
        its crew; none, the gun is unmanned."""
        assert g.gun is not None
        return [
            f.model.id
            for f in self.gun_touchers(state, g)
            if f.unit.side == g.unit.side
            and f.soldier is not None
            and can_fire_gun(f.soldier.rank, g.gun.rank)
        ]

    def gun_shots(self, state: GameState, g: Fig) -> int:
        """Shots gun ``g`` has fired this turn (§7.6)."""
        turn, n = g.unit.attrs.get("shots") or (None, 0)
        return int(n) if turn == state.turn else 0

    def _acts(self, state: GameState, mid: str) -> tuple[str, ...]:
        if state.vars.get("current") != mid:
            return ()
        return tuple(state.vars.get("did", ()))

    # -- firing (§7.5-7.7) -------------------------------------------------- #
    def man_problem(self, state: GameState, f: Fig, gid: str) -> str | None:
        """Why soldier ``f`` may not fire gun ``gid`` now (``None``: he may)."""
        if not f.infantry or f.soldier is None:
            return f"§7.5: only an infantryman fires a gun; {f.model.id} is not one"
        g = self.gun_fig(state, gid)
        if g is None:
            return f"§7.5: {gid!r} is not a gun on the map"
        assert g.gun is not None
        if g.unit.side != f.unit.side:  # ASSUMPTION: captured first (§9.2)
            return f"§9.2: {gid} is the enemy's gun; capture it first"
        if not self._touch(self._pos(f), f.model.radius_m, g):
            return f"§7.5: {f.model.id} does not touch {gid}"
        if not can_fire_gun(f.soldier.rank, g.gun.rank):
            return (
                f"§7.5: {f.model.id} has rank {f.soldier.rank}, below "
                f"{g.gun.name}'s rank {g.gun.rank}"
            )
        enemy = [t for t in self.gun_touchers(state, g) if t.unit.side != f.unit.side]
        if enemy:
            return (
                f"§7.5 note 3: enemy infantryman {enemy[0].model.id} touches {gid}; "
                "it cannot fire"
            )
        if "shoot" in self._acts(state, f.model.id):
            return (
                f"§7.5 note 1, §7.6: {f.model.id} fired his own weapon this turn; "
                "the gun or his weapon, not both"
            )
        if self.gun_shots(state, g) >= g.gun.fire_rate:
            return (
                f"§7.6: {gid} has fired its {g.gun.fire_rate} shot(s) this turn "
                "(rate of fire)"
            )
        w = g.gun.weapon
        if self.limited_ammo and w.power is not None:
            try:
                spend_ammo(int(g.unit.attrs["ammo"]), w.power)
            except IllegalActionError as exc:
                return str(exc)
        return None

    def gun_dice(self, state: GameState, f: Fig, key: str) -> tuple[Dice, Dice] | str:
        """The gun's range and power dice for soldier ``f``, or why he cannot."""
        gid = key[len(GUN_KEY) :]
        why = self.man_problem(state, f, gid)
        if why is not None:
            return why
        g = self.gun_fig(state, gid)
        assert g is not None and g.gun is not None
        w = g.gun.weapon
        if w.range is None or w.power is None:
            return f"§2.4: {g.gun.name} has no ranged weapon"
        return w.range, w.power

    def gun_shot_dice(self, state: GameState, key: str) -> tuple[Dice, Dice] | None:
        """The range and power dice of the gun a ``gun:<id>`` key names (for
        the AI players), ignoring who fires it."""
        g = self.gun_fig(state, key[len(GUN_KEY) :])
        if g is None or g.gun is None:
            return None
        w = g.gun.weapon
        return None if w.range is None or w.power is None else (w.range, w.power)

    def gun_fire_changes(
        self, state: GameState, key: str, power: Dice
    ) -> tuple[Any, ...]:
        """One more shot of the gun this turn (§7.6) and, with limited
        ammunition, its power dice off its track before the shot (§7.7)."""
        g = self.gun_fig(state, key[len(GUN_KEY) :])
        assert g is not None
        ch = unit_change(g.unit.id, shots=[state.turn, self.gun_shots(state, g) + 1])
        if self.limited_ammo:
            ch += unit_change(
                g.unit.id, ammo=spend_ammo(int(g.unit.attrs["ammo"]), power)
            )
        return ch

    # -- moving a mobile gun (§4.1) ----------------------------------------- #
    def _contact(self, f: Fig, g: Fig) -> Point:
        """Where soldier ``f`` stands touching gun ``g``: where he is if he
        touches it, else the near point on the line to its centre."""
        a, p = self._pos(f), self._pos(g)
        if self._touch(a, f.model.radius_m, g):
            return a
        gap = distance(a, p)
        k = (gap - f.model.radius_m - g.model.radius_m - 0.01) / gap
        return Point(round(a.x + (p.x - a.x) * k, 2), round(a.y + (p.y - a.y) * k, 2))

    def _sweep_problem(
        self, state: GameState, a: Point, b: Point, r: float, skip: set[str]
    ) -> str | None:
        """A base of ``r`` going from ``a`` to ``b`` through another figure."""
        d2 = (b.x - a.x) ** 2 + (b.y - a.y) ** 2
        for o in self._figures(state):
            if o.model.id in skip or o.airborne:
                continue
            p = self._pos(o)
            t = 0.0
            if d2 > 0:
                t = ((p.x - a.x) * (b.x - a.x) + (p.y - a.y) * (b.y - a.y)) / d2
            t = max(0.0, min(1.0, t))
            q = Point(a.x + t * (b.x - a.x), a.y + t * (b.y - a.y))
            if distance(q, p) < r + o.model.radius_m - 1e-6:
                return f"§4.1: the way passes through {o.model.id}; go round"
        return None

    def move_gun_problem(
        self, state: GameState, f: Fig, gid: str, to: Point
    ) -> str | None:
        """Why soldier ``f`` may not move gun ``gid`` to ``to`` (``None``: he may)."""
        if not f.infantry or f.soldier is None:
            return f"§4.1: only an infantryman moves a gun; {f.model.id} is not one"
        g = self.gun_fig(state, gid)
        if g is None:
            return f"§4.1: {gid!r} is not a gun on the map"
        assert g.gun is not None
        if not g.gun.mobile:
            return f"§2.4: {g.gun.name} is stationary; it stays where it is"
        if g.unit.side != f.unit.side:  # ASSUMPTION: captured first (§9.2)
            return f"§9.2: {gid} is the enemy's gun; capture it first"
        enemy = [t for t in self.gun_touchers(state, g) if t.unit.side != f.unit.side]
        if enemy:
            return f"§4.1: enemy infantryman {enemy[0].model.id} touches {gid}"
        try:
            check_on_map(to, self.map, "to")
        except ValueError as exc:
            return str(exc)
        c, gp = self._contact(f, g), self._pos(g)
        walk = distance(self._pos(f), c) / self.step_m
        tow = distance(gp, to) / self.step_m
        if tow == 0:
            return "§4.1: the move goes nowhere"
        cost = infantry_move_cost(walk, gun_steps=tow)  # Table 1: 2 a step
        if cost > f.soldier.speed + 1e-6:
            return (
                f"§4.1: {walk:.2f} steps to the gun and {tow:.2f} with it at half "
                f"speed cost {cost:.2f} points, more than his Ск {f.soldier.speed}"
            )
        rules = cast("BronepehotaRuleset", self)
        if walk > 0:
            why = rules.move_problem(state, f, c, None)
            if why is not None:
                return f"on the way to the gun: {why}"
        end = Point(c.x + to.x - gp.x, c.y + to.y - gp.y)
        try:
            check_on_map(end, self.map, "the soldier's end")
        except ValueError as exc:
            return str(exc)
        skip = {f.model.id, g.model.id}
        for a, b, r in ((gp, to, g.model.radius_m), (c, end, f.model.radius_m)):
            why = self._sweep_problem(state, a, b, r, skip)
            if why is not None:
                return why
        d = distance(gp, to)
        n = max(2, int(d / 2.0) + 2)
        xs = [gp.x + (to.x - gp.x) * k / (n - 1) for k in range(n)]
        ys = [gp.y + (to.y - gp.y) * k / (n - 1) for k in range(n)]
        if "water" in {str(c) for c in self.map.terrain_at(xs, ys)}:
            return "§4.1 (map): the way crosses water, an obstacle deeper than a step"
        z = self.map.elevation
        rise = abs(float(z(to.x, to.y)) - float(z(gp.x, gp.y)))
        if rise > d:
            return f"§4.1: a gradient of over 45° ({rise:.0f} m in {d:.0f} m)"
        side = f.unit.side
        near = self._touching(state, side, end, f.model.radius_m) + self._touching(
            state, side, to, g.model.radius_m
        )
        if near:  # ASSUMPTION: no melee from a move with a gun
            return (
                f"§4.1: the gun and its soldier would end touching {near[0].model.id}; "
                "leave the gun to fight"
            )
        return None

    # -- capture (§9.2) ----------------------------------------------------- #
    def capture_problem(self, state: GameState, f: Fig, gid: str) -> str | None:
        """Why soldier ``f`` may not capture gun ``gid`` (``None``: he may)."""
        if not f.infantry:
            return f"§9.2: only an infantryman captures a gun; {f.model.id} is not one"
        g = self.gun_fig(state, gid)
        if g is None:
            return f"§9.2: {gid!r} is not a gun on the map"
        if g.unit.side == f.unit.side:
            return f"§9.2: {gid} is already his side's gun"
        if not self._touch(self._pos(f), f.model.radius_m, g):
            return f"§9.2: {f.model.id} does not touch {gid}"
        others = [t for t in self.gun_touchers(state, g) if t.model.id != f.model.id]
        if others:
            return (
                f"§9.2: {others[0].model.id} touches {gid}; a gun is taken only "
                "when no infantryman touches it"
            )
        return None

    # -- what the soldier is offered ---------------------------------------- #
    def gun_actions(self, state: GameState, f: Fig) -> list[Action]:
        """Gun acts of soldier ``f`` (a sample, as the moves are): fire each
        gun he mans at each enemy he could hit, move a mobile gun he touches
        toward the nearest enemy, capture an enemy gun, and walk into contact
        with his side's unmanned gun within his reach."""
        if not f.infantry or f.soldier is None:
            return []
        from .odds import hit_probability

        rules = cast("BronepehotaRuleset", self)
        u, m = f.unit, f.model
        a = self._pos(f)
        out: list[Action] = []
        enemies = [e for e in self._figures(state) if e.unit.side != u.side]
        guns = [g for g in self._figures(state) if g.gun is not None]
        for g in guns:
            gid = g.unit.id
            if not self._touch(a, m.radius_m, g):
                continue
            if g.unit.side != u.side:
                if self.capture_problem(state, f, gid) is None and self._may(
                    state, f, "capture"
                ):
                    out.append(Capture(u.id, m.id, gid))
                continue
            if self._may(state, f, "gun") and self.man_problem(state, f, gid) is None:
                key = gun_key(gid)
                dice = self.gun_shot_dice(state, key)
                for e in enemies if dice else []:
                    assert dice is not None
                    steps = distance(a, self._pos(e)) / self.step_m
                    if hit_probability(dice[0], steps) == 0:
                        continue
                    if rules.shot_problem(state, f, e.unit.id, e.model.id, key) is None:
                        out.append(Shoot(u.id, m.id, e.unit.id, e.model.id, key))
            assert g.gun is not None
            if g.gun.mobile and enemies and self._may(state, f, "move"):
                gp = self._pos(g)
                e = min(enemies, key=lambda x: distance(gp, self._pos(x)))
                ep = self._pos(e)
                for frac in (1.0, 0.5):
                    way = frac * f.soldier.speed / 2 * self.step_m
                    to = offset(gp, bearing(gp, ep), way)
                    to = Point(round(to.x, 2), round(to.y, 2))
                    if self.move_gun_problem(state, f, gid, to) is None:
                        face = round(bearing(to, ep), 1)
                        out.append(MoveGun(u.id, m.id, gid, to, face))
                        break
        if self._may(state, f, "move"):
            reach = float(f.soldier.speed) * self.step_m
            for g in guns:
                if g.unit.side != u.side or self.crew_of(state, g):
                    continue
                assert g.gun is not None
                if self._touch(a, m.radius_m, g) or f.soldier.rank < g.gun.rank:
                    continue
                c = self._contact(f, g)
                if distance(a, c) <= reach and rules.move_problem(state, f, c) is None:
                    out.append(Move(u.id, m.id, c, round(bearing(self._pos(g), c), 1)))
        return out

    def _may(self, state: GameState, f: Fig, act: str) -> bool:
        try:
            cast("BronepehotaRuleset", self)._turn_to_act(
                state, f.unit.id, f.model.id, act
            )
        except IllegalActionError:
            return False
        return True

    # -- the events --------------------------------------------------------- #
    def apply_gun(self, ctx: RuleContext, side: str, action: MoveGun | Capture) -> None:
        """A move with a mobile gun (§4.1) or a capture (§9.2)."""
        rules = cast("BronepehotaRuleset", self)
        st = ctx.state
        ch, did = rules._begin(st, action.unit, action.soldier)
        f = self.fig(st, action.unit, action.soldier)
        g = self.gun_fig(st, action.gun)
        assert g is not None and g.gun is not None
        gp = self._pos(g)
        if isinstance(action, Capture):
            was = g.unit.side
            take = unit_change(g.unit.id, side=f.unit.side, formation=f.unit.formation)
            if self.gun_shots(st, g):  # §9.2: it fired this turn: not again
                take += unit_change(g.unit.id, shots=[st.turn, g.gun.fire_rate])
            ctx.emit(
                "capture",
                side=side,
                unit=action.unit,
                target=g.model.id,
                point_from=self._pos(f),
                point_to=gp,
                result=f"{action.soldier} captures {g.gun.name} {g.unit.id} from "
                f"{was}, its tracks as they are",
                changes=ch + take + var_change(did=[*did, "capture"]),
            )
            return
        c = self._contact(f, g)
        end = Point(
            round(c.x + action.to.x - gp.x, 2), round(c.y + action.to.y - gp.y, 2)
        )
        face = action.facing if action.facing is not None else bearing(gp, action.to)
        walk = distance(self._pos(f), c) / self.step_m
        tow = distance(gp, action.to) / self.step_m
        man = replace(f.model, position=end, facing=round(face % 360.0, 1))
        men = tuple(man if x.id == man.id else x for x in f.unit.models)
        gm = replace(g.model, position=action.to)
        ctx.emit(
            "move gun",
            side=side,
            unit=action.unit,
            target=g.model.id,
            point_from=gp,
            point_to=action.to,
            result=f"{action.soldier} {walk:.2f} steps to {g.unit.id}, then "
            f"{tow:.2f} with it at half speed ({walk + 2 * tow:.2f} points, §4.1)",
            changes=ch
            + unit_change(f.unit.id, models=men, position=men[0].position)
            + unit_change(g.unit.id, models=(gm,), position=action.to)
            + var_change(did=[*did, "move"]),
        )
