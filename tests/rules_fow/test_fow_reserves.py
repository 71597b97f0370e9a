"""fow-v3 reserves (Starting Step item 6, research/fow.md §1.1; the details
are assumptions S1-S5, reserves.py)."""

from __future__ import annotations

import pytest
from fow_fight_helpers import FIELD, game, platoon

from wargame.engine import Point, ScenarioError
from wargame.rules.fow.ruleset import Next, Shoot
from wargame.testing import check_ruleset


def _units(**arrives: int) -> list[dict]:
    x, y = FIELD
    us = platoon(
        "us_a",
        "tf_engeman",
        [("us_rifle_team", 3)],
        command="us_command_rifle_team",
        x=x - 150,
        y=y,
        facing=90.0,
    )
    de = platoon("de_r", "bratge", [("de_rifle_team", 3)], x=x + 150, y=y, facing=270.0)
    de["reserve"] = True
    if arrives:
        de["arrives"] = arrives
    hold = platoon(
        "de_h", "bratge", [("de_rifle_team", 2)], x=x + 200, y=y - 80, facing=270.0
    )
    return [us, de, hold]


def _to_turn(g, turn: int, side: str) -> None:
    while not (g.state.turn == turn and g.current_side == side):
        g.apply(Next())


def test_a_reserve_is_off_the_table_until_its_die_brings_it_on() -> None:
    for seed in range(1, 40):
        g = game(_units(from_turn=2, on=4), seed=seed, turns=4)
        st = g.state
        assert st.units["de_r"].position is None  # off the table
        g.apply(Next())  # US Shooting Step: no shot at a platoon in reserve
        assert Shoot("us_a", "de_r") not in g.legal_actions()
        _to_turn(g, 2, "de")
        rolls = g.log[(g.log["kind"] == "reserves") & (g.log["unit"] == "de_r")]
        turn1 = g.log[(g.log["turn"] == 1) & (g.log["unit"] == "de_r")]
        assert not (turn1["kind"] == "reserves").any()  # not before from_turn
        roll = rolls[rolls["dice"].notna()]
        assert len(roll) == 1 and int(roll.iloc[0]["needed"]) == 4
        arrived = (rolls["result"] == "arrives").any()
        face = next(iter(roll.iloc[0]["dice"]))
        assert arrived == (face >= 4)
        if not arrived:
            assert g.state.units["de_r"].position is None
            continue
        p = g.state.units["de_r"].position
        assert isinstance(p, Point)
        assert abs(p.x - (FIELD[0] + 150)) < 1 and abs(p.y - FIELD[1]) < 1
        assert all(isinstance(m.position, Point) for m in g.state.units["de_r"].models)
        assert g.state.phase == "movement"  # then it moves as any platoon
        return
    raise AssertionError("no seed brought the reserve on")  # pragma: no cover


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"reserve": "yes"}, "reserve"),
        ({"reserve": None, "arrives": {"on": 4}}, "arrives"),
        ({"arrives": {"on": 7}}, "arrives.on"),
        ({"arrives": {"from_turn": 1}}, "arrives.from_turn"),
        ({"arrives": {"when": 3}}, "arrives.when"),
    ],
)
def test_bad_reserve_keys_are_named_with_file_unit_and_field(change, field) -> None:
    units = _units()
    units[1].update(change)
    units[1] = {k: v for k, v in units[1].items() if v is not None}
    with pytest.raises(ScenarioError, match=rf"units\[1\] \('de_r'\)\.{field}"):
        game(units)


def test_reserves_pass_the_conformance_harness() -> None:
    g = game(_units(from_turn=2, on=3), turns=3)
    report = check_ruleset(
        "fow-v3",
        g.scenario,
        seeds=(1, 2),
        repeat=1,
        sampled=lambda a: a.type in ("move", "double"),
        complete_legal_actions=False,
    )
    assert report.games == 2
