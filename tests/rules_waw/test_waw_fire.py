"""Ranged fire, saves, hit results and assault rules of World at War (classic)."""

from __future__ import annotations

import numpy as np
import pytest

from wargame.rules import waw
from wargame.rules.waw import (
    FixedDice,
    IllegalFireError,
    RangeBand,
    Strength,
    UnitState,
    get_unit,
)

# ---------------------------------------------------------------------------
# range


def test_rule_range_counts_neither_firer_nor_target_hex() -> None:
    # seed 001 §6.1: range is counted without the firer's and the target's hex.
    assert [waw.rule_range(d) for d in (1, 2, 10)] == [0, 1, 9]
    assert waw.rule_range(10, count_target_hex=True) == 10
    with pytest.raises(ValueError):
        waw.rule_range(0)


def test_extended_range_adds_one_to_hit() -> None:
    assert waw.range_band(10, 9) is RangeBand.EXTENDED
    assert waw.range_band(18, 9) is RangeBand.EXTENDED
    assert RangeBand.EXTENDED.to_hit_modifier == 1


def test_beyond_twice_range_is_illegal() -> None:
    with pytest.raises(IllegalFireError, match="twice"):
        waw.range_band(19, 9)


def test_underlined_range_is_hard_maximum_without_half_range_bonus() -> None:
    assert waw.range_band(20, 20, range_underlined=True) is RangeBand.NORMAL
    assert waw.range_band(1, 20, range_underlined=True) is RangeBand.NORMAL
    with pytest.raises(IllegalFireError, match="underlined"):
        waw.range_band(21, 20, range_underlined=True)
    # a TOW jeep gets no half-range bonus and cannot reach past 20
    ap = get_unit("tow_jeep").full.ap
    assert ap is not None
    assert waw.weapon_fire_factors(ap, 3)[1].to_hit == ap.to_hit
    with pytest.raises(IllegalFireError):
        waw.plan_fire("tow_jeep", "t72", range_hexes=21)


def test_half_range_subtracts_one_to_hit() -> None:
    assert waw.range_band(4, 9) is RangeBand.HALF
    assert waw.range_band(5, 9) is RangeBand.NORMAL
    assert waw.range_band(4, 8) is RangeBand.HALF
    assert waw.range_band(0, 8) is RangeBand.HALF  # adjacent (range 0)


def test_adjacent_hex_fire_always_allowed() -> None:
    # seed 001 §6.1: fire at an adjacent hex is always possible.
    band = waw.range_band(3, 2, range_underlined=True, adjacent=True)
    assert band is RangeBand.NORMAL
    assert waw.range_band(5, 2, adjacent=True) is RangeBand.NORMAL
    # every counter reaches an adjacent hex (range 0 by the seed's count)
    for unit in waw.unit_catalog().values():
        for kind in ("ap", "he", "aa"):
            weapon = unit.full.weapon(kind)
            if weapon is not None:
                waw.range_band(waw.rule_range(1), weapon.range)


# ---------------------------------------------------------------------------
# fire factors


def test_fire_on_the_move_needs_underlined_firepower() -> None:
    # seed 001 §6.1.3: only underlined firepower may fire on the move.
    with pytest.raises(IllegalFireError, match="move"):
        waw.plan_fire("m48", "t72", range_hexes=6, moving=True)
    plan = waw.plan_fire("t72", "m48", range_hexes=6, moving=True)
    assert plan.fire.to_hit == 5 + waw.MOVING_FIRE_PENALTY
    assert ("moving", waw.MOVING_FIRE_PENALTY) in plan.fire.to_hit_modifiers


def test_to_hit_far_above_six_can_remove_all_firepower() -> None:
    f = waw.fire_factors(2, 6, to_hit_modifiers=[("a", 1), ("b", 2)])
    assert (f.to_hit, f.firepower, f.firepower_lost) == (6, 0, 3)
    roll = waw.roll_fire(FixedDice([]), f, waw.save_factors())
    assert roll.attack_dice == () and roll.net_hits == 0


def test_to_hit_never_below_one() -> None:
    f = waw.fire_factors(3, 2, to_hit_modifiers=[("half range", -1), ("x", -1)])
    assert f.to_hit == 1
    assert f.hit_probability == 1


# ---------------------------------------------------------------------------
# saves


def test_armored_terrain_dice_capped_at_two() -> None:
    s = waw.save_factors(armor_dice=3, save=4, terrain_dice=5)
    assert (s.armor_dice, s.terrain_dice, s.dice, s.save) == (3, 2, 5, 4)


