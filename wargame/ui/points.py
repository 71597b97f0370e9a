"""Units at free points on the game map: their models, reach, rings and moves.

For rule systems whose units stand at points, a :class:`GameView` draws every
model (a platoon as its teams, a squad as its soldiers) with its facing, and
for the selected unit the ground one move may reach, its range rings and its
command circle.  Clicking the map then plans a move there: the path, its length
and its going cost, green if the rules allow it and red with the reason (the
first point where it fails) if not; "Move here" plays it.  With the click mode
on "line of sight", or for a unit that cannot move now, a click draws the sight
line from the unit's nearest model to the point instead.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import ipyleaflet
import ipywidgets as w

from wargame.render.geojson import EMPTY
from wargame.render.points import (
    MODEL_STYLE,
    PointPlan,
    models_geojson,
    own_point_move,
    plan_point_move,
    point_rings_geojson,
    reach_geojson,
    unit_point,
)

from .common import error_html, info_html
from .layers import overlay

if TYPE_CHECKING:  # pragma: no cover
    from wargame.engine import GameState

    from .gameview import GameView

__all__ = ["PointPlanner"]

#: Click modes for the map while a point unit is selected.
CLICK_MODES = (("plan a move", "move"), ("line of sight", "look"))


class PointPlanner:
    """The point-unit layers and the click-to-move of a :class:`GameView`.

    Attributes:
        models_layer: every model's dot and facing tick.
        reach_layer: the selected unit's reach for one move.
        path_layer: the planned move.
        plan: the move planned (``None``: none).
        mode: the map-click mode (``"move"`` or ``"look"``).
    """

    def __init__(self, view: GameView) -> None:
        self.view = view
        self.models_layer = ipyleaflet.GeoJSON(
            data=dict(EMPTY),
            name="models",
            style={"className": "wargame-model"},
            point_style=dict(MODEL_STYLE),
        )
        self.reach_layer = overlay("reach", {"className": "wargame-reach"})
        self.path_layer = overlay("planned move", {"className": "wargame-point-path"})
        self.plan: PointPlan | None = None
        self._drawn: tuple[Any, ...] | None = None
        self._reach_key: tuple[Any, ...] | None = None
        self._legal: tuple[tuple[Any, ...], list[Any]] | None = None
        self.mode_toggle = w.ToggleButtons(
            options=list(CLICK_MODES),
            value="move",
            description="map click",
            style={"button_width": "110px"},
        )
        self.mode_toggle.add_class("wargame-click-mode")
        self.button = w.Button(
            description="Move here",
            icon="route",
            disabled=True,
            tooltip="make the move drawn on the map",
            layout=w.Layout(width="auto"),
        )
        self.button.add_class("wargame-move-point")
        self.button.on_click(lambda _: self.view._guard(self.execute))

    @property
    def mode(self) -> str:
        """``"move"``: a map click plans a move; ``"look"``: it draws a sight line."""
        return str(self.mode_toggle.value)

    # -- drawing ------------------------------------------------------------ #
    def draw_models(self, state: GameState) -> None:
        """Redraw the models if any moved, turned, fell or the selection changed."""
        sel = self.view.selected_unit
        key = (
            sel,
            self.view.game.ruleset.map_areas(state),
            tuple(
                (
                    uid,
                    u.position,
                    u.destroyed,
                    tuple((m.position, m.facing) for m in u.models),
                )
                for uid, u in sorted(state.units.items())
            ),
        )
        if key == self._drawn:
            return
        self._drawn = key
        self.models_layer.data = models_geojson(self.view.game, state, selected=sel)

    def show_unit(self, unit_id: str, state: GameState) -> None:
        """The rings (range, command) and, on the person's decision for their own
        unit, the reach of one move."""
        v = self.view
        reaches = v.game.ruleset.unit_reach(state, unit_id)
        v.rings_layer.data = point_rings_geojson(v.game, state, unit_id, reaches)
        self.clear_plan()
        if self.can_move(unit_id):
            key = (len(v.game.actions), unit_id, unit_point(state, unit_id))
            if key != self._reach_key:
                self._reach_key = key
                self.reach_layer.data = reach_geojson(v.game, state, unit_id)
        else:
            self._reach_key = None
            self.reach_layer.data = dict(EMPTY)

    def legal(self) -> list[Any]:
        """The game's legal actions now (asked once per position of the game)."""
        game = self.view.game
        acts = game.actions
        key = (id(game), len(acts), id(acts[-1]) if acts else None)
        if self._legal is None or self._legal[0] != key:
            self._legal = (key, game.legal_actions())
        return self._legal[1]

    def can_move(self, unit_id: str) -> bool:
        """Whether the person may move this unit now: their unit, their decision,
        and a move of it among the legal actions."""
        v = self.view
        u = v.game.state.units.get(unit_id)
        return (
            v.human is not None
            and v.game.current_side == v.human
            and u is not None
            and u.side == v.human
            and own_point_move(v.game, unit_id, self.legal()) is not None
        )

    def may_plan(self, unit_id: str) -> bool:
        """Whether a click plans a move of this unit (the person's own unit on
        their decision, even if the rules will refuse it and say why)."""
        v = self.view
        u = v.game.state.units.get(unit_id)
        return (
            v.human is not None
            and v.game.current_side == v.human
            and u is not None
            and u.side == v.human
        )

    def clear_plan(self) -> None:
        """No planned move."""
        self.plan = None
        self.path_layer.data = dict(EMPTY)
        self.button.disabled = True

    def clear(self) -> None:
        """No selection: no reach, no plan."""
        self.clear_plan()
        self._reach_key = None
        self.reach_layer.data = dict(EMPTY)

    # -- clicks ------------------------------------------------------------- #
    def clicked(self, x: float, y: float) -> None:
        """A click on the map at ``(x, y)`` map metres (not on a unit)."""
        v = self.view
        sel = v.selected_unit
        if sel is None or unit_point(v.shown_state, sel) is None:
            v.message.value = info_html(
                "Click a unit first: then a click on the map plans its move "
                "or shows what it sees there."
            )
            return
        if self.mode == "move" and self.may_plan(sel):
            self.plan_to(x, y)
        else:
            v.look_at_point(x, y)

    def plan_to(self, x: float, y: float) -> PointPlan:
        """Plan the selected unit's move to ``(x, y)`` and draw it."""
        v = self.view
        sel = v.selected_unit
        if sel is None:
            raise ValueError("no unit is selected")
        plan = plan_point_move(v.game, sel, (x, y), self.legal())
        self.plan = plan
        self.path_layer.data = plan.geojson(v.game)
        name = v.game.state.units[sel].name
        where = f"({x:.0f} E, {y:.0f} N)"
        v.tabs.selected_index = 2  # 'Your move': the button and the click mode
        if plan.legal:
            self.button.disabled = False
            v.message.value = info_html(
                f"{name} to {where}: {plan.summary()}. Press 'Move here' to go."
            )
        else:
            self.button.disabled = True
            v.message.value = error_html(
                f"{name} cannot move to {where} ({plan.summary()}): {plan.why}."
            )
        return plan

    def execute(self) -> bool:
        """Make the planned move; whether it was made."""
        v = self.view
        plan = self.plan
        if plan is None or not plan.legal or plan.action is None:
            v.message.value = error_html("Click the map to plan a legal move first.")
            return False
        name = v.game.state.units[plan.unit].name
        if not v.apply_action(plan.action):
            return False
        self.clear_plan()
        if not v.message.value:
            v.message.value = info_html(f"{name} moved {plan.length_m:.0f} m.")
        return True


def nearest_model(
    state: GameState, unit_id: str, x: float, y: float
) -> tuple[float, float]:
    """The point of the unit's model nearest to ``(x, y)`` (else the unit's)."""
    from wargame.engine import Point

    u = state.units[unit_id]
    pts = [m.position for m in u.models if isinstance(m.position, Point)]
    if not pts:
        p = u.position
        assert isinstance(p, Point)
        return float(p.x), float(p.y)
    best = min(pts, key=lambda p: math.hypot(float(p.x) - x, float(p.y) - y))
    return float(best.x), float(best.y)
