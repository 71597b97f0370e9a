"""bronepehota-2008 guns on the map and repair: a gun fired by the soldier
touching it (§7.5, §7.6-7.7), moved with one at half speed (§4.1), attacked in
melee (Table 6), captured (§9.2), and machines and guns repaired by soldiers
with Рм (§9.3).  The rulebook's worked examples 1, 15, 18 and 22 (research
§7) are named tests; illegal acts are refused with the state unchanged."""

from __future__ import annotations

import tomllib
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from wargame.engine import Game, IllegalActionError, Point, ScenarioError
from wargame.engine.points import distance, offset
from wargame.engine.policy import Decision, RandomPolicy
from wargame.rules.bronepehota.ai import CREW_BONUS, DoctrinePolicy, GreedyPolicy
from wargame.rules.bronepehota.ruleset import (
    Capture,
    EndSquad,
    Move,
    MoveGun,
    Repair,
    Shoot,
)

SCENARIOS = Path(__file__).parents[2] / "scenarios"
LINZ = SCENARIOS / "bronepehota_linz_bank.toml"
#: open lawn on the Linz bank, north of the landing's start
P0 = Point(378085.0, 5602815.0)
TOUCH = 7.5  # a soldier's base (2.5 m) touching a gun's (5 m), at 10 m a step


def _game(guns: dict[str, tuple[str, str, Point]], **types: str) -> Game:
    """The Linz scenario with ``guns`` (id -> (type, side's formation, at)),
    unit types replaced by ``types``; the Protectorate to act."""
    d = tomllib.loads(LINZ.read_text(encoding="utf-8"))
    for uid, t in types.items():
        next(u for u in d["units"] if u["id"] == uid)["type"] = t
    for gid, (t, formation, at) in guns.items():
        d["units"].append(
            {"id": gid, "type": t, "formation": formation, "x": at.x, "y": at.y}
        )
    g = Game.from_scenario(d, seed=3)
    _to_act(g, "protectorate")
    return g


def _to_act(g: Game, side: str) -> None:
    while g.state.vars.get("side") != side or g.state.vars.get("active"):
        g.apply(next(a for a in g.legal_actions() if isinstance(a, EndSquad)))


def _next_turn(g: Game, side: str) -> None:
    turn = g.state.turn
    while g.state.turn == turn:
        g.apply(next(a for a in g.legal_actions() if isinstance(a, EndSquad)))
    _to_act(g, side)


def _put(g: Game, uid: str, mid: str, at: Point, facing: float = 0.0) -> None:
    """Stand figure ``mid`` at ``at`` by hand (a state the rules allow)."""
    u = g.state.units[uid]
    u.models = tuple(
        replace(m, position=at, facing=facing) if m.id == mid else m for m in u.models
    )


def _north(m: float) -> Point:
    return offset(P0, 0.0, m)


def _refused(g: Game, action: Any, match: str) -> str:
    """``action`` raises IllegalActionError matching ``match``; nothing changes."""
    before, n = g.state.digest(), len(g.log)
    with pytest.raises(IllegalActionError, match=match) as exc:
        g.apply(action)
    assert g.state.digest() == before and len(g.log) == n
    return str(exc.value)


def _gun_at(g: Game, gid: str) -> Point:
    p = g.state.units[gid].models[0].position
    assert isinstance(p, Point)
    return p


