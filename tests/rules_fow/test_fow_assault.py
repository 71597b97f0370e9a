"""fow-v3 Assault Step: the rules of :mod:`wargame.rules.fow.assault` (research
§8 E4 and E7 with exact odds), and the engine: charges refused with the state
unchanged, the defender's choice (it decides while the choice is pending),
break off, defensive fire, counterattacks with the sides swapped."""

from __future__ import annotations

import dataclasses
import math
import sys
from fractions import Fraction
from pathlib import Path

import pytest

from wargame.engine import Game, IllegalActionError, Model, Point
from wargame.rules.fow.assault import (
    BREAK_OFF_IN,
    CHARGE_IN,
    assault_hits_pmf,
    break_off_offset,
    charge_moves,
    counterattack_pmf,
    counterattack_results,
    defensive_fire_stops,
    gap_m,
    must_break_off,
    strike_score,
    strikers,
)
from wargame.rules.fow.forces import teams
from wargame.rules.fow.ruleset import Assault, BreakOff, Counterattack, Move, Next

sys.path.insert(0, str(Path(__file__).parent))
from fow_fight_helpers import (
    FIELD,
    e4_platoons,
    fight,
    game,
    platoon,
    riflemen_facing,
)

MPI = 25.0  # metres per inch


def _team(mid: str, kind: str, x: float, y: float) -> tuple[Model, object]:
    t = teams()[kind]
    return Model(mid, kind, position=Point(x, y), radius_m=t.base_radius_m), t


# --------------------------------------------------------------------------- #
# the rules                                                                   #
# --------------------------------------------------------------------------- #


def test_E7_three_trained_teams_hit_at_least_once_seven_times_in_eight() -> None:
    """research §8 E7: three Trained infantry teams within 2": each a plain
    Skill test 4+, no modifier; P(at least one hit) = 7/8."""
    assert strike_score("trained") == 4
    pmf = assault_hits_pmf(["trained"] * 3)
    assert 1 - pmf[0] == Fraction(7, 8)
    assert pmf == (Fraction(1, 8), Fraction(3, 8), Fraction(3, 8), Fraction(1, 8))
    # the striker's OWN skill (research §4): veterans 3+, conscripts 5+
    assert assault_hits_pmf(["veteran"])[1] == Fraction(2, 3)
    assert assault_hits_pmf(["conscript", "veteran"])[2] == Fraction(1, 3) * Fraction(
        2, 3
    )


def test_E4_one_die_for_every_defending_platoon() -> None:
    """research §8 E4: on a 4 Fearless and Confident pass, Reluctant fails; on
    a 3 only Fearless; on 5 or 6 everyone; a re-roll is a second die for the
    platoons that failed only; no attacker hit = everyone passes."""
    mot = {"f": "fearless", "c": "confident", "r": "reluctant"}
    assert counterattack_results(4, mot) == {"f": True, "c": True, "r": False}
    assert counterattack_results(3, mot) == {"f": True, "c": False, "r": False}
    for face in (5, 6):
        assert all(counterattack_results(face, mot).values())
    # the re-roll applies to the failed platoons only: a 3 on it cannot undo
    # the Fearless pass, and it lifts no one needing 4+ or 5+
    assert counterattack_results(3, mot, reroll_face=3) == {
        "f": True,
        "c": False,
        "r": False,
    }
    assert counterattack_results(2, mot, reroll_face=5) == {
        "f": True,
        "c": True,
        "r": True,
    }
    assert all(counterattack_results(1, mot, attackers_hit=False).values())
    assert counterattack_pmf("reluctant") == Fraction(1, 3)
    assert counterattack_pmf("fearless", reroll=True) == Fraction(8, 9)


def test_charge_reaches_four_inches_and_ends_in_contact() -> None:
    a = _team("a.1", "us_rifle_team", 0.0, 0.0)
    near = _team("b.1", "de_rifle_team", 0.0, 50.0 + 4 * MPI)[0]  # gap 4"
    far = _team("b.2", "de_rifle_team", 0.0, 50.0 + 4 * MPI + 1.0)[0]
    ends = charge_moves([a], [near], mpi=MPI, passable=lambda *_: True)
    assert ends == {"a.1": (0.0, 100.0)}
    moved = dataclasses.replace(a[0], position=Point(*ends["a.1"]))
    assert gap_m(moved, near) == pytest.approx(0.0)
    assert charge_moves([a], [far], mpi=MPI, passable=lambda *_: True) == {}
    # impassable going on the way: no charge
    assert charge_moves([a], [near], mpi=MPI, passable=lambda *_: False) == {}
    # teams within 2" of an enemy team strike; Bailed Out teams do not
    assert strikers([a], [near], MPI) == []
    bailed = (dataclasses.replace(moved, attrs={"bailed": True}), a[1])
    assert strikers([(moved, a[1]), bailed], [near], MPI) == ["a.1"]


