"""Scenarios: a TOML file (or a dict of the same shape) describing one game.

A scenario is validated in two steps, each reporting *every* problem it finds
as one line ``<file>: <field>: <what is wrong and how to fix it>``:

1. :func:`load_scenario` reads the file (at most :data:`MAX_SCENARIO_BYTES`,
   regular files only; malformed TOML is reported with its line and column) and
   checks what every rule system shares: sizes first (nesting, the number of
   units and other entries, the length of texts; nothing else is looked at
   while one is over its limit), then required fields, types and ranges (each
   bound named in the message, see the ``MAX_*`` constants), unknown keys (with
   a "did you mean"), the ruleset id, the ``[map]`` table (including the rule
   system's own ``hex_size_m``), cross-references between sides, formations,
   units and reinforcements, and turn numbers;
2. :func:`check_scenario` also loads the map and asks the rule system (through
   its :meth:`~wargame.engine.RulesetBase.scenario_problems` hook) for the
   rule-specific problems: unit types, hexes or lon/lat off the map, units in
   the water, stacks over the limit, objectives off the map...
   :class:`~wargame.engine.Game` runs the same checks when it starts.

The engine knows the *common* keys (below).  A rule system declares the keys it
adds or plays in its ``scenario_keys`` class attribute; a key that neither the
engine nor the rule system knows is an error (in ``[rules]``, ``[victory]``
and ``[overrides]`` too), so nothing in a file is silently ignored.  Values
echoed in messages are cut by :func:`shown`.  A rule system without
``scenario_keys`` accepts any extra key (toy and third-party systems).  The
full format, with an annotated example and the limits, is in
``docs/scenarios.md``.

Shape (TOML)::

    format = 1                  # optional, the format version
    id = "remagen_linz"         # title, description, historical_note, briefing,
    ruleset = "waw-classic"     # balance_note, date: text shown to players
    turns = 8
    turn_minutes = 10           # informational
    [map]                       # name, hex_size_m, window (place or table)
    [[sides]]                   # id, name, posture ("attack"/"defend"), briefing
    [[formations]]              # id, side, name, hq, chits (+ rule keys)
    [[units]]                   # id, name, type, formation or side, a position:
                                # hex / lonlat / place (hex maps) or carried_by
    [[reinforcements]]          # turn, units (ids), entry (positions)
    [[objectives]]              # name, a position, vp, controlled_by
    [victory] [rules] [overrides]   # rule-specific tables
    special_rules = ["..."]     # narrative only: shown, never enforced

Examples:
    >>> s = load_scenario({"id": "t", "ruleset": "waw-classic", "turns": 1,
    ...     "sides": [{"id": "a", "name": "A"}, {"id": "b", "name": "B"}]})
    >>> s.id, [x["id"] for x in s.sides], s.source
    ('t', ['a', 'b'], '<dict>')
    >>> try:
    ...     load_scenario({"id": "t", "ruleset": "waw-classic", "turns": 1,
    ...                    "turnz": 3, "sides": [{"id": "a"}]})
    ... except ScenarioError as exc:
    ...     print(exc)
    <dict>: turnz: unknown key; did you mean 'turns'?
"""

from __future__ import annotations

import copy
import difflib
import json
import math
import os
import re
import tomllib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from .errors import ScenarioError, UnknownRulesetError
from .files import (
    MAX_DEPTH,
    InputFileError,
    check_depth,
    parse_json,
    path_text,
    read_limited,
)

__all__ = [
    "FORMAT_VERSION",
    "MAX_SCENARIO_BYTES",
    "Scenario",
    "available_scenarios",
    "check_scenario",
    "load_scenario",
    "locate_hex",
    "scenario_dirs",
    "shown",
]

#: Version of the scenario format this engine reads (``format = 1``).
FORMAT_VERSION = 1

# --------------------------------------------------------------------------- #
# limits (docs/scenarios.md, "Limits"): each refused with the bound named     #
# --------------------------------------------------------------------------- #

#: The largest scenario file read: 2 MiB.  The biggest shipped scenario is
#: 12 kB and 2,000 units with 500-character notes fit; Python's TOML parser
#: reads about 2 MB a second, so no file takes much more than a second.
MAX_SCENARIO_BYTES = 2 * 1024 * 1024
#: Units per scenario: the shipped ones have 16-26, a WaW brigade ~150; beyond
#: 2,000 set-up and play slow down past a second per step.
MAX_UNITS = 2_000
#: Formations (each puts chits in a cup): 500 covers 2,000 units in fours.
MAX_FORMATIONS = 500
#: Sides: WaW has 2; multi-player games rarely more than 8.
MAX_SIDES = 16
#: Objectives and reinforcement groups: far more than a map window has towns.
MAX_OBJECTIVES = 500
MAX_REINFORCEMENTS = 500
#: Entry positions of one reinforcement group: a whole map edge is ~40 hexes.
MAX_ENTRY = 100
#: Narrative special rules (shown to players): a page of them.
MAX_SPECIAL_RULES = 100
#: Game turns: a WaW turn is 5-15 minutes, so 1,000 turns are days of battle
#: (the shipped scenarios have 4-10); a bigger number is a typo that never ends.
MAX_TURNS = 1_000
#: ``turn_minutes`` (informational): at most a year per turn.
MAX_TURN_MINUTES = 525_600
#: Chits one formation puts in the cup each turn (WaW: 1-3); the cup is filled
#: every turn, so a huge count would fill the memory.
MAX_CHITS = 100
#: Victory points of one objective (and per unit destroyed): with 500 objectives
#: and 2,000 units a side's total stays far inside int64 batch columns.
MAX_VP = 1_000_000
#: Characters of a text field (briefing, notes...): the shipped briefings are
#: under 800; 10,000 is a few pages.
MAX_TEXT = 10_000
#: Characters of an id, a key, a map, place or unit-type name: they end up in
#: file names, batch columns and messages.
MAX_ID = 100
#: Hex size in metres: 10 m (skirmish) to 10 km (operational); smaller hexes
#: make maps of billions of cells.
MIN_HEX_M, MAX_HEX_M = 10.0, 10_000.0
#: Side of a map window in metres: 50 km holds every shipped map.
MAX_WINDOW_M = 50_000.0
#: Hexes of a map window (estimated from its size before building it): the map
#: API's own bound (``wargame.geo.maps.MAX_HEXES``, held equal by a test; not
#: imported, so loading a scenario does not load the map code), checked here
#: first so the message names the scenario's field.
MAX_WINDOW_HEXES = 500_000
#: Characters of a value echoed in a message (longer ones end in "…").
SHOWN_CHARS = 60

# --------------------------------------------------------------------------- #
# the common keys                                                             #
# --------------------------------------------------------------------------- #