# -- moving a mobile gun (§4.1) --------------------------------------------- #
def test_example_1_speed_4_one_step_to_the_mortar_then_7_5_cm_with_it() -> None:
    # §4.1, Fig. 20: Ск 4, one step to reach the mortar, the 3 points left
    # take him and the mortar half a step each: 1.5 steps = 7.5 cm of table
    g = _game({"tp_mortar": ("mortar", "stage_guard", _north(TOUCH + 10.01))})
    _put(g, "tp_cyber", "tp_cyber.1", P0)
    soldier = g.ruleset.fig(g.state, "tp_cyber", "tp_cyber.1").soldier
    assert soldier is not None and soldier.speed == 4
    gun0 = _gun_at(g, "tp_mortar")
    too_far = offset(gun0, 0.0, 16.0)  # 1 + 2 x 1.6 = 4.2 points
    _refused(
        g,
        MoveGun("tp_cyber", "tp_cyber.1", "tp_mortar", too_far),
        r"§4\.1: 1\.00 steps to the gun and 1\.60 with it at half speed cost "
        r"4\.20 points, more than his Ск 4",
    )
    to = offset(gun0, 0.0, 15.0)
    g.apply(MoveGun("tp_cyber", "tp_cyber.1", "tp_mortar", to))
    assert _gun_at(g, "tp_mortar") == to
    cm = distance(gun0, to) / g.ruleset.step_m * 5.0  # a step is 5 cm
    assert cm == pytest.approx(7.5)
    man = g.ruleset.fig(g.state, "tp_cyber", "tp_cyber.1")
    gun = g.ruleset.gun_fig(g.state, "tp_mortar")
    assert g.ruleset.crew_of(g.state, gun) == ["tp_cyber.1"]  # still touching
    assert distance(g.ruleset.position(man), to) == pytest.approx(TOUCH + 0.01)
    ev = g.log.iloc[-1]
    assert ev["kind"] == "move gun" and "1.00 steps" in ev["result"]
    assert "1.50 with it at half speed (4.00 points" in ev["result"]
    # that was his move of the turn (§3.2)
    _refused(
        g,
        MoveGun("tp_cyber", "tp_cyber.1", "tp_mortar", offset(to, 0.0, 5.0)),
        "may move once a turn",
    )


def test_a_stationary_gun_stays_and_an_enemy_touching_a_mortar_holds_it() -> None:
    g = _game(
        {
            "tp_twin": ("twin_gun", "stage_guard", _north(TOUCH)),
            "tp_mortar": ("mortar", "stage_guard", offset(P0, 90.0, TOUCH)),
        }
    )
    _put(g, "tp_cyber", "tp_cyber.1", P0)
    _refused(
        g,
        MoveGun("tp_cyber", "tp_cyber.1", "tp_twin", _north(TOUCH + 10.0)),
        r"§2\.4: Спаренная Пушка is stationary",
    )
    _put(g, "pl_assault", "pl_assault.2", offset(P0, 90.0, 2 * TOUCH))
    _refused(
        g,
        MoveGun("tp_cyber", "tp_cyber.1", "tp_mortar", offset(P0, 120.0, 15.0)),
        r"§4\.1: enemy infantryman pl_assault\.2 touches tp_mortar",
    )


# -- firing (§7.5-7.7) ------------------------------------------------------ #
def _twin_gun_facing_raptor(**types: str) -> Game:
    g = _game({"tp_twin": ("twin_gun", "stage_guard", _north(TOUCH))}, **types)
    _put(g, "tp_cyber", "tp_cyber.1", P0, facing=0.0)
    _put(g, "pl_raptor", "pl_raptor.m", _north(50.0), facing=180.0)
    return g


FIRE = Shoot("tp_cyber", "tp_cyber.1", "pl_raptor", "pl_raptor.m", "gun:tp_twin")


def test_example_22_only_a_soldier_of_rank_2_fires_the_twin_gun() -> None:
    # §7.5: the twin automatic gun's rank is 2; a militiaman's is 1
    g = _twin_gun_facing_raptor(tp_cyber="tp_velian_militia")
    assert FIRE not in g.legal_actions()
    _refused(g, FIRE, r"§7\.5: tp_cyber\.1 has rank 1, below Спаренная Пушка's rank 2")
    gun = g.ruleset.gun_fig(g.state, "tp_twin")
    assert g.ruleset.crew_of(g.state, gun) == []  # he touches it: no crew
    g = _twin_gun_facing_raptor()  # heavy cyber-infantry: rank 3
    assert FIRE in g.legal_actions()
    g.apply(FIRE)
    aim = g.log[g.log["kind"] == "aim"].iloc[-1]
    assert aim["detail"].startswith("gun:tp_twin Д12/3Д20 at 5 steps")


