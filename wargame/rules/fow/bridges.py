"""Scenario bridges the map lacks, and their demolition (a scenario special rule).

A fow-v3 scenario may lay a bridge the 2021 map does not have (``[[bridges]]``:
``id``, ``line = [[x, y], [x, y]]`` in map metres, ``width_m``): a corridor of
Road going over the water (:mod:`.moves`).  It may also say that a side has
wired it for demolition (``demolition = { side = "de", within_in = 8,
succeeds_on = 6 }``): in that side's Starting Step, the first time an enemy
team is within ``within_in`` inches of the bridge, the charges are fired: one
die, and on ``succeeds_on`` or more the bridge drops (no longer a crossing;
teams on the deck are destroyed); otherwise they fail and the bridge stands for
the rest of the game.  Special rules override the main rules (seed 004 p. 21).

ASSUMPTION (Remagen, 7 March 1945): the garrison fired the charges as the
Americans reached the bridge and the bridge lifted and settled (the main charge
failed); ``succeeds_on = 6`` gives the defenders a 1-in-6 chance, a what-if a
scenario may change.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import shapely

from wargame.engine import GameState, Point, RuleContext, unit_change, var_change

from .moves import Bridge

if TYPE_CHECKING:  # pragma: no cover
    from .ruleset import FowRuleset

__all__ = [
    "Demolition",
    "bridge_waypoints",
    "demolitions_step",
    "parse_bridges",
    "standing",
]


@dataclass(frozen=True)
class Demolition:
    """A side's charges under a bridge."""

    bridge: str
    side: str
    within_in: float
    succeeds_on: int


def _num(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v)


def parse_bridges(
    raw: Sequence[Mapping[str, Any]], file: str, sides: Sequence[str]
) -> tuple[list[Bridge], list[Demolition], list[str]]:
    """The bridges and demolitions of a scenario, and its problems (one line
    each, naming the file, the bridge and the field)."""
    bridges: list[Bridge] = []
    demolitions: list[Demolition] = []
    problems: list[str] = []
    for i, b in enumerate(raw):
        where = f"{file}: bridges[{i}]"
        line, width = b.get("line"), b.get("width_m", 10.0)
        ok = (
            isinstance(line, list)
            and len(line) == 2
            and all(
                isinstance(p, list) and len(p) == 2 and all(map(_num, p)) for p in line
            )
            and _num(width)
            and 1.0 <= float(width) <= 100.0
        )
        if not ok:
            problems.append(
                f"{where}: give line = [[x, y], [x, y]] (map metres) and width_m "
                "between 1 and 100"
            )
            continue
        assert isinstance(line, list)
        a, c = (tuple(map(float, p)) for p in line)
        bid = str(b.get("id", f"bridge{i + 1}"))
        bridges.append(Bridge(bid, (a, c), float(width)))  # type: ignore[arg-type]
        d = b.get("demolition")
        if d is None:
            continue
        side, within, on = d.get("side"), d.get("within_in", 8), d.get("succeeds_on", 6)
        if side not in sides:
            problems.append(
                f"{where}.demolition.side: {side!r}; use one of {list(sides)}"
            )
        elif not _num(within) or not 0 < float(within) <= 48:
            problems.append(
                f"{where}.demolition.within_in: {within!r} is not 0-48 inches"
            )
        elif isinstance(on, bool) or not isinstance(on, int) or not 1 <= on <= 7:
            problems.append(
                f"{where}.demolition.succeeds_on: {on!r} is not a die score 1-7"
            )
        else:
            demolitions.append(Demolition(bid, str(side), float(within), on))
    return bridges, demolitions, problems


def standing(rs: FowRuleset, state: GameState) -> list[Bridge]:
    """The scenario bridges still up."""
    return [b for b in rs.bridges if not state.vars.get(f"bridge_down:{b.id}")]


def bridge_waypoints(rs: FowRuleset, state: GameState, lead: Point) -> dict[str, Point]:
    """Where a column heads to cross each standing bridge: its near end, or,
    for a column already on the bridge's line, 40 m past its far end.

    For the moves a rule system offers (a sample, as ``candidate_moves``):
    the straight line to an objective across the river misses the deck.
    """
    out: dict[str, Point] = {}
    here = shapely.Point(lead.x, lead.y)
    for b in standing(rs, state):
        (ax, ay), (cx, cy) = b.line
        deck = shapely.LineString(b.line)
        near_a = math.hypot(ax - lead.x, ay - lead.y) <= math.hypot(
            cx - lead.x, cy - lead.y
        )
        (nx, ny), (fx, fy) = ((ax, ay), (cx, cy)) if near_a else ((cx, cy), (ax, ay))
        if deck.distance(here) <= 1.0 or math.hypot(nx - lead.x, ny - lead.y) <= 1.0:
            length = math.hypot(fx - nx, fy - ny)
            ux, uy = (fx - nx) / length, (fy - ny) / length
            out[f"over {b.id}"] = Point(round(fx + 40 * ux, 1), round(fy + 40 * uy, 1))
        else:
            out[f"to {b.id}"] = Point(round(nx, 1), round(ny, 1))
    return out


def demolitions_step(rs: FowRuleset, ctx: RuleContext, side: str) -> None:
    """Fire ``side``'s charges under a bridge an enemy team has come near."""
    st = ctx.state
    by_id = {b.id: b for b in rs.bridges}
    for d in rs.demolitions:
        if d.side != side or st.vars.get(f"bridge_fired:{d.bridge}"):
            continue
        b = by_id[d.bridge]
        deck = shapely.LineString(b.line)
        reach = d.within_in * rs.scale
        near = any(
            isinstance(m.position, Point)
            and deck.distance(shapely.Point(m.position.x, m.position.y)) <= reach
            for u in st.units.values()
            if u.side != side and rs._in_play(u)
            for m in u.models
        )
        if not near:
            continue
        (f,) = ctx.roll(
            1, needed=d.succeeds_on, kind="demolition", side=side, target=b.id
        )
        if f < d.succeeds_on:
            ctx.emit(
                "demolition",
                side=side,
                target=b.id,
                result="the charges fail: the bridge stands",
                changes=var_change(**{f"bridge_fired:{b.id}": True}),
            )
            continue
        ch = var_change(**{f"bridge_fired:{b.id}": True, f"bridge_down:{b.id}": True})
        corridor = b.corridor
        for uid in sorted(st.units):
            u = st.units[uid]
            if not rs._in_play(u):
                continue
            left = tuple(
                m
                for m in u.models
                if not (
                    isinstance(m.position, Point)
                    and corridor.contains(shapely.Point(m.position.x, m.position.y))
                    and str(rs.map.terrain_at(m.position.x, m.position.y)) == "water"
                )
            )
            if len(left) != len(u.models):
                ch += unit_change(uid, models=left)
                if not left:
                    ch += unit_change(uid, strength="destroyed")
        ctx.emit(
            "demolition", side=side, target=b.id, result="the bridge drops", changes=ch
        )