#: Top-level keys every rule system honours (text fields are shown to players).
_TOP_CORE = (
    "format",
    "id",
    "title",
    "description",
    "historical_note",
    "briefing",
    "balance_note",
    "date",
    "turn_minutes",
    "special_rules",
    "ruleset",
    "turns",
    "map",
    "sides",
    "formations",
    "units",
)
#: Top-level keys a rule system must declare (``scenario_keys["scenario"]``).
_TOP_OPTIONAL = ("objectives", "reinforcements", "victory", "rules", "overrides")
_TEXT_FIELDS = (
    "title",
    "description",
    "historical_note",
    "briefing",
    "balance_note",
    "date",
)
#: Keys of the tables the engine reads; rule systems may add keys per table.
_COMMON: dict[str, tuple[str, ...]] = {
    "map": ("name", "hex_size_m", "window"),
    "window": ("place", "width_m", "height_m", "bbox", "lonlat"),
    "sides": ("id", "name", "posture", "briefing"),
    "formations": ("id", "side", "name", "hq", "chits", "note"),
    "units": (
        "id",
        "name",
        "type",
        "side",
        "formation",
        "carried_by",
        "strength",
        "note",
    ),
    "objectives": ("id", "name", "vp", "controlled_by", "note"),
    "reinforcements": ("turn", "units", "entry", "name", "note"),
    "victory": (),
    "rules": (),
    "overrides": (),
}
#: Position keys by the rule system's ``positions``.
_POSITION_KEYS = {
    "hex": ("hex", "lonlat", "place"),
    # free positions (wargame.engine.placement.POINT_KEYS)
    "point": ("x", "y", "lonlat", "place", "dx", "dy", "bearing", "distance_m"),
}
#: Further keys of units of point rule systems (placement.UNIT_KEYS).
_POINT_UNIT_KEYS = ("zone", "facing", "models", "layout", "spacing_m")
_HEX_RE = re.compile(r"^[A-Z]{1,3}[0-9]{1,3}$")
_ID_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_./\-]*$")
_POSTURES = ("attack", "defend")
#: Map names: the map's folder name (geo's rule), nothing path-like.
_MAP_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
_DEFAULT_MAP = "rhine-remagen"
_DEFAULT_HEX_M = 150.0


@dataclass(frozen=True)
class Scenario:
    """A loaded scenario: the raw data plus where it came from (for messages).

    Attributes:
        data: the scenario as plain JSON-friendly data.
        source: the file path, or ``"<dict>"``.
    """

    data: Mapping[str, Any]
    source: str = "<dict>"

    # -- fields ------------------------------------------------------------- #
    @property
    def id(self) -> str:
        """Scenario id."""
        return str(self.data.get("id", "scenario"))

    @property
    def title(self) -> str:
        """Title (defaults to the id)."""
        return str(self.data.get("title", self.id))

    def text(self, name: str) -> str:
        """A text field (``description``, ``historical_note``, ``briefing``,
        ``balance_note``, ``date``) or ``""``."""
        return str(self.data.get(name, "") or "")

    @property
    def ruleset(self) -> str:
        """Rule-system id, e.g. ``"waw-classic"``."""
        return str(self.data["ruleset"])

    @property
    def turns(self) -> int:
        """Number of game turns."""
        return int(self.data["turns"])

    @property
    def turn_minutes(self) -> int | None:
        """Real time one turn stands for (informational), if given."""
        value = self.data.get("turn_minutes")
        return int(value) if value is not None else None

    @property
    def sides(self) -> list[dict[str, Any]]:
        """The ``[[sides]]`` tables."""
        return list(self.data.get("sides") or [])

    @property
    def formations(self) -> list[dict[str, Any]]:
        """The ``[[formations]]`` tables."""
        return list(self.data.get("formations") or [])

    @property
    def units(self) -> list[dict[str, Any]]:
        """The ``[[units]]`` tables."""
        return list(self.data.get("units") or [])

    @property
    def objectives(self) -> list[dict[str, Any]]:
        """The ``[[objectives]]`` tables."""
        return list(self.data.get("objectives") or [])

    @property
    def reinforcements(self) -> list[dict[str, Any]]:
        """The ``[[reinforcements]]`` tables."""
        return list(self.data.get("reinforcements") or [])

    @property
    def special_rules(self) -> list[str]:
        """Narrative special rules (shown to players, never enforced)."""
        return [str(x) for x in self.data.get("special_rules", [])]

    def posture(self, side: str) -> str | None:
        """A side's ``posture`` ("attack" or "defend"), a hint for AI policies."""
        for s in self.sides:
            if s.get("id") == side:
                value = s.get("posture")
                return str(value) if value is not None else None
        return None

    def section(self, name: str) -> dict[str, Any]:
        """A table such as ``[victory]`` or ``[rules]`` (empty if absent)."""
        value = self.data.get(name, {})
        return dict(value) if isinstance(value, Mapping) else {}

    def problem(self, where: str, text: str) -> str:
        """One problem line: ``<file>: <field>: <text>``."""
        return f"{self.source}: {where}: {text}"

    def error(self, where: str, problem: str) -> ScenarioError:
        """A :class:`ScenarioError` naming the file, the field and the problem."""
        return ScenarioError(self.problem(where, problem))

    # -- map ---------------------------------------------------------------- #
    @property
    def map_spec(self) -> dict[str, Any] | None:
        """The ``[map]`` table, or ``None`` for a map-less game."""
        spec = self.data.get("map")
        return dict(spec) if isinstance(spec, Mapping) else None

    def load_map(self) -> Any:
        """Load (once per process, then shared) the scenario's map window.

        The ``[map]`` table is checked first (map name, hex size, window size,
        and the hex size the rule system plays: its ``hex_size_m``), so a bad
        value is refused before any map is built.

        Raises:
            ScenarioError: a bad ``[map]`` value, an unknown map, or a window
                that is not on it.
        """
        spec = self.map_spec
        if spec is None:
            return None
        try:
            check_depth(spec, limit=MAX_DEPTH)
        except ValueError:
            raise self.error("map", _too_deep()) from None
        cls = _ruleset_or_none(self.data.get("ruleset"))
        c = _Checker(self.source, cls)
        _check_map(c, {"map": spec})
        if c.lines:
            raise ScenarioError(c.lines)
        size = spec.get("hex_size_m", _rule_hex_size(cls) or _DEFAULT_HEX_M)
        key = json.dumps({**spec, "hex_size_m": float(size)}, sort_keys=True)
        try:
            return _load_map_cached(key)
        except ValueError as exc:
            argument, problem = (
                getattr(exc, "argument", None),
                getattr(exc, "problem", None),
            )
            if isinstance(argument, str) and isinstance(problem, str):
                # the map API's MapArgumentError names its argument: name the
                # scenario's field instead of "load_map: window.width_m: ..."
                field = f"map.{argument}"
                raise self.error(field, _cut(" ".join(problem.split()), 300)) from None
            text = " ".join(str(exc).split())  # one line
            where = "map.window" if ("window" in text or "place" in text) else "map"
            raise self.error(where, _cut(text, 300)) from None

    def to_dict(self) -> dict[str, Any]:
        """A deep copy of the data (stored in save files)."""
        return copy.deepcopy(dict(self.data))


