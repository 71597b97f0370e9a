"""The CoH 2e terrain chart: ``data/terrain.toml`` loaded and checked.

Every value of the file carries its source (see the file's header); this module
only checks the shape, so that a bad file fails on load with the file, the table
and the field named, never later in a game.

Examples:
    >>> chart = load_chart()
    >>> chart.types["heavy_woods"].dm, chart.types["heavy_woods"].extra_ap("tracked")
    (2, 2.0)
    >>> chart.types["water"].extra_ap("wheeled") is None   # "no": may not enter
    True
    >>> chart.generic["woods"].type, chart.roads.classes[-1]
    ('heavy_woods', 'minor')
"""

from __future__ import annotations

import copy
import math
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from wargame.geo.terrain import ROAD_CLASSES, TERRAIN_CLASSES

__all__ = [
    "BONUS_MOVES",
    "DATA_FILE",
    "MOBILITIES",
    "NOT_ALLOWED",
    "GenericRule",
    "RoadRule",
    "TerrainChart",
    "TerrainDataError",
    "TerrainType",
    "load_chart",
    "terrain_chart",
]

DATA_FILE = Path(__file__).with_name("data") / "terrain.toml"
#: The sentinel of the ``*_extra_ap`` fields: the unit may not enter (the tables' "NA").
NOT_ALLOWED = "no"
#: Movement classes by the colour of a counter's move cost (CoH 2e §5.0, §14.0).
MOBILITIES: tuple[str, ...] = ("foot", "tracked", "wheeled")
#: Vehicle bonus-move symbols (§14.1).
BONUS_MOVES: tuple[str, ...] = ("track", "wheel")
#: Share columns of :attr:`wargame.geo.maps.Map.hexes` a generic rule may test.
SHARE_CLASSES: tuple[str, ...] = ("woods", "town", "water")

_BOOL_FIELDS = (
    "immobilisation_check",
    "air_burst",
    "blocks_los",
    "cover",
    "unburdened_foot_only",
    "may_fire_from",
)
_AP_FIELDS = tuple(f"{m}_extra_ap" for m in MOBILITIES)
_VALUE_FIELDS = (*_AP_FIELDS, *_BOOL_FIELDS, "dm", "obstacle_levels", "bonus_moves")


class TerrainDataError(ValueError):
    """A terrain data file is malformed (the message names file, table and field)."""


@dataclass(frozen=True)
class TerrainType:
    """One CoH 2e terrain type (fields as in the data file's header)."""

    id: str
    name: str
    foot_extra_ap: float | None
    tracked_extra_ap: float | None
    wheeled_extra_ap: float | None
    immobilisation_check: bool
    dm: int
    air_burst: bool
    blocks_los: bool
    obstacle_levels: int
    cover: bool
    unburdened_foot_only: bool
    may_fire_from: bool
    bonus_moves: frozenset[str]
    sources: Mapping[str, str]

    def extra_ap(self, mobility: str) -> float | None:
        """Extra AP to enter, for ``"foot"``, ``"tracked"`` or ``"wheeled"``.

        None: the unit may not enter (the data file's ``"no"``).
        """
        if mobility not in MOBILITIES:
            raise ValueError(
                f"mobility {mobility!r} is unknown; give one of {', '.join(MOBILITIES)}"
            )
        value: float | None = getattr(self, f"{mobility}_extra_ap")
        return value


@dataclass(frozen=True)
class GenericRule:
    """How one generic map class becomes a CoH type (§4.0 centre-dot rule)."""

    map_class: str
    type: str
    sparse_type: str | None
    sparse_below_share: float | None
    river_type: str | None
    source: str


@dataclass(frozen=True)
class RoadRule:
    """Which map road classes are CoH roads (§4.0, §5.0.1, §14.2)."""

    classes: tuple[str, ...]
    bonus_moves: frozenset[str]
    source: str


@dataclass(frozen=True)
class TerrainChart:
    """The whole terrain file, checked."""

    path: Path
    types: Mapping[str, TerrainType]
    generic: Mapping[str, GenericRule]
    roads: RoadRule


def _fail(path: Path, where: str, problem: str) -> TerrainDataError:
    return TerrainDataError(f"{path}: {where}: {problem}")


