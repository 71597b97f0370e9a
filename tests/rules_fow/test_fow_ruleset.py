"""fow-v3 on the real map: the Remagen scenario, platoon moves (going, the
scenario's bridge, allowances), shooting (ROF, to hit, long range, Concealed,
Gone to Ground), Pinning Down, bad input, and the conformance harness."""

from __future__ import annotations

import math
from typing import Any

import pytest
import shapely
from fow_remagen_foot import remagen_on_foot

from wargame.engine import Game, IllegalActionError, Model, Point, ScenarioError
from wargame.rules.fow.forces import teams
from wargame.rules.fow.ruleset import Move, Next, Shoot
from wargame.rules.fow.shooting import direct_weapon, plan_shot
from wargame.testing import check_ruleset


def data(**changes: Any) -> dict[str, Any]:
    d = remagen_on_foot()
    d.update(changes)
    return d


def unit(d: dict[str, Any], uid: str) -> dict[str, Any]:
    return next(u for u in d["units"] if u["id"] == uid)


@pytest.fixture(scope="module")
def game() -> Game:
    return Game.from_scenario(remagen_on_foot(), seed=1)


# --------------------------------------------------------------------------- #
# the scenario                                                                #
# --------------------------------------------------------------------------- #


def test_platoons_are_placed_as_teams_with_their_ratings(game: Game) -> None:
    st = game.state
    us1 = st.units["us_1pl"]
    assert [m.kind for m in us1.models] == [
        "us_command_rifle_team",
        *["us_rifle_team"] * 4,
        "us_bazooka_team",
    ]
    assert us1.attrs["motivation"] == "confident" and us1.attrs["skill"] == "trained"
    assert st.units["de_volkssturm"].attrs == {
        "motivation": "reluctant",
        "skill": "conscript",
    }
    # every team on land, on the map, its base 25 m (1") at 25 m per inch
    m = game.map
    for u in st.units.values():
        for md in u.models:
            assert isinstance(md.position, Point)
            assert m.terrain_at(md.position.x, md.position.y) != "water"
            assert md.radius_m == teams()[md.kind].base_radius_m
    assert game.current_side == "us" and st.phase == "movement"


def test_mixed_ratings_use_the_worst_and_bad_ratings_are_named() -> None:
    d = data()
    unit(d, "us_1pl")["skill"] = ["veteran", "trained"]
    g = Game.from_scenario(d, seed=1)
    assert g.state.units["us_1pl"].attrs["skill"] == "trained"
    d = data()
    unit(d, "de_flak")["motivation"] = "brave"
    with pytest.raises(ScenarioError) as exc:
        Game.from_scenario(d, seed=1)
    text = str(exc.value)
    assert "units[" in text and "'de_flak'" in text and ".motivation" in text
    assert "'brave' is not a motivation rating" in text
    d = data()
    unit(d, "us_2pl")["teams"] = [{"team": "us_tiger", "count": 2}]
    with pytest.raises(ScenarioError, match=r"us_2pl.*teams\[0\]\.team: 'us_tiger'"):
        Game.from_scenario(d, seed=1)
    with pytest.raises(ScenarioError, match="ground_scale_m_per_inch"):
        Game.from_scenario(data(rules={"ground_scale_m_per_inch": -3}), seed=1)


# --------------------------------------------------------------------------- #
# movement                                                                    #
# --------------------------------------------------------------------------- #


def _one_platoon_at(x: float, y: float, team: str, uid: str = "us_1pl") -> Game:
    d = data()
    u = unit(d, uid)
    for k in ("zone", "layout"):
        u.pop(k, None)
    u.pop("command", None)
    u.update(x=x, y=y, teams=[{"team": team, "count": 1}])
    return Game.from_scenario(d, seed=1)


