"""Flames of War v3 team profiles (``data/teams.toml``) and their loader.

A team profile is the shape of research/fow.md §6.1 (the v3 BattleScribe
profile types): what kind of team it is, how it moves, its armour or its save,
its weapons and its special rules.  Ratings (skill, motivation) belong to a
platoon and come from the scenario, not from here (seed 004 p. 20: a platoon
with mixed ratings uses the worst).

Every value carries a source (:meth:`TeamType.source_of`,
:attr:`Weapon.sources`): research/fow.md with its tag, seed 004, or
``"estimate: <why>"``.  A bad file raises :class:`FowDataError` (a
``ValueError``) naming the file, the team and the field.

Examples:
    >>> teams = load_teams()
    >>> pak = teams["de_pak40"]
    >>> pak.kind, pak.mobility, pak.save, pak.armour
    ('gun', 'medium_gun', 5, None)
    >>> gun = pak.weapons[0]
    >>> gun.range_in, gun.rof, gun.anti_tank, gun.firepower
    (32.0, 2, 12, 3)
    >>> teams["us_m4a3_sherman"].armour
    Armour(front=6, side=4, top=1)
    >>> teams["us_m4a3_sherman"].source_of("armour.side")
    'research/fow.md §6.2 (S13 M4/M4A1/M4A3 Sherman row, [B/C])'
    >>> source_problem("estimate")
    "an estimate needs a rationale: 'estimate: <why>'"
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any, NoReturn

__all__ = [
    "DEFAULT_TEAMS_TOML",
    "KINDS",
    "MOBILITIES",
    "NATIONS",
    "SPECIAL_RULES",
    "SPEED_CLASSES",
    "VEHICLE_MOBILITIES",
    "AirWeapon",
    "Aircraft",
    "Armour",
    "FowDataError",
    "TeamType",
    "Weapon",
    "load_aircraft",
    "load_teams",
    "source_problem",
]

DEFAULT_TEAMS_TOML = Path(__file__).parent / "data" / "teams.toml"

NATIONS = ("us", "german")
#: Team kinds (research/fow.md §6.1: Infantry, Gun, Tank, Transport Team).
KINDS = ("infantry", "gun", "tank", "transport")
#: How a team moves (research/fow.md §2.2 movement-table rows, §6.1).
MOBILITIES = (
    "foot",
    "man_packed",
    "light_gun",
    "medium_gun",
    "heavy_gun",
    "immobile",
    "fully_tracked",
    "half_tracked",
    "wheeled",
    "jeep",
)
VEHICLE_MOBILITIES = ("fully_tracked", "half_tracked", "wheeled", "jeep")
#: Tank speed subtypes (research/fow.md §2.2: S2 rows, S10 special rules).
SPEED_CLASSES = ("standard", "light", "slow", "very_slow", "fast")
#: The special rules a team may list (a closed list, so a typo fails on load).
SPECIAL_RULES = (
    "command",
    "co_ax_mg",
    "hull_mg",
    "aa_mg",
    "passenger_fired_mg",
    "smoke",
    "stabiliser",
    "protected_ammo",
    "schurzen",
    "wide_tracks",
    "overloaded",
    "unreliable",
    "gun_shield",
    "anti_aircraft",
    "turntable",
    "automatic_rifles",
    "panzerfaust",
    "transport",
)
#: What a source may cite (besides ``"estimate: <why>"``).
SOURCE_PREFIXES = ("research/fow.md", "seed 004", "RULES_NOTES.md")

_TEAM_FIELDS = (
    "name",
    "nation",
    "kind",
    "mobility",
    "speed_class",
    "armour",
    "save",
    "tank_assault",
    "special",
    "eye_height_m",
    "base_radius_m",
)
_WEAPON_FIELDS = (
    "name",
    "range_in",
    "rof",
    "rof_moving",
    "anti_tank",
    "firepower",
    "bombardment",
    "notes",
)


class FowDataError(ValueError):
    """A fow-v3 data file is missing, unreadable or holds a bad value."""


def source_problem(text: object) -> str | None:
    """Why ``text`` is not a usable source (``None`` when it is).

    >>> source_problem("research/fow.md §3.4 (S12, [A])") is None
    True
    >>> source_problem("my memory")  # doctest: +ELLIPSIS
    "source 'my memory' must start with one of [...] or 'estimate: <why>'"
    """
    if not isinstance(text, str) or not text.strip():
        return "a source must be a non-empty string"
    if text.startswith("estimate"):
        why = text.removeprefix("estimate").lstrip()
        if not why.startswith(":") or len(why[1:].strip()) < 10:
            return "an estimate needs a rationale: 'estimate: <why>'"
        return None
    if not text.startswith(SOURCE_PREFIXES):
        return (
            f"source {text!r} must start with one of {list(SOURCE_PREFIXES)} "
            "or 'estimate: <why>'"
        )
    return None


@dataclass(frozen=True)
class Armour:
    """Armour ratings facing the shooter (research/fow.md §3.5)."""

    front: int
    side: int
    top: int


@dataclass(frozen=True)
class Weapon:
    """One weapon line of a profile (research/fow.md §3.1, §3.9, §6.1).

    Attributes:
        range_in: range in inches.
        rof: rate of fire when the team did not move; ``None`` for a
            bombardment line (ROF "-").
        rof_moving: rate of fire after moving (1, or the full ROF for SMGs,
            assault rifles, flamethrowers and vehicle MGs, §3.1).
        anti_tank: the AT rating.
        firepower: the Firepower score (3 for 3+, 6 for 6).
        bombardment: a bombardment line (artillery template, §3.8).
        notes: free-text notes of the profile.
        sources: field -> source for every field.
    """

    name: str
    range_in: float
    rof: int | None
    rof_moving: int | None
    anti_tank: int
    firepower: int
    bombardment: bool = False
    notes: tuple[str, ...] = ()
    sources: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))


@dataclass(frozen=True)
class TeamType:
    """One team profile of fow-v3 (see ``data/teams.toml`` for the fields)."""

    id: str
    name: str
    nation: str
    kind: str
    mobility: str
    speed_class: str | None
    armour: Armour | None
    save: int | None
    weapons: tuple[Weapon, ...]
    special: tuple[str, ...]
    eye_height_m: float
    base_radius_m: float
    tank_assault: int | None = None
    sources: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))

    @property
    def is_vehicle(self) -> bool:
        """Tanks and transports (vehicle mobility): the teams that bog.

        >>> load_teams()["us_jeep"].is_vehicle, load_teams()["de_pak40"].is_vehicle
        (True, False)
        """
        return self.mobility in VEHICLE_MOBILITIES

    def has(self, rule: str) -> bool:
        """Whether the team has special rule ``rule`` (one of SPECIAL_RULES)."""
        if rule not in SPECIAL_RULES:
            raise ValueError(f"unknown special rule {rule!r}")
        return rule in self.special

    def source_of(self, field: str) -> str:
        """Where a value comes from (``"armour.front"`` for one armour face)."""
        try:
            return self.sources[field]
        except KeyError:
            raise KeyError(f"team {self.id!r} has no field {field!r}") from None


class _Entry:
    """Typed reads from one table of the file, failing with file/team/field."""

    def __init__(
        self, path: Path, team: str, raw: object, where: str = "", what: str = "team"
    ) -> None:
        self.path, self.team, self.where, self.what = path, team, where, what
        if not isinstance(raw, Mapping):
            self.fail(None, f"must be a table, not {type(raw).__name__}")
        self.raw: Mapping[str, Any] = raw

    def fail(self, fld: str | None, msg: str) -> NoReturn:
        name = None if fld is None else self.where + fld
        at = f"{self.what} {self.team!r}" + (
            "" if name is None else f", field {name!r}"
        )
        raise FowDataError(f"{self.path}: {at}: {msg}")

    def only(self, allowed: Iterable[str]) -> None:
        known = set(allowed)
        for key in self.raw:
            if key not in known:
                self.fail(key, f"unknown field; known fields: {sorted(known)}")

    def string(self, fld: str) -> str:
        v = self.raw.get(fld)
        if not isinstance(v, str) or not v.strip():
            self.fail(fld, "is required" if v is None else f"{v!r} is not a string")
        return v

    def choice(self, fld: str, choices: tuple[str, ...]) -> str:
        v = self.raw.get(fld)
        if v not in choices:
            self.fail(fld, f"{v!r} must be one of {list(choices)}")
        return str(v)

    def integer(self, fld: str, lo: int, hi: int, value: object = None) -> int:
        v = self.raw.get(fld) if value is None else value
        if v is None:
            self.fail(fld, "is required")
        if isinstance(v, bool) or not isinstance(v, int):
            self.fail(fld, f"{v!r} is not a whole number")
        if not lo <= v <= hi:
            self.fail(fld, f"{v} is out of range {lo}..{hi}")
        return v

    def number(self, fld: str, lo: float, hi: float) -> float:
        v = self.raw.get(fld)
        if v is None:
            self.fail(fld, "is required")
        if isinstance(v, bool) or not isinstance(v, int | float):
            self.fail(fld, f"{v!r} is not a number")
        if not lo <= v <= hi:
            self.fail(fld, f"{v} is out of range {lo}..{hi}")
        return float(v)

    def strings(
        self, fld: str, choices: tuple[str, ...] | None = None
    ) -> tuple[str, ...]:
        v = self.raw.get(fld, [])
        if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
            self.fail(fld, f"{v!r} must be a list of strings")
        for x in v:
            if choices is not None and x not in choices:
                self.fail(fld, f"{x!r} must be one of {list(choices)}")
        return tuple(v)

    def sources(self, present: Iterable[str]) -> dict[str, str]:
        """``field -> source``: the ``sources`` table over the entry's ``source``."""
        default = self.raw.get("source")
        if default is not None and (why := source_problem(default)) is not None:
            self.fail("source", why)
        own = self.raw.get("sources", {})
        if not isinstance(own, Mapping):
            self.fail("sources", "must be a table of field = source")
        present = tuple(present)
        for key, text in own.items():
            if key not in present and not any(f.startswith(f"{key}.") for f in present):
                self.fail("sources", f"names {key!r}, which is not a field given")
            if (why := source_problem(text)) is not None:
                self.fail(f"sources.{key}", why)
        out: dict[str, str] = {}
        for f in present:
            text = own.get(f, own.get(f.split(".")[0], default))
            if text is None:
                self.fail(f, "has no source (give 'source' or 'sources.<field>')")
            out[f] = str(text)
        return out


