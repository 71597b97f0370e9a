"""fow-v3 bombardments and smoke (research/fow.md §3.8, §10.4, §10.7): exact
odds of ranging in and of the hits, template sizes by guns firing, who is
under a template, a seeded bombardment through the engine, smoke that
conceals until the firing side's next Starting Step, and refusals."""

from __future__ import annotations

import dataclasses
import itertools
from fractions import Fraction
from typing import Any

import pytest
from fow_remagen_foot import remagen_on_foot

from wargame.engine import Game, IllegalActionError, Point
from wargame.rules.fow.artillery import (
    Bombard,
    bombard_odds,
    bombard_plan,
    bombard_pmf,
    hits_after_reroll,
    p_bombard_hit,
    p_ranged_in,
    ranging_odds,
    ranging_pmf,
    ranging_score,
    template_size,
)
from wargame.rules.fow.ruleset import Move, Next, Shoot
from wargame.rules.fow.smoke import Template

#: Open ground on the Remagen bank, 500 m south of the German engineers, with a
#: view of them and of the MG 42s across the Rhine (found on the real map).
BATTERY_AT = (375860.0, 5604240.0)


def _data(count: int = 3, team: str = "us_81mm_mortar", **unit: Any) -> dict:
    d = remagen_on_foot()
    for u in d["units"]:  # the MG 42s in the open (ambushes: test_fow_ambush.py)
        u.pop("ambush", None)
    d["units"].append(
        {
            "id": "us_mortars",
            "name": "81mm mortar platoon",
            "type": "mortar platoon",
            "formation": "tf_engeman",
            "motivation": "confident",
            "skill": "trained",
            "teams": [{"team": team, "count": count}],
            "x": BATTERY_AT[0],
            "y": BATTERY_AT[1],
            "layout": "line",
            "spacing_m": 55.0,
            "facing": 20,
            **unit,
        }
    )
    return d


def _battery(seed: int = 1, **kw: Any) -> Game:
    g = Game.from_scenario(_data(**kw), seed=seed)
    g.apply(Next())  # to the US Shooting Step
    return g


def _aim(g: Game, team: str) -> Point:
    for u in g.state.units.values():
        for m in u.models:
            if m.id == team:
                return Point(round(m.position.x, 1), round(m.position.y, 1))
    raise KeyError(team)  # pragma: no cover


# --------------------------------------------------------------------------- #
# exact odds                                                                  #
# --------------------------------------------------------------------------- #


def test_ranging_in_on_a_concealed_trained_target_within_three_is_seven_eighths() -> (
    None
):
    # the target's score to be hit, +1 Concealed (research §3.8): 3+ -> 4+
    score = ranging_score("trained", concealed=True, gone_to_ground=False)
    assert score == 4
    assert [p_ranged_in(score, k) for k in (1, 2, 3)] == [
        Fraction(1, 2),
        Fraction(3, 4),
        Fraction(7, 8),
    ]
    pmf = ranging_pmf(score)
    assert pmf == {
        1: Fraction(1, 2),
        2: Fraction(1, 4),
        3: Fraction(1, 8),
        0: Fraction(1, 8),
    }
    assert sum(pmf.values()) == 1
    assert ranging_odds(score).loc[0] == pytest.approx(1 / 8)
    # Gone to Ground counts only with Concealed; an HQ spotter +1 more
    assert ranging_score("trained", concealed=False, gone_to_ground=True) == 3
    vet = ranging_score("veteran", concealed=True, gone_to_ground=True)
    assert vet == 6 and p_ranged_in(vet) == 1 - Fraction(5, 6) ** 3
    assert (
        ranging_score("veteran", concealed=True, gone_to_ground=True, hq_spotter=True)
        == 7
    )
    assert p_ranged_in(7) == 0  # above 6 never succeeds (seed p. 20)


def test_template_sizes_and_rerolls_by_guns_firing() -> None:
    rows = {
        1: (6, 6, "hits"),
        2: (6, 6, "hits"),
        3: (6, 6, None),
        5: (6, 6, None),
        6: (6, 6, "misses"),
        8: (6, 6, "misses"),
        9: (12, 6, "misses"),
        13: (12, 6, "misses"),
        14: (12, 12, "misses"),
        30: (12, 12, "misses"),
    }
    for guns, want in rows.items():
        t = template_size(guns)
        assert (t.across_in, t.along_in, t.reroll) == want, guns
    assert template_size(7, wide=True) == template_size(6, wide=True)
    assert (
        template_size(8, wide=True).across_in,
        template_size(8, wide=True).reroll,
    ) == (
        12.0,
        None,
    )
    wide = template_size(10, wide=True)
    assert (wide.across_in, wide.along_in, wide.reroll) == (12.0, 12.0, None)
    for guns in (1, 4, 14):
        with pytest.raises(ValueError, match="no wide template"):
            template_size(guns, wide=True)
    with pytest.raises(ValueError):
        template_size(0)


