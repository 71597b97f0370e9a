"""Golden playthrough logs: every recorded game replays to the very same events.

The logs under ``tests/data/golden/<ruleset>/`` were recorded with
``scripts/record_golden.py`` before the rule code was reorganised; any change of a
die, a reason, a result or a state change fails here with the first line that
differs.  Re-record only for an intended change of behaviour, and say so.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from wargame.engine import available_rulesets
from wargame.testing.golden import diff_golden, read_golden

GOLDEN = Path(__file__).resolve().parents[1] / "data" / "golden"
LOGS = sorted(GOLDEN.glob("*/*.jsonl.gz"))


def test_there_are_fifty_world_at_war_golden_logs() -> None:
    waw = [p for p in LOGS if p.parent.name == "waw-classic"]
    assert len(waw) >= 50
    scenarios = {read_golden(p)[0]["scenario"] for p in waw}
    assert scenarios >= {"ahr_delay", "remagen_linz_crossing", "test_remagen"}


@pytest.mark.parametrize("path", LOGS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_golden_log_replays_identically(path: Path) -> None:
    problem = diff_golden(path)
    assert problem is None, problem


def test_every_registered_rule_system_has_a_golden_log() -> None:
    have = {p.parent.name for p in LOGS}
    missing = [r for r in available_rulesets() if r not in have]
    assert not missing, f"rule systems without a golden log: {missing}"
