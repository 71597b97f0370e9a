"""fow-v3 transports (research/fow.md §1.2, §3.4; the rest assumed,
transport.py): a scenario mounts a platoon, passengers ride off the table, get
out at the start of their move and in at the end of it, and take a 5+ save when
their transport is destroyed."""

from __future__ import annotations

import dataclasses
import tomllib
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from wargame.engine import Game, IllegalActionError, Point, RuleContext, ScenarioError
from wargame.rules.fow import transport
from wargame.rules.fow.ruleset import Move, Next, Shoot
from wargame.rules.fow.transport import Dismount, Mount

SCENARIO = Path(__file__).parents[2] / "scenarios" / "fow_remagen_1945.toml"


def _data(**mount: Any) -> dict[str, Any]:
    """The shipped Remagen scenario (1st Platoon rides in ``us_halftracks``),
    with ``mount`` overriding keys of ``us_1pl``."""
    d = tomllib.loads(SCENARIO.read_text(encoding="utf-8"))
    u = next(u for u in d["units"] if u["id"] == "us_1pl")
    assert u["mounted_in"] == "us_halftracks"
    u.update(mount)
    return d


def test_a_mounted_platoon_rides_off_the_table() -> None:
    g = Game.from_scenario(_data(), seed=1)
    st = g.state
    p = st.units["us_1pl"]
    assert p.attrs["mounted_in"] == "us_halftracks" and p.position is None
    assert all(m.position is None for m in p.models)
    legal = g.legal_actions()
    assert Dismount("us_1pl") in legal
    assert not any(
        isinstance(a, Move) and a.unit == "us_1pl" for a in legal
    )  # passengers do not move while mounted
    with pytest.raises(IllegalActionError, match="us_1pl rides in us_halftracks"):
        g.apply(Move("us_1pl", Point(375000.0, 5604000.0)))
    g.apply(Next())
    with pytest.raises(IllegalActionError, match="rides in us_halftracks"):
        g.apply(Shoot("us_1pl", "de_volkssturm"))
    with pytest.raises(IllegalActionError, match="Movement Step"):
        g.apply(Dismount("us_1pl"))
    assert (
        g.state.units["us_1pl"]
        == Game.from_scenario(_data(), seed=1).state.units["us_1pl"]
    )  # the refusals changed nothing
    # and no German platoon may shoot at the passengers
    g.apply(Next())
    g.apply(Next())  # the German Movement Step
    g.apply(Next())  # the German Shooting Step
    assert not any(
        isinstance(a, Shoot) and a.target == "us_1pl" for a in g.legal_actions()
    )


def test_passengers_get_out_where_the_transport_went_and_then_move() -> None:
    g = Game.from_scenario(_data(), seed=1)
    legal = g.legal_actions()
    carry = next(a for a in legal if isinstance(a, Move) and a.unit == "us_halftracks")
    g.apply(carry)  # the transport moves; the passengers ride along
    g.apply(Dismount("us_1pl"))  # they get out at the start of their move
    st = g.state
    spots = [m.position for m in st.units["us_halftracks"].models]
    got_out = st.units["us_1pl"]
    assert [m.position for m in got_out.models] == [
        spots[i % len(spots)] for i in range(len(got_out.models))
    ]
    assert got_out.position == got_out.models[0].position
    assert "mounted_in" not in got_out.attrs
    assert any(isinstance(a, Move) and a.unit == "us_1pl" for a in g.legal_actions())


def test_passengers_get_in_within_two_inches_and_not_out_that_turn() -> None:
    g = Game.from_scenario(_data(), seed=1)
    g.apply(Dismount("us_1pl"))
    assert Mount("us_1pl", "us_halftracks") in g.legal_actions()
    # not into a tank platoon, nor a platoon of the other side
    with pytest.raises(IllegalActionError, match="not a transport platoon"):
        g.apply(Mount("us_1pl", "us_pershings"))
    with pytest.raises(IllegalActionError, match="not another platoon of us"):
        g.apply(Mount("us_1pl", "de_flak"))
    g.apply(Mount("us_1pl", "us_halftracks"))
    assert g.state.units["us_1pl"].position is None
    before = g.state.digest()
    with pytest.raises(IllegalActionError, match="got into us_halftracks this turn"):
        g.apply(Dismount("us_1pl"))
    assert g.state.digest() == before
    # too far to get in: a platoon out of 2" of every half-track
    g2 = Game.from_scenario(_data(), seed=1)
    g2.apply(Dismount("us_1pl"))
    why = transport.mount_problem(g2.ruleset, g2.state, "us_2pl", "us_halftracks")
    assert why is not None and 'within 2"' in why


def test_bad_mounts_in_the_scenario_are_named() -> None:
    with pytest.raises(ScenarioError, match=r"us_1pl'\)\.mounted_in: 'us_ghost'"):
        Game.from_scenario(_data(mounted_in="us_ghost"), seed=1)
    with pytest.raises(ScenarioError, match="us_pershings is not a transport"):
        Game.from_scenario(_data(mounted_in="us_pershings"), seed=1)
    with pytest.raises(ScenarioError, match="has no position"):
        Game.from_scenario(_data(x=375000.0, y=5604000.0), seed=1)


def test_a_destroyed_transports_passengers_get_out_and_save_on_five() -> None:
    g = Game.from_scenario(_data(), seed=1)
    st = g.state.copy()
    ht = st.units["us_halftracks"]
    st.units["us_halftracks"] = dataclasses.replace(ht, models=(), strength="destroyed")
    events: list[Any] = []
    ctx = RuleContext(st, np.random.default_rng(3), g.map, events.append)
    transport.after_fire(g.ruleset, ctx)
    saves = [e for e in events if e.kind == "save"]
    assert len(saves) == len(g.state.units["us_1pl"].models)
    assert all(e.needed == 5 for e in saves)
    passed = sum(e.dice[0] >= 5 for e in saves)
    p = st.units["us_1pl"]
    assert "mounted_in" not in p.attrs and len(p.models) == passed
    for m in p.models:  # out beside where the transport was
        assert isinstance(m.position, Point)
        assert abs(m.position.x - ht.position.x) <= 2 * 25.0 + 1e-6


def test_transports_pass_check_ruleset() -> None:
    from wargame.rules.fow.double import AtTheDouble
    from wargame.testing import check_ruleset

    d = _data()
    d["turns"] = 2
    report = check_ruleset(
        "fow-v3",
        d,
        seeds=range(1),
        repeat=1,
        sampled=lambda a: isinstance(a, Move | AtTheDouble),
        complete_legal_actions=False,
    )
    assert report.games == 1 and report.actions_checked > 5
