"""The worked examples of the official text (research/bronepehota.md §7, 1-23)
that the core rules cover, each a test named after it, with the faces fixed.

Numbers are the research list's; sections are those of ``official_rules.md``.
Not covered (real shooting and the turn's timing are not built): 7, 8, 18.
"""

from __future__ import annotations

import math

import pytest

from wargame.engine.errors import IllegalActionError
from wargame.rules.bronepehota import (
    GRENADE_BLAST,
    apply_damage,
    can_fire_gun,
    can_pilot,
    check_rate_of_fire,
    choose_loadout,
    crash_landing,
    damage_from,
    destroyed,
    grenade_burst,
    hits,
    in_blast,
    jump_allowed,
    load_armlists,
    machine_strength,
    range_result,
    repair,
    resolve_melee,
    resolve_shot,
    soldier_attack,
    soldier_defence,
    spend_ammo,
    steps,
    survival_test,
)
from wargame.rules.bronepehota.movement import (
    gun_steps,
    infantry_move_cost,
    machine_move_cost,
    obstacle_cost,
)
from wargame.rules.bronepehota.shooting import STEP_CM

ARM = load_armlists()


def test_example_1_mobile_gun_speed_4_one_step_then_three_points_is_7_5_cm() -> None:
    # §4.1 Fig. 20: Ск 4; 1 step to touch the mortar; 3 points left move him
    # with it at half speed: 1.5 steps = 7.5 cm
    speed = 4
    assert ARM.guns["mortar"].mobile
    left = speed - infantry_move_cost(1)
    assert gun_steps(left) * STEP_CM == 7.5
    assert infantry_move_cost(1, gun_steps=1.5) == speed


def test_example_2_climbing_1_5_steps_costs_3_and_obstacle_costs() -> None:
    # §4.1 Fig. 19: 1.5 steps up a support = 3 points; Table 1: an obstacle
    # under half a step is free, half a step to 1 step costs 2, higher impassable
    assert infantry_move_cost(climb_steps=1.5) == 3
    assert obstacle_cost(0.4) == 0 and obstacle_cost(0.5) == 0
    assert obstacle_cost(0.6) == 2 and obstacle_cost(1.0) == 2
    with pytest.raises(IllegalActionError, match="impassable"):
        obstacle_cost(1.2)


def test_example_4_bronekhod_four_points_back_turn_two_forward() -> None:
    # §4.2 Fig. 22: 1 step back (1), turn (1), 2 steps forward (2) = 4 points,
    # BRONEKHOD's speed in its green sector
    bk = ARM.machines["bronekhod"]
    cost = machine_move_cost(
        bk.locomotion, [("backward", 1), ("turn", 120), ("forward", 2)]
    )
    assert cost == 4 == bk.speed_at(bk.durability_max)
    with pytest.raises(IllegalActionError, match="cannot move sideways"):
        machine_move_cost(bk.locomotion, [("sideways", 1)])
    # a walker backs and sidesteps at half a step a point; a flier turns <= 90°
    assert machine_move_cost("walking", [("backward", 1), ("sideways", 1)]) == 4
    assert machine_move_cost("flying", [("turn", 180)]) == 2
    with pytest.raises(IllegalActionError, match="cannot move backward"):
        machine_move_cost("flying", [("backward", 1)])


def test_example_3_machine_speed_bronekhod_yellow_sector() -> None:
    # §4.2 Fig. 21: BRONEKHOD's slider in the yellow sector (cells 6-4) -> speed 3
    bk = ARM.machines["bronekhod"]
    assert [bk.colour_at(d) for d in (6, 5, 4)] == ["yellow"] * 3
    assert [bk.speed_at(d) for d in (6, 5, 4)] == [3, 3, 3]
    assert bk.speed_at(10) == 4 and bk.speed_at(7) == 4  # green
    assert bk.speed_at(3) == 2 and bk.colour_at(1) == "red"


