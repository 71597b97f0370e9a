"""Off-board artillery cards in the hand (CoH 2e §12.3, §8.4 and the card
list, S1 p.17: OBA cards are played and resolved in the pre-round) on the
ground around Niederetscheid (the scenario of test_coh_mortars.py)."""

from __future__ import annotations

from typing import Any

from test_coh_mortars import scenario, unit

from wargame.engine import Game, check_scenario, load_scenario
from wargame.rules.coh.actions import Flame, IndirectFire, Pass, PlayCard, PlotArtillery


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


# -- seed 003 §8.3: the Close Call veteran card -------------------------------- #
def _close_call_game(strikes: int = 1, given: bool = True) -> tuple[Game, str, str]:
    """German artillery on Q11; a Soviet squad on the edge of its seven hexes
    and a hex out of them it may step to."""
    probe = Game.from_scenario(scenario([MORTAR_FREE]), seed=1)
    b = probe.ruleset.board
    pattern = {"Q11", *b.neighbors("Q11")}
    edge, out = next(
        (n, o)
        for n in sorted(b.neighbors("Q11"))
        for o in sorted(b.neighbors(n))
        if o not in pattern and b.move_extra(n, o, "foot") is not None
    )
    sc = scenario(
        [
            unit("x", "de_rifles_41", "german", "R5", facing=5),
            unit("r", "su_rifles_41", "soviet", edge),
        ],
        oba={"card": "oba_lefh18", "strikes": strikes},
    )
    if given:
        sc["sides"][1]["veteran_cards"] = ["close_call"]
    g = Game.from_scenario(sc, seed=1)
    return g, edge, out


MORTAR_FREE = unit("m", "de_mortar_8cm", "german", "R3", facing=5)


def _to_the_strike(g: Game) -> None:
    g.apply(PlotArtillery("Q11"))
    while g.state.turn == 1:
        g.apply(Pass())


def test_close_call_moves_a_unit_out_of_the_strike_before_it_lands() -> None:
    g, _edge, out = _close_call_game()
    assert g.state.decks["hand:soviet"] == ("close_call",)
    _to_the_strike(g)
    st = g.state
    assert st.turn == 2 and st.vars.get("close_call") == "soviet"
    assert g.current_side == "soviet"
    announced = [e for e in g.events if e.kind == "oba" and e.result == "strike"]
    assert announced and announced[-1].hex_to == "Q11"
    assert not [e for e in g.events if e.kind == "attack" and e.target == "r"]
    opts = g.legal_actions()
    assert opts[0] == Pass() and PlayCard("close_call", ("r",), out) in opts
    bad = g.ruleset.why_not(st, PlayCard("close_call", ("r",), "A1"))
    assert "one hex" in bad
    g.apply(PlayCard("close_call", ("r",), out))
    st = g.state
    assert st.units["r"].hex == out and st.decks["discard"] == ("close_call",)
    assert not [e for e in g.events if e.kind == "attack" and e.target == "r"]
    assert st.phase in ("initiative", "play")  # the pre-round went on
    assert not st.vars.get("close_call") and not st.vars.get("strike")


def test_passing_on_close_call_lets_the_strike_hit_and_keeps_the_card() -> None:
    g, edge, _out = _close_call_game()
    _to_the_strike(g)
    g.apply(Pass())
    hits = [e for e in g.events if e.kind == "attack" and e.target == "r" and e.dice]
    assert hits and g.state.units["r"].hex == edge  # not moved, rolled against
    assert g.state.decks["hand:soviet"] == ("close_call",)  # kept for later


def test_close_call_is_played_once() -> None:
    g, _edge, out = _close_call_game(strikes=2)
    _to_the_strike(g)
    g.apply(PlotArtillery("Q11"))  # round 2's plot comes first (§2.0)
    assert g.state.vars.get("close_call") == "soviet"
    g.apply(PlayCard("close_call", ("r",), out))
    while g.state.turn == 2:
        g.apply(g.legal_actions()[0])  # initiative: no CAP; then both pass
    strikes = [e for e in g.events if e.kind == "oba" and e.result == "strike"]
    assert [e.turn for e in strikes] == [2, 3]
    assert not g.state.vars.get("close_call")  # on the discard pile: no window


def test_no_close_call_window_for_a_side_not_given_the_card() -> None:
    g, _edge, _out = _close_call_game(given=False)
    _to_the_strike(g)
    assert not g.state.vars.get("close_call")
    assert [e for e in g.events if e.kind == "attack" and e.target == "r"]
    sc = scenario([MORTAR_FREE])
    sc["sides"][0]["veteran_cards"] = ["grenades"]
    problems = check_scenario(load_scenario(sc))
    assert any("sides[0].veteran_cards[0]" in p and "veteran" in p for p in problems)


# -- card #9 on every attack: the ``card`` field of Fire, IndirectFire, Flame -- #
def test_careful_aiming_rides_on_indirect_fire_too() -> None:
    g = Game.from_scenario(
        scenario([MORTAR_FREE, unit("r", "su_rifles_41", "soviet", "Q11")]), seed=1
    )
    a = IndirectFire(("m",), "Q11", card="careful_aiming")
    assert "not in german's hand" in str(g.ruleset.why_not(g.state, a))
    g.state.decks["hand:german"] = ("careful_aiming",)  # a test edit: the hand
    assert a in g.legal_actions()
    assert g.ruleset.why_not(g.state, Flame(("m",), "Q11", card="luck")) is not None
    evs = g.apply(a)
    roll = next(e for e in evs if e.kind == "attack" and e.dice)
    assert "Careful Aiming card +2 (card #9)" in str(roll.detail)
    assert g.state.decks["discard"] == ("careful_aiming",)