def test_the_gun_fires_its_own_rate_of_fire_and_ammunition_not_with_his_weapon() -> (
    None
):
    g = _twin_gun_facing_raptor()
    g.apply(FIRE)
    g.apply(FIRE)  # §7.6: rate of fire 2
    assert g.state.units["tp_twin"].attrs["ammo"] == 16 - 3 - 3  # §7.7: 3Д20
    _refused(g, FIRE, r"§7\.6: tp_twin has fired its 2 shot\(s\) this turn")
    _refused(  # §7.5 note 1: the gun or his own weapon
        g,
        Shoot("tp_cyber", "tp_cyber.1", "pl_raptor", "pl_raptor.m"),
        r"§7\.5 note 1: tp_cyber\.1 may shoot once a turn",
    )
    g = _twin_gun_facing_raptor()
    g.apply(Shoot("tp_cyber", "tp_cyber.1", "pl_raptor", "pl_raptor.m"))
    _refused(g, FIRE, r"§7\.5 note 1, §7\.6: tp_cyber\.1 fired his own weapon")


def test_an_unmanned_gun_cannot_fire_nor_one_an_enemy_touches() -> None:
    g = _twin_gun_facing_raptor()
    _put(g, "tp_cyber", "tp_cyber.1", offset(P0, 180.0, 20.0))  # stepped away
    assert not [a for a in g.legal_actions() if getattr(a, "weapon", "") == FIRE.weapon]
    _refused(g, FIRE, r"§7\.5: tp_cyber\.1 does not touch tp_twin")
    gun = g.ruleset.gun_fig(g.state, "tp_twin")
    marks = g.ruleset.model_marks(g.state, g.state.units["tp_twin"])
    assert marks == {"tp_twin.g": ("unmanned", "durability 8", "ammo 16")}
    assert g.ruleset.unit_look(g.state, g.state.units["tp_twin"]).words == ("unmanned",)
    g = _twin_gun_facing_raptor()
    _put(g, "pl_assault", "pl_assault.2", offset(_north(TOUCH), 90.0, TOUCH))
    _refused(g, FIRE, r"§7\.5 note 3: enemy infantryman pl_assault\.2 touches")
    assert g.ruleset.crew_of(g.state, gun) == ["tp_cyber.1"]


def test_a_gun_is_a_target_whose_armour_is_its_durability_cell() -> None:
    g = _game({"pl_twin": ("twin_gun", "landing", _north(40.0))})
    _put(g, "tp_cyber", "tp_cyber.2", P0, facing=0.0)  # Д6+2 2Д6: 2Д6 vs 8
    t = g.ruleset.fig(g.state, "pl_twin", "pl_twin.g")
    assert t.armour == 8 and t.gun is not None
    shot = Shoot("tp_cyber", "tp_cyber.2", "pl_twin", "pl_twin.g")
    assert shot in g.legal_actions()
    g.apply(shot)
    last = g.log.iloc[-1]
    assert last["kind"] == "shot"
    assert last["result"].startswith(("miss", "armour 8 holds", "durability"))


# -- melee (Table 6) -------------------------------------------------------- #
def test_example_15_armour_9_with_saw_and_claw_attacks_a_gun_d6_plus_12() -> None:
    # §8.1, Fig. 49: HURRICANE at armour 9 with its vibrosaw (2) and combat
    # claw (1) attacks an enemy gun: Д6+9+2+1 against the gun's armour, no die
    g = _game(
        {"pl_twin": ("twin_gun", "landing", _north(10.0 + 12.0 + 5.0))},
        tp_bronekhod="hurricane",
    )
    hur = g.state.units["tp_bronekhod"]
    hur.attrs["durability"] = 9
    _put(g, "tp_bronekhod", "tp_bronekhod.m", P0, facing=0.0)
    g.apply(Move("tp_bronekhod", "tp_bronekhod.m", _north(10.0)))
    rolls = g.log[g.log["kind"] == "melee roll"]
    assert len(rolls) == 1  # the gun rolls no die (Table 6)
    assert rolls.iloc[0]["detail"] == "attack Д6+12"
    (face,) = rolls.iloc[0]["dice"]
    attack = face + 9 + 2 + 1
    melee = g.log[g.log["kind"] == "melee"]
    assert melee.iloc[0]["result"] == f"{attack} vs 8: won"  # at least 13 > 8
    # Table 7: damage = the difference, on the gun's track
    assert melee.iloc[1]["hits"] == attack - 8
    left = 8 - (attack - 8)
    if left > 0:
        assert g.state.units["pl_twin"].attrs["durability"] == left
    else:
        assert melee.iloc[1]["result"] == "gun destroyed"
        assert g.state.units["pl_twin"].destroyed


