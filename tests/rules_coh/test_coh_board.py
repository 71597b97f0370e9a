"""The CoH 2e board: real terrain of a Westerwald window, move costs, arcs, LOS.

Geographic facts are for the "Partisans" window (50 m hexes, 1.25 km around
Sessenhausen, levels of 12.5 m) and a small window on the Rhine bridge at
Weißenthurm.  Rule set-ups are built on a flattened copy of the Partisans board
(:meth:`CohBoard.with_changes`), so each LOS case holds exactly the hexes it names.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

import wargame
from wargame.geo.hexgrid import AXIAL_DIRECTIONS
from wargame.geo.maps import Map
from wargame.geo.terrain import TERRAIN_CLASSES
from wargame.rules.coh._terrain import DATA_FILE, TerrainDataError, load_chart
from wargame.rules.coh.board import CohBoard, Sight, board_for, los_agreement

PARTISANS = {"place": "Sessenhausen", "width_m": 1250, "height_m": 1250}
RHINE_BRIDGE = {"bbox": (390000, 5586150, 390800, 5586850)}  # Weißenthurm–Neuwied


@pytest.fixture(scope="module")
def pmap() -> Map:
    return wargame.load_map(hex_size_m=50, window=PARTISANS)


@pytest.fixture(scope="module")
def board(pmap: Map) -> CohBoard:
    return board_for(pmap)


@pytest.fixture(scope="module")
def flat(board: CohBoard) -> CohBoard:
    """The Partisans board made open level-0 ground everywhere."""
    return board.with_changes(
        {h: {"terrain": "open", "level": 0} for h in board.labels}
    )


def walk(b: CohBoard, start: str, d: int, k: int) -> str:
    """The hex ``k`` steps from ``start`` in direction ``d``."""
    q, r = b.grid.axial_of_label(start)
    dq, dr = AXIAL_DIRECTIONS[d]
    return b.grid.label_of(q + k * dq, r + k * dr)


def setup(b: CohBoard, **hexes: tuple[str, int]) -> CohBoard:
    return b.with_changes(
        {h: {"terrain": t, "level": lv} for h, (t, lv) in hexes.items()}
    )


# -- real geography ------------------------------------------------------------ #
def test_window_size_and_levels(pmap: Map, board: CohBoard) -> None:
    assert (pmap.grid.n_cols, pmap.grid.n_rows) == (30, 26)
    assert len(board.labels) == 765
    assert min(board.level.values()) == 0 and max(board.level.values()) == 3
    # the north-west ridge above Sessenhausen vs the southern valley floor
    assert board.level["E1"] == 3 and board.level["H24"] == 0
    assert board.elevation_m["E1"] - board.elevation_m["H24"] > 3 * 12.5
    assert board.base_m == pytest.approx(board.elevation_m["H24"])


def test_woods_and_village_hexes(pmap: Map, board: CohBoard) -> None:
    shares = pmap.hexes
    # the wood west of the village: centre dot in woods, wholly wooded
    assert board.generic["B10"] == "woods" and shares.loc["B10", "share_woods"] == 1
    assert board.terrain["B10"] == "heavy_woods"
    assert (board.dm("B10"), board.cover("B10")) == (2, True)
    # a forest edge hex: centre in woods, less than half wooded
    assert board.generic["B8"] == "woods" and shares.loc["B8", "share_woods"] < 0.5
    assert board.terrain["B8"] == "light_woods" and board.dm("B8") == 1
    # the village core is built up: stone buildings, +2 DM, cover
    assert board.terrain["M13"] == "stone_building" and board.generic["M13"] == "town"
    near = board.within(pmap.hex_of_place("Sessenhausen"), 2)
    built = [h for h in near if board.terrain[h].endswith("_building")]
    assert len(built) > len(near) / 2
    assert board.terrain["V15"] == "wood_building"  # outskirts, under half built up


def test_level_height_is_a_rule_option(pmap: Map, board: CohBoard) -> None:
    assert board_for(pmap) is board
    b10 = board_for(pmap, level_height_m=10)
    b15 = board_for(pmap, level_height_m=15)
    assert b10 is not board and b10.level["E1"] == 4 and b15.level["E1"] == 2
    assert all(b10.level[h] >= board.level[h] >= b15.level[h] for h in board.labels)
    for bad in (9.9, 15.5, math.nan, True, "12"):
        with pytest.raises(
            ValueError, match=r"level_height_m: .* give metres per hill"
        ):
            board_for(pmap, level_height_m=bad)  # type: ignore[arg-type]


def test_road_moves_on_real_roads(board: CohBoard) -> None:
    # along the village street, stone buildings on level 1: the road negates all
    assert board.road_move("Q11", "Q12") and board.level["Q11"] == board.level["Q12"]
    for mob in ("foot", "tracked", "wheeled"):
        assert board.move_extra("Q11", "Q12", mob) == 0.0
    # off the road into the same kind of hex: the stone-building costs (§5.0, §14)
    assert not board.road_move("P11", "P12")
    assert board.terrain["P12"] == "stone_building"
    assert board.move_extra("P11", "P12", "foot") == 1.0
    assert board.move_extra("P11", "P12", "wheeled") == 3.0
    assert board.immobilisation_check("P12")
    # up a level along the road: roads do not negate the uphill cost (§11.0)
    assert (
        board.road_move("L13", "L14") and board.level["L14"] == board.level["L13"] + 1
    )
    assert board.move_extra("L13", "L14", "foot") == 1.0
    assert board.move_extra("L14", "L13", "foot") == 0.0
    # a forest road: wheels follow it into heavy woods (§14.2) ...
    assert board.terrain["K25"] == "heavy_woods" and board.road_move("J24", "K25")
    assert board.move_extra("J24", "K25", "wheeled") == 0.0
    # ... but two road hexes no road joins are no road move
    assert board.road["J24"] and board.road["J25"] and not board.road_move("J24", "J25")
    assert board.move_extra("J24", "J25", "wheeled") is None


def test_rhine_is_deep_water_crossed_by_the_bridge() -> None:
    m = wargame.load_map(hex_size_m=50, window=RHINE_BRIDGE)
    b = board_for(m)
    deep = [h for h in b.labels if b.terrain[h] == "deep_water"]
    assert len(deep) > 80  # most of the window is the Rhine, not swimmable water
    land_to_deep = [
        (a, h)
        for h in deep
        for a in b.neighbors(h)
        if b.terrain[a] != "deep_water" and not b.road_move(a, h)
    ]
    assert land_to_deep
    assert all(b.move_extra(a, h, "foot") is None for a, h in land_to_deep)
    bridge = [
        (a, h) for h in deep for a in b.neighbors(h) if b.road_move(a, h)
    ]  # the road of the Weißenthurm-Neuwied bridge
    assert bridge
    assert all(b.move_extra(a, h, "wheeled") == 0.0 for a, h in bridge)


# -- movement rules -------------------------------------------------------------- #
def test_uphill_steep_and_water(flat: CohBoard) -> None:
    a, b1 = "O13", walk(flat, "O13", 2, 1)
    up1 = setup(flat, **{b1: ("open", 1)})
    assert (
        up1.move_extra(a, b1, "foot") == 1.0 and up1.move_extra(a, b1, "tracked") == 1.0
    )
    assert not up1.steep(a, b1)
    # §11.0 fig. 20: heavy woods one level up costs 1 + 1 extra
    woods_up = setup(flat, **{b1: ("heavy_woods", 1)})
    assert woods_up.move_extra(a, b1, "foot") == 2.0
    # §11.1: two levels up one hexside is steep: foot +2 in all, vehicles may not
    steep = setup(flat, **{b1: ("open", 2)})
    assert steep.steep(a, b1) and steep.steep(b1, a)
    assert steep.move_extra(a, b1, "foot") == 2.0
    assert steep.move_extra(a, b1, "tracked") is None
    assert steep.move_extra(a, b1, "wheeled") is None
    assert steep.move_extra(b1, a, "tracked") == 0.0  # going down costs nothing extra
    water = setup(flat, **{b1: ("water", 0)})
    assert water.move_extra(a, b1, "foot") == 4.0
    assert water.move_extra(a, b1, "tracked") is None
    assert water.terrain_type(b1).unburdened_foot_only
    assert not water.terrain_type(b1).may_fire_from and water.dm(b1) == -1
    deep = setup(flat, **{b1: ("deep_water", 0)})
    assert all(
        deep.move_extra(a, b1, m) is None for m in ("foot", "tracked", "wheeled")
    )
    with pytest.raises(ValueError, match="not neighbouring"):
        flat.move_extra(a, walk(flat, a, 2, 2), "foot")
    with pytest.raises(ValueError, match="mobility 'hover'"):
        flat.move_extra(a, b1, "hover")


def test_dm_air_burst_and_elevation_bonus(flat: CohBoard) -> None:
    b = setup(flat, O13=("heavy_woods", 1), O15=("stone_building", 0))
    assert b.dm("O13") == 2 and b.dm("O13", he=True) == 2
    assert b.dm("O13", he=True, air_burst_soft=True) == 0  # §12.2
    assert b.dm("O15", he=True, air_burst_soft=True) == 2
    assert b.elevation_bonus("O13", "O15") == (1, 0)
    assert b.elevation_bonus("O15", "O13") == (0, 1)
    assert b.elevation_bonus("O15", "O16") == (0, 0)


# -- facing and arc ---------------------------------------------------------------- #
def test_front_hexes_and_arc_widths(board: CohBoard) -> None:
    c = "P13"
    for f in range(6):
        front = board.front_hexes(c, f)
        assert front == sorted(walk(board, c, k % 6, 1) for k in (f - 1, f, f + 1))
        assert sorted(h for h in board.neighbors(c) if board.in_arc(c, f, h)) == front
        assert board.direction(c, walk(board, c, f, 1)) == f
        for rng, width in ((2, 5), (3, 7)):
            ring = [h for h in board.within(c, rng) if board.distance(c, h) == rng]
            assert sum(board.in_arc(c, f, h) for h in ring) == width
    assert board.in_arc(c, 0, c) and board.in_arc(c, None, c)
    assert not board.in_arc(c, None, "P14")
    assert board.direction(c, "P15") is None
    with pytest.raises(ValueError, match="facing: 6 is not a hexside"):
        board.front_hexes(c, 6)
    with pytest.raises(ValueError, match="'ZZ99' is not a playable hex"):
        board.in_arc(c, 0, "ZZ99")


# -- line of sight ------------------------------------------------------------------- #
def test_see_into_woods_but_not_through(flat: CohBoard) -> None:
    x = "O13"
    w, behind = walk(flat, x, 2, 2), walk(flat, x, 2, 3)
    b = setup(flat, **{w: ("heavy_woods", 0)})
    assert b.los(x, w) == Sight(True, None, "clear")
    s = b.los(x, behind)
    assert not s.clear and s.blocked_at == w
    assert s.why.startswith(f"heavy woods at {w} (level-1 obstacle on level 0)")
    # the firer's and the target's own woods never block (§6.0: units see out)
    both = setup(flat, **{x: ("heavy_woods", 0), behind: ("stone_building", 0)})
    assert both.los(x, behind).clear


def test_los_is_symmetric_on_real_ground(board: CohBoard) -> None:
    rng = np.random.default_rng(7)
    labels = sorted(board.labels)
    for _ in range(300):
        a, b = (labels[int(i)] for i in rng.integers(len(labels), size=2))
        # the same answer both ways (§6.0); blocked_at is the first blocker seen
        # from the firer, so it may differ
        assert board.los(a, b).clear == board.los(b, a).clear


def test_higher_firer_over_a_lower_obstacle_and_blind_spot(flat: CohBoard) -> None:
    x = "O13"
    w, t3, t4 = (walk(flat, x, 2, k) for k in (2, 3, 4))
    b = setup(flat, **{x: ("open", 2), w: ("heavy_woods", 0)})
    assert b.los(x, t4).clear  # woods of level 1 < the firer's level 2 (§11.3)
    s = b.los(x, t3)  # directly behind the woods: a blind spot (§11.4)
    assert not s.clear and s.blocked_at == w and s.why.startswith(f"blind spot: {t3}")
    assert not b.los(t3, x).clear  # ... and the other way round
    low = setup(flat, **{x: ("open", 1), w: ("heavy_woods", 0)})
    assert not low.los(x, t4).clear  # a level-1 firer does not see over level-1 woods


def test_plateau_effect_and_slopes(flat: CohBoard) -> None:
    x = "O13"
    h1, h2, h3, h4 = (walk(flat, x, 2, k) for k in (1, 2, 3, 4))
    plateau = setup(flat, **{h2: ("open", 1), h3: ("open", 1), h4: ("open", 1)})
    assert plateau.los(x, h2).clear  # the first hill crest hex (§11.3 fig. 21)
    s = plateau.los(x, h4)
    assert not s.clear and s.blocked_at == h2 and "(plateau effect)" in s.why
    assert plateau.los(h2, h4).clear  # ASSUMPTION: one plateau, same level
    # a bare slope falling away from the firer makes no blind spot (§11.4 note)
    slope = setup(flat, **{x: ("open", 3), h1: ("open", 2), h2: ("open", 1)})
    assert slope.los(x, h3).clear
    # a separate knoll does
    knoll = setup(flat, **{x: ("open", 3), h2: ("open", 1)})
    s = knoll.los(x, h3)
    assert not s.clear and s.blocked_at == h2 and s.why.startswith("blind spot")


def test_hexside_takes_the_less_restrictive_side(flat: CohBoard) -> None:
    x = "O13"
    left, right = walk(flat, x, 1, 1), walk(flat, x, 2, 1)
    q, r = flat.grid.axial_of_label(x)
    (aq, ar), (bq, br) = AXIAL_DIRECTIONS[1], AXIAL_DIRECTIONS[2]
    target = flat.grid.label_of(q + aq + bq, r + ar + br)  # the line runs between them
    one = setup(flat, **{left: ("heavy_woods", 0)})
    assert one.los(x, target).clear and one.los(target, x).clear
    both = setup(flat, **{left: ("heavy_woods", 0), right: ("light_woods", 0)})
    s = both.los(x, target)
    assert not s.clear and s.blocked_at in (left, right) and "both sides block" in s.why


def test_extra_obstacles_for_smoke(flat: CohBoard) -> None:
    x, mid, t = "O13", walk(flat, "O13", 2, 1), walk(flat, "O13", 2, 3)
    assert flat.los(x, t).clear
    s = flat.los(x, t, extra_obstacles={mid: 2})
    assert not s.clear and s.blocked_at == mid and s.why.startswith("smoke at")
    assert flat.los(x, t).clear  # not cached with smoke
    with pytest.raises(ValueError, match="extra_obstacles"):
        flat.los(x, t, extra_obstacles={mid: -1})


def test_los_agreement_fractions(board: CohBoard, pmap: Map) -> None:
    got = los_agreement(board, pmap, pairs=80, seed=3)
    assert set(got) == {
        "pairs",
        "agree",
        "rule_clear_phys_blocked",
        "rule_blocked_phys_clear",
    }
    assert got["pairs"] == 80
    parts = (
        got["agree"] + got["rule_clear_phys_blocked"] + got["rule_blocked_phys_clear"]
    )
    assert parts == pytest.approx(1.0)
    assert 0.6 < got["agree"] <= 1.0
    assert los_agreement(board, pmap, pairs=80, seed=np.random.default_rng(3)) == got
    with pytest.raises(ValueError, match="pairs"):
        los_agreement(board, pmap, pairs=0)


def test_with_changes_errors(board: CohBoard) -> None:
    with pytest.raises(ValueError, match="terrain: 'lava' is not a terrain type"):
        board.with_changes({"P13": {"terrain": "lava"}})
    with pytest.raises(ValueError, match="level: 10 is not a whole number"):
        board.with_changes({"P13": {"level": 10}})
    with pytest.raises(ValueError, match="unknown key"):
        board.with_changes({"P13": {"road": True}})
    assert board.terrain["P13"] == "open"  # the original board is unchanged


# -- the data file ------------------------------------------------------------ #
def test_chart_sources_and_mapping() -> None:
    chart = load_chart()
    assert set(chart.generic) == set(TERRAIN_CLASSES)
    for t in chart.types.values():
        for field, src in t.sources.items():
            assert src.startswith(("S1 ", "research/coh.md", "estimate: ")), (
                t.id,
                field,
            )
    assert chart.types["water"].foot_extra_ap == 4  # the one number S1's table kept
    assert chart.types["heavy_woods"].foot_extra_ap == 1  # S1 §5.0 Maxim example
    assert chart.types["light_woods"].wheeled_extra_ap is None


def _broken(tmp_path: Path, old: str, new: str) -> Path:
    text = DATA_FILE.read_text(encoding="utf-8")
    assert old in text
    p = tmp_path / "terrain.toml"
    p.write_text(text.replace(old, new, 1), encoding="utf-8")
    return p


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        (
            "[types.open]\n",
            "[types.open]\nspeed = 3\n",
            r"types\.open\.speed: unknown field",
        ),
        (
            "foot_extra_ap = 4\n",
            'foot_extra_ap = "lots"\n',
            r"types\.water\.foot_extra_ap: 'lots' is not an AP number",
        ),
        (
            "[types.open.sources]\nfoot_extra_ap",
            "[types.open.sources]\nxfoot_extra_ap",
            r"types\.open\.sources\.xfoot_extra_ap: unknown field",
        ),
        (
            'type = "light_woods"\n',
            'type = "jungle"\n',
            r"generic\.orchard\.type: 'jungle' is not a terrain type",
        ),
        (
            "obstacle_levels = 1\ncover = true\nunburdened_foot_only = false\n"
            "may_fire_from = true\nbonus_moves = []\n\n[types.light_woods.sources]",
            "obstacle_levels = 0\ncover = true\nunburdened_foot_only = false\n"
            "may_fire_from = true\nbonus_moves = []\n\n[types.light_woods.sources]",
            r"types\.light_woods\.obstacle_levels: 0 does not fit blocks_los",
        ),
    ],
)
def test_bad_chart_files_name_the_field(
    tmp_path: Path, old: str, new: str, message: str
) -> None:
    path = _broken(tmp_path, old, new)
    with pytest.raises(TerrainDataError, match=message) as err:
        load_chart(path)
    assert str(path) in str(err.value)
