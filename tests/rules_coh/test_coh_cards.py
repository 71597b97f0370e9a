"""coh-2e cards in play (seed 003 §8, §9.2, §9.14, §10.0 #1; CoH 2e §8.0-8.5
and the card list, S1 p.17): the seed's examples, secret hands, Firefight 1's
deck, the other cards, yellow cards and refusals that change nothing."""

from __future__ import annotations

from collections import Counter

import pytest
from coh_card_helpers import (
    card_playground,
    give_hand,
    kinds,
    on_partisans_map,
    partisans,
    play,
    refused,
    set_caps,
    set_marker,
    set_status,
)

from wargame.engine import ScenarioError, load_scenario
from wargame.rules.coh.actions import Fire, Move, Pass, Pivot, PlayCard, Stall
from wargame.rules.coh.cards import card, deck_for
from wargame.testing import check_ruleset

# Firefight 1's map: F10 heavy woods next to open G11 (direction 3 from G11);
# H14 -> I14 -> J13 open hexes at level 3.
T34_VS_HIDDEN_SQUAD = [
    {
        "id": "de-rifles",
        "type": "de_rifles_41",
        "side": "german",
        "hex": "F10",
        "hidden": True,
    },
    {"id": "de-lmg", "type": "de_lmg34", "side": "german", "hex": "H14"},
    {
        "id": "su-t34",
        "type": "su_t34a_m40",
        "side": "soviet",
        "hex": "G11",
        "facing": 3,
    },
    {"id": "su-rifles", "type": "su_rifles_41", "side": "soviet", "hex": "M7"},
]


def _hand_card_play(game, side: str) -> None:
    game.apply(Pass())  # the other side passes: ``side``'s turn
    assert game.current_side == side


# -- the seed's examples --------------------------------------------------- #
def test_auto_rally_card_on_a_pinned_unit_keeps_it_fresh() -> None:
    """Seed 003 §8.1: a fresh Soviet unit, hit and pinned, plays Auto-Rally
    for 2 CAPs; the marker goes and the unit is not marked spent."""
    game = partisans()
    set_marker(game, "su-rifles-1", "pinned")
    give_hand(game, "soviet", "auto_rally")
    _hand_card_play(game, "soviet")
    caps = game.state.pools["caps:soviet"]
    a = PlayCard("auto_rally", ("su-rifles-1",))  # pays CAPs: the blue icon
    assert PlayCard("auto_rally", ("su-rifles-1",), None, "command") in (
        game.legal_actions()
    )
    evs = play(game, a)
    u = game.state.units["su-rifles-1"]
    assert "hit" not in u.attrs and "marked" not in u.attrs
    assert u.attrs["status"] == "fresh"
    assert game.state.pools["caps:soviet"] == caps - 2
    assert game.state.decks["hand:soviet"] == ()
    assert game.state.decks["discard"] == ("auto_rally",)
    shown = kinds(evs, "marker_revealed")
    assert [e.result for e in shown] == ["pinned"]  # shown as it goes (§7.6)
    assert game.current_side == "german"  # the card was the turn's action


def test_auto_rally_card_on_two_squads_one_spent_one_fresh() -> None:
    """Seed 003 §9.2: two hit squads in adjacent hexes, one spent, one fresh;
    Auto-Rally on both for 2 CAPs; both lose their markers, one is still fresh."""
    game = partisans()
    set_marker(game, "su-rifles-1", "pinned")  # L11
    set_marker(game, "su-rifles-2", "suppressed")  # K12, next to L11
    set_status(game, "su-rifles-2", "spent")
    give_hand(game, "soviet", "auto_rally")
    _hand_card_play(game, "soviet")
    group = PlayCard("auto_rally", ("su-rifles-1", "su-rifles-2"), None, "command")
    assert group in game.legal_actions()
    play(game, group)
    st = game.state
    for uid in ("su-rifles-1", "su-rifles-2"):
        assert not st.units[uid].attrs.get("marked")
    assert st.units["su-rifles-1"].attrs["status"] == "fresh"
    assert st.units["su-rifles-2"].attrs["status"] == "spent"
    assert st.pools["caps:soviet"] == 7 - 2


