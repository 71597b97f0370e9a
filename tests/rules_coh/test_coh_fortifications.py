"""Hasty defences, trenches, barbed wire and mines in coh-2e (CoH 2e §18,
§19.0; research/coh.md §1.11), on the open fields east of Niederetscheid (the
lane R10-S10-T9 runs down from level 7 at S8 to level 6)."""

from __future__ import annotations

from coh_fort_helpers import game, rules, scenario, unit

from wargame.engine import check_scenario, load_scenario
from wargame.rules.coh.actions import Fire, HastyDefence, Move, Pivot
from wargame.rules.coh.mines import MINE_HIT

FOE = unit("s", "su_rifles_41", "soviet", "P4", facing=0)


# -- §18.1.3 hasty defence ----------------------------------------------------- #
def test_hasty_defence_is_a_7_ap_action_worth_1_dm_lost_on_moving() -> None:
    g = game([unit("x", "de_rifles_41", "german", "S8", facing=5), FOE], [])
    r = rules(g)
    a = HastyDefence(("x",))
    assert r.hasty_problem(g.state, "german", a) == (None, 7)
    assert a in g.legal_actions()
    g.apply(a)
    st = g.state
    assert st.units["x"].attrs["hasty"] and st.pools["ap:german"] == 0
    fm = r.fire_math(st, st.units["s"], st.units["x"])
    assert "hasty defence +1 (§18)" in fm.dv_terms
    assert "already" in str(r.hasty_problem(st, "german", a)[0])
    g.apply(Move(("s",), ("P5",), "opportunity"))  # the Soviet turn
    g.apply(Move(("x",), ("S9",), "command"))
    assert "hasty" not in g.state.units["x"].attrs


def test_hasty_defence_is_lost_on_pivoting_and_only_for_foot_units() -> None:
    g = game(
        [
            unit("x", "de_rifles_41", "german", "S8", facing=5, hasty=True),
            unit("t", "de_pz_ii_f", "german", "T8", facing=5),
            FOE,
        ],
        [],
    )
    assert g.state.units["x"].attrs["hasty"]  # the firefight gives it
    assert "no foot unit" in str(rules(g).why_not(g.state, HastyDefence(("t",))))
    g.apply(Pivot(("x",), 4))
    assert "hasty" not in g.state.units["x"].attrs


# -- §18.1.1 trenches ------------------------------------------------------------ #
def test_trench_gives_2_dm_all_round_and_fire_in_every_direction() -> None:
    g = game(
        [
            unit("x", "de_rifles_41", "german", "S8", facing=5),
            unit("y", "de_rifles_41", "german", "R11", facing=2),
            unit("o", "de_opel_blitz", "german", "U10", facing=4),
            unit("r", "su_rifles_41", "soviet", "R10", facing=1),
        ],
        [{"kind": "trench", "hex": "R10", "side": "soviet"}],
    )
    r, st = rules(g), g.state
    t = st.units["r"]
    assert t.attrs["trench"]
    fm = r.fire_math(st, st.units["x"], t)
    assert "trench +2 (§18.1.1)" in fm.dv_terms
    assert not r.board.in_arc("R10", 1, "R11")  # behind the squad ...
    assert r.fire_problem(st, "soviet", Fire(("r",), "R11"))[0] is None  # ... fires
    assert "wheeled" in str(r.obstacle_bar(st, "o", "R10"))


# -- §18.3.1 barbed wire ---------------------------------------------------------- #
def test_wire_costs_foot_1d6_stops_wheels_and_falls_to_tracks() -> None:
    wire = [{"kind": "wire", "hex": "S9"}, {"kind": "wire", "hex": "T9"}]
    g = game(
        [
            unit("x", "de_rifles_41", "german", "S8", facing=5),
            unit("t", "de_pz_ii_f", "german", "T8", facing=5),
            unit("o", "de_opel_blitz", "german", "U10", facing=4),
            FOE,
        ],
        wire,
    )
    r = rules(g)
    assert "wheeled" in str(r.why_not(g.state, Move(("o",), ("T9",))))
    n = len(g.events)
    g.apply(Move(("x",), ("S9",)))
    (roll,) = [e for e in g.events[n:] if e.kind == "obstacle"]
    assert roll.dice is not None and len(roll.dice) == 1
    assert g.state.units["x"].hex == "S9"
    assert g.state.pools["ap:german"] == 7 - (1 + roll.dice[0])
    g.apply(Move(("s",), ("P5",), "opportunity"))
    g.apply(Move(("t",), ("T9",), "command"))
    assert not r.has_fort(g.state, "wire", "T9")  # crushed (§18.3.1)
    assert r.has_fort(g.state, "wire", "S9")


# -- §18.3.3 mines, §19.0 pioneers --------------------------------------------- #
def test_a_mine_attacks_the_unit_that_enters_on_8_or_more() -> None:
    for seed in range(1, 7):
        g = game(
            [unit("x", "de_rifles_41", "german", "S9", facing=5), FOE],
            [{"kind": "mine", "hex": "S10", "side": "soviet"}],
            seed=seed,
        )
        n = len(g.events)
        g.apply(Move(("x",), ("S10",)))
        (roll,) = [e for e in g.events[n:] if e.kind == "mine" and e.dice]
        dice = roll.dice or ()
        assert roll.side == "soviet" and roll.target == "x" and len(dice) == 2
        x = g.state.units["x"]
        assert bool(x.attrs.get("marked")) == (sum(dice) >= MINE_HIT)


def test_pioneers_reveal_a_hidden_mine_without_setting_it_off() -> None:
    g = game(
        [unit("p", "de_pioneers", "german", "R8", facing=5), FOE],
        [{"kind": "mine", "hex": "R9", "side": "soviet", "hidden": True}],
    )
    assert rules(g).view(g.state, "german").decks["mines:soviet"] == ("?",)
    n = len(g.events)
    g.apply(Move(("p",), ("R9",)))
    assert ("mine", "R9", "soviet") in rules(g).forts(g.state)
    assert not g.state.decks.get("mines:soviet")
    assert not [e for e in g.events[n:] if e.kind == "mine" and e.dice]
    assert not g.state.units["p"].attrs.get("marked")


def test_fortification_mistakes_are_reported_by_field() -> None:
    sc = scenario(
        [
            unit("x", "de_rifles_41", "german", "S8", flamethrower=True),
            unit("t", "de_pz_ii_f", "german", "T8", hasty=True),
        ],
        [
            {"kind": "pillbox", "hex": "R10"},
            {"kind": "wire", "hex": "S9", "hidden": True},
            {"kind": "mine", "hex": "S10"},
            {"kind": "trench", "hex": "R10", "colour": "red"},
            {"kind": "trench", "hex": "R10"},
        ],
    )
    problems = "\n".join(check_scenario(load_scenario(sc)))
    for field in (
        "fortifications[0].kind",
        "fortifications[1].hidden",
        "fortifications[2].side",
        "fortifications[3].colour",
        "fortifications[4].hex",
        "units[0].flamethrower",
        "units[1].hasty",
    ):
        assert field in problems, field


def test_pivoting_in_a_mined_hex_sets_the_mine_off() -> None:
    g = game(
        [unit("x", "de_rifles_41", "german", "S10", facing=5), FOE],
        [{"kind": "mine", "hex": "S10", "side": "soviet"}],
    )
    g.apply(Pivot(("x",), 4))
    rolls = [e for e in g.events if e.kind == "mine" and e.dice]
    assert len(rolls) == 1 and rolls[0].target == "x"