@lru_cache(maxsize=8)
def _load_map_cached(spec_json: str) -> Any:
    from wargame.geo.maps import load_map

    spec = json.loads(spec_json)
    return load_map(
        spec.get("name", _DEFAULT_MAP),
        hex_size_m=float(spec["hex_size_m"]),
        window=spec.get("window"),
    )


def _ruleset_or_none(rid: Any) -> Any:
    """The rule-system class registered under ``rid``, or ``None``."""
    if not isinstance(rid, str) or len(rid) > MAX_ID:
        return None
    from .ruleset import get_ruleset

    try:
        return get_ruleset(rid)
    except (UnknownRulesetError, ImportError):
        return None


def _rule_hex_size(cls: Any) -> float | None:
    """The hex size a rule system plays (its ``hex_size_m``), if it says."""
    size = getattr(cls, "hex_size_m", None) if cls is not None else None
    if isinstance(size, int | float) and not isinstance(size, bool):
        return float(size)
    return None


# --------------------------------------------------------------------------- #
# positions on a hex map                                                      #
# --------------------------------------------------------------------------- #


def _grid_text(game_map: Any) -> str:
    labels = game_map.hexes.index
    cols = sorted({str(x).rstrip("0123456789") for x in labels}, key=_col_key)
    rows = sorted({int(str(x)[len(str(x).rstrip("0123456789")) :]) for x in labels})
    return f"columns {cols[0]}–{cols[-1]}, rows {rows[0]}–{rows[-1]}"


def _col_key(col: str) -> tuple[int, str]:
    return (len(col), col)


def _playable(game_map: Any) -> set[str]:
    cache = game_map.__dict__.setdefault("_scenario_playable", None)
    if cache is None:
        h = game_map.hexes
        if "on_map" in h.columns:
            h = h[h["on_map"].astype(bool)]
        cache = {str(x) for x in h.index}
        game_map.__dict__["_scenario_playable"] = cache
    return cache  # type: ignore[no-any-return]


def locate_hex(
    game_map: Any, spec: Mapping[str, Any] | str, *, default: str | None = None
) -> tuple[str | None, str | None, str | None]:
    """Resolve a position to a hex label of the map (window).

    A position is a hex label (``"Q11"`` or ``{hex = "Q11"}``), ``{lonlat =
    [lon, lat]}`` in WGS84 degrees, or ``{place = "Remagen"}`` (a named place or
    peak of the map).  Rule systems on hex maps call this for units, objectives,
    entry hexes and hex overrides.

    Args:
        game_map: a :class:`wargame.geo.maps.Map` (window).
        spec: the position (a label or a table with one of the keys).
        default: the key to report when none is given (``None``: no position is
            fine, the result is then ``(None, None, None)``).

    Returns:
        ``(label, problem_key, problem)``: the label (or ``None``) and, when the
        position cannot be used, the key at fault and a message with the fix.

    Examples:
        >>> import wargame
        >>> m = wargame.load_map(window="Remagen")
        >>> locate_hex(m, {"place": "Remagen"})
        ('Q11', None, None)
        >>> locate_hex(m, {"hex": "ZZ99"})[2]
        "'ZZ99' is not a hex of the map window (columns A–AF, rows 1–21)"
    """
    if isinstance(spec, str):
        spec = {"hex": spec}
    given = [k for k in ("hex", "lonlat", "place") if spec.get(k) is not None]
    if not given:
        if default is None:
            return None, None, None
        return (
            None,
            default,
            'missing; give hex = "Q11", lonlat = [7.23, 50.58] or place',
        )
    if len(given) > 1:
        return None, given[1], f"give only one of {' / '.join(given)}"
    key = given[0]
    value = spec[key]
    playable = _playable(game_map)
    if key == "hex":
        if not isinstance(value, str) or value.upper() not in playable:
            return (
                None,
                key,
                f"{value!r} is not a hex of the map window ({_grid_text(game_map)})",
            )
        return value.upper(), None, None
    if key == "lonlat":
        if (
            not isinstance(value, Sequence)
            or isinstance(value, str)
            or len(value) != 2
            or not all(
                isinstance(v, int | float) and not isinstance(v, bool) for v in value
            )
        ):
            return None, key, f"must be [lon, lat] in degrees, not {value!r}"
        lon, lat = float(value[0]), float(value[1])
        try:
            label = game_map.hex_at(lon=lon, lat=lat)
        except ValueError:
            label = None
        if label is None or label not in playable:
            w, s, e, n = game_map.lonlat_bounds
            return (
                None,
                key,
                f"lon {lon:g}, lat {lat:g} is outside the map window "
                f"(lon {w:.3f}–{e:.3f}, lat {s:.3f}–{n:.3f})",
            )
        return str(label), None, None
    if not isinstance(value, str):
        return None, key, f"must be the name of a place, not {value!r}"
    try:
        label = game_map.hex_of_place(value)
    except ValueError as exc:
        text = str(exc)
        if "outside" in text or _on_full_map(game_map, value):
            text = f"{value!r} lies outside the map window"
        return None, key, text
    if label not in playable:
        return None, key, f"{value!r} lies outside the map window"
    return str(label), None, None


def _on_full_map(game_map: Any, place: str) -> bool:
    """Whether a place the window does not show is on the whole map."""
    if getattr(game_map, "window", None) is None:
        return False
    try:
        full = type(game_map)(game_map.folder, game_map.meta, game_map.hex_size_m)
        full.place_xy(place)
    except (ValueError, TypeError, AttributeError):
        return False
    return True


# --------------------------------------------------------------------------- #
# files                                                                       #
# --------------------------------------------------------------------------- #


def scenario_dirs() -> list[Path]:
    """Folders searched for scenarios given by name, in order.

    ``$WARGAME_SCENARIOS`` (``os.pathsep``-separated), then ``scenarios/`` of the
    source checkout, then the copy inside an installed wheel.
    """
    out: list[Path] = []
    env = os.environ.get("WARGAME_SCENARIOS")
    if env:
        out += [Path(p) for p in env.split(os.pathsep) if p]
    pkg = Path(__file__).resolve().parents[1]
    out += [pkg.parent / "scenarios", pkg / "_data" / "scenarios"]
    return [p for p in out if p.is_dir()]


def available_scenarios() -> list[str]:
    """Names of the scenarios found in :func:`scenario_dirs`.

    Examples:
        >>> "test_remagen" in available_scenarios()
        True
    """
    names: set[str] = set()
    for d in scenario_dirs():
        names.update(p.stem for p in d.glob("*.toml"))
    return sorted(names)


def _resolve(source: str | Path) -> Path:
    if not isinstance(source, str | os.PathLike):
        raise ScenarioError(
            f"load_scenario: source: {shown(source)} is not a scenario; give a "
            'file path, a scenario name such as "test_remagen", or a table (dict)'
        )
    path = Path(source)
    try:
        if (
            path.exists()
            or isinstance(source, Path)
            or path.suffix
            or len(path.parts) > 1
        ):
            return path
        for d in scenario_dirs():
            if (d / f"{source}.toml").is_file():
                return d / f"{source}.toml"
    except (OSError, ValueError):  # a name too long, a NUL byte: read_limited says
        return path
    return path