def test_magnetic_mine_card_by_hidden_squad_on_a_t34() -> None:
    """Seed 003 §8.2: a T-34 moves onto a hidden German squad, which attacks
    it with the Magnetic Mine card: the flank DR, no terrain DM (card list)."""
    game = on_partisans_map(
        T34_VS_HIDDEN_SQUAD, first="soviet", weapon_cards={"german": ["magnetic_mine"]}
    )
    assert game.state.decks["hand:german"] == ("magnetic_mine",)
    assert game.state_for("soviet").decks["hand:german"] == ("?",)
    evs = play(game, Move(("su-t34",), ("F10",), "ap"))
    assert [e.unit for e in kinds(evs, "revealed")] == ["de-rifles"]  # §10.0 #2
    mine = PlayCard("magnetic_mine", ("de-rifles",), "F10", "command")
    assert mine in game.legal_actions()
    evs = play(game, mine)
    (roll,) = [e for e in kinds(evs, "attack") if e.dice]
    # blue 7 FP against the T-34's flank DR 15; heavy woods' +2 does not count
    assert roll.needed == 15 - 7 and roll.target == "su-t34"
    assert "no DMs" in roll.detail
    assert game.state.units["de-rifles"].attrs["status"] == "fresh"
    assert game.state.pools["caps:german"] == 6 - 2
    played = [e for e in kinds(evs, "card") if e.result == "magnetic_mine"]
    assert played and played[0].visible_to is None  # public once played
    assert game.state.decks["discard"] == ("magnetic_mine",)


def test_hasty_defence_card_on_two_squads_keeps_the_hmg_fresh() -> None:
    """Seed 003 §9.14: an activated squad moves next to a fresh HMG; a hasty
    defence card on both gives both a counter; the HMG is not spent."""
    units = [
        {"id": "de-rifles", "type": "de_rifles_41", "side": "german", "hex": "H14"},
        {"id": "de-hmg", "type": "de_hmg34", "side": "german", "hex": "J13"},
        {"id": "su-rifles", "type": "su_rifles_41", "side": "soviet", "hex": "M7"},
    ]
    game = on_partisans_map(units)
    give_hand(game, "german", "seek_cover")
    play(game, Move(("de-rifles",), ("I14",), "ap"), Pass())
    cover = PlayCard("seek_cover", ("de-hmg", "de-rifles"))
    assert cover in game.legal_actions()
    play(game, cover)
    st = game.state
    assert st.units["de-rifles"].attrs["hasty"] and st.units["de-hmg"].attrs["hasty"]
    assert st.units["de-hmg"].attrs["status"] == "fresh"
    assert st.units["de-rifles"].attrs["status"] == "active"
    fm = game.ruleset.fire_math(st, st.units["su-rifles"], st.units["de-hmg"])
    assert "hasty defence +1 (§18)" in fm.dv_terms
    # the counter is lost on a pivot or a move (CoH 2e §18.1.3)
    play(game, Pass(), Pivot(("de-hmg",), 1, "command"))
    assert "hasty" not in game.state.units["de-hmg"].attrs
    play(game, Pass(), Move(("de-rifles",), ("J14",), "ap"))
    assert "hasty" not in game.state.units["de-rifles"].attrs


# -- hands and the deck ---------------------------------------------------- #
def test_hands_stay_secret_until_a_card_is_played() -> None:
    game = partisans()
    soviet_hand = game.state.decks["hand:soviet"]
    assert soviet_hand == ("command_action", "sniper_fire")
    assert game.state_for("german").decks["hand:soviet"] == ("?", "?")
    assert game.state_for("german").decks["cards"] == ("?",) * 35
    seen = game.events_for("german")
    assert not any(e.result in soviet_hand for e in seen if e.side == "soviet")
    assert not any(
        c[0] == "deck" and c[1] == "hand:soviet" for e in seen for c in e.changes
    )
    _hand_card_play(game, "soviet")
    game.apply(PlayCard("sniper_fire"))
    seen = game.events_for("german")
    played = [e for e in seen if e.kind == "card" and e.side == "soviet" and e.result]
    assert [e.result for e in played] == ["sniper_fire"]
    assert game.state_for("german").decks["hand:soviet"] == ("?",)
    assert game.state_for("german").decks["discard"] == ("sniper_fire",)
    assert "command_action" not in {e.result for e in seen if e.side == "soviet"}


