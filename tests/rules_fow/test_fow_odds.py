"""FoW v3 exact odds agree with the dice path, and the worked examples E1, E2,
E3 and E7 of research/fow.md §8 hold exactly."""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction
from itertools import product

import numpy as np
import pandas as pd
import pytest

from wargame.rules.fow.dice import SKILL_TEST, TO_BE_HIT, needed, p_success
from wargame.rules.fow.odds import (
    ARMOUR_OUTCOMES,
    SAVE_OUTCOMES,
    armour_odds,
    armour_pmf,
    armour_result,
    hit_odds,
    hit_pmf,
    hits_from,
    penetrates,
    rerolls_needed,
    save_odds,
    save_pmf,
    save_result,
)

SIXTH = Fraction(1, 6)


# -- shapes -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("dice", "to_hit", "reroll"),
    [(0, 3, False), (4, 4, True), (12, 6, False), (3, 7, True)],
)
def test_hit_odds_is_a_distribution_over_zero_to_dice(
    dice: int, to_hit: int, reroll: bool
) -> None:
    s = hit_odds(dice, to_hit, reroll=reroll)
    assert list(s.index) == list(range(dice + 1)) and s.index.name == "hits"
    assert math.isclose(s.sum(), 1.0) and (s >= 0).all()
    assert sum(hit_pmf(dice, to_hit, reroll=reroll)) == 1
    assert s.tolist() == [float(p) for p in hit_pmf(dice, to_hit, reroll=reroll)]


def test_armour_and_save_odds_are_indexed_by_their_outcomes() -> None:
    a = armour_odds(7, 10, 3)
    assert tuple(a.index) == ARMOUR_OUTCOMES == ("no effect", "bailed out", "destroyed")
    assert math.isclose(a.sum(), 1.0)
    s = save_odds(3, 6)
    assert tuple(s.index) == SAVE_OUTCOMES and math.isclose(s.sum(), 1.0)
    for armour, at, fp in product(range(0, 12), range(0, 18), range(1, 8)):
        assert sum(armour_pmf(armour, at, fp).values()) == 1


# -- exact odds against the dice path, by enumerating every face ---------------


@pytest.mark.parametrize("to_hit", range(0, 9))
@pytest.mark.parametrize("reroll", [False, True])
def test_hit_pmf_equals_the_dice_path_over_all_faces(to_hit: int, reroll: bool) -> None:
    dice = 3
    counts = [Fraction(0)] * (dice + 1)
    for faces in product(range(1, 7), repeat=dice):
        if not reroll:
            counts[hits_from(faces, to_hit)] += SIXTH**dice
            continue
        k = rerolls_needed(faces, to_hit)
        for again in product(range(1, 7), repeat=k):
            counts[hits_from(faces, to_hit, reroll_faces=again)] += SIXTH ** (dice + k)
    assert tuple(counts) == hit_pmf(dice, to_hit, reroll=reroll)


@pytest.mark.parametrize(
    ("armour", "anti_tank", "firepower"),
    [(6, 12, 3), (4, 12, 3), (7, 10, 3), (10, 11, 5), (1, 2, 6), (9, 2, 6), (0, 0, 1)],
)
def test_armour_pmf_equals_the_dice_path_over_all_faces(
    armour: int, anti_tank: int, firepower: int
) -> None:
    counts = dict.fromkeys(ARMOUR_OUTCOMES, Fraction(0))
    for face in range(1, 7):
        if penetrates(face, armour, anti_tank):
            for fp_face in range(1, 7):
                r = armour_result(face, armour, anti_tank, fp_face, firepower)
                counts[r] += SIXTH * SIXTH
        else:
            counts[armour_result(face, armour, anti_tank, None, firepower)] += SIXTH
    assert counts == armour_pmf(armour, anti_tank, firepower)


