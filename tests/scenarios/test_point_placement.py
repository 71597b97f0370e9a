"""Placing units and models at points on the real map (point rule systems):
every way of giving a position, the layouts, and each placement error naming
the file, the unit (and model), the position and the fix."""

from __future__ import annotations

import itertools
import math
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest

from wargame.engine import (
    Game,
    Point,
    ScenarioError,
    check_scenario,
    load_scenario,
    place_units,
)

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "engine"))
import toy_points as tp

#: On the water of the Rhine east of Remagen (land-cover class "water").
RHINE = (375500.0, 5604440.0)


def data() -> dict[str, Any]:
    return tomllib.loads(tp.SCENARIO.read_text(encoding="utf-8"))


def unit(d: dict[str, Any], uid: str) -> dict[str, Any]:
    return next(u for u in d["units"] if u["id"] == uid)


def toml_value(v: Any) -> str:
    if isinstance(v, str):
        return f'"{v}"'
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, list):
        return "[" + ", ".join(toml_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{k} = {toml_value(x)}" for k, x in v.items()) + " }"
    return repr(v)


def write(tmp_path: Path, d: dict[str, Any], name: str = "placed") -> Path:
    """The scenario as a TOML file (so messages name a file)."""
    lines = []
    tables = ("sides", "zones", "formations", "units", "reinforcements", "objectives")
    for k, v in d.items():
        if k not in tables and not isinstance(v, dict):
            lines.append(f"{k} = {toml_value(v)}")
    lines.append(
        "[map]\n" + "\n".join(f"{k} = {toml_value(v)}" for k, v in d["map"].items())
    )
    for t in tables:
        for item in d.get(t, []):
            lines.append(f"[[{t}]]")
            lines += [f"{k} = {toml_value(v)}" for k, v in item.items()]
    path = tmp_path / f"{name}.toml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def problems(tmp_path: Path, d: dict[str, Any]) -> list[str]:
    return check_scenario(str(write(tmp_path, d)))


# --------------------------------------------------------------------------- #
# the shipped toy scenario                                                    #
# --------------------------------------------------------------------------- #


def test_the_toy_scenario_places_every_unit_and_model_on_land() -> None:
    g = Game.from_scenario(str(tp.SCENARIO), seed=0)
    m = g.map
    zone = data()["zones"][0]["rect"]
    bases = []
    for u in g.state.units.values():
        if u.id == "r3":  # a reinforcement: not on the map yet
            assert u.position is None
            continue
        assert (
            isinstance(u.position, Point)
            and len(u.models) == tp.TYPES[u.type]["models"]
        )
        for md in u.models:
            assert isinstance(md.position, Point)
            assert m.terrain_at(md.position.x, md.position.y) != "water"
            assert md.radius_m == tp.TYPES[u.type]["radius_m"]
            bases.append((u.id, md))
        if u.id in ("r1", "r2"):  # laid out in the zone
            for md in u.models:
                assert isinstance(md.position, Point)
                assert zone[0] + 1 <= md.position.x <= zone[2] - 1
                assert zone[1] + 1 <= md.position.y <= zone[3] - 1
    for (_, a), (_, b) in itertools.combinations(bases, 2):
        assert isinstance(a.position, Point) and isinstance(b.position, Point)
        gap = math.hypot(a.position.x - b.position.x, a.position.y - b.position.y)
        assert gap >= a.radius_m + b.radius_m  # no two bases overlap
    # place plus bearing and distance: 1,050 m south-west of Remagen's point
    rx, ry = m.place_xy("Remagen")
    b1 = g.state.units["b1"].position
    assert isinstance(b1, Point)
    assert math.isclose(b1.x, rx - 1050 * math.sqrt(0.5), abs_tol=1e-3)
    assert math.isclose(b1.y, ry - 1050 * math.sqrt(0.5), abs_tol=1e-3)


def test_a_point_reinforcement_enters_at_its_point() -> None:
    g = Game.from_scenario(str(tp.SCENARIO), seed=0)
    while g.state.turn < 2:
        g.apply(tp.End())
    r3 = g.state.units["r3"]
    assert r3.position == Point(373050.0, 5603350.0)
    assert all(isinstance(md.position, Point) for md in r3.models)
    arrive = g.log[g.log["kind"] == "arrive"].iloc[0]
    assert (arrive["x_to"], arrive["y_to"]) == (373050.0, 5603350.0)


# --------------------------------------------------------------------------- #
# ways of giving a position, layouts                                          #
# --------------------------------------------------------------------------- #