def test_the_deck_of_firefight_1_holds_cards_up_to_13() -> None:
    """S1 Firefight 1 with cards: every action and bonus card numbered 13 or
    less, 2 cards to each player at the start."""
    game = partisans(seed=4)
    st = game.state
    hands = st.decks["hand:german"] + st.decks["hand:soviet"]
    assert len(st.decks["hand:german"]) == len(st.decks["hand:soviet"]) == 2
    assert Counter(st.decks["cards"] + hands) == Counter(deck_for(13))
    assert max(card(c).number for c in st.decks["cards"] + hands) <= 13
    assert len(deck_for(13)) == 39


# -- refusals leave the state unchanged ------------------------------------- #
def test_refusals_name_the_problem_and_change_nothing() -> None:
    game = partisans()
    set_marker(game, "su-rifles-1", "pinned")  # L11
    set_marker(game, "su-rifles-3", "pinned")  # M15, not next to L11
    give_hand(game, "soviet", "auto_rally", "sniper_fire")
    _hand_card_play(game, "soviet")
    absent = PlayCard("rally_up", ("su-rifles-1",))
    assert "not in soviet's hand" in refused(game, absent)
    far = PlayCard("auto_rally", ("su-rifles-1", "su-rifles-3"))
    assert "contiguous" in refused(game, far)
    set_caps(game, "soviet", 1)
    why = refused(game, PlayCard("auto_rally", ("su-rifles-1",)))
    assert "2 CAPs" in why and "has 1" in why
    set_caps(game, "soviet", 7)
    assert "is free" in refused(game, PlayCard("sniper_fire", pay="command"))


# -- the other cards -------------------------------------------------------- #
def test_command_action_card_gives_one_free_action_that_keeps_units_fresh() -> None:
    game = partisans()
    give_hand(game, "soviet", "command_action")
    _hand_card_play(game, "soviet")
    play(game, PlayCard("command_action"))
    assert game.current_side == "soviet"  # the free action is still to come
    offered = game.legal_actions()
    assert all(a == Pass() or getattr(a, "pay", None) == "card" for a in offered)
    assert "comes first" in refused(game, Stall("command"))
    caps = game.state.pools["caps:soviet"]
    play(game, Move(("su-rifles-1",), ("L10",), "card"))
    st = game.state
    assert st.units["su-rifles-1"].hex == "L10"
    assert st.units["su-rifles-1"].attrs["status"] == "fresh"
    assert st.pools["caps:soviet"] == caps and st.pools["ap:soviet"] == 0
    assert game.current_side == "german"
    late = Move(("de-rifles-1",), ("A4",), "card")
    assert "play the card first" in refused(game, late)


def test_swift_action_card_gives_two_actions_in_a_row() -> None:
    game = partisans()
    give_hand(game, "soviet", "swift_action")
    _hand_card_play(game, "soviet")
    play(game, PlayCard("swift_action"), Move(("su-rifles-1",), ("L10",), "ap"))
    assert game.current_side == "soviet"  # the German's turn is skipped
    play(game, Move(("su-rifles-1",), ("L9",), "ap"))
    assert game.current_side == "german"


