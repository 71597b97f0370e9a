"""bronepehota-2008 pilots and pilotless machines: a pilot getting out (§4.3),
an infantryman boarding a pilotless machine and capturing an enemy's (§9.1),
illegal leaves and boardings refused with the state unchanged, and the AI
players using the new actions."""

from __future__ import annotations

import tomllib
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from wargame.engine import Game, IllegalActionError, Point
from wargame.engine.points import distance, offset
from wargame.engine.policy import Decision, RandomPolicy
from wargame.rules.bronepehota.ai import (
    END_SCORE,
    MACHINE_VALUE,
    DoctrinePolicy,
    GreedyPolicy,
)
from wargame.rules.bronepehota.ruleset import Board, EndSquad, Leave, Move, Shoot

SCENARIO = Path(__file__).parents[2] / "scenarios" / "bronepehota_linz_bank.toml"
RAPTOR_AT = Point(378085.0, 5602830.0)
BRONEKHOD_AT = Point(378085.0, 5602870.0)


def _face_off(**types: str) -> Game:
    """RAPTOR 4 steps south of BRONEKHOD on the open bank, facing each other;
    Polaris to act (as in test_bronepehota_ruleset.py).  ``types`` replace unit
    types (unit id -> armlist id)."""
    d = tomllib.loads(SCENARIO.read_text(encoding="utf-8"))
    units = {u["id"]: u for u in d["units"]}
    units["pl_raptor"].update(x=RAPTOR_AT.x, y=RAPTOR_AT.y, facing=0)
    units["tp_bronekhod"].update(x=BRONEKHOD_AT.x, y=BRONEKHOD_AT.y, facing=180)
    for uid, t in types.items():
        units[uid]["type"] = t
    g = Game.from_scenario(d, seed=7)
    while g.state.vars["side"] != "polaris":
        g.apply(next(a for a in g.legal_actions() if isinstance(a, EndSquad)))
    return g


def _put(g: Game, uid: str, mid: str, at: Point, facing: float = 0.0) -> None:
    """Stand figure ``mid`` at ``at`` by hand (a state the rules allow)."""
    u = g.state.units[uid]
    u.models = tuple(
        replace(m, position=at, facing=facing) if m.id == mid else m for m in u.models
    )


def _pilotless(g: Game, uid: str) -> None:
    """Machine ``uid``'s pilot killed by hand (§7.4 III leaves it on the table)."""
    g.state.units[uid].attrs.pop("pilot")


def _touch(g: Game, machine: Point, uid: str, bearing: float) -> Point:
    """The point where a soldier's base touches the machine at ``machine``."""
    r = g.ruleset
    m = next(m for m in g.state.units[uid].models if m.kind == "machine")
    return offset(machine, bearing, m.radius_m + r.radius_m)


def _refused(g: Game, action: Any, match: str) -> str:
    """``action`` raises IllegalActionError matching ``match``; nothing changes."""
    before, n = g.state.digest(), len(g.log)
    with pytest.raises(IllegalActionError, match=match) as exc:
        g.apply(action)
    assert g.state.digest() == before and len(g.log) == n
    return str(exc.value)


# -- §4.3: a pilot gets out ------------------------------------------------- #
def test_a_pilot_gets_out_touching_his_machine_which_freezes() -> None:
    g = _face_off()
    to = _touch(g, RAPTOR_AT, "pl_raptor", 180.0)  # behind it, away from the enemy
    g.apply(Leave("pl_raptor", to))
    raptor, squad = g.state.units["pl_raptor"], g.state.units["pl_assault"]
    # the machine stays, pilotless; its pilot is back in his squad, touching it
    assert "pilot" not in raptor.attrs and raptor.models[0].position == RAPTOR_AT
    man = next(m for m in squad.models if m.id == "pl_assault.1")
    assert man.position == to and man.kind == "soldier"
    gap = distance(man.position, RAPTOR_AT) - man.radius_m - raptor.models[0].radius_m
    assert abs(gap) < 1e-6
    assert g.log.iloc[-2]["kind"] == "leave" and g.log.iloc[-1]["kind"] == "squad done"
    # leaving ends the machine's unit's turn; a pilotless machine cannot act (§4.3)
    assert raptor.attrs["acted"] and g.state.vars["side"] == "protectorate"
    assert "pl_raptor" not in {u.id for u in g.ruleset._ready(g.state, "polaris")}
    # the soldier count is the same: a pilot on foot is a soldier (§1.1)
    assert g.ruleset._soldiers_left(g.state, "polaris") == 6


