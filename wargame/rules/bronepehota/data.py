"""The official 2008 armlists of Бронепехота as typed records, and their loader.

Data: ``data/armlists_2008.json``, an unchanged copy of the project's
transcription of the Tekhnolog sheets of 31.07.08 (squads) and 01.08.08
(machines and guns), research/bronepehota.md §6 [A]; ``data/units.toml`` gives
each unit an ASCII id and each machine its locomotion type, which the sheets do
not print (``source = "estimate: ..."``, research §6.2 [C]).

What the fields mean (seed 002 §2.1-2.4; ``official_rules.md`` §2, §5.2, §7.1):

* A squad has six soldiers, each with rank А, speed Ск (steps a turn), range
  Дальн. (one die plus bonus), power Мощн. (dice), melee ББ, properties Св and
  armour Бр.  A dash in range and power: no ranged weapon (§7.1).  The 2008
  property codes are only Рм (repair, §9.3) and ПрN (jump pack of N steps,
  §9.4) (research §6.1).
* A machine is light or heavy, has a rank its pilot must reach (§2.3), a rate
  of fire, an ammunition track, an arsenal (a loadout is chosen before battle,
  §2.2) and a durability track whose coloured sectors give its speed; the cell
  number is also its armour (§5.2).  Melee weapons print "ББ" as range and a
  number as power (§8.1).
* A gun is mobile or stationary, has a rank to fire it, a rate of fire, an
  ammunition track, a durability track and one weapon (§2.4).

A bad file raises :class:`BronepehotaDataError` naming the file, the unit and
the field.

Examples:
    >>> arm = load_armlists()
    >>> bk = arm.machines["bronekhod"]
    >>> bk.heavy, bk.rank, bk.fire_rate, bk.ammo_max, bk.durability_max
    (False, 1, 1, 12, 10)
    >>> bk.speed_at(5), bk.colour_at(5)  # §4.2 Fig. 21: yellow sector, speed 3
    (3, 'yellow')
    >>> bk.locomotion, bk.source_of("locomotion")[:8]
    ('tracked', 'estimate')
    >>> s = arm.squads["pl_heavy_assault_landing"].soldiers[0]
    >>> s.rank, s.speed, str(s.range), str(s.power), s.melee, s.jump, s.armour
    (4, 5, 'Д12', '2Д6', 4, 5, 4)
"""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any, Final, NoReturn

from .dice import Dice, DiceNotationError, parse_dice
from .shooting import Blast, parse_blast

__all__ = [
    "COLOURS",
    "DEFAULT_ARMLISTS",
    "DEFAULT_UNITS",
    "FACTIONS",
    "LOCOMOTIONS",
    "Armlists",
    "BronepehotaDataError",
    "Gun",
    "Machine",
    "Soldier",
    "SpeedSector",
    "Squad",
    "Weapon",
    "choose_loadout",
    "load_armlists",
]

DATA_DIR: Final = Path(__file__).parent / "data"
DEFAULT_ARMLISTS: Final = DATA_DIR / "armlists_2008.json"
DEFAULT_UNITS: Final = DATA_DIR / "units.toml"

#: Blue Trade Protectorate, red Polaris Empire, green both (seed 002 §1.5).
FACTIONS: Final = ("polaris", "protectorate", "both")
#: The four kinds of machine movement (§4.2, Table 2).
LOCOMOTIONS: Final = ("wheeled", "tracked", "walking", "flying")
#: Sector colours of a durability track, least damaged first (§2.2, §4.2);
#: two-sector sheets are green and red (armlists JSON notes).
COLOURS: Final = ("green", "yellow", "red")

_SHEETS = "research/bronepehota.md §6 (official 2008 sheets, [A])"
_JUMP = re.compile(r"^Пр(\d+)$")
_PROPS: Final = ("Рм",)  # besides ПрN


class BronepehotaDataError(ValueError):
    """A bronepehota-2008 data file is missing, unreadable or holds a bad value."""


@dataclass(frozen=True)
class Soldier:
    """One soldier's line of a squad armlist (§2.1).

    Attributes:
        number: 1..6, his place on the armlist.
        rank, speed, melee, armour: А, Ск, ББ, Бр.
        range, power: Дальн. and Мощн.; ``None`` both = no ranged weapon.
        props: the Св codes as printed (``("Рм",)``, ``("Пр5",)``).
    """

    number: int
    rank: int
    speed: int
    range: Dice | None
    power: Dice | None
    melee: int
    armour: int
    props: tuple[str, ...] = ()

    @property
    def repairs(self) -> bool:
        """Рм: may repair machines and guns (§9.3)."""
        return "Рм" in self.props

    @property
    def jump(self) -> int | None:
        """ПрN: the jump pack's N steps (§9.4), or ``None``."""
        for p in self.props:
            m = _JUMP.match(p)
            if m:
                return int(m.group(1))
        return None

    @property
    def armed(self) -> bool:
        """Has a ranged weapon (no dashes in Дальн./Мощн., §7.1)."""
        return self.range is not None


