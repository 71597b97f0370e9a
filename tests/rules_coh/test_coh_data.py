"""CoH 2e data: counters, hit-marker piles and cards load, match the 2e rulebook
where its prose gives numbers, source every value, and bad files fail clearly."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from wargame.rules.coh._data import CohDataError, source_problem
from wargame.rules.coh.cards import (
    CARDS_TOML,
    card,
    card_catalog,
    card_problem,
    deck_for,
    load_cards,
)
from wargame.rules.coh.catalog import (
    UNITS_TOML,
    VALUE_FIELDS,
    UnknownUnitTypeError,
    load_units,
    unit_catalog,
    unit_type,
)
from wargame.rules.coh.hit_markers import (
    HIT_MARKERS_TOML,
    hit_marker_decks,
    hit_marker_kinds,
    load_hit_markers,
    marker,
)

# ------------------------------------------------------------------ units


def test_every_atb_counter_of_both_sides_is_listed_with_its_count() -> None:
    cat = unit_catalog()
    by_nation = Counter(u.nation for u in cat.values())
    # research/coh.md §3.2: 29 German and 21 Soviet counter types, plus a sniper each
    assert by_nation == {"german": 30, "soviet": 22}
    assert cat["de_rifles_41"].counters == 8
    assert cat["su_rifles_41"].counters == 12
    assert cat["de_lmg34"].counters == 7
    assert cat["su_t34a_m40"].counters == 4


def test_values_the_2e_rulebook_prose_confirms() -> None:
    de_rifle = unit_type("de_rifles_41")
    assert (de_rifle.fire_cost, de_rifle.fp_red, de_rifle.dr_flank) == (3, 2, 11)
    su_rifle = unit_type("su_rifles_41")
    assert (su_rifle.fire_cost, su_rifle.fp_red, su_rifle.fp_blue) == (4, 3, 0)
    assert (su_rifle.dr_flank, su_rifle.dr_front) == (11, 12)  # seed 003 §10.0
    maxim = unit_type("su_maxim_mmg")
    assert (maxim.move_cost, maxim.fire_cost, maxim.fp_red) == (2, 3, 3)
    hmg = unit_type("de_hmg34")
    assert hmg.fp_red == 5 and hmg.crewed
    t34 = unit_type("su_t34a_m40")
    assert (t34.fp_red, t34.fp_blue, t34.bonus_moves) == (5, 7, ("track", "track"))
    assert unit_type("de_pz_iii_h").dr_front == 17
    assert (
        unit_type("de_pzjg_35r").dr_flank == 13 and unit_type("de_pzjg_35r").open_topped
    )
    truck = unit_type("de_opel_blitz")
    assert (truck.fp_red, truck.range, truck.bonus_moves) == (-2, 0, ("wheel", "wheel"))
    for uid in ("de_rifles_41", "su_rifles_41", "su_maxim_mmg", "de_hmg34"):
        assert "[A]" in unit_type(uid).source_of("fp_red"), uid


def test_unburdened_is_foot_with_red_move_cost_at_most_two() -> None:
    # CoH 2e §1.1: rifles, SMGs, MGs, light mortars, tank hunters, pioneers
    for uid in (
        "de_rifles_41",
        "su_smg_rifles",
        "de_hmg34",
        "su_maxim_mmg",
        "de_mortar_5cm",
        "de_tank_hunters",
        "de_pioneers",
        "su_sniper",
    ):
        assert unit_type(uid).unburdened, uid
    for uid in (
        "de_mortar_8cm",
        "su_mortar_82mm",
        "de_pak38",
        "de_wagon",
        "su_t34a_m40",
    ):
        assert not unit_type(uid).unburdened, uid


def test_pile_and_transport_follow_unit_type() -> None:
    # CoH 2e §7.5 (pile by unit type), §17.0 (all vehicles transport), §13.1 (smoke)
    cat = unit_catalog()
    for u in cat.values():
        assert u.can_transport == (u.kind == "vehicle"), u.id
        if u.kind == "foot":
            assert not u.armored, u.id
    assert unit_type("su_atg_45mm").kind == "foot"  # towed guns: foot pile
    assert unit_type("de_mortar_8cm").kind == "foot"
    assert (
        unit_type("de_wagon").fire_cost is None and not unit_type("de_wagon").can_attack
    )
    smoke = {u.id for u in cat.values() if u.smoke}
    assert smoke == {"de_mortar_8cm", "su_mortar_82mm", "de_pioneers"}
    assert unit_type("de_sdkfz_251_1").apc


def test_every_unit_value_has_a_source_and_sniper_values_are_estimates() -> None:
    for u in unit_catalog().values():
        assert set(u.sources) == set(VALUE_FIELDS), u.id
        for field, text in u.sources.items():
            assert source_problem(text) is None, (u.id, field, text)
    for uid in ("de_sniper", "su_sniper"):
        sn = unit_type(uid)
        assert sn.sniper
        for field in ("fire_cost", "fp_red", "range", "dr_front", "dr_flank"):
            assert sn.source_of(field).startswith("estimate: "), (uid, field)


def test_unknown_unit_type_names_it_and_suggests_the_closest() -> None:
    with pytest.raises(UnknownUnitTypeError) as e:
        unit_type("su_maxim")
    assert str(e.value) == (
        "unknown coh-2e unit type 'su_maxim' (did you mean 'su_maxim_mmg'?)"
    )
    assert isinstance(e.value, KeyError)


def _bad_units(tmp_path: Path, old: str, new: str) -> Path:
    text = UNITS_TOML.read_text(encoding="utf-8")
    assert old in text
    p = tmp_path / "units.toml"
    p.write_text(text.replace(old, new, 1), encoding="utf-8")
    return p


@pytest.mark.parametrize(
    ("old", "new", "unit", "field", "why"),
    [
        (
            "dr_front = 12\ndr_flank = 11\ncounters = 8",
            "dr_front = 30\ndr_flank = 11\ncounters = 8",
            "de_rifles_41",
            "dr_front",
            "30 is out of range 5..25",
        ),
        (
            "fire_cost = 3\nmove_cost = 1\nfp_red = 2",
            'fire_cost = "3"\nmove_cost = 1\nfp_red = 2',
            "de_rifles_41",
            "fire_cost",
            "is not an integer",
        ),
        (
            'kind = "foot"\nmobility = "foot"\nfire_cost = 2\nmove_cost = 1\n'
            "fp_red = 4",
            'kind = "feet"\nmobility = "foot"\nfire_cost = 2\nmove_cost = 1\n'
            "fp_red = 4",
            "de_lmg34",
            "kind",
            "must be one of",
        ),
        (
            "counters = 12",
            "counters = 12\nmorale = 7",
            "su_rifles_41",
            "morale",
            "unknown field",
        ),
        (
            '[units.de_wagon.sources]\nkind = "estimate:',
            '[units.de_wagon.sources]\nkind = "guess:',
            "de_wagon",
            "sources.kind",
            "must start with",
        ),
    ],
)
def test_a_bad_units_file_names_file_unit_and_field(
    tmp_path: Path, old: str, new: str, unit: str, field: str, why: str
) -> None:
    path = _bad_units(tmp_path, old, new)
    with pytest.raises(CohDataError) as e:
        load_units(path)
    msg = str(e.value)
    assert str(path) in msg
    assert f"unit {unit!r}" in msg and f"field {field!r}" in msg and why in msg


def test_a_missing_or_broken_file_names_the_file(tmp_path: Path) -> None:
    with pytest.raises(CohDataError, match="cannot read"):
        load_units(tmp_path / "nope.toml")
    p = tmp_path / "broken.toml"
    p.write_text("[units.x\n", encoding="utf-8")
    with pytest.raises(CohDataError, match="not valid TOML"):
        load_units(p)


# ------------------------------------------------------------- hit markers


def test_hit_marker_piles_hold_twenty_each_with_the_2e_counts() -> None:
    decks = hit_marker_decks()
    assert len(decks["foot"]) == 20 and len(decks["vehicle"]) == 20
    foot = Counter(m.id for m in decks["foot"])
    assert foot == {
        "stunned": 2,
        "unnerved": 2,
        "kia": 1,
        "panicked": 2,
        "pinned": 5,
        "suppressed": 5,
        "cowering": 2,
        "berserk": 1,
    }
    vehicle = Counter(m.id for m in decks["vehicle"])
    assert vehicle == {
        "destroyed": 1,
        "gun_damaged_red": 1,
        "gun_damaged_blue": 1,
        "immobilized": 5,
        "light_damage": 4,
        "panicked": 1,
        "stunned": 2,
        "suppressed": 5,
    }


def test_hit_marker_effects_of_the_2e_text() -> None:
    s = marker("suppressed", "foot")  # CoH 2e §7.5 example: 4 -> 5 AP, 3 -> 1 FP
    assert (s.fire_ap, s.fp_red, s.fp_blue, s.rally) == (1, -2, -2, 7)
    vs = marker("suppressed", "vehicle")  # §15.2: 2e is -2 red / -3 blue
    assert (vs.fp_red, vs.fp_blue, vs.rally) == (-2, -3, 8)
    assert marker("kia", "foot").kia and marker("kia", "foot").reveal_when == (
        "always",
    )
    assert marker("pinned", "foot").no_move and not marker("pinned", "foot").no_fire
    assert marker("cowering", "foot").max_range == 1
    assert marker("berserk", "foot").fire_ap == -1
    assert marker("panicked", "vehicle").dr_front == -4
    assert (
        marker("stunned", "vehicle").rally_only
        and marker("stunned", "vehicle").rally == 9
    )
    im = marker("immobilized", "vehicle")
    assert (im.no_move, im.dr_front, im.dr_flank, im.no_rally) == (True, -1, 1, True)
    assert {
        marker(k, "vehicle").gun_damaged
        for k in ("gun_damaged_red", "gun_damaged_blue")
    } == {"red", "blue"}
    assert (
        marker("gun_damaged_red", "vehicle")
        .source_of("gun_damaged")
        .startswith("estimate")
    )


def test_every_hit_marker_value_has_a_source() -> None:
    for deck in hit_marker_kinds().values():
        for m in deck.values():
            for field, text in m.sources.items():
                assert source_problem(text) is None, (m.id, field)


def test_a_bad_hit_marker_file_names_the_marker_and_field(tmp_path: Path) -> None:
    text = HIT_MARKERS_TOML.read_text(encoding="utf-8")
    p = tmp_path / "hm.toml"
    p.write_text(
        text.replace('name = "Pinned"\ncount = 5', 'name = "Pinned"\ncount = 4'),
        encoding="utf-8",
    )
    with pytest.raises(CohDataError, match="deck 'foot' holds 19 markers"):
        load_hit_markers(p)
    p.write_text(
        text.replace('reveal_when = ["move"]', 'reveal_when = ["walk"]'),
        encoding="utf-8",
    )
    with pytest.raises(
        CohDataError, match=r"hit marker 'foot.pinned', field 'reveal_when'"
    ):
        load_hit_markers(p)


# ------------------------------------------------------------------ cards


def test_firefight_one_deck_is_every_action_and_bonus_card_up_to_13() -> None:
    deck = Counter(deck_for(13))  # S1 Firefight 1 optional deck
    assert deck["command_action"] == 13
    assert deck["auto_rally"] == 3 and deck["luck"] == 3 and deck["sniper_fire"] == 3
    assert "bogged_down" not in deck and "grenades" not in deck
    assert sum(deck.values()) == 39
    assert deck_for(13) == deck_for(13)  # stable order
    assert len(deck_for(41)) == 39 + 4  # #20, #30, #40, #41 once each


def test_auto_rally_is_card_three_costing_two_caps() -> None:
    # seed 003 §8.1/§9.2 (Auto-Rally #3, 2 CAPs) over S1's title Follow Me!
    c = card_catalog()[3]
    assert (c.id, c.name, c.aka, c.cost, c.pay) == (
        "auto_rally",
        "Auto-Rally",
        ("Follow Me!",),
        2,
        "cap",
    )
    assert card("frontline_officer").cost == 2 and card("frontline_officer").pay == "ap"


def test_cards_have_seed_colours_sources_and_gaps_for_unknown_costs() -> None:
    colours = {
        "action": "green",
        "bonus": "green",
        "event": "yellow",
        "weapon": "grey",
        "veteran": "orange",
    }
    for c in card_catalog().values():
        assert c.colour == colours[c.type], c.id
        for field, text in c.sources.items():
            assert source_problem(text) is None, (c.id, field)
        if c.source_of("cost").startswith("estimate"):
            assert c.gap, c.id
    assert card("close_call").type == "veteran"
    assert card("magnetic_mine").nation == "german"
    assert deck_for(0, extra=["molotov", "grenades"], nations=["soviet"]) == ["molotov"]


@pytest.mark.parametrize("bad", [-1, 1, 42, 99, "13", 13.0, True])
def test_card_limit_outside_the_2e_numbers_is_explained(bad: object) -> None:
    msg = card_problem(bad)
    assert msg is not None and "cards = " in msg and "0 for no cards" in msg
    with pytest.raises(ValueError):
        deck_for(bad)  # type: ignore[arg-type]
    assert card_problem(0) is None and card_problem(41) is None


def test_a_bad_cards_file_names_the_card_and_field(tmp_path: Path) -> None:
    text = CARDS_TOML.read_text(encoding="utf-8")
    p = tmp_path / "cards.toml"
    p.write_text(text.replace("number = 4\n", "number = 3\n", 1), encoding="utf-8")
    with pytest.raises(
        CohDataError, match="card 'rally_up', field 'number': 3 is already"
    ):
        load_cards(p)
    p.write_text(
        text.replace('colour = "orange"', 'colour = "green"'), encoding="utf-8"
    )
    with pytest.raises(CohDataError, match="card 'close_call', field 'colour'"):
        load_cards(p)
