"""Engine building blocks: actions, events, state, registry, scenarios, policies,
and a toy rule system showing the protocol fits point positions, decks and pools.
"""

from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from toy_ruleset import TOY_SCENARIO, Done, Play, Shoot, Step

import wargame
from wargame.engine import (
    LOG_COLUMNS,
    Action,
    ActionFormatError,
    Decision,
    Event,
    Game,
    GameState,
    IllegalActionError,
    Point,
    RandomPolicy,
    ScenarioError,
    Unit,
    UnknownRulesetError,
    action_from_dict,
    available_rulesets,
    events_frame,
    get_ruleset,
    load_scenario,
    register_ruleset,
    unit_change,
)
from wargame.rules.waw.actions import ACTION_TYPES, Fire, Move

ENGINE = Path(wargame.__file__).parent / "engine"


# --------------------------------------------------------------------------- #
# actions                                                                     #
# --------------------------------------------------------------------------- #


@pytest.mark.parametrize(
    "action",
    [Move("A1", "K12"), Move("A1", "K12", True), Fire("A1", "B1", "he", True)],
)
def test_actions_round_trip_through_dicts_and_json(action: Action) -> None:
    data = json.loads(json.dumps(action.to_dict()))
    assert action_from_dict(data, ACTION_TYPES) == action
    assert hash(action) == hash(action_from_dict(data, ACTION_TYPES))


def test_tuple_fields_round_trip_as_lists() -> None:
    @dataclass(frozen=True)
    class Path_(Action):
        type = "path"
        unit: str
        hexes: tuple[str, ...] = ()

    a = Path_("u", ("A1", "A2"))
    assert a.to_dict() == {"type": "path", "unit": "u", "hexes": ["A1", "A2"]}
    assert action_from_dict(a.to_dict(), {"path": Path_}) == a


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"type": "fly"}, "unknown action type 'fly'"),
        ({"type": "move", "unit": "A1"}, "move: missing field 'to'"),
        ({"type": "move", "unit": "A1", "to": "K1", "x": 1}, "unknown field(s) x"),
        ({"type": "move", "unit": 3, "to": "K1"}, "field 'unit' must be str"),
        ({"type": "move", "unit": "A", "to": {"a": 1}}, "has a bad value"),
        ("move", "an action must be a mapping"),
    ],
)
def test_bad_action_dicts_say_what_is_wrong(data: object, message: str) -> None:
    with pytest.raises(ActionFormatError, match=re.escape(message)):
        action_from_dict(data, ACTION_TYPES)  # type: ignore[arg-type]


# --------------------------------------------------------------------------- #
# state and events                                                            #
# --------------------------------------------------------------------------- #


def test_state_changes_only_through_change_tuples_and_copies_are_independent() -> None:
    st = GameState(ruleset="x")
    st.units["u"] = Unit("u", "U", "a", None, "t", "A1")
    st.apply(unit_change("u", position="A2", mp=1.5))
    st.apply([("var", "phase_flag", None, (1, 2)), ("pool", "ap", None, 3)])
    st.apply([("deck", "cup", None, ["x", "y"]), ("control", "A2", None, "a")])
    copy = st.copy()
    copy.apply(unit_change("u", position="A3", mp=None))
    assert st.units["u"].position == "A2" and st.units["u"].attrs == {"mp": 1.5}
    assert copy.units["u"].attrs == {}
    assert st.decks["cup"] == ("x", "y") and st.pools["ap"] == 3
    assert st.digest() != copy.digest()
    with pytest.raises(ValueError, match="unknown change scope"):
        st.apply([("galaxy", None, None, 1)])


def test_log_frame_has_stable_columns_and_dtypes() -> None:
    events = [
        Event(1, 1, "setup", kind="turn"),
        Event(
            2,
            1,
            "action",
            "nato",
            "A",
            "A1",
            "fire",
            "fire",
            "B1",
            "N17",
            "K17",
            (6, 2),
            4,
            1,
            "1 hit",
            "M60 fires",
        ),
    ]
    df = events_frame(events)
    assert tuple(df.columns) == LOG_COLUMNS
    assert str(df["side"].dtype) == "string" and df.loc[1, "side"] == "nato"
    assert str(df["needed"].dtype) == "Int64" and pd.isna(df.loc[0, "needed"])
    assert str(df["x_to"].dtype) == "Float64"
    # one missing-value convention: pd.NA in every column of a row with nothing
    for col in ("side", "unit", "target", "hex_to", "x_to", "dice", "needed"):
        assert df.loc[0, col] is pd.NA, col
    assert df.loc[1, "dice"] == (6, 2)
    empty = events_frame([])
    assert tuple(empty.columns) == LOG_COLUMNS and len(empty) == 0