def test_the_pilot_who_got_out_does_nothing_more_this_turn_and_acts_next() -> None:
    g = _face_off()
    g.apply(Leave("pl_raptor", _touch(g, RAPTOR_AT, "pl_raptor", 180.0)))
    g.apply(EndSquad(g.state.vars.get("active") or _ready(g, "protectorate")))
    assert g.state.vars["side"] == "polaris"
    legal = g.legal_actions()
    assert not [a for a in legal if getattr(a, "soldier", "") == "pl_assault.1"]
    man = next(m for m in g.state.units["pl_assault"].models if m.id == "pl_assault.1")
    _refused(
        g,
        Move("pl_assault", man.id, offset(man.position, 180.0, 10.0)),
        r"§4\.3: pl_assault\.1 got out of his machine this turn",
    )
    while g.state.turn == 1:
        g.apply(next(a for a in g.legal_actions() if isinstance(a, EndSquad)))
    assert "spent" not in g.state.vars  # a new turn: he acts again
    while g.state.vars["side"] != "polaris":
        g.apply(next(a for a in g.legal_actions() if isinstance(a, EndSquad)))
    g.apply(Move("pl_assault", man.id, offset(man.position, 180.0, 10.0)))


def _ready(g: Game, side: str) -> str:
    return g.ruleset._ready(g.state, side)[0].id


def test_the_pilot_walks_on_at_most_his_speed_from_where_he_was_set_down() -> None:
    # §4.3 then §4.1: he moves on foot; Ск 5 of the light assault landing
    g = _face_off()
    step = g.ruleset.step_m
    touch = _touch(g, RAPTOR_AT, "pl_raptor", 90.0)
    too_far = offset(touch, 90.0, 5.5 * step)
    msg = _refused(g, Leave("pl_raptor", too_far), r"more than his Ск 5")
    assert "pl_raptor" in msg and f"({too_far.x:.1f}, {too_far.y:.1f})" in msg
    far = offset(touch, 90.0, 4.9 * step)
    g.apply(Leave("pl_raptor", far))
    man = next(m for m in g.state.units["pl_assault"].models if m.id == "pl_assault.1")
    assert man.position == far and man.facing == 90.0


def test_a_pilot_walking_into_an_enemy_on_foot_fights_a_melee() -> None:
    # §4.3, §4.1 note, §8: his walk ends touching an enemy soldier: melee at once
    g = _face_off()
    step = g.ruleset.step_m
    to = offset(_touch(g, RAPTOR_AT, "pl_raptor", 90.0), 90.0, 2 * step)
    _put(g, "tp_cyber", "tp_cyber.1", offset(to, 90.0, 2 * g.ruleset.radius_m), 270.0)
    g.apply(Leave("pl_raptor", to))
    kinds = list(g.log["kind"])
    at = kinds.index("leave")
    assert kinds[at + 1 : at + 3] == ["melee roll", "melee roll"]
    assert "melee" in kinds[at:] and kinds[-1] in ("squad done", "wait")
    melee = g.log[g.log["kind"] == "melee"].iloc[-1]
    assert melee["unit"] == "pl_assault" and melee["target"] == "tp_cyber.1"


def test_a_machine_that_has_moved_this_turn_cannot_be_left() -> None:
    # §4.3: the pilot moves once a turn, with the machine or on foot, not both
    g = _face_off()
    g.apply(Move("pl_raptor", "pl_raptor.m", offset(RAPTOR_AT, 0.0, 10.0)))
    to = _touch(g, offset(RAPTOR_AT, 0.0, 10.0), "pl_raptor", 180.0)
    msg = _refused(g, Leave("pl_raptor", to), r"§4\.3: pl_raptor has moved this turn")
    assert "cannot get out" in msg


def test_a_machine_that_has_shot_may_still_be_left() -> None:
    g = _face_off()
    shot = next(
        a for a in g.legal_actions() if isinstance(a, Shoot) and a.unit == "pl_raptor"
    )
    g.apply(shot)
    g.apply(Leave("pl_raptor", _touch(g, RAPTOR_AT, "pl_raptor", 180.0)))
    assert "pilot" not in g.state.units["pl_raptor"].attrs


