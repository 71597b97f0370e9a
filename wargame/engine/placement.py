"""Placing units and their models at free points (point rule systems).

Rule systems that measure (``positions = "point"``) place each unit, and each of
its models (teams, soldiers, machines), at a point in map metres.  The engine
reads these scenario keys for them (docs/scenarios.md, "Free positions"):

* a unit's position: ``x`` and ``y`` (map metres, UTM 32N), ``lonlat = [lon,
  lat]``, or ``place = "Remagen"``; any of them moved by an offset, ``dx`` /
  ``dy`` in metres or ``bearing`` (compass degrees) and ``distance_m``; or
  ``zone``: the id of a ``[[zones]]`` table (``rect = [xmin, ymin, xmax, ymax]``
  or ``polygon = [[x, y], ...]``, in metres, or in degrees with ``lonlat =
  true``) or such a table inline, the unit laid out in the first place of the
  zone where it fits;
* ``facing``: compass degrees (0 north, 90 east), default 0;
* ``models``: a count, or a list of tables ``{id, kind, radius_m, facing}``
  with, optionally, a position of their own (``x``/``y``, ``lonlat``, ``place``,
  or ``dx``/``dy``, ``bearing``/``distance_m`` from the unit's point);
* ``layout`` for the models without a position of their own: ``"line"``
  (abreast, across the facing), ``"column"`` (one behind the other),
  ``"wedge"`` (a leader and pairs behind), ``"spread"`` (a square-ish
  grid) or ``"cluster"`` (the first model, a command team, at the unit's point
  and the others in rings around it: 6 in the first, 12 in the second...),
  ``spacing_m`` apart, centre to centre (default: the widest base plus 2 m, at
  least 5 m).

:func:`place_units` resolves all of them against the map and returns the
points, the models and every problem, one line each naming the file, the unit
(and the model), the position and the fix: off the map, in the water (unless
the rule system says the unit may be), bases overlapping (unless it allows),
a zone too small for its formation.  :func:`locate_point` resolves one position
(reinforcement entry points, objectives).  :func:`point_shape_problems` is the
map-free part (in :mod:`wargame.engine.point_shapes`), run when a scenario
is loaded.

Examples:
    >>> layout_offsets("line", 3, 10.0)
    [(-10.0, 0.0), (0.0, 0.0), (10.0, 0.0)]
    >>> layout_offsets("wedge", 3, 10.0)[0]
    (0.0, 6.666666666666667)
    >>> [(round(r), round(f)) for r, f in layout_offsets("cluster", 3, 10.0)]
    [(0, 0), (0, 10), (9, 5)]
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .point_shapes import LAYOUTS, POINT_KEYS, point_shape_problems
from .points import offset
from .state import Model, Point

__all__ = [
    "LAYOUTS",
    "ModelSpec",
    "PlacedUnit",
    "Placement",
    "layout_offsets",
    "locate_objectives",
    "locate_point",
    "place_units",
    "point_shape_problems",
]


#: Candidate anchor points tried per unit in a zone.
_ZONE_TRIES = 2_500


@dataclass(frozen=True)
class ModelSpec:
    """What a rule system says of a unit's models before they are placed."""

    kind: str
    radius_m: float = 0.0


@dataclass(frozen=True)
class PlacedUnit:
    """Where a unit stands: its reference point, facing and models."""

    id: str
    position: Point
    facing: float
    models: tuple[Model, ...]


@dataclass
class Placement:
    """The result of :func:`place_units`: units by id and the problems."""

    units: dict[str, PlacedUnit] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)


def _shown(value: Any) -> str:
    from .scenario import shown

    return shown(value)


def _finite(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v)


def _xy(p: Point) -> str:
    return f"({p.x:.1f}, {p.y:.1f})"


# --------------------------------------------------------------------------- #
# layouts                                                                     #
# --------------------------------------------------------------------------- #


