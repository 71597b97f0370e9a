"""The cheapest-path search of :meth:`~.board.WawBoard.reachable` on numbered hexes.

WaW 5.0 movement: a unit spends movement points hex by hex, at the costs of the
terrain chart (:meth:`~.board.WawBoard.move_cost`), and boarding a ferry ends
its move.  :meth:`~.board.WawBoard.reachable` asks this module for the cheapest
paths within the unit's MP.  The hexes are numbered by the order of their
labels (:class:`Ranks`), so that the search compares and stores small ints in
lists where it compared labels in dicts: the same heap order (equal costs go by
label), the same tie-breaks (an equal cost keeps the predecessor first in label
order), so the same paths, settled in the same order.

Examples:
    >>> ranks = Ranks(("B", "A", "C"))
    >>> ranks.names, ranks.id_of["B"]
    (('A', 'B', 'C'), 1)
    >>> adj = ranks.adjacency({"A": (("B", 1.0),), "B": (("A", 1.0), ("C", 2.0)),
    ...                        "C": (("B", 2.0),)})
    >>> p = cheapest(ranks, adj, "A", 3.0, (), frozenset())
    >>> list(p), p["C"]
    (['A', 'B', 'C'], (3.0, ('A', 'B', 'C')))
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Iterable, Iterator, Mapping, Sequence

import numpy as np

__all__ = ["RankedPaths", "Ranks", "cheapest"]

_INF = math.inf


class Ranks:
    """The hexes of a board numbered by label order (``names[k]`` has number k)."""

    __slots__ = ("id_of", "names")

    def __init__(self, labels: Iterable[str]) -> None:
        self.names: tuple[str, ...] = tuple(sorted(labels))
        self.id_of: dict[str, int] = {h: k for k, h in enumerate(self.names)}

    def adjacency(
        self, steps: Mapping[str, Sequence[tuple[str, float]]]
    ) -> list[tuple[tuple[int, float], ...]]:
        """``steps`` (hex -> its enterable neighbours with their MP, in
        neighbour order) by number, the neighbours in the same order."""
        id_of = self.id_of
        return [tuple((id_of[nb], c) for nb, c in steps.get(h, ())) for h in self.names]


class RankedPaths(Mapping[str, tuple[float, tuple[str, ...]]]):
    """``hex -> (cost, path)`` of :func:`cheapest`: labels in, labels out; paths
    built on demand."""

    __slots__ = ("_dist", "_ids", "_order", "_paths", "_prev", "_ranks", "_start")

    def __init__(
        self,
        ranks: Ranks,
        start: int,
        order: list[int],
        dist: list[float],
        prev: list[int],
    ) -> None:
        self._ranks = ranks
        self._start = start
        self._order = order
        self._dist = dist
        self._prev = prev
        self._paths: dict[int, tuple[str, ...]] = {start: (ranks.names[start],)}
        self._ids: np.ndarray | None = None

    @property
    def ranks(self) -> Ranks:
        """The numbering of the hexes."""
        return self._ranks

    def ids(self) -> np.ndarray:
        """The numbers of the hexes reached, in the order they were settled
        (the iteration order), as a numpy array (built once)."""
        hit = self._ids
        if hit is None:
            hit = self._ids = np.array(self._order, dtype=np.intp)
        return hit

    def __getitem__(self, h: str) -> tuple[float, tuple[str, ...]]:
        k = self._ranks.id_of.get(h)
        if k is None or self._dist[k] == _INF:
            raise KeyError(h)
        return self._dist[k], self._path(k)

    def _path(self, k: int) -> tuple[str, ...]:
        hit = self._paths.get(k)
        if hit is None:
            hit = (*self._path(self._prev[k]), self._ranks.names[k])
            self._paths[k] = hit
        return hit

    def __contains__(self, h: object) -> bool:
        k = self._ranks.id_of.get(h) if isinstance(h, str) else None
        return k is not None and self._dist[k] != _INF

    def __iter__(self) -> Iterator[str]:
        return map(self._ranks.names.__getitem__, self._order)

    def __len__(self) -> int:
        return len(self._order)


def cheapest(
    ranks: Ranks,
    adj: Sequence[tuple[tuple[int, float], ...]],
    start: str,
    mp: float,
    blocked: Iterable[str],
    ferry: frozenset[int],
) -> RankedPaths:
    """Cheapest paths from ``start`` within ``mp`` (Dijkstra; WaW 5.0).

    ``adj`` is :meth:`Ranks.adjacency` of the unit's step costs, ``blocked``
    the hexes it may not enter, ``ferry`` the numbers of the ferry water hexes
    (boarding one from land ends the move).  Equal costs are settled in label
    order and keep the predecessor first in label order.
    """
    id_of = ranks.id_of
    n = len(ranks.names)
    s = id_of[start]
    dist = [_INF] * n
    prev = [-1] * n
    closed = bytearray(n)  # settled hexes, and the blocked ones (never entered)
    for h in blocked:
        k = id_of.get(h)
        if k is not None:
            closed[k] = 1
    closed[s] = 0
    dist[s] = 0.0
    heap: list[tuple[float, int]] = [(0.0, s)]
    order: list[int] = []
    pop, push = heapq.heappop, heapq.heappush
    while heap:
        cost, here = pop(heap)
        if closed[here]:
            continue
        closed[here] = 1
        order.append(here)
        if here != s and here in ferry and prev[here] not in ferry:
            continue  # boarding a ferry ends the move
        for nb, step in adj[here]:
            if closed[nb]:
                continue
            c = cost + step
            if c > mp:
                continue
            old = dist[nb]
            if c < old or (c == old and here < prev[nb]):
                dist[nb] = c
                prev[nb] = here
                push(heap, (c, nb))
    return RankedPaths(ranks, s, order, dist, prev)
