"""Fuzz: a real save of a short game, damaged, then ``Game.load``.

A save cannot lie: a damaged save either is refused with one line naming the
file, or loads as exactly the saved game (same scenario, seed, actions and
state).  Its ``check`` is required, and its ``version`` is a whole number.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from fuzz_oracle import FuzzFailure, expect_clean, fuzz_case, fuzz_settings
from fuzz_strategies import (
    SAVE_PREPEND,
    Big,
    Op,
    _get,
    _near,
    _walk,
    apply_ops,
    apply_text,
    dumps_deep,
    op,
    text_op,
    weird_values,
)
from hypothesis import given
from hypothesis import strategies as st

from wargame.engine import Game
from wargame.engine.files import path_text

SEED = 3
STEPS = 12


class Saved:
    """The original game of the save and its file's data."""

    def __init__(self, folder: Path) -> None:
        game = Game.from_scenario("test_remagen", seed=SEED)
        for _ in range(STEPS):
            game.step()
        self.path = game.save(folder / "original-save.json")
        self.raw = self.path.read_bytes()
        self.doc: dict[str, Any] = json.loads(self.raw)
        self.identity = identity(game)
        #: paths of the save's own fields (the scenario's are damaged by
        #: fuzz_strategies.op, as scenarios are)
        self.paths = tuple(p for p, _ in _walk(self.doc) if p and p[0] != "scenario")


def identity(game: Game) -> dict[str, Any]:
    """What a save must reproduce exactly."""
    return {
        "scenario": dict(game.scenario.data),  # == : 150 and 150.0 are equal
        "seed": game.seed,
        "actions": [a.to_dict() for a in game.actions],
        "events": len(game.events),
        "state": game.state.digest(),
    }


@pytest.fixture(scope="session")
def saved(fuzz_dir: Path) -> Saved:
    return Saved(fuzz_dir)


def judge_load(saved: Saved, path: Path, doc: Any) -> None:
    """The oracle: refused cleanly, or loaded as the very same game.

    ``doc``: the damaged save as parsed (``None`` if it is not JSON).
    """
    ok, game = expect_clean(Game.load, path, where=(path.name,))
    if not ok:
        return
    got = identity(game)
    differ = [k for k, v in saved.identity.items() if got[k] != v]
    if differ:
        raise FuzzFailure(
            "lie", f"a damaged save loaded as another game ({', '.join(differ)} differ)"
        )
    if not isinstance(doc, dict):
        return
    if doc.get("check") != saved.doc.get("check"):
        what = "removed" if "check" not in doc else f"changed to {doc['check']!r}"[:120]
        raise FuzzFailure("accepted", f"a save whose check was {what} loaded")
    version = doc.get("version")
    if type(version) is not int:
        raise FuzzFailure("accepted", f"a save with version {version!r} loaded"[:200])
    if doc.get("format") != saved.doc.get("format"):
        raise FuzzFailure(
            "accepted", f"a save with format {doc.get('format')!r} loaded"
        )


_POOLS: dict[str, tuple[Any, ...]] = {
    "version": (True, False, 0, 1, 2, 3, -1, 2.0, "2", None, 2**64, [], {}, [2]),
    "seed": (0, 1, 2, 4, -1, 2**64, 10**100, 1.5, 3.0, "3", True, None, [3]),
    "format": ("wargame-sav", "WARGAME-SAVE", "", None, 1, ["wargame-save"]),
    "ruleset": ("toy-1e", "waw-clasic", "", None, 1, []),
    "wargame": ("0.0.0", "99.0", None, 1, ""),
    "scenario_source": ("", None, 1, [], "x.toml", Big("str", 1_000_000)),
    "check": (None, {}, [], "x", 0, {"state": "0" * 64}),
    "actions": (None, {}, "x", 0, [], [None], [[]], Big("list", 10_000)),
    "events": (True, None, "27", -1, 0, 2**64, 1.5),
    "state": ("", None, 0, "0" * 64, "f" * 64, [], "x" * 64),
}


