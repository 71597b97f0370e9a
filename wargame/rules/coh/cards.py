"""Conflict of Heroes 2e cards (``data/cards.toml``).

The 2e card list (S1 p.17, research/coh.md §5.3) in the colours of the later 2e
revision (seed 003 §8).  A firefight's deck is every action and bonus card whose
ID number is at most N (S1 Firefight 1; seed 003 §8.1): :func:`deck_for`.  Cards
without a number in S1 (weapons, artillery, events, veterans) carry a project
number of 100 or more and join a deck only when a firefight names them.

Examples:
    >>> card_catalog()[3].name, card_catalog()[3].cost, card_catalog()[3].pay
    ('Auto-Rally', 2, 'cap')
    >>> deck = deck_for(13)  # Firefight 1's optional deck
    >>> len(deck), deck.count("command_action"), deck[:2]
    (39, 13, ['command_action', 'command_action'])
    >>> card_problem(13) is None
    True
    >>> print(card_problem(50))  # doctest: +NORMALIZE_WHITESPACE
    cards = 50: the 2nd-edition action and bonus cards are numbered 2-41; give the
    highest card number the firefight allows (Firefight 1: 13), or 0 for no cards
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, fields
from functools import lru_cache
from pathlib import Path
from types import MappingProxyType
from typing import Any

from ._data import DATA_DIR, Checker, CohDataError, check_defaults, read_toml

__all__ = [
    "CARDS_TOML",
    "COLOURS",
    "EFFECTS",
    "PAYS",
    "TYPES",
    "Card",
    "card",
    "card_catalog",
    "card_numbers_problem",
    "card_problem",
    "cards_by_id",
    "deck_for",
    "load_cards",
]

CARDS_TOML = DATA_DIR / "cards.toml"
#: S1 §8.0-8.4 card types plus seed 003 §8.3 veterans, with the seed's colours.
TYPE_COLOURS = {
    "action": "green",
    "bonus": "green",
    "event": "yellow",
    "weapon": "grey",
    "veteran": "orange",
}
TYPES = tuple(TYPE_COLOURS)
COLOURS = ("green", "yellow", "grey", "orange")
#: Cost icon (S1 §8.0): blue = CAPs, green = an activated unit's APs, split = any mix.
PAYS = ("free", "cap", "ap", "ap_or_cap")
#: Effect keywords the rules implement.
EFFECTS = (
    "command_action",
    "auto_rally",
    "rally_up",
    "rapid_deployment",
    "battlefield_confusion",
    "experienced_sergeant",
    "frontline_officer",
    "seek_cover",
    "sniper_fire",
    "bogged_down",
    "scout_teams",
    "mine_laying",
    "obstacle_clearing",
    "careful_aiming",
    "swift_action",
    "luck",
    "grenades",
    "molotov",
    "tellermine",
    "magnetic_mine",
    "oba",
    "score",
    "objective",
    "firefight_event",
    "game_ends",
    "close_call",
)
_NATIONS = ("german", "soviet")
#: Project numbers (no ID in S1) start here.
PROJECT_NUMBERS = 100


@dataclass(frozen=True)
class Card:
    """One card of the 2e set (``count`` copies in the box)."""

    id: str
    number: int
    name: str
    type: str
    colour: str
    count: int
    pay: str
    effect: str
    text: str
    cost: int | None = None
    printed_number: bool = True
    aka: tuple[str, ...] = ()
    nation: str | None = None
    fp_red: int | None = None
    fp_blue: int | None = None
    range: int | None = None
    he: bool = False
    d6_table: tuple[int, ...] = ()
    gap: str | None = None
    sources: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))

    @property
    def is_action(self) -> bool:
        """Playing it is an action (action and weapon cards; S1 §8.1, §8.4)."""
        return self.type in ("action", "weapon")

    def source_of(self, field: str) -> str:
        """Where a value comes from."""
        try:
            return self.sources[field]
        except KeyError:
            raise KeyError(f"card {self.id!r} has no field {field!r}") from None


VALUE_FIELDS = tuple(f.name for f in fields(Card) if f.name not in ("id", "sources"))


def _card(
    path: Path, cid: str, raw: object, default: str, fdefaults: Mapping[str, str]
) -> Card:
    c = Checker(path, "card", cid, raw)
    c.only({*VALUE_FIELDS, "sources"})
    if not cid.replace("_", "").isalnum() or cid != cid.lower():
        c.fail(None, "card id must be snake_case")
    v: dict[str, Any] = {
        "id": cid,
        "number": c.req_int("number", 1, 999),
        "name": c.req_str("name"),
        "type": c.choice("type", TYPES),
        "colour": c.choice("colour", COLOURS),
        "count": c.req_int("count", 1, 20),
        "pay": c.choice("pay", PAYS),
        "effect": c.choice("effect", EFFECTS),
        "text": c.req_str("text"),
        "cost": c.int_("cost", 0, 9),
        "printed_number": c.bool_("printed_number", True),
        "aka": c.str_list("aka"),
        "nation": c.choice("nation", _NATIONS, required=False),
        "fp_red": c.int_("fp_red", -5, 20),
        "fp_blue": c.int_("fp_blue", -5, 20),
        "range": c.int_("range", 0, 40),
        "he": c.bool_("he"),
        "gap": c.str_("gap", required=False),
    }
    table = c.raw.get("d6_table", [])
    if (
        not isinstance(table, list)
        or len(table) not in (0, 6)
        or not all(isinstance(x, int) and not isinstance(x, bool) for x in table)
    ):
        c.fail("d6_table", f"{table!r} must be six integers, one per die face")
    v["d6_table"] = tuple(table)
    if v["colour"] != TYPE_COLOURS[v["type"]]:
        c.fail(
            "colour", f"a {v['type']} card is {TYPE_COLOURS[v['type']]} (seed 003 §8)"
        )
    if v["printed_number"] == (v["number"] >= PROJECT_NUMBERS):
        c.fail(
            "number",
            f"printed 2e numbers are below {PROJECT_NUMBERS}, project numbers "
            f"{PROJECT_NUMBERS} or more "
            f"(printed_number = {str(v['printed_number']).lower()})",
        )
    if v["printed_number"] and v["type"] not in ("action", "bonus"):
        c.fail(
            "printed_number",
            "only action and bonus cards form the numbered deck (S1 FF1)",
        )
    if (v["pay"] == "free") != (v["cost"] == 0):
        c.fail(
            "pay",
            f"pay {v['pay']!r} does not fit cost {v['cost']!r} (free means cost 0)",
        )
    if v["type"] != "weapon":
        for f in ("fp_red", "fp_blue", "range", "nation"):
            if v[f] is not None:
                c.fail(f, "only weapon cards have attack values or a nation")
    v["sources"] = MappingProxyType(c.sources(default, fdefaults, VALUE_FIELDS))
    return Card(**v)


def load_cards(path: Path | str | None = None) -> Mapping[int, Card]:
    """Read and check a cards file: number -> :class:`Card`.

    >>> load_cards()[8].name
    'Frontline Officer'
    """
    p = Path(path) if path is not None else CARDS_TOML
    doc = read_toml(p)
    unknown = set(doc) - {"defaults", "cards"}
    if unknown:
        raise CohDataError(f"{p}: unknown top-level tables {sorted(unknown)}")
    default, fdefaults = check_defaults(p, doc)
    raw = doc.get("cards")
    if not isinstance(raw, Mapping) or not raw:
        raise CohDataError(f"{p}: no [cards.<id>] tables")
    out: dict[int, Card] = {}
    for cid, r in raw.items():
        cd = _card(p, cid, r, default, fdefaults)
        if cd.number in out:
            raise CohDataError(
                f"{p}: card {cid!r}, field 'number': {cd.number} is already card "
                f"{out[cd.number].id!r}"
            )
        out[cd.number] = cd
    return MappingProxyType(dict(sorted(out.items())))


@lru_cache(maxsize=1)
def card_catalog() -> Mapping[int, Card]:
    """Every 2e card by number (the packaged file, read once)."""
    return load_cards()


@lru_cache(maxsize=1)
def cards_by_id() -> Mapping[str, Card]:
    """Every 2e card by id."""
    return MappingProxyType({c.id: c for c in card_catalog().values()})


def card(card_id: str) -> Card:
    """The card ``card_id`` (KeyError suggests the closest id).

    >>> card("luck").d6_table
    (-3, 2, 2, 2, 2, 2)
    """
    by_id = cards_by_id()
    if card_id in by_id:
        return by_id[card_id]
    import difflib

    close = difflib.get_close_matches(str(card_id), list(by_id), n=1)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    raise KeyError(f"unknown coh-2e card {card_id!r}{hint}")


def _numbered_range() -> tuple[int, int]:
    nums = [c.number for c in card_catalog().values() if c.printed_number]
    return min(nums), max(nums)


def card_problem(n: object) -> str | None:
    """Why ``n`` is not a firefight's card limit ("cards numbered <= n"); None if it is.

    0 means no cards; otherwise ``n`` must lie within the printed numbers (2-41).

    >>> card_problem(0) is None
    True
    >>> print(card_problem("13"))  # doctest: +NORMALIZE_WHITESPACE
    cards = '13': give the highest card number as an integer (e.g. 13), or 0 for
    no cards
    """
    lo, hi = _numbered_range()
    if isinstance(n, bool) or not isinstance(n, int):
        return (
            f"cards = {n!r}: give the highest card number as an integer "
            "(e.g. 13), or 0 for no cards"
        )
    if n == 0 or lo <= n <= hi:
        return None
    return (
        f"cards = {n}: the 2nd-edition action and bonus cards are numbered "
        f"{lo}-{hi}; give the highest card number the firefight allows "
        "(Firefight 1: 13), or 0 for no cards"
    )


#: The name the lead's brief used for :func:`card_problem`.
card_numbers_problem = card_problem


def deck_for(
    max_number: int,
    *,
    nations: Iterable[str] = _NATIONS,
    extra: Iterable[str] = (),
) -> list[str]:
    """Card ids of a firefight's deck, one per copy, sorted by number (shuffle it).

    The deck holds every action and bonus card numbered at most ``max_number``
    (S1 Firefight 1; seed 003 §8.1) plus the ``extra`` cards a firefight names
    (weapons, events, veterans: all their copies).  Cards of a nation not in
    ``nations`` are left out.

    >>> from collections import Counter
    >>> Counter(deck_for(3))
    Counter({'command_action': 13, 'auto_rally': 3})
    >>> deck_for(0, extra=["grenades", "molotov"], nations=["german"])
    ['grenades']
    """
    why = card_problem(max_number)
    if why is not None:
        raise ValueError(why)
    keep = set(nations)
    bad = keep - set(_NATIONS)
    if bad:
        raise ValueError(f"unknown nations {sorted(bad)}; use {list(_NATIONS)}")
    chosen = [
        c
        for c in card_catalog().values()
        if c.printed_number and c.number <= max_number
    ]
    for cid in extra:
        cd = card(cid)
        if cd not in chosen:
            chosen.append(cd)
    chosen = [c for c in chosen if c.nation is None or c.nation in keep]
    chosen.sort(key=lambda c: c.number)
    return [c.id for c in chosen for _ in range(c.count)]
