"""GameView from Python: every control, click and panel (no browser)."""

from __future__ import annotations

import pytest
import shapely
from shapely.geometry import shape

pytest.importorskip("ipyleaflet")

from wargame.engine import Game, load_scenario
from wargame.render.game import unit_stacks
from wargame.render.symbols import svg_data_url
from wargame.rules.waw import unit_odds
from wargame.ui import GameView

SCENARIO = load_scenario("test_remagen")


def new_game(seed: int = 1) -> Game:
    return Game(SCENARIO, seed=seed)


@pytest.fixture
def view() -> GameView:
    return GameView(new_game())


def positions(v: GameView) -> dict[str, str]:
    return {u.id: u.hex for u in v.game.state.units.values() if not u.destroyed}


def step_until_a_move(v: GameView) -> dict[str, str]:
    before = positions(v)
    for _ in range(60):
        v.step()
        if positions(v) != before:
            return before
    raise AssertionError("no unit moved in 60 actions")


# --------------------------------------------------------------------------- #
# the map and its layers                                                      #
# --------------------------------------------------------------------------- #


def test_offline_terrain_picture_under_small_overlays_and_the_unit_layer(view):
    names = [layer.name for layer in view.leaflet.layers]
    assert names == [
        "terrain",
        "viewshed",
        "range rings",
        "destinations",
        "place names",  # over the picture and the overlays, under the units
        "selection",
        "path",
        "sight line",
        "last actions",
        "units",
        "dice",
    ]
    assert view.mapview.terrain.url.startswith("data:image/png;base64,")


def test_one_marker_per_stack_with_its_nato_symbol(view):
    stacks = unit_stacks(view.game)
    assert sorted(view.units.stacks) == sorted(s.hex for s in stacks)
    shown = [m for m in view.units.group.layers if m.visible]
    assert len(shown) == len(stacks)  # a few markers, never one per map hex
    for s in stacks:
        mk = view.units.marker_at(s.hex)
        assert mk.icon.icon_url == svg_data_url(s.svg)
        assert mk.location == pytest.approx((s.lat, s.lon))
        assert not mk.draggable


def test_web_tiles_are_optional_and_noted():
    v = GameView(new_game(), web_tiles=True)
    assert v.leaflet.layers[0].name == "OpenStreetMap"
    assert "offline" in v.mapview.note.value


# --------------------------------------------------------------------------- #
# clicking a unit: LOS polygon and range rings                                #
# --------------------------------------------------------------------------- #


def test_click_a_unit_draws_its_hex_viewshed_at_its_extended_range(view):
    view.units.click("H17")  # the T-72 platoon's marker (stacked with its HQ)
    assert view.selected_unit == "SU-T1"
    m = view.game.map
    expected = m.hex_viewshed("H17", range_hexes=17)
    assert sorted(view.visible_hexes) == sorted(expected.labels)
    (feat,) = view.viewshed_layer.data["features"]
    assert feat["properties"]["hexes_seen"] == len(expected.labels)
    assert feat["properties"]["kind"] == "hex"
    poly = shape(feat["geometry"])
    inside = [shapely.Point(*m.to_lonlat(*m.hex_center(h))) for h in expected.labels]
    assert all(poly.contains(p) for p in inside)
    hidden = [
        h
        for h in m.hexes.index
        if h not in expected.labels and m.grid.distance("H17", h) <= 17
    ]
    assert hidden  # the plateau edge and the woods hide part of the range
    assert not any(
        poly.contains(shapely.Point(*m.to_lonlat(*m.hex_center(h))))
        for h in hidden[:50]
    )


def test_click_a_unit_draws_normal_and_extended_range_rings(view):
    view.click_hex("H17")
    rings = {
        f["properties"]["ring"]: f["properties"]["hexes"]
        for f in view.rings_layer.data["features"]
    }
    # WaW 6.1.1: the T-72 reaches 1350 m / 2550 m = 9 / 17 hexes of 150 m
    assert rings == {"normal range": 9, "extended range": 17}
    assert "normal range 9 hexes (1350 m)" in view.unit_info.value
    assert "extended range 17 hexes (2550 m)" in view.unit_info.value


