"""Game state: sides, formations, units and the containers every rule system needs.

The state is plain data and changes only through :class:`~wargame.engine.events.Event`
rows: each event carries a tuple of *changes* (small tuples, see :data:`Change`),
and :meth:`GameState.apply` is the only code that mutates a state.  Replaying the
events of a game onto its initial state therefore rebuilds every intermediate state
without the rules or the dice.

The containers are deliberately generic so that the four planned rule systems fit:

* a unit's ``position`` is a hex label (``"L12"``) or a free :class:`Point` in map
  metres (Flames of War, Бронепехота measure distances);
* ``facing``: on a hex map the hexside 0-5; on a point map the unit's whole
  compass degrees 0-359 (clockwise from grid north), while each :class:`Model`
  carries its own exact ``facing`` in degrees; ``hidden`` (per-side views),
  ``models`` (team- or soldier-level :class:`Model` rows with position, facing,
  base radius and attributes) and ``attrs`` (anything else a rule system tracks
  per unit, e.g. movement points spent);
* ``decks`` (a chit cup, card decks, hands: named tuples of item ids), ``pools``
  (named integer pools such as Conflict of Heroes command action points),
  ``control`` (hex or objective -> side) and ``vars`` (rule-system variables).

Values stored in ``vars`` and ``attrs`` must be immutable and JSON-friendly (str,
int, float, bool, None, tuples of those) so that copies can be shallow and
:meth:`GameState.digest` is stable.

Examples:
    >>> s = GameState(ruleset="demo", sides={"red": Side("red", "Red")})
    >>> s.units["u1"] = Unit("u1", "Scout", side="red", formation=None, type="scout",
    ...                      position="L12")
    >>> s.apply(unit_change("u1", position="L13", mp_spent=1.0))
    >>> s.units["u1"].position, s.units["u1"].attrs["mp_spent"]
    ('L13', 1.0)
    >>> s.copy().digest() == s.digest()
    True
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import Any

__all__ = [
    "Change",
    "Formation",
    "GameState",
    "Model",
    "Point",
    "Position",
    "Side",
    "Unit",
    "control_change",
    "deck_change",
    "jsonable",
    "pool_change",
    "state_change",
    "unit_change",
    "var_change",
]


@dataclass(frozen=True, slots=True)
class Point:
    """A free position in map metres (UTM 32N), for rule systems that measure.

    A point is a place only: facing lives on the unit or model standing there
    (:attr:`Model.facing`, :attr:`Unit.facing`), so that two models at one place
    are at one :class:`Point`.  Coordinates are stored as ``float`` (``Point(1,
    2) == Point(1.0, 2.0)`` and both save as ``1.0, 2.0``, so a loaded game has
    the same state digest) and must be finite.

    Examples:
        >>> Point(376115, 5605139)
        Point(x=376115.0, y=5605139.0)
        >>> try:
        ...     Point(float("nan"), 0.0)
        ... except ValueError as exc:
        ...     print(str(exc)[:46])
        Point: x: nan is not a finite number of metres
    """

    x: float
    y: float

    def __post_init__(self) -> None:
        for name in ("x", "y"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int | float):
                try:
                    v = float(v)  # numpy scalars
                except (TypeError, ValueError):
                    raise ValueError(
                        f"Point: {name}: {_show(v)} is not a number of metres; give "
                        "map metres (UTM 32N)"
                    ) from None
            if not math.isfinite(v):
                raise ValueError(
                    f"Point: {name}: {v!r} is not a finite number of metres; give "
                    "map metres (UTM 32N)"
                )
            object.__setattr__(self, name, float(v))

    def to_dict(self) -> dict[str, float]:
        """``{"x": ..., "y": ...}`` (how actions, saves and digests store it)."""
        return {"x": self.x, "y": self.y}


def _show(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:59] + "…"


#: Where a unit is: a hex label such as ``"L12"`` or a :class:`Point`.
Position = str | Point

#: One state change: ``(scope, key, field, value)``.  Scopes: ``"unit"`` (key = unit
#: id, field = a :class:`Unit` field or an ``attrs`` key), ``"state"`` (field =
#: ``turn`` or ``phase``), ``"var"``/``"deck"``/``"pool"``/``"control"`` (key = the
#: name, field unused).  A ``None`` value deletes an ``attrs``/``var``/``control``
#: entry.
Change = tuple[str, str | None, str | None, Any]


@dataclass(frozen=True, slots=True)
class Side:
    """One player: e.g. ``Side("nato", "NATO")``."""

    id: str
    name: str
    attrs: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Formation:
    """A group of units activated together (WaW company/battalion, CoH platoon).

    Attributes:
        id: formation id, e.g. ``"A/1-32"``.
        side: owning side id.
        name: display name.
        hq: id of its HQ unit, if any.
        chits: activation chits or cards it puts in the cup/deck each turn.
        attrs: anything else a rule system reads from the scenario.
    """

    id: str
    side: str
    name: str
    hq: str | None = None
    chits: int = 1
    attrs: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Model:
    """One team, soldier or vehicle model inside a unit (a Flames of War platoon's
    teams, a Бронепехота squad's soldiers).

    Unused by the hex systems (their counters are whole platoons or squads).

    Attributes:
        id: model id, e.g. ``"1pl.2"``.
        kind: a rule-system word (``"rifle team"``, ``"tank"``...).
        wounds: wounds taken.
        position: where it stands (a :class:`Point` for point rule systems).
        facing: compass bearing it faces in degrees, clockwise from grid north
            (0 = north, 90 = east), ``[0, 360)``; ``None`` where facing does not
            matter.
        radius_m: radius of its base in map metres (bases are circles to the
            engine; 0 for a point), for overlap and base contact.
        attrs: anything else a rule system tracks per model; plain JSON-friendly
            values, never mutated (replace the model with
            ``dataclasses.replace`` to change it).

    Examples:
        >>> m = Model("1pl.1", "rifle team", position=Point(0, 0), facing=90.0,
        ...           radius_m=1.0)
        >>> jsonable(m)["facing"], jsonable(Model("a", "b"))
        (90.0, {'id': 'a', 'kind': 'b', 'wounds': 0, 'position': None})
    """

    id: str
    kind: str
    wounds: int = 0
    position: Position | None = None
    facing: float | None = None
    radius_m: float = 0.0
    attrs: Mapping[str, Any] = field(default_factory=dict, hash=False)


@dataclass(slots=True)
class Unit:
    """A counter (or squad) on the map.

    ``strength`` is a rule-system word; by engine convention ``"destroyed"`` means
    the unit is out of play (:attr:`destroyed`).
    """

    id: str
    name: str
    side: str
    formation: str | None
    type: str
    position: Position | None = None
    strength: str = "full"
    facing: int | None = None
    hidden: bool = False
    models: tuple[Model, ...] = ()
    attrs: dict[str, Any] = field(default_factory=dict)

    @property
    def destroyed(self) -> bool:
        """Out of play."""
        return self.strength == "destroyed"

    @property
    def hex(self) -> str | None:
        """The hex label of a unit on a hex map (``None`` for points/off-map)."""
        return self.position if isinstance(self.position, str) else None

    def copy(self) -> Unit:
        """An independent copy (``attrs`` copied, its values are immutable)."""
        return Unit(
            self.id,
            self.name,
            self.side,
            self.formation,
            self.type,
            self.position,
            self.strength,
            self.facing,
            self.hidden,
            self.models,
            dict(self.attrs),
        )

    def to_dict(self) -> dict[str, Any]:
        """JSON-friendly dict of every field."""
        return {f.name: jsonable(getattr(self, f.name)) for f in fields(self)}


_UNIT_FIELDS = frozenset(f.name for f in fields(Unit)) - {"id", "attrs"}


@dataclass(slots=True)
class GameState:
    """Everything that changes during a game, plus the static sides and formations.

    Mutate it only with :meth:`apply` (the engine does so for every event).
    """

    ruleset: str
    turn: int = 1
    phase: str = "setup"
    sides: dict[str, Side] = field(default_factory=dict)
    formations: dict[str, Formation] = field(default_factory=dict)
    units: dict[str, Unit] = field(default_factory=dict)
    decks: dict[str, tuple[str, ...]] = field(default_factory=dict)
    pools: dict[str, int] = field(default_factory=dict)
    control: dict[str, str] = field(default_factory=dict)
    vars: dict[str, Any] = field(default_factory=dict)
    seq: int = 0

    def copy(self) -> GameState:
        """An independent copy (units copied; containers shallow-copied)."""
        return GameState(
            self.ruleset,
            self.turn,
            self.phase,
            self.sides,
            self.formations,
            {k: u.copy() for k, u in self.units.items()},
            dict(self.decks),
            dict(self.pools),
            dict(self.control),
            dict(self.vars),
            self.seq,
        )

    def apply(self, changes: Iterable[Change]) -> None:
        """Apply state changes (see :data:`Change`); the only mutator."""
        for scope, key, name, value in changes:
            if scope == "unit":
                unit = self.units[key]  # type: ignore[index]
                if name in _UNIT_FIELDS:
                    setattr(unit, name, value)
                elif value is None:
                    unit.attrs.pop(name, None)  # type: ignore[arg-type]
                else:
                    unit.attrs[name] = value  # type: ignore[index]
            elif scope == "var":
                if value is None:
                    self.vars.pop(key, None)  # type: ignore[arg-type]
                else:
                    self.vars[key] = value  # type: ignore[index]
            elif scope == "deck":
                self.decks[key] = tuple(value)  # type: ignore[index]
            elif scope == "pool":
                self.pools[key] = int(value)  # type: ignore[index]
            elif scope == "control":
                if value is None:
                    self.control.pop(key, None)  # type: ignore[arg-type]
                else:
                    self.control[key] = value  # type: ignore[index]
            elif scope == "state":
                if name not in ("turn", "phase"):
                    raise ValueError(f"unknown state field {name!r}")
                setattr(self, name, value)
            else:
                raise ValueError(f"unknown change scope {scope!r}")

    def to_dict(self) -> dict[str, Any]:
        """JSON-friendly snapshot (for digests, saves and tests)."""
        return {
            "ruleset": self.ruleset,
            "turn": self.turn,
            "phase": self.phase,
            "units": {k: u.to_dict() for k, u in self.units.items()},
            "decks": jsonable(self.decks),
            "pools": dict(self.pools),
            "control": dict(sorted(self.control.items())),
            "vars": jsonable(dict(sorted(self.vars.items()))),
        }

    def digest(self) -> str:
        """SHA-256 of :meth:`to_dict`; equal states have equal digests."""
        text = json.dumps(self.to_dict(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()

    # -- small queries every rule system needs -------------------------------- #
    def units_of(self, side: str, *, alive: bool = True) -> list[Unit]:
        """Units of a side (only those in play unless ``alive=False``)."""
        return [
            u
            for u in self.units.values()
            if u.side == side and not (alive and u.destroyed)
        ]

    def units_at(self, position: Position) -> list[Unit]:
        """Units in play at a position (a hex label or a point)."""
        return [
            u for u in self.units.values() if u.position == position and not u.destroyed
        ]


def jsonable(value: Any) -> Any:
    """Turn tuples, points, models and mappings into JSON-friendly values."""
    if isinstance(value, str | int | float | bool) or value is None:
        return value
    if isinstance(value, Point):
        return {"x": value.x, "y": value.y}
    if isinstance(value, Model):
        out: dict[str, Any] = {
            "id": value.id,
            "kind": value.kind,
            "wounds": value.wounds,
            "position": jsonable(value.position),
        }
        # the newer fields only when set: states of models without them (and
        # their digests in saves and golden logs) are as before
        if value.facing is not None:
            out["facing"] = float(value.facing)
        if value.radius_m:
            out["radius_m"] = float(value.radius_m)
        if value.attrs:
            out["attrs"] = jsonable(dict(sorted(value.attrs.items())))
        return out
    if isinstance(value, Mapping):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, Sequence):
        return [jsonable(v) for v in value]
    raise TypeError(f"state value {value!r} is not JSON-friendly")


# --------------------------------------------------------------------------- #
# change builders                                                             #
# --------------------------------------------------------------------------- #


def unit_change(unit_id: str, **values: Any) -> tuple[Change, ...]:
    """Changes setting fields (or ``attrs``) of one unit.

    Examples:
        >>> unit_change("u1", strength="reduced", mp_spent=2.0)
        (('unit', 'u1', 'strength', 'reduced'), ('unit', 'u1', 'mp_spent', 2.0))
    """
    return tuple(("unit", unit_id, k, v) for k, v in values.items())


def var_change(**values: Any) -> tuple[Change, ...]:
    """Changes setting rule-system variables (``None`` deletes)."""
    return tuple(("var", k, None, v) for k, v in values.items())


def deck_change(name: str, items: Iterable[str]) -> tuple[Change, ...]:
    """A change replacing the contents of a deck, cup or hand."""
    return (("deck", name, None, tuple(items)),)


def pool_change(name: str, value: int) -> tuple[Change, ...]:
    """A change setting a point pool."""
    return (("pool", name, None, int(value)),)


def control_change(where: str, side: str | None) -> tuple[Change, ...]:
    """A change of who controls a hex or objective."""
    return (("control", where, None, side),)


def state_change(**values: Any) -> tuple[Change, ...]:
    """Changes of the turn number or the phase."""
    return tuple(("state", None, k, v) for k, v in values.items())