def test_bombardment_odds_match_the_dice_path_exactly() -> None:
    """Every face sequence of two teams under the template, with the re-roll,
    counted by :func:`hits_after_reroll`, gives :func:`bombard_pmf`."""
    for reroll in (None, "hits", "misses"):
        counts = [Fraction(0)] * 3
        for first in itertools.product(range(1, 7), repeat=2):
            n_again = (
                0
                if reroll is None
                else sum(f >= 4 for f in first)
                if reroll == "hits"
                else sum(f < 4 for f in first)
            )
            for again in itertools.product(range(1, 7), repeat=n_again):
                hits = sum(hits_after_reroll(first, 4, reroll, again))
                counts[hits] += Fraction(1, 36 * 6**n_again)
        assert tuple(counts) == bombard_pmf(2, 4, reroll), reroll
    assert p_bombard_hit(4, "hits") == Fraction(1, 4)
    assert p_bombard_hit(4, "misses") == Fraction(3, 4)
    # weighted by ranging in: 1 - 7/8 of the time nothing lands
    pmf = bombard_pmf(1, 4, ranging=4)
    assert pmf == (Fraction(1, 8) + Fraction(7, 8) * Fraction(1, 2), Fraction(7, 16))
    s = bombard_odds(4, 3, "misses", ranging=4)
    assert s.index.name == "hits" and len(s) == 5
    assert s.sum() == pytest.approx(1.0)
    with pytest.raises(ValueError, match="re-roll"):
        hits_after_reroll([4, 2], 4, "hits", [])


# --------------------------------------------------------------------------- #
# the template on the map                                                     #
# --------------------------------------------------------------------------- #


def test_who_is_under_a_template() -> None:
    # 6"x6" at 25 m per inch: 150 m square about the aim point, facing north
    t = Template(0.0, 0.0, 0.0, 150.0, 150.0)
    assert t.covers(99.0, 0.0, 25.0)  # a base reaching 1 m inside the edge
    assert not t.covers(101.0, 0.0, 25.0)
    assert t.covers(75.0, 75.0, 0.0) and not t.covers(93.0, 93.0, 25.0)
    # a 12"x6" template lies across the line of fire: fired due east, it is
    # 300 m north-south and 150 m east-west
    wide = Template(0.0, 0.0, 90.0, 300.0, 150.0)
    assert wide.covers(0.0, 140.0, 0.0) and not wide.covers(140.0, 0.0, 0.0)


def test_the_teams_under_a_template_on_a_hand_built_state() -> None:
    g = _battery()
    st = g.state.copy()
    rs = g.ruleset
    aim = _aim(g, "de_pioniere.1")
    # the engineers stood 0, 60, 120 and 200 m east of the aim point; the
    # template of 3 guns is 150 m square: the first two under it
    t = st.units["de_pioniere"]
    moved = tuple(
        dataclasses.replace(m, position=Point(aim.x + dx, aim.y))
        for m, dx in zip(t.models, (0.0, 60.0, 120.0, 200.0), strict=True)
    )
    st.units["de_pioniere"] = dataclasses.replace(t, models=moved)
    why, plan = bombard_plan(rs, st, st.units["us_mortars"], aim)
    assert why is None and plan is not None
    under = [mid for tid, mid in plan.under if tid == "de_pioniere"]
    # the template reaches about 75 m to either side: the team 120 m off is
    # 45 m beyond its edge, more than its 25 m base radius
    assert under == ["de_pioniere.1", "de_pioniere.2"]
    assert plan.size == template_size(3) and len(plan.guns) == 3
    assert plan.target == "de_pioniere"  # the platoon nearest the aim point
    assert plan.to_hit == 4  # the battery's (trained) Skill-test number
    assert all(tid != "us_mortars" for tid, _ in plan.under)  # no friendly fire


# --------------------------------------------------------------------------- #
# through the engine                                                          #
# --------------------------------------------------------------------------- #


