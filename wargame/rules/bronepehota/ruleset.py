"""Бронепехота 2008 on the real map: rule system ``bronepehota-2008`` (first cut).

What a game plays now (sections of ``official_rules.md``; seed 002 §3-4.1):

* A turn starts with initiative: each side rolls Д12, ties at the top roll
  again (§3.1).  The winner sets the order; ASSUMPTION: with two sides he goes
  first (the only order there is to choose).
* Sides act unit by unit in that order; a side whose units have all acted waits
  while the other finishes, unit after unit (§3.2 and its note).
* A squad acts soldier by soldier: each soldier once moves, shoots and melees,
  in any order, any skipped; once the next soldier begins, the previous one is
  done (§3.2 note 1).  :class:`EndSquad` finishes the squad (the rest skip).
* A move is a straight line of at most Ск steps (§4.1), not through other
  figures (§4.1), not over water, nor up or down a gradient over 45° between
  its ends (§4.1, the map's DEM); the soldier then faces any way (§4.1).
* Ending in contact with an enemy soldier is a melee at once, the mover the
  attacker: Д6+ББ against Д6+Бр, a tie repelled, the loser destroyed; from
  outside the defender's field of view a surprise attack, best of two dice
  (§4.1 note, §8.1-8.3; :mod:`.melee`).
* A shot needs the target in the front half-circle of the shooter (§7.3), the
  shooter in contact with no enemy (§7.3), and the target at least partly in
  sight (§7.3); its cover (Table 5) is the visible part of the figure measured
  by the map's line of sight at four heights; range roll, then power dice
  (§7.4, :mod:`.shooting`), rolled through the game's logged dice.  One damage
  destroys a soldier (§5.1).
* A side whose soldiers are all dead loses (§1.1, §12.1).  The core rules have
  no turn limit; ASSUMPTION: at a scenario's turn limit the side with more
  objective points wins (an objective is held by a side with a soldier within
  2 steps and no enemy there), then the side with more soldiers left.

Machines, guns, pilots, grenades and the optional rules are not on the map yet.

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
from collections.abc import Mapping
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
    locate_point,
    place_units,
    state_change,
    unit_change,
    var_change,
)
from wargame.engine.points import bearing, check_on_map, distance
from wargame.engine.present import Reach
from wargame.engine.state import Formation

from .data import Armlists, Soldier, load_armlists
from .melee import resolve_melee, soldier_attack, soldier_defence
from .odds import hit_probability
from .shooting import cover_bonus, damage_from, range_result, steps, visibility_of

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
#: a quarter step.
BASE_RADIUS_STEPS = 0.25
#: Bases this close (in steps, beyond touching) still count as touching.
CONTACT_TOL_STEPS = 0.05
#: ASSUMPTION: eyes at 1.8 m; a figure is 2 m tall, seen at these heights for
#: its visible part (Table 5): all four full, three more than half, fewer less.
EYE_M = 1.8
SIGHT_HEIGHTS_M = (0.5, 1.0, 1.5, 2.0)
#: ASSUMPTION: an objective is held by a side with a soldier within 2 steps.
HOLD_STEPS = 2.0
#: The three actions of a ground soldier (§3.2).
ACTS = ("move", "shoot", "melee")


@dataclass(frozen=True)
class Move(Action):
    """A soldier of a squad moves in a straight line to ``to``, then faces
    ``facing`` (compass degrees; default: the way he went)."""

    type = "move"
    unit: str
    soldier: str
    to: Point
    facing: float | None = None


@dataclass(frozen=True)
class Shoot(Action):
    """A soldier shoots his personal weapon at an enemy soldier (§7)."""

    type = "shoot"
    unit: str
    soldier: str
    target: str
    target_soldier: str


@dataclass(frozen=True)
class EndSquad(Action):
    """The squad has acted (its remaining soldiers skip); the next side's unit."""

    type = "end_squad"
    unit: str


