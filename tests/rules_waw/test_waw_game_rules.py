"""World at War rules as played by the engine: movement, fire, opportunity fire,
assault, morale, HQs, command, transport, capture and the odds helper.

Each test builds a small situation on the real Remagen window (the open plateau
around row 17 has long sight lines; the Rhine, its ferry and Erpel are close by),
activates a formation and scripts the game's dice with ``FixedDice`` where the
outcome matters (``game.rng.remaining == 0`` checks exactly those dice were used).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from waw_helpers import game_for, hold_fire, kinds, scenario, unit
from waw_helpers import since as new_events

from wargame.engine import Game, IllegalActionError
from wargame.rules import waw
from wargame.rules.waw import (
    Assault,
    Dismount,
    EndActivation,
    Fire,
    FixedDice,
    Mount,
    Move,
    MoveHQ,
    Pass,
    Rally,
)
from wargame.rules.waw.unit_attrs import carried_by, disrupted, ops_complete


def reason(g: Game, action) -> str:
    with pytest.raises(IllegalActionError) as err:
        g.apply(action)
    return str(err.value)


# --------------------------------------------------------------------------- #
# movement                                                                    #
# --------------------------------------------------------------------------- #


def test_woods_cost_two_mp_for_tracked_vehicles() -> None:
    # WaW 5.0 with the terrain chart (terrain.toml: woods tracked 2 MP).
    g = game_for(
        [
            unit("A-HQ", "us_hq", "A", "Z8"),
            unit("A1", "m60", "A", "Z8", name="M60 1/A"),
            unit("B-HQ", "ussr_hq", "B", "H17"),
            unit("B1", "t72", "B", "H17"),
        ]
    )
    n0 = len(g.events)
    g.apply(Move("A1", "Z7"))
    (move,) = [e for e in new_events(g, n0) if e.kind == "move"]
    assert (move.hex_from, move.hex_to) == ("Z8", "Z7")
    assert "(2 MP, 6 left)" in move.detail
    assert g.state.units["A1"].attrs["mp"] == 2.0
    assert g.units.loc["A1", "mp_left"] == 6.0


def test_roads_replace_the_terrain_cost() -> None:
    # ASSUMPTION (hex-level roads): road hex to road hex costs the road's rate.
    g = game_for(
        [
            unit("A-HQ", "us_hq", "A", "B10"),
            unit("A1", "m60", "A", "B10"),
            unit("B-HQ", "ussr_hq", "B", "H17"),
            unit("B1", "t72", "B", "H17"),
        ]
    )
    g.apply(Move("A1", "C10"))  # woods, but along a secondary road
    assert g.state.units["A1"].attrs["mp"] == 0.5


def test_streams_add_their_crossing_cost() -> None:
    g = game_for(
        [
            unit("A-HQ", "us_hq", "A", "AE7"),
            unit("A1", "m60", "A", "AE7"),
            unit("B-HQ", "ussr_hq", "B", "H17"),
            unit("B1", "t72", "B", "H17"),
        ]
    )
    g.apply(Move("A1", "AF6"))  # woods 2 + stream 2, no road
    assert g.state.units["A1"].attrs["mp"] == 4.0


def test_the_rhine_is_crossed_only_by_ferry_or_bridge() -> None:
    # Terrain chart: rivers impassable without a bridge, ferry or assault bridge;
    # ASSUMPTION: boarding the ferry costs 2 MP and ends the move.
    g = game_for(
        [
            unit("A-HQ", "us_hq", "A", "T11"),
            unit("A1", "us_infantry", "A", "T11", name="Infantry 1/A"),
            unit("A2", "m60", "A", "S11", name="M60 2/A"),
            unit("B-HQ", "ussr_hq", "B", "H17"),
            unit("B1", "t72", "B", "H17"),
        ]
    )
    assert reason(g, Move("A2", "R10")) == (
        "M60 2/A cannot enter R10 (water: only at a bridge or ferry)"
    )
    g.apply(Move("A1", "T10"))
    move = g.events[-1]
    assert move.kind == "move" and "boards the ferry (move ends)" in move.detail
    assert reason(g, Move("A1", "U10")) == (
        "Infantry 1/A has 0 MP left; entering U10 costs 1"
    )


def test_stacking_limit_is_two_units_with_hq_and_passengers_exempt() -> None:
    # WaW Stacking: two units per hex; HQs exempt; carrier + cargo count as one.
    g = game_for(
        [
            unit("A-HQ", "us_hq", "A", "K12"),
            unit("A1", "m60", "A", "K12"),
            unit("A2", "m113", "A", "K12"),
            unit("A3", "us_infantry", "A", None, carried_by="A2"),
            unit("A4", "m60", "A", "J12", name="M60 4/A"),
            unit("B-HQ", "ussr_hq", "B", "H17"),
            unit("B1", "t72", "B", "H17"),
        ]
    )
    assert reason(g, Move("A4", "K12")) == "stack at K12 would hold 3 units"
    assert reason(g, Dismount("A3")) == "stack at K12 would hold 3 units"
    assert Move("A4", "K12") not in g.legal_actions()
    g.apply(Move("A1", "K11"))
    g.apply(Dismount("A3"))  # room now: the M60 left
    assert carried_by(g.state.units["A3"]) is None


def test_units_cannot_move_into_enemy_hexes() -> None:
    g = game_for(
        [
            unit("A-HQ", "us_hq", "A", "N17"),
            unit("A1", "m60", "A", "N17"),
            unit("B-HQ", "ussr_hq", "B", "L17"),
            unit("B1", "t72", "B", "M17"),
        ]
    )
    assert reason(g, Move("A1", "M17")) == "M17 holds enemy units: assault it instead"


def test_a_unit_is_ops_complete_once_another_unit_acts() -> None:
    # WaW: a unit that has acted is marked Ops Complete.
    g = game_for(
        [
            unit("A-HQ", "us_hq", "A", "Z8"),
            unit("A1", "m60", "A", "Z8", name="M60 1/A"),
            unit("A2", "m60", "A", "Z9"),
            unit("B-HQ", "ussr_hq", "B", "H17"),
            unit("B1", "t72", "B", "H17"),
        ]
    )
    g.apply(Move("A1", "AA9"))
    g.apply(Move("A1", "AB9"))  # still the same unit's move
    assert not ops_complete(g.state.units["A1"])
    n0 = len(g.events)
    g.apply(Move("A2", "AA10"))
    assert kinds(new_events(g, n0))[0] == "ops_complete"
    assert ops_complete(g.state.units["A1"])
    assert reason(g, Move("A1", "AA9")) == "M60 1/A is Ops Complete"


# --------------------------------------------------------------------------- #
# fire                                                                        #
# --------------------------------------------------------------------------- #

PLATEAU = [
    unit("A-HQ", "us_hq", "A", "N17", name="HQ Team A"),
    unit("A1", "m60", "A", "N17", name="M60 1/A"),
    unit("B-HQ", "ussr_hq", "B", "J17", name="HQ 1/74"),
    unit("B1", "t72", "B", "K17", name="T-72 1/74"),
]


def test_fire_range_from_the_grid_and_dice_from_resolve_fire() -> None:
    # WaW 6.1: range counts neither hex (N17-K17: 3 steps, range 2); M60 range 9,
    # so half range: to-hit 4 - 1 = 3 (6.1.1).  T-72 saves with 2 armor dice on 5+
    # in clear terrain (no terrain dice).  Net 2 hits: disrupted and reduced.
    g = game_for(PLATEAU)
    g.rng = FixedDice([3, 3, 1, 6, 5, 1])
    n0 = len(g.events)
    g.apply(Fire("A1", "B1", "ap"))
    ev = new_events(g, n0)
    assert kinds(ev) == ["fire", "save", "hit"]
    fire, save, hit = ev
    assert (fire.dice, fire.needed, fire.hits) == ((3, 3, 1, 6), 3, 3)
    assert "range 2, half" in fire.detail
    assert (save.unit, save.dice, save.needed, save.hits) == ("B1", (5, 1), 5, 1)
    assert (hit.unit, hit.hits, hit.result) == ("B1", 2, "reduced")
    b1 = g.state.units["B1"]
    assert (b1.strength, disrupted(b1)) == ("reduced", True)
    assert ops_complete(g.state.units["A1"])
    assert g.rng.remaining == 0
    # the same dice through the pure rule function give the same result
    same = waw.resolve_fire(FixedDice([3, 3, 1, 6, 5, 1]), "m60", "t72", range_hexes=2)
    assert same.roll.attack_dice == fire.dice and same.result.after.reduced


def test_m48_vs_t64_in_town_ruins_example_played_on_the_map() -> None:
    # seed 001 §6.1 worked example, in a game: a Bundeswehr M48 on the Erpel bank
    # (AA9) fires across the Rhine at a T-64 in Remagen (V12, town: 2 terrain
    # dice, the armored cap).  Range 5 of 8: normal band, to-hit 4; 4, 5, 6 = three
    # hits; the T-64 rolls 2 armor + 2 terrain dice 1, 3, 4, 6: one save; two net
    # hits: disrupted and reduced.
    g = game_for(
        [
            unit("A-HQ", "frg_hq", "A", "AA9"),
            unit("A1", "m48", "A", "AA9", name="M48 1/A"),
            unit("B-HQ", "ussr_hq", "B", "U12"),
            unit("B1", "t64", "B", "V12", name="T-64 1/74"),
        ]
    )
    assert g.ruleset.board.terrain["V12"] == "town"
    g.rng = FixedDice([4, 5, 6, 1, 3, 4, 6])
    n0 = len(g.events)
    g.apply(Fire("A1", "B1", "ap"))
    fire, save, hit = new_events(g, n0)
    assert (fire.dice, fire.needed, fire.hits) == ((4, 5, 6), 4, 3)
    assert "range 5, normal" in fire.detail
    assert (save.dice, save.needed, save.hits) == ((1, 3, 4, 6), 5, 1)
    assert "2 armor + 2 terrain" in save.detail
    assert (hit.hits, hit.result) == (2, "reduced")
    b1 = g.state.units["B1"]
    assert (b1.strength, disrupted(b1)) == ("reduced", True)
    assert g.rng.remaining == 0


def test_fire_needs_line_of_sight() -> None:
    # WaW 6.1: the target must be in LOS (7.0; the geo layer's hex LOS table).
    g = game_for([*PLATEAU[:3], unit("B1", "t72", "B", "M16")])
    assert not g.ruleset.board.visible("N17", "M16")
    assert reason(g, Fire("A1", "B1", "ap")) == (
        "M60 1/A at N17 has no line of sight to M16"
    )


def test_fire_beyond_the_range_is_illegal() -> None:
    # WaW 6.1.1: an underlined range is a hard maximum; others reach twice.
    g = game_for(
        [
            *PLATEAU[:2],
            unit("A2", "us_infantry", "A", "M17", name="Infantry 2/A"),
            unit("B-HQ", "ussr_hq", "B", "H17"),
            unit("B1", "t72", "B", "H17", name="T-72 1/74"),
            unit("B2", "ussr_infantry", "B", "C17", name="Rifles 2/74"),
        ]
    )
    assert reason(g, Fire("A2", "B1", "ap")) == (
        "T-72 1/74 at H17 is out of Infantry 2/A's AP range "
        "(range 4 is beyond the underlined (maximum) range 2)"
    )
    assert reason(g, Fire("A2", "B2", "he")) == (
        "Rifles 2/74 at C17 is out of Infantry 2/A's HE range "
        "(range 9 is beyond twice the printed range 4)"
    )
    assert reason(g, Fire("A2", "B1", "he")) == (
        "Infantry 2/A cannot fire HE at T-72 1/74: "
        "HE fire cannot be used against armored targets"
    )


def test_fire_on_the_move_needs_underlined_firepower() -> None:
    # WaW 6.1.3: underlined firepower may fire after moving, with a penalty
    # (MOVING_FIRE_PENALTY); other firepower may not.
    g = game_for(
        [
            unit("A-HQ", "us_hq", "A", "N17"),
            unit("A1", "m48", "A", "N17", name="M48 1/A"),
            unit("B-HQ", "ussr_hq", "B", "H18"),
            unit("B1", "t72", "B", "H17", name="T-72 1/74"),
        ],
        formation="B",
    )
    g.apply(Move("B1", "I17"))
    hold_fire(g)
    n0 = len(g.events)
    g.rng = FixedDice([1, 1, 1, 1])
    g.apply(Fire("B1", "A1", "ap"))
    fire = new_events(g, n0)[0]
    assert fire.kind == "fire" and "fires on the move" in fire.detail
    assert "[half range -1; moving +1]" in fire.detail and fire.needed == 5
    g2 = game_for(
        [
            unit("A-HQ", "us_hq", "A", "N17"),
            unit("A1", "m48", "A", "M17", name="M48 1/A"),
            unit("B-HQ", "ussr_hq", "B", "H18"),
            unit("B1", "t72", "B", "H17", name="T-72 1/74"),
        ],
        formation="A",
    )
    g2.apply(Move("A1", "L17"))
    hold_fire(g2)
    assert reason(g2, Fire("A1", "B1", "ap")) == (
        "M48 1/A has moved and its AP firepower is not underlined (no fire on the move)"
    )


def test_fire_on_the_move_after_more_than_half_the_mp_is_illegal() -> None:
    g = game_for(
        [
            unit("A-HQ", "us_hq", "A", "Q14"),
            unit("A1", "m60", "A", "Q14"),
            unit("B-HQ", "ussr_hq", "B", "H18"),
            unit("B1", "t72", "B", "H17", name="T-72 1/74"),
            unit("B2", "t72", "B", "I18"),
        ],
        formation="B",
    )
    for hex_ in ("G17", "G18", "F18", "F17", "G17"):
        g.apply(Move("B1", hex_))
        hold_fire(g)
    assert g.state.units["B1"].attrs["mp"] == 5.0
    fires = [a for a in g.legal_actions() if isinstance(a, Fire) and a.unit == "B1"]
    assert fires == []


def test_disrupted_units_cannot_fire() -> None:
    g = game_for([*PLATEAU[:2], PLATEAU[2], {**PLATEAU[3], "disrupted": True}], "B")
    assert reason(g, Fire("B1", "A1", "ap")) == "T-72 1/74 is disrupted and cannot fire"


def test_hqs_cannot_be_fired_on() -> None:
    # WaW HQ in combat: an HQ cannot be attacked directly.
    g = game_for([*PLATEAU[:3], unit("B1", "t72", "B", "J17")])
    assert reason(g, Fire("A1", "B-HQ", "ap")) == (
        "HQ 1/74 is an HQ and cannot be fired on"
    )


def test_hq_leadership_adds_dice_to_one_attack_per_turn() -> None:
    # WaW HQ: leadership added to ONE unit's attack (firepower dice, assumed).
    g = game_for(
        [
            *PLATEAU[:2],
            unit("A2", "m60", "A", "N17", name="M60 2/A"),
            *PLATEAU[2:],
        ]
    )
    g.rng = FixedDice([1] * 6)
    n0 = len(g.events)
    g.apply(Fire("A1", "B1", "ap", with_hq=True))
    fire = new_events(g, n0)[0]
    assert len(fire.dice) == 4 + 2 and "HQ leadership +2 dice" in fire.detail
    assert reason(g, Fire("A2", "B1", "ap", with_hq=True)) == (
        "HQ Team A has already lent its leadership this turn"
    )


# --------------------------------------------------------------------------- #
# opportunity fire                                                            #
# --------------------------------------------------------------------------- #


def test_moving_in_enemy_sight_and_range_opens_opportunity_fire() -> None:
    # WaW 6.1/6.2: units not Ops Complete may fire at enemies moving in LOS and
    # range (ASSUMPTION on the procedure: after each hex, one shot at a time).
    g = game_for([*PLATEAU, unit("B2", "t72", "B", "J18")], "B")
    g.apply(Move("B1", "L17"))
    assert g.state.phase == "opportunity" and g.current_side == "nato"
    assert set(g.legal_actions()) == {
        Fire("A1", "B1", "ap"),
        Fire("A1", "B1", "ap", True),
        Pass(),
    }
    assert reason(g, Move("B1", "M17")) == (
        "NATO is deciding on opportunity fire at T-72 1/74"
    )
    # N17-L17: range 1, half range: to-hit 3; 3 hits, no saves: destroyed.
    g.rng = FixedDice([6, 6, 6, 1, 1, 1])
    n0 = len(g.events)
    g.apply(Fire("A1", "B1", "ap"))
    assert kinds(new_events(g, n0)) == [
        "fire",
        "save",
        "hit",
        "wreck",
        "opportunity_end",
    ]
    assert g.state.units["B1"].destroyed
    assert ops_complete(g.state.units["A1"])
    assert g.current_side == "pact" and g.state.vars.get("acting") is None


def test_a_mover_disrupted_by_opportunity_fire_stops() -> None:
    g = game_for(PLATEAU, "B")
    g.apply(Move("B1", "L17"))
    g.rng = FixedDice([6, 1, 1, 1, 1, 1])  # 1 hit, no save: disrupted
    g.apply(Fire("A1", "B1", "ap"))
    b1 = g.state.units["B1"]
    assert disrupted(b1) and ops_complete(b1)
    assert reason(g, Move("B1", "M17")) == "T-72 1/74 is Ops Complete"


def test_passing_closes_the_opportunity_window() -> None:
    g = game_for(PLATEAU, "B")
    g.apply(Move("B1", "L17"))
    g.apply(Pass())
    assert g.state.phase == "action" and g.current_side == "pact"
    assert not ops_complete(g.state.units["A1"])
    g.apply(Move("B1", "L18"))  # the next hex opens a new window
    assert g.state.vars["opp"] == "B1"


# --------------------------------------------------------------------------- #
# assault and overrun                                                         #
# --------------------------------------------------------------------------- #


def test_vehicles_overrun_infantry_in_the_open_and_take_the_hex() -> None:
    # FOUND [B]: overrun = vehicles against infantry in the open; both sides roll,
    # hits land together; the loser falls back or dies; the winner takes the hex.
    g = game_for(
        [
            unit("A-HQ", "us_hq", "A", "O18"),
            unit("A1", "us_infantry", "A", "M17", name="Infantry 1/A"),
            unit("A2", "m60", "A", "Z8"),
            unit("B-HQ", "ussr_hq", "B", "K17"),
            unit("B1", "t72", "B", "L17", name="T-72 1/74"),
        ],
        "B",
        objectives=[{"hex": "M17", "vp": 1, "controlled_by": "nato"}],
    )
    g.rng = FixedDice([5, 5, 5, 1, 1, 1, 1, 1])
    n0 = len(g.events)
    g.apply(Assault("B1", "M17"))
    ev = new_events(g, n0)
    assert kinds(ev) == [
        "assault",
        "assault_roll",
        "assault_roll",
        "hit",
        "advance",
        "assault_result",
    ]
    assert ev[0].result == "overrun"
    assert (ev[1].dice, ev[1].needed, ev[1].hits) == ((5, 5, 5, 1), 5, 3)
    assert ev[2].hits == 0
    assert ev[3].result == "destroyed"
    assert ev[-1].result == "hex taken"
    assert g.state.units["B1"].position == "M17"
    assert g.state.control["M17"] == "pact"
    assert g.rng.remaining == 0


def test_beaten_defenders_fall_back_one_hex_straight_back() -> None:
    g = game_for(
        [
            unit("A-HQ", "us_hq", "A", "O18"),
            unit("A1", "m113", "A", "M17", name="M113 1/A"),
            unit("B-HQ", "ussr_hq", "B", "K17"),
            unit("B1", "t72", "B", "L17"),
        ],
        "B",
    )
    g.rng = FixedDice([5, 1, 1, 1, 1])  # attacker 1 hit; defender (1 die) none
    g.apply(Assault("B1", "M17"))
    assert g.events[-1].result == "hex taken"
    a1 = g.state.units["A1"]
    assert a1.position == g.ruleset.board.beyond("L17", "M17") == "N16"
    assert disrupted(a1) and not a1.destroyed
    assert "retreat" in kinds(g.events)


def test_a_defender_that_scores_as_many_hits_holds() -> None:
    g = game_for(
        [
            unit("A-HQ", "us_hq", "A", "O18"),
            unit("A1", "m60", "A", "M17"),
            unit("B-HQ", "ussr_hq", "B", "K17"),
            unit("B1", "t72", "B", "L17"),
        ],
        "B",
    )
    g.rng = FixedDice([5, 1, 1, 1, 6, 1, 1, 1])
    g.apply(Assault("B1", "M17"))
    assert g.events[-1].result == "defender holds"
    assert g.state.units["B1"].position == "L17"
    assert g.state.units["A1"].position == "M17"


def test_hits_on_a_two_unit_stack_are_spread_and_odd_ones_placed_by_d6() -> None:
    # FOUND [B]: assault hits are spread evenly over the stack; a d6 places the odd
    # one (ASSUMPTION on the mapping, see combat.spread_hits).
    g = game_for(
        [
            unit("A-HQ", "us_hq", "A", "O18"),
            unit("A1", "m113", "A", "M17"),
            unit("A2", "m60", "A", "M17"),
            unit("B-HQ", "ussr_hq", "B", "K17"),
            unit("B1", "t72", "B", "L17"),
        ],
        "B",
    )
    # attacker 4 dice: 3 hits; defenders 1 + 4 dice: none; odd hit d6 = 6: 2nd unit
    g.rng = FixedDice([5, 5, 5, 1, 1, 1, 1, 1, 1, 6])
    n0 = len(g.events)
    g.apply(Assault("B1", "M17"))
    ev = new_events(g, n0)
    assert kinds(ev)[:4] == ["assault", "assault_roll", "allocation", "assault_roll"]
    assert ev[2].dice == (6,)
    hits = {e.unit: e.hits for e in ev if e.kind == "hit"}
    assert hits == {"A1": 1, "A2": 2}
    assert [e.hex_to for e in ev if e.kind == "retreat"] == ["N16", "N16"]
    assert g.state.units["B1"].position == "M17"
    assert g.rng.remaining == 0


def test_a_beaten_defender_that_cannot_fall_back_is_destroyed() -> None:
    g = game_for(
        [
            unit("A-HQ", "us_hq", "A", "O18"),
            unit("A1", "m113", "A", "M17", name="M113 1/A"),
            unit("A2", "m60", "A", "Z8"),
            unit("B-HQ", "ussr_hq", "B", "K17"),
            unit("B1", "t72", "B", "L17"),
            unit("B2", "t72", "B", "N16"),
        ],
        "B",
    )
    g.rng = FixedDice([5, 1, 1, 1, 1])
    g.apply(Assault("B1", "M17"))
    (retreat,) = [e for e in g.events if e.kind == "retreat"]
    assert retreat.result == "destroyed"
    assert "M113 1/A cannot fall back (the enemy at N16)" in retreat.detail
    assert g.state.units["A1"].destroyed
    assert g.state.units["B1"].position == "M17"


# --------------------------------------------------------------------------- #
# morale, rally, command                                                      #
# --------------------------------------------------------------------------- #


def test_rally_subtracts_the_hq_leadership_in_the_hex() -> None:
    # WaW HQ leadership: subtracted from the rally roll; 2d6 - lead <= morale 7.
    units = [
        unit("A-HQ", "us_hq", "A", "Q14"),
        unit("A1", "m60", "A", "Q14"),
        unit("B-HQ", "ussr_hq", "B", "J17"),
        unit("B1", "t72", "B", "J17", disrupted=True),
        unit("B2", "t72", "B", "J18", disrupted=True),
    ]
    g = game_for(units, "B")
    g.rng = FixedDice([4, 4, 4, 4])
    g.apply(Rally("B1"))  # 8 - 1 = 7 <= 7: rallied
    g.apply(Rally("B2"))  # no HQ in its hex: 8 > 7
    rallies = [e for e in g.events if e.kind == "rally"]
    assert [r.result for r in rallies] == ["rallied", "still disrupted"]
    assert [r.needed for r in rallies] == [7, 7]
    assert not disrupted(g.state.units["B1"]) and disrupted(g.state.units["B2"])
    assert ops_complete(g.state.units["B1"])


def test_out_of_command_units_must_pass_morale_to_act() -> None:
    # ASSUMPTION (4.0 GAP): out of its HQ's command range, a unit acts only after
    # a 2d6 morale check; failing, it is Ops Complete.
    units = [
        unit("A-HQ", "us_hq", "A", "Q14"),
        unit("A1", "m60", "A", "Q14"),
        unit("B-HQ", "ussr_hq", "B", "J17"),
        unit("B1", "t72", "B", "J17"),
        unit("B2", "t72", "B", "D17", name="T-72 2/74"),  # 6 hexes: out of range 5
    ]
    g = game_for(units, "B")
    assert not g.ruleset.in_command(g.state, g.state.units["B2"])
    g.rng = FixedDice([6, 6])
    n0 = len(g.events)
    g.apply(Move("B2", "E17"))
    (check,) = new_events(g, n0)
    assert (check.kind, check.dice, check.needed, check.result) == (
        "command",
        (6, 6),
        7,
        "failed",
    )
    assert g.state.units["B2"].position == "D17"
    assert reason(g, Move("B2", "E17")) == "T-72 2/74 is Ops Complete"


def test_recon_units_have_twice_the_command_range() -> None:
    # WaW 1.3.4.4: recon units use double the HQ's command range.
    units = [
        unit("A-HQ", "us_hq", "A", "N17"),
        unit("A1", "m60", "A", "G17"),  # 7 hexes: beyond 4
        unit("A2", "m3", "A", "H17"),  # 6 hexes: within 8
        unit("B-HQ", "ussr_hq", "B", "Z8"),
        unit("B1", "t72", "B", "Z8"),
    ]
    g = Game.from_scenario(scenario(units), seed=0)
    st = g.state
    assert not g.ruleset.in_command(st, st.units["A1"])
    assert g.ruleset.in_command(st, st.units["A2"])
    assert g.units.loc["A2", "in_command"] and not g.units.loc["A1", "in_command"]


# --------------------------------------------------------------------------- #
# HQs                                                                         #
# --------------------------------------------------------------------------- #


def test_hq_moving_alone_rolls_for_the_risk_with_its_modifiers() -> None:
    # WaW HQ movement: d6 after the move, 1-2 reduces; -2 for a path in enemy LOS
    # and range in the open (M17/M18 are in sight of the T-72 at H17).
    units = [
        unit("A-HQ", "us_hq", "A", "N17", name="HQ Team A"),
        unit("A1", "m60", "A", "N17"),
        unit("A2", "m60", "A", "L17"),
        unit("B-HQ", "ussr_hq", "B", "G18"),
        unit("B1", "t72", "B", "H17"),
    ]
    g = game_for(units)
    assert MoveHQ("A-HQ", "L17") in g.legal_actions()
    g.rng = FixedDice([4])
    n0 = len(g.events)
    g.apply(MoveHQ("A-HQ", "L17"))
    move, check = new_events(g, n0)
    assert (move.kind, check.kind) == ("hq_move", "hq_move_check")
    assert check.dice == (4,) and "crossed enemy LOS in the open -2" in check.detail
    assert check.result == "reduced"
    assert g.state.units["A-HQ"].strength == "reduced"
    assert ops_complete(g.state.units["A-HQ"])


def test_hq_moving_to_an_adjacent_stack_adds_one() -> None:
    units = [
        unit("A-HQ", "us_hq", "A", "Z8"),
        unit("A1", "m60", "A", "Z8"),
        unit("A2", "m60", "A", "Z9"),
        unit("B-HQ", "ussr_hq", "B", "H17"),
        unit("B1", "t72", "B", "H17"),
    ]
    g = game_for(units)
    g.rng = FixedDice([2])
    g.apply(MoveHQ("A-HQ", "Z9"))
    check = g.events[-1]
    assert "start and end adjacent +1" in check.detail and check.result == "no effect"


def test_an_hq_moving_with_a_unit_of_its_stack_rolls_nothing() -> None:
    # WaW HQ movement: "when the HQ moves in a common stack, no need to worry".
    g = game_for(
        [
            unit("A-HQ", "us_hq", "A", "Z8"),
            unit("A1", "m60", "A", "Z8"),
            unit("B-HQ", "ussr_hq", "B", "H17"),
            unit("B1", "t72", "B", "H17"),
        ]
    )
    assert Move("A1", "AA9", True) in g.legal_actions()
    g.apply(Move("A1", "AA9", with_hq=True))
    g.apply(Move("A1", "AB9"))
    assert g.state.units["A-HQ"].position == "AB9"
    assert MoveHQ("A-HQ", "Z8") not in g.legal_actions()
    n0 = len(g.events)
    g.apply(EndActivation())
    end = new_events(g, n0)[0]
    assert end.kind == "ops_complete" and "with US company team HQ" in end.detail
    assert ("unit", "A-HQ", "ops_complete", True) in end.changes
    assert "hq_move_check" not in kinds(g.events)


def test_hq_must_end_its_move_with_friendly_units() -> None:
    g = game_for(PLATEAU)
    assert reason(g, MoveHQ("A-HQ", "M17")) == (
        "HQ Team A must end its move with friendly units; M17 has none"
    )


def test_hq_in_a_stack_that_is_hit_may_lose_a_step() -> None:
    # WaW HQ in combat: d6 = 1 reduces the HQ when its stack is hit.
    g = game_for(PLATEAU, "B")
    # T-72 AP 4 dice at half range (to-hit 4): 2 hits; M60 saves 2 dice: none;
    # then the HQ's d6 = 1.
    g.rng = FixedDice([6, 6, 1, 1, 1, 1, 1])
    n0 = len(g.events)
    g.apply(Fire("B1", "A1", "ap"))
    ev = new_events(g, n0)
    assert kinds(ev) == ["fire", "save", "hit", "hq_stack_check"]
    assert ev[-1].dice == (1,) and ev[-1].result == "reduced"
    assert g.rng.remaining == 0


def test_an_hq_dies_with_its_stack_and_comes_back_reduced_after_cleanup() -> None:
    # WaW HQ in combat: the HQ dies with its stack; 1.3.3.3: it is replaced, reduced,
    # after the clean-up with a unit of its formation of the matching type (here the
    # M60, Team A's only vehicle type, assumption 58): O18 is the only such hex.
    units = [
        unit("A-HQ", "us_hq", "A", "N17"),
        unit("A1", "us_infantry", "A", "N17", strength="reduced"),
        unit("A2", "m60", "A", "O18"),
        *PLATEAU[2:],
    ]
    g = game_for(units, "B")
    g.rng = FixedDice([6, 6, 6, 6])  # T-72 HE 2 dice: 2 hits on reduced rifles
    n0 = len(g.events)
    g.apply(Fire("B1", "A1", "he"))
    ev = new_events(g, n0)
    # the HQ dies with its stack; an HQ's death leaves a wreck marker (seed 000)
    assert kinds(ev)[-2:] == ["hq_stack_check", "wreck"] and ev[-2].dice is None
    assert g.state.units["A-HQ"].destroyed
    assert g.state.vars["wrecks"] == ("N17",)
    g.rng = np.random.default_rng(1)
    turn = g.state.turn
    while g.state.turn == turn:
        v = g.state.vars
        if v.get("drawn"):
            g.apply(waw.Activate(v["drawn"]))
        elif v.get("opp"):
            g.apply(Pass())
        else:
            g.apply(EndActivation())
    rep = [e for e in g.events if e.kind == "hq_replaced"]
    assert len(rep) == 1 and rep[0].hex_to == "O18"
    hq = g.state.units["A-HQ"]
    assert (hq.strength, hq.position) == ("reduced", "O18")


def test_an_hq_left_alone_rejoins_its_units_at_cleanup() -> None:
    units = [
        unit("A-HQ", "us_hq", "A", "Z8"),
        unit("A1", "m60", "A", "Z8"),
        unit("B-HQ", "ussr_hq", "B", "H17"),
        unit("B1", "t72", "B", "H17"),
    ]
    g = game_for(units)
    g.apply(Move("A1", "AA9"))
    g.apply(Move("A1", "AB9"))
    g.apply(EndActivation())
    turn = g.state.turn
    while g.state.turn == turn:
        v = g.state.vars
        if v.get("drawn"):
            g.apply(waw.Activate(v["drawn"]))
        elif v.get("opp"):
            g.apply(Pass())
        else:
            g.apply(EndActivation())
    (rep,) = [e for e in g.events if e.kind == "hq_reposition"]
    assert (rep.hex_from, rep.hex_to) == ("Z8", "AB9")
    assert g.state.units["A-HQ"].position == "AB9"


def test_a_lone_hq_is_overrun_by_an_enemy_entering_its_hex() -> None:
    units = [
        unit("A-HQ", "us_hq", "A", "M17"),
        unit("A1", "m60", "A", "Z8"),
        unit("B-HQ", "ussr_hq", "B", "K17"),
        unit("B1", "t72", "B", "L17"),
    ]
    g = game_for(units, "B")
    n0 = len(g.events)
    g.apply(Move("B1", "M17"))
    assert kinds(new_events(g, n0))[:2] == ["hq_captured", "move"]
    assert g.state.units["A-HQ"].destroyed


# --------------------------------------------------------------------------- #
# transport                                                                   #
# --------------------------------------------------------------------------- #


def test_infantry_mounts_rides_and_cannot_fire_from_its_carrier() -> None:
    # WaW 5.2: infantry cannot fire from carriers; the carrier carries it.
    units = [
        unit("A-HQ", "us_hq", "A", "Q14"),
        unit("A1", "m60", "A", "Q14"),
        unit("B-HQ", "ussr_hq", "B", "J17"),
        unit("B1", "bmp1", "B", "J17", name="BMP 1/74"),
        unit("B2", "ussr_infantry", "B", "J17", name="Rifles 2/74"),
    ]
    g = game_for(units, "B")
    g.apply(Mount("B2", "B1"))
    assert carried_by(g.state.units["B2"]) == "B1" and ops_complete(g.state.units["B2"])
    g.apply(Move("B1", "K18"))
    hold_fire(g)
    assert g.state.units["B2"].position == "K18"
    assert reason(g, Fire("B2", "A1", "he")).startswith("Rifles 2/74 is")


def test_a_destroyed_carrier_rolls_for_its_passengers() -> None:
    # WaW 5.2: carrier destroyed - even d6 passengers destroyed, odd disrupted and
    # reduced (and out of the wreck).
    units = [
        *PLATEAU[:2],
        unit("B-HQ", "ussr_hq", "B", "J17"),
        unit("B1", "bmp1", "B", "L17"),
        unit("B2", "ussr_infantry", "B", None, carried_by="B1"),
    ]
    g = game_for(units)
    g.rng = FixedDice([6, 6, 6, 6, 1, 3])  # 4 hits at half range, save 1: fails
    n0 = len(g.events)
    g.apply(Fire("A1", "B1", "ap"))
    ev = new_events(g, n0)
    assert kinds(ev) == ["fire", "save", "hit", "passengers", "wreck"]
    assert ev[-2].dice == (3,) and ev[-2].result == "reduced, bails out"
    b2 = g.state.units["B2"]
    assert (b2.strength, disrupted(b2), carried_by(b2)) == ("reduced", True, None)


# --------------------------------------------------------------------------- #
# capture, odds                                                               #
# --------------------------------------------------------------------------- #


def test_the_last_side_to_move_through_a_hex_controls_it() -> None:
    # FOUND [B]: a hex is captured by the side that last moved through it.
    g = game_for(
        [
            unit("A-HQ", "us_hq", "A", "Z8"),
            unit("A1", "m60", "A", "Z8"),
            unit("B-HQ", "ussr_hq", "B", "H17"),
            unit("B1", "t72", "B", "H17"),
        ],
        objectives=[{"hex": "AA9", "vp": 3, "controlled_by": "pact"}],
    )
    assert g.ruleset.victory_points(g.state) == {"nato": 0, "pact": 3}
    g.apply(Move("A1", "AA9"))
    g.apply(Move("A1", "AB9"))
    assert g.state.control["AA9"] == "nato" == g.state.control["AB9"]
    assert g.ruleset.victory_points(g.state) == {"nato": 3, "pact": 0}


def test_unit_odds_use_the_games_range_terrain_and_strength() -> None:
    g = game_for(PLATEAU)
    p = waw.unit_odds(g, "A1", "B1")
    assert p.tolist() == waw.odds("m60", "t72", 2, "clear").tolist()
    r = waw.unit_odds(g, "A1", "B1", with_hq=True, results=True)
    expect = waw.result_odds("m60", "t72", 2, "clear", leadership=2)
    assert r.tolist() == expect.tolist()
    assert math.isclose(float(r.sum()), 1.0)