_TOML_AT = re.compile(r"\s*\(at line (\d+), column (\d+)\)\s*$")


def _read(source: str | Path | Mapping[str, Any]) -> tuple[Any, str]:
    """The raw data and its name for messages (raises on unreadable files).

    A file is read with a size limit (:data:`MAX_SCENARIO_BYTES`; devices and
    FIFOs are refused at once), a UTF-8 byte-order mark is skipped, and nesting
    too deep for the parsers is reported, not raised.
    """
    if isinstance(source, Mapping):
        # not copied: _validate only reads it, and its result is a fresh copy
        return source, "<dict>"
    path = _resolve(source)
    where = path_text(path)
    try:
        raw = read_limited(path, limit=MAX_SCENARIO_BYTES)
    except InputFileError as exc:
        if exc.problem == "no such file":
            known = ", ".join(available_scenarios()) or "(none)"
            raise ScenarioError(
                f"{where}: no such scenario file (scenarios by name: {known})"
            ) from None
        raise ScenarioError(f"{where}: {exc.problem}") from None
    try:
        # utf-8-sig: a byte-order mark (Windows editors write one) is skipped
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ScenarioError(
            f"{where}: not a valid scenario file: not UTF-8 text ({exc}); "
            "save it as UTF-8"
        ) from None
    bad = f"{where}: not a valid scenario file"
    if path.suffix.lower() == ".json":
        try:
            return parse_json(text, limit=MAX_DEPTH), where
        except json.JSONDecodeError as exc:
            raise ScenarioError(f"{bad}: malformed JSON: {exc}") from None
        except ValueError as exc:
            raise ScenarioError(f"{bad}: {_parser_problem(exc)}") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        msg = str(exc)
        m = _TOML_AT.search(msg)
        if m:
            at = f"line {m.group(1)}, column {m.group(2)}"
            msg = msg[: m.start()]
        else:
            at = "end of file" if "end of document" in msg else "unknown position"
            msg = msg.replace("(at end of document)", "").strip()
        msg = _cut(" ".join(msg.split()), 200)  # tomllib may quote a long line
        raise ScenarioError(f"{bad}: malformed TOML at {at}: {msg}") from None
    except RecursionError:
        raise ScenarioError(f"{bad}: {_too_deep()}") from None
    except ValueError as exc:  # e.g. a number of more than 4,300 digits
        raise ScenarioError(f"{bad}: {_parser_problem(exc)}") from None
    return data, where  # _validate checks the depth before anything recurses


def _too_deep() -> str:
    return (
        f"nested more than {MAX_DEPTH} levels deep (tables within tables, arrays "
        "within arrays or dotted keys of many parts); flatten it"
    )


def _parser_problem(exc: ValueError) -> str:
    """A parser's ``ValueError`` (other than a syntax error) as a problem."""
    text = str(exc)
    if "digits" in text and "integer string conversion" in text:
        return "a whole number of more than 4,300 digits; check the value"
    if "nested more than" in text:
        return _too_deep()
    return shown(text, 200)


# --------------------------------------------------------------------------- #
# validation                                                                  #
# --------------------------------------------------------------------------- #


