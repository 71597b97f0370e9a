"""bronepehota-2008 optional rules (``[rules] options``): validated on load;
each absent when off and in play when on; the rulebook's worked examples
(research/bronepehota.md §7: 6, 11, 13, 14, 20, 21) with scripted dice; and
the AI players throwing grenades and firing aimed when it is worth it."""

from __future__ import annotations

import tomllib
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from wargame.engine import Game, IllegalActionError, Point, ScenarioError
from wargame.engine.policy import Decision
from wargame.rules.bronepehota.ai import DoctrinePolicy, GreedyPolicy
from wargame.rules.bronepehota.optional import AimedShot, Jump, Throw
from wargame.rules.bronepehota.options import OPTIONS
from wargame.rules.bronepehota.ruleset import EndSquad, Move, Shoot

SCENARIO = Path(__file__).parents[2] / "scenarios" / "bronepehota_linz_bank.toml"
RAPTOR_AT = Point(378085.0, 5602830.0)
BRONEKHOD_AT = Point(378085.0, 5602870.0)
STEP = 10.0  # the scenario's step_m


def _data(options: list[str] | None, **types: str) -> dict[str, Any]:
    d = tomllib.loads(SCENARIO.read_text(encoding="utf-8"))
    if options is not None:
        d["rules"]["options"] = options
    units = {u["id"]: u for u in d["units"]}
    units["pl_raptor"].update(x=RAPTOR_AT.x, y=RAPTOR_AT.y, facing=0)
    units["tp_bronekhod"].update(x=BRONEKHOD_AT.x, y=BRONEKHOD_AT.y, facing=180)
    for uid, t in types.items():
        units[uid]["type"] = t
    return d


def _game(
    options: list[str] | None,
    side: str = "polaris",
    machines: bool = False,
    **types: str,
) -> Game:
    """RAPTOR 4 steps south of BRONEKHOD facing it (as in the crew tests),
    ``side`` to act, the scenario playing ``options``; every soldier (and with
    ``machines`` the machines too) parked in a row by the southern edge, out
    of the way, for the test to stand the ones it needs."""
    g = Game.from_scenario(_data(options, **types), seed=7)
    while g.state.vars["side"] != side:
        g.apply(next(a for a in g.legal_actions() if isinstance(a, EndSquad)))
    k = 0
    for uid in ("pl_assault", "tp_cyber"):
        for m in g.state.units[uid].models:
            _put(g, uid, m.id, Point(378120.0 + 14.0 * k, 5602680.0), 0.0)
            k += 1
    if machines:
        _put(g, "pl_raptor", "pl_raptor.m", Point(378200.0, 5603020.0))
        _put(g, "tp_bronekhod", "tp_bronekhod.m", Point(378250.0, 5603020.0))
    return g


class Scripted:
    """Stands in for the game's generator: the faces to roll, in order."""

    def __init__(self, *faces: tuple[int, int]) -> None:
        self.faces = list(faces)

    def random(self, n: int) -> np.ndarray:
        out = [(f - 0.5) / s for f, s in self.faces[:n]]
        assert len(out) == n, "the test scripted too few dice"
        del self.faces[:n]
        return np.array(out)


def _dice(g: Game, *faces: tuple[int, int]) -> Scripted:
    rng = Scripted(*faces)
    g.rng = rng  # type: ignore[assignment]
    return rng


def _put(g: Game, uid: str, mid: str, at: Point, facing: float = 0.0) -> None:
    """Stand figure ``mid`` at ``at`` by hand (a state the rules allow)."""
    u = g.state.units[uid]
    u.models = tuple(
        replace(m, position=at, facing=facing) if m.id == mid else m for m in u.models
    )


def _ids(g: Game, uid: str) -> set[str]:
    return {m.id for m in g.state.units[uid].models}


def _refused(g: Game, action: Any, match: str) -> None:
    before, n = g.state.digest(), len(g.log)
    with pytest.raises(IllegalActionError, match=match):
        g.apply(action)
    assert g.state.digest() == before and len(g.log) == n


def _north(p: Point, steps: float, east: float = 0.0) -> Point:
    return Point(p.x + east * STEP, p.y + steps * STEP)


