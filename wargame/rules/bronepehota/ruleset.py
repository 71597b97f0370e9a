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
* A pilot may get out of his machine instead of moving it, set down touching
  it and walking on as an infantryman; the machine, pilotless, freezes (§4.3).
  An infantryman touching a pilotless machine, of rank at least its rank, may
  board it; an enemy's machine is captured and passes to his side with its
  tracks as they are; it fights from the next turn (§9.1; :mod:`.crew`).
* A side whose soldiers (infantry and pilots) are all dead loses (§1.1,
  §12.1).  The core rules have no turn limit; ASSUMPTION: at a scenario's turn
  limit the side with more objective points wins (an objective is held by a
  side with a soldier within 2 steps and no enemy there), then the side with
  more soldiers left.

* Guns stand on the map, fired by the soldiers touching them (their crew),
  moved with one at half his speed if mobile, and captured by the first
  soldier to touch one nobody touches (§2.4, §4.1, §7.5, §9.2; :mod:`.guns`).
  A soldier with Рм repairs a machine or gun he touches, one damage instead of
  his whole turn (§9.3; :mod:`.repairs`).
* Optional rules a scenario names in ``[rules] options`` (:mod:`.options`):
  grenades (§7.8), blasts (§7.4 IV), aimed fire (§11.1), panic (§11.2),
  limited ammunition (§7.7) and jump packs (§9.4) (:mod:`.optional`).

Not on the map yet: towing and HELIX repair (§10.1-10.2).

ASSUMPTION (ground scale): **1 step (5 cm on the table) = 10 m of the map**,
``[rules] step_m`` in a scenario.  The official table (120 x 80 cm in the
"Цербер" missions, research §5) is then 240 x 160 m, a street fight's ground;
a Д20 weapon reaches 200 m and a soldier of Ск 5 goes 50 m a turn.  True scale
of the figures (a 1.8 m soldier about 4 cm tall, 1:45) would make a step 2.25 m,
too small for the map's 10 m land cover; a step of 25 m (Flames of War's inch)
would put the whole table on one hill.

The code reads like the rulebook: :mod:`.actions` (the actions and a figure),
:mod:`.table` (figures, sight, manoeuvres, weapons), :mod:`.forces` (the
scenario's units, pilots and loadouts), :mod:`.play` (what the turn and each
action do), :mod:`.views` (tracks, reach, odds); this class holds what is legal
and the protocol.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, ClassVar

from wargame.engine import (
    Action,
    GameState,
    IllegalActionError,
    ModelSpec,
    Outcome,
    Point,
    Scenario,
    ScenarioError,
    Unit,
    candidate_moves,
    locate_objectives,
    place_units,
)
from wargame.engine.points import bearing, check_on_map, distance

from .actions import Board, EndSquad, Fig, Leave, Move, Shoot, angle_off
from .damage import can_pilot
from .data import Armlists, load_armlists
from .guns import Capture, MoveGun
from .movement import machine_move_cost
from .odds import hit_probability
from .odds_cli import OddsCommand
from .optional import OPTION_ACTIONS
from .options import read_options
from .play import Play
from .repairs import Repair
from .table import (
    BASE_RADIUS_STEPS,
    GUN_KEY,
    HOLD_STEPS,
    STEP_M,
)
from .views import Views

__all__ = [
    "BASE_RADIUS_STEPS",
    "STEP_M",
    "Board",
    "BronepehotaRuleset",
    "Capture",
    "EndSquad",
    "Leave",
    "Move",
    "MoveGun",
    "Repair",
    "Shoot",
]


