"""The scenario format: every kind of bad input names the file, the field and the
fix (exact messages), and what the format accepts is played (reinforcements,
support weapons, overrides, morale, ties)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from scenario_helpers import BASE, docs_example, write

from wargame.cli import main
from wargame.engine import (
    Game,
    ScenarioError,
    check_scenario,
    load_scenario,
)
from wargame.rules.waw import Activate, Defer, EndActivation, Fire, Move, Pass


def problems(path: Path) -> list[str]:
    return check_scenario(path)


# --------------------------------------------------------------------------- #
# bad input: one test per kind, exact messages                                #
# --------------------------------------------------------------------------- #


def test_malformed_toml_names_the_file_line_and_column(tmp_path: Path) -> None:
    path = write(tmp_path, "bad", BASE.replace("turns = 4", "turns = 4\nsides = [1,"))
    assert problems(path) == [
        f"{path}: not a valid scenario file: malformed TOML at line 6, column 2: "
        "Invalid value"
    ]


def test_unknown_keys_say_which_key_was_meant(tmp_path: Path) -> None:
    text = BASE.replace('hex = "N17"', 'hexx = "N17"').replace(
        "turns = 4", "turnz = 4\nturns = 4"
    )
    path = write(tmp_path, "keys", text)
    assert problems(path) == [
        f"{path}: turnz: unknown key; did you mean 'turns'?",
        f"{path}: units[0] ('A1').hexx: unknown key; did you mean 'hex'?",
    ]


def test_unknown_unit_types_are_reported_by_the_rule_system(tmp_path: Path) -> None:
    path = write(tmp_path, "type", BASE.replace('type = "m60"', 'type = "m6O"'))
    assert problems(path) == [
        f"{path}: units[0] ('A1').type: unknown WaW unit type 'm6O' (did you mean "
        "m60?); list them with `wargame odds waw --list`"
    ]


def test_a_disrupted_flag_must_be_true_or_false(tmp_path: Path) -> None:
    # World at War's key (its scenario_keys), checked by its set-up
    text = BASE.replace('hex = "N17"', 'hex = "N17"\ndisrupted = "yes"', 1)
    path = write(tmp_path, "disrupted", text)
    assert problems(path) == [
        f"{path}: units[0] ('A1').disrupted: must be true or false, not 'yes'"
    ]


def test_missing_required_fields_are_named(tmp_path: Path) -> None:
    path = write(
        tmp_path, "missing", BASE.replace('id = "t"\n', "").replace("turns = 4\n", "")
    )
    assert problems(path) == [
        f'{path}: id: missing; give the scenario an id, e.g. id = "remagen_linz"',
        f"{path}: turns: missing; e.g. turns = 8",
    ]
    # a rule-specific required field: the unit type
    path = write(tmp_path, "notype", BASE.replace('type = "t72"\n', ""))
    assert problems(path) == [
        f"{path}: units[1] ('B1').type: missing; a unit type such as \"t72\""
    ]


def test_hexes_and_lonlat_outside_the_map_are_refused(tmp_path: Path) -> None:
    text = BASE.replace('hex = "N17"', 'hex = "ZZ99"').replace(
        'hex = "H17"', "lonlat = [7.0, 50.5]"
    )
    path = write(tmp_path, "offmap", text)
    assert problems(path) == [
        f"{path}: units[0] ('A1').hex: 'ZZ99' is not a hex of the map window "
        "(columns A–AF, rows 1–21)",
        f"{path}: units[1] ('B1').lonlat: lon 7, lat 50.5 is outside the map window "
        "(lon 7.200–7.257, lat 50.565–50.593)",
    ]


def test_ground_units_cannot_start_in_the_rhine(tmp_path: Path) -> None:
    path = write(tmp_path, "rhine", BASE.replace('hex = "N17"', 'hex = "R9"'))
    assert problems(path) == [
        f"{path}: units[0] ('A1').hex: R9 is water (the Rhine or a river) with no "
        "bridge or ferry: ground units start on land"
    ]


def test_setup_stacks_over_the_limit_are_refused(tmp_path: Path) -> None:
    extra = "".join(
        f'[[units]]\nid = "{uid}"\ntype = "{t}"\nformation = "A"\nhex = "N17"\n'
        for uid, t in (("A2", "m60"), ("A3", "m113"))
    )
    path = write(tmp_path, "stack", BASE + extra)
    assert problems(path) == [
        f"{path}: units: stack at N17 holds 3 nato units (A1, A2, A3); the limit is "
        "2 (HQs and passengers aside): move one"
    ]


def test_objectives_off_the_map_are_refused(tmp_path: Path) -> None:
    extra = (
        '[[objectives]]\nname = "Far"\nhex = "ZZ1"\nvp = 2\n'
        '[[objectives]]\nname = "Bonn"\nplace = "Königswinter"\n'
    )
    path = write(tmp_path, "objectives", BASE + extra)
    assert problems(path) == [
        f"{path}: objectives[0] ('Far').hex: 'ZZ1' is not a hex of the map window "
        "(columns A–AF, rows 1–21)",
        f"{path}: objectives[1] ('Bonn').place: 'Königswinter' lies outside the map "
        "window",
    ]


def test_reinforcements_after_the_last_turn_are_refused(tmp_path: Path) -> None:
    extra = (
        '[[units]]\nid = "A9"\ntype = "m60"\nformation = "A"\n'
        '[[reinforcements]]\nturn = 6\nunits = ["A9"]\nentry = ["N17"]\n'
    )
    path = write(tmp_path, "late", BASE + extra)
    assert problems(path) == [
        f"{path}: reinforcements[0].turn: turn 6 is after the last turn (4); use 1–4"
    ]


def test_an_unknown_ruleset_id_is_refused(tmp_path: Path) -> None:
    path = write(tmp_path, "ruleset", BASE.replace('"waw-classic"', '"waw-clasic"'))
    [line] = problems(path)
    assert line.startswith(f"{path}: ruleset: unknown ruleset 'waw-clasic'; available:")
    assert line.endswith("(did you mean 'waw-classic'?)")


def test_load_scenario_raises_every_common_problem_at_once(tmp_path: Path) -> None:
    text = BASE.replace('id = "t"\n', "").replace('side = "pact"', 'side = "reds"')
    with pytest.raises(ScenarioError) as info:
        load_scenario(write(tmp_path, "two", text))
    assert len(info.value.problems) == 2
    assert "formations[1] ('B').side: 'reds' is not one of the sides" in str(info.value)


def test_support_weapons_must_suit_their_unit(tmp_path: Path) -> None:
    text = BASE.replace('hex = "N17"', 'hex = "N17"\nsupport_weapon = "dragon"')
    path = write(tmp_path, "sw", text)
    assert problems(path) == [
        f"{path}: units[0] ('A1').support_weapon: M47 Dragon (infantry SW) goes with "
        "infantry (WaW 1.3.5), not a M60A3 tank platoon"
    ]


def test_overrides_need_a_rationale_and_known_names(tmp_path: Path) -> None:
    extra = (
        '[overrides.units.t27]\nbase = "t99"\nrationale = "x"\n'
        "[overrides.terrain.woods]\nblocks_los = false\n"
    )
    path = write(tmp_path, "over", BASE + extra)
    assert problems(path) == [
        f"{path}: overrides.units.t27: 't27' is not a unit type; did you mean 't72'? "
        'to add a new type, give base = "<existing type>"',
        f"{path}: overrides.terrain.woods.blocks_los: line of sight is physical (DEM "
        "and obstacle heights); a scenario cannot change it",
        f"{path}: overrides.terrain.woods.rationale: missing; say why it changes",
    ]


# --------------------------------------------------------------------------- #
# the command line                                                            #
# --------------------------------------------------------------------------- #


def test_validate_prints_one_line_per_problem_and_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    good = write(tmp_path, "good", BASE)
    bad = write(tmp_path, "bad", BASE.replace('hex = "N17"', 'hexx = "ZZ99"'))
    late = write(
        tmp_path,
        "late",
        BASE + '[[reinforcements]]\nturn = 9\nunits = ["A1"]\nentry = ["N17"]\n',
    )
    before = sorted(os.listdir(tmp_path))
    assert main(["validate", str(good), str(bad), str(late)]) == 2
    out, err = capsys.readouterr()
    assert out.startswith(f"ok: {good}: t (waw-classic, 4 turns, 2 units)")
    assert err.splitlines() == [
        f"wargame: error: {bad}: units[0] ('A1').hexx: unknown key; did you mean "
        "'hex'?",
        f"wargame: error: {late}: reinforcements[0].turn: turn 9 is after the last "
        "turn (4); use 1–4",
        f"wargame: error: {late}: reinforcements[0].units: 'A1' also has a set-up "
        "position; reinforcements enter at the entry hexes, remove its "
        "hex/lonlat/place",
    ]
    assert "Traceback" not in err
    assert sorted(os.listdir(tmp_path)) == before  # nothing written
    assert main(["validate", str(good)]) == 0


def test_run_with_a_bad_policy_names_the_available_policies(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    good = write(tmp_path, "good", BASE)
    out = tmp_path / "log.csv"
    assert main(["run", str(good), "--policy", "nato=clever", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err == (
        "wargame: error: run: --policy 'nato=clever': unknown policy 'clever'; "
        "waw-classic policies: doctrine, greedy, random\n"
    )
    assert main(["run", str(good), "--policy", "reds=random"]) == 2
    assert "no side 'reds'; sides: nato, pact" in capsys.readouterr().err
    assert not out.exists()


def test_run_on_a_bad_file_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = write(tmp_path, "bad", BASE.replace('type = "m60"', 'type = "m6O"'))
    out, save = tmp_path / "log.csv", tmp_path / "game.json"
    code = main(["run", str(bad), "--out", str(out), "--save", str(save)])
    assert code == 2
    err = capsys.readouterr().err
    assert err.startswith(f"wargame: error: {bad}: units[0] ('A1').type: unknown")
    assert not out.exists() and not save.exists()
    assert main(["run", str(bad), "--out", str(tmp_path / "log.txt")]) == 2
    assert "must end in .csv or .parquet" in capsys.readouterr().err


# --------------------------------------------------------------------------- #
# what the format gives, played                                               #
# --------------------------------------------------------------------------- #


def test_the_annotated_example_in_the_docs_validates_and_plays(tmp_path: Path) -> None:
    path = write(tmp_path, "example", docs_example())
    assert check_scenario(path) == []
    game = Game.from_scenario(path, seed=2)
    rules = game.ruleset
    # overrides: the rebuilt bridge, the weaker T-72, the new reservist type
    assert "Y11" in rules.board.bridge
    assert rules.catalog["t72"].full.ap.fp == 3
    assert rules.catalog["t72_reserve"].full.ap.to_hit == 6
    assert rules.catalog["t72"].source == "estimate"
    assert rules.chart.defence_dice("orchard") == 0
    st = game.state
    assert st.units["US-INF"].attrs["carried_by"] == "US-APC"
    assert st.units["US-INF"].attrs["sw"] == "dragon"
    assert st.units["US-INF2"].attrs["disrupted"]
    assert st.units["SU-T3"].position is None
    assert st.formations["A/1-32"].attrs["morale"] == 8
    assert load_scenario(path).posture("nato") == "defend"
    assert game.run().termination == "turn limit"


def test_reinforcements_enter_on_their_turn_at_the_first_free_entry_hex(
    tmp_path: Path,
) -> None:
    extra = (
        '[[units]]\nid = "A8"\ntype = "m60"\nformation = "A"\n'
        '[[units]]\nid = "A9"\ntype = "m113"\nformation = "A"\n'
        '[[units]]\nid = "A9i"\ntype = "us_infantry"\nformation = "A"\n'
        'carried_by = "A9"\n'
        '[[reinforcements]]\nturn = 2\nunits = ["A8", "A9", "A9i"]\n'
        'entry = ["N17", "O18"]\n'
    )
    text = BASE.replace('hex = "N17"', 'hex = "N17"').replace("turns = 4", "turns = 3")
    game = Game.from_scenario(write(tmp_path, "reinf", text + extra), seed=1)
    assert game.initial_state.units["A8"].position is None
    assert game.initial_state.units["A8"].attrs["arrives"] == 2
    while game.state.turn < 2:
        game.step()
    events = [e for e in game.events if e.kind == "reinforcement"]
    # N17 holds A1: room for one more (A8); A9 with its passenger goes to O18
    assert [(e.unit, e.hex_to, e.result, e.turn) for e in events] == [
        ("A8", "N17", "arrived", 2),
        ("A9", "O18", "arrived", 2),
    ]
    st = game.state
    assert st.units["A9i"].position == "O18"
    assert st.units["A9i"].attrs["carried_by"] == "A9"
    assert st.control["O18"] == "nato" and "arrives" not in st.units["A8"].attrs


def test_support_weapons_fire_and_tank_atgms_run_out(tmp_path: Path) -> None:
    text = BASE.replace(
        'type = "t72"\nformation = "B"\nhex = "H17"',
        'type = "t64"\nformation = "B"\nhex = "H17"\nsupport_weapon = "songster"',
    ).replace("first_side", "first_side")
    game = Game.from_scenario(write(tmp_path, "atgm", text), seed=5)
    # play chits until B is active, then fire the Songster at A1 (6 hexes)
    for _ in range(50):
        acts = game.legal_actions()
        sw = [a for a in acts if isinstance(a, Fire) and a.weapon == "sw"]
        if sw:
            break
        nxt = next(
            (a for a in acts if isinstance(a, Activate) and a.formation == "B"), None
        ) or next(
            (a for a in acts if isinstance(a, Defer | Pass | EndActivation)), acts[0]
        )
        game.apply(nxt)
    assert sw, "the T-64 never got its ATGM shot"
    events = game.apply(sw[0])
    fire = next(e for e in events if e.kind == "fire")
    assert "AT-8 Songster gun-launched ATGM (tank SW) 2d6" in fire.detail
    assert "Songster gun-launched ATGM (tank SW) placed" in fire.detail
    t64 = game.state.units["B1"]
    if fire.hits == 0:  # WaW 1.3.5: no hit, no missiles left
        assert "out of missiles" in fire.detail and "sw" not in t64.attrs
    else:
        assert t64.attrs["sw"] == "songster" and t64.attrs["sw_placed"]


def test_formation_morale_replaces_the_hq_counter(tmp_path: Path) -> None:
    text = BASE.replace(
        'id = "A"\nside = "nato"', 'id = "A"\nside = "nato"\nmorale = 5'
    )
    game = Game.from_scenario(write(tmp_path, "morale", text), seed=1)
    assert game.ruleset.morale(game.state, "A") == 5
    assert game.ruleset.morale(game.state, "B") == 7  # no HQ: the default


def test_equal_victory_points_go_to_the_tie_side(tmp_path: Path) -> None:
    draw = Game.from_scenario(
        write(tmp_path, "draw", BASE.replace("turns = 4", "turns = 1"))
    )
    tied = Game.from_scenario(
        write(
            tmp_path,
            "tie",
            BASE.replace("turns = 4", "turns = 1") + '[victory]\ntie = "pact"\n',
        )
    )
    for game in (draw, tied):
        while not game.is_over:  # nobody moves: 0 VP each
            acts = game.legal_actions()
            game.apply(
                next((a for a in acts if isinstance(a, EndActivation | Pass)), acts[0])
            )
    assert draw.outcome.winner is None and tied.outcome.winner == "pact"
    assert "equal VP: pact wins ties" in tied.events[-1].detail


def test_a_hex_override_bridge_is_crossed(tmp_path: Path) -> None:
    text = BASE.replace('hex = "N17"', 'hex = "X12"') + (
        '[[overrides.hexes]]\nhex = "Y11"\nbridge = true\nrationale = "test"\n'
    )
    game = Game.from_scenario(write(tmp_path, "bridge", text), seed=3)
    board = game.ruleset.board
    assert board.move_cost("Y12", "Y11", "tracked") == 1.0
    assert Game.from_scenario(write(tmp_path, "plain", BASE)).ruleset.board.move_cost(
        "Y12", "Y11", "tracked"
    ) == float("inf")
    assert isinstance(Move("A1", "Y11"), Move)