def _cut(text: str, limit: int = SHOWN_CHARS) -> str:
    """``text`` cut to ``limit`` characters, ending in "…" when cut."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def shown(value: Any, limit: int = SHOWN_CHARS) -> str:
    """A value as a message shows it: its ``repr``, cut to ``limit`` characters.

    Every message about a scenario value uses it (rule systems too), so a 1 MB
    value is never echoed whole.

    Examples:
        >>> shown("Remagen"), shown([1, 2])
        ("'Remagen'", '[1, 2]')
        >>> shown("x" * 1000, limit=10)
        "'xxxxxxxx…"
        >>> shown(10**5000)
        'a whole number of about 5001 digits'
    """
    if isinstance(value, str) and len(value) > limit:
        value = value[:limit]  # the repr of a slice: cheap, and cut below
    try:
        text = repr(value)
    except ValueError:  # an int too long to print (Python's 4,300-digit limit)
        if isinstance(value, int):
            return _digits_text(value)
        return f"a {type(value).__name__}"
    except RecursionError:
        return f"a {type(value).__name__} nested too deep to show"
    return _cut(text, limit)


def _digits_text(value: int) -> str:
    """A huge whole number in words (printing it may be refused or long)."""
    return (
        f"a whole number of about {int(value.bit_length() * math.log10(2)) + 1} digits"
    )


def _did_you_mean(word: str, choices: Iterable[str]) -> str:
    if len(word) > MAX_ID:
        return ""
    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return f"did you mean {close[0]!r}?" if close else ""


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _is_num(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool)


def _is_finite(v: Any) -> bool:
    return _is_num(v) and math.isfinite(v)


def _is_id(v: Any) -> bool:
    return isinstance(v, str) and len(v) <= MAX_ID and bool(_ID_RE.match(v))


def _whole(v: Any, lo: int, hi: int) -> bool:
    return _is_int(v) and lo <= v <= hi


def _choices(ids: Iterable[str]) -> str:
    """Ids for a message: all of them, or the first 10 and how many in all."""
    ids = sorted(ids)
    if len(ids) <= 10:
        return repr(ids)
    return f"{ids[:10]!r}… ({len(ids)} in all)"


class _Checker:
    """Collects problems: one line each, naming the file and the field."""

    #: "did you mean" hints given at most (each compares with every id).
    HINTS = 100

    def __init__(self, where: str, ruleset_cls: Any) -> None:
        self.where = where
        self.lines: list[str] = []
        self.keys: Mapping[str, Iterable[str]] | None = None
        self.positions = "hex"
        self.lenient = True
        self.ruleset_id = ""
        self.hex_size: float | None = None
        self._hints = self.HINTS
        if ruleset_cls is not None:
            self.keys = getattr(ruleset_cls, "scenario_keys", None)
            self.positions = str(getattr(ruleset_cls, "positions", "hex"))
            self.lenient = self.keys is None
            self.ruleset_id = str(getattr(ruleset_cls, "id", ""))
            self.hex_size = _rule_hex_size(ruleset_cls)

    def add(self, field: str, text: str) -> None:
        self.lines.append(f"{self.where}: {field}: {text}")

    def hint(self, word: Any, choices: Iterable[str]) -> str:
        """A "did you mean" (``""``: none, or the hint budget is spent)."""
        if not isinstance(word, str) or self._hints <= 0:
            return ""
        self._hints -= 1
        return _did_you_mean(word, choices)

    def allowed(self, table: str) -> set[str] | None:
        """Keys allowed in a table (``None``: anything goes)."""
        if self.lenient:
            return None
        assert self.keys is not None
        extra = set(self.keys.get(table, ()))
        if table == "scenario":
            zones = {"zones"} if self.positions == "point" else set()
            return set(_TOP_CORE) | zones | extra
        base = set(_COMMON.get(table, ()))
        if table in ("units", "objectives", "reinforcements"):
            base |= set(_POSITION_KEYS.get(self.positions, ()))
        if table == "units" and self.positions == "point":
            base |= set(_POINT_UNIT_KEYS)
        if table == "reinforcements":
            base -= {"hex", *_POSITION_KEYS["point"]}
        return base | extra

    def unknown_keys(self, table: str, data: Mapping[str, Any], label: str) -> None:
        allowed = self.allowed(table)
        if allowed is None:
            return
        for key in data:
            if key in allowed:
                continue
            name = f"{label}.{key}" if label else str(key)
            if table == "scenario" and key in _TOP_OPTIONAL:
                self.add(name, "this rule system does not play this table; remove it")
                continue
            hint = self.hint(str(key), allowed)
            self.add(name, "unknown key" + (f"; {hint}" if hint else ""))


def _label(table: str, i: int, item: Any) -> str:
    if isinstance(item, Mapping):
        ident = item.get("id")
        if _is_id(ident):
            return f"{table}[{i}] ({ident!r})"
        name = item.get("name")
        if table == "objectives" and isinstance(name, str) and name:
            return f"{table}[{i}] ({shown(name)})"
    return f"{table}[{i}]"


def _text(c: _Checker, data: Mapping[str, Any], key: str, label: str) -> None:
    value = data.get(key)
    if value is not None and not isinstance(value, str):
        c.add(f"{label}.{key}" if label else key, f"must be text, not {shown(value)}")


def _list_of_tables(
    c: _Checker, data: Mapping[str, Any], name: str, *, required: bool, hint: str = ""
) -> list[tuple[str, dict[str, Any]]]:
    raw = data.get(name)
    if raw is None:
        if required:
            c.add(name, f"missing; {hint}" if hint else "missing")
        return []
    if not isinstance(raw, list) or not all(isinstance(x, Mapping) for x in raw):
        c.add(name, f"must be a list of tables ([[{name}]])")
        return []
    if required and not raw:
        c.add(name, f"is empty; {hint}" if hint else "is empty")
    out = []
    for i, item in enumerate(raw):
        label = _label(name, i, item)
        c.unknown_keys(name, item, label)
        out.append((label, dict(item)))
    return out


def _ids(
    c: _Checker, name: str, items: list[tuple[str, dict[str, Any]]]
) -> dict[str, dict[str, Any]]:
    seen: dict[str, dict[str, Any]] = {}
    for i, (label, item) in enumerate(items):
        ident = item.get("id")
        if ident is None:
            c.add(f"{label}.id", f"missing; every entry of [[{name}]] needs an id")
            continue
        if not _is_id(ident):
            c.add(
                f"{label}.id",
                f"{shown(ident)}: use letters, digits and _ . / - (at most "
                f'{MAX_ID} characters, e.g. "SU-T1")',
            )
            continue
        if ident in seen:
            c.add(f"{name}[{i}]", f"duplicate id {ident!r}")
            continue
        seen[ident] = item
    return seen


def _ref(value: Any, ids: Mapping[str, Any]) -> bool:
    """Whether ``value`` is one of ``ids`` (any value, hashable or not)."""
    return isinstance(value, str) and value in ids


# -- size guards: before anything else, so nothing big is ever built -------- #

#: Top-level arrays and their limits.
_COUNTS = {
    "sides": MAX_SIDES,
    "formations": MAX_FORMATIONS,
    "units": MAX_UNITS,
    "objectives": MAX_OBJECTIVES,
    "reinforcements": MAX_REINFORCEMENTS,
    "special_rules": MAX_SPECIAL_RULES,
}
#: Whole numbers of more bits than this are refused at once (no field takes
#: one; 332 bits is ~100 digits, far from Python's 4,300-digit print limit).
_MAX_INT_BITS = 332


def _size_problems(data: Mapping[str, Any], where: str) -> list[str]:
    """Too many entries, too long texts or keys, absurd numbers (iterative)."""
    lines: list[str] = []
    for name, limit in _COUNTS.items():
        v = data.get(name)
        if isinstance(v, list | tuple) and len(v) > limit:
            what = f"[[{name}]] tables" if name != "special_rules" else "texts"
            lines.append(
                f"{where}: {name}: {len(v):,} {what}, more than the limit of "
                f"{limit:,}; make a smaller scenario"
            )
    reinf = data.get("reinforcements")
    if isinstance(reinf, list | tuple) and len(reinf) <= MAX_REINFORCEMENTS:
        for i, r in enumerate(reinf):
            if not isinstance(r, Mapping):
                continue
            for key, limit in (("units", MAX_UNITS), ("entry", MAX_ENTRY)):
                v = r.get(key)
                if isinstance(v, list | tuple) and len(v) > limit:
                    lines.append(
                        f"{where}: reinforcements[{i}].{key}: {len(v):,} entries, "
                        f"more than the limit of {limit:,}; list fewer"
                    )
    if lines:
        return lines  # not even looked at: too big
    stack: list[tuple[Any, str]] = [(data, "")]
    while stack:
        value, path = stack.pop()
        if isinstance(value, Mapping):
            children = []
            for k, v in value.items():
                if isinstance(k, str) and len(k) > MAX_ID:
                    field = f"{path}.{shown(k)}" if path else shown(k)
                    lines.append(
                        f"{where}: {field}: a key of {len(k):,} characters, more "
                        f"than the limit of {MAX_ID}; use a shorter key"
                    )
                    continue
                children.append((v, f"{path}.{k}" if path else str(k)))
            stack.extend(reversed(children))
        elif isinstance(value, list | tuple):
            stack.extend(reversed([(v, f"{path}[{i}]") for i, v in enumerate(value)]))
        elif isinstance(value, str):
            if len(value) > MAX_TEXT:
                lines.append(
                    f"{where}: {path}: a text of {len(value):,} characters, more "
                    f"than the limit of {MAX_TEXT:,}; shorten it"
                )
        elif _is_int(value) and value.bit_length() > _MAX_INT_BITS:
            lines.append(
                f"{where}: {path}: {_digits_text(value)} is far too large for any "
                "value of a scenario; check it"
            )
    return lines


def _check_sub_tables(c: _Checker, data: Mapping[str, Any]) -> None:
    """``[rules]``, ``[victory]``, ``[overrides]``: the table, then its keys
    (those the rule system declares in ``scenario_keys``)."""
    for k in ("victory", "rules", "overrides"):
        v = data.get(k)
        if v is None:
            continue
        if not isinstance(v, Mapping):
            c.add(k, f"must be a table ([{k}])")
            continue
        allowed = c.allowed("scenario")
        if allowed is not None and k not in allowed:
            continue  # reported as a table the rule system does not play
        c.unknown_keys(k, v, k)


def _check_map(c: _Checker, data: Mapping[str, Any]) -> None:
    """``[map]``: names, finite sizes within bounds, the rule system's hex size
    and an estimate of the window's hexes; checked before any map is built."""
    spec = data.get("map")
    if spec is None:
        return
    if not isinstance(spec, Mapping):
        c.add("map", "must be a table with name, hex_size_m and window")
        return
    c.unknown_keys("map", spec, "map")
    name = spec.get("name", _DEFAULT_MAP)
    if not isinstance(name, str) or len(name) > MAX_ID or not _MAP_NAME_RE.match(name):
        c.add(
            "map.name",
            f'must be a map name such as "rhine-remagen" (letters, digits and '
            f"_ . -, at most {MAX_ID} characters), not {shown(name)}",
        )
    size = spec.get("hex_size_m", c.hex_size or _DEFAULT_HEX_M)
    size_ok = False
    if _is_finite(size) and c.hex_size is not None and abs(size - c.hex_size) > 1e-9:
        # the rule system's own scale first: "1" is a typo for its 150 m
        c.add(
            "map.hex_size_m",
            f"{c.ruleset_id} is played on hexes of {c.hex_size:g} m, not "
            f"{shown(size)}; write hex_size_m = {c.hex_size:g} or leave it out",
        )
    elif not _is_finite(size) or not MIN_HEX_M <= size <= MAX_HEX_M:
        c.add(
            "map.hex_size_m",
            f"must be a number of metres from {MIN_HEX_M:g} to {MAX_HEX_M:g}, "
            f"not {shown(size)}",
        )
    else:
        size_ok = True
    w = spec.get("window")
    if w is None:
        return
    if isinstance(w, str):
        w = {"place": w}
        label = "map.window"
    elif isinstance(w, Mapping):
        c.unknown_keys("window", w, "map.window")
        label = "map.window.place"
    else:
        c.add(
            "map.window",
            "must be a place name or a table {place, width_m, height_m} or "
            f"{{bbox = [xmin, ymin, xmax, ymax], lonlat}}, not {shown(w)}",
        )
        return
    place, bbox = w.get("place"), w.get("bbox")
    if (place is None) == (bbox is None):
        c.add("map.window", "give either place or bbox")
        return
    extent: tuple[float, float] | None = None
    if place is not None:
        if not isinstance(place, str) or not place.strip() or len(place) > MAX_ID:
            c.add(
                label,
                f'must be the name of a place of the map, such as "Remagen" (at '
                f"most {MAX_ID} characters), not {shown(place)}",
            )
        from wargame.geo.maps import DEFAULT_WINDOW_M

        sides = []
        for k, default in zip(("width_m", "height_m"), DEFAULT_WINDOW_M, strict=True):
            v = w.get(k, default)
            if not _is_finite(v) or not 0 < v <= MAX_WINDOW_M:
                c.add(
                    f"map.window.{k}",
                    f"must be a number of metres above 0 and at most "
                    f"{MAX_WINDOW_M:,.0f}, not {shown(v)}",
                )
            else:
                sides.append(float(v))
        if len(sides) == 2:
            extent = (sides[0], sides[1])
    lonlat = w.get("lonlat", False)
    if not isinstance(lonlat, bool):
        c.add("map.window.lonlat", f"must be true or false, not {shown(lonlat)}")
        lonlat = False
    if bbox is not None:
        extent = _check_bbox(c, bbox, lonlat)
    if extent is not None and size_ok:
        hexes = extent[0] * extent[1] / (size * size * math.sqrt(3) / 2)
        if hexes > MAX_WINDOW_HEXES:
            c.add(
                "map.window",
                f"about {hexes:,.0f} hexes of {size:g} m, more than the limit of "
                f"{MAX_WINDOW_HEXES:,}; use a smaller window or larger hexes",
            )


