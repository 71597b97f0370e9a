"""fow-v3 air support (research/fow.md §1.1 item 5, §1.3 item 10, §6.1; every
number an ASSUMPTION, A1-A10 of docs/rules/fow-v3.md): the arrival die, the
strike after every platoon shot, top armour, saves, anti-aircraft fire, the
AI's choice of target and the errors."""

from __future__ import annotations

import sys
import tomllib
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from wargame.engine import Game, IllegalActionError, ScenarioError
from wargame.rules.fow.ai import GreedyPolicy
from wargame.rules.fow.air import ARRIVES_ON, AirStrike, p_arrives, strike_value
from wargame.rules.fow.doctrine import DoctrinePolicy
from wargame.rules.fow.ruleset import Move, Next, Shoot

sys.path.insert(0, str(Path(__file__).parent))
from fow_fight_helpers import FIELD, SCENARIO, platoon

X, Y = FIELD


def _data(
    units: list[dict[str, Any]], level: str | None = "priority"
) -> dict[str, Any]:
    d = tomllib.loads(SCENARIO.read_text(encoding="utf-8"))
    d["units"] = units
    d["turns"] = 3
    d["sides"][0].pop("air_support", None)
    if level is not None:
        d["sides"][0]["air_support"] = {
            "level": level,
            "aircraft": "us_p47_thunderbolt",
        }
    return d


def _us(dy: float = -90.0) -> dict[str, Any]:
    return platoon(
        "us_a", "tf_engeman", [("us_rifle_team", 2)], x=X, y=Y + dy, facing=0.0
    )


def _de(uid: str, team: str, n: int, dx: float, dy: float) -> dict[str, Any]:
    u = platoon(uid, "bratge", [(team, n)], x=X + dx, y=Y + dy, facing=180.0)
    u["spacing_m"] = 70.0
    return u


def _arrived(units: list[dict[str, Any]], level: str = "priority") -> Game:
    """The first seed whose US aircraft arrive on turn 1, in its Movement Step."""
    for seed in range(1, 60):
        g = Game.from_scenario(_data(units, level), seed=seed)
        if g.state.vars.get("air_arrived") == "us":
            return g
    raise AssertionError("the aircraft never came")


def _pending(units: list[dict[str, Any]]) -> Game:
    g = _arrived(units)
    g.apply(Next())  # to the Shooting Step
    g.apply(Next())  # every platoon has shot: item 10
    assert g.state.vars.get("air_pending") and g.state.phase == "shooting"
    return g


# German infantry in the open, well away (over 4") from the US platoon
INFANTRY = [_us(), _de("de_inf", "de_rifle_team", 3, -120.0, 90.0)]


@pytest.mark.parametrize(
    ("level", "score", "p"),
    [
        ("priority", 3, Fraction(2, 3)),
        ("limited", 4, Fraction(1, 2)),
        ("sporadic", 5, Fraction(1, 3)),
    ],
)
def test_arrival_is_one_die_a_starting_step_at_the_levels_score(
    level: str, score: int, p: Fraction
) -> None:
    assert ARRIVES_ON[level] == score and p_arrives(level) == p
    g = Game.from_scenario(_data(INFANTRY, level), seed=3)
    log = g.log
    (roll,) = log[(log["kind"] == "air_support") & log["dice"].notna()].itertuples()
    assert roll.needed == score and roll.side == "us" and len(roll.dice) == 1
    assert (g.state.vars.get("air_arrived") == "us") == (roll.dice[0] >= score)
    # item 5 comes after victory (item 3) and before reserves and rallying
    kinds = list(log["kind"])
    assert kinds.index("air_support") > kinds.index("turn")


def test_no_air_support_roll_without_an_air_support_table() -> None:
    g = Game.from_scenario(_data(INFANTRY, None), seed=1)
    assert not g.log["kind"].eq("air_support").any()


def test_the_strike_waits_until_every_platoon_has_shot() -> None:
    g = _arrived(INFANTRY)
    before = g.state.digest()
    with pytest.raises(IllegalActionError, match=r"de_inf.*§1.3 item 10"):
        g.apply(AirStrike("de_inf"))  # the Movement Step
    assert g.state.digest() == before
    g.apply(Next())
    assert not any(isinstance(a, AirStrike) for a in g.legal_actions())
    before = g.state.digest()
    with pytest.raises(IllegalActionError, match=r"de_inf.*§1.3 item 10"):
        g.apply(AirStrike("de_inf"))  # platoons may still shoot
    assert g.state.digest() == before
    g.apply(Next())  # item 9 done, item 10 waits for the owner's choice
    acts = g.legal_actions()
    assert acts == [AirStrike("de_inf"), Next()]
    assert g.current_side == "us" and g.describe(acts[0]) == (
        "P-47 Thunderbolt attacks de_inf"
    )
    g.apply(acts[0])
    assert "air_pending" not in g.state.vars and "air_arrived" not in g.state.vars
    assert g.state.phase == "assault"  # item 11 (platoon morale) then on