@pytest.mark.parametrize("save", [3, 5, 7])
@pytest.mark.parametrize("firepower", [None, 3, 6])
def test_save_pmf_equals_the_dice_path_over_all_faces(
    save: int, firepower: int | None
) -> None:
    counts = dict.fromkeys(SAVE_OUTCOMES, Fraction(0))
    for face in range(1, 7):
        if face < save and firepower is not None:
            for fp_face in range(1, 7):
                counts[save_result(face, save, fp_face, firepower)] += SIXTH * SIXTH
        else:
            counts[save_result(face, save)] += SIXTH
    assert counts == save_pmf(save, firepower)


# -- rules (research/fow.md §3.4, §3.5; p. 20) --------------------------------


def test_armour_greater_no_effect_equal_bailed_out_less_firepower_test() -> None:
    # research §3.5: die + armour > AT no effect; == AT bailed out; < AT FP test
    assert armour_result(4, 7, 10, None, 3) == "no effect"  # 11 > 10
    assert armour_result(3, 7, 10, None, 3) == "bailed out"  # 10 = 10
    assert armour_result(2, 7, 10, 3, 3) == "destroyed"  # 9 < 10, FP 3+ passed
    assert armour_result(2, 7, 10, 2, 3) == "bailed out"  # FP 3+ failed


def test_a_failed_save_destroys_unless_cover_asks_for_firepower() -> None:
    assert save_result(2, 3) == "destroyed"  # in the open
    assert save_result(3, 3) == "saved"
    assert save_result(2, 3, 6, 6) == "destroyed"  # dug in, FP 6 passed
    assert save_result(2, 3, 5, 6) == "survived"  # dug in, FP 6 failed
    assert save_result(6, 7) == "destroyed"  # no save at all (portee gun)
    assert save_result(6, 7, 4, 4) == "destroyed"  # ... but it needs FP 4+


def test_reroll_rolls_each_failed_die_once_more() -> None:
    assert hits_from([1, 2, 6], 3, reroll_faces=[3, 1]) == 2
    assert hit_pmf(1, 3, reroll=True)[1] == Fraction(2, 3) + Fraction(1, 3) * Fraction(
        2, 3
    )


def test_hits_above_six_are_impossible_even_with_a_reroll() -> None:
    assert hit_pmf(5, 7, reroll=True) == (1, 0, 0, 0, 0, 0)
    assert hits_from([6, 6, 6], 8) == 0


def test_dice_path_needs_exactly_the_faces_the_rule_uses() -> None:
    with pytest.raises(ValueError, match="reroll_faces: 2 die"):
        hits_from([1, 2, 6], 3, reroll_faces=[4])
    with pytest.raises(ValueError, match="fp_face is required"):
        armour_result(1, 6, 12, None, 3)
    with pytest.raises(ValueError, match="fp_face must be None"):
        armour_result(6, 6, 12, 4, 3)
    with pytest.raises(ValueError, match="fp_face is required"):
        save_result(1, 3, None, 6)
    with pytest.raises(ValueError, match="fp_face must be None: the save passed"):
        save_result(5, 3, 6, 6)
    with pytest.raises(ValueError, match="fp_face must be None: firepower is None"):
        save_result(1, 3, 6)


