"""The conformance harness over every registered rule system.

``wargame.testing.check_ruleset`` plays random legal games to the end and checks
invariants, legality, determinism, save/load, replay and secrets.  World at War
runs it on every shipped scenario (200 seeds in all, with its own invariants
after every event); the toy rule system of ``tests/engine`` (a hidden squad,
secret hands) shows that the secret checks bite: with its hiding switched off,
the harness fails.
"""

from __future__ import annotations

import functools
import sys
from pathlib import Path

import pytest

from wargame.engine import (
    Game,
    Scenario,
    UnknownRulesetError,
    available_rulesets,
    available_scenarios,
    load_scenario,
)
from wargame.engine import ruleset as registry
from wargame.rules.waw import MoveHQ
from wargame.testing import ConformanceError, check_ruleset, secrets_seen

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "engine"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "rules_waw"))
from toy_ruleset import TOY_SCENARIO, Play, Shoot, ToyRuleset
from waw_invariants import InvariantChecker

WAW_SCENARIOS = [s for s in available_scenarios() if load_scenario(s).ruleset
                 == "waw-classic"]
WAW_SEEDS_PER_SCENARIO = 200 // len(WAW_SCENARIOS) + 1


@functools.cache
def _waw_rules(scenario_id: str) -> object:
    return Game(load_scenario(scenario_id), seed=0).ruleset


def waw_invariants(sc: Scenario) -> InvariantChecker:
    return InvariantChecker(_waw_rules(sc.id))  # type: ignore[arg-type]


def _own_hq_path(action: object) -> bool:
    """A MoveHQ with its own path: World at War accepts every legal path and
    offers the cheapest (``path=None``) and the safest, so a safest path
    withdrawn (say, an enemy in sight of it was destroyed) may stay legal."""
    return isinstance(action, MoveHQ) and action.path is not None


@pytest.mark.slow
@pytest.mark.parametrize("scenario", WAW_SCENARIOS)
def test_world_at_war_passes_the_conformance_harness(scenario: str) -> None:
    report = check_ruleset(
        "waw-classic",
        scenario,
        seeds=range(WAW_SEEDS_PER_SCENARIO),
        listeners=[waw_invariants],
        sampled=_own_hq_path,
    )
    assert report.games == WAW_SEEDS_PER_SCENARIO
    assert report.actions_checked > report.games * 10
    assert report.refusals_checked > 0


def test_two_hundred_world_at_war_seeds_in_all() -> None:
    assert WAW_SEEDS_PER_SCENARIO * len(WAW_SCENARIOS) >= 200


def test_the_toy_rule_system_passes_and_its_secrets_are_checked() -> None:
    report = check_ruleset("toy-1e", TOY_SCENARIO, seeds=range(40))
    assert report.games == 40 and report.leak_checks > 1000
    assert "toy-1e" in available_rulesets()


class LeakyToy(ToyRuleset):
    """The toy with its hiding switched off: every side sees everything."""

    id = "leaky-1e"
    hidden_information = False


@pytest.fixture
def leaky(monkeypatch: pytest.MonkeyPatch) -> dict[str, object]:
    monkeypatch.setattr(registry, "_REGISTRY", dict(registry._REGISTRY))
    registry.register_ruleset("leaky-1e", LeakyToy)
    return {**TOY_SCENARIO, "ruleset": "leaky-1e"}


def test_the_harness_fails_when_the_toy_shows_its_secrets(leaky) -> None:
    with pytest.raises(ConformanceError, match="hidden unit b1"):
        check_ruleset("leaky-1e", leaky, seeds=range(3))


def test_hidden_unit_and_hand_never_reach_the_other_side(leaky) -> None:
    honest = Game.from_scenario(TOY_SCENARIO, seed=1)
    st = honest.state
    assert secrets_seen(honest.ruleset, st, "red", actions=honest.legal_actions()) == []
    leaky_game = Game.from_scenario(leaky, seed=1)
    seen = secrets_seen(leaky_game.ruleset, leaky_game.state, "red",
                        actions=leaky_game.legal_actions())
    assert "red's view holds hidden unit b1" in seen
    assert "red's view shows the contents of deck 'hand:blue'" in seen
    assert any("is offered Shoot(unit='r1', target='b1')" in x for x in seen)
    # the honest toy refuses the shot as if b1 did not exist
    assert Shoot("r1", "b1") not in honest.legal_actions()
    honest.apply(Play("red-plus1"))
    assert "red-plus1" not in honest.log_for("blue").to_string()


def test_an_unknown_rule_system_lists_the_registered_ones() -> None:
    with pytest.raises(UnknownRulesetError, match=r"available: .*waw-classic"):
        check_ruleset("coh-3e", "test_remagen")


def test_a_scenario_of_another_rule_system_is_refused() -> None:
    with pytest.raises(ValueError, match=r"is for 'waw-classic', not 'toy-1e'"):
        check_ruleset("toy-1e", "test_remagen")
