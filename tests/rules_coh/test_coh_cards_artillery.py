"""Off-board artillery cards in the hand (CoH 2e §12.3, §8.4 and the card
list, S1 p.17: OBA cards are played and resolved in the pre-round) on the
ground around Niederetscheid (the scenario of test_coh_mortars.py)."""

from __future__ import annotations

from typing import Any

from test_coh_mortars import scenario, unit

from wargame.engine import Game, check_scenario, load_scenario
from wargame.rules.coh.actions import Pass, PlayCard, PlotArtillery


def _card_game(weapons: dict[str, list[str]], units: list[dict[str, Any]]) -> Game:
    sc = scenario(units)
    for s in sc["sides"]:
        if s["id"] in weapons:
            s["weapon_cards"] = weapons[s["id"]]
    return Game.from_scenario(sc, seed=1)


SPOTTER_AND_TARGET = [
    unit("x", "de_rifles_41", "german", "R5", facing=5),
    unit("r", "su_rifles_41", "soviet", "Q11"),
]


def test_an_oba_card_in_the_hand_is_plotted_and_lands_next_round() -> None:
    g = _card_game({"german": ["oba_lefh18"]}, SPOTTER_AND_TARGET)
    st = g.state
    assert st.decks["hand:german"] == ("oba_lefh18",)
    assert st.phase == "artillery" and g.current_side == "german"
    assert PlotArtillery("Q11") in g.legal_actions()
    refusal = g.ruleset.card_play_problem(st, "german", PlayCard("oba_lefh18"))
    assert "PlotArtillery" in refusal  # not played as an action (card list)
    g.apply(PlotArtillery("Q11"))
    st = g.state
    assert st.decks["hand:german"] == ()  # the card is on its way
    assert st.decks["oba:german"] == ("1:Q11:he:oba_lefh18",)
    soviet = g.state_for("soviet")
    assert soviet.decks["oba:german"] == ("?",) and soviet.decks["hand:german"] == ()
    assert "oba_lefh18" not in str([e.result for e in g.events_for("soviet")])
    assert st.phase == "play"
    g.apply(Pass())
    g.apply(Pass())
    st = g.state
    strike = [e for e in g.events if e.kind == "oba" and e.result == "strike"]
    assert strike and strike[0].hex_to == "Q11" and strike[0].turn == 2
    hit = [e for e in g.events if e.kind == "attack" and e.target == "r" and e.dice]
    assert hit and str(hit[0].detail).startswith("artillery AV 6+2d6")  # red 6
    assert "flank DR 11" in str(hit[0].detail)  # HE hits the flank (§12.1)
    assert st.decks["discard"] == ("oba_lefh18",)  # used: face up (§8.4)
    assert st.phase != "artillery"  # the one card is spent: no plot in round 2


def test_an_oba_card_may_fire_smoke_on_the_seven_hexes() -> None:
    g = _card_game({"german": ["oba_lefh18"]}, SPOTTER_AND_TARGET)
    g.apply(PlotArtillery("Q11", smoke=True))
    assert g.state.decks["oba:german"] == ("1:Q11:smoke:oba_lefh18",)
    g.apply(Pass())
    g.apply(Pass())
    smoke = dict(g.state.vars["smoke"])
    pattern = {"Q11", *g.ruleset.board.neighbors("Q11")}
    assert set(smoke) == pattern and set(smoke.values()) == {2}  # §13.1
    assert not [e for e in g.events if e.kind == "attack" and e.target == "r"]


def test_an_oba_card_of_the_other_nation_is_refused() -> None:
    sc = scenario(SPOTTER_AND_TARGET)
    sc["sides"][1]["weapon_cards"] = ["oba_lefh18"]
    problems = check_scenario(load_scenario(sc))
    assert any("sides[1].weapon_cards[0]" in p and "german" in p for p in problems)
