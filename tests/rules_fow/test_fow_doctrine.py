"""The fow-v3 doctrine player: registered, the default, plays a game through."""

from __future__ import annotations

from wargame.ai import get_policy
from wargame.engine import Game, get_ruleset, load_scenario
from wargame.rules.fow.doctrine import DoctrinePolicy
from wargame.rules.fow.ruleset import Move, Shoot


def test_doctrine_is_registered_and_the_default_of_fow() -> None:
    assert isinstance(get_policy("doctrine", ruleset="fow-v3"), DoctrinePolicy)
    assert get_ruleset("fow-v3").default_policy == "doctrine"


def test_doctrine_plays_the_meeting_engagement_to_the_end_the_same_twice() -> None:
    sc = load_scenario("fow_ockenfels_1945")
    pols = {"us": DoctrinePolicy(), "de": DoctrinePolicy()}
    g = Game(sc, seed=5, policies=pols)
    g.run()
    out = g.outcome
    assert out is not None and out.turn <= sc.turns
    kinds = {type(a) for a in g.actions}
    assert Move in kinds and Shoot in kinds  # it advances and it fires
    again = Game(sc, seed=5, policies={"us": DoctrinePolicy(), "de": DoctrinePolicy()})
    for _ in range(40):
        again.step()
    assert list(again.actions) == list(g.actions)[:40]


def test_doctrine_plays_remagen_to_a_decision_with_assaults_or_shots() -> None:
    """Remagen has no draws in 100 doctrine games (docs): one plays to a winner."""
    sc = load_scenario("fow_remagen_1945")
    g = Game(sc, seed=11, policies={"us": DoctrinePolicy(), "de": DoctrinePolicy()})
    g.run()
    assert g.outcome is not None and g.outcome.winner in ("us", "de")
    assert (g.log["kind"] == "shoot").any()