@st.composite
def save_ops(draw: st.DrawFn, saved: Saved) -> list[Op]:
    """1-3 damages of the save's fields, its actions, its check or its scenario."""
    out = []
    for _ in range(draw(st.integers(1, 3))):
        where = draw(st.sampled_from(("field", "field", "scenario", "list")))
        if where == "scenario":
            o = draw(op("test_remagen"))
            out.append(Op(o.kind, ("scenario", *o.path), o.value))
            continue
        if where == "list":
            items = [p for p in saved.paths if p[0] == "actions" and len(p) == 2]
            kind = draw(st.sampled_from(("dup", "remove", "remove", "clone")))
            path = draw(st.sampled_from(items))
            out.append(Op(kind, path, 1 if kind == "clone" else None))
            continue
        path = draw(st.sampled_from(saved.paths))
        if draw(st.integers(0, 3)) == 0:
            out.append(Op("drop", path))
            continue
        key = next((k for k in reversed(path) if isinstance(k, str)), "")
        original = _get(saved.doc, path)
        near = (
            _near("test_remagen", path, original)
            if isinstance(original, str | int | float | list)
            else weird_values()
        )
        pool = _POOLS.get(key)
        value = draw(
            st.one_of(st.sampled_from(pool), near, weird_values())
            if pool
            else st.one_of(near, weird_values())
        )
        out.append(Op("set", path, value))
    return out


@fuzz_settings(50, 8_000)
@given(data=st.data())
def test_damaged_save_fields(data: st.DataObject, saved: Saved, fuzz_dir: Path) -> None:
    """JSON edits of a real save: version, seed, scenario, actions, check."""
    ops = data.draw(save_ops(saved), label="ops")
    doc = apply_ops(saved.doc, ops)
    path = fuzz_dir / "damaged-save.json"
    path.write_bytes(dumps_deep(doc))
    with fuzz_case("saves", "Game.load(edited)", lambda: repr(ops)):
        judge_load(saved, path, doc)


def _parsed(data: bytes) -> Any:
    try:
        return json.loads(data.decode("utf-8"))
    except (ValueError, RecursionError):
        return None


@fuzz_settings(40, 6_000)
@given(data=st.data())
def test_damaged_save_bytes(data: st.DataObject, saved: Saved, fuzz_dir: Path) -> None:
    """Byte damages of a real save: flips, truncation, a BOM, deep arrays."""
    ops = data.draw(
        st.lists(text_op(SAVE_PREPEND), min_size=1, max_size=3), label="ops"
    )
    raw = apply_text(saved.raw, ops, ".json")
    path = fuzz_dir / "damaged-save-bytes.json"
    path.write_bytes(raw)
    with fuzz_case("saves", "Game.load(bytes)", lambda: repr(ops)):
        judge_load(saved, path, _parsed(raw))


ODD_SAVES = (
    "missing", "folder", "empty", "/dev/null", "latin-1", "scenario toml", "json list",
    "NUL in path", "no check", "version true", "int path", "objective vp edited",
    "turns edited",
)  # fmt: skip


@pytest.mark.parametrize("label", ODD_SAVES)
def test_odd_save_files(label: str, saved: Saved, fuzz_dir: Path) -> None:
    """Files a user may hand ``Game.load`` by mistake, and two known lies."""
    d = fuzz_dir / "odd-saves"
    d.mkdir(exist_ok=True)
    doc: Any = None
    target: Any = d / f"{label.replace(' ', '-').replace('/', '')}.json"
    if label == "missing":
        pass
    elif label == "folder":
        target.mkdir(exist_ok=True)
    elif label == "empty":
        target.write_bytes(b"")
    elif label == "/dev/null":
        target = Path("/dev/null")
    elif label == "latin-1":
        target.write_bytes(saved.raw.replace(b"Remagen", "Rémagen".encode("latin-1")))
    elif label == "scenario toml":
        target.write_bytes(Path("scenarios/test_remagen.toml").read_bytes())
    elif label == "json list":
        target.write_text("[1, 2, 3]")
    elif label == "NUL in path":
        target = str(d / "nul\x00.json")
    elif label == "no check":
        doc = {k: v for k, v in saved.doc.items() if k != "check"}
        target.write_text(json.dumps(doc))
    elif label == "version true":
        doc = {**saved.doc, "version": True}
        target.write_text(json.dumps(doc))
    elif label == "int path":
        target = 7
    elif label in ("objective vp edited", "turns edited"):
        doc = json.loads(saved.raw)
        if label == "turns edited":
            doc["scenario"]["turns"] += 1
        else:
            doc["scenario"]["objectives"][0]["vp"] += 5
        target.write_text(json.dumps(doc))
    shown_path = path_text(target) if isinstance(target, str | Path) else ""
    where = tuple(
        w
        for w in {str(target), Path(str(target)).name, "Game.load", shown_path}
        if w.strip()
    )
    with fuzz_case("saves", f"Game.load({label})", label):
        if doc is not None:
            judge_load(saved, target, doc)
            return
        ok, _ = expect_clean(Game.load, target, where=where)
        if ok:
            raise FuzzFailure("accepted", f"Game.load took {label!r} as a save")