def test_sniper_fire_battlefield_confusion_sergeant_and_officer() -> None:
    game = partisans()
    give_hand(
        game,
        "soviet",
        "sniper_fire",
        "battlefield_confusion",
        "experienced_sergeant",
        "frontline_officer",
    )
    play(game, Move(("de-rifles-1",), ("A4",), "ap"))  # enters, activated
    caps = game.state.pools["caps:german"]
    evs = play(game, PlayCard("sniper_fire"))
    (d,) = [e.dice[0] for e in evs if e.kind == "card" and e.dice]
    assert game.state.pools["caps:german"] == caps - (0, 1, 1, 2, 2, 3)[d - 1]
    # the German stalls (1 AP): a pass would spend his activated unit (§2.2)
    play(game, Stall("ap"), PlayCard("battlefield_confusion", ("de-rifles-1",)))
    assert game.state.units["de-rifles-1"].attrs["status"] == "spent"
    play(game, Pass(), PlayCard("frontline_officer", ("su-rifles-1",), None, "ap"))
    st = game.state
    assert st.units["su-rifles-1"].attrs["status"] == "active"  # paid 2 AP
    assert st.pools["ap:soviet"] == 5
    (d,) = [e.dice[0] for e in game.events[-6:] if e.kind == "card" and e.dice]
    assert st.pools["caps:soviet"] == 7 + d
    play(game, Pass(), PlayCard("experienced_sergeant", ("su-rifles-1",)))
    (d,) = [e.dice[0] for e in game.events[-6:] if e.kind == "card" and e.dice]
    assert game.state.pools["ap:soviet"] == 5 + d


def test_rapid_deployment_moves_two_hexes_but_not_a_pinned_unit() -> None:
    game = partisans()
    give_hand(game, "soviet", "rapid_deployment")
    set_marker(game, "su-rifles-2", "pinned")
    _hand_card_play(game, "soviet")
    offered = [a for a in game.legal_actions() if a.type == "play_card"]
    assert not any("su-rifles-2" in a.units for a in offered)
    pinned = PlayCard("rapid_deployment", ("su-rifles-2",), "K10")
    assert "pinned" in refused(game, pinned)
    too_far = PlayCard("rapid_deployment", ("su-rifles-1",), "L14")
    assert "1 or 2 hexes" in refused(game, too_far)
    play(game, PlayCard("rapid_deployment", ("su-rifles-1",), "L9"))
    st = game.state
    assert st.units["su-rifles-1"].hex == "L9"
    assert st.units["su-rifles-1"].attrs["status"] == "fresh"


def test_careful_aiming_adds_two_fp_to_a_fire() -> None:
    units = [
        {
            "id": "de-rifles",
            "type": "de_rifles_41",
            "side": "german",
            "hex": "H14",
            "facing": 1,
        },
        {"id": "su-rifles", "type": "su_rifles_41", "side": "soviet", "hex": "K12"},
    ]
    game = on_partisans_map(units)
    give_hand(game, "german", "careful_aiming")
    fires = [a for a in game.legal_actions() if isinstance(a, Fire)]
    aimed = [a for a in fires if a.card == "careful_aiming"]
    assert aimed and len(aimed) == len([a for a in fires if a.card is None])
    evs = play(game, aimed[0])
    rolls = [e for e in kinds(evs, "attack") if e.dice]
    assert rolls and all("Careful Aiming card +2" in e.detail for e in rolls[:1])
    assert game.state.decks["discard"] == ("careful_aiming",)


def test_scout_teams_reveal_and_bogged_down_stops_the_t34() -> None:
    game = on_partisans_map(T34_VS_HIDDEN_SQUAD, first="soviet")
    give_hand(game, "soviet", "scout_teams")
    give_hand(game, "german", "bogged_down")
    evs = play(game, PlayCard("scout_teams", ("su-t34",), None, "command"))
    assert [e.unit for e in kinds(evs, "revealed")] == ["de-rifles"]
    play(game, PlayCard("bogged_down", ("su-t34",)))
    assert "bogged down" in refused(game, Move(("su-t34",), ("F10",), "ap"))


def test_yellow_cards_are_played_when_drawn() -> None:
    game = on_partisans_map(
        T34_VS_HIDDEN_SQUAD, extra_cards=["score", "firefight_event"]
    )
    st = game.state
    assert sorted(st.decks["discard"]) == ["firefight_event", "score"]
    assert st.decks["hand:german"] == st.decks.get("hand:soviet", ()) == ()
    ended = on_partisans_map(T34_VS_HIDDEN_SQUAD, extra_cards=["game_ends"])
    assert ended.is_over and "Game Ends card" in ended.outcome.termination


