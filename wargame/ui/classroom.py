"""ClassroomApp: pick a scenario, play a side against the AI, watch the log.

Made for a projector and Voila (``voila notebooks/classroom.ipynb``): no code on
screen, big buttons, the seed always visible.  The scenario list is every
``scenarios/*.toml`` found; the AI list is whatever the policy registry offers.
"""

from __future__ import annotations

import html
from typing import Any

import ipywidgets as w

from .common import (
    close_tree,
    error_html,
    make_policy,
    parse_seed,
    policy_names,
    scenario_choices,
)
from .gameview import GameView

__all__ = ["ClassroomApp"]

_WATCH = "__watch__"


def _default_policy(names: list[str]) -> str:
    for name in ("doctrine", "random"):  # a sensible opponent first
        if name in names:
            return name
    return names[0]


class ClassroomApp(w.VBox):  # type: ignore[misc]
    """The classroom app: a scenario picker over a :class:`GameView`.

    Args:
        scenario: scenario name to start with (default: the first listed).
        side: the side the class plays (``None``: watch the AI play both).
        policy: AI policy name (default: ``doctrine`` when the registry has it,
            else ``random``).
        seed: dice seed.
        height: CSS height of the map.
        speed: the pace at which the AI's actions are shown (actions a second).

    The game view below has one set of controls: the seed and the side are
    chosen here only; its Play / Pause plays the AI at the chosen pace, and the
    AI's actions before the class's decision are shown one by one at that pace.
    """

    def __init__(
        self,
        scenario: str | None = None,
        *,
        side: str | None = None,
        policy: str | None = None,
        seed: int = 1,
        height: str = "calc(100vh - 215px)",
        speed: float = 1.0,
    ) -> None:
        self.height = height
        self.speed = speed
        choices = scenario_choices()
        names = [n for _, n in choices]
        if scenario is None and names:
            scenario = names[0]
        self.scenario = w.Dropdown(
            options=choices,
            value=scenario if scenario in names else None,
            description="scenario",
            style={"description_width": "initial"},
            layout=w.Layout(width="360px"),
        )
        self.scenario.add_class("wargame-scenario")
        pols = policy_names()
        self.policy = w.Dropdown(
            options=pols,
            value=policy if policy in pols else _default_policy(pols),
            description="AI",
            style={"description_width": "initial"},
            layout=w.Layout(width="170px"),
        )
        self.side = w.Dropdown(
            description="class plays",
            style={"description_width": "initial"},
            layout=w.Layout(width="250px"),
        )
        # a text field: a number field would turn -5 into 0 without a word
        self.seed = w.Text(
            value=str(seed),
            description="seed",
            style={"description_width": "initial"},
            layout=w.Layout(width="130px"),
        )
        self.seed.add_class("wargame-classroom-seed")
        self.start_button = w.Button(
            description="New game", icon="play", button_style="primary"
        )
        self.start_button.add_class("wargame-new-game")
        self.message = w.HTML()
        self.briefing_text = w.HTML()
        self.briefing = w.Accordion(children=[self.briefing_text])
        self.briefing.set_title(0, "Briefing")
        self.briefing.selected_index = None
        self.game_box = w.VBox([], layout=w.Layout(width="100%"))
        # the replay: built on demand from the game so far (as the class saw it)
        self.replay_button = w.Button(
            description="Replay the game so far",
            icon="history",
            layout=w.Layout(width="auto"),
        )
        self.replay_button.add_class("wargame-replay-button")
        self.replay_button.on_click(lambda _: self.show_replay())
        self.replay_box = w.VBox([self.replay_button], layout=w.Layout(width="100%"))
        self.replay_view: Any = None
        self.view: GameView | None = None
        self.scenario.observe(lambda _: self._sides(), "value")
        self.start_button.on_click(lambda _: self.start())
        title = w.HTML(
            "<b style='font-size:130%;margin-right:10px'>Wargame classroom</b>"
        )
        super().__init__(
            [
                w.HBox(
                    [
                        title,
                        self.scenario,
                        self.side,
                        self.policy,
                        self.seed,
                        self.start_button,
                    ],
                    layout=w.Layout(flex_flow="row wrap", align_items="center"),
                ),
                self.message,
                self.game_box,
                self.briefing,
                self.replay_box,
            ],
            layout=w.Layout(width="100%"),
        )
        self.add_class("wargame-classroom")
        self._sides(side)
        if self.scenario.value is not None:
            self.start()
        else:
            self.message.value = error_html(
                "No scenario found: put scenario files in scenarios/."
            )

    def _sides(self, keep: str | None = None) -> None:
        from wargame.engine import load_scenario

        name = self.scenario.value
        opts: list[tuple[str, Any]] = [("nobody: watch AI vs AI", _WATCH)]
        self.briefing_text.value = ""
        if name is not None:
            try:
                sc = load_scenario(name)
            except ValueError as exc:
                self.message.value = error_html(str(exc))
            else:
                opts += [(str(s.get("name", s["id"])), s["id"]) for s in sc.sides]
                text = sc.data.get("briefing") or sc.data.get("description") or ""
                if text:
                    self.briefing_text.value = (
                        f"<div style='max-width:900px;color:#333'>"
                        f"{html.escape(str(text))}</div>"
                    )
        self.side.options = opts
        values = [v for _, v in opts]
        self.side.value = keep if keep in values else _WATCH

    def show_replay(self) -> Any:
        """A :class:`~wargame.ui.ReplayView` (slider and play) of the game so far,
        with what the class's side knew (everything when it watches)."""
        from .replay import ReplayView

        if self.view is None:
            self.message.value = error_html("Start a game first.")
            return None
        old = self.replay_view
        self.replay_view = ReplayView(
            self.view.game, side=self.view.human, height="420px"
        )
        self.replay_box.children = [self.replay_button, self.replay_view]
        if old is not None:
            close_tree(old)
        return self.replay_view

    @property
    def game(self) -> Any:
        """The game being played (``None`` before the first start)."""
        return self.view.game if self.view is not None else None

    def start(self) -> GameView | None:
        """Start the chosen scenario with the chosen side, AI and seed."""
        from wargame.engine import Game, load_scenario

        self.message.value = ""
        name = self.scenario.value
        if name is None:
            self.message.value = error_html("Choose a scenario first.")
            return None
        try:
            seed = parse_seed(self.seed.value)
        except ValueError as exc:
            self.message.value = error_html(str(exc))
            return None
        try:
            sc = load_scenario(name)
            sides = [s["id"] for s in sc.sides]
            policies = {s: make_policy(self.policy.value, sc.ruleset) for s in sides}
            game = Game.from_scenario(sc, seed=seed, policies=policies)
        except (ValueError, OSError) as exc:
            self.message.value = error_html(f"Cannot start {name}: {exc}")
            return None
        human = None if self.side.value == _WATCH else self.side.value
        if self.view is not None:
            self.view.pacer.pause()
        view = GameView(
            game,
            human=human,
            height=self.height,
            paced=True,
            speed=self.view.pacer.speed if self.view is not None else self.speed,
            setup_controls=False,
            counter_scale=1.5,
        )
        view.leaflet.layout.min_height = "300px"
        view.policy_labels = dict.fromkeys(sides, self.policy.value)
        view.refresh()
        old, self.view = self.view, view
        self.game_box.children = [view]
        if old is not None:
            # the last game's widgets (map, layers, log table...) are freed, not
            # kept in the kernel for the rest of the lesson
            close_tree(old)
        return view
