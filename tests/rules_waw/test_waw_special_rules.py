"""World at War special rules in play: support weapons, tank ATGMs, transport,
light vehicles and wrecks, helicopters and their modes, air defence.

Each test builds a small situation on the real Remagen window (see
``waw_helpers``), activates a formation and scripts the dice with ``FixedDice``
where the outcome matters; ``g.rng.remaining == 0`` checks that exactly those
dice were used.  Illegal special actions must raise ``IllegalActionError`` and
change nothing (same state digest, same log length).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from waw_helpers import (
    activate,
    game_for,
    hold_fire,
    kinds,
    refused,
    scenario,
    since,
    unit,
    with_hqs,
)

from wargame.engine import Game, check_scenario
from wargame.rules import waw
from wargame.rules.waw import (
    Activate,
    Assault,
    CallSupport,
    Defer,
    Dismount,
    EndActivation,
    Fire,
    FixedDice,
    Hide,
    HoldSupport,
    IndirectFire,
    LayBridge,
    Mount,
    Move,
    Pass,
    Rally,
    RecoverBridge,
    RemoveSW,
    SetMode,
    unit_odds,
)
from wargame.rules.waw.unit_attrs import carried_by, disrupted, ops_complete

# --------------------------------------------------------------------------- #
# support weapons (WaW 1.3.5)                                                 #
# --------------------------------------------------------------------------- #

SW_UNITS = with_hqs(
    [unit("A1", "us_infantry", "A", "N17", name="Rifles 1/A", support_weapon="dragon")],
    [
        unit("B1", "ussr_infantry", "B", "L17", name="Rifles 1/74"),
        unit("B2", "t72", "B", "K17", name="T-72 2/74"),
    ],
)


def test_support_weapon_fires_with_the_main_weapon_at_another_target() -> None:
    # WaW 1.3.5: the platoon fires its SW together with its own weapon, at the
    # same target or another one, in one action.
    g = game_for(SW_UNITS)
    # rifles HE 3 at half range (to-hit 4): 2 hits, no terrain dice in the open;
    # Dragon AP 2 (underlined range 6: no half-range bonus, to-hit 4): 2 hits,
    # T-72 saves 2 armor dice on 5+: none.
    g.rng = FixedDice([4, 4, 1, 6, 6, 1, 2])
    n0 = len(g.events)
    g.apply(Fire("A1", "B1", "he", sw_target="B2"))
    ev = since(g, n0)
    # one attack: both shots rolled (weapon first), then both results land
    assert kinds(ev) == ["fire", "fire", "save", "hit", "hit"]
    assert ev[0].target == "B1" and ev[0].needed == 4
    assert ev[1].target == "B2" and "M47 Dragon" in ev[1].detail
    assert "placed" in ev[1].detail and ev[1].needed == 4
    assert [e.unit for e in ev[3:]] == ["B1", "B2"]
    assert g.rng.remaining == 0
    b1, b2 = g.state.units["B1"], g.state.units["B2"]
    assert (b1.strength, disrupted(b1)) == ("reduced", True)
    assert (b2.strength, disrupted(b2)) == ("reduced", True)
    assert g.state.units["A1"].attrs["sw_placed"]


def test_support_weapon_not_fired_with_the_main_weapon_is_lost_for_that_action() -> (
    None
):
    # WaW 1.3.5: fired without its SW, the platoon cannot use it afterwards.
    g = game_for(SW_UNITS)
    g.rng = FixedDice([1, 1, 1])
    g.apply(Fire("A1", "B1", "he"))
    assert refused(g, Fire("A1", "B2", "sw")) == "Rifles 1/A is Ops Complete"
    assert not g.state.units["A1"].attrs.get("sw_placed")


def test_hq_leadership_counts_for_the_weapon_and_the_support_weapon() -> None:
    # Seed 000, HQ in combat: leadership goes to one unit, but to both its own
    # weapon and its SW when infantry fires them together.
    g = game_for(SW_UNITS)
    g.rng = FixedDice([1] * 5 + [1] * 4)  # 3 + 2 HE dice, 2 + 2 Dragon dice
    n0 = len(g.events)
    g.apply(Fire("A1", "B1", "he", True, "B2"))
    fires = [e for e in since(g, n0) if e.kind == "fire"]
    assert [len(e.dice) for e in fires] == [5, 4]
    assert all("HQ leadership +2 dice" in e.detail for e in fires)
    assert g.rng.remaining == 0


def test_support_weapon_target_must_suit_the_support_weapon() -> None:
    g = game_for(SW_UNITS)
    why = refused(g, Fire("A1", "B1", "he", sw_target="B1"))
    assert why.startswith("support weapon: Rifles 1/A cannot fire M47 Dragon")


def test_lost_sagger_example_played_on_the_map() -> None:
    # WaW 1.3.5 (seed 000 example): the Soviets have one unplaced Sagger; the
    # second Soviet rifle platoon is destroyed; d6 - 1 (one platoon lost before)
    # = 2 - 1 = 1: the Sagger is lost.
    units = with_hqs(
        [unit("A1", "m60", "A", "N17"), unit("A2", "m60", "A", "M17")],
        [
            unit("B1", "ussr_infantry", "B", "L17", strength="reduced"),
            unit("B2", "ussr_infantry", "B", "K17", strength="reduced"),
            unit("B3", "ussr_infantry", "B", "H17", support_weapon="sagger"),
        ],
    )
    g = game_for(units)
    g.rng = FixedDice([6, 6, 3])  # 2 HE hits destroy the reduced platoon; d6 = 3
    n0 = len(g.events)
    g.apply(Fire("A1", "B1", "he"))
    ev = since(g, n0)
    assert kinds(ev) == ["fire", "hit", "sw_loss"]
    assert ev[-1].dice == (3,) and ev[-1].result == "no loss"
    g.rng = FixedDice([6, 6, 2])
    n0 = len(g.events)
    g.apply(Fire("A2", "B2", "he"))
    ev = since(g, n0)
    assert kinds(ev) == ["fire", "hit", "sw_loss"]
    assert ev[-1].dice == (2,) and ev[-1].result == "SW lost"
    assert "-1 (2 infantry platoons lost) = 1" in ev[-1].detail
    assert "sw" not in g.state.units["B3"].attrs


def test_no_unplaced_sw_roll_once_every_sw_is_placed() -> None:
    units = with_hqs(
        [unit("A1", "m60", "A", "N17")],
        [
            unit("B1", "ussr_infantry", "B", "L17", strength="reduced"),
            unit("B2", "t72", "B", "H17"),
        ],
    )
    g = game_for(units)
    g.rng = FixedDice([6, 6])
    n0 = len(g.events)
    g.apply(Fire("A1", "B1", "he"))
    assert kinds(since(g, n0)) == ["fire", "hit"]
    assert g.rng.remaining == 0


def test_support_weapon_cannot_fire_alone() -> None:
    # WaW 6.1 / 1.3.5: an infantry platoon uses its SW together with its own
    # weapon (or loses it for the phase); never alone.
    g = game_for(SW_UNITS)
    why = refused(g, Fire("A1", "B2", "sw"))
    assert why == (
        "Rifles 1/A cannot fire its M47 Dragon (infantry SW) alone: an infantry "
        "platoon fires its support weapon together with its own weapon, in the "
        "same Fire (sw_target) (WaW 6.1, 1.3.5)"
    )
    fires = [a for a in g.legal_actions() if isinstance(a, Fire) and a.unit == "A1"]
    assert fires and not any(a.weapon == "sw" for a in fires)
    assert Fire("A1", "B1", "he", sw_target="B2") in fires


def test_tank_atgm_still_fires_alone() -> None:
    # WaW 1.3.5 tank SW: the tank fires its ATGM instead of its main gun.
    g = game_for(ATGM_UNITS, "B")
    assert Fire("B1", "A1", "sw") in g.legal_actions()


def test_support_weapon_not_used_in_opportunity_fire() -> None:
    # WaW 6.1 / 1.3.5: the SW fires in the formation's action phase only.
    g = game_for(SW_UNITS, "B")
    g.apply(Move("B2", "L17"))
    assert g.state.vars.get("opp") == "B2"
    fires = [a for a in g.legal_actions() if isinstance(a, Fire)]
    assert Fire("A1", "B2", "ap") in fires
    assert all(a.weapon != "sw" and a.sw_target is None for a in fires)
    assert refused(g, Fire("A1", "B2", "ap", sw_target="B2")) == (
        "Rifles 1/A cannot fire its M47 Dragon (infantry SW) in opportunity fire: "
        "an infantry platoon fires its support weapon with its own weapon in its "
        "formation's action phase (WaW 6.1, 1.3.5)"
    )
    assert "alone" in refused(g, Fire("A1", "B2", "sw"))


def test_tank_atgm_fires_in_opportunity_fire() -> None:
    # ASSUMPTION 47: opportunity fire counts as stationary for a tank's ATGM.
    g = game_for(ATGM_UNITS)
    g.apply(Move("A1", "M17"))
    assert Fire("B1", "A1", "sw") in g.legal_actions()


def test_support_weapon_fires_with_main_weapon_as_one_attack() -> None:
    # WaW 6.1 / 1.3.5: weapon and SW are one attack (ASSUMPTION 45): both are
    # rolled before either result lands; the SW's result then lands on what is
    # left of its target: here the HE already destroyed the BMP, so the
    # Dragon's two hits are void, but its dice are rolled and logged.
    units = with_hqs(
        [
            unit(
                "A1",
                "us_infantry",
                "A",
                "N17",
                name="Rifles 1/A",
                support_weapon="dragon",
            )
        ],
        [
            unit("B1", "bmp1", "B", "L17", name="BMP 1/74", strength="reduced"),
            unit("B2", "t72", "B", "H17"),
        ],
    )
    g = game_for(units)
    # HE 3d6 on 4+ (half range): 3 hits, BMP save 1 die: 1; Dragon 2d6 on 4+:
    # 2 hits, save 1
    g.rng = FixedDice([6, 6, 6, 1, 6, 6, 1])
    n0 = len(g.events)
    g.apply(Fire("A1", "B1", "he", sw_target="B1"))
    ev = since(g, n0)
    assert kinds(ev) == ["fire", "save", "fire", "save", "hit", "hit", "wreck"]
    assert ev[0].dice == (6, 6, 6) and "HE" in ev[0].detail
    assert ev[2].dice == (6, 6) and "M47 Dragon" in ev[2].detail
    assert ev[4].result == "destroyed" and ev[5].result == "void"
    assert ev[5].hits == 2 and "void" in ev[5].detail
    assert g.rng.remaining == 0
    assert g.state.units["B1"].destroyed and g.state.units["A1"].attrs["sw_placed"]


def test_weapon_and_support_weapon_hits_on_one_target_land_one_after_the_other() -> (
    None
):
    # ASSUMPTION 45: two results, not added up: 1 HE hit disrupts the BMP, then
    # the Dragon's 1 hit lands on the disrupted BMP (disrupted again: no more);
    # added up, 2 hits would have reduced it.
    units = with_hqs(
        [
            unit(
                "A1",
                "us_infantry",
                "A",
                "N17",
                name="Rifles 1/A",
                support_weapon="dragon",
            )
        ],
        [
            unit("B1", "bmp1", "B", "L17", name="BMP 1/74"),
            unit("B2", "t72", "B", "H17"),
        ],
    )
    g = game_for(units)
    g.rng = FixedDice([6, 1, 1, 1, 6, 1, 1])
    n0 = len(g.events)
    g.apply(Fire("A1", "B1", "he", sw_target="B1"))
    hits = [e for e in since(g, n0) if e.kind == "hit"]
    assert [(e.hits, e.result) for e in hits] == [(1, "disrupted"), (1, "no effect")]
    b1 = g.state.units["B1"]
    assert (b1.strength, disrupted(b1)) == ("full", True)  # 1 + 1 hits, not 2
    assert g.rng.remaining == 0


# --------------------------------------------------------------------------- #
# unplaced support weapons (WaW 1.3.5)                                        #
# --------------------------------------------------------------------------- #


def unplaced_units() -> list[dict]:
    """A NATO mortar and its spotter; two reduced Soviet platoons in K16 and
    three Soviet SWs elsewhere: two Saggers and a T-64's Songster."""
    return [
        unit("A-HQ", "us_hq", "A", "M18", name="HQ Team A"),
        unit("A1", "m60", "A", "M18", name="M60 1/A"),
        unit("A2", "us_mortar81", "A", "P18", name="Mortars 2/A"),
        unit("B-HQ", "ussr_hq", "B", "H17"),
        unit("B1", "ussr_infantry", "B", "K16", name="Rifles 1/74", strength="reduced"),
        unit("B2", "ussr_infantry", "B", "K16", name="Rifles 2/74", strength="reduced"),
        unit(
            "B3",
            "ussr_infantry",
            "B",
            "H17",
            name="Rifles 3/74",
            support_weapon="sagger",
        ),
        unit(
            "B4",
            "ussr_infantry",
            "B",
            "G17",
            name="Rifles 4/74",
            support_weapon="sagger",
        ),
        unit("B5", "t64", "B", "H17", name="T-64 5/74", support_weapon="songster"),
    ]


