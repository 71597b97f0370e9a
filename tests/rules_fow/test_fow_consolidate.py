"""fow-v3 consolidation after an assault (research §1.4 item 6; the distance
and restrictions are assumptions C1-C6, consolidate.py), the company command
team in an assault (research §4, [A: S4]) and the AI players' choices."""

from __future__ import annotations

import math
import sys
from pathlib import Path

import pytest

from wargame.engine import Game, IllegalActionError, Point
from wargame.engine.policy import Decision
from wargame.rules.fow.ai import GreedyPolicy
from wargame.rules.fow.assault import CONSOLIDATE_IN, gap_m
from wargame.rules.fow.consolidate import CLEAR_IN, Consolidate
from wargame.rules.fow.doctrine import DoctrinePolicy
from wargame.rules.fow.ruleset import Assault, BreakOff, Counterattack, Next

sys.path.insert(0, str(Path(__file__).parent))
from fow_fight_helpers import FIELD, fight, platoon, riflemen_facing

MPI = 25.0  # metres per inch


def _won(seeds: range = range(1, 60)) -> Game:
    """The first seed whose US assault is won at once (the Germans destroyed
    or broken off): the US platoon waits to consolidate."""
    for seed in seeds:
        g = riflemen_facing(60.0, seed=seed)
        g.apply(Assault("us_a", "de_a"))
        if g.state.vars.get("consolidate"):
            return g
    raise AssertionError("no assault was won at once")


def _decision(g: Game) -> Decision:
    side = g.current_side
    return Decision(
        side=side,
        legal_actions=tuple(g.legal_actions()),
        number=len(g.actions),
        seed=g.seed,
        view=lambda: g.ruleset.view(g.state, side),
        rules=g.ruleset,
    )


def test_the_winner_chooses_to_consolidate_up_to_4_inches_or_hold() -> None:
    g = _won()
    assert g.state.phase == "assault" and g.current_side == "us"
    legal = g.legal_actions()
    assert legal[0] == Consolidate("us_a")  # hold its ground
    moves = [a for a in legal[1:] if isinstance(a, Consolidate)]
    assert len(moves) == len(legal) - 1 and moves  # nothing else meanwhile
    here = g.state.units["us_a"].position
    enemy = [
        m
        for u in g.state.units.values()
        if u.side == "de" and u.models
        for m in u.models
    ]
    for a in moves:
        d = math.hypot(a.to.x - here.x, a.to.y - here.y)
        assert 0 < d <= CONSOLIDATE_IN * MPI + 1e-6  # 4" = 100 m at most
    # one of them, applied: every team by the platoon's offset, not into contact
    a = moves[-1]
    before = {m.id: m.position for m in g.state.units["us_a"].models}
    events = g.apply(a)
    (ev,) = [e for e in events if e.kind == "consolidate"]
    assert ev.result.startswith("consolidates ") and ev.side == "us"
    dx, dy = a.to.x - here.x, a.to.y - here.y
    for m in g.state.units["us_a"].models:
        p0 = before[m.id]
        assert (m.position.x, m.position.y) == pytest.approx((p0.x + dx, p0.y + dy))
        for e in enemy:
            assert gap_m(m, e) >= CLEAR_IN * MPI - 1e-6
    assert not g.state.vars.get("consolidate")
    assert g.state.units["us_a"].attrs.get("moved")  # not Gone to Ground (C5)
    assert Next() in g.legal_actions()  # the Assault Step goes on


def test_holding_its_ground_moves_nothing() -> None:
    g = _won()
    before = {m.id: m.position for m in g.state.units["us_a"].models}
    events = g.apply(Consolidate("us_a"))
    assert [e.result for e in events if e.kind == "consolidate"] == ["holds its ground"]
    assert {m.id: m.position for m in g.state.units["us_a"].models} == before
    assert not g.state.vars.get("consolidate")


def test_illegal_consolidations_are_refused_and_change_nothing() -> None:
    g = _won()
    st = g.state
    here = st.units["us_a"].position
    before = st.to_dict()
    far = Point(here.x, here.y - 5 * MPI)  # 5" away, in the open behind
    with pytest.raises(
        IllegalActionError, match=r'farther than the consolidation move of 4"'
    ):
        g.apply(Consolidate("us_a", far))
    with pytest.raises(IllegalActionError, match="must first consolidate"):
        g.apply(Next())
    with pytest.raises(IllegalActionError, match="has won no assault"):
        g.apply(Consolidate("de_a"))
    # into contact with an enemy team (put one 3" in front of the platoon)
    enemy = [
        m for u in st.units.values() if u.side == "de" and u.models for m in u.models
    ]
    if enemy:
        e = enemy[0]
        lead = st.units["us_a"].models[0]
        dx, dy = e.position.x - lead.position.x, e.position.y - lead.position.y
        d = math.hypot(dx, dy)
        if d - 50.0 < CONSOLIDATE_IN * MPI:  # reachable within 4": refused
            k = min(1.0, CONSOLIDATE_IN * MPI / d)
            with pytest.raises(IllegalActionError, match="into contact"):
                g.apply(Consolidate("us_a", Point(here.x + dx * k, here.y + dy * k)))
    assert g.state.to_dict() == before


