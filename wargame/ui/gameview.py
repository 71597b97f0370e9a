"""GameView: a game on the map, with a turn stepper, line of sight, odds, dice and log.

The view holds widgets and copies what :mod:`wargame.render` computes into them;
every rule question (legal actions, ranges, odds, line of sight) is asked of the
game, its rule system or its map.  After each action only what changed is sent:
the unit markers that moved or changed state, and the panels whose text changed.

Examples:
    >>> from wargame.engine import Game
    >>> view = Game.from_scenario("test_remagen", seed=1).view()
    >>> view.click_hex("H17")            # the T-72 platoon's counter
    >>> view.selected_unit, len(view.visible_hexes)
    ('SU-T1', 53)
    >>> action = view.step()             # the Step button
    >>> len(view.game.actions)
    1
"""

from __future__ import annotations

import html
import math
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

import ipywidgets as w

from wargame.render.game import (
    actions_involving,
    dice_html,
    last_rolls,
    odds_html,
    odds_table,
    panels_html,
    reach_hexes,
    reach_rings_geojson,
    status_html,
    unit_reach,
    unit_stacks,
    units_html,
    why_not,
)
from wargame.render.geojson import EMPTY, geometry_geojson
from wargame.render.los import (
    los_html,
    profile_png,
    sight_line_geojson,
    simplified,
)
from wargame.render.moves import actions_reaimed

from .common import error_html, info_html, parse_seed
from .layers import UnitLayer, overlay
from .logpanel import LogPanel
from .mapview import MapView
from .marks import StepMarksLayer
from .moves import MovePlanner
from .pacing import PaceControls, Pacer
from .points import PointPlanner, nearest_model

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from wargame.engine import Action, Game, GameState

__all__ = ["DEFAULT_SIGHT_HEXES", "VIEWSHED_STYLE", "GameView"]

#: Viewshed range (hexes) for a unit that reaches nothing (e.g. an HQ).
DEFAULT_SIGHT_HEXES = 20
#: Leaflet style of the line-of-sight polygon (hex outlines drawn; DEM: none).
VIEWSHED_STYLE: dict[str, Any] = {
    "color": "#1f5fa8",
    "weight": 1.5,
    "fillColor": "#3d8fe0",
    "fillOpacity": 0.22,
}
#: Most actions the AI plays for one button press (a guard against loops).
MAX_AI_ACTIONS = 5000

_AI = "__ai__"  # the "you play" choice for AI against AI


