"""Flames of War v3 movement of a platoon on the real map.

A move names the platoon and the point its command team (the unit's point)
goes to; every team of the platoon moves by the same offset, keeping the
platoon's layout (ASSUMPTION: v3 lets each team move on its own, research/fow.md
§1.2; a platoon moved as a body keeps a finite set of moves for the AI and the
harness).  ASSUMPTION: the going of the move is the going along the command
team's straight line (:func:`~.going.going_along`); the other teams, moving
alongside, are checked where they end (on the map, not in ground they may not
enter).  Then:

* the most restrictive going of the move sets the distance for the whole move
  (research §2.2, the working rule), for each team type, so no team may go
  farther than its distance in that going; impassable going or a distance of 0
  forbids the move (research §2.1);
* a team may not end off the map or in impassable ground;
* a vehicle whose line crosses Difficult or Very Difficult going takes a
  bogging check (research §2.1): 2+ (3+ when Overloaded) or a Skill test; a
  team that bogs stays where it started, Bogged Down;
* teams end In Command, within the command distance of the command team
  (research §2.5): kept when the platoon moves as a body, checked for teams
  that bogged (they stay behind, Bogged Down; the rule for teams out of
  command is a gap, §2.5: they are simply flagged).

A scenario may add a bridge the 2021 map lacks (the Ludendorff Bridge of
March 1945): a corridor over the water where the going is Road.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property, lru_cache
from typing import Any

import shapely

from wargame.engine import Model, Point

from .data import TeamType
from .forces import teams
from .going import GoingAlong, going_along, terrain_going
from .movement import GOINGS, command_distance_in, move_distance_in

__all__ = ["Bridge", "TeamMove", "column_move", "platoon_move", "team_move"]


#: Radius of the approach round each end of a scenario bridge (m; estimate).
RAMP_M = 20.0


@dataclass(frozen=True)
class Bridge:
    """A scenario bridge: a corridor of Road going over water (map metres)."""

    id: str
    line: tuple[tuple[float, float], tuple[float, float]]
    width_m: float

    @cached_property
    def corridor(self) -> shapely.Geometry:
        """The deck as a polygon, with a ramp of :data:`RAMP_M` round each end
        (the map's bank is a 10 m raster: a team stepping off the deck should
        not clip a cell of river beside the abutment).  Made once per bridge."""
        deck = shapely.LineString(self.line).buffer(self.width_m / 2, cap_style="flat")
        ends = [shapely.Point(p).buffer(RAMP_M) for p in self.line]
        return shapely.union_all([deck, *ends])


@dataclass(frozen=True)
class TeamMove:
    """One team's move: where it ends, how far it may go, what it needs."""

    model: str
    start: tuple[float, float]
    end: tuple[float, float]
    length_m: float
    going: str
    allowance_m: float
    bog_check: str
    problem: str | None


def _severity(going: str) -> int:
    return GOINGS.index(going)


@lru_cache(maxsize=20_000)
def _going(
    m: Any,
    path: tuple[tuple[float, float], ...],
    team_id: str,
    bridges: tuple[Bridge, ...],
) -> tuple[str, str]:
    """``(most restrictive going, bog check)`` along a path of points.

    The parts of the line on a scenario bridge are Road going; the rest is the
    map's going (:func:`going_along`).  Remembered: the same line is asked
    about at every decision until the platoon moves (the map and the profiles
    do not change).
    """
    t = teams()[team_id]
    line = shapely.LineString(path)
    parts: list[shapely.Geometry] = [line]
    on_bridge = False
    for br in bridges:
        deck = br.corridor
        if line.intersects(deck):
            on_bridge = True
            parts = [p.difference(deck) for p in parts]
    if not on_bridge:
        g: GoingAlong = going_along(m, list(path), t)
        return g.most_restrictive, g.bog_check
    worst, bog = "road", "none"
    for geom in parts:
        for seg in getattr(geom, "geoms", [geom]):
            if seg.is_empty or seg.length < 1.0:
                continue
            g = going_along(m, list(seg.coords), t)
            if _severity(g.most_restrictive) > _severity(worst):
                worst = g.most_restrictive
            if g.bog_check != "none":
                bog = g.bog_check
    return worst, bog