def test_next_at_item_10_lets_the_aircraft_go() -> None:
    g = _pending(INFANTRY)
    before = g.state.units["de_inf"]
    g.apply(Next())
    assert g.state.phase == "assault" and g.state.units["de_inf"] == before
    assert g.log.iloc[-1]["kind"] != "air_strike"


def test_a_side_without_aircraft_cannot_strike() -> None:
    g = _pending(INFANTRY)
    g.apply(Next())
    g.apply(Next())  # the German turn
    before = g.state.digest()
    with pytest.raises(
        IllegalActionError, match=r"no air strike on us_a: de has no air"
    ):
        g.apply(AirStrike("us_a"))
    assert g.state.digest() == before


def test_illegal_strikes_name_the_rule_and_the_platoon_state_unchanged() -> None:
    near = _de("de_near", "de_rifle_team", 2, 0.0, -10.0)  # within 4" of us_a
    g = _pending([*INFANTRY, near])
    before = g.state.digest()
    with pytest.raises(IllegalActionError, match=r"de_near: every team.*within 4\""):
        g.apply(AirStrike("de_near"))
    with pytest.raises(IllegalActionError, match="us_a is not an enemy platoon"):
        g.apply(AirStrike("us_a"))
    with pytest.raises(IllegalActionError, match="no platoon 'nobody'"):
        g.apply(AirStrike("nobody"))
    with pytest.raises(IllegalActionError, match="only the air strike"):
        g.apply(Shoot("us_a", "de_inf"))
    assert g.state.digest() == before
    assert AirStrike("de_near") not in g.legal_actions()


def _strike(units: list[dict[str, Any]], tid: str) -> tuple[Game, list[Any]]:
    """A strike on ``tid`` that hit at least once (the first such seed)."""
    for seed in range(1, 80):
        g = Game.from_scenario(_data(units), seed=seed)
        if g.state.vars.get("air_arrived") != "us":
            continue
        g.apply(Next())
        g.apply(Next())
        events = g.apply(AirStrike(tid))
        (done,) = [e for e in events if e.kind == "air_strike"]
        if done.hits:
            return g, events
    raise AssertionError("no strike hit")


def test_a_strike_on_tanks_meets_their_top_armour() -> None:
    tanks = [_us(), _de("de_pz", "de_panzer_iv_h", 2, 120.0, 90.0)]
    _, events = _strike(tanks, "de_pz")
    attacks = [e for e in events if e.kind == "air_attack"]
    assert [(e.needed, len(e.dice)) for e in attacks] == [(4, 2), (3, 4)]
    armour = [e for e in events if e.kind == "armour"]
    hits = sum(e.hits for e in attacks)
    assert 1 <= len(armour) <= hits  # one a hit, none on a destroyed team
    assert all(e.detail.startswith("top armour 1 against AT") for e in armour)


def test_strike_hits_on_infantry_go_through_their_saves() -> None:
    g, events = _strike(INFANTRY, "de_inf")
    (done,) = [e for e in events if e.kind == "air_strike"]
    saves = [e for e in events if e.kind == "save"]
    assert saves and all(e.needed == 3 for e in saves)  # infantry 3+ (§3.4)
    alive = len(g.state.units["de_inf"].models)
    failed = sum(e.dice[0] < 3 for e in saves)
    assert alive == max(3 - failed, 0)
    assert len(saves) <= done.hits  # a destroyed team takes no more hits


def test_anti_aircraft_fire_drives_the_aircraft_off_on_a_five() -> None:
    flak = _de("de_flak", "de_flak38", 1, 15.0, 90.0)  # within 16" of de_inf
    seen: set[bool] = set()
    for seed in range(1, 120):
        g = Game.from_scenario(_data([*INFANTRY, flak]), seed=seed)
        if g.state.vars.get("air_arrived") != "us":
            continue
        g.apply(Next())
        g.apply(Next())
        events = g.apply(AirStrike("de_inf"))
        (aa,) = [e for e in events if e.kind == "anti_aircraft"]
        assert aa.needed == 5 and aa.side == "de"
        off = aa.dice[0] >= 5
        assert off == (not any(e.kind == "air_attack" for e in events))
        seen.add(off)
        if seen == {True, False}:
            return
    raise AssertionError(f"only {seen} seen")


