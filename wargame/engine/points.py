"""Free positions: checks, measurement and a finite sample of moves for point
rule systems (Flames of War, Бронепехота, the toy point system of the tests).

Everything here is rule-system neutral: metres on the map (UTM 32N), compass
bearings in degrees clockwise from grid north (0 = north = +y, 90 = east = +x),
and callbacks where a rule system decides (its going, its command rule).

* argument checks that name the argument and the fix: :func:`as_point`,
  :func:`as_path` (two points at least), :func:`as_allowance` (a distance
  >= 0), :func:`check_on_map`; each raises ``ValueError``;
* measurement: :func:`distance`, :func:`path_length`, :func:`bearing`,
  :func:`offset` (the one place a ground scale or geo's measure will plug in);
* legal actions in continuous space: :func:`candidate_moves` samples
  destinations (toward objectives, to the nearest cover, full moves in eight
  directions, kept inside the map and the command radius), so random and greedy
  policies and the conformance harness can play, while ``check`` still accepts
  any point.

Examples:
    >>> a, b = Point(0, 0), Point(30, 40)
    >>> distance(a, b), bearing(a, b) == bearing(Point(0, 0), Point(3, 4))
    (50.0, True)
    >>> offset(a, 90, 10)
    Point(x=10.0, y=0.0)
    >>> [c.reason for c in candidate_moves(a, 100)][:3]
    ['full move N', 'full move NE', 'full move E']
    >>> as_path([(0, 0)], "path")
    Traceback (most recent call last):
    ...
    ValueError: path: has 1 point; a path needs at least 2 (where it starts and \
where it ends)
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from .state import GameState, Point

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = [
    "COMPASS",
    "Candidate",
    "as_allowance",
    "as_path",
    "as_point",
    "bearing",
    "candidate_moves",
    "check_on_map",
    "distance",
    "models_frame",
    "offset",
    "path_length",
]

#: Names of the eight directions of :func:`candidate_moves`, from north clockwise.
COMPASS = ("N", "NE", "E", "SE", "S", "SW", "W", "NW")


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:59] + "…"


def as_point(value: Any, argument: str = "point") -> Point:
    """A :class:`Point` from a point, an ``(x, y)`` pair or ``{"x": .., "y": ..}``.

    Raises:
        ValueError: not a point, or a coordinate that is not a finite number;
            the message starts with ``argument``.

    Examples:
        >>> as_point((1, 2)), as_point({"x": 1, "y": 2}) == Point(1, 2)
        (Point(x=1.0, y=2.0), True)
        >>> as_point((float("inf"), 0), "to")
        Traceback (most recent call last):
        ...
        ValueError: to: x is inf, not a finite number of metres; give map metres \