def test_example_5_damage_track_nine_less_two_is_seven_zero_destroyed() -> None:
    # §5.1 Fig. 26: slider on 9, two damages -> 7; at 0 destroyed and removed
    assert apply_damage(9, 2) == 7
    assert not destroyed(7)
    assert apply_damage(2, 2) == 0 and destroyed(0)
    assert apply_damage(1, 5) == 0  # the slider stops at 0


def test_example_6_survival_test_d6_armour_3() -> None:
    # §5.3 Fig. 27: Бр 3: 2 lives, 3 lives, 4 dies; §11.2: with panic 3 panics
    assert survival_test(2, 3) == "survives"
    assert survival_test(3, 3) == "survives"
    assert survival_test(4, 3) == "dies"
    assert survival_test(3, 3, panic=True) == "panics"
    assert survival_test(2, 3, panic=True) == "survives"
    assert [survival_test(f, 3) for f in range(1, 7)].count("dies") == 3


def test_example_9_range_roll_a_little_over_4_steps_is_5() -> None:
    # §7.4 I, Fig. 40: a little over 4 steps -> 5; Д6+2 rolling 2 = 4 < 5 misses
    assert steps(4.05) == 5
    assert range_result("Д6+2", 2) == 4
    assert not hits(range_result("Д6+2", 2), 4.05)
    # "if it had shown 3, 4, 5 or 6 the shot would have been accurate"
    assert [hits(range_result("Д6+2", f), 4.05) for f in range(1, 7)] == [
        False,
        False,
        True,
        True,
        True,
        True,
    ]
    shot = resolve_shot("Д6+2", "1Д12", 4.05, 2, range_face=2, power_faces=None)
    assert (shot.steps, shot.range_total, shot.hit, shot.damage) == (5, 4, False, 0)


def test_example_10_salamander_armour_7_aviation_rockets_two_damages() -> None:
    # §7.4 II-III, Fig. 41: SALAMANDER armour 7 (full track) hit by aviation
    # rockets 4Д12 rolling 3, 7, 8, 11 -> 2 damages (7 does not pierce), and
    # its pilot takes one survival test Д6
    salamander = ARM.machines["salamander"]
    rockets = ARM.machines["sprut"].weapon("авиационные ракеты")
    assert salamander.durability_max == 7  # armour = the full track's cell
    assert str(rockets.power) == "4Д12"
    assert damage_from(rockets.power, [3, 7, 8, 11], salamander.durability_max) == 2
    shot = resolve_shot(
        rockets.range,
        rockets.power,
        3.0,
        salamander.durability_max,
        range_face=12,
        power_faces=[3, 7, 8, 11],
        machine=True,
    )
    assert shot.hit and shot.damage == 2
    assert shot.pilot_test is True  # once per shot, however many damages
    assert apply_damage(7, shot.damage) == 5


def test_example_11_heavy_rocket_blast_two_steps_each_resolved_alone() -> None:
    # §7.4 IV, Fig. 42: a heavy rocket that hits attacks every model (friend or
    # foe) within 2 steps of the target with 1Д20, each on its own (II and III)
    rocket = ARM.machines["werewolf"].weapon("тяжелая ракета")
    assert rocket.blast is not None
    assert rocket.blast.radius_steps == 2 and str(rocket.blast.power) == "Д20"
    near = {"friend soldier Бр 3": (1.5, 3), "enemy machine armour 12": (2.0, 12)}
    far = {"enemy soldier 2.5 steps away": (2.5, 3)}
    faces = {"friend soldier Бр 3": [4], "enemy machine armour 12": [13]}
    hit_by = {n for n, (d, _) in {**near, **far}.items() if in_blast(d, rocket.blast)}
    assert hit_by == set(near)
    results = {n: damage_from(rocket.blast.power, faces[n], near[n][1]) for n in hit_by}
    assert results == {"friend soldier Бр 3": 1, "enemy machine armour 12": 1}