def test_defensive_fire_stops_infantry_at_five_hits_and_break_off_is_6_inches() -> None:
    assert defensive_fire_stops(5, all_tanks=False)
    assert not defensive_fire_stops(4, all_tanks=False)
    assert not defensive_fire_stops(12, all_tanks=True)  # ASSUMPTION: tanks
    m = _team("a.1", "us_rifle_team", 30.0, 40.0)[0]
    enemy = [_team("b.1", "de_rifle_team", 0.0, 0.0)[0]]
    dx, dy = break_off_offset(m, enemy, MPI)
    assert math.hypot(dx, dy) == pytest.approx(BREAK_OFF_IN * MPI)
    assert (dx, dy) == pytest.approx((90.0, 120.0))  # straight away from it


def test_unarmoured_tanks_within_4_inches_must_break_off() -> None:
    """research §4 [A: S4]; a tank team without armour (a made-up profile)."""
    sherman = teams()["us_m4a3_sherman"]
    soft = dataclasses.replace(sherman, armour=None, save=5)
    m = Model("t.1", sherman.id, position=Point(0.0, 0.0), radius_m=25.0)
    enemy = [Model("e.1", "de_rifle_team", position=Point(0.0, 140.0), radius_m=25.0)]
    assert must_break_off([(m, soft)], enemy, MPI)  # gap 90 m < 4"
    assert not must_break_off([(m, sherman)], enemy, MPI)


# --------------------------------------------------------------------------- #
# the engine                                                                  #
# --------------------------------------------------------------------------- #


def test_an_assault_beyond_4_inches_is_refused_and_changes_nothing() -> None:
    g = riflemen_facing(CHARGE_IN * MPI + 10.0)  # 110 m, base edge to edge
    before = g.state.to_dict()
    n = len(g.events)
    with pytest.raises(IllegalActionError, match=r'us_a cannot assault.*4"'):
        g.apply(Assault("us_a", "de_a"))
    assert g.state.to_dict() == before and len(g.events) == n
    assert Assault("us_a", "de_a") not in g.legal_actions()
    # within 4" it is offered
    assert Assault("us_a", "de_a") in riflemen_facing(90.0).legal_actions()


def test_illegal_assaults_name_the_rule_and_the_platoon() -> None:
    g = riflemen_facing(60.0)
    with pytest.raises(IllegalActionError, match="de_a is not us's platoon"):
        g.apply(Assault("de_a", "us_a"))  # the enemy's platoon
    with pytest.raises(IllegalActionError, match="us_a is not an enemy platoon"):
        g.apply(Assault("us_a", "us_a"))  # an own platoon
    st = g.state
    st.units["us_a"] = dataclasses.replace(
        st.units["us_a"], attrs={**st.units["us_a"].attrs, "pinned": True}
    )
    with pytest.raises(IllegalActionError, match=r"us_a cannot assault.*Pinned Down"):
        g.apply(Assault("us_a", "de_a"))
    st.units["us_a"] = dataclasses.replace(st.units["us_a"], strength="destroyed")
    with pytest.raises(IllegalActionError, match="us_a is not on the table"):
        g.apply(Assault("us_a", "de_a"))
    # the Movement Step: no assault
    x, y = FIELD
    g2 = Game.from_scenario(g.scenario, seed=1)
    assert g2.state.phase == "movement"
    with pytest.raises(
        IllegalActionError,
        match="us_a cannot assault: assaults are made in the Assault Step, not "
        "the movement",
    ):
        g2.apply(Assault("us_a", "de_a"))
    assert g2.state.units["us_a"].models[0].position == Point(x - 55.0, y)


def _pending(seed_range: range, **kw: object) -> Game:
    """The first seed whose assault ends in a pending counterattack choice."""
    for seed in seed_range:
        g = riflemen_facing(60.0, seed=seed, **kw)  # type: ignore[arg-type]
        g.apply(Assault("us_a", "de_a"))
        if g.state.vars.get("fight"):
            return g
    raise AssertionError("no assault came to a counterattack choice")


def test_the_defender_decides_whether_to_counterattack() -> None:
    g = _pending(range(1, 40), de_motivation="fearless")
    st = g.state
    assert st.phase == "assault" and st.vars["side"] == "us"
    assert g.current_side == "de"  # the defender decides while it is pending
    assert g.legal_actions() == [Counterattack("de_a"), BreakOff("de_a")]
    before = g.state.to_dict()
    for bad in (Next(), Assault("us_a", "de_a"), Move("us_a", Point(*FIELD))):
        with pytest.raises(IllegalActionError, match="counterattack or break off"):
            g.apply(bad)
    with pytest.raises(IllegalActionError, match="us_a has no counterattack test"):
        g.apply(Counterattack("us_a"))
    assert g.state.to_dict() == before
    # the test before it: one die (or none, with no attacker hit)
    log = g.log
    tests = log[log["kind"] == "counterattack"]
    assert tests.iloc[-1]["result"] == "passed"