(UTM 32N)
    """
    if isinstance(value, Point):
        return value
    if isinstance(value, Mapping) and set(value) == {"x", "y"}:
        xy: tuple[Any, Any] = (value["x"], value["y"])
    elif (
        isinstance(value, Sequence | np.ndarray)
        and not isinstance(value, str)
        and len(value) == 2
    ):
        xy = (value[0], value[1])
    else:
        raise ValueError(
            f"{argument}: {_shown(value)} is not a point; give (x, y) in map "
            "metres (UTM 32N)"
        )
    out = []
    for axis, v in zip("xy", xy, strict=True):
        if isinstance(v, bool) or not isinstance(v, int | float | np.number):
            raise ValueError(
                f"{argument}: {axis} is {_shown(v)}, not a number of metres; give "
                "map metres (UTM 32N)"
            )
        f = float(v)
        if not math.isfinite(f):
            raise ValueError(
                f"{argument}: {axis} is {f!r}, not a finite number of metres; give "
                "map metres (UTM 32N)"
            )
        out.append(f)
    return Point(out[0], out[1])


def as_path(
    value: Any, argument: str = "path", *, min_points: int = 2
) -> tuple[Point, ...]:
    """A path: a sequence of at least ``min_points`` points (see :func:`as_point`).

    Raises:
        ValueError: not a sequence, too few points, or a bad point (the message
            names ``argument[i]``).
    """
    if isinstance(value, str | bytes | Mapping) or not isinstance(value, Iterable):
        raise ValueError(
            f"{argument}: {_shown(value)} is not a path; give a list of (x, y) "
            "points in map metres"
        )
    points = tuple(as_point(p, f"{argument}[{i}]") for i, p in enumerate(value))
    if len(points) < min_points:
        n = len(points)
        raise ValueError(
            f"{argument}: has {n} point{'s' if n != 1 else ''}; a path needs at "
            f"least {min_points} (where it starts and where it ends)"
        )
    return points


def as_allowance(value: Any, argument: str = "allowance_m") -> float:
    """A distance in metres: a finite number >= 0.

    Raises:
        ValueError: negative, not finite or not a number (naming ``argument``).

    Examples:
        >>> as_allowance(-1)
        Traceback (most recent call last):
        ...
        ValueError: allowance_m: -1 is negative; give a distance in metres >= 0
    """
    if isinstance(value, bool) or not isinstance(value, int | float | np.number):
        raise ValueError(
            f"{argument}: {_shown(value)} is not a number; give a distance in metres "
            ">= 0"
        )
    f = float(value)
    if not math.isfinite(f):
        raise ValueError(
            f"{argument}: {f!r} is not a finite number; give a distance in metres >= 0"
        )
    if f < 0:
        raise ValueError(
            f"{argument}: {_shown(value)} is negative; give a distance in metres >= 0"
        )
    return f


def check_on_map(point: Point, game_map: Any, argument: str = "point") -> None:
    """Refuse a point outside the map's bounds (``ValueError`` naming the
    argument, the point and the map's range)."""
    xmin, ymin, xmax, ymax = game_map.bounds
    if not (xmin <= point.x <= xmax and ymin <= point.y <= ymax):
        raise ValueError(
            f"{argument}: ({point.x:.1f}, {point.y:.1f}) is off the map; give x "
            f"{xmin:.0f}–{xmax:.0f} and y {ymin:.0f}–{ymax:.0f} (map metres)"
        )


# --------------------------------------------------------------------------- #
# measurement                                                                 #
# --------------------------------------------------------------------------- #


def distance(a: Point, b: Point) -> float:
    """Straight-line distance in map metres (flat: UTM metres over a few km).

    The one function point rule systems measure with; a ground scale or the
    geography's measurement plugs in here.
    """
    return math.hypot(b.x - a.x, b.y - a.y)


def path_length(path: Sequence[Point]) -> float:
    """Length of a path in metres (the sum of its legs)."""
    return sum(distance(p, q) for p, q in itertools.pairwise(path))


def bearing(a: Point, b: Point) -> float:
    """Compass bearing from ``a`` to ``b`` in degrees ``[0, 360)`` (0: north).

    Examples:
        >>> bearing(Point(0, 0), Point(0, 5)), bearing(Point(0, 0), Point(-5, 0))
        (0.0, 270.0)
    """
    return math.degrees(math.atan2(b.x - a.x, b.y - a.y)) % 360.0


def offset(p: Point, bearing_deg: float, distance_m: float) -> Point:
    """The point ``distance_m`` from ``p`` on a compass bearing."""
    r = math.radians(bearing_deg)
    # rounded to nanometres: a bearing of 90 gives dy = 0, not 6e-16
    dx, dy = round(distance_m * math.sin(r), 9), round(distance_m * math.cos(r), 9)
    return Point(p.x + dx, p.y + dy)


# --------------------------------------------------------------------------- #
# a finite sample of moves                                                    #
# --------------------------------------------------------------------------- #


@dataclass(frozen=True)
class Candidate:
    """One sampled destination and why it was offered."""

    point: Point
    reason: str


def _along(origin: Point, target: Point, t: float) -> Point:
    return Point(
        origin.x + (target.x - origin.x) * t, origin.y + (target.y - origin.y) * t
    )