def layout_offsets(layout: str, n: int, spacing: float) -> list[tuple[float, float]]:
    """``(right, forward)`` offsets in metres of ``n`` models in a layout,
    centred on the unit's point (forward: the facing; right: 90° clockwise)."""
    if layout not in LAYOUTS:
        raise ValueError(f"layout: {layout!r}: use one of {', '.join(LAYOUTS)}")
    if n <= 0:
        return []
    if layout == "line":
        out = [((i - (n - 1) / 2) * spacing, 0.0) for i in range(n)]
    elif layout == "column":
        out = [(0.0, ((n - 1) / 2 - i) * spacing) for i in range(n)]
    elif layout == "wedge":
        raw = [(0.0, 0.0)]
        for i in range(1, n):
            k = (i + 1) // 2
            side = -1.0 if i % 2 else 1.0
            raw.append((side * k * spacing, -k * spacing))
        mid = sum(f for _, f in raw) / n
        out = [(r, f - mid) for r, f in raw]
    elif layout == "cluster":
        out = [(0.0, 0.0)]
        ring = 1
        while len(out) < n:
            k = min(6 * ring, n - len(out))
            for j in range(k):
                a = 2 * math.pi * j / (6 * ring)
                out.append((ring * spacing * math.sin(a), ring * spacing * math.cos(a)))
            ring += 1
    else:
        cols = math.ceil(math.sqrt(n))
        rows = math.ceil(n / cols)
        out = []
        for i in range(n):
            r, c = divmod(i, cols)
            out.append(((c - (cols - 1) / 2) * spacing, ((rows - 1) / 2 - r) * spacing))
    return [(r + 0.0, f + 0.0) for r, f in out]


def _local(anchor: Point, facing: float, right: float, forward: float) -> Point:
    b = math.radians(facing)
    s, c = math.sin(b), math.cos(b)
    # to the millimetre: the same points on every platform (saves, golden logs)
    return Point(
        round(anchor.x + forward * s + right * c, 3),
        round(anchor.y + forward * c - right * s, 3),
    )


# --------------------------------------------------------------------------- #
# positions on the map                                                        #
# --------------------------------------------------------------------------- #


def locate_objectives(
    scenario: Any, game_map: Any
) -> tuple[dict[str, tuple[Point, int]], list[str]]:
    """The scenario's ``[[objectives]]`` at free points: ``({id: (point, vp)},
    problems)``.  An objective is named by its ``id`` (else ``name``, else
    ``objective<i>``), placed by :func:`locate_point`, worth ``vp`` (default 1);
    each one that cannot be placed is a problem naming its key.

    Examples:
        >>> import wargame
        >>> from types import SimpleNamespace
        >>> m = wargame.load_map(window="Remagen")
        >>> sc = SimpleNamespace(objectives=[{"id": "church", "place": "Remagen",
        ...                                   "vp": 2}], problem=lambda k, w: k)
        >>> got, problems = locate_objectives(sc, m)
        >>> got["church"][1], problems
        (2, [])
    """
    out: dict[str, tuple[Point, int]] = {}
    problems: list[str] = []
    for i, o in enumerate(scenario.objectives):
        p, key, why = locate_point(game_map, o)
        name = str(o.get("id") or o.get("name") or f"objective{i + 1}")
        if p is None:
            problems.append(scenario.problem(f"objectives[{i}].{key}", str(why)))
        else:
            out[name] = (p, int(o.get("vp", 1)))
    return out, problems