# -- capture (§9.2) --------------------------------------------------------- #
def test_a_gun_nobody_touches_is_captured_and_fired_at_once() -> None:
    g = _game({"pl_twin": ("twin_gun", "landing", _north(TOUCH))})
    _put(g, "tp_cyber", "tp_cyber.1", P0, facing=0.0)
    _put(g, "pl_raptor", "pl_raptor.m", _north(50.0), facing=180.0)
    take = Capture("tp_cyber", "tp_cyber.1", "pl_twin")
    assert take in g.legal_actions()
    g.apply(take)
    ev = g.log.iloc[-1]
    assert ev["kind"] == "capture" and "from polaris" in ev["result"]
    gun = g.state.units["pl_twin"]
    assert gun.side == "protectorate" and gun.attrs["durability"] == 8
    assert gun.attrs["ammo"] == 16  # the tracks as they are
    # §9.2: neither he nor the gun fired this turn: he fires it at once
    g.apply(Shoot("tp_cyber", "tp_cyber.1", "pl_raptor", "pl_raptor.m", "gun:pl_twin"))
    _refused(g, take, r"§3\.2, §7\.5 note 1: tp_cyber\.1 may capture once")


def test_a_gun_touched_by_its_crew_is_not_captured_nor_fired_again_this_turn() -> None:
    g = _game({"pl_twin": ("twin_gun", "landing", _north(TOUCH))})
    _put(g, "tp_cyber", "tp_cyber.1", P0, facing=0.0)
    _put(g, "pl_assault", "pl_assault.2", offset(_north(TOUCH), 0.0, TOUCH))
    _refused(
        g,
        Capture("tp_cyber", "tp_cyber.1", "pl_twin"),
        r"§9\.2: pl_assault\.2 touches pl_twin; a gun is taken only when no "
        "infantryman touches it",
    )
    _refused(
        g,
        Shoot("tp_cyber", "tp_cyber.1", "pl_assault", "pl_assault.2", "gun:pl_twin"),
        r"§9\.2: pl_twin is the enemy's gun; capture it first",
    )
    g = _game({"pl_twin": ("twin_gun", "landing", _north(TOUCH))})
    _put(g, "tp_cyber", "tp_cyber.1", P0, facing=0.0)
    _put(g, "pl_raptor", "pl_raptor.m", _north(50.0), facing=180.0)
    g.state.units["pl_twin"].attrs["shots"] = [g.state.turn, 1]  # fired this turn
    g.apply(Capture("tp_cyber", "tp_cyber.1", "pl_twin"))
    _refused(
        g,
        Shoot("tp_cyber", "tp_cyber.1", "pl_raptor", "pl_raptor.m", "gun:pl_twin"),
        r"§7\.6: pl_twin has fired its 2 shot\(s\) this turn",
    )
    _refused(
        g,
        Capture("tp_cyber", "tp_cyber.1", "pl_twin"),
        r"§3\.2, §7\.5 note 1: tp_cyber\.1 may capture once",
    )


# -- repair (§9.3) ---------------------------------------------------------- #
def test_example_18_a_soldier_who_walked_to_the_gun_repairs_it_next_turn() -> None:
    # §9.3: he came up to the damaged gun this turn (a move): no repair now;
    # next turn, skipping all his acts, he repairs one damage
    g = _game({"tp_mortar": ("mortar", "stage_guard", _north(TOUCH + 10.01))})
    g.state.units["tp_mortar"].attrs["durability"] = 2
    _put(g, "tp_cyber", "tp_cyber.1", P0)
    assert g.ruleset.fig(g.state, "tp_cyber", "tp_cyber.1").soldier.repairs  # Рм
    g.apply(Move("tp_cyber", "tp_cyber.1", _north(10.0)))
    fix = Repair("tp_cyber", "tp_cyber.1", "tp_mortar")
    _refused(g, fix, r"§9\.3: tp_cyber\.1 has acted this turn \(move\)")
    _next_turn(g, "protectorate")
    assert fix in g.legal_actions()
    g.apply(fix)
    assert g.state.units["tp_mortar"].attrs["durability"] == 3
    ev = g.log.iloc[-1]
    assert ev["kind"] == "repair" and ev["result"].endswith("durability 3")
    _refused(  # instead of all his acts
        g, Move("tp_cyber", "tp_cyber.1", offset(P0, 180.0, 5.0)), "once a turn"
    )
    _next_turn(g, "protectorate")
    g.apply(fix)
    assert g.state.units["tp_mortar"].attrs["durability"] == 4
    _next_turn(g, "protectorate")
    _refused(g, fix, r"§9\.3 note 1: tp_mortar is at the top of its track \(4\)")


