"""World at War (classic) data: unit counters and the terrain effects chart.

Values live in TOML files (``data/units.toml``, ``data/terrain.toml``); this module
only describes their shape and checks them.  Each value carries a source: a seed
rulebook section (``"seed 000 ..."``/``"seed 001 ..."``), an outside reference
(``"found: ..."``) or ``"estimate"``, and every table with estimates carries a
one-line ``rationale``.  A bad file raises :class:`DataError` naming the file, the
entry and the field.

Examples:
    >>> t64 = get_unit("t64")
    >>> t64.full.armor, t64.full.save, t64.target_type()
    (2, 5, <TargetType.ARMORED: 'armored'>)
    >>> t64.source_of("full.armor")
    'seed 001 §6.1 (M48 vs T-64 example): armor 2, save 5'
    >>> load_terrain().terrain["woods"].defence_dice
    1
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Mapping
from enum import StrEnum
from functools import cache
from pathlib import Path
from types import MappingProxyType
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

__all__ = [
    "DATA_DIR",
    "ROAD_CLASSES",
    "TERRAIN_CLASSES",
    "WATERWAY_CLASSES",
    "AttackKind",
    "CrossingType",
    "DataError",
    "Mobility",
    "MoveCost",
    "Nation",
    "RoadType",
    "TargetType",
    "TerrainChart",
    "TerrainType",
    "UnitClass",
    "UnitSide",
    "UnitType",
    "Weapon",
    "get_unit",
    "load_terrain",
    "load_units",
    "terrain_chart",
    "unit_catalog",
]

DATA_DIR = Path(__file__).parent / "data"

# Generic map vocabulary the chart must cover (mirrors wargame.geo.terrain; the
# rules layer does not import the map layer, a test checks the two agree).
TERRAIN_CLASSES = ("clear", "park", "orchard", "wetland", "woods", "town", "water")
ROAD_CLASSES = ("motorway", "primary", "secondary", "tertiary", "minor", "track")
WATERWAY_CLASSES = ("river", "canal", "stream")

_SOURCE_RE = re.compile(r"^(estimate|seed 00[01] \S.*|found: \S.*)$")


class DataError(ValueError):
    """A WaW data file is missing, unreadable or has a bad value."""


class Nation(StrEnum):
    """Counter colour / army (WaW 1.3.5 colours: US green, Soviet red, ...)."""

    US = "us"
    USSR = "ussr"
    FRG = "frg"
    UK = "uk"


class UnitClass(StrEnum):
    """What a counter is (its role); the target type is derived from armor."""

    ARMORED = "armored"
    LIGHT_ARMORED = "light_armored"
    UNARMORED_VEHICLE = "unarmored_vehicle"
    INFANTRY = "infantry"
    HQ = "hq"
    MORTAR = "mortar"
    RECON = "recon"
    AA = "aa"
    SUPPORT_WEAPON = "support_weapon"
    HELICOPTER = "helicopter"
    BRIDGE_LAYER = "bridge_layer"


class Mobility(StrEnum):
    """Movement class used by the terrain effects chart."""

    TRACKED = "tracked"
    WHEELED = "wheeled"
    FOOT = "foot"
    AIR = "air"
    NONE = "none"  # support weapons move with their platoon


class TargetType(StrEnum):
    """How a unit defends against fire (WaW 6.1, 1.3.4.2)."""

    ARMORED = "armored"
    LIGHT_ARMORED = "light_armored"
    UNARMORED_VEHICLE = "unarmored_vehicle"
    UNARMORED = "unarmored"  # infantry, mortars (WaW 6.1)
    AIRCRAFT = "aircraft"


class AttackKind(StrEnum):
    """Which dice an attack uses: a counter's AP, HE or AA firepower, or assault."""

    AP = "ap"
    HE = "he"
    AA = "aa"
    ASSAULT = "assault"


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


def _resolve(obj: Any, path: str) -> Any:
    for part in path.split("."):
        obj = obj.get(part) if isinstance(obj, Mapping) else getattr(obj, part, None)
        if obj is None:
            return None
    return obj