@dataclass(frozen=True)
class Squad:
    """A squad armlist: six soldiers (§2.1)."""

    id: str
    name: str
    faction: str
    cost: int
    soldiers: tuple[Soldier, ...]


@dataclass(frozen=True)
class Weapon:
    """One weapon of an arsenal (§2.2, §7.1, §8.1).

    Attributes:
        range, power: range die and power dice of a ranged weapon.
        melee: the ББ power of a melee weapon (range box "ББ").
        count: how many of it the sheet shows (each fires on its own, §6.4).
        blast: the blast property (§7.4 IV), if any.
        special: the property text as printed.
    """

    name: str
    range: Dice | None
    power: Dice | None
    melee: int | None
    count: int = 1
    blast: Blast | None = None
    special: str | None = None

    @property
    def kind(self) -> str:
        """``"ranged"``, ``"melee"`` or ``"equipment"`` (HELIX's platform)."""
        if self.melee is not None:
            return "melee"
        return "ranged" if self.range is not None else "equipment"


@dataclass(frozen=True)
class SpeedSector:
    """Durability cells ``low``..``high`` (inclusive) give ``speed`` (§4.2)."""

    high: int
    low: int
    speed: int
    colour: str


@dataclass(frozen=True)
class Machine:
    """A machine armlist (§2.2), with its locomotion (not on the sheet)."""

    id: str
    name: str
    faction: str
    heavy: bool
    cost: int
    rank: int
    fire_rate: int
    ammo_max: int
    durability_max: int
    speed_sectors: tuple[SpeedSector, ...]
    weapons: tuple[Weapon, ...]
    locomotion: str
    note: str | None = None
    sources: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))

    @property
    def flier(self) -> bool:
        """Flying machines move, shoot, move and never melee (§3.2)."""
        return self.locomotion == "flying"

    def sector_at(self, durability: int) -> SpeedSector:
        """The sector the slider is in at ``durability`` (1..max).

        Raises:
            ValueError: 0 (destroyed, §5.1) or outside the track.
        """
        for s in self.speed_sectors:
            if s.low <= durability <= s.high:
                return s
        raise ValueError(
            f"machine {self.id!r}: durability {durability} is not on its track "
            f"1..{self.durability_max}"
            + (" (0 = destroyed, §5.1)" if durability == 0 else "")
        )

    def speed_at(self, durability: int) -> int:
        """Speed points at ``durability`` (§4.2): the sector's number."""
        return self.sector_at(durability).speed

    def colour_at(self, durability: int) -> str:
        """The sector colour at ``durability`` (§4.2)."""
        return self.sector_at(durability).colour

    def weapon(self, name: str) -> Weapon:
        """The arsenal weapon called ``name``; KeyError naming the arsenal."""
        for w in self.weapons:
            if w.name == name:
                return w
        raise KeyError(
            f"machine {self.id!r} has no weapon {name!r}; arsenal: "
            f"{[w.name for w in self.weapons]}"
        )

    def melee_bonus(self, loadout: Iterable[Weapon] | None = None) -> int:
        """The machine's ББ: the sum of its melee weapons' power (§8.1).

        >>> load_armlists().machines["hurricane"].melee_bonus()  # saw 2 + claw 1
        3
        """
        ws = self.weapons if loadout is None else tuple(loadout)
        return sum((w.melee or 0) * (w.count if loadout is None else 1) for w in ws)

    def source_of(self, fld: str) -> str:
        """Where a value comes from (the sheets, or an estimate with its why)."""
        return self.sources.get(fld, _SHEETS)


@dataclass(frozen=True)
class Gun:
    """A gun armlist (§2.4): not a unit, fired by a touching infantryman."""

    id: str
    name: str
    faction: str
    mobile: bool
    cost: int
    rank: int
    fire_rate: int
    ammo_max: int
    durability_max: int
    weapon: Weapon