# --------------------------------------------------------------------------- #
# registry and layering                                                       #
# --------------------------------------------------------------------------- #


def test_rulesets_are_registered_with_their_edition() -> None:
    assert "waw-classic" in available_rulesets()
    assert get_ruleset("waw-classic").id == "waw-classic"
    with pytest.raises(UnknownRulesetError, match="unknown ruleset 'waw'"):
        get_ruleset("waw")
    with pytest.raises(ValueError, match="must name the edition"):
        register_ruleset("coh", "x:y")


def test_the_engine_never_imports_a_rule_system() -> None:
    # DESIGN: engine knows no particular rule system (imports point down only).
    # The one exception is Game.view(), which imports wargame.ui inside the
    # method (python-chess's Board._repr_svg_ pattern): never at import time.
    for path in ENGINE.glob("*.py"):
        tree = ast.parse(path.read_text())
        lazy = {
            id(n)
            for f in ast.walk(tree)
            if isinstance(f, ast.FunctionDef) and f.name == "view"
            for n in ast.walk(f)
        }
        for node in ast.walk(tree):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [node.module or ""]
            for name in names:
                assert not name.startswith("wargame.rules"), (
                    f"{path.name} imports {name}"
                )
                assert not name.startswith("wargame.ui") or id(node) in lazy, (
                    f"{path.name} imports {name} outside Game.view()"
                )


# --------------------------------------------------------------------------- #
# scenarios                                                                   #
# --------------------------------------------------------------------------- #


def test_scenarios_load_by_name_path_or_dict() -> None:
    by_name = load_scenario("test_remagen")
    by_path = load_scenario(Path(by_name.source))
    assert by_name.data == by_path.data and by_name.ruleset == "waw-classic"
    assert load_scenario(dict(by_name.data)).source == "<dict>"


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"ruleset": None}, r"<dict>: ruleset: missing"),
        ({"turns": 0}, r"<dict>: turns: must be a whole number >= 1, not 0"),
        ({"sides": None}, r"<dict>: sides: missing; add at least one \[\[sides\]\]"),
        (
            {"formations": [{"id": "F", "side": "reds"}]},
            r"formations\[0\] \('F'\).side: 'reds' is not one of the sides",
        ),
        (
            {"units": [{"id": "u", "formation": "Z"}]},
            r"units\[0\] \('u'\).formation: 'Z' is not one of the formations",
        ),
        ({"units": [{"id": "u"}, {"id": "u"}]}, r"units\[1\]: duplicate id 'u'"),
    ],
)
def test_bad_scenarios_name_the_field(change: dict, message: str) -> None:
    data = {**load_scenario("test_remagen").data, **change}
    data = {k: v for k, v in data.items() if v is not None}
    with pytest.raises(ScenarioError, match=message):
        load_scenario(data)


def test_rule_specific_scenario_errors_name_the_unit_and_field() -> None:
    data = json.loads(json.dumps(load_scenario("test_remagen").data))
    data["units"][1]["type"] = "tiger"
    with pytest.raises(ScenarioError, match=r"units\[1\] \('US-M1'\).type: unknown"):
        Game.from_scenario(data)
    data = json.loads(json.dumps(load_scenario("test_remagen").data))
    data["units"][2]["hex"] = "N17"  # third unit in N17 (the HQ does not count)
    Game.from_scenario(data)
    data["units"][3]["hex"] = "N17"
    with pytest.raises(ScenarioError, match="stack at N17 holds 3 nato units"):
        Game.from_scenario(data)