def _keys(
    path: Path,
    where: str,
    table: Mapping[str, Any],
    allowed: tuple[str, ...],
    required: tuple[str, ...],
) -> None:
    for k in table:
        if k not in allowed:
            raise _fail(
                path, f"{where}.{k}", f"unknown field; give only {', '.join(allowed)}"
            )
    for k in required:
        if k not in table:
            raise _fail(path, f"{where}.{k}", "missing")


def _text(path: Path, where: str, value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise _fail(path, where, f"{value!r} is not a non-empty string")
    return value


def _ap(path: Path, where: str, value: Any) -> float | None:
    if value == NOT_ALLOWED:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise _fail(path, where, f"{value!r} is not an AP number or {NOT_ALLOWED!r}")
    if not math.isfinite(value) or value < 0:
        raise _fail(path, where, f"{value!r} must be a finite number >= 0")
    return float(value)


def _int(path: Path, where: str, value: Any, low: int, high: int) -> int:
    if (
        isinstance(value, bool)
        or not isinstance(value, int)
        or not low <= value <= high
    ):
        raise _fail(
            path, where, f"{value!r} is not a whole number from {low} to {high}"
        )
    return value


def _bonus(path: Path, where: str, value: Any) -> frozenset[str]:
    if not isinstance(value, list) or any(v not in BONUS_MOVES for v in value):
        raise _fail(path, where, f"{value!r} is not a list of {', '.join(BONUS_MOVES)}")
    return frozenset(value)


def _type(path: Path, tid: str, t: Any) -> TerrainType:
    where = f"types.{tid}"
    if not isinstance(t, dict):
        raise _fail(path, where, "is not a table")
    fields = ("name", *_VALUE_FIELDS, "sources")
    _keys(path, where, t, fields, fields)
    src = t["sources"]
    if not isinstance(src, dict):
        raise _fail(path, f"{where}.sources", "is not a table")
    _keys(path, f"{where}.sources", src, _VALUE_FIELDS, _VALUE_FIELDS)
    for k, v in src.items():
        _text(path, f"{where}.sources.{k}", v)
    for k in _BOOL_FIELDS:
        if not isinstance(t[k], bool):
            raise _fail(path, f"{where}.{k}", f"{t[k]!r} is not true or false")
    aps = {k: _ap(path, f"{where}.{k}", t[k]) for k in _AP_FIELDS}
    levels = _int(path, f"{where}.obstacle_levels", t["obstacle_levels"], 0, 3)
    if t["blocks_los"] != (levels > 0):
        raise _fail(
            path,
            f"{where}.obstacle_levels",
            f"{levels} does not fit blocks_los = {str(t['blocks_los']).lower()} "
            "(blocking terrain is an obstacle of 1 level or more, §11.3)",
        )
    return TerrainType(
        id=tid,
        name=_text(path, f"{where}.name", t["name"]),
        foot_extra_ap=aps["foot_extra_ap"],
        tracked_extra_ap=aps["tracked_extra_ap"],
        wheeled_extra_ap=aps["wheeled_extra_ap"],
        immobilisation_check=t["immobilisation_check"],
        dm=_int(path, f"{where}.dm", t["dm"], -5, 10),
        air_burst=t["air_burst"],
        blocks_los=t["blocks_los"],
        obstacle_levels=levels,
        cover=t["cover"],
        unburdened_foot_only=t["unburdened_foot_only"],
        may_fire_from=t["may_fire_from"],
        bonus_moves=_bonus(path, f"{where}.bonus_moves", t["bonus_moves"]),
        sources=dict(src),
    )


def _generic(
    path: Path, cls: str, g: Any, types: Mapping[str, TerrainType]
) -> GenericRule:
    where = f"generic.{cls}"
    if not isinstance(g, dict):
        raise _fail(path, where, "is not a table")
    _keys(
        path,
        where,
        g,
        ("type", "sparse_type", "sparse_below_share", "river_type", "source"),
        ("type", "source"),
    )
    for k in ("type", "sparse_type", "river_type"):
        if k in g and g[k] not in types:
            raise _fail(
                path,
                f"{where}.{k}",
                f"{g[k]!r} is not a terrain type; give one of {', '.join(types)}",
            )
    share = g.get("sparse_below_share")
    if ("sparse_type" in g) != (share is not None):
        raise _fail(path, where, "give sparse_type and sparse_below_share together")
    if share is not None:
        if cls not in SHARE_CLASSES:
            raise _fail(
                path,
                f"{where}.sparse_below_share",
                f"the map has no share column for {cls!r}; only "
                f"{', '.join(SHARE_CLASSES)} have one",
            )
        if (
            isinstance(share, bool)
            or not isinstance(share, int | float)
            or not 0 < share <= 1
        ):
            raise _fail(
                path, f"{where}.sparse_below_share", f"{share!r} is not in (0, 1]"
            )
    if "river_type" in g and cls != "water":
        raise _fail(path, f"{where}.river_type", "applies to the water class only")
    return GenericRule(
        map_class=cls,
        type=g["type"],
        sparse_type=g.get("sparse_type"),
        sparse_below_share=None if share is None else float(share),
        river_type=g.get("river_type"),
        source=_text(path, f"{where}.source", g["source"]),
    )


def _roads(path: Path, r: Any) -> RoadRule:
    if not isinstance(r, dict):
        raise _fail(path, "roads", "is missing or not a table")
    _keys(
        path,
        "roads",
        r,
        ("classes", "bonus_moves", "source"),
        ("classes", "bonus_moves", "source"),
    )
    cl = r["classes"]
    if not isinstance(cl, list) or any(c not in ROAD_CLASSES for c in cl):
        raise _fail(
            path,
            "roads.classes",
            f"{cl!r} is not a list of map road classes ({', '.join(ROAD_CLASSES)})",
        )
    return RoadRule(
        classes=tuple(cl),
        bonus_moves=_bonus(path, "roads.bonus_moves", r["bonus_moves"]),
        source=_text(path, "roads.source", r["source"]),
    )


def _read(path: Path) -> dict[str, Any]:
    try:
        with path.open("rb") as fh:
            return tomllib.load(fh)
    except FileNotFoundError:
        raise TerrainDataError(f"{path}: file not found") from None
    except tomllib.TOMLDecodeError as exc:
        raise TerrainDataError(f"{path}: not valid TOML: {exc}") from None


def _check(path: Path, raw: dict[str, Any]) -> TerrainChart:
    _keys(
        path,
        "(top level)",
        raw,
        ("types", "roads", "generic"),
        ("types", "roads", "generic"),
    )
    if not isinstance(raw["types"], dict) or not raw["types"]:
        raise _fail(path, "types", "needs at least one [types.<id>] table")
    types = {tid: _type(path, tid, t) for tid, t in raw["types"].items()}
    gen = raw["generic"]
    if not isinstance(gen, dict):
        raise _fail(path, "generic", "is not a table")
    for cls in gen:
        if cls not in TERRAIN_CLASSES:
            raise _fail(
                path,
                f"generic.{cls}",
                f"unknown map class; give {', '.join(TERRAIN_CLASSES)}",
            )
    for cls in TERRAIN_CLASSES:
        if cls not in gen:
            raise _fail(path, f"generic.{cls}", "missing: every map class needs a type")
    generic = {cls: _generic(path, cls, g, types) for cls, g in gen.items()}
    return TerrainChart(
        path=path, types=types, generic=generic, roads=_roads(path, raw["roads"])
    )


@lru_cache(maxsize=8)
def _load(path: Path) -> tuple[TerrainChart, dict[str, Any]]:
    raw = _read(path)
    return _check(path, raw), raw


def load_chart(path: str | Path | None = None) -> TerrainChart:
    """The checked terrain chart (default: the shipped ``data/terrain.toml``).

    Raises:
        TerrainDataError: (a ``ValueError``) naming the file, table and field.
    """
    return _load(Path(path) if path is not None else DATA_FILE)[0]


def terrain_chart(path: str | Path | None = None) -> dict[str, Any]:
    """The checked terrain file as plain TOML data (``["types"]["heavy_woods"]["dm"]``).

    Examples:
        >>> terrain_chart()["types"]["stone_building"]["wheeled_extra_ap"]
        3
    """
    return copy.deepcopy(_load(Path(path) if path is not None else DATA_FILE)[1])