class _Sourced(_Frozen):
    """Shared source bookkeeping: default source, rationale, per-value sources."""

    source: str = Field(description='"estimate", "seed 00N §..." or "found: ..."')
    rationale: str | None = None
    value_sources: dict[str, str] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _check_sources(self) -> _Sourced:
        for where, text in [("source", self.source), *self.value_sources.items()]:
            if not _SOURCE_RE.match(text):
                raise ValueError(
                    f"{where}: source {text!r} must be 'estimate', "
                    "'seed 000 ...', 'seed 001 ...' or 'found: ...'"
                )
        for path, text in self.value_sources.items():
            if text == "estimate":
                raise ValueError(
                    f"value_sources.{path}: list only non-estimate values here; "
                    "estimates use the table's source and rationale"
                )
            if _resolve(self, path) is None:
                raise ValueError(f"value_sources names {path!r}, which has no value")
        if self.source == "estimate" and not (self.rationale or "").strip():
            raise ValueError("source is 'estimate' but no rationale is given")
        return self

    def source_of(self, path: str) -> str:
        """Source of one value, e.g. ``"full.ap.to_hit"`` or ``"defence_dice"``."""
        if _resolve(self, path) is None:
            raise KeyError(f"{path!r} has no value")
        return self.value_sources.get(path, self.source)


class Weapon(_Frozen):
    """One firepower block of a counter (AP red, HE yellow, AA blue)."""

    fp: int = Field(ge=0, le=20, description="firepower: number of d6 rolled")
    to_hit: int = Field(ge=1, le=6, description="each die >= to_hit is a hit")
    range: int = Field(ge=0, le=99, description="printed range in hexes")
    range_underlined: bool = Field(False, description="hard maximum, WaW 6.1.1")
    fp_underlined: bool = Field(False, description="may fire on the move")

    @property
    def reach(self) -> int:
        """Longest rule range (WaW 6.1.1: twice the printed range unless underlined).

        >>> Weapon(fp=2, to_hit=4, range=6).reach, Weapon(fp=2, to_hit=4, range=6,
        ...                                                 range_underlined=True).reach
        (12, 6)
        """
        return self.range if self.range_underlined else 2 * self.range


class UnitSide(_Frozen):
    """The values printed on one side (full or reduced) of a counter."""

    ap: Weapon | None = None
    he: Weapon | None = None
    aa: Weapon | None = None
    armor: int | None = Field(None, ge=1, le=6, description="armor (save) dice")
    save: int | None = Field(None, ge=2, le=6, description="each die >= save saves")
    movement: int = Field(ge=0, le=60)
    assault: int = Field(0, ge=0, le=20)
    leadership: int | None = Field(None, ge=0, le=6)
    morale: int | None = Field(None, ge=2, le=12)
    command_range: int | None = Field(None, ge=0, le=40)

    @model_validator(mode="after")
    def _armor_and_save(self) -> UnitSide:
        if (self.armor is None) != (self.save is None):
            raise ValueError("armor and save must be given together (or neither)")
        return self

    def weapon(self, kind: AttackKind | str) -> Weapon | None:
        """The AP, HE or AA weapon of this side (None if the counter has none)."""
        kind = AttackKind(kind)
        if kind is AttackKind.ASSAULT:
            raise ValueError("assault uses the assault dice, not a weapon")
        return {"ap": self.ap, "he": self.he, "aa": self.aa}[kind.value]

    @property
    def light_armored(self) -> bool:
        """WaW 1.3.4.2: armor 1 with save 5-6 is light armor."""
        return self.armor == 1 and self.save is not None and self.save >= 5