#: Source of ``rof_moving`` when a weapon line leaves it out (ROF 1 after moving).
ROF_MOVING_SOURCE = (
    "research/fow.md §3.1 (S12 [A-v2/v3]; S6 [A]): a team that moved fires ROF 1"
)


def _weapon(path: Path, team: str, i: int, raw: object) -> Weapon:
    e = _Entry(path, team, raw, where=f"weapons[{i}].")
    e.only({*_WEAPON_FIELDS, "source", "sources"})
    bombardment = e.raw.get("bombardment", False)
    if not isinstance(bombardment, bool):
        e.fail("bombardment", f"{bombardment!r} must be true or false")
    rof: int | None = None
    rof_moving: int | None = None
    if bombardment:
        for f in ("rof", "rof_moving"):
            if f in e.raw:
                e.fail(f, "a bombardment line has no ROF (ROF '-', research §6.1)")
    else:
        rof = e.integer("rof", 1, 12)
        rm = e.raw.get("rof_moving", 1)
        rof_moving = rof if rm == "full" else e.integer("rof_moving", 0, rof, rm)
    values: dict[str, Any] = {
        "name": e.string("name"),
        "range_in": e.number("range_in", 0.5, 200.0),
        "rof": rof,
        "rof_moving": rof_moving,
        "anti_tank": e.integer("anti_tank", 0, 30),
        "firepower": e.integer("firepower", 1, 6),
        "bombardment": bombardment,
        "notes": e.strings("notes"),
    }
    srcs = e.sources(f for f in _WEAPON_FIELDS if f in e.raw)
    if not bombardment and "rof_moving" not in srcs:
        srcs["rof_moving"] = ROF_MOVING_SOURCE
    return Weapon(**values, sources=MappingProxyType(srcs))


