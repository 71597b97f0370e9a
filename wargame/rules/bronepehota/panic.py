"""Бронепехота 2008: panic (§11.2), optional rule ``panic`` (:mod:`.options`).

A survival test whose face equals the soldier's Бр: he lives but panics
(§11.2; :func:`~.damage.survival_test`).  A panicking pilot first gets out of
his machine (§4.3's figure swap); the soldier then runs his Ск toward the
nearest edge of the table, going round what he cannot cross.  He is himself
again at the start of the next turn; if the run takes him off the table he is
a deserter, out for the rest of the game.

In the virtual game only pilots take survival tests (§7.4 III, §8.2): a
soldier on foot dies of any damage (§5.1).

ASSUMPTIONS (docs, numbered): the table's edge is the scenario's map window;
the run is straight toward the nearest edge, or, when that way is blocked
(water, a figure, a slope over 45°), the first clear of the bearings 30°, 60°
and 90° either side of it, else half as far, else he stays; a deserter is
removed as a loss; a panicking pilot is set down touching his machine on the
side toward that edge and the machine is left pilotless (frozen, §4.3); he
does nothing more this turn.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, cast

from wargame.engine import (
    GameState,
    Point,
    RuleContext,
    unit_change,
    var_change,
)
from wargame.engine.points import distance, offset

from .crew import Crew

if TYPE_CHECKING:  # pragma: no cover
    from .ruleset import BronepehotaRuleset

__all__ = ["Panic", "nearest_edge"]

#: Bearings off the way to the edge a fleeing soldier tries, in this order.
DETOURS = (0.0, 30.0, -30.0, 60.0, -60.0, 90.0, -90.0)


def nearest_edge(
    p: Point, bounds: tuple[float, float, float, float]
) -> tuple[float, float]:
    """The bearing to the nearest edge of ``bounds`` and its distance (metres).

    >>> nearest_edge(Point(10.0, 50.0), (0.0, 0.0, 100.0, 100.0))
    (270.0, 10.0)
    """
    xmin, ymin, xmax, ymax = bounds
    cands = [
        (p.y - ymin, 180.0),
        (xmax - p.x, 90.0),
        (ymax - p.y, 0.0),
        (p.x - xmin, 270.0),
    ]
    d, head = min(cands)
    return head, d


class Panic(Crew):
    """Panic (the module docstring)."""

    options: frozenset[str]

    def _pilot_panics(self, ctx: RuleContext, side: str, uid: str) -> None:
        """§11.2: the pilot of machine ``uid`` gets out and flees."""
        rs = cast("BronepehotaRuleset", self)
        st = ctx.state
        m = self.machine_model(st, uid)
        if m is None or not st.units[uid].attrs.get("pilot"):
            return
        f = self._fig(st.units[uid], m)
        centre = self._pos(f)
        head, _ = nearest_edge(centre, self.map.bounds)
        touch = f.model.radius_m + self.radius_m + 0.01
        spots = [offset(centre, head, touch), *self.leave_points(st, f)]
        spot = next(
            (
                p
                for p in spots
                if self._set_down_problem(st, p, f, self.radius_m) is None
            ),
            None,
        )
        if spot is None:
            return  # ASSUMPTION: nowhere to set him down: he stays in, frozen by fear
        ch, man = self.leave_changes(st, f, spot, head)
        ctx.emit(
            "panic",
            side=st.units[uid].side,
            unit=uid,
            target=man.id,
            point_from=centre,
            point_to=spot,
            result=f"pilot {man.id} panics and gets out of {uid}",
            changes=ch,
        )
        rs._flee(ctx, self.home_squad(man.id), man.id)

    def _flee(self, ctx: RuleContext, uid: str, mid: str) -> None:
        """§11.2: soldier ``mid`` of unit ``uid`` runs his Ск toward the
        nearest edge; off the table, he deserts."""
        rs = cast("BronepehotaRuleset", self)
        st: GameState = ctx.state
        f = self.fig(st, uid, mid)
        assert f.soldier is not None
        a = self._pos(f)
        head, gap = nearest_edge(a, self.map.bounds)
        run = f.soldier.speed * self.step_m
        spent = [*st.vars.get("spent", ()), mid]
        side = f.unit.side
        if gap <= run:
            ctx.emit(
                "panic",
                side=side,
                unit=uid,
                target=mid,
                point_from=a,
                result=f"{mid} runs off the table: a deserter, out of the game",
                changes=rs._kill(st, uid, mid),
            )
            return
        to = None
        for part in (1.0, 0.5):
            for dev in DETOURS:
                p = offset(a, head + dev, run * part)
                p = Point(round(p.x, 2), round(p.y, 2))
                if rs.move_problem(st, f, p, head) is None:
                    to = p
                    break
            if to is not None:
                break
        moved = (
            f.model
            if to is None
            else replace(f.model, position=to, facing=round(head % 360.0, 1))
        )
        models = tuple(moved if x.id == mid else x for x in f.unit.models)
        ctx.emit(
            "panic",
            side=side,
            unit=uid,
            target=mid,
            point_from=a,
            point_to=to,
            result=(
                f"{mid} panics and runs {distance(a, to) / self.step_m:.2f} steps "
                "toward the table's edge"
                if to is not None
                else f"{mid} panics but finds no way to run"
            ),
            changes=unit_change(uid, models=models, position=models[0].position)
            + var_change(spent=spent),
        )
