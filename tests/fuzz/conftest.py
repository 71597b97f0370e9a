"""Setup of the fuzz suite: a memory cap, warm caches, the summary.

The Hypothesis profiles ``ci`` and ``fuzz`` are in ``fuzz_oracle.py`` (each
fuzz test takes its settings from them, so no other test of the session is
affected).  Each fuzz test runs under a cap on the address space (the
process's size at the start of the test plus :data:`MEMORY_HEADROOM`), so
that a case which allocates gigabytes fails with ``MemoryError`` instead of
starving the machine.  At the end the counts per family are printed (and written to
``build/fuzz-summary.json`` under the fuzz profile or with
``WARGAME_FUZZ_SUMMARY=<path>``).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fuzz_oracle import FAMILIES, KEEP_GOING, ROOT, STATS, profile_name

try:
    import resource
except ImportError:  # pragma: no cover - not on Linux/macOS
    resource = None  # type: ignore[assignment]

#: Room a fuzz test may allocate above the process size at its start: a
#: correct implementation needs a few hundred MB at most; 3 GiB leaves room
#: for the map caches and still stops a runaway allocation long before the
#: machine (shared by other jobs) runs out.
MEMORY_HEADROOM = 3 * 1024**3


def _vm_bytes() -> int | None:
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmSize:"):
                return int(line.split()[1]) * 1024
    except OSError:
        return None
    return None


@pytest.fixture(autouse=True)
def _memory_cap() -> Iterator[None]:
    """Cap the address space during each fuzz test (restored afterwards)."""
    vm = _vm_bytes()
    if resource is None or vm is None:
        yield
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    cap = vm + MEMORY_HEADROOM
    if hard != resource.RLIM_INFINITY:
        cap = min(cap, hard)
    if soft == resource.RLIM_INFINITY or cap < soft:
        resource.setrlimit(resource.RLIMIT_AS, (cap, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


def pytest_report_header(config: Any) -> str:
    mode = ", keep-going (failures counted, not raised)" if KEEP_GOING else ""
    return f"wargame fuzz profile: {profile_name()}{mode}"


def _summary() -> dict[str, Any]:
    cases = {f: STATS.cases.get(f, 0) for f in FAMILIES}
    return {
        "profile": profile_name(),
        "keep_going": KEEP_GOING,
        "cases": cases,
        "total": sum(cases.values()),
        "unexpected": sum(STATS.unexpected.values()),
        "unexpected_by_family": dict(STATS.unexpected),
        "cases_by_call": dict(sorted(STATS.by_call.items())),
        "distinct": sorted(
            STATS.distinct.values(),
            key=lambda d: (d["family"], d["kind"], d["what"], d["site"]),
        ),
    }


def pytest_terminal_summary(terminalreporter: Any) -> None:
    if not sum(STATS.cases.values()):
        return
    s = _summary()
    per = ", ".join(f"{f} {n:,}" for f, n in s["cases"].items())
    tr = terminalreporter
    tr.write_line(
        f"fuzz ({s['profile']}): {s['total']:,} generated inputs ({per}); "
        f"unexpected outcomes: {s['unexpected']:,} ({len(s['distinct'])} distinct)"
    )
    if KEEP_GOING:
        for d in s["distinct"]:
            tr.write_line(
                f"  [{d['family']}/{d['kind']}] {d['what']}: {d['detail']} "
                f"at {d['site'] or '?'} x{d['count']}; e.g. {d['example']}"
            )
    target = os.environ.get("WARGAME_FUZZ_SUMMARY")
    if target is None and s["profile"] == "fuzz":
        target = str(ROOT / "build" / "fuzz-summary.json")
    if target:
        path = Path(target)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(s, indent=1) + "\n", encoding="utf-8")
        tr.write_line(f"fuzz summary written to {path}")


# --------------------------------------------------------------------------- #
# shared fixtures                                                             #
# --------------------------------------------------------------------------- #


@pytest.fixture(scope="session")
def fuzz_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder for the files the cases write (one file name per test)."""
    return tmp_path_factory.mktemp("fuzz")


@pytest.fixture(scope="session")
def warm_specs() -> set[str]:
    """The map specs of the base scenarios, with their maps and line-of-sight
    tables built (so that no example pays a first build under the deadline).

    Returns the specs as JSON text: a damaged scenario is played a few steps
    only when its map is one of these.
    """
    from fuzz_strategies import base_doc, base_names

    from wargame.engine import Game

    specs = set()
    for name in base_names(profile_name()):
        game = Game.from_scenario(base_doc(name), seed=0)
        for _ in range(12):
            if game.step() is None:
                break
        specs.add(json.dumps(game.scenario.map_spec, sort_keys=True))
    return specs


@pytest.fixture(scope="session")
def remagen_map() -> Any:
    """``wargame.load_map(window="Remagen")`` with its hexes, line of sight and
    viewshed kernels compiled."""
    import wargame

    m = wargame.load_map(window="Remagen")
    m.hexes  # noqa: B018 - builds the hex attributes
    c = m.hex_center("Q11")
    m.los("A1", "Q11")
    m.viewshed(c, 500.0)
    m.viewshed(c, 500.0, obstacles=False)
    return m