def test_a_pilot_is_not_set_down_under_his_machine_nor_out_of_an_empty_one() -> None:
    g = _face_off()
    inside = offset(RAPTOR_AT, 180.0, 5.0)
    msg = _refused(g, Leave("pl_raptor", inside), r"§4\.3: .* is under the machine")
    assert "pl_raptor" in msg
    _refused(
        g, Leave("tp_bronekhod", _touch(g, BRONEKHOD_AT, "tp_bronekhod", 0.0)), "not"
    )
    _pilotless(g, "pl_raptor")
    _refused(
        g,
        Leave("pl_raptor", _touch(g, RAPTOR_AT, "pl_raptor", 180.0)),
        r"§4\.3: pl_raptor has no pilot",
    )


def test_a_pilot_whose_squad_was_wiped_out_brings_it_back_alone() -> None:
    g = _face_off()
    squad = g.state.units["pl_assault"]
    squad.models, squad.strength = (), "destroyed"
    to = _touch(g, RAPTOR_AT, "pl_raptor", 180.0)
    g.apply(Leave("pl_raptor", to))
    squad = g.state.units["pl_assault"]
    assert not squad.destroyed and [m.id for m in squad.models] == ["pl_assault.1"]
    assert squad.position == to


def test_a_fliers_pilot_gets_out_and_it_lands_on_the_spot() -> None:
    # §4.3: a flier lands (off its stand, the same spot) for its pilot to get out
    g = _face_off(pl_raptor="thunder")
    f = g.ruleset.fig(g.state, "pl_raptor", "pl_raptor.m")
    assert f.airborne
    g.apply(Leave("pl_raptor", _touch(g, RAPTOR_AT, "pl_raptor", 180.0)))
    f = g.ruleset.fig(g.state, "pl_raptor", "pl_raptor.m")
    assert not f.airborne and g.ruleset.position(f) == RAPTOR_AT


# -- §9.1: boarding and capture --------------------------------------------- #
def _soldier_at_bronekhod(g: Game, mid: str = "pl_assault.2") -> Point:
    at = _touch(g, BRONEKHOD_AT, "tp_bronekhod", 270.0)
    _put(g, "pl_assault", mid, at, facing=90.0)
    return at


def test_boarding_an_enemys_pilotless_machine_captures_it() -> None:
    g = _face_off()
    _pilotless(g, "tp_bronekhod")
    g.state.units["tp_bronekhod"].attrs.update(durability=6, ammo=8)  # worn tracks
    _soldier_at_bronekhod(g)
    assert Board("pl_assault", "pl_assault.2", "tp_bronekhod") in g.legal_actions()
    g.apply(Board("pl_assault", "pl_assault.2", "tp_bronekhod"))
    bk, squad = g.state.units["tp_bronekhod"], g.state.units["pl_assault"]
    # §9.1: his side's unit now, with the tracks as they were; he left his squad
    assert (bk.side, bk.formation) == ("polaris", "landing")
    assert bk.attrs["pilot"] == {
        "id": "pl_assault.2",
        "squad": "pl_light_assault_landing",
        "n": 2,
    }
    assert (bk.attrs["durability"], bk.attrs["ammo"]) == (6, 8)
    assert "pl_assault.2" not in {m.id for m in squad.models}
    ev = g.log.iloc[-1]
    assert ev["kind"] == "board" and "captured from protectorate" in ev["result"]
    # it fights from the next turn (§9.1): not ready now, for either side
    assert bk.attrs["acted"]
    assert "tp_bronekhod" not in {u.id for u in g.ruleset._ready(g.state, "polaris")}
    assert g.ruleset._soldiers_left(g.state, "protectorate") == 5
    assert g.ruleset._soldiers_left(g.state, "polaris") == 6  # he is a pilot now
    while g.state.turn == 1:
        g.apply(next(a for a in g.legal_actions() if isinstance(a, EndSquad)))
    assert "tp_bronekhod" in {u.id for u in g.ruleset._ready(g.state, "polaris")}
    # and it shoots at its old side: the BRONEKHOD's rockets at the cyber-infantry
    f = g.ruleset.fig(g.state, "tp_bronekhod", "tp_bronekhod.m")
    assert f.soldier is not None and f.soldier.rank == 3


