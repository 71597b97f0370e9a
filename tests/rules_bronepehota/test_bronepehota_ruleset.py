"""bronepehota-2008 on the map: initiative, unit-by-unit alternation, a squad
acting soldier by soldier, shots and melee through the logged dice, and the
conformance harness on the Linz scenario."""

from __future__ import annotations

import tomllib
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from wargame.engine import Game, IllegalActionError, Point, ScenarioError
from wargame.engine.points import bearing, distance, offset
from wargame.rules.bronepehota.ruleset import EndSquad, Move, Shoot
from wargame.testing import check_ruleset

SCENARIO = Path(__file__).parents[2] / "scenarios" / "bronepehota_linz_bank.toml"


def data(**changes: Any) -> dict[str, Any]:
    d = tomllib.loads(SCENARIO.read_text(encoding="utf-8"))
    d.update(changes)
    return d


@pytest.fixture(scope="module")
def game() -> Game:
    return Game.from_scenario(data(), seed=3)


def test_bronepehota_passes_check_ruleset_on_the_linz_bank() -> None:
    report = check_ruleset(
        "bronepehota-2008",
        data(turns=3),
        seeds=range(3),
        repeat=1,
        sampled=lambda a: isinstance(a, Move),
        complete_legal_actions=False,
    )
    assert report.games == 3 and report.actions_checked > 20


def test_initiative_is_a_d12_each_and_the_highest_goes_first(game: Game) -> None:
    log = game.log
    ini = log[log["kind"] == "initiative"]
    rolls = ini[ini["dice"].notna()]
    first = ini[ini["dice"].isna()].iloc[0]
    faces = {r.side: r.dice[0] for r in rolls.itertuples() if r.turn == 1}
    assert all(1 <= f <= 12 for f in faces.values())
    # the last pair of rolls decides; an earlier tie rolled again (§3.1)
    last = rolls[rolls["turn"] == 1].tail(2)
    assert last.iloc[0]["dice"][0] != last.iloc[1]["dice"][0]
    winner = max(last.itertuples(), key=lambda r: r.dice[0]).side
    assert first["side"] == winner == game.state.vars["side"]


def _first_soldier(game: Game) -> tuple[str, Any]:
    side = game.state.vars["side"]
    u = next(u for u in game.state.units.values() if u.side == side)
    return u.id, u.models[0]


def test_a_soldier_moves_no_more_than_his_speed_and_acts_once(game: Game) -> None:
    g = Game.from_scenario(data(), seed=3)
    uid, m = _first_soldier(g)
    s = g.ruleset.arm.squads[g.state.units[uid].type].soldiers[0]
    far = offset(m.position, 0.0, (s.speed + 0.5) * g.ruleset.step_m)
    with pytest.raises(IllegalActionError, match=r"more than his Ск"):
        g.apply(Move(uid, m.id, far))
    legal = [a for a in g.legal_actions() if isinstance(a, Move) and a.soldier == m.id]
    assert legal
    g.apply(legal[0])
    with pytest.raises(IllegalActionError, match="may move once a turn"):
        g.apply(Move(uid, m.id, m.position))
    # the next soldier begins: the first is done for the turn (§3.2 note 1)
    other = g.state.units[uid].models[1]
    nxt = [a for a in g.legal_actions() if getattr(a, "soldier", None) == other.id]
    g.apply(nxt[0])
    with pytest.raises(IllegalActionError, match="has acted this turn"):
        g.apply(Shoot(uid, m.id, "x", "x.1"))


def test_the_other_squad_cannot_act_while_one_is_acting_and_sides_alternate() -> None:
    g = Game.from_scenario(data(), seed=5)
    side = g.state.vars["side"]
    uid, _ = _first_soldier(g)
    move = next(a for a in g.legal_actions() if isinstance(a, Move))
    g.apply(move)
    g.apply(EndSquad(uid))
    assert g.state.vars["side"] != side  # §3.2: the other side's unit next
    assert g.state.units[uid].attrs["acted"]
    other = g.state.vars["side"]
    enemy = next(u for u in g.state.units.values() if u.side == other)
    with pytest.raises(IllegalActionError, match="is not a unit of"):
        g.ruleset.check(g.state, EndSquad(uid))
    g.apply(EndSquad(enemy.id))
    assert g.state.vars["side"] == side and g.state.turn == 1  # machines to act
    while g.state.turn == 1:
        g.apply(next(a for a in g.legal_actions() if isinstance(a, EndSquad)))
    # every unit has acted: a new turn and a new initiative roll
    assert g.state.turn == 2
    assert not any(u.attrs.get("acted") for u in g.state.units.values())