def test_a_seeded_bombardment_emits_ranging_hits_and_saves() -> None:
    seen = {"ranged": False, "missed": False, "hit": False}
    for seed in range(1, 40):
        g = _battery(seed)
        aim = _aim(g, "de_pioniere.1")
        act = Bombard("us_mortars", aim)
        rs = g.ruleset
        _, plan = bombard_plan(rs, g.state, g.state.units["us_mortars"], aim)
        assert plan is not None
        assert any(
            isinstance(a, Bombard) and a.unit == "us_mortars" for a in g.legal_actions()
        )
        n0 = len(g.log)
        g.apply(act)
        log = g.log.iloc[n0:]
        rng = log[log["kind"] == "range_in"]
        assert 1 <= len(rng) <= 3
        assert set(rng["needed"]) == {plan.ranging}
        ranged = int(rng.iloc[-1]["dice"][0]) >= plan.ranging
        # all attempts but the last failed
        assert all(int(d[0]) < plan.ranging for d in rng["dice"].iloc[:-1])
        summary = log[log["kind"] == "bombard"].iloc[-1]
        rolls = log[log["kind"] == "bombard_hit"]
        if not ranged:
            assert len(rng) == 3 and rolls.empty
            assert summary["result"] == "failed to range in"
            seen["missed"] = True
        else:
            seen["ranged"] = True
            (faces,) = rolls["dice"]
            assert len(faces) == len(plan.under) and rolls.iloc[0]["needed"] == 4
            hits = sum(f >= 4 for f in faces)  # 3 guns: no re-roll
            assert int(summary["hits"]) == hits
            saves = log[log["kind"] == "save"]
            assert len(saves) == hits  # infantry: one save per hit, no armour
            # the hits count toward the 5 that Pin Down (research §3.6)
            on = {}
            for (tid, _), f in zip(plan.under, faces, strict=True):
                on[tid] = on.get(tid, 0) + int(f >= 4)
            for tid, n in on.items():
                assert int(g.state.units[tid].attrs.get("hits_step", 0)) == n
            seen["hit"] |= hits > 0
        assert g.state.units["us_mortars"].attrs["fired"] is True
        # it fired its bombardment instead of shooting: no more this step
        with pytest.raises(IllegalActionError, match="fired this turn already"):
            g.apply(Bombard("us_mortars", aim))
        if all(seen.values()):
            break
    assert all(seen.values()), seen
    # same seed, same game
    a, b = _battery(5), _battery(5)
    for g in (a, b):
        g.apply(Bombard("us_mortars", _aim(g, "de_pioniere.1")))
    assert a.state.digest() == b.state.digest()


def test_one_or_two_guns_reroll_their_hits() -> None:
    for seed in range(1, 30):
        g = _battery(seed, count=2)
        g.apply(Bombard("us_mortars", _aim(g, "de_pioniere.1")))
        log = g.log
        first = log[log["kind"] == "bombard_hit"]
        if first.empty or not sum(f >= 4 for f in first.iloc[0]["dice"]):
            continue
        again = log[log["kind"] == "bombard_reroll"]
        (faces,) = first["dice"]
        (second,) = again["dice"]
        assert len(second) == sum(f >= 4 for f in faces)  # each hit rolled again
        hits = int(log[log["kind"] == "bombard"].iloc[-1]["hits"])
        assert hits == sum(f >= 4 for f in second)  # the second result stands
        return
    raise AssertionError("no seed scored a first hit")  # pragma: no cover


def test_bombardments_refused_with_the_state_unchanged() -> None:
    g = Game.from_scenario(_data(), seed=1)
    aim = _aim(g, "de_pioniere.1")
    with pytest.raises(IllegalActionError, match="Shooting Step"):
        g.apply(Bombard("us_mortars", aim))
    g.apply(Next())
    before = g.state.digest()
    far = Point(aim.x, aim.y + 900.0)
    with pytest.raises(IllegalActionError, match=r"us_mortars cannot bombard.*range"):
        g.apply(Bombard("us_mortars", far))
    with pytest.raises(IllegalActionError, match="no wide template"):
        g.apply(Bombard("us_mortars", aim, wide=True))
    with pytest.raises(IllegalActionError, match="no team of us_1pl can fire"):
        g.apply(Bombard("us_1pl", aim))
    assert g.state.digest() == before
    # a 60mm mortar has no smoke bombardment in the data
    g60 = _battery(team="us_60mm_mortar")
    with pytest.raises(IllegalActionError, match="cannot fire smoke"):
        g60.apply(Bombard("us_mortars", _aim(g60, "de_pioniere.1"), smoke=True))
    # a platoon that moved does not bombard
    gm = Game.from_scenario(_data(), seed=1)
    moves = [
        a for a in gm.legal_actions() if isinstance(a, Move) and a.unit == "us_mortars"
    ]
    gm.apply(moves[0])
    gm.apply(Next())
    assert not any(
        isinstance(a, Bombard) and a.unit == "us_mortars" for a in gm.legal_actions()
    )
    before = gm.state.digest()
    with pytest.raises(IllegalActionError, match="moved this turn"):
        gm.apply(Bombard("us_mortars", _aim(gm, "de_pioniere.1")))
    assert gm.state.digest() == before