def test_the_ai_players_strike_the_target_with_the_best_expected_kills() -> None:
    units = [
        _us(),
        _de("de_inf", "de_rifle_team", 3, -120.0, 90.0),
        _de("de_pz", "de_panzer_iv_h", 2, 120.0, 90.0),
    ]
    g = _pending(units)
    rs, st = g.ruleset, g.state
    inf, pz = strike_value(rs, st, "de_inf"), strike_value(rs, st, "de_pz")
    # infantry in the open: 1 rocket hit and 8/3 MG hits, a failed 3+ save 1/3
    assert inf == pytest.approx((11 / 9, 11 / 3))
    assert inf[0] > pz[0]
    for pol in (GreedyPolicy(), DoctrinePolicy()):
        fork = Game.from_scenario(_data(units), seed=g.seed)
        fork.policies["us"] = pol
        fork.apply(Next())
        fork.apply(Next())
        assert fork.step() == AirStrike("de_inf")


def test_a_bad_air_support_level_is_a_scenario_error_naming_file_and_field(
    tmp_path: Path,
) -> None:
    text = SCENARIO.read_text(encoding="utf-8").replace(
        'posture = "attack"',
        'posture = "attack"\nair_support = { level = "daily", '
        'aircraft = "us_p47_thunderbolt" }',
        1,
    )
    p = tmp_path / "bad_air.toml"
    p.write_text(text, encoding="utf-8")
    with pytest.raises(ScenarioError) as exc:
        Game.from_scenario(p, seed=1)
    msg = str(exc.value)
    assert "bad_air.toml" in msg and "sides[0] ('us').air_support.level" in msg
    assert "'daily' is not one of priority, limited, sporadic" in msg
    p.write_text(text.replace('"daily"', '"limited"').replace("us_p47", "de_me109"))
    with pytest.raises(
        ScenarioError, match=r"air_support.aircraft: 'de_me109_thunderbolt'"
    ):
        Game.from_scenario(p, seed=1)


def test_five_strike_hits_pin_an_infantry_platoon_and_fewer_do_not() -> None:
    seen: set[bool] = set()
    for seed in range(1, 200):
        g = Game.from_scenario(_data(INFANTRY), seed=seed)
        if g.state.vars.get("air_arrived") != "us":
            continue
        g.apply(Next())
        g.apply(Next())
        events = g.apply(AirStrike("de_inf"))
        (done,) = [e for e in events if e.kind == "air_strike"]
        u = g.state.units["de_inf"]
        if u.destroyed:
            continue
        pinned = bool(u.attrs.get("pinned"))
        assert pinned == (done.hits >= 5)  # ASSUMPTION A9
        seen.add(pinned)
        if seen == {True, False}:
            return
    raise AssertionError(f"only {seen} seen")


def test_games_with_air_support_pass_the_conformance_harness() -> None:
    """Random play with priority aircraft keeps the protocol: legality,
    determinism, save/load, replay; the strike is chosen in some game."""
    from wargame.testing import check_ruleset

    units = [*INFANTRY, _de("de_pz", "de_panzer_iv_h", 2, 120.0, 90.0)]
    g = Game.from_scenario(_data(units), seed=1)
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
    for seed in (2, 3, 4):
        h = Game.from_scenario(g.scenario, seed=seed)
        h.run()
        kinds |= set(h.log["kind"])
    assert {"air_support", "air_strike"} <= kinds


def test_aircraft_profiles_are_checked_naming_file_aircraft_and_field(
    tmp_path: Path,
) -> None:
    from wargame.rules.fow.data import FowDataError, load_aircraft

    p47 = load_aircraft()["us_p47_thunderbolt"]
    assert p47.nation == "us" and len(p47.weapons) == 2
    assert all(w.sources["dice"].startswith("estimate: ") for w in p47.weapons)
    weapon = 'name = "MG"\ndice = 2\nto_hit = 7\nanti_tank = 5\nfirepower = 5\n'
    p = tmp_path / "air.toml"
    p.write_text(
        '[aircraft.x_plane]\nname = "X"\nnation = "us"\n'
        'source = "estimate: a test plane of no air force"\n'
        f"[[aircraft.x_plane.weapons]]\n{weapon}",
        encoding="utf-8",
    )
    with pytest.raises(
        FowDataError,
        match=r"air.toml: aircraft 'x_plane', field "
        r"'weapons\[0\].to_hit': 7 is out of range 2..6",
    ):
        load_aircraft(p)
    p.write_text(
        '[aircraft.x_plane]\nname = "X"\nnation = "us"\n'
        'source = "estimate: a test plane of no air force"\n'
        f"[[aircraft.x_plane.weapons]]\n{weapon.replace('7', '4')}"
        'source = "my memory"\n',
        encoding="utf-8",
    )
    with pytest.raises(
        FowDataError, match=r"'x_plane', field 'weapons\[0\].source'.*my memory"
    ):
        load_aircraft(p)