def test_break_off_moves_the_platoon_6_inches_away() -> None:
    g = _pending(range(1, 40), de_motivation="fearless")
    us = list(g.state.units["us_a"].models)
    de0 = {m.id: m.position for m in g.state.units["de_a"].models}
    g.apply(BreakOff("de_a"))
    assert g.current_side == "us" and not g.state.vars.get("fight")
    de = g.state.units["de_a"]
    for m in de.models:
        p0 = de0[m.id]
        assert math.hypot(m.position.x - p0.x, m.position.y - p0.y) == pytest.approx(
            BREAK_OFF_IN * MPI, abs=0.01
        )
        # away from the nearest attacking team: farther from it than before
        near = min(
            us, key=lambda a: math.dist((a.position.x, a.position.y), (p0.x, p0.y))
        )
        assert (
            math.dist((near.position.x, near.position.y), (m.position.x, m.position.y))
            > math.dist((near.position.x, near.position.y), (p0.x, p0.y)) + 100.0
        )
    assert g.log.iloc[-1]["kind"] == "consolidate"  # the attacker holds the field
    # the attacker has assaulted: not again this turn
    assert not any(isinstance(a, Assault) for a in g.legal_actions())


def test_a_counterattack_swaps_the_sides() -> None:
    g = _pending(range(1, 40), de_motivation="fearless")
    n = len(g.events)
    g.apply(Counterattack("de_a"))
    new = g.events[n:]
    kinds = [e.kind for e in new]
    assert "charge" in kinds
    hits = [e for e in new if e.kind == "assault_hit"]
    # the Germans now strike, by their own skill (Trained, 4+)
    assert hits and hits[0].side == "de" and hits[0].needed == 4
    # then the US platoon takes the test (or has won / been destroyed)
    fight_var = g.state.vars.get("fight")
    if fight_var:
        assert g.current_side == "us" and fight_var["side"] == "de"
        assert g.legal_actions() == [Counterattack("us_a"), BreakOff("us_a")]


def test_E7_through_the_engine_one_skill_die_per_team_in_contact() -> None:
    """E7 in a seeded game: after the charge, every US team within 2" of a
    German team rolls one die needing its Skill 4+, no modifiers; the hits
    are the dice that make it."""
    seen = set()
    for seed in range(1, 12):
        g = riflemen_facing(60.0, seed=seed)
        de = list(g.state.units["de_a"].models)  # defensive fire leaves them
        events = g.apply(Assault("us_a", "de_a"))
        charge = next(e for e in events if e.kind == "charge")
        placed = next(v for _k, _u, f, v in charge.changes if f == "models")
        in_contact = [m for m in placed if any(gap_m(m, d) <= 2 * MPI for d in de)]
        hit = [e for e in events if e.kind == "assault_hit"]
        assert len(hit) == 1 and hit[0].needed == 4 and hit[0].unit == "us_a"
        assert len(hit[0].dice) == len(in_contact) > 0
        assert hit[0].hits == sum(f >= 4 for f in hit[0].dice)
        seen.add(len(in_contact))
        if 3 in seen:
            return
    raise AssertionError(f"three teams never reached contact: {seen}")


def test_defensive_fire_comes_before_the_charge() -> None:
    g = riflemen_facing(60.0, seed=2)
    kinds = [e.kind for e in g.apply(Assault("us_a", "de_a"))]
    assert kinds[0] == "assault"
    assert kinds.index("defensive_fire") < kinds.index("charge")
    # German rifles (16", ROF 1) fire at the chargers' skill: Trained 3+
    log = g.log
    df = log[(log["kind"] == "defensive_fire") & log["dice"].notna()]
    assert set(df["needed"]) == {3}


def test_five_defensive_fire_hits_stop_an_assault() -> None:
    """MG 42s (ROF 6) in front of a charging rifle platoon: some seed scores
    5 hits; the platoon is Pinned Down and does not charge."""
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
    de = platoon("de_a", "bratge", [("de_mg42_hmg", 2)], x=x, y=y + 110.0, facing=180)
    for seed in range(1, 30):
        g = fight([us, de], seed=seed)
        events = g.apply(Assault("us_a", "de_a"))
        shots = [e for e in events if e.kind == "defensive_fire" and e.dice is None]
        total = sum(int(e.hits or 0) for e in shots)
        kinds = [e.kind for e in events]
        if total >= 5:
            assert g.state.units["us_a"].attrs.get("pinned") or not g.ruleset._in_play(
                g.state.units["us_a"]
            )
            assert "charge" not in kinds and "assault_hit" not in kinds
            return
        assert "pinned" not in kinds
    raise AssertionError("no seed scored 5 defensive-fire hits")


