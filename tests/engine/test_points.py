"""Free movement, engine side: points in actions, saves and the log; the move
sampler; the point toy rule system through the conformance harness."""

from __future__ import annotations

import json
import math
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import toy_points as tp

from wargame.engine import (
    Action,
    ActionFormatError,
    Event,
    Game,
    IllegalActionError,
    Point,
    action_from_dict,
    candidate_moves,
    events_frame,
    load_scenario,
)
from wargame.engine.points import (
    as_allowance,
    as_path,
    as_point,
    check_on_map,
    distance,
)
from wargame.testing import check_ruleset
from wargame.testing.golden import event_line


def toy_data() -> dict[str, Any]:
    return tomllib.loads(tp.SCENARIO.read_text(encoding="utf-8"))


def game(seed: int = 2, **changes: Any) -> Game:
    data = toy_data()
    data.update(changes)
    return Game.from_scenario(data, seed=seed)


# --------------------------------------------------------------------------- #
# points in actions                                                           #
# --------------------------------------------------------------------------- #


@dataclass(frozen=True)
class Aim(Action):
    type = "aim"
    unit: str
    at: Point
    via: Point | None = None
    path: tuple[Point, ...] = ()
    route: tuple[Point, ...] | None = None


def test_point_and_path_fields_round_trip_through_json() -> None:
    a = Aim("u1", Point(376115, 5605139.25), None, (Point(1, 2), Point(3.5, 4)))
    raw = json.loads(json.dumps(a.to_dict()))
    assert raw["at"] == {"x": 376115.0, "y": 5605139.25}
    assert raw["path"] == [{"x": 1.0, "y": 2.0}, {"x": 3.5, "y": 4.0}]
    back = action_from_dict(raw, {"aim": Aim})
    assert back == a and isinstance(back.at, Point)  # type: ignore[attr-defined]
    assert all(isinstance(p, Point) for p in back.path)  # type: ignore[attr-defined]
    assert raw["route"] is None and back.route is None  # type: ignore[attr-defined]
    r = Aim("u1", Point(0, 0), route=(Point(0, 0), Point(5, 5)))
    assert action_from_dict(json.loads(json.dumps(r.to_dict())), {"aim": Aim}) == r


@pytest.mark.parametrize(
    ("field", "value", "words"),
    [
        ("at", {"x": float("nan"), "y": 1.0}, "'at': x is nan"),
        ("at", {"x": 1.0, "y": float("inf")}, "'at': y is inf"),
        ("at", {"x": "abc", "y": 1.0}, "'at': x must be a number"),
        ("at", "L12", "'at' must be a point"),
        ("path", [{"x": 1, "y": 2}, {"x": None, "y": 2}], "'path[1]': x must be"),
        ("path", {"x": 1, "y": 2}, "'path' must be a path"),
    ],
)
def test_bad_points_in_actions_name_the_field(
    field: str, value: Any, words: str
) -> None:
    raw = {"type": "aim", "unit": "u1", "at": {"x": 0, "y": 0}, field: value}
    with pytest.raises(ActionFormatError, match=re.escape("aim: field " + words)):
        action_from_dict(raw, {"aim": Aim})


def test_point_is_finite_float_and_places_only() -> None:
    assert Point(1, 2) == Point(1.0, 2.0) and type(Point(1, 2).x) is float
    assert json.dumps(Point(np.int64(3), 4).to_dict()) == '{"x": 3.0, "y": 4.0}'
    with pytest.raises(ValueError, match="Point: y: inf is not a finite"):
        Point(0, math.inf)
    with pytest.raises(ValueError, match="Point: x: 'abc' is not a number"):
        Point("abc", 0)  # type: ignore[arg-type]


# --------------------------------------------------------------------------- #
# bad input to the point helpers                                              #
# --------------------------------------------------------------------------- #