def two_platoons_lost() -> tuple[Game, list]:
    """The T-64 places its Songster; then the mortar destroys B1 and B2 in one
    action; the second roll fails: NATO owes a choice between the Saggers."""
    g = game_for(unplaced_units(), "B")
    g.rng = FixedDice([4, 1, 6, 6, 6, 6, 6, 6])  # 1 hit, all saved
    g.apply(Fire("B5", "A1", "sw"))
    assert g.state.units["B5"].attrs["sw_placed"]
    g.apply(EndActivation())
    activate(g, "A")
    # 2 HE hits on each reduced platoon; loss rolls d6 = 3, then d6 = 2
    g.rng = FixedDice([5, 5, 1, 5, 5, 1, 3, 2])
    n0 = len(g.events)
    g.apply(IndirectFire("A2", "K16", "A-HQ"))
    assert g.rng.remaining == 0
    return g, since(g, n0)


def test_each_infantry_loss_rolls_for_unplaced_sw_with_its_own_modifier() -> None:
    # WaW 1.3.5: one roll per platoon lost, -1 per platoon lost before it,
    # counted at that loss: the two platoons lost in one action roll at -0 and -1.
    g, ev = two_platoons_lost()
    rolls = [e for e in ev if e.kind == "sw_loss"]
    assert [(e.unit, e.dice, e.result) for e in rolls] == [
        ("B1", (3,), "no loss"),
        ("B2", (2,), "SW lost"),
    ]
    assert "d6 = 3 +0 (1 infantry platoons lost) = 3" in rolls[0].detail
    assert "d6 = 2 -1 (2 infantry platoons lost) = 1" in rolls[1].detail
    # the placed Songster is not among them: two Saggers, one owed
    assert "NATO chooses which of 2 unplaced SWs is removed" in rolls[1].detail
    assert g.state.vars["sw_removal"] == ("pact",)


def test_enemy_chooses_which_unplaced_sw_is_removed() -> None:
    # WaW 1.3.5: the enemy removes any one unplaced SW (not the placed Songster).
    g, _ev = two_platoons_lost()
    assert g.current_side == "nato"
    assert g.legal_actions() == [RemoveSW("B3"), RemoveSW("B4")]
    assert refused(g, EndActivation()) == (
        "NATO must first choose which unplaced support weapon of Pact is removed "
        "(RemoveSW, WaW 1.3.5)"
    )
    n0 = len(g.events)
    g.apply(RemoveSW("B4"))
    (ev,) = since(g, n0)
    assert ev.kind == "sw_removed" and ev.unit == "B4"
    assert "NATO removes the unplaced AT-3 Sagger" in ev.detail
    st = g.state.units
    assert "sw" not in st["B4"].attrs and st["B3"].attrs["sw"] == "sagger"
    assert st["B5"].attrs["sw"] == "songster"
    # play resumes in NATO's action phase
    assert g.current_side == "nato" and EndActivation() in g.legal_actions()


