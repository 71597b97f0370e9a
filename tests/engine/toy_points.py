"""A point-based toy rule system (id ``toypoints-1e``) on the real map.

It uses what the point rule systems (Flames of War, Бронепехота) need from the
engine, and nothing of theirs: units of several models (teams) at free points,
placed by the engine (:func:`wargame.engine.place_units`: x/y, lonlat, place
plus offset, zones with a layout), measured moves along a path of points with
going costs from the ground crossed, a command radius, point line of sight,
a simple shot, hidden units revealed when seen, and reinforcements entering
at a point.

Rules (the whole toy):

* sides alternate; in its turn a side may move each of its units once and
  shoot with each once, then ends its turn; the game lasts ``turns`` turns;
* a move follows a path of points from where the unit stands; each metre costs
  the going factor of the ground under it (:data:`GOING`: clear 1, park 1,
  orchard 1.5, town 1.5, woods 2, wetland 3, water impassable; a boat the other
  way round); the cost may not exceed the unit type's allowance; a unit of a
  formation with an HQ must end within :data:`COMMAND_M` of it; all the
  unit's models move together, turning to face the move;
* a shot needs the target within the shooter's range and in sight (point line
  of sight, eyes at 2 m); one die per model, each 4+ kills a model (5+ when
  the target stands in woods or town);
* a hidden unit is seen by its own side alone until it shoots or an enemy unit
  in sight comes within :data:`SPOT_M`;
* at the end a side holds an objective with a unit within :data:`HOLD_M` and
  no enemy there; the side with more victory points wins (then: more models).

``_terrain_along`` and ``_point_los`` are stand-ins behind one small function
each, to switch to the geography's ``Map.terrain_along`` and
``Map.los(..., hex_rule=False)`` when they land.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
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
    locate_point,
    place_units,
    register_ruleset,
    state_change,
    unit_change,
    var_change,
)
from wargame.engine.placement import layout_offsets
from wargame.engine.points import (
    as_path,
    bearing,
    check_on_map,
    distance,
    offset,
    path_length,
)
from wargame.engine.present import Going, Reach
from wargame.engine.state import Formation

SCENARIO = Path(__file__).parents[1] / "data" / "toy_points.toml"

#: A hidden unit is seen when an enemy unit in sight is this close (metres).
SPOT_M = 300.0
#: A unit of a formation with an HQ ends its move this close to it (metres).
COMMAND_M = 250.0
#: A unit within this distance of an objective may hold it (metres).
HOLD_M = 100.0

#: Unit types: models, their kind and base radius, move allowance (metres of
#: going), range, and whether they may stand in water.
TYPES: dict[str, dict[str, Any]] = {
    "rifles": {
        "models": 3,
        "kind": "rifle team",
        "radius_m": 1.0,
        "move_m": 150.0,
        "range_m": 400.0,
        "going": "foot",
    },
    "hq": {
        "models": 1,
        "kind": "command team",
        "radius_m": 1.0,
        "move_m": 150.0,
        "range_m": 300.0,
        "going": "foot",
    },
    "boat": {
        "models": 1,
        "kind": "assault boat",
        "radius_m": 3.0,
        "move_m": 200.0,
        "range_m": 300.0,
        "going": "boat",
    },
}
#: Going factor per generic terrain class (metres of allowance per metre).
GOING: dict[str, dict[str, float]] = {
    "foot": {
        "clear": 1.0,
        "park": 1.0,
        "orchard": 1.5,
        "town": 1.5,
        "woods": 2.0,
        "wetland": 3.0,
        "water": math.inf,
    },
    "boat": {
        "water": 1.0,
        "wetland": 3.0,
        "clear": math.inf,
        "park": math.inf,
        "orchard": math.inf,
        "town": math.inf,
        "woods": math.inf,
    },
}
COVER = ("woods", "town")


@dataclass(frozen=True)
class Move(Action):
    type = "move"
    unit: str
    path: tuple[Point, ...]


@dataclass(frozen=True)
class Shoot(Action):
    type = "shoot"
    unit: str
    target: str


@dataclass(frozen=True)
class End(Action):
    type = "end"


# --------------------------------------------------------------------------- #
# stand-ins for the geography (switch to Map.terrain_along / point LOS)       #
# --------------------------------------------------------------------------- #


def _terrain_along(game_map: Any, a: Point, b: Point) -> list[tuple[str, float, Point]]:
    """``(class, length_m, start)`` of the runs of one terrain class along the
    leg ``a``–``b`` (:meth:`wargame.geo.maps.Map.terrain_along`, from the map's
    terrain polygons)."""
    length = distance(a, b)
    if length == 0:
        return []
    df = game_map.terrain_along([(a.x, a.y), (b.x, b.y)])
    out: list[tuple[str, float, Point]] = []
    for c, start, run in zip(df["class"], df["start_m"], df["length_m"], strict=True):
        f = float(start) / length
        at = Point(a.x + (b.x - a.x) * f, a.y + (b.y - a.y) * f)
        out.append((str(c), float(run), at))
    return out


def _point_los(game_map: Any, a: Point, b: Point) -> bool:
    """Whether a model at ``a`` sees one at ``b`` (eyes and target at 2 m), by
    the point rule (no hex grid: :meth:`wargame.geo.maps.Map.los_points`)."""
    return bool(
        game_map.los(
            (a.x, a.y),
            (b.x, b.y),
            observer_height_m=2.0,
            target_height_m=2.0,
            hex_rule=False,
        ).visible
    )


# --------------------------------------------------------------------------- #
# the rule system                                                             #
# --------------------------------------------------------------------------- #


class ToyPoints(RulesetBase):
    id = "toypoints-1e"
    title = "Toy points skirmish"
    positions = "point"
    phases = ("setup", "play", "end")
    event_kinds = ("turn", "move", "shoot", "spotted", "revealed", "arrive", "end")
    action_types: ClassVar[dict[str, type[Action]]] = {
        c.type: c for c in (Move, Shoot, End)
    }
    hidden_information = True
    scenario_keys: ClassVar[Mapping[str, frozenset[str]]] = {
        "scenario": frozenset({"objectives", "reinforcements"}),
        "units": frozenset({"hidden"}),
    }

    def __init__(self, scenario: Scenario, game_map: Any) -> None:
        self.scenario = scenario
        self.map = game_map
        self.sides = [s["id"] for s in scenario.sides]
        problems: list[str] = []
        for i, raw in enumerate(scenario.units):
            t = raw.get("type")
            if t not in TYPES:
                problems.append(
                    scenario.problem(
                        f"units[{i}] ({raw.get('id')!r}).type",
                        f"{t!r} is not a unit type; use one of {sorted(TYPES)}",
                    )
                )
        if problems:
            raise ScenarioError(problems)
        placed = place_units(
            scenario,
            game_map,
            models=lambda raw: (
                [ModelSpec(TYPES[raw["type"]]["kind"], TYPES[raw["type"]]["radius_m"])]
                * TYPES[raw["type"]]["models"]
            ),
            water_ok=lambda raw: TYPES[raw["type"]]["going"] == "boat",
        )
        problems += placed.problems
        self.placed = placed.units
        self.objectives, more = locate_objectives(scenario, game_map)
        problems += more
        self.arrivals: dict[int, list[tuple[str, Point]]] = {}
        for i, r in enumerate(scenario.reinforcements):
            entry = r["entry"][0]
            p, key, why = locate_point(game_map, entry)
            if p is None:
                problems.append(
                    scenario.problem(f"reinforcements[{i}].entry[0].{key}", str(why))
                )
                continue
            for uid in r["units"]:
                self.arrivals.setdefault(int(r["turn"]), []).append((uid, p))
        if problems:
            raise ScenarioError(problems)

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
            spec = TYPES[raw["type"]]
            side = raw.get("side") or st.formations[raw["formation"]].side
            pu = self.placed.get(uid)
            models = (
                pu.models
                if pu is not None
                else tuple(
                    Model(f"{uid}.{j + 1}", spec["kind"], radius_m=spec["radius_m"])
                    for j in range(spec["models"])
                )
            )
            st.units[uid] = Unit(
                uid,
                raw.get("name", uid),
                side,
                raw.get("formation"),
                raw["type"],
                pu.position if pu is not None else None,
                facing=round(pu.facing) % 360 if pu is not None else None,
                hidden=bool(raw.get("hidden", False)),
                models=models,
            )
        return st

    def advance(self, ctx: RuleContext) -> None:
        if ctx.state.phase == "setup":
            ctx.emit(
                "turn",
                result="turn 1",
                changes=state_change(phase="play") + var_change(side=self.sides[0]),
            )

    def current_side(self, state: GameState) -> str | None:
        return None if state.phase != "play" else str(state.vars["side"])

    # -- helpers ------------------------------------------------------------ #
    def _hq_point(self, state: GameState, u: Unit) -> Point | None:
        f = state.formations.get(u.formation or "")
        if f is None or f.hq is None or f.hq == u.id:
            return None
        hq = state.units.get(f.hq)
        if hq is None or hq.destroyed or not isinstance(hq.position, Point):
            return None
        return hq.position

    def _own(self, state: GameState, uid: str, what: str) -> Unit:
        side = self.current_side(state)
        u = state.units.get(uid)
        if side is None:
            raise IllegalActionError("the game is over")
        if u is None:
            raise IllegalActionError(f"no unit {uid!r}")
        if u.side != side:
            raise IllegalActionError(f"{uid} is not {side}'s unit")
        if u.destroyed or not isinstance(u.position, Point):
            raise IllegalActionError(f"{uid} is not on the map")
        if u.attrs.get(what):
            raise IllegalActionError(f"{uid} has {what} this turn already")
        return u

    def move_problem(
        self, state: GameState, u: Unit, path: Sequence[Point]
    ) -> str | None:
        """Why ``u`` may not follow ``path`` (``None``: it may): the first point
        where it fails and the reason."""
        try:
            pts = as_path(path, "path")
            for i, p in enumerate(pts):
                check_on_map(p, self.map, f"path[{i}]")
        except ValueError as exc:
            return str(exc)
        start = u.position
        assert isinstance(start, Point)
        if distance(pts[0], start) > 0.01:
            return (
                f"path[0] ({pts[0].x:.1f}, {pts[0].y:.1f}) is not where {u.id} "
                f"stands ({start.x:.1f}, {start.y:.1f}); start the path there"
            )
        spec = TYPES[u.type]
        going = GOING[spec["going"]]
        allowance = spec["move_m"]
        cost = 0.0
        for a, b in itertools.pairwise(pts):
            for cls, length, at in _terrain_along(self.map, a, b):
                f = going.get(cls, 1.0)
                if math.isinf(f):
                    return (
                        f"impassable {cls} at ({at.x:.1f}, {at.y:.1f}) for "
                        f"{u.id} ({spec['going']})"
                    )
                if cost + f * length > allowance + 1e-6:
                    left = (allowance - cost) / f
                    stop = offset(at, bearing(a, b), left)
                    return (
                        f"over allowance at ({stop.x:.1f}, {stop.y:.1f}): the "
                        f"path costs more than {u.id}'s {allowance:g} m of going"
                    )
                cost += f * length
        end = pts[-1]
        dx, dy = end.x - start.x, end.y - start.y
        for m in u.models:
            if isinstance(m.position, Point):
                q = Point(round(m.position.x + dx, 3), round(m.position.y + dy, 3))
                xmin, ymin, xmax, ymax = self.map.bounds
                if not (xmin <= q.x <= xmax and ymin <= q.y <= ymax):
                    return (
                        f"model {m.id} would end off the map at ({q.x:.1f}, {q.y:.1f})"
                    )
                if math.isinf(going.get(str(self.map.terrain_at(q.x, q.y)), 1.0)):
                    return (
                        f"model {m.id} would end on impassable "
                        f"{self.map.terrain_at(q.x, q.y)} at ({q.x:.1f}, {q.y:.1f})"
                    )
        hq = self._hq_point(state, u)
        if hq is not None and distance(end, hq) > COMMAND_M:
            return (
                f"out of command at ({end.x:.1f}, {end.y:.1f}): "
                f"{distance(end, hq):.0f} m from its HQ, more than {COMMAND_M:g} m"
            )
        return None

    def shot_problem(self, state: GameState, u: Unit, tid: str) -> str | None:
        t = state.units.get(tid)
        if t is None:
            return f"no unit {tid!r}"
        if t.side == u.side or t.destroyed or not isinstance(t.position, Point):
            return f"{tid} is not an enemy unit on the map"
        assert isinstance(u.position, Point)
        d = distance(u.position, t.position)
        rng = TYPES[u.type]["range_m"]
        if d > rng:
            return f"{tid} is {d:.0f} m away, beyond {u.id}'s range of {rng:g} m"
        if not _point_los(self.map, u.position, t.position):
            return f"{u.id} cannot see {tid}"
        return None

    # -- protocol ------------------------------------------------------------ #
    def legal_actions(self, state: GameState) -> list[Action]:
        side = self.current_side(state)
        if side is None:
            return []
        out: list[Action] = []
        objectives = {k: p for k, (p, _) in self.objectives.items()}
        for u in state.units.values():
            if u.side != side or u.destroyed or not isinstance(u.position, Point):
                continue
            if not u.attrs.get("moved"):
                origin = u.position
                hq = self._hq_point(state, u)
                for c in candidate_moves(
                    origin,
                    TYPES[u.type]["move_m"],
                    game_map=self.map,
                    objectives=objectives,
                    cover=COVER,
                    command=None if hq is None else (hq, COMMAND_M),
                    keep=lambda p, u=u, o=origin: (
                        self.move_problem(state, u, (o, p)) is None
                    ),
                ):
                    out.append(Move(u.id, (origin, c.point)))
            if not u.attrs.get("fired"):
                for t in state.units.values():
                    if t.side != side and self.shot_problem(state, u, t.id) is None:
                        out.append(Shoot(u.id, t.id))
        return [*out, End()]

    def check(self, state: GameState, action: Action) -> None:
        if self.current_side(state) is None:
            raise IllegalActionError("the game is over")
        if isinstance(action, Move):
            u = self._own(state, action.unit, "moved")
            why = self.move_problem(state, u, action.path)
            if why is not None:
                raise IllegalActionError(f"{u.id} cannot move: {why}")
        elif isinstance(action, Shoot):
            u = self._own(state, action.unit, "fired")
            why = self.shot_problem(state, u, action.target)
            if why is not None:
                raise IllegalActionError(f"{u.id} cannot shoot: {why}")
        elif not isinstance(action, End):
            raise IllegalActionError(f"{action} is not an action of {self.id}")

    def _spot(self, ctx: RuleContext) -> None:
        st = ctx.state
        for h in list(st.units.values()):
            if not h.hidden or h.destroyed or not isinstance(h.position, Point):
                continue
            for e in st.units.values():
                if e.side == h.side or e.destroyed or not isinstance(e.position, Point):
                    continue
                if distance(h.position, e.position) <= SPOT_M and _point_los(
                    self.map, e.position, h.position
                ):
                    ctx.emit(
                        "spotted",
                        side=h.side,
                        unit=h.id,
                        target=e.id,
                        result="revealed",
                        changes=unit_change(h.id, hidden=False),
                        point_to=h.position,
                    )
                    break

    def apply(self, ctx: RuleContext, action: Action) -> None:
        st = ctx.state
        side = str(st.vars["side"])
        if isinstance(action, Move):
            u = st.units[action.unit]
            start, end = action.path[0], action.path[-1]
            dx, dy = end.x - start.x, end.y - start.y
            face = round(bearing(action.path[-2], end), 2)  # stable digits
            models = tuple(
                Model(
                    m.id,
                    m.kind,
                    m.wounds,
                    Point(round(m.position.x + dx, 3), round(m.position.y + dy, 3))
                    if isinstance(m.position, Point)
                    else m.position,
                    face,
                    m.radius_m,
                    m.attrs,
                )
                for m in u.models
            )
            ctx.emit(
                "move",
                side=side,
                unit=u.id,
                point_from=start,
                point_to=end,
                result=f"{path_length(action.path):.0f} m",
                changes=unit_change(
                    u.id,
                    position=end,
                    facing=round(face) % 360,
                    models=models,
                    moved=True,
                ),
                visible_to=(side,) if u.hidden else None,
            )
            self._spot(ctx)
        elif isinstance(action, Shoot):
            u, t = st.units[action.unit], st.units[action.target]
            assert isinstance(u.position, Point) and isinstance(t.position, Point)
            if u.hidden:
                ctx.emit(
                    "revealed",
                    side=side,
                    unit=u.id,
                    changes=unit_change(u.id, hidden=False),
                    point_to=u.position,
                )
            cover = str(self.map.terrain_at(t.position.x, t.position.y)) in COVER
            needed = 5 if cover else 4
            faces = ctx.roll(
                len(u.models),
                needed=needed,
                kind="shoot",
                side=side,
                unit=u.id,
                target=t.id,
                point_from=u.position,
                point_to=t.position,
            )
            kills = sum(f >= needed for f in faces)
            left = t.models[kills:]
            ctx.emit(
                "shoot",
                side=side,
                unit=u.id,
                target=t.id,
                hits=kills,
                point_from=u.position,
                point_to=t.position,
                result="destroyed" if not left else f"{len(left)} left",
                changes=unit_change(
                    t.id, models=left, strength="destroyed" if not left else "full"
                )
                + unit_change(u.id, fired=True),
            )
        elif isinstance(action, End):
            self._end(ctx, side)

    def _end(self, ctx: RuleContext, side: str) -> None:
        st = ctx.state
        nxt = self.sides[(self.sides.index(side) + 1) % len(self.sides)]
        ch = var_change(side=nxt)
        for u in st.units.values():
            if u.side == nxt and (u.attrs.get("moved") or u.attrs.get("fired")):
                ch += unit_change(u.id, moved=None, fired=None)
        new_turn = nxt == self.sides[0]
        if new_turn and st.turn >= self.scenario.turns:
            ctx.emit(
                "end",
                side=side,
                result="game over",
                changes=ch + state_change(phase="end"),
            )
            return
        if new_turn:
            ch += state_change(turn=st.turn + 1)
        # changes of a hidden unit of the next side: seen by that side alone
        hidden = [c for c in ch if c[0] == "unit" and st.units[c[1]].hidden]
        public = tuple(c for c in ch if c not in hidden)
        ctx.emit("end", side=side, result=f"{nxt} to play", changes=public)
        if hidden:
            ctx.emit("end", side=nxt, changes=hidden, visible_to=(nxt,))
        if new_turn:
            for uid, entry in self.arrivals.get(st.turn, []):
                u = st.units[uid]
                offs = layout_offsets("line", len(u.models), 5.0)
                models = tuple(
                    Model(
                        m.id,
                        m.kind,
                        m.wounds,
                        Point(entry.x + r, entry.y + f),
                        0.0,
                        m.radius_m,
                        m.attrs,
                    )
                    for m, (r, f) in zip(u.models, offs, strict=True)
                )
                ctx.emit(
                    "arrive",
                    side=u.side,
                    unit=uid,
                    point_to=entry,
                    changes=unit_change(uid, position=entry, facing=0, models=models),
                )

    def outcome(self, state: GameState) -> Outcome | None:
        if state.phase != "end":
            return None
        vp = self.victory_points(state)
        models = {
            s: sum(
                len(u.models)
                for u in state.units.values()
                if u.side == s and not u.destroyed
            )
            for s in self.sides
        }
        key = {s: (vp[s], models[s]) for s in self.sides}
        best = max(key.values())
        win = [s for s in self.sides if key[s] == best]
        return Outcome(win[0] if len(win) == 1 else None, "turn limit", vp, state.turn)

    def objective_control(self, state: GameState) -> dict[str, str | None]:
        out: dict[str, str | None] = {}
        for name, (p, _) in self.objectives.items():
            near = {
                u.side
                for u in state.units.values()
                if not u.destroyed
                and isinstance(u.position, Point)
                and distance(u.position, p) <= HOLD_M
            }
            out[name] = next(iter(near)) if len(near) == 1 else None
        return out

    def victory_points(self, state: GameState) -> dict[str, int]:
        vp = dict.fromkeys(self.sides, 0)
        held = self.objective_control(state)
        for name, (_, value) in self.objectives.items():
            owner = held[name]
            if owner is not None:
                vp[owner] += value
        return vp

    def unit_reach(self, state: GameState, unit_id: str) -> tuple[Reach, ...]:
        u = state.units[unit_id]
        t = TYPES[u.type]
        out = [Reach("move", t["move_m"]), Reach("range", t["range_m"])]
        f = state.formations.get(u.formation or "")
        if f is not None and f.hq is not None and f.hq != unit_id:
            out.insert(0, Reach("command", COMMAND_M, around=f.hq))
        return tuple(out)

    def unit_going(self, state: GameState, unit_id: str) -> Going | None:
        t = TYPES[state.units[unit_id].type]
        costs = GOING[t["going"]]
        return Going(
            t["move_m"], {k: None if math.isinf(v) else v for k, v in costs.items()}
        )

    def sight_options(
        self, state: GameState, observer: str, target: str | None
    ) -> dict[str, Any]:
        return {"observer_height_m": 2.0, "target_height_m": 2.0, "hex_rule": False}


register_ruleset("toypoints-1e", ToyPoints)