def _check_bbox(c: _Checker, b: Any, lonlat: bool) -> tuple[float, float] | None:
    """A window bbox: 4 finite numbers, min < max, sides of at most
    :data:`MAX_WINDOW_M` (degrees: on the globe); its size in metres."""
    field = "map.window.bbox"
    if not isinstance(b, list) or len(b) != 4 or not all(_is_finite(v) for v in b):
        c.add(
            field, f"must be [xmin, ymin, xmax, ymax] (finite numbers), not {shown(b)}"
        )
        return None
    x0, y0, x1, y1 = (float(v) for v in b)
    if not (x0 < x1 and y0 < y1):
        c.add(field, f"{shown(b)} is empty; give [xmin, ymin, xmax, ymax], min < max")
        return None
    if lonlat:
        if not (x0 >= -180 and x1 <= 180 and y0 >= -90 and y1 <= 90):
            c.add(
                field,
                f"{shown(b)}: give [lon0, lat0, lon1, lat1] in degrees "
                "(lon -180–180, lat -90–90)",
            )
            return None
        # metres on the globe (a sphere is close enough for a bound)
        lat = math.radians(max(abs(y0), abs(y1)) if y0 * y1 > 0 else 0.0)
        width = (x1 - x0) * 111_320.0 * math.cos(lat)
        height = (y1 - y0) * 110_574.0
    else:
        width, height = x1 - x0, y1 - y0
    if width > MAX_WINDOW_M or height > MAX_WINDOW_M:
        c.add(
            field,
            f"a window of {width:,.0f} × {height:,.0f} m; each side is at most "
            f"{MAX_WINDOW_M:,.0f} m",
        )
        return None
    return width, height


def _check_position_shape(c: _Checker, item: Mapping[str, Any], label: str) -> None:
    """Shape of hex / lonlat / place (the map checks come later)."""
    h = item.get("hex")
    if h is not None and (not isinstance(h, str) or not _HEX_RE.match(h.upper())):
        c.add(f"{label}.hex", f'must be a hex label such as "Q11", not {shown(h)}')
    ll = item.get("lonlat")
    if ll is not None and (
        not isinstance(ll, list)
        or len(ll) != 2
        or not all(_is_finite(v) for v in ll)
        or not (-180 <= ll[0] <= 180 and -90 <= ll[1] <= 90)
    ):
        c.add(
            f"{label}.lonlat",
            "must be [lon, lat] in degrees (lon -180–180, lat -90–90), not "
            f"{shown(ll)}",
        )
    p = item.get("place")
    if p is not None and (not isinstance(p, str) or not p.strip() or len(p) > MAX_ID):
        c.add(
            f"{label}.place",
            f"must be the name of a place (at most {MAX_ID} characters), not "
            f"{shown(p)}",
        )
    given = [k for k in ("hex", "lonlat", "place") if item.get(k) is not None]
    if len(given) > 1:
        c.add(f"{label}.{given[1]}", f"give only one of {' / '.join(given)}")