@dataclass(frozen=True)
class Armlists:
    """All armlists of the 2008 sheets, by id."""

    squads: Mapping[str, Squad]
    machines: Mapping[str, Machine]
    guns: Mapping[str, Gun]
    source: str

    def unit(self, uid: str) -> Squad | Machine | Gun:
        """A squad, machine or gun by id; KeyError listing the ids."""
        for table in (self.squads, self.machines, self.guns):
            if uid in table:
                return table[uid]
        raise KeyError(
            f"no bronepehota-2008 armlist {uid!r}; known: "
            f"{sorted([*self.squads, *self.machines, *self.guns])}"
        )


class _Reader:
    """Typed reads from one record, failing with file, unit and field."""

    def __init__(self, path: Path, unit: str, raw: object) -> None:
        self.path, self.unit = path, unit
        if not isinstance(raw, Mapping):
            self.fail(None, f"must be an object, not {type(raw).__name__}")
        self.raw: Mapping[str, Any] = raw

    def fail(self, fld: str | None, msg: str) -> NoReturn:
        at = self.unit + ("" if fld is None else f", field {fld!r}")
        raise BronepehotaDataError(f"{self.path}: {at}: {msg}")

    def get(self, fld: str) -> Any:
        if fld not in self.raw:
            self.fail(fld, "is required")
        return self.raw[fld]

    def integer(self, fld: str, lo: int, hi: int = 10_000, value: object = None) -> int:
        v = self.get(fld) if value is None else value
        if isinstance(v, bool) or not isinstance(v, int):
            self.fail(fld, f"{v!r} is not a whole number")
        if not lo <= v <= hi:
            self.fail(fld, f"{v} must be within {lo}..{hi}")
        return v

    def string(self, fld: str) -> str:
        v = self.get(fld)
        if not isinstance(v, str) or not v.strip():
            self.fail(fld, f"{v!r} is not a non-empty string")
        return v

    def dice(self, fld: str, value: object, *, single: bool, bonus: bool) -> Dice:
        if not isinstance(value, str):
            self.fail(fld, f"{value!r} is not dice notation")
        try:
            d = parse_dice(value)
        except DiceNotationError as exc:
            self.fail(fld, str(exc))
        if single and d.count != 1:
            self.fail(fld, f"{value!r}: a range is one die (§7.1)")
        if not bonus and d.bonus:
            self.fail(fld, f"{value!r}: power dice carry no bonus (research §2.3)")
        return d

    def choice(self, fld: str, choices: Sequence[str]) -> str:
        v = self.get(fld)
        if v not in choices:
            self.fail(fld, f"{v!r} must be one of {list(choices)}")
        return str(v)


def _ids(units: Mapping[str, Any], kind: str, path: Path) -> dict[str, tuple[str, Any]]:
    """name -> (id, table) from units.toml's ``[kind.<id>]`` tables."""
    out: dict[str, tuple[str, Any]] = {}
    for uid, table in units.get(kind, {}).items():
        r = _Reader(path, f"{kind[:-1]} {uid!r}", table)
        name = r.string("name")
        if name in out:
            r.fail("name", f"{name!r} already has id {out[name][0]!r}")
        out[name] = (uid, table)
    return out


def _weapon(r: _Reader, where: str, raw: object) -> Weapon:
    w = _Reader(r.path, f"{r.unit}, {where}", raw)
    name = w.string("name")
    rng, pw = w.raw.get("range"), w.raw.get("power")
    count = w.integer("count", 1, 10)
    special = w.raw.get("special")
    if special is not None and not isinstance(special, str):
        w.fail("special", f"{special!r} is not a string")
    if rng == "ББ":  # §8.1: a melee weapon, a number as power
        try:
            melee = int(str(pw))
        except ValueError:
            w.fail("power", f"{pw!r}: a melee weapon's power is a number (§8.1)")
        return Weapon(name, None, None, melee, count, None, special)
    if rng is None and pw is None:
        return Weapon(name, None, None, None, count, None, special)
    if rng is None or pw is None:
        w.fail(
            "range" if rng is None else "power", "range and power go together (§7.1)"
        )
    try:
        blast = parse_blast(special)
    except DiceNotationError as exc:
        w.fail("special", str(exc))
    return Weapon(
        name,
        w.dice("range", rng, single=True, bonus=True),
        w.dice("power", pw, single=False, bonus=False),
        None,
        count,
        blast,
        special,
    )