class UnitType(_Sourced):
    """A counter type: both sides, class, nation and the source of each value."""

    id: str = Field(pattern=r"^[a-z0-9_]+$")
    name: str
    nation: Nation
    unit_class: UnitClass
    mobility: Mobility
    carrier: bool = Field(False, description="movement printed in a circle")
    one_sided: bool = Field(False, description="single-sided counter (AA, SW, ...)")
    attaches_to: Literal["infantry", "tank"] | None = None
    platforms: tuple[str, ...] = Field(
        (), description="tank SWs: the tank types that can fire it (WaW 1.3.5)"
    )
    full: UnitSide
    reduced: UnitSide | None = None
    high: UnitSide | None = Field(
        None, description="helicopters: the high-flying side (WaW 9.0 modes)"
    )

    @model_validator(mode="after")
    def _consistent(self) -> UnitType:
        c, full = self.unit_class, self.full
        if self.one_sided and self.reduced is not None:
            raise ValueError("one_sided unit must not have a reduced side")
        if not self.one_sided and self.reduced is None:
            raise ValueError("two-sided unit needs a [reduced] side")
        sides = [full] if self.reduced is None else [full, self.reduced]
        for side in sides:
            if c is UnitClass.ARMORED and (side.armor is None or side.light_armored):
                raise ValueError("armored unit needs armor/save that is not light")
            if c in (UnitClass.LIGHT_ARMORED, UnitClass.AA) and not side.light_armored:
                # WaW 1.3.4.5: all AA vehicles are light armored
                raise ValueError(f"{c} unit needs armor 1 and save 5-6")
            if (
                c in (UnitClass.INFANTRY, UnitClass.UNARMORED_VEHICLE, UnitClass.MORTAR)
                and side.armor is not None
            ):
                # WaW 001 §6.1: infantry and mortars are unarmored targets
                raise ValueError(f"{c} unit must not have armor")
            if c is UnitClass.HQ and (side.leadership is None or side.morale is None):
                raise ValueError("HQ needs leadership and morale on each side")
        if c is UnitClass.INFANTRY and self.mobility is not Mobility.FOOT:
            raise ValueError("infantry moves on foot")
        if c is UnitClass.UNARMORED_VEHICLE and self.mobility not in (
            Mobility.TRACKED,
            Mobility.WHEELED,
        ):
            raise ValueError("unarmored vehicle must be tracked or wheeled")
        if c is UnitClass.HELICOPTER and (
            self.mobility is not Mobility.AIR or not self.one_sided
        ):
            raise ValueError("helicopter must have mobility 'air' and be one_sided")
        # WaW 9.0 (seed 000 "Helicopters"): two modes on the two sides of the
        # counter, each with its own firepower; the armor is the airframe's.
        if (c is UnitClass.HELICOPTER) != (self.high is not None):
            raise ValueError("helicopters (and only they) need a [high] mode side")
        if self.high is not None and (self.high.armor, self.high.save) != (
            full.armor,
            full.save,
        ):
            raise ValueError("a helicopter's two modes have the same armor and save")
        if self.platforms and self.attaches_to != "tank":
            raise ValueError("platforms is for tank support weapons (ATGMs)")
        if self.attaches_to == "tank" and not self.platforms:
            raise ValueError("a tank support weapon lists the tank types (platforms)")
        if c is UnitClass.BRIDGE_LAYER and (
            self.mobility is not Mobility.TRACKED or not self.one_sided
        ):
            # WaW bridge units (seed 000): one hit disrupts, a second removes it.
            raise ValueError("a bridge layer is tracked and one_sided")
        is_sw = c is UnitClass.SUPPORT_WEAPON
        if is_sw != (self.attaches_to is not None):
            raise ValueError("attaches_to is for support weapons, and required there")
        if is_sw and (self.mobility is not Mobility.NONE or not self.one_sided):
            raise ValueError("support weapon must have mobility 'none', one_sided")
        if self.carrier and self.mobility not in (Mobility.TRACKED, Mobility.WHEELED):
            raise ValueError("only vehicles can be carriers")
        return self

    def side(self, reduced: bool = False, mode: str | None = None) -> UnitSide:
        """The full or reduced side (a one-sided counter has only ``full``).

        For helicopters ``mode="high"`` gives the high-flying side (WaW 9.0);
        any other mode gives ``full``, the low (nap-of-the-earth) side.
        """
        if mode == "high" and self.high is not None:
            return self.high
        if reduced and self.reduced is not None:
            return self.reduced
        return self.full

    def target_type(self, reduced: bool = False) -> TargetType:
        """How this unit defends (WaW 6.1 and 1.3.4.2), derived from its values."""
        side = self.side(reduced)
        if self.unit_class is UnitClass.HELICOPTER:
            return TargetType.AIRCRAFT
        if self.unit_class is UnitClass.MORTAR:
            # WaW 001 §6.1: the unarmored targets of Blood and Bridges are "mortars
            # and infantry" - self-propelled mortars (FV432M, PzMSR) included.
            return TargetType.UNARMORED
        if side.light_armored:
            return TargetType.LIGHT_ARMORED
        if side.armor is not None:
            return TargetType.ARMORED
        if self.unit_class is UnitClass.UNARMORED_VEHICLE:
            return TargetType.UNARMORED_VEHICLE
        return TargetType.UNARMORED

    @property
    def is_vehicle(self) -> bool:
        """Tracked or wheeled (used to tell assault from overrun)."""
        return self.mobility in (Mobility.TRACKED, Mobility.WHEELED)