def test_clicking_a_stack_again_cycles_through_its_units(view):
    view.click_hex("H17")
    assert view.selected_unit == "SU-T1"
    view.click_hex("H17")
    assert view.selected_unit == "SU-HQ1"
    assert view.rings_layer.data["features"] == []  # an HQ has no weapons
    view.click_hex("H17")
    assert view.selected_unit == "SU-T1"


def test_dem_viewshed_toggle(view):
    view.click_hex("H17")
    view.dem_toggle.value = True
    (feat,) = view.viewshed_layer.data["features"]
    assert feat["properties"]["kind"] == "dem"
    view.dem_toggle.value = False
    assert view.viewshed_layer.data["features"][0]["properties"]["kind"] == "hex"


def test_pick_a_target_sight_line_profile_and_exact_odds(view):
    view.click_hex("H17")
    view.click_hex("N17")  # an enemy stack: a target
    assert view.target_unit == "US-M1"
    r = view.los_result
    assert r.visible == view.game.map.los("H17", "N17").visible
    parts = [f["properties"]["part"] for f in view.line_layer.data["features"]]
    assert parts == (["seen"] if r.visible else ["seen", "blocked"])
    assert view.profile.value[:4] == b"\x89PNG"
    p = unit_odds(view.game, "SU-T1", "US-M1", weapon="ap", results=True)
    assert f"{p['destroyed']:.1%}" in view.odds.value
    assert view.tabs.selected_index == 1
    view.clear_selection()
    assert view.viewshed_layer.data["features"] == []
    assert view.line_layer.data["features"] == []


# --------------------------------------------------------------------------- #
# bad clicks change nothing                                                   #
# --------------------------------------------------------------------------- #


def test_click_off_the_map_gives_a_message_and_changes_nothing(view):
    view.click_hex("H17")
    digest, sel = view.game.state.digest(), view.selected_unit
    layer = view.viewshed_layer.data
    assert view.click_lonlat(9.0, 50.0) is None
    assert "off the map" in view.message.value
    assert view.game.state.digest() == digest
    assert (view.selected_unit, view.viewshed_layer.data) == (sel, layer)


def test_click_an_empty_hex_gives_a_message_and_keeps_the_selection(view):
    view.click_hex("H17")
    layer = view.viewshed_layer.data
    view.click_hex("A1")
    assert "No unit in A1" in view.message.value
    assert view.selected_unit == "SU-T1"
    assert view.viewshed_layer.data == layer


# --------------------------------------------------------------------------- #
# controls                                                                    #
# --------------------------------------------------------------------------- #


def test_step_grows_the_log_and_moves_the_markers(view):
    n = len(view.game.log)
    before = step_until_a_move(view)
    assert len(view.game.log) > n
    assert view.log_table.value.count("<tr>") > min(n, 100)
    moved = [u for u, h in positions(view).items() if before.get(u) != h]
    for u in moved:
        h = view.game.state.units[u].hex
        assert u in view.units.stacks[h].units
        assert view.units.marker_at(h).visible


def test_step_button_is_the_step_control(view):
    n = len(view.game.actions)
    view.step_button.click()
    assert len(view.game.actions) == n + 1
    assert f"{n + 1} actions" in view.status.value


def test_dice_panel_shows_the_last_roll():
    v = GameView(new_game(1))
    while not any(e.dice for e in v.game.events):
        v.step()
    last = [e for e in v.game.events if e.dice][-1]
    assert "no dice" not in v.dice.value
    assert str(last.result) in v.dice.value
    assert f"#{last.seq} {last.kind}" in v.dice.value


def test_end_of_turn_and_run_to_the_end(view):
    start = view.game.state.turn
    view.turn_button.click()
    # the AI played up to the action that ended the turn, and no further (that
    # action may also end a following turn in which nobody can act)
    assert view.game.state.turn > start
    replay = new_game()
    for action in view.game.actions[:-1]:
        replay.apply(action)
    assert replay.state.turn == start
    view.run_button.click()
    assert view.game.is_over
    assert "game over" in view.status.value
    assert view.step_button.disabled and view.run_button.disabled
    n = len(view.game.actions)
    view.step()
    assert "over" in view.message.value and len(view.game.actions) == n


