"""fow-v3 morale: the platoon morale trigger (research §5, S9) at the end of
the Shooting and Assault Steps, and company morale in the Starting Step (a
failed test loses the game)."""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

import pytest

from wargame.engine import Game
from wargame.rules.fow.morale import below_half_strength, platoon_test_needed
from wargame.rules.fow.ruleset import Next

sys.path.insert(0, str(Path(__file__).parent))
from fow_fight_helpers import FIELD, game, platoon


def test_platoon_morale_needs_more_destroyed_than_fighting_and_a_loss() -> None:
    # 2 destroyed of 4 with 2 left: not more destroyed than fighting
    assert not platoon_test_needed(start=4, destroyed=2, fighting=2, lost_this_step=2)
    # 3 of 5 with 2 left, losses this step: a test
    assert platoon_test_needed(start=5, destroyed=3, fighting=2, lost_this_step=1)
    # ... but no loss in this step: no test (it tests again only when it loses)
    assert not platoon_test_needed(start=5, destroyed=3, fighting=2, lost_this_step=0)
    # Bailed Out teams are not fighting (ASSUMPTION): 2 of 5 destroyed, 2 of
    # the 3 left bailed out
    assert platoon_test_needed(start=5, destroyed=2, fighting=1, lost_this_step=2)
    with pytest.raises(ValueError, match="cannot have"):
        platoon_test_needed(start=3, destroyed=2, fighting=2, lost_this_step=1)


def test_below_half_strength_counts_starting_platoons() -> None:
    assert below_half_strength(start=4, in_play=1)
    assert not below_half_strength(start=4, in_play=2)  # half is not below half
    assert below_half_strength(start=5, in_play=2)
    assert not below_half_strength(start=5, in_play=3)


def _shot_up(destroyed: int, start: int, lost: int, seed: int = 1) -> Game:
    """A US platoon of ``start`` teams with ``destroyed`` of them gone and
    ``lost`` teams lost in this Shooting Step (a hand-built state)."""
    x, y = FIELD
    us = platoon(
        "us_a",
        "tf_engeman",
        [("us_rifle_team", start)],
        x=x,
        y=y,
        facing=0.0,
    )
    de = platoon("de_a", "bratge", [("de_rifle_team", 2)], x=x, y=y + 150, facing=180)
    g = game([us, de], seed=seed)
    g.apply(Next())  # the Shooting Step
    st = g.state
    u = st.units["us_a"]
    st.units["us_a"] = dataclasses.replace(
        u, models=u.models[: start - destroyed], attrs={**u.attrs, "lost_step": lost}
    )
    return g


@pytest.mark.parametrize(
    ("destroyed", "start", "tested"), [(2, 4, False), (3, 5, True), (1, 4, False)]
)
def test_platoon_morale_at_the_end_of_the_shooting_step(
    destroyed: int, start: int, tested: bool
) -> None:
    g = _shot_up(destroyed, start, lost=1)
    events = g.apply(Next())  # the end of the Shooting Step
    rolls = [e for e in events if e.kind == "platoon_morale"]
    assert len(rolls) == int(tested)
    assert "lost_step" not in g.state.units["us_a"].attrs  # counted per step
    if tested:
        (r,) = rolls
        assert r.needed == 4 and r.unit == "us_a"  # Confident: 4+
        failed = r.dice[0] < 4
        # ASSUMPTION (research §10.6): a platoon that fails leaves the table
        assert g.state.units["us_a"].destroyed == failed
    assert g.state.phase == "assault"


def test_a_failed_platoon_morale_test_takes_the_platoon_off_the_table() -> None:
    results = set()
    for seed in range(1, 30):
        g = _shot_up(3, 5, lost=2, seed=seed)
        events = g.apply(Next())
        (r,) = [e for e in events if e.kind == "platoon_morale"]
        out = g.state.units["us_a"].destroyed
        assert out == (r.dice[0] < 4)
        results.add(out)
        if results == {True, False}:
            return
    raise AssertionError(f"only {results} seen")


def test_company_morale_failure_loses_the_game() -> None:
    """Three of the four German platoons gone: the German company is below
    half strength; in its Starting Step it tests (its worst Motivation in
    play: the Reluctant Flak, 5+); a failure ends the game, the US wins."""
    seen = set()
    for seed in range(1, 40):
        g = Game.from_scenario("fow_remagen_1945", seed=seed)
        st = g.state
        for uid in ("de_volkssturm", "de_pioniere", "de_hmg"):
            st.units[uid] = dataclasses.replace(st.units[uid], strength="destroyed")
        for _ in range(3):  # the US ends its steps: the German Starting Step
            g.apply(Next())
        log = g.log
        test = log[log["kind"] == "company_morale"]
        assert len(test) == 2  # the roll, then its result
        face = test.iloc[0]["dice"][0]
        assert test.iloc[0]["needed"] == 5 and test.iloc[0]["side"] == "de"
        if face < 5:
            assert g.is_over and g.state.phase == "end"
            out = g.outcome
            assert out is not None
            assert out.winner == "us" and out.termination == "company morale"
            assert g.legal_actions() == [] and g.current_side is None
        else:
            assert not g.is_over and g.current_side == "de"
            assert g.state.phase == "movement"
        seen.add(face < 5)
        if seen == {True, False}:
            break
    assert seen == {True, False}
    # at full strength there is no test
    g = Game.from_scenario("fow_remagen_1945", seed=1)
    for _ in range(3):
        g.apply(Next())
    assert not g.log["kind"].eq("company_morale").any()
