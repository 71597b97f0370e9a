"""Flames of War v3 templates on the map, and the smoke they leave.

A bombardment's template (research/fow.md §3.8, S3 [A]) is a rectangle of
6"×6", 12"×6" or 12"×12" with its centre on the aiming point.  ASSUMPTION
(the sources do not say how it is turned): its sides run along and across the
line of fire, from the firing platoon's point to the aiming point, and a
12"×6" template lies with its 12" side across the line of fire (a battery's
guns fire side by side).

Smoke (research §10.4 stop-gap; ASSUMPTION: no v3 text on smoke was read): a
smoke bombardment leaves a smoke template.  A team standing under it, or seen
through it (the line from the shooting platoon's point to the team crosses it),
is Concealed: +1 to be hit (§3.2).  The markers are removed in the Starting
Step of the firing side's next turn ("remove smoke markers", item 10 of §1.1,
S2 [A]).  Markers live in ``state.vars["smoke"]`` as JSON-friendly tuples
``(side, platoon, x, y, bearing, across_m, along_m)``.

Where a high-explosive bombardment landed is kept the same way, in
``state.vars["bombarded"]``, so that both sides see the template on the map
until the firing side's next Starting Step.  ASSUMPTION (a view aid, not a
rule: v3 lifts the template once its hits are rolled): the marker has no
effect on play; it is removed with that side's smoke.

Examples:
    >>> t = Template(0.0, 0.0, 0.0, 150.0, 150.0)
    >>> t.covers(70.0, 70.0, 0.0), t.covers(100.0, 0.0, 25.0)
    (True, True)
    >>> t.covers(101.0, 0.0, 25.0)
    False
    >>> mark = t.marker("us", "mortars")
    >>> smoke_between([mark], (0.0, -500.0), (0.0, 500.0))
    True
    >>> smoke_between([mark], (500.0, -500.0), (500.0, 500.0))
    False
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import shapely

from wargame.engine import RuleContext, var_change
from wargame.engine.present import Area

if TYPE_CHECKING:  # pragma: no cover
    from wargame.engine import GameState

    from .ruleset import FowRuleset

__all__ = [
    "BOMBARDED_VAR",
    "SMOKE_VAR",
    "Template",
    "clear_smoke",
    "landed",
    "markers",
    "smoke_areas",
    "smoke_between",
]

#: The state variable holding the smoke markers on the table.
SMOKE_VAR = "smoke"
#: The state variable holding where bombardments landed (a view aid, module doc).
BOMBARDED_VAR = "bombarded"


@dataclass(frozen=True)
class Template:
    """A template on the map: centre, bearing of the line of fire (degrees
    from north, clockwise), its width across and its depth along that line (m)."""

    x: float
    y: float
    bearing: float
    across_m: float
    along_m: float

    @property
    def polygon(self) -> shapely.Polygon:
        """The rectangle as a polygon in map metres."""
        b = math.radians(self.bearing)
        ax, ay = math.sin(b), math.cos(b)  # along the line of fire
        cx, cy = ay, -ax  # across it
        h, w = self.along_m / 2, self.across_m / 2
        pts = [
            (self.x + sa * h * ax + sc * w * cx, self.y + sa * h * ay + sc * w * cy)
            for sa, sc in ((1, 1), (1, -1), (-1, -1), (-1, 1))
        ]
        return shapely.Polygon(pts)

    def covers(self, x: float, y: float, radius_m: float) -> bool:
        """Whether a team's base (a circle) is under the template.  ASSUMPTION
        (research §7 names it unresolved): a base partly under counts."""
        return bool(self.polygon.distance(shapely.Point(x, y)) <= radius_m + 1e-6)

    def marker(self, side: str, platoon: str) -> tuple[Any, ...]:
        """The smoke marker of this template, as stored in the state."""
        return (
            side,
            platoon,
            round(self.x, 3),
            round(self.y, 3),
            round(self.bearing, 3),
            round(self.across_m, 3),
            round(self.along_m, 3),
        )


def _template(marker: Sequence[Any]) -> Template:
    _, _, x, y, bearing, across, along = marker
    return Template(float(x), float(y), float(bearing), float(across), float(along))


def markers(state: GameState) -> tuple[tuple[Any, ...], ...]:
    """The smoke markers on the table."""
    return tuple(state.vars.get(SMOKE_VAR, ()))


def landed(state: GameState) -> tuple[tuple[Any, ...], ...]:
    """The templates of high-explosive bombardments still shown (module doc)."""
    return tuple(state.vars.get(BOMBARDED_VAR, ()))


def smoke_areas(state: GameState) -> tuple[Area, ...]:
    """The smoke templates on the table, then where bombardments landed, as
    areas to draw (the ``map_areas`` hook), labelled with the firing platoon."""
    out = []
    for var, word, kind in (
        (SMOKE_VAR, "smoke", "smoke"),
        (BOMBARDED_VAR, "bombardment", "template"),
    ):
        for mk in state.vars.get(var, ()):
            u = state.units.get(str(mk[1]))
            who = u.name if u is not None else str(mk[1])
            coords = tuple(
                (round(float(x), 2), round(float(y), 2))
                for x, y in _template(mk).polygon.exterior.coords
            )
            out.append(Area(f"{word} ({who})", coords, kind))
    return tuple(out)


def smoke_between(
    marks: Iterable[Sequence[Any]],
    shooter: tuple[float, float],
    target: tuple[float, float],
) -> bool:
    """Whether a team at ``target`` is Concealed by smoke from ``shooter``: it
    stands under a smoke template or the line to it crosses one (module doc)."""
    line: shapely.LineString | None = None
    for mk in marks:
        poly = _template(mk).polygon
        if poly.covers(shapely.Point(*target)):
            return True
        if line is None:
            line = shapely.LineString([shooter, target])
        if line.intersects(poly):
            return True
    return False


def clear_smoke(rs: FowRuleset, ctx: RuleContext, side: str) -> None:
    """Remove ``side``'s smoke markers: the last item (10) of its Starting Step
    (research/fow.md §1.1, S2 [A])."""
    marks = markers(ctx.state)
    keep = tuple(m for m in marks if m[0] != side)
    if len(keep) < len(marks):
        ctx.emit(
            "smoke_cleared",
            side=side,
            result=f"{len(marks) - len(keep)} smoke marker(s) removed",
            changes=var_change(**{SMOKE_VAR: keep or None}),
        )
    fell = landed(ctx.state)
    stay = tuple(m for m in fell if m[0] != side)
    if len(stay) < len(fell):
        ctx.emit(
            "templates_cleared",
            side=side,
            result=f"{len(fell) - len(stay)} bombardment template(s) lifted",
            changes=var_change(**{BOMBARDED_VAR: stay or None}),
        )