class GameView(w.VBox):  # type: ignore[misc]
    """An interactive view of a :class:`~wargame.engine.Game`.

    Args:
        game: the game to show (it is played on, not copied).
        human: the side a person plays (``None``: the AI plays both sides).  The
            person then picks legal actions from the map and the list.
        auto_ai: after the person acts, let the AI play until the person must
            decide again.
        web_tiles: also offer OpenStreetMap tiles (needs the internet; the
            offline terrain picture is always there).
        height: CSS height of the map.
        paced: the AI's actions after the person's (and before their first
            decision) are played one by one at the Play speed, shown as they
            happen, instead of all at once (needs the kernel's event loop:
            JupyterLab, Voila; from code :meth:`Pacer.drain` plays them).
        speed: the Play pace in actions a second (0.25 to 4).
        setup_controls: show the seed field and the side picker (an app that
            has its own, like the classroom, leaves them out).
        counter_scale: size of the unit counters (1.5 for a projector).

    Clicking a unit shows its hex viewshed out to its longest reach (or the
    DEM-level viewshed, with the toggle) and one range ring per reach the rule
    system names (World at War: normal and extended range); clicking an enemy
    unit next shows the sight line coloured by the answer, the terrain profile
    and the rule system's exact odds of attacking it.  The rule system's side
    panels (World at War: the chit cup) get one tab each.  The same
    things can be done from code: :meth:`click_hex`, :meth:`select_unit`,
    :meth:`pick_target`, :meth:`step`, :meth:`end_turn`, :meth:`run_to_end`,
    :meth:`undo`, :meth:`reset`, :meth:`apply_action`.
    """

    def __init__(
        self,
        game: Game,
        *,
        human: str | None = None,
        auto_ai: bool = True,
        web_tiles: bool = False,
        height: str = "560px",
        paced: bool = False,
        speed: float = 1.0,
        setup_controls: bool = True,
        counter_scale: float = 1.0,
    ) -> None:
        self.game = game
        self.paced = paced
        self.auto_ai = auto_ai
        self.human: str | None = None
        self.selected_unit: str | None = None
        self.target_unit: str | None = None
        #: Hexes of the selected unit's hex viewshed (``[]`` when none).
        self.visible_hexes: list[str] = []
        self.los_result: Any = None
        self._los_key: tuple[str | None, str | None] | None = None
        self._drawn_key: tuple[Any, str] | None = None
        self._actions: list[Action] = []
        #: Units stand at free points (``positions = "point"``): models are
        #: drawn, a map click plans a move or draws a sight line to the point.
        self.point_mode = getattr(game.ruleset, "positions", "hex") == "point"

        # -- the map ------------------------------------------------------- #
        self.mapview = MapView(game.map, web_tiles=web_tiles, height=height)
        self.leaflet = self.mapview.leaflet
        self.mapview.info_rows = self._hex_rows
        self.mapview.on_hex_click(self._hex_clicked)
        self.mapview.on_point_click(self._point_clicked)
        self.mapview.select_on_click = not self.point_mode
        self.message = self.mapview.message
        self.viewshed_layer = overlay("viewshed", {"className": "wargame-los"})
        self.rings_layer = overlay("range rings")
        self.line_layer = overlay("sight line")
        self.units = UnitLayer(
            on_click=self.click_hex,
            scale=counter_scale,
            on_point_click=lambda s: self._guard(lambda: self._handle_stack(s.units)),
        )
        #: Models, reach and click-to-move of units at free points.
        self.points = PointPlanner(self)
        #: What the last actions did: trails, fire lines and dice.
        self.marks = StepMarksLayer()
        #: Legal destinations of the selected unit and the planned path.
        self.moves = MovePlanner(self)
        terrain, *rest = self.leaflet.layers
        pts = self.points
        self.leaflet.layers = (
            terrain,
            self.viewshed_layer,
            *((pts.reach_layer,) if self.point_mode else ()),
            self.rings_layer,
            self.moves.dest_layer,
            *rest,
            self.moves.path_layer,
            *((pts.path_layer,) if self.point_mode else ()),
            self.line_layer,
            self.marks.lines,
            *((pts.models_layer,) if self.point_mode else ()),
            self.units.group,
            self.marks.dice,
        )

        # -- controls ------------------------------------------------------ #
        def button(text: str, tip: str, cls: str, icon: str = "") -> w.Button:
            b = w.Button(
                description=text, tooltip=tip, icon=icon, layout=w.Layout(width="auto")
            )
            b.add_class(cls)
            return b

        self.step_button = button(
            "Step", "one action by the AI", "wargame-step", "step-forward"
        )
        self.turn_button = button(
            "End of turn",
            "AI plays to the end of the turn",
            "wargame-end-turn",
            "forward",
        )
        self.run_button = button(
            "Run to end",
            "AI plays to the end of the game",
            "wargame-run",
            "fast-forward",
        )
        self.undo_button = button(
            "Undo", "take the last action back", "wargame-undo", "undo"
        )
        self.reset_button = button(
            "Reset", "start again with this seed", "wargame-reset", "refresh"
        )
        self.seed_input = w.Text(
            value=str(game.seed),
            description="seed",
            layout=w.Layout(width="150px"),
        )
        self.seed_input.add_class("wargame-seed")
        sides = [(f"{s.name} ({sid})", sid) for sid, s in game.state.sides.items()]
        self.human_select = w.Dropdown(
            options=[("nobody: AI vs AI", _AI), *sides],
            value=_AI,
            description="you play",
            layout=w.Layout(width="260px"),
        )
        self.human_select.add_class("wargame-human")
        self.step_button.on_click(lambda _: self._guard(self.step))
        self.turn_button.on_click(lambda _: self._guard(self.end_turn))
        self.run_button.on_click(lambda _: self._guard(self.run_to_end))
        self.undo_button.on_click(lambda _: self._guard(self.undo))
        self.reset_button.on_click(lambda _: self._guard(self.reset))
        self.human_select.observe(
            lambda ch: self._guard(
                lambda: self._human_changed(None if ch["new"] == _AI else ch["new"])
            ),
            "value",
        )
        self.status = w.HTML()
        self.status.add_class("wargame-status")
        #: Play / Pause at a pace: :attr:`pacer` plays the AI's actions.
        self.pacer = Pacer(self._paced_step, speed=speed)
        self.pace = PaceControls(self.pacer, self.message)
        setup = [self.seed_input, self.human_select] if setup_controls else []
        controls = w.HBox(
            [
                self.pace,
                self.step_button,
                self.turn_button,
                self.run_button,
                self.undo_button,
                self.reset_button,
                *setup,
            ],
            layout=w.Layout(flex_flow="row wrap", align_items="center"),
        )

        # -- right-hand panels --------------------------------------------- #
        self.dice = w.HTML(layout=w.Layout(min_height="70px"))
        self.unit_info = w.HTML()
        self.unit_info.add_class("wargame-unit-info")
        self.dem_toggle = w.Checkbox(
            value=False, description="DEM-level viewshed", indent=False
        )
        self.dem_toggle.observe(lambda _: self._guard(self._redraw_selection), "value")
        self.clear_button = button(
            "Clear", "clear the selection", "wargame-clear", "times"
        )
        self.clear_button.on_click(lambda _: self.clear_selection())
        self.los_answer = w.HTML()
        self.odds = w.HTML()
        self.profile = w.Image(format="png", layout=w.Layout(width="100%"))
        self.profile.add_class("wargame-profile")
        self.actions_list = w.Select(options=[], rows=9, layout=w.Layout(width="100%"))
        self.actions_list.add_class("wargame-actions")
        self.do_button = button(
            "Do it", "apply the chosen action", "wargame-do", "check"
        )
        self.do_button.on_click(lambda _: self._guard(self._do_chosen))
        self.show_all_button = button(
            "All actions", "list every legal action", "wargame-all-actions"
        )
        self.show_all_button.on_click(lambda _: self._refresh_actions())
        self.actions_note = w.HTML()
        #: One HTML widget per side panel of the rule system (a tab each).
        self.panels: list[w.HTML] = []
        self._fixed_tabs = (
            w.VBox(
                [
                    self.mapview.info,
                    self.unit_info,
                    w.HBox(
                        [self.dem_toggle, self.mapview.grid_toggle, self.clear_button]
                    ),
                ]
            ),
            w.VBox([self.los_answer, self.odds, self.profile]),
            w.VBox(
                [
                    self.actions_note,
                    self.actions_list,
                    w.HBox([self.do_button, self.show_all_button]),
                    *(
                        (self.points.mode_toggle, self.points.button)
                        if self.point_mode
                        else (self.moves.button,)
                    ),
                ]
            ),
        )
        self._fixed_titles = ("Hex & unit", "Line of sight", "Your move")
        self.tabs = w.Tab(children=list(self._fixed_tabs))
        self.tabs.add_class("wargame-tabs")
        self.tabs.titles = self._fixed_titles
        right = w.VBox(
            [self.dice, self.tabs],
            layout=w.Layout(flex="2 1 0%", min_width="340px", padding="0 0 0 8px"),
        )
        self.leaflet.layout.flex = "3 1 0%"
        self.leaflet.layout.width = "auto"

        # -- the log --------------------------------------------------------- #
        self.log_panel = LogPanel(game.state, lambda: self.shown_log)
        self.log_turn = self.log_panel.turn
        self.log_side = self.log_panel.side
        self.log_unit = self.log_panel.unit
        self.log_table = self.log_panel.table
        self.download = self.log_panel.download
        super().__init__(
            [
                self.status,
                controls,
                self.message,
                w.HBox([self.leaflet, right], layout=w.Layout(width="100%")),
                self.mapview.note,
                self.log_panel,
            ],
            layout=w.Layout(width="100%"),
        )
        self.add_class("wargame-gameview")
        #: Names of the AI policies in the status line, by side.
        self.policy_labels: dict[str, str] = {
            s: type(p).__name__ for s, p in game.policies.items()
        }
        if human is not None:
            self.set_human(human)
        else:
            self.refresh()

    # ------------------------------------------------------------------ #
    # state shown
    # ------------------------------------------------------------------ #
    @property
    def shown_state(self) -> GameState:
        """The state on the map: the human side's view, or everything."""
        if self.human is not None:
            return self.game.state_for(self.human)
        return self.game.state

    @property
    def shown_log(self) -> pd.DataFrame:
        """The log the view shows: the human side's (only what it may see), or
        the umpire's whole log."""
        return self.game.log_for(self.human)

    @property
    def log_frame(self) -> pd.DataFrame:
        """The shown log with the turn, side and unit filters of the log panel."""
        return self.log_panel.frame()

    # ------------------------------------------------------------------ #
    # refresh: copy render output into the widgets, only what changed
    # ------------------------------------------------------------------ #
    def refresh(self) -> None:
        """Bring every panel and layer up to date with the game."""
        game = self.game
        state = self.shown_state
        self.units.update(unit_stacks(game, state))
        self.mapview.avoid(self.units.places(), self.units.counter_px)
        if self.point_mode:
            self.points.draw_models(state)
        self.status.value = status_html(
            game, human=self.human, policy_names=self.policy_labels
        )
        log = self.shown_log
        self.dice.value = dice_html(last_rolls(log))
        self.marks.update(game.map, log)
        self._refresh_panels(state)
        self.log_panel.refresh(state, log)
        over = game.is_over
        for b in (self.step_button, self.turn_button, self.run_button):
            b.disabled = over
        self.undo_button.disabled = not game.actions
        self._follow_selection(state)
        self.moves.follow()
        self.mapview.refresh_info()
        self._refresh_actions()

    @property
    def panel_titles(self) -> tuple[str, ...]:
        """Titles of the rule system's panel tabs (World at War: the chit cup)."""
        return tuple(self.tabs.titles[len(self._fixed_titles) :])

    def _refresh_panels(self, state: GameState) -> None:
        """One tab per panel of the rule system; only changed text is sent."""
        shown = panels_html(self.game, state, self.human)
        titles = tuple(t for t, _ in shown)
        if titles != self.panel_titles or len(self.panels) != len(shown):
            keep = self.tabs.selected_index
            self.panels = [w.HTML() for _ in shown]
            for p in self.panels:
                p.add_class("wargame-panel-tab")
            self.tabs.children = [*self._fixed_tabs, *self.panels]
            self.tabs.titles = (*self._fixed_titles, *titles)
            n = len(self.tabs.children)
            self.tabs.selected_index = keep if keep is not None and keep < n else 0
        for widget, (_, body) in zip(self.panels, shown, strict=True):
            if widget.value != body:
                widget.value = body

    def _follow_selection(self, state: GameState) -> None:
        """Keep the selected unit and target drawn where they are now.

        The viewshed is recomputed only if the unit moved or flipped, the sight
        line and its profile only if one of the two units moved; the odds (which
        follow every change of state) are always brought up to date.
        """
        sel = self.selected_unit
        if sel is None:
            return
        u = state.units.get(sel)
        if u is None or u.destroyed or _where(u) is None:
            self.clear_selection()
            return
        if self._drawn_key != (_where(u), u.strength):
            self._redraw_selection()
        elif self.point_mode:
            self.points.show_unit(sel, state)
        if self.target_unit is not None:
            t = state.units.get(self.target_unit)
            if t is None or t.destroyed or _where(t) is None:
                self._clear_target()
            else:
                self._show_target()

    # ------------------------------------------------------------------ #
    # clicks
    # ------------------------------------------------------------------ #
    def click_lonlat(self, lon: float, lat: float) -> str | None:
        """Click the map at a WGS84 point (None and a message off the map)."""
        return self.mapview.click_lonlat(lon, lat)

    def click_hex(self, label: str) -> None:
        """Click a hex (or the unit marker on it), as a person would."""
        self.mapview.select_hex(label)

    def _hex_rows(self, label: str) -> list[tuple[str, str]]:
        return [("units", units_html(self.game, label, self.shown_state))]

    def _stack(self, label: str) -> list[str]:
        """Units shown in a hex: its stack, and any stacks at points inside it."""
        return [
            uid for s in self.units.stacks.values() if s.hex == label for uid in s.units
        ]

    def _hex_clicked(self, label: str) -> None:
        if self.point_mode:  # units stand at points: see _point_clicked
            return
        self._guard(lambda: self._handle_hex(label))

    def _point_clicked(self, lon: float, lat: float, label: str) -> None:
        if self.point_mode:
            x, y = self.game.map.to_xy(lon, lat)
            self._guard(lambda: self.points.clicked(float(x), float(y)))

    def click_point(self, x: float, y: float) -> None:
        """Click the map at ``(x, y)`` map metres, as a person would (point
        rule systems: plan a move of the selected unit there, or look)."""
        lon, lat = self.game.map.to_lonlat(x, y)
        self.click_lonlat(float(lon), float(lat))

    def click_unit(self, unit_id: str) -> None:
        """Click the marker of a unit's stack, as a person would."""
        for s in self.units.stacks.values():
            if unit_id in s.units:
                self.units.click(s.key)
                return
        raise KeyError(f"no marker shows unit {unit_id!r}")

    def _handle_stack(self, here: tuple[str, ...]) -> None:
        """A click on the marker of the units at one free point."""
        state = self.shown_state
        sel = self.selected_unit if self.selected_unit in state.units else None
        side = state.units[sel].side if sel is not None else None
        enemies = [x for x in here if side is not None and state.units[x].side != side]
        if enemies:
            self.pick_target(enemies[0])
        elif here:
            nxt = here[(here.index(sel) + 1) % len(here)] if sel in here else here[0]
            self.select_unit(nxt)

    def _handle_hex(self, label: str) -> None:
        state = self.shown_state
        here = self._stack(label)
        sel = self.selected_unit if self.selected_unit in state.units else None
        mine = (
            self.human is not None
            and self.game.current_side == self.human
            and sel is not None
            and state.units[sel].side == self.human
        )
        acts: list[Action] = []
        if mine and label != state.units[sel].hex:  # type: ignore[index]
            acts = actions_involving(
                self.game.legal_actions(), unit=sel, hex=label, units_in_hex=here
            )
        side = state.units[sel].side if sel is not None else None
        enemies = [x for x in here if side is not None and state.units[x].side != side]
        if enemies:
            self.pick_target(enemies[0])
        elif here:
            nxt = here[(here.index(sel) + 1) % len(here)] if sel in here else here[0]
            self.select_unit(nxt)
        if mine and self.moves.unit == sel and self.moves.plan(label):
            self._refresh_actions(acts or None)
            self.tabs.selected_index = 2
            if acts:
                self.message.value += info_html(
                    f" Or pick one of the {len(acts)} legal action(s) on {label} "
                    "in 'Your move' and press 'Do it'."
                )
        elif acts:
            name = state.units[sel].name  # type: ignore[index]
            self._refresh_actions(acts)
            self.tabs.selected_index = 2
            self.message.value = info_html(
                f"{len(acts)} legal action(s) of {name} on {label}: pick one in "
                "'Your move' and press 'Do it'."
            )
        elif mine and not here and sel is not None:
            name = state.units[sel].name
            self.message.value = error_html(
                f"{name} has no legal action on {label}" + self._reason(sel, label)
            )
        elif not here:
            self.message.value = info_html(
                f"No unit in {label}. Click a unit to see what it can see."
            )

    def _reason(self, unit: str, label: str) -> str:
        """Why the rules refuse the unit an action on a hex, if they can say.

        The actions asked about are the legal ones of the same kinds, moved to
        the clicked hex: first the unit's own (a move of the unit to another hex
        becomes a move to this one), then those of other units of its side given
        to this unit.  Without such an action there is nothing to ask.
        """
        for action in self._actions_on(unit, label):
            why = why_not(self.game, action)
            if why:
                return f": {why}"
        return ""

    def _actions_on(self, unit: str, label: str) -> list[dict[str, Any]]:
        """Legal actions re-aimed at ``label`` for ``unit`` (one per action type)."""
        return actions_reaimed(self.game, unit, label)

    # ------------------------------------------------------------------ #
    # unit selection, line of sight, odds
    # ------------------------------------------------------------------ #
    def select_unit(self, unit_id: str) -> None:
        """Select a unit: draw its viewshed and range rings, show its details."""
        state = self.shown_state
        u = state.units.get(unit_id)
        if u is None or u.destroyed or _where(u) is None:
            self.message.value = error_html(f"No unit {unit_id!r} on the map.")
            return
        self.selected_unit = unit_id
        self._clear_target()
        self._redraw_selection()
        if u.hex is not None and self.mapview.selected != u.hex:
            self.mapview.select_hex(u.hex, notify=False)
        if self.human is not None and self.game.current_side == self.human:
            acts = actions_involving(self.game.legal_actions(), unit=unit_id)
            self._refresh_actions(acts or None)
            if u.hex is not None:
                self.moves.show(unit_id)
        if self.point_mode:
            self.points.draw_models(state)
            if self.points.can_move(unit_id):
                hint = (
                    "click the map to plan a move (its reach is shaded), or switch "
                    "'map click' to line of sight."
                )
            elif self.points.may_plan(unit_id):
                hint = (
                    "it has no move among the legal actions now; a click on the map "
                    "asks the rules why not there ('map click': line of sight to look)."
                )
            else:
                hint = (
                    "click the map to see what it sees there; click an enemy "
                    "for the sight line and the odds."
                )
            self.message.value = info_html(f"{u.name}: {hint}")

    def _redraw_selection(self) -> None:
        uid = self.selected_unit
        if uid is None:
            return
        game, m = self.game, self.game.map
        u = self.shown_state.units[uid]
        if u.hex is None:
            self._redraw_point_selection(uid)
            return
        here: str = u.hex
        reaches = unit_reach(game, uid, self.shown_state)
        hexes = reach_hexes(m, reaches)
        reach = max((d for _, d in hexes), default=0) or DEFAULT_SIGHT_HEXES
        reach = max(1, min(reach, m.grid.n_cols + m.grid.n_rows))
        hv = m.hex_viewshed(here, range_hexes=reach)
        self.visible_hexes = list(hv.labels)
        self._drawn_key = (here, u.strength)
        props = {
            "unit": uid,
            "hex": here,
            "range_hexes": reach,
            "hexes_seen": len(hv.labels),
        }
        if self.dem_toggle.value:
            xmin, ymin, xmax, ymax = m.bounds
            radius = min(reach * m.hex_size_m, math.hypot(xmax - xmin, ymax - ymin))
            # By label: an edge hex's centre may lie just past the window, and
            # Map.viewshed refuses off-map points but takes any hex of the grid.
            geom = simplified(m.viewshed(here, radius))
            props["kind"] = "dem"
            props["style"] = dict(VIEWSHED_STYLE, weight=0)
        else:
            geom = hv.polygon
            props["kind"] = "hex"
            props["style"] = dict(VIEWSHED_STYLE)
        rings = reach_rings_geojson(m, here, reaches) if reaches else dict(EMPTY)
        self.viewshed_layer.data = geometry_geojson(m, geom, props)
        self.rings_layer.data = rings
        look = game.ruleset.unit_look(self.shown_state, u)
        rng = (
            "reaches "
            + ", ".join(
                f"{html.escape(name)} {d} hexes ({r.metres:g} m)"
                for r, (name, d) in zip(reaches, hexes, strict=True)
            )
            if reaches
            else "no range rings"
        )
        kind = "DEM-level" if self.dem_toggle.value else "hex"
        self.unit_info.value = (
            f"<div><b>{html.escape(u.name)}</b> ({html.escape(uid)}): "
            f"{html.escape(look.type_name or u.type)}, "
            f"{html.escape(look.state_text)} at {here}<br>{rng}; sees "
            f"{len(hv.labels)} hexes within {reach} ({kind} viewshed shown).<br>"
            "<i>Click an enemy unit for the sight line and the odds.</i></div>"
        )

    def _redraw_point_selection(self, uid: str) -> None:
        """A unit at a free point: DEM viewshed to its longest reach from its
        point, its rings and command circle, and (to move) its reach."""
        game, m, state = self.game, self.game.map, self.shown_state
        u = state.units[uid]
        p = _where(u)
        assert isinstance(p, tuple)
        reaches = unit_reach(game, uid, state)
        own = [r for r in reaches if r.around is None]
        radius = max((r.metres for r in own), default=0.0) or (
            DEFAULT_SIGHT_HEXES * m.hex_size_m
        )
        opts = game.ruleset.sight_options(state, uid, None)
        eye = float(opts.get("observer_height_m", 2.0))
        geom = simplified(m.viewshed(p, radius, observer_height_m=eye))
        self.visible_hexes = []
        self._drawn_key = (p, u.strength)
        props = {
            "unit": uid,
            "kind": "dem",
            "radius_m": radius,
            "style": dict(VIEWSHED_STYLE, weight=0),
        }
        self.viewshed_layer.data = geometry_geojson(m, geom, props)
        self.points.show_unit(uid, state)
        look = game.ruleset.unit_look(state, u)
        rings = ", ".join(
            f"{html.escape(r.label)} {r.metres:g} m"
            + (f" around {html.escape(r.around)}" if r.around else "")
            for r in reaches
        )
        going = game.ruleset.unit_going(state, uid)
        move = (
            f"; one move: {going.allowance_m:g} m of going (shaded)"
            if going is not None and self.points.can_move(uid)
            else ""
        )
        self.unit_info.value = (
            f"<div><b>{html.escape(u.name)}</b> ({html.escape(uid)}): "
            f"{html.escape(look.type_name or u.type)}, "
            f"{html.escape(look.state_text)}, {len(u.models)} model(s) at "
            f"{p[0]:.0f} E, {p[1]:.0f} N<br>rings: {rings or 'none'}{move}; "
            f"ground seen within {radius:g} m shaded (eyes at {eye:g} m).</div>"
        )

    def look_at_point(self, x: float, y: float) -> Any:
        """The sight line from the selected unit's nearest model to a point.

        Returns:
            The :class:`~wargame.geo.los.LOSResult` (``None``: no unit at a point
            selected).
        """
        state = self.shown_state
        sel = self.selected_unit
        if sel is None or _where(state.units[sel]) is None:
            self.message.value = error_html("Select a unit first.")
            return None
        u = state.units[sel]
        src = nearest_model(state, sel, x, y)
        opts = self.game.ruleset.sight_options(state, sel, None)
        r = self.game.map.los(src, (x, y), **opts)
        self._clear_target()
        self.los_result = r
        self.line_layer.data = sight_line_geojson(self.game.map, r)
        where = f"the point {x:.0f} E, {y:.0f} N"
        self.los_answer.value = los_html(r, observer=u.name, target=where)
        self.profile.value = profile_png(r, title=f"{u.name} → {x:.0f}, {y:.0f}")
        self.message.value = info_html(
            f"{u.name} {'sees' if r.visible else 'does not see'} {where} "
            f"({math.dist(src, (x, y)):.0f} m)."
        )
        self.tabs.selected_index = 1
        return r

    def pick_target(self, unit_id: str) -> None:
        """Show the sight line, terrain profile and attack odds to a target unit."""
        state = self.shown_state
        if self.selected_unit is None:
            self.message.value = error_html("Select a firing unit first.")
            return
        t = state.units.get(unit_id)
        if t is None or t.destroyed or _where(t) is None:
            self.message.value = error_html(f"No unit {unit_id!r} on the map.")
            return
        self.target_unit = unit_id
        self._show_target()
        self.tabs.selected_index = 1

    def _show_target(self) -> None:
        state = self.shown_state
        a = state.units[self.selected_unit]  # type: ignore[index]
        t = state.units[self.target_unit]  # type: ignore[index]
        m = self.game.map
        key = (a.hex, t.hex)
        if a.hex is None or t.hex is None:
            pa, pt = _where(a), _where(t)
            if (pa, pt) != self._los_key and pa is not None and pt is not None:
                self._los_key = (pa, pt)  # type: ignore[assignment]
                src = nearest_model(state, a.id, *pt)
                opts = self.game.ruleset.sight_options(state, a.id, t.id)
                r = m.los(src, pt, **opts)
                self.los_result = r
                self.line_layer.data = sight_line_geojson(m, r)
                self.los_answer.value = los_html(r, observer=a.name, target=t.name)
                self.profile.value = profile_png(r, title=f"{a.name} → {t.name}")
        elif key != self._los_key:
            self._los_key = key
            if a.hex == t.hex:
                self.los_result = None
                self.line_layer.data = dict(EMPTY)
                self.los_answer.value = info_html("Both units are in the same hex.")
                self.profile.value = b""
            else:
                r = m.los(a.hex, t.hex)
                self.los_result = r
                self.line_layer.data = sight_line_geojson(m, r)
                self.los_answer.value = los_html(r, observer=a.name, target=t.name)
                self.profile.value = profile_png(r, title=f"{a.hex} → {t.hex}")
        try:
            frame = odds_table(self.game, a.id, t.id, state)
            self.odds.value = odds_html(frame, a.name, t.name)
        except ValueError as exc:
            self.odds.value = info_html(f"No odds: {exc}")

    def _clear_target(self) -> None:
        self.target_unit = None
        self._los_key = None
        self.los_result = None
        self.line_layer.data = dict(EMPTY)
        self.los_answer.value = ""
        self.odds.value = ""
        self.profile.value = b""

    def clear_selection(self) -> None:
        """Remove the selected unit, its viewshed, rings and sight line."""
        self.selected_unit = None
        self._drawn_key = None
        self.visible_hexes = []
        self._clear_target()
        self.viewshed_layer.data = dict(EMPTY)
        self.rings_layer.data = dict(EMPTY)
        self.unit_info.value = ""
        self.moves.clear()
        self.points.clear()

    # ------------------------------------------------------------------ #
    # playing
    # ------------------------------------------------------------------ #
    def set_human(self, side: str | None) -> None:
        """Let a person play ``side`` (``None``: the AI plays both)."""
        if side is not None and side not in self.game.state.sides:
            self.message.value = error_html(
                f"Unknown side {side!r}; sides: {', '.join(self.game.state.sides)}"
            )
            return
        value = _AI if side is None else side
        if self.human_select.value != value:
            self.human_select.value = value  # -> _human_changed
        else:
            self._human_changed(side)

    def _human_changed(self, side: str | None) -> None:
        self.human = side
        self.message.value = ""
        if side is not None and self.auto_ai:
            self._ai_until_human()
        self.refresh()

    def _ai_turn(self) -> bool:
        side = self.game.current_side
        return side is not None and side != self.human

    def _not_ai(self) -> bool:
        if self.game.is_over:
            self.message.value = info_html("The game is over.")
            return True
        if not self._ai_turn():
            name = self.game.state.sides[self.game.current_side].name  # type: ignore[index]
            self.message.value = info_html(
                f"It is your decision ({name}): pick an action in 'Your move' or on "
                "the map."
            )
            self.tabs.selected_index = 2
            return True
        return False

    def _ai_until_human(self) -> None:
        """The AI plays until the person's decision: paced, or all at once."""
        if not self._ai_turn():
            return
        if self.paced:
            self.pacer.play()
            self.message.value = info_html(
                f"The AI plays at {self.pacer.speed:g} actions a second; "
                "Pause stops it."
            )
        else:
            self._play_ai(lambda: False)

    def _paced_step(self) -> bool:
        """One tick of Play: one AI action, shown; False to stop."""
        if self.game.is_over:
            self.message.value = info_html("The game is over.")
            return False
        if not self._ai_turn():
            self._not_ai()
            self._refresh_actions()
            return False
        self.game.step()
        self.refresh()
        if self.game.is_over or not self._ai_turn():
            self._not_ai()  # says whose decision it is, or that the game is over
            return False
        return True

    def _play_ai(self, until: Callable[[], bool]) -> int:
        n = 0
        while self._ai_turn() and not until() and n < MAX_AI_ACTIONS:
            self.game.step()
            n += 1
        return n

    def step(self) -> Action | None:
        """Let the AI play one action (a message if it is the person's turn)."""
        self.message.value = ""
        if self._not_ai():
            return None
        action = self.game.step()
        self.refresh()
        return action

    def end_turn(self) -> int:
        """Let the AI play to the end of the turn (or the person's decision)."""
        self.message.value = ""
        if self._not_ai():
            return 0
        turn = self.game.state.turn
        n = self._play_ai(lambda: self.game.state.turn != turn)
        self.refresh()
        return n

    def run_to_end(self) -> int:
        """Let the AI play to the end of the game (or the person's decision)."""
        self.message.value = ""
        if self._not_ai():
            return 0
        n = self._play_ai(lambda: False)
        self.refresh()
        return n

    def undo(self) -> int:
        """Take back the last action; with a person playing, back to their decision.

        Returns:
            The number of actions taken back.
        """
        self.message.value = ""
        self.pacer.pause()
        if not self.game.actions:
            self.message.value = info_html("Nothing to undo.")
            return 0
        n = 0
        while self.game.actions:
            self.game.undo()
            n += 1
            if self.human is None or self.game.current_side == self.human:
                break
        self.refresh()
        return n

    def reset(self, seed: int | None = None) -> None:
        """Start the scenario again with a seed (default: the seed field's)."""
        from wargame.engine import Game

        if seed is None:
            try:
                seed = parse_seed(self.seed_input.value)
            except ValueError as exc:
                self.message.value = error_html(str(exc))
                return
        if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
            self.message.value = error_html(
                f"The seed must be a whole number >= 0, not {seed!r}."
            )
            return
        self.pacer.pause()
        old = self.game
        self.game = Game(
            old.scenario, seed=seed, policies=old.policies, game_map=old.map
        )
        self.seed_input.value = str(seed)
        self.clear_selection()
        self.message.value = info_html(f"New game, seed {seed}.")
        if self.auto_ai and self.human is not None:
            self._ai_until_human()
        self.refresh()

    def apply_action(self, action: Action | Mapping[str, Any]) -> bool:
        """Apply the person's action; an illegal one leaves a message, nothing else.

        Returns:
            Whether the action was applied.
        """
        from wargame.engine import IllegalActionError

        self.message.value = ""
        if self.human is not None and self.game.current_side != self.human:
            self.message.value = error_html("It is not your decision now.")
            return False
        try:
            self.game.apply(action)
        except IllegalActionError as exc:
            self.message.value = error_html(f"Not allowed: {exc}")
            return False
        if self.auto_ai and self.human is not None:
            self._ai_until_human()
        self.refresh()
        return True

    def _do_chosen(self) -> None:
        idx = self.actions_list.value
        if idx is None or not (0 <= idx < len(self._actions)):
            self.message.value = error_html("Choose an action in the list first.")
            return
        self.apply_action(self._actions[idx])

    def _refresh_actions(self, only: list[Action] | None = None) -> None:
        game = self.game
        if self.human is None:
            self._actions = []
            note = "Choose a side under 'you play' to play it yourself."
        elif game.is_over:
            self._actions = []
            note = "The game is over."
        elif game.current_side != self.human:
            self._actions = []
            note = "The AI is deciding: press Step (or End of turn)."
        else:
            self._actions = list(only) if only else game.legal_actions()
            shown = "" if only is None else " (filtered: 'All actions' lists all)"
            note = f"<b>Your decision</b>: {len(self._actions)} legal actions{shown}."
        opts = [
            (f"{i + 1}. {game.describe(a)}", i) for i, a in enumerate(self._actions)
        ]
        if tuple(self.actions_list.options) != tuple(opts):
            self.actions_list.options = opts
        if opts and self.actions_list.value is None:
            self.actions_list.value = 0
        self.actions_note.value = note

    @property
    def legal_actions(self) -> list[Action]:
        """The actions listed in 'Your move' (empty unless it is the person's turn)."""
        return list(self._actions)

    # ------------------------------------------------------------------ #
    def _guard(self, fn: Callable[[], Any]) -> Any:
        """Run a button's work; any error becomes a message, never a traceback."""
        try:
            return fn()
        except Exception as exc:
            self.message.value = error_html(f"{type(exc).__name__}: {exc}")
            return None


def _where(u: Any) -> str | tuple[float, float] | None:
    """A unit's hex label, or its point as ``(x, y)`` map metres (``None``: off
    the map or destroyed)."""
    from wargame.engine import Point

    if u.destroyed:
        return None
    if u.hex is not None:
        return str(u.hex)
    p = u.position
    return (float(p.x), float(p.y)) if isinstance(p, Point) else None