# -- validation ------------------------------------------------------------- #
def test_an_unknown_option_is_a_scenario_error_naming_file_field_and_options(
    tmp_path: Path,
) -> None:
    text = SCENARIO.read_text(encoding="utf-8").replace(
        "step_m = 10.0", 'step_m = 10.0\noptions = ["grenades", "nukes"]'
    )
    path = tmp_path / "bad_options.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ScenarioError) as exc:
        Game.from_scenario(path)
    msg = str(exc.value)
    assert "bad_options.toml" in msg and "rules.options[1]" in msg
    assert "'nukes' is not an option" in msg
    assert all(name in msg for name in OPTIONS)


@pytest.mark.parametrize(
    ("rules", "match"),
    [
        ({"options": "grenades"}, "must be a list"),
        ({"options": ["panic", "panic"]}, "given twice"),
        ({"options": ["panic"], "limited_ammo": False}, "not both"),
        ({"limited_ammo": "yes"}, "true/false"),
    ],
)
def test_bad_option_lists_are_scenario_errors(
    rules: dict[str, Any], match: str
) -> None:
    d = _data(None)
    d["rules"].update(rules)
    with pytest.raises(ScenarioError, match=match):
        Game.from_scenario(d)


def test_without_an_option_list_only_limited_ammo_is_played_as_before() -> None:
    assert _game(None).ruleset.options == frozenset({"limited_ammo"})
    d = _data(None)
    d["rules"]["limited_ammo"] = False
    assert Game.from_scenario(d).ruleset.options == frozenset()
    assert _game(["grenades"]).ruleset.options == frozenset({"grenades"})


# -- §7.8 grenades (example 14) --------------------------------------------- #
THROWER_AT = Point(378070.0, 5602800.0)


def _grenade_game(options: list[str]) -> Game:
    g = _game(options, machines=True)
    _put(g, "pl_assault", "pl_assault.2", THROWER_AT, 0.0)
    _put(g, "tp_cyber", "tp_cyber.1", _north(THROWER_AT, 5.0), 180.0)
    _put(g, "tp_cyber", "tp_cyber.2", _north(THROWER_AT, 4.0, east=2.5), 180.0)
    return g


def test_grenades_are_offered_only_when_the_option_is_on() -> None:
    throw = Throw("pl_assault", "pl_assault.2", "tp_cyber", "tp_cyber.1")
    off = _grenade_game([])
    assert not [a for a in off.legal_actions() if isinstance(a, Throw)]
    _refused(off, throw, "optional rule")
    on = _grenade_game(["grenades"])
    assert throw in on.legal_actions()


def test_example_14_a_grenade_bursts_d6_steps_toward_the_target() -> None:
    g = _grenade_game(["grenades"])
    rng = _dice(g, (4, 6), (20, 20))  # Д6 = 4: the burst 4 steps out; 1Д20 = 20
    g.apply(Throw("pl_assault", "pl_assault.2", "tp_cyber", "tp_cyber.1"))
    assert not rng.faces
    blast = g.log[g.log["kind"] == "blast"].iloc[-1]
    assert blast["hits"] == 1  # the target, 1 step from the burst; no one else
    assert "tp_cyber.1" not in _ids(g, "tp_cyber")  # 20 > Бр 4
    assert "tp_cyber.2" in _ids(g, "tp_cyber")  # 2.5 steps off the burst
    assert "pl_assault.2" in _ids(g, "pl_assault")
    _refused(g, Shoot("pl_assault", "pl_assault.2", "tp_cyber", "tp_cyber.2"), "once")


def test_example_14_a_grenade_rolling_1_catches_the_thrower() -> None:
    g = _grenade_game(["grenades"])
    _dice(g, (1, 6), (20, 20))
    g.apply(Throw("pl_assault", "pl_assault.2", "tp_cyber", "tp_cyber.1"))
    assert "pl_assault.2" not in _ids(g, "pl_assault")  # his own burst, 20 > Бр 3
    assert "tp_cyber.1" in _ids(g, "tp_cyber")


def test_a_squads_last_soldier_killed_by_his_own_grenade_ends_its_turn() -> None:
    g = _grenade_game(["grenades"])
    u = g.state.units["pl_assault"]
    u.models = tuple(m for m in u.models if m.id == "pl_assault.2")
    _dice(g, (1, 6), (20, 20))
    g.apply(Throw("pl_assault", "pl_assault.2", "tp_cyber", "tp_cyber.1"))
    assert g.state.units["pl_assault"].destroyed
    assert g.state.vars.get("active") is None
    assert all(a.unit != "pl_assault" for a in g.legal_actions())


