"""CoH 2e attack and rally odds: exact counts, the dice path agrees, seed examples."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

from wargame.rules.coh.odds import (
    OUTCOMES,
    fire_odds,
    fire_result,
    rally_odds,
    resolve_fire,
    two_d6_at_least,
)


class _Dice:
    """A stand-in generator whose ``random(2)`` gives the chosen two faces."""

    def __init__(self, *faces: int) -> None:
        self.faces = list(faces)

    def random(self, n: int) -> np.ndarray[Any, np.dtype[np.float64]]:
        out = [(self.faces.pop(0) - 0.5) / 6.0 for _ in range(n)]
        return np.array(out)


def _brute(fp: int, dv: int, caps: int) -> dict[str, float]:
    n = dict.fromkeys(OUTCOMES, 0)
    for a in range(1, 7):
        for b in range(1, 7):
            av = fp + a + b + caps
            n["destroyed" if av >= dv + 4 else "hit" if av >= dv else "miss"] += 1
    return {k: v / 36 for k, v in n.items()}


@pytest.mark.parametrize("caps", [0, 1, 2])
@pytest.mark.parametrize("fp", [-2, 0, 3, 5, 9])
@pytest.mark.parametrize("dv", [8, 11, 14, 17, 20])
def test_fire_odds_equal_a_count_over_the_36_outcomes(
    fp: int, dv: int, caps: int
) -> None:
    odds = fire_odds(fp, dv, caps=caps)
    assert list(odds.index) == ["miss", "hit", "destroyed"]
    assert math.isclose(odds.sum(), 1.0)
    for k, p in _brute(fp, dv, caps).items():
        assert math.isclose(odds[k], p, abs_tol=1e-12), (fp, dv, caps, k)


def test_hit_on_av_equal_to_dv_and_kill_at_dv_plus_four() -> None:
    # CoH 2e §7.0: AV >= DV hits; AV >= DV + 4 destroys outright
    assert fire_result(12, 12) == "hit"
    assert fire_result(11, 12) == "miss"
    assert fire_result(15, 12) == "hit"
    assert fire_result(16, 12) == "destroyed"


def test_seed_hidden_rifle_example_hmg_rolling_8_misses() -> None:
    # seed 003 §10.0: 5 FP HMG vs the hidden rifle's 14 DV (12 front + 2 woods),
    # scores a 13 AV and misses
    dice, result = resolve_fire(5, 14, _Dice(3, 5))  # type: ignore[arg-type]
    assert dice == (3, 5)
    assert result == "miss"
    odds = fire_odds(5, 14)
    assert odds["hit"] == pytest.approx(10 / 36)  # needs 9+ on 2d6
    assert odds["destroyed"] == 0.0  # would need 17 on 2d6


def test_close_combat_example_needs_five_to_hit_and_nine_to_kill() -> None:
    # CoH 2e §17.1 fig. 32: red 6 FP vs an 11 flank DV needs >= 5 to hit, >= 9 to kill
    odds = fire_odds(6, 11)
    assert odds["hit"] + odds["destroyed"] == pytest.approx(two_d6_at_least(5))
    assert odds["destroyed"] == pytest.approx(two_d6_at_least(9))
    # with 1 CAP it needs >= 4 and >= 8
    odds = fire_odds(6, 11, caps=1)
    assert odds["destroyed"] == pytest.approx(two_d6_at_least(8))


@pytest.mark.parametrize("bad", [-1, 3, 1.5, True])
def test_caps_outside_zero_to_two_are_refused_with_the_value(bad: Any) -> None:
    with pytest.raises(ValueError, match=f"caps = {bad!r}"):
        fire_odds(3, 12, caps=bad)
    with pytest.raises(ValueError, match="caps"):
        resolve_fire(3, 12, np.random.default_rng(0), caps=bad)


@pytest.mark.parametrize(("fp", "dv", "caps"), [(5, 14, 0), (3, 11, 2), (2, 12, 1)])
def test_seeded_dice_agree_with_the_exact_odds(fp: int, dv: int, caps: int) -> None:
    n = 100_000
    rng = np.random.default_rng(20120626 + fp)
    counts = dict.fromkeys(OUTCOMES, 0)
    for _ in range(n):
        dice, result = resolve_fire(fp, dv, rng, caps)
        assert 1 <= dice[0] <= 6 and 1 <= dice[1] <= 6
        counts[result] += 1
    odds = fire_odds(fp, dv, caps=caps)
    for k in OUTCOMES:
        p = float(odds[k])
        se = math.sqrt(p * (1 - p) / n)
        assert abs(counts[k] / n - p) <= 3 * se + 1e-12, (k, counts[k] / n, p)


def test_two_d6_at_least_table() -> None:
    assert two_d6_at_least(2) == 1.0
    assert two_d6_at_least(7) == pytest.approx(21 / 36)
    assert two_d6_at_least(12) == pytest.approx(1 / 36)
    assert two_d6_at_least(13) == 0.0
    assert two_d6_at_least(-4) == 1.0


def test_rally_odds_follow_the_marker_number_and_modifiers() -> None:
    # CoH 2e §7.5 example: a suppressed unit rallies on 7 or higher
    assert rally_odds(7) == pytest.approx(21 / 36)
    # §7.6.1: +1 in cover, +1 per friendly un-hit unit; CAPs allowed
    assert rally_odds(9, bonus=2) == rally_odds(7)
    assert rally_odds(9, bonus=1, caps=1) == rally_odds(7)
    # No Rally markers never rally (§7.6)
    assert rally_odds(None, bonus=3, caps=2) == 0.0
    with pytest.raises(ValueError, match="bonus"):
        rally_odds(7, bonus=-1)