def _validate(data: Any, where: str) -> tuple[list[str], Any]:
    """Every structural problem of scenario data (and the ruleset class).

    Sizes first (nesting, counts, long texts), and nothing else while one is
    wrong: a 20,000-unit file is refused before any unit is looked at.
    """
    if not isinstance(data, Mapping):
        return [f"{where}: a scenario must be a table/dict at top level"], None
    try:
        check_depth(data, limit=MAX_DEPTH)  # iterative: before anything recurses
    except ValueError as exc:
        field = getattr(exc, "path", "")
        if field:  # name the key: it may be an unknown one ("map.namee")
            return [f"{where}: {field}: {_too_deep()}"], None
        return [f"{where}: not a valid scenario file: {_too_deep()}"], None
    sized = _size_problems(data, where)
    if sized:
        return sized, None
    try:
        data = json.loads(json.dumps(data))
    except (TypeError, ValueError) as exc:
        return [
            f"{where}: only plain values are allowed (no dates/times; write "
            f'date = "1985-09-14"): {_cut(str(exc), 200)}'
        ], None
    # the rule system first: it says which keys it adds
    ruleset_cls = None
    rid = data.get("ruleset")
    pre: list[str] = []
    if rid is None:
        pre.append(f'{where}: ruleset: missing; e.g. ruleset = "waw-classic"')
    elif not isinstance(rid, str) or len(rid) > MAX_ID:
        pre.append(
            f'{where}: ruleset: must be a rule-system id such as "waw-classic", '
            f"not {shown(rid)}"
        )
    else:
        from .ruleset import available_rulesets, get_ruleset

        try:
            ruleset_cls = get_ruleset(rid)
        except UnknownRulesetError as exc:
            hint = _did_you_mean(rid, available_rulesets())
            pre.append(f"{where}: ruleset: {exc}" + (f" ({hint})" if hint else ""))
        except ImportError as exc:
            pre.append(f"{where}: ruleset: {rid!r} cannot be loaded ({exc})")
    c = _Checker(where, ruleset_cls)
    c.lines += pre
    c.unknown_keys("scenario", data, "")

    fmt = data.get("format", FORMAT_VERSION)
    if not _is_int(fmt) or fmt < 1:
        c.add("format", f"must be a whole number >= 1, not {shown(fmt)}")
    elif fmt > FORMAT_VERSION:
        c.add(
            "format",
            f"format {shown(fmt)} is newer than this wargame reads "
            f"({FORMAT_VERSION}); upgrade wargame",
        )
    sid = data.get("id")
    if sid is None:
        c.add("id", 'missing; give the scenario an id, e.g. id = "remagen_linz"')
    elif not _is_id(sid):
        c.add(
            "id",
            f"{shown(sid)}: use letters, digits and _ . / - (at most {MAX_ID} "
            "characters)",
        )
    for k in _TEXT_FIELDS:
        _text(c, data, k, "")
    turns = data.get("turns")
    turns_ok = _whole(turns, 1, MAX_TURNS)
    if turns is None:
        c.add("turns", "missing; e.g. turns = 8")
    elif not _is_int(turns) or turns < 1:
        c.add("turns", f"must be a whole number >= 1, not {shown(turns)}")
    elif not turns_ok:
        c.add(
            "turns",
            f"{shown(turns)} is more than the limit of {MAX_TURNS:,} turns; "
            f"use 1–{MAX_TURNS}",
        )
    tm = data.get("turn_minutes")
    if tm is not None and not _whole(tm, 1, MAX_TURN_MINUTES):
        c.add(
            "turn_minutes",
            f"must be a whole number of minutes from 1 to {MAX_TURN_MINUTES:,}, "
            f"not {shown(tm)}",
        )
    sr = data.get("special_rules")
    if sr is not None and (
        not isinstance(sr, list) or not all(isinstance(x, str) for x in sr)
    ):
        c.add("special_rules", 'must be a list of texts, e.g. ["No air support."]')
    _check_sub_tables(c, data)
    _check_map(c, data)

    sides = _list_of_tables(
        c, data, "sides", required=True, hint="add at least one [[sides]] table"
    )
    side_ids = _ids(c, "sides", sides)
    for label, s in sides:
        _text(c, s, "name", label)
        _text(c, s, "briefing", label)
        p = s.get("posture")
        if p is not None and p not in _POSTURES:
            c.add(f"{label}.posture", f'{shown(p)}: use "attack" or "defend"')

    forms = _list_of_tables(c, data, "formations", required=False)
    form_ids = _ids(c, "formations", forms)
    for label, f in forms:
        fside = f.get("side")
        if fside is None:
            c.add(f"{label}.side", f"missing; one of the sides {_choices(side_ids)}")
        elif not _ref(fside, side_ids):
            c.add(
                f"{label}.side",
                f"{shown(fside)} is not one of the sides {_choices(side_ids)}",
            )
        chits = f.get("chits", 1)
        if not _is_int(chits) or chits < 0:
            c.add(f"{label}.chits", f"must be a whole number >= 0, not {shown(chits)}")
        elif chits > MAX_CHITS:
            c.add(
                f"{label}.chits",
                f"{chits:,} is more than the limit of {MAX_CHITS} chits; use "
                f"0–{MAX_CHITS}",
            )
        _text(c, f, "name", label)

    units = _list_of_tables(c, data, "units", required=False)
    unit_ids = _ids(c, "units", units)
    for label, u in units:
        fid = u.get("formation")
        uside = u.get("side")
        if fid is not None and not _ref(fid, form_ids):
            hint = c.hint(fid, form_ids) if form_ids else ""
            c.add(
                f"{label}.formation",
                f"{shown(fid)} is not one of the formations {_choices(form_ids)}"
                + (f"; {hint}" if hint else ""),
            )
        elif fid is None and not _ref(uside, side_ids):
            c.add(label, "needs a formation or a side that exists")
        elif (
            fid is not None and uside is not None and uside != form_ids[fid].get("side")
        ):
            c.add(
                f"{label}.side",
                f"{shown(uside)}, but its formation {fid!r} is "
                f"{shown(form_ids[fid].get('side'))}",
            )
        _text(c, u, "name", label)
        t = u.get("type")
        if t is not None and (not isinstance(t, str) or len(t) > MAX_ID):
            c.add(
                f"{label}.type",
                f'must be a unit type id such as "t72" (at most {MAX_ID} '
                f"characters), not {shown(t)}",
            )
        cb = u.get("carried_by")
        if cb is not None and not _ref(cb, unit_ids):
            c.add(f"{label}.carried_by", f"{shown(cb)} is not a unit of the scenario")
        _check_position_shape(c, u, label)
        if cb is not None and any(
            u.get(k) is not None for k in ("hex", "lonlat", "place", "x", "zone")
        ):
            c.add(f"{label}.carried_by", "a carried unit takes its carrier's position")
    for label, f in forms:
        hq = f.get("hq")
        if hq is not None and not _ref(hq, unit_ids):
            c.add(f"{label}.hq", f"{shown(hq)} is not a unit of the scenario")
        elif hq is not None and unit_ids[hq].get("formation") != f.get("id"):
            c.add(f"{label}.hq", f"{hq!r} is not in formation {shown(f.get('id'))}")

    reinf = _list_of_tables(c, data, "reinforcements", required=False)
    arriving: dict[str, str] = {}
    for label, r in reinf:
        t = r.get("turn")
        if t is None:
            c.add(f"{label}.turn", "missing; the turn they arrive, e.g. turn = 3")
        elif not _is_int(t) or t < 1:
            c.add(f"{label}.turn", f"must be a whole number >= 1, not {shown(t)}")
        elif turns_ok and t > turns:
            c.add(
                f"{label}.turn",
                f"turn {shown(t)} is after the last turn ({turns}); use 1–{turns}",
            )
        elif not turns_ok and t > MAX_TURNS:
            c.add(f"{label}.turn", f"must be a turn from 1 to {MAX_TURNS}")
        ids = r.get("units")
        if ids is None:
            c.add(f"{label}.units", "missing; the ids of the arriving [[units]]")
            ids = []
        elif not isinstance(ids, list) or not ids:
            c.add(f"{label}.units", "must be a non-empty list of unit ids")
            ids = []
        for uid in ids:
            if not _ref(uid, unit_ids):
                hint = c.hint(uid, unit_ids)
                c.add(
                    f"{label}.units",
                    f"{shown(uid)} is not a unit of the scenario"
                    + (f"; {hint}" if hint else ""),
                )
                continue
            if uid in arriving:
                c.add(f"{label}.units", f"{uid!r} already arrives with {arriving[uid]}")
                continue
            arriving[uid] = label
            u = unit_ids[uid]
            if any(
                u.get(k) is not None
                for k in ("hex", "lonlat", "place", "x", "y", "zone")
            ):
                named = (
                    "x/y/lonlat/place/zone"
                    if c.positions == "point"
                    else "hex/lonlat/place"
                )
                where_in = "positions" if c.positions == "point" else "hexes"
                c.add(
                    f"{label}.units",
                    f"{uid!r} also has a set-up position; reinforcements enter at "
                    f"the entry {where_in}, remove its {named}",
                )
        entry = r.get("entry")
        if entry is None:
            c.add(f"{label}.entry", 'missing; e.g. entry = ["A12", {place = "Sinzig"}]')
        elif not isinstance(entry, list) or not entry:
            c.add(f"{label}.entry", "must be a non-empty list of positions")
        else:
            keys = _POSITION_KEYS["point" if c.positions == "point" else "hex"]
            for j, e in enumerate(entry):
                if isinstance(e, str) and c.positions != "point":
                    e = {"hex": e}
                if not isinstance(e, Mapping):
                    c.add(
                        f"{label}.entry[{j}]",
                        (
                            "must be a table {x, y}, {lonlat} or {place} (plus "
                            "dx/dy or bearing/distance_m)"
                            if c.positions == "point"
                            else "must be a hex label or a table"
                        )
                        + f", not {shown(e)}",
                    )
                    continue
                bad = sorted(str(k) for k in set(e) - set(keys))
                for k in bad:
                    hint = c.hint(k, keys)
                    c.add(
                        f"{label}.entry[{j}].{k}",
                        "unknown key" + (f"; {hint}" if hint else ""),
                    )
                _check_position_shape(c, e, f"{label}.entry[{j}]")
    for label, u in units:
        uid = u.get("id")
        cb = u.get("carried_by")
        if (
            _ref(uid, arriving)
            and _ref(cb, unit_ids)
            and arriving.get(str(cb)) != arriving[str(uid)]
        ):
            c.add(
                f"{label}.carried_by",
                f"{uid!r} arrives as a reinforcement, so its carrier {cb!r} must "
                "arrive in the same group",
            )

    objs = _list_of_tables(c, data, "objectives", required=False)
    for label, o in objs:
        _text(c, o, "name", label)
        oid = o.get("id")
        if oid is not None and not _is_id(oid):
            c.add(
                f"{label}.id",
                f"{shown(oid)}: use letters, digits and _ . / - (at most {MAX_ID} "
                "characters)",
            )
        vp = o.get("vp", 1)
        if not _is_int(vp):
            c.add(f"{label}.vp", f"must be a whole number, not {shown(vp)}")
        elif abs(vp) > MAX_VP:
            c.add(
                f"{label}.vp",
                f"{vp:,} is beyond the limit of ±{MAX_VP:,} victory points; use "
                f"-{MAX_VP:,}–{MAX_VP:,}",
            )
        owner = o.get("controlled_by")
        if owner is not None and not _ref(owner, side_ids):
            c.add(
                f"{label}.controlled_by",
                f"{shown(owner)} is not one of the sides {_choices(side_ids)}",
            )
        _check_position_shape(c, o, label)
    if c.positions == "point":
        from .placement import point_shape_problems

        c.lines += point_shape_problems(data, where)
    return c.lines, data


