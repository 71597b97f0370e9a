"""One pathological fuzz case, run in a child process under a memory cap.

``python fuzz_child.py <case> <folder>`` runs the case (see :data:`CASES`)
and prints one line ``RESULT {"failure": ...}`` (``null`` when the input was
refused cleanly or handled).  The parent (``test_fuzz_pathological.py``)
kills it after its time budget: a hang is a failure too.

These are the inputs of issue 16 that a *wrong* implementation answers by
allocating gigabytes or running for minutes (1 m hexes, a billion chits,
20,000 units, a never-ending game, ``/dev/zero``, a FIFO): they cannot run
in the test process itself.

Examples:
    >>> set(CI_CASES) <= set(CASES), CASES["hex 1 m"][0]
    (True, 'scenarios')
"""

from __future__ import annotations

import copy
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

#: Address space the case may take above the child's size after its imports.
CHILD_HEADROOM = 2 * 1024**3


def _cap_memory() -> None:
    try:
        import resource
    except ImportError:  # pragma: no cover
        return
    size = 0
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmSize:"):
            size = int(line.split()[1]) * 1024
    if size:
        resource.setrlimit(
            resource.RLIMIT_AS, (size + CHILD_HEADROOM, size + CHILD_HEADROOM)
        )


def _remagen(**changes: Any) -> dict[str, Any]:
    from fuzz_strategies import base_doc

    doc = base_doc("test_remagen")
    for path, value in changes.items():
        *head, last = path.split("__")
        t: Any = doc
        for k in head:
            t = t[int(k)] if k.isdigit() else t[k]
        t[int(last) if last.isdigit() else last] = value
    return doc


def _many_units(n: int) -> dict[str, Any]:
    """``n`` more M60 platoons, all in one hex (as a user's copy-paste would)."""
    doc = _remagen()
    unit = next(u for u in doc["units"] if u["id"] == "US-M2")
    for i in range(n):
        twin = copy.deepcopy(unit)
        twin["id"] = f"X{i}"
        doc["units"].append(twin)
    return doc


def scenario(doc: Any) -> None:
    """The scenario chain: load, check (every line clean), start, play."""
    from fuzz_oracle import FuzzFailure, check_lines, expect_clean

    from wargame.engine import Game, check_scenario, load_scenario

    where = ("<dict>",) if isinstance(doc, dict) else (Path(str(doc)).name,)
    ok, s = expect_clean(load_scenario, doc, where=where)
    if not ok:
        return
    ok, problems = expect_clean(check_scenario, s, where=where)
    if ok and problems:
        bad = check_lines(problems, where=where)
        if bad:
            raise FuzzFailure("message", f"check_scenario: {bad}")
    if not ok or problems:
        return
    ok, game = expect_clean(Game, s, seed=0, where=where)
    if not ok:
        raise FuzzFailure("accepted", "check_scenario passed, then Game refused")
    for _ in range(3):
        game.step()


def refused_scenario(doc: Any, what: str) -> None:
    """A scenario that must be refused (the whole map as a "window"...)."""
    from fuzz_oracle import FuzzFailure, expect_clean

    from wargame.engine import check_scenario, load_scenario

    ok, s = expect_clean(load_scenario, doc, where=("<dict>",))
    if ok:
        ok, problems = expect_clean(check_scenario, s, where=("<dict>",))
        if ok and not problems:
            raise FuzzFailure("accepted", f"a scenario with {what} validates")


def map_hexes(size: Any) -> None:
    """``load_map(window="Remagen", hex_size_m=size).hexes``."""
    from fuzz_oracle import FuzzFailure, expect_clean

    import wargame

    ok, m = expect_clean(
        wargame.load_map, window="Remagen", hex_size_m=size, where=("load_map",),
        types=(ValueError, TypeError),
    )  # fmt: skip
    if not ok:
        return
    if isinstance(size, bool):
        raise FuzzFailure("accepted", f"load_map took hex_size_m={size!r}")
    m.hexes  # noqa: B018 - a map load_map takes must be buildable


def read_file(kind: str, path: Path) -> None:
    """A scenario, a save or ``wargame validate`` on a special file."""
    import io
    from contextlib import redirect_stderr, redirect_stdout

    from fuzz_oracle import FuzzFailure, check_lines, expect_clean

    from wargame.engine import Game, load_scenario

    where = (path.name, str(path))
    if kind == "scenario":
        ok, _ = expect_clean(load_scenario, str(path), where=where)
    elif kind == "save":
        ok, _ = expect_clean(Game.load, path, where=where)
    else:
        from wargame.cli import main

        err = io.StringIO()
        with redirect_stderr(err), redirect_stdout(io.StringIO()):
            code = main(["validate", str(path)])
        lines = [
            x.removeprefix("wargame: error: ") for x in err.getvalue().splitlines()
        ]
        bad = check_lines(lines, where=where)
        if code != 2 or bad:
            raise FuzzFailure("message", f"validate: exit {code}; {bad}")
        return
    if ok:
        raise FuzzFailure("accepted", f"{kind} read from {path}")


