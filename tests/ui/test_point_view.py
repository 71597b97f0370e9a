"""Units at free points in the game view (issue 19, item 6): models drawn at
their points with their facing, a unit's rings, reach and command circle,
click-a-unit-then-the-map to plan and make a move, and a sight line to any
clicked point, on the point toy rule system on the real map."""

from __future__ import annotations

import math
import tomllib
from typing import Any

import numpy as np
import pytest
import shapely
import toy_points as tp

from wargame.engine import Game, Point
from wargame.render.points import (
    FACING_TICK_M,
    models_geojson,
    plan_point_move,
    point_rings_geojson,
    reach_geojson,
)
from wargame.ui import GameView


def toy_game(seed: int = 2) -> Game:
    return Game.from_scenario(tp.SCENARIO, seed=seed)


@pytest.fixture
def game() -> Game:
    return toy_game()


def _xy(game: Game, lonlat: list[float]) -> tuple[float, float]:
    x, y = game.map.to_xy(lonlat[0], lonlat[1])
    return float(x), float(y)


def _lines_xy(game: Game, feature: dict[str, Any]) -> np.ndarray:
    lonlat = np.asarray(feature["geometry"]["coordinates"], dtype=float)
    x, y = game.map.to_xy(lonlat[:, 0], lonlat[:, 1])
    return np.column_stack([x, y])


# --------------------------------------------------------------------------- #
# drawing                                                                     #
# --------------------------------------------------------------------------- #


def test_every_model_is_a_dot_at_its_point_with_a_tick_toward_its_facing(game):
    feats = models_geojson(game)["features"]
    dots = [f for f in feats if f["geometry"]["type"] == "Point"]
    ticks = {
        f["properties"]["model"]: f
        for f in feats
        if f["geometry"]["type"] == "LineString"
    }
    placed = {
        m.id: m
        for u in game.state.units.values()
        if isinstance(u.position, Point) and not u.destroyed
        for m in u.models
    }
    assert {f["properties"]["model"] for f in dots} == set(placed)
    for f in dots:
        m = placed[f["properties"]["model"]]
        x, y = _xy(game, f["geometry"]["coordinates"])
        assert math.hypot(x - m.position.x, y - m.position.y) < 0.05
        assert f["properties"]["style"]["fillColor"].startswith("#")
        tick = _lines_xy(game, ticks[m.id])
        (x0, y0), (x1, y1) = tick[0], tick[-1]
        assert math.hypot(x1 - x0, y1 - y0) == pytest.approx(FACING_TICK_M, abs=0.1)
        bearing = math.degrees(math.atan2(x1 - x0, y1 - y0)) % 360
        assert abs((bearing - m.facing + 180) % 360 - 180) < 0.5
    # the reinforcement waiting off the map is not drawn
    assert not any(f["properties"]["unit"] == "r3" for f in dots)


def test_a_hidden_unit_is_not_drawn_for_the_other_side(game):
    seen_by_red = {
        f["properties"]["unit"]
        for f in models_geojson(game, game.state_for("red"))["features"]
    }
    seen_by_blue = {
        f["properties"]["unit"]
        for f in models_geojson(game, game.state_for("blue"))["features"]
    }
    assert "b1" not in seen_by_red
    assert "b1" in seen_by_blue
    view = GameView(game, human="red")
    layer = {f["properties"]["unit"] for f in view.points.models_layer.data["features"]}
    assert "b1" not in layer and {"r1", "r2", "b2"} <= layer


def test_rings_are_circles_around_the_unit_and_command_around_its_hq(game):
    st = game.state
    reach = game.ruleset.unit_reach(st, "r1")
    rings = {
        f["properties"]["ring"]: f
        for f in point_rings_geojson(game, st, "r1", reach)["features"]
    }
    assert set(rings) == {"command", "move", "range"}
    # plain GeoJSON (Leaflet draws nothing of a shapely "LinearRing")
    assert {f["geometry"]["type"] for f in rings.values()} == {"LineString"}
    for label, centre, radius in (
        ("command", st.units["r-hq"].position, tp.COMMAND_M),
        ("range", st.units["r1"].position, tp.TYPES["rifles"]["range_m"]),
        ("move", st.units["r1"].position, tp.TYPES["rifles"]["move_m"]),
    ):
        xy = _lines_xy(game, rings[label])
        d = np.hypot(xy[:, 0] - centre.x, xy[:, 1] - centre.y)
        assert np.allclose(d, radius, rtol=0.01), label
        assert (
            "wargame-range-" + label in rings[label]["properties"]["style"]["className"]
        )