def team_move(
    m: Any,
    model: Model,
    team: TeamType,
    dx: float,
    dy: float,
    *,
    metres_per_inch: float,
    bridges: Sequence[Bridge] = (),
    via: Sequence[tuple[float, float]] = (),
) -> TeamMove:
    """Check one team's move by ``(dx, dy)`` metres: straight, or through the
    points ``via`` on its way (nothing changes)."""
    p = model.position
    assert isinstance(p, Point)
    a = (float(p.x), float(p.y))
    b = (round(a[0] + dx, 3), round(a[1] + dy, 3))
    path = (a, *(tuple(map(float, v)) for v in via), b)
    length = sum(math.dist(u, v) for u, v in itertools.pairwise(path))
    xmin, ymin, xmax, ymax = m.bounds
    if not (xmin <= b[0] <= xmax and ymin <= b[1] <= ymax):
        off = f"team {model.id} would end off the map at ({b[0]:.0f}, {b[1]:.0f})"
        return TeamMove(model.id, a, b, length, "impassable", 0.0, "none", off)
    if length < 0.01:
        return TeamMove(model.id, a, b, 0.0, "cross_country", 0.0, "none", None)
    going, bog = _going(m, path, team.id, tuple(bridges))
    allowance = move_distance_in(team, going) * metres_per_inch
    why: str | None = None
    if going == "impassable" or allowance <= 0:
        why = (
            f"team {model.id} ({team.name}) may not enter the "
            f"{going.replace('_', ' ')} going on its way to "
            f"({b[0]:.0f}, {b[1]:.0f}) (FoW v3 going, research/fow.md §2.1)"
        )
    elif length > allowance + 1e-6:
        why = (
            f"team {model.id} ({team.name}) would move {length:.0f} m, more than "
            f"its {allowance:.0f} m in {going.replace('_', ' ')} going (the most "
            "restrictive going of a move sets its distance, research/fow.md §2.2)"
        )
    return TeamMove(model.id, a, b, length, going, allowance, bog, why)


def platoon_move(
    m: Any,
    movers: Sequence[tuple[Model, TeamType]],
    dx: float,
    dy: float,
    *,
    metres_per_inch: float,
    bridges: Sequence[Bridge] = (),
) -> tuple[str | None, str, str]:
    """Check a platoon's move by ``(dx, dy)``: ``(problem, going, bog check)``.

    ``movers``: the teams that move (not Bogged Down or Bailed Out), the command
    team first.  The going is the command team's line's; every team is held to
    its own distance in that going and checked where it ends.
    """
    if not movers:
        return "no team of the platoon can move", "impassable", "none"
    first, t0 = movers[0]
    lead = team_move(
        m, first, t0, dx, dy, metres_per_inch=metres_per_inch, bridges=bridges
    )
    if lead.problem is not None:
        return lead.problem, lead.going, lead.bog_check
    xmin, ymin, xmax, ymax = m.bounds
    for model, t in movers[1:]:
        p = model.position
        assert isinstance(p, Point)
        x, y = float(p.x) + dx, float(p.y) + dy
        if not (xmin <= x <= xmax and ymin <= y <= ymax):
            return (
                f"team {model.id} would end off the map at ({x:.0f}, {y:.0f})",
                lead.going,
                lead.bog_check,
            )
        here = terrain_going(str(m.terrain_at(x, y)))
        on_deck = any(b.corridor.contains(shapely.Point(x, y)) for b in bridges)
        if not on_deck and move_distance_in(t, here) <= 0:
            return (
                f"team {model.id} ({t.name}) would end in {here.replace('_', ' ')} "
                f"going at ({x:.0f}, {y:.0f}), where it may not go (research/fow.md "
                "§2.1)",
                lead.going,
                lead.bog_check,
            )
        allowance = move_distance_in(t, lead.going) * metres_per_inch
        if lead.length_m > allowance + 1e-6:
            return (
                f"team {model.id} ({t.name}) may move {allowance:.0f} m in "
                f"{lead.going.replace('_', ' ')} going, not {lead.length_m:.0f} m "
                "(research/fow.md §2.2)",
                lead.going,
                lead.bog_check,
            )
    return None, lead.going, lead.bog_check