def test_unplaced_sw_removal_refuses_bad_choices() -> None:
    g = game_for(unplaced_units())
    assert refused(g, RemoveSW("B3")) == (
        "no unplaced support weapon is to be removed now: Rifles 3/74 keeps its "
        "own (WaW 1.3.5: only after an infantry platoon's loss roll)"
    )
    g, _ev = two_platoons_lost()
    assert refused(g, RemoveSW("B5")) == (
        "T-64 5/74's AT-8 Songster gun-launched ATGM (tank SW) is already placed "
        "(it has fired): only unplaced support weapons are removed (WaW 1.3.5)"
    )
    assert refused(g, RemoveSW("B-HQ")).endswith(
        "carries no support weapon (WaW 1.3.5)"
    )
    assert refused(g, RemoveSW("A1")) == (
        "M60 1/A is NATO's own unit: NATO removes an unplaced support weapon of "
        "Pact (WaW 1.3.5)"
    )
    assert "destroyed" in refused(g, RemoveSW("B1"))
    assert refused(g, RemoveSW("X9")) == "there is no unit 'X9' in this game"


def test_unplaced_sw_removal_keeps_the_opportunity_fire_window_open() -> None:
    # A reduced platoon dies aboard its M113 under opportunity fire: Pact (the
    # firing side) chooses which NATO Dragon goes, then the window goes on.
    units = with_hqs(
        [
            unit("A1", "m113", "A", "N17", name="M113 1/A"),
            unit(
                "A4",
                "us_infantry",
                "A",
                None,
                carried_by="A1",
                name="Rifles 4/A",
                strength="reduced",
            ),
            unit(
                "A2",
                "us_infantry",
                "A",
                "O17",
                name="Rifles 2/A",
                support_weapon="dragon",
            ),
            unit(
                "A3",
                "us_infantry",
                "A",
                "O18",
                name="Rifles 3/A",
                support_weapon="dragon",
            ),
        ],
        [
            unit("B1", "ussr_infantry", "B", "L17", name="Rifles 1/74"),
            unit("B2", "t72", "B", "K17", name="T-72 2/74"),
        ],
    )
    g = game_for(units)
    g.apply(Move("A1", "M17"))
    # 2 HE hits, save 1: M113 reduced; d6 = 2 (even): the reduced platoon aboard
    # dies; loss roll d6 = 1: Pact chooses
    g.rng = FixedDice([6, 6, 1, 1, 2, 1])
    g.apply(Fire("B1", "A1", "he"))
    assert g.state.units["A4"].destroyed and g.rng.remaining == 0
    assert g.current_side == "pact"
    assert g.legal_actions() == [RemoveSW("A2"), RemoveSW("A3")]
    assert "must first choose" in refused(g, Pass())
    g.apply(RemoveSW("A3"))
    assert g.state.vars.get("opp") == "A1" and g.current_side == "pact"
    assert Pass() in g.legal_actions() and Fire("B2", "A1", "ap") in g.legal_actions()


# --------------------------------------------------------------------------- #
# tank ATGMs (WaW 1.3.5)                                                      #
# --------------------------------------------------------------------------- #

ATGM_UNITS = with_hqs(
    [unit("A1", "m60", "A", "N17", name="M60 1/A")],
    [unit("B1", "t64", "B", "H17", name="T-64 1/74", support_weapon="songster")],
)


def test_tank_atgm_only_from_a_stationary_tank() -> None:
    g = game_for(ATGM_UNITS, "B")
    g.apply(Move("B1", "I17"))
    hold_fire(g)
    assert refused(g, Fire("B1", "A1", "sw")) == (
        "T-64 1/74 has moved: AT-8 Songster gun-launched ATGM (tank SW) is fired "
        "only by a stationary tank (WaW 1.3.5)"
    )


def test_tank_atgm_and_main_gun_never_fire_together() -> None:
    g = game_for(ATGM_UNITS, "B")
    why = refused(g, Fire("B1", "A1", "ap", sw_target="A1"))
    assert "a tank firing its ATGM fires nothing else" in why


def test_tank_atgm_marker_removed_when_the_shot_scores_no_hit() -> None:
    g = game_for(ATGM_UNITS, "B")
    g.rng = FixedDice([1, 3])  # Songster 2 dice, to-hit 4: no hit
    n0 = len(g.events)
    g.apply(Fire("B1", "A1", "sw"))
    fire, hit = since(g, n0)
    assert hit.result == "no effect"
    assert fire.hits == 0 and "out of missiles" in fire.detail
    assert "sw" not in g.state.units["B1"].attrs


def test_tank_atgm_stays_after_a_hit() -> None:
    g = game_for(ATGM_UNITS, "B")
    g.rng = FixedDice([4, 1, 6, 6, 1])  # 1 hit; M60 saves 2 armor dice on 5+
    g.apply(Fire("B1", "A1", "sw"))
    assert g.state.units["B1"].attrs["sw"] == "songster"
    assert disrupted(g.state.units["A1"]) is False  # both saves on 6


def test_disrupted_tank_cannot_fire_its_atgm() -> None:
    units = [*ATGM_UNITS[:3], {**ATGM_UNITS[3], "disrupted": True}]
    g = game_for(units, "B")
    assert (
        refused(g, Fire("B1", "A1", "sw")) == "T-64 1/74 is disrupted and cannot fire"
    )


# --------------------------------------------------------------------------- #
# transport (WaW 5.2, seed 001)                                               #
# --------------------------------------------------------------------------- #

CARRIED = with_hqs(
    [unit("A1", "m60", "A", "N17")],
    [
        unit("B1", "bmp1", "B", "L17", name="BMP 1/74"),
        unit("B2", "ussr_infantry", "B", None, carried_by="B1", name="Rifles 2/74"),
    ],
)


def test_transport_passengers_disrupted_with_carrier() -> None:
    g = game_for(CARRIED)
    g.rng = FixedDice([3, 1, 1, 1, 1])  # 1 AP hit at half range; BMP save fails
    n0 = len(g.events)
    g.apply(Fire("A1", "B1", "ap"))
    ev = since(g, n0)
    assert kinds(ev) == ["fire", "save", "hit", "passengers"]
    assert ev[-1].dice is None and ev[-1].result == "disrupted"
    assert disrupted(g.state.units["B2"]) and g.state.units["B2"].strength == "full"
    assert g.rng.remaining == 0


def test_transport_passengers_rally_with_carrier() -> None:
    units = [*CARRIED[:3], {**CARRIED[3], "disrupted": True}]
    units.append({**CARRIED[4], "disrupted": True})
    g = game_for(units, "B")
    g.rng = FixedDice([1, 1])
    g.apply(Rally("B1"))
    assert not disrupted(g.state.units["B1"]) and not disrupted(g.state.units["B2"])
    assert g.rng.remaining == 0


def test_transport_losses_carrier_reduced_even_die_reduces_passengers() -> None:
    # Seed 001 "transport as a target": carrier takes losses, even d6: so do
    # the passengers.
    g = game_for(CARRIED)
    g.rng = FixedDice([3, 3, 1, 1, 1, 4])  # 2 hits, save fails, d6 = 4 (even)
    n0 = len(g.events)
    g.apply(Fire("A1", "B1", "ap"))
    ev = since(g, n0)
    assert kinds(ev) == ["fire", "save", "hit", "passengers"]
    assert ev[-1].dice == (4,)
    b2 = g.state.units["B2"]
    assert (b2.strength, disrupted(b2), carried_by(b2)) == ("reduced", True, "B1")


def test_transport_losses_carrier_reduced_odd_die_spares_passengers_steps() -> None:
    g = game_for(CARRIED)
    g.rng = FixedDice([3, 3, 1, 1, 1, 5])
    g.apply(Fire("A1", "B1", "ap"))
    b2 = g.state.units["B2"]
    assert (b2.strength, disrupted(b2)) == ("full", True)


def test_carried_infantry_cannot_fire_but_its_carrier_can() -> None:
    g = game_for(CARRIED, "B")
    assert refused(g, Fire("B2", "A1", "he")) == (
        "Rifles 2/74 is aboard BMP 1/74: infantry cannot fire from a carrier"
    )
    assert Fire("B1", "A1", "ap") in g.legal_actions()


def test_unloading_into_a_full_stack_is_illegal_and_changes_nothing() -> None:
    units = [
        unit("A-HQ", "us_hq", "A", "O18"),
        unit("A1", "m113", "A", "O18", name="M113 1/A"),
        unit("A2", "us_infantry", "A", None, carried_by="A1", name="Rifles 2/A"),
        unit("A3", "m60", "A", "O18"),
        unit("B-HQ", "ussr_hq", "B", "H17"),
        unit("B1", "t72", "B", "H17"),
    ]
    g = game_for(units)
    assert refused(g, Dismount("A2")) == "stack at O18 would hold 3 units"