# -- §7.4 IV blasts (example 11) -------------------------------------------- #
ROCKET = "тяжелая ракета#1"


def _blast_game(options: list[str]) -> Game:
    g = _game(options, pl_raptor="werewolf")  # its heavy rocket: 2 steps, 1Д20
    _put(g, "tp_cyber", "tp_cyber.1", _north(BRONEKHOD_AT, 0.0, east=1.5), 180.0)
    _put(g, "tp_cyber", "tp_cyber.2", _north(BRONEKHOD_AT, 0.0, east=3.5), 180.0)
    return g


def test_example_11_a_heavy_rocket_hit_blasts_everything_within_2_steps() -> None:
    g = _blast_game(["blasts"])
    # range Д12 = 12 hits at 4 steps; 4Д20 all 1s on the BRONEKHOD; the blast's
    # 1Д20 = 20 on the soldier 1.5 steps from it (not on the one 3.5 steps off)
    rng = _dice(g, (12, 12), (1, 20), (1, 20), (1, 20), (1, 20), (20, 20))
    g.apply(Shoot("pl_raptor", "pl_raptor.m", "tp_bronekhod", "tp_bronekhod.m", ROCKET))
    assert not rng.faces
    assert "tp_cyber.1" not in _ids(g, "tp_cyber")
    assert "tp_cyber.2" in _ids(g, "tp_cyber")
    blast = g.log[g.log["kind"] == "blast"].iloc[-1]
    assert blast["hits"] == 1  # not the target (its own dice), not the WEREWOLF


def test_without_the_blasts_option_a_heavy_rocket_hits_only_its_target() -> None:
    g = _blast_game([])
    rng = _dice(g, (12, 12), (1, 20), (1, 20), (1, 20), (1, 20), (20, 20))
    g.apply(Shoot("pl_raptor", "pl_raptor.m", "tp_bronekhod", "tp_bronekhod.m", ROCKET))
    assert rng.faces == [(20, 20)]  # no blast die rolled
    assert "blast" not in set(g.log["kind"])
    assert "tp_cyber.1" in _ids(g, "tp_cyber")


# -- §7.7 limited ammunition (example 13) ----------------------------------- #
@pytest.mark.parametrize(("options", "left"), [(["limited_ammo"], 15), ([], 20)])
def test_example_13_gatling_then_twin_mg_cost_3_then_2_cells(
    options: list[str], left: int
) -> None:
    g = _game(options, pl_raptor="demolisher")
    _dice(g, (1, 12), (1, 12))  # both miss: the cells go before the shot
    for weapon, after in (("пушка гатлинга#1", 17), ("двуствольный пулемет#1", 15)):
        g.apply(
            Shoot("pl_raptor", "pl_raptor.m", "tp_bronekhod", "tp_bronekhod.m", weapon)
        )
        assert g.state.units["pl_raptor"].attrs["ammo"] == (after if options else 20)
    assert g.state.units["pl_raptor"].attrs["ammo"] == left


# -- §11.1 aimed fire (example 21) ------------------------------------------ #
SHOOTER_AT = Point(378070.0, 5602800.0)


def _aimed_game(options: list[str]) -> Game:
    g = _game(options, machines=True)
    _put(g, "pl_assault", "pl_assault.4", SHOOTER_AT, 0.0)  # Д6+1, Д6
    _put(g, "tp_cyber", "tp_cyber.1", _north(SHOOTER_AT, 11.5), 180.0)
    return g


def test_aimed_fire_is_offered_only_when_the_option_is_on() -> None:
    aimed = AimedShot("pl_assault", "pl_assault.4", "tp_cyber", "tp_cyber.1")
    off = _aimed_game([])
    assert not [a for a in off.legal_actions() if isinstance(a, AimedShot)]
    _refused(off, aimed, "optional rule")
    on = _aimed_game(["aimed_fire"])
    assert aimed in on.legal_actions()


def test_example_21_aimed_fire_doubles_d6_plus_1_rolled_5_to_12_steps() -> None:
    g = _aimed_game(["aimed_fire"])
    _dice(g, (5, 6), (1, 6))  # (5 + 1) x 2 = 12 >= 12 steps: a hit; power 1
    g.apply(AimedShot("pl_assault", "pl_assault.4", "tp_cyber", "tp_cyber.1"))
    shot = g.log[g.log["kind"] == "shot"].iloc[-1]
    assert "holds" in shot["result"]  # hit, the power die did not pierce
    # §11.1: declared aimed, he neither moves nor shoots again this turn
    _refused(g, Move("pl_assault", "pl_assault.4", _north(SHOOTER_AT, -1.0)), "once")