def _clip_box(
    origin: Point, target: Point, box: tuple[float, float, float, float]
) -> Point:
    """``target`` pulled back along the ray from ``origin`` into ``box``."""
    xmin, ymin, xmax, ymax = box
    t = 1.0
    for o, d, lo, hi in (
        (origin.x, target.x - origin.x, xmin, xmax),
        (origin.y, target.y - origin.y, ymin, ymax),
    ):
        if d > 0 and o + d > hi:
            t = min(t, (hi - o) / d)
        elif d < 0 and o + d < lo:
            t = min(t, (lo - o) / d)
    return _along(origin, target, max(t, 0.0))


def _clip_circle(origin: Point, target: Point, centre: Point, radius: float) -> Point:
    """``target`` pulled back along the ray from ``origin`` (inside the circle)
    to the circle."""
    if distance(target, centre) <= radius:
        return target
    dx, dy = target.x - origin.x, target.y - origin.y
    fx, fy = origin.x - centre.x, origin.y - centre.y
    a = dx * dx + dy * dy
    b = 2 * (fx * dx + fy * dy)
    c = fx * fx + fy * fy - radius * radius
    disc = max(b * b - 4 * a * c, 0.0)
    t = (-b + math.sqrt(disc)) / (2 * a) if a > 0 else 0.0
    return _along(origin, target, min(max(t, 0.0), 1.0))


def _nearest_cover(
    game_map: Any, origin: Point, reach: float, classes: Sequence[str]
) -> tuple[Point, str] | None:
    """The nearest sampled point within ``reach`` whose terrain is one of
    ``classes`` (rings about 1/40 of the reach apart, at least 10 m)."""
    step = max(10.0, reach / 40.0)
    rings = np.arange(step, reach + 1e-9, step)
    xs: list[np.ndarray] = []
    ys: list[np.ndarray] = []
    for r in rings:
        n = max(8, int(2 * math.pi * r / step))
        ang = np.arange(n) * (2 * math.pi / n)
        xs.append(origin.x + r * np.sin(ang))
        ys.append(origin.y + r * np.cos(ang))
    if not xs:
        return None
    x, y = np.concatenate(xs), np.concatenate(ys)
    xmin, ymin, xmax, ymax = game_map.bounds
    inside = (x >= xmin) & (x <= xmax) & (y >= ymin) & (y <= ymax)
    x, y = x[inside], y[inside]
    if not len(x):
        return None
    cls = np.asarray(game_map.terrain_at(x, y), dtype=object)
    hit = np.flatnonzero(np.isin(cls, list(classes)))
    if not len(hit):
        return None
    i = hit[0]  # rings are in order of distance
    return Point(float(x[i]), float(y[i])), str(cls[i])


