"""Exact odds agree with the rules and with the dice path."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from wargame.rules import waw
from wargame.rules.waw.combat import resolve_support_fire
from wargame.rules.waw.odds import support_result_probabilities

# (firepower, to_hit, armor_dice, save, terrain_dice)
CASES = [
    (3, 4, 0, None, 0),  # plain binomial, unarmored in the open
    (4, 5, 2, 5, 3),  # armored, terrain dice capped at 2
    (4, 8, 0, None, 1),  # to-hit 8: two dice lost, to-hit 6 (6.1.3)
    (5, 3, 0, None, 4),  # unarmored, 4 terrain dice (no cap)
    (3, 7, 1, 6, 5),  # light armor, to-hit 7, capped terrain
]


@pytest.mark.parametrize("case", CASES)
def test_fire_odds_sums_to_one_over_zero_to_firepower(case: tuple) -> None:
    fp, to_hit, armor, save, terrain = case
    s = waw.fire_odds(fp, to_hit, armor_dice=armor, save=save, terrain_dice=terrain)
    assert list(s.index) == list(range(fp + 1))
    assert s.index.name == "net_hits"
    assert math.isclose(s.sum(), 1.0, abs_tol=1e-12)
    assert (s >= 0).all()


def test_fire_odds_plain_binomial() -> None:
    assert waw.fire_odds(3, 4).tolist() == [0.125, 0.375, 0.375, 0.125]
    assert waw.fire_odds(2, 6).tolist() == pytest.approx([25 / 36, 10 / 36, 1 / 36])


def test_fire_odds_to_hit_above_six_is_firepower_loss() -> None:
    # 6.1.3: to-hit 8 with 4 dice = to-hit 6 with 2 dice.
    high = waw.fire_odds(4, 8)
    assert high.attrs["firepower"] == 2 and high.attrs["to_hit"] == 6
    assert high.iloc[:3].tolist() == waw.fire_odds(2, 6).tolist()
    assert high.iloc[3:].tolist() == [0.0, 0.0]
    assert waw.fire_odds(2, 9).tolist() == [1.0, 0.0, 0.0]


def test_fire_odds_caps_terrain_dice_only_for_armored() -> None:
    capped = waw.fire_odds(4, 4, armor_dice=2, save=5, terrain_dice=5)
    pd.testing.assert_series_equal(
        capped, waw.fire_odds(4, 4, armor_dice=2, save=5, terrain_dice=2)
    )
    assert capped.attrs["save_dice"] == 4
    # unarmored: no cap, so five terrain dice save more than two
    five, two = waw.fire_odds(4, 4, terrain_dice=5), waw.fire_odds(4, 4, terrain_dice=2)
    assert five[0] > two[0]


def test_more_armor_means_fewer_net_hits() -> None:
    light = waw.fire_odds(4, 4, armor_dice=1, save=5)
    heavy = waw.fire_odds(4, 4, armor_dice=3, save=4)
    assert heavy[0] > light[0]
    assert heavy[4] < light[4]


def test_unit_odds_equal_fire_odds_of_the_same_dice() -> None:
    # M48 vs T-64 in town ruins (seed 001): AP 3 to-hit 4 vs armor 2 save 5 + 3
    # terrain dice (capped at 2).
    unit = waw.odds("m48", "t64", 5, "town", concealment_dice=1)
    pd.testing.assert_series_equal(
        unit, waw.fire_odds(3, 4, armor_dice=2, save=5, terrain_dice=3)
    )
    # extended range and moving: T-72 to-hit 5 -> 7 -> 6 with 3 dice, index to 4
    moving = waw.odds("t72", "m1", 12, "clear", moving=True)
    assert moving.attrs["firepower"] == 3 and moving.attrs["to_hit"] == 6
    assert list(moving.index) == [0, 1, 2, 3, 4] and moving[4] == 0.0


def test_odds_refuses_illegal_fire() -> None:
    with pytest.raises(waw.IllegalFireError):
        waw.odds("btr70", "t72", 3)


def test_result_odds_sums_to_one_and_uses_hit_results() -> None:
    r = waw.result_odds("m48", "t64", 5, "town", concealment_dice=1)
    assert list(r.index) == list(waw.OUTCOMES)
    assert math.isclose(r.sum(), 1.0, abs_tol=1e-12)
    net = waw.odds("m48", "t64", 5, "town", concealment_dice=1)
    assert r["no effect"] == pytest.approx(net[0])
    assert r["disrupted"] == pytest.approx(net[1])
    assert r["reduced"] == pytest.approx(net[2])
    assert r["destroyed"] == pytest.approx(net[3])
    # a reduced target dies on 2 hits
    red = waw.result_odds(
        "m48", "t64", 5, "town", target_state=waw.UnitState(waw.Strength.REDUCED)
    )
    assert red["reduced"] == 0.0
    assert red["destroyed"] == pytest.approx(net[2] + net[3])


def _dice_path_frequencies(case: tuple, n: int, seed: int) -> np.ndarray:
    fp, to_hit, armor, save, terrain = case
    fire = waw.fire_factors(fp, to_hit)
    defence = waw.save_factors(armor_dice=armor, save=save, terrain_dice=terrain)
    rng = np.random.default_rng(seed)
    net = [waw.roll_fire(rng, fire, defence).net_hits for _ in range(n)]
    return np.bincount(net, minlength=fp + 1) / n


def _case_id(c: tuple) -> str:
    return "fp{}-hit{}-armor{}-save{}-terrain{}".format(*c)


@pytest.mark.parametrize("case", CASES[1:], ids=_case_id)
def test_fire_odds_agree_with_dice_path_frequencies(case: tuple) -> None:
    n = 100_000
    fp, to_hit, armor, save, terrain = case
    exact = waw.fire_odds(fp, to_hit, armor_dice=armor, save=save, terrain_dice=terrain)
    freq = _dice_path_frequencies(case, n, seed=20240601 + fp * 10 + to_hit)
    p = exact.to_numpy()
    se = np.sqrt(p * (1 - p) / n)
    assert np.all(np.abs(freq - p) <= 3 * se + 1e-12), (freq, p)
    # impossible outcomes (e.g. dice lost to 6.1.3) never show up
    assert np.all(freq[p == 0] == 0)


# --------------------------------------------------------------------------- #
# AA fire and helicopter modes (WaW 1.3.4.5, 9.0)                              #
# --------------------------------------------------------------------------- #


def test_odds_cover_aa_fire_at_a_helicopter() -> None:
    # ZSU-23-4 AA 3 to-hit 4 (range 13, range 10: normal band) at a Mi-24: the
    # armoured airframe rolls its 1 armor die on 6, no terrain dice.
    aa = waw.odds("zsu23_4", "mi24", 10, "woods", kind="aa")
    pd.testing.assert_series_equal(aa, waw.fire_odds(3, 4, armor_dice=1, save=6))
    # the same range is beyond even the extended, halved HE range (6 // 2 = 3)
    with pytest.raises(waw.IllegalFireError, match="beyond twice"):
        waw.odds("zsu23_4", "mi24", 10, kind="he")


def test_odds_use_the_helicopter_mode_side() -> None:
    low = waw.odds("mi24", "ussr_infantry", 6, kind="he")
    high = waw.odds("mi24", "ussr_infantry", 6, kind="he", attacker_mode="high")
    assert (low.attrs["firepower"], high.attrs["firepower"]) == (2, 4)
    pd.testing.assert_series_equal(high, waw.fire_odds(4, 4))
    r = waw.result_odds("ah64", "t72", 5, attacker_mode="high")
    assert math.isclose(r.sum(), 1.0, abs_tol=1e-12)


def _assert_within_3_se(exact, counts: dict[str, int], n: int) -> None:
    """Each outcome's frequency in ``n`` dice paths is within 3 SE of its odds."""
    for k in waw.OUTCOMES:
        p = float(exact[k])
        se = math.sqrt(p * (1 - p) / n)
        assert abs(counts[k] / n - p) <= 3 * se + 1e-12, (k, counts[k] / n, p)


