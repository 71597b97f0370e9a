"""FoW v3 dice: every rule of the seed pages (p. 19-21, seed 004) as a test, plus
the worked examples E4 and E5 of research/fow.md §8 that rest only on tests."""

from __future__ import annotations

from fractions import Fraction
from itertools import product

import numpy as np
import pytest

from wargame.rules import fow
from wargame.rules.fow.dice import (
    MOTIVATION_TEST,
    MOTIVATIONS,
    SKILL_TEST,
    SKILLS,
    TO_BE_HIT,
    Test,
    at_least_half,
    faces_needed,
    needed,
    p_success,
    passes,
    resolve_test,
    roll_off,
    roll_test,
    up_to_half,
    worst,
)

# -- rating tables (research/fow.md §5) -------------------------------------


def test_rating_tables_hold_the_research_numbers() -> None:
    assert dict(TO_BE_HIT) == {"conscript": 2, "trained": 3, "veteran": 4}
    assert dict(SKILL_TEST) == {"conscript": 5, "trained": 4, "veteran": 3}
    assert dict(MOTIVATION_TEST) == {"reluctant": 5, "confident": 4, "fearless": 3}


def test_ratings_are_ordered_worst_to_best() -> None:
    assert SKILLS == ("conscript", "trained", "veteran")
    assert MOTIVATIONS == ("reluctant", "confident", "fearless")
    # better troops pass their tests more easily and are harder to hit
    assert [SKILL_TEST[s] for s in SKILLS] == [5, 4, 3]
    assert [MOTIVATION_TEST[m] for m in MOTIVATIONS] == [5, 4, 3]
    assert [TO_BE_HIT[s] for s in SKILLS] == [2, 3, 4]


def test_rating_tables_cannot_be_changed_by_a_caller() -> None:
    with pytest.raises(TypeError):
        TO_BE_HIT["trained"] = 2  # type: ignore[index]


# -- N+ rolls (p. 20) -------------------------------------------------------


def test_three_plus_succeeds_on_3_to_6_and_five_plus_on_5_and_6() -> None:
    # p. 20: "3+ (3, 4, 5 or 6)", "5+ (5 or 6)"; any lower face fails
    assert [f for f in range(1, 7) if passes(f, 3)] == [3, 4, 5, 6]
    assert [f for f in range(1, 7) if passes(f, 5)] == [5, 6]


def test_three_plus_at_long_range_and_concealed_needs_five_plus() -> None:
    # p. 20: each modifier +1, cumulative: 3+ at long range in woods is 5+
    assert needed(3, 2) == 5
    assert needed(TO_BE_HIT["trained"]) == 3
    assert needed(TO_BE_HIT["trained"], 1) == 4
    assert p_success(needed(3, 2)) == Fraction(1, 3)


@pytest.mark.parametrize("score", [7, 8, 12])
def test_a_score_above_six_fails_automatically(score: int) -> None:
    # p. 20: a needed result above 6 always fails
    assert not any(passes(f, score) for f in range(1, 7))
    assert p_success(score) == 0
    assert not resolve_test([6], score, reroll=True).passed


def test_p_success_is_seven_minus_score_over_six() -> None:
    assert [p_success(s) for s in range(2, 7)] == [
        Fraction(7 - s, 6) for s in range(2, 7)
    ]
    assert p_success(1) == p_success(0) == p_success(-3) == 1
    # agrees with counting faces
    for s in range(-1, 9):
        assert p_success(s) == Fraction(sum(passes(f, s) for f in range(1, 7)), 6)


def test_each_die_is_judged_on_its_own() -> None:
    # p. 20: with more than one die, each result is considered separately
    tests = [resolve_test([f], 4, reroll=False) for f in (1, 4, 6, 3)]
    assert [t.passed for t in tests] == [False, True, True, False]


# -- re-rolls (p. 20) -------------------------------------------------------


def test_a_reroll_ignores_the_failed_die_and_the_second_result_stands() -> None:
    failed_again = resolve_test([2, 1], 3, reroll=True)
    assert failed_again == Test(score=3, faces=(2, 1), passed=False)
    assert failed_again.rerolled and failed_again.face == 1
    assert resolve_test([2, 5], 3, reroll=True).passed