def test_a_soldier_reboards_his_own_sides_empty_machine_which_fights_next_turn() -> (
    None
):
    g = _face_off()
    g.apply(Leave("pl_raptor", _touch(g, RAPTOR_AT, "pl_raptor", 180.0)))
    g.apply(EndSquad(_ready(g, "protectorate")))
    # another soldier of the squad, touching the RAPTOR, takes it over
    _put(g, "pl_assault", "pl_assault.3", _touch(g, RAPTOR_AT, "pl_raptor", 90.0))
    g.apply(Board("pl_assault", "pl_assault.3", "pl_raptor"))
    raptor = g.state.units["pl_raptor"]
    assert raptor.side == "polaris" and raptor.attrs["pilot"]["id"] == "pl_assault.3"
    assert "captured" not in g.log.iloc[-1]["result"] and raptor.attrs["acted"]


def test_boarding_too_far_from_the_machine_is_refused() -> None:
    g = _face_off()
    _pilotless(g, "tp_bronekhod")
    at = offset(_touch(g, BRONEKHOD_AT, "tp_bronekhod", 270.0), 270.0, 5.0)
    _put(g, "pl_assault", "pl_assault.2", at)
    msg = _refused(
        g,
        Board("pl_assault", "pl_assault.2", "tp_bronekhod"),
        r"§9\.1: pl_assault\.2 at .* does not touch tp_bronekhod",
    )
    assert f"({at.x:.1f}, {at.y:.1f})" in msg and "0.50 steps" in msg


def test_boarding_a_machine_with_a_pilot_is_refused() -> None:
    g = _face_off()
    _soldier_at_bronekhod(g)
    _refused(
        g,
        Board("pl_assault", "pl_assault.2", "tp_bronekhod"),
        r"§9\.1: tp_bronekhod has a pilot \(tp_cyber\.6\)",
    )


def test_only_an_infantryman_of_the_machines_rank_boards_it() -> None:
    # §9.1 note, §2.3: regime clones (rank 1) cannot pilot a VARAN (rank 3)
    g = _face_off(pl_assault="pl_regime_clones", tp_bronekhod="varan")
    _pilotless(g, "tp_bronekhod")
    _soldier_at_bronekhod(g)
    _refused(
        g,
        Board("pl_assault", "pl_assault.2", "tp_bronekhod"),
        r"§9\.1 note, §2\.3: pl_assault\.2 has rank 1, below Varan's rank 3",
    )
    assert not [a for a in g.legal_actions() if isinstance(a, Board)]
    # a machine is no infantryman: the RAPTOR cannot "board" another machine
    _refused(
        g,
        Board("pl_raptor", "pl_raptor.m", "tp_bronekhod"),
        r"§9\.1: only an infantryman boards a machine; pl_raptor\.m is a machine",
    )


def test_a_machine_an_enemy_infantryman_touches_cannot_be_boarded() -> None:
    g = _face_off()
    _pilotless(g, "pl_raptor")
    _put(g, "tp_cyber", "tp_cyber.1", _touch(g, RAPTOR_AT, "pl_raptor", 90.0))
    _put(g, "pl_assault", "pl_assault.2", _touch(g, RAPTOR_AT, "pl_raptor", 270.0))
    _refused(
        g,
        Board("pl_assault", "pl_assault.2", "pl_raptor"),
        r"§9\.1: enemy infantryman tp_cyber\.1 touches pl_raptor; he was first",
    )


def test_the_last_soldier_of_a_squad_boarding_ends_its_turn() -> None:
    g = _face_off()
    _pilotless(g, "tp_bronekhod")
    squad = g.state.units["pl_assault"]
    squad.models = tuple(m for m in squad.models if m.id == "pl_assault.2")
    _soldier_at_bronekhod(g)
    g.apply(Board("pl_assault", "pl_assault.2", "tp_bronekhod"))
    assert g.state.units["pl_assault"].destroyed
    kinds = list(g.log["kind"])
    assert kinds[kinds.index("board") + 1] == "squad done"
    assert g.state.vars.get("active") is None


# -- the AI players --------------------------------------------------------- #
def _decision(g: Game) -> Decision:
    return Decision(
        g.state.vars["side"],
        g.legal_actions(),
        len(g.actions),
        7,
        view=lambda: g.state,
        rules=g.ruleset,
    )


@pytest.mark.parametrize("policy", [GreedyPolicy, DoctrinePolicy])
def test_the_ai_boards_an_abandoned_machine_next_to_its_soldier(policy: type) -> None:
    g = _face_off()
    _pilotless(g, "tp_bronekhod")
    _soldier_at_bronekhod(g)
    board = Board("pl_assault", "pl_assault.2", "tp_bronekhod")
    assert policy().score(g.ruleset, g.state, board, "polaris") == MACHINE_VALUE
    assert policy().choose(_decision(g)) == board


