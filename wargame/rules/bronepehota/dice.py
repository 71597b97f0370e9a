"""Dice of Бронепехота (official rules 05.08.08): notation, faces, exact sums.

The rules, in our own words, with their sources:

* The game uses six-, twelve- and twenty-sided dice, written Д6, Д12, Д20.
  Seed 002 §1.7; official text §1.7 (``official_rules.md``).
* "Д12 + 2" is one twelve-sided die with 2 added to the face.  §1.7.
* "6 Д20" is six twenty-sided dice thrown at once (or one die six times), each
  face compared on its own with what the rule asks.  §1.7.
* The armlists print range as one die with an optional bonus ("Д6+2", "Д20") and
  power as a count of dice without bonus ("1Д12", "2Д6", "4Д20"); no bonus on
  power dice appears anywhere in the 2008 material (research/bronepehota.md §2.3).

Notation accepted by :func:`parse_dice`: an optional count, the letter Д
(Cyrillic, either case) or D (Latin, either case), the sides (6, 12 or 20), and
an optional ``+N``; spaces are ignored ("6 Д20", "Д12 + 2", "2D12").  Anything
else raises :class:`DiceNotationError` naming the string.

Nothing here draws random numbers: callers roll faces through the game's logged
generator and pass them in.

Examples:
    >>> parse_dice("Д6+2")
    Dice(count=1, sides=6, bonus=2)
    >>> parse_dice("2D12").pmf()[13]
    Fraction(1, 12)
    >>> str(parse_dice("6 Д20"))
    '6Д20'
"""

from __future__ import annotations

import numbers
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Final

__all__ = [
    "SIDES",
    "Dice",
    "DiceNotationError",
    "as_dice",
    "best_of_two_pmf",
    "check_face",
    "die_pmf",
    "parse_dice",
]

#: The dice of the game (§1.7): six-, twelve- and twenty-sided.
SIDES: Final = (6, 12, 20)

_NOTATION = re.compile(r"^(\d*)[ДдDd](\d+)(?:\+(\d+))?$")


class DiceNotationError(ValueError):
    """A dice expression that does not parse ("Д7", "2Д", "Д6-1")."""