# --------------------------------------------------------------------------- #
# smoke                                                                       #
# --------------------------------------------------------------------------- #


def test_smoke_conceals_until_the_firing_sides_next_starting_step() -> None:
    """US mortars lay smoke on the MG 42s: the MGs shooting at the mortars
    across the Rhine see them through the smoke (Concealed, +1 to hit) in the
    German turn; the markers go in the US Starting Step that follows."""
    for seed in range(1, 30):
        g = _battery(seed)
        rs = g.ruleset
        st = g.state
        plan0 = rs.shot_plan(st, st.units["de_hmg"], st.units["us_mortars"])
        assert plan0.shooters and not plan0.concealed
        g.apply(Bombard("us_mortars", _aim(g, "de_hmg.1"), smoke=True))
        if not g.state.vars.get("smoke"):
            continue  # did not range in: try another seed
        assert g.state.units["us_mortars"].attrs["smoke_used"] is True
        g.apply(Next())  # the Assault Step
        g.apply(Next())  # the German turn: their Starting Step keeps US smoke
        assert g.state.vars.get("smoke") and g.current_side == "de"
        g.apply(Next())  # German Shooting Step
        st = g.state
        plan = rs.shot_plan(st, st.units["de_hmg"], st.units["us_mortars"])
        assert plan.concealed
        assert [s.to_hit for s in plan.shooters] == [
            s.to_hit + 1 for s in plan0.shooters
        ]
        assert Shoot("de_hmg", "us_mortars") in g.legal_actions()
        g.apply(Next())
        g.apply(Next())  # the US Starting Step: item 10, remove smoke markers
        assert g.current_side == "us" and not g.state.vars.get("smoke")
        cleared = g.log[g.log["kind"] == "smoke_cleared"]
        assert len(cleared) == 1 and cleared.iloc[0]["side"] == "us"
        st = g.state
        again = rs.shot_plan(st, st.units["de_hmg"], st.units["us_mortars"])
        assert not again.concealed
        # once per game (ASSUMPTION): no second smoke bombardment
        g.apply(Next())
        with pytest.raises(IllegalActionError, match="smoke bombardment already"):
            g.apply(Bombard("us_mortars", _aim(g, "de_hmg.1"), smoke=True))
        return
    raise AssertionError("no seed ranged in the smoke")  # pragma: no cover


def test_the_greedy_player_bombards_when_it_beats_direct_fire() -> None:
    from wargame.engine.policy import Decision
    from wargame.rules.fow.ai import GreedyPolicy

    g = _battery()
    legal = g.legal_actions()
    decision = Decision(
        "us", tuple(legal), len(g.actions), 1, lambda: g.state_for("us"), g.ruleset
    )
    choice = GreedyPolicy().choose(decision)
    # the mortars have no direct fire at the engineers 500 m off (their 81mm
    # has only a bombardment line): the greedy bombards
    assert isinstance(choice, Bombard) and not choice.smoke


def test_bombardments_and_dashes_pass_check_ruleset() -> None:
    from wargame.rules.fow.double import AtTheDouble
    from wargame.testing import check_ruleset

    d = _data()
    d["turns"] = 2
    report = check_ruleset(
        "fow-v3",
        d,
        seeds=range(1),
        repeat=1,
        sampled=lambda a: isinstance(a, Move | Bombard | AtTheDouble),
        complete_legal_actions=False,
    )
    assert report.games == 1 and report.actions_checked > 5


