"""ReplayView, LOSInspector, ClassroomApp and the no-widgets fallback (no browser)."""

from __future__ import annotations

import subprocess
import sys

import pytest

pytest.importorskip("ipyleaflet")

import wargame
from wargame.engine import Game, SaveFileError, load_scenario
from wargame.render.game import unit_stacks
from wargame.ui import ClassroomApp, LOSInspector, ReplayView
from wargame.ui import common as ui_common

SCENARIO = load_scenario("test_remagen")


@pytest.fixture(scope="module")
def played() -> Game:
    g = Game(SCENARIO, seed=2)
    g.run()
    return g


# --------------------------------------------------------------------------- #
# ReplayView                                                                  #
# --------------------------------------------------------------------------- #


def test_replay_slider_shows_the_state_after_each_event(played):
    r = ReplayView(played)
    assert r.slider.max == len(played.events)
    states = [s for _, s in played.replay()]
    for i in (1, len(states) // 2, len(states)):
        r.slider.value = i
        assert r.position == i
        assert r.state.digest() == states[i - 1].digest()
        expected = {s.hex: s.units for s in unit_stacks(played, states[i - 1])}
        assert {h: s.units for h, s in r.units.stacks.items()} == expected
        assert f"Event {i}/" in r.event.value
    r.show(0)
    assert "Set-up" in r.event.value
    assert r.state.digest() == played.initial_state.digest()


def test_replay_buttons_step_and_clamp(played):
    r = ReplayView(played)
    r.next_button.click()
    r.next_button.click()
    assert r.position == 2 and r.slider.value == 2
    r.prev_button.click()
    assert r.position == 1
    r.show(10**6)
    assert r.position == len(played.events)


def test_replay_shows_the_dice_of_a_roll(played):
    r = ReplayView(played)
    i = next(k for k, e in enumerate(played.events, 1) if e.dice)
    r.show(i)
    assert "wargame-die" in r.dice.value


def test_replay_from_a_save_file(played, tmp_path):
    path = played.save(tmp_path / "game.json")
    r = ReplayView(str(path))
    assert len(r.states) == len(played.events) + 1
    with pytest.raises(SaveFileError, match="no such file"):
        ReplayView(tmp_path / "missing.json")


# --------------------------------------------------------------------------- #
# LOSInspector                                                                #
# --------------------------------------------------------------------------- #


@pytest.fixture
def inspector() -> LOSInspector:
    return LOSInspector(wargame.load_map(window="Remagen"))


def test_two_clicks_give_the_sight_line_and_its_profile(inspector):
    m = inspector.map
    a, b = m.to_lonlat(*m.hex_center("N17")), m.to_lonlat(*m.hex_center("H17"))
    inspector.mapview.click_lonlat(*a)
    assert "now click the target" in inspector.answer.value
    assert len(inspector.points_layer.data["features"]) == 1
    inspector.mapview.click_lonlat(*b)
    r = m.los(m.hex_center("N17"), m.hex_center("H17"))
    assert len(inspector.points_layer.data["features"]) == 2
    assert inspector.line_layer.data["features"]
    assert inspector.profile.value[:4] == b"\x89PNG"
    row = inspector.history.iloc[-1]
    assert (row["kind"], row["visible"]) == ("line", r.visible)
    assert "<table" in inspector.table.value


def test_one_click_gives_a_viewshed_that_follows_the_sliders(inspector):
    m = inspector.map
    inspector.mode.value = "viewshed"
    inspector.mapview.click_lonlat(*m.to_lonlat(*m.hex_center("N17")))
    (feat,) = inspector.viewshed_layer.data["features"]
    assert feat["properties"]["radius_m"] == inspector.radius.value
    first = inspector.history.iloc[-1]["visible_km2"]
    inspector.eye.value = 30.0  # a mast: sees more
    inspector.radius.value = 1500
    rows = inspector.history
    assert list(rows["kind"]) == ["viewshed"] * 3
    assert rows.iloc[1]["eye_m"] == 30.0
    assert rows.iloc[1]["visible_km2"] >= first


def test_inspector_bad_input_is_a_message(inspector):
    inspector.mapview.click_lonlat(9.0, 50.0)
    assert "off the map" in inspector.message.value
    inspector.inspect_line("N17", "H17")
    inspector.eye.value = 0.5
    assert inspector.history.iloc[-1]["eye_m"] == 0.5


# --------------------------------------------------------------------------- #
# ClassroomApp                                                                #
# --------------------------------------------------------------------------- #


def test_classroom_lists_every_scenario_file_and_starts_a_game():
    from wargame.engine.scenario import available_scenarios

    app = ClassroomApp()
    assert sorted(n for _, n in app.scenario.options) == sorted(available_scenarios())
    assert app.view is not None and app.game.seed == 1
    sides = load_scenario(app.scenario.value).sides
    assert [v for _, v in app.side.options][1:] == [s["id"] for s in sides]


def test_classroom_plays_a_side_against_the_ai():
    app = ClassroomApp("test_remagen", side="pact", seed=4)
    assert app.view.human == "pact"
    assert app.game.current_side == "pact"
    app.side.value = "nato"
    app.seed.value = "9"
    app.start_button.click()
    assert app.view.human == "nato" and app.game.seed == 9
    assert app.game_box.children == (app.view,)


def test_classroom_new_game_frees_the_last_games_widgets():
    # a lesson restarts many games: the old view (map, layers, tables) is closed
    app = ClassroomApp("test_remagen", seed=4)
    old = app.view
    parts = [old, *old.children]
    assert all(p.comm is not None for p in parts)
    app.start_button.click()
    assert app.view is not old and app.view.comm is not None
    assert all(p.comm is None for p in parts)
    app.view.step_button.click()  # the new game still plays
    assert len(app.game.actions) >= 1


def test_classroom_offers_the_policies_of_the_registry(monkeypatch):
    from wargame.engine import policy as registry

    class Cautious:
        def choose(self, decision):
            return decision.legal_actions[0]

    monkeypatch.setattr(registry, "_POLICIES", dict(registry._POLICIES))
    registry.register_policy("cautious", Cautious, ruleset="waw-classic")
    assert ui_common.policy_names("waw-classic") == [
        "cautious",
        "doctrine",
        "greedy",
        "random",
    ]
    app = ClassroomApp("test_remagen", policy="cautious")
    assert app.policy.value == "cautious"
    assert all(isinstance(p, Cautious) for p in app.game.policies.values())
    assert "AI: cautious" in app.view.status.value


def test_an_unknown_policy_names_the_rule_systems_policies():
    assert type(ui_common.make_policy("random", "waw-classic")).__name__ == (
        "RandomPolicy"
    )
    with pytest.raises(
        ValueError,
        match="unknown policy 'chess-engine' for "
        "waw-classic; available: doctrine, greedy, random",
    ):
        ui_common.make_policy("chess-engine", "waw-classic")


# --------------------------------------------------------------------------- #
# no widget library: the offline picture and a note, no traceback             #
# --------------------------------------------------------------------------- #


def test_without_ipyleaflet_the_views_degrade_to_the_offline_picture():
    code = (
        "import sys; sys.modules['ipyleaflet'] = None\n"
        "from wargame.engine import Game\n"
        "g = Game.from_scenario('test_remagen', seed=1)\n"
        "v = g.view()\n"
        "h = v._repr_html_()\n"
        "assert 'pip install' in h and 'ipyleaflet' in h, h[:300]\n"
        "assert h.count('<img') > 5\n"
        "print('ok')\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=300
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"