def _fifo(folder: Path, name: str) -> Path:
    p = folder / name
    if not p.exists():
        os.mkfifo(p)
    return p


def _sparse(folder: Path, name: str) -> Path:
    p = folder / name
    with open(p, "wb") as fh:
        fh.truncate(200 * 1024 * 1024)  # 200 MB of holes: no disk used
    return p


ZERO = Path("/dev/zero")
WHOLE = {"place": "Remagen", "width_m": 1e9, "height_m": 1e9}
INFINITE = {"bbox": [-1e999, -1e999, 1e999, 1e999]}
S, A, F, C = "scenarios", "api", "saves", "cli"

#: name -> (family, what the case calls, runner(folder))
CASES: dict[str, tuple[str, str, Callable[[Path], None]]] = {
    "hex 1 m": (S, "hex_size_m = 1", lambda d: scenario(_remagen(map__hex_size_m=1))),
    "hex 0.001 m": (
        S,
        "hex_size_m = 0.001",
        lambda d: scenario(_remagen(map__hex_size_m=0.001)),
    ),
    "hex 5 m": (S, "hex_size_m = 5", lambda d: scenario(_remagen(map__hex_size_m=5))),
    "chits 1e9": (
        S,
        "chits = 10**9",
        lambda d: scenario(_remagen(formations__0__chits=10**9)),
    ),
    "chits 1e30": (
        S,
        "chits = 10**30",
        lambda d: scenario(_remagen(formations__0__chits=10**30)),
    ),
    "20000 units": (S, "20,000 units", lambda d: scenario(_many_units(20_000))),
    "turns 2**63-1": (
        S,
        "turns = 2**63 - 1",
        lambda d: refused_scenario(_remagen(turns=2**63 - 1), "turns = 2**63 - 1"),
    ),
    "width 1e9": (
        S,
        "window.width_m = 1e9",
        lambda d: refused_scenario(_remagen(map__window=WHOLE), "a 1e9 m window"),
    ),
    "bbox inf": (
        S,
        "window.bbox = ±inf",
        lambda d: refused_scenario(_remagen(map__window=INFINITE), "an infinite bbox"),
    ),
    "load_map True": (A, "load_map(hex_size_m=True)", lambda d: map_hexes(True)),
    "load_map 1 m": (A, "load_map(hex_size_m=1)", lambda d: map_hexes(1)),
    "load_map 0.001 m": (A, "load_map(hex_size_m=0.001)", lambda d: map_hexes(0.001)),
    "/dev/zero scenario": (
        S,
        "load_scenario(/dev/zero)",
        lambda d: read_file("scenario", ZERO),
    ),
    "/dev/zero save": (F, "Game.load(/dev/zero)", lambda d: read_file("save", ZERO)),
    "/dev/zero validate": (
        C,
        "wargame validate /dev/zero",
        lambda d: read_file("cli", ZERO),
    ),
    "FIFO scenario": (
        S,
        "load_scenario(FIFO)",
        lambda d: read_file("scenario", _fifo(d, "fifo.toml")),
    ),
    "FIFO save": (
        F,
        "Game.load(FIFO)",
        lambda d: read_file("save", _fifo(d, "fifo.json")),
    ),
    "200 MB scenario": (
        S,
        "load_scenario(200 MB)",
        lambda d: read_file("scenario", _sparse(d, "big.toml")),
    ),
    "200 MB save": (
        F,
        "Game.load(200 MB)",
        lambda d: read_file("save", _sparse(d, "big.json")),
    ),
}

#: The cases of the ci profile: one per failure family of the issue.
CI_CASES = ("hex 1 m", "chits 1e9", "20000 units", "turns 2**63-1", "load_map True",
            "/dev/zero scenario", "/dev/zero save", "FIFO scenario")  # fmt: skip


def run(name: str, folder: Path) -> dict[str, Any] | None:
    """Run one case; the failure it shows (``None``: clean)."""
    from fuzz_oracle import FuzzFailure, raise_site

    _, _, runner = CASES[name]
    try:
        runner(folder)
    except FuzzFailure as exc:
        return {"kind": exc.kind, "detail": exc.detail, "site": exc.site}
    except BaseException as exc:
        return {
            "kind": "crash",
            "detail": f"{type(exc).__name__}: {str(exc)[:300]}",
            "site": raise_site(exc),
        }
    return None


if __name__ == "__main__":  # pragma: no cover - run by test_fuzz_pathological
    import warnings

    import wargame.engine
    import wargame.geo.maps  # noqa: F401

    _cap_memory()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = run(sys.argv[1], Path(sys.argv[2]))
    print("RESULT " + json.dumps({"failure": result}), flush=True)
