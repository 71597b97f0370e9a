"""Reading the ground for the Conflict of Heroes players: AP cost to a goal,
and which hexes the seen enemy covers with fire.

Both are what a player reads off the map and the counters he sees: the cost
field uses the board's terrain and hill costs (CoH 2e §5.0, §11.0-11.1), the
exposure only the enemy units in the deciding side's view.

Example:
    >>> from wargame.engine import Game
    >>> g = Game.from_scenario("coh_partisans", seed=1)
    >>> field = cost_field(g.ruleset.board, "P12")
    >>> field["P12"], field["O12"] <= field["A8"]
    (0.0, True)
"""

from __future__ import annotations

import heapq
from typing import Any

from wargame.engine import GameState

__all__ = ["cost_field", "threats"]

#: (board id, goal) -> AP cost field; a few boards per process at most.
_FIELDS: dict[tuple[int, str, str], dict[str, float]] = {}


def cost_field(board: Any, goal: str, mobility: str = "foot") -> dict[str, float]:
    """AP a unit of ``mobility`` (1 AP a hex) pays from each hex to reach
    ``goal`` by the cheapest way: terrain extras, +1 AP a level climbed, +2 up
    a steep hexside (CoH 2e §5.0, §11.0-11.1); hexes it may not enter are left
    out."""
    key = (id(board), goal, mobility)
    got = _FIELDS.get(key)
    if got is not None:
        return got
    dist: dict[str, float] = {goal: 0.0}
    todo = [(0.0, goal)]
    while todo:
        d, h = heapq.heappop(todo)
        if d > dist.get(h, float("inf")):
            continue
        for n in board.neighbors(h):
            extra = board.move_extra(n, h, mobility)  # from n into h
            if extra is None:
                continue
            nd = d + 1.0 + float(extra)
            if nd < dist.get(n, float("inf")):
                dist[n] = nd
                heapq.heappush(todo, (nd, n))
    if len(_FIELDS) >= 64:
        _FIELDS.pop(next(iter(_FIELDS)))
    _FIELDS[key] = dist
    return dist


def threats(rules: Any, view: GameState, side: str, hex_: str) -> int:
    """How many seen enemy units that may fire could hit ``hex_``: in their
    normal range and with a clear LOS (§6.0, §7.0).  Hidden enemies count not:
    the side does not know where they are."""
    n = 0
    for e in view.units.values():
        if e.side == side or e.destroyed or e.hex is None or e.hidden:
            continue
        ut = rules.specs[e.id].type
        if ut.fire_cost is None:
            continue
        d = rules.board.distance(e.hex, hex_)
        if d > int(ut.range or 0):
            continue
        if d == 0 or rules.sight(view, e.hex, hex_).clear:
            n += 1
    return n
