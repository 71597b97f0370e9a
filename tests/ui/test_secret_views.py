"""A person playing one side sees only what that side may know: the game view and
the replay of the toy rule system (a hidden squad, secret hands) on the real map."""

from __future__ import annotations

import pytest

pytest.importorskip("ipyleaflet")

from toy_ruleset import TOY_SCENARIO, Done, Play, Step

import wargame
from wargame.engine import Game
from wargame.ui import GameView, ReplayView


@pytest.fixture(scope="module")
def scenario() -> dict[str, object]:
    m = wargame.load_map(hex_size_m=150, window="Linz")
    x, y = m.to_xy(7.27, 50.57)
    return {
        **TOY_SCENARIO,
        "map": {"name": "rhine-remagen", "hex_size_m": 150, "window": "Linz"},
        "units": [
            {"id": "r1", "side": "red", "x": x, "y": y, "models": 5},
            {
                "id": "b1",
                "side": "blue",
                "x": x + 200,
                "y": y,
                "models": 5,
                "hidden": True,
            },
        ],
    }


def played(scenario: dict[str, object]) -> Game:
    g = Game.from_scenario(scenario, seed=1)
    g.apply(Play("red-plus1"))
    g.apply(Done())
    g.apply(Play("blue-plus2"))
    g.apply(Step("b1", -10.0, 0.0))  # blue's hidden squad steps
    return g


def drawn_units(view: GameView) -> set[str]:
    return {u for s in view.units.stacks.values() for u in s.units}


def test_the_game_view_of_a_human_side_hides_the_other_sides_secrets(scenario):
    g = played(scenario)
    red = GameView(g, human="red", auto_ai=False)
    assert drawn_units(red) == {"r1"}
    assert "b1" not in red.shown_log["unit"].dropna().tolist()
    assert "blue-plus2" not in red.log_table.value
    assert "b1" not in dict(red.log_unit.options).values()
    blue = GameView(g, human="blue", auto_ai=False)
    assert drawn_units(blue) == {"r1", "b1"}
    assert "b1" in blue.shown_log["unit"].dropna().tolist()
    umpire = GameView(g)
    assert drawn_units(umpire) == {"r1", "b1"}
    assert len(umpire.shown_log) == len(g.log) > len(red.shown_log)


def test_the_replay_of_a_side_shows_what_it_knew_event_by_event(scenario):
    g = played(scenario)
    red = ReplayView(g, side="red")
    assert all("b1" not in s.units for s in red.states)
    assert all(
        s.decks["hand:blue"] == ("?",) * len(s.decks["hand:blue"]) for s in red.states
    )
    assert len(red.states) == len(g.log_for("red")) + 1
    full = ReplayView(g)
    assert len(full.states) == len(g.log) + 1
    with pytest.raises(ValueError, match="unknown side 'green'"):
        ReplayView(g, side="green")
