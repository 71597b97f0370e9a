"""Units at free points as display data: model bases, rings, reach, a planned move.

For rule systems whose units stand at points (``positions = "point"``: Flames of
War, Бронепехота), pure functions turn a game into GeoJSON and words:

* :func:`models_geojson`: every model of every unit in play (a platoon as its
  teams, a squad as its soldiers) as a dot at its point in its side's colour,
  with a short tick toward its facing;
* :func:`point_rings_geojson`: the unit's range rings as true circles around its
  point, and rings ``around`` another unit (a command radius around the HQ);
* :func:`reach_geojson`: the ground the unit may reach with one move, from the
  rule system's ``unit_going`` hook and the map's reach polygon;
* :func:`plan_point_move`: a move to a clicked point, re-aimed from the unit's
  own legal move, checked by the rules (``None`` or why not), with its length
  and its cost over the ground crossed.

Nothing here names a rule system: they answer through their hooks
(:mod:`wargame.engine.present`) and ``check``.

Examples:
    >>> import pandas as pd
    >>> going = Going(150.0, {"clear": 1.0, "woods": 2.0, "water": None})
    >>> ground = pd.DataFrame({"class": ["clear", "woods"], "length_m": [60.0, 25.0]})
    >>> plan = PointPlan("r1", None, ((0.0, 0.0), (60.0, 60.0)), 84.9, 110.0,
    ...                  going, ground, "it has no move to make now")
    >>> plan.summary()
    '85 m, going 110 m of 150 m (clear 60 m, woods 25 m ×2)'
    >>> plan.legal
    False
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import shapely

from wargame.engine.present import Going, Reach

from .geojson import EMPTY, geometry_feature

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from wargame.engine import Action, Game, GameState, Point
    from wargame.engine.present import UnitLook

__all__ = [
    "FACING_TICK_M",
    "MODEL_STYLE",
    "PointPlan",
    "models_geojson",
    "own_point_move",
    "plan_point_move",
    "point_rings_geojson",
    "reach_geojson",
    "unit_point",
]

#: Length of the tick that shows a model's facing (map metres).
FACING_TICK_M = 15.0
#: Leaflet circle-marker style of a model's base (the fill is the side colour).
#: Leaflet styles of the rule systems' marked areas by kind (``Area.kind``).
AREA_STYLES: dict[str, dict[str, Any]] = {
    "smoke": {"color": "#888", "weight": 1, "fillColor": "#bbb", "fillOpacity": 0.45},
    "template": {"color": "#e67e22", "weight": 2, "fillOpacity": 0.1},
    "area": {"color": "#555", "weight": 1, "fillOpacity": 0.1, "dashArray": "4 3"},
}

#: Outline of the models of a suppressed unit (pinned, disrupted...).
SUPPRESSED_COLOUR = "#d62728"

MODEL_STYLE: dict[str, Any] = {
    "radius": 4,
    "color": "#222",
    "weight": 1,
    "fillOpacity": 0.9,
}
#: Styles of the rings of a point unit, by the ring's label (else "range").
POINT_RING_STYLES: dict[str, dict[str, Any]] = {
    "command": {"color": "#6a3d9a", "weight": 2, "dashArray": "8 5", "fill": False},
    "move": {"color": "#2ca02c", "weight": 1.5, "dashArray": "3 4", "fill": False},
    "range": {"color": "#08306b", "weight": 2, "dashArray": "6 4", "fill": False},
}
#: Style of the shaded reach of one move.
REACH_STYLE: dict[str, Any] = {
    "color": "#2ca02c",
    "weight": 1,
    "fillColor": "#2ca02c",
    "fillOpacity": 0.18,
}


def unit_point(state: GameState, unit_id: str) -> Point | None:
    """Where a unit in play stands, if at a free point (``None``: not)."""
    from wargame.engine import Point

    u = state.units.get(unit_id)
    if u is None or u.destroyed or not isinstance(u.position, Point):
        return None
    return u.position


def models_geojson(
    game: Game,
    state: GameState | None = None,
    looks: Mapping[str, UnitLook] | None = None,
    *,
    selected: str | None = None,
) -> dict[str, Any]:
    """Every model of every unit at a point: a dot and a facing tick.

    A unit without placed models is drawn as one dot at its own point.  Dot
    properties: ``unit``, ``model``, ``kind``, ``side``, ``facing``, ``style``
    (a circle marker: the side's colour, bigger for ``selected``); tick
    properties: ``unit``, ``model``, ``facing``, ``style``.  The rule system's
    marked areas (:meth:`map_areas`: smoke, templates) come first, under the
    dots, as polygons with ``area`` (the label), ``kind`` and ``style``.

    Args:
        game: the game (its map places the points).
        state: the state to draw (a side's view hides what it may not see).
        looks: unit looks (default: :func:`~wargame.render.game.unit_looks`).
        selected: a unit drawn larger.
    """
    from wargame.engine import Point

    from .game import unit_looks

    state = game.state if state is None else state
    looks = unit_looks(game, state) if looks is None else looks
    m = game.map
    xs: list[float] = []
    ys: list[float] = []
    props: list[dict[str, Any]] = []
    ticks: list[tuple[float, float, float, dict[str, Any]]] = []
    for uid in sorted(state.units):
        u = state.units[uid]
        if u.destroyed or not isinstance(u.position, Point):
            continue
        look = looks.get(uid)
        colour = (look.colour if look is not None else None) or "#777"
        placed = [md for md in u.models if isinstance(md.position, Point)]
        dots = [(md.id, md.kind, md.position, md.facing) for md in placed] or [
            (uid, u.type, u.position, None)
        ]
        big = uid == selected
        marks = game.ruleset.model_marks(state, u) if placed else {}
        pinned = look is not None and look.suppressed
        for mid, kind, p, facing in dots:
            assert isinstance(p, Point)
            style = dict(MODEL_STYLE, fillColor=colour)
            if pinned:  # the unit is suppressed: a red ring round each model
                style.update(color=SUPPRESSED_COLOUR, weight=2)
            if marks.get(mid):  # out of action for now: hollow, dashed
                style.update(fillOpacity=0.2, dashArray="2 2")
            if big:
                style.update(radius=6, weight=2, color="#000")
            xs.append(float(p.x))
            ys.append(float(p.y))
            props.append(
                {
                    "unit": uid,
                    "model": mid,
                    "kind": kind,
                    "side": u.side,
                    "facing": facing,
                    "marks": list(marks.get(mid, ())),
                    "style": style,
                }
            )
            if facing is not None:
                tick = {"color": "#222", "weight": 2 if big else 1.5}
                ticks.append(
                    (
                        float(p.x),
                        float(p.y),
                        float(facing),
                        {"unit": uid, "model": mid, "facing": facing, "style": tick},
                    )
                )
    feats: list[dict[str, Any]] = [
        geometry_feature(
            m,
            shapely.Polygon(a.coords),
            {
                "area": a.label,
                "kind": a.kind,
                "style": AREA_STYLES.get(a.kind, AREA_STYLES["area"]),
            },
        )
        for a in game.ruleset.map_areas(state)
        if len(a.coords) >= 3
    ]
    if xs:
        lon, lat = m.to_lonlat(xs, ys)
        for lo, la, pr in zip(lon, lat, props, strict=True):
            feats.append(
                {
                    "type": "Feature",
                    "geometry": {
                        "type": "Point",
                        "coordinates": [round(float(lo), 7), round(float(la), 7)],
                    },
                    "properties": pr,
                }
            )
    for x, y, facing, pr in ticks:
        b = math.radians(facing)
        end = (x + FACING_TICK_M * math.sin(b), y + FACING_TICK_M * math.cos(b))
        feats.append(geometry_feature(m, shapely.LineString([(x, y), end]), pr))
    return {"type": "FeatureCollection", "features": feats}


def _slug(text: str) -> str:
    return "".join(c if c.isalnum() else "-" for c in text.lower()).strip("-")


def point_rings_geojson(
    game: Game, state: GameState, unit_id: str, reach: Sequence[Reach]
) -> dict[str, Any]:
    """The reaches of a point unit as circles in map metres.

    A ring is centred on the unit, or on the unit it names in ``around`` (a
    command radius around the HQ; left out if that unit is not at a point).
    Properties: ``ring`` (the label), ``metres``, ``around`` and ``style``
    (class ``wargame-range-ring wargame-range-<label>``).
    """
    here = unit_point(state, unit_id)
    if here is None:
        return dict(EMPTY)
    feats = []
    for r in reach:
        centre = here if r.around is None else unit_point(state, r.around)
        if centre is None or not r.metres > 0:
            continue
        key = next((k for k in POINT_RING_STYLES if k in r.label.lower()), "range")
        style = dict(POINT_RING_STYLES[key])
        style["className"] = f"wargame-range-ring wargame-range-{_slug(r.label)}"
        ring = shapely.Point(float(centre.x), float(centre.y)).buffer(
            float(r.metres), quad_segs=32
        )
        props = {
            "ring": r.label,
            "metres": float(r.metres),
            "around": r.around or unit_id,
            "style": style,
        }
        line = shapely.LineString(ring.exterior.coords)  # GeoJSON has no LinearRing
        feats.append(geometry_feature(game.map, line, props))
    return {"type": "FeatureCollection", "features": feats}


def reach_geojson(
    game: Game, state: GameState, unit_id: str, going: Going | None = None
) -> dict[str, Any]:
    """The ground one move of the unit may reach (empty without ``unit_going``).

    The rule system's ``unit_going`` gives the allowance and the going; the
    map's :meth:`~wargame.geo.maps.Map.reach_polygon` lays it on the ground.
    Properties: ``unit``, ``label``, ``allowance_m``, ``area_m2``, ``style``.
    """
    here = unit_point(state, unit_id)
    going = game.ruleset.unit_going(state, unit_id) if going is None else going
    if here is None or going is None or not going.allowance_m > 0:
        return dict(EMPTY)
    poly = game.map.reach_polygon(
        (float(here.x), float(here.y)),
        float(going.allowance_m),
        going.cost_per_class,
        going.road_cost,
    )
    if poly.is_empty:
        return dict(EMPTY)
    props = {
        "unit": unit_id,
        "label": going.label,
        "allowance_m": float(going.allowance_m),
        "area_m2": round(float(poly.area)),
        "style": dict(REACH_STYLE, className="wargame-reach"),
    }
    return {
        "type": "FeatureCollection",
        "features": [geometry_feature(game.map, poly, props)],
    }


@dataclass(frozen=True)
class PointPlan:
    """A move of a point unit to a clicked point, before it is confirmed.

    Attributes:
        unit: the unit.
        action: the move the rules were asked about (``None``: the unit has no
            legal move to re-aim, so there is nothing to plan).
        path: the path's points, map metres, from where the unit stands.
        length_m: the path's length on the map.
        cost_m: metres of going it costs by :attr:`going` (``None``: no going
            known; ``inf``: it crosses ground the unit may not enter).
        going: the unit's going (``unit_going``), if the rule system gives one.
        terrain: the classes crossed and their lengths
            (:meth:`~wargame.geo.maps.Map.terrain_along`).
        why: why the rules refuse it (``None``: legal now).
    """

    unit: str
    action: Action | None
    path: tuple[tuple[float, float], ...]
    length_m: float
    cost_m: float | None
    going: Going | None
    terrain: pd.DataFrame | None
    why: str | None

    @property
    def legal(self) -> bool:
        """Whether the rules allow the move now."""
        return self.action is not None and self.why is None

    def summary(self) -> str:
        """The move in words: length, going cost and the ground crossed."""
        words = f"{self.length_m:.0f} m"
        if self.cost_m is not None and self.going is not None:
            cost = "impassable" if math.isinf(self.cost_m) else f"{self.cost_m:.0f} m"
            words += f", going {cost} of {self.going.allowance_m:g} m"
        if self.terrain is not None and len(self.terrain):
            parts = []
            for cls, length in (
                self.terrain.groupby("class", sort=False)["length_m"].sum().items()
            ):
                f = self.going.factor(str(cls)) if self.going is not None else 1.0
                times = "" if f == 1.0 else (" ×∞" if math.isinf(f) else f" ×{f:g}")
                parts.append(f"{cls} {float(length):.0f} m{times}")
            words += " (" + ", ".join(parts) + ")"
        return words

    def geojson(self, game: Game) -> dict[str, Any]:
        """The path as a line: green and dashed if legal, red if not."""
        if len(self.path) < 2:
            return dict(EMPTY)
        colour = "#2ca02c" if self.legal else "#d62728"
        style = {
            "color": colour,
            "weight": 5,
            "dashArray": "10 6" if self.legal else "4 6",
            "className": "wargame-point-path",
        }
        props = {
            "unit": self.unit,
            "legal": self.legal,
            "length_m": round(self.length_m, 1),
            "why": self.why,
            "style": style,
        }
        line = shapely.LineString(self.path)
        return {
            "type": "FeatureCollection",
            "features": [geometry_feature(game.map, line, props)],
        }


def _reaimed(action: Action, start: Point, to: Point) -> Action | None:
    """The move with its point fields aimed at ``to`` (a path: start → to)."""
    from wargame.engine import Point

    changes: dict[str, Any] = {}
    for f in dataclasses.fields(action):  # type: ignore[arg-type]
        v = getattr(action, f.name)
        if isinstance(v, Point):
            changes[f.name] = to
        elif (
            isinstance(v, tuple | list)
            and len(v) >= 2
            and all(isinstance(p, Point) for p in v)
        ):
            changes[f.name] = type(v)((start, to))
    if not changes:
        return None
    return dataclasses.replace(action, **changes)  # type: ignore[type-var]


def own_point_move(
    game: Game, unit_id: str, legal: Sequence[Action] | None = None
) -> Action | None:
    """The unit's first legal action with a point or a path field: its move now
    (``None``: it has no move to make now).

    Args:
        game: the game.
        unit_id: the unit.
        legal: the legal actions now, if known (default: asked of the game).
    """
    from .game import actions_involving

    start = unit_point(game.state, unit_id)
    if start is None:
        return None
    legal = game.legal_actions() if legal is None else legal
    for a in actions_involving(legal, unit=unit_id):
        if _reaimed(a, start, start) is not None:
            return a
    return None


def _move_template(
    game: Game, unit_id: str, legal: Sequence[Action] | None = None
) -> Action | None:
    """The unit's own move (:func:`own_point_move`); if it has none now,
    another unit's of its side, given to it, so that the rules can say why it
    may not move there."""
    state = game.state
    start = unit_point(state, unit_id)
    if start is None:
        return None
    legal = game.legal_actions() if legal is None else legal
    own = own_point_move(game, unit_id, legal)
    if own is not None:
        return own
    side = state.units[unit_id].side
    mates = {k for k, u in state.units.items() if u.side == side and k != unit_id}
    for a in legal:
        if _reaimed(a, start, start) is None:
            continue
        who = [
            f.name
            for f in dataclasses.fields(a)  # type: ignore[arg-type]
            if isinstance(getattr(a, f.name), str) and getattr(a, f.name) in mates
        ]
        if who:
            return dataclasses.replace(a, **{who[0]: unit_id})  # type: ignore[type-var]
    return None


def plan_point_move(
    game: Game,
    unit_id: str,
    to: tuple[float, float],
    legal: Sequence[Action] | None = None,
) -> PointPlan:
    """Plan a straight move of a point unit to ``to`` (map metres).

    The unit's own legal move is re-aimed at the point (its point field set, or
    its path made ``(here, to)``) and the rules' ``check`` says whether it is
    allowed and, if not, why (the first point where it fails).  The length and
    the going cost come from the map along the line, priced by the rule
    system's ``unit_going``.  Nothing in the game changes.  ``legal``: the legal
    actions now, if the caller has them (default: asked of the game).

    Raises:
        ValueError: ``to`` is not a finite point on the map.
    """
    from wargame.engine import Point
    from wargame.engine.points import as_point, check_on_map

    from .game import why_not

    p = as_point(to, "to")
    check_on_map(p, game.map, "to")
    state = game.state
    start = unit_point(state, unit_id)
    if start is None:
        raise ValueError(f"unit {unit_id!r} is not standing at a point on the map")
    path = ((float(start.x), float(start.y)), (float(p.x), float(p.y)))
    length = math.dist(*path)
    going = game.ruleset.unit_going(state, unit_id)
    terrain = game.map.terrain_along(list(path)) if length > 0 else None
    cost: float | None = None
    if going is not None and terrain is not None:
        cost = float(
            sum(
                float(run) * going.factor(str(cls))
                for cls, run in zip(terrain["class"], terrain["length_m"], strict=True)
            )
        )
    template = _move_template(game, unit_id, legal)
    action = None if template is None else _reaimed(template, start, Point(*path[1]))
    if action is None:
        why: str | None = "it has no move to make now"
    elif length == 0:
        why = "that is where it stands"
    else:
        why = why_not(game, action)
    return PointPlan(unit_id, action, path, length, cost, going, terrain, why)
