"""coh-2e passes the shared conformance harness (tests/conformance covers the
golden logs): random play to the end, legality, determinism, save/load, replay
and the leak checks (no hidden unit, hand card or face-down marker reaches the
other side's view, legal actions or log)."""

from __future__ import annotations

import pytest

from wargame.engine import available_scenarios, load_scenario
from wargame.testing import check_ruleset

COH = [s for s in available_scenarios() if load_scenario(s).ruleset == "coh-2e"]


def test_there_are_coh_scenarios() -> None:
    assert "coh_partisans" in COH


@pytest.mark.parametrize("name", COH)
def test_check_ruleset_passes_with_leak_checks(name: str) -> None:
    report = check_ruleset("coh-2e", name, seeds=range(6), repeat=1, per_decision=4)
    assert report.games == 6
    assert report.leak_checks > 100  # hidden units and hands were guarded
    assert report.refusals_checked > 0
