"""Variants: named sets of overrides applied to a scenario, checked up front.

A variant is a dict of parameters; each changes one thing of the scenario (or the
policy of a side).  Parameters are dotted paths, or the same as nested tables
(``{"rules": {"first_side": "nato"}}`` is ``{"rules.first_side": "nato"}``, which
is also what ``rules.first_side = "nato"`` means in a TOML variants file):

============================  ===================================================
``turns``                     the turn limit
``rules.<option>``            an option of the rule system (``[rules]`` table)
``victory.<option>``          a victory condition (``[victory]`` table)
``units.<unit id>.<field>``   a field of a unit: ``type``, ``hex``, ``strength``...
``add_units``                 a list of unit tables added to the order of battle
``remove_units``              a list of unit ids taken out (with what they carry)
``formations.<id>.<field>``   a field of a formation, e.g. ``chits``
``objectives.<id>.<field>``   a field of an objective (its id, hex or name):
                              ``vp``, ``controlled_by``
``overrides.<table>.<...>``   a value of the rule system's data for this scenario:
                              for World at War ``overrides.units.<type>.<value>``
                              (a counter value, e.g. ``overrides.units.t72.full.
                              ap.fp``) and ``overrides.terrain.<class>.<value>``
``policies.<side>``           the policy of a side: ``"random"`` or a table
============================  ===================================================

Overrides of counter or terrain values are checked as the scenario's own
``[overrides]`` tables are (unknown types and keys, bad values); one the variant
does not explain gets the rationale "batch variant '<name>'".

Unknown parameters (a misspelt option, a unit that does not exist, a field the
rule system does not read) are rejected with the name of the parameter and the
nearest valid ones; then the changed scenario is checked by the rule system
itself, so a bad hex or unit type is reported before any game runs.

Examples:
    >>> from wargame.engine import load_scenario
    >>> base = load_scenario("test_remagen")
    >>> v = build_variant(base, "long", {"turns": 6, "rules.first_side": "nato"})
    >>> v.scenario["turns"], v.scenario["rules"]["first_side"]
    (6, 'nato')
    >>> try:
    ...     build_variant(base, "x", {"rule.first_side": "nato"})
    ... except BatchError as exc:
    ...     print(exc)
    variant 'x': unknown parameter 'rule.first_side' (did you mean rules.first_side?)
    >>> v = build_variant(base, "hot", {"overrides.units.t72.full.ap.fp": 6})
    >>> v.scenario["overrides"]["units"]["t72"]
    {'rationale': "batch variant 'hot'", 'full': {'ap': {'fp': 6}}}
    >>> list(variant_grid({"turns": [4, 6], "rules.first_side": ["nato", "pact"]}))[:2]
    ['turns=4, rules.first_side=nato', 'turns=4, rules.first_side=pact']
"""

from __future__ import annotations

import copy
import difflib
import hashlib
import itertools
import json
import tomllib
from collections.abc import Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from wargame.engine import Scenario, ScenarioError, get_ruleset, load_scenario
from wargame.engine.files import (
    MAX_DEPTH,
    InputFileError,
    check_depth,
    parse_json,
    read_limited,
)
from wargame.engine.scenario import common_keys, objective_id

from .policies import PolicySpec, policy_label, policy_spec

__all__ = [
    "BatchError",
    "Variant",
    "build_variant",
    "load_variants",
    "scenario_hash",
    "variant_grid",
]


class BatchError(ValueError):
    """A batch that cannot run as asked (bad variant, n_games, out folder...)."""


#: Fields of the ``[[units]]``, ``[[formations]]`` and ``[[objectives]]`` tables the
#: engine itself reads, for rule systems that declare nothing more.
_GENERIC = {
    "unit": frozenset(
        {"name", "type", "formation", "side", "hex", "x", "y", "carried_by"}
    ),
    "formation": frozenset({"name", "hq", "chits"}),
    "objective": frozenset({"name", "vp", "controlled_by"}),
}
#: Scenario tables and the option group of their rows.
_TABLES = {"unit": "units", "formation": "formations", "objective": "objectives"}
#: Position keys a variant may change, by the rule system's ``positions``.
_POSITION = {"hex": frozenset({"hex"}), "point": frozenset({"x", "y"})}