def test_scenario_card_lists_are_checked() -> None:
    with pytest.raises(ScenarioError, match="soviet card"):
        on_partisans_map(T34_VS_HIDDEN_SQUAD, weapon_cards={"german": ["molotov"]})
    with pytest.raises(ScenarioError, match="only event cards"):
        on_partisans_map(T34_VS_HIDDEN_SQUAD, extra_cards=["grenades"])


def test_grenades_at_one_hex_are_long_range_and_terrain_counts() -> None:
    units = [
        {
            "id": "de-rifles",
            "type": "de_rifles_41",
            "side": "german",
            "hex": "I14",
            "facing": 0,
        },
        {"id": "su-rifles", "type": "su_rifles_41", "side": "soviet", "hex": "J13"},
    ]
    game = on_partisans_map(units, weapon_cards={"german": ["grenades"]})
    throw = PlayCard("grenades", ("de-rifles",), "J13")
    assert throw in game.legal_actions()
    assert "reaches 1" in refused(game, PlayCard("grenades", ("de-rifles",), "K14"))
    evs = play(game, throw)
    (roll,) = [e for e in kinds(evs, "attack") if e.dice]
    assert "red FP 5" in roll.detail and "long range -2" in roll.detail
    assert game.state.units["de-rifles"].attrs["status"] == "fresh"  # free


def test_rapid_deployment_moves_a_hidden_squad_hidden() -> None:
    game = on_partisans_map(T34_VS_HIDDEN_SQUAD)
    give_hand(game, "german", "rapid_deployment")
    board = game.ruleset.board
    moves = [
        a
        for a in game.legal_actions()
        if a.type == "play_card"
        and a.units == ("de-rifles",)
        and board.cover(a.hex)
        and board.distance(a.hex, "G11") == 3
    ]
    assert moves
    evs = play(game, moves[0])
    st = game.state
    assert st.units["de-rifles"].hidden and st.units["de-rifles"].hex == moves[0].hex
    public = [e for e in evs if e.visible_to is None]
    assert all(e.unit != "de-rifles" and e.hex_to != moves[0].hex for e in public)
    assert "de-rifles" not in game.state_for("soviet").units


def test_every_card_play_passes_the_conformance_harness() -> None:
    """Offered exactly when allowed, no hidden unit or hand card leaked, with
    every playable card in the hands (check_ruleset)."""
    report = check_ruleset(
        "coh-2e",
        load_scenario(card_playground()),
        seeds=range(2),
        repeat=1,
        per_decision=6,
    )
    assert report.games == 2 and report.refusals_checked > 100


def test_rapid_deployment_of_a_loaded_halftrack_moves_its_riders() -> None:
    """Card #5 on an SdKfz 251 carrying a rifle squad (§17.0): the riders
    move and face with it, in the same step events as a paid move; a rider
    alone may not take the card."""
    units = [
        {
            "id": "de-251",
            "type": "de_sdkfz_251_1",
            "side": "german",
            "hex": "H14",
            "facing": 1,
        },
        {
            "id": "de-rifles",
            "type": "de_rifles_41",
            "side": "german",
            "carried_by": "de-251",
        },
        {"id": "su-rifles", "type": "su_rifles_41", "side": "soviet", "hex": "M7"},
    ]
    game = on_partisans_map(units)
    give_hand(game, "german", "rapid_deployment")
    rider = PlayCard("rapid_deployment", ("de-rifles",), "J13")
    assert "goes with its vehicle" in refused(game, rider)
    offered = [a for a in game.legal_actions() if a.type == "play_card"]
    assert offered and not any("de-rifles" in a.units for a in offered)
    evs = play(game, PlayCard("rapid_deployment", ("de-251",), "J13"))
    st = game.state
    half, rifles = st.units["de-251"], st.units["de-rifles"]
    assert half.hex == "J13" and rifles.hex == "J13"
    assert rifles.facing == half.facing and rifles.attrs["carried_by"] == "de-251"
    steps = kinds(evs, "move")
    assert steps and all(e.unit == "de-251" for e in steps)
    assert all(
        any(c[1] == "de-rifles" and c[2] == "position" for c in e.changes)
        for e in steps
    )
