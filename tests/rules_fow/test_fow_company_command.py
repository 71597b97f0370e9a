"""fow-v3 company command team (research §1.1, S2/S12 [A]): a platoon it has
joined re-rolls failed Motivation tests; joining and the rest are ASSUMPTION
H1-H4 (hq.py)."""

from __future__ import annotations

import dataclasses
import math
import sys
from pathlib import Path

import pytest

from wargame.engine import Game, ScenarioError
from wargame.rules.fow.hq import joined_by
from wargame.rules.fow.ruleset import Next

sys.path.insert(0, str(Path(__file__).parent))
from fow_fight_helpers import FIELD, e4_platoons, fight, game, platoon


def _hq(dy: float) -> dict:
    x, y = FIELD
    u = platoon(
        "de_hq",
        "bratge",
        [("de_command_smg_team", 1)],
        x=x,
        y=y + dy,
        facing=180.0,
        motivation="reluctant",
    )
    u["company_command"] = True
    return u


def _pinned(seed: int, hq_dy: float | None) -> Game:
    """A Reluctant German platoon Pinned Down at the end of the US turn; the
    company command team 70 m behind it (joined) or 450 m away, or none."""
    x, y = FIELD
    us = platoon("us_a", "tf_engeman", [("us_rifle_team", 2)], x=x, y=y, facing=0.0)
    de = platoon(
        "de_a",
        "bratge",
        [("de_rifle_team", 3)],
        x=x,
        y=y + 150,
        facing=180.0,
        motivation="reluctant",
    )
    units = [us, de] + ([_hq(hq_dy)] if hq_dy is not None else [])
    g = game(units, seed=seed)
    g.apply(Next())  # Shooting
    g.apply(Next())  # Assault
    u = g.state.units["de_a"]
    g.state.units["de_a"] = dataclasses.replace(u, attrs={**u.attrs, "pinned": True})
    return g


def test_the_company_command_joins_the_nearest_platoon_within_command_distance() -> (
    None
):
    near, far = _pinned(1, 220.0), _pinned(1, 600.0)
    st = near.state
    a, hq = st.units["de_a"], st.units["de_hq"]
    d = math.hypot(
        hq.models[0].position.x - a.models[0].position.x,
        hq.models[0].position.y - a.models[0].position.y,
    )
    assert d < 150.0  # 6" at 25 m an inch: a Trained infantry platoon's distance
    assert joined_by(near.ruleset, st, a) == "de_hq"
    assert joined_by(near.ruleset, st, hq) is None  # H4: not for itself
    assert joined_by(far.ruleset, far.state, far.state.units["de_a"]) is None
    # an enemy platoon is never joined
    assert joined_by(near.ruleset, st, st.units["us_a"]) is None


def test_a_joined_platoon_re_rolls_a_failed_rally_and_the_second_die_stands() -> None:
    seen = set()
    for seed in range(1, 60):
        g = _pinned(seed, 220.0)
        events = g.apply(Next())  # the German Starting Step: rally (item 7)
        rolls = [e for e in events if e.unit == "de_a" and e.kind.startswith("rally")]
        first = rolls[0]
        assert first.kind == "rally" and first.needed == 5  # Reluctant 5+
        rallied = not g.state.units["de_a"].attrs.get("pinned")
        if first.dice[0] >= 5:
            assert len(rolls) == 2 and rallied  # the roll and the "rallied" event
            continue
        again = [e for e in rolls if e.kind == "rally_reroll"]
        assert len(again) == 1 and again[0].needed == 5
        assert "company command" in again[0].detail
        assert rallied == (again[0].dice[0] >= 5)
        seen.add(rallied)
        if seen == {True, False}:
            return
    raise AssertionError(f"only {seen} seen")


@pytest.mark.parametrize("hq_dy", [600.0, None])
def test_without_the_company_command_a_failed_rally_stands(hq_dy) -> None:
    for seed in range(1, 30):
        g = _pinned(seed, hq_dy)
        events = g.apply(Next())
        assert not [e for e in events if e.kind == "rally_reroll"]
        (first,) = [e for e in events if e.unit == "de_a" and e.kind == "rally"][:1]
        assert (not g.state.units["de_a"].attrs.get("pinned")) == (first.dice[0] >= 5)