def test_a_bombardment_hit_on_a_tank_meets_its_top_armour() -> None:
    """research §10.7 stop-gap: tanks under a bombardment save with their top
    armour (a Pershing's 1 against the 81mm mortar's AT 2)."""
    import numpy as np

    from wargame.engine import RuleContext
    from wargame.rules.fow.artillery import _hit_on
    from wargame.rules.fow.odds import armour_result

    g = _battery()
    rs = g.ruleset
    tank = g.state.units["us_pershings"].models[0]
    top = rs.team(tank).armour.top
    w = rs.team(g.state.units["us_mortars"].models[0]).weapons[0]
    seen = set()
    for seed in range(12):
        events: list[Any] = []
        ctx = RuleContext(
            g.state.copy(), np.random.default_rng(seed), g.map, events.append
        )
        result = _hit_on(rs, ctx, "de", "us_pershings", tank, w)
        armour = [e for e in events if e.kind == "armour"]
        assert len(armour) == 1 and f"top armour {top}" in armour[0].detail
        fp = [e.dice[0] for e in events if e.kind == "firepower"]
        face = armour[0].dice[0]
        assert result == armour_result(
            face, top, w.anti_tank, fp[0] if fp else None, w.firepower
        )
        seen.add(result)
    assert "no effect" in seen


def test_smoke_is_drawn_on_the_map_while_it_lasts() -> None:
    """The smoke template is a grey area in the models layer (the neutral
    ``map_areas`` hook) from when it is laid until it is removed."""
    from wargame.render.points import AREA_STYLES, models_geojson

    for seed in range(1, 30):
        g = _battery(seed)
        g.apply(Bombard("us_mortars", _aim(g, "de_hmg.1"), smoke=True))
        if not g.state.vars.get("smoke"):
            continue
        areas = [f for f in models_geojson(g)["features"] if "area" in f["properties"]]
        assert len(areas) == 1
        props = areas[0]["properties"]
        assert props["kind"] == "smoke" and props["style"] == AREA_STYLES["smoke"]
        assert props["area"].startswith("smoke (")
        ring = areas[0]["geometry"]["coordinates"][0]
        assert len(ring) == 5  # a closed rectangle (lon, lat)
        for _ in range(5):  # to the US Starting Step that removes it
            g.apply(Next())
        assert not g.state.vars.get("smoke")
        assert not [
            f for f in models_geojson(g)["features"] if "area" in f["properties"]
        ]
        return
    raise AssertionError("no seed ranged in the smoke")  # pragma: no cover


def test_where_a_bombardment_landed_is_drawn_until_the_firing_sides_next_turn() -> None:
    """A high-explosive bombardment that ranged in leaves its template on the
    map (an orange ``template`` area, the same rectangle the hits were rolled
    under) through the enemy's turn; the firing side's next Starting Step lifts
    it.  It changes no roll: the German shots see no concealment from it."""
    from wargame.render.points import AREA_STYLES, models_geojson

    for seed in range(1, 40):
        g = _battery(seed)
        aim = _aim(g, "de_pioniere.1")
        _, plan = bombard_plan(g.ruleset, g.state, g.state.units["us_mortars"], aim)
        assert plan is not None
        g.apply(Bombard("us_mortars", aim))
        if not g.state.vars.get("bombarded"):
            summary = g.log[g.log["kind"] == "bombard"].iloc[-1]
            assert summary["result"] == "failed to range in"
            continue
        (area,) = g.ruleset.map_areas(g.state)
        assert (
            area.kind == "template"
            and area.label == "bombardment (81mm mortar platoon)"
        )
        poly = plan.template.polygon
        assert Template(*g.state.vars["bombarded"][0][2:]).polygon.equals(poly)
        feats = [f for f in models_geojson(g)["features"] if "area" in f["properties"]]
        assert [f["properties"]["style"] for f in feats] == [AREA_STYLES["template"]]
        g.apply(Next())
        g.apply(Next())  # the German turn: the template is still shown
        assert g.current_side == "de" and g.state.vars.get("bombarded")
        g.apply(Next())  # German Shooting Step: the marker conceals nothing
        st = g.state
        assert not g.ruleset.shot_plan(
            st, st.units["de_hmg"], st.units["us_mortars"]
        ).concealed
        g.apply(Next())
        g.apply(Next())  # the US Starting Step lifts it
        assert g.current_side == "us" and not g.state.vars.get("bombarded")
        assert g.ruleset.map_areas(g.state) == ()
        lifted = g.log[g.log["kind"] == "templates_cleared"]
        assert len(lifted) == 1 and lifted.iloc[0]["side"] == "us"
        return
    raise AssertionError("no seed ranged in")  # pragma: no cover
