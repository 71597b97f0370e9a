"""Dice for World at War: every roll is a group of d6 drawn from a numpy Generator.

The rules never touch global randomness; each function takes a
:class:`numpy.random.Generator` (the game owns it).  One die is one uniform draw
``u`` from ``rng.random``, read as face ``floor(6 * u) + 1`` (several times cheaper
than ``rng.integers`` per call, which matters for Monte Carlo studies).

:class:`FixedDice` is a Generator that hands out given faces instead, for rulebook
examples, replays of a logged game and tests.

Examples:
    >>> import numpy as np
    >>> roll_d6(np.random.default_rng(1), 3)
    (4, 6, 1)
    >>> roll_d6(FixedDice([6, 1]), 2)
    (6, 1)
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

__all__ = ["DiceExhaustedError", "FixedDice", "roll_d6"]


def roll_d6(rng: np.random.Generator, n: int) -> tuple[int, ...]:
    """Roll ``n`` six-sided dice and return the faces in the order rolled.

    Args:
        rng: the game's random generator (or :class:`FixedDice`).
        n: how many dice; 0 rolls nothing and draws nothing from ``rng``.

    Returns:
        The faces, each 1..6.

    Examples:
        >>> roll_d6(FixedDice([2, 5]), 2)
        (2, 5)
        >>> roll_d6(FixedDice([]), 0)
        ()
    """
    if n < 0:
        raise ValueError(f"cannot roll a negative number of dice ({n})")
    if n == 0:
        return ()
    return tuple([int(u * 6.0) + 1 for u in rng.random(n).tolist()])


class DiceExhaustedError(RuntimeError):
    """A :class:`FixedDice` was asked for more faces than it was given."""


class FixedDice(np.random.Generator):
    """A Generator that hands out the given d6 faces, in order.

    Use it to replay the dice of a rulebook example or of a logged game.  Each
    scripted face is served as a uniform draw in the middle of its sixth of
    ``[0, 1)`` (what :func:`roll_d6` reads) or, from ``integers``, as itself.

    Args:
        faces: the faces (1..6) to hand out, in the order they will be rolled.

    Examples:
        >>> dice = FixedDice([4, 5, 6])
        >>> roll_d6(dice, 2), dice.remaining
        ((4, 5), 1)
    """

    def __init__(self, faces: Iterable[int]) -> None:
        super().__init__(np.random.PCG64(0))
        self._faces = [int(f) for f in faces]
        bad = [f for f in self._faces if not 1 <= f <= 6]
        if bad:
            raise ValueError(f"d6 faces must be 1..6, got {bad}")

    @property
    def remaining(self) -> int:
        """How many scripted faces have not been used yet."""
        return len(self._faces)

    def _take(self, size: int | tuple[int, ...] | None) -> list[int]:
        n = 1 if size is None else int(np.prod(size))
        if n > len(self._faces):
            raise DiceExhaustedError(
                f"FixedDice asked for {n} more face(s) but only {len(self._faces)} left"
            )
        out, self._faces = self._faces[:n], self._faces[n:]
        return out

    def random(  # type: ignore[override]
        self,
        size: int | tuple[int, ...] | None = None,
        dtype: Any = np.float64,
        out: Any = None,
    ) -> Any:
        """Next scripted faces as uniforms: face f -> (f - 0.5) / 6."""
        values = [(f - 0.5) / 6.0 for f in self._take(size)]
        if size is None:
            return values[0]
        return np.asarray(values, dtype=dtype).reshape(size)

    def integers(  # type: ignore[override]
        self,
        low: int,
        high: int | None = None,
        size: int | tuple[int, ...] | None = None,
        dtype: Any = np.int64,
        endpoint: bool = False,
    ) -> Any:
        """Next scripted faces, checked against ``[low, high)``."""
        if high is None:
            low, high = 0, low
        top = high if endpoint else high - 1
        faces = self._take(size)
        for face in faces:
            if not low <= face <= top:
                raise ValueError(f"scripted face {face} outside {low}..{top}")
        if size is None:
            return faces[0]
        return np.asarray(faces, dtype=dtype).reshape(size)