@pytest.mark.parametrize("policy", [GreedyPolicy, DoctrinePolicy])
def test_the_ai_walks_a_soldier_to_an_abandoned_machine_and_boards_it(
    policy: type,
) -> None:
    g = _face_off()
    _pilotless(g, "pl_raptor")  # its pilot killed; a soldier 3 steps off
    start = offset(_touch(g, RAPTOR_AT, "pl_raptor", 90.0), 90.0, 30.0)
    _put(g, "pl_assault", "pl_assault.2", start, facing=270.0)
    move = policy().choose(_decision(g))  # some soldier of the squad goes
    assert isinstance(move, Move) and move.unit == "pl_assault"
    gap = distance(move.to, RAPTOR_AT) - g.ruleset.radius_m
    assert gap <= g.state.units["pl_raptor"].models[0].radius_m + 0.5
    g.apply(move)
    board = policy().choose(_decision(g))
    assert board == Board("pl_assault", move.soldier, "pl_raptor")
    g.apply(board)
    assert g.state.units["pl_raptor"].attrs["pilot"]["id"] == move.soldier


def test_a_machine_with_nothing_left_to_fight_with_offers_its_pilot_a_way_out() -> None:
    g = _face_off()
    assert not [a for a in g.legal_actions() if isinstance(a, Leave)]
    g.state.units["pl_raptor"].attrs["ammo"] = 1  # §7.7: no cell for a 2Д20 rocket
    leave = [a for a in g.legal_actions() if isinstance(a, Leave)]
    assert len(leave) == 1 and leave[0].unit == "pl_raptor"
    # set down on the side away from the BRONEKHOD, north of it
    assert leave[0].to.y < RAPTOR_AT.y
    for policy in (GreedyPolicy(), DoctrinePolicy()):
        assert policy.score(g.ruleset, g.state, leave[0], "polaris") > END_SCORE
    g.apply(leave[0])  # legal as offered


@pytest.mark.parametrize("seed", [0, 1])
def test_random_play_with_pilots_out_and_machines_boarded_runs_clean(seed: int) -> None:
    # every offered action is legal and the game plays on after a leave/board
    g = _face_off()
    _pilotless(g, "tp_bronekhod")
    _soldier_at_bronekhod(g)
    g.state.units["pl_raptor"].attrs["ammo"] = 0
    pol = RandomPolicy(seed)
    for k in range(150):
        legal = g.legal_actions()
        if not legal:
            break
        crew = [a for a in legal if isinstance(a, Board | Leave)]
        a = crew[0] if crew else pol.choose(Decision("x", legal, k, seed))
        g.apply(a)
    kinds = set(g.log["kind"])
    assert {"board", "leave"} <= kinds


def test_a_pilotless_machine_is_drawn_out_of_action_until_boarded() -> None:
    """The views mark a machine whose pilot got out (seed §1.6: it cannot act)
    hollow on the map, with "no pilot" and its durability; boarding it clears
    the mark; machines with pilots and squads have none."""
    from wargame.render.points import MODEL_STYLE, models_geojson

    def dots(g: Game, uid: str) -> list[dict[str, Any]]:
        return [
            f["properties"]
            for f in models_geojson(g)["features"]
            if f["properties"].get("unit") == uid and "marks" in f["properties"]
        ]

    g = _face_off()
    assert [d["marks"] for d in dots(g, "pl_raptor")] == [[]]
    assert all(d["marks"] == [] for d in dots(g, "pl_assault"))
    g.apply(Leave("pl_raptor", _touch(g, RAPTOR_AT, "pl_raptor", 180.0)))
    cell = g.state.units["pl_raptor"].attrs["durability"]
    (raptor,) = dots(g, "pl_raptor")
    assert raptor["marks"] == ["no pilot", f"durability {cell}"]
    assert raptor["style"]["fillOpacity"] < MODEL_STYLE.get("fillOpacity", 1.0)
    assert g.ruleset.model_marks(g.state, g.state.units["tp_bronekhod"]) == {}

    g = _face_off()  # boarding an empty machine clears its mark
    _pilotless(g, "tp_bronekhod")
    _soldier_at_bronekhod(g)
    assert dots(g, "tp_bronekhod")[0]["marks"][0] == "no pilot"
    g.apply(Board("pl_assault", "pl_assault.2", "tp_bronekhod"))
    assert [d["marks"] for d in dots(g, "tp_bronekhod")] == [[]]