def test_only_one_reroll_is_allowed() -> None:
    # the second die may fail too: no third die, however many re-rolls "apply"
    with pytest.raises(ValueError, match="faces: this test uses 2"):
        resolve_test([1, 1, 6], 3, reroll=True)


def test_a_passed_die_is_not_rerolled() -> None:
    assert faces_needed(5, 3, reroll=True) == 1
    with pytest.raises(ValueError, match="faces"):
        resolve_test([5, 1], 3, reroll=True)
    assert resolve_test([5], 3, reroll=True) == Test(3, (5,), True)


def test_without_a_reroll_a_failed_die_stands() -> None:
    assert faces_needed(1, 3, reroll=False) == 1
    assert resolve_test([1], 3, reroll=False) == Test(3, (1,), False)
    with pytest.raises(ValueError, match="faces"):
        resolve_test([1, 6], 3, reroll=False)


def test_no_reroll_is_taken_for_a_test_that_cannot_succeed() -> None:
    assert faces_needed(3, 7, reroll=True) == 1
    with pytest.raises(ValueError, match="faces"):
        resolve_test([3, 6], 7, reroll=True)


def test_reroll_odds_agree_with_enumerating_the_faces() -> None:
    # P(pass with one re-roll) = p + (1 - p) p, counted over all face pairs
    for score in range(1, 8):
        total = Fraction(0)
        for first in range(1, 7):
            if faces_needed(first, score, reroll=True) == 1:
                total += (
                    Fraction(1, 6) * resolve_test([first], score, reroll=True).passed
                )
            else:
                for second in range(1, 7):
                    t = resolve_test([first, second], score, reroll=True)
                    total += Fraction(1, 36) * t.passed
        p = p_success(score)
        assert total == p + (1 - p) * p


def test_roll_test_calls_the_roller_only_as_often_as_the_rule_needs() -> None:
    calls: list[int] = []

    def roll() -> int:
        calls.append(1)
        return [2, 6][len(calls) - 1]

    assert roll_test(roll, 4, reroll=True) == Test(4, (2, 6), True)
    assert len(calls) == 2
    calls.clear()
    assert roll_test(roll, 2, reroll=True) == Test(2, (2,), True)
    assert len(calls) == 1


# -- halves (p. 20) ----------------------------------------------------------


def test_up_to_half_leaves_the_odd_team_out_and_at_least_half_counts_it() -> None:
    assert up_to_half(5) == 2
    assert at_least_half(5) == 3
    assert up_to_half(4) == at_least_half(4) == 2
    assert (up_to_half(0), at_least_half(0)) == (0, 0)
    assert (up_to_half(1), at_least_half(1)) == (0, 1)


def test_halves_count_the_teams_in_the_platoon_now() -> None:
    # a platoon of 7 that has lost 2 teams: half of the 5 left, not of 7
    teams_left = 7 - 2
    assert (up_to_half(teams_left), at_least_half(teams_left)) == (2, 3)
    for n in range(30):
        assert up_to_half(n) + at_least_half(n) == n


# -- mixed ratings (p. 19-20) -------------------------------------------------


def test_a_platoon_with_mixed_ratings_uses_the_worst() -> None:
    assert worst(["veteran", "trained"], SKILLS) == "trained"
    assert worst(["veteran", "conscript", "trained"], SKILLS) == "conscript"
    assert worst(["fearless", "confident"], MOTIVATIONS) == "confident"
    assert worst(["veteran"], SKILLS) == "veteran"
    # the worst skill is the one that is easiest to hit and fails tests most
    mixed = worst(["veteran", "trained"], SKILLS)
    assert TO_BE_HIT[mixed] == 3 and SKILL_TEST[mixed] == 4


def test_worst_refuses_unknown_or_no_ratings() -> None:
    with pytest.raises(ValueError, match="ratings"):
        worst([], SKILLS)
    with pytest.raises(ValueError, match=r"ratings: \['elite'\]"):
        worst(["elite", "veteran"], SKILLS)
    with pytest.raises(ValueError, match="ratings"):
        worst(["fearless"], SKILLS)  # a motivation is not a skill


# -- roll-off (p. 21) ----------------------------------------------------------


def test_roll_off_four_to_six_keeps_your_reading() -> None:
    assert [roll_off(f) for f in range(1, 7)] == [False] * 3 + [True] * 3


