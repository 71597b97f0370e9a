"""Paced play, the last actions on the map, seeds, one set of controls, the CSV
download and actions in words (Python-side widget state, no browser)."""

from __future__ import annotations

import asyncio
import base64
import concurrent.futures
import dataclasses
import io
import json
import typing

import pandas as pd
import pytest

pytest.importorskip("ipyleaflet")

import ipywidgets as w

from wargame.engine import Game, load_scenario
from wargame.engine.ruleset import RulesetBase
from wargame.render.trail import FADE_STEPS, RESULT_COLOURS, step_marks
from wargame.ui import ClassroomApp, GameView
from wargame.ui.pacing import Pacer

SCENARIO = load_scenario("test_remagen")


def tree(root):
    seen, todo = [], [root]
    while todo:
        x = todo.pop()
        if isinstance(x, w.Widget) and all(x is not s for s in seen):
            seen.append(x)
            todo.extend(getattr(x, "children", ()))
    return seen


# --------------------------------------------------------------------------- #
# paced play                                                                  #
# --------------------------------------------------------------------------- #


def test_classroom_shows_the_ai_actions_one_by_one_before_the_class_decides():
    # NATO decides second in test_remagen: the Pact AI acts first
    app = ClassroomApp("test_remagen", side="nato", seed=1)
    view = app.view
    assert len(app.game.actions) == 0  # no silent batch before the first decision
    assert view.pacer.playing and view.pace.toggle.description == "Pause"
    seen = []
    while view.pacer.playing:
        n = len(app.game.actions)
        view.pacer.tick()
        seen.append(len(app.game.actions) - n)
    assert seen and set(seen) == {1}  # each tick: one action, shown
    assert app.game.current_side == "nato"
    assert "your decision" in view.message.value
    assert view.pace.toggle.value is False and view.pace.toggle.description == "Play"


def test_pause_stops_the_play_and_play_resumes_it():
    view = GameView(Game(SCENARIO, seed=2))
    view.pace.toggle.value = True  # the browser's Play
    assert view.pacer.playing
    view.pacer.tick()
    assert len(view.game.actions) == 1
    view.pace.toggle.value = False  # Pause
    assert not view.pacer.tick()
    assert len(view.game.actions) == 1
    view.pace.toggle.value = True
    view.pacer.tick()
    assert len(view.game.actions) == 2


def test_play_runs_on_the_event_loop_at_its_pace_and_pause_cancels_it():
    view = GameView(Game(SCENARIO, seed=3))

    async def go() -> tuple[int, int, int]:
        view.pace.speed.value = 4.0
        assert view.pacer.play() is True
        assert view.pacer.scheduled
        # no timing asserted: wait (up to a minute on a loaded machine) until
        # the timer has played something, then pause
        for _ in range(600):
            await asyncio.sleep(0.1)
            if view.game.actions:
                break
        played = len(view.game.actions)
        view.pace.toggle.value = False
        stopped = len(view.game.actions)
        await asyncio.sleep(0.6)
        return played, stopped, len(view.game.actions)

    # a loop of its own in a thread: the test process may already run one
    # (Playwright's sync API keeps a loop in the main thread)
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        played, stopped, later = pool.submit(asyncio.run, go()).result(timeout=120)
    assert played >= 1
    assert later == stopped  # nothing after Pause
    assert not view.pacer.scheduled


@pytest.mark.parametrize("bad", [9.0, 0.1, -1.0])
def test_a_speed_out_of_range_is_refused_with_a_message(bad):
    view = GameView(Game(SCENARIO, seed=1))
    view.pace.speed.value = 2.0
    assert view.pacer.speed == 2.0
    view.pace.speed.value = bad
    assert "out of range" in view.message.value and "0.25 to 4" in view.message.value
    assert view.pacer.speed == 2.0 and view.pace.speed.value == 2.0
    with pytest.raises(ValueError, match="out of range"):
        Pacer(lambda: True, speed=bad)