def _team(path: Path, tid: str, raw: object) -> TeamType:
    e = _Entry(path, tid, raw)
    e.only({*_TEAM_FIELDS, "weapons", "source", "sources"})
    if not tid.replace("_", "").isalnum() or tid != tid.lower():
        e.fail(None, "team id must be snake_case")
    kind = e.choice("kind", KINDS)
    mobility = e.choice("mobility", MOBILITIES)
    vehicle = mobility in VEHICLE_MOBILITIES
    if kind in ("tank", "transport") and not vehicle:
        e.fail(
            "mobility", f"a {kind} team needs a vehicle mobility {VEHICLE_MOBILITIES}"
        )
    if kind in ("infantry", "gun") and vehicle:
        e.fail("mobility", f"{mobility!r} is a vehicle mobility, not for a {kind} team")
    speed: str | None = None
    if kind == "tank":
        speed = e.choice("speed_class", SPEED_CLASSES)
    elif "speed_class" in e.raw:
        e.fail("speed_class", "only tank teams have a speed class (research §2.2)")
    armour: Armour | None = None
    save: int | None = None
    present = [f for f in _TEAM_FIELDS if f in e.raw]
    if "armour" in e.raw:
        a = _Entry(path, tid, e.raw["armour"], where="armour.")
        a.only({"front", "side", "top"})
        armour = Armour(*(a.integer(f, 0, 20) for f in ("front", "side", "top")))
        if "save" in e.raw:
            e.fail("save", "an armoured team saves with its armour (research §3.5)")
        present = [p for p in present if p != "armour"]
        present += ["armour.front", "armour.side", "armour.top"]
    else:
        if kind == "tank" and "save" not in e.raw:
            e.fail("armour", "a tank team needs armour or a save (unarmoured)")
        save = e.integer("save", 2, 6)
    ta = e.raw.get("tank_assault")
    tank_assault = None if ta is None else e.integer("tank_assault", 1, 20)
    wraw = e.raw.get("weapons", [])
    if not isinstance(wraw, list):
        e.fail("weapons", "must be a list of [[teams.<id>.weapons]] tables")
    weapons = tuple(_weapon(path, tid, i, w) for i, w in enumerate(wraw))
    return TeamType(
        id=tid,
        name=e.string("name"),
        nation=e.choice("nation", NATIONS),
        kind=kind,
        mobility=mobility,
        speed_class=speed,
        armour=armour,
        save=save,
        weapons=weapons,
        special=e.strings("special", SPECIAL_RULES),
        eye_height_m=e.number("eye_height_m", 0.3, 6.0),
        base_radius_m=e.number("base_radius_m", 1.0, 100.0),
        tank_assault=tank_assault,
        sources=MappingProxyType(e.sources(present)),
    )