def test_a_consolidation_is_never_into_contact_nor_offered_there() -> None:
    """Two German platoons: one assaulted and beaten, the other 130 m beyond
    it (not in the fight): no offered consolidation ends within 2" of it, and
    a move to 1" from it is refused."""
    x, y = FIELD
    us = platoon(
        "us_a",
        "tf_engeman",
        [("us_rifle_team", 4)],
        command="us_command_rifle_team",
        x=x,
        y=y,
        facing=0.0,
        skill="veteran",
    )
    de_a = platoon(
        "de_a",
        "bratge",
        [("de_rifle_team", 1)],
        x=x,
        y=y + 110.0,
        facing=180.0,
        motivation="reluctant",
    )
    de_b = platoon(
        "de_b", "bratge", [("de_rifle_team", 2)], x=x, y=y + 240.0, facing=180.0
    )
    for seed in range(1, 40):
        g = fight([us, de_a, de_b], seed=seed)
        g.apply(Assault("us_a", "de_a"))
        if not g.state.vars.get("consolidate"):
            continue
        far = list(g.state.units["de_b"].models)
        u = g.state.units["us_a"]
        for a in g.legal_actions()[1:]:
            dx, dy = a.to.x - u.position.x, a.to.y - u.position.y
            for m in u.models:
                moved = type(m)(
                    m.id,
                    m.kind,
                    position=Point(m.position.x + dx, m.position.y + dy),
                    radius_m=m.radius_m,
                )
                assert all(gap_m(moved, e) >= CLEAR_IN * MPI - 1e-6 for e in far)
        # straight at the nearest team of de_b, to 1" from it: refused
        m, e = min(((m, e) for m in u.models for e in far), key=lambda me: gap_m(*me))
        d = math.hypot(e.position.x - m.position.x, e.position.y - m.position.y)
        k = (gap_m(m, e) - 1 * MPI) / d
        dx, dy = (e.position.x - m.position.x) * k, (e.position.y - m.position.y) * k
        assert math.hypot(dx, dy) <= CONSOLIDATE_IN * MPI
        into = Point(u.position.x + dx, u.position.y + dy)
        assert Consolidate("us_a", into) not in g.legal_actions()
        with pytest.raises(IllegalActionError, match=r'within 2" .* into contact'):
            g.apply(Consolidate("us_a", into))
        return
    raise AssertionError("no seed won the assault")


def test_a_defender_that_wins_by_counterattacking_consolidates_in_the_enemy_turn() -> (
    None
):
    for seed in range(1, 80):
        g = riflemen_facing(60.0, seed=seed, de_motivation="fearless")
        g.apply(Assault("us_a", "de_a"))
        while g.state.vars.get("fight"):
            side = g.current_side
            uid = g.state.vars["fight"]["pending"][0]
            g.apply(Counterattack(uid) if side == "de" else BreakOff(uid))
        c = g.state.vars.get("consolidate")
        if c and g.current_side == "de":
            assert g.state.vars["side"] == "us"  # still the US Assault Step
            assert g.legal_actions()[0] == Consolidate("de_a")
            g.apply(Consolidate("de_a"))
            assert g.current_side == "us"
            return
    raise AssertionError("no counterattack was won")


def test_words_describe_consolidation() -> None:
    g = _won()
    legal = g.legal_actions()
    assert g.describe(legal[0]) == "us_a holds its ground after the assault"
    words = g.describe(legal[1])
    assert words.startswith("us_a consolidates ") and " m " in words + " "


def test_the_ai_players_consolidate_toward_the_objective_in_the_open() -> None:
    """On open ground with no enemy left in sight, both players move the
    winner toward the nearest objective its side does not hold, rather than
    hold (4" gained is worth more than the ground it stands on)."""
    g = _won()
    rules, view = g.ruleset, g.state_for("us")
    here = view.units["us_a"].position
    goals = [
        p for name, (p, _) in rules.objectives.items() if view.control.get(name) != "us"
    ]

    def to_goal(p: Point) -> float:
        return min(math.hypot(q.x - p.x, q.y - p.y) for q in goals)

    for policy in (DoctrinePolicy(), GreedyPolicy()):
        choice = policy.choose(_decision(g))
        assert isinstance(choice, Consolidate) and choice.to is not None
        assert to_goal(choice.to) < to_goal(here) - 50.0


# --------------------------------------------------------------------------- #
# the company command team in an assault (research §4, [A: S4])               #
# --------------------------------------------------------------------------- #


def test_the_company_command_team_always_breaks_off_and_never_counterattacks() -> None:
    """A Fearless German platoon and its (Fearless) company command team both
    within 4" of the attackers: on a passed test the platoon may choose, the
    independent team must break off (S4: independent teams always break off)."""
    x, y = FIELD
    us = platoon(
        "us_a",
        "tf_engeman",
        [("us_rifle_team", 2)],
        command="us_command_rifle_team",
        x=x,
        y=y,
        facing=0.0,
    )
    de = platoon(
        "de_a",
        "bratge",
        [("de_rifle_team", 2)],
        x=x,
        y=y + 110.0,
        facing=180.0,
        motivation="fearless",
    )
    hq = platoon(
        "de_hq",
        "bratge",
        [("de_command_smg_team", 1)],
        x=x + 110.0,
        y=y + 110.0,
        facing=180.0,
        motivation="fearless",
    )
    hq["company_command"] = True
    seen = 0
    for seed in range(1, 60):
        g = fight([us, de, hq], seed=seed)
        events = g.apply(Assault("us_a", "de_a"))
        tests = {e.unit: e for e in events if e.kind == "counterattack" and not e.dice}
        if "de_hq" not in tests:
            continue  # not within 4" after the hits, or destroyed
        seen += 1
        assert tests["de_hq"].result == "failed"
        assert "independent team" in (tests["de_hq"].detail or "")
        assert any(e.kind == "break_off" and e.unit == "de_hq" for e in events)
        pending = (g.state.vars.get("fight") or {}).get("pending", [])
        assert "de_hq" not in pending
        assert Counterattack("de_hq") not in g.legal_actions()
        if "de_a" in tests and tests["de_a"].result == "passed":
            assert Counterattack("de_a") in g.legal_actions()
    assert seen >= 3