# --------------------------------------------------------------------------- #
# the last actions on the map                                                 #
# --------------------------------------------------------------------------- #


def test_the_last_move_and_shot_are_drawn_on_the_map_and_fade():
    game = Game(SCENARIO, seed=1)
    view = GameView(game)
    for _ in range(5):  # the BRDM moves I18 -> I19 and the M60s fire at it
        view.step()
    feats = view.marks.lines.data["features"]
    moves = [f for f in feats if f["properties"]["mark"] == "move"]
    shots = [f for f in feats if f["properties"]["mark"] == "shot"]
    assert any(f["properties"]["hexes"] == ["I18", "I19"] for f in moves)
    hit = [f for f in shots if f["properties"]["hexes"] == ["N17", "I19"]]
    assert hit and hit[0]["properties"]["style"]["color"] == RESULT_COLOURS["hit"]
    assert hit[0]["properties"]["dice"] == [1, 6, 2, 3]
    # the dice beside the line, as faces
    assert any(m.visible and "wargame-die" in m.icon.html for m in view.marks._markers)
    # the latest action is drawn strongest; older ones fade, then go
    ages = {f["properties"]["age"]: f["properties"]["style"]["opacity"] for f in feats}
    assert ages[0] == max(ages.values())
    for _ in range(FADE_STEPS + 3):
        view.step()
    left = [f["properties"]["hexes"] for f in view.marks.lines.data["features"]]
    assert ["I18", "I19"] not in left


def test_marks_read_only_neutral_columns_and_miss_is_dashed():
    log = pd.DataFrame(
        {
            "action_index": [0, 1, 1],
            "unit": ["a", "b", "b"],
            "kind": ["move", "fire", "save"],
            "hex_from": ["A1", "B2", None],
            "hex_to": ["A2", "C3", "C3"],
            "dice": [None, (2, 3), (5,)],
            "hits": [pd.NA, 0, pd.NA],
            "result": [None, "0 hits", "saved"],
            "detail": ["", "", ""],
        }
    )
    marks = step_marks(log)
    assert [(m["mark"], m["hexes"], m["age"]) for m in marks] == [
        ("move", ["A1", "A2"], 1),
        ("shot", ["B2", "C3"], 0),
        ("dice", ["C3"], 0),
    ]
    assert marks[1]["result"] == "miss" and marks[2]["result"] == "roll"


def test_marks_follow_what_the_side_may_see():
    # the person's view shows only marks of the events that side saw
    view = GameView(Game(load_scenario("coh_hidden_village"), seed=1))
    view.set_human(next(iter(view.game.state.sides)))
    for _ in range(20):
        if view.game.is_over:
            break
        view.game.step()
    view.refresh()
    shown = view.shown_log
    seen = {(tuple(m["hexes"]), m["age"]) for m in step_marks(shown)}
    drawn = {
        (tuple(f["properties"]["hexes"]), f["properties"]["age"])
        for f in view.marks.data["features"]
        if f["properties"]["mark"] != "dice"
    }
    assert drawn <= seen


# --------------------------------------------------------------------------- #
# one set of controls, seeds                                                  #
# --------------------------------------------------------------------------- #


def test_the_classroom_has_one_seed_field_and_one_side_picker():
    app = ClassroomApp("test_remagen", seed=4)
    widgets = tree(app)
    seeds = [x for x in widgets if getattr(x, "description", None) == "seed"]
    sides = [
        x
        for x in widgets
        if isinstance(x, w.Dropdown) and x.description in ("class plays", "you play")
    ]
    assert seeds == [app.seed] and sides == [app.side]


@pytest.mark.parametrize("bad", ["-5", "abc", "1.5", ""])
def test_a_bad_seed_is_refused_with_a_message_and_nothing_changes(bad):
    app = ClassroomApp("test_remagen", seed=4)
    view, game = app.view, app.game
    app.seed.value = bad
    app.start_button.click()
    assert "whole number &gt;= 0" in app.message.value
    assert app.view is view and app.game is game and game.seed == 4
    gv = GameView(Game(SCENARIO, seed=3))
    old = gv.game
    gv.seed_input.value = bad
    gv.reset_button.click()
    assert "whole number &gt;= 0" in gv.message.value and gv.game is old