def test_unarmored_terrain_dice_save_on_five_without_cap() -> None:
    s = waw.save_factors(terrain_dice=5)
    assert (s.dice, s.save, s.armored) == (5, 5, False)
    with pytest.raises(ValueError):
        waw.save_factors(armor_dice=2)


def test_saves_are_not_rolled_when_nothing_hit() -> None:
    dice = FixedDice([1, 2, 3, 4])
    shot = waw.resolve_fire(dice, "t72", "m60", range_hexes=6, terrain="woods")
    assert shot.roll.hits == 0 and shot.roll.save_dice == ()
    assert shot.result.after == UnitState()
    assert dice.remaining == 0


def test_light_armored_may_be_shot_with_he_and_saves_with_armor() -> None:
    # seed 000 §1.3.4.2: armor 1 with save 5-6 is light armor; HE may be used.
    marder = get_unit("marder")
    assert marder.target_type() is waw.TargetType.LIGHT_ARMORED
    dice = FixedDice([5, 6, 5, 1])  # BTR-70 HE 2: two hits; Marder: armor 1 -> 5 saves
    shot = waw.resolve_fire(dice, "btr70", "marder", range_hexes=3, terrain="woods")
    assert shot.plan.kind is waw.AttackKind.HE
    assert shot.plan.defence == waw.save_factors(armor_dice=1, save=5, terrain_dice=1)
    assert (shot.roll.hits, shot.roll.saves, shot.roll.net_hits) == (2, 1, 1)
    assert shot.result.after == UnitState(disrupted=True)


@pytest.mark.parametrize(
    ("attacker", "target", "kind"),
    [
        ("btr70", "t72", "he"),  # HE at full armor
        ("t72", "us_infantry", "ap"),  # ASSUMPTION: AP at infantry
        ("gepard", "t72", "aa"),  # AA only at aircraft
        ("m1", "ah64", "ap"),  # ASSUMPTION: AP at aircraft
    ],
)
def test_fire_kind_must_suit_the_target(attacker: str, target: str, kind: str) -> None:
    with pytest.raises(IllegalFireError):
        waw.plan_fire(attacker, target, range_hexes=2, kind=kind)


def test_aa_fire_at_helicopter_ignores_terrain() -> None:
    plan = waw.plan_fire("gepard", "mi24", range_hexes=10, terrain="woods")
    assert plan.kind is waw.AttackKind.AA
    # only the armoured airframe's own dice (Mi-24: armor 1), no terrain dice
    assert (plan.defence.terrain_dice, plan.defence.armor_dice) == (0, 1)
    assert (
        waw.plan_fire("gepard", "ah1", range_hexes=10, terrain="woods").defence.dice
        == 0
    )


def test_unit_without_that_firepower_cannot_fire_it() -> None:
    with pytest.raises(IllegalFireError, match="no AP"):
        waw.plan_fire("fv432", "t72", range_hexes=2, kind="ap")


def test_disrupted_unit_cannot_fire() -> None:
    with pytest.raises(IllegalFireError, match="disrupted"):
        waw.resolve_fire(
            np.random.default_rng(0),
            "t72",
            "m60",
            range_hexes=6,
            attacker_state=UnitState(disrupted=True),
        )


def test_reduced_attacker_uses_reduced_side() -> None:
    plan = waw.plan_fire("t72", "m60", range_hexes=6, attacker_reduced=True)
    assert plan.fire.firepower == get_unit("t72").side(True).ap.fp  # type: ignore[union-attr]


def test_unknown_terrain_class_is_a_clear_error() -> None:
    with pytest.raises(KeyError, match="unknown terrain class 'jungle'"):
        waw.plan_fire("t72", "m60", range_hexes=6, terrain="jungle")


def test_resolve_fire_is_reproducible_with_a_seed() -> None:
    a = waw.resolve_fire(np.random.default_rng(42), "m1", "t80", range_hexes=7)
    b = waw.resolve_fire(np.random.default_rng(42), "m1", "t80", range_hexes=7)
    assert a == b
    assert len(a.roll.attack_dice) == 4


# ---------------------------------------------------------------------------
# hit results


@pytest.mark.parametrize(
    ("hits", "after"),
    [
        (0, UnitState()),
        (1, UnitState(disrupted=True)),
        (2, UnitState(Strength.REDUCED, disrupted=True)),
        (3, UnitState(Strength.DESTROYED)),  # ASSUMPTION: 3rd hit = another step
    ],
)
def test_he_hits_on_infantry(hits: int, after: UnitState) -> None:
    # seed 000 §1.3.4.2: 1 hit disrupts, 2 hits disrupt and reduce.
    assert waw.hit_result(hits, "unarmored", "he").after == after


