"""Pure render functions for the game views: symbols, stacks, panels, odds."""

from __future__ import annotations

import base64

import pandas as pd
import pytest

from wargame.engine import Game, Point, load_scenario
from wargame.render.game import (
    actions_involving,
    dice_html,
    filter_log,
    last_rolls,
    log_table_html,
    odds_html,
    odds_table,
    panels_html,
    reach_rings_geojson,
    unit_looks,
    unit_reach,
    unit_stacks,
)
from wargame.render.los import range_rings_geojson, sight_line_geojson
from wargame.render.static import static_map_html
from wargame.render.symbols import (
    SYMBOL_KINDS,
    side_colour,
    svg_data_url,
    symbol_kind,
    unit_svg,
)
from wargame.rules.waw import unit_odds

SOVIET_RED, US_GREEN = "#c8483c", "#7a9a4a"  # the counters' colours (WaW)

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
    assert "#ffd23f" in unit_svg("armour", "#fff", suppressed=True)
    assert "#ffd23f" not in plain
    assert "fill-opacity='0.45'" in unit_svg("armour", "#fff", spent=True)
    assert "fill='#fff' fill-opacity='0.9'" in unit_svg("armour", "#fff", reduced=True)
    stacked = unit_svg("armour", "#fff", stack=3)
    assert ">3</text>" in stacked and stacked.count("<rect") == 2  # frame + one behind


def test_svg_data_url_decodes_to_the_svg():
    svg = unit_svg("recon", SOVIET_RED)
    url = svg_data_url(svg)
    assert base64.b64decode(url.split(",", 1)[1]).decode() == svg


def test_unit_role_words_map_to_nato_roles():
    assert symbol_kind("armored") == "armour"
    assert symbol_kind("Tank") == "armour"
    assert symbol_kind("aa") == "air_defence"
    assert symbol_kind("bridge") == "bridging"
    assert all(symbol_kind(k) == k for k in SYMBOL_KINDS)
    assert symbol_kind(None) == "unknown"


def test_counters_take_the_rule_systems_look(game):
    looks = unit_looks(game)
    assert looks["US-M1"].colour == US_GREEN
    assert looks["SU-T1"].colour == SOVIET_RED
    assert looks["US-M1"].symbol == "armour"
    assert looks["US-APC"].symbol == "mech_infantry"
    assert looks["US-HQ"].symbol == "hq"
    assert looks["SU-REC"].symbol == "recon"
    assert looks["SU-T1"].nation == "ussr" and looks["SU-T1"].type_name


def test_looks_without_a_colour_or_a_known_icon_fall_back(game, monkeypatch):
    from wargame.engine.present import UnitLook

    monkeypatch.setattr(
        game.ruleset, "unit_look", lambda state, u: UnitLook("tank", None, u.type)
    )
    looks = unit_looks(game)
    sides = list(game.state.sides)
    for uid, u in game.state.units.items():
        assert looks[uid].symbol == "armour"
        assert looks[uid].colour == side_colour(sides.index(u.side))


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


def test_stack_shows_the_counters_state_as_the_rules_word_it(game):
    st = game.state.copy()
    st.units["SU-T2"].strength = "reduced"
    st.units["SU-T2"].attrs["disrupted"] = True
    st.units["SU-T2"].attrs["ops_complete"] = True
    look = game.ruleset.unit_look(st, st.units["SU-T2"])
    assert look.reduced and look.suppressed and look.spent
    s = {x.hex: x for x in unit_stacks(game, st)}["I16"]
    assert s.svg == unit_svg(
        "armour", SOVIET_RED, reduced=True, suppressed=True, spent=True
    )
    assert f"({', '.join(look.words)})" in s.title
    assert "reduced, disrupted, Ops Complete" in s.title  # WaW 000 1.3, 3.0