def test_missing_or_broken_scenario_files(tmp_path: Path) -> None:
    with pytest.raises(ScenarioError, match="no such scenario file"):
        load_scenario(tmp_path / "nope.toml")
    bad = tmp_path / "bad.toml"
    bad.write_text("turns = [\n")
    with pytest.raises(ScenarioError, match=f"{bad}: not a valid scenario file"):
        load_scenario(bad)


# --------------------------------------------------------------------------- #
# policies                                                                    #
# --------------------------------------------------------------------------- #


def test_random_policy_is_uniform_and_reproducible_from_the_game_seed() -> None:
    acts = list("abcdef")
    picks = [
        RandomPolicy().choose(Decision("x", acts, number=i, seed=7))
        for i in range(6000)
    ]
    again = [
        RandomPolicy().choose(Decision("x", acts, number=i, seed=7))
        for i in range(6000)
    ]
    assert picks == again
    counts = pd.Series(picks).value_counts()
    assert set(counts.index) == set(acts)
    assert (abs(counts - 1000) < 4 * np.sqrt(1000 * 5 / 6)).all()
    other = [
        RandomPolicy().choose(Decision("x", acts, number=i, seed=8)) for i in range(50)
    ]
    assert other != picks[:50]
    own = RandomPolicy(seed=8)
    assert [
        own.choose(Decision("x", acts, number=i, seed=7)) for i in range(50)
    ] == other


# --------------------------------------------------------------------------- #
# a toy rule system: points, facing, hidden units, models, decks, pools        #
# --------------------------------------------------------------------------- #


def test_a_point_based_card_driven_toy_system_runs_on_the_same_engine(
    tmp_path: Path,
) -> None:
    g = Game.from_scenario(TOY_SCENARIO, seed=3)
    assert g.map is None and g.current_side == "red"
    # hidden units: blue's squad is not in red's view
    assert "b1" not in g.state_for("red").units and "b1" in g.state_for("blue").units
    # secret hands: red sees how many cards blue holds, not which
    assert g.state_for("red").decks["hand:blue"] == ("?", "?")
    assert g.state_for("blue").decks["hand:blue"] == ("blue-plus1", "blue-plus2")
    g.apply(Play("red-plus2"))
    assert g.state.pools["ap-red"] == 3 and g.state.decks["hand:red"] == ("red-plus1",)
    assert "red-plus2" not in g.log_for("blue")["target"].dropna().tolist()
    assert "red-plus2" in g.log_for("red")["target"].dropna().tolist()
    g.apply(Step("r1", 10.0, 0.0))
    assert g.state.units["r1"].position == Point(10.0, 0.0)
    assert g.state.units["r1"].facing == 0
    # a unit red cannot see: refused as if it did not exist, and never offered
    with pytest.raises(IllegalActionError) as hidden:
        g.apply(Shoot("r1", "b1"))
    with pytest.raises(IllegalActionError) as missing:
        g.apply(Shoot("r1", "zz"))
    assert str(hidden.value) == str(missing.value).replace("zz", "b1")
    assert not [a for a in g.legal_actions() if getattr(a, "target", None) == "b1"]
    g.apply(Done())
    assert g.current_side == "blue"
    g.apply(Play("blue-plus1"))
    g.apply(Step("b1", -10.0, 0.0))  # blue's hidden squad steps: red sees nothing
    assert "b1" not in g.log_for("red")["unit"].dropna().tolist()
    assert g.log_for("blue")["unit"].eq("b1").sum() == 1
    events = g.apply(Shoot("b1", "r1"))  # shooting reveals it
    revealed, roll, shot = events
    assert revealed.kind == "revealed" and revealed.visible_to is None
    assert roll.kind == "shoot" and len(roll.dice) == 3 and roll.needed == 5
    assert roll.hits == shot.hits == sum(f >= 5 for f in roll.dice)
    assert len(g.state.units["r1"].models) == 5 - shot.hits
    assert "b1" in g.state_for("red").units
    g.apply(Done())
    units = g.units
    assert units.loc["r1", "x"] == 10.0 and units.loc["r1", "hex"] is pd.NA
    g.run()
    assert g.outcome is not None and g.outcome.turn == 3
    path = g.save(tmp_path / "toy.json")
    assert Game.load(path).log.equals(g.log)