def test_example_12_rate_of_fire_two_of_three_weapons_each_once() -> None:
    # §7.6: cannon, MG and laser, rate 2 -> any two a turn, each weapon once
    check_rate_of_fire([], "cannon", 2)
    check_rate_of_fire(["cannon"], "laser", 2)
    with pytest.raises(IllegalActionError, match="already fired"):
        check_rate_of_fire(["cannon"], "cannon", 2)
    with pytest.raises(IllegalActionError, match="rate of fire 2 used up"):
        check_rate_of_fire(["cannon", "laser"], "mg", 2)
    # §6.4: T-REX, rate 2, fires each of its two launchers once
    trex = ARM.machines["t_rex"]
    assert trex.fire_rate == 2 and trex.weapon("ракетная установка").count == 2
    check_rate_of_fire(["launcher#1"], "launcher#2", trex.fire_rate)


def test_example_13_ammunition_gatling_3_then_twin_mg_2() -> None:
    # §7.7 Fig. 43: Gatling 3Д20 then twin MG 2Д12 -> the track drops 3, then 2
    demolisher = ARM.machines["demolisher"]
    gatling = demolisher.weapon("пушка гатлинга")
    mg = demolisher.weapon("двуствольный пулемет")
    track = spend_ammo(demolisher.ammo_max, gatling.power)
    assert track == demolisher.ammo_max - 3
    assert spend_ammo(track, mg.power) == demolisher.ammo_max - 5
    with pytest.raises(IllegalActionError, match="ammunition spent"):
        spend_ammo(0, mg.power)


def test_example_14_grenade_bursts_at_the_rolled_steps_and_a_1_hits_the_thrower() -> (
    None
):
    # §7.8 Fig. 45: Д6 = 4 -> burst 4 steps toward the target; the enemy within
    # 1 step takes 1Д20; a figure further away is untouched
    thrower, target = (0.0, 0.0), (6.0, 0.0)
    burst = grenade_burst(thrower, target, 4)
    assert burst == pytest.approx((4.0, 0.0))
    enemy_near, other = (4.8, 0.3), (6.0, 0.0)
    assert in_blast(math.dist(burst, enemy_near), GRENADE_BLAST)
    assert not in_blast(math.dist(burst, other), GRENADE_BLAST)
    assert str(GRENADE_BLAST.power) == "Д20"
    # Fig. 46: a 1 puts the thrower 1 step from his own burst: in the blast
    own = grenade_burst(thrower, target, 1)
    assert in_blast(math.dist(own, thrower), GRENADE_BLAST)


def test_example_15_machine_melee_armour_9_saw_and_claw_is_d6_plus_12() -> None:
    # §8.1 Fig. 49: armour 9 + vibrosaw 2 + combat claw 1 -> Д6+12 against the
    # gun's armour with no die
    hurricane = ARM.machines["hurricane"]
    saw, claw = hurricane.weapon("вибропила"), hurricane.weapon("боевая клешня")
    assert (saw.melee, claw.melee) == (2, 1)
    attack = machine_strength(9, [saw.melee, claw.melee])
    assert str(attack) == "Д6+12"
    twin_gun = ARM.guns["twin_gun"]
    m = resolve_melee(attack, [1], twin_gun.durability_max, None)
    assert (m.attack, m.defence, m.won, m.damage) == (13, 8, True, 5)


def test_example_16_infantry_melee_7_against_5_destroys_and_a_tie_is_repelled() -> None:
    # §8.2 Fig. 50: ББ 2 + die 5 = 7 against Бр 3 + die 2 = 5 -> defender destroyed
    m = resolve_melee(soldier_attack(2), [5], soldier_defence(3), 2)
    assert (m.attack, m.defence, m.won) == (7, 5, True)
    # a tie goes to the defender: repelled, nothing happens
    tie = resolve_melee(soldier_attack(2), [4], soldier_defence(3), 3)
    assert (tie.attack, tie.defence, tie.won, tie.damage) == (6, 6, False, 0)


