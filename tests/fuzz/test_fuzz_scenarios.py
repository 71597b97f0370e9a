"""Fuzz: scenario documents built from the shipped ones, then damaged.

Each case goes through what a user's file goes through: ``load_scenario``,
``check_scenario``, ``Game``, a few steps of play, a save and its load.  It
must end in a clean refusal (one ``<file>: <field>: <problem>`` line per
problem) or in a game that plays; a scenario that validates must not hold
an infinite number, an integer beyond 64 bits or a key nobody reads.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
from fuzz_oracle import (
    FuzzFailure,
    check_lines,
    expect_clean,
    fuzz_case,
    fuzz_settings,
    profile_name,
)
from fuzz_strategies import (
    ALL_BASES,
    Op,
    apply_ops,
    apply_text,
    base_bytes,
    base_doc,
    base_names,
    damaged_doc,
    damaged_text,
    shape,
    table_kind,
    too_costly,
    unknown_key_op,
)
from hypothesis import given, reject
from hypothesis import strategies as st

from wargame.engine import Game, check_scenario, load_scenario
from wargame.engine.files import path_text

BASES = base_names(profile_name())
#: Steps played on a scenario that validates (on a map whose line-of-sight
#: table is built: see the ``warm_specs`` fixture).
STEPS = 3
#: The largest integer a scenario may hold and still be stored in the
#: int64 columns of batch results and in every other TOML reader.
INT64 = 2**63


def _odd(v: Any) -> bool:
    if isinstance(v, float):
        return not math.isfinite(v)
    return isinstance(v, int) and not isinstance(v, bool) and abs(v) >= INT64


def odd_number(data: Any) -> str | None:
    """The path of a non-finite float or an integer beyond int64 in ``data``.

    Examples:
        >>> odd_number({"a": [1, 2.5]}), odd_number({"a": [1, float("inf")]})
        (None, 'a[1] = inf')
    """
    stack: list[tuple[str, Any]] = [("", data)]
    while stack:
        path, v = stack.pop()
        if isinstance(v, dict):
            stack.extend((f"{path}.{k}" if path else str(k), x) for k, x in v.items())
        elif isinstance(v, list):
            stack.extend((f"{path}[{i}]", x) for i, x in enumerate(v))
        elif _odd(v):
            return f"{path} = {v!r}"
    return None


def scenario_case(
    source: Any, where: tuple[str, ...], warm_specs: set[str], save_dir: Path
) -> str:
    """Load, check, start, play and save one scenario input; the oracle.

    Returns ``"refused"`` or ``"played"``; raises :class:`FuzzFailure`.
    """
    ok, scenario = expect_clean(load_scenario, source, where=where)
    if not ok:
        return "refused"
    ok, problems = expect_clean(check_scenario, scenario, where=where)
    if not ok:
        return "refused"
    if problems:
        bad = check_lines(problems, where=where)
        if bad:
            raise FuzzFailure("message", f"check_scenario: {bad}")
        started, _ = expect_clean(Game, scenario, seed=0, where=where)
        if started:
            raise FuzzFailure(
                "accepted",
                f"Game started a scenario check_scenario refuses: {problems[0][:200]}",
            )
        return "refused"
    odd = odd_number(scenario.data)
    if odd:
        raise FuzzFailure("accepted", f"a scenario that validates holds {odd[:200]}")
    started, game = expect_clean(Game, scenario, seed=0, where=where)
    if not started:
        raise FuzzFailure(
            "accepted",
            f"check_scenario found no problem, then Game refused: {str(game)[:200]}",
        )
    if json.dumps(scenario.map_spec, sort_keys=True) in warm_specs:
        for _ in range(STEPS):
            if game.step() is None:
                break
    game.units  # noqa: B018 - the frames a notebook shows first
    game.log  # noqa: B018
    path = game.save(save_dir / "roundtrip.json")
    again = Game.load(path)
    if again.state.digest() != game.state.digest():
        raise FuzzFailure("lie", "a scenario's game saved and loaded is another game")
    return "played"


@fuzz_settings(60, 10_000)
@given(case=damaged_doc(BASES))
def test_damaged_scenario_dict(
    case: tuple[str, list[Any]], warm_specs: set[str], fuzz_dir: Path
) -> None:
    """A shipped scenario with 1-4 damages, as a dict."""
    name, ops = case
    doc = apply_ops(base_doc(name), ops)
    if too_costly(doc):
        reject()
    with fuzz_case("scenarios", "load_scenario(dict)", lambda: repr(case)):
        scenario_case(doc, ("<dict>",), warm_specs, fuzz_dir)


@fuzz_settings(30, 5_000)
@given(data=st.data())
def test_unknown_key_refused(data: st.DataObject, warm_specs: set[str]) -> None:
    """One unknown key anywhere in a valid scenario is refused, by name
    ("nothing is silently ignored", docs/scenarios.md)."""
    name = data.draw(st.sampled_from(BASES), label="base")
    op = data.draw(unknown_key_op(name), label="op")
    doc = apply_ops(base_doc(name), [op])
    key = op.value[0]
    with fuzz_case("scenarios", "unknown key", lambda: repr((name, op))):
        ok, scenario = expect_clean(load_scenario, doc, where=("<dict>",))
        if not ok:
            problems = list(getattr(scenario, "problems", [str(scenario)]))
        else:
            ok, problems = expect_clean(check_scenario, scenario, where=("<dict>",))
            if not ok:
                problems = [str(problems)]
        if not problems:
            where = ".".join(map(str, op.path)) or "top level"
            raise FuzzFailure(
                "accepted", f"unknown key {key!r} in {where} is silently ignored"
            )
        if not any(str(key) in line for line in problems):
            raise FuzzFailure(
                "message",
                f"unknown key {key!r} refused without naming it: {problems[0][:200]}",
            )


def _table_of_each_kind() -> list[tuple[str, tuple[Any, ...]]]:
    out: dict[str, tuple[str, tuple[Any, ...]]] = {}
    for name in ALL_BASES:
        for path in shape(name).tables:
            out.setdefault(table_kind(path) or "", (name, path))
    return [out[k] for k in sorted(out)]


@pytest.mark.parametrize(
    ("name", "path"),
    _table_of_each_kind(),
    ids=lambda v: ".".join(map(str, v)) if isinstance(v, tuple) else str(v),
)
def test_unknown_key_in_each_table(name: str, path: tuple[Any, ...]) -> None:
    """``zz_unknown = 1`` in one table of each kind (top level, [map],
    [map.window], [[sides]]..., [rules], [victory], [overrides]) is refused."""
    doc = apply_ops(base_doc(name), [Op("add", path, ("zz_unknown", 1))])
    where = ".".join(map(str, path)) or "top level"
    with fuzz_case("scenarios", "unknown key", f"{name}: {where}.zz_unknown = 1"):
        ok, scenario = expect_clean(load_scenario, doc, where=("<dict>",))
        problems = list(scenario.problems) if not ok else check_scenario(scenario)
        if not any("zz_unknown" in line for line in problems):
            raise FuzzFailure(
                "accepted", f"unknown key 'zz_unknown' in {where} is silently ignored"
            )


def _parsed(data: bytes, suffix: str) -> Any:
    """The document the damaged bytes hold, if this test can read it."""
    import tomllib

    try:
        text = data.decode("utf-8")
        return json.loads(text) if suffix == ".json" else tomllib.loads(text)
    except (ValueError, RecursionError):
        return None


@fuzz_settings(50, 5_000)
@given(case=damaged_text(BASES, (".toml", ".toml", ".json")))
def test_damaged_scenario_file(
    case: tuple[str, str, list[Any]], warm_specs: set[str], fuzz_dir: Path
) -> None:
    """A shipped scenario's TOML (or JSON) text with byte damages: flips,
    insertions, truncation, a BOM, CRLF, deep nesting, dotted keys..."""
    name, suffix, ops = case
    data = apply_text(base_bytes(name, suffix), ops, suffix)
    doc = _parsed(data, suffix)
    if doc is not None and too_costly(doc):
        reject()
    path = fuzz_dir / f"damaged-scenario{suffix}"
    path.write_bytes(data)
    with fuzz_case("scenarios", f"load_scenario({suffix} file)", lambda: repr(case)):
        scenario_case(str(path), (path.name,), warm_specs, fuzz_dir)


def _odd_sources(tmp: Path) -> list[tuple[str, Any]]:
    (tmp / "folder.toml").mkdir(exist_ok=True)
    (tmp / "empty.toml").write_bytes(b"")
    (tmp / "empty.json").write_bytes(b"")
    (tmp / "latin1.toml").write_bytes('title = "Köln"\n'.encode("latin-1"))
    (tmp / "list.json").write_text("[1, 2]")
    (tmp / "scalar.json").write_text("7")
    (tmp / "nan.json").write_text('{"id": NaN}')
    (tmp / "valid.txt").write_bytes(base_bytes("test_remagen", ".toml"))
    return [
        ("int", 123),
        ("None", None),
        ("float", 1.5),
        ("bytes", b"test_remagen"),
        ("list", ["test_remagen"]),
        ("set", {"test_remagen"}),
        ("empty name", ""),
        ("unknown name", "no_such_scenario"),
        ("long name", "x" * 5000),
        ("NUL in name", "test\x00remagen"),
        ("missing file", str(tmp / "missing.toml")),
        ("folder", str(tmp / "folder.toml")),
        ("/dev/null", "/dev/null"),
        ("empty toml", str(tmp / "empty.toml")),
        ("empty json", str(tmp / "empty.json")),
        ("latin-1 toml", str(tmp / "latin1.toml")),
        ("json list", str(tmp / "list.json")),
        ("json scalar", str(tmp / "scalar.json")),
        ("json NaN", str(tmp / "nan.json")),
        ("valid .txt", str(tmp / "valid.txt")),
        ("Path", tmp / "missing.toml"),
    ]


@pytest.mark.parametrize(
    "label",
    [
        "int", "None", "float", "bytes", "list", "set", "empty name",
        "unknown name", "long name", "NUL in name", "missing file", "folder",
        "/dev/null", "empty toml", "empty json", "latin-1 toml", "json list",
        "json scalar", "json NaN", "valid .txt", "Path",
    ],
)  # fmt: skip
def test_odd_scenario_sources(label: str, warm_specs: set[str], fuzz_dir: Path) -> None:
    """Sources a user may pass to ``load_scenario`` by mistake."""
    source = dict(_odd_sources(fuzz_dir))[label]
    text = str(source)
    names = (text[:100], Path(text[:200]).name, str(Path(text[:200])))
    if isinstance(source, str | Path):
        names += (path_text(source),)
    where = ("load_scenario", "scenario", *(n for n in names if n.strip()))
    with fuzz_case("scenarios", "load_scenario(odd source)", repr(source)[:200]):
        scenario_case(source, where, warm_specs, fuzz_dir)
