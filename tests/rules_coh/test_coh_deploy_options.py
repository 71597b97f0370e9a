"""Rapid Deployment's offers (card #5) come out the same through the quick
filter of :meth:`CardPlay._deploy_options` as through asking ``why_not`` of
every candidate (issue #23: a speed-up that must change no offer)."""

from __future__ import annotations

import pytest

from wargame.engine import Game
from wargame.engine.policy import get_policy
from wargame.rules.coh.actions import PlayCard
from wargame.rules.coh.cards import cards_by_id


def _offers_both_ways(game: Game) -> tuple[list[PlayCard], list[PlayCard]]:
    rs = game.ruleset
    st = game.state.copy()
    side = rs.current_side(st)
    st.decks[f"hand:{side}"] = ("rapid_deployment",)
    fast = [
        a
        for a in rs.legal_actions(st)
        if isinstance(a, PlayCard) and a.card == "rapid_deployment"
    ]
    cd = cards_by_id()["rapid_deployment"]
    if rs.free_action(st, side):
        return fast, []
    slow = [a for a in rs._candidates(st, side, cd) if rs.why_not(st, a) is None]
    return fast, slow


@pytest.mark.parametrize("scenario", ["coh_partisans", "coh_hidden_village"])
def test_rapid_deployment_offers_match_asking_every_candidate(scenario: str) -> None:
    game = Game.from_scenario(scenario, seed=3)
    game.policies.update(
        {s: get_policy("doctrine", ruleset="coh-2e") for s in game.policies}
    )
    compared = refused = 0
    for _ in range(120):
        if game.state.vars.get("over"):
            break
        if game.state.phase not in ("initiative", "artillery"):
            fast, slow = _offers_both_ways(game)
            assert fast == slow
            compared += 1
            refused += len(slow) < len(
                game.ruleset._candidates(
                    game.state,
                    game.ruleset.current_side(game.state),
                    cards_by_id()["rapid_deployment"],
                )
            )
        game.step()
    assert compared > 20 and refused > 0  # states where some hexes are refused