def test_point_helpers_refuse_bad_input_naming_the_argument() -> None:
    with pytest.raises(ValueError, match=r"^path: has 1 point; a path needs at least"):
        as_path([(0, 0)])
    with pytest.raises(ValueError, match=r"^route: has 0 points"):
        as_path([], "route")
    with pytest.raises(ValueError, match=r"^path\[1\]: y is nan"):
        as_path([(0, 0), (1, float("nan"))])
    with pytest.raises(ValueError, match=r"^to: x is -inf"):
        as_point((-math.inf, 0), "to")
    with pytest.raises(ValueError, match=r"^allowance_m: -5 is negative"):
        as_allowance(-5)
    with pytest.raises(ValueError, match=r"^allowance_m: nan is not a finite"):
        as_allowance(float("nan"))
    m = game().map
    with pytest.raises(ValueError, match=r"^to: \(0\.0, 0\.0\) is off the map; give x"):
        check_on_map(Point(0, 0), m, "to")
    with pytest.raises(ValueError, match=r"^allowance_m: -1 is negative"):
        candidate_moves(Point(373300, 5603450), -1)
    with pytest.raises(ValueError, match=r"^origin: x is nan"):
        candidate_moves((float("nan"), 0), 10)  # type: ignore[arg-type]


# --------------------------------------------------------------------------- #
# the move sampler                                                            #
# --------------------------------------------------------------------------- #


def test_candidate_moves_full_moves_objectives_and_command() -> None:
    o = Point(1000, 1000)
    full = candidate_moves(o, 100)
    assert [c.reason for c in full] == [
        f"full move {d}" for d in ("N", "NE", "E", "SE", "S", "SW", "W", "NW")
    ]
    assert all(abs(distance(o, c.point) - 100) < 0.1 for c in full)
    near = candidate_moves(
        o, 100, objectives={"hill": Point(1000, 1050), "town": Point(1000, 2000)}
    )
    assert near[0].reason == "to objective hill" and near[0].point == Point(1000, 1050)
    assert near[1].reason == "toward objective town"
    assert near[1].point == Point(1000, 1100)  # a full move toward it
    # in command: every destination within 60 m of the HQ at the origin
    cmd = candidate_moves(o, 100, command=(o, 60.0))
    assert len(cmd) == 8 and all(distance(o, c.point) <= 60.0 + 0.1 for c in cmd)
    # out of command: only moves that close on the HQ, and one straight back
    far = candidate_moves(o, 100, command=(Point(1000, 1500), 100.0))
    hq = Point(1000, 1500)
    assert far and all(distance(c.point, hq) < distance(o, hq) for c in far)
    assert Point(1000, 1100) in [c.point for c in far]  # straight back: 100 m
    assert candidate_moves(o, 0) == []


def test_candidate_moves_on_the_real_map_stay_on_it_and_find_cover() -> None:
    m = game().map
    xmin, ymin, _, _ = m.bounds
    corner = Point(xmin + 20, ymin + 20)
    got = candidate_moves(corner, 300, game_map=m)
    assert got and all(m.contains_xy(c.point.x, c.point.y) for c in got)
    # a field south-west of Remagen: the nearest cover is woods or town within reach
    field = Point(373450, 5603450)
    assert m.terrain_at(field.x, field.y) == "clear"
    cover = [
        c
        for c in candidate_moves(field, 300, game_map=m)
        if c.reason.startswith("to cover")
    ]
    assert len(cover) == 1
    p = cover[0].point
    assert m.terrain_at(p.x, p.y) in ("woods", "town")
    assert distance(field, p) <= 300
    keep = candidate_moves(
        field, 300, game_map=m, keep=lambda q: m.terrain_at(q.x, q.y) == "clear"
    )
    assert all(m.terrain_at(c.point.x, c.point.y) == "clear" for c in keep)


# --------------------------------------------------------------------------- #
# the log                                                                     #
# --------------------------------------------------------------------------- #


def test_point_columns_in_the_log_and_golden_lines() -> None:
    e = Event(1, 1, "play", kind="move", x_from=1.0, y_from=2.0, x_to=3.0, y_to=4.0)
    h = Event(2, 1, "play", kind="move", hex_from="L1", hex_to="L2")
    df = events_frame([e, h])
    assert df.loc[0, ["x_from", "y_from", "x_to", "y_to"]].tolist() == [1, 2, 3, 4]
    assert df[["x_from", "x_to"]].dtypes.eq("Float64").all()
    assert df.loc[1, ["x_from", "y_to"]].isna().all()
    assert '"x_to":3.0' in event_line(e)
    # hex events: the golden line as before the columns existed
    assert '"x_from"' not in event_line(h) and '"hex_from":"L1"' in event_line(h)