def _soldier(r: _Reader, i: int, raw: object) -> Soldier:
    s = _Reader(r.path, f"{r.unit}, soldier {i}", raw)
    rng, pw = s.raw.get("range"), s.raw.get("power")
    if (rng is None) != (pw is None):
        s.fail(
            "range" if rng is None else "power", "range and power go together (§7.1)"
        )
    props_raw = s.raw.get("props")
    props: tuple[str, ...] = ()
    if props_raw is not None:
        if not isinstance(props_raw, str):
            s.fail("props", f"{props_raw!r} is not a string")
        props = tuple(p for p in re.split(r"[,\s]+", props_raw) if p)
        for p in props:
            if p not in _PROPS and not _JUMP.match(p):
                s.fail("props", f"{p!r}: the 2008 codes are Рм and ПрN (research §6.1)")
    return Soldier(
        number=i,
        rank=s.integer("rank", 0, 10),
        speed=s.integer("speed", 0, 20),
        range=None if rng is None else s.dice("range", rng, single=True, bonus=True),
        power=None if pw is None else s.dice("power", pw, single=False, bonus=False),
        melee=s.integer("melee", 0, 20),
        armour=s.integer("armor", 0, 20),
        props=props,
    )


def _sectors(r: _Reader, raw: object, top: int) -> tuple[SpeedSector, ...]:
    if not isinstance(raw, list) or not raw:
        r.fail("speed_sectors", "must be a non-empty list")
    if len(raw) > len(COLOURS):
        r.fail("speed_sectors", f"at most {len(COLOURS)} sectors, got {len(raw)}")
    colours = ("green", "red") if len(raw) == 2 else COLOURS[: len(raw)]
    out: list[SpeedSector] = []
    expect_high = top
    for k, sec in enumerate(raw):
        s = _Reader(r.path, f"{r.unit}, speed_sectors[{k}]", sec)
        hi, lo = s.integer("max", 1, top), s.integer("min", 1, top)
        sp = s.integer("speed", 0, 20)
        if hi != expect_high:
            s.fail(
                "max",
                f"{hi}: the sectors must cover the track {top}..1 with no "
                f"gap or overlap; expected {expect_high}",
            )
        if lo > hi:
            s.fail("min", f"{lo} is above max {hi}")
        if out and sp > out[-1].speed:
            s.fail("speed", f"{sp}: more damage never raises the speed (§2.2)")
        out.append(SpeedSector(hi, lo, sp, colours[k]))
        expect_high = lo - 1
    if expect_high != 0:
        r.fail(
            "speed_sectors",
            f"the last sector ends at {expect_high + 1}, not 1: "
            "cells 1.."
            f"{expect_high} have no speed",
        )
    return tuple(out)


def _json(path: Path) -> Mapping[str, Any]:
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise BronepehotaDataError(f"{path}: no such armlist file") from None
    except (OSError, json.JSONDecodeError) as exc:
        raise BronepehotaDataError(f"{path}: cannot read the armlists: {exc}") from None
    if not isinstance(raw, Mapping):
        raise BronepehotaDataError(f"{path}: the top level must be an object")
    return raw