def test_a_shot_behind_the_shooter_is_refused() -> None:
    g = Game.from_scenario(data(), seed=2)
    uid, m = _first_soldier(g)
    side = g.state.vars["side"]
    enemy = next(u for u in g.state.units.values() if u.side != side)
    # turn the shooter's back on the enemy by hand (a state the rules allow)
    u = g.state.units[uid]
    target = enemy.models[0]
    back = (bearing(m.position, target.position) + 180.0) % 360.0
    turned = replace(m, facing=back)
    u.models = (turned, *u.models[1:])
    with pytest.raises(IllegalActionError, match=r"outside .* field of view"):
        g.ruleset.check(g.state, Shoot(uid, m.id, enemy.id, target.id))


def test_shot_and_melee_roll_through_the_logged_dice() -> None:
    g = Game.from_scenario(data(turns=8), seed=11)
    g.run()
    log = g.log
    ranges = log[(log["kind"] == "range") & log["dice"].notna()]
    shots = log[log["kind"] == "shot"]
    assert len(ranges) == len(shots) > 0
    for r in ranges.itertuples():
        assert len(r.dice) == 1
    kinds = set(log["kind"])
    assert kinds <= set(g.ruleset.event_kinds)
    out = g.outcome
    assert out is not None and out.termination in ("turn limit", "annihilation")


def test_melee_in_contact_resolves_by_table_6() -> None:
    g = Game.from_scenario(data(), seed=4)
    uid, m = _first_soldier(g)
    side = g.state.vars["side"]
    enemy = next(u for u in g.state.units.values() if u.side != side)
    t = enemy.models[0]
    # put the mover a little over one step from the enemy, facing it
    start = offset(t.position, 0.0, 1.2 * g.ruleset.step_m)
    u = g.state.units[uid]
    u.models = (
        replace(m, position=start, facing=bearing(start, t.position)),
        *u.models[1:],
    )
    to = offset(t.position, 0.0, 2 * g.ruleset.radius_m)
    assert distance(to, t.position) == pytest.approx(2 * g.ruleset.radius_m)
    n = len(g.log)
    g.apply(Move(uid, m.id, Point(round(to.x, 3), round(to.y, 3))))
    new = g.log.iloc[n:]
    melee = new[new["kind"] == "melee"]
    assert len(melee) == 1
    rolls = new[new["kind"] == "melee roll"]
    assert len(rolls) == 2
    a_face, d_face = rolls.iloc[0]["dice"][0], rolls.iloc[1]["dice"][0]
    s = g.ruleset.arm.squads[u.type].soldiers[0]
    ts = g.ruleset.arm.squads[enemy.type].soldiers[0]
    won = a_face + s.melee > d_face + ts.armour
    assert ("destroyed" in melee.iloc[0]["result"]) == won
    assert (t.id in {x.id for x in g.state.units[enemy.id].models}) == (not won)


def test_a_move_into_the_rhine_is_refused_and_nothing_changes() -> None:
    g = Game.from_scenario(data(), seed=1)
    pl = g.state.units["pl_assault"]
    if g.state.vars["side"] != "polaris":
        g.apply(EndSquad("tp_cyber"))
    m = pl.models[0]
    west = offset(m.position, 270.0, 4 * g.ruleset.step_m)
    assert str(g.map.terrain_at(west.x, west.y)) == "water"
    n, before = len(g.log), g.state.units["pl_assault"].models
    with pytest.raises(IllegalActionError, match="crosses water"):
        g.apply(Move("pl_assault", m.id, west))
    assert len(g.log) == n and g.state.units["pl_assault"].models == before
    assert g.state.vars.get("active") is None


def test_a_squad_not_in_the_armlists_is_a_scenario_error() -> None:
    d = data()
    d["units"][0]["type"] = "pl_space_marines"
    with pytest.raises(ScenarioError, match=r"units\[0\] \('pl_assault'\)\.type"):
        Game.from_scenario(d, seed=1)


# -- machines -------------------------------------------------------------------


def _unit(d: dict[str, Any], uid: str) -> dict[str, Any]:
    return next(u for u in d["units"] if u["id"] == uid)


def _face_off() -> Game:
    """RAPTOR 4 steps south of BRONEKHOD on the open bank, facing each other;
    Polaris to act."""
    d = data()
    _unit(d, "pl_raptor").update(x=378085.0, y=5602830.0, facing=0)
    _unit(d, "tp_bronekhod").update(x=378085.0, y=5602870.0, facing=180)
    g = Game.from_scenario(d, seed=7)
    while g.state.vars["side"] != "polaris":
        ready = [a for a in g.legal_actions() if isinstance(a, EndSquad)]
        g.apply(ready[0])
    return g


