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
    with pytest.raises(IllegalActionError, match="is not a squad of"):
        g.ruleset.check(g.state, EndSquad(uid))
    g.apply(EndSquad(enemy.id))
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