def test_aa_odds_agree_with_the_dice_path() -> None:
    n = 100_000
    rng = np.random.default_rng(9_0)
    exact = waw.result_odds("m163", "mi24", 5, kind="aa")
    counts = dict.fromkeys(waw.OUTCOMES, 0)
    for _ in range(n):
        r = waw.resolve_fire(rng, "m163", "mi24", range_hexes=5, kind="aa").result
        word = (
            "destroyed"
            if r.after.destroyed
            else "disrupted"
            if r.after.disrupted
            else "no effect"
        )
        counts[word] += 1
    _assert_within_3_se(exact, counts, n)
    assert exact["reduced"] == 0.0  # one-sided: no reduced side to show


def test_support_fire_odds_agree_with_the_dice_path() -> None:
    # Off-map / indirect fire (assumptions 49, 51): HE 3 to-hit 5 at a BMP in woods.
    n = 60_000
    rng = np.random.default_rng(5_1)
    exact = support_result_probabilities(3, 5, "bmp1", terrain_dice=1)
    counts = dict.fromkeys(waw.OUTCOMES, 0)
    for _ in range(n):
        _roll, r = resolve_support_fire(rng, 3, 5, "bmp1", terrain_dice=1)
        word = (
            "destroyed"
            if r.after.destroyed
            else "reduced"
            if r.after.reduced
            else "disrupted"
            if r.after.disrupted
            else "no effect"
        )
        counts[word] += 1
    _assert_within_3_se(exact, counts, n)
