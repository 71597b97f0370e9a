"""fow-v3: a team that will assault fires ROF 1 (research §3.1, [A-v2/v3: S12];
rof.py, assumptions R1-R4): a team that fired above ROF 1 does not charge."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from wargame.engine import Game, IllegalActionError, Model, Point
from wargame.rules.fow.forces import teams
from wargame.rules.fow.rof import OVER_ROF1
from wargame.rules.fow.ruleset import Assault, Next, Shoot
from wargame.rules.fow.shooting import plan_shot

sys.path.insert(0, str(Path(__file__).parent))
from fow_fight_helpers import FIELD, game, platoon

X, Y = FIELD


def _lmgs(seed: int, *, command: str | None = None, gap_m: float = 60.0) -> Game:
    """Two M1919 LMG teams (ROF 5; with ``command``, a command team first)
    ``gap_m`` (base edge to edge) from six Veteran German rifle teams; in
    the US Shooting Step of turn 1."""
    us = platoon(
        "us_a",
        "tf_engeman",
        [("us_m1919_lmg", 2 if command else 3)],
        command=command,
        x=X,
        y=Y,
        facing=0.0,
    )
    de = platoon(
        "de_a",
        "bratge",
        [("de_rifle_team", 6)],
        x=X,
        y=Y + gap_m + 50.0,
        facing=180.0,
        skill="veteran",
    )
    g = game([us, de], seed=seed)
    g.apply(Next())  # the Shooting Step
    return g


def test_plan_shot_at_rof_1_when_assaulting() -> None:
    lmg, rifle = teams()["us_m1919_lmg"], teams()["de_rifle_team"]
    shooter = (Model("a", lmg.id, position=Point(0, 0), radius_m=25), lmg)
    target = (Model("b", rifle.id, position=Point(0, 150), radius_m=25), rifle)
    kw = {
        "target_skill": "trained",
        "moved": False,
        "pinned": False,
        "concealed_at": lambda x, y: False,
        "gone_to_ground": False,
        "sees": lambda a, b, e, t: True,
        "metres_per_inch": 25.0,
    }
    full = plan_shot([shooter], [target], **kw)
    ready = plan_shot([shooter], [target], assaulting=True, **kw)
    assert [(s.dice, s.rof) for s in full.shooters] == [(5, 5)]
    assert [(s.dice, s.rof) for s in ready.shooters] == [(1, 1)]


def test_a_platoon_that_fired_above_rof_1_may_not_assault() -> None:
    for seed in range(1, 20):
        g = _lmgs(seed)
        assert Shoot("us_a", "de_a", to_assault=True) in g.legal_actions()
        events = g.apply(Shoot("us_a", "de_a"))
        assert [len(e.dice) for e in events if e.kind == "to_hit"] == [5, 5, 5]
        marked = g.state.units["us_a"].attrs[OVER_ROF1]
        assert sorted(marked) == sorted(m.id for m in g.state.units["us_a"].models)
        g.apply(Next())  # to the Assault Step
        if g.state.phase != "assault" or g.state.units["de_a"].destroyed:
            continue
        assert not any(isinstance(a, Assault) for a in g.legal_actions())
        before = g.state.to_dict()
        with pytest.raises(IllegalActionError, match="fired above ROF 1"):
            g.apply(Assault("us_a", "de_a"))
        assert g.state.to_dict() == before
        # the marks last to the end of the turn only (R3)
        g.apply(Next())
        assert OVER_ROF1 not in g.state.units["us_a"].attrs
        return
    raise AssertionError("no seed left the target standing")


def test_shooting_at_rof_1_keeps_the_assault_open() -> None:
    for seed in range(1, 20):
        g = _lmgs(seed)
        events = g.apply(Shoot("us_a", "de_a", to_assault=True))
        assert [len(e.dice) for e in events if e.kind == "to_hit"] == [1, 1, 1]
        assert not g.state.units["us_a"].attrs.get(OVER_ROF1)
        g.apply(Next())
        if g.state.units["de_a"].destroyed or g.state.units["us_a"].attrs.get("pinned"):
            continue
        assert Assault("us_a", "de_a") in g.legal_actions()
        assert g.describe(Shoot("us_a", "de_a", to_assault=True)).endswith(
            "at ROF 1, ready to assault"
        )
        return
    raise AssertionError("no seed left the target standing")


def test_only_the_teams_that_fired_at_rof_1_charge() -> None:
    """A command rifle team (ROF 1) and two LMG teams (ROF 5) shoot at full
    ROF: the platoon may still assault, but only the rifle team charges and
    strikes."""
    for seed in range(1, 20):
        g = _lmgs(seed, command="us_command_rifle_team")
        g.apply(Shoot("us_a", "de_a"))
        lmgs = [m.id for m in g.state.units["us_a"].models[1:]]
        assert sorted(g.state.units["us_a"].attrs[OVER_ROF1]) == sorted(lmgs)
        g.apply(Next())
        if Assault("us_a", "de_a") not in g.legal_actions():
            continue  # target gone, or no way in
        stay = {m.id: m.position for m in g.state.units["us_a"].models[1:]}
        events = g.apply(Assault("us_a", "de_a"))
        if any(e.kind == "pinned" for e in events):
            continue  # stopped by defensive fire
        (charge,) = [e for e in events if e.kind == "charge"]
        assert charge.result.startswith("1 team(s) charge")
        for m in g.state.units["us_a"].models[1:]:
            if m.id in stay:
                assert m.position == stay[m.id]
        hits = [e for e in events if e.kind == "assault_hit" and e.side == "us"]
        assert all(len(e.dice) == 1 for e in hits)
        return
    raise AssertionError("no seed came to the charge")


def test_no_rof_1_option_where_it_changes_nothing() -> None:
    """R4: rifle teams fire ROF 1 anyway; a platoon out of charge reach
    (beyond 4") cannot assault whatever it fires."""
    rifles = platoon("us_a", "tf_engeman", [("us_rifle_team", 3)], x=X, y=Y, facing=0.0)
    de = platoon(
        "de_a", "bratge", [("de_rifle_team", 3)], x=X, y=Y + 110.0, facing=180.0
    )
    g = game([rifles, de])
    g.apply(Next())
    shots = [a for a in g.legal_actions() if isinstance(a, Shoot)]
    assert shots == [Shoot("us_a", "de_a")]
    g = _lmgs(1, gap_m=150.0)  # 6" apart
    shots = [a for a in g.legal_actions() if isinstance(a, Shoot)]
    assert shots == [Shoot("us_a", "de_a")]
