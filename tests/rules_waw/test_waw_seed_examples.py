"""Every worked example of the World at War seeds (000, 001), with their dice.

Each test replays the example's dice through the rule code (FixedDice) and checks
the outcome the rulebook states.  ``dice.remaining == 0`` checks that exactly the
dice the example describes were rolled (no more, no fewer).
"""

from __future__ import annotations

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


def test_m48_vs_t64_in_town_ruins_example() -> None:
    # seed 001 §6.1: M48 (AP 3, to-hit 4) fires at T-64 (armor 2, save 5) in town
    # ruins; rolls 4, 5, 6 = 3 hits; T-64 rolls 2 armor + 2 terrain dice (3 terrain
    # dice capped at 2): 1, 3, 4, 6 = one save; 2 hits: disrupted and reduced.
    dice = FixedDice([4, 5, 6, 1, 3, 4, 6])
    shot = waw.resolve_fire(
        dice, "m48", "t64", range_hexes=5, terrain="town", concealment_dice=1
    )
    assert shot.plan.kind is waw.AttackKind.AP
    assert (shot.plan.fire.firepower, shot.plan.fire.to_hit) == (3, 4)
    assert shot.roll.attack_dice == (4, 5, 6)
    assert shot.roll.hits == 3
    assert shot.plan.defence.terrain_dice_uncapped == 3
    assert shot.plan.defence.terrain_dice == 2
    assert shot.roll.save_dice == (1, 3, 4, 6)
    assert shot.roll.saves == 1
    assert shot.roll.net_hits == 2
    assert shot.result.after == UnitState(Strength.REDUCED, disrupted=True)
    assert dice.remaining == 0


def test_m48_example_unarmored_target_would_get_three_terrain_dice() -> None:
    # seed 001 §6.1, same example: an unarmored target in the same spot rolls 3.
    tgt = get_unit("ussr_infantry")
    chart = waw.terrain_chart()
    s = waw.defence_factors(tgt, terrain_dice=chart.defence_dice("town") + 1)
    assert (s.dice, s.save, s.armored) == (3, 5, False)


def test_chieftain_range_bands_example() -> None:
    # seed 001 §6.1.1: Chieftain AP to-hit 3 at 1-9 hexes, 4 at 10-18 hexes.
    ap = get_unit("chieftain").full.ap
    assert ap is not None
    for r in range(5, 10):
        band, f = waw.weapon_fire_factors(ap, r)
        assert (band, f.to_hit) == (RangeBand.NORMAL, 3)
    for r in range(10, 19):
        band, f = waw.weapon_fire_factors(ap, r)
        assert (band, f.to_hit) == (RangeBand.EXTENDED, 4)
    with pytest.raises(IllegalFireError):
        waw.weapon_fire_factors(ap, 19)
    # The example predates the half-range rule on the same page: at 1-4 hexes the
    # half-range bonus (T-80 example) applies as well.
    assert waw.weapon_fire_factors(ap, 4)[1].to_hit == 2


def test_t80_half_range_example() -> None:
    # seed 001 half range: T-80 AP to-hit 4, 3 at 4 hexes or less.
    ap = get_unit("t80").full.ap
    assert ap is not None
    assert [waw.weapon_fire_factors(ap, r)[1].to_hit for r in range(0, 5)] == [3] * 5
    assert [waw.weapon_fire_factors(ap, r)[1].to_hit for r in range(5, 9)] == [4] * 4


@pytest.mark.parametrize(
    ("save_die", "after"),
    [
        (5, UnitState()),  # 5 or 6: the jeep ignores the hit
        (6, UnitState()),
        (4, UnitState(Strength.REDUCED, disrupted=True)),  # else reduced + disrupted
        (1, UnitState(Strength.REDUCED, disrupted=True)),
    ],
)
def test_tow_jeep_in_woods_vs_t72_example(save_die: int, after: UnitState) -> None:
    # seed 000 §1.3.4.2: T-72 (AP 4, to-hit 5) rolls 3, 3, 4, 5 at a TOW jeep in
    # woods: one hit; the jeep rolls 1d6 for the woods and saves on 5-6,
    # otherwise it is reduced and disrupted.
    dice = FixedDice([3, 3, 4, 5, save_die])
    shot = waw.resolve_fire(dice, "t72", "tow_jeep", range_hexes=6, terrain="woods")
    assert (shot.plan.fire.firepower, shot.plan.fire.to_hit) == (4, 5)
    assert shot.roll.hits == 1
    assert shot.roll.save_dice == (save_die,)
    assert shot.result.after == after
    assert dice.remaining == 0