def test_bad_company_command_keys_name_file_unit_and_field() -> None:
    x, y = FIELD
    two = _hq(300.0)
    two["teams"] = [{"team": "de_command_smg_team", "count": 2}]
    word = _hq(300.0)
    word["id"] = "de_hq2"
    word["company_command"] = "yes"
    us = platoon("us_a", "tf_engeman", [("us_rifle_team", 2)], x=x, y=y, facing=0.0)
    with pytest.raises(ScenarioError) as err:
        game([us, two, word])
    text = str(err.value)
    assert "units[1] ('de_hq').company_command: the company command is one team" in text
    assert "units[2] ('de_hq2').company_command: 'yes' is not true or false" in text


def test_the_counterattack_die_is_re_rolled_for_the_joined_platoon_only() -> None:
    """E4's set-up (one die for a Fearless and a Reluctant defending platoon)
    with the company command team behind the Reluctant one: a failed die is
    rolled once more for that platoon, and the other keeps the first die."""
    from wargame.rules.fow.ruleset import Assault

    us, de_a, de_b = e4_platoons()
    x, y = FIELD
    hq = _hq(0.0)
    hq["x"], hq["y"] = x + 165.0, y + 180.0
    seen = set()
    for seed in range(1, 80):
        g = fight([us, de_a, de_b, hq], seed=seed)
        st = g.state
        if joined_by(g.ruleset, st, st.units["de_b"]) != "de_hq":
            continue  # pragma: no cover - the set-up puts it there
        assert joined_by(g.ruleset, st, st.units["de_a"]) is None
        events = g.apply(Assault("us_a", "de_a"))
        rolls = [e for e in events if e.kind == "counterattack" and e.dice]
        results = {
            e.unit: e.result for e in events if e.kind == "counterattack" and not e.dice
        }
        if not rolls or not {"de_a", "de_b"} <= set(results):
            continue
        ((face,),) = [r.dice for r in rolls]
        again = [e for e in events if e.kind == "counterattack_reroll"]
        assert results["de_a"] == ("passed" if face >= 3 else "failed")
        if face >= 5:
            assert not again and results["de_b"] == "passed"
            continue
        (re,) = again
        assert "de_b" in re.detail and results["de_b"] == (
            "passed" if re.dice[0] >= 5 else "failed"
        )
        seen.add(re.dice[0] >= 5)
        if seen == {True, False}:
            return
    raise AssertionError(f"re-rolls seen: {seen}")


def test_the_doctrine_keeps_the_company_command_with_an_infantry_platoon() -> None:
    """Doctrine (ASSUMPTION, doctrine._escort): the company command team 450 m
    west of its infantry closes on it; once within the platoon's command
    distance it stays joined."""
    from wargame.engine.policy import Decision
    from wargame.rules.fow.doctrine import DoctrinePolicy
    from wargame.rules.fow.ruleset import Move

    x, y = FIELD
    us = platoon("us_a", "tf_engeman", [("us_rifle_team", 2)], x=x, y=y, facing=0.0)
    de = platoon("de_a", "bratge", [("de_rifle_team", 3)], x=x, y=y + 150, facing=180.0)
    hq = _hq(0.0)
    hq.update(formation="tf_engeman", id="us_hq", name="US HQ", x=x - 450, y=y)
    hq["teams"] = [{"team": "us_command_rifle_team", "count": 1}]
    g = game([us, de, hq])
    policy = DoctrinePolicy()
    moves = [a for a in g.legal_actions() if isinstance(a, Move) and a.unit == "us_hq"]
    assert moves
    dec = Decision(
        side="us",
        legal_actions=moves,
        number=len(g.actions),
        seed=1,
        view=lambda: g.state_for("us"),
        rules=g.ruleset,
    )
    chosen = policy.choose(dec)
    st = g.state
    a0 = st.units["us_a"].models[0].position
    h0 = st.units["us_hq"].models[0].position
    before = math.hypot(h0.x - a0.x, h0.y - a0.y)
    after = math.hypot(chosen.to.x - a0.x, chosen.to.y - a0.y)
    assert after < before - 100.0  # it goes most of its 6" toward the platoon