# --------------------------------------------------------------------------- #
# the CSV download                                                            #
# --------------------------------------------------------------------------- #


def test_download_gives_a_csv_pandas_reads_back_with_the_same_rows():
    view = GameView(Game(SCENARIO, seed=1))
    for _ in range(12):
        view.step()
    view.download.button.click()
    link = view.download.link.value
    assert "download='log.csv'" in link
    b64 = link.split("base64,", 1)[1].split("'", 1)[0]
    back = pd.read_csv(io.BytesIO(base64.b64decode(b64)))
    log = view.shown_log
    assert len(back) == len(log) and list(back.columns) == list(log.columns)
    assert list(back["seq"]) == list(log["seq"])
    rolled = log[log["dice"].notna()]
    got = back.loc[rolled.index, "dice"].map(json.loads)
    assert [list(d) for d in rolled["dice"]] == list(got)


# --------------------------------------------------------------------------- #
# every action in words                                                       #
# --------------------------------------------------------------------------- #


def _sample(cls, state, rs):
    unit = next(iter(state.units))
    hexes = [u.hex for u in state.units.values() if u.hex]
    values = {}
    for f in dataclasses.fields(cls):
        hint = typing.get_type_hints(cls)[f.name]
        text = str(hint)
        if f.default is not dataclasses.MISSING:
            values[f.name] = f.default
        elif "tuple" in text:
            values[f.name] = (unit,)
        elif hint is int:
            values[f.name] = 1
        elif f.name in ("to", "hex"):
            values[f.name] = hexes[0]
        elif f.name == "support":
            values[f.name] = next(iter(rs.supports))
        elif f.name == "formation":
            values[f.name] = next(iter(state.formations))
        else:
            values[f.name] = unit
    return cls(**values)


@pytest.mark.parametrize("scenario", ["ludendorff_bridgehead", "coh_tanks_ridge"])
def test_every_action_type_of_the_rule_system_renders_as_words(scenario):
    game = Game(load_scenario(scenario), seed=1)
    rs, state = game.ruleset, game.state
    for type_, cls in rs.action_types.items():
        action = _sample(cls, state, rs)
        text = rs.describe(state, action)
        assert text and "{" not in text and "':" not in text, (type_, text)
        assert cls.__name__ + "(" not in text, (type_, text)
        # the rule system's own words, not the engine's field-list fallback
        if len(action.to_dict()) > 1:
            assert text != RulesetBase().describe(state, action), (type_, text)


# --------------------------------------------------------------------------- #
# moves: destinations and a path in one confirm                               #
# --------------------------------------------------------------------------- #


def _pact_view_with_a_long_move():
    # test_remagen seed 1: after two Pact actions, BMP-1 platoon SU-B2 can go
    # several hexes in one go (found by the path search over legal moves)
    game = Game(SCENARIO, seed=1)
    view = GameView(game, human="pact", auto_ai=False)
    for _ in range(2):
        game.step()
    view.refresh()
    return view


def test_legal_destinations_are_highlighted_when_a_unit_is_selected():
    view = _pact_view_with_a_long_move()
    game = view.game
    view.select_unit("SU-B2")
    one_step = {
        a.to for a in game.legal_actions() if a.type == "move" and a.unit == "SU-B2"
    }
    drawn = {
        f["id"]: f["properties"]["steps"]
        for f in view.moves.dest_layer.data["features"]
    }
    assert one_step and one_step <= set(drawn)
    assert all(drawn[h] == 1 for h in one_step)
    assert max(drawn.values()) > 1  # farther hexes, along legal moves