def _options(base: Scenario) -> dict[str, frozenset[str]]:
    """What a variant may change: the scenario keys the engine and the rule
    system read (its ``scenario_keys``), or for a rule system that declares
    none, the generic fields plus whatever the scenario already sets."""
    try:
        cls = get_ruleset(base.ruleset)
    except ValueError:
        cls = None
    declared = getattr(cls, "scenario_options", None)
    if isinstance(declared, Mapping):
        return {k: frozenset(v) for k, v in declared.items()}
    keys = getattr(cls, "scenario_keys", None)
    opts: dict[str, frozenset[str]]
    if isinstance(keys, Mapping):
        where = _POSITION.get(str(getattr(cls, "positions", "hex")), frozenset())
        opts = {
            group: (frozenset(common_keys(table)) | frozenset(keys.get(table, ())))
            - {"id", "note"}
            | (where if group == "unit" else frozenset())
            for group, table in _TABLES.items()
        }
        if "overrides" in keys:
            opts["overrides"] = frozenset(keys["overrides"])
    else:

        def present(tables: Sequence[Mapping[str, Any]]) -> set[str]:
            return {k for t in tables for k in t if k != "id"}

        opts = {
            "rules": frozenset(base.section("rules")),
            "victory": frozenset(base.section("victory")),
            "unit": _GENERIC["unit"] | present(base.units),
            "formation": _GENERIC["formation"] | present(base.formations),
            "objective": _GENERIC["objective"] | present(base.objectives),
        }
    # the [rules] and [victory] options the rule system declares it reads
    keys = getattr(cls, "scenario_keys", None)
    if isinstance(keys, Mapping):
        for table in ("rules", "victory"):
            if table in keys:
                opts[table] = frozenset(keys[table])
    return opts


@dataclass(frozen=True)
class Variant:
    """One experiment of a batch: a name, its overrides and the changed scenario.

    Attributes:
        name: the variant name (the ``variant`` column of the results).
        overrides: the parameters as given, normalised to dotted paths.
        scenario: the scenario data with the overrides applied.
        source: where the scenario came from, with the variant name.
        policies: the policy spec of each side.
    """

    name: str
    overrides: dict[str, Any]
    scenario: dict[str, Any]
    source: str
    policies: dict[str, PolicySpec] = field(default_factory=dict)

    @property
    def policy_labels(self) -> dict[str, str]:
        """Policy of each side as text."""
        return {s: policy_label(p) for s, p in self.policies.items()}

    def digest(self) -> str:
        """A hash of what determines the games: scenario data and policies."""
        text = json.dumps(
            {"scenario": self.scenario, "policies": self.policy_labels},
            sort_keys=True,
            separators=(",", ":"),
        )
        return hashlib.sha256(text.encode()).hexdigest()


