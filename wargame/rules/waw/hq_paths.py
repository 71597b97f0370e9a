"""World at War HQ independent moves: the path is the player's.

WaW HQ movement (seed 000): an HQ moving on its own from one friendly stack to
another rolls a d6 afterwards, with -1 if its path crossed enemy LOS and weapon
range in cover and -2 if in the open (each once, only the hexes between start
and end count).  So the path matters: :func:`safest_paths` finds the least
exposed paths within the HQ's movement points, :func:`path_penalty` scores a
path and :func:`hq_move_odds` gives the exact odds of the roll along it (the
same rule code as the dice, :func:`~.command.hq_move_check`, on every face).

Examples:
    >>> from wargame.rules.waw.command import Exposure
    >>> seen = {"B": Exposure.OPEN}.get
    >>> path_penalty(("A", "B", "C"), lambda h: seen(h, Exposure.NONE))
    2
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass

from ._common import _word
from .combat import FRESH, UnitState
from .command import Exposure, hq_move_check
from .dice import FixedDice

__all__ = [
    "HQMoveOdds",
    "hq_move_odds",
    "path_penalty",
    "path_problem",
    "safest_paths",
    "safest_paths_numbered",
]

#: The bit of each exposure in a path's exposure flags.
_BIT = {Exposure.NONE: 0, Exposure.COVER: 1, Exposure.OPEN: 2}
#: WaW HQ movement (b), (c): the roll's penalty per set of flags: 1 for cover,
#: 2 for the open, each once (ASSUMPTION 12: both together, 3).
_PENALTY = (0, 1, 2, 3)


def path_penalty(path: Sequence[str], exposure: Callable[[str], Exposure]) -> int:
    """What the roll loses for a path (start and end hexes included): 0 to 3.

    WaW HQ movement (d): only the hexes between start and end count.
    """
    flags = 0
    for h in path[1:-1]:
        flags |= _BIT[exposure(h)]
    return _PENALTY[flags]


def path_problem(
    name: str,
    start: str,
    to: str,
    path: object,
    *,
    mp: float,
    neighbors: Mapping[str, Sequence[str]],
    enter_cost: Callable[[str, str], float],
    blocked: Iterable[str] = (),
    ends_move: Callable[[str, str], bool] = lambda _a, _b: False,
    terrain_text: Callable[[str], str] = str,
) -> str | None:
    """Why an HQ's path is not legal (``None``: it is).

    ``path`` holds the hexes from the first step to ``to`` (included), as
    :class:`~.actions.MoveHQ` takes it.  WaW HQ movement: the HQ follows the
    movement rules of 5.0 - hex by hex, each hex enterable (terrain and
    crossing costs, rivers only at bridges and ferries, boarding a ferry ends
    the move), no enemy-held hex, within its movement points - to ``to``.
    ASSUMPTION 31: a path enters each hex once (the start hex too).

    Examples:
        >>> nbs = {"S": ("A",), "A": ("S", "E"), "E": ("A",)}
        >>> path_problem("HQ", "S", "E", ("A", "E"), mp=2, neighbors=nbs,
        ...              enter_cost=lambda a, b: 1.0) is None
        True
        >>> path_problem("HQ", "S", "E", ("E",), mp=2, neighbors=nbs,
        ...              enter_cost=lambda a, b: 1.0)
        "E is not adjacent to S: HQ's path goes hex by hex (WaW HQ movement / 5.0)"
    """
    rule = "(WaW HQ movement / 5.0)"
    if not isinstance(path, tuple) or not path:
        what = "is empty" if isinstance(path, tuple) else f"is {path!r}"
        return (
            f"{name}'s path {what}: give the hexes from its first step to {to}, "
            f"or no path for the cheapest {rule}"
        )
    for h in path:
        if not isinstance(h, str) or h not in neighbors:
            return f"{name}'s path names {h!r}, not a hex of the map {rule}"
    if path[-1] != to:
        return f"{name}'s path ends at {path[-1]}, not at its destination {to} {rule}"
    enemy = frozenset(blocked)
    seen = {start}
    total = 0.0
    here = start
    for i, h in enumerate(path):
        if h not in neighbors[here]:
            return (
                f"{h} is not adjacent to {here}: {name}'s path goes hex by hex {rule}"
            )
        if h in seen:
            return f"{name}'s path enters {h} twice {rule}"
        seen.add(h)
        if h in enemy:
            return f"{h} holds enemy units: {name} may not move through it {rule}"
        cost = enter_cost(here, h)
        if cost == math.inf:
            return f"{name} cannot enter {h} ({terrain_text(h)}) {rule}"
        total += cost
        if total > mp:
            return f"{name} has {mp:g} MP left; its path costs {total:g} by {h} {rule}"
        if i < len(path) - 1 and ends_move(here, h):
            return f"{name} boards the ferry at {h}: its move ends there {rule}"
        here = h
    return None


def safest_paths(
    start: str,
    mp: float,
    neighbors: Mapping[str, Sequence[str]],
    enter_cost: Callable[[str, str], float],
    exposure: Callable[[str], Exposure],
    *,
    blocked: Iterable[str] = (),
    ends_move: Callable[[str, str], bool] = lambda _a, _b: False,
    steps: Mapping[str, Sequence[tuple[str, float]]] | None = None,
    below: int = 4,
) -> dict[str, tuple[int, float, tuple[str, ...]]]:
    """The least exposed path to every hex within ``mp``: ``hex -> (penalty,
    MP, path)``, the path from ``start`` (included) to the hex.

    A Dijkstra by MP on (hex, exposure met so far), so each hex keeps the
    least penalty, then the fewest MP, then the first path in label order.

    Args:
        start: the HQ's hex.
        mp: movement points left.
        neighbors: adjacent hexes of every hex.
        enter_cost: MP to step from a hex into an adjacent one (``inf``: not
            enterable).
        exposure: the exposure of a hex (enemy LOS and range, cover or not).
        blocked: hexes that may not be entered (enemy-held).
        ends_move: ``(from, to)`` -> the step ends the move (boarding a ferry).
        steps: optionally, the same costs given per hex: its neighbours (in
            ``neighbors`` order) with ``enter_cost`` of each, the ones that
            cannot be entered left out (``WawBoard.steps``); then
            ``enter_cost`` is not called.
        below: only paths with a penalty below this are looked for (1 to 4;
            4, the default, finds them all).  The paths found are the same as
            the full search's: the exposure flags of a path only grow, a
            state's flags never read states with other flags except their
            subsets (the dominance test), and the penalty of a set of flags
            is the flags' value (0 to 3), so the states with flags below
            ``below`` are searched on their own, in the same order.  A hex
            whose best penalty is ``below`` or more is left out.

    Examples:
        >>> from wargame.rules.waw.command import Exposure
        >>> nbs = {"S": ("A", "B"), "A": ("S", "E"), "B": ("S", "E"), "E": ("A", "B")}
        >>> cost = {"A": 1.0, "B": 2.0, "E": 1.0}
        >>> seen = {"A": Exposure.OPEN}
        >>> out = safest_paths("S", 5, nbs, lambda a, b: cost.get(b, 1.0),
        ...                    lambda h: seen.get(h, Exposure.NONE))
        >>> out["E"]
        (0, 3.0, ('S', 'B', 'E'))
    """
    blocked_set = frozenset(blocked)
    best: dict[str, tuple[int, float, tuple[str, ...]]] = {}
    # (hex, flags) states, kept per flags: settled ones and the best (MP,
    # path) pushed so far
    dones: tuple[set[str], ...] = (set(), set(), set(), set())
    dists: tuple[dict[str, tuple[float, tuple[str, ...]]], ...] = ({}, {}, {}, {})
    heap: list[tuple[float, tuple[str, ...], int]] = [(0.0, (start,), 0)]
    settled: dict[str, list[tuple[int, float]]] = {}  # hex -> (flags, MP) popped
    # Each hex's enterable neighbours with their MP, asked of enter_cost once
    # per search (a step that costs more than mp is never taken).
    rows: dict[str, Sequence[tuple[str, float]]] = {}
    finite = mp != math.inf
    pop, push = heapq.heappop, heapq.heappush
    while heap:
        cost, path, flags = pop(heap)
        here = path[-1]
        done = dones[flags]
        if here in done:
            continue
        done.add(here)
        before = settled.get(here)
        if before is None:
            settled[here] = [(flags, cost)]
        else:
            # reached before for less MP with less exposure: dominated
            dominated = False
            for f, c in before:
                if f | flags == flags and c < cost:
                    dominated = True
                    break
            if dominated:
                continue
            before.append((flags, cost))
        if here != start:
            got = (_PENALTY[flags], cost, path)
            old = best.get(here)
            if old is None or got < old:
                best[here] = got
            if ends_move(path[-2], here):
                continue
            # WaW HQ movement (d): a hex counts once the path goes on from it.
            flags |= _BIT[exposure(here)]
            if flags >= below:
                continue  # every path on from here has a penalty of flags
        row = steps[here] if steps is not None else rows.get(here)
        if row is None:
            row = tuple(
                (nb, step)
                for nb in neighbors[here]
                if (step := enter_cost(here, nb)) <= mp or not finite
            )
            rows[here] = row
        done, dist = dones[flags], dists[flags]
        for nb, step in row:
            c = cost + step
            if c > mp or nb in blocked_set or nb in done or nb in path:
                continue
            old_d = dist.get(nb)
            if old_d is not None and c > old_d[0]:
                continue  # (c, path) would not be less than old_d
            nxt = (*path, nb)
            if old_d is None or (c, nxt) < old_d:
                dist[nb] = (c, nxt)
                push(heap, (c, nxt, flags))
    return best


def safest_paths_numbered(
    names: Sequence[str],
    id_of: Mapping[str, int],
    adj: Sequence[Sequence[tuple[int, float]]],
    start: str,
    mp: float,
    exposure: Callable[[str], Exposure],
    *,
    blocked: Iterable[str] = (),
    ferry: frozenset[int] = frozenset(),
    below: int = 4,
) -> Mapping[str, tuple[int, float, tuple[str, ...]]]:
    """:func:`safest_paths` on hexes numbered in label order (the same answers).

    ``names[k]`` is the hex numbered k (labels sorted), ``id_of`` its inverse,
    ``adj`` the enterable neighbours of each hex with their MP by number, in
    neighbour order (:meth:`~.board.WawBoard.steps` numbered), ``ferry`` the
    numbers of the ferry water hexes: a step from a hex not in it into one in
    it boards the ferry and ends the move.  Paths are kept as tuples of
    numbers, which compare as the tuples of labels do, so the heap order and
    every tie-break are those of :func:`safest_paths`.

    Examples:
        >>> from wargame.rules.waw.command import Exposure
        >>> names = ("A", "B", "E", "S")
        >>> id_of = {h: k for k, h in enumerate(names)}
        >>> adj = [((2, 1.0), (3, 1.0)), ((2, 1.0), (3, 2.0)),
        ...        ((0, 1.0), (1, 2.0)), ((0, 1.0), (1, 2.0))]
        >>> seen = {"A": Exposure.OPEN}
        >>> out = safest_paths_numbered(names, id_of, adj, "S", 5,
        ...                             lambda h: seen.get(h, Exposure.NONE))
        >>> out["E"]
        (0, 3.0, ('S', 'B', 'E'))
    """
    blocked_set = frozenset(id_of[h] for h in blocked if h in id_of)
    s0 = id_of[start]
    best: dict[int, tuple[int, float, tuple[int, ...]]] = {}
    dones: tuple[set[int], ...] = (set(), set(), set(), set())
    dists: tuple[dict[int, tuple[float, tuple[int, ...]]], ...] = ({}, {}, {}, {})
    heap: list[tuple[float, tuple[int, ...], int]] = [(0.0, (s0,), 0)]
    settled: dict[int, list[tuple[int, float]]] = {}
    bits: dict[int, int] = {}
    pop, push = heapq.heappop, heapq.heappush
    while heap:
        cost, path, flags = pop(heap)
        here = path[-1]
        done = dones[flags]
        if here in done:
            continue
        done.add(here)
        before = settled.get(here)
        if before is None:
            settled[here] = [(flags, cost)]
        else:
            dominated = False
            for f, c in before:
                if f | flags == flags and c < cost:
                    dominated = True
                    break
            if dominated:
                continue
            before.append((flags, cost))
        if here != s0:
            got = (_PENALTY[flags], cost, path)
            old = best.get(here)
            if old is None or got < old:
                best[here] = got
            if here in ferry and path[-2] not in ferry:
                continue  # boarding the ferry ends the move
            # WaW HQ movement (d): a hex counts once the path goes on from it.
            bit = bits.get(here)
            if bit is None:
                bit = bits[here] = _BIT[exposure(names[here])]
            flags |= bit
            if flags >= below:
                continue
        done, dist = dones[flags], dists[flags]
        for nb, step in adj[here]:
            c = cost + step
            if c > mp or nb in blocked_set or nb in done or nb in path:
                continue
            old_d = dist.get(nb)
            if old_d is not None and c > old_d[0]:
                continue
            nxt = (*path, nb)
            if old_d is None or (c, nxt) < old_d:
                dist[nb] = (c, nxt)
                push(heap, (c, nxt, flags))
    return _NumberedBest(names, id_of, best)


class _NumberedBest(Mapping[str, tuple[int, float, tuple[str, ...]]]):
    """The answer of :func:`safest_paths_numbered`: hex -> (penalty, MP, path),
    the path turned into labels when asked for."""

    __slots__ = ("_best", "_id_of", "_names")

    def __init__(
        self,
        names: Sequence[str],
        id_of: Mapping[str, int],
        best: dict[int, tuple[int, float, tuple[int, ...]]],
    ) -> None:
        self._names = names
        self._id_of = id_of
        self._best = best

    def __getitem__(self, h: str) -> tuple[int, float, tuple[str, ...]]:
        k = self._id_of.get(h)
        got = None if k is None else self._best.get(k)
        if got is None:
            raise KeyError(h)
        names = self._names
        return got[0], got[1], tuple(names[i] for i in got[2])

    def __iter__(self) -> Iterator[str]:
        return (self._names[k] for k in self._best)

    def __len__(self) -> int:
        return len(self._best)


@dataclass(frozen=True)
class HQMoveOdds:
    """An HQ's independent move as it would go: path, MP, the roll's odds.

    Attributes:
        path: the hexes from the start (included) to the destination.
        mp: its movement cost.
        modifiers: (reason, modifier) pairs of the risk roll.
        odds: result -> probability (``"no effect"``, ``"reduced"`` or
            ``"destroyed"``), summing to 1.
    """

    path: tuple[str, ...]
    mp: float
    modifiers: tuple[tuple[str, int], ...]
    odds: dict[str, float]

    @property
    def loss(self) -> float:
        """The chance that the HQ loses a step."""
        return 1.0 - self.odds.get("no effect", 0.0)


def hq_move_odds(
    path: Sequence[str],
    mp: float,
    *,
    start_end_adjacent: bool,
    exposure: Callable[[str], Exposure],
    hq_state: UnitState = FRESH,
) -> HQMoveOdds:
    """Exact odds of the risk roll of an HQ moving on its own along ``path``.

    :func:`~.command.hq_move_check` itself is rolled on each face of the d6.

    Examples:
        >>> from wargame.rules.waw.command import Exposure
        >>> seen = {"M17": Exposure.OPEN}.get
        >>> o = hq_move_odds(("N17", "M17", "L17"), 2.0, start_end_adjacent=False,
        ...                  exposure=lambda h: seen(h, Exposure.NONE))
        >>> o.modifiers, round(o.loss, 3)
        ((('crossed enemy LOS in the open', -2),), 0.667)
    """
    expo = [exposure(h) for h in path]
    odds: dict[str, float] = {}
    mods: tuple[tuple[str, int], ...] = ()
    for face in range(1, 7):
        chk = hq_move_check(
            FixedDice([face]),
            start_end_adjacent=start_end_adjacent,
            path_exposure=expo,
            hq_state=hq_state,
        )
        mods = chk.modifiers
        word = _word(chk.before, chk.after)
        odds[word] = odds.get(word, 0.0) + 1 / 6
    return HQMoveOdds(tuple(path), float(mp), mods, odds)