def test_the_greedy_player_assaults_when_it_outnumbers_and_decides_as_defender() -> (
    None
):
    from wargame.engine.policy import Decision
    from wargame.rules.fow.ai import GreedyPolicy

    x, y = FIELD
    us = platoon(
        "us_a",
        "tf_engeman",
        [("us_rifle_team", 4)],
        command="us_command_rifle_team",
        x=x,
        y=y,
        facing=0.0,
    )
    de = platoon("de_a", "bratge", [("de_rifle_team", 1)], x=x, y=y + 100.0, facing=180)
    g = fight([us, de])
    legal = g.legal_actions()
    d = Decision("us", tuple(legal), len(g.actions), 1, lambda: g.state, g.ruleset)
    assert GreedyPolicy().choose(d) == Assault("us_a", "de_a")
    # outnumbered (3 against 3): no assault
    g = riflemen_facing(60.0)
    legal = g.legal_actions()
    d = Decision("us", tuple(legal), len(g.actions), 1, lambda: g.state, g.ruleset)
    assert GreedyPolicy().choose(d) == Next()
    # the defender: 3 German teams against the US teams left in the fight
    g = _pending(range(1, 40), de_motivation="fearless")
    legal = g.legal_actions()
    d = Decision("de", tuple(legal), len(g.actions), 1, lambda: g.state, g.ruleset)
    mine = len(g.state.units["de_a"].models)
    theirs = len(g.state.units["us_a"].models)
    want = Counterattack("de_a") if mine > theirs else BreakOff("de_a")
    assert GreedyPolicy().choose(d) == want


def test_close_fights_pass_the_conformance_harness() -> None:
    """Random play of a close fight (assaults, counterattacks, break offs,
    morale) keeps the protocol: legality, determinism, save/load, replay."""
    from wargame.testing import check_ruleset

    x, y = FIELD
    units = [
        platoon(
            "us_a",
            "tf_engeman",
            [("us_rifle_team", 3), ("us_bazooka_team", 1)],
            command="us_command_rifle_team",
            x=x,
            y=y,
            facing=0.0,
        ),
        platoon(
            "de_a",
            "bratge",
            [("de_rifle_team", 3)],
            command="de_command_smg_team",
            x=x,
            y=y + 110.0,
            facing=180.0,
            motivation="fearless",
        ),
        platoon(
            "de_b",
            "bratge",
            [("de_panzer_iv_h", 2)],
            x=x + 100.0,
            y=y + 190.0,
            facing=180.0,
        ),
    ]
    units[2]["spacing_m"] = 65.0  # tank bases, 30 m in radius
    g = game(units, turns=2)
    report = check_ruleset(
        "fow-v3",
        g.scenario,
        seeds=(1,),
        repeat=1,
        sampled=lambda a: isinstance(a, Move),
        complete_legal_actions=False,
    )
    assert report.games == 1
    kinds: set[str] = set()
    results: set[str] = set()
    for seed in range(2, 6):  # random play, as the harness
        h = Game.from_scenario(g.scenario, seed=seed)
        h.run()
        kinds |= set(h.log["kind"])
        log = h.log
        results |= set(log[log["kind"] == "consolidate"]["result"])
    assert {"assault", "assault_hit", "counterattack", "break_off"} <= kinds
    assert "platoon_morale" in kinds
    # the winners chose where to consolidate (consolidate.py)
    assert any(r.startswith("consolidates ") for r in results)


def test_E4_through_the_engine_one_die_for_both_defending_platoons() -> None:
    """E4 in seeded games: a Fearless and a Reluctant platoon both within 4"
    of the attackers after the hits take the test on ONE die: the Fearless
    passes on 3+, the Reluctant on 5+."""
    us, de_a, de_b = e4_platoons()
    faces = set()
    for seed in range(1, 40):
        g = fight([us, de_a, de_b], seed=seed)
        events = g.apply(Assault("us_a", "de_a"))
        rolls = [e for e in events if e.kind == "counterattack" and e.dice]
        results = {
            e.unit: e.result for e in events if e.kind == "counterattack" and not e.dice
        }
        if not rolls or set(results) != {"de_a", "de_b"}:
            continue  # no hit (automatic pass) or one platoon out of the fight
        (roll,) = rolls  # one die for every defending platoon
        (face,) = roll.dice
        assert results["de_a"] == ("passed" if face >= 3 else "failed")
        assert results["de_b"] == ("passed" if face >= 5 else "failed")
        faces.add(face)
        if {f >= 5 for f in faces} == {True, False} and any(3 <= f < 5 for f in faces):
            return
    raise AssertionError(f"faces seen: {sorted(faces)}")