def placed(d: dict[str, Any]) -> dict[str, Any]:
    sc = load_scenario(d)
    m = sc.load_map()
    out = place_units(sc, m, models=lambda raw: [tp.ModelSpec("team", 1.0)] * 3)
    assert out.problems == []
    return out.units


def test_lonlat_and_offsets() -> None:
    d = data()
    unit(d, "r-hq").update(x=None, y=None)
    del unit(d, "r-hq")["x"], unit(d, "r-hq")["y"]
    unit(d, "r-hq")["lonlat"] = [7.2280, 50.5730]
    u = unit(d, "b2")
    u.update(dx=-30.0, dy=12.5)
    got = placed(d)
    m = load_scenario(d).load_map()
    x, y = m.to_xy(7.2280, 50.5730)
    assert math.isclose(got["r-hq"].position.x, x) and math.isclose(
        got["r-hq"].position.y, y
    )
    assert got["b2"].position == Point(373850.0 - 30.0, 5603650.0 + 12.5)


@pytest.mark.parametrize(
    ("layout", "facing", "check"),
    [
        # abreast across the facing: facing east, the line runs north-south
        (
            "line",
            90,
            lambda ps: (
                {round(p.x, 6) for p in ps} == {373850.0}
                and sorted(round(p.y, 6) for p in ps)
                == [5603640.0, 5603650.0, 5603660.0]
            ),
        ),
        # one behind the other along the facing, the head in front
        (
            "column",
            90,
            lambda ps: (
                {round(p.y, 6) for p in ps} == {5603650.0}
                and [round(p.x, 6) for p in ps] == [373860.0, 373850.0, 373840.0]
            ),
        ),
        # a wedge facing north: the leader ahead, the others behind left and right
        (
            "wedge",
            0,
            lambda ps: (
                ps[0].y > ps[1].y and ps[1].y == ps[2].y and ps[1].x < ps[0].x < ps[2].x
            ),
        ),
    ],
)
def test_layouts(layout: str, facing: float, check: Any) -> None:
    d = data()
    unit(d, "b2").update(layout=layout, facing=facing, spacing_m=10.0)
    got = placed(d)["b2"]
    pts = [md.position for md in got.models]
    assert check(pts), pts
    assert all(md.facing == facing for md in got.models)


def test_models_with_their_own_positions_and_bases() -> None:
    d = data()
    unit(d, "b2")["models"] = [
        {"id": "mg", "kind": "machine-gun team", "radius_m": 1.5},
        {"kind": "rifle team", "dx": 0.0, "dy": -20.0, "facing": 180.0},
    ]
    got = placed(d)["b2"]
    a, b = got.models
    assert (a.id, a.kind, a.radius_m) == ("mg", "machine-gun team", 1.5)
    assert (b.id, b.kind, b.facing) == ("b2.2", "rifle team", 180.0)
    assert b.position == Point(373850.0, 5603630.0)


def test_a_boat_may_stand_in_the_rhine() -> None:
    d = data()
    d["units"].append(
        {"id": "boat1", "type": "boat", "formation": "B", "x": RHINE[0], "y": RHINE[1]}
    )
    assert check_scenario(d) == []


# --------------------------------------------------------------------------- #
# errors: file, unit, model, position, fix                                    #
# --------------------------------------------------------------------------- #


def test_a_model_in_the_rhine(tmp_path: Path) -> None:
    d = data()
    unit(d, "b2").update(x=RHINE[0], y=RHINE[1])
    path = tmp_path / "placed.toml"
    got = problems(tmp_path, d)
    assert got and all(p.startswith(f"{path}: units[5] ('b2')") for p in got)
    assert any(
        "(375500.0, 5604440.0) is in the water" in p and "move it onto land" in p
        for p in got
    ), got


def test_a_model_off_the_map(tmp_path: Path) -> None:
    d = data()
    unit(d, "b2").update(x=400000.0, y=5603650.0)
    assert problems(tmp_path, d) == [
        f"{tmp_path / 'placed.toml'}: units[5] ('b2').x: (400000.0, 5603650.0) is off "
        "the map (x 372590–376590, y 5602531–5606531); move it onto the map"
    ]


def test_a_base_overlapping_another(tmp_path: Path) -> None:
    d = data()
    unit(d, "b1").update(place=None)
    b1 = unit(d, "b1")
    for k in ("place", "bearing", "distance_m"):
        del b1[k]
    b1.update(x=373850.0, y=5603651.0, layout="column")  # 1 m from b2's middle
    got = problems(tmp_path, d)
    assert len(got) >= 1
    assert got[0].startswith(f"{tmp_path / 'placed.toml'}: units[5] ('b2').models[")
    assert "overlaps the base of model 'b1." in got[0] and "of unit 'b1'" in got[0]
    assert "move one of them" in got[0]


