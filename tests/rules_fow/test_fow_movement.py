"""fow-v3 movement and going: the movement table as sourced, At the Double,
command distance, bogging (research/fow.md §8 E5) and going along paths on the
real Middle Rhine map, checked against the map's own layers."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np
import pytest
import shapely

from wargame.engine.present import Going
from wargame.geo.maps import load_map
from wargame.geo.terrain import ROAD_CLASSES, TERRAIN_CLASSES
from wargame.rules.fow.data import load_teams
from wargame.rules.fow.going import (
    AREA_GOING,
    CONCEALMENT,
    LINEAR_GOING,
    bog_chance,
    bog_check,
    concealed_in,
    fow_going,
    fow_goings,
    going_along,
    slope_going,
    terrain_going,
)
from wargame.rules.fow.movement import (
    GOINGS,
    GROUND_SCALE_M_PER_INCH,
    MOVEMENT_TABLE,
    command_distance_in,
    inches_to_m,
    most_restrictive,
    move_allowance_in,
    move_distance_in,
    movement_source,
)

T = load_teams()


@dataclass(frozen=True)
class Mover:
    mobility: str
    speed_class: str | None = None


# (team or (mobility, speed class)), then road, cross-country, slow, difficult,
# very difficult: research §2.2 (S2 tank rows [A]; S12 stop-gap rows, §10.1)
TABLE = [
    ("us_rifle_team", (6, 6, 6, 6, 6)),
    ("us_m1919_lmg", (6, 6, 6, 6, 6)),
    ("de_flak38", (4, 4, 4, 4, 0)),
    ("de_pak40", (2, 2, 2, 2, 0)),
    (("heavy_gun", None), (2, 2, 2, 2, 0)),
    (("immobile", None), (0, 0, 0, 0, 0)),
    ("us_m4a3_sherman", (12, 12, 8, 8, 8)),
    ("de_panzer_iv_h", (12, 12, 8, 8, 8)),
    (("fully_tracked", "light"), (16, 16, 8, 8, 8)),
    ("us_m3_halftrack", (16, 12, 4, 4, 0)),
    ("us_jeep", (16, 12, 4, 4, 0)),
    (("wheeled", None), (16, 8, 4, 4, 0)),
]


def _mover(key: object) -> object:
    return T[key] if isinstance(key, str) else Mover(*key)  # type: ignore[misc]


@pytest.mark.parametrize(("key", "row"), TABLE)
def test_movement_table(key: object, row: tuple[float, ...]) -> None:
    team = _mover(key)
    got = tuple(move_distance_in(team, g) for g in GOINGS)  # type: ignore[arg-type]
    assert got == (*row, 0.0)
    for g in GOINGS:
        src = movement_source(team, g)  # type: ignore[arg-type]
        assert src.startswith(("research/fow.md", "seed 004", "estimate: "))


def test_sources_name_the_tank_rows_and_the_stop_gap() -> None:
    assert "S2" in movement_source(T["us_m4a3_sherman"], "difficult")
    assert "S12" in movement_source(T["us_jeep"], "road")
    assert "S7" in movement_source(T["us_jeep"], "very_difficult")
    assert "§10.2" in movement_source(T["us_jeep"], "road", at_the_double=True)
    for cells, srcs in MOVEMENT_TABLE.values():
        assert len(cells) == len(srcs) == 5


def test_at_the_double_doubles() -> None:
    """research §10.2 stop-gap; Fast Tank 32" (S10 [B])."""
    for key, row in TABLE:
        team = _mover(key)
        for g, d in zip(GOINGS, row, strict=False):
            assert move_distance_in(team, g, at_the_double=True) == 2 * d  # type: ignore[arg-type]
    fast = Mover("fully_tracked", "fast")
    assert move_distance_in(fast, "cross_country", at_the_double=True) == 32.0
    assert move_distance_in(fast, "road", at_the_double=True) == 32.0
    assert move_distance_in(fast, "difficult", at_the_double=True) == 16.0


