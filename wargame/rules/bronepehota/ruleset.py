"""Бронепехота 2008 on the real map: rule system ``bronepehota-2008`` (first cut).

What a game plays now (sections of ``official_rules.md``; seed 002 §2-4.1):

* A turn starts with initiative: each side rolls Д12, ties at the top roll
  again (§3.1).  The winner sets the order; ASSUMPTION: with two sides he goes
  first (the only order there is to choose).
* Sides act unit by unit in that order; a side whose units have all acted waits
  while the other finishes, unit after unit (§3.2 and its note).  A unit is a
  squad or a piloted machine (§1.1, §2).
* A squad acts soldier by soldier: each soldier once moves, shoots and melees,
  in any order, any skipped; once the next soldier begins, the previous one is
  done (§3.2 note 1).  :class:`EndSquad` finishes the unit (the rest skip).
* A soldier moves in a straight line of at most Ск steps (§4.1), not through
  other figures (§4.1), not over water, nor up or down a gradient over 45°
  between its ends (§4.1, the map's DEM); he then faces any way (§4.1).
* A machine moves only with a pilot (§1.6, §4.2), with the speed of its
  durability sector (§4.2), turning on the spot and going forward (or straight
  back) by Table 2 (:mod:`.movement`); a flier moves, shoots, moves and never
  melees (§3.2), and flies over figures but round woods, taller than its
  flight (§4.2).  Its pilot is a soldier of rank at least the machine's, taken
  out of his squad (§2.3, §3.2 note 3; the scenario's ``pilot``); its weapons
  are the scenario's ``loadout`` from the arsenal (§2.2).
* Ending in contact with an enemy figure is a melee at once, the mover the
  attacker (§4.1 note, §8): Table 6's strengths, a tie repelled; a soldier who
  loses is destroyed, a machine takes the difference in damage and its pilot a
  survival test; from outside the defender's field of view a surprise attack
  (§8.3).  A pilotless machine defends with its armour alone.
* A shot needs the target in the front half-circle of the shooter (a machine:
  of its pilot, who faces the machine's front, ASSUMPTION), the shooter in
  contact with no enemy, and the target at least partly in sight (§7.3); its
  cover (Table 5) is the visible part of the figure by the map's line of
  sight; range roll, then power dice (§7.4); a machine's armour is its
  durability cell (§5.2); a damaged machine's pilot takes one survival test
  Д6 (§7.4 III); a flier whose pilot dies crash-lands, Д6 damages (§4.3).  A
  machine fires each weapon once, up to its rate of fire (§7.6), each shot
  costing its power dice of ammunition (§7.7, ``[rules] limited_ammo``).
* A machine at 0 is destroyed; its surviving pilot stands where it stood and
  fights on as an infantryman (§5.1).
* A side whose soldiers (infantry and pilots) are all dead loses (§1.1,
  §12.1).  The core rules have no turn limit; ASSUMPTION: at a scenario's turn
  limit the side with more objective points wins (an objective is held by a
  side with a soldier within 2 steps and no enemy there), then the side with
  more soldiers left.

Not on the map yet: guns, capture of pilotless machines, pilots leaving,
repair, towing, jumps, grenades, blasts, aimed fire and panic.

ASSUMPTION (ground scale): **1 step (5 cm on the table) = 10 m of the map**,
``[rules] step_m`` in a scenario.  The official table (120 x 80 cm in the
"Цербер" missions, research §5) is then 240 x 160 m, a street fight's ground;
a Д20 weapon reaches 200 m and a soldier of Ск 5 goes 50 m a turn.  True scale
of the figures (a 1.8 m soldier about 4 cm tall, 1:45) would make a step 2.25 m,
too small for the map's 10 m land cover; a step of 25 m (Flames of War's inch)
would put the whole table on one hill.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, ClassVar, NamedTuple

from wargame.engine import (
    Action,
    GameState,
    IllegalActionError,
    Model,
    ModelSpec,
    Outcome,
    Point,
    RuleContext,
    RulesetBase,
    Scenario,
    ScenarioError,
    Side,
    Unit,
    candidate_moves,
    locate_point,
    place_units,
    state_change,
    unit_change,
    var_change,
)
from wargame.engine.points import bearing, check_on_map, distance
from wargame.engine.present import Reach
from wargame.engine.state import Formation

from .damage import apply_damage, can_pilot, survival_test
from .data import Armlists, Machine, Soldier, Weapon, choose_loadout, load_armlists
from .dice import Dice
from .melee import (
    frozen_defence,
    machine_strength,
    resolve_melee,
    soldier_attack,
    soldier_defence,
)
from .movement import machine_move_cost
from .odds import hit_probability, shot_pmf
from .shooting import (
    check_rate_of_fire,
    cover_bonus,
    damage_from,
    range_result,
    spend_ammo,
    steps,
    visibility_of,
)

__all__ = [
    "BASE_RADIUS_STEPS",
    "STEP_M",
    "BronepehotaRuleset",
    "EndSquad",
    "Move",
    "Shoot",
]

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


@dataclass(frozen=True)
class Move(Action):
    """A soldier (or a machine: ``soldier`` = its model id) moves in a straight
    line to ``to``, then faces ``facing`` (compass degrees; default: the way he
    went).  A machine pays a point for each turn (Table 2)."""

    type = "move"
    unit: str
    soldier: str
    to: Point
    facing: float | None = None


@dataclass(frozen=True)
class Shoot(Action):
    """A soldier shoots his personal weapon, or a machine its ``weapon``
    (``"name#k"``, the k-th of that name in its loadout), at an enemy figure."""

    type = "shoot"
    unit: str
    soldier: str
    target: str
    target_soldier: str
    weapon: str = ""


@dataclass(frozen=True)
class EndSquad(Action):
    """The unit has acted (its remaining soldiers skip); the next side's unit."""

    type = "end_squad"
    unit: str