def locate_point(
    game_map: Any, spec: Mapping[str, Any], *, base: Point | None = None
) -> tuple[Point | None, str | None, str | None]:
    """Resolve a free position (``x``/``y``, ``lonlat`` or ``place``, plus an
    offset) to a point on the map.

    Args:
        game_map: a :class:`wargame.geo.maps.Map` (window).
        spec: the table.
        base: the point offsets are from when the table names none (a model's
            offset from its unit).

    Returns:
        ``(point, problem_key, problem)``: the point or ``None`` and, when it
        cannot be used, the key at fault and the problem with its fix.

    Examples:
        >>> import wargame
        >>> m = wargame.load_map(window="Remagen")
        >>> p, _, _ = locate_point(m, {"place": "Remagen", "dx": 100})
        >>> round(p.x - m.place_xy("Remagen")[0], 6)
        100.0
        >>> locate_point(m, {"x": 0, "y": 0})[2][:29]
        '(0.0, 0.0) is off the map (x '
    """
    key = "x"
    if spec.get("x") is not None:
        try:
            p = Point(spec["x"], spec["y"])
        except (ValueError, KeyError):
            return None, "x", "give x and y as finite numbers of metres"
    elif spec.get("lonlat") is not None:
        key = "lonlat"
        ll = spec["lonlat"]
        if not (
            isinstance(ll, list) and len(ll) == 2 and all(map(_finite, ll))
        ) or not (-180 <= ll[0] <= 180 and -90 <= ll[1] <= 90):
            return None, key, f"must be [lon, lat] in degrees, not {_shown(ll)}"
        x, y = game_map.to_xy(float(ll[0]), float(ll[1]))
        p = Point(float(x), float(y))
    elif spec.get("place") is not None:
        key = "place"
        try:
            x, y = game_map.place_xy(spec["place"])
        except ValueError as exc:
            return None, key, " ".join(str(exc).split())[:200]
        p = Point(float(x), float(y))
    elif base is not None:
        p = base
        key = "dx" if spec.get("dx") is not None else "bearing"
    else:
        return None, "x", "missing; give x/y, lonlat, place or zone"
    dx, dy = spec.get("dx"), spec.get("dy")
    if dx is not None or dy is not None:
        p = Point(p.x + float(dx or 0.0), p.y + float(dy or 0.0))
        key = "dx"
    if spec.get("bearing") is not None and spec.get("distance_m") is not None:
        p = offset(p, float(spec["bearing"]), float(spec["distance_m"]))
        key = "bearing"
    p = Point(round(p.x, 3), round(p.y, 3))  # to the millimetre, as layouts
    xmin, ymin, xmax, ymax = game_map.bounds
    if not (xmin <= p.x <= xmax and ymin <= p.y <= ymax):
        return (
            None,
            key,
            (
                f"{_xy(p)} is off the map (x {xmin:.0f}–{xmax:.0f}, y {ymin:.0f}–"
                f"{ymax:.0f}); move it onto the map"
            ),
        )
    return p, None, None


def _zone_polygon(game_map: Any, z: Mapping[str, Any]) -> Any:
    import shapely

    lonlat = bool(z.get("lonlat", False))
    if z.get("rect") is not None:
        x0, y0, x1, y1 = (float(v) for v in z["rect"])
        corners = [(x0, y0), (x1, y0), (x1, y1), (x0, y1)]
    else:
        corners = [(float(a), float(b)) for a, b in z["polygon"]]
    if lonlat:
        xs, ys = game_map.to_xy([c[0] for c in corners], [c[1] for c in corners])
        corners = list(
            zip(np.asarray(xs).tolist(), np.asarray(ys).tolist(), strict=True)
        )
    poly = shapely.Polygon(corners)
    if not poly.is_valid:
        poly = poly.buffer(0)
    return poly


def _zone_or_problem(game_map: Any, z: Mapping[str, Any]) -> tuple[Any, str | None]:
    """The zone's polygon, or ``None`` and what is wrong with it."""
    try:
        poly = _zone_polygon(game_map, z)
    except (ValueError, TypeError, KeyError) as exc:
        return None, _shown(" ".join(str(exc).split()))[1:-1] + "; fix its corners"
    if poly.is_empty or poly.area <= 0:
        return None, "has no area (its corners are on one line); give a real area"
    return poly, None


@dataclass
class _Base:
    unit: str
    model: str
    point: Point
    radius: float