def test_most_restrictive_going_sets_the_whole_move() -> None:
    """Working rule, research §2.2 [C: S12]."""
    ht = T["us_m3_halftrack"]
    assert move_allowance_in(ht, ["road"]) == 16.0
    assert move_allowance_in(ht, ["road", "cross_country"]) == 12.0
    assert move_allowance_in(ht, ["road", "slow"]) == 4.0
    assert move_allowance_in(ht, ["road", "very_difficult"]) == 0.0
    assert most_restrictive(T["us_m4a3_sherman"], ["slow", "difficult"]) == "difficult"
    assert move_allowance_in(T["us_rifle_team"], ["road", "very_difficult"]) == 6.0
    with pytest.raises(ValueError, match="at least one"):
        most_restrictive(ht, [])
    with pytest.raises(ValueError, match="unknown going 'mud'"):
        move_distance_in(ht, "mud")


def test_command_distance() -> None:
    """research §2.5 (S12): Conscript 4/2, Trained 6/4, Veteran 8/6."""
    got = {
        (s, tank): command_distance_in(s, tank)
        for s in ("conscript", "trained", "veteran")
        for tank in (True, False)
    }
    assert got == {
        ("conscript", True): 4,
        ("conscript", False): 2,
        ("trained", True): 6,
        ("trained", False): 4,
        ("veteran", True): 8,
        ("veteran", False): 6,
    }
    assert command_distance_in("Veteran", False) == 6
    with pytest.raises(ValueError, match="unknown skill"):
        command_distance_in("elite", True)


def test_ground_scale() -> None:
    assert GROUND_SCALE_M_PER_INCH == 25.0
    assert inches_to_m(32) == 800.0  # PaK 40 range
    assert inches_to_m(12, metres_per_inch=20) == 240.0
    with pytest.raises(ValueError, match="positive"):
        inches_to_m(1, metres_per_inch=0)


# ------------------------------------------------------------------ bogging


def test_bog_check_per_going() -> None:
    """research §2.1: Slow no check, Difficult 2+, Very Difficult a Skill test."""
    assert [bog_check(g) for g in GOINGS] == [
        "none",
        "none",
        "none",
        "2+",
        "skill",
        "none",
    ]
    assert bog_check("difficult", overloaded=True) == "3+"
    assert bog_check("very_difficult", overloaded=True) == "skill"


def test_bog_chances_e5() -> None:
    """research §8 E5."""
    assert bog_chance("difficult") == Fraction(1, 6)
    assert bog_chance("difficult", overloaded=True) == Fraction(1, 3)
    assert bog_chance("very_difficult", skill="veteran") == Fraction(1, 3)
    assert bog_chance("very_difficult", skill="trained") == Fraction(1, 2)
    assert bog_chance("very_difficult", skill="conscript") == Fraction(2, 3)
    assert bog_chance("slow") == 0 and bog_chance("road") == 0
    with pytest.raises(ValueError, match="unknown skill"):
        bog_chance("very_difficult", skill="elite")


# ------------------------------------------------------- terrain and going


def test_every_map_class_has_a_going_and_concealment() -> None:
    for c in TERRAIN_CLASSES:
        assert terrain_going(c) in GOINGS
        assert isinstance(concealed_in(c), bool)
    for table in (AREA_GOING, LINEAR_GOING, CONCEALMENT):
        for _, src in table.values():
            assert src.startswith(("seed 004", "research/fow.md", "estimate: "))
    assert terrain_going("woods") == terrain_going("wetland") == "difficult"
    assert terrain_going("water") == "impassable"
    assert terrain_going("clear") == terrain_going("park") == "cross_country"
    assert concealed_in("woods") and concealed_in("crops")
    assert not concealed_in("clear") and not concealed_in("ploughed")
    with pytest.raises(ValueError, match="unknown terrain class"):
        terrain_going("lava")


def test_slope_going() -> None:
    assert [slope_going(g) for g in (0.0, 0.09, 0.1, 0.29, 0.3, 0.6, -0.7)] == [
        None,
        None,
        "slow",
        "slow",
        "very_difficult",
        "impassable",
        "impassable",
    ]


@pytest.fixture(scope="module")
def m():  # type: ignore[no-untyped-def]
    return load_map()


def _class_lengths(df: object) -> dict[str, float]:
    out: dict[str, float] = {}
    for c, length in zip(df["class"], df["length_m"], strict=True):  # type: ignore[index]
        out[c] = out.get(c, 0.0) + float(length)
    return out