def test_moves_and_shots_log_their_points() -> None:
    g = game(seed=2)
    g.run()
    log = g.log
    moves = log[log["kind"] == "move"]
    assert (
        len(moves) and moves[["x_from", "y_from", "x_to", "y_to"]].notna().all().all()
    )
    shots = log[log["kind"] == "shoot"]
    assert len(shots) and shots[["x_from", "x_to"]].notna().all().all()
    first = moves.iloc[0]
    act = g.actions[first["action_index"]]
    assert isinstance(act, tp.Move)
    assert (first["x_from"], first["y_to"]) == (act.path[0].x, act.path[-1].y)


# --------------------------------------------------------------------------- #
# the toy point rule system                                                   #
# --------------------------------------------------------------------------- #


def test_toy_points_passes_check_ruleset() -> None:
    report = check_ruleset(
        "toypoints-1e",
        str(tp.SCENARIO),
        seeds=range(4),
        sampled=lambda a: isinstance(a, tp.Move),
    )
    assert report.games == 4 and report.leak_checks > 100
    assert report.actions_checked > 200 and report.refusals_checked >= 1


def test_point_game_saves_loads_and_continues_identically(tmp_path: Path) -> None:
    full = game(seed=3)
    full.run()
    half = len(full.actions) // 2
    part = game(seed=3)
    for a in full.actions[:half]:
        part.apply(a)
    path = part.save(tmp_path / "half.json")
    saved = json.loads(path.read_text())
    moves = [a for a in saved["actions"] if a["type"] == "move"]
    assert moves and all(set(p) == {"x", "y"} for a in moves for p in a["path"])
    loaded = Game.load(path)
    assert loaded.state.digest() == part.state.digest()
    assert loaded.actions == part.actions
    for a in full.actions[half:]:
        loaded.apply(a)
    assert [event_line(e) for e in loaded.events] == [
        event_line(e) for e in full.events
    ]
    assert loaded.state.digest() == full.state.digest()
    assert loaded.units.loc["r1", "x"] == full.units.loc["r1", "x"]


def test_check_accepts_any_legal_point_not_only_the_sampled_ones() -> None:
    g2 = game()
    p = g2.state.units["r-hq"].position
    assert isinstance(p, Point)
    to = Point(p.x + 17.3, p.y + 21.9)  # not a sampled point
    assert all(a != tp.Move("r-hq", (p, to)) for a in g2.legal_actions())
    g2.apply(tp.Move("r-hq", (p, to)))
    assert g2.state.units["r-hq"].position == to
    # a path of three points
    g3 = game()
    p0 = g3.state.units["r-hq"].position
    assert isinstance(p0, Point)
    path = (p0, Point(p0.x, p0.y + 30), Point(p0.x + 30, p0.y + 30))
    g3.apply({"type": "move", "unit": "r-hq", "path": [p.to_dict() for p in path]})
    assert g3.state.units["r-hq"].position == path[-1]
    assert g3.state.units["r-hq"].facing == 90  # the last leg runs east


def _unit_at(x: float, y: float, **extra: Any) -> dict[str, Any]:
    data = toy_data()
    for u in data["units"]:
        if u["id"] == "r-hq":
            u.update(x=x, y=y, **extra)
    return data


