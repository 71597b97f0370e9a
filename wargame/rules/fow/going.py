"""Flames of War v3 going on the real map: terrain, obstacles, slopes, bogging.

The map gives generic terrain classes (:data:`wargame.geo.terrain.TERRAIN_CLASSES`),
road classes, waterways and rail (:meth:`Map.terrain_along`,
:meth:`Map.features_crossed`, :meth:`Map.slope_along`).  This module says what
each is in FoW going (seed 004 pp. 22-24; research/fow.md §2.1 and the stop-gap
of §10.3, since no reachable v3 text lists which terrain is Slow, Difficult or
Very Difficult):

* **Area going** (:data:`AREA_GOING`): clear, park and orchard are
  cross-country; woods, wetland and town (off the streets) Difficult; water
  Impassable.  Scenario-only areas: crops and ploughed fields Slow, rubble
  Difficult.  Each entry has its source or its estimate.
* **Roads** of every class are Road going, whatever they cross (seed 004
  p. 24: concrete, cobbled, asphalt or dirt; roads run over or through most
  natural obstacles), also on bridges.
* **Linear obstacles** (:data:`LINEAR_GOING`) crossed off a road and off a
  bridge: streams Difficult, rivers and canals Impassable, rail lines Slow;
  scenario-only hedges and walls Slow, tree lines Difficult, bocage Very
  Difficult.  A team never stands on a linear obstacle (seed 004 p. 22).
* **Slopes** (:data:`SLOPE_GOING`): hills slow vehicles (seed 004 p. 23); steep
  slopes are Very Difficult and cliffs Impassable (research §10.3); the grade
  thresholds are estimates.  Off roads only.
* **Bogging** (research §2.1): Slow going no check; Difficult going bogs on a
  1 (2+ to pass; Overloaded bogs on 1-2, S10); Very Difficult needs a Skill
  test.  Only vehicles bog.  One check per move that starts in, passes
  through or ends in such going (S8 part 3): the worst going of the move.

Examples:
    >>> terrain_going("woods"), terrain_going("clear"), terrain_going("water")
    ('difficult', 'cross_country', 'impassable')
    >>> bog_check("difficult"), bog_check("difficult", overloaded=True)
    ('2+', '3+')
    >>> bog_chance("very_difficult", skill="veteran")
    Fraction(1, 3)
    >>> concealed_in("woods"), concealed_in("clear")
    (True, False)
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt
import shapely

from wargame.engine.present import Going
from wargame.geo.going import (
    features_crossed_rows,
    grades_along,
    terrain_along_arrays,
)
from wargame.geo.terrain import ROAD_CLASSES, TERRAIN_CLASSES, road_rank
from wargame.rules.fow.data import VEHICLE_MOBILITIES
from wargame.rules.fow.dice import SKILL_TEST
from wargame.rules.fow.movement import (
    GOINGS,
    GROUND_SCALE_M_PER_INCH,
    MoverLike,
    most_restrictive,
    move_distance_in,
)

if TYPE_CHECKING:  # pragma: no cover
    from wargame.geo.maps import Map

__all__ = [
    "AREA_GOING",
    "CONCEALMENT",
    "LINEAR_GOING",
    "SLOPE_GOING",
    "GoingAlong",
    "GoingStretch",
    "LinearCrossing",
    "bog_chance",
    "bog_check",
    "concealed_in",
    "fow_going",
    "fow_goings",
    "going_along",
    "slope_going",
    "terrain_going",
]

_STOPGAP = "research/fow.md §10.3 stop-gap (ASSUMPTION)"

#: Area terrain -> (going, source).  Map classes first, then scenario-only areas.
AREA_GOING: dict[str, tuple[str, str]] = {
    "clear": (
        "cross_country",
        "seed 004 p. 24: open fields and farmland are cross-country; estimate: "
        "the map does not mark crops or ploughland, and early-March fields stand bare",
    ),
    "park": (
        "cross_country",
        "estimate: parks, gardens, cemeteries and sports grounds are mostly open "
        "ground; their walls and hedges are not on the map",
    ),
    "orchard": (
        "cross_country",
        "estimate: orchards and vineyards are rows of trees or vines vehicles "
        "drive between; steep vineyards are slowed by SLOPE_GOING instead",
    ),
    "wetland": (
        "difficult",
        "seed 004 p. 23: marsh slows vehicles and bogs them; "
        f"{_STOPGAP}: marsh Difficult",
    ),
    "woods": (
        "difficult",
        f"{_STOPGAP}: woods Difficult (seed 004 p. 23: area terrain)",
    ),
    "town": (
        "difficult",
        "estimate: built-up ground off the streets is buildings, yards and walls, "
        f"rated like rubble ({_STOPGAP}: rubble Difficult); streets are roads",
    ),
    "water": (
        "impassable",
        f"seed 004 p. 23: rivers are major obstacles crossed at crossings; {_STOPGAP}: "
        "rivers without a crossing Impassable",
    ),
    "crops": ("slow", f"seed 004 p. 22: crops slow vehicles; {_STOPGAP}: crops Slow"),
    "ploughed": (
        "slow",
        f"seed 004 p. 23: ploughed fields slow vehicles; {_STOPGAP}: ploughed Slow",
    ),
    "rubble": ("difficult", f"{_STOPGAP}: rubble Difficult"),
}

#: Linear obstacle -> (going when crossed off a road or bridge, source).
LINEAR_GOING: dict[str, tuple[str, str]] = {
    "stream": (
        "difficult",
        f"seed 004 p. 22: streams are linear obstacles; {_STOPGAP}: streams Difficult",
    ),
    "river": (
        "impassable",
        f"seed 004 p. 23 (rivers); {_STOPGAP}: no crossing, Impassable",
    ),
    "canal": ("impassable", f"estimate: a canal is crossed like a river ({_STOPGAP})"),
    "rail": (
        "slow",
        "estimate: a rail embankment or cutting crossed off a level crossing, "
        "rated like a hedge or wall (seed 004 p. 22: slows vehicles; "
        f"{_STOPGAP}: Slow)",
    ),
    "hedge": ("slow", f"seed 004 p. 22: hedges slow vehicles; {_STOPGAP}: Slow"),
    "wall": ("slow", f"seed 004 p. 22: walls slow vehicles; {_STOPGAP}: Slow"),
    "tree_line": (
        "difficult",
        f"seed 004 p. 23: tree lines are hard to cross; {_STOPGAP}: Difficult",
    ),
    "bocage": (
        "very_difficult",
        "research/fow.md §2.1 (S7 bocage, [A]): Very Difficult",
    ),
}

#: Grade (rise over run) -> going off roads, steepest first.  ASSUMPTIONS:
#: hills slow vehicles (seed 004 p. 23) read as ground steeper than 10 %
#: (about 6 degrees; gentler valley sides would make the whole Rhine valley
#: flank Slow); steep slopes Very Difficult (research §10.3) from 30 % (about
#: 17 degrees, half a tank's climbing limit); cliffs Impassable (§10.3) from
#: 60 % (about 31 degrees, the climbing limit of a Sherman).  The DEM's 50 m
#: cells smooth shorter slopes away (wargame.geo.going.slope_along).
SLOPE_GOING: tuple[tuple[float, str], ...] = (
    (0.60, "impassable"),
    (0.30, "very_difficult"),
    (0.10, "slow"),
)

#: Area terrain -> (a team standing in it is Concealed, source).
CONCEALMENT: dict[str, tuple[bool, str]] = {
    "woods": (True, "seed 004 p. 23 and research/fow.md §3.7: woods conceal"),
    "town": (
        True,
        "estimate: built-up ground is buildings, walls and yards (seed 004 p. 22: "
        "troops behind buildings are usually unseen; research §3.7)",
    ),
    "orchard": (
        True,
        "estimate: rows of fruit trees or vines hide a team like thin woods",
    ),
    "park": (
        False,
        "estimate: mostly open lawns, sports grounds and cemeteries; walls and "
        "hedges that would conceal are not mapped",
    ),
    "wetland": (False, "estimate: open marsh and wet meadow; reed beds are not mapped"),
    "clear": (
        False,
        "seed 004 p. 24: open ground; crops would conceal (p. 22) but the map "
        "marks none and early-March fields stand bare",
    ),
    "water": (False, "estimate: nothing to hide in on open water"),
    "crops": (True, "seed 004 p. 22: crops conceal teams in or behind them"),
    "ploughed": (False, "seed 004 p. 23: ploughed fields give no concealment"),
    "rubble": (True, "estimate: broken buildings hide a team like buildings do"),
}

_SEVERITY = {g: i for i, g in enumerate(GOINGS)}


def _worse(a: str, b: str) -> str:
    return a if _SEVERITY[a] >= _SEVERITY[b] else b


def terrain_going(terrain_class: str) -> str:
    """The going of an area terrain class (map or scenario class).

    Infantry and guns move their one distance in every going but Impassable
    (and Very Difficult for guns); how far each team goes is
    :func:`~wargame.rules.fow.movement.move_distance_in`.

    >>> [terrain_going(c) for c in ("park", "orchard", "town", "crops")]
    ['cross_country', 'cross_country', 'difficult', 'slow']
    """
    try:
        return AREA_GOING[terrain_class][0]
    except KeyError:
        raise ValueError(
            f"unknown terrain class {terrain_class!r}; give one of {list(AREA_GOING)}"
        ) from None


def slope_going(grade: float) -> str | None:
    """The going a slope adds off roads (``None`` below the first threshold).

    >>> slope_going(0.05), slope_going(0.2), slope_going(-0.45), slope_going(0.7)
    (None, 'slow', 'very_difficult', 'impassable')
    """
    g = abs(float(grade))
    for limit, going in SLOPE_GOING:
        if g >= limit:
            return going
    return None


def concealed_in(terrain_class: str) -> bool:
    """Whether a team standing in an area terrain class counts as Concealed.

    >>> [concealed_in(c) for c in ("town", "orchard", "park", "crops")]
    [True, True, False, True]
    """
    try:
        return CONCEALMENT[terrain_class][0]
    except KeyError:
        raise ValueError(
            f"unknown terrain class {terrain_class!r}; give one of {list(CONCEALMENT)}"
        ) from None


def bog_check(going: str, *, overloaded: bool = False) -> str:
    """The bogging check a vehicle makes for a move through ``going``.

    ``"none"``, ``"2+"`` (Difficult: bogs on a 1), ``"3+"`` (Difficult and
    Overloaded: bogs on 1-2, S10 [B]) or ``"skill"`` (Very Difficult: a Skill
    test).  Research/fow.md §2.1 [A: S2].  Overloaded in Very Difficult going
    still takes the Skill test (no source says otherwise).

    >>> [bog_check(g) for g in ("road", "slow", "difficult", "very_difficult")]
    ['none', 'none', '2+', 'skill']
    """
    if going not in GOINGS:
        raise ValueError(f"unknown going {going!r}; give one of {list(GOINGS)}")
    if going == "difficult":
        return "3+" if overloaded else "2+"
    if going == "very_difficult":
        return "skill"
    return "none"


def bog_chance(
    going: str, *, skill: str = "trained", overloaded: bool = False
) -> Fraction:
    """The chance that a vehicle bogs in ``going`` (research/fow.md §8 E5).

    >>> bog_chance("difficult"), bog_chance("difficult", overloaded=True)
    (Fraction(1, 6), Fraction(1, 3))
    >>> bog_chance("very_difficult", skill="conscript")
    Fraction(2, 3)
    """
    check = bog_check(going, overloaded=overloaded)
    if check == "none":
        return Fraction(0)
    if check == "skill":
        try:
            need = SKILL_TEST[skill.lower()]
        except (KeyError, AttributeError):
            raise ValueError(
                f"unknown skill {skill!r}; give one of {list(SKILL_TEST)}"
            ) from None
    else:
        need = int(check[0])
    return Fraction(need - 1, 6)


@dataclass(frozen=True)
class GoingStretch:
    """One stretch of a path in one going.

    Attributes:
        going: the FoW going.
        start_m, end_m, length_m: along the path (map metres).
        terrain_class: the map's terrain class there.
        road_class: the road the path follows there (``None``: off road).
        max_grade: the steepest absolute grade in the stretch (DEM).
    """

    going: str
    start_m: float
    end_m: float
    length_m: float
    terrain_class: str
    road_class: str | None
    max_grade: float


@dataclass(frozen=True)
class LinearCrossing:
    """A waterway or rail line the path crosses.

    ``going`` is the going of crossing it, ``None`` where it is no obstacle (on
    a bridge, along a road, under a rail bridge, over a rail tunnel).
    """

    kind: str
    feature_class: str
    at_m: float
    x: float
    y: float
    bridged: bool
    on_road: bool
    going: str | None
    name: str | None = None


@dataclass(frozen=True)
class GoingAlong:
    """The FoW going of one path for one team (see :func:`going_along`).

    Attributes:
        length_m: the path's length.
        stretches: the path in stretches of one going (and class, road, slope).
        crossings: waterways and rail crossed, in path order.
        lengths_m: going -> metres of the path in it.
        goings: every going met (stretches and obstacles), least restrictive first.
        most_restrictive: the one that sets the whole move's distance
            (working rule, research §2.2 [C: S12]).
        allowance_in: that distance in inches (0: the team may not make it).
        bog_check: ``"none"``, ``"2+"``, ``"3+"`` or ``"skill"`` (vehicles only).
        bog_going: the going that calls for the check, if any.
    """

    length_m: float
    stretches: tuple[GoingStretch, ...]
    crossings: tuple[LinearCrossing, ...]
    lengths_m: Mapping[str, float]
    goings: tuple[str, ...]
    most_restrictive: str
    allowance_in: float
    bog_check: str
    bog_going: str | None

    @property
    def obstacles(self) -> tuple[LinearCrossing, ...]:
        """The crossings that are obstacles (``going`` not ``None``)."""
        return tuple(c for c in self.crossings if c.going is not None)

    @property
    def passable(self) -> bool:
        """Whether the team may make this move at all."""
        return self.allowance_in > 0


def _intervals(
    fc: list[dict[str, Any]], kind: str, bridge_only: bool = False
) -> list[tuple[float, float, str]]:
    return [
        (float(r["start_m"]), float(r["end_m"]), str(r["class"]))
        for r in fc
        if r["kind"] == kind
        and r["how"] == "along"
        and (not bridge_only or bool(r["bridge"]))
    ]


def _on(iv: list[tuple[float, float, str]], s: float) -> str | None:
    """The best road class of the intervals holding ``s`` (None: none)."""
    hit = [c for a, b, c in iv if a - 1e-6 <= s <= b + 1e-6]
    if not hit:
        return None
    return min(hit, key=lambda c: road_rank(c) if c in ROAD_CLASSES else 99)


def _rail_flags(m: Map, x: float, y: float) -> tuple[bool, bool]:
    """(on a bridge, in a tunnel) for the rail line nearest ``(x, y)``."""
    df = m.layer("rail")
    geoms = np.asarray(df["geometry"].to_numpy(), dtype=object)
    d = shapely.distance(geoms, shapely.Point(x, y))
    near = d <= float(d.min()) + 0.5
    return (
        bool(df["bridge"].to_numpy()[near].astype(bool).any()),
        bool(df["tunnel"].to_numpy()[near].astype(bool).any()),
    )


def _crossings(
    m: Map, fc: list[dict[str, Any]], roads: list[tuple[float, float, str]]
) -> list[LinearCrossing]:
    out = []
    for r in fc:
        if r["how"] != "crosses":
            continue
        if r["kind"] == "road":
            continue
        at = float(r["start_m"])
        cls = str(r["class"])
        on_road = _on(roads, at) is not None
        bridged = bool(r["bridge"])
        tunnel = False
        if r["kind"] == "rail":
            bridged, tunnel = _rail_flags(m, float(r["x"]), float(r["y"]))
        going = None if (bridged or tunnel or on_road) else LINEAR_GOING[cls][0]
        name = r["name"] if isinstance(r["name"], str) else None
        out.append(
            LinearCrossing(
                str(r["kind"]),
                cls,
                at,
                float(r["x"]),
                float(r["y"]),
                bridged,
                on_road,
                going,
                name,
            )
        )
    return out


def going_along(
    game_map: Map,
    path: npt.ArrayLike,
    team_type: MoverLike,
    *,
    slope: bool = True,
    overloaded: bool | None = None,
) -> GoingAlong:
    """The FoW going of ``path`` (``(n, 2)`` map metres) for ``team_type``.

    Each point of the path is in Road going where the path runs along a road
    (:meth:`Map.features_crossed` ``along`` stretches), else in its terrain
    class's going (:meth:`Map.terrain_along`), made worse by a steep slope
    (:meth:`Map.slope_along`, with ``slope=True``).  A rail bridge the path runs
    along is cross-country (its deck) over whatever lies below (estimate).
    Linear obstacles come from the crossings.  ``overloaded`` (default: the
    team's ``overloaded`` special rule) turns a 2+ bogging check into 3+.

    Examples:
        >>> from wargame.geo.maps import load_map
        >>> from wargame.rules.fow.data import load_teams
        >>> m = load_map()
        >>> g = going_along(m, [(378100.0, 5604500.0), (378100.0, 5604900.0)],
        ...                 load_teams()["us_m4a3_sherman"], slope=False)
        >>> g.most_restrictive, g.allowance_in, g.bog_check
        ('difficult', 8.0, '2+')
    """
    classes, starts, ends = terrain_along_arrays(game_map, path)
    p = np.asarray(path, dtype=np.float64)
    fc = features_crossed_rows(game_map, p)
    roads = _intervals(fc, "road")
    grades = None
    if slope:
        dist, grade = grades_along(game_map, p)
        grades = (dist, np.abs(grade))
    ta = (classes, starts, float(ends[-1]))
    stretches = _stretches(ta, roads, _intervals(fc, "rail", bridge_only=True), grades)
    crossings = tuple(_crossings(game_map, fc, roads))
    lengths: dict[str, float] = {}
    for s in stretches:
        lengths[s.going] = lengths.get(s.going, 0.0) + s.length_m
    met = {s.going for s in stretches} | {c.going for c in crossings if c.going}
    goings = tuple(g for g in GOINGS if g in met)
    worst_going = most_restrictive(team_type, goings)
    if overloaded is None:
        overloaded = "overloaded" in tuple(getattr(team_type, "special", ()))
    check, bog_going = "none", None
    if team_type.mobility in VEHICLE_MOBILITIES:  # only vehicles bog (§2.1)
        for g in ("very_difficult", "difficult"):
            if g in met:
                check, bog_going = bog_check(g, overloaded=overloaded), g
                break
    return GoingAlong(
        length_m=ta[2],
        stretches=stretches,
        crossings=crossings,
        lengths_m=lengths,
        goings=goings,
        most_restrictive=worst_going,
        allowance_in=move_distance_in(team_type, worst_going),
        bog_check=check,
        bog_going=bog_going,
    )


def _stretches(
    ta: tuple[Any, Any, float],
    roads: list[tuple[float, float, str]],
    decks: list[tuple[float, float, str]],
    grades: tuple[Any, Any] | None,
) -> tuple[GoingStretch, ...]:
    """Cut the path at every class, road, deck and slope-sample boundary; give
    each piece its going; merge runs of one going, class and road."""
    classes, starts, total = ta
    cuts = {0.0, total, *(float(v) for v in starts)}
    for a, b, _ in roads + decks:
        cuts.update((a, b))
    if grades is not None:
        cuts.update(float(v) for v in grades[0])
    edges = sorted(c for c in cuts if 0.0 <= c <= total)
    pieces: list[list[Any]] = []
    for a, b in itertools.pairwise(edges):
        if b - a <= 1e-6:
            continue
        mid = 0.5 * (a + b)
        cls = str(classes[max(int(np.searchsorted(starts, mid, side="right")) - 1, 0)])
        road = _on(roads, mid)
        grade = 0.0
        if grades is not None:
            k = min(max(int(np.searchsorted(grades[0], mid)), 1), len(grades[0]) - 1)
            grade = float(grades[1][k])
        if road is not None:
            going = "road"  # roads run over or through obstacles (seed 004 p. 24)
        elif _on(decks, mid) is not None:
            going = "cross_country"  # estimate: the deck of a rail bridge
        else:
            going = AREA_GOING[cls][0]
            sg = slope_going(grade)
            if sg is not None:
                going = _worse(going, sg)
        last = pieces[-1] if pieces else None
        if last is not None and (last[0], last[3], last[4]) == (going, cls, road):
            last[2] = b
            last[5] = max(last[5], grade)
        else:
            pieces.append([going, a, b, cls, road, grade])
    return tuple(GoingStretch(g, a, b, b - a, c, r, mg) for g, a, b, c, r, mg in pieces)


def _costs(team_type: MoverLike, at_the_double: bool) -> tuple[float, dict[str, float]]:
    d = {g: move_distance_in(team_type, g, at_the_double=at_the_double) for g in GOINGS}
    return d["cross_country"], d


def fow_going(
    team_type: MoverLike,
    *,
    metres_per_inch: float = GROUND_SCALE_M_PER_INCH,
    at_the_double: bool = False,
) -> Going:
    """A :class:`~wargame.engine.present.Going` for the reach polygon.

    The allowance is the cross-country distance in metres; each map terrain
    class costs ``cross-country / distance in its going`` per metre (``None``
    where the team may not go) and roads ``cross-country / road distance``.
    This prices going in proportion, which is kinder than the working rule
    that the most restrictive going sets the whole move (research §2.2): the
    exact reach is the union of :func:`fow_goings`.  Slopes and linear
    obstacles are left to :func:`going_along`.

    >>> from wargame.rules.fow.data import load_teams
    >>> g = fow_going(load_teams()["us_m4a3_sherman"])
    >>> g.allowance_m, g.factor("woods"), g.factor("water"), g.road_cost["track"]
    (300.0, 1.5, inf, 1.0)
    """
    cc, d = _costs(team_type, at_the_double)
    label = "at the double" if at_the_double else "move"
    if cc <= 0:
        return Going(0.0, dict.fromkeys(TERRAIN_CLASSES), None, label)
    per_class: dict[str, float | None] = {}
    for c in TERRAIN_CLASSES:
        dist = d[AREA_GOING[c][0]]
        per_class[c] = cc / dist if dist > 0 else None
    road = dict.fromkeys(ROAD_CLASSES, cc / d["road"]) if d["road"] > 0 else None
    return Going(cc * metres_per_inch, per_class, road, label)


def fow_goings(
    team_type: MoverLike,
    *,
    metres_per_inch: float = GROUND_SCALE_M_PER_INCH,
    at_the_double: bool = False,
    start_class: str | None = None,
) -> tuple[Going, ...]:
    """One :class:`Going` per distinct distance of the team, longest first.

    Each allows only the goings in which the team goes at least that far, at
    cost 1, with that distance as its allowance: the union of their reach
    polygons is the reach under the most-restrictive-going working rule
    (research §2.2), slopes and linear obstacles aside.  A move that starts
    in some going is in it (research §2.1): with ``start_class`` (the map
    class the team stands in), only the layers that allow it are given.

    >>> from wargame.rules.fow.data import load_teams
    >>> goings = fow_goings(load_teams()["us_m3_halftrack"])
    >>> [(g.label, g.allowance_m) for g in goings]  # doctest: +NORMALIZE_WHITESPACE
    [('move (road)', 400.0), ('move (cross_country)', 300.0),
     ('move (difficult)', 100.0)]
    >>> len(fow_goings(load_teams()["us_m3_halftrack"], start_class="woods"))
    1
    """
    _, d = _costs(team_type, at_the_double)
    start = None if start_class is None else terrain_going(start_class)
    out = []
    for dist in sorted({v for v in d.values() if v > 0}, reverse=True):
        ok = {g for g, v in d.items() if v >= dist}
        if start is not None and start not in ok:
            continue
        worst = max(ok, key=lambda g: _SEVERITY[g])
        per_class: dict[str, float | None] = {
            c: (1.0 if AREA_GOING[c][0] in ok else None) for c in TERRAIN_CLASSES
        }
        road = dict.fromkeys(ROAD_CLASSES, 1.0) if "road" in ok else None
        label = ("at the double" if at_the_double else "move") + f" ({worst})"
        out.append(Going(dist * metres_per_inch, per_class, road, label))
    return tuple(out)
