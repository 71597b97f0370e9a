"""Conflict of Heroes 2e unit counters (``data/units.toml``).

Every Awakening the Bear 2nd-edition counter of research/coh.md §3.2, German and
Soviet, plus one estimated sniper per side for seed 003 §10.3.  Each value has a
source (:meth:`UnitType.source_of`); a bad file raises
:class:`~wargame.rules.coh._data.CohDataError` naming the file, unit and field.

Examples:
    >>> rifle = unit_type("de_rifles_41")
    >>> rifle.fire_cost, rifle.fp_red, rifle.dr_flank, rifle.unburdened
    (3, 2, 11, True)
    >>> rifle.source_of("fp_red")
    'research/coh.md §3.1 [A]'
    >>> unit_type("su_t34a_m40").bonus_moves
    ('track', 'track')
    >>> unit_type("su_maxim")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    wargame...UnknownUnitTypeError: ... 'su_maxim' (did you mean 'su_maxim_mmg'?)
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from functools import lru_cache
from pathlib import Path
from types import MappingProxyType
from typing import Any

from ._data import DATA_DIR, Checker, CohDataError, check_defaults, read_toml

__all__ = [
    "KINDS",
    "MOBILITIES",
    "NATIONS",
    "UNITS_TOML",
    "UnitType",
    "UnknownUnitTypeError",
    "load_units",
    "unit_catalog",
    "unit_type",
]

UNITS_TOML = DATA_DIR / "units.toml"
NATIONS = ("german", "soviet")
#: Which hit-marker pile a hit draws from (CoH 2e §7.5: by unit type).
KINDS = ("foot", "vehicle")
#: Move cost colour: red foot, blue tracked, green wheeled (CoH 2e §5.0, §14.0).
MOBILITIES = ("foot", "tracked", "wheeled", "none")
BONUS_SYMBOLS = ("track", "wheel")
_PREFIX = {"german": "de_", "soviet": "su_"}

# Value ranges checked on load.
_COST = (0, 9)
_FP = (-5, 20)
_RANGE = (0, 40)
_DR = (5, 25)


class UnknownUnitTypeError(KeyError):
    """No coh-2e unit type has this id (the message suggests the closest)."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else "unknown coh-2e unit type"


@dataclass(frozen=True)
class UnitType:
    """One counter type of Awakening the Bear 2e (values: see data/units.toml)."""

    id: str
    name: str
    nation: str
    kind: str
    mobility: str
    move_cost: int
    dr_front: int
    dr_flank: int
    counters: int
    fire_cost: int | None = None
    indirect_cost: int | None = None
    fp_red: int | None = None
    fp_blue: int | None = None
    crewed: bool = False
    range: int | None = None
    min_range: int = 0
    armored: bool = False
    armored_flank: bool = False
    open_topped: bool = False
    turret: bool = False
    bonus_moves: tuple[str, ...] = ()
    he: bool = False
    flamethrower: bool = False
    flamethrower_turret: bool = False
    smoke: bool = False
    apc: bool = False
    can_transport: bool = False
    sniper: bool = False
    sources: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))

    @property
    def unburdened(self) -> bool:
        """A foot unit with a red move cost of 2 AP or less (CoH 2e §1.1).

        >>> unit_type("su_maxim_mmg").unburdened, unit_type("de_mortar_8cm").unburdened
        (True, False)
        """
        return self.kind == "foot" and self.mobility == "foot" and self.move_cost <= 2

    @property
    def can_attack(self) -> bool:
        """Whether the counter has a fire cost (wagons never attack, §16.0)."""
        return self.fire_cost is not None

    def fp(self, colour: str) -> int | None:
        """Firepower vs a ``"red"`` or ``"blue"`` DR (None: cannot use it, §7.1).

        >>> unit_type("su_t34a_m40").fp("blue")
        7
        """
        if colour not in ("red", "blue"):
            raise ValueError(f"FP colour must be 'red' or 'blue', not {colour!r}")
        return self.fp_red if colour == "red" else self.fp_blue

    def dr(self, flank: bool) -> int:
        """Front or flank DR (CoH 2e §7.3)."""
        return self.dr_flank if flank else self.dr_front

    def dr_colour(self, flank: bool) -> str:
        """``"blue"`` for an armoured facing, else ``"red"`` (§7.1, §15.0).

        >>> demag = unit_type("de_demag_pak38")
        >>> demag.dr_colour(False), demag.dr_colour(True)
        ('blue', 'red')
        """
        return "blue" if (self.armored_flank if flank else self.armored) else "red"

    def source_of(self, field: str) -> str:
        """Where a value comes from (research notes, rulebook, seed or estimate)."""
        try:
            return self.sources[field]
        except KeyError:
            raise KeyError(f"unit type {self.id!r} has no field {field!r}") from None


#: The fields a unit has (and a source for each).
VALUE_FIELDS = tuple(
    f.name for f in fields(UnitType) if f.name not in ("id", "sources")
)