def test_the_bridge_of_1945_carries_a_tank_over_the_rhine() -> None:
    # a Pershing at the west abutment: over the deck it is Road going, 12"
    g = _one_platoon_at(375600.0, 5604376.0, "us_m26_pershing", "us_pershings")
    rs = g.ruleset
    u = g.state.units["us_pershings"]
    end = Point(375700.0, 5604518.0)  # on the deck over the water
    assert g.map.terrain_at(end.x, end.y) == "water"
    assert rs.move_problem(g.state, u, end) is None
    # beside the deck, the same distance: the Rhine is impassable
    why = rs.move_problem(g.state, u, Point(375760.0, 5604470.0))
    assert why is not None and "impassable" in why
    # over the road allowance (12" = 300 m)
    far = rs.move_problem(g.state, u, Point(375600.0 + 200.0, 5604376.0 + 290.0))
    assert far is not None and ("more than" in far or "impassable" in far)


def test_an_illegal_move_names_the_team_and_changes_nothing(game: Game) -> None:
    g = Game.from_scenario(remagen_on_foot(), seed=1)
    u = g.state.units["us_1pl"]
    p = u.position
    before = [m.position for m in u.models]
    far = Move("us_1pl", Point(p.x + 400.0, p.y + 400.0))
    with pytest.raises(
        IllegalActionError, match=r"us_1pl cannot move: team us_1pl\.\d"
    ):
        g.apply(far)
    assert [m.position for m in g.state.units["us_1pl"].models] == before
    with pytest.raises(IllegalActionError, match="Shooting Step"):
        g.apply(Shoot("us_1pl", "de_volkssturm"))


def test_a_legal_move_moves_every_team_by_the_same_offset() -> None:
    g = Game.from_scenario(remagen_on_foot(), seed=1)
    moves = [a for a in g.legal_actions() if isinstance(a, Move) and a.unit == "us_1pl"]
    assert moves
    a = moves[0]
    u0 = g.state.units["us_1pl"]
    start = u0.position
    before = {m.id: m.position for m in u0.models}
    g.apply(a)
    u = g.state.units["us_1pl"]
    dx, dy = a.to.x - start.x, a.to.y - start.y
    for m in u.models:
        if m.attrs.get("bogged"):
            continue
        assert m.position.x == pytest.approx(before[m.id].x + dx, abs=0.01)
        assert m.position.y == pytest.approx(before[m.id].y + dy, abs=0.01)
    # infantry moves 6" (150 m) at most (research/fow.md §2.2)
    assert math.hypot(dx, dy) <= 6 * 25.0 + 1e-6
    row = g.log[g.log["kind"] == "move"].iloc[-1]
    assert row["x_to"] == pytest.approx(a.to.x) and row["unit"] == "us_1pl"
    with pytest.raises(IllegalActionError, match="moved this turn already"):
        g.apply(Move("us_1pl", Point(a.to.x + 10.0, a.to.y)))


def test_the_charges_are_fired_once_the_americans_near_the_bridge() -> None:
    """The scenario's demolition rule: in the German Starting Step after a US
    team comes within 8" (200 m) of the bridge, one die; a 6 drops it."""
    (x0, y0), (x1, y1) = (375620.0, 5604405.0), (375775.0, 5604626.0)
    length = math.hypot(x1 - x0, y1 - y0)
    ux, uy = (x1 - x0) / length, (y1 - y0) / length
    outcomes = {}
    for seed in range(1, 40):
        d = data()
        d["units"] = [u for u in d["units"] if u["id"] != "de_volkssturm"]
        u = unit(d, "us_pershings")
        for k in ("zone", "layout"):
            u.pop(k, None)
        # one Pershing on the bridge's axis, 150 m short of the west abutment
        u.update(x=x0 - 150.0 * ux, y=y0 - 150.0 * uy)
        u["teams"] = [{"team": "us_m26_pershing", "count": 1}]
        g = Game.from_scenario(d, seed=seed)
        for _ in range(3):  # the US steps through its turn: the Germans start
            g.apply(Next())
        log = g.log
        fired = log[log["kind"] == "demolition"]
        assert len(fired) == 2  # the roll, then what it did
        roll = fired.iloc[0]
        down = bool(g.state.vars.get("bridge_down:ludendorff"))
        assert down == (roll["dice"][0] >= 6)
        assert ("drops" in str(fired.iloc[1]["result"])) == down
        outcomes[down] = g
        if len(outcomes) == 2:
            break
    assert set(outcomes) == {True, False}
    # a bridge that dropped is no crossing any more; one that stood still is
    # 30 m onto the deck, over the water: 180 m, within a tank's 200 m in the
    # town's Difficult going it starts in
    deck = Point(round(x0 + 30.0 * ux, 1), round(y0 + 30.0 * uy, 1))
    for down, g in outcomes.items():
        for _ in range(3):  # the Germans step through their turn
            g.apply(Next())
        pershings = g.state.units["us_pershings"]
        again = g.ruleset.move_problem(g.state, pershings, deck)
        assert g.map.terrain_at(deck.x, deck.y) == "water"
        if down:
            assert again is not None and "impassable" in again
        else:
            assert again is None
        assert g.log["kind"].eq("demolition").sum() == 2  # fired once only


