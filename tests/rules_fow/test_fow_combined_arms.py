"""fow-v3 combined arms in the shipped scenarios and the doctrine player:
Remagen's armored infantry ride in half-tracks and get out before contact
(transport.py, research/fow.md §1.2), its 81 mm mortars bombard what their
spotter sees (artillery.py, §3.8), and Ockenfels' German reserve arrives from
the east edge (reserves.py, §1.1 item 6; assumptions S1-S5, D1-D4)."""

from __future__ import annotations

import math

import pytest

from wargame.engine import Game, Point, load_scenario
from wargame.rules.fow import arms
from wargame.rules.fow.artillery import bombard_weapon
from wargame.rules.fow.doctrine import DoctrinePolicy
from wargame.rules.fow.transport import Dismount

#: The doctrine game of Remagen the tests below read (any seed would do; this
#: one bombards in turn 1 and dismounts in turn 3).
REMAGEN_SEED = 1
#: The doctrine game of Ockenfels whose reserve arrives in turn 5.
OCKENFELS_SEED = 2


def _doctrine(name: str, seed: int) -> Game:
    sc = load_scenario(name)
    pols = {"us": DoctrinePolicy(), "de": DoctrinePolicy()}
    return Game(sc, seed=seed, policies=pols)


@pytest.fixture(scope="module")
def remagen() -> Game:
    g = _doctrine("fow_remagen_1945", REMAGEN_SEED)
    g.run()
    return g


@pytest.fixture(scope="module")
def ockenfels() -> Game:
    g = _doctrine("fow_ockenfels_1945", OCKENFELS_SEED)
    g.run()
    return g


def test_remagen_loads_with_1st_platoon_mounted_in_its_half_tracks() -> None:
    g = Game.from_scenario("fow_remagen_1945", seed=1)
    st, rs = g.state, g.ruleset
    p = st.units["us_1pl"]
    assert p.attrs["mounted_in"] == "us_halftracks" and p.position is None
    assert all(m.position is None for m in p.models)
    ht = st.units["us_halftracks"]
    assert [m.kind for m in ht.models] == ["us_m3_halftrack"] * 3
    assert all(rs.team(m).has("transport") for m in ht.models)
    mortars = st.units["us_mortars"]
    assert sum(bombard_weapon(rs.team(m)) is not None for m in mortars.models) == 2
    assert Dismount("us_1pl") in g.legal_actions()
    # a kilometre from the garrison the doctrine keeps them aboard (D2)
    assert not arms.should_dismount(rs, st, "us_1pl", "us")


def test_the_mortars_bombard_in_turn_one_with_every_roll_logged(remagen) -> None:
    log = remagen.log
    fire = log[(log["unit"] == "us_mortars") & (log["action"] == "bombard")]
    first = fire[fire["turn"] == 1]
    ranging = first[first["kind"] == "range_in"]
    assert len(ranging) >= 1
    row = ranging.iloc[0]
    assert len(row["dice"]) == 1 and 2 <= row["needed"] <= 6
    assert "spotter us_mortars." in row["detail"]  # a team of the platoon spots
    done = first[first["kind"] == "bombard"]
    assert len(done) == 1
    if done.iloc[0]["result"] != "failed to range in":
        hits = first[first["kind"] == "bombard_hit"]
        assert len(hits) == 1 and hits.iloc[0]["needed"] == 4  # Trained: 4+ (B8)
        # two mortars: 6"x6" template, the hits re-rolled (research §3.8)
        assert "2 gun(s)" in hits.iloc[0]["detail"]


def test_the_battery_does_not_move_while_it_has_a_target(remagen) -> None:
    log = remagen.log
    bombards = log[(log["unit"] == "us_mortars") & (log["kind"] == "bombard")]
    moves = log[(log["unit"] == "us_mortars") & (log["kind"] == "move")]
    assert len(bombards) >= 3
    assert not set(moves["turn"]) & set(bombards["turn"])  # B1: moved, no fire


def test_passengers_get_out_before_the_half_tracks_reach_assault_range(
    remagen,
) -> None:
    g = _doctrine("fow_remagen_1945", REMAGEN_SEED)
    reach = arms.ASSAULT_REACH_IN * g.ruleset.scale
    while g.outcome is None:
        g.step()
        ev = g.events[-1]
        if ev.kind == "dismount":
            break
        carrying = g.state.units["us_1pl"].attrs.get("mounted_in")
        if ev.kind == "move" and ev.unit == "us_halftracks" and carrying:
            view = g.ruleset.view(g.state, "us")
            for m in g.state.units["us_halftracks"].models:
                assert isinstance(m.position, Point)
                assert not arms.enemy_near(
                    g.ruleset, view, "us", m.position, arms.ASSAULT_REACH_IN
                ), f"{m.id} drove within {reach:.0f} m of the enemy with passengers"
    else:  # pragma: no cover
        raise AssertionError("the passengers never got out")
    st = g.state
    out = st.units["us_1pl"]
    assert out.attrs.get("mounted_in") is None and isinstance(out.position, Point)
    assert st.turn >= 2  # they rode first (a kilometre from the enemy at the start)
    # the doctrine gets out where the riflemen can shoot or take a goal (D2)
    view = g.ruleset.view(st, "us")
    near = any(
        arms.enemy_near(g.ruleset, view, "us", m.position, arms.DISMOUNT_IN)
        or any(
            math.dist((p.x, p.y), (m.position.x, m.position.y))
            <= arms.DISMOUNT_IN * g.ruleset.scale
            for p, _ in g.ruleset.objectives.values()
        )
        for m in st.units["us_halftracks"].models
        if isinstance(m.position, Point)
    )
    assert near


def test_ockenfels_reserve_rolls_from_turn_three_and_arrives(ockenfels) -> None:
    log = ockenfels.log
    rolls = log[(log["kind"] == "reserves") & (log["unit"] == "de_reserve_panzers")]
    dice = rolls[rolls["dice"].notna()]
    assert dice["turn"].min() == 3  # S1: from turn 3
    assert all(len(d) == 1 for d in dice["dice"]) and set(dice["needed"]) == {5}
    arrived = rolls[rolls["result"] == "arrives"]
    assert len(arrived) == 1
    turn = int(arrived.iloc[0]["turn"])
    # every earlier die missed (a 1-4), the arrival's scored 5+
    earlier = dice[dice["turn"] < turn]
    assert all(d[0] < 5 for d in earlier["dice"])
    assert dice[dice["turn"] == turn].iloc[0]["dice"][0] >= 5
    x, y = arrived.iloc[0]["x_to"], arrived.iloc[0]["y_to"]
    assert 378750.0 <= x <= 379000.0 and 5604650.0 <= y <= 5604950.0  # de_reserve
    moved = log[(log["unit"] == "de_reserve_panzers") & (log["kind"] == "move")]
    assert len(moved) and moved["turn"].min() >= turn  # then it is played


def test_an_empty_transport_keeps_out_of_the_fight() -> None:
    g = Game.from_scenario("fow_remagen_1945", seed=1)
    rs, st = g.ruleset, g.state
    here = st.units["us_halftracks"].position
    assert isinstance(here, Point)
    # carrying: not the empty-transport rule
    assert arms.empty_transport_move(rs, st, "us_halftracks", "us", here, 0.0) is None
    assert arms.empty_transport_move(rs, st, "us_2pl", "us", here, 0.0) is None
    g.apply(Dismount("us_1pl"))
    st = g.state
    # a kilometre back it stays where it is
    assert arms.empty_transport_move(rs, st, "us_halftracks", "us", here, 0.0) == -1.0