def _along(
    pts: Sequence[tuple[float, float]], cum: Sequence[float], s: float
) -> tuple[float, float]:
    """The point at arc length ``s`` of the polyline ``pts``."""
    for i in range(1, len(pts)):
        if s <= cum[i] + 1e-9:
            seg = cum[i] - cum[i - 1]
            f = 0.0 if seg <= 0 else (s - cum[i - 1]) / seg
            (x0, y0), (x1, y1) = pts[i - 1], pts[i]
            return (x0 + (x1 - x0) * f, y0 + (y1 - y0) * f)
    return pts[-1]


def column_move(
    m: Any,
    movers: Sequence[tuple[Model, TeamType]],
    to: tuple[float, float],
    *,
    metres_per_inch: float,
    bridges: Sequence[Bridge] = (),
) -> tuple[str | None, dict[str, tuple[float, float]], dict[str, str]]:
    """Check a move in column: ``(problem, ends, bog checks)`` per team.

    The command team (first of ``movers``) goes to ``to`` and the others follow
    in its footsteps, each the same distance along the column's way (the line
    from ``to`` back to the command team, then through the teams in order): a
    column keeps its order and its gaps, and a team never leaves the way its
    leader took (to cross a bridge or a defile; ASSUMPTION, as the
    platoon-as-a-body rule).  Each team is held to its own distance in the
    going of its own stretch.
    """
    if not movers:
        return "no team of the platoon can move", {}, {}
    pts: list[tuple[float, float]] = [to]
    for model, _ in movers:
        q = model.position
        assert isinstance(q, Point)
        pts.append((float(q.x), float(q.y)))
    cum = [0.0]
    for u, v in itertools.pairwise(pts):
        cum.append(cum[-1] + math.dist(u, v))
    step = cum[1]
    if step < 0.01:
        return "the platoon is already there", {}, {}
    ends: dict[str, tuple[float, float]] = {}
    bogs: dict[str, str] = {}
    for k, (model, t) in enumerate(movers):
        s_old = cum[k + 1]
        s_new = s_old - step
        end = _along(pts, cum, s_new)
        via = [pts[i] for i in range(k, 0, -1) if s_new + 0.5 < cum[i] < s_old - 0.5]
        q = model.position
        assert isinstance(q, Point)
        tm = team_move(
            m,
            model,
            t,
            end[0] - float(q.x),
            end[1] - float(q.y),
            metres_per_inch=metres_per_inch,
            bridges=bridges,
            via=via,
        )
        if tm.problem is not None:
            return tm.problem, {}, {}
        ends[model.id] = tm.end
        bogs[model.id] = tm.bog_check
    return None, ends, bogs


def command_radius_m(skill: str, is_tank: bool, metres_per_inch: float) -> float:
    """The platoon's command distance in metres (research/fow.md §2.5)."""
    return command_distance_in(skill, is_tank) * metres_per_inch


def out_of_command(models: Sequence[Model], command: str, radius_m: float) -> list[str]:
    """Teams farther than ``radius_m`` from the command team (by centres)."""
    pos: Mapping[str, Point] = {
        m.id: m.position for m in models if isinstance(m.position, Point)
    }
    c = pos.get(command)
    if c is None:
        return []
    return [
        mid
        for mid, p in pos.items()
        if mid != command and math.hypot(p.x - c.x, p.y - c.y) > radius_m + 1e-6
    ]