def test_soviet_infantry_he_on_jeep_in_open_example() -> None:
    # seed 000 §1.3.4.2: Soviet infantry fires HE at a jeep in the open, 2 hexes
    # away; two dice come up 5 and 6 = 2 hits; in the open the jeep rolls no save
    # dice; HE hits count as usual: 2 hits disrupt and reduce.
    dice = FixedDice([5, 6, 1])
    shot = waw.resolve_fire(
        dice, "ussr_infantry", "tow_jeep", range_hexes=2, terrain="clear", kind="he"
    )
    assert shot.roll.hits == 2
    assert shot.plan.defence.dice == 0
    assert shot.roll.save_dice == ()
    assert shot.roll.net_hits == 2
    assert shot.result.after == UnitState(Strength.REDUCED, disrupted=True)
    assert dice.remaining == 0


def test_to_hit_above_six_costs_firepower_example() -> None:
    # seed 001 §6.1.3: if extended range took to-hit from 5 to 6, any further
    # penalty comes off firepower.  T-72 (AP 4, to-hit 5) at extended range and
    # on the move: to-hit 7 -> 6 with one die less.
    ap = get_unit("t72").full.ap
    assert ap is not None
    band, f = waw.weapon_fire_factors(ap, 12, moving=True)
    assert band is RangeBand.EXTENDED
    assert (f.to_hit, f.firepower, f.firepower_lost) == (6, 3, 1)


@pytest.mark.parametrize(
    ("die", "hit"),
    [(1, True), (2, False), (3, False)],
)
def test_hq_movement_modifiers_example(die: int, hit: bool) -> None:
    # seed 000 HQ movement: after an independent move roll a d6, 1-2 reduces the
    # HQ; +1 when start and end are adjacent, e.g. L1 and M1.
    check = waw.hq_move_check(FixedDice([die]), start_end_adjacent=True)
    assert check.modifiers == (("start and end adjacent", 1),)
    assert check.total == die + 1
    assert check.hit is hit
    assert check.after.reduced is hit


def test_hq_movement_exposure_counts_only_hexes_between() -> None:
    # seed 000 HQ movement (b)-(d): -1 crossing enemy LOS and range in cover, -2 in
    # the open, each once, and only for hexes between start and end.
    ends_only = waw.hq_move_check(
        FixedDice([3]),
        start_end_adjacent=False,
        path_exposure=["open", "none", "none", "open"],
    )
    assert (ends_only.total, ends_only.hit) == (3, False)
    open_twice = waw.hq_move_check(
        FixedDice([4]),
        start_end_adjacent=False,
        path_exposure=["none", "open", "open", "none"],
    )
    assert (open_twice.total, open_twice.hit) == (2, True)
    in_cover = waw.hq_move_check(
        FixedDice([3]),
        start_end_adjacent=False,
        path_exposure=["none", "cover", "none"],
    )
    assert (in_cover.total, in_cover.hit) == (2, True)


def test_lost_unplaced_sagger_example() -> None:
    # seed 000 §1.3.5: the Soviets have one unplaced Sagger; the British destroy
    # their second infantry platoon; the d6 is 2, -1 for the platoon after the
    # first = 1: the British remove the Sagger.
    roll = waw.unplaced_sw_loss(FixedDice([2]), infantry_platoons_lost=2)
    assert (roll.die, roll.modifier, roll.total, roll.lost) == (2, -1, 1, True)
    assert not waw.unplaced_sw_loss(FixedDice([2]), infantry_platoons_lost=1).lost
    assert waw.unplaced_sw_loss(FixedDice([1]), infantry_platoons_lost=1).lost


REDUCED_DISRUPTED = UnitState(Strength.REDUCED, disrupted=True)


@pytest.mark.parametrize(
    ("carrier_after", "die", "effect", "passengers_after"),
    [
        # carrier disrupted: passengers disrupted, no roll
        (UnitState(disrupted=True), None, "disrupted", UnitState(disrupted=True)),
        # carrier reduced: even d6, passengers reduced (and disrupted)
        (REDUCED_DISRUPTED, 4, "reduced", REDUCED_DISRUPTED),
        (REDUCED_DISRUPTED, 3, "reduced", UnitState(disrupted=True)),
        # carrier destroyed: even, passengers destroyed; odd, disrupted + reduced
        (UnitState(Strength.DESTROYED), 2, "destroyed", UnitState(Strength.DESTROYED)),
        (UnitState(Strength.DESTROYED), 5, "destroyed", REDUCED_DISRUPTED),
    ],
)
def test_transport_losses_example(
    carrier_after: UnitState,
    die: int | None,
    effect: str,
    passengers_after: UnitState,
) -> None:
    # seed 001 §5.2 (transport as a target).
    dice = FixedDice([] if die is None else [die])
    loss = waw.transport_losses(
        dice, carrier_before=UnitState(), carrier_after=carrier_after
    )
    assert (loss.carrier_effect, loss.die) == (effect, die)
    assert loss.after == passengers_after
    assert dice.remaining == 0