# --------------------------------------------------------------------------- #
# shooting                                                                    #
# --------------------------------------------------------------------------- #


def _team(mid: str, kind: str, x: float, y: float, facing: float = 0.0) -> Model:
    return Model(mid, kind, position=Point(x, y), facing=facing)


def _plan(
    d: float, *, concealed: bool, gtg: bool, moved: bool = False, skill: str = "trained"
) -> Any:
    rifles = [
        (_team(f"a.{i}", "us_rifle_team", i * 60.0, 0.0), teams()["us_rifle_team"])
        for i in range(3)
    ]
    target = [(_team("t.1", "de_rifle_team", 0.0, d), teams()["de_rifle_team"])]
    return plan_shot(
        rifles,
        target,
        target_skill=skill,
        moved=moved,
        pinned=False,
        concealed_at=lambda x, y: concealed,
        gone_to_ground=gtg,
        sees=lambda a, b, e, t: True,
        metres_per_inch=25.0,
    )


def test_to_hit_is_the_targets_skill_plus_one_per_modifier() -> None:
    # trained target 3+; beyond 16" (400 m) +1, Concealed +1 (seed 004 p. 20):
    # "3+ at long range in woods needs 5+"
    assert {s.to_hit for s in _plan(200.0, concealed=False, gtg=False).shooters} == {3}
    assert {s.to_hit for s in _plan(390.0, concealed=True, gtg=False).shooters} == {4}
    # rifles reach 16" = 400 m: a team 60 m aside at 390 m is out of range
    far = _plan(399.0, concealed=True, gtg=True)
    assert {s.to_hit for s in far.shooters} == {5}  # Concealed and Gone to Ground
    # Gone to Ground counts only when Concealed (research §3.2)
    assert {s.to_hit for s in _plan(200.0, concealed=False, gtg=True).shooters} == {3}
    # veterans in woods, gone to ground, at long range: 7+ never hits (E3)
    hmg = teams()["de_mg42_hmg"]
    assert direct_weapon(hmg).range_in * 25.0 > 450.0  # 24": long range at 450 m
    rifles = [(_team("a.1", "de_mg42_hmg", 0.0, 0.0), hmg)]
    target = [(_team("t.1", "us_rifle_team", 0.0, 450.0), teams()["us_rifle_team"])]
    p = plan_shot(
        rifles,
        target,
        target_skill="veteran",
        moved=False,
        pinned=False,
        concealed_at=lambda x, y: True,
        gone_to_ground=True,
        sees=lambda a, b, e, t: True,
        metres_per_inch=25.0,
    )
    assert [s.to_hit for s in p.shooters] == [7]  # 4 + 1 + 1 + 1: no hit possible