class Fig(NamedTuple):
    """A figure on the table: a soldier, or a machine with its pilot (or none)."""

    unit: Unit
    model: Model
    soldier: Soldier | None  # the infantryman, or the machine's pilot
    machine: Machine | None

    @property
    def armour(self) -> int:
        """Бр of a soldier; a machine's durability cell (§5.2)."""
        if self.machine is not None:
            return int(self.unit.attrs["durability"])
        assert self.soldier is not None
        return self.soldier.armour

    @property
    def airborne(self) -> bool:
        """A piloted flier is in the air (§4.2-4.3)."""
        return bool(
            self.machine is not None and self.machine.flier and self.soldier is not None
        )


def _angle_off(facing: float | None, a: Point, b: Point) -> float:
    """Degrees between ``facing`` and the bearing from ``a`` to ``b`` (0..180)."""
    if facing is None or distance(a, b) == 0:
        return 0.0
    d = (bearing(a, b) - facing) % 360.0
    return min(d, 360.0 - d)


def _keys(loadout: Sequence[Weapon]) -> list[str]:
    """``name#k`` for each weapon of a loadout (k counts copies of a name)."""
    seen: dict[str, int] = {}
    out = []
    for w in loadout:
        seen[w.name] = seen.get(w.name, 0) + 1
        out.append(f"{w.name}#{seen[w.name]}")
    return out