def test_loading_and_unloading_cost_the_carrier_one_mp() -> None:
    # WaW 5.2 (costs assumed, assumption 57): 1 MP of the carrier's movement.
    units = with_hqs(
        [unit("A1", "m60", "A", "N17")],
        [
            unit("B1", "bmp1", "B", "H17", name="BMP 1/74"),
            unit("B2", "ussr_infantry", "B", "H17", name="Rifles 2/74"),
        ],
    )
    g = game_for(units, "B")
    g.apply(Mount("B2", "B1"))
    assert g.state.units["B1"].attrs["mp"] == 1.0
    g.apply(Move("B1", "G17"))
    hold_fire(g)
    assert g.state.units["B1"].attrs["mp"] == 2.0
    aboard = [*units[:4], unit("B2", "ussr_infantry", "B", None, carried_by="B1")]
    g = game_for(aboard, "B")
    g.apply(Dismount("B2"))
    assert g.state.units["B1"].attrs["mp"] == 1.0
    assert carried_by(g.state.units["B2"]) is None


def test_an_exhausted_carrier_cannot_load() -> None:
    units = [
        unit("A-HQ", "us_hq", "A", "B3"),
        unit("A1", "m60", "A", "B3"),
        unit("B-HQ", "ussr_hq", "B", "H17"),
        unit("B1", "bmp1", "B", "H17", name="BMP 1/74"),
        unit("B2", "ussr_infantry", "B", "I17", name="Rifles 2/74"),
    ]
    g = game_for(units, "B")
    while g.state.units["B1"].attrs.get("mp", 0) < 9:
        here = g.state.units["B1"].position
        nxt = "I17" if here == "H17" else "H17"
        g.apply(Move("B1", nxt))
    assert g.state.units["B1"].position == "I17"
    assert refused(g, Mount("B2", "B1")) == (
        "BMP 1/74 has 0 MP left; loading costs it 1"
    )


def test_a_truck_carries_a_rifle_platoon() -> None:
    # Seed 000: movement in a circle = may carry infantry (the Ural lorry).
    units = with_hqs(
        [unit("A1", "m60", "A", "N17")],
        [
            unit("B1", "ural375", "B", "H17"),
            unit(
                "B2",
                "ussr_infantry",
                "B",
                None,
                carried_by="B1",
                support_weapon="sagger",
            ),
        ],
    )
    g = game_for(units, "B")
    g.apply(Move("B1", "G17"))
    hold_fire(g)
    assert g.state.units["B2"].position == "G17"


# --------------------------------------------------------------------------- #
# light-armored and unarmored vehicles, wrecks (WaW 1.3.4.2)                  #
# --------------------------------------------------------------------------- #


def test_tow_jeep_example_played_on_the_map() -> None:
    # Seed 000 §1.3.4.2: T-72 (AP 4, to-hit 5) at a TOW jeep in woods rolls
    # 3, 3, 4, 5: one hit; the jeep saves with 1 terrain die on 5-6.
    units = [
        unit("A1", "tow_jeep", "A", "F19", name="TOW jeep 1/A"),
        unit("B-HQ", "ussr_hq", "B", "H17"),
        unit("B1", "t72", "B", "M17"),
    ]
    for save, after in ((5, ("full", False)), (2, ("reduced", True))):
        g = game_for(units, "B", nato_hq=False)
        g.rng = FixedDice([3, 3, 4, 5, save])
        n0 = len(g.events)
        g.apply(Fire("B1", "A1", "ap"))
        ev = since(g, n0)
        assert kinds(ev) == ["fire", "save", "hit"]
        assert ev[0].needed == 5 and ev[0].hits == 1 and ev[1].dice == (save,)
        a1 = g.state.units["A1"]
        assert (a1.strength, disrupted(a1)) == after


def test_light_vehicles_leave_wrecks_and_may_enter_wreck_hexes() -> None:
    # WaW 1.3.4.2 (last line): light-armored and unarmored vehicles DO leave wreck
    # markers; no seed text bars anyone from a wreck hex.
    units = with_hqs(
        [
            unit("A1", "m60", "A", "N17"),
            unit("A2", "m113", "A", "N17", name="M113 2/A"),
            unit("A3", "tow_jeep", "A", "M18", name="TOW jeep 3/A"),
        ],
        [
            unit("B1", "btr70", "B", "M17", strength="reduced"),
            unit("B2", "t72", "B", "H17"),
        ],
    )
    g = game_for(units)
    # HE 2 at the reduced BTR-70 (light armor 1 saving on 6): two hits, one
    # armor die of 1 saves nothing: reduced again = destroyed.
    g.rng = FixedDice([6, 6, 1])
    n0 = len(g.events)
    g.apply(Fire("A1", "B1", "he"))
    ev = since(g, n0)
    assert kinds(ev) == ["fire", "save", "hit", "wreck"]
    assert g.state.units["B1"].destroyed
    assert g.state.vars["wrecks"] == ("M17",)
    # the light-armored M113 and the unarmored TOW jeep both drive into the wreck hex
    g.apply(Move("A2", "M17"))
    assert g.state.units["A2"].position == "M17"
    while g.state.vars.get("opp"):  # the T-72 at H17 lets it pass
        g.apply(Pass())
    g.apply(Move("A3", "M17"))
    assert g.state.units["A3"].position == "M17"


def test_he_fire_at_light_armor_saves_with_armor() -> None:
    # WaW 1.3.4.2: HE may be fired at light-armored vehicles (a normal HE attack).
    units = with_hqs(
        [unit("A1", "us_infantry", "A", "N17")], [unit("B1", "btr70", "B", "M17")]
    )
    g = game_for(units)
    g.rng = FixedDice([6, 6, 6, 5])  # HE 3 hits; BTR saves 1 armor die on 6: no
    g.apply(Fire("A1", "B1", "he"))
    assert g.state.units["B1"].destroyed


# --------------------------------------------------------------------------- #
# helicopters (WaW 9.0) and air defence (1.3.4.5)                             #
# --------------------------------------------------------------------------- #

HELI = with_hqs(
    [
        unit("A1", "m60", "A", "N17"),
        unit("A2", "m113", "A", "N17"),
        unit("AH", "ah64", "A", "N17", name="Apache 1/A"),
    ],
    [unit("B1", "t72", "B", "H17", name="T-72 1/74")],
)


def test_helicopters_do_not_count_for_stacking() -> None:
    # Seed 000 stacking: helicopters are exempt (two units + HQ + helicopter).
    assert check_scenario(scenario(HELI)) == []


def test_helicopter_modes_change_its_firepower() -> None:
    # WaW 9.0: each side of the counter has its own firepower.
    g = game_for(HELI)
    g.rng = FixedDice([1, 1, 1])
    n0 = len(g.events)
    g.apply(Fire("AH", "B1", "ap"))
    fire, _hit = since(g, n0)
    assert len(fire.dice) == 3 and fire.needed == 3  # low: Hellfire AP 3, 3+
    g = game_for(HELI)
    g.apply(SetMode("AH", "high"))
    hold_fire(g)
    assert g.state.units["AH"].attrs["mode"] == "high"
    p = unit_odds(g, "AH", "B1", results=True)
    ref = waw.result_odds("ah64", "t72", 5, attacker_mode="high")
    assert p.round(12).equals(ref.round(12))
    g.rng = FixedDice([1, 1])
    n0 = len(g.events)
    g.apply(Fire("AH", "B1", "ap"))
    fire = next(e for e in since(g, n0) if e.kind == "fire")
    assert len(fire.dice) == 2 and fire.needed == 4  # high: AP 2, 4+


def test_helicopter_changes_mode_once_per_turn() -> None:
    g = game_for(HELI)
    g.apply(SetMode("AH", "high"))
    hold_fire(g)
    assert refused(g, SetMode("AH", "low")) == (
        "Apache 1/A has already changed mode this turn"
    )
    assert refused(g, SetMode("A1", "high")).endswith("only helicopters have modes")


def test_helicopters_attack_alone_without_hq_leadership() -> None:
    g = game_for(HELI)
    assert refused(g, Fire("AH", "B1", "ap", True)) == (
        "Apache 1/A is a helicopter: it attacks alone, without HQ leadership"
    )