@pytest.mark.parametrize(
    ("path", "words"),
    [
        # east from the bank into the Rhine (water from about x 375445)
        ([(375380, 5604440), (375500, 5604440)], "impassable water at (3754"),
        # 300 m south through town and fields with 150 m of going
        ([(375380, 5604440), (375380, 5604140)], "over allowance at ("),
        ([(375380, 5604440)], "path: has 1 point"),
        ([(375380, 5604440), (375380, 5700000)], "path[1]: (375380.0, 5700000.0) is"),
        ([(375000, 5604440), (375010, 5604440)], "path[0] (375000.0, 5604440.0) is"),
    ],
)
def test_an_illegal_move_names_the_first_point_and_why(
    path: list[tuple[float, float]], words: str
) -> None:
    g = Game.from_scenario(_unit_at(375380.0, 5604440.0), seed=1)
    assert g.map.terrain_at(375380.0, 5604440.0) == "clear"
    before, n = g.state.digest(), len(g.events)
    with pytest.raises(IllegalActionError) as exc:
        g.apply(tp.Move("r-hq", tuple(Point(*p) for p in path)))
    assert words in str(exc.value)
    assert g.state.digest() == before and len(g.events) == n
    if "impassable" in words:
        # the point named is where the (simplified) water polygon starts along
        # the path; the 10 m land-cover raster's bank lies within 35 m ahead
        x = float(str(exc.value).split("at (")[1].split(",")[0])
        assert g.map.terrain_along([(x - 1, 5604440.0), (x + 1, 5604440.0)])[
            "class"
        ].tolist() == ["clear", "water"]
        assert g.map.terrain_at(x + 35, 5604440.0) == "water"
        assert g.map.terrain_at(x - 5, 5604440.0) != "water"
    if "over allowance" in words:
        y = float(str(exc.value).split("at (")[1].split(",")[1].split(")")[0])
        assert 5604440 - 150 <= y < 5604440  # stopped within the first 150 m


def test_a_move_out_of_command_is_refused_naming_where() -> None:
    # r1 120 m east of its HQ; 140 m further east ends 260 m from it (250 allowed)
    data = toy_data()
    for u in data["units"]:
        if u["id"] == "r1":
            del u["zone"]
            u.update(x=373420.0, y=5603450.0)
    g = Game.from_scenario(data, seed=1)
    start = g.state.units["r1"].position
    assert start == Point(373420.0, 5603450.0)
    before = g.state.digest()
    with pytest.raises(
        IllegalActionError,
        match=r"r1 cannot move: out of command at \(373560\.0, 5603450\.0\): 260 m "
        r"from its HQ, more than 250 m",
    ):
        g.apply(tp.Move("r1", (start, Point(373560.0, 5603450.0))))
    assert g.state.digest() == before
    g.apply(tp.Move("r1", (start, Point(373540.0, 5603450.0))))  # 240 m: fine


def test_illegal_shots_say_why() -> None:
    g = game()
    with pytest.raises(IllegalActionError, match="beyond r1's range of 400 m"):
        g.apply(tp.Shoot("r1", "b2"))
    with pytest.raises(IllegalActionError, match="no unit 'b1'"):
        g.apply(tp.Shoot("r1", "b1"))  # hidden from red: as if it did not exist


def test_load_of_toy_points_scenario_is_clean() -> None:
    sc = load_scenario(str(tp.SCENARIO))
    assert sc.reinforcements[0]["entry"] == [{"x": 373050.0, "y": 5603350.0}]


def test_models_frame_follows_a_move() -> None:
    g = game()
    before = g.models.set_index("model")
    assert list(before.loc[["r1.1", "r1.2", "r1.3"], "kind"]) == ["rifle team"] * 3
    assert (
        before.loc["r1.1", "radius_m"] == 1.0 and before.loc["r1.1", "facing"] == 45.0
    )
    assert "b1.1" in before.index  # the umpire's view: hidden units too
    assert before.loc["r3.1", ["x", "y"]].isna().all()  # not arrived yet
    p = g.state.units["r1"].position
    assert isinstance(p, Point)
    to = Point(p.x + 20, p.y)
    g.apply(tp.Move("r1", (p, to)))
    after = g.models.set_index("model")
    shift = (
        after.loc[["r1.1", "r1.2", "r1.3"], ["x", "y"]].to_numpy()
        - before.loc[["r1.1", "r1.2", "r1.3"], ["x", "y"]].to_numpy()
    )
    assert np.allclose(shift, [[20, 0]] * 3)  # the teams keep their formation
    assert (after.loc[["r1.1", "r1.2", "r1.3"], "facing"] == 90.0).all()
