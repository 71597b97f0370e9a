"""Pure render functions for the game views: symbols, stacks, panels, odds."""

from __future__ import annotations

import base64

import pandas as pd
import pytest

from wargame.engine import Game, load_scenario
from wargame.render.game import (
    actions_involving,
    cup_html,
    dice_html,
    filter_log,
    fire_odds,
    fire_ranges,
    last_rolls,
    log_table_html,
    unit_looks,
    unit_stacks,
)
from wargame.render.los import range_rings_geojson, sight_line_geojson
from wargame.render.static import static_map_html
from wargame.render.symbols import (
    NATION_COLOURS,
    SYMBOL_KINDS,
    svg_data_url,
    symbol_kind,
    unit_svg,
)
from wargame.rules.waw import unit_odds

SCENARIO = load_scenario("test_remagen")


@pytest.fixture(scope="module")
def game() -> Game:
    return Game(SCENARIO, seed=3)


@pytest.fixture(scope="module")
def played() -> Game:
    g = Game(SCENARIO, seed=3)
    g.run()
    return g


def test_every_role_has_its_own_icon():
    svgs = {k: unit_svg(k, "#fff") for k in SYMBOL_KINDS}
    assert len(set(svgs.values())) == len(SYMBOL_KINDS)
    assert "<ellipse" in svgs["armour"] and "<line" not in svgs["armour"]
    assert svgs["infantry"].count("<line") == 2
    assert (
        svgs["mech_infantry"].count("<line") == 2
        and "<ellipse" in svgs["mech_infantry"]
    )
    assert ">HQ<" in svgs["hq"]


def test_states_add_their_markers():
    plain = unit_svg("armour", "#fff")
    assert "#ffd23f" in unit_svg("armour", "#fff", disrupted=True)
    assert "#ffd23f" not in plain
    assert "fill-opacity='0.45'" in unit_svg("armour", "#fff", ops_complete=True)
    assert "fill='#fff' fill-opacity='0.9'" in unit_svg("armour", "#fff", reduced=True)
    stacked = unit_svg("armour", "#fff", stack=3)
    assert ">3</text>" in stacked and stacked.count("<rect") == 2  # frame + one behind


def test_svg_data_url_decodes_to_the_svg():
    svg = unit_svg("recon", NATION_COLOURS["ussr"])
    url = svg_data_url(svg)
    assert base64.b64decode(url.split(",", 1)[1]).decode() == svg


def test_unit_classes_map_to_nato_roles():
    assert symbol_kind("armored") == "armour"
    assert symbol_kind("light_armored") == "mech_infantry"
    assert symbol_kind("aa") == "air_defence"
    assert symbol_kind("unarmored_vehicle") == "anti_tank"
    assert symbol_kind("bridge_layer") == "bridging"  # the MTU-55 (WaW 000)
    assert symbol_kind(None) == "unknown"


def test_counters_take_their_nations_colour(game):
    looks = unit_looks(game)
    assert looks["US-M1"].colour == NATION_COLOURS["us"]
    assert looks["SU-T1"].colour == NATION_COLOURS["ussr"]
    assert looks["US-M1"].kind == "armour"
    assert looks["US-APC"].kind == "mech_infantry"
    assert looks["US-HQ"].kind == "hq"
    assert looks["SU-REC"].kind == "recon"


def test_one_stack_per_occupied_hex_with_every_live_unit(game):
    stacks = unit_stacks(game)
    units = game.units
    live = units[units["status"] != "destroyed"]
    assert sorted(s.hex for s in stacks) == sorted(set(live["hex"]))
    shown = sorted(u for s in stacks for u in s.units)
    assert shown == sorted(live.index)
    by_hex = {s.hex: s for s in stacks}
    # the M113 carries the infantry: the carrier is on top, the passenger below
    assert by_hex["O18"].units == ("US-APC", "US-INF1")
    assert ">2</text>" in by_hex["O18"].svg
    assert "aboard US-APC" in by_hex["O18"].title