def test_woods_path_matches_the_map_layers(m) -> None:  # type: ignore[no-untyped-def]
    """A straight 300 m path from woods into clear ground, no road or stream."""
    path = [(374920.0, 5602746.0), (375220.0, 5602746.0)]
    assert m.terrain_at(374930.0, 5602746.0) == "woods"
    assert m.features_crossed(path).empty
    ta = m.terrain_along(path)
    sherman = T["us_m4a3_sherman"]
    g = going_along(m, path, sherman, slope=False)
    by_class: dict[str, float] = {}
    for s in g.stretches:
        by_class[s.terrain_class] = by_class.get(s.terrain_class, 0.0) + s.length_m
        assert s.going == terrain_going(s.terrain_class)
        assert s.road_class is None
    want = _class_lengths(ta)
    assert by_class.keys() == want.keys()
    for c, length in want.items():
        assert by_class[c] == pytest.approx(length, abs=1e-6)
    assert g.lengths_m["difficult"] == pytest.approx(want["woods"])
    assert g.lengths_m["cross_country"] == pytest.approx(want["clear"])
    assert g.length_m == pytest.approx(300.0)
    assert g.goings == ("cross_country", "difficult")
    assert (g.most_restrictive, g.allowance_in) == ("difficult", 8.0)
    assert (g.bog_check, g.bog_going) == ("2+", "difficult")
    assert g.crossings == () and g.passable
    # infantry: the same going, no bogging, 6"
    inf = going_along(m, path, T["us_rifle_team"], slope=False)
    assert (inf.allowance_in, inf.bog_check) == (6.0, "none")


def test_stream_crossing_is_a_linear_obstacle(m) -> None:  # type: ignore[no-untyped-def]
    """Across the Ockenfelser Bach, through woods with a track along part."""
    path = [(378100.0, 5604500.0), (378100.0, 5604900.0)]
    fc = m.features_crossed(path)
    stream = fc[fc["kind"] == "waterway"].iloc[0]
    along = fc[(fc["kind"] == "road") & (fc["how"] == "along")].iloc[0]
    g = going_along(m, path, T["us_m4a3_sherman"], slope=False)
    (c,) = g.crossings
    assert (c.feature_class, c.going, c.bridged) == ("stream", "difficult", False)
    assert c.at_m == pytest.approx(stream["start_m"])
    assert c.name == stream["name"] == "Ockenfelser Bach"
    assert g.obstacles == (c,)
    roads = [s for s in g.stretches if s.going == "road"]
    assert len(roads) == 1 and roads[0].road_class == along["class"]
    assert roads[0].start_m == pytest.approx(along["start_m"])
    assert roads[0].end_m == pytest.approx(along["end_m"])
    # off the road, every stretch has its class's going; lengths add up
    ta = m.terrain_along(path)
    assert sum(s.length_m for s in g.stretches) == pytest.approx(ta["length_m"].sum())
    off = _class_lengths(ta)
    for s in g.stretches:
        if s.road_class is None:
            assert s.going == terrain_going(s.terrain_class)
        off[s.terrain_class] -= s.length_m
    assert all(abs(v) < 1e-6 for v in off.values())
    assert g.most_restrictive == "difficult" and g.bog_check == "2+"


def test_slopes_slow_vehicles_off_road(m) -> None:  # type: ignore[no-untyped-def]
    path = [(378100.0, 5604500.0), (378100.0, 5604900.0)]
    flat = going_along(m, path, T["us_m4a3_sherman"], slope=False)
    hilly = going_along(m, path, T["us_m4a3_sherman"])
    prof = m.slope_along(path).profile
    assert float(np.abs(prof["grade"]).max()) > 0.10  # a real hillside here
    assert "slow" in hilly.lengths_m and "slow" not in flat.lengths_m
    for s in hilly.stretches:
        if s.road_class is None and s.going == "slow":
            assert s.max_grade >= 0.10
    assert sum(hilly.lengths_m.values()) == pytest.approx(400.0)


