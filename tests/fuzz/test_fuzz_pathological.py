"""Fuzz: the inputs that a wrong implementation answers with gigabytes or
minutes (issue 16), each in a child process under a memory cap and a time
budget (see ``fuzz_child.py``).  A correct one refuses them in a second.

The children run two at a time (the two cores of ``make test``), started
when the first case is asked for.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

import pytest
from fuzz_child import CASES, CI_CASES
from fuzz_oracle import ROOT, FuzzFailure, fuzz_case, profile_name

HERE = Path(__file__).resolve().parent
#: Budget of one child (s): its imports and the map take ~3 s; a correct
#: refusal adds well under a second.
CHILD_TIMEOUT_S = 120.0 if profile_name() == "fuzz" else 20.0
NAMES = sorted(CASES) if profile_name() == "fuzz" else list(CI_CASES)


def _child(name: str, folder: Path) -> subprocess.CompletedProcess[str] | None:
    """Run one case; ``None`` if it ran out of time."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        [str(ROOT), str(HERE), *filter(None, [env.get("PYTHONPATH")])]
    )
    folder.mkdir(parents=True, exist_ok=True)
    try:
        return subprocess.run(
            [sys.executable, str(HERE / "fuzz_child.py"), name, str(folder)],
            capture_output=True,
            text=True,
            env=env,
            timeout=CHILD_TIMEOUT_S,
            cwd=ROOT,
        )
    except subprocess.TimeoutExpired:
        return None


@pytest.fixture(scope="module")
def children(
    tmp_path_factory: pytest.TempPathFactory,
) -> dict[str, Future[subprocess.CompletedProcess[str] | None]]:
    """Every case started, two at a time."""
    base = tmp_path_factory.mktemp("pathological")
    pool = ThreadPoolExecutor(max_workers=2)
    jobs = {n: pool.submit(_child, n, base / f"case{i}") for i, n in enumerate(NAMES)}
    pool.shutdown(wait=False)
    return jobs


@pytest.mark.parametrize("name", NAMES)
def test_pathological_input(
    name: str, children: dict[str, Future[subprocess.CompletedProcess[str] | None]]
) -> None:
    """One case in a child: refused cleanly (or handled) in time and memory."""
    family, what, _ = CASES[name]
    with fuzz_case(family, what, name, timeout_s=0):
        proc = children[name].result()
        if proc is None:
            raise FuzzFailure("hang", f"{what}: no answer within {CHILD_TIMEOUT_S:g} s")
        lines = [x for x in proc.stdout.splitlines() if x.startswith("RESULT ")]
        if not lines:
            tail = (proc.stderr.strip().splitlines() or ["(no output)"])[-1]
            raise FuzzFailure(
                "crash",
                f"{what}: the child died (exit {proc.returncode}): {tail[:300]}",
            )
        failure = json.loads(lines[-1][len("RESULT ") :])["failure"]
        if failure:
            raise FuzzFailure(
                failure["kind"], f"{what}: {failure['detail']}", failure["site"]
            )