def test_stack_shows_reduced_disrupted_and_ops_complete(game):
    st = game.state.copy()
    st.units["SU-T2"].strength = "reduced"
    st.units["SU-T2"].disrupted = True
    st.units["SU-T2"].ops_complete = True
    s = {x.hex: x for x in unit_stacks(game, st)}["I16"]
    assert s.svg == unit_svg(
        "armour",
        NATION_COLOURS["ussr"],
        reduced=True,
        disrupted=True,
        ops_complete=True,
    )
    assert "reduced, disrupted, Ops Complete" in s.title


def test_stack_tooltip_names_the_rule_markers_such_as_helicopter_mode():
    # WaW 9.0: a helicopter is in low or high mode; the counter's tooltip says which
    from wargame.engine import Game

    g = Game.from_scenario("ludendorff_bridgehead", seed=1)
    helis = g.units[g.units["unit_class"] == "helicopter"]
    assert len(helis) >= 2
    titles = {s.hex: s.title for s in unit_stacks(g)}
    for _, row in helis.iterrows():
        assert row["markers"] and "mode" in row["markers"]
        assert row["markers"] in titles[row["hex"]]


def test_fire_ranges_follow_waw_6_1_1_normal_and_extended(game):
    # T-72: printed range 8, not underlined: 8 hexes between -> distance 9; 2x -> 17
    assert fire_ranges(game, "SU-T1") == (9, 17)
    # M3: AP range 20 underlined (a hard maximum), HE 6: the AP decides
    assert fire_ranges(game, "US-REC") == (21, 21)
    assert fire_ranges(game, "US-HQ") is None  # HQs do not fire


def test_fire_odds_are_the_rules_exact_odds(game):
    frame = fire_odds(game, "SU-T1", "US-M1")
    p = unit_odds(game, "SU-T1", "US-M1", weapon="ap", results=True)
    assert frame.loc["AP", list(p.index)].tolist() == pytest.approx(p.tolist())
    assert frame.loc["HE", "note"]  # HE at armour: the rules' reason is shown
    assert frame.loc["AP", "legal"]  # not the Soviets' action phase: a reason


def test_actions_involving_a_hex_and_a_unit_in_it(game):
    acts = game.legal_actions()
    assert actions_involving(acts, unit="nobody") == []
    assert actions_involving(acts) == acts


def test_log_table_filters_by_turn_side_and_unit(played):
    log = played.log
    html = log_table_html(log, turn=2, side="nato", limit=1000)
    n = len(filter_log(log, turn=2, side="nato"))
    assert html.count("<tr>") == n + 1  # + the header
    only = filter_log(log, unit="SU-T1")
    assert ((only["unit"] == "SU-T1") | (only["target"] == "SU-T1")).all()
    assert f"{len(log)} events, newest 10 shown" in log_table_html(log, limit=10)


def test_dice_panel_shows_the_last_actions_rolls(played):
    rolls = last_rolls(played.log)
    assert len(rolls) >= 1
    assert rolls["action_index"].nunique() == 1
    html = dice_html(rolls)
    last = rolls.iloc[-1]
    assert html.count("class='wargame-die'") == sum(len(d) for d in rolls["dice"])
    assert str(last["result"]) in html
    assert "no dice rolled yet" in dice_html(last_rolls(played.log.iloc[:0]))


def test_cup_panel_lists_the_chits(game):
    html = cup_html(game.state)
    for chit in game.state.decks["cup"]:
        assert f">{chit}</span>" in html
    assert "drawn" in html


def test_range_rings_and_sight_line_geojson(game):
    m = game.map
    fc = range_rings_geojson(m, "H17", {"normal": 9, "extended": 17})
    assert [f["properties"]["hexes"] for f in fc["features"]] == [9, 17]
    blocked = next(
        (a, b)
        for a in ("H17", "J17")
        for b in ("Q11", "R10", "S11", "P12")
        if not m.los(a, b).visible
    )
    r = m.los(*blocked)
    parts = [f["properties"]["part"] for f in sight_line_geojson(m, r)["features"]]
    assert parts[-1] == "blocked"


def test_static_picture_places_every_stack(game):
    page = static_map_html(game.map, game=game, note="no widgets")
    assert "no widgets" in page
    assert page.count("<img") == 1 + len(unit_stacks(game))


def test_log_is_a_dataframe_view(played):
    assert isinstance(filter_log(played.log, turn=1), pd.DataFrame)