def _angle_off(facing: float | None, a: Point, b: Point) -> float:
    """Degrees between ``facing`` and the bearing from ``a`` to ``b`` (0..180)."""
    if facing is None:
        return 0.0
    d = (bearing(a, b) - facing) % 360.0
    return min(d, 360.0 - d)


class BronepehotaRuleset(RulesetBase):
    """Бронепехота 2008 squads on the real map (see the module docstring)."""

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
        "squad done",
        "end",
    )
    action_types: ClassVar[Mapping[str, type[Action]]] = {
        c.type: c for c in (Move, Shoot, EndSquad)
    }
    scenario_keys: ClassVar[Mapping[str, frozenset[str]]] = {
        "scenario": frozenset({"objectives", "rules"}),
        "units": frozenset(),
        "rules": frozenset({"step_m"}),
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
                scenario.problem(
                    "rules.step_m", f"{step!r} must be 1..100 metres a step"
                )
            )
            step = STEP_M
        self.step_m = float(step)
        self.radius_m = BASE_RADIUS_STEPS * self.step_m
        for i, raw in enumerate(scenario.units):
            if raw.get("type") not in self.arm.squads:
                problems.append(
                    scenario.problem(
                        f"units[{i}] ({raw.get('id')!r}).type",
                        f"{raw.get('type')!r} is not a squad of the 2008 armlists; use "
                        f"one of {sorted(self.arm.squads)}",
                    )
                )
        if problems:
            raise ScenarioError(problems)
        placed = place_units(
            scenario,
            game_map,
            models=lambda raw: [ModelSpec("soldier", self.radius_m)] * 6,
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
        self._sight: dict[tuple[float, float, float, float], float] = {}

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
        for raw in self.scenario.units:
            uid = raw["id"]
            side = raw.get("side") or st.formations[raw["formation"]].side
            pu = self.placed.get(uid)
            models = tuple(
                Model(
                    f"{uid}.{n + 1}",
                    "soldier",
                    position=None if pu is None else pu.models[n].position,
                    facing=None if pu is None else pu.models[n].facing,
                    radius_m=self.radius_m,
                    attrs={"n": n + 1},
                )
                for n in range(6)
            )
            st.units[uid] = Unit(
                uid,
                raw.get("name", uid),
                side,
                raw.get("formation"),
                raw["type"],
                None if pu is None else pu.position,
                facing=None if pu is None else round(pu.facing) % 360,
                models=models,
            )
        return st

    # -- helpers ------------------------------------------------------------ #
    def soldier_of(
        self, state: GameState, uid: str, mid: str
    ) -> tuple[Unit, Model, Soldier]:
        """The unit, model and armlist line of soldier ``mid``; IllegalActionError."""
        u = state.units.get(uid)
        if u is None or u.destroyed:
            raise IllegalActionError(f"no squad {uid!r} on the map")
        for m in u.models:
            if m.id == mid:
                return u, m, self.arm.squads[u.type].soldiers[int(m.attrs["n"]) - 1]
        raise IllegalActionError(f"squad {uid} has no living soldier {mid!r}")

    def _figures(self, state: GameState) -> list[tuple[Unit, Model]]:
        return [
            (u, m)
            for u in state.units.values()
            if not u.destroyed
            for m in u.models
            if isinstance(m.position, Point)
        ]

    def _touching(
        self, state: GameState, side: str, at: Point, skip: str = ""
    ) -> list[tuple[Unit, Model]]:
        """Enemy figures whose bases touch a base at ``at``."""
        reach = 2 * self.radius_m + CONTACT_TOL_STEPS * self.step_m
        return [
            (u, m)
            for u, m in self._figures(state)
            if u.side != side and m.id != skip and distance(m.position, at) <= reach  # type: ignore[arg-type]
        ]

    def _ready(self, state: GameState, side: str) -> list[Unit]:
        return [
            u
            for u in state.units.values()
            if u.side == side and not u.destroyed and not u.attrs.get("acted")
        ]

    def visible_part(self, a: Point, b: Point) -> float:
        """The part (0..1) of a figure at ``b`` that eyes at ``a`` see (Table 5)."""
        key = (a.x, a.y, b.x, b.y)
        if key not in self._sight:
            seen = sum(
                bool(
                    self.map.los(
                        (a.x, a.y),
                        (b.x, b.y),
                        observer_height_m=EYE_M,
                        target_height_m=h,
                        hex_rule=False,
                    ).visible
                )
                for h in SIGHT_HEIGHTS_M
            )
            self._sight[key] = seen / len(SIGHT_HEIGHTS_M)
        return self._sight[key]

    def _turn_to_act(
        self, state: GameState, uid: str, mid: str, act: str
    ) -> tuple[Unit, Model, Soldier]:
        """Who acts, checked against the turn: the side, the squad, the soldier."""
        side = self.current_side(state)
        if side is None:
            raise IllegalActionError("the game is over")
        u, m, s = self.soldier_of(state, uid, mid)
        if u.side != side:
            raise IllegalActionError(f"{uid} is not {side}'s squad")
        active = state.vars.get("active")
        if active is None and u.attrs.get("acted"):
            raise IllegalActionError(f"§3.2: squad {uid} has acted this turn")
        if active is not None and active != uid:
            raise IllegalActionError(
                f"§3.2: squad {active} is acting; end it before {uid} acts"
            )
        if mid in state.vars.get("done", ()):
            raise IllegalActionError(f"§3.2 note 1: soldier {mid} has acted this turn")
        did = state.vars.get("did", ()) if state.vars.get("current") == mid else ()
        if act in did:
            raise IllegalActionError(f"§3.2: soldier {mid} may {act} once a turn")
        return u, m, s

    # -- moves and shots ---------------------------------------------------- #
    def move_problem(
        self, state: GameState, u: Unit, m: Model, s: Soldier, to: Point
    ) -> str | None:
        """Why soldier ``m`` may not move to ``to`` (``None``: he may)."""
        try:
            check_on_map(to, self.map, "to")
        except ValueError as exc:
            return str(exc)
        start = m.position
        assert isinstance(start, Point)
        d = distance(start, to)
        if d > s.speed * self.step_m + 1e-6:
            return (
                f"§4.1: {d / self.step_m:.2f} steps is more than his Ск {s.speed} "
                f"({s.speed * self.step_m:g} m)"
            )
        if d == 0:
            return "§4.1: the move goes nowhere"
        # §4.1: never through other figures (their bases), friend or foe
        near = 2 * self.radius_m - 1e-6
        for _, o in self._figures(state):
            if o.id == m.id:
                continue
            p = o.position
            assert isinstance(p, Point)
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
            if distance(q, p) < near:
                return (
                    f"§4.1: the way passes through {o.id} at ({p.x:.1f}, {p.y:.1f}); "
                    "go round, or stop touching it"
                )
        # the ground under the way, sampled every 2 m (the map's land cover is 10 m)
        n = max(2, math.ceil(d / 2.0) + 1)
        xs = [start.x + (to.x - start.x) * k / (n - 1) for k in range(n)]
        ys = [start.y + (to.y - start.y) * k / (n - 1) for k in range(n)]
        if "water" in {str(c) for c in self.map.terrain_at(xs, ys)}:
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

    def shot_problem(
        self, state: GameState, u: Unit, m: Model, s: Soldier, tid: str, tmid: str
    ) -> str | None:
        """Why soldier ``m`` may not shoot at ``tmid`` (``None``: he may)."""
        if not s.armed:
            return f"§7.1: soldier {m.id} has no ranged weapon (dashes on the armlist)"
        t = state.units.get(tid)
        tm = None if t is None else next((x for x in t.models if x.id == tmid), None)
        if t is None or tm is None or t.destroyed:
            return f"no living enemy soldier {tmid!r} in squad {tid!r}"
        if t.side == u.side:
            return f"{tmid} is a friend"
        a, b = m.position, tm.position
        assert isinstance(a, Point) and isinstance(b, Point)
        if self._touching(state, u.side, a):
            return f"§7.3: soldier {m.id} touches an enemy (in melee) and may not shoot"
        if _angle_off(m.facing, a, b) > 90.0 + 1e-9:
            return f"§7.3: {tmid} is outside {m.id}'s field of view (behind him)"
        if self.visible_part(a, b) == 0.0:
            return f"§7.3: {m.id} cannot see {tmid} (no line of fire)"
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
                alive = {u.side for u in st.units.values() if not u.destroyed}
                if len(alive) < len(self.sides):
                    ctx.emit(
                        "end", result="annihilation", changes=state_change(phase="end")
                    )
                    return
                if st.vars.get("active") is not None:
                    return
                side = str(st.vars["side"])
                if self._ready(st, side):
                    return
                order = list(st.vars["order"])
                waiting = [s for s in order if self._ready(st, s)]
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
                side=winner, order=order, active=None, current=None, did=[], done=[]
            ),
        )

    def _soldier_actions(
        self, state: GameState, u: Unit, m: Model, s: Soldier
    ) -> list[Action]:
        out: list[Action] = []
        did = state.vars.get("did", ()) if state.vars.get("current") == m.id else ()
        a = m.position
        assert isinstance(a, Point)
        enemies = [(t, x) for t, x in self._figures(state) if t.side != u.side]
        if "shoot" not in did and s.armed and s.range is not None:
            for t, x in enemies:
                b = x.position
                assert isinstance(b, Point)
                if hit_probability(s.range, distance(a, b) / self.step_m) == 0:
                    continue
                if self.shot_problem(state, u, m, s, t.id, x.id) is None:
                    out.append(Shoot(u.id, m.id, t.id, x.id))
        if "move" not in did and enemies:
            reach = s.speed * self.step_m
            nearest = min(enemies, key=lambda e: distance(a, e[1].position))  # type: ignore[arg-type]
            goal = nearest[1].position
            assert isinstance(goal, Point)
            pts: list[Point] = []
            gap = distance(a, goal)
            contact = 2 * self.radius_m
            if gap - contact <= reach:  # a charge into base contact (melee, §8)
                f = (gap - contact) / gap
                pts.append(
                    Point(
                        round(a.x + (goal.x - a.x) * f, 2),
                        round(a.y + (goal.y - a.y) * f, 2),
                    )
                )
            objectives = {k: p for k, (p, _) in self.objectives.items()}
            for c in candidate_moves(
                a, reach, game_map=self.map, objectives=objectives, directions=4
            ):
                pts.append(c.point)
            for p in pts:
                if self.move_problem(state, u, m, s, p) is None:
                    out.append(Move(u.id, m.id, p, round(bearing(p, goal), 1)))
        return out

    def legal_actions(self, state: GameState) -> list[Action]:
        side = self.current_side(state)
        if side is None:
            return []
        active = state.vars.get("active")
        squads = (
            [state.units[active]] if active is not None else self._ready(state, side)
        )
        out: list[Action] = []
        done = set(state.vars.get("done", ()))
        current = state.vars.get("current")
        for u in squads:
            todo = [
                m
                for m in u.models
                if m.id not in done and isinstance(m.position, Point)
            ]
            # a sample: the soldier acting now and the next two (any order is legal)
            todo.sort(key=lambda m: (m.id != current, int(m.attrs["n"])))
            for m in todo[:3]:
                s = self.arm.squads[u.type].soldiers[int(m.attrs["n"]) - 1]
                out += self._soldier_actions(state, u, m, s)
            out.append(EndSquad(u.id))
        return out

    def check(self, state: GameState, action: Action) -> None:
        side = self.current_side(state)
        if side is None:
            raise IllegalActionError("the game is over")
        if isinstance(action, Move):
            u, m, s = self._turn_to_act(state, action.unit, action.soldier, "move")
            why = self.move_problem(state, u, m, s, action.to)
            if why is not None:
                raise IllegalActionError(f"soldier {m.id} cannot move: {why}")
        elif isinstance(action, Shoot):
            u, m, s = self._turn_to_act(state, action.unit, action.soldier, "shoot")
            why = self.shot_problem(
                state, u, m, s, action.target, action.target_soldier
            )
            if why is not None:
                raise IllegalActionError(f"soldier {m.id} cannot shoot: {why}")
        elif isinstance(action, EndSquad):
            sq = state.units.get(action.unit)
            if sq is None or sq.destroyed or sq.side != side:
                raise IllegalActionError(f"{action.unit!r} is not a squad of {side}")
            active = state.vars.get("active")
            if active is not None and active != sq.id:
                raise IllegalActionError(f"§3.2: squad {active} is acting, not {sq.id}")
            if active is None and sq.attrs.get("acted"):
                raise IllegalActionError(f"§3.2: squad {sq.id} has acted this turn")
        else:
            raise IllegalActionError(f"{action} is not an action of {self.id}")

    def _begin(self, ctx: RuleContext, uid: str, mid: str) -> tuple[Change_, list[str]]:
        """The vars changes that make ``mid`` the acting soldier; his acts so far."""
        st = ctx.state
        ch: list[Any] = []
        if st.vars.get("active") is None:
            ch += var_change(active=uid)
        if st.vars.get("current") != mid:
            done = list(st.vars.get("done", ()))
            if st.vars.get("current") is not None:
                done.append(st.vars["current"])
            ch += var_change(current=mid, did=[], done=done)
            return tuple(ch), []
        return tuple(ch), list(st.vars.get("did", ()))

    def _kill(self, st: GameState, uid: str, mid: str) -> tuple[Any, ...]:
        u = st.units[uid]
        left = tuple(x for x in u.models if x.id != mid)
        first = next((x.position for x in left if isinstance(x.position, Point)), None)
        if not left:
            return unit_change(uid, models=left, strength="destroyed")
        return unit_change(uid, models=left, position=first)

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
                + var_change(side=nxt, active=None, current=None, did=[], done=[]),
            )
            return
        assert isinstance(action, Move | Shoot)
        ch, did = self._begin(ctx, action.unit, action.soldier)
        u, m, s = self.soldier_of(st, action.unit, action.soldier)
        if isinstance(action, Move):
            a = m.position
            assert isinstance(a, Point)
            face = action.facing if action.facing is not None else bearing(a, action.to)
            moved = Model(
                m.id,
                m.kind,
                m.wounds,
                action.to,
                round(face % 360.0, 1),
                m.radius_m,
                m.attrs,
            )
            models = tuple(moved if x.id == m.id else x for x in u.models)
            did.append("move")
            ctx.emit(
                "move",
                side=side,
                unit=u.id,
                target=m.id,
                point_from=a,
                point_to=action.to,
                result=f"{distance(a, action.to) / self.step_m:.2f} steps",
                changes=ch
                + unit_change(u.id, models=models, position=models[0].position)
                + var_change(did=did),
            )
            touched = self._touching(ctx.state, side, action.to)
            if touched and "melee" not in did:
                self._melee(ctx, side, u.id, moved, s, touched)
            return
        self._shoot(ctx, side, ch, did, u, m, s, action)

    def _melee(
        self,
        ctx: RuleContext,
        side: str,
        uid: str,
        m: Model,
        s: Soldier,
        touched: list[tuple[Unit, Model]],
    ) -> None:
        """§4.1 note, §8: contact with an enemy soldier is a melee at once."""
        a = m.position
        assert isinstance(a, Point)
        t, x = min(touched, key=lambda e: distance(a, e[1].position))  # type: ignore[arg-type]
        ts = self.arm.squads[t.type].soldiers[int(x.attrs["n"]) - 1]
        b = x.position
        assert isinstance(b, Point)
        surprise = _angle_off(x.facing, b, a) > 90.0 + 1e-9  # §8.3: from behind
        attack, defence = soldier_attack(s.melee), soldier_defence(ts.armour)
        af = ctx.roll(
            2 if surprise else 1,
            sides=6,
            kind="melee roll",
            side=side,
            unit=uid,
            target=x.id,
            detail=f"attack {attack}" + (" (surprise)" if surprise else ""),
        )
        df = ctx.roll(
            1,
            sides=6,
            kind="melee roll",
            side=t.side,
            unit=t.id,
            target=m.id,
            detail=f"defence {defence}",
        )
        r = resolve_melee(attack, af, defence, df[0], surprise=surprise)
        did = [*ctx.state.vars.get("did", ()), "melee"]
        ctx.emit(
            "melee",
            side=side,
            unit=uid,
            target=x.id,
            point_from=a,
            point_to=b,
            result=f"{r.attack} vs {r.defence}: "
            + ("destroyed" if r.won else "repelled"),
            changes=(self._kill(ctx.state, t.id, x.id) if r.won else ())
            + var_change(did=did),
        )

    def _shoot(
        self,
        ctx: RuleContext,
        side: str,
        ch: Any,
        did: list[str],
        u: Unit,
        m: Model,
        s: Soldier,
        action: Shoot,
    ) -> None:
        st = ctx.state
        t = st.units[action.target]
        x = next(y for y in t.models if y.id == action.target_soldier)
        ts = self.arm.squads[t.type].soldiers[int(x.attrs["n"]) - 1]
        a, b = m.position, x.position
        assert isinstance(a, Point) and isinstance(b, Point) and s.range and s.power
        dist = distance(a, b) / self.step_m
        vis = visibility_of(self.visible_part(a, b))
        cover = cover_bonus(vis)  # Table 5
        did.append("shoot")
        ctx.emit(
            "aim",
            side=side,
            unit=u.id,
            target=x.id,
            changes=tuple(ch) + var_change(did=did),
            detail=f"{s.range} at {steps(dist)} steps, target {vis.replace('_', ' ')}",
        )
        rf = ctx.roll(
            1,
            sides=s.range.sides,
            kind="range",
            side=side,
            unit=u.id,
            target=x.id,
            needed=steps(dist),
        )
        reach = range_result(s.range, rf[0])
        if reach < steps(dist):
            ctx.emit(
                "shot",
                side=side,
                unit=u.id,
                target=x.id,
                point_from=a,
                point_to=b,
                result=f"miss ({reach} < {steps(dist)})",
            )
            return
        armour = ts.armour + cover
        pf = ctx.roll(
            s.power.count,
            sides=s.power.sides,
            kind="power",
            side=side,
            unit=u.id,
            target=x.id,
            needed=armour + 1,
        )
        dmg = damage_from(s.power, pf, armour)
        ctx.emit(
            "shot",
            side=side,
            unit=u.id,
            target=x.id,
            point_from=a,
            point_to=b,
            hits=dmg,
            result="destroyed" if dmg else f"armour {armour} holds",
            changes=self._kill(st, t.id, x.id) if dmg else (),
        )

    def outcome(self, state: GameState) -> Outcome | None:
        if state.phase != "end":
            return None
        alive = {
            s: sum(
                len(u.models)
                for u in state.units.values()
                if u.side == s and not u.destroyed
            )
            for s in self.sides
        }
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
                u.side
                for u, m in self._figures(state)
                if distance(m.position, p) <= HOLD_STEPS * self.step_m  # type: ignore[arg-type]
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
        sq = self.arm.squads[u.type]
        move = max(s.speed for s in sq.soldiers) * self.step_m
        reach = max(
            (s.range.sides + s.range.bonus for s in sq.soldiers if s.range), default=0
        )
        return (Reach("move", move), Reach("range", reach * self.step_m))

    def unit_columns(self, state: GameState) -> dict[str, dict[str, Any]]:
        return {
            "soldiers": {k: len(u.models) for k, u in state.units.items()},
            "acted": {k: bool(u.attrs.get("acted")) for k, u in state.units.items()},
        }

    def sight_options(
        self, state: GameState, observer: str, target: str | None
    ) -> dict[str, Any]:
        return {"observer_height_m": EYE_M, "target_height_m": 2.0, "hex_rule": False}


Change_ = tuple[Any, ...]
