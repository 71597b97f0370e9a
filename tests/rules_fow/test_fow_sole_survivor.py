"""fow-v3 Starting Step item 1 (research §1.1, S2 [A]; the detail a gap,
§10.6): an infantry platoon reduced to one team takes a Motivation test in
its Starting Step; a failure destroys it (ASSUMPTION V1-V4)."""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

from wargame.engine import Game
from wargame.rules.fow.morale import sole_survivor_test_needed
from wargame.rules.fow.ruleset import Next

sys.path.insert(0, str(Path(__file__).parent))
from fow_fight_helpers import FIELD, game, platoon


def test_only_a_lone_infantry_team_of_a_bigger_platoon_is_tested() -> None:
    assert sole_survivor_test_needed(start=3, left=1, infantry=True)
    assert not sole_survivor_test_needed(start=3, left=2, infantry=True)
    assert not sole_survivor_test_needed(start=1, left=1, infantry=True)
    assert not sole_survivor_test_needed(start=3, left=1, infantry=False)


def _alone(
    seed: int, kind: str = "de_rifle_team", motivation: str = "reluctant"
) -> Game:
    """A German platoon of three teams cut down to one, at the end of the US
    turn: the next Next starts the German turn."""
    x, y = FIELD
    us = platoon("us_a", "tf_engeman", [("us_rifle_team", 2)], x=x, y=y, facing=0.0)
    de = platoon(
        "de_a",
        "bratge",
        [(kind, 3)],
        x=x,
        y=y + 150,
        facing=180.0,
        motivation=motivation,
    )
    de["spacing_m"] = 70.0  # room for guns' bases
    g = game([us, de], seed=seed)
    g.apply(Next())  # Shooting
    g.apply(Next())  # Assault
    u = g.state.units["de_a"]
    g.state.units["de_a"] = dataclasses.replace(u, models=u.models[:1])
    return g


def test_a_sole_survivor_is_destroyed_on_a_failed_test_and_kept_on_a_pass() -> None:
    seen: set[bool] = set()
    for seed in range(1, 40):
        g = _alone(seed)
        events = g.apply(Next())  # the German Starting Step
        kinds = [e.kind for e in events]
        (roll,) = [e for e in events if e.kind == "sole_survivor" and e.dice]
        assert roll.needed == 5 and roll.unit == "de_a"  # Reluctant: 5+
        # item 1: the first thing after the turn begins
        assert kinds.index("sole_survivor") == kinds.index("turn") + 1
        passed = roll.dice[0] >= 5
        assert g.state.units["de_a"].destroyed == (not passed)
        seen.add(passed)
        if seen == {True, False}:
            return
    raise AssertionError(f"only {seen} seen")


def test_no_sole_survivor_test_for_a_gun_or_for_the_other_side() -> None:
    g = _alone(1, kind="de_pak40")
    events = g.apply(Next())
    assert not [e for e in events if e.kind == "sole_survivor"]
    # the US platoon at full strength, the German one alone: the US Starting
    # Step of turn 1 had no test
    g = _alone(1)
    assert not g.log["kind"].eq("sole_survivor").any()