def test_example_17_surprise_attack_best_of_two_and_machine_loses_its_melee() -> None:
    # §8.3 Fig. 51-52: from behind the attacker keeps the better of two dice;
    # a machine defender's melee weapons do not count in defence
    m = resolve_melee(soldier_attack(4), [2, 5], soldier_defence(4), 4, surprise=True)
    assert m.attack == 9 and m.won
    with pytest.raises(ValueError, match="surprise attack rolls twice"):
        resolve_melee(soldier_attack(4), [2], soldier_defence(4), 4, surprise=True)
    werewolf = ARM.machines["werewolf"]
    assert werewolf.melee_bonus() == 3  # fist 2 + claw 1
    assert str(machine_strength(14, [2, 1], surprised=True)) == "Д6+14"
    assert str(machine_strength(14, [2, 1])) == "Д6+17"


def test_example_19_helix_repairs_two_never_above_the_maximum() -> None:
    # §10.1: HELIX with its platform repairs 2 cells instead of shooting
    helix = ARM.machines["helix"]
    assert helix.weapon("ремонтно-транспортная платформа").kind == "equipment"
    assert repair(5, 12, 2) == 7
    assert repair(11, 12, 2) == 12  # §9.3 note 1: never above the maximum
    with pytest.raises(IllegalActionError, match="destroyed"):
        repair(0, 12, 2)  # §9.3 note 2
    # §10.1: either the twin rocket launcher or the platform, not both
    with pytest.raises(ValueError, match="either"):
        choose_loadout(helix, ["ракетная установка", "ремонтно-транспортная платформа"])


def test_example_20_jump_pack_pr5_two_plus_two_succeeds_four_plus_two_fails() -> None:
    # §9.4 Table 8, Fig. 57: Пр5: 2 out + 2 up = 4 succeeds; 4 + 2 = 6 fails,
    # the soldier lands on the ground or on a lower platform (4 + 1 = 5)
    pr5 = ARM.squads["pl_heavy_assault_landing"].soldiers[0]
    assert pr5.jump == 5
    assert jump_allowed(2, 2, pr5.jump)
    assert not jump_allowed(4, 2, pr5.jump)
    assert jump_allowed(4, 1, pr5.jump) and jump_allowed(4, 0, pr5.jump)
    assert all(jump_allowed(length, 5 - length, 5) for length in range(6))


def test_example_21_aimed_fire_d6_plus_1_rolled_5_is_12_steps() -> None:
    # §11.1: (Д6+1) x 2 = (5 + 1) x 2 = 12 steps; power unchanged
    assert range_result("Д6+1", 5, aimed=True) == 12
    shot = resolve_shot(
        "Д6+1", "1Д6", 12.0, 2, range_face=5, power_faces=[3], aimed=True
    )
    assert shot.hit and shot.damage == 1
    assert not resolve_shot("Д6+1", "1Д6", 12.0, 2, range_face=5, power_faces=None).hit


def test_example_22_gun_and_machine_rank() -> None:
    # §6.1/§7.5: the twin gun is rank 2 -> only rank >= 2 may fire it;
    # §2.3: GRYPHON is rank 2 -> any soldier of rank 2 or more may pilot it
    twin_gun, gryphon = ARM.guns["twin_gun"], ARM.machines["gryphon"]
    assert twin_gun.rank == 2 and not twin_gun.mobile
    assert can_fire_gun(2, twin_gun.rank) and not can_fire_gun(1, twin_gun.rank)
    assert gryphon.rank == 2
    assert can_pilot(2, gryphon.rank) and can_pilot(5, gryphon.rank)
    assert not can_pilot(1, gryphon.rank)


def test_example_23_crash_landing_d6_damage_to_the_flier() -> None:
    # §4.3: a flier whose pilot dies airborne crash-lands; Д6 = the damages
    thunder = ARM.machines["thunder"]
    assert thunder.flier
    assert crash_landing(thunder.durability_max, 4) == thunder.durability_max - 4
    assert crash_landing(3, 6) == 0
    with pytest.raises(ValueError, match="Д6 face"):
        crash_landing(11, 7)