def test_a_pilot_below_the_machine_rank_is_a_scenario_error() -> None:
    # §2.3: a Режимная клон-пехота soldier (rank 1) cannot pilot a SPIDER (rank 2)
    d = data()
    _unit(d, "pl_assault")["type"] = "pl_regime_clones"
    _unit(d, "pl_raptor")["type"] = "spider"
    with pytest.raises(ScenarioError) as exc:
        Game.from_scenario(d, seed=1)
    msg = str(exc.value)
    assert "pl_raptor" in msg and ".pilot" in msg and "below Spider's rank 2" in msg


def test_a_loadout_not_in_the_arsenal_is_a_scenario_error() -> None:
    d = data()
    _unit(d, "tp_bronekhod")["loadout"] = ["лазерная пушка"]
    with pytest.raises(ScenarioError, match=r"tp_bronekhod.*\.loadout.*not in its"):
        Game.from_scenario(d, seed=1)


def test_the_pilot_leaves_his_squad_and_the_machine_starts_at_the_top() -> None:
    g = Game.from_scenario(data(), seed=1)
    squad, bk = g.state.units["tp_cyber"], g.state.units["tp_bronekhod"]
    assert [m.id for m in squad.models] == [f"tp_cyber.{n}" for n in range(1, 6)]
    assert bk.attrs["pilot"]["id"] == "tp_cyber.6"  # §3.2 note 3
    assert (bk.attrs["durability"], bk.attrs["ammo"]) == (10, 12)  # §1.6
    assert bk.attrs["loadout"] == ["ракетная установка#1", "ракетная установка#2"]


def test_a_machine_shot_costs_ammo_and_one_weapon_fires_once_within_the_rate() -> None:
    g = _face_off()
    shots = [
        a for a in g.legal_actions() if isinstance(a, Shoot) and a.unit == "pl_raptor"
    ]
    at_bk = [a for a in shots if a.target == "tp_bronekhod"]
    assert at_bk and {a.weapon for a in at_bk} == {
        "ракетная установка#1",
        "ракетная установка#2",
    }
    n = len(g.log)
    g.apply(at_bk[0])
    new = g.log.iloc[n:]
    raptor, bk = g.state.units["pl_raptor"], g.state.units["tp_bronekhod"]
    assert raptor.attrs["ammo"] == 12 - 2  # §7.7: 2Д20 costs two cells
    rng = new[(new["kind"] == "range") & new["dice"].notna()].iloc[0]
    assert len(rng["dice"]) == 1
    # Д6+3 at 4 steps always hits: the power dice are rolled
    assert (new["kind"] == "power").any()
    assert not any(str(r).startswith("miss") for r in new["result"].dropna())
    power = new[(new["kind"] == "power") & new["dice"].notna()].iloc[0]
    armour = 10  # the full track's cell; fully visible on the open bank
    assert "target full" in new[new["kind"] == "aim"].iloc[0]["detail"]
    dmg = sum(f > armour for f in power["dice"])
    assert bk.attrs["durability"] == 10 - dmg
    tests = new[(new["kind"] == "survival") & new["dice"].notna()]
    assert len(tests) == (1 if dmg else 0)  # §7.4 III: once per damaging shot
    # §7.6: RAPTOR's rate of fire is 1: the second launcher may not fire now
    with pytest.raises(IllegalActionError, match="rate of fire 1 used up"):
        g.apply(replace(at_bk[0], weapon="ракетная установка#2"))


def test_a_machine_pays_a_speed_point_to_turn() -> None:
    g = _face_off()
    raptor = g.state.units["pl_raptor"]
    m = raptor.models[0]
    speed = g.ruleset.arm.machines["raptor"].speed_at(9)  # 5 (green)
    step = g.ruleset.step_m
    # straight ahead: speed steps are fine; turned 90° first: one point less
    east = offset(m.position, 90.0, (speed - 0.5) * step)
    with pytest.raises(IllegalActionError, match=r"costs 5\.50 speed points"):
        g.apply(Move("pl_raptor", m.id, east))
    g.apply(Move("pl_raptor", m.id, offset(m.position, 90.0, (speed - 1) * step)))
    assert g.state.units["pl_raptor"].models[0].facing == pytest.approx(90.0)


