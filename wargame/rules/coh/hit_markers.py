"""Conflict of Heroes 2e hit markers (``data/hit_markers.toml``).

Two piles of 20: foot units draw from ``"foot"``, vehicles from ``"vehicle"``
(CoH 2e §7.5, §15.2; the pile goes by unit type, :attr:`UnitType.kind`).  A
marker lies face down; :attr:`HitMarker.reveal_when` says which uses of the unit
show it (§7.5, research/coh.md §1.7).

Examples:
    >>> decks = hit_marker_decks()
    >>> len(decks["foot"]), len(decks["vehicle"])
    (20, 20)
    >>> sum(m.id == "pinned" for m in decks["foot"])
    5
    >>> s = marker("suppressed", "vehicle")
    >>> s.fire_ap, s.fp_red, s.fp_blue, s.rally
    (1, -2, -3, 8)
    >>> marker("immobilized", "vehicle").no_rally
    True
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from functools import lru_cache
from pathlib import Path
from types import MappingProxyType
from typing import Any

from ._data import DATA_DIR, Checker, CohDataError, check_defaults, read_toml

__all__ = [
    "DECKS",
    "DECK_SIZE",
    "HIT_MARKERS_TOML",
    "REVEAL_TRIGGERS",
    "HitMarker",
    "hit_marker_decks",
    "hit_marker_kinds",
    "load_hit_markers",
    "marker",
]

HIT_MARKERS_TOML = DATA_DIR / "hit_markers.toml"
#: The two piles (CoH 2e §7.5).
DECKS = ("foot", "vehicle")
#: Markers per pile (CoH 2e §7.5 foot list, §15.2 vehicle list).
DECK_SIZE = 20
#: Uses of a unit that show its face-down marker (research/coh.md §1.7).
REVEAL_TRIGGERS = ("always", "fire", "move", "fired_at")


@dataclass(frozen=True)
class HitMarker:
    """One kind of hit marker; ``count`` physical markers of it lie in its pile."""

    id: str
    deck: str
    name: str
    count: int
    rally: int | None = None
    kia: bool = False
    no_fire: bool = False
    no_move: bool = False
    rally_only: bool = False
    fire_ap: int = 0
    move_ap: int = 0
    fp_red: int = 0
    fp_blue: int = 0
    dr_front: int = 0
    dr_flank: int = 0
    max_range: int | None = None
    gun_damaged: str | None = None
    reveal_when: tuple[str, ...] = ()
    sources: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))

    @property
    def no_rally(self) -> bool:
        """No rally number: the marker stays for the game (CoH 2e §7.6)."""
        return self.rally is None

    def fp_mod(self, colour: str) -> int:
        """FP modifier for a ``"red"`` or ``"blue"`` attack."""
        if colour not in ("red", "blue"):
            raise ValueError(f"FP colour must be 'red' or 'blue', not {colour!r}")
        return self.fp_red if colour == "red" else self.fp_blue

    def dr_mod(self, flank: bool) -> int:
        """DR modifier for the front or the flank."""
        return self.dr_flank if flank else self.dr_front

    def source_of(self, field: str) -> str:
        """Where a value comes from."""
        try:
            return self.sources[field]
        except KeyError:
            raise KeyError(
                f"hit marker {self.deck}:{self.id} has no field {field!r}"
            ) from None


VALUE_FIELDS = tuple(
    f.name for f in fields(HitMarker) if f.name not in ("id", "deck", "sources")
)
_MOD = (-5, 5)


def _marker(
    path: Path,
    deck: str,
    kind: str,
    raw: object,
    default: str,
    fdefaults: Mapping[str, str],
) -> HitMarker:
    c = Checker(path, "hit marker", f"{deck}.{kind}", raw)
    c.only({*VALUE_FIELDS, "sources"})
    v: dict[str, Any] = {
        "id": kind,
        "deck": deck,
        "name": c.req_str("name"),
        "count": c.req_int("count", 1, DECK_SIZE),
        "rally": c.int_("rally", 2, 12),
        "kia": c.bool_("kia"),
        "no_fire": c.bool_("no_fire"),
        "no_move": c.bool_("no_move"),
        "rally_only": c.bool_("rally_only"),
        "fire_ap": c.int_("fire_ap", *_MOD) or 0,
        "move_ap": c.int_("move_ap", *_MOD) or 0,
        "fp_red": c.int_("fp_red", *_MOD) or 0,
        "fp_blue": c.int_("fp_blue", *_MOD) or 0,
        "dr_front": c.int_("dr_front", *_MOD) or 0,
        "dr_flank": c.int_("dr_flank", *_MOD) or 0,
        "max_range": c.int_("max_range", 0, 40),
        "gun_damaged": c.choice("gun_damaged", ("red", "blue"), required=False),
        "reveal_when": c.str_list("reveal_when", REVEAL_TRIGGERS),
    }
    if "reveal_when" not in c.raw:
        c.fail("reveal_when", "is required (use [] when no stat of the unit changes)")
    if v["kia"]:
        if v["rally"] is not None:
            c.fail("rally", "a KIA/Destroyed marker cannot be rallied")
        if v["reveal_when"] != ("always",):
            c.fail(
                "reveal_when",
                'a KIA/Destroyed marker is shown at once: ["always"] (§7.5)',
            )
    elif "always" in v["reveal_when"]:
        c.fail("reveal_when", '"always" is for KIA/Destroyed markers only (§7.5)')
    if v["rally_only"] and not (v["no_fire"] and v["no_move"]):
        c.fail("rally_only", "a rally-only marker also needs no_fire and no_move")
    v["sources"] = MappingProxyType(c.sources(default, fdefaults, VALUE_FIELDS))
    return HitMarker(**v)


def load_hit_markers(
    path: Path | str | None = None,
) -> Mapping[str, Mapping[str, HitMarker]]:
    """Read and check a hit-marker file: deck -> kind -> :class:`HitMarker`.

    >>> sorted(load_hit_markers()["foot"])[:3]
    ['berserk', 'cowering', 'kia']
    """
    p = Path(path) if path is not None else HIT_MARKERS_TOML
    doc = read_toml(p)
    unknown = set(doc) - {"defaults", *DECKS}
    if unknown:
        raise CohDataError(
            f"{p}: unknown top-level tables {sorted(unknown)}; decks are {list(DECKS)}"
        )
    default, fdefaults = check_defaults(p, doc)
    out: dict[str, Mapping[str, HitMarker]] = {}
    for deck in DECKS:
        raw = doc.get(deck)
        if not isinstance(raw, Mapping) or not raw:
            raise CohDataError(f"{p}: no [{deck}.<kind>] tables")
        kinds = {k: _marker(p, deck, k, r, default, fdefaults) for k, r in raw.items()}
        total = sum(m.count for m in kinds.values())
        if total != DECK_SIZE:
            raise CohDataError(
                f"{p}: deck {deck!r} holds {total} markers; the 2e piles hold "
                f"{DECK_SIZE} (CoH 2e §7.5, §15.2)"
            )
        out[deck] = MappingProxyType(kinds)
    return MappingProxyType(out)


@lru_cache(maxsize=1)
def hit_marker_kinds() -> Mapping[str, Mapping[str, HitMarker]]:
    """The packaged hit markers: deck -> kind -> marker (read once)."""
    return load_hit_markers()


@lru_cache(maxsize=1)
def hit_marker_decks() -> Mapping[str, tuple[HitMarker, ...]]:
    """Each pile as one entry per physical marker (kinds repeated by count)."""
    return MappingProxyType(
        {
            deck: tuple(m for m in kinds.values() for _ in range(m.count))
            for deck, kinds in hit_marker_kinds().items()
        }
    )


def marker(kind: str, deck: str) -> HitMarker:
    """The marker ``kind`` of pile ``deck`` (``"foot"`` or ``"vehicle"``).

    >>> marker("kia", "foot").kia
    True
    >>> marker("kia", "vehicle")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    KeyError: "no hit marker 'kia' in the vehicle pile; its markers: ['destroyed', ...]"
    """
    kinds = hit_marker_kinds()
    if deck not in kinds:
        raise KeyError(f"no hit-marker pile {deck!r}; piles: {list(DECKS)}")
    try:
        return kinds[deck][kind]
    except KeyError:
        raise KeyError(
            f"no hit marker {kind!r} in the {deck} pile; "
            f"its markers: {sorted(kinds[deck])}"
        ) from None