def test_reach_is_the_ground_one_move_reaches(game):
    st = game.state
    fc = reach_geojson(game, st, "r1")
    (feat,) = fc["features"]
    lonlat = shapely.geometry.shape(feat["geometry"])
    poly = shapely.transform(
        lonlat, lambda c: np.column_stack(game.map.to_xy(c[:, 0], c[:, 1]))
    )
    here = st.units["r1"].position
    allowance = tp.TYPES["rifles"]["move_m"]
    assert poly.buffer(1.0).contains(shapely.Point(here.x, here.y))
    # no going is cheaper than clear: nothing beyond the allowance (plus a cell)
    far = shapely.Point(here.x, here.y).buffer(allowance * 1.03 + 15.0)
    assert far.contains(poly)
    assert 0.5 * math.pi * allowance**2 < poly.area <= math.pi * (allowance + 15) ** 2
    # a boat only reaches water: its reach lies in the Rhine
    assert feat["properties"]["allowance_m"] == allowance


# --------------------------------------------------------------------------- #
# planning a move                                                             #
# --------------------------------------------------------------------------- #


def test_a_planned_move_is_checked_and_priced_without_changing_the_game(game):
    here = game.state.units["r1"].position
    before = (len(game.actions), game.state.units["r1"].position)
    plan = plan_point_move(game, "r1", (here.x + 60.0, here.y + 60.0))
    assert plan.legal and plan.why is None
    assert plan.length_m == pytest.approx(math.hypot(60, 60))
    ground = game.map.terrain_along([plan.path[0], plan.path[1]])
    expected = sum(
        run * tp.GOING["foot"].get(c, 1.0)
        for c, run in zip(ground["class"], ground["length_m"], strict=True)
    )
    assert plan.cost_m == pytest.approx(expected)
    assert plan.action is not None and plan.action.path[-1] == Point(
        here.x + 60.0, here.y + 60.0
    )
    far = plan_point_move(game, "r1", (here.x + 600.0, here.y + 600.0))
    assert not far.legal and "over allowance at (" in str(far.why)
    assert far.cost_m is not None and far.cost_m > tp.TYPES["rifles"]["move_m"]
    assert (len(game.actions), game.state.units["r1"].position) == before


def test_a_move_into_the_rhine_names_the_impassable_water(game):
    m = game.map
    # the first water east of Remagen's centre, and a bank point 60 m short of it
    x0, y0 = m.place_xy("Remagen")
    xs = np.arange(x0, m.bounds[2], 5.0)
    water = float(next(x for x in xs if m.terrain_at(float(x), y0) == "water"))
    bank = (water - 60.0, y0)
    assert m.terrain_at(*bank) != "water"
    data = tomllib.loads(tp.SCENARIO.read_text(encoding="utf-8"))
    for u in data["units"]:
        if u["id"] == "r2":
            for k in ("zone", "layout", "place", "bearing", "distance_m"):
                u.pop(k, None)
            u.update(x=bank[0], y=bank[1])
    g = Game.from_scenario(data, seed=2)
    plan = plan_point_move(g, "r2", (water + 30.0, y0))
    assert not plan.legal
    assert "impassable water at (" in str(plan.why)
    assert plan.cost_m == math.inf and "going impassable" in plan.summary()
    here = g.state.units["r2"].position
    with pytest.raises(ValueError, match="to"):
        plan_point_move(g, "r2", (float("nan"), here.y))
    with pytest.raises(ValueError, match="to"):
        plan_point_move(g, "r2", (m.bounds[2] + 500.0, here.y))


# --------------------------------------------------------------------------- #
# the view: click a unit, click the map                                       #
# --------------------------------------------------------------------------- #