def test_no_repair_in_contact_with_the_enemy_nor_without_the_skill() -> None:
    g = _game({"tp_mortar": ("mortar", "stage_guard", _north(TOUCH))})
    g.state.units["tp_mortar"].attrs["durability"] = 2
    _put(g, "tp_cyber", "tp_cyber.1", P0)
    _put(g, "pl_assault", "pl_assault.2", offset(P0, 180.0, 5.0))
    fix = Repair("tp_cyber", "tp_cyber.1", "tp_mortar")
    _refused(g, fix, r"§9\.3: enemy pl_assault\.2 touches tp_cyber\.1")
    g = _game(
        {"tp_mortar": ("mortar", "stage_guard", _north(TOUCH))},
        tp_cyber="tp_velian_militia",  # no Рм
    )
    g.state.units["tp_mortar"].attrs["durability"] = 2
    _put(g, "tp_cyber", "tp_cyber.1", P0)
    _refused(g, fix, r"§9\.3: tp_cyber\.1 has no Рм")


def test_a_pilot_with_rm_repairs_his_machine_which_skips_its_turn() -> None:
    g = _game({})
    g.state.units["tp_bronekhod"].attrs["durability"] = 5
    fix = Repair("tp_bronekhod", "tp_bronekhod.m", "tp_bronekhod")
    assert fix in g.legal_actions()  # its pilot tp_cyber.6 has Рм
    g.apply(fix)
    bk = g.state.units["tp_bronekhod"]
    assert bk.attrs["durability"] == 6 and bk.attrs["acted"]
    assert list(g.log["kind"].iloc[-2:]) == ["repair", "squad done"]


# -- the scenario, the views and the AI ------------------------------------- #
def _erpel() -> Game:
    return Game.from_scenario(
        tomllib.loads(
            (SCENARIOS / "bronepehota_erpel_outpost.toml").read_text(encoding="utf-8")
        ),
        seed=1,
    )


def test_the_erpel_mortar_starts_manned_by_its_crew() -> None:
    g = _erpel()
    gun = g.ruleset.gun_fig(g.state, "pl_mortar")
    assert gun is not None and gun.gun.mobile and gun.unit.side == "polaris"
    assert g.ruleset.crew_of(g.state, gun) == ["pl_regime.1"]
    marks = g.ruleset.model_marks(g.state, g.state.units["pl_mortar"])
    assert marks == {}  # manned: not out of action
    look = g.ruleset.unit_look(g.state, g.state.units["pl_mortar"])
    assert look.words == ("manned by pl_regime.1",)
    assert look.type_name == "Миномет (mobile gun)"
    assert look.markers == ("durability 4", "ammo 12")
    words = g.ruleset.describe(
        g.state, Shoot("pl_regime", "pl_regime.1", "x", "x.1", "gun:pl_mortar")
    )
    assert words == "pl_regime.1 fires the Миномет pl_mortar at x.1"
    words = g.ruleset.describe(g.state, Capture("tp_cyber", "tp_cyber.1", "pl_mortar"))
    assert words == "tp_cyber.1 captures the Миномет pl_mortar"
    cols = g.ruleset.unit_columns(g.state)
    assert cols["crew"]["pl_mortar"] == "pl_regime.1"
    assert cols["crew"]["pl_regime"] is None
    # a gun is not a unit: never offered to act, never holds an objective
    assert "pl_mortar" not in {u.id for u in g.ruleset._ready(g.state, "polaris")}