def test_rof_falls_to_the_moving_rof_after_a_move() -> None:
    lmg = [(_team("a.1", "us_m1919_lmg", 0.0, 0.0), teams()["us_m1919_lmg"])]
    target = [(_team("t.1", "de_rifle_team", 0.0, 100.0), teams()["de_rifle_team"])]
    kw: dict[str, Any] = {
        "target_skill": "trained",
        "pinned": False,
        "concealed_at": lambda x, y: False,
        "gone_to_ground": False,
        "sees": lambda a, b, e, t: True,
        "metres_per_inch": 25.0,
    }
    w = teams()["us_m1919_lmg"].weapons[0]
    still = plan_shot(lmg, target, moved=False, **kw)
    moved = plan_shot(lmg, target, moved=True, **kw)
    assert still.dice == w.rof and moved.dice == (w.rof_moving or 1)
    assert moved.dice < still.dice
    pinned = plan_shot(lmg, target, moved=False, **{**kw, "pinned": True})
    assert pinned.dice == 1


def _facing_the_pioniere(seed: int, uid: str = "us_2pl") -> Game:
    """A US platoon (default: the 2nd, with its machine gun) set up 150-300 m
    from the German engineers, on open ground with a clear view of them and no
    base overlapping (found on the real map)."""
    probe = Game.from_scenario(remagen_on_foot(), seed=seed)
    rs = probe.ruleset
    tp = probe.state.units["de_pioniere"].models[0].position
    for r in (150.0, 200.0, 250.0, 300.0):
        for b in range(0, 360, 10):
            x = tp.x + r * math.sin(math.radians(b))
            y = tp.y + r * math.cos(math.radians(b))
            if probe.map.terrain_at(x, y) != "clear" or not rs._sees(
                (x, y), (tp.x, tp.y), 1.6, 1.6
            ):
                continue
            d = data()
            u = unit(d, uid)
            for k in ("zone", "layout"):
                u.pop(k, None)
            u.update(x=x, y=y, layout="cluster", spacing_m=55.0, facing=(b + 180) % 360)
            try:
                g = Game.from_scenario(d, seed=seed)
            except ScenarioError:
                continue  # a base in the Rhine or on another: the next place
            st = g.state
            plan = g.ruleset.shot_plan(st, st.units[uid], st.units["de_pioniere"])
            if plan.dice >= 6:  # enough dice to score the 5 hits that pin
                return g
    raise AssertionError("no open ground in sight of the engineers")  # pragma: no cover


def test_shooting_rolls_rof_dice_and_pins_at_five_hits() -> None:
    pinned_seen = set()
    for seed in range(1, 60):
        if pinned_seen == {True, False}:
            break
        g = _facing_the_pioniere(seed)
        g.apply(Next())  # to the Shooting Step
        shot = Shoot("us_2pl", "de_pioniere")
        assert shot in g.legal_actions()
        plan = g.ruleset.shot_plan(
            g.state, g.state.units["us_2pl"], g.state.units["de_pioniere"]
        )
        g.apply(shot)
        log = g.log
        rolls = log[(log["kind"] == "to_hit") & (log["unit"] == "us_2pl")]
        # one die per point of ROF of every team that can hit (none moved)
        assert rolls["dice"].map(len).sum() == plan.dice
        assert set(rolls["needed"]) == {s.to_hit for s in plan.shooters}
        hits = int(log[log["kind"] == "shoot"].iloc[-1]["hits"])
        assert hits == sum(
            sum(f >= n for f in d)
            for d, n in zip(rolls["dice"], rolls["needed"], strict=True)
        )
        g.apply(Next())  # the end of the Shooting Step: pinning (research §3.6)
        t = g.state.units["de_pioniere"]
        assert bool(t.attrs.get("pinned")) == (hits >= 5 and not t.destroyed)
        pinned_seen.add(hits >= 5)
    assert pinned_seen == {True, False}  # both outcomes met over the seeds


# --------------------------------------------------------------------------- #
# the protocol                                                                #
# --------------------------------------------------------------------------- #