BAD_INPUT: list[tuple[Callable[[], object], str]] = [
    (lambda: hit_odds(-1, 3), "dice"),
    (lambda: hit_odds(2.0, 3), "dice"),  # type: ignore[arg-type]
    (lambda: hit_odds(2, 3.5), "to_hit"),  # type: ignore[arg-type]
    (lambda: hit_odds(2, "4"), "to_hit"),  # type: ignore[arg-type]
    (lambda: armour_odds(None, 12, 3), "armour"),  # type: ignore[arg-type]
    (lambda: armour_odds("6", 12, 3), "armour"),  # type: ignore[arg-type]
    (lambda: armour_odds(-1, 12, 3), "armour"),
    (lambda: armour_odds(6, 12.0, 3), "anti_tank"),  # type: ignore[arg-type]
    (lambda: armour_odds(6, 12, 0), "firepower"),
    (lambda: save_odds(0), "save"),
    (lambda: save_odds(3, 2.5), "firepower"),  # type: ignore[arg-type]
    (lambda: hits_from([0, 3], 3), r"faces\[0\]"),
    (lambda: hits_from([1], 3, reroll_faces=[]), r"reroll_faces: 1 die"),
    (lambda: hits_from([1], 3, reroll_faces=[9]), r"reroll_faces\[0\]"),
    (lambda: armour_result(7, 6, 12, None, 3), "face"),
    (lambda: armour_result(1, 6, 12, 0, 3), "fp_face"),
    (lambda: save_result(1, 3, 8, 6), "fp_face"),
]


@pytest.mark.parametrize(
    ("call", "argument"),
    BAD_INPUT,
    ids=[f"{i}-{arg.replace(chr(92), '')}" for i, (_, arg) in enumerate(BAD_INPUT)],
)
def test_bad_input_raises_value_error_naming_the_argument(
    call: Callable[[], object], argument: str
) -> None:
    # the message starts with the argument's name
    with pytest.raises(ValueError, match=f"^{argument}"):
        call()


# -- seeded Monte Carlo through the dice path ---------------------------------

N = 100_000


def _within_three_se(counts: pd.Series, odds: pd.Series) -> None:
    freq = counts.reindex(odds.index, fill_value=0) / N
    for outcome, p in odds.items():
        se = math.sqrt(p * (1 - p) / N)
        assert abs(freq[outcome] - p) <= 3 * se, (outcome, freq[outcome], p, se)


def test_seeded_dice_path_agrees_with_the_exact_odds() -> None:
    rng = np.random.default_rng(20)
    # hits: 4 dice at 4+ with a re-roll; re-roll faces taken from a second pool
    faces = rng.integers(1, 7, size=(N, 4)).tolist()
    spare = rng.integers(1, 7, size=(N, 4)).tolist()
    hits = [
        hits_from(f, 4, reroll_faces=s[: rerolls_needed(f, 4)])
        for f, s in zip(faces, spare, strict=True)
    ]
    _within_three_se(pd.Series(hits).value_counts(), hit_odds(4, 4, reroll=True))

    # armour: 7 against AT 10, FP 3+ (all three results possible)
    die = rng.integers(1, 7, size=N).tolist()
    fp = rng.integers(1, 7, size=N).tolist()
    results = [
        armour_result(d, 7, 10, f if penetrates(d, 7, 10) else None, 3)
        for d, f in zip(die, fp, strict=True)
    ]
    _within_three_se(pd.Series(results).value_counts(), armour_odds(7, 10, 3))

    # saves: infantry 3+ dug in against FP 5+
    die = rng.integers(1, 7, size=N).tolist()
    fp = rng.integers(1, 7, size=N).tolist()
    saves = [
        save_result(d, 3, f, 5) if d < 3 else save_result(d, 3)
        for d, f in zip(die, fp, strict=True)
    ]
    _within_three_se(pd.Series(saves).value_counts(), save_odds(3, 5))


# -- worked examples (research/fow.md §8) --------------------------------------


def _v4_armour(
    armour: int, anti_tank: int, firepower: int, long_range: bool
) -> dict[str, Fraction]:
    """The v4 reading, ONLY to show it differs (research §3.5, S14): +1 armour
    beyond 16", a Firepower test to bail out on "equal", to destroy on "less"."""
    p_fp = p_success(firepower)
    out = dict.fromkeys(ARMOUR_OUTCOMES, Fraction(0))
    for face in range(1, 7):
        total = face + armour + long_range
        if total > anti_tank:
            out["no effect"] += SIXTH
        elif total == anti_tank:
            out["bailed out"] += SIXTH * p_fp
            out["no effect"] += SIXTH * (1 - p_fp)
        else:
            out["destroyed"] += SIXTH * p_fp
            out["bailed out"] += SIXTH * (1 - p_fp)
    return out