class _Placer:
    def __init__(
        self,
        scenario: Any,
        game_map: Any,
        water_ok: Callable[[Any], bool],
        overlap_ok: bool,
    ) -> None:
        self.sc = scenario
        self.map = game_map
        self.water_ok = water_ok
        self.overlap_ok = overlap_ok
        self.bases: list[_Base] = []
        self.out = Placement()

    def problem(self, where: str, text: str) -> None:
        self.out.problems.append(self.sc.problem(where, text))

    def bad_point(self, raw: Mapping[str, Any], p: Point, r: float) -> str | None:
        """Why a base cannot stand at ``p`` (``None``: it can)."""
        xmin, ymin, xmax, ymax = self.map.bounds
        if not (xmin <= p.x <= xmax and ymin <= p.y <= ymax):
            return (
                f"{_xy(p)} is off the map (x {xmin:.0f}–{xmax:.0f}, y "
                f"{ymin:.0f}–{ymax:.0f}); move it onto the map"
            )
        if not self.water_ok(raw) and self.map.terrain_at(p.x, p.y) == "water":
            return (
                f"{_xy(p)} is in the water (the Rhine or another river or lake) "
                "and this unit may not be; move it onto land"
            )
        if not self.overlap_ok:
            for b in self.bases:
                d = math.hypot(b.point.x - p.x, b.point.y - p.y)
                if d < b.radius + r or d == 0.0:
                    return (
                        f"{_xy(p)}: its base (radius {r:g} m) overlaps the base of "
                        f"model {b.model!r} of unit {b.unit!r} at {_xy(b.point)} "
                        f"({d:.1f} m apart, {b.radius + r:g} m needed); move one "
                        "of them"
                    )
        return None

    def place(
        self,
        label: str,
        raw: Mapping[str, Any],
        specs: Sequence[ModelSpec],
        zones: Mapping[str, Any],
    ) -> None:
        uid = str(raw["id"])
        facing = float(raw.get("facing", 0.0)) % 360.0
        tables = raw.get("models") if isinstance(raw.get("models"), list) else None
        n = len(tables) if tables is not None else len(specs)
        kinds, radii, ids, facings = [], [], [], []
        for j in range(n):
            t = tables[j] if tables is not None else {}
            sp = specs[j] if j < len(specs) else ModelSpec("model")
            kinds.append(str(t.get("kind", sp.kind)))
            radii.append(float(t.get("radius_m", sp.radius_m)))
            ids.append(str(t.get("id", f"{uid}.{j + 1}")))
            facings.append(float(t.get("facing", facing)) % 360.0)
        spacing = float(raw.get("spacing_m") or max(2 * max(radii, default=0) + 2, 5.0))
        layout = str(raw.get("layout", "line"))
        offs = layout_offsets(layout, n, spacing)
        zone = raw.get("zone")
        anchor: Point | None
        if zone is not None:
            if isinstance(zone, str):
                poly = zones.get(zone)
                if poly is None:
                    return  # an unknown or bad zone: reported already
            else:
                poly, why = _zone_or_problem(self.map, zone)
                if poly is None:
                    self.problem(f"{label}.zone", f"the zone {why}")
                    return
            anchor = self.in_zone(
                label, raw, poly, facing, offs, radii, tables, layout, spacing
            )
            if anchor is None:
                return
        else:
            anchor, key, why = locate_point(self.map, raw)
            if anchor is None:
                self.problem(f"{label}.{key}", str(why))
                return
        models = []
        failed = False
        for j in range(n):
            t = tables[j] if tables is not None else {}
            own = any(t.get(k) is not None for k in POINT_KEYS)
            ml = (
                f"{label}.models[{j}] ({ids[j]!r})"
                if tables is not None or n > 1
                else label
            )
            if own:
                p, key, why = locate_point(self.map, t, base=anchor)
                if p is None:
                    self.problem(f"{ml}.{key}", str(why))
                    failed = True
                    continue
            else:
                p = _local(anchor, facing, *offs[j])
            why = self.bad_point(raw, p, radii[j])
            if why is not None:
                self.problem(ml, why)
                failed = True
                continue
            self.bases.append(_Base(uid, ids[j], p, radii[j]))
            models.append(
                Model(
                    ids[j], kinds[j], position=p, facing=facings[j], radius_m=radii[j]
                )
            )
        if not failed:
            self.out.units[uid] = PlacedUnit(uid, anchor, facing, tuple(models))

    def in_zone(
        self,
        label: str,
        raw: Mapping[str, Any],
        poly: Any,
        facing: float,
        offs: list[tuple[float, float]],
        radii: list[float],
        tables: list[Any] | None,
        layout: str,
        spacing: float,
    ) -> Point | None:
        import shapely

        n = len(offs)
        rel = []
        for j in range(n):
            t = tables[j] if tables is not None else {}
            if t.get("dx") is not None or t.get("dy") is not None:
                rel.append((float(t.get("dx") or 0), float(t.get("dy") or 0)))
            else:
                p = _local(Point(0, 0), facing, *offs[j])
                rel.append((p.x, p.y))
        rx = np.array([r[0] for r in rel])
        ry = np.array([r[1] for r in rel])
        rr = np.array(radii)
        x0, y0, x1, y1 = poly.bounds
        xmin, ymin, xmax, ymax = self.map.bounds
        if x1 < xmin or x0 > xmax or y1 < ymin or y0 > ymax:
            self.problem(
                f"{label}.zone",
                f"the zone ({x0:.0f}, {y0:.0f})–({x1:.0f}, "
                f"{y1:.0f}) is off the map; give a zone on the map",
            )
            return None
        step = max(spacing / 2, math.sqrt((x1 - x0) * (y1 - y0) / _ZONE_TRIES), 1.0)
        gx = np.arange(x0 + step / 2, x1, step)
        gy = np.arange(y0 + step / 2, y1, step)
        ax, ay = (a.ravel() for a in np.meshgrid(gx, gy))
        c = poly.representative_point()
        order = np.argsort(np.hypot(ax - c.x, ay - c.y), kind="stable")
        boundary = poly.boundary
        fits_shape = False
        for i in order[:_ZONE_TRIES]:
            px, py = ax[i] + rx, ay[i] + ry
            if not shapely.contains_xy(poly, px, py).all():
                continue
            if (shapely.distance(boundary, shapely.points(px, py)) < rr).any():
                continue
            fits_shape = True
            if all(
                self.bad_point(raw, Point(px[j], py[j]), rr[j]) is None
                for j in range(n)
            ):
                return Point(round(float(ax[i]), 3), round(float(ay[i]), 3))
        # the formation's frontage and depth, in its own frame
        b = math.radians(facing)
        right = rx * math.cos(b) - ry * math.sin(b)
        fwd = rx * math.sin(b) + ry * math.cos(b)
        w = float(right.max() - right.min() + 2 * rr.max()) if n else 0.0
        h = float(fwd.max() - fwd.min() + 2 * rr.max()) if n else 0.0
        zname = raw["zone"] if isinstance(raw["zone"], str) else "inline"
        why = (
            "clear of water and of the other units' bases" if fits_shape else "anywhere"
        )
        self.problem(
            f"{label}.zone",
            f"zone {zname!r} ({x1 - x0:.0f} × {y1 - y0:.0f} m at ({x0:.0f}, "
            f"{y0:.0f})) is too small for its formation: a {layout} of {n} models "
            f"{spacing:g} m apart is {w:.0f} m wide and {h:.0f} m deep, and does not "
            f"fit {why}; "
            "enlarge the zone, lower spacing_m or choose another layout",
        )
        return None