def load_scenario(source: str | Path | Mapping[str, Any]) -> Scenario:
    """Read a scenario from a TOML/JSON file or a dict and check its common parts.

    Args:
        source: a path to a ``.toml`` or ``.json`` file, a scenario name found in
            :func:`scenario_dirs` (e.g. ``"test_remagen"``), or the data itself.

    Raises:
        ScenarioError: every problem found, one per line, each naming the file,
            the field and the fix (``exc.problems`` holds the lines).
    """
    data, where = _read(source)
    problems, clean = _validate(data, where)
    if problems:
        raise ScenarioError(problems)
    return Scenario(clean, where)


def check_scenario(source: str | Path | Mapping[str, Any] | Scenario) -> list[str]:
    """Every problem of a scenario, common and rule-specific (empty: all good).

    Loads the map and asks the rule system's ``scenario_problems`` hook, so
    hexes, unit types, stacking and the like are checked too; plays nothing.

    Examples:
        >>> check_scenario("test_remagen")
        []
    """
    if isinstance(source, Scenario):
        scenario = source
    else:
        try:
            scenario = load_scenario(source)
        except ScenarioError as exc:
            return list(exc.problems)
    try:
        game_map = scenario.load_map()
    except ScenarioError as exc:
        return list(exc.problems)
    from .ruleset import get_ruleset

    cls = get_ruleset(scenario.ruleset)
    hook = getattr(cls, "scenario_problems", None)
    if hook is not None:
        return list(hook(scenario, game_map))
    try:
        cls(scenario, game_map)
    except ScenarioError as exc:
        return list(exc.problems)
    return []


def objective_id(raw: Mapping[str, Any], index: int) -> str:
    """The stable id of the ``index``-th ``[[objectives]]`` table: its ``id``,
    else its ``hex``, its ``name`` or its ``place``, else ``objective<n>``.

    Batch result columns (``held_<id>``) and rule systems' objective control use
    it, whatever way the scenario places the objective.

    Examples:
        >>> objective_id({"name": "Heimersheim", "place": "Heimersheim"}, 0)
        'Heimersheim'
        >>> objective_id({"hex": "K12", "name": "bridge"}, 1), objective_id({}, 2)
        ('K12', 'objective3')
    """
    for key in ("id", "hex", "name", "place"):
        v = raw.get(key)
        if isinstance(v, str) and v:
            return v
    return f"objective{index + 1}"


def common_keys(table: str) -> tuple[str, ...]:
    """The keys the engine itself reads in a scenario table (``"units"``...);
    rule systems add theirs in ``scenario_keys``.

    Examples:
        >>> "controlled_by" in common_keys("objectives")
        True
    """
    return _COMMON.get(table, ())