class BronepehotaRuleset(OddsCommand, Views, Play):
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
        "leave",
        "board",
        "move gun",
        "capture",
        "repair",
        "grenade",
        "blast",
        "panic",
        "squad done",
        "end",
    )
    action_types: ClassVar[Mapping[str, type[Action]]] = {
        c.type: c
        for c in (
            Move,
            Shoot,
            Leave,
            Board,
            MoveGun,
            Capture,
            Repair,
            EndSquad,
            *OPTION_ACTIONS,
        )
    }
    #: ``wargame odds bronepehota-2008`` (:mod:`.odds_cli`)
    odds_command: ClassVar[bool] = True
    #: The player ``wargame run`` gives a side when none is named (:mod:`.ai`)
    default_policy: ClassVar[str] = "doctrine"
    scenario_keys: ClassVar[Mapping[str, frozenset[str]]] = {
        "scenario": frozenset({"objectives", "rules"}),
        "units": frozenset({"pilot", "loadout", "crew"}),
        "rules": frozenset({"step_m", "limited_ammo", "options"}),
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
        self.options, more = read_options(scenario)  # the optional rules (options.py)
        problems += more
        self.limited_ammo = "limited_ammo" in self.options  # §7.7
        self.radius_m = BASE_RADIUS_STEPS * self.step_m
        problems += self._unit_problems()
        if problems:
            raise ScenarioError(problems)
        placed = place_units(
            scenario,
            game_map,
            models=lambda raw: (
                self.gun_specs(raw)
                or (
                    [
                        ModelSpec(
                            "machine",
                            self._machine_radius(self.arm.machines[raw["type"]]),
                        )
                    ]
                    if raw["type"] in self.arm.machines
                    else [ModelSpec("soldier", self.radius_m)] * 6
                )
            ),
        )
        problems += placed.problems
        self.placed = placed.units
        self.objectives, more = locate_objectives(scenario, game_map)
        problems += more
        if problems:
            raise ScenarioError(problems)
        self._sight: dict[tuple[float, ...], float] = {}
        # the map does not change: answers about its ground are remembered
        self._ground: dict[tuple[float, ...], frozenset[str]] = {}
        self._elev: dict[tuple[float, float], float] = {}
        self._jump_top: dict[tuple[float, ...], float] = {}
        self._samples: dict[tuple[float, ...], tuple[Point, ...]] = {}
        self._ground_pt: dict[tuple[float, float], str] = {}

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
        if mid in state.vars.get("spent", ()):
            raise IllegalActionError(
                f"§4.3: {mid} got out of his machine this turn and has acted"
            )
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
        elif act == "gun":
            pass  # up to the gun's rate of fire (§7.6): guns.man_problem
        elif act in did or (act == "shoot" and "gun" in did):
            raise IllegalActionError(f"§3.2, §7.5 note 1: {mid} may {act} once a turn")
        return f

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
        ground = self._ground_along(start, to, d)
        if f.airborne:
            if "woods" in ground:  # §4.2: trees (20 m) stand above its flight
                return "§4.2: the way crosses woods, taller than the flight; fly round"
            return None
        if "water" in ground:
            return "§4.1 (map): the way crosses water, an obstacle deeper than a step"
        rise = abs(self._elevation(to.x, to.y) - self._elevation(start.x, start.y))
        if rise > d:
            return (
                f"§4.1: a gradient of over 45° ({rise:.0f} m up or down in {d:.0f} m)"
            )
        return None

    def _ground_along(self, start: Point, to: Point, d: float) -> frozenset[str]:
        """The land-cover classes under the way from ``start`` to ``to`` (``d``
        metres long), sampled every 2 m (the map's land cover is 10 m)."""
        key = (start.x, start.y, to.x, to.y)
        if key not in self._ground:
            n = max(2, math.ceil(d / 2.0) + 1)
            xs = [start.x + (to.x - start.x) * k / (n - 1) for k in range(n)]
            ys = [start.y + (to.y - start.y) * k / (n - 1) for k in range(n)]
            self._ground[key] = frozenset(str(c) for c in self.map.terrain_at(xs, ys))
        return self._ground[key]

    def _sampled_moves(self, a: Point, reach: float) -> list[Point]:
        """The engine's sample of moves of up to ``reach`` m from ``a`` (toward
        the objectives, into cover, four directions): the map and objectives
        do not change, so it is remembered per start and reach."""
        key = (a.x, a.y, reach)
        if key not in self._samples:
            objectives = {k: p for k, (p, _) in self.objectives.items()}
            self._samples[key] = tuple(
                c.point
                for c in candidate_moves(
                    a, reach, game_map=self.map, objectives=objectives, directions=4
                )
            )
        return list(self._samples[key])

    def ground_at(self, p: Point) -> str:
        """The map's land-cover class at ``p``, remembered."""
        if (p.x, p.y) not in self._ground_pt:
            self._ground_pt[(p.x, p.y)] = str(self.map.terrain_at([p.x], [p.y])[0])
        return self._ground_pt[(p.x, p.y)]

    def _elevation(self, x: float, y: float) -> float:
        """The map's ground height at ``(x, y)`` (m), remembered."""
        if (x, y) not in self._elev:
            self._elev[(x, y)] = float(self.map.elevation(x, y))
        return self._elev[(x, y)]

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
        if angle_off(f.model.facing, a, b) > 90.0 + 1e-9:
            return f"§7.3: {tmid} is outside {f.model.id}'s field of view (behind)"
        if self.visible_part(f, t) == 0.0:
            return f"§7.3: {f.model.id} cannot see {tmid} (no line of fire)"
        return None

    # -- protocol ------------------------------------------------------------ #
    def current_side(self, state: GameState) -> str | None:
        return str(state.vars["side"]) if state.phase == "play" else None

    def _crew_actions(self, state: GameState, f: Fig) -> list[Action]:
        """The offered :class:`Board` and :class:`Leave` (§4.3, §9.1): a soldier
        boards a pilotless machine he touches; a pilot gets out of a machine
        left with nothing to fight with (ASSUMPTION: a sample, any legal
        leave is accepted)."""
        u, m = f.unit, f.model
        if f.machine is None:
            assert f.soldier is not None
            out: list[Action] = []
            try:  # a move into contact with one he could board (§9.1)
                self._turn_to_act(state, u.id, m.id, "move")
                reach = float(f.soldier.speed) * self.step_m
                for p in self._board_approaches(state, f, reach):
                    face = round(bearing(self._pos(f), p), 1)
                    if self.move_problem(state, f, p, face) is None:
                        out.append(Move(u.id, m.id, p, face))
            except IllegalActionError:
                pass
            try:
                self._turn_to_act(state, u.id, m.id, "board")
            except IllegalActionError:
                return out
            return out + [
                Board(u.id, m.id, o.unit.id)
                for o in self._figures(state)
                if o.machine is not None
                and o.soldier is None
                and self.board_problem(state, f, o.unit.id) is None
            ]
        if self.can_fight(state, f):
            return []
        try:
            self._turn_to_act(state, u.id, m.id, "leave")
        except IllegalActionError:
            return []
        did = self._did(state, m.id)
        return [
            Leave(u.id, p) for p in self.leave_points(state, f) if "move" not in did
        ]

    def _did(self, state: GameState, mid: str) -> tuple[str, ...]:
        """The acts of figure ``mid`` this turn, if he is the one acting."""
        if state.vars.get("current") != mid:
            return ()
        return tuple(state.vars.get("did", ()))

    def _board_approaches(self, state: GameState, f: Fig, reach: float) -> list[Point]:
        """Moves of soldier ``f`` into contact with each pilotless machine he
        could pilot within his reach (a sample, as the charge is)."""
        assert f.soldier is not None
        a = self._pos(f)
        out = []
        for o in self._figures(state):
            if o.machine is None or o.soldier is not None:
                continue
            if not can_pilot(f.soldier.rank, o.machine.rank):
                continue
            p = self._pos(o)
            gap = distance(a, p)
            # a centimetre short of touching: bases within tolerance touch
            walk = gap - f.model.radius_m - o.model.radius_m - 0.01
            if 0 < walk <= reach:
                k = walk / gap
                out.append(
                    Point(
                        round(a.x + (p.x - a.x) * k, 2), round(a.y + (p.y - a.y) * k, 2)
                    )
                )
        return out

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
            if reach > 0:
                pts += self._sampled_moves(a, reach)
            for p in pts:
                if distance(p, a) == 0:
                    continue
                face = None if f.machine is not None else round(bearing(p, g), 1)
                if self.move_problem(state, f, p, face) is None:
                    out.append(Move(u.id, m.id, p, face))
        return out

    def legal_actions(self, state: GameState) -> list[Action]:
        # the figures are read from ``state``, unchanged here, once (table.py)
        with self.reading(state):
            return self._legal_actions(state)

    def _prefetch(self, state: GameState, side: str, units: list[Unit]) -> None:
        """The sight lines the figures offered actions below may shoot along,
        worked out all at once (:meth:`prefetch_sight`): the same figures as
        the loop of :meth:`_legal_actions` picks."""
        done = set(state.vars.get("done", ())) | set(state.vars.get("spent", ()))
        current = state.vars.get("current")
        shooters = []
        for u in units:
            todo = [
                m
                for m in u.models
                if m.id not in done and isinstance(m.position, Point)
            ]
            todo.sort(key=lambda m: (m.id != current, m.id))
            shooters += [self._fig(u, m) for m in todo[:3]]
        self.prefetch_sight(
            shooters, [e for e in self._figures(state) if e.unit.side != side]
        )

    def _legal_actions(self, state: GameState) -> list[Action]:
        side = self.current_side(state)
        if side is None:
            return []
        active = state.vars.get("active")
        units = (
            [state.units[active]] if active is not None else self._ready(state, side)
        )
        out: list[Action] = []
        crew: list[Action] = []
        done = set(state.vars.get("done", ()))
        current = state.vars.get("current")
        self._prefetch(state, side, units)
        for u in units:
            spent = set(state.vars.get("spent", ()))
            todo = [
                m
                for m in u.models
                if m.id not in done | spent and isinstance(m.position, Point)
            ]
            # a sample: the figure acting now and the next two (any order is legal)
            todo.sort(key=lambda m: (m.id != current, m.id))
            for m in todo[:3]:
                f = self._fig(u, m)
                if f.machine is None or f.soldier is not None:
                    out += self._figure_actions(state, f)
                    out += self.option_actions(state, f)  # optional.py
                    crew += self._crew_actions(state, f)
                    crew += self.gun_actions(state, f) + self.repair_actions(state, f)
            out.append(EndSquad(u.id))
        # last, so that the rest keep their places (and the players' tie-breaks)
        return out + crew

    def check(self, state: GameState, action: Action) -> None:
        side = self.current_side(state)
        if side is None:
            raise IllegalActionError("the game is over")
        if isinstance(action, OPTION_ACTIONS):  # the optional rules (optional.py)
            self.check_option(state, action)
        elif isinstance(action, Move):
            f = self._turn_to_act(state, action.unit, action.soldier, "move")
            if action.facing is not None and not math.isfinite(action.facing):
                raise IllegalActionError(f"facing {action.facing!r} is not a bearing")
            why = self.move_problem(state, f, action.to, action.facing)
            if why is not None:
                raise IllegalActionError(f"{f.model.id} cannot move: {why}")
        elif isinstance(action, Shoot):
            act = "gun" if action.weapon.startswith(GUN_KEY) else "shoot"
            f = self._turn_to_act(state, action.unit, action.soldier, act)
            why = self.shot_problem(
                state, f, action.target, action.target_soldier, action.weapon
            )
            if why is not None:
                raise IllegalActionError(f"{f.model.id} cannot shoot: {why}")
        elif isinstance(action, Leave):
            m = self.machine_model(state, action.unit)
            if m is None:
                raise IllegalActionError(
                    f"§4.3: {action.unit!r} is not a machine on the map to get out of"
                )
            f = self._turn_to_act(state, action.unit, m.id, "leave")
            if action.facing is not None and not math.isfinite(action.facing):
                raise IllegalActionError(f"facing {action.facing!r} is not a bearing")
            why = self.leave_problem(
                state, f, action.to, action.facing, self._did(state, m.id)
            )
            if why is not None:
                raise IllegalActionError(
                    f"the pilot of {action.unit} cannot get out to "
                    f"({action.to.x:.1f}, {action.to.y:.1f}): {why}"
                )
        elif isinstance(action, Board):
            f = self._turn_to_act(state, action.unit, action.soldier, "board")
            why = self.board_problem(state, f, action.machine)
            if why is not None:
                raise IllegalActionError(
                    f"{f.model.id} cannot board {action.machine}: {why}"
                )
        elif isinstance(action, MoveGun):
            f = self._turn_to_act(state, action.unit, action.soldier, "move")
            if action.facing is not None and not math.isfinite(action.facing):
                raise IllegalActionError(f"facing {action.facing!r} is not a bearing")
            why = self.move_gun_problem(state, f, action.gun, action.to)
            if why is not None:
                raise IllegalActionError(
                    f"{f.model.id} cannot move {action.gun}: {why}"
                )
        elif isinstance(action, Capture):
            f = self._turn_to_act(state, action.unit, action.soldier, "capture")
            why = self.capture_problem(state, f, action.gun)
            if why is not None:
                raise IllegalActionError(
                    f"{f.model.id} cannot capture {action.gun}: {why}"
                )
        elif isinstance(action, Repair):
            f = self._turn_to_act(state, action.unit, action.soldier, "repair")
            why = self.repair_problem(state, f, action.target)
            if why is not None:
                raise IllegalActionError(
                    f"{f.model.id} cannot repair {action.target}: {why}"
                )
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
        memo = self._memo(state)
        if memo is not None:
            if "held" not in memo:
                memo["held"] = self._objective_control(state)
            return dict(memo["held"])
        return self._objective_control(state)

    def _objective_control(self, state: GameState) -> dict[str, str | None]:
        out: dict[str, str | None] = {}
        for name, (p, _) in self.objectives.items():
            near = {
                f.unit.side
                for f in self._figures(state)
                if f.gun is None
                and (f.machine is None or f.soldier is not None)
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
