"""Dice for Flames of War, 3rd edition: N+ rolls, re-rolls, ratings, halves.

Summary of the rules, in our own words, with their sources:

* Every roll is one ordinary six-sided die.  A rule names the score a die needs
  ("3+" succeeds on 3, 4, 5 or 6); anything lower fails.  FoW v3 p. 20 (seed 004).
* Some situations (long range, a Concealed target ...) each add +1 to the score
  needed; the modifiers add up, so a 3+ becomes 5+ at long range against a target
  in woods.  FoW v3 p. 20 (seed 004).
* A score needed above 6 fails automatically.  FoW v3 p. 20 (seed 004).
* With several dice, each die is judged on its own.  FoW v3 p. 20 (seed 004).
* A re-roll ignores the first, failed result and rolls that die again; the second
  result stands, and only one re-roll is ever allowed.  FoW v3 p. 20 (seed 004).
* "Up to half" of an odd number of teams leaves the odd team out, "at least half"
  counts it in; both count the teams now in the platoon.  FoW v3 p. 20 (seed 004).
* A platoon whose teams have different Skill or Motivation ratings uses the worst
  of them.  FoW v3 p. 19-20 (seed 004, "Взводы с различными показателями").
* A dispute the rules do not settle: roll a die; on 4-6 your reading holds for the
  rest of the game, on 1-3 your opponent's.  FoW v3 p. 21 (seed 004).
* Rating numbers: to be hit (by the *target's* skill) Conscript 2+, Trained 3+,
  Veteran 4+; Skill tests Conscript 5+, Trained 4+, Veteran 3+; Motivation tests
  Reluctant 5+, Confident 4+, Fearless 3+.  research/fow.md §5 [A: S12, S3;
  B: S8 parts 4 and 16].

Nothing here draws random numbers: the functions take the faces the caller has
already rolled (the ruleset rolls through the game's logged generator).  The one
contract to know is how many faces a test uses, see :func:`faces_needed`.

Examples:
    >>> needed(TO_BE_HIT["trained"], 2)  # long range and Concealed
    5
    >>> resolve_test([2, 5], 4, reroll=True)
    Test(score=4, faces=(2, 5), passed=True)
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from types import MappingProxyType
from typing import Final

__all__ = [
    "MOTIVATIONS",
    "MOTIVATION_TEST",
    "SKILLS",
    "SKILL_TEST",
    "TO_BE_HIT",
    "Test",
    "at_least_half",
    "faces_needed",
    "needed",
    "p_success",
    "passes",
    "resolve_test",
    "roll_off",
    "roll_test",
    "up_to_half",
    "worst",
]

#: Skill ratings, worst first (research/fow.md §5).
SKILLS: Final = ("conscript", "trained", "veteran")
#: Motivation ratings, worst first (research/fow.md §5).
MOTIVATIONS: Final = ("reluctant", "confident", "fearless")

#: Score needed to hit a team, by the TARGET's skill; the shooter's skill does not
#: matter.  research/fow.md §3.2, §5 [A: S12, S3; B: S8 part 4].
TO_BE_HIT: Final[Mapping[str, int]] = MappingProxyType(
    {"conscript": 2, "trained": 3, "veteran": 4}
)
#: Score of a Skill test (assault hits, bogging in very difficult going, freeing a
#: bogged vehicle).  research/fow.md §5 [A: S12; B: S8 part 16].
SKILL_TEST: Final[Mapping[str, int]] = MappingProxyType(
    {"conscript": 5, "trained": 4, "veteran": 3}
)
#: Score of a Motivation test (rally, remount, counterattack, morale).
#: research/fow.md §5 [A-v2/v3: S12].
MOTIVATION_TEST: Final[Mapping[str, int]] = MappingProxyType(
    {"reluctant": 5, "confident": 4, "fearless": 3}
)


def _int(name: str, value: object, minimum: int | None = None) -> int:
    """``value`` as an int (Python or numpy integer, not bool), or ValueError."""
    if type(value) is int:  # the common case, without the slower ABC check
        out = value
    elif isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise ValueError(f"{name} must be an integer, got {value!r}")
    else:
        out = int(value)
    if minimum is not None and out < minimum:
        raise ValueError(f"{name} must be at least {minimum}, got {out}")
    return out


def _face(name: str, value: object) -> int:
    face = _int(name, value)
    if not 1 <= face <= 6:
        raise ValueError(f"{name} must be a d6 face 1..6, got {face}")
    return face


def needed(base: int, modifiers: int = 0) -> int:
    """The score needed after modifiers: each modifier adds +1, and they add up.

    FoW v3 p. 20 (seed 004).  The result may exceed 6; such a roll cannot succeed
    (see :func:`p_success`).

    Args:
        base: the unmodified score, e.g. ``TO_BE_HIT["trained"]`` (3).
        modifiers: how many modifiers apply (long range, Concealed, ...); >= 0.

    Examples:
        >>> needed(3, 2)  # p. 20: 3+ at long range in woods is 5+
        5
        >>> needed(TO_BE_HIT["veteran"], 3)  # research §8 E3: cannot be hit
        7
    """
    return _int("base", base, 1) + _int("modifiers", modifiers, 0)


def p_success(score: int) -> Fraction:
    """Exact chance that one die makes ``score``+.

    Above 6 it never succeeds (FoW v3 p. 20, seed 004); at 1 or less it always
    does; otherwise ``(7 - score) / 6``.

    Examples:
        >>> p_success(4), p_success(7), p_success(1)
        (Fraction(1, 2), Fraction(0, 1), Fraction(1, 1))
    """
    s = _int("score", score)
    if s > 6:
        return Fraction(0)
    if s <= 1:
        return Fraction(1)
    return Fraction(7 - s, 6)


def passes(face: int, score: int) -> bool:
    """Does the die ``face`` make ``score``+?  A score above 6 always fails (p. 20).

    Examples:
        >>> passes(3, 3), passes(2, 3), passes(6, 7)
        (True, False, False)
    """
    f = _face("face", face)
    s = _int("score", score)
    return s <= 6 and f >= s


def faces_needed(first: int, score: int, *, reroll: bool) -> int:
    """How many faces a test uses once its first die shows ``first``: 1 or 2.

    The contract for callers that roll: always roll one die; roll a second one
    only if this returns 2 (the first die failed and a re-roll is allowed), then
    pass all the faces to :func:`resolve_test`.  No re-roll is taken for a score
    above 6: it fails automatically whatever the die (p. 20, seed 004).

    Examples:
        >>> faces_needed(2, 4, reroll=True), faces_needed(5, 4, reroll=True)
        (2, 1)
        >>> faces_needed(2, 4, reroll=False), faces_needed(6, 7, reroll=True)
        (1, 1)
    """
    if reroll and not passes(first, score) and _int("score", score) <= 6:
        return 2
    return 1


@dataclass(frozen=True)
class Test:
    """The result of one N+ test: the score, the faces used in order, the result.

    ``faces`` holds one face, or two when the first failed and was re-rolled; the
    last face is the one that stands (p. 20, seed 004).
    """

    __test__ = False  # not a pytest test class

    score: int
    faces: tuple[int, ...]
    passed: bool

    @property
    def rerolled(self) -> bool:
        """True if the first die failed and was rolled again.

        Examples:
            >>> resolve_test([1, 6], 3, reroll=True).rerolled
            True
        """
        return len(self.faces) == 2

    @property
    def face(self) -> int:
        """The face that stands (the re-roll, if there was one).

        Examples:
            >>> resolve_test([1, 2], 3, reroll=True).face
            2
        """
        return self.faces[-1]


def resolve_test(faces: Sequence[int], score: int, *, reroll: bool) -> Test:
    """Resolve one ``score``+ test from the faces already rolled.

    ``faces`` must be exactly the faces the test uses: ``faces_needed(faces[0],
    score, reroll=reroll)`` of them.  A re-roll ignores the failed first die and
    the second result stands; there is at most one re-roll (p. 20, seed 004).

    Raises:
        ValueError: a face is not 1..6, or there are too few or too many faces.

    Examples:
        >>> resolve_test([4], 4, reroll=False).passed
        True
        >>> resolve_test([3, 2], 4, reroll=True)  # the second result stands
        Test(score=4, faces=(3, 2), passed=False)
        >>> resolve_test([6], 7, reroll=True).passed  # 7+: automatic failure
        False
    """
    got = tuple(_face(f"faces[{i}]", f) for i, f in enumerate(faces))
    s = _int("score", score)
    if not got:
        raise ValueError("faces must hold at least the first die, got none")
    want = faces_needed(got[0], s, reroll=reroll)
    if len(got) != want:
        raise ValueError(
            f"faces: this test uses {want} face(s) (first {got[0]}, score {s}+, "
            f"reroll={reroll}), got {len(got)}"
        )
    return Test(score=s, faces=got, passed=passes(got[-1], s))


def roll_test(roll: Callable[[], int], score: int, *, reroll: bool) -> Test:
    """Roll a test with ``roll()`` (one d6 face per call), calling it 1 or 2 times.

    A thin wrapper over :func:`faces_needed` and :func:`resolve_test` for callers
    that roll one die at a time through their own (logged) generator.

    Examples:
        >>> dice = iter([2, 6])
        >>> roll_test(lambda: next(dice), 4, reroll=True)
        Test(score=4, faces=(2, 6), passed=True)
    """
    faces = [roll()]
    if faces_needed(faces[0], score, reroll=reroll) == 2:
        faces.append(roll())
    return resolve_test(faces, score, reroll=reroll)


def up_to_half(n: int) -> int:
    """ "Up to half" of ``n`` teams: an odd team is left out (p. 20, seed 004).

    ``n`` is the number of teams in the platoon now.

    Examples:
        >>> up_to_half(5), up_to_half(4), up_to_half(1)
        (2, 2, 0)
    """
    return _int("n", n, 0) // 2


def at_least_half(n: int) -> int:
    """ "At least half" of ``n`` teams: an odd team counts in (p. 20, seed 004).

    Examples:
        >>> at_least_half(5), at_least_half(4), at_least_half(1)
        (3, 2, 1)
    """
    return math.ceil(_int("n", n, 0) / 2)


def worst(ratings: Iterable[str], order: Sequence[str]) -> str:
    """The worst of a mixed platoon's ratings (FoW v3 p. 19-20, seed 004).

    Args:
        ratings: the ratings of the platoon's teams (e.g. a joined commander's).
        order: every rating, worst first: :data:`SKILLS` or :data:`MOTIVATIONS`.

    Raises:
        ValueError: no ratings, or a rating not in ``order``.

    Examples:
        >>> worst(["veteran", "trained", "veteran"], SKILLS)
        'trained'
        >>> worst(["fearless", "reluctant"], MOTIVATIONS)
        'reluctant'
    """
    given = list(ratings)
    if not given:
        raise ValueError("ratings must name at least one rating, got none")
    unknown = sorted({r for r in given if r not in order})
    if unknown:
        raise ValueError(f"ratings: {unknown} not in order {tuple(order)}")
    return min(given, key=list(order).index)


def roll_off(face: int) -> bool:
    """A dispute roll-off: True if your reading of the rule holds (4, 5 or 6).

    On 1-3 your opponent's reading is used for the rest of the game.  FoW v3
    p. 21 (seed 004, "Решение спорных ситуаций").

    Examples:
        >>> roll_off(4), roll_off(3)
        (True, False)
    """
    return passes(face, 4)