def test_E1_pak40_vs_sherman_front_long_range() -> None:
    """Two PaK 40s (ROF 2 each, 4 dice) at a Trained Sherman 20" away, front 6
    against AT 12, FP 3+ (research §8 E1)."""
    to_hit = needed(TO_BE_HIT["trained"], 1)  # long range
    assert to_hit == 4 and p_success(to_hit) == Fraction(1, 2)
    assert hit_pmf(4, to_hit) == tuple(Fraction(c, 16) for c in (1, 4, 6, 4, 1))
    per_hit = armour_pmf(6, 12, 3)
    assert per_hit == {
        "no effect": Fraction(0),
        "bailed out": Fraction(4, 9),
        "destroyed": Fraction(5, 9),
    }
    per_die = {k: p_success(to_hit) * p for k, p in per_hit.items()}
    assert per_die["destroyed"] == Fraction(5, 18)
    assert per_die["bailed out"] == Fraction(2, 9)
    # the v4 reading of the same hit gives other numbers: v3 and v4 kept apart
    v4 = _v4_armour(6, 12, 3, long_range=True)
    assert v4 == {
        "no effect": Fraction(2, 9),
        "bailed out": Fraction(1, 3),
        "destroyed": Fraction(4, 9),
    }
    assert v4 != per_hit
    assert armour_odds(6, 12, 3).tolist() != [float(v4[k]) for k in ARMOUR_OUTCOMES]


def test_E1_pak40_vs_sherman_side_armour() -> None:
    """From the side (armour 4) die + 4 is at most 10 < 12: always penetrated."""
    assert armour_pmf(4, 12, 3) == {
        "no effect": Fraction(0),
        "bailed out": Fraction(1, 3),
        "destroyed": Fraction(2, 3),
    }


def test_E2_mgs_vs_dug_in_veterans() -> None:
    """Four MG teams (ROF 3, 12 dice) at Veterans 10" away, Concealed and Gone to
    Ground: 6+ (research §8 E2)."""
    to_hit = needed(TO_BE_HIT["veteran"], 2)
    assert to_hit == 6
    pmf = hit_pmf(12, to_hit)
    assert sum(k * p for k, p in enumerate(pmf)) == 2
    p_pinned = sum(pmf[5:])
    assert p_pinned == Fraction(13187681, 362797056)
    assert hit_odds(12, to_hit)[5:].sum() == pytest.approx(0.0364, abs=5e-5)
    assert save_pmf(3)["destroyed"] == Fraction(1, 3)  # in the open
    assert save_pmf(3, 6)["destroyed"] == Fraction(1, 18)  # dug in: save, then FP 6


def test_E3_top_end_seven_plus_never_hits() -> None:
    """The same Veterans at 20" need 4 + 1 + 1 + 1 = 7+: no hit in v3; v4 would
    read 7+ as a 6 then a 5+ (1/18), used here only to show the difference."""
    to_hit = needed(TO_BE_HIT["veteran"], 3)
    assert to_hit == 7
    assert hit_pmf(12, to_hit) == (1,) + (0,) * 12
    assert hit_pmf(12, to_hit, reroll=True)[0] == 1
    v4_p_hit = SIXTH * p_success(5)
    assert v4_p_hit == Fraction(1, 18) != p_success(to_hit)


def test_E7_assault_hits_three_trained_teams() -> None:
    """Three Trained teams within 2": each hits on a plain Skill test, 4+, with no
    modifier whatever the cover (research §4, §8 E7)."""
    score = needed(SKILL_TEST["trained"])
    assert score == 4
    assert 1 - hit_pmf(3, score)[0] == Fraction(7, 8)
    assert hit_odds(3, score)[1:].sum() == 0.875