def test_fow_passes_check_ruleset_on_a_short_remagen() -> None:
    report = check_ruleset(
        "fow-v3",
        data(turns=2),
        seeds=range(2),
        repeat=1,
        sampled=lambda a: isinstance(a, Move),
        complete_legal_actions=False,
    )
    assert report.games == 2 and report.actions_checked > 20


def test_a_column_crosses_the_bridge_in_its_leaders_footsteps() -> None:
    """Moves in column (the teams behind the command team follow its way): a
    platoon lined up on the Remagen bank goes onto the deck in its leader's
    footsteps; 40 m beside the deck the same move is refused (the river)."""
    (x0, y0), (x1, y1) = (375620.0, 5604405.0), (375775.0, 5604626.0)
    length = math.hypot(x1 - x0, y1 - y0)
    ux, uy = (x1 - x0) / length, (y1 - y0) / length
    d = data()
    d["units"] = [u for u in d["units"] if u["id"] != "de_volkssturm"]
    u = unit(d, "us_1pl")
    for k in ("zone", "layout"):
        u.pop(k, None)
    # a column on the bridge's line, its head (the command team) at the abutment
    u.update(
        x=x0 - 140.0 * ux,
        y=y0 - 140.0 * uy,
        layout="column",
        spacing_m=55.0,
        facing=35.0,
    )
    g = Game.from_scenario(d, seed=1)
    st = g.state
    p = st.units["us_1pl"]
    lead = p.models[0].position
    assert math.hypot(lead.x - x0, lead.y - y0) < 140.0
    to = Point(round(lead.x + 140.0 * ux, 1), round(lead.y + 140.0 * uy, 1))
    assert g.ruleset.move_problem(st, p, to, column=True) is None
    # 40 m off the deck's line the same move runs into the river
    off = Point(to.x + 40.0 * uy, to.y - 40.0 * ux)
    refused = g.ruleset.move_problem(st, p, off, column=True)
    assert refused is not None and "impassable" in refused
    before = [m.position for m in p.models]
    g.apply(Move("us_1pl", to, column=True))
    after = g.state.units["us_1pl"].models
    assert after[0].position == to
    for m0, m1 in zip(before, after, strict=True):  # everyone moved 140 m
        assert m1.position != m0
    # the second team now stands where the column's way passes: on the deck
    # line or on the bank behind the abutment, never in the open river
    for m in after:
        on = g.map.terrain_at(m.position.x, m.position.y) != "water"
        deck = g.ruleset.bridges[0].corridor.contains(
            shapely.Point(m.position.x, m.position.y)
        )
        assert on or deck, m


def test_the_greedy_player_takes_the_shot_that_kills_most() -> None:
    from wargame.engine.policy import Decision
    from wargame.rules.fow.ai import NEXT_SCORE, GreedyPolicy

    g = _facing_the_pioniere(1)
    g.apply(Next())  # the Shooting Step
    # the full-ROF shots (the ROF 1 shots ready to assault are scored with
    # the assault they keep open, below)
    legal = [a for a in g.legal_actions() if not getattr(a, "to_assault", False)]
    shots = [a for a in legal if isinstance(a, Shoot)]
    assert shots
    decision = Decision(
        "us", tuple(legal), len(g.actions), 1, lambda: g.state_for("us"), g.ruleset
    )
    choice = GreedyPolicy().choose(decision)
    assert isinstance(choice, Shoot)
    gp = GreedyPolicy()
    view = g.state_for("us")
    scores = {a: gp._shot(g.ruleset, view, a) for a in shots}
    assert scores[choice] == max(scores.values()) and scores[choice] > NEXT_SCORE
    # at ROF 1: fewer dice, plus the best assault it keeps open
    ready = [a for a in g.legal_actions() if getattr(a, "to_assault", False)]
    for a in ready:
        plain = Shoot(a.unit, a.target)
        assert gp._shot(g.ruleset, view, a) < gp._shot(g.ruleset, view, plain)
        assert gp.score(g.ruleset, view, a, "us") == pytest.approx(
            gp._shot(g.ruleset, view, a) + gp.assault_after(g.ruleset, view, a)
        )
