"""Bunkers (CoH 2e §18.1.2, §18.2) and destroying counters by fire (§18.4)
on the open level-6 fields east of Niederetscheid: S10 faces T9 (hexside 1);
U9 lies two hexes straight ahead of it, R10 right behind it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest
from coh_fort_helpers import game as _game
from coh_fort_helpers import rules, scenario, unit

from wargame.engine import Event, Game, check_scenario, load_scenario
from wargame.rules.coh.actions import Fire, Move, Pivot

BUNKER = {"kind": "bunker", "hex": "S10", "side": "soviet", "facing": 1}


def game(
    units: list[dict[str, Any]], forts: list[dict[str, Any]], seed: int = 1
) -> Game:
    return _game(units, forts, seed, "t_bunkers")


def problems(forts: list[dict[str, Any]]) -> str:
    sc = scenario([unit("x", "de_rifles_41", "german", "S8", facing=0)], forts)
    return "\n".join(check_scenario(load_scenario(sc)))


# -- §18.1.2 the DMs ------------------------------------------------------------ #
def test_bunker_example_17_dv_to_the_front_14_to_the_flank() -> None:
    """S1 §18.1.2 example: a Soviet Rifle (front DR 12, flank 11) in a +5/+3
    bunker has 17 DV against frontal fire and 14 against flank fire."""
    g = game(
        [
            unit("r", "su_rifles_41", "soviet", "S10", facing=3),
            unit("front", "de_rifles_41", "german", "U9", facing=4),
            unit("back", "de_rifles_41", "german", "R10", facing=1),
        ],
        [BUNKER],
    )
    r, st = rules(g), g.state
    t = st.units["r"]
    assert t.attrs["bunker"] and t.facing == 1  # it faces the bunker's way
    front = r.fire_math(st, st.units["front"], t)
    back = r.fire_math(st, st.units["back"], t)
    assert (front.flank, front.dv) == (False, 17)
    assert "bunker front +5 (§18.1.2)" in front.dv_terms
    assert (back.flank, back.dv) == (True, 14)
    assert "bunker flank +3 (§18.1.2)" in back.dv_terms
    assert "in a bunker" in r.unit_look(st, t).markers


def test_mortar_fire_and_close_combat_take_the_bunker_flank_dm() -> None:
    g = game(
        [
            unit("r", "su_rifles_41", "soviet", "S10"),
            unit("m", "de_mortar_8cm", "german", "U9", facing=4),
            unit("cc", "de_rifles_41", "german", "T9", facing=4),
        ],
        [BUNKER],
    )
    r, st = rules(g), g.state
    t = st.units["r"]
    he = r.fire_math(st, st.units["m"], t)
    assert "bunker flank +3 (§18.1.2)" in he.dv_terms
    g.apply(Move(("cc",), ("S10",)))  # advances into the bunker's hex
    st = g.state
    assert not st.units["cc"].attrs.get("bunker")  # only defenders are inside
    cc = r.fire_math(st, st.units["cc"], st.units["r"])
    assert cc.dv == 11 + 3 and "bunker flank +3 (§18.1.2)" in cc.dv_terms
    back = r.fire_math(st, st.units["r"], st.units["cc"])
    assert not [x for x in back.dv_terms if "bunker" in x]


def test_bunker_occupants_fire_only_into_its_arc_and_mortars_not_at_all() -> None:
    g = game(
        [
            unit("m", "su_mortar_50mm", "soviet", "S10"),
            unit("r", "su_rifles_41", "soviet", "S10"),
            unit("a", "de_rifles_41", "german", "U9", facing=4),
            unit("b", "de_rifles_41", "german", "Q10", facing=0),
        ],
        [BUNKER],
        seed=2,
    )
    r, st = rules(g), g.state
    assert st.units["m"].attrs["bunker"]
    why, _ = r.attack_problem(st, "soviet", Fire(("m",), "U9"))
    assert "mortar in a bunker" in str(why)
    assert r.attack_problem(st, "soviet", Fire(("r",), "U9"))[0] is None
    assert "arc of fire" in str(r.attack_problem(st, "soviet", Fire(("r",), "Q10"))[0])


def test_occupants_may_not_turn_but_leave_in_place_for_their_move_cost() -> None:
    """S1 §18.2 example: an LMG leaves its bunker in place for 1 AP (its move
    cost in the open) and may then face any way."""
    g = game(
        [
            unit("s", "su_rifles_41", "soviet", "P4", facing=0),
            unit("l", "de_lmg34", "german", "S10"),
        ],
        [{**BUNKER, "side": "german"}],
    )
    r, st = rules(g), g.state
    assert r.pivot_problem(st, "german", Pivot(("l",), 4)) == (None, 1)
    g.apply(Pivot(("l",), 4))
    u = g.state.units["l"]
    assert u.facing == 4 and not u.attrs.get("bunker")
    assert g.state.pools["ap:german"] == 6


def test_a_unit_entering_the_bunker_hex_goes_in_a_vehicle_does_not() -> None:
    g = game(
        [
            unit("x", "de_rifles_41", "german", "T9", facing=4),
            unit("t", "de_pz_ii_f", "german", "T10", facing=3),
            unit("s", "su_rifles_41", "soviet", "P4", facing=0),
        ],
        [{**BUNKER, "side": "german"}],
    )
    g.apply(Move(("x",), ("S10",)))
    assert g.state.units["x"].attrs["bunker"] and g.state.units["x"].facing == 1
    g.apply(Move(("s",), ("P5",), "opportunity"))
    g.apply(Move(("t",), ("S10",), "command"))
    assert not g.state.units["t"].attrs.get("bunker")
    g.apply(Move(("s",), ("P6",), "command"))
    g.apply(Move(("x",), ("T9",), "command"))  # out of the hex: out of the bunker
    assert not g.state.units["x"].attrs.get("bunker")


def test_bunker_mistakes_are_reported_by_field() -> None:
    text = problems(
        [
            {"kind": "bunker", "hex": "S10"},
            {"kind": "bunker", "hex": "T9", "facing": 1, "dm_front": 2, "dm_flank": 4},
            {"kind": "wire", "hex": "R10", "facing": 2},
            {"kind": "mine", "hex": "R9", "side": "soviet", "dr": 12},
            {"kind": "wire", "hex": "S9", "dr": 99},
        ]
    )
    for field, words in (
        ("fortifications[0].facing", "fixed facing"),
        ("fortifications[1].dm_flank", "smaller number"),
        ("fortifications[2].facing", "only bunkers"),
        ("fortifications[3].dr", "black attack number"),
        ("fortifications[4].dr", "red number"),
    ):
        line = [x for x in text.splitlines() if field in x]
        assert line and words in line[0], (field, text)


def test_a_scenario_bunker_may_print_its_own_numbers() -> None:
    g = game(
        [
            unit("r", "su_rifles_41", "soviet", "S10"),
            unit("front", "de_rifles_41", "german", "U9", facing=4),
        ],
        [{**BUNKER, "dm_front": 4, "dm_flank": 2, "dr": 18}],
    )
    r, st = rules(g), g.state
    assert r.fire_math(st, st.units["front"], st.units["r"]).dv == 12 + 4
    assert r.numbers("bunker", "S10").dr == 18


# -- §18.4 destroying counters by fire ------------------------------------------ #
def _fort_rolls(events: Sequence[Event]) -> list[Event]:
    return [
        e
        for e in events
        if e.kind == "attack" and e.dice and "DV" in e.detail and " at the " in e.detail
    ]


def test_mortar_fire_rolls_against_the_wire_and_a_hit_removes_it() -> None:
    seen = set()
    for seed in range(1, 30):
        g = game(
            [
                unit("m", "de_mortar_5cm", "german", "U9", facing=4),
                unit("s", "su_rifles_41", "soviet", "S10"),
            ],
            [{"kind": "wire", "hex": "S10"}],
            seed=seed,
        )
        r = rules(g)
        a = Fire(("m",), "S10")
        assert r.why_not(g.state, a) is None
        n = len(g.events)
        g.apply(a)
        (roll,) = _fort_rolls(g.events[n:])
        fm = r.fort_math(g.state, g.state.units["m"], a, "wire")
        assert roll.dice is not None
        hit = fm.fp + sum(roll.dice) >= fm.dv
        assert fm.dv == 12  # the estimate's red DR on open ground
        assert r.has_fort(g.state, "wire", "S10") is not hit
        seen.add(hit)
        if seen == {True, False}:
            break
    assert seen == {True, False}


def test_an_empty_obstacle_may_be_attacked_by_guns_not_by_mgs() -> None:
    g = game(
        [
            unit("g", "de_pak36", "german", "U9", facing=4),
            unit("l", "de_lmg34", "german", "T8", facing=4),
            unit("s", "su_rifles_41", "soviet", "P4", facing=0),
        ],
        [{"kind": "roadblock", "hex": "S10"}],
    )
    r, st = rules(g), g.state
    assert r.why_not(st, Fire(("g",), "S10")) is None
    assert "no enemy" in str(r.why_not(st, Fire(("l",), "S10")))
    n = len(g.events)
    g.apply(Fire(("g",), "S10"))
    assert len(_fort_rolls(g.events[n:])) == 1
    assert not [e for e in g.events[n:] if e.result == "nothing revealed"]


def test_mg_fire_at_units_in_a_wire_hex_leaves_the_wire_alone() -> None:
    g = game(
        [
            unit("l", "de_lmg34", "german", "T9", facing=4),
            unit("s", "su_rifles_41", "soviet", "S10"),
        ],
        [{"kind": "wire", "hex": "S10"}],
    )
    n = len(g.events)
    g.apply(Fire(("l",), "S10"))
    assert not _fort_rolls(g.events[n:])
    assert rules(g).has_fort(g.state, "wire", "S10")


def test_units_in_a_destroyed_bunker_keep_its_dm_for_that_attack() -> None:
    """S1 §18.4 example: the bunker is rolled against with the units; if it
    falls, they still had its DM against that attack."""
    for seed in range(1, 60):
        g = game(
            [
                unit("g", "de_leig18", "german", "U9", facing=4),
                unit("r", "su_rifles_41", "soviet", "S10"),
            ],
            [BUNKER],
            seed=seed,
        )
        n = len(g.events)
        g.apply(Fire(("g",), "S10"))
        ev = g.events[n:]
        if rules(g).has_fort(g.state, "bunker", "S10"):
            continue
        unit_roll = [e for e in ev if e.kind == "attack" and e.target == "r" and e.dice]
        assert unit_roll and "bunker front +5 (§18.1.2)" in unit_roll[0].detail
        assert not g.state.units["r"].attrs.get("bunker")
        return
    pytest.fail("no seed destroyed the bunker")