def test_undo_restores_the_state_and_the_markers(view):
    for _ in range(3):
        view.step()
    digest, stacks = view.game.state.digest(), dict(view.units.stacks)
    step_until_a_move(view)
    while len(view.game.actions) > 3:
        view.undo_button.click()
    assert view.game.state.digest() == digest
    assert view.units.stacks == stacks


def test_undo_with_nothing_to_undo_is_a_message(view):
    assert view.undo() == 0
    assert "Nothing to undo" in view.message.value


def test_reset_with_a_seed_reproduces_the_game(view):
    view.seed_input.value = "5"
    view.reset_button.click()
    assert view.game.seed == 5 and "seed 5" in view.status.value
    for _ in range(12):
        view.step()
    fresh = new_game(5)
    for _ in range(12):
        fresh.step()
    assert view.game.log.equals(fresh.log)
    assert view.game.state.digest() == fresh.state.digest()


def test_reset_with_a_bad_seed_changes_nothing(view):
    view.step()
    game = view.game
    view.reset(-3)
    assert view.game is game and "seed" in view.message.value


def test_log_filters_by_turn_side_and_unit(view):
    view.run_to_end()
    view.log_turn.value = "2"
    view.log_side.value = "pact"
    df = view.log_frame
    assert len(df) > 0 and set(df["turn"]) == {2} and set(df["side"]) == {"pact"}
    assert view.log_table.value.count("<tr>") == min(len(df), 100) + 1
    view.log_turn.value = "all"
    view.log_side.value = "all"
    view.log_unit.value = "SU-T1"
    df = view.log_frame
    assert ((df["unit"] == "SU-T1") | (df["target"] == "SU-T1")).all()


def test_one_tab_per_panel_of_the_rule_system(view):
    titles = [p.title for p in view.game.ruleset.panels(view.game.state, None)]
    assert list(view.panel_titles) == titles == ["Chit cup"]
    assert view.tabs.titles[-1] == "Chit cup"
    assert view.tabs.children[-1] is view.panels[0]
    cup = view.game.state.decks["cup"]
    assert f"<b>cup</b> ({len(cup)})" in view.panels[0].value
    for _ in range(5):
        view.step()
        cup = view.game.state.decks["cup"]
        assert f"<b>cup</b> ({len(cup)})" in view.panels[0].value


def test_no_panels_no_panel_tab(monkeypatch):
    g = new_game()
    monkeypatch.setattr(g.ruleset, "panels", lambda state, side: ())
    v = GameView(g)
    assert v.panel_titles == () and v.panels == []
    assert len(v.tabs.children) == 3


def test_a_rule_system_without_odds_says_so(view, monkeypatch):
    monkeypatch.setattr(view.game.ruleset, "odds_table", lambda *a: None)
    view.click_hex("H17")
    view.click_hex("N17")
    assert "no odds for this rule system" in view.odds.value


def test_game_view_method_returns_a_game_view():
    g = new_game()
    v = g.view()
    assert isinstance(v, GameView) and v.game is g


# --------------------------------------------------------------------------- #
# a person plays one side                                                     #
# --------------------------------------------------------------------------- #


@pytest.fixture
def human() -> GameView:
    return GameView(new_game(1), human="nato")


def test_the_ai_plays_until_the_person_must_decide(human):
    g = human.game
    assert g.current_side == "nato"
    assert human.legal_actions == g.legal_actions()
    labels = [label for label, _ in human.actions_list.options]
    assert labels[0].endswith(g.describe(g.legal_actions()[0]))
    assert "(you)" in human.status.value


def test_step_on_the_persons_decision_gives_a_message(human):
    n = len(human.game.actions)
    human.step()
    assert "your decision" in human.message.value
    assert len(human.game.actions) == n