def test_the_same_roll_unaimed_falls_short() -> None:
    g = _aimed_game(["aimed_fire"])
    _dice(g, (5, 6))
    g.apply(Shoot("pl_assault", "pl_assault.4", "tp_cyber", "tp_cyber.1"))
    assert g.log[g.log["kind"] == "shot"].iloc[-1]["result"] == "miss (6 < 12)"


def test_aimed_fire_must_be_the_soldiers_first_act() -> None:
    g = _aimed_game(["aimed_fire"])
    g.apply(Move("pl_assault", "pl_assault.4", _north(SHOOTER_AT, 1.0), 0.0))
    _refused(
        g,
        AimedShot("pl_assault", "pl_assault.4", "tp_cyber", "tp_cyber.1"),
        "already acted",
    )


# -- §11.2 panic (example 6) ------------------------------------------------ #
LAUNCHER = "ракетная установка#1"


def _panic_shot(options: list[str], survival: int) -> Game:
    """The BRONEKHOD hits the RAPTOR for one damage; its pilot (Бр 3) rolls
    ``survival`` on his Д6 (§7.4 III)."""
    g = _game(options, side="protectorate")
    _dice(g, (1, 6), (20, 20), (1, 20), (survival, 6))  # Д6+3 = 4 >= 4: a hit
    g.apply(
        Shoot("tp_bronekhod", "tp_bronekhod.m", "pl_raptor", "pl_raptor.m", LAUNCHER)
    )
    return g


def test_example_6_survival_3_against_br_3_panics_with_the_option() -> None:
    g = _panic_shot(["panic"], 3)
    raptor = g.state.units["pl_raptor"]
    assert raptor.attrs.get("pilot") is None  # he got out: the machine frozen
    assert "pl_assault.1" in _ids(g, "pl_assault")
    man = next(m for m in g.state.units["pl_assault"].models if m.id == "pl_assault.1")
    assert isinstance(man.position, Point)
    # ran his Ск 5 toward the nearest (southern) edge of the table
    assert man.position.y < RAPTOR_AT.y - 3 * STEP
    assert "pl_assault.1" in g.state.vars["spent"]
    assert list(g.log["kind"]).count("panic") == 2


@pytest.mark.parametrize(
    ("options", "survival", "pilot"),
    [([], 3, True), (["panic"], 2, True), (["panic"], 4, False), ([], 4, False)],
)
def test_example_6_without_panic_or_off_br_the_test_is_plain(
    options: list[str], survival: int, pilot: bool
) -> None:
    g = _panic_shot(options, survival)
    assert bool(g.state.units["pl_raptor"].attrs.get("pilot")) is pilot
    assert "panic" not in set(g.log["kind"])


def test_a_panicking_soldier_near_the_edge_deserts() -> None:
    g = _game(["panic"], side="protectorate")
    r = g.ruleset
    xmin = r.map.bounds[0]
    _put(g, "pl_assault", "pl_assault.2", Point(xmin + 30.0, 5602830.0), 90.0)
    r._flee(_ctx(g), "pl_assault", "pl_assault.2")
    assert "pl_assault.2" not in _ids(g, "pl_assault")
    assert "deserter" in g.log.iloc[-1]["result"]


def _ctx(g: Game) -> Any:
    return g._context(None, len(g.actions))


# -- §9.4 jump packs (example 20) ------------------------------------------- #
TAKE_OFF = Point(378070.0, 5602800.0)
LOW = (4.0 * STEP / 2**0.5, 4.0 * STEP / 2**0.5)  # 4 steps north-east, in metres


def _jump_game(options: list[str], monkeypatch: pytest.MonkeyPatch) -> Game:
    g = _game(options, machines=True, pl_assault="pl_heavy_assault_landing")  # Пр5
    _put(g, "pl_assault", "pl_assault.2", TAKE_OFF, 0.0)
    base = float(g.ruleset.map.elevation(TAKE_OFF.x, TAKE_OFF.y))

    def ground(x: float, y: float) -> float:
        dx, dy = x - TAKE_OFF.x, y - TAKE_OFF.y
        if 15.0 <= dx <= 25.0 and abs(dy) < 5.0:
            return base + 20.0  # a platform 2 steps up, 2 steps east
        if 35.0 <= dy <= 45.0 and abs(dx) < 5.0:
            return base + 20.0  # a platform 2 steps up, 4 steps north
        if abs(dx - LOW[0]) < 5.0 and abs(dy - LOW[1]) < 5.0:
            return base + 10.0  # a lower one, 1 step up, 4 steps north-east
        return base

    monkeypatch.setattr(g.ruleset.map, "elevation", ground)
    return g