def test_roads_are_road_going(m) -> None:  # type: ignore[no-untyped-def]
    """A path that follows a real secondary road: Road going all the way."""
    roads = m.layer("roads")
    x, y = m.place_xy("Remagen")
    box = shapely.box(x - 3000, y - 3000, x + 3000, y + 3000)
    sel = roads[
        (roads["class"] == "secondary")
        & shapely.intersects(roads["geometry"].to_numpy(), box)
        & ~roads["bridge"].astype(bool)
    ]
    geom = max(sel["geometry"], key=lambda g: g.length)
    line = shapely.LineString(geom.coords)
    path = np.array(
        [line.interpolate(d).coords[0] for d in np.linspace(0.0, 600.0, 13)]
    )
    ht = T["us_m3_halftrack"]
    g = going_along(m, path, ht)
    assert {s.going for s in g.stretches} == {"road"}
    assert {s.road_class for s in g.stretches} == {"secondary"}
    assert g.most_restrictive == "road" and g.allowance_in == 16.0
    assert g.bog_check == "none"


def test_rhine_bridge_and_ferry(m) -> None:  # type: ignore[no-untyped-def]
    """Over a road bridge the Rhine is road; where only a ferry runs it is water."""
    bridge = [
        (389812.4, 5586167.0),
        (389864.2, 5586216.9),
        (389954.8, 5586285.7),
        (390177.2, 5586422.9),
        (390652.3, 5586739.3),
    ]
    g = going_along(m, bridge, T["us_m4a3_sherman"])
    assert "water" in set(m.terrain_along(bridge)["class"])
    assert {s.going for s in g.stretches} == {"road"}
    assert g.crossings and all(c.going is None for c in g.crossings)
    ferry = [(380148.6, 5595901.6), (380180.7, 5595975.0), (380304.8, 5596062.0)]
    w = going_along(m, ferry, T["us_rifle_team"])
    assert w.most_restrictive == "impassable" and not w.passable
    assert w.allowance_in == 0.0


# ------------------------------------------------------- reach cost tables


def test_fow_going_cost_table() -> None:
    g = fow_going(T["us_m4a3_sherman"])
    assert isinstance(g, Going)
    assert g.allowance_m == 12 * GROUND_SCALE_M_PER_INCH
    assert g.factor("clear") == 1.0 and g.factor("woods") == 1.5
    assert g.factor("water") == float("inf")
    assert g.road_cost is not None and set(g.road_cost) == set(ROAD_CLASSES)
    ht = fow_going(T["us_m3_halftrack"], metres_per_inch=20.0, at_the_double=True)
    assert ht.allowance_m == 24 * 20.0 and ht.label == "at the double"
    assert ht.road_cost is not None and ht.road_cost["primary"] == 0.75
    assert ht.factor("woods") == 3.0
    assert fow_going(Mover("immobile")).allowance_m == 0.0  # type: ignore[arg-type]
    inf = fow_going(T["us_rifle_team"])
    assert inf.factor("woods") == 1.0 and inf.factor("town") == 1.0


def test_fow_goings_layers() -> None:
    layers = fow_goings(T["us_m4a3_sherman"])
    assert [g.allowance_m for g in layers] == [300.0, 200.0]
    assert layers[0].cost_per_class["woods"] is None
    assert layers[1].cost_per_class["woods"] == 1.0
    assert all(g.cost_per_class["water"] is None for g in layers)
    assert len(fow_goings(T["us_rifle_team"])) == 1
    assert len(fow_goings(T["us_m4a3_sherman"], start_class="woods")) == 1
    assert len(fow_goings(T["us_m4a3_sherman"], start_class="clear")) == 2


def test_exact_reach_inside_proportional_reach(m) -> None:  # type: ignore[no-untyped-def]
    """The working-rule reach (union of layers) never exceeds fow_going's."""
    team = T["us_m4a3_sherman"]
    origin = (375200.0, 5602746.0)  # clear ground, woods to the west
    g = fow_going(team)
    wide = m.reach_polygon(origin, g.allowance_m, g.cost_per_class, g.road_cost, 20.0)
    exact = shapely.union_all(
        [
            m.reach_polygon(origin, x.allowance_m, x.cost_per_class, x.road_cost, 20.0)
            for x in fow_goings(team, start_class=m.terrain_at(*origin))
        ]
    )
    assert exact.area > 0 and len(fow_goings(team, start_class="clear")) == 2
    assert exact.difference(wide.buffer(1.0)).area < 0.01 * exact.area