def test_illegal_action_gives_a_message_and_changes_nothing(human):
    digest, n = human.game.state.digest(), len(human.game.log)
    ok = human.apply_action({"type": "move", "unit": "SU-T1", "to": "H16"})
    assert not ok and "Not allowed" in human.message.value
    assert human.game.state.digest() == digest and len(human.game.log) == n
    ok = human.apply_action({"type": "teleport"})
    assert not ok and "Not allowed" in human.message.value


def test_choose_an_action_from_the_list(human):
    n = len(human.game.actions)
    human.actions_list.value = 0
    human.do_button.click()
    assert len(human.game.actions) > n
    assert human.message.value == "" or "legal" not in human.message.value


def test_pick_a_move_on_the_map():
    g = new_game(1)
    v = GameView(g, human="nato")
    while not any(a.type == "move" for a in g.legal_actions()):
        v.apply_action(g.legal_actions()[0])
    move = next(a for a in g.legal_actions() if a.type == "move")
    v.click_hex(g.state.units[move.unit].hex)
    while v.selected_unit != move.unit:
        v.click_hex(g.state.units[move.unit].hex)
    v.click_hex(move.to)
    assert move in v.legal_actions
    assert all(a.to_dict().get("unit") == move.unit for a in v.legal_actions)
    assert "legal action" in v.message.value
    v.actions_list.value = v.legal_actions.index(move)
    v.do_button.click()
    assert move in g.actions


def test_a_map_click_with_no_legal_action_is_a_message():
    g = new_game(1)
    v = GameView(g, human="nato")
    uid = next(u for u in ("US-M1", "US-M2") if not g.state.units[u].destroyed)
    v.select_unit(uid)
    digest = g.state.digest()
    v.click_hex("A1")  # far away, empty
    assert "no legal action" in v.message.value
    assert g.state.digest() == digest


def test_undo_goes_back_to_the_persons_decision(human):
    g = human.game
    digest, n = g.state.digest(), len(g.actions)
    human.apply_action(g.legal_actions()[0])
    assert len(g.actions) > n
    human.undo()
    assert g.current_side == "nato"
    assert g.state.digest() == digest


def test_switching_sides_and_back_to_ai_only(human):
    human.set_human(None)
    assert human.human is None and human.legal_actions == []
    assert human.human_select.value == "__ai__"
    human.human_select.value = "pact"
    assert human.human == "pact" and human.game.current_side == "pact"
    human.set_human("nobody")
    assert "Unknown side" in human.message.value


def test_steps_redraw_the_sight_line_only_when_a_unit_moved(view, monkeypatch):
    import wargame.ui.gameview as gv

    view.click_hex("H17")
    view.click_hex("N17")
    drawn = []
    real = gv.profile_png
    monkeypatch.setattr(gv, "profile_png", lambda r, **kw: drawn.append(1) or real(r))
    ends = ("SU-T1", "US-M1")
    for _ in range(8):
        before = {u: view.game.state.units[u].hex for u in ends}
        view.step()
        if view.target_unit is None:
            break
        after = {u: view.game.state.units[u].hex for u in ends}
        assert len(drawn) == (before != after)  # no move: no new profile
        drawn.clear()
        assert "Exact odds" in view.odds.value  # the odds follow every step


def test_unit_layer_draws_point_stacks_and_clicks_their_hex():
    from wargame.engine import Point
    from wargame.ui.layers import UnitLayer

    g = new_game()
    st = g.state.copy()
    x, y = g.map.hex_center("K12")
    st.units["SU-T1"].position = Point(float(x) + 10.0, float(y))
    clicked: list[str] = []
    layer = UnitLayer(on_click=clicked.append)
    stacks = unit_stacks(g, st)
    layer.update(stacks)
    (s,) = [s for s in stacks if s.point is not None]
    assert layer.stacks[s.key] is s and "H17" in layer.stacks  # SU-HQ1 stays
    assert layer.marker_at(s.key).location == pytest.approx((s.lat, s.lon))
    layer.click(s.key)
    assert clicked == ["K12"]