def _unit(
    path: Path, uid: str, raw: object, default: str, fdefaults: Mapping[str, str]
) -> UnitType:
    c = Checker(path, "unit", uid, raw)
    c.only({*VALUE_FIELDS, "sources"})
    nation = str(c.choice("nation", NATIONS))
    if (
        not uid.startswith(_PREFIX[nation])
        or not uid.replace("_", "").isalnum()
        or uid != uid.lower()
    ):
        c.fail(
            None,
            f"id must be snake_case starting with {_PREFIX[nation]!r} "
            f"(nation {nation})",
        )
    kind = str(c.choice("kind", KINDS))
    armored = c.bool_("armored")
    values: dict[str, Any] = {
        "id": uid,
        "name": c.req_str("name"),
        "nation": nation,
        "kind": kind,
        "mobility": str(c.choice("mobility", MOBILITIES)),
        "move_cost": c.req_int("move_cost", *_COST),
        "dr_front": c.req_int("dr_front", *_DR),
        "dr_flank": c.req_int("dr_flank", *_DR),
        "counters": c.req_int("counters", 1, 20),
        "fire_cost": c.int_("fire_cost", *_COST),
        "indirect_cost": c.int_("indirect_cost", *_COST),
        "fp_red": c.int_("fp_red", *_FP),
        "fp_blue": c.int_("fp_blue", *_FP),
        "crewed": c.bool_("crewed"),
        "range": c.int_("range", *_RANGE),
        "min_range": c.int_("min_range", *_RANGE) or 0,
        "armored": armored,
        "armored_flank": c.bool_("armored_flank", armored),
        "open_topped": c.bool_("open_topped"),
        "turret": c.bool_("turret"),
        "bonus_moves": c.str_list("bonus_moves", BONUS_SYMBOLS),
        "he": c.bool_("he"),
        "flamethrower": c.bool_("flamethrower"),
        "flamethrower_turret": c.bool_("flamethrower_turret"),
        "smoke": c.bool_("smoke"),
        "apc": c.bool_("apc"),
        "can_transport": c.bool_("can_transport"),
        "sniper": c.bool_("sniper"),
    }
    _check_consistent(c, values)
    values["sources"] = MappingProxyType(c.sources(default, fdefaults, VALUE_FIELDS))
    return UnitType(**values)


def _check_consistent(c: Checker, v: Mapping[str, Any]) -> None:
    """Cross-field rules of the counter layout (CoH 2e §1.1, §7, §12, §14-17)."""
    attack = ("fp_red", "fp_blue", "range")
    if v["fire_cost"] is None:
        for f in (*attack, "indirect_cost"):
            if v[f] is not None:
                c.fail(
                    f,
                    "is set but fire_cost is absent (a unit without a fire "
                    "cost cannot attack)",
                )
    else:
        if v["range"] is None:
            c.fail("range", "is required for a unit with a fire_cost")
        if v["fp_red"] is None and v["fp_blue"] is None:
            c.fail("fp_red", "a unit with a fire_cost needs fp_red and/or fp_blue")
        if v["min_range"] > v["range"]:
            c.fail("min_range", f"{v['min_range']} exceeds range {v['range']}")
    if v["indirect_cost"] is not None and not v["he"]:
        c.fail("indirect_cost", "only HE (mortar) units fire indirectly (CoH 2e §12.0)")
    if v["kind"] == "vehicle" and v["mobility"] not in ("tracked", "wheeled"):
        c.fail(
            "mobility",
            f"{v['mobility']!r}: a vehicle is tracked or wheeled (CoH 2e §14.0)",
        )
    if v["mobility"] == "foot" and v["kind"] != "foot":
        c.fail(
            "kind", "a unit with a red (foot) move cost is a foot unit (CoH 2e §5.0)"
        )
    if v["kind"] == "foot":
        for f in ("armored", "apc", "can_transport", "open_topped"):
            if v[f]:
                c.fail(
                    f,
                    "only vehicles may be armoured, open-topped, APCs or transporters",
                )
        if v["bonus_moves"]:
            c.fail(
                "bonus_moves", "only vehicles have bonus move symbols (CoH 2e §14.1)"
            )
    if v["armored_flank"] and not v["armored"]:
        c.fail("armored_flank", "a blue flank DR needs a blue front DR")
    if v["open_topped"] and not v["armored_flank"]:
        c.fail("open_topped", "open-topped marks a blue flank DR (CoH 2e §15.5)")
    if v["apc"] and not v["can_transport"]:
        c.fail("apc", "an APC must be able to transport (CoH 2e §16.1)")
    if v["flamethrower_turret"] and not (v["flamethrower"] and v["turret"]):
        c.fail("flamethrower_turret", "needs flamethrower = true and turret = true")
    if v["dr_flank"] > v["dr_front"]:
        c.fail(
            "dr_flank",
            f"{v['dr_flank']} exceeds dr_front {v['dr_front']} "
            "(flank is the weaker DR, §7.3)",
        )


def load_units(path: Path | str | None = None) -> Mapping[str, UnitType]:
    """Read and check a units file (default: the packaged ``data/units.toml``).

    >>> len(load_units()) > 50
    True
    """
    p = Path(path) if path is not None else UNITS_TOML
    doc = read_toml(p)
    unknown = set(doc) - {"defaults", "units"}
    if unknown:
        raise CohDataError(f"{p}: unknown top-level tables {sorted(unknown)}")
    default, fdefaults = check_defaults(p, doc)
    raw = doc.get("units")
    if not isinstance(raw, Mapping) or not raw:
        raise CohDataError(f"{p}: no [units.<id>] tables")
    return MappingProxyType(
        {uid: _unit(p, uid, r, default, fdefaults) for uid, r in raw.items()}
    )


@lru_cache(maxsize=1)
def unit_catalog() -> Mapping[str, UnitType]:
    """Every coh-2e unit type by id (the packaged file, read once)."""
    return load_units()


def unit_type(type_id: str) -> UnitType:
    """The unit type ``type_id``.

    An unknown id raises :class:`UnknownUnitTypeError`, suggesting the closest.
    """
    cat = unit_catalog()
    try:
        return cat[type_id]
    except (KeyError, TypeError):
        close = difflib.get_close_matches(str(type_id), list(cat), n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise UnknownUnitTypeError(
            f"unknown coh-2e unit type {type_id!r}{hint}"
        ) from None
