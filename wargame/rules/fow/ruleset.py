"""Flames of War, 3rd edition (``fow-v3``): the rule system on the real map.

Players alternate whole turns; a turn runs the Starting, Movement, Shooting and
Assault Steps in order (research/fow.md §1, S17 and S6 [A]).  What is built:

* **Starting Step** (research §1.1, S2 [A], in its order): check victory
  (objectives taken, §5 S7 [A]); rally Pinned Down platoons (Motivation test);
  remount Bailed Out teams (Motivation test, each); free Bogged Down teams
  (Skill test, each).
* **Movement Step**: :mod:`.moves` (a platoon moves as a body; going, bogging,
  command).
* **Shooting Step**: :mod:`.shooting` (ROF, to hit by the target's skill with
  long range, Concealed and Gone to Ground, allocation by the owner, saves,
  armour and Firepower tests, Bailed Out), then Pinning Down at 5 hits.
* **Assault Step**: :mod:`.assault` (the rules) and :mod:`.fight` (the dice):
  ``Assault(unit, target)``, defensive fire, the charge, assault hits, the
  counterattack test; the defender decides ``Counterattack`` or ``BreakOff``
  for each platoon that passed (it is then :meth:`FowRuleset.current_side`);
  counterattacks repeat until one side is destroyed or breaks off.
* **Morale** (:mod:`.morale`): platoon morale at the end of the Shooting and
  Assault Steps; company morale in the Starting Step (a failed test loses the
  game, outcome ``"company morale"``).
* **Victory**: at the turn limit, victory points for objectives held; a side
  with no platoon left loses at once.
* **Bombardments** (:mod:`.artillery`, ``Bombard``): ranging in, the template
  by guns firing, hits by the battery's skill, top armour; **smoke**
  (:mod:`.smoke`): Concealed under or behind it until the firing side's next
  Starting Step.
* **At the Double** (:mod:`.double`, ``AtTheDouble``): double distance, no
  shooting, double dice for enemies shooting at it.
* **Transports** (:mod:`.transport`, ``Mount``, ``Dismount``): scenario
  ``mounted_in``, passengers riding off the table, getting out and in, a
  destroyed transport's passengers saving on 5+.
* **Reserves** (:mod:`.reserves`): scenario ``reserve``/``arrives``, a die per
  platoon in the Starting Step (item 6).
* **Ambushes** (:mod:`.ambush`, ``Reveal``): scenario ``ambush = true``, a
  platoon placed hidden; revealed by its owner at item 4 of its Starting Step
  or sprung by an enemy team within 8".

* **Air support** (:mod:`.air`, ``AirStrike``): scenario ``air_support``, the
  arrival die in the Starting Step (item 5), the strike after all platoons
  shot (Shooting Step item 10), anti-aircraft fire, top armour.
* **Sole survivors** (:mod:`.morale`): Starting Step item 1, an infantry
  platoon reduced to one team tests Motivation or is destroyed.
* **Ambushes** (:mod:`.ambush`, ``Reveal``): a platoon placed hidden, revealed
  at item 4 of its owner's Starting Step or sprung by an enemy within 8".
* **Company command team** (:mod:`.hq`): a platoon it has joined re-rolls
  failed Motivation tests; in an assault it always breaks off.
* **Consolidation** (:mod:`.consolidate`, ``Consolidate``): the winner of an
  assault moves up to 4" (not to within 2" of an enemy team) or holds.
* **ROF 1 to assault** (:mod:`.rof`, ``Shoot(..., to_assault=True)``): a team
  that fired above ROF 1 does not charge that turn.

Not built yet (documented in ``docs/rules/fow-v3.md``):
repeat bombardments, observer and company-command
spotters, passenger-fired MGs, night, independent teams other than the
company command team, buildings and bunkers in assaults.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

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
    locate_objectives,
    place_units,
)
from wargame.engine.state import Formation

from . import air, ambush, artillery, consolidate, hq, reserves, rof, transport
from .air import AirStrike
from .ambush import Reveal
from .artillery import Bombard
from .assault import CHARGE_IN, charge_moves
from .bridges import bridge_waypoints, parse_bridges, standing
from .consolidate import Consolidate
from .data import TeamType
from .double import (
    DOUBLE_FACTOR,
    AtTheDouble,
    double_dice,
    double_moves,
    no_shooting,
)
from .forces import PlatoonSpec, platoon_spec, teams
from .going import concealed_in
from .movement import GROUND_SCALE_M_PER_INCH, move_distance_in
from .moves import column_move, platoon_move, team_move
from .odds_cli import OddsCommand
from .presentation import FowPresentation
from .shooting import SIGHT_MARGIN_IN, ShotPlan, direct_weapon, plan_shot
from .sight import Sight
from .smoke import markers, smoke_between
from .transport import Dismount, Mount

__all__ = [
    "AirStrike",
    "Assault",
    "AtTheDouble",
    "Bombard",
    "BreakOff",
    "Consolidate",
    "Counterattack",
    "Dismount",
    "FowRuleset",
    "Mount",
    "Move",
    "Next",
    "Reveal",
    "Shoot",
]


@dataclass(frozen=True)
class Move(Action):
    """Move a platoon: its point to ``to`` and every team by the same offset;
    or, ``column=True``, its command team to ``to`` with the others in a column
    behind it (to cross a bridge)."""

    type = "move"
    unit: str
    to: Point
    column: bool = False


@dataclass(frozen=True)
class Shoot(Action):
    """A platoon shoots at an enemy platoon; ``to_assault``: every team at
    ROF 1, so that all may still charge in the Assault Step (research §3.1: a
    team that will assault fires ROF 1; :mod:`.rof`)."""

    type = "shoot"
    unit: str
    target: str
    to_assault: bool = False


@dataclass(frozen=True)
class Assault(Action):
    """A platoon assaults an enemy platoon (the Assault Step, research §1.4)."""

    type = "assault"
    unit: str
    target: str


@dataclass(frozen=True)
class Counterattack(Action):
    """The defender: a platoon that passed its counterattack test counterattacks."""

    type = "counterattack"
    unit: str


@dataclass(frozen=True)
class BreakOff(Action):
    """The defender: a platoon that passed its counterattack test breaks off."""

    type = "break_off"
    unit: str


@dataclass(frozen=True)
class Next(Action):
    """End the current step (Movement → Shooting → Assault → the other side)."""

    type = "next"


STEPS = ("movement", "shooting", "assault")


class FowRuleset(FowPresentation, OddsCommand, RulesetBase):
    """Flames of War v3 on the real Rhine map (see the module docstring)."""

    id = "fow-v3"
    title = "Flames of War, 3rd edition"
    positions = "point"
    odds_command: ClassVar[bool] = True
    #: the AI ``wargame run`` and the classroom play by default (doctrine.py)
    default_policy: ClassVar[str] = "doctrine"
    #: Platoons in ambush are hidden from the enemy (:mod:`.ambush`); with none
    #: hidden a side's view is the whole state.
    hidden_information: ClassVar[bool] = True
    phases = ("setup", "starting", "movement", "shooting", "assault", "end")
    event_kinds = (
        "turn",
        "objective",
        "rally",
        "remount",
        "unbog",
        "move",
        "bog",
        "to_hit",
        "save",
        "armour",
        "firepower",
        "shoot",
        "pinned",
        "step",
        "demolition",
        "assault",
        "defensive_fire",
        "charge",
        "assault_hit",
        "assault_losses",
        "counterattack",
        "break_off",
        "consolidate",
        "platoon_morale",
        "morale",
        "company_morale",
        "sole_survivor",
        "end",
        *artillery.EVENT_KINDS,  # bombardments and smoke (artillery.py)
        *transport.EVENT_KINDS,  # passengers (transport.py)
        *reserves.EVENT_KINDS,  # reserves arriving (reserves.py)
        *air.EVENT_KINDS,  # air support (air.py)
        *ambush.EVENT_KINDS,  # ambushes revealed (ambush.py)
    )
    action_types: ClassVar[dict[str, type[Action]]] = {
        c.type: c
        for c in (
            Move,
            Shoot,
            Assault,
            Counterattack,
            BreakOff,
            Consolidate,
            Next,
            AtTheDouble,
            Bombard,
            Mount,
            Dismount,
            AirStrike,
            Reveal,
        )
    }
    scenario_keys: ClassVar[Mapping[str, frozenset[str]]] = {
        "scenario": frozenset({"objectives", "bridges", "rules"}),
        "units": frozenset(
            {"teams", "command", "motivation", "skill", "mounted_in"}
            | {"reserve", "arrives", "ambush", "company_command"}
        ),
        "rules": frozenset({"ground_scale_m_per_inch"}),
        "sides": frozenset({"air_support"}),
    }

    def __init__(self, scenario: Scenario, game_map: Any) -> None:
        self.scenario = scenario
        self.map = game_map
        self.sides = [s["id"] for s in scenario.sides]
        file = str(scenario.source)
        problems: list[str] = []
        rules = scenario.data.get("rules") or {}
        scale = rules.get("ground_scale_m_per_inch", GROUND_SCALE_M_PER_INCH)
        if (
            isinstance(scale, bool)
            or not isinstance(scale, int | float)
            or not (1.0 <= float(scale) <= 200.0)
        ):
            problems.append(
                f"{file}: rules.ground_scale_m_per_inch: {scale!r} is not a number "
                "of metres per inch between 1 and 200"
            )
            scale = GROUND_SCALE_M_PER_INCH
        #: Metres of map per inch of table (an ASSUMPTION; movement.py).
        self.scale = float(scale)
        self.sight = Sight(game_map, margin_m=SIGHT_MARGIN_IN * self.scale)
        self.specs: dict[str, PlatoonSpec] = {}
        for i, raw in enumerate(scenario.units):
            try:
                self.specs[str(raw.get("id"))] = platoon_spec(raw, file, i)
            except ScenarioError as exc:
                problems += exc.problems
        if problems:
            raise ScenarioError(problems)
        formation_side = {f.get("id"): f.get("side") for f in scenario.formations}
        problems += transport.mounts_problems(
            scenario.units,
            self.specs,
            {
                str(r.get("id")): r.get("side")
                or formation_side.get(r.get("formation"))
                for r in scenario.units
            },
            file,
        )
        problems += reserves.reserves_problems(scenario.units, file)
        #: Each side's air support (air.py; scenario ``air_support``).
        self.air, more = air.air_support_problems(scenario.sides, file)
        problems += more
        problems += ambush.ambush_problems(scenario.units, file)
        problems += hq.company_command_problems(scenario.units, file)
        if problems:
            raise ScenarioError(problems)
        placed = place_units(
            scenario,
            game_map,
            models=lambda raw: [
                ModelSpec(tid, t.base_radius_m * self.scale / GROUND_SCALE_M_PER_INCH)
                for tid, t in self.specs[str(raw["id"])].teams
            ],
            bases_may_overlap=False,
        )
        problems += placed.problems
        self.placed = placed.units
        self.objectives, more = locate_objectives(scenario, game_map)
        problems += more
        self.bridges, self.demolitions, more = parse_bridges(
            scenario.data.get("bridges") or [], file, self.sides
        )
        problems += more
        if problems:
            raise ScenarioError(problems)

    # -- set-up -------------------------------------------------------------- #
    def initial_state(self) -> GameState:
        st = GameState(ruleset=self.id, phase="setup")
        st.sides = {
            s["id"]: Side(s["id"], s.get("name", s["id"])) for s in self.scenario.sides
        }
        st.formations = {
            f["id"]: Formation(f["id"], f["side"], f.get("name", f["id"]), f.get("hq"))
            for f in self.scenario.formations
        }
        for raw in self.scenario.units:
            uid = str(raw["id"])
            spec = self.specs[uid]
            side = raw.get("side") or st.formations[raw["formation"]].side
            pu = self.placed.get(uid)
            held = reserves.reserve_attrs(raw)  # off the table (reserves.py)
            if held:
                pu = None
            models = (
                pu.models
                if pu is not None
                else tuple(
                    Model(f"{uid}.{j + 1}", tid)
                    for j, (tid, _) in enumerate(spec.teams)
                )
            )
            st.units[uid] = Unit(
                uid,
                raw.get("name", uid),
                side,
                raw.get("formation"),
                str(raw.get("type", "platoon")),
                pu.position if pu is not None else None,
                facing=round(pu.facing) % 360 if pu is not None else None,
                hidden=raw.get("ambush") is True,  # in ambush (ambush.py)
                models=models,
                attrs={"motivation": spec.motivation, "skill": spec.skill}
                | ({"mounted_in": raw["mounted_in"]} if raw.get("mounted_in") else {})
                | ({"company_command": True} if raw.get("company_command") else {})
                | held,
            )
        return st

    # -- helpers --------------------------------------------------------------- #
    def team(self, m: Model) -> TeamType:
        """A team's profile."""
        return teams()[m.kind]

    def current_side(self, state: GameState) -> str | None:
        """The side to play; while an assault waits for the defender's choice
        (counterattack or break off), the defender."""
        fight = state.vars.get("fight")
        if fight and state.phase == "assault":
            return str(state.units[fight["pending"][0]].side)
        winner = consolidate.side_to_play(state)  # the winner consolidates
        if winner is not None and state.phase == "assault":
            return winner
        return None if state.phase in ("setup", "end") else str(state.vars["side"])

    def _on_table(self, u: Unit) -> bool:
        """On the table, hidden in ambush or not (ambush.py)."""
        return not u.destroyed and isinstance(u.position, Point) and bool(u.models)

    def _in_play(self, u: Unit) -> bool:
        """On the table and not hidden: it acts and may be acted on."""
        return not u.hidden and self._on_table(u)

    def _in_game(self, u: Unit) -> bool:
        """On the table (hidden or not), or still to arrive from reserve
        (reserves.py)."""
        return self._on_table(u) or (not u.destroyed and bool(u.attrs.get("reserve")))

    def _own(self, state: GameState, uid: str, flag: str) -> Unit:
        side = self.current_side(state)
        u = state.units.get(uid)
        if side is None:
            raise IllegalActionError("the game is over")
        if u is None:
            raise IllegalActionError(f"no platoon {uid!r}")
        if u.side != side:
            raise IllegalActionError(f"{uid} is not {side}'s platoon")
        if u.hidden:
            raise IllegalActionError(
                f"{uid} is hidden in ambush: it does nothing until revealed in "
                "the Starting Step (ASSUMPTION, ambush.py)"
            )
        if u.attrs.get("mounted_in"):
            raise IllegalActionError(
                f"{uid} rides in {u.attrs['mounted_in']}: passengers do not move or "
                "shoot until they get out (ASSUMPTION, transport.py)"
            )
        if not self._in_play(u):
            raise IllegalActionError(f"{uid} is not on the table")
        if u.attrs.get(flag):
            raise IllegalActionError(f"{uid} has {flag} this turn already")
        return u

    # -- movement ---------------------------------------------------------------- #
    def move_problem(
        self,
        state: GameState,
        u: Unit,
        to: Point,
        column: bool = False,
        *,
        double: bool = False,
    ) -> str | None:
        """Why platoon ``u`` may not move to ``to`` (``None``: it may): the
        first team that fails, where and why; ``double``: At the Double."""
        start = u.position
        assert isinstance(start, Point)
        if not (math.isfinite(to.x) and math.isfinite(to.y)):
            return f"the point ({to.x}, {to.y}) is not a finite point"
        dx, dy = float(to.x - start.x), float(to.y - start.y)
        if math.hypot(dx, dy) < 0.01:
            return "the platoon is already there"
        command = u.models[0]
        if command.attrs.get("bogged") or command.attrs.get("bailed"):
            return (
                f"its command team {command.id} is Bogged Down or Bailed Out and "
                "cannot move (research/fow.md §2.1, §3.5)"
            )
        why, _, _ = self.plan_move(state, u, to, column, double=double)
        if why is not None and double:
            return f"At the Double (double distance, research/fow.md §10.2): {why}"
        return why

    def plan_move(
        self,
        state: GameState,
        u: Unit,
        to: Point,
        column: bool = False,
        *,
        double: bool = False,
    ) -> tuple[str | None, dict[str, tuple[float, float]], dict[str, str]]:
        """``(problem, ends, bog checks)`` of the teams that move (not Bogged
        Down or Bailed Out): as a body by the platoon's offset, or in column;
        ``double``: At the Double, twice the distance (:mod:`.double`)."""
        start = u.position
        assert isinstance(start, Point)
        dx, dy = float(to.x - start.x), float(to.y - start.y)
        movers = [
            (m, self.team(m))
            for m in u.models
            if not m.attrs.get("bogged") and not m.attrs.get("bailed")
        ]
        bridges = standing(self, state)
        # the move functions use the scale only for each team's allowance (its
        # distance in inches times metres per inch): At the Double doubles it
        scale = self.scale * (DOUBLE_FACTOR if double else 1)
        if column:
            return column_move(
                self.map,
                movers,
                (float(to.x), float(to.y)),
                metres_per_inch=scale,
                bridges=bridges,
            )
        why, _, bog = platoon_move(
            self.map, movers, dx, dy, metres_per_inch=scale, bridges=bridges
        )
        ends: dict[str, tuple[float, float]] = {}
        for m, _t in movers:
            p = m.position
            assert isinstance(p, Point)
            ends[m.id] = (round(float(p.x) + dx, 3), round(float(p.y) + dy, 3))
        return why, ends, dict.fromkeys(ends, bog)

    def _reaches(self, u: Unit) -> dict[str, float]:
        """Metres the platoon's slowest team may move in each going it may
        enter (0 left out): the distances a move of the platoon can have."""
        out: dict[str, float] = {}
        for g in ("road", "cross_country", "slow", "difficult", "very_difficult"):
            d = min(move_distance_in(self.team(m), g) for m in u.models) * self.scale
            if d > 0:
                out[g] = d
        return out

    def _keeper(
        self, state: GameState, u: Unit, column: bool = False
    ) -> Callable[[Point], bool]:
        return lambda p: self.move_problem(state, u, p, column) is None

    # -- shooting ---------------------------------------------------------------- #
    def _concealed_at(self, x: float, y: float) -> bool:
        return concealed_in(str(self.map.terrain_at(x, y)))

    def _sees(
        self, a: tuple[float, float], b: tuple[float, float], eye: float, tgt: float
    ) -> bool:
        return self.sight.sees(a, b, eye, tgt)

    def _warm_sight(self, state: GameState, side: str) -> None:
        """Learn at once every look of ``side``'s teams at enemy teams in range
        (:class:`.sight.Sight`, the compiled all-pairs LOS)."""
        eyes: dict[float, list[tuple[float, float]]] = {}
        reach: dict[float, float] = {}
        tgts: dict[float, list[tuple[float, float]]] = {}
        for u in state.units.values():
            if not self._in_play(u):
                continue
            for m in u.models:
                p = m.position
                if not isinstance(p, Point):
                    continue
                t = self.team(m)
                xy = (float(p.x), float(p.y))
                if u.side != side:
                    tgts.setdefault(t.eye_height_m, []).append(xy)
                    continue
                w = direct_weapon(t)
                if w is None or m.attrs.get("bailed") or m.attrs.get("bogged"):
                    continue
                eyes.setdefault(t.eye_height_m, []).append(xy)
                reach[t.eye_height_m] = max(
                    reach.get(t.eye_height_m, 0.0), w.range_in * self.scale
                )
        for eye, pts in eyes.items():
            for tgt, where in tgts.items():
                self.sight.warm(pts, where, eye, tgt, max_range_m=reach[eye])

    def _sight(self, eye: float, target: float) -> dict[str, Any]:
        """``Map.los`` arguments of a look from a team (WYSIWYG, seed 004 p. 20)."""
        return {
            "observer_height_m": eye,
            "target_height_m": target,
            "hex_rule": False,
            "margin_m": SIGHT_MARGIN_IN * self.scale,
        }

    def shot_plan(
        self, state: GameState, u: Unit, t: Unit, *, assaulting: bool = False
    ) -> ShotPlan:
        """Who of ``u`` can hit whom of ``t`` now (:func:`.shooting.plan_shot`);
        ``assaulting``: at ROF 1, ready to assault (research §3.1)."""
        shooters = [
            (m, self.team(m))
            for m in u.models
            if isinstance(m.position, Point)
            and not m.attrs.get("bailed")
            and not m.attrs.get("bogged")
        ]
        targets = [(m, self.team(m)) for m in t.models if isinstance(m.position, Point)]
        marks = markers(state)
        concealed_at = self._concealed_at
        if marks and isinstance(u.position, Point):
            # smoke conceals the teams under it or seen through it, from the
            # shooting platoon's point (smoke.py, research §10.4 stop-gap)
            at = (float(u.position.x), float(u.position.y))

            def concealed_at(x: float, y: float) -> bool:
                return self._concealed_at(x, y) or smoke_between(marks, at, (x, y))

        plan = plan_shot(
            shooters,
            targets,
            target_skill=str(t.attrs["skill"]),
            moved=bool(u.attrs.get("moved")),
            pinned=bool(u.attrs.get("pinned")),
            concealed_at=concealed_at,
            gone_to_ground=bool(t.attrs.get("gone_to_ground")),
            sees=self._sees,
            metres_per_inch=self.scale,
            assaulting=assaulting,
        )
        return double_dice(plan, t)  # a target At the Double (double.py)

    def shot_problem(self, state: GameState, u: Unit, tid: str) -> str | None:
        """Why ``u`` may not shoot at ``tid`` (``None``: it may)."""
        t = state.units.get(tid)
        if t is None:
            return f"no platoon {tid!r}"
        if t.side == u.side or not self._in_play(t):
            return f"{tid} is not an enemy platoon on the table"
        if (why := no_shooting(u)) is not None:
            return why
        plan = self.shot_plan(state, u, t)
        if not plan.shooters:
            return (
                f"no team of {u.id} has {tid} in range and in line of sight "
                "(research/fow.md §1.3)"
            )
        return None

    # -- assault ------------------------------------------------------------------ #
    def charge_plan(
        self, state: GameState, u: Unit, targets: list[Model]
    ) -> dict[str, tuple[float, float]]:
        """Where each of ``u``'s teams able to fight ends its charge into
        contact with the nearest of ``targets`` within 4" (:func:`.assault.
        charge_moves`); the straight line must be a move the team could make
        (passable going, on the map, within its distance in that going:
        ASSUMPTION)."""
        bridges = standing(self, state)

        def passable(m: Model, t: TeamType, dx: float, dy: float) -> bool:
            tm = team_move(
                self.map, m, t, dx, dy, metres_per_inch=self.scale, bridges=bridges
            )
            return tm.problem is None

        # teams that fired above ROF 1 this turn do not charge (rof.py, §3.1)
        out = rof.barred(u)
        return charge_moves(
            [
                (m, self.team(m))
                for m in u.models
                if isinstance(m.position, Point) and m.id not in out
            ],
            [m for m in targets if isinstance(m.position, Point)],
            mpi=self.scale,
            passable=passable,
        )

    def assault_problem(self, state: GameState, u: Unit, tid: str) -> str | None:
        """Why ``u`` may not assault ``tid`` (``None``: it may)."""
        t = state.units.get(tid)
        if t is None:
            return f"no platoon {tid!r}"
        if t.side == u.side or not self._in_play(t):
            return f"{tid} is not an enemy platoon on the table"
        if u.attrs.get("pinned"):
            return (
                f"{u.id} is Pinned Down and may not assault (ASSUMPTION, "
                "research/fow.md §3.6 gap)"
            )
        if u.attrs.get("at_double"):
            return (
                f"{u.id} moved At the Double this turn and may not assault "
                "(research/fow.md §2.3, stop-gap §10.2)"
            )
        if not self.charge_plan(state, u, list(t.models)):
            if rof.barred(u):
                return (
                    f"no team of {u.id} that may charge can reach a team of "
                    f"{tid}: {', '.join(sorted(rof.barred(u)))} fired above ROF 1 "
                    "this turn and may not charge into contact (research/fow.md "
                    "§3.1: a team that will assault fires ROF 1)"
                )
            return (
                f"no team of {u.id} able to fight can reach a team of {tid} "
                f'within the charge distance of {CHARGE_IN:g}" '
                f"({CHARGE_IN * self.scale:.0f} m) over passable going "
                "(research/fow.md §4)"
            )
        return None

    def _pending(self, state: GameState) -> list[str]:
        fight = state.vars.get("fight")
        return list(fight["pending"]) if fight else []

    # -- protocol ------------------------------------------------------------------- #
    def legal_actions(self, state: GameState) -> list[Action]:
        side = self.current_side(state)
        if side is None:
            return []
        step = state.phase
        out: list[Action] = []
        pending = self._pending(state)
        if pending:
            for uid in pending:
                out += [Counterattack(uid), BreakOff(uid)]
            return out
        if consolidate.pending(state):  # the winner of an assault (§1.4 item 6)
            return consolidate.consolidation_actions(self, state)
        if step == "starting":  # waiting at item 4: reveal ambushes (ambush.py)
            return [*ambush.reveal_actions(self, state, side), Next()]
        own = [u for u in state.units.values() if u.side == side and self._in_play(u)]
        if step == "shooting" and state.vars.get("air_pending"):
            # item 10: the aircraft's target, or Next for no strike (air.py)
            return [AirStrike(t) for t in air.strike_targets(self, state, side)] + [
                Next()
            ]
        if step == "movement":
            targets = {k: p for k, (p, _) in self.objectives.items()}
            for u in own:
                if u.attrs.get("moved"):
                    continue
                origin = u.position
                assert isinstance(origin, Point)
                reaches = self._reaches(u)
                reach = reaches.get("cross_country", max(reaches.values(), default=0))
                # full moves at each distance the platoon has in some going
                # (the most restrictive going sets a move's distance, research
                # §2.2: a full cross-country move into woods is too long, a
                # shorter one is not)
                body: dict[Point, None] = {}
                for dist in sorted(set(reaches.values()), reverse=True):
                    for c in candidate_moves(
                        origin,
                        dist,
                        game_map=self.map,
                        objectives=targets,
                        cover=("woods", "town"),
                        keep=self._keeper(state, u),
                    ):
                        body.setdefault(c.point)
                out.extend(Move(u.id, p) for p in body)
                # in column: toward the objectives, and onto and over a bridge
                lead = u.models[0].position
                assert isinstance(lead, Point)
                for c in candidate_moves(
                    lead,
                    reach,
                    game_map=self.map,
                    objectives={**targets, **bridge_waypoints(self, state, lead)},
                    cover=(),
                    directions=0,
                    keep=self._keeper(state, u, column=True),
                ):
                    out.append(Move(u.id, c.point, column=True))
                out += double_moves(self, state, u, targets)  # double.py
            out += transport.transport_actions(self, state, side)
        elif step == "shooting":
            self._warm_sight(state, side)
            enemies = [
                t for t in state.units.values() if t.side != side and self._in_play(t)
            ]
            for u in own:
                if u.attrs.get("fired"):
                    continue
                for t in enemies:
                    if self.shot_problem(state, u, t.id) is None:
                        out.append(Shoot(u.id, t.id))
                        # at ROF 1, to keep every team free to charge (rof.py)
                        plan = self.shot_plan(state, u, t)
                        if rof.ready_worth_offering(self, state, u, plan, enemies):
                            out.append(Shoot(u.id, t.id, to_assault=True))
                if no_shooting(u) is None:
                    out += artillery.bombard_actions(self, state, u)
        elif step == "assault":
            enemies = [
                t for t in state.units.values() if t.side != side and self._in_play(t)
            ]
            for u in own:
                if u.attrs.get("assaulted"):
                    continue
                for t in enemies:
                    if self.assault_problem(state, u, t.id) is None:
                        out.append(Assault(u.id, t.id))
        return [*out, Next()]

    def check(self, state: GameState, action: Action) -> None:
        side = self.current_side(state)
        if side is None:
            raise IllegalActionError("the game is over")
        pending = self._pending(state)
        if isinstance(action, Counterattack | BreakOff):
            if action.unit not in pending:
                raise IllegalActionError(
                    f"{action.unit} has no counterattack test passed and waiting "
                    "for its choice to counterattack or break off (research/fow.md "
                    "§4)"
                )
            return
        if pending:
            raise IllegalActionError(
                f"{side} must first choose for {', '.join(pending)}: counterattack "
                "or break off (research/fow.md §4)"
            )
        if isinstance(action, Consolidate):
            why = consolidate.consolidate_problem(self, state, action.unit, action.to)
            if why is not None:
                raise IllegalActionError(f"{action.unit} cannot consolidate: {why}")
            return
        winners = consolidate.pending(state)
        if winners:
            raise IllegalActionError(
                f"{side} must first consolidate or hold its ground with "
                f"{', '.join(winners)}, the winner of the assault (Consolidate; "
                "research/fow.md §1.4 item 6)"
            )
        if isinstance(action, AirStrike):
            why = air.strike_problem(self, state, action.target)
            if why is not None:
                raise IllegalActionError(f"no air strike on {action.target}: {why}")
            return
        if state.vars.get("air_pending") and not isinstance(action, Next):
            raise IllegalActionError(
                f"{side}'s platoons have shot: only the air strike (AirStrike) or "
                "Next is left in this Shooting Step (research/fow.md §1.3 item 10)"
            )
        if isinstance(action, Assault):
            if state.phase != "assault":
                raise IllegalActionError(
                    f"{action.unit} cannot assault: assaults are made in the "
                    f"Assault Step, not the {state.phase} step (research/fow.md "
                    "§1.4)"
                )
            u = self._own(state, action.unit, "assaulted")
            why = self.assault_problem(state, u, action.target)
            if why is not None:
                raise IllegalActionError(f"{u.id} cannot assault: {why}")
        elif isinstance(action, Move):
            if state.phase != "movement":
                raise IllegalActionError(
                    f"moves are made in the Movement Step, not the {state.phase} step"
                )
            u = self._own(state, action.unit, "moved")
            why = self.move_problem(state, u, action.to, action.column)
            if why is not None:
                raise IllegalActionError(f"{u.id} cannot move: {why}")
        elif isinstance(action, Shoot):
            if state.phase != "shooting":
                raise IllegalActionError(
                    f"shots are made in the Shooting Step, not the {state.phase} step"
                )
            u = self._own(state, action.unit, "fired")
            why = self.shot_problem(state, u, action.target)
            if why is not None:
                raise IllegalActionError(f"{u.id} cannot shoot: {why}")
        elif isinstance(action, AtTheDouble):
            if state.phase != "movement":
                raise IllegalActionError(
                    f"moves are made in the Movement Step, not the {state.phase} step"
                )
            u = self._own(state, action.unit, "moved")
            why = self.move_problem(state, u, action.to, action.column, double=True)
            if why is not None:
                raise IllegalActionError(f"{u.id} cannot move: {why}")
        elif isinstance(action, Bombard):
            if state.phase != "shooting":
                raise IllegalActionError(
                    "bombardments are fired in the Shooting Step, not the "
                    f"{state.phase} step"
                )
            u = self._own(state, action.unit, "fired")
            why = no_shooting(u)
            if why is None:
                why, _ = artillery.bombard_plan(
                    self, state, u, action.at, smoke=action.smoke, wide=action.wide
                )
            if why is not None:
                raise IllegalActionError(f"{u.id} cannot bombard: {why}")
        elif isinstance(action, Dismount):
            why = transport.dismount_problem(self, state, action.unit)
            if why is not None:
                raise IllegalActionError(f"{action.unit} cannot get out: {why}")
        elif isinstance(action, Mount):
            why = transport.mount_problem(self, state, action.unit, action.transport)
            if why is not None:
                raise IllegalActionError(
                    f"{action.unit} cannot get into {action.transport}: {why}"
                )
        elif isinstance(action, Reveal):
            why = ambush.reveal_problem(self, state, side, action.unit)
            if why is not None:
                raise IllegalActionError(f"{action.unit} cannot be revealed: {why}")
        elif not isinstance(action, Next):
            raise IllegalActionError(f"{action} is not an action of {self.id}")

    def apply(self, ctx: RuleContext, action: Action) -> None:
        from . import fight, play

        if isinstance(action, Move):
            play.move(self, ctx, action.unit, action.to, action.column)
        elif isinstance(action, Shoot):
            play.shoot(self, ctx, action.unit, action.target, action.to_assault)
            transport.after_fire(self, ctx)
        elif isinstance(action, Assault):
            fight.assault(self, ctx, action.unit, action.target)
            transport.after_fire(self, ctx)
        elif isinstance(action, Counterattack | BreakOff):
            fight.choose(self, ctx, action.unit, isinstance(action, Counterattack))
            transport.after_fire(self, ctx)
        elif isinstance(action, Consolidate):
            consolidate.consolidate(self, ctx, action.unit, action.to)
        elif isinstance(action, AtTheDouble):
            play.move(self, ctx, action.unit, action.to, action.column, double=True)
        elif isinstance(action, Bombard):
            artillery.bombardment(self, ctx, action)
            transport.after_fire(self, ctx)
        elif isinstance(action, Dismount):
            transport.dismount(self, ctx, action.unit)
        elif isinstance(action, Mount):
            transport.mount(self, ctx, action.unit, action.transport)
        elif isinstance(action, AirStrike):
            air.strike(self, ctx, action.target)
            transport.after_fire(self, ctx)
            play.end_shooting(self, ctx, str(ctx.state.vars["side"]))
        elif isinstance(action, Reveal):
            side = str(ctx.state.vars["side"])
            ambush.reveal(
                ctx,
                action.unit,
                "its player springs the ambush (the Starting Step, item 4)",
                gone_to_ground=False,
            )
            if not ambush.hidden_platoons(ctx.state, side):
                play.finish_start(self, ctx, side)
        elif ctx.state.phase == "starting":  # Next: on from item 4 (ambush.py)
            play.finish_start(self, ctx, str(ctx.state.vars["side"]))
        else:
            play.next_step(self, ctx)
        ambush.spring(self, ctx)  # an enemy team may have come near (ambush.py)

    def advance(self, ctx: RuleContext) -> None:
        from . import play

        if ctx.state.phase == "setup":
            play.start_turn(self, ctx, self.sides[0], first=True)
            ambush.spring(self, ctx)

    def outcome(self, state: GameState) -> Outcome | None:
        if state.phase != "end":
            return None
        vp = self.victory_points(state)
        broke = state.vars.get("company_broke")
        if broke is not None:  # company morale failed: its player loses (§5)
            win = next((s for s in self.sides if s != broke), None)
            return Outcome(win, "company morale", vp, state.turn)
        alive = {
            s: any(self._in_game(u) for u in state.units.values() if u.side == s)
            for s in self.sides
        }
        if sum(alive.values()) == 1:
            win = next(s for s, a in alive.items() if a)
            return Outcome(win, "annihilation", vp, state.turn)
        best = max(vp.values())
        top = [s for s in self.sides if vp[s] == best]
        return Outcome(top[0] if len(top) == 1 else None, "turn limit", vp, state.turn)

    def objective_control(self, state: GameState) -> dict[str, str | None]:
        return {k: state.control.get(k) for k in self.objectives}

    def victory_points(self, state: GameState) -> dict[str, int]:
        vp = dict.fromkeys(self.sides, 0)
        for name, (_, value) in self.objectives.items():
            owner = state.control.get(name)
            if owner in vp:
                vp[owner] += value
        return vp

    # -- helpers of the views and the AI ------------------------------------------- #
    def _is_tank(self, u: Unit) -> bool:
        return all(self.team(m).kind == "tank" for m in u.models)

    def _slowest(self, u: Unit) -> TeamType:
        return min(
            (self.team(m) for m in u.models),
            key=lambda t: move_distance_in(t, "cross_country"),
        )