def test_units_at_free_points_are_drawn_there_grouped_by_point(game):
    m = game.map
    st = game.state.copy()
    x, y = m.hex_center("K12")
    p = Point(float(x) + 20.0, float(y) - 30.0)
    st.units["SU-T1"].position = p
    st.units["SU-T2"].position = Point(p.x, p.y)  # the same point: one stack
    stacks = unit_stacks(game, st)
    at_points = [s for s in stacks if s.point is not None]
    assert len(at_points) == 1
    (s,) = at_points
    assert sorted(s.units) == ["SU-T1", "SU-T2"] and ">2</text>" in s.svg
    lon, lat = m.to_lonlat(p.x, p.y)
    assert (s.lon, s.lat) == pytest.approx((float(lon), float(lat)))
    assert s.hex == "K12" and s.key != "K12" and s.side == "pact"
    assert "in K12" in s.title
    assert all("SU-T1" not in x.units for x in stacks if x.point is None)
    assert stacks[-1] is s  # hexes first, then points


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


def test_unit_reach_follows_waw_6_1_1_normal_and_extended(game):
    size = game.map.hex_size_m
    assert size == 150.0

    def hexes(uid):
        return [round(r.metres / size) for r in unit_reach(game, uid)]

    # T-72: printed range 8, not underlined: 8 hexes between -> distance 9; 2x -> 17
    assert [r.metres for r in unit_reach(game, "SU-T1")] == [1350.0, 2550.0]
    assert hexes("SU-T1") == [9, 17]
    assert [r.label for r in unit_reach(game, "SU-T1")] == [
        "normal range",
        "extended range",
    ]
    # M3: AP range 20 underlined (a hard maximum), HE 6: the AP decides
    assert hexes("US-REC") == [21, 21]
    assert unit_reach(game, "US-HQ") == ()  # HQs do not fire


def test_reach_rings_one_per_reach_with_its_label(game):
    fc = reach_rings_geojson(game.map, "H17", unit_reach(game, "SU-T1"))
    props = [f["properties"] for f in fc["features"]]
    assert [(p["ring"], p["hexes"], p["metres"]) for p in props] == [
        ("normal range", 9, 1350.0),
        ("extended range", 17, 2550.0),
    ]
    assert props[0]["style"]["dashArray"] != props[1]["style"]["dashArray"]


def test_odds_table_is_the_rules_exact_odds(game):
    frame = odds_table(game, "SU-T1", "US-M1")
    p = unit_odds(game, "SU-T1", "US-M1", weapon="ap", results=True)
    assert frame.loc["AP", list(p.index)].tolist() == pytest.approx(p.tolist())
    assert frame.loc["HE", "note"]  # HE at armour: the rules' reason is shown
    assert frame.loc["AP", "legal"]  # not the Soviets' action phase: a reason
    html = odds_html(frame, "T-72", "M1")
    assert "Exact odds" in html and "Not legal now" in html
    assert f"{float(frame.loc['AP', p.index[0]]):.1%}" in html


def test_odds_html_is_generic_over_the_frame(game, monkeypatch):
    frame = pd.DataFrame({"hit": [0.25], "miss": [0.75]}, index=["melee"])
    html = odds_html(frame, "A", "B")
    assert "<th>hit</th>" in html and "25.0%" in html and "legal now" not in html
    monkeypatch.setattr(game.ruleset, "odds_table", lambda *a: None)
    assert odds_table(game, "SU-T1", "US-M1") is None
    assert "no odds for this rule system" in odds_html(None, "A", "B")


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


def test_panels_draw_the_rule_systems_panels(game):
    ((title, html),) = panels_html(game)
    assert title == "Chit cup"  # WaW 2.0
    for chit in game.state.decks["cup"]:
        assert f">{chit}</span>" in html
    assert "drawn" in html
    # items take their side's colour
    sides = list(game.state.sides)
    f = game.state.formations[game.state.decks["cup"][0]]
    assert side_colour(sides.index(f.side)) in html


def test_no_panels_no_html(game, monkeypatch):
    monkeypatch.setattr(game.ruleset, "panels", lambda state, side: ())
    assert panels_html(game) == []


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
