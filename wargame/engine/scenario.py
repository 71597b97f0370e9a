"""Scenarios: a TOML file (or a dict of the same shape) describing one game.

A scenario is validated in two steps, each reporting *every* problem it finds
as one line ``<file>: <field>: <what is wrong and how to fix it>``:

1. :func:`load_scenario` reads the file (malformed TOML is reported with its line
   and column) and checks what every rule system shares: required fields, types,
   unknown keys (with a "did you mean"), the ruleset id, cross-references between
   sides, formations, units and reinforcements, and turn numbers;
2. :func:`check_scenario` also loads the map and asks the rule system (through
   its :meth:`~wargame.engine.RulesetBase.scenario_problems` hook) for the
   rule-specific problems: unit types, hexes or lon/lat off the map, units in
   the water, stacks over the limit, objectives off the map...
   :class:`~wargame.engine.Game` runs the same checks when it starts.

The engine knows the *common* keys (below).  A rule system declares the keys it
adds or plays in its ``scenario_keys`` class attribute; a key that neither the
engine nor the rule system knows is an error, so nothing in a file is silently
ignored.  A rule system without ``scenario_keys`` accepts any extra key (toy and
third-party systems).  The full format, with an annotated example, is in
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
import os
import re
import tomllib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from .errors import ScenarioError, UnknownRulesetError

__all__ = [
    "FORMAT_VERSION",
    "Scenario",
    "available_scenarios",
    "check_scenario",
    "load_scenario",
    "locate_hex",
    "scenario_dirs",
]

#: Version of the scenario format this engine reads (``format = 1``).
FORMAT_VERSION = 1

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
_POSITION_KEYS = {"hex": ("hex", "lonlat", "place"), "point": ("x", "y", "lonlat")}
_HEX_RE = re.compile(r"^[A-Z]{1,3}[0-9]{1,3}$")
_ID_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_./\-]*$")
_POSTURES = ("attack", "defend")


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
        return list(self.data.get("sides", []))

    @property
    def formations(self) -> list[dict[str, Any]]:
        """The ``[[formations]]`` tables."""
        return list(self.data.get("formations", []))

    @property
    def units(self) -> list[dict[str, Any]]:
        """The ``[[units]]`` tables."""
        return list(self.data.get("units", []))

    @property
    def objectives(self) -> list[dict[str, Any]]:
        """The ``[[objectives]]`` tables."""
        return list(self.data.get("objectives", []))

    @property
    def reinforcements(self) -> list[dict[str, Any]]:
        """The ``[[reinforcements]]`` tables."""
        return list(self.data.get("reinforcements", []))

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

        Raises:
            ScenarioError: unknown map, or a window that is not on it.
        """
        spec = self.map_spec
        if spec is None:
            return None
        key = json.dumps(spec, sort_keys=True)
        try:
            return _load_map_cached(key)
        except ValueError as exc:
            text = str(exc)
            where = "map.window" if ("window" in text or "place" in text) else "map"
            raise self.error(where, text) from None

    def to_dict(self) -> dict[str, Any]:
        """A deep copy of the data (stored in save files)."""
        return copy.deepcopy(dict(self.data))


@lru_cache(maxsize=8)
def _load_map_cached(spec_json: str) -> Any:
    from wargame.geo.maps import load_map

    spec = json.loads(spec_json)
    return load_map(
        spec.get("name", "rhine-remagen"),
        hex_size_m=float(spec.get("hex_size_m", 150.0)),
        window=spec.get("window"),
    )


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
    path = Path(source)
    if path.exists() or isinstance(source, Path) or path.suffix or len(path.parts) > 1:
        return path
    for d in scenario_dirs():
        if (d / f"{source}.toml").is_file():
            return d / f"{source}.toml"
    return path


_TOML_AT = re.compile(r"\s*\(at line (\d+), column (\d+)\)\s*$")


def _read(source: str | Path | Mapping[str, Any]) -> tuple[Any, str]:
    """The raw data and its name for messages (raises on unreadable files)."""
    if isinstance(source, Mapping):
        return copy.deepcopy(dict(source)), "<dict>"
    path = _resolve(source)
    where = str(path)
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        known = ", ".join(available_scenarios()) or "(none)"
        raise ScenarioError(
            f"{where}: no such scenario file (scenarios by name: {known})"
        ) from None
    except OSError as exc:
        raise ScenarioError(f"{where}: cannot read the file ({exc})") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ScenarioError(
            f"{where}: not a valid scenario file: not UTF-8 text ({exc})"
        ) from None
    if path.suffix.lower() == ".json":
        try:
            return json.loads(text), where
        except ValueError as exc:
            raise ScenarioError(
                f"{where}: not a valid scenario file: malformed JSON: {exc}"
            ) from None
    try:
        return tomllib.loads(text), where
    except tomllib.TOMLDecodeError as exc:
        msg = str(exc)
        m = _TOML_AT.search(msg)
        if m:
            at = f"line {m.group(1)}, column {m.group(2)}"
            msg = msg[: m.start()]
        else:
            at = "end of file" if "end of document" in msg else "unknown position"
            msg = msg.replace("(at end of document)", "").strip()
        raise ScenarioError(
            f"{where}: not a valid scenario file: malformed TOML at {at}: {msg}"
        ) from None