def test_reduced_unit_reduced_again_is_destroyed() -> None:
    # ASSUMPTION (GAP): a reduce result on a reduced unit destroys it.
    reduced = UnitState(Strength.REDUCED, disrupted=True)
    assert waw.hit_result(2, "armored", "ap", reduced).after.destroyed
    assert waw.hit_result(1, "armored", "ap", reduced).after == reduced


def test_disrupting_a_disrupted_unit_has_no_further_effect() -> None:
    # ASSUMPTION (GAP).
    state = UnitState(disrupted=True)
    assert waw.hit_result(1, "armored", "ap", state).after == state


def test_destroyed_unit_cannot_be_fired_at() -> None:
    with pytest.raises(IllegalFireError):
        waw.resolve_fire(
            np.random.default_rng(0),
            "t72",
            "m60",
            range_hexes=6,
            target_state=UnitState(Strength.DESTROYED),
        )


def test_bmp_destroyed_with_passengers_aboard() -> None:
    # A whole chain: M1 destroys a BMP-1 in the open, then the passengers roll.
    dice = FixedDice([6, 6, 6, 6, 1, 3])  # 4 hits; BMP's one armor die: no save
    shot = waw.resolve_fire(dice, "m1", "bmp1", range_hexes=5)
    assert shot.roll.net_hits == 4 and shot.result.destroyed
    loss = waw.transport_losses(
        dice, carrier_before=shot.result.before, carrier_after=shot.result.after
    )
    assert loss.die == 3 and loss.after == UnitState(Strength.REDUCED, disrupted=True)


def test_transport_losses_reduced_passengers_destroyed_on_odd_roll() -> None:
    # ASSUMPTION: "disrupted and reduced" on reduced passengers destroys them.
    loss = waw.transport_losses(
        FixedDice([1]),
        carrier_before=UnitState(),
        carrier_after=UnitState(Strength.DESTROYED),
        passengers=UnitState(Strength.REDUCED),
    )
    assert loss.after.destroyed


# ---------------------------------------------------------------------------
# assault and overrun


def test_assault_both_sides_roll_and_results_are_simultaneous() -> None:
    # attacker 4 dice: 6 5 4 1 -> 2 hits; defender 3 dice: 5 5 6 -> 3 hits;
    # attacker's hits over 1 defender; defender's 3 hits over 2 attackers:
    # one each, the odd one to the unit the d6 (2 -> top) picks.
    dice = FixedDice([6, 5, 4, 1, 5, 5, 6, 2])
    r = waw.resolve_assault(dice, [2, 2], [3])
    assert (r.attacker.dice, r.defender.dice) == ((6, 5, 4, 1), (5, 5, 6))
    assert (r.defender_hits_taken, r.attacker_hits_taken) == (2, 3)
    assert r.attacker.allocation == (2,)
    assert r.defender.allocation == (2, 1)
    assert r.defender.allocation_dice == (2,)
    assert r.defender_holds  # took no more hits than it dealt
    assert dice.remaining == 0


def test_assault_hits_spread_evenly_over_the_stack() -> None:
    alloc, dice = waw.spread_hits(FixedDice([]), 4, 2)
    assert (alloc, dice) == ((2, 2), ())
    assert waw.spread_hits(FixedDice([6]), 1, 2)[0] == (0, 1)
    assert waw.spread_hits(FixedDice([1]), 1, 2)[0] == (1, 0)


def test_assault_leadership_adds_dice_and_assault_hits_get_no_saves() -> None:
    dice = FixedDice([6, 6, 6, 1])
    r = waw.resolve_assault(dice, [2], [1], attacker_leadership=1)
    assert len(r.attacker.dice) == 3 and r.defender_hits_taken == 3
    assert not r.defender_holds
    assert waw.hit_result(1, "unarmored_vehicle", "assault").after.reduced


def test_overrun_is_vehicles_against_infantry_in_the_open() -> None:
    def kind(vehicles: bool, infantry: bool, open_: bool) -> str:
        return waw.assault_type(
            attackers_are_vehicles=vehicles,
            defenders_are_infantry=infantry,
            defender_terrain_open=open_,
        ).value

    assert kind(True, True, True) == "overrun"
    assert kind(True, True, False) == "assault"
    assert kind(True, False, True) == "assault"
    assert kind(False, True, True) == "assault"
