"""Fuzz: the command line, in-process (``wargame.cli.main``), on bad files.

A bad file ends in exit code 2 and one ``wargame: error: <file>: <field>:
<problem>`` line per problem on stderr: no traceback, nothing written.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from fuzz_oracle import FuzzFailure, check_lines, fuzz_case, fuzz_settings, profile_name
from fuzz_strategies import (
    Big,
    Op,
    apply_ops,
    apply_text,
    base_bytes,
    base_doc,
    base_names,
    damaged_text,
    dumps_deep,
    too_costly,
)
from hypothesis import HealthCheck, given, reject

from wargame.cli import main

PREFIX = "wargame: error: "
BASES = base_names(profile_name())


def judge_cli(
    argv: list[str], capsys: Any, where: tuple[str, ...], outputs: tuple[Path, ...] = ()
) -> int:
    """Run ``main(argv)``; the oracle of a command on a (maybe) bad file."""
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse
        code = int(exc.code or 0)
    except BaseException as exc:
        from fuzz_oracle import raise_site

        raise FuzzFailure(
            "crash", f"{type(exc).__name__}: {str(exc)[:200]}", raise_site(exc)
        ) from exc
    _, err = capsys.readouterr()
    lines = err.splitlines()
    if code not in (0, 2):
        raise FuzzFailure("crash", f"exit code {code}; stderr {err[:200]!r}")
    if code == 0:
        if lines:
            raise FuzzFailure("message", f"exit code 0 with stderr {err[:200]!r}")
        return 0
    noise = [line for line in lines if not line.startswith(PREFIX)]
    if noise:
        raise FuzzFailure(
            "message", f"stderr line not from the error handler: {noise[0][:200]!r}"
        )
    bad = check_lines([line[len(PREFIX) :] for line in lines], where=where)
    if bad:
        raise FuzzFailure("message", f"stderr: {bad}")
    folders = {p.parent for p in outputs if p.parent.is_dir()}
    left = [p for p in outputs if p.exists()]
    left += [q for d in folders for q in d.iterdir() if q.name.startswith(".")]
    if left:
        raise FuzzFailure("state", f"a refused run left {left[0].name} on disk")
    return 2


@fuzz_settings(15, 1_500, suppress=[HealthCheck.function_scoped_fixture])
@given(case=damaged_text(BASES, (".toml", ".json")))
def test_cli_validate_damaged(
    case: tuple[str, str, list[Any]], capsys: Any, fuzz_dir: Path
) -> None:
    """``wargame validate FILE`` on a damaged scenario file."""
    name, suffix, ops = case
    data = apply_text(base_bytes(name, suffix), ops, suffix)
    try:
        import tomllib

        text = data.decode()
        doc = json.loads(text) if suffix == ".json" else tomllib.loads(text)
    except (ValueError, RecursionError):
        doc = None
    if doc is not None and too_costly(doc):
        reject()
    path = fuzz_dir / f"cli-damaged{suffix}"
    path.write_bytes(data)
    capsys.readouterr()
    with fuzz_case("cli", "wargame validate", lambda: repr(case)):
        judge_cli(["validate", str(path)], capsys, (path.name,))


def _case_doc(label: str) -> Any:
    """A scenario from the issue's list of console failures (bytes or a dict)."""
    doc = base_doc("test_remagen")
    ops: dict[str, list[Op]] = {
        "no units": [Op("set", ("units",), []), Op("set", ("formations",), [])],
        "first_side table": [Op("set", ("rules", "first_side"), {"a": 1})],
        "tie list": [Op("set", ("victory", "tie"), ["nato"])],
        "window place 7": [Op("set", ("map", "window"), {"place": 7})],
        "hex_size_m inf": [Op("set", ("map", "hex_size_m"), float("inf"))],
        "long map name": [Op("set", ("map", "name"), "x" * 100_000)],
        "vp 2**64": [Op("set", ("objectives", 0, "vp"), 2**64)],
        "unknown rules key": [Op("add", ("rules",), ("first_sidee", "nato"))],
        "deep table": [Op("add", (), ("x", Big("deep_table", 1000)))],
    }
    if label in ops:
        return apply_ops(doc, ops[label])
    raw = base_bytes("test_remagen", ".toml")
    return {
        "BOM": b"\xef\xbb\xbf" + raw,
        "truncated": raw[: len(raw) // 2],
        "binary": bytes(range(256)) * 4,
        "empty": b"",
        "deep array": b"x = " + b"[" * 1000 + b"]" * 1000 + b"\n" + raw,
        "dotted key": b".".join([b"a"] * 5000) + b" = 1\n" + raw,
    }[label]


CASES = ("no units", "first_side table", "tie list", "window place 7", "hex_size_m inf",
         "long map name", "vp 2**64", "unknown rules key", "deep table", "BOM",
         "truncated", "binary", "empty", "deep array", "dotted key", "missing",
         "folder")  # fmt: skip


@pytest.mark.parametrize("command", ["validate", "run"])
@pytest.mark.parametrize("label", CASES)
def test_cli_bad_file(label: str, command: str, capsys: Any, tmp_path: Path) -> None:
    """The issue's console failures: ``validate`` and ``run --turns 1``
    (which must write neither its log nor its save when it refuses)."""
    if label == "missing":
        path = tmp_path / "missing.toml"
    elif label == "folder":
        path = tmp_path / "folder.toml"
        path.mkdir()
    else:
        data = _case_doc(label)
        if isinstance(data, bytes):
            path = tmp_path / "case.toml"
            path.write_bytes(data)
        else:
            path = tmp_path / "case.json"
            path.write_bytes(dumps_deep(data))
    log, save = tmp_path / "out" / "log.csv", tmp_path / "out" / "game.json"
    argv = ["validate", str(path)]
    if command == "run":
        argv = [
            "run",
            str(path),
            "--turns",
            "1",
            "--out",
            str(log),
            "--save",
            str(save),
        ]
    capsys.readouterr()
    with fuzz_case("cli", f"wargame {command}", f"{command} {label}"):
        code = judge_cli(argv, capsys, (path.name,), (log, save))
        if code == 0 and label in ("missing", "folder", "binary", "truncated", "empty"):
            raise FuzzFailure("accepted", f"wargame {command} took a {label} file")
        if code == 0 and command == "run" and not (log.exists() and save.exists()):
            raise FuzzFailure("wrong", "a run that succeeded wrote no log or save")