class MoveCost(_Frozen):
    """Movement points per movement class; ``inf`` means impassable."""

    tracked: float = Field(ge=0)
    wheeled: float = Field(ge=0)
    foot: float = Field(ge=0)


class TerrainType(_Sourced):
    """One row of the terrain effects chart for a generic map terrain class."""

    id: str
    name: str
    defence_dice: int = Field(ge=0, le=6, description="terrain (save) dice, WaW 6.1")
    blocks_los: bool = Field(description="blocks LOS as an intervening hex")
    move_cost: MoveCost


class RoadType(_Sourced):
    """Cost to move along a road from a hex with the same road (ignores terrain)."""

    id: str
    name: str
    move_cost: MoveCost


class CrossingType(_Sourced):
    """Cost of crossing a waterway hexside, a bridge or an assault bridge.

    ``cost`` is added to the cost of the hex entered, or replaces it when
    ``adds_to_terrain`` is false; ``cost_disrupted`` applies instead when the
    crossing (e.g. an MTU-55 bridge) is disrupted.
    """

    id: str
    name: str
    cost: MoveCost
    adds_to_terrain: bool = True
    cost_disrupted: MoveCost | None = None


class TerrainChart(_Frozen):
    """The whole terrain effects chart: terrain classes, roads and crossings."""

    terrain: dict[str, TerrainType]
    road: dict[str, RoadType]
    crossing: dict[str, CrossingType]

    def defence_dice(self, terrain: str) -> int:
        """Terrain dice a unit in this terrain class rolls (before any cap)."""
        row: TerrainType = self._get(self.terrain, "terrain", terrain)
        return row.defence_dice

    def movement_cost(
        self,
        terrain: str,
        mobility: Mobility | str,
        *,
        road: str | None = None,
        crossing: str | None = None,
        crossing_disrupted: bool = False,
    ) -> float:
        """MP to enter a hex (``inf`` = impassable).

        ``road`` is the road class followed from the previous hex (road movement
        replaces the terrain cost); ``crossing`` a waterway/bridge hexside crossed
        (its cost is added, or replaces the hex cost, see :class:`CrossingType`).

        Examples:
            >>> chart = load_terrain()
            >>> chart.movement_cost("woods", "tracked")
            2.0
            >>> chart.movement_cost("woods", "wheeled", road="primary")
            0.5
        """
        mob = Mobility(mobility)
        if mob is Mobility.AIR:
            return 1.0  # ASSUMPTION: helicopters ignore terrain (WaW 9.0 is a GAP)
        if mob is Mobility.NONE:
            raise ValueError("support weapons move with their platoon")
        if road is not None:
            cost = getattr(self._get(self.road, "road", road).move_cost, mob.value)
        else:
            row = self._get(self.terrain, "terrain", terrain)
            cost = getattr(row.move_cost, mob.value)
        if crossing is not None:
            row = self._get(self.crossing, "crossing", crossing)
            table = row.cost
            if crossing_disrupted and row.cost_disrupted is not None:
                table = row.cost_disrupted
            extra = getattr(table, mob.value)
            cost = cost + extra if row.adds_to_terrain else extra
        return float(cost)

    @staticmethod
    def _get(table: Mapping[str, Any], what: str, key: str) -> Any:
        try:
            return table[key]
        except KeyError:
            raise KeyError(
                f"unknown {what} class {key!r}; known: {', '.join(table)}"
            ) from None