def test_helicopter_in_high_mode_sees_and_is_seen_over_obstacles() -> None:
    # ASSUMPTION (player aid LOS table not in the seeds): high mode is above
    # every obstacle; low mode uses the ground LOS of its hex.
    units = with_hqs(
        [unit("A1", "m163", "A", "N17", name="Vulcan 1/A")],
        [
            unit("B1", "t72", "B", "H17"),
            unit("B2", "mi24", "B", "K16", name="Hind 2/74"),
        ],
    )
    g = game_for(units)
    assert not g.ruleset.board.visible("N17", "K16")
    assert refused(g, Fire("A1", "B2", "aa")) == (
        "Vulcan 1/A at N17 has no line of sight to K16"
    )
    units[-1] = {**units[-1], "mode": "high"}
    g = game_for(units)
    assert Fire("A1", "B2", "aa") in g.legal_actions()


def test_aa_fire_only_at_aircraft() -> None:
    units = with_hqs(
        [unit("A1", "m163", "A", "N17", name="Vulcan 1/A")],
        [unit("B1", "t72", "B", "L17", name="T-72 1/74")],
    )
    g = game_for(units)
    assert refused(g, Fire("A1", "B1", "aa")) == (
        "Vulcan 1/A cannot fire AA at T-72 1/74: AA fire cannot be used against "
        "armored targets"
    )


def test_aa_fire_keeps_its_range_other_fire_at_helicopters_is_halved() -> None:
    # WaW 1.3.4.5: AA range is not halved against aircraft (ASSUMPTION: other
    # fire at aircraft is).  M163 HE range 5 -> 2 against the Hind; AA range 8.
    units = with_hqs(
        [unit("A1", "m163", "A", "N17", name="Vulcan 1/A")],
        [
            unit("B1", "t72", "B", "H17"),
            unit("B2", "mi24", "B", "G17", name="Hind 2/74", mode="high"),
        ],
    )
    g = game_for(units)
    # range 6: beyond twice the halved HE range (2), within the AA range 8
    why = refused(g, Fire("A1", "B2", "he"))
    assert why.startswith("Hind 2/74 at G17 is out of Vulcan 1/A's HE range")
    g.rng = FixedDice([4, 4, 1, 6])  # AA 3 at range 6, to-hit 4
    n0 = len(g.events)
    g.apply(Fire("A1", "B2", "aa"))
    ev = since(g, n0)
    assert kinds(ev) == ["fire", "save", "hit"]
    assert ev[0].needed == 4 and ev[1].dice == (6,)  # armoured Hind: 1 die on 6
    assert disrupted(g.state.units["B2"])  # 2 hits - 1 save = 1: disrupted


def test_two_net_hits_destroy_a_helicopter_and_leave_no_wreck() -> None:
    units = with_hqs(
        [unit("A1", "m163", "A", "N17")],
        [unit("B1", "t72", "B", "H17"), unit("B2", "mi8", "B", "J17", mode="high")],
    )
    g = game_for(units)
    g.rng = FixedDice([6, 6, 1])  # no armor: no save dice
    n0 = len(g.events)
    g.apply(Fire("A1", "B2", "aa"))
    assert kinds(since(g, n0)) == ["fire", "hit"]
    assert g.state.units["B2"].destroyed
    assert g.state.vars.get("wrecks", ()) == ()


def test_aa_unit_reduction_leaves_a_wreck() -> None:
    # WaW 1.3.4.5: one-sided AA counters: a reduction replaces them by a wreck.
    units = with_hqs(
        [unit("A1", "m60", "A", "N17")],
        [unit("B1", "zsu23_4", "B", "L17"), unit("B2", "t72", "B", "H17")],
    )
    g = game_for(units)
    g.rng = FixedDice([3, 3, 1, 1, 1])  # 2 AP hits, 1 armor die fails
    n0 = len(g.events)
    g.apply(Fire("A1", "B1", "ap"))
    assert kinds(since(g, n0)) == ["fire", "save", "hit", "wreck"]
    assert g.state.units["B1"].destroyed and g.state.vars["wrecks"] == ("L17",)


def test_m163_fires_he_at_ground_targets() -> None:
    units = with_hqs(
        [unit("A1", "m163", "A", "N17")], [unit("B1", "ussr_infantry", "B", "L17")]
    )
    g = game_for(units)
    assert Fire("A1", "B1", "he") in g.legal_actions()


def test_infantry_aa_support_weapon_fires_at_a_helicopter() -> None:
    units = with_hqs(
        [unit("A1", "us_infantry", "A", "N17", support_weapon="stinger")],
        [unit("B1", "t72", "B", "H17"), unit("B2", "mi8", "B", "K17", mode="high")],
    )
    g = game_for(units)
    # the rifles' HE (3 dice) misses; the Stinger fires with it (WaW 6.1, 1.3.5)
    g.rng = FixedDice([1, 1, 1, 5, 4])
    n0 = len(g.events)
    g.apply(Fire("A1", "B2", "he", sw_target="B2"))
    (_he, fire, _miss, _hit) = since(g, n0)
    assert "Stinger" in fire.detail and fire.hits == 2
    assert g.state.units["B2"].destroyed
    assert g.rng.remaining == 0


def test_helicopters_are_not_assaulted() -> None:
    units = [
        unit("A-HQ", "us_hq", "A", "N17"),
        unit("A1", "m60", "A", "N17"),
        unit("AH", "ah1", "A", "M17", name="Cobra 1/A"),
        unit("B-HQ", "ussr_hq", "B", "L17"),
        unit("B1", "t72", "B", "L17"),
    ]
    g = game_for(units, "B")
    assert refused(g, Assault("B1", "M17")) == (
        "there is no enemy ground unit to assault at M17"
    )


def test_helicopter_flies_over_the_rhine() -> None:
    units = [
        unit("A-HQ", "us_hq", "A", "T11"),
        unit("A1", "m60", "A", "T11"),
        unit("AH", "ah1", "A", "S11"),
        unit("B-HQ", "ussr_hq", "B", "H17"),
        unit("B1", "t72", "B", "H17"),
    ]
    g = game_for(units)
    g.apply(Move("AH", "R10"))  # water: 1 MP for a helicopter
    hold_fire(g)
    assert g.state.units["AH"].position == "R10"
    assert g.state.units["AH"].attrs["mp"] == 1.0


def test_helicopters_do_not_capture_hexes() -> None:
    # ASSUMPTION 43: helicopters fly over the ground and take none of it: moving
    # through an enemy objective leaves it the enemy's, and a lone enemy HQ is
    # not overrun by a helicopter (a ground unit entering would destroy it).
    units = [
        unit("A-HQ", "us_hq", "A", "T11"),
        unit("A1", "m60", "A", "T11"),
        unit("AH", "ah1", "A", "S11", name="Cobra 1/A"),
        unit("B-HQ", "ussr_hq", "B", "Q11", name="HQ 1/74"),
        unit("B1", "t72", "B", "H17"),
    ]
    g = game_for(units, objectives=[{"hex": "R10", "vp": 2, "controlled_by": "pact"}])
    n0 = len(g.events)
    g.apply(Move("AH", "R10"))
    hold_fire(g)
    assert g.state.units["AH"].position == "R10"
    assert g.state.control["R10"] == "pact"
    (move,) = [e for e in since(g, n0) if e.kind == "move"]
    assert move.result == "moved" and "objective" not in move.detail
    assert g.ruleset.victory_points(g.state)["pact"] == 2
    assert refused(g, Move("AH", "Q11")) == (
        "Cobra 1/A is a helicopter and takes no ground: it may not enter Q11, "
        "held by HQ 1/74"
    )


# --------------------------------------------------------------------------- #
# mortars, spotters and recon (WaW 1.3.4.3, 1.3.4.4)                          #
# --------------------------------------------------------------------------- #


def mortar_units(spotter_hex: str = "M18", recon: bool = False) -> list[dict]:
    out = [
        unit("A-HQ", "us_hq", "A", spotter_hex, name="HQ Team A"),
        unit("A1", "m60", "A", spotter_hex, name="M60 1/A"),
        unit("A2", "us_mortar81", "A", "P18", name="Mortars 2/A"),
        unit("B-HQ", "ussr_hq", "B", "H17"),
        unit("B1", "ussr_infantry", "B", "K16", name="Rifles 1/74"),
        unit("B2", "bmp1", "B", "K16", name="BMP 2/74"),
        unit("B3", "t72", "B", "H17"),
    ]
    if recon:
        out.append(unit("A3", "m3", "A", "L18", name="Scouts 3/A"))
    return out


