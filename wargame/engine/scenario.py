"""Scenarios: a TOML file (or a dict of the same shape) describing one game.

The loader here is deliberately small: it reads the file, checks the parts every
rule system shares (ruleset id, map, turns, sides, formations, units, objectives)
and leaves rule-specific checks (unit types, hexes, stacking) to the rule system,
which reports them through :meth:`Scenario.error` so that every message names the
file and the field.  A fuller validated format comes with the scenarios issue.

Shape (TOML)::

    id = "test-remagen"
    title = "..."
    ruleset = "waw-classic"
    turns = 4
    [map]                       # optional: no map for map-less toy games
    name = "rhine-remagen"
    hex_size_m = 150
    window = "Remagen"          # a place, or {place=..., width_m=..., height_m=...}
    [[sides]]       id, name, ... (rule-specific keys allowed)
    [[formations]]  id, side, name, hq (unit id), chits
    [[units]]       id, name, type, formation (or side), hex (or x/y), ...
    [[objectives]]  hex, vp, name, controlled_by
    [victory]       rule-specific
    [rules]         rule-specific options

Examples:
    >>> s = load_scenario({"id": "t", "ruleset": "waw-classic", "turns": 1,
    ...     "sides": [{"id": "a", "name": "A"}, {"id": "b", "name": "B"}]})
    >>> s.id, [x["id"] for x in s.sides], s.source
    ('t', ['a', 'b'], '<dict>')
"""

from __future__ import annotations

import copy
import json
import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from .errors import ScenarioError

__all__ = ["Scenario", "available_scenarios", "load_scenario", "scenario_dirs"]


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

    @property
    def ruleset(self) -> str:
        """Rule-system id, e.g. ``"waw-classic"``."""
        return str(self.data["ruleset"])

    @property
    def turns(self) -> int:
        """Number of game turns."""
        return int(self.data["turns"])

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

    def section(self, name: str) -> dict[str, Any]:
        """A table such as ``[victory]`` or ``[rules]`` (empty if absent)."""
        value = self.data.get(name, {})
        return dict(value) if isinstance(value, Mapping) else {}

    def error(self, where: str, problem: str) -> ScenarioError:
        """A :class:`ScenarioError` naming the file, the field and the problem."""
        return ScenarioError(f"{self.source}: {where}: {problem}")

    # -- map ---------------------------------------------------------------- #
    @property
    def map_spec(self) -> dict[str, Any] | None:
        """The ``[map]`` table, or ``None`` for a map-less game."""
        spec = self.data.get("map")
        return dict(spec) if isinstance(spec, Mapping) else None

    def load_map(self) -> Any:
        """Load (once per process, then shared) the scenario's map window."""
        spec = self.map_spec
        if spec is None:
            return None
        key = json.dumps(spec, sort_keys=True)
        try:
            return _load_map_cached(key)
        except ValueError as exc:
            raise self.error("map", str(exc)) from None

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


def _check_list(s: Scenario, name: str, *, required: bool) -> list[dict[str, Any]]:
    raw = s.data.get(name)
    if raw is None:
        if required:
            raise s.error(name, f"missing; add at least one [[{name}]] table")
        return []
    if not isinstance(raw, list) or not all(isinstance(x, Mapping) for x in raw):
        raise s.error(name, f"must be a list of tables ([[{name}]])")
    seen: set[str] = set()
    for i, item in enumerate(raw):
        if name == "objectives":
            continue
        ident = item.get("id")
        if not isinstance(ident, str) or not ident:
            raise s.error(f"{name}[{i}]", "needs a non-empty string 'id'")
        if ident in seen:
            raise s.error(f"{name}[{i}]", f"duplicate id {ident!r}")
        seen.add(ident)
    return list(raw)


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


def load_scenario(source: str | Path | Mapping[str, Any]) -> Scenario:
    """Read a scenario from a TOML/JSON file or a dict and check its common parts.

    Args:
        source: a path to a ``.toml`` or ``.json`` file, a scenario name found in
            :func:`scenario_dirs` (e.g. ``"test_remagen"``), or the data itself.

    Raises:
        ScenarioError: naming the file, the field and the problem.
    """
    if isinstance(source, Mapping):
        data: Any = copy.deepcopy(dict(source))
        where = "<dict>"
    else:
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
            if path.suffix.lower() == ".json":
                data = json.loads(raw)
            else:
                data = tomllib.loads(raw.decode("utf-8"))
        except (ValueError, UnicodeDecodeError) as exc:
            raise ScenarioError(f"{where}: not a valid scenario file: {exc}") from None
    if not isinstance(data, Mapping):
        raise ScenarioError(f"{where}: a scenario must be a table/dict at top level")
    try:
        data = json.loads(json.dumps(data))
    except (TypeError, ValueError) as exc:
        raise ScenarioError(
            f"{where}: only plain values are allowed (no dates/times): {exc}"
        ) from None
    s = Scenario(data, where)
    if not isinstance(data.get("ruleset"), str):
        raise s.error("ruleset", 'missing; e.g. ruleset = "waw-classic"')
    turns = data.get("turns")
    if not isinstance(turns, int) or isinstance(turns, bool) or turns < 1:
        raise s.error("turns", f"must be a whole number >= 1, not {turns!r}")
    spec = data.get("map")
    if spec is not None and not isinstance(spec, Mapping):
        raise s.error("map", "must be a table with name, hex_size_m and window")
    sides = _check_list(s, "sides", required=True)
    side_ids = {x["id"] for x in sides}
    formations = _check_list(s, "formations", required=False)
    for i, f in enumerate(formations):
        if f.get("side") not in side_ids:
            raise s.error(
                f"formations[{i}] ({f['id']!r}).side",
                f"{f.get('side')!r} is not one of the sides {sorted(side_ids)}",
            )
        chits = f.get("chits", 1)
        if not isinstance(chits, int) or isinstance(chits, bool) or chits < 0:
            raise s.error(f"formations[{i}] ({f['id']!r}).chits", "must be >= 0")
    form_ids = {f["id"] for f in formations}
    for i, u in enumerate(_check_list(s, "units", required=False)):
        fid = u.get("formation")
        if fid is not None and fid not in form_ids:
            raise s.error(
                f"units[{i}] ({u['id']!r}).formation",
                f"{fid!r} is not one of the formations {sorted(form_ids)}",
            )
        if fid is None and u.get("side") not in side_ids:
            raise s.error(
                f"units[{i}] ({u['id']!r})",
                "needs a formation or a side that exists",
            )
    _check_list(s, "objectives", required=False)
    return s
