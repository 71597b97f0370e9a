"""fow-v3 At the Double (research/fow.md §2.3, §10.2 stop-gap): double the
distance, no shooting that turn, double dice for enemies shooting at it, and
the refusals leaving the state unchanged."""

from __future__ import annotations

import dataclasses
import math

import pytest
from fow_remagen_foot import remagen_on_foot

from wargame.engine import Game, IllegalActionError, Model, Point
from wargame.rules.fow.double import DOUBLE_FACTOR, AtTheDouble, double_dice
from wargame.rules.fow.forces import teams
from wargame.rules.fow.ruleset import Move, Next, Shoot
from wargame.rules.fow.shooting import plan_shot


def _open_heading(g: Game, uid: str, metres: float) -> Point | None:
    """A point ``metres`` from the platoon's point that an ordinary move of
    that length could reach if it were long enough (the bearing with a legal
    At the Double move)."""
    rs, st = g.ruleset, g.state
    u = st.units[uid]
    p = u.position
    for b in range(0, 360, 15):
        to = Point(
            round(p.x + metres * math.sin(math.radians(b)), 1),
            round(p.y + metres * math.cos(math.radians(b)), 1),
        )
        if rs.move_problem(st, u, to, double=True) is None:
            return to
    return None


def test_at_the_double_goes_twice_as_far_and_no_farther() -> None:
    g = Game.from_scenario(remagen_on_foot(), seed=1)
    rs, st = g.ruleset, g.state
    u = st.units["us_1pl"]
    # infantry 6" = 150 m (research §2.2); At the Double 12" = 300 m
    to = _open_heading(g, "us_1pl", 250.0)
    assert to is not None
    plain = rs.move_problem(st, u, to)
    assert plain is not None and "more than" in plain
    assert DOUBLE_FACTOR == 2
    p = u.position
    dx, dy = (to.x - p.x) / 250.0, (to.y - p.y) / 250.0
    too_far = Point(round(p.x + 320.0 * dx, 1), round(p.y + 320.0 * dy, 1))
    before = st.digest()
    with pytest.raises(
        IllegalActionError, match=r"us_1pl cannot move: At the Double .*§10\.2"
    ):
        g.apply(AtTheDouble("us_1pl", too_far))
    with pytest.raises(IllegalActionError, match="us_1pl cannot move"):
        g.apply(Move("us_1pl", to))
    assert g.state.digest() == before
    g.apply(AtTheDouble("us_1pl", to))
    moved = g.state.units["us_1pl"]
    assert moved.position == to and moved.attrs["at_double"] is True
    assert moved.attrs["moved"] is True
    row = g.log[g.log["kind"] == "move"].iloc[-1]
    assert "At the Double" in row["result"]
    with pytest.raises(IllegalActionError, match="moved this turn already"):
        g.apply(AtTheDouble("us_1pl", Point(to.x + 10.0, to.y)))


def test_a_platoon_at_the_double_may_not_shoot_and_the_state_is_unchanged() -> None:
    # the 2nd Platoon on the Remagen bank, 400 m across the river from the
    # engineers (open ground, found on the real map)
    d = remagen_on_foot()
    for u in d["units"]:  # no German ambush (test_fow_ambush.py)
        u.pop("ambush", None)
    u = next(u for u in d["units"] if u["id"] == "us_2pl")
    u.pop("zone")
    u.update(x=375723.2, y=5604364.1, layout="line", facing=20)
    first = Game.from_scenario(d, seed=1)
    dashes = [
        a
        for a in first.legal_actions()
        if isinstance(a, AtTheDouble) and a.unit == "us_2pl"
    ]
    for dash in dashes:  # one that ends with an enemy in range and sight
        g = Game.from_scenario(d, seed=1)
        g.apply(dash)
        g.apply(Next())  # the Shooting Step
        st = g.state
        u = st.units["us_2pl"]
        targets = [
            t.id
            for t in st.units.values()
            if t.side == "de" and g.ruleset.shot_plan(st, u, t).shooters
        ]
        if targets:
            break
    else:  # pragma: no cover
        raise AssertionError("no dash ends in reach of the Germans")
    # only the rule stops the shot: no shot, no bombardment offered
    assert not any(getattr(a, "unit", None) == "us_2pl" for a in g.legal_actions())
    before = g.state.digest()
    for target in targets:
        with pytest.raises(
            IllegalActionError, match=r"us_2pl cannot shoot: us_2pl moved At the Double"
        ):
            g.apply(Shoot("us_2pl", target))
    assert g.state.digest() == before
    # the Germans shoot at it with double dice (research §2.3, S12)
    for _ in range(3):
        g.apply(Next())
    assert g.current_side == "de" and g.state.phase == "shooting"
    st = g.state
    dashed = st.units["us_2pl"]
    calm = dataclasses.replace(dashed, attrs={**dashed.attrs, "at_double": None})
    shooter = next(
        t
        for t in st.units.values()
        if t.side == "de" and g.ruleset.shot_plan(st, t, dashed).shooters
    )
    plan = g.ruleset.shot_plan(st, shooter, dashed)
    assert plan.dice == 2 * g.ruleset.shot_plan(st, shooter, calm).dice
    n0 = len(g.log)
    g.apply(Shoot(shooter.id, "us_2pl"))
    rolls = g.log.iloc[n0:]
    rolls = rolls[rolls["kind"] == "to_hit"]
    assert rolls["dice"].map(len).sum() == plan.dice
    # At the Double ends in the platoon's next Starting Step
    for _ in range(2):
        g.apply(Next())
    assert g.current_side == "us" and g.state.phase == "movement"
    assert "at_double" not in g.state.units["us_2pl"].attrs


def test_enemies_roll_double_dice_at_a_platoon_that_went_at_the_double() -> None:
    lmg = [
        (
            Model("a.1", "us_m1919_lmg", position=Point(0.0, 0.0)),
            teams()["us_m1919_lmg"],
        )
    ]
    target = [
        (
            Model("t.1", "de_rifle_team", position=Point(0.0, 100.0)),
            teams()["de_rifle_team"],
        )
    ]
    plan = plan_shot(
        lmg,
        target,
        target_skill="trained",
        moved=False,
        pinned=False,
        concealed_at=lambda x, y: False,
        gone_to_ground=False,
        sees=lambda a, b, e, t: True,
        metres_per_inch=25.0,
    )
    g = Game.from_scenario(remagen_on_foot(), seed=1)
    t = g.state.units["de_pioniere"]
    assert double_dice(plan, t) == plan  # it did not go At the Double
    dashed = dataclasses.replace(t, attrs={**t.attrs, "at_double": True})
    twice = double_dice(plan, dashed)
    assert twice.dice == 2 * plan.dice == 2 * teams()["us_m1919_lmg"].weapons[0].rof
    assert [s.to_hit for s in twice.shooters] == [s.to_hit for s in plan.shooters]


def test_at_the_double_moves_are_offered_and_legal() -> None:
    g = Game.from_scenario(remagen_on_foot(), seed=1)
    legal = g.legal_actions()
    dashes = [a for a in legal if isinstance(a, AtTheDouble)]
    assert dashes
    per_platoon: dict[str, int] = {}
    for a in dashes:
        per_platoon[a.unit] = per_platoon.get(a.unit, 0) + 1
        g.ruleset.check(g.state, a)  # each passes the check
    # toward objectives and to cover only: a few per platoon
    assert max(per_platoon.values()) <= len(g.ruleset.objectives) + 1
    moves = [a for a in legal if isinstance(a, Move)]
    assert len(dashes) < len(moves)