@dataclass(frozen=True)
class AirWeapon:
    """One weapon of an aircraft profile (research/fow.md §6.1: To Hit, AT,
    FP).  ``dice``: the dice it rolls in one attack (ASSUMPTION: the profile
    shape read has no such number; the project's estimate, :mod:`.air`)."""

    name: str
    dice: int
    to_hit: int
    anti_tank: int
    firepower: int
    sources: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))


@dataclass(frozen=True)
class Aircraft:
    """An aircraft profile of the ``[aircraft.<id>]`` tables: up to two
    weapons (research/fow.md §6.1)."""

    id: str
    name: str
    nation: str
    weapons: tuple[AirWeapon, ...]
    sources: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))


_AIR_FIELDS = ("name", "nation")
_AIR_WEAPON_FIELDS = ("name", "dice", "to_hit", "anti_tank", "firepower")


def _aircraft(path: Path, aid: str, raw: object) -> Aircraft:
    e = _Entry(path, aid, raw, what="aircraft")
    e.only({*_AIR_FIELDS, "weapons", "source", "sources"})
    if not aid.replace("_", "").isalnum() or aid != aid.lower():
        e.fail(None, "aircraft id must be snake_case")
    wraw = e.raw.get("weapons", [])
    if not isinstance(wraw, list) or not 1 <= len(wraw) <= 2:
        e.fail("weapons", "an aircraft has one or two weapons (research §6.1)")
    weapons = []
    for i, w in enumerate(wraw):
        we = _Entry(path, aid, w, where=f"weapons[{i}].", what="aircraft")
        we.only({*_AIR_WEAPON_FIELDS, "source", "sources"})
        weapons.append(
            AirWeapon(
                name=we.string("name"),
                dice=we.integer("dice", 1, 12),
                to_hit=we.integer("to_hit", 2, 6),
                anti_tank=we.integer("anti_tank", 0, 30),
                firepower=we.integer("firepower", 1, 6),
                sources=MappingProxyType(we.sources(_AIR_WEAPON_FIELDS)),
            )
        )
    return Aircraft(
        id=aid,
        name=e.string("name"),
        nation=e.choice("nation", NATIONS),
        weapons=tuple(weapons),
        sources=MappingProxyType(e.sources(_AIR_FIELDS)),
    )