def test_a_destination_several_hexes_away_moves_along_the_path_in_one_confirm():
    view = _pact_view_with_a_long_move()
    game = view.game
    view.select_unit("SU-B2")
    far = max(view.moves.paths, key=lambda h: len(view.moves.paths[h]))
    hexes = view.moves.path_hexes(far)
    n0 = len(game.actions)
    view.click_hex(far)
    assert view.moves.planned == far and not view.moves.button.disabled
    assert " → ".join(hexes) in view.message.value
    line = view.moves.path_layer.data["features"][0]
    assert line["properties"]["hexes"] == hexes
    view.moves.button.click()
    walked = [
        r.hex_to
        for r in game.log.itertuples()
        if r.kind == "move" and r.unit == "SU-B2" and r.action_index >= n0
    ]
    # every hex of the path, or a clear stop where the rules handed over
    if game.state.units["SU-B2"].hex == far:
        assert walked == hexes[1:]
        assert "moved" in view.message.value
    else:
        assert walked == hexes[1 : 1 + len(walked)]
        assert "stopped at" in view.message.value
    assert all(a.type == "move" for a in game.actions[n0:])


def test_a_path_stops_and_says_why_when_a_step_becomes_illegal():
    view = _pact_view_with_a_long_move()
    game = view.game
    view.select_unit("SU-B2")
    far = max(view.moves.paths, key=lambda h: len(view.moves.paths[h]))
    view.click_hex(far)
    # the path goes stale: another unit acts first, so a step is refused
    path = view.moves.paths[far]
    bad = dataclasses.replace(path[1], to="A1")
    view.moves.paths[far] = [path[0], bad, *path[2:]]
    view.moves.button.click()
    assert "stopped at" in view.message.value
    assert len([a for a in game.actions if a.type == "move"]) >= 1
    assert game.state.units["SU-B2"].hex != "A1"


def test_no_destinations_for_the_other_sides_unit_or_off_turn():
    view = _pact_view_with_a_long_move()
    view.select_unit("US-M1")
    assert view.moves.dest_layer.data["features"] == []
    view.set_human("nato")
    view.select_unit("SU-B2")
    assert view.moves.paths == {}


# --------------------------------------------------------------------------- #
# projector: hex grid toggle, counter size                                     #
# --------------------------------------------------------------------------- #


def test_hex_grid_toggle_swaps_in_the_picture_with_hex_outlines_and_back():
    view = GameView(Game(SCENARIO, seed=1))
    plain = view.mapview.terrain.url
    view.mapview.grid_toggle.value = True
    grid = view.mapview.terrain.url
    assert grid != plain and grid.startswith("data:image/png;base64,")
    view.mapview.grid_toggle.value = False
    assert view.mapview.terrain.url == plain


def test_the_classroom_counters_are_larger_for_a_projector():
    from wargame.render.symbols import SYMBOL_SIZE

    app = ClassroomApp("test_remagen", seed=1)
    mk = next(iter(app.view.units._markers.values()))
    assert mk.icon.icon_size[0] == round(SYMBOL_SIZE[0] * 1.5)


def test_the_replay_draws_the_last_actions_up_to_its_position():
    from wargame.ui import ReplayView

    game = Game(SCENARIO, seed=1)
    game.run(turns=1)
    replay = ReplayView(game)
    replay.show(9)  # after the M60 platoon's first shot at the BRDM in I19
    shots = [
        f["properties"]["hexes"]
        for f in replay.marks.lines.data["features"]
        if f["properties"]["mark"] == "shot"
    ]
    assert ["N17", "I19"] in shots
    replay.show(0)
    assert replay.marks.lines.data["features"] == []


def test_the_classroom_replays_the_game_so_far_as_the_class_saw_it():
    app = ClassroomApp("test_remagen", side="nato", seed=1)
    app.view.pacer.drain()
    app.replay_button.click()
    replay = app.replay_view
    assert replay in app.replay_box.children and replay.side == "nato"
    assert replay.slider.max == len(app.game.log_for("nato"))
    replay.show(replay.slider.max)
    assert replay.state.digest() == app.game.state_for("nato").digest()