def test_a_flier_moves_twice_and_never_melees() -> None:
    # §3.2: fliers move, shoot, move; no melee.  THUNDER (rank 3) piloted by a
    # rank-3 soldier of the light assault landing.
    d = data()
    _unit(d, "pl_raptor").update(type="thunder", x=378085.0, y=5602830.0, facing=0)
    g = Game.from_scenario(d, seed=7)
    while g.state.vars["side"] != "polaris":
        g.apply(next(a for a in g.legal_actions() if isinstance(a, EndSquad)))
    m = g.state.units["pl_raptor"].models[0]
    step = g.ruleset.step_m
    first = offset(m.position, 0.0, 1 * step)
    g.apply(Move("pl_raptor", m.id, first))
    second = offset(first, 0.0, 1 * step)
    g.apply(Move("pl_raptor", m.id, second))
    with pytest.raises(IllegalActionError, match="moved twice"):
        g.apply(Move("pl_raptor", m.id, offset(second, 0.0, 1 * step)))
    assert not (set(g.log["kind"]) & {"melee", "melee roll"})


def test_odds_table_of_two_figures_on_the_map_is_the_exact_shot_odds() -> None:
    g = _face_off()
    df = g.ruleset.odds_table(g.state, "pl_raptor", "tp_bronekhod")
    assert list(df["weapon"]) == ["ракетная установка#1", "ракетная установка#2"]
    row = df.iloc[0]
    # Д6+3 at 4 steps always hits; each Д20 pierces armour 10 on 11-20
    assert (row["steps"], row["visible"], row["armour"]) == (4, "full", 10)
    assert row["allowed"] and row["p_hit"] == 1.0
    assert row["p_damage"] == pytest.approx(1 - 0.5**2)
    assert row["expected_damage"] == pytest.approx(1.0)
    squad = g.ruleset.odds_table(g.state, "pl_assault", "tp_cyber")
    assert set(squad["weapon"]) == {"personal weapon"}
    assert (squad["p_damage"] <= squad["p_hit"] + 1e-12).all()


def test_a_machine_charging_a_machine_fights_d6_plus_armour_plus_melee() -> None:
    # §8.1 Table 6: RAPTOR (cell 9, no melee weapon) against BRONEKHOD (cell 10);
    # Table 7: a machine that loses takes the difference and its pilot a test
    g = _face_off()
    m = g.state.units["pl_raptor"].models[0]
    bk = g.state.units["tp_bronekhod"].models[0]
    gap = distance(m.position, bk.position) - m.radius_m - bk.radius_m
    to = offset(m.position, 0.0, gap)
    n = len(g.log)
    g.apply(Move("pl_raptor", m.id, to))
    new = g.log.iloc[n:]
    rolls = new[new["kind"] == "melee roll"]
    assert len(rolls) == 2  # not from behind: one die each
    attack, defence = rolls.iloc[0]["dice"][0] + 9, rolls.iloc[1]["dice"][0] + 10
    after = g.state.units["tp_bronekhod"].attrs["durability"]
    if attack > defence:
        assert after == 10 - (attack - defence)
        assert len(new[(new["kind"] == "survival") & new["dice"].notna()]) == 1
    else:
        assert after == 10 and not (new["kind"] == "survival").any()


def test_a_destroyed_machines_surviving_pilot_fights_on_foot() -> None:
    # §5.1: at 0 the machine is removed; its pilot, if alive, stands where it stood
    g = _face_off()
    g.state.units["tp_bronekhod"].attrs["durability"] = 1  # a wreck already
    where = g.state.units["tp_bronekhod"].models[0].position
    shot = next(
        a
        for a in g.legal_actions()
        if isinstance(a, Shoot) and a.unit == "pl_raptor" and a.target == "tp_bronekhod"
    )
    n = len(g.log)
    g.apply(shot)
    new = g.log.iloc[n:]
    power = new[(new["kind"] == "power") & new["dice"].notna()].iloc[0]["dice"]
    u = g.state.units["tp_bronekhod"]
    if not any(f > 1 for f in power):
        assert u.attrs["durability"] == 1
        return
    test = new[(new["kind"] == "survival") & new["dice"].notna()].iloc[0]["dice"][0]
    pilot_armour = g.ruleset.arm.squads["tp_heavy_cyber_infantry"].soldiers[5].armour
    if test <= pilot_armour:  # §5.3: he lives
        assert [(m.id, m.kind, m.position) for m in u.models] == [
            ("tp_cyber.6", "soldier", where)
        ]
        assert not u.destroyed and u.attrs["pilot"] is None
    else:
        assert u.destroyed
