"""World at War as a game: sequence of play, chit cup, clean-up, victory (engine level).

Rules cited as in the code (``WaW 3.0`` Operations phase, ``WaW 1.7`` chits...);
situations are built on the real Remagen window (see ``waw_helpers``).
"""

from __future__ import annotations

import itertools
from collections import Counter

import pytest
from waw_helpers import activate, hold_fire, scenario, unit

from wargame.engine import Game, IllegalActionError
from wargame.rules.waw import (
    Activate,
    Defer,
    EndActivation,
    Fire,
    FixedDice,
    Move,
    Pass,
)
from wargame.rules.waw.ruleset import END_CHIT
from wargame.rules.waw.unit_attrs import ops_complete

BASIC = [
    unit("A-HQ", "us_hq", "A", "N17"),
    unit("A1", "m60", "A", "N17", name="M60 platoon 1/A"),
    unit("B-HQ", "ussr_hq", "B", "H17"),
    unit("B1", "t72", "B", "H17", name="T-72 platoon 1/74"),
]


def cup_at_turn_start(game: Game, turn: int) -> tuple[str, ...]:
    for e in game.events:
        if e.kind == "turn" and e.result == f"turn {turn}":
            (cup,) = [c[3] for c in e.changes if c[:2] == ("deck", "cup")]
            return cup  # type: ignore[no-any-return]
    raise AssertionError(f"no turn {turn}")


def test_cup_holds_each_formations_chits_and_two_end_turn_chits() -> None:
    # WaW 1.7 (seed 000): formation chits and two end-turn chits go in the cup;
    # RULES_NOTES 1.2: a NATO company has two chits, a Soviet battalion one.
    g = Game.from_scenario(scenario(BASIC), seed=1)
    assert Counter(cup_at_turn_start(g, 1)) == {"A": 2, "B": 1, END_CHIT: 2}


def test_scenario_chits_override_the_nation_default() -> None:
    sc = scenario(BASIC)
    sc["formations"][0]["chits"] = 1
    sc["formations"][1]["chits"] = 3
    g = Game.from_scenario(sc, seed=1)
    assert Counter(cup_at_turn_start(g, 1)) == {"A": 1, "B": 3, END_CHIT: 2}


def test_sides_alternate_draws_starting_with_the_first_side() -> None:
    # WaW 3.0: players draw chits in turn (ASSUMPTION: first_side starts each turn).
    g = Game.from_scenario("test_remagen", seed=4)
    g.run()
    by_turn: dict[int, list[str]] = {}
    for e in g.events:
        if e.kind == "draw":
            by_turn.setdefault(e.turn, []).append(e.side)  # type: ignore[arg-type]
    assert len(by_turn) == 4
    for sides in by_turn.values():
        assert sides[0] == "pact"
        assert all(a != b for a, b in itertools.pairwise(sides))


@pytest.mark.parametrize("seed", range(6))
def test_second_end_turn_chit_or_an_empty_cup_ends_the_operations_phase(
    seed: int,
) -> None:
    # WaW 3.0: the second end-turn chit, or no formation chit left, ends the phase.
    g = Game.from_scenario("test_remagen", seed=seed)
    g.run()
    before = g.initial_state
    for event, after in g.replay():
        if event.kind == "cleanup":
            cup = before.decks["cup"]
            ends = before.vars["end_chits"]
            assert ends == 2 or all(c == END_CHIT for c in cup)
            reason = "second end-turn chit" if ends == 2 else "no formation chit"
            assert reason in event.detail
        if event.kind == "draw" and after.vars.get("end_chits") == 2:
            assert after.phase == "operations"  # clean-up comes next, automatically
        before = after
    assert g.log["kind"].eq("cleanup").sum() == 4


def test_drawn_chit_is_activated_or_deferred_by_its_owner() -> None:
    # WaW 3.0: the owner of a drawn formation chit activates it or puts it back.
    g = Game.from_scenario(scenario(BASIC), seed=2)
    drawn = g.state.vars["drawn"]
    owner = g.state.formations[drawn].side
    assert g.current_side == owner
    assert g.legal_actions() == [Activate(drawn), Defer(drawn)]
    cup = Counter(g.state.decks["cup"])
    n0 = len(g.events)
    g.apply(Defer(drawn))
    defer = g.events[n0]
    assert (defer.kind, defer.formation, defer.side) == ("defer", drawn, owner)
    (cup_after,) = [c[3] for c in defer.changes if c[:2] == ("deck", "cup")]
    assert Counter(cup_after) == cup + Counter([drawn])
    assert drawn in g.state.vars["deferred"]