def scenario_hash(data: Mapping[str, Any]) -> str:
    """SHA-256 of a scenario's data as canonical JSON (key order ignored).

    Examples:
        >>> scenario_hash({"a": 1, "b": 2}) == scenario_hash({"b": 2, "a": 1})
        True
    """
    text = json.dumps(data, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


# --------------------------------------------------------------------------- #
# parsing                                                                     #
# --------------------------------------------------------------------------- #
def _flatten(overrides: Mapping[str, Any]) -> Iterator[tuple[str, Any]]:
    """Nested tables to dotted paths, as far as the parameter shapes go."""
    for key, value in overrides.items():
        if not isinstance(key, str):
            raise BatchError(f"parameter names are text, not {key!r}")
        head, _, rest = key.partition(".")
        if head == "overrides" and isinstance(value, Mapping) and value:
            for k, v in value.items():
                yield from _flatten({f"{key}.{k}": v})
            continue
        if (
            head in ("rules", "victory", "policies")
            and not rest
            and isinstance(value, Mapping)
        ):
            for k, v in value.items():
                yield f"{head}.{k}", v
            continue
        if head in ("units", "formations", "objectives") and isinstance(value, Mapping):
            if not rest:
                for ident, fields in value.items():
                    if isinstance(fields, Mapping):
                        for f, v in fields.items():
                            yield f"{head}.{ident}.{f}", v
                    else:
                        yield f"{head}.{ident}", fields
                continue
            if rest and key.count(".") == 1:
                for f, v in value.items():
                    yield f"{key}.{f}", v
                continue
        yield key, value


def _candidates(
    base: Scenario, opts: Mapping[str, frozenset[str]], sides: Sequence[str]
) -> list[str]:
    out = ["turns", "add_units", "remove_units"]
    out += [f"rules.{o}" for o in sorted(opts.get("rules", ()))]
    out += [f"victory.{o}" for o in sorted(opts.get("victory", ()))]
    for u in base.units:
        out += [f"units.{u['id']}.{f}" for f in sorted(opts.get("unit", ()))]
    for f in base.formations:
        out += [f"formations.{f['id']}.{x}" for x in sorted(opts.get("formation", ()))]
    for i, o in enumerate(base.objectives):
        oid = objective_id(o, i)
        out += [f"objectives.{oid}.{x}" for x in sorted(opts.get("objective", ()))]
    out += [f"overrides.{t}" for t in sorted(opts.get("overrides", ()))]
    out += [f"policies.{s}" for s in sides]
    return out


def _unknown(path: str, candidates: Sequence[str], extra: str = "") -> str:
    close = difflib.get_close_matches(path, list(candidates), n=3, cutoff=0.6)
    hint = f" (did you mean {', '.join(close)}?)" if close else ""
    return f"unknown parameter {path!r}{hint}{extra}"


def build_variant(
    base: Scenario,
    name: str,
    overrides: Mapping[str, Any] | None,
    policies: Mapping[str, Any] | None = None,
) -> Variant:
    """Apply a variant's overrides to a scenario and check the result.

    Args:
        base: the scenario.
        name: the variant name.
        overrides: the parameters (see the module docstring); ``None`` or ``{}``
            for the scenario as it is.
        policies: the batch's policy per side (a variant's ``policies.<side>``
            overrides them); sides not given play ``"random"``.

    Raises:
        BatchError: an unknown parameter (naming it, with the nearest valid ones),
            a bad value, or a changed scenario the rule system rejects.
    """
    if not isinstance(name, str) or not name:
        raise BatchError(f"a variant name must be non-empty text, not {name!r}")
    if overrides is None:
        overrides = {}
    if not isinstance(overrides, Mapping):
        raise BatchError(
            f"variant {name!r}: overrides must be a dict of parameters, "
            f"not {type(overrides).__name__}"
        )

    def fail(problem: str) -> BatchError:
        return BatchError(f"variant {name!r}: {problem}")

    opts = _options(base)
    sides = [s["id"] for s in base.sides]
    data: dict[str, Any] = copy.deepcopy(dict(base.data))
    flat = dict(_flatten(overrides))
    candidates = _candidates(base, opts, sides)

    side_policies: dict[str, PolicySpec] = {}
    for side, spec in (policies or {}).items():
        if side not in sides:
            raise BatchError(
                f"policies: unknown side {side!r}; sides: {', '.join(sides)}"
            )
        try:
            side_policies[side] = policy_spec(spec, f"policies.{side}", base.ruleset)
        except ValueError as exc:
            raise BatchError(str(exc)) from None
    for s in sides:
        side_policies.setdefault(s, {"name": "random"})

    # 1. the order of battle: removals, then additions, then field changes.
    units: list[dict[str, Any]] = list(data.get("units", []))
    if "remove_units" in flat:
        gone = flat["remove_units"]
        if isinstance(gone, str) or not isinstance(gone, Sequence):
            raise fail("remove_units must be a list of unit ids")
        ids = [u["id"] for u in units]
        for uid in gone:
            if uid not in ids:
                raise fail(f"remove_units: no unit {uid!r}{_near(uid, ids)}")
        drop = set(gone)
        # A carrier leaves with its passengers.
        drop |= {u["id"] for u in units if u.get("carried_by") in drop}
        units = [u for u in units if u["id"] not in drop]
        for f in data.get("formations", []):
            if f.get("hq") in drop:
                f.pop("hq")
    if "add_units" in flat:
        extra = flat["add_units"]
        if not isinstance(extra, Sequence) or isinstance(extra, str):
            raise fail("add_units must be a list of unit tables")
        for i, u in enumerate(extra):
            if not isinstance(u, Mapping) or not isinstance(u.get("id"), str):
                raise fail(f"add_units[{i}] must be a unit table with an 'id'")
            bad = sorted(set(u) - set(opts.get("unit", ())) - {"id"})
            if bad:
                raise fail(
                    f"add_units[{i}] ({u['id']!r}): unknown field {bad[0]!r}"
                    f"{_near(bad[0], sorted(opts.get('unit', ())))}"
                )
            units.append(copy.deepcopy(dict(u)))
    data["units"] = units
    by_id = {u["id"]: u for u in units}
    forms = {f["id"]: f for f in data.get("formations", [])}
    objs = {objective_id(o, i): o for i, o in enumerate(data.get("objectives", []))}

    for path, value in flat.items():
        head, _, rest = path.partition(".")
        if head in ("add_units", "remove_units") and not rest:
            continue
        if head == "turns" and not rest:
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise fail(f"turns must be a whole number >= 1, not {value!r}")
            data["turns"] = value
        elif head in ("rules", "victory") and rest:
            if rest not in opts.get(head, ()):
                known = sorted(opts.get(head, ()))
                raise fail(
                    f"unknown parameter {path!r}{_near(rest, known, head)}; "
                    f"{base.ruleset} reads these {head} options: "
                    f"{', '.join(known) or '(none)'}"
                )
            data.setdefault(head, {})[rest] = value
        elif head == "overrides" and rest:
            _set_override(data, path, value, opts.get("overrides", ()), name, fail)
        elif head == "policies" and rest:
            if rest not in sides:
                raise fail(
                    f"unknown parameter {path!r}{_near(rest, sides, head)}; "
                    f"sides: {', '.join(sides)}"
                )
            try:
                side_policies[rest] = policy_spec(value, path, base.ruleset)
            except ValueError as exc:
                raise fail(str(exc)) from None
        elif head in ("units", "formations", "objectives") and "." in rest:
            ident, _, fld = rest.rpartition(".")
            table = {"units": by_id, "formations": forms, "objectives": objs}[head]
            kind = {
                "units": "unit",
                "formations": "formation",
                "objectives": "objective",
            }[head]
            fields = sorted(opts.get(kind, ()))
            if ident not in table:
                raise fail(
                    f"unknown parameter {path!r}: no {kind} {ident!r}"
                    f"{_near(ident, list(table))}"
                )
            if fld not in fields:
                raise fail(
                    f"unknown parameter {path!r}"
                    f"{_near(fld, fields, f'{head}.{ident}')}; {kind} fields: "
                    f"{', '.join(fields)}"
                )
            if value is None:
                table[ident].pop(fld, None)
            else:
                table[ident][fld] = value
        else:
            msg = _unknown(path, candidates)
            if "did you mean" not in msg:
                msg += (
                    "; parameters: turns, rules.<option>, victory.<option>, "
                    "units.<unit id>.<field>, add_units, remove_units, "
                    "formations.<id>.<field>, objectives.<id>.<field>, "
                    "overrides.<table>.<name>.<value>, policies.<side>"
                )
            raise fail(msg)

    label = f"{base.source} [variant {name!r}]"
    try:
        checked = load_scenario(data)
        scenario = Scenario(checked.data, label)
        get_ruleset(scenario.ruleset)(scenario, scenario.load_map())
    except ScenarioError as exc:
        raise fail(str(exc).replace("<dict>", label, 1)) from None
    return Variant(
        name=name,
        overrides=_jsonable(flat, name),
        scenario=dict(scenario.data),
        source=label,
        policies=side_policies,
    )


def _set_override(
    data: dict[str, Any],
    path: str,
    value: Any,
    tables: Collection[str],
    name: str,
    fail: Any,
) -> None:
    """``overrides.<table>.<name>.<key>...`` into the scenario's ``[overrides]``."""
    parts = path.split(".")[1:]
    if parts[0] not in tables:
        known = sorted(tables)
        raise fail(
            f"unknown parameter {path!r}{_near(parts[0], known, 'overrides')}; "
            f"overrides of this rule system: "
            f"{', '.join(f'overrides.{t}' for t in known) or '(none)'}"
        )
    if len(parts) < 3:
        raise fail(
            f"parameter {path!r} names no value: give "
            f"overrides.{parts[0]}.<name>.<value>, e.g. overrides.units.t72.full.armor"
        )
    node = data.setdefault("overrides", {}).setdefault(parts[0], {})
    entry = node.setdefault(parts[1], {})
    if not isinstance(entry, dict):
        raise fail(
            f"parameter {path!r}: overrides.{parts[0]}.{parts[1]} is not a table"
        )
    entry.setdefault("rationale", f"batch variant {name!r}")
    for i, key in enumerate(parts[2:-1], start=2):
        entry = entry.setdefault(key, {})
        if not isinstance(entry, dict):
            raise fail(
                f"parameter {path!r}: {'.'.join(parts[: i + 1])} is a value, "
                "not a table"
            )
    entry[parts[-1]] = copy.deepcopy(value)


def _near(word: str, choices: Sequence[str], prefix: str = "") -> str:
    close = difflib.get_close_matches(str(word), [str(c) for c in choices], n=3)
    if prefix:
        close = [f"{prefix}.{c}" for c in close]
    return f" (did you mean {', '.join(close)}?)" if close else ""


def _jsonable(flat: Mapping[str, Any], name: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in flat.items():
        try:
            out[k] = json.loads(json.dumps(v))
        except (TypeError, ValueError):
            out[k] = repr(v)  # a policy object: kept by its text
    return out


def variant_grid(
    axes: Mapping[str, Sequence[Any] | Mapping[str, Mapping[str, Any]]],
) -> dict[str, dict[str, Any]]:
    """Every combination of a few choices, as named variants.

    Args:
        axes: for each axis either a parameter and the list of its values
            (``{"turns": [4, 6]}``, named ``turns=4``...), or any axis name and a
            dict of labelled overrides (``{"reinforcement": {"none": {},
            "+1 M60": {"add_units": [...]}}}``, named by the labels).  Overrides
            of later axes win where two axes set the same parameter.

    Returns:
        name -> overrides, the first axis varying slowest.

    Examples:
        >>> variant_grid({"turns": [3, 5]})
        {'turns=3': {'turns': 3}, 'turns=5': {'turns': 5}}
        >>> grid = variant_grid({"who": {"as printed": {}, "+M60": {"add_units": []}},
        ...                      "turns": [4, 6]})
        >>> list(grid)
        ['as printed, turns=4', 'as printed, turns=6', '+M60, turns=4', '+M60, turns=6']
        >>> grid["+M60, turns=6"]
        {'add_units': [], 'turns': 6}
    """
    levels: list[list[tuple[str, dict[str, Any]]]] = []
    for k, values in axes.items():
        if isinstance(values, Mapping):
            level = []
            for label, ov in values.items():
                if not isinstance(ov, Mapping):
                    raise BatchError(
                        f"variant_grid: {k!r}: {label!r} needs a dict of overrides"
                    )
                level.append((str(label), dict(ov)))
        elif isinstance(values, Sequence) and not isinstance(values, str):
            level = [(f"{k}={_short(v)}", {k: v}) for v in values]
        else:
            raise BatchError(
                f"variant_grid: {k!r} needs a list of values or a dict of "
                "labelled overrides"
            )
        if not level:
            raise BatchError(f"variant_grid: {k!r} has no values")
        levels.append(level)
    out: dict[str, dict[str, Any]] = {}
    for combo in itertools.product(*levels):
        merged: dict[str, Any] = {}
        for _, ov in combo:
            merged.update(ov)
        out[", ".join(label for label, _ in combo)] = merged
    return out


def _short(v: Any) -> str:
    if isinstance(v, Mapping) and "name" in v:
        return str(v["name"])
    if isinstance(v, list | tuple):
        return f"[{len(v)}]"
    return str(v)


def load_variants(path: str | Path) -> dict[str, dict[str, Any]]:
    """Read variants from a TOML or JSON file: one table per variant.

    A TOML example::

        [baseline]

        [nato-first]
        rules.first_side = "nato"

        [extra-tank]
        add_units = [{id = "US-M3", type = "m60", formation = "A/1-32", hex = "N16"}]

    Raises:
        BatchError: the file is missing, unreadable, or not tables of parameters.
    """
    p = Path(path)
    try:
        raw = read_limited(p)  # a regular file within the engine's size limit
    except InputFileError as exc:
        raise BatchError(f"variants file {p}: cannot be read ({exc.problem})") from None
    try:
        text = raw.decode("utf-8-sig")
        if p.suffix.lower() == ".json":
            data = parse_json(text)
        else:
            try:
                data = tomllib.loads(text)
            except RecursionError:
                raise ValueError(f"nested more than {MAX_DEPTH} levels deep") from None
            check_depth(data)
    except (ValueError, UnicodeDecodeError) as exc:
        raise BatchError(f"variants file {p}: not valid TOML/JSON: {exc}") from None
    if not isinstance(data, Mapping) or not data:
        raise BatchError(f"variants file {p}: give one table per variant, [name]")
    for k, v in data.items():
        if not isinstance(v, Mapping):
            raise BatchError(
                f"variants file {p}: {k!r} is not a table; write [{k}] and its "
                "parameters below it"
            )
    return {str(k): dict(v) for k, v in data.items()}