def test_mortar_fires_indirectly_at_a_hex_its_hq_sees() -> None:
    # WaW 1.3.4.3: out of its own LOS, at a target in an HQ's LOS, like
    # off-map artillery with the counter's HE values; the mortar is then Ops
    # Complete and the HQ carries on.
    g = game_for(mortar_units())
    board = g.ruleset.board
    assert not board.visible("P18", "K16") and board.visible("M18", "K16")
    assert refused(g, Fire("A2", "B1", "he")) == (
        "Mortars 2/A at P18 has no line of sight to K16"
    )
    g.rng = FixedDice([5, 5, 1, 5, 1, 1, 1])
    n0 = len(g.events)
    g.apply(IndirectFire("A2", "K16", "A-HQ"))
    ev = since(g, n0)
    assert kinds(ev) == ["indirect_fire", "fire", "hit", "fire", "save", "hit"]
    assert [e.target for e in ev if e.kind == "fire"] == ["B1", "B2"]
    assert all(
        e.needed == 5 and "fires indirectly" in e.detail for e in ev if e.kind == "fire"
    )
    assert g.rng.remaining == 0
    st = g.state.units
    assert (st["B1"].strength, disrupted(st["B1"])) == ("reduced", True)
    assert disrupted(st["B2"]) and st["B2"].strength == "full"
    assert ops_complete(st["A2"]) and not ops_complete(st["A-HQ"])
    assert Fire("A1", "B2", "ap") in g.legal_actions()  # the HQ's stack acts on


def test_recon_may_call_mortar_fire_like_an_hq() -> None:
    # WaW 1.3.4.4: recon units call artillery like an HQ.
    g = game_for(mortar_units("N17", recon=True))
    assert IndirectFire("A2", "K16", "A3") in g.legal_actions()
    assert IndirectFire("A2", "K16", "A-HQ") not in g.legal_actions()


def test_mortar_indirect_fire_with_no_spotter_in_los_is_illegal() -> None:
    g = game_for(mortar_units("N17"))
    assert refused(g, IndirectFire("A2", "K16", "A-HQ")) == (
        "K16 is not in the line of sight of HQ Team A at N17"
    )
    assert refused(g, IndirectFire("A2", "K16", "A1")) == (
        "M60 1/A cannot spot: only a friendly HQ or recon unit calls fire"
    )
    assert refused(g, IndirectFire("A1", "K16", "A-HQ")) == (
        "M60 1/A is not a mortar: only mortars fire indirectly"
    )


def test_mortar_range_is_a_hard_maximum() -> None:
    # WaW 1.3.4.3: the range is underlined: no extended range, none indirect.
    w = waw.get_unit("us_mortar81").full.he
    assert w is not None and w.range_underlined
    with pytest.raises(waw.IllegalFireError, match="underlined"):
        waw.plan_fire("us_mortar81", "ussr_infantry", range_hexes=w.range + 1)


def test_mortar_that_moved_cannot_fire_indirectly() -> None:
    g = game_for(mortar_units())
    g.apply(Move("A2", "P19"))
    hold_fire(g)
    assert refused(g, IndirectFire("A2", "K16", "A-HQ")) == (
        "Mortars 2/A has moved this turn: mortars fire indirectly only in place"
    )


# --------------------------------------------------------------------------- #
# hiding (WaW 6.1.5) and recon (1.3.4.4)                                      #
# --------------------------------------------------------------------------- #

HIDE_UNITS = [
    unit("A-HQ", "us_hq", "A", "M17"),
    unit("A1", "m60", "A", "M17", name="M60 1/A"),
    unit("B-HQ", "ussr_hq", "B", "H17"),
    unit("B1", "ussr_infantry", "B", "L16", name="Rifles 1/74"),
    unit("B2", "t72", "B", "H17"),
]


def test_hiding_in_cover_gives_an_extra_defence_die() -> None:
    # WaW 6.1.5 (assumed procedure): the M48 example's "hidden" bonus die.
    g = game_for(HIDE_UNITS, "B")
    g.apply(Hide("B1"))
    assert g.state.units["B1"].attrs["hiding"] and ops_complete(g.state.units["B1"])
    g.apply(EndActivation())
    activate(g, "A")
    g.rng = FixedDice([4, 4, 6, 5])  # HE 2 at half range: 2 hits; 2 save dice
    n0 = len(g.events)
    g.apply(Fire("A1", "B1", "he"))
    fire, save, hit = since(g, n0)
    assert "Rifles 1/74 is hiding: +1 defence die" in fire.detail
    assert save.dice == (6, 5) and hit.result == "no effect"  # woods 1 + hiding 1
    assert g.rng.remaining == 0


def test_hiding_ends_when_the_unit_moves() -> None:
    g = game_for(HIDE_UNITS, "B")
    g.apply(Hide("B1"))
    g.apply(EndActivation())
    activate(g, "B")
    g.apply(Move("B1", "K16"))
    hold_fire(g)
    assert "hiding" not in g.state.units["B1"].attrs


def test_units_in_enemy_recon_sight_cannot_hide() -> None:
    # WaW 1.3.4.4: units in the LOS of recon cannot hide.
    units = [*HIDE_UNITS, unit("A3", "m3", "A", "K17", name="Scouts 3/A")]
    g = game_for(units, "B")
    assert refused(g, Hide("B1")) == (
        "Rifles 1/74 is watched by Scouts 3/A and cannot hide (WaW 1.3.4.4)"
    )
    assert refused(g, Hide("B2")) == (
        "T-72 tank platoon B2 has no cover to hide in at H17 (clear)"
    )


def test_recon_in_sight_cancels_the_hiding_bonus() -> None:
    units = [*HIDE_UNITS, unit("A3", "m3", "A", "N17", name="Scouts 3/A")]
    g = game_for(units, "B")
    g.apply(Hide("B1"))
    g.apply(EndActivation())
    activate(g, "A")
    g.apply(Move("A3", "M18"))  # now in sight of L16
    hold_fire(g)
    g.rng = FixedDice([4, 4, 6])  # only the woods die
    n0 = len(g.events)
    g.apply(Fire("A1", "B1", "he"))
    _done, fire, save, hit = since(g, n0)  # the scout's move ends first
    assert "hiding" not in fire.detail and save.dice == (6,)
    assert hit.result == "disrupted" and g.rng.remaining == 0


# --------------------------------------------------------------------------- #
# off-map artillery and air support, smoke, In Zone, Artillery Shock, chaos   #
# (WaW 1.7 chits and the clean-up markers; procedures assumed)                #
# --------------------------------------------------------------------------- #

ARTY = {
    "id": "arty",
    "side": "nato",
    "name": "155 mm battery",
    "fp": 3,
    "to_hit": 5,
    "missions": 2,
    "rationale": "test battery",
}


def until(g: Game, stop, limit: int = 600) -> None:
    """Play chits (defer, activate and end at once, pass) until ``stop(g)``."""
    for _ in range(limit):
        if stop(g):
            return
        v = g.state.vars
        acts = g.legal_actions()
        if v.get("drawn"):
            g.apply(next(a for a in acts if isinstance(a, Defer | Activate)))
        elif v.get("support"):
            g.apply(next(a for a in acts if isinstance(a, HoldSupport)))
        elif v.get("opp"):
            g.apply(Pass())
        elif v.get("active"):
            g.apply(EndActivation())
    raise AssertionError("never reached")


def support_game(spotter_hex: str = "M18", **kw) -> Game:
    """The NATO battery's chit is drawn while the Soviet chit is still in the cup."""
    units = mortar_units(spotter_hex)
    units.remove(next(u for u in units if u["id"] == "A2"))
    g = Game.from_scenario(scenario(units, support=[dict(ARTY, **kw)]), seed=3)
    until(
        g,
        lambda g: g.state.vars.get("support") == "arty" and "B" in g.state.decks["cup"],
    )
    return g