def _document(p: Path) -> dict[str, Any]:
    try:
        with p.open("rb") as f:
            doc = tomllib.load(f)
    except OSError as exc:
        raise FowDataError(
            f"{p}: cannot read the file ({exc.strerror or exc})"
        ) from exc
    except tomllib.TOMLDecodeError as exc:
        raise FowDataError(f"{p}: not valid TOML ({exc})") from exc
    unknown = set(doc) - {"teams", "aircraft"}
    if unknown:
        raise FowDataError(f"{p}: unknown top-level tables {sorted(unknown)}")
    return doc


def load_aircraft(path: Path | str = DEFAULT_TEAMS_TOML) -> dict[str, Aircraft]:
    """The aircraft profiles (``[aircraft.<id>]``) of a data file, checked.

    >>> p47 = load_aircraft()["us_p47_thunderbolt"]
    >>> [(w.name, w.to_hit, w.anti_tank, w.firepower) for w in p47.weapons]
    [('5-inch HVAR rockets', 4, 6, 3), ('.50 cal MGs', 3, 5, 5)]
    """
    p = Path(path)
    raw = _document(p).get("aircraft", {})
    if not isinstance(raw, Mapping):
        raise FowDataError(f"{p}: aircraft must be [aircraft.<id>] tables")
    return {aid: _aircraft(p, aid, r) for aid, r in raw.items()}


def load_teams(path: Path | str = DEFAULT_TEAMS_TOML) -> dict[str, TeamType]:
    """Read and check a teams file (default: the packaged ``data/teams.toml``).

    >>> sorted(load_teams())[:3]
    ['de_command_smg_team', 'de_flak38', 'de_mg42_hmg']
    """
    p = Path(path)
    doc = _document(p)
    raw = doc.get("teams")
    if not isinstance(raw, Mapping) or not raw:
        raise FowDataError(f"{p}: no [teams.<id>] tables")
    return {tid: _team(p, tid, r) for tid, r in raw.items()}