# ---------------------------------------------------------------------------
# loading


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        with path.open("rb") as fh:
            return tomllib.load(fh)
    except FileNotFoundError:
        raise DataError(f"{path}: file not found") from None
    except tomllib.TOMLDecodeError as exc:
        raise DataError(f"{path}: not valid TOML: {exc}") from None


def _format(path: Path, what: str, key: str, exc: ValidationError) -> str:
    parts = []
    for err in exc.errors():
        loc = ".".join(str(p) for p in err["loc"])
        msg = err["msg"].removeprefix("Value error, ")
        shown = err.get("input")
        if loc and not isinstance(shown, dict):
            parts.append(f"{loc} = {shown!r}: {msg}")
        elif loc:
            parts.append(f"{loc}: {msg}")
        else:
            parts.append(msg)
    return f"{path}: {what} {key!r}: " + "; ".join(parts)


def _table(raw: dict[str, Any], path: Path, name: str) -> dict[str, Any]:
    table = raw.get(name)
    if not isinstance(table, dict) or not table:
        raise DataError(f"{path}: needs a non-empty [{name}.<id>] table")
    return table


def _build(path: Path, what: str, model: type[BaseModel], table: dict[str, Any]) -> Any:
    out = {}
    for key, body in table.items():
        if not isinstance(body, dict):
            raise DataError(f"{path}: {what} {key!r}: expected a table")
        if "id" in body:
            raise DataError(f"{path}: {what} {key!r}: 'id' comes from the table key")
        try:
            out[key] = model.model_validate({"id": key, **body})
        except ValidationError as exc:
            raise DataError(_format(path, what, key, exc)) from None
    return out


def load_units(path: str | Path | None = None) -> dict[str, UnitType]:
    """Read and validate a units file (default: the shipped ``units.toml``).

    Args:
        path: a TOML file with ``[units.<id>]`` tables.

    Returns:
        Unit types keyed by id.

    Raises:
        DataError: naming the file, the unit and the field at fault.

    Examples:
        >>> load_units()["t72"].full.ap.fp
        4
    """
    p = Path(path) if path is not None else DATA_DIR / "units.toml"
    raw = _read_toml(p)
    units: dict[str, UnitType] = _build(p, "unit", UnitType, _table(raw, p, "units"))
    return units


def load_terrain(path: str | Path | None = None) -> TerrainChart:
    """Read and validate a terrain effects chart (default: ``terrain.toml``).

    The chart must cover every generic terrain, road and waterway class of the map.

    Raises:
        DataError: naming the file, the row and the field at fault.

    Examples:
        >>> load_terrain().terrain["town"].blocks_los
        True
    """
    p = Path(path) if path is not None else DATA_DIR / "terrain.toml"
    raw = _read_toml(p)
    chart = TerrainChart(
        terrain=_build(p, "terrain", TerrainType, _table(raw, p, "terrain")),
        road=_build(p, "road", RoadType, _table(raw, p, "road")),
        crossing=_build(p, "crossing", CrossingType, _table(raw, p, "crossing")),
    )
    checks: list[tuple[str, Mapping[str, Any], tuple[str, ...]]] = [
        ("terrain", chart.terrain, TERRAIN_CLASSES),
        ("road", chart.road, ROAD_CLASSES),
        ("crossing", chart.crossing, WATERWAY_CLASSES),
    ]
    for name, have, need in checks:
        missing = [k for k in need if k not in have]
        if missing:
            raise DataError(
                f"{p}: [{name}] lacks {', '.join(missing)} (the map produces them)"
            )
    return chart


@cache
def unit_catalog() -> Mapping[str, UnitType]:
    """The shipped unit types (loaded once, read-only)."""
    return MappingProxyType(load_units())


@cache
def terrain_chart() -> TerrainChart:
    """The shipped terrain effects chart (loaded once)."""
    return load_terrain()


def get_unit(unit: str | UnitType) -> UnitType:
    """Look a unit type up by id in the shipped catalog (a UnitType passes through).

    Examples:
        >>> get_unit("chieftain").full.ap.to_hit
        3
    """
    if isinstance(unit, UnitType):
        return unit
    cat = unit_catalog()
    try:
        return cat[unit]
    except KeyError:
        known = ", ".join(cat)
        raise KeyError(f"unknown WaW unit type {unit!r}; known: {known}") from None
