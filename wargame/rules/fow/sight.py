"""Line of sight between teams, remembered (WYSIWYG look, seed 004 p. 20).

A team sees another if the physical line of sight from its point to the
other's is clear (:meth:`wargame.geo.maps.Map.los` with the point rule and
:data:`.shooting.SIGHT_MARGIN_IN`).  The answer depends only on the two points
and the two eye heights, and teams stand still between most decisions, so the
answers are kept: :meth:`Sight.sees` asks the map once per pair of points, and
:meth:`Sight.warm` asks it for many pairs at once with the compiled
:meth:`~wargame.geo.maps.Map.los_pairs` (the same answer pair by pair, tested
in ``tests/geo``).  Nothing about the rules changes: the same game gives the
same log with or without the memory.

Examples:
    >>> from wargame.geo.maps import load_map
    >>> m = load_map()
    >>> s = Sight(m, margin_m=50.0)
    >>> ley, erpel = m.place_xy("Erpeler Ley"), m.place_xy("Erpel")
    >>> s.sees(ley, erpel, 1.5, 1.5) == bool(
    ...     m.los(ley, erpel, 1.5, 1.5, hex_rule=False, margin_m=50.0).visible)
    True
    >>> s.warm([ley], [erpel, ley], 1.5, 1.5, max_range_m=5000)
    1
    >>> len(s)
    2
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

__all__ = ["Sight"]

Key = tuple[float, float, float, float, float, float]

#: Pairs remembered before the memory is emptied (a bound on its size: about
#: 30 MB; a game of the shipped scenarios asks for a few thousand).
MAX_PAIRS = 200_000


class Sight:
    """Remembered team-to-team line of sight on one map (module docstring)."""

    def __init__(self, game_map: Any, *, margin_m: float) -> None:
        self.map = game_map
        self.margin_m = float(margin_m)
        self._seen: dict[Key, bool] = {}

    def __len__(self) -> int:
        return len(self._seen)

    def _room(self, n: int) -> None:
        if len(self._seen) + n > MAX_PAIRS:
            self._seen.clear()

    def sees(
        self, a: tuple[float, float], b: tuple[float, float], eye: float, tgt: float
    ) -> bool:
        """Whether a team with its eye ``eye`` m up at ``a`` sees one ``tgt`` m
        tall at ``b``."""
        key = (a[0], a[1], b[0], b[1], eye, tgt)
        got = self._seen.get(key)
        if got is None:
            self._room(1)
            got = self._seen[key] = bool(
                self.map.los(
                    a,
                    b,
                    observer_height_m=eye,
                    target_height_m=tgt,
                    hex_rule=False,
                    margin_m=self.margin_m,
                ).visible
            )
        return got

    def warm(
        self,
        eyes: Sequence[tuple[float, float]],
        targets: Sequence[tuple[float, float]],
        eye: float,
        tgt: float,
        *,
        max_range_m: float,
    ) -> int:
        """Learn, in one compiled call, every pair of ``eyes`` x ``targets``
        within ``max_range_m`` not known yet; returns how many were new."""
        todo_a = sorted(set(eyes))
        todo_b = sorted(set(targets))
        new = [
            (i, j)
            for i, a in enumerate(todo_a)
            for j, b in enumerate(todo_b)
            if (a[0], a[1], b[0], b[1], eye, tgt) not in self._seen
            and (a[0] - b[0]) ** 2 + (a[1] - b[1]) ** 2 <= max_range_m**2
        ]
        if not new:
            return 0
        seen = self.map.los_pairs(
            np.asarray(todo_a, dtype=float),
            np.asarray(todo_b, dtype=float),
            observer_height_m=eye,
            target_height_m=tgt,
            max_range_m=max_range_m + 1.0,
            margin_m=self.margin_m,
        )
        self._room(len(new))
        for i, j in new:
            a, b = todo_a[i], todo_b[j]
            self._seen[(a[0], a[1], b[0], b[1], eye, tgt)] = bool(seen[i, j])
        return len(new)