class BronepehotaRuleset(RulesetBase):
    """Бронепехота 2008 squads and machines on the real map (module docstring)."""

    id = "bronepehota-2008"
    title = "Бронепехота (rules of 05.08.08)"
    positions = "point"
    phases = ("setup", "initiative", "play", "end")
    event_kinds = (
        "turn",
        "initiative",
        "wait",
        "move",
        "melee roll",
        "melee",
        "aim",
        "range",
        "power",
        "shot",
        "survival",
        "crash landing",
        "squad done",
        "end",
    )
    action_types: ClassVar[Mapping[str, type[Action]]] = {
        c.type: c for c in (Move, Shoot, EndSquad)
    }
    scenario_keys: ClassVar[Mapping[str, frozenset[str]]] = {
        "scenario": frozenset({"objectives", "rules"}),
        "units": frozenset({"pilot", "loadout"}),
        "rules": frozenset({"step_m", "limited_ammo"}),
    }

    def __init__(self, scenario: Scenario, game_map: Any) -> None:
        self.scenario = scenario
        self.map = game_map
        self.sides = [s["id"] for s in scenario.sides]
        self.arm: Armlists = load_armlists()
        problems: list[str] = []
        rules = scenario.section("rules")
        step = rules.get("step_m", STEP_M)
        if (
            isinstance(step, bool)
            or not isinstance(step, int | float)
            or not (1.0 <= float(step) <= 100.0)
        ):
            problems.append(
                scenario.problem("rules.step_m", f"{step!r} must be 1..100 metres")
            )
            step = STEP_M
        self.step_m = float(step)
        ammo = rules.get("limited_ammo", True)
        if not isinstance(ammo, bool):
            problems.append(
                scenario.problem("rules.limited_ammo", "must be true/false")
            )
        # ASSUMPTION: limited ammunition unless the scenario says otherwise: the
        # sheets carry the track and §7.7 leaves it to agreement
        self.limited_ammo = bool(ammo)
        self.radius_m = BASE_RADIUS_STEPS * self.step_m
        problems += self._unit_problems()
        if problems:
            raise ScenarioError(problems)
        placed = place_units(
            scenario,
            game_map,
            models=lambda raw: (
                [
                    ModelSpec(
                        "machine", self._machine_radius(self.arm.machines[raw["type"]])
                    )
                ]
                if raw["type"] in self.arm.machines
                else [ModelSpec("soldier", self.radius_m)] * 6
            ),
        )
        problems += placed.problems
        self.placed = placed.units
        self.objectives: dict[str, tuple[Point, int]] = {}
        for i, o in enumerate(scenario.objectives):
            p, key, why = locate_point(game_map, o)
            name = str(o.get("id") or o.get("name") or f"objective{i + 1}")
            if p is None:
                problems.append(scenario.problem(f"objectives[{i}].{key}", str(why)))
            else:
                self.objectives[name] = (p, int(o.get("vp", 1)))
        if problems:
            raise ScenarioError(problems)
        self._sight: dict[tuple[float, ...], float] = {}

    def _side_of(self, raw: Mapping[str, Any]) -> str | None:
        if raw.get("side"):
            return str(raw["side"])
        for f in self.scenario.formations:
            if f.get("id") == raw.get("formation"):
                return str(f.get("side"))
        return None

    def _machine_radius(self, mach: Machine) -> float:
        return MACHINE_RADIUS_STEPS["heavy" if mach.heavy else "light"] * self.step_m

    def _unit_problems(self) -> list[str]:
        """Unit types, pilots (rank, §2.3) and loadouts (§2.2) of the scenario."""
        sc = self.scenario
        problems: list[str] = []
        squads = {
            str(r.get("id")): r for r in sc.units if r.get("type") in self.arm.squads
        }
        self.pilots: dict[str, tuple[str, int]] = {}
        self.loadouts: dict[str, tuple[Weapon, ...]] = {}
        taken: dict[str, str] = {}
        for i, raw in enumerate(sc.units):
            uid, t = str(raw.get("id")), raw.get("type")
            where = f"units[{i}] ({uid!r})"
            if t in self.arm.squads:
                for k in ("pilot", "loadout"):
                    if k in raw:
                        problems.append(
                            sc.problem(f"{where}.{k}", "only machines have it")
                        )
                continue
            mach = self.arm.machines.get(str(t))
            if mach is None:
                problems.append(
                    sc.problem(
                        f"{where}.type",
                        f"{t!r} is not a squad or machine of the 2008 armlists; use "
                        f"one of {sorted([*self.arm.squads, *self.arm.machines])}",
                    )
                )
                continue
            pilot = raw.get("pilot")
            sq_id, _, num = str(pilot).rpartition(".")
            sq = squads.get(sq_id)
            if sq is None or not num.isdigit() or not 1 <= int(num) <= 6:
                problems.append(
                    sc.problem(
                        f"{where}.pilot",
                        f"{pilot!r}: name a soldier of a squad of the scenario, "
                        "'<squad id>.<1-6>' (every machine starts with a pilot, §1.6)",
                    )
                )
            else:
                soldier = self.arm.squads[sq["type"]].soldiers[int(num) - 1]
                if self._side_of(sq) != self._side_of(raw):
                    problems.append(
                        sc.problem(f"{where}.pilot", f"{pilot!r} is not on its side")
                    )
                elif not can_pilot(soldier.rank, mach.rank):
                    problems.append(
                        sc.problem(
                            f"{where}.pilot",
                            f"{pilot!r} has rank {soldier.rank}, below {mach.name}'s "
                            f"rank {mach.rank} (§2.3)",
                        )
                    )
                elif str(pilot) in taken:
                    problems.append(
                        sc.problem(
                            f"{where}.pilot",
                            f"{pilot!r} already pilots {taken[str(pilot)]!r}",
                        )
                    )
                else:
                    taken[str(pilot)] = uid
                    self.pilots[uid] = (sq_id, int(num))
            names = raw.get("loadout")
            if names is None:  # ASSUMPTION: the whole arsenal but equipment
                names = [
                    w.name
                    for w in mach.weapons
                    if w.kind != "equipment"
                    for _ in range(w.count)
                ]
            if not isinstance(names, list) or not all(
                isinstance(n, str) for n in names
            ):
                problems.append(
                    sc.problem(f"{where}.loadout", "must be a list of names")
                )
                continue
            try:
                self.loadouts[uid] = choose_loadout(mach, names)
            except ValueError as exc:
                problems.append(sc.problem(f"{where}.loadout", str(exc)))
        return problems

    # -- set-up ------------------------------------------------------------- #
    def initial_state(self) -> GameState:
        st = GameState(ruleset=self.id, phase="setup")
        st.sides = {
            s["id"]: Side(s["id"], s.get("name", s["id"])) for s in self.scenario.sides
        }
        st.formations = {
            f["id"]: Formation(f["id"], f["side"], f.get("name", f["id"]), f.get("hq"))
            for f in self.scenario.formations
        }
        piloting = {v: k for k, v in self.pilots.items()}
        for raw in self.scenario.units:
            uid = raw["id"]
            side = raw.get("side") or st.formations[raw["formation"]].side
            pu = self.placed.get(uid)
            mach = self.arm.machines.get(raw["type"])
            attrs: dict[str, Any] = {}
            if mach is None:
                models = tuple(
                    Model(
                        f"{uid}.{n + 1}",
                        "soldier",
                        position=None if pu is None else pu.models[n].position,
                        facing=None if pu is None else pu.models[n].facing,
                        radius_m=self.radius_m,
                        attrs={"squad": raw["type"], "n": n + 1},
                    )
                    for n in range(6)
                    if (uid, n + 1) not in piloting  # §3.2 note 3
                )
            else:
                sq_id, n = self.pilots[uid]
                sq_type = next(
                    r["type"] for r in self.scenario.units if r["id"] == sq_id
                )
                models = (
                    Model(
                        f"{uid}.m",
                        "machine",
                        position=None if pu is None else pu.models[0].position,
                        facing=None if pu is None else pu.models[0].facing,
                        radius_m=self._machine_radius(mach),
                    ),
                )
                attrs = {
                    "durability": mach.durability_max,  # §1.6: sliders at the top
                    "ammo": mach.ammo_max,
                    "pilot": {"id": f"{sq_id}.{n}", "squad": sq_type, "n": n},
                    "loadout": _keys(self.loadouts[uid]),
                }
            st.units[uid] = Unit(
                uid,
                raw.get("name", uid),
                side,
                raw.get("formation"),
                raw["type"],
                None if pu is None else pu.position,
                facing=None if pu is None else round(pu.facing) % 360,
                models=models,
                attrs=attrs,
            )
        return st

    # -- figures ------------------------------------------------------------ #
    def _soldier(self, attrs: Mapping[str, Any]) -> Soldier:
        return self.arm.squads[str(attrs["squad"])].soldiers[int(attrs["n"]) - 1]

    def _fig(self, u: Unit, m: Model) -> Fig:
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
        heights = tuple(
            h + self._height(target)
            for h in SIGHT_HEIGHTS_M["machine" if target.machine else "soldier"]
        )
        key = (a.x, a.y, b.x, b.y, eye, *heights)
        if key not in self._sight:
            seen = sum(
                bool(
                    self.map.los(
                        (a.x, a.y),
                        (b.x, b.y),
                        observer_height_m=eye,
                        target_height_m=h,
                        hex_rule=False,
                    ).visible
                )
                for h in heights
            )
            self._sight[key] = seen / len(heights)
        return self._sight[key]

    def _turn_to_act(self, state: GameState, uid: str, mid: str, act: str) -> Fig:
        """Who acts, checked against the turn: the side, the unit, the figure."""
        side = self.current_side(state)
        if side is None:
            raise IllegalActionError("the game is over")
        f = self.fig(state, uid, mid)
        if f.unit.side != side:
            raise IllegalActionError(f"{uid} is not {side}'s unit")
        active = state.vars.get("active")
        if active is None and f.unit.attrs.get("acted"):
            raise IllegalActionError(f"§3.2: unit {uid} has acted this turn")
        if active is not None and active != uid:
            raise IllegalActionError(f"§3.2: unit {active} is acting; end it first")
        if mid in state.vars.get("done", ()):
            raise IllegalActionError(f"§3.2 note 1: soldier {mid} has acted this turn")
        if f.machine is not None and f.soldier is None:
            raise IllegalActionError(f"§4.3: {uid} has no pilot and cannot act")
        did = (
            list(state.vars.get("did", ())) if state.vars.get("current") == mid else []
        )
        if f.machine is not None and f.machine.flier and act == "move":
            # §3.2: a flier moves twice (ASSUMPTION: in any order with its shots)
            if did.count("move") >= 2:
                raise IllegalActionError(f"§3.2: flier {uid} has moved twice this turn")
        elif f.machine is not None and act == "shoot":
            pass  # each weapon once, up to the rate of fire (§7.6): shot_problem
        elif act in did:
            raise IllegalActionError(f"§3.2: {mid} may {act} once a turn")
        return f

    # -- moves and shots ---------------------------------------------------- #
    def _machine_moves(
        self, f: Fig, to: Point, facing: float | None
    ) -> tuple[list[tuple[str, float]], float]:
        """Table 2 manoeuvres of a machine going straight to ``to``, and its facing."""
        a = self._pos(f)
        d = distance(a, to) / self.step_m
        assert f.machine is not None
        loco = f.machine.locomotion
        off = _angle_off(f.model.facing, a, to)
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

    def move_problem(
        self, state: GameState, f: Fig, to: Point, facing: float | None = None
    ) -> str | None:
        """Why figure ``f`` may not move to ``to`` (``None``: it may)."""
        try:
            check_on_map(to, self.map, "to")
        except ValueError as exc:
            return str(exc)
        start = self._pos(f)
        d = distance(start, to)
        if d == 0:
            return "§4.1: the move goes nowhere"
        if f.machine is None:
            assert f.soldier is not None
            if d > f.soldier.speed * self.step_m + 1e-6:
                return (
                    f"§4.1: {d / self.step_m:.2f} steps is more than his Ск "
                    f"{f.soldier.speed} ({f.soldier.speed * self.step_m:g} m)"
                )
        else:
            speed = f.machine.speed_at(int(f.unit.attrs["durability"]))
            moves, _ = self._machine_moves(f, to, facing)
            try:
                cost = machine_move_cost(f.machine.locomotion, moves)
            except IllegalActionError as exc:
                return str(exc)
            if cost > speed + 1e-6:
                return (
                    f"§4.2: the move costs {cost:.2f} speed points (turns, Table 2), "
                    f"more than {f.machine.name}'s speed {speed} in its sector"
                )
        r = f.model.radius_m
        for o in self._figures(state):
            if o.model.id == f.model.id or f.airborne != o.airborne:
                continue  # a flier flies over figures on the ground
            p = self._pos(o)
            t = max(
                0.0,
                min(
                    1.0,
                    (
                        (p.x - start.x) * (to.x - start.x)
                        + (p.y - start.y) * (to.y - start.y)
                    )
                    / (d * d),
                ),
            )
            q = Point(start.x + t * (to.x - start.x), start.y + t * (to.y - start.y))
            if distance(q, p) < r + o.model.radius_m - 1e-6:
                return (
                    f"§4.1: the way passes through {o.model.id} at ({p.x:.1f}, "
                    f"{p.y:.1f}); go round, or stop touching it"
                )
        # the ground under the way, sampled every 2 m (the map's land cover is 10 m)
        n = max(2, math.ceil(d / 2.0) + 1)
        xs = [start.x + (to.x - start.x) * k / (n - 1) for k in range(n)]
        ys = [start.y + (to.y - start.y) * k / (n - 1) for k in range(n)]
        ground = {str(c) for c in self.map.terrain_at(xs, ys)}
        if f.airborne:
            if "woods" in ground:  # §4.2: trees (20 m) stand above its flight
                return "§4.2: the way crosses woods, taller than the flight; fly round"
            return None
        if "water" in ground:
            return "§4.1 (map): the way crosses water, an obstacle deeper than a step"
        rise = abs(
            float(self.map.elevation(to.x, to.y))
            - float(self.map.elevation(start.x, start.y))
        )
        if rise > d:
            return (
                f"§4.1: a gradient of over 45° ({rise:.0f} m up or down in {d:.0f} m)"
            )
        return None

    def _weapon(self, f: Fig, key: str) -> Weapon | None:
        if f.machine is None or key not in f.unit.attrs.get("loadout", ()):
            return None
        return f.machine.weapon(key.rpartition("#")[0])

    def _dice(self, state: GameState, f: Fig, key: str) -> tuple[Dice, Dice] | str:
        """The range and power dice a figure fires with, or why it cannot."""
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

    def shot_problem(
        self, state: GameState, f: Fig, tid: str, tmid: str, key: str = ""
    ) -> str | None:
        """Why figure ``f`` may not shoot at ``tmid`` (``None``: it may)."""
        dice = self._dice(state, f, key)
        if isinstance(dice, str):
            return dice
        try:
            t = self.fig(state, tid, tmid)
        except IllegalActionError as exc:
            return str(exc)
        if t.unit.side == f.unit.side:
            return f"{tmid} is a friend"
        a, b = self._pos(f), self._pos(t)
        if not f.airborne and self._touching(state, f.unit.side, a, f.model.radius_m):
            return f"§7.3: {f.model.id} touches an enemy (in melee) and may not shoot"
        if _angle_off(f.model.facing, a, b) > 90.0 + 1e-9:
            return f"§7.3: {tmid} is outside {f.model.id}'s field of view (behind)"
        if self.visible_part(f, t) == 0.0:
            return f"§7.3: {f.model.id} cannot see {tmid} (no line of fire)"
        return None

    # -- protocol ------------------------------------------------------------ #
    def current_side(self, state: GameState) -> str | None:
        return str(state.vars["side"]) if state.phase == "play" else None

    def advance(self, ctx: RuleContext) -> None:
        for _ in range(1000):
            st = ctx.state
            if st.phase == "setup":
                ctx.emit(
                    "turn", result="turn 1", changes=state_change(phase="initiative")
                )
            elif st.phase == "initiative":
                self._initiative(ctx)
            elif st.phase == "play":
                if any(self._soldiers_left(st, s) == 0 for s in self.sides):
                    ctx.emit(
                        "end", result="annihilation", changes=state_change(phase="end")
                    )
                    return
                if st.vars.get("active") is not None:
                    return
                side = str(st.vars["side"])
                if self._ready(st, side):
                    return
                waiting = [s for s in st.vars["order"] if self._ready(st, s)]
                if waiting:  # §3.2 note: a side out of units waits
                    ctx.emit(
                        "wait",
                        side=side,
                        result=f"{waiting[0]} plays on",
                        changes=var_change(side=waiting[0]),
                    )
                    return
                if st.turn >= self.scenario.turns:
                    ctx.emit(
                        "end", result="turn limit", changes=state_change(phase="end")
                    )
                    return
                ch = state_change(turn=st.turn + 1, phase="initiative")
                for u in st.units.values():
                    if u.attrs.get("acted"):
                        ch += unit_change(u.id, acted=None)
                ctx.emit("turn", result=f"turn {st.turn + 1}", changes=ch)
            else:
                return

    def _initiative(self, ctx: RuleContext) -> None:
        """§3.1: everyone rolls Д12; the highest has the initiative, ties roll again."""
        rolling = list(self.sides)
        while True:
            faces = {
                s: ctx.roll(1, sides=12, kind="initiative", side=s)[0] for s in rolling
            }
            best = max(faces.values())
            rolling = [s for s in rolling if faces[s] == best]
            if len(rolling) == 1:
                break
        winner = rolling[0]
        order = [winner, *[s for s in self.sides if s != winner]]
        ctx.emit(
            "initiative",
            side=winner,
            result=f"{winner} first",
            changes=state_change(phase="play")
            + var_change(
                side=winner,
                order=order,
                active=None,
                current=None,
                did=[],
                done=[],
                fired=[],
            ),
        )

    def _figure_actions(self, state: GameState, f: Fig) -> list[Action]:
        out: list[Action] = []
        u, m = f.unit, f.model
        a = self._pos(f)
        enemies = [e for e in self._figures(state) if e.unit.side != u.side]
        keys = [""] if f.machine is None else list(u.attrs.get("loadout", ()))
        try:
            self._turn_to_act(state, u.id, m.id, "shoot")
        except IllegalActionError:
            keys = []
        for key in keys:
            dice = self._dice(state, f, key)
            if isinstance(dice, str):
                continue
            for e in enemies:
                b = self._pos(e)
                if hit_probability(dice[0], distance(a, b) / self.step_m) == 0:
                    continue
                if self.shot_problem(state, f, e.unit.id, e.model.id, key) is None:
                    out.append(Shoot(u.id, m.id, e.unit.id, e.model.id, key))
        if enemies:
            try:
                self._turn_to_act(state, u.id, m.id, "move")
            except IllegalActionError:
                return out
            if f.machine is not None:
                points = f.machine.speed_at(int(u.attrs["durability"])) - 1
                reach = max(points, 0) * self.step_m
            else:
                assert f.soldier is not None
                reach = float(f.soldier.speed) * self.step_m
            goal = min(enemies, key=lambda e: distance(a, self._pos(e)))
            g = self._pos(goal)
            pts: list[Point] = []
            gap = distance(a, g)
            contact = m.radius_m + goal.model.radius_m
            if gap - contact <= reach and not f.airborne:  # a charge (melee, §8)
                k = (gap - contact) / gap
                pts.append(
                    Point(
                        round(a.x + (g.x - a.x) * k, 2), round(a.y + (g.y - a.y) * k, 2)
                    )
                )
            objectives = {k: p for k, (p, _) in self.objectives.items()}
            if reach > 0:
                for c in candidate_moves(
                    a, reach, game_map=self.map, objectives=objectives, directions=4
                ):
                    pts.append(c.point)
            for p in pts:
                if distance(p, a) == 0:
                    continue
                face = None if f.machine is not None else round(bearing(p, g), 1)
                if self.move_problem(state, f, p, face) is None:
                    out.append(Move(u.id, m.id, p, face))
        return out

    def legal_actions(self, state: GameState) -> list[Action]:
        side = self.current_side(state)
        if side is None:
            return []
        active = state.vars.get("active")
        units = (
            [state.units[active]] if active is not None else self._ready(state, side)
        )
        out: list[Action] = []
        done = set(state.vars.get("done", ()))
        current = state.vars.get("current")
        for u in units:
            todo = [
                m
                for m in u.models
                if m.id not in done and isinstance(m.position, Point)
            ]
            # a sample: the figure acting now and the next two (any order is legal)
            todo.sort(key=lambda m: (m.id != current, m.id))
            for m in todo[:3]:
                f = self._fig(u, m)
                if f.machine is None or f.soldier is not None:
                    out += self._figure_actions(state, f)
            out.append(EndSquad(u.id))
        return out

    def check(self, state: GameState, action: Action) -> None:
        side = self.current_side(state)
        if side is None:
            raise IllegalActionError("the game is over")
        if isinstance(action, Move):
            f = self._turn_to_act(state, action.unit, action.soldier, "move")
            if action.facing is not None and not math.isfinite(action.facing):
                raise IllegalActionError(f"facing {action.facing!r} is not a bearing")
            why = self.move_problem(state, f, action.to, action.facing)
            if why is not None:
                raise IllegalActionError(f"{f.model.id} cannot move: {why}")
        elif isinstance(action, Shoot):
            f = self._turn_to_act(state, action.unit, action.soldier, "shoot")
            why = self.shot_problem(
                state, f, action.target, action.target_soldier, action.weapon
            )
            if why is not None:
                raise IllegalActionError(f"{f.model.id} cannot shoot: {why}")
        elif isinstance(action, EndSquad):
            u = state.units.get(action.unit)
            if u is None or u.destroyed or u.side != side:
                raise IllegalActionError(f"{action.unit!r} is not a unit of {side}")
            active = state.vars.get("active")
            if active is not None and active != u.id:
                raise IllegalActionError(f"§3.2: unit {active} is acting, not {u.id}")
            if active is None and u.id not in {r.id for r in self._ready(state, side)}:
                raise IllegalActionError(f"§3.2: unit {u.id} has acted or cannot act")
        else:
            raise IllegalActionError(f"{action} is not an action of {self.id}")

    # -- resolution --------------------------------------------------------- #
    def _begin(
        self, st: GameState, uid: str, mid: str
    ) -> tuple[tuple[Any, ...], list[str]]:
        """The vars changes that make ``mid`` the acting figure; his acts so far."""
        ch: tuple[Any, ...] = ()
        if st.vars.get("active") is None:
            ch += var_change(active=uid)
        if st.vars.get("current") != mid:
            done = list(st.vars.get("done", ()))
            if st.vars.get("current") is not None:
                done.append(st.vars["current"])
            return ch + var_change(current=mid, did=[], done=done), []
        return ch, list(st.vars.get("did", ()))

    def _kill(self, st: GameState, uid: str, mid: str) -> tuple[Any, ...]:
        """A soldier destroyed (§5.1)."""
        u = st.units[uid]
        left = tuple(x for x in u.models if x.id != mid)
        if not left:
            return unit_change(uid, models=left, strength="destroyed")
        return unit_change(uid, models=left, position=left[0].position)

    def _hurt_machine(
        self, ctx: RuleContext, side: str, t: Fig, dmg: int, why: str
    ) -> None:
        """Damages on a machine's track (§5.1), then its pilot's test (§7.4 III,
        §8.2)."""
        st = ctx.state
        u = st.units[t.unit.id]
        left = apply_damage(int(u.attrs["durability"]), dmg)
        pilot = u.attrs.get("pilot")
        p = self._pos(t)
        if pilot is not None:
            ps = self._soldier(pilot)
            face = ctx.roll(
                1,
                sides=6,
                kind="survival",
                side=u.side,
                unit=u.id,
                target=pilot["id"],
                detail=f"pilot Бр {ps.armour}",
            )[0]
            if survival_test(face, ps.armour) == "dies":
                ctx.emit(
                    "survival",
                    side=u.side,
                    unit=u.id,
                    target=pilot["id"],
                    result="pilot killed",
                    changes=unit_change(u.id, pilot=None),
                )
                if t.airborne and left > 0:  # §4.3: crash landing, Д6 damages
                    c = ctx.roll(
                        1, sides=6, kind="crash landing", side=u.side, unit=u.id
                    )
                    left = apply_damage(left, c[0])
                pilot = None
        if left > 0:
            ctx.emit(
                "shot" if why == "shot" else "melee",
                side=side,
                unit=u.id,
                target=t.model.id,
                hits=dmg,
                result=f"durability {left}",
                changes=unit_change(u.id, durability=left),
            )
            return
        ch = unit_change(u.id, durability=0)
        if pilot is None:
            ch += unit_change(u.id, models=(), strength="destroyed")
            res = "machine destroyed"
        else:  # §5.1: the pilot stands where it stood and fights on
            man = Model(
                pilot["id"],
                "soldier",
                position=p,
                facing=t.model.facing,
                radius_m=self.radius_m,
                attrs={"squad": pilot["squad"], "n": pilot["n"]},
            )
            ch += unit_change(u.id, models=(man,), pilot=None, loadout=[])
            res = f"machine destroyed, pilot {pilot['id']} on foot"
        ctx.emit(
            "shot" if why == "shot" else "melee",
            side=side,
            unit=u.id,
            target=t.model.id,
            hits=dmg,
            result=res,
            changes=ch,
        )

    def apply(self, ctx: RuleContext, action: Action) -> None:
        st = ctx.state
        side = str(st.vars["side"])
        if isinstance(action, EndSquad):
            order = list(st.vars["order"])
            nxt = order[(order.index(side) + 1) % len(order)]
            ctx.emit(
                "squad done",
                side=side,
                unit=action.unit,
                changes=unit_change(action.unit, acted=True)
                + var_change(
                    side=nxt, active=None, current=None, did=[], done=[], fired=[]
                ),
            )
            return
        assert isinstance(action, Move | Shoot)
        ch, did = self._begin(st, action.unit, action.soldier)
        f = self.fig(st, action.unit, action.soldier)
        if isinstance(action, Shoot):
            self._shoot(ctx, side, ch, did, f, action)
            return
        a = self._pos(f)
        if f.machine is not None:
            _, face = self._machine_moves(f, action.to, action.facing)
        else:
            face = action.facing if action.facing is not None else bearing(a, action.to)
        moved = replace(f.model, position=action.to, facing=round(face % 360.0, 1))
        models = tuple(moved if x.id == moved.id else x for x in f.unit.models)
        did.append("move")
        ctx.emit(
            "move",
            side=side,
            unit=f.unit.id,
            target=moved.id,
            point_from=a,
            point_to=action.to,
            result=f"{distance(a, action.to) / self.step_m:.2f} steps",
            changes=ch
            + unit_change(f.unit.id, models=models, position=models[0].position)
            + var_change(did=did),
        )
        mover = self._fig(ctx.state.units[f.unit.id], moved)
        if mover.airborne or "melee" in did:
            return  # §3.2: fliers never melee; one melee a turn
        touched = self._touching(ctx.state, side, action.to, moved.radius_m)
        if touched:
            self._melee(ctx, side, mover, touched)

    def _strength(self, f: Fig, *, surprised: bool = False) -> Dice | int:
        """Table 6: a soldier Д6+ББ; a machine Д6+armour+ББ; pilotless: armour."""
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

    def _melee(self, ctx: RuleContext, side: str, f: Fig, touched: list[Fig]) -> None:
        """§4.1 note, §8: contact with an enemy figure is a melee at once."""
        a = self._pos(f)
        t = min(touched, key=lambda e: distance(a, self._pos(e)))
        b = self._pos(t)
        surprise = _angle_off(t.model.facing, b, a) > 90.0 + 1e-9  # §8.3: from behind
        attack = self._strength(f)
        assert isinstance(attack, Dice)
        defence: Dice | int
        if t.machine is None:
            assert t.soldier is not None
            defence = soldier_defence(t.soldier.armour)
        else:
            defence = self._strength(t, surprised=surprise)
        af = ctx.roll(
            2 if surprise else 1,
            sides=6,
            kind="melee roll",
            side=side,
            unit=f.unit.id,
            target=t.model.id,
            detail=f"attack {attack}" + (" (surprise)" if surprise else ""),
        )
        dface = None
        if isinstance(defence, Dice):
            dface = ctx.roll(
                1,
                sides=6,
                kind="melee roll",
                side=t.unit.side,
                unit=t.unit.id,
                target=f.model.id,
                detail=f"defence {defence}",
            )[0]
        r = resolve_melee(attack, af, defence, dface, surprise=surprise)
        did = [*ctx.state.vars.get("did", ()), "melee"]
        words = f"{r.attack} vs {r.defence}: " + ("won" if r.won else "repelled")
        lost = r.won and t.machine is None
        ctx.emit(
            "melee",
            side=side,
            unit=f.unit.id,
            target=t.model.id,
            point_from=a,
            point_to=b,
            result=words + (", destroyed" if lost else ""),
            changes=(self._kill(ctx.state, t.unit.id, t.model.id) if lost else ())
            + var_change(did=did),
        )
        if r.won and t.machine is not None:  # Table 7: damage = the difference
            self._hurt_machine(ctx, side, t, r.damage, "melee")

    def _shoot(
        self,
        ctx: RuleContext,
        side: str,
        ch: tuple[Any, ...],
        did: list[str],
        f: Fig,
        action: Shoot,
    ) -> None:
        st = ctx.state
        t = self.fig(st, action.target, action.target_soldier)
        dice = self._dice(st, f, action.weapon)
        assert not isinstance(dice, str)
        rng, power = dice
        a, b = self._pos(f), self._pos(t)
        dist = distance(a, b) / self.step_m
        vis = visibility_of(self.visible_part(f, t))
        cover = cover_bonus(vis)  # Table 5
        did.append("shoot")
        extra: tuple[Any, ...] = ()
        if f.machine is not None:
            extra = var_change(fired=[*st.vars.get("fired", ()), action.weapon])
            if self.limited_ammo:  # §7.7: before the shot, one cell per power die
                extra += unit_change(
                    f.unit.id, ammo=spend_ammo(int(f.unit.attrs["ammo"]), power)
                )
        ctx.emit(
            "aim",
            side=side,
            unit=f.unit.id,
            target=t.model.id,
            changes=ch + var_change(did=did) + extra,
            detail=f"{action.weapon or 'personal weapon'} {rng}/{power} at "
            f"{steps(dist)} steps, target {vis.replace('_', ' ')}",
        )
        rf = ctx.roll(
            1,
            sides=rng.sides,
            kind="range",
            side=side,
            unit=f.unit.id,
            target=t.model.id,
            needed=max(1, steps(dist) - rng.bonus),
        )
        reach = range_result(rng, rf[0])
        if reach < steps(dist):
            ctx.emit(
                "shot",
                side=side,
                unit=f.unit.id,
                target=t.model.id,
                point_from=a,
                point_to=b,
                result=f"miss ({reach} < {steps(dist)})",
            )
            return
        armour = t.armour + cover
        pf = ctx.roll(
            power.count,
            sides=power.sides,
            kind="power",
            side=side,
            unit=f.unit.id,
            target=t.model.id,
            needed=armour + 1,
        )
        dmg = damage_from(power, pf, armour)
        if t.machine is None or dmg == 0:
            ctx.emit(
                "shot",
                side=side,
                unit=f.unit.id,
                target=t.model.id,
                point_from=a,
                point_to=b,
                hits=dmg,
                result="destroyed" if dmg else f"armour {armour} holds",
                changes=self._kill(st, t.unit.id, t.model.id) if dmg else (),
            )
            return
        self._hurt_machine(ctx, side, t, dmg, "shot")

    # -- the end ------------------------------------------------------------ #
    def outcome(self, state: GameState) -> Outcome | None:
        if state.phase != "end":
            return None
        alive = {s: self._soldiers_left(state, s) for s in self.sides}
        vp = self.victory_points(state)
        standing = [s for s in self.sides if alive[s]]
        if len(standing) < len(self.sides):
            win = standing[0] if len(standing) == 1 else None
            return Outcome(win, "annihilation", vp, state.turn)
        key = {s: (vp[s], alive[s]) for s in self.sides}
        best = max(key.values())
        top = [s for s in self.sides if key[s] == best]
        return Outcome(top[0] if len(top) == 1 else None, "turn limit", vp, state.turn)

    def objective_control(self, state: GameState) -> dict[str, str | None]:
        out: dict[str, str | None] = {}
        for name, (p, _) in self.objectives.items():
            near = {
                f.unit.side
                for f in self._figures(state)
                if (f.machine is None or f.soldier is not None)
                and distance(self._pos(f), p) <= HOLD_STEPS * self.step_m
            }
            out[name] = next(iter(near)) if len(near) == 1 else None
        return out

    def victory_points(self, state: GameState) -> dict[str, int]:
        vp = dict.fromkeys(self.sides, 0)
        for name, owner in self.objective_control(state).items():
            if owner is not None:
                vp[owner] += self.objectives[name][1]
        return vp

    def unit_reach(self, state: GameState, unit_id: str) -> tuple[Reach, ...]:
        u = state.units[unit_id]
        mach = self.arm.machines.get(u.type)
        if mach is not None and u.attrs.get("durability"):
            move = mach.speed_at(int(u.attrs["durability"])) * self.step_m
            ws = [
                self._weapon(self._fig(u, u.models[0]), k)
                for k in u.attrs.get("loadout", ())
            ]
            dice = [w.range for w in ws if w is not None and w.range is not None]
        else:
            sol = [self._soldier(m.attrs) for m in u.models if m.kind == "soldier"]
            move = max((s.speed for s in sol), default=0) * self.step_m
            dice = [s.range for s in sol if s.range is not None]
        reach = max((d.sides + d.bonus for d in dice), default=0)
        return (Reach("move", move), Reach("range", reach * self.step_m))

    def unit_columns(self, state: GameState) -> dict[str, dict[str, Any]]:
        return {
            "soldiers": {
                k: sum(m.kind == "soldier" for m in u.models)
                for k, u in state.units.items()
            },
            "durability": {
                k: u.attrs.get("durability") for k, u in state.units.items()
            },
            "ammo": {k: u.attrs.get("ammo") for k, u in state.units.items()},
            "pilot": {
                k: (u.attrs.get("pilot") or {}).get("id")
                for k, u in state.units.items()
            },
            "acted": {k: bool(u.attrs.get("acted")) for k, u in state.units.items()},
        }

    def odds_table(self, state: GameState, shooter: str, target: str) -> Any:
        """Exact odds of each figure (and weapon) of ``shooter`` firing at the
        nearest figure of ``target`` now (:func:`~.odds.shot_pmf`, §7.4).

        One row per figure and weapon: the distance in steps (rounded up), the
        visibility and cover (Table 5), the armour with cover, whether the shot
        is allowed now and why not, P(hit), P(at least one damage) and the
        expected damage.  ``None`` when either unit is not on the map.
        """
        import pandas as pd

        a_u, t_u = state.units.get(shooter), state.units.get(target)
        if a_u is None or t_u is None or a_u.destroyed or t_u.destroyed:
            return None
        figs = [self._fig(t_u, m) for m in t_u.models if isinstance(m.position, Point)]
        rows = []
        for m in a_u.models:
            if not isinstance(m.position, Point):
                continue
            f = self._fig(a_u, m)
            if not figs:
                break
            t = min(figs, key=lambda e: distance(self._pos(f), self._pos(e)))
            keys = [""] if f.machine is None else list(a_u.attrs.get("loadout", ()))
            for key in keys:
                if f.machine is None:
                    s = f.soldier
                    if s is None or s.range is None or s.power is None:
                        continue
                    rng, power = s.range, s.power
                else:
                    w = self._weapon(f, key)
                    if w is None or w.range is None or w.power is None:
                        continue
                    rng, power = w.range, w.power
                dist = distance(self._pos(f), self._pos(t)) / self.step_m
                vis = visibility_of(self.visible_part(f, t))
                why = self.shot_problem(state, f, t_u.id, t.model.id, key)
                cover = COVER.get(vis)
                pmf = shot_pmf(rng, dist, power, t.armour, cover=cover or 0)
                ok = cover is not None
                rows.append(
                    {
                        "shooter": m.id,
                        "weapon": key or "personal weapon",
                        "range": str(rng),
                        "power": str(power),
                        "target": t.model.id,
                        "steps": steps(dist),
                        "visible": vis,
                        "armour": t.armour + (cover or 0),
                        "allowed": why is None,
                        "why_not": why or "",
                        "p_hit": float(hit_probability(rng, dist)) if ok else 0.0,
                        "p_damage": float(1 - pmf[0]) if ok else 0.0,
                        "expected_damage": float(sum(k * p for k, p in enumerate(pmf)))
                        if ok
                        else 0.0,
                    }
                )
        return pd.DataFrame(rows)

    def sight_options(
        self, state: GameState, observer: str, target: str | None
    ) -> dict[str, Any]:
        return {"observer_height_m": EYE_M, "target_height_m": 2.0, "hex_rule": False}