def test_a_deferred_chit_may_not_be_deferred_again() -> None:
    # ASSUMPTION 23 (the seed sets no limit): each chit once per turn.  The
    # Soviet formation has one chit: drawn again after deferring, it is activated.
    for seed in range(60):
        g = Game.from_scenario(scenario(BASIC), seed=seed)
        first = g.state.vars["drawn"]
        if first != "B":
            continue
        turn = g.state.turn
        g.apply(Defer(first))
        while not g.is_over and g.state.turn == turn:
            v = g.state.vars
            if v.get("drawn") == first:
                assert v.get("drawn_deferred") is True
                with pytest.raises(IllegalActionError) as err:
                    g.apply(Defer(first))
                name = g.state.formations[first].name
                assert str(err.value) == (
                    f"this chit of {name} was already deferred this turn; "
                    "activate it now"
                )
                assert g.legal_actions() == [Activate(first)]
                return
            if v.get("drawn"):
                g.apply(Activate(v["drawn"]))
            elif v.get("active"):
                g.apply(EndActivation())
    pytest.fail("no seed redrew a deferred chit in the same turn")


def test_each_nato_chit_may_be_deferred() -> None:
    # Deferral is per chit (assumption 23): a NATO company with two chits may
    # defer each of them once, and only a chit deferred before must be activated.
    seen = set()
    for seed in range(80):
        g = Game.from_scenario(scenario(BASIC), seed=seed)
        turn, deferrals = g.state.turn, 0
        while not g.is_over and g.state.turn == turn:
            v = g.state.vars
            if v.get("drawn") == "A":
                if v.get("drawn_deferred"):
                    assert g.legal_actions() == [Activate("A")]
                    seen.add(("again", deferrals))
                    g.apply(Activate("A"))
                else:
                    assert Defer("A") in g.legal_actions()
                    g.apply(Defer("A"))
                    deferrals += 1
                    assert g.state.vars["deferred"].count("A") <= 2
            elif v.get("drawn"):
                g.apply(Activate(v["drawn"]))
            elif v.get("active"):
                g.apply(EndActivation())
        if deferrals == 2:
            seen.add(("both", 2))
        if {("both", 2), ("again", 1)} <= seen:
            return
    pytest.fail(f"no seed deferred both NATO chits and redrew one: {seen}")


def test_cleanup_removes_ops_complete_and_returns_all_chits() -> None:
    # WaW Clean-up phase: Ops Complete markers off, chits back in the cup.
    g = Game.from_scenario(scenario(BASIC), seed=3)
    activate(g, "A")
    g.apply(Move("A1", "O18"))
    hold_fire(g)
    g.apply(EndActivation())
    assert ops_complete(g.state.units["A1"])
    turn = g.state.turn
    while g.state.turn == turn:
        v = g.state.vars
        if v.get("drawn"):
            g.apply(Activate(v["drawn"]))
        elif v.get("opp"):
            g.apply(Pass())
        else:
            g.apply(EndActivation())
    assert not any(ops_complete(u) for u in g.state.units.values())
    assert Counter(g.state.decks["cup"]) + Counter(g.state.decks["aside"]) + Counter(
        [g.state.vars["drawn"]] if g.state.vars.get("drawn") else []
    ) == Counter({"A": 2, "B": 1, END_CHIT: 2})
    assert g.state.units["A1"].attrs.get("mp") is None  # movement points reset


def test_game_ends_after_the_last_turn_with_victory_points() -> None:
    # Scenario victory: objectives to the side that last moved through them, plus
    # [victory] unit_destroyed_vp per enemy unit destroyed.
    sc = scenario(
        BASIC,
        turns=1,
        objectives=[
            {"hex": "N17", "vp": 2, "controlled_by": "nato"},
            {"hex": "H17", "vp": 1, "controlled_by": "pact"},
            {"hex": "Q11", "vp": 5},
        ],
    )
    g = Game.from_scenario(sc, seed=5)
    while not g.is_over:
        v = g.state.vars
        if v.get("drawn"):
            g.apply(Activate(v["drawn"]))
        elif v.get("opp"):
            g.apply(Pass())
        else:
            g.apply(EndActivation())
    out = g.outcome
    assert out is not None
    assert (out.winner, out.termination, out.turn) == ("nato", "turn limit", 1)
    assert out.victory_points == {"nato": 2, "pact": 1}
    assert g.state.phase == "end"
    assert g.legal_actions() == [] and g.current_side is None
    with pytest.raises(IllegalActionError, match="the game is over"):
        g.apply(EndActivation())


def test_a_side_with_no_units_left_loses_at_once() -> None:
    # ASSUMPTION: annihilation ends the game; the surviving side wins.
    units = [
        unit("A-HQ", "us_hq", "A", "N17"),
        unit("A1", "m60", "A", "N17"),
        unit("B-HQ", "ussr_hq", "B", "M17"),
        unit("B1", "ussr_infantry", "B", "M17", strength="reduced"),
    ]
    g = Game.from_scenario(scenario(units), seed=0)
    activate(g, "A")
    # M60 HE 2 dice, adjacent (half range, to-hit 3): 2 hits, no terrain dice in
    # the open: the reduced platoon is destroyed and its HQ dies with it.
    g.rng = FixedDice([6, 6])
    g.apply(Fire("A1", "B1", "he"))
    assert g.rng.remaining == 0
    out = g.outcome
    assert out is not None and out.termination == "annihilation"
    assert out.winner == "nato"
    assert g.state.units["B1"].destroyed and g.state.units["B-HQ"].destroyed