@pytest.mark.parametrize(
    ("dice", "passed"),
    [((3, 4), True), ((6, 1), True), ((4, 4), False), ((6, 6), False)],
)
def test_74th_gtr_morale_7_example(dice: tuple[int, int], passed: bool) -> None:
    # seed 000 Morale: all units of the 74th GTR have morale 7; roll 2d6, a total
    # at or under 7 passes.
    morale = get_unit("ussr_hq").full.morale
    assert morale == 7
    check = waw.morale_check(FixedDice(dice), morale)
    assert (check.total, check.passed) == (sum(dice), passed)


@pytest.mark.parametrize(
    ("die", "unit_destroyed", "hit"),
    [(1, False, True), (2, False, False), (3, True, True), (4, True, False)],
)
def test_hq_in_combat_roll(die: int, unit_destroyed: bool, hit: bool) -> None:
    # seed 000 HQ in combat: d6 = 1 reduces the HQ; -2 if a unit of the stack died.
    check = waw.hq_stack_check(FixedDice([die]), unit_destroyed=unit_destroyed)
    assert check.hit is hit
    assert check.after == (UnitState(Strength.REDUCED) if hit else UnitState())
    assert not check.after.disrupted  # HQs are never disrupted


def test_hq_in_combat_reduced_hq_is_destroyed_and_dies_with_its_stack() -> None:
    # seed 000 HQ in combat: a reduced HQ is destroyed on a 1; the HQ dies if every
    # unit of its stack dies.
    reduced = UnitState(Strength.REDUCED)
    assert waw.hq_stack_check(FixedDice([1]), hq_state=reduced).after.destroyed
    dice = FixedDice([])
    assert waw.hq_stack_check(dice, stack_destroyed=True).after.destroyed


def test_unarmored_vehicle_second_ap_hit_destroys() -> None:
    # seed 000 §1.3.4.2: one AP hit reduces and disrupts an unarmored vehicle, the
    # second destroys it.
    one = waw.hit_result(1, "unarmored_vehicle", "ap")
    assert one.after == UnitState(Strength.REDUCED, disrupted=True)
    again = waw.hit_result(1, "unarmored_vehicle", "ap", one.after)
    assert again.after.destroyed
    assert waw.hit_result(2, "unarmored_vehicle", "ap").after.destroyed


def test_aa_unit_reduction_is_a_wreck() -> None:
    # seed 000 §1.3.4.5: AA counters are one-sided; a reduce result wrecks them.
    dice = FixedDice([6, 6, 6, 6, 1, 1])  # 4 hits; save dice 1, 1
    shot = waw.resolve_fire(dice, "m1", "zsu23_4", range_hexes=5)
    assert shot.roll.net_hits == 4
    assert shot.result.after.destroyed
    assert waw.hit_result(2, "light_armored", "ap", one_sided=True).after.destroyed
    assert waw.hit_result(1, "light_armored", "ap", one_sided=True).after == UnitState(
        disrupted=True
    )


def test_tank_atgm_removed_when_it_scores_no_hit() -> None:
    # seed 000 §1.3.5: a tank-fired ATGM that scores no hit is out of missiles.
    armor = waw.save_factors(armor_dice=3, save=4)
    miss = waw.roll_fire(FixedDice([1, 3]), waw.fire_factors(2, 4), armor)
    assert waw.atgm_expended(miss)
    hit = waw.roll_fire(FixedDice([4, 1, 6, 6, 6]), waw.fire_factors(2, 4), armor)
    assert hit.net_hits == 0
    assert not waw.atgm_expended(hit)


def test_hq_leadership_adds_dice_to_one_attack() -> None:
    # seed 000 HQ in combat: the HQ adds its leadership to one unit's attack.
    lead = get_unit("us_hq").full.leadership
    assert lead == 2
    plan = waw.plan_fire("m60", "t72", range_hexes=6, leadership=lead)
    assert plan.fire.firepower == 4 + 2
    assert waw.odds("m60", "t72", 6, leadership=lead).index.max() == 6


def test_rally_subtracts_hq_leadership() -> None:
    # seed 000 HQ leadership: subtracted from the rally roll in the HQ's hex.
    check = waw.rally_check(FixedDice([5, 4]), 7, leadership=2)
    assert (check.total, check.passed) == (7, True)
    assert not waw.rally_check(FixedDice([5, 4]), 7).passed


def test_mtu55_bridge_crossing_costs_two_or_three_mp() -> None:
    # seed 000 bridge units: crossing a deployed MTU-55 costs 2 MP, 3 if disrupted.
    chart = waw.terrain_chart()
    for terrain in ("clear", "woods"):
        assert chart.movement_cost(terrain, "tracked", crossing="assault_bridge") == 2
        cost = chart.movement_cost(
            terrain, "wheeled", crossing="assault_bridge", crossing_disrupted=True
        )
        assert cost == 3