def barrage_then_soviets(g: Game, faces: list[int]) -> int:
    """Call the battery on K16 (with these dice), then play on to B's phase."""
    turn = g.state.turn
    # then chit draws: face 1 draws the first chit left in the cup, so the
    # formation chits come out before the end-turn chits
    g.rng = FixedDice(faces + [1] * 30)
    g.apply(CallSupport("arty", "K16", "A-HQ"))
    until(
        g, lambda g: g.state.vars.get("active") == "B" and not g.state.vars.get("opp")
    )
    assert g.state.turn == turn  # same turn: the markers are still there
    return turn


def test_support_chits_go_in_the_cup_while_missions_last() -> None:
    # WaW set-up: air support (and artillery) chits go in the cup; ASSUMPTION:
    # a spent battery (ammunition depletion) puts none in.
    g = support_game(missions=1)
    assert g.current_side == "nato"
    assert "SUPPORT:arty" in g.state.decks["aside"]
    assert "SUPPORT:arty" in g.ruleset._full_cup(g.state)
    barrage_then_soviets(g, [1] * 7)
    assert dict(g.state.vars["ammo"]) == {"arty": 0}
    assert "SUPPORT:arty" not in g.ruleset._full_cup(g.state)


def test_called_artillery_attacks_each_unit_of_the_hex() -> None:
    g = support_game()
    g.rng = FixedDice([5, 5, 1, 5, 1, 1, 1] + [1] * 30)
    n0 = len(g.events)
    g.apply(CallSupport("arty", "K16", "A-HQ"))
    ev = since(g, n0)
    assert kinds(ev)[:8] == [
        "support",
        "support_fire",
        "hit",
        "support_fire",
        "save",
        "hit",
        "support",
        "support",
    ]
    assert [e.target for e in ev if e.kind == "support_fire"] == ["B1", "B2"]
    assert [e.dice for e in ev if e.kind == "support_fire"] == [(5, 5, 1), (5, 1, 1)]
    st = g.state
    assert st.units["B1"].strength == "reduced" and disrupted(st.units["B2"])
    assert st.units["B1"].attrs["shock"] and st.units["B2"].attrs["shock"]
    assert dict(st.vars["in_zone"]) == {"K16": "arty"}
    assert dict(st.vars["ammo"]) == {"arty": 1}
    assert st.vars.get("support") is None


def test_artillery_without_a_spotter_in_sight_is_illegal() -> None:
    g = support_game()
    assert refused(g, CallSupport("arty", "K16", "A1")) == (
        "M60 1/A cannot spot: only a friendly HQ or recon unit calls fire"
    )
    assert refused(g, CallSupport("arty", "M18", "A-HQ")) == (
        "there is no enemy unit at M18 that 155 mm battery can hit"
    )
    assert refused(g, Fire("A1", "B1", "ap")) == (
        "the fire support chit of 155 mm battery was drawn: call or hold it"
    )


def test_units_under_artillery_shock_fire_at_to_hit_plus_one() -> None:
    g = support_game()
    barrage_then_soviets(g, [1] * 7)  # no hits, but the hex is shocked
    assert g.state.units["B2"].attrs["shock"]
    g.rng = FixedDice([1, 1])
    n0 = len(g.events)
    g.apply(Fire("B2", "A1", "ap"))
    fire = next(e for e in since(g, n0) if e.kind == "fire")
    assert "artillery shock +1" in fire.detail


def test_artillery_spotter_must_see_the_hex() -> None:
    g = support_game("N17")
    assert not g.ruleset._ground_los(g.state, "N17", "K16")
    assert refused(g, CallSupport("arty", "K16", "A-HQ")) == (
        "K16 is not in the line of sight of HQ Team A at N17"
    )


def test_in_zone_hex_attacks_enemy_units_entering_it() -> None:
    g = support_game()
    barrage_then_soviets(g, [1] * 7)
    assert dict(g.state.vars["in_zone"]) == {"K16": "arty"}
    n0 = len(g.events)
    g.apply(Move("B2", "J16"))  # leaving: nothing
    hold_fire(g)
    assert "in_zone" not in kinds(since(g, n0))
    g.rng = FixedDice([5, 5, 5, 1])  # 3 HE hits, the BMP's armor die fails
    n0 = len(g.events)
    g.apply(Move("B2", "K16"))
    ev = since(g, n0)
    assert kinds(ev)[:5] == ["move", "in_zone", "save", "hit", "wreck"]
    assert g.state.units["B2"].destroyed


def test_smoke_blocks_sight_and_thins_at_each_cleanup() -> None:
    g = support_game()
    assert g.ruleset.board.visible("M18", "K16")
    g.rng = FixedDice([1] * 30)  # draws: formation chits first
    n0 = len(g.events)
    g.apply(CallSupport("arty", "K16", "A-HQ", True))
    assert since(g, n0)[0].result == "smoke"
    assert dict(g.state.vars["smoke"]) == {"K16": 2}
    rules = g.ruleset
    assert not rules._ground_los(g.state, "M18", "K16")
    assert rules._ground_los(g.state, "L16", "K16")  # adjacent still sees
    g.rng = np.random.default_rng(0)
    turn = g.state.turn
    until(g, lambda g: g.state.turn == turn + 1)
    assert dict(g.state.vars["smoke"]) == {"K16": 1}
    until(g, lambda g: g.state.turn == turn + 2)
    assert g.state.vars["smoke"] == ()


def test_chaos_chit_may_cost_the_drawing_side_a_chit() -> None:
    # WaW 1.7: chaos chits go in the cup (ASSUMPTION on their effect).
    rules = {"first_side": "nato", "chaos_chits": 2}
    g = Game.from_scenario(scenario(mortar_units(), rules=rules), seed=1)
    assert g.ruleset._full_cup(g.state).count("CHAOS") == 2
    until(g, lambda g: sum(e.kind == "chaos" for e in g.events) >= 3)
    seen = [e for e in g.events if e.kind == "chaos"]
    for ev in seen:
        lost = ev.dice[0] <= 3 and len(ev.dice) == 2
        assert ev.result == ("chit lost" if lost else "no effect")
        if lost:
            draw = g.events[ev.seq - 2]
            assert draw.kind == "draw" and draw.result == "chaos chit"
            assert g.state.formations[ev.formation].side == draw.side


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        ({"rationale": ""}, "support[0] ('arty').rationale: missing"),
        ({"fp": 0}, "support[0] ('arty').fp: must be a whole number 1-20"),
        ({"kind": "air", "smoke": True}, "only artillery fires smoke"),
        ({"side": "reds"}, "support[0] ('arty').side: 'reds' is not one of"),
        ({"calibre": 155}, "support[0] ('arty').calibre: unknown key"),
    ],
)
def test_bad_support_entries_are_rejected(change: dict, problem: str) -> None:
    problems = check_scenario(scenario(mortar_units(), support=[dict(ARTY, **change)]))
    assert any(problem in p for p in problems), problems


# --------------------------------------------------------------------------- #
# MTU-55 bridge layer (seed 000 bridge units) on the Rhine at Remagen         #
# --------------------------------------------------------------------------- #

BRIDGE_UNITS = [
    unit("A-HQ", "us_hq", "A", "Y13"),
    unit("A1", "m60", "A", "Y13", name="M60 1/A"),
    unit("B-HQ", "ussr_hq", "B", "Y10"),
    unit("B1", "mtu55", "B", "Y10", name="MTU-55 1/74"),
    unit("B2", "t72", "B", "Y10", name="T-72 2/74"),
]


def bridged(units: list[dict] = BRIDGE_UNITS) -> Game:
    """The MTU-55 drives onto the Rhine (Y11, the old Ludendorff bridge site)."""
    g = game_for(units, "B")
    assert g.ruleset.board.is_water("Y11")
    assert refused(g, Move("B2", "Y11")) == (
        "T-72 2/74 cannot enter Y11 (water: only at a bridge or ferry)"
    )
    g.apply(Move("B1", "Y11"))  # ASSUMPTION: 1 MP onto a river hex
    hold_fire(g)
    return g