def candidate_moves(
    origin: Point,
    allowance_m: float,
    *,
    game_map: Any = None,
    objectives: Mapping[str, Point] | None = None,
    cover: Sequence[str] = ("woods", "town"),
    command: tuple[Point, float] | None = None,
    directions: int = 8,
    keep: Callable[[Point], bool] | None = None,
    decimals: int = 1,
) -> list[Candidate]:
    """A finite, deterministic sample of destinations for a move of up to
    ``allowance_m`` metres from ``origin`` (straight-line distance).

    Offered, in this order: to (or toward, if farther than the allowance) each
    objective; to the nearest point of cover (terrain classes ``cover``) within
    the allowance, when a map is given; full moves in ``directions`` directions
    from north clockwise.  Each is pulled back along its line to stay on the
    map and, with ``command = (centre, radius_m)``, inside the command circle
    (a unit outside it is offered moves toward its centre instead).  Points are
    rounded to ``decimals`` places of metres, duplicates and the origin itself
    dropped, and ``keep`` (the rule system's own test: going, impassable ground,
    other models) filters the rest.

    A rule system offers these as its legal moves; its ``check`` still accepts
    any legal point, so a policy may propose others.

    Raises:
        ValueError: a bad ``origin``, a negative or non-finite ``allowance_m``,
            ``directions`` not a whole number >= 0, or a bad command circle.

    Examples:
        >>> c = candidate_moves(Point(0, 0), 50, objectives={"hill": Point(0, 20)},
        ...                     command=(Point(0, 0), 30))
        >>> [(x.reason, x.point.y) for x in c][:2]
        [('to objective hill', 20.0), ('full move N', 30.0)]
    """
    origin = as_point(origin, "origin")
    reach = as_allowance(allowance_m, "allowance_m")
    if (
        not isinstance(directions, int)
        or isinstance(directions, bool)
        or (directions < 0)
    ):
        raise ValueError(
            f"directions: {_shown(directions)} is not a whole number >= 0; give e.g. 8"
        )
    centre: Point | None = None
    radius = 0.0
    if command is not None:
        if not isinstance(command, tuple) or len(command) != 2:
            raise ValueError(
                f"command: {_shown(command)} is not (centre, radius_m); give e.g. "
                "(Point(x, y), 150.0)"
            )
        centre = as_point(command[0], "command centre")
        radius = as_allowance(command[1], "command radius_m")
    if reach == 0:
        return []
    raw: list[tuple[Point, str]] = []
    for name, p in (objectives or {}).items():
        p = as_point(p, f"objectives[{name!r}]")
        d = distance(origin, p)
        if d <= reach:
            raw.append((p, f"to objective {name}"))
        else:
            raw.append((_along(origin, p, reach / d), f"toward objective {name}"))
    if game_map is not None and cover:
        found = _nearest_cover(game_map, origin, reach, cover)
        if found is not None:
            raw.append((found[0], f"to cover ({found[1]})"))
    for i in range(directions):
        b = 360.0 * i / directions
        name = COMPASS[i] if directions == 8 else f"{b:g}°"
        raw.append((offset(origin, b, reach), f"full move {name}"))
    out: list[Candidate] = []
    seen: set[tuple[float, float]] = set()
    outside = centre is not None and distance(origin, centre) > radius
    for target, reason in raw:
        if game_map is not None:
            target = _clip_box(origin, target, tuple(game_map.bounds))
        if centre is not None:
            if outside:
                # out of command: only moves that close on the centre
                if distance(target, centre) >= distance(origin, centre):
                    continue
            else:
                target = _clip_circle(origin, target, centre, radius)
        p = Point(round(target.x, decimals), round(target.y, decimals))
        key = (p.x, p.y)
        if key in seen or distance(p, origin) < 10.0 ** (-decimals):
            continue
        seen.add(key)
        if keep is not None and not keep(p):
            continue
        out.append(Candidate(p, reason))
    if outside and centre is not None:
        d = distance(origin, centre)
        back = _along(origin, centre, min(reach, d) / d)
        p = Point(round(back.x, decimals), round(back.y, decimals))
        if (p.x, p.y) not in seen and (keep is None or keep(p)):
            out.append(Candidate(p, "back toward command"))
    return out


def models_frame(state: GameState) -> pd.DataFrame:
    """One row per model of the units in play: ``unit``, ``model``, ``side``,
    ``kind``, ``x``, ``y`` (NaN off the map or at a hex), ``facing`` (compass
    degrees, NaN: none), ``radius_m``, ``wounds`` (:attr:`Game.models`).

    Examples:
        >>> from wargame.engine.state import Model, Unit
        >>> s = GameState("demo")
        >>> s.units["u"] = Unit("u", "U", "red", None, "squad", Point(5, 6),
        ...     models=(Model("u.1", "rifleman", position=Point(5, 6), facing=90.0),))
        >>> models_frame(s)[["model", "x", "y", "facing"]].values.tolist()
        [['u.1', 5.0, 6.0, 90.0]]
    """
    import pandas as pd

    rows = []
    for u in state.units.values():
        if u.destroyed:
            continue
        for m in u.models:
            p = m.position
            rows.append(
                {
                    "unit": u.id,
                    "model": m.id,
                    "side": u.side,
                    "kind": m.kind,
                    "x": p.x if isinstance(p, Point) else np.nan,
                    "y": p.y if isinstance(p, Point) else np.nan,
                    "facing": np.nan if m.facing is None else float(m.facing),
                    "radius_m": float(m.radius_m),
                    "wounds": int(m.wounds),
                }
            )
    columns = ["unit", "model", "side", "kind", "x", "y", "facing", "radius_m"]
    return pd.DataFrame(rows, columns=[*columns, "wounds"])