def place_units(
    scenario: Any,
    game_map: Any,
    *,
    models: Callable[[Mapping[str, Any]], Sequence[ModelSpec]] | None = None,
    water_ok: Callable[[Mapping[str, Any]], bool] | None = None,
    bases_may_overlap: bool = False,
) -> Placement:
    """Place every unit of a point scenario that has a position (reinforcements
    and carried units have none) and its models on the map.

    Args:
        scenario: the :class:`~wargame.engine.Scenario`.
        game_map: its map.
        models: the rule system's models of a unit when the scenario gives a
            count or none (``ModelSpec`` per model: kind and base radius);
            default one model of kind ``"model"`` (or the count given).
        water_ok: whether a unit (its scenario table) may stand in water.
        bases_may_overlap: the rule system lets bases overlap.

    Returns:
        A :class:`Placement`; its ``problems`` name file, unit, model, position
        and fix, and a unit with a problem is left out of ``units``.
    """
    pl = _Placer(scenario, game_map, water_ok or (lambda raw: False), bases_may_overlap)
    zones: dict[str, Any] = {}
    for i, z in enumerate(scenario.data.get("zones") or []):
        poly, why = _zone_or_problem(game_map, z)
        if poly is None:
            pl.problem(f"zones[{i}] ({z.get('id')!r})", f"the zone {why}")
        zones[str(z["id"])] = poly
    for i, raw in enumerate(scenario.units):
        if not any(raw.get(k) is not None for k in ("x", "lonlat", "place", "zone")):
            continue
        uid = raw.get("id")
        label = f"units[{i}] ({uid!r})"
        count = raw.get("models")
        specs = list(models(raw)) if models is not None else []
        if isinstance(count, int) and not isinstance(count, bool):
            base = specs[0] if specs else ModelSpec("model")
            specs = (specs + [base] * count)[:count]
        elif not specs and not isinstance(count, list):
            specs = [ModelSpec("model")]
        pl.place(label, raw, specs, zones)
    return pl.out