def test_click_a_unit_then_the_map_plans_then_makes_the_move(game):
    view = GameView(game, human="red")
    assert view.point_mode
    view.click_unit("r1")
    assert view.selected_unit == "r1"
    assert view.points.reach_layer.data["features"]
    assert {f["properties"]["ring"] for f in view.rings_layer.data["features"]} == {
        "command",
        "move",
        "range",
    }
    here = game.state.units["r1"].position
    models0 = [m.position for m in game.state.units["r1"].models]
    # too far: red path, the reason, the button stays off, nothing happens
    view.click_point(here.x + 700.0, here.y)
    assert view.points.button.disabled
    assert "over allowance" in view.message.value
    assert view.points.path_layer.data["features"][0]["properties"]["legal"] is False
    assert len(game.actions) == 0
    # a legal one: green path and its cost, then one press moves the unit
    to = (here.x + 50.0, here.y + 40.0)
    view.click_point(*to)
    assert not view.points.button.disabled
    assert "Move here" in view.message.value and "going" in view.message.value
    view.points.button.click()
    assert len(game.actions) == 1
    u = game.state.units["r1"]
    assert math.hypot(u.position.x - to[0], u.position.y - to[1]) < 0.01
    for m0, m1 in zip(models0, (m.position for m in u.models), strict=True):
        assert m1.x - m0.x == pytest.approx(50.0, abs=0.01)
        assert m1.y - m0.y == pytest.approx(40.0, abs=0.01)
    log = game.log
    row = log[log["kind"] == "move"].iloc[-1]
    assert row["x_to"] == pytest.approx(to[0], abs=0.01)
    assert row["y_to"] == pytest.approx(to[1], abs=0.01)
    # it has moved: no reach shaded any more; no hex outlined by the clicks
    assert not view.points.reach_layer.data["features"]
    assert not view.mapview.selection.data["features"]
    # the dots followed the move
    dots = [
        f
        for f in view.points.models_layer.data["features"]
        if f["properties"]["unit"] == "r1" and f["geometry"]["type"] == "Point"
    ]
    x, y = _xy(game, dots[0]["geometry"]["coordinates"])
    assert math.hypot(x - u.models[0].position.x, y - u.models[0].position.y) < 0.05
    # a second move of the same unit is refused by the rules, with their reason
    view.click_unit("r1")
    view.click_point(to[0] + 20.0, to[1])
    assert view.points.button.disabled and "moved this turn" in view.message.value


def test_look_mode_draws_the_sight_line_of_the_nearest_model(game):
    view = GameView(game, human="red")
    view.click_unit("r2")
    view.points.mode_toggle.value = "look"
    here = game.state.units["r2"].position
    target = (here.x + 300.0, here.y + 200.0)
    view.click_point(*target)
    r = view.los_result
    assert r is not None and view.line_layer.data["features"]
    src = min(
        (m.position for m in game.state.units["r2"].models),
        key=lambda p: math.hypot(p.x - target[0], p.y - target[1]),
    )
    ref = game.map.los(
        (src.x, src.y),
        target,
        observer_height_m=2.0,
        target_height_m=2.0,
        hex_rule=False,
    )
    assert r.visible == ref.visible
    assert ("sees" if ref.visible else "does not see") in view.message.value
    assert len(game.actions) == 0  # looking moves nothing


def test_an_enemy_unit_clicked_gets_the_point_sight_line(game):
    view = GameView(game)  # the umpire's view: every unit shown
    view.click_unit("r2")
    view.click_unit("b2")
    assert view.selected_unit == "r2" and view.target_unit == "b2"
    assert view.los_result is not None
    t = game.state.units["b2"].position
    src = min(
        (m.position for m in game.state.units["r2"].models),
        key=lambda p: math.hypot(p.x - t.x, p.y - t.y),
    )
    ref = game.map.los(
        (src.x, src.y),
        (t.x, t.y),
        observer_height_m=2.0,
        target_height_m=2.0,
        hex_rule=False,
    )
    assert view.los_result.visible == ref.visible
    assert view.line_layer.data["features"] and view.los_answer.value


def test_a_unit_that_may_not_move_now_looks_instead(game):
    view = GameView(game, human="red")
    view.click_unit("b2")  # an enemy unit selected first: it cannot move
    assert not view.points.reach_layer.data["features"]
    here = game.state.units["b2"].position
    view.click_point(here.x - 100.0, here.y)
    assert view.los_result is not None and len(game.actions) == 0


def test_hex_games_have_no_point_layers():
    view = GameView(Game.from_scenario("test_remagen", seed=1))
    assert not view.point_mode
    assert view.points.models_layer not in view.leaflet.layers


def test_the_replay_draws_the_models_where_they_stood(game):
    from wargame.ui import ReplayView

    here = game.state.units["r1"].position
    plan = plan_point_move(game, "r1", (here.x + 50.0, here.y))
    assert plan.action is not None
    game.apply(plan.action)
    replay = ReplayView(game)
    assert replay.models_layer is not None

    def r1_x() -> float:
        dots = [
            f
            for f in replay.models_layer.data["features"]  # type: ignore[union-attr]
            if f["properties"]["model"] == "r1.1"
        ]
        return _xy(game, dots[0]["geometry"]["coordinates"])[0]

    x_end = game.state.units["r1"].models[0].position.x
    replay.show(0)
    assert r1_x() == pytest.approx(x_end - 50.0, abs=0.05)
    replay.show(len(replay.states) - 1)
    assert r1_x() == pytest.approx(x_end, abs=0.05)