def test_example_20_jump_pack_table_8(monkeypatch: pytest.MonkeyPatch) -> None:
    g = _jump_game(["jump_packs"], monkeypatch)
    r = g.ruleset
    f = r.fig(g.state, "pl_assault", "pl_assault.2")
    # 2 out + 2 up = 4 <= Пр5; 4 out + 2 up = 6 > 5; 4 out + 1 up = 5
    assert r.jump_problem(g.state, f, _north(TAKE_OFF, 0.0, east=2.0)) is None
    assert "Table 8" in str(r.jump_problem(g.state, f, _north(TAKE_OFF, 4.0)))
    low = Point(TAKE_OFF.x + LOW[0], TAKE_OFF.y + LOW[1])
    assert r.jump_problem(g.state, f, low) is None
    _refused(g, Jump("pl_assault", "pl_assault.2", _north(TAKE_OFF, 4.0)), "Table 8")
    to = _north(TAKE_OFF, 0.0, east=2.0)
    g.apply(Jump("pl_assault", "pl_assault.2", to, 90.0))
    man = next(m for m in g.state.units["pl_assault"].models if m.id == "pl_assault.2")
    assert man.position == to and man.facing == 90.0
    assert "jump" in g.log[g.log["kind"] == "move"].iloc[-1]["result"]
    # the jump was his move (§9.4: instead of walking)
    _refused(g, Move("pl_assault", "pl_assault.2", _north(to, 1.0)), "once")


def test_jumps_are_offered_only_when_the_option_is_on(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    off = _jump_game([], monkeypatch)
    assert not [a for a in off.legal_actions() if isinstance(a, Jump)]
    _refused(off, Jump("pl_assault", "pl_assault.2", _north(TAKE_OFF, 2.0)), "optional")
    on = _jump_game(["jump_packs"], monkeypatch)
    assert [a for a in on.legal_actions() if isinstance(a, Jump)]


# -- the AI ----------------------------------------------------------------- #
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
def test_the_ai_throws_a_grenade_into_a_cluster_it_cannot_shoot_well(
    policy: type,
) -> None:
    g = _grenade_game(["grenades"])
    # three enemies round the spot 4 steps out; the thrower's own shot is weak
    for k, east in ((3, 0.6), (4, -0.6)):
        _put(g, "tp_cyber", f"tp_cyber.{k}", _north(THROWER_AT, 4.0, east), 180.0)
    throw = Throw("pl_assault", "pl_assault.2", "tp_cyber", "tp_cyber.1")
    shot = Shoot("pl_assault", "pl_assault.2", "tp_cyber", "tp_cyber.1")
    p = policy()
    assert p.score(g.ruleset, g.state, throw, "polaris") > p.score(
        g.ruleset, g.state, shot, "polaris"
    )
    assert isinstance(p.choose(_decision(g)), Throw)


def test_the_ai_never_throws_a_grenade_into_its_own_men() -> None:
    g = _grenade_game(["grenades"])
    for k in (3, 4, 5, 6):
        _put(g, "pl_assault", f"pl_assault.{k}", _north(THROWER_AT, 4.0, 0.2 * k))
    throw = Throw("pl_assault", "pl_assault.2", "tp_cyber", "tp_cyber.1")
    assert DoctrinePolicy().score(g.ruleset, g.state, throw, "polaris") < 0


@pytest.mark.parametrize("policy", [GreedyPolicy, DoctrinePolicy])
def test_the_ai_fires_aimed_at_a_target_beyond_its_plain_range(policy: type) -> None:
    g = _aimed_game(["aimed_fire"])
    aimed = AimedShot("pl_assault", "pl_assault.4", "tp_cyber", "tp_cyber.1")
    plain = Shoot("pl_assault", "pl_assault.4", "tp_cyber", "tp_cyber.1")
    p = policy()
    assert p.score(g.ruleset, g.state, plain, "polaris") == 0.0  # 7 < 12 always
    assert p.score(g.ruleset, g.state, aimed, "polaris") > 0.0