def load_armlists(
    path: Path | str | None = None, units: Path | str | None = None
) -> Armlists:
    """Load the armlists JSON and the ids/locomotion TOML into typed records.

    Raises:
        BronepehotaDataError: a file is missing or a value is bad (file, unit,
            field named).

    Examples:
        >>> arm = load_armlists()
        >>> len(arm.squads), len(arm.machines), len(arm.guns)
        (11, 15, 2)
    """
    p = DEFAULT_ARMLISTS if path is None else Path(path)
    u = DEFAULT_UNITS if units is None else Path(units)
    raw = _json(p)
    try:
        extra = tomllib.loads(u.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise BronepehotaDataError(f"{u}: no such units file") from None
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise BronepehotaDataError(f"{u}: cannot read: {exc}") from None

    squad_ids, machine_ids, gun_ids = (
        _ids(extra, k, u) for k in ("squads", "machines", "guns")
    )
    squads: dict[str, Squad] = {}
    for k, rec in enumerate(raw.get("squads", [])):
        r = _Reader(p, f"squads[{k}]", rec)
        name = r.string("name")
        r.unit = f"squad {name!r}"
        if name not in squad_ids:
            r.fail("name", f"has no id in {u.name}")
        soldiers = r.get("soldiers")
        if not isinstance(soldiers, list) or len(soldiers) != 6:
            r.fail("soldiers", "a squad has six soldiers (§2.1)")
        squads[squad_ids[name][0]] = Squad(
            squad_ids[name][0],
            name,
            r.choice("faction", FACTIONS),
            r.integer("cost", 0),
            tuple(_soldier(r, i + 1, s) for i, s in enumerate(soldiers)),
        )
    machines: dict[str, Machine] = {}
    for k, rec in enumerate(raw.get("machines", [])):
        r = _Reader(p, f"machines[{k}]", rec)
        name = r.string("name")
        r.unit = f"machine {name!r}"
        if name not in machine_ids:
            r.fail("name", f"has no id in {u.name}")
        mid, table = machine_ids[name]
        t = _Reader(u, f"machine {mid!r}", table)
        loco = t.choice("locomotion", LOCOMOTIONS)
        src = t.string("source")
        top = r.integer("durability_max", 1, 100)
        weapons = r.get("weapons")
        if not isinstance(weapons, list) or not weapons:
            r.fail("weapons", "an arsenal lists at least one weapon")
        note = r.raw.get("note")
        machines[mid] = Machine(
            mid,
            name,
            r.choice("faction", FACTIONS),
            r.choice("class_", ("heavy", "light")) == "heavy",
            r.integer("cost", 0),
            r.integer("rank", 0, 10),
            r.integer("fire_rate", 1, 10),
            r.integer("ammo_max", 0, 100),
            top,
            _sectors(r, r.get("speed_sectors"), top),
            tuple(_weapon(r, f"weapons[{i}]", w) for i, w in enumerate(weapons)),
            loco,
            note if isinstance(note, str) else None,
            MappingProxyType({"locomotion": src}),
        )
    guns: dict[str, Gun] = {}
    for k, rec in enumerate(raw.get("guns", [])):
        r = _Reader(p, f"guns[{k}]", rec)
        name = r.string("name")
        r.unit = f"gun {name!r}"
        if name not in gun_ids:
            r.fail("name", f"has no id in {u.name}")
        mobile = r.get("mobile")
        if not isinstance(mobile, bool):
            r.fail("mobile", f"{mobile!r} is not true/false")
        gid = gun_ids[name][0]
        guns[gid] = Gun(
            gid,
            name,
            r.choice("faction", FACTIONS),
            mobile,
            r.integer("cost", 0),
            r.integer("rank", 0, 10),
            r.integer("fire_rate", 1, 10),
            r.integer("ammo_max", 0, 100),
            r.integer("durability_max", 1, 100),
            _weapon(r, "weapon", r.get("weapon")),
        )
    for kind, ids, got in (
        ("squads", squad_ids, squads),
        ("machines", machine_ids, machines),
        ("guns", gun_ids, guns),
    ):
        missing = sorted(uid for uid, _ in ids.values() if uid not in got)
        if missing:
            raise BronepehotaDataError(f"{u}: {kind} {missing} are not in {p.name}")
    source = raw.get("source")
    return Armlists(
        MappingProxyType(squads),
        MappingProxyType(machines),
        MappingProxyType(guns),
        source if isinstance(source, str) else _SHEETS,
    )


# HELIX carries EITHER its twin rocket launcher OR the repair-transport platform
# (§10.1); the sheet shows both.
_EXCLUSIVE: Final = {"helix": ("ракетная установка", "ремонтно-транспортная платформа")}


def choose_loadout(machine: Machine, names: Sequence[str]) -> tuple[Weapon, ...]:
    """The weapons a machine is fitted with before battle, from its arsenal (§2.2).

    A name may repeat up to the sheet's count (T-REX's two launchers).  HELIX
    takes either its rocket launchers or its platform, not both (§10.1).

    Raises:
        ValueError: a weapon not in the arsenal, more copies than the sheet
            shows, or an either/or pair together; the message names the
            machine and the weapon.

    Examples:
        >>> trex = load_armlists().machines["t_rex"]
        >>> [w.name for w in choose_loadout(trex, ["ракетная установка"] * 2)]
        ['ракетная установка', 'ракетная установка']
        >>> choose_loadout(trex, ["лазерная пушка"])
        Traceback (most recent call last):
        ...
        ValueError: machine 't_rex': loadout weapon 'лазерная пушка' is not in its arsenal ['крупнокалиберный пулемет', 'ракетная установка']
    """  # noqa: E501
    out: list[Weapon] = []
    for n in names:
        try:
            w = machine.weapon(n)
        except KeyError:
            raise ValueError(
                f"machine {machine.id!r}: loadout weapon {n!r} is not in its arsenal "
                f"{[w.name for w in machine.weapons]}"
            ) from None
        if sum(x.name == n for x in out) >= w.count:
            raise ValueError(
                f"machine {machine.id!r}: loadout has more {n!r} than the {w.count} "
                "on its sheet"
            )
        out.append(w)
    pair = _EXCLUSIVE.get(machine.id)
    if pair and all(any(w.name == p for w in out) for p in pair):
        raise ValueError(
            f"machine {machine.id!r}: loadout takes either {pair[0]!r} or {pair[1]!r} "
            "(§10.1), not both"
        )
    return tuple(out)