def _int(name: str, value: object, minimum: int | None = None) -> int:
    """``value`` as an int (Python or numpy integer, not bool), or ValueError."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise ValueError(f"{name} must be an integer, got {value!r}")
    out = int(value)
    if minimum is not None and out < minimum:
        raise ValueError(f"{name} must be at least {minimum}, got {out}")
    return out


def check_face(name: str, face: object, sides: int) -> int:
    """``face`` as an int 1..``sides``, or ValueError naming ``name``.

    Examples:
        >>> check_face("range face", 12, 12)
        12
        >>> check_face("range face", 7, 6)
        Traceback (most recent call last):
        ...
        ValueError: range face must be a Д6 face 1..6, got 7
    """
    f = _int(name, face)
    if not 1 <= f <= sides:
        raise ValueError(f"{name} must be a Д{sides} face 1..{sides}, got {f}")
    return f


@dataclass(frozen=True)
class Dice:
    """A dice expression: ``count`` dice of ``sides`` sides, ``bonus`` added.

    ``bonus`` is added once to the sum (§1.7: "Д12 + 2" adds 2 to the one face);
    the armlists only put a bonus on single range dice.
    """

    count: int
    sides: int
    bonus: int = 0

    def __post_init__(self) -> None:
        _int("count", self.count, 1)
        _int("bonus", self.bonus, 0)
        if self.sides not in SIDES:
            raise DiceNotationError(
                f"dice must have 6, 12 or 20 sides (§1.7), got {self.sides}"
            )

    def __str__(self) -> str:
        """The armlists' way of writing it: ``Д6+2``, ``2Д12``.

        >>> str(Dice(1, 6, 2)), str(Dice(2, 12))
        ('Д6+2', '2Д12')
        """
        head = f"Д{self.sides}" if self.count == 1 else f"{self.count}Д{self.sides}"
        return head + (f"+{self.bonus}" if self.bonus else "")

    def faces(self, faces: Sequence[int], name: str = "faces") -> tuple[int, ...]:
        """Check that ``faces`` are exactly ``count`` faces of this die.

        Raises:
            ValueError: wrong number of faces, or a face outside 1..sides.

        Examples:
            >>> parse_dice("2Д6").faces([1, 6])
            (1, 6)
            >>> parse_dice("2Д6").faces([3])
            Traceback (most recent call last):
            ...
            ValueError: faces: 2Д6 needs 2 face(s), got 1
        """
        got = tuple(faces)
        if len(got) != self.count:
            raise ValueError(
                f"{name}: {self} needs {self.count} face(s), got {len(got)}"
            )
        return tuple(
            check_face(f"{name}[{i}]", f, self.sides) for i, f in enumerate(got)
        )

    def total(self, faces: Sequence[int]) -> int:
        """Sum of the faces plus the bonus (§1.7).

        >>> parse_dice("Д6+2").total([2])  # §7.4 I: 2 + 2 = 4
        4
        """
        return sum(self.faces(faces)) + self.bonus

    def pmf(self) -> Mapping[int, Fraction]:
        """Exact distribution of :meth:`total`: value -> probability.

        >>> d = parse_dice("Д6+1").pmf()
        >>> min(d), max(d), d[4]
        (2, 7, Fraction(1, 6))
        >>> sum(parse_dice("3Д20").pmf().values())
        Fraction(1, 1)
        """
        dist: dict[int, Fraction] = {self.bonus: Fraction(1)}
        one = die_pmf(self.sides)
        for _ in range(self.count):
            nxt: dict[int, Fraction] = {}
            for value, p in dist.items():
                for face, q in one.items():
                    nxt[value + face] = nxt.get(value + face, Fraction(0)) + p * q
            dist = nxt
        return dict(sorted(dist.items()))


def die_pmf(sides: int) -> Mapping[int, Fraction]:
    """One fair die: each face 1..``sides`` with probability 1/``sides``.

    >>> die_pmf(6)[3]
    Fraction(1, 6)
    """
    if sides not in SIDES:
        raise DiceNotationError(f"dice must have 6, 12 or 20 sides (§1.7), got {sides}")
    return {f: Fraction(1, sides) for f in range(1, sides + 1)}


def best_of_two_pmf(sides: int) -> Mapping[int, Fraction]:
    """The higher of two rolls of one die (the surprise attack, §8.3).

    P(max = f) = (2f - 1) / sides².

    >>> best_of_two_pmf(6)[6], best_of_two_pmf(6)[1]
    (Fraction(11, 36), Fraction(1, 36))
    """
    die_pmf(sides)  # validates
    return {f: Fraction(2 * f - 1, sides * sides) for f in range(1, sides + 1)}


def parse_dice(text: str) -> Dice:
    """Parse a dice expression as the armlists write it (Д or D, count, +bonus).

    Raises:
        DiceNotationError: the string does not parse, or names a die the game
            does not use (only Д6, Д12, Д20, §1.7).

    Examples:
        >>> parse_dice("Д20"), parse_dice("2д6"), parse_dice("Д12 + 2")
        (Dice(count=1, sides=20, bonus=0), Dice(count=2, sides=6, bonus=0), \
Dice(count=1, sides=12, bonus=2))
        >>> parse_dice("Д7")
        Traceback (most recent call last):
        ...
        wargame.rules.bronepehota.dice.DiceNotationError: 'Д7': dice must have 6, 12 or 20 sides (§1.7), got 7
        >>> parse_dice("2Д")
        Traceback (most recent call last):
        ...
        wargame.rules.bronepehota.dice.DiceNotationError: '2Д': not dice notation; write e.g. 'Д6', '2Д12', 'Д6+2' (or Latin 'D')
    """  # noqa: E501
    if not isinstance(text, str):
        raise DiceNotationError(f"{text!r}: dice notation must be a string")
    compact = re.sub(r"\s+", "", text)
    m = _NOTATION.match(compact)
    if m is None:
        raise DiceNotationError(
            f"{text!r}: not dice notation; write e.g. 'Д6', '2Д12', 'Д6+2' "
            "(or Latin 'D')"
        )
    count = int(m.group(1)) if m.group(1) else 1
    sides = int(m.group(2))
    bonus = int(m.group(3)) if m.group(3) else 0
    if count < 1:
        raise DiceNotationError(f"{text!r}: at least one die, got {count}")
    try:
        return Dice(count, sides, bonus)
    except DiceNotationError as exc:
        raise DiceNotationError(f"{text!r}: {exc}") from None


def as_dice(value: str | Dice, name: str = "dice") -> Dice:
    """A :class:`Dice` from notation or a :class:`Dice` (passed through).

    >>> as_dice("D6+1") == as_dice(Dice(1, 6, 1))
    True
    """
    if isinstance(value, Dice):
        return value
    if isinstance(value, str):
        return _parsed(value)
    raise DiceNotationError(f"{name}: {value!r} is not dice notation or Dice")


@lru_cache(maxsize=1024)
def _parsed(text: str) -> Dice:
    """:func:`parse_dice`, remembered (a :class:`Dice` is immutable; bad
    notation raises every time, as it is not remembered; issue 23)."""
    return parse_dice(text)