def test_bridge_layer_lays_its_bridge_for_two_mp_and_tanks_cross_for_two() -> None:
    g = bridged()
    n0 = len(g.events)
    g.apply(LayBridge("B1"))
    (ev,) = [e for e in since(g, n0) if e.kind == "bridge"]
    assert ev.result == "laid"
    b1 = g.state.units["B1"]
    assert b1.attrs["deployed"] and b1.attrs["mp"] == 3.0 and ops_complete(b1)
    g.apply(Move("B2", "Y11"))
    hold_fire(g)
    assert g.state.units["B2"].attrs["mp"] == 2.0
    g.apply(Move("B2", "Y12"))
    hold_fire(g)
    assert g.state.units["B2"].position == "Y12"


def test_laying_a_bridge_on_a_non_water_hex_is_illegal() -> None:
    g = game_for(BRIDGE_UNITS, "B")
    assert refused(g, LayBridge("B1")) == (
        "MTU-55 1/74 is at Y10 (clear), not on a river or stream hex: bridges "
        "are laid on water"
    )
    assert refused(g, LayBridge("B2")) == "T-72 2/74 is not a bridge layer"


def test_a_disrupted_bridge_costs_three_mp_to_cross() -> None:
    units = [*BRIDGE_UNITS[:3], {**BRIDGE_UNITS[3], "hex": "Y11"}, BRIDGE_UNITS[4]]
    g = game_for(units, "B")
    g.apply(LayBridge("B1"))
    # NATO disrupts the bridge: M60 HE at range 1 (half: to-hit 4), 1 hit, the
    # bridge's armor die (save 5) fails
    g.apply(EndActivation())
    activate(g, "A")
    g.rng = FixedDice([4, 1, 1])
    g.apply(Fire("A1", "B1", "he"))
    assert disrupted(g.state.units["B1"]) and not g.state.units["B1"].destroyed
    g.rng = np.random.default_rng(4)
    g.apply(EndActivation())
    activate(g, "B")
    g.apply(Move("B2", "Y11"))
    hold_fire(g)
    assert g.state.units["B2"].attrs["mp"] == 3.0


def test_a_second_hit_removes_the_bridge() -> None:
    # Seed 000: one hit disrupts the bridge, the second removes it.
    units = [
        *BRIDGE_UNITS[:3],
        {**BRIDGE_UNITS[3], "hex": "Y11", "deployed": True, "disrupted": True},
        BRIDGE_UNITS[4],
    ]
    g = game_for(units)
    p = unit_odds(g, "A1", "B1", results=True)
    assert p["disrupted"] == 0.0 and p["destroyed"] > 0  # the odds know it too
    g.rng = FixedDice([4, 1, 1])
    n0 = len(g.events)
    g.apply(Fire("A1", "B1", "he"))
    ev = since(g, n0)
    assert kinds(ev) == ["fire", "save", "hit", "wreck"]
    assert ev[2].hits == 1 and ev[2].result == "destroyed"


def test_a_deployed_bridge_does_not_count_for_stacking() -> None:
    units = [
        *BRIDGE_UNITS[:3],
        {**BRIDGE_UNITS[3], "hex": "Y11", "deployed": True},
        BRIDGE_UNITS[4],
        unit("B3", "t72", "B", "Y10", name="T-72 3/74"),
        unit("B4", "t72", "B", "Y12", name="T-72 4/74"),
    ]
    g = game_for(units, "B")
    for uid in ("B2", "B3"):
        g.apply(Move(uid, "Y11"))
        hold_fire(g)
    assert refused(g, Move("B4", "Y11")) == "stack at Y11 would hold 3 units"


def test_scenario_places_a_bridge_only_on_water() -> None:
    bad = [*BRIDGE_UNITS[:3], {**BRIDGE_UNITS[3], "deployed": True}, BRIDGE_UNITS[4]]
    problems = check_scenario(scenario(bad))
    assert any(
        "units[3] ('B1').deployed: Y10 is not a river or stream hex" in p
        for p in problems
    ), problems
    tank = [*BRIDGE_UNITS[:4], {**BRIDGE_UNITS[4], "deployed": True}]
    assert any(
        "units[4] ('B2').deployed: only bridge layers" in p
        for p in check_scenario(scenario(tank))
    )


def test_bridge_is_taken_up_for_two_mp_and_the_layer_moves_on() -> None:
    units = [*BRIDGE_UNITS[:3], {**BRIDGE_UNITS[3], "hex": "Y11"}, BRIDGE_UNITS[4]]
    g = game_for(units, "B")
    g.apply(LayBridge("B1"))
    assert refused(g, RecoverBridge("B1")) == "MTU-55 1/74 is Ops Complete"
    g.apply(EndActivation())
    activate(g, "B")
    assert refused(g, Move("B1", "Y12")) == (
        "MTU-55 1/74 has laid its bridge: take it up first"
    )
    g.apply(RecoverBridge("B1"))
    assert "deployed" not in g.state.units["B1"].attrs
    assert g.state.units["B1"].attrs["mp"] == 2.0
    g.apply(Move("B1", "Y12"))
    hold_fire(g)
    assert g.state.units["B1"].position == "Y12"


def test_the_bridge_cannot_be_taken_up_under_a_unit() -> None:
    units = [*BRIDGE_UNITS[:3], {**BRIDGE_UNITS[3], "hex": "Y11"}, BRIDGE_UNITS[4]]
    g = game_for(units, "B")
    g.apply(LayBridge("B1"))
    g.apply(Move("B2", "Y11"))
    hold_fire(g)
    g.apply(EndActivation())
    activate(g, "B")
    assert g.state.units["B2"].position == "Y11"
    assert refused(g, RecoverBridge("B1")).endswith("is on the bridge at Y11")


# --------------------------------------------------------------------------- #
# scenario files naming impossible combinations                               #
# --------------------------------------------------------------------------- #


@pytest.mark.parametrize(
    ("extra", "problem"),
    [
        (
            [
                unit("B9", "ural375", "B", "G17"),
                unit("B8", "mi24", "B", None, carried_by="B9"),
            ],
            "units[4] ('B8').carried_by: Mi-24 Hind section cannot ride in Ural-375 "
            "truck platoon: carriers carry only infantry platoons",
        ),
        (
            [unit("B9", "t72", "B", "G17", support_weapon="songster")],
            "units[3] ('B9').support_weapon: T-72 tank platoon cannot take AT-8 "
            "Songster gun-launched ATGM (tank SW): it is fired through the gun of "
            "t64, t80 only (WaW 1.3.5)",
        ),
        (
            [unit("B9", "t72", "B", "G17", mode="high")],
            "units[3] ('B9').mode: only helicopters have modes (WaW 9.0)",
        ),
    ],
)
def test_impossible_combinations_in_a_scenario_are_rejected(
    extra: list[dict], problem: str
) -> None:
    units = with_hqs([unit("A1", "m60", "A", "N17")], [*extra])
    problems = check_scenario(scenario(units))
    assert any(problem in p for p in problems), problems


def test_a_laid_bridge_may_be_assaulted() -> None:
    # Seed 000 bridge units: a deployed bridge may be attacked or assaulted.
    units = [
        unit("A-HQ", "us_hq", "A", "Y13"),
        unit("A1", "m60", "A", "Y12", name="M60 1/A"),
        unit("B-HQ", "ussr_hq", "B", "Y10"),
        {**BRIDGE_UNITS[3], "hex": "Y11", "deployed": True},
        BRIDGE_UNITS[4],
    ]
    g = game_for(units)
    g.rng = FixedDice([5, 5, 1, 1])  # 4 assault dice on 5+: 2 hits; none back
    n0 = len(g.events)
    g.apply(Assault("A1", "Y11"))
    ev = since(g, n0)
    assert g.state.units["B1"].destroyed
    assert kinds(ev)[-2:] == ["assault_result", "wreck"]
    assert ev[-2].result == "defender driven out"  # no advance onto open water
    assert g.state.units["A1"].position == "Y12"
    assert g.state.units["A1"].attrs["mp"] == 2.0  # the crossing cost


def test_units_frame_shows_the_special_markers() -> None:
    units = [*HELI, unit("B2", "t64", "B", "H17", support_weapon="songster")]
    g = game_for(units)
    g.apply(SetMode("AH", "high"))
    hold_fire(g)
    frame = g.units
    assert frame.loc["AH", "markers"] == "high mode"
    assert frame.loc["B2", "markers"].startswith("SW AT-8 Songster")
    assert frame.loc["B2", "markers"].endswith("(unplaced)")
    assert frame.loc["A1", "markers"] is pd.NA