# --------------------------------------------------------------------------- #
# validation                                                                  #
# --------------------------------------------------------------------------- #


def _did_you_mean(word: str, choices: Iterable[str]) -> str:
    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return f"did you mean {close[0]!r}?" if close else ""


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _is_num(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool)


class _Checker:
    """Collects problems: one line each, naming the file and the field."""

    def __init__(self, where: str, ruleset_cls: Any) -> None:
        self.where = where
        self.lines: list[str] = []
        self.keys: Mapping[str, Iterable[str]] | None = None
        self.positions = "hex"
        self.lenient = True
        if ruleset_cls is not None:
            self.keys = getattr(ruleset_cls, "scenario_keys", None)
            self.positions = str(getattr(ruleset_cls, "positions", "hex"))
            self.lenient = self.keys is None

    def add(self, field: str, text: str) -> None:
        self.lines.append(f"{self.where}: {field}: {text}")

    def allowed(self, table: str) -> set[str] | None:
        """Keys allowed in a table (``None``: anything goes)."""
        if self.lenient:
            return None
        assert self.keys is not None
        extra = set(self.keys.get(table, ()))
        if table == "scenario":
            return set(_TOP_CORE) | extra
        base = set(_COMMON.get(table, ()))
        if table in ("units", "objectives", "reinforcements"):
            base |= set(_POSITION_KEYS.get(self.positions, ()))
        if table == "reinforcements":
            base -= {"hex", "lonlat", "place", "x", "y"}
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
            hint = _did_you_mean(str(key), allowed)
            self.add(name, "unknown key" + (f"; {hint}" if hint else ""))


def _label(table: str, i: int, item: Any) -> str:
    if isinstance(item, Mapping):
        ident = item.get("id")
        if table == "objectives" and not isinstance(ident, str):
            ident = item.get("name")
        if isinstance(ident, str) and ident:
            return f"{table}[{i}] ({ident!r})"
    return f"{table}[{i}]"


def _text(c: _Checker, data: Mapping[str, Any], key: str, label: str) -> None:
    value = data.get(key)
    if value is not None and not isinstance(value, str):
        c.add(f"{label}.{key}" if label else key, f"must be text, not {value!r}")


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
        if not isinstance(ident, str) or not _ID_RE.match(ident):
            c.add(
                f"{label}.id",
                f'{ident!r}: use letters, digits and _ . / - (e.g. "SU-T1")',
            )
            continue
        if ident in seen:
            c.add(f"{name}[{i}]", f"duplicate id {ident!r}")
            continue
        seen[ident] = item
    return seen


def _check_map(c: _Checker, data: Mapping[str, Any]) -> None:
    spec = data.get("map")
    if spec is None:
        return
    if not isinstance(spec, Mapping):
        c.add("map", "must be a table with name, hex_size_m and window")
        return
    c.unknown_keys("map", spec, "map")
    name = spec.get("name", "rhine-remagen")
    if not isinstance(name, str):
        c.add("map.name", f'must be a map name such as "rhine-remagen", not {name!r}')
    size = spec.get("hex_size_m", 150)
    if not _is_num(size) or size <= 0:
        c.add("map.hex_size_m", f"must be a positive number of metres, not {size!r}")
    w = spec.get("window")
    if w is None or isinstance(w, str):
        return
    if not isinstance(w, Mapping):
        c.add(
            "map.window",
            "must be a place name or a table {place, width_m, height_m} or "
            "{bbox = [xmin, ymin, xmax, ymax], lonlat}",
        )
        return
    c.unknown_keys("window", w, "map.window")
    if (w.get("place") is None) == (w.get("bbox") is None):
        c.add("map.window", "give either place or bbox")
    for k in ("width_m", "height_m"):
        v = w.get(k)
        if v is not None and (not _is_num(v) or v <= 0):
            c.add(f"map.window.{k}", f"must be a positive number of metres, not {v!r}")
    b = w.get("bbox")
    if b is not None and (
        not isinstance(b, list) or len(b) != 4 or not all(_is_num(v) for v in b)
    ):
        c.add("map.window.bbox", f"must be [xmin, ymin, xmax, ymax], not {b!r}")