# -- bad input ----------------------------------------------------------------


@pytest.mark.parametrize("face", [0, 7, -1])
def test_faces_must_be_one_to_six(face: int) -> None:
    with pytest.raises(ValueError, match="face must be a d6 face"):
        passes(face, 3)
    with pytest.raises(ValueError, match=r"faces\[0\]"):
        resolve_test([face], 3, reroll=False)


@pytest.mark.parametrize("bad", [3.0, "3", None, True])
def test_scores_must_be_integers(bad: object) -> None:
    with pytest.raises(ValueError, match="score must be an integer"):
        p_success(bad)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="base must be an integer"):
        needed(bad)  # type: ignore[arg-type]


def test_modifiers_cannot_be_negative_and_halves_need_a_count() -> None:
    with pytest.raises(ValueError, match="modifiers must be at least 0"):
        needed(3, -1)
    with pytest.raises(ValueError, match="n must be at least 0"):
        up_to_half(-2)
    with pytest.raises(ValueError, match="n must be an integer"):
        at_least_half(2.5)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="faces must hold"):
        resolve_test([], 3, reroll=True)


def test_numpy_faces_are_accepted() -> None:
    faces = np.random.default_rng(3).integers(1, 7, size=2)
    t = resolve_test(list(faces[:1]), 1, reroll=True)
    assert t.passed and isinstance(t.faces[0], int)
    assert passes(np.int64(4), np.int64(4))  # type: ignore[arg-type]


def test_the_package_re_exports_the_dice_api() -> None:
    assert fow.needed is needed and fow.resolve_test is resolve_test
    assert fow.TO_BE_HIT is TO_BE_HIT


# -- worked examples (research/fow.md §8) -------------------------------------


def test_E4_counterattack_one_die_for_all_platoons() -> None:
    """One die for every defending platoon against its own Motivation; a re-roll is
    a second die for the platoons that failed the first (research §4, §8 E4)."""
    platoons = {m: MOTIVATION_TEST[m] for m in MOTIVATIONS}

    def who_passes(faces: list[int], reroll: bool) -> set[str]:
        out = set()
        for name, score in platoons.items():
            used = faces[: faces_needed(faces[0], score, reroll=reroll)]
            if resolve_test(used, score, reroll=reroll).passed:
                out.add(name)
        return out

    assert who_passes([4], False) == {"fearless", "confident"}
    assert who_passes([3], False) == {"fearless"}
    assert who_passes([5], False) == who_passes([6], False) == set(MOTIVATIONS)
    assert who_passes([2], False) == set()
    # the second die applies only to the platoons that failed the first
    assert who_passes([3, 5], True) == set(MOTIVATIONS)
    assert who_passes([4, 3], True) == {"fearless", "confident"}

    # the one shared die makes the results depend on each other
    def p_all_pass(reroll: bool) -> Fraction:
        total = Fraction(0)
        for first, second in product(range(1, 7), repeat=2):
            faces = [first, second] if reroll else [first]
            total += Fraction(1, 36) * (who_passes(faces, reroll) == set(MOTIVATIONS))
        return total

    assert p_all_pass(False) == Fraction(1, 3)  # = P(Reluctant passes)
    independent = Fraction(1)
    for score in platoons.values():
        independent *= p_success(score)
    assert independent == Fraction(1, 9) != p_all_pass(False)
    # with the re-roll: the Reluctant platoon passes 1/3 + 2/3 * 1/3 = 5/9
    assert p_all_pass(True) == Fraction(5, 9)


def test_E5_bogging_odds() -> None:
    """Difficult going bogs on a 1 (1/6), Overloaded on 1-2 (1/3); Very Difficult
    going bogs on a failed Skill test (research §2.1, §8 E5).  The going rules
    themselves live in ``going.py``; here only the numbers."""
    assert 1 - p_success(2) == Fraction(1, 6)
    assert 1 - p_success(3) == Fraction(1, 3)
    fail = {s: 1 - p_success(SKILL_TEST[s]) for s in SKILLS}
    assert fail == {
        "veteran": Fraction(1, 3),
        "trained": Fraction(1, 2),
        "conscript": Fraction(2, 3),
    }