def test_a_zone_too_small_for_its_formation(tmp_path: Path) -> None:
    d = data()
    d["zones"].append(
        {"id": "pocket", "rect": [373700.0, 5603100.0, 373720.0, 5603120.0]}
    )
    unit(d, "r1")["zone"] = "pocket"  # a line of 3 at 10 m: 22 m wide
    got = problems(tmp_path, d)
    assert got == [
        f"{tmp_path / 'placed.toml'}: units[1] ('r1').zone: zone 'pocket' (20 × 20 m "
        "at (373700, 5603100)) is too small for its formation: a line of 3 models "
        "10 m apart is 22 m wide and 2 m deep, and does not fit anywhere; enlarge the "
        "zone, lower spacing_m or choose another layout"
    ]


def test_a_zone_full_of_other_units(tmp_path: Path) -> None:
    d = data()
    d["zones"].append(
        {"id": "pocket", "rect": [373700.0, 5603100.0, 373724.0, 5603108.0]}
    )
    for uid in ("r1", "r2"):  # the first fits (22 × 2 m), the second not beside it
        unit(d, uid).update(zone="pocket", layout="line", spacing_m=10.0, facing=0)
    got = problems(tmp_path, d)
    assert len(got) == 1 and "units[2] ('r2').zone: zone 'pocket'" in got[0]
    assert "clear of water and of the other units' bases" in got[0]


@pytest.mark.parametrize(
    ("change", "field", "words"),
    [
        (
            {"x": "abc"},
            "units[5] ('b2').x",
            "must be a finite number of metres, not 'abc'",
        ),
        ({"y": None}, "units[5] ('b2')", "give both x and y (map metres), or neither"),
        ({"facing": "east"}, "units[5] ('b2').facing", "must be a compass bearing"),
        (
            {"layout": "blob"},
            "units[5] ('b2').layout",
            "use one of line, column, wedge",
        ),
        ({"spacing_m": -1.0}, "units[5] ('b2').spacing_m", "above 0"),
        ({"zone": "nowhere"}, "units[5] ('b2').zone", "is not one of the [[zones]]"),
        ({"zonee": "red_start"}, "units[5] ('b2').zonee", "did you mean 'zone'?"),
        ({"bearing": 90.0}, "units[5] ('b2')", "give both bearing and distance_m"),
        ({"models": 0}, "units[5] ('b2').models", "give 1–200"),
    ],
)
def test_bad_position_values_are_refused_on_load(
    tmp_path: Path, change: dict[str, Any], field: str, words: str
) -> None:
    d = data()
    u = unit(d, "b2")
    for k, v in change.items():
        if v is None:
            u.pop(k)
        else:
            u[k] = v
    path = write(tmp_path, d)
    with pytest.raises(ScenarioError) as exc:
        load_scenario(str(path))
    assert any(
        p.startswith(f"{path}: {field}: ") and words in p for p in exc.value.problems
    ), exc.value.problems


def test_point_reinforcement_entries_are_checked(tmp_path: Path) -> None:
    d = data()
    d["reinforcements"][0]["entry"] = [{"x": 0.0, "y": 0.0}]
    assert problems(tmp_path, d) == [
        f"{tmp_path / 'placed.toml'}: reinforcements[0].entry[0].x: (0.0, 0.0) is off "
        "the map (x 372590–376590, y 5602531–5606531); move it onto the map"
    ]
    d["reinforcements"][0]["entry"] = [{"hex": "A1"}]
    with pytest.raises(ScenarioError, match=r"entry\[0\]\.hex: unknown key"):
        load_scenario(str(write(tmp_path, d)))


def test_degenerate_and_bad_lonlat_zones_are_problems_not_crashes(
    tmp_path: Path,
) -> None:
    d = data()
    d["zones"].append(
        {
            "id": "flat",
            "polygon": [
                [373700.0, 5603100.0],
                [373710.0, 5603110.0],
                [373720.0, 5603120.0],
            ],
        }
    )
    unit(d, "r1")["zone"] = "flat"
    unit(d, "r2")["zone"] = {"rect": [200.0, 50.0, 201.0, 51.0], "lonlat": True}
    got = problems(tmp_path, d)
    where = tmp_path / "placed.toml"
    assert got[0] == (
        f"{where}: zones[1] ('flat'): the zone has no area (its corners are on one "
        "line); give a real area"
    )
    assert len(got) == 2 and got[1].startswith(
        f"{where}: units[2] ('r2').zone: the zone "
    )
    assert "lon" in got[1]