def _check_position_shape(c: _Checker, item: Mapping[str, Any], label: str) -> None:
    """Shape of hex / lonlat / place (the map checks come later)."""
    h = item.get("hex")
    if h is not None and (not isinstance(h, str) or not _HEX_RE.match(h.upper())):
        c.add(f"{label}.hex", f'must be a hex label such as "Q11", not {h!r}')
    ll = item.get("lonlat")
    if ll is not None and (
        not isinstance(ll, list) or len(ll) != 2 or not all(_is_num(v) for v in ll)
    ):
        c.add(f"{label}.lonlat", f"must be [lon, lat] in degrees, not {ll!r}")
    p = item.get("place")
    if p is not None and (not isinstance(p, str) or not p.strip()):
        c.add(f"{label}.place", f"must be the name of a place, not {p!r}")
    given = [k for k in ("hex", "lonlat", "place") if item.get(k) is not None]
    if len(given) > 1:
        c.add(f"{label}.{given[1]}", f"give only one of {' / '.join(given)}")


def _validate(data: Any, where: str) -> tuple[list[str], Any]:
    """Every structural problem of scenario data (and the ruleset class)."""
    if not isinstance(data, Mapping):
        return [f"{where}: a scenario must be a table/dict at top level"], None
    try:
        data = json.loads(json.dumps(data))
    except (TypeError, ValueError) as exc:
        return [
            f"{where}: only plain values are allowed (no dates/times; write "
            f'date = "1985-09-14"): {exc}'
        ], None
    # the rule system first: it says which keys it adds
    ruleset_cls = None
    rid = data.get("ruleset")
    pre: list[str] = []
    if rid is None:
        pre.append(f'{where}: ruleset: missing; e.g. ruleset = "waw-classic"')
    elif not isinstance(rid, str):
        pre.append(f'{where}: ruleset: must be a rule-system id such as "waw-classic"')
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
        c.add("format", f"must be a whole number >= 1, not {fmt!r}")
    elif fmt > FORMAT_VERSION:
        c.add(
            "format",
            f"format {fmt} is newer than this wargame reads ({FORMAT_VERSION}); "
            "upgrade wargame",
        )
    sid = data.get("id")
    if sid is None:
        c.add("id", 'missing; give the scenario an id, e.g. id = "remagen_linz"')
    elif not isinstance(sid, str) or not _ID_RE.match(sid):
        c.add("id", f"{sid!r}: use letters, digits and _ . / -")
    for k in _TEXT_FIELDS:
        _text(c, data, k, "")
    turns = data.get("turns")
    turns_ok = _is_int(turns) and turns >= 1
    if turns is None:
        c.add("turns", "missing; e.g. turns = 8")
    elif not turns_ok:
        c.add("turns", f"must be a whole number >= 1, not {turns!r}")
    tm = data.get("turn_minutes")
    if tm is not None and (not _is_int(tm) or tm < 1):
        c.add("turn_minutes", f"must be a whole number of minutes >= 1, not {tm!r}")
    sr = data.get("special_rules")
    if sr is not None and (
        not isinstance(sr, list) or not all(isinstance(x, str) for x in sr)
    ):
        c.add("special_rules", 'must be a list of texts, e.g. ["No air support."]')
    for k in ("victory", "rules", "overrides"):
        v = data.get(k)
        if v is not None and not isinstance(v, Mapping):
            c.add(k, f"must be a table ([{k}])")
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
            c.add(f"{label}.posture", f'{p!r}: use "attack" or "defend"')

    forms = _list_of_tables(c, data, "formations", required=False)
    form_ids = _ids(c, "formations", forms)
    for label, f in forms:
        if f.get("side") is None:
            c.add(f"{label}.side", f"missing; one of the sides {sorted(side_ids)}")
        elif f.get("side") not in side_ids:
            c.add(
                f"{label}.side",
                f"{f.get('side')!r} is not one of the sides {sorted(side_ids)}",
            )
        chits = f.get("chits", 1)
        if not _is_int(chits) or chits < 0:
            c.add(f"{label}.chits", f"must be a whole number >= 0, not {chits!r}")
        _text(c, f, "name", label)

    units = _list_of_tables(c, data, "units", required=False)
    unit_ids = _ids(c, "units", units)
    unit_side: dict[str, Any] = {}
    for label, u in units:
        fid = u.get("formation")
        if fid is not None and fid not in form_ids:
            c.add(
                f"{label}.formation",
                f"{fid!r} is not one of the formations {sorted(form_ids)}"
                + (f"; {_did_you_mean(str(fid), form_ids)}" if form_ids else ""),
            )
        elif fid is None and u.get("side") not in side_ids:
            c.add(label, "needs a formation or a side that exists")
        elif (
            fid is not None
            and u.get("side") is not None
            and u.get("side") != form_ids[fid].get("side")
        ):
            c.add(
                f"{label}.side",
                f"{u['side']!r}, but its formation {fid!r} is "
                f"{form_ids[fid].get('side')!r}",
            )
        if isinstance(u.get("id"), str):
            unit_side[u["id"]] = (
                form_ids[fid].get("side") if fid in form_ids else u.get("side")
            )
        _text(c, u, "name", label)
        t = u.get("type")
        if t is not None and not isinstance(t, str):
            c.add(f"{label}.type", f'must be a unit type id such as "t72", not {t!r}')
        cb = u.get("carried_by")
        if cb is not None and cb not in unit_ids:
            c.add(f"{label}.carried_by", f"{cb!r} is not a unit of the scenario")
        _check_position_shape(c, u, label)
        if cb is not None and any(
            u.get(k) is not None for k in ("hex", "lonlat", "place")
        ):
            c.add(f"{label}.carried_by", "a carried unit takes its carrier's position")
    for label, f in forms:
        hq = f.get("hq")
        if hq is not None and hq not in unit_ids:
            c.add(f"{label}.hq", f"{hq!r} is not a unit of the scenario")
        elif hq is not None and unit_ids[hq].get("formation") != f.get("id"):
            c.add(f"{label}.hq", f"{hq!r} is not in formation {f.get('id')!r}")

    reinf = _list_of_tables(c, data, "reinforcements", required=False)
    arriving: dict[str, str] = {}
    for label, r in reinf:
        t = r.get("turn")
        if t is None:
            c.add(f"{label}.turn", "missing; the turn they arrive, e.g. turn = 3")
        elif not _is_int(t) or t < 1:
            c.add(f"{label}.turn", f"must be a whole number >= 1, not {t!r}")
        elif turns_ok and t > turns:
            c.add(
                f"{label}.turn",
                f"turn {t} is after the last turn ({turns}); use 1–{turns}",
            )
        ids = r.get("units")
        if ids is None:
            c.add(f"{label}.units", "missing; the ids of the arriving [[units]]")
            ids = []
        elif not isinstance(ids, list) or not ids:
            c.add(f"{label}.units", "must be a non-empty list of unit ids")
            ids = []
        for uid in ids:
            if uid not in unit_ids:
                hint = _did_you_mean(str(uid), unit_ids)
                c.add(
                    f"{label}.units",
                    f"{uid!r} is not a unit of the scenario"
                    + (f"; {hint}" if hint else ""),
                )
                continue
            if uid in arriving:
                c.add(f"{label}.units", f"{uid!r} already arrives with {arriving[uid]}")
                continue
            arriving[uid] = label
            u = unit_ids[uid]
            if any(u.get(k) is not None for k in ("hex", "lonlat", "place", "x", "y")):
                c.add(
                    f"{label}.units",
                    f"{uid!r} also has a set-up position; reinforcements enter at "
                    "the entry hexes, remove its hex/lonlat/place",
                )
        entry = r.get("entry")
        if entry is None:
            c.add(f"{label}.entry", 'missing; e.g. entry = ["A12", {place = "Sinzig"}]')
        elif not isinstance(entry, list) or not entry:
            c.add(f"{label}.entry", "must be a non-empty list of positions")
        else:
            for j, e in enumerate(entry):
                if isinstance(e, str):
                    e = {"hex": e}
                if not isinstance(e, Mapping):
                    c.add(
                        f"{label}.entry[{j}]",
                        f"must be a hex label or a table, not {e!r}",
                    )
                    continue
                bad = sorted(set(e) - {"hex", "lonlat", "place"})
                for k in bad:
                    hint = _did_you_mean(str(k), ("hex", "lonlat", "place"))
                    c.add(
                        f"{label}.entry[{j}].{k}",
                        "unknown key" + (f"; {hint}" if hint else ""),
                    )
                _check_position_shape(c, e, f"{label}.entry[{j}]")
    for label, u in units:
        uid = u.get("id")
        cb = u.get("carried_by")
        if uid in arriving and cb is not None and arriving.get(cb) != arriving[uid]:
            c.add(
                f"{label}.carried_by",
                f"{uid!r} arrives as a reinforcement, so its carrier {cb!r} must "
                "arrive in the same group",
            )

    objs = _list_of_tables(c, data, "objectives", required=False)
    for label, o in objs:
        _text(c, o, "name", label)
        vp = o.get("vp", 1)
        if not _is_int(vp):
            c.add(f"{label}.vp", f"must be a whole number, not {vp!r}")
        owner = o.get("controlled_by")
        if owner is not None and owner not in side_ids:
            c.add(
                f"{label}.controlled_by",
                f"{owner!r} is not one of the sides {sorted(side_ids)}",
            )
        _check_position_shape(c, o, label)
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