@pytest.mark.parametrize("policy", [GreedyPolicy, DoctrinePolicy])
def test_the_ai_crew_fires_its_mortar_at_an_enemy_in_range(policy: type) -> None:
    g = _erpel()
    _to_act(g, "polaris")
    gp = _gun_at(g, "pl_mortar")
    crew = g.ruleset.fig(g.state, "pl_regime", "pl_regime.1")
    face = crew.model.facing
    _put(g, "tp_cyber", "tp_cyber.1", offset(gp, face, 20.0), facing=face + 180.0)
    g.state.vars["active"] = "pl_regime"  # the squad is acting (§3.2)
    chosen = []
    for _ in range(3):  # he may move the mortar first, then fire it (§3.2)
        d = Decision(
            "polaris",
            g.legal_actions(),
            len(g.actions),
            7,
            view=lambda: g.state,
            rules=g.ruleset,
        )
        a = policy().choose(d)
        chosen.append(a)
        g.apply(a)
        if isinstance(a, Shoot):
            break
    assert chosen[-1] == Shoot(
        "pl_regime", "pl_regime.1", "tp_cyber", "tp_cyber.1", "gun:pl_mortar"
    )
    assert (
        g.log[g.log["kind"] == "aim"]
        .iloc[-1]["detail"]
        .startswith("gun:pl_mortar Д6+2/3Д20")
    )


def test_doctrine_keeps_the_crew_at_its_gun() -> None:
    g = _erpel()
    _to_act(g, "polaris")
    crew = g.ruleset.fig(g.state, "pl_regime", "pl_regime.1")
    away = Move("pl_regime", "pl_regime.1", offset(crew.model.position, 240.0, 20.0))
    leaving = DoctrinePolicy().score(g.ruleset, g.state, away, "polaris")
    g.state.units["pl_mortar"].models = ()  # no gun: the same move
    free = DoctrinePolicy().score(g.ruleset, g.state, away, "polaris")
    assert leaving == pytest.approx(free - CREW_BONUS)


def test_bad_crews_are_refused_naming_the_field() -> None:
    d = tomllib.loads(
        (SCENARIOS / "bronepehota_erpel_outpost.toml").read_text(encoding="utf-8")
    )
    gun = next(u for u in d["units"] if u["id"] == "pl_mortar")
    gun["type"] = "twin_gun"  # rank 2: a regime clone (rank 1) cannot fire it
    with pytest.raises(ScenarioError, match=r"pl_mortar.*crew.*rank 1, below"):
        Game.from_scenario(d, seed=0)
    gun["type"], gun["crew"] = "mortar", ["tp_cyber.1"]
    with pytest.raises(ScenarioError, match=r"crew.*'tp_cyber\.1' is not on its side"):
        Game.from_scenario(d, seed=0)
    gun["crew"] = ["pl_regime.9"]
    with pytest.raises(ScenarioError, match=r"crew.*<squad id>\.<1-6>"):
        Game.from_scenario(d, seed=0)


@pytest.mark.parametrize("seed", [0, 1])
def test_random_play_with_guns_runs_clean(seed: int) -> None:
    # every offered action is legal (Game.apply checks it) in a game with guns
    g = _game(
        {
            "tp_mortar": ("mortar", "stage_guard", _north(TOUCH)),
            "pl_twin": ("twin_gun", "landing", offset(P0, 90.0, 30.0)),
        }
    )
    _put(g, "tp_cyber", "tp_cyber.1", P0)
    g.state.units["tp_mortar"].attrs["durability"] = 2
    pol = RandomPolicy(seed)
    for k in range(200):
        legal = g.legal_actions()
        if not legal:
            break
        gear = [a for a in legal if isinstance(a, MoveGun | Capture | Repair)]
        a = gear[0] if gear and k % 2 else pol.choose(Decision("x", legal, k, seed))
        g.apply(a)
    kinds = set(g.log["kind"])
    assert {"move gun", "repair"} & kinds


def test_bronepehota_passes_check_ruleset_on_the_erpel_outpost_with_its_mortar() -> (
    None
):
    from wargame.testing import check_ruleset

    d = tomllib.loads(
        (SCENARIOS / "bronepehota_erpel_outpost.toml").read_text(encoding="utf-8")
    )
    d["turns"] = 3
    report = check_ruleset(
        "bronepehota-2008",
        d,
        seeds=range(2),
        repeat=1,
        sampled=lambda a: isinstance(a, Move | MoveGun),
        complete_legal_actions=False,
    )
    assert report.games == 2 and report.actions_checked > 20
