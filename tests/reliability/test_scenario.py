"""Issue 16 (items 2, 3, 4 and the scenario half of 8): every bad scenario is
refused with one line per problem, ``<file>: <field>: <problem>; <fix>``, before
anything big is built; nothing ends in a traceback, a hang or a different game.

Each test is one failure the fuzzing pass found, with the exact message.
"""

from __future__ import annotations

import os
import tomllib
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import wargame.engine.ruleset as ruleset_module
import wargame.geo.maps as geo_maps
from wargame.cli import main
from wargame.engine import (
    Game,
    Scenario,
    ScenarioError,
    available_scenarios,
    check_scenario,
    load_scenario,
)
from wargame.engine.scenario import MAX_SCENARIO_BYTES, shown

#: A small valid World at War scenario on the Remagen window.
BASE = """\
id = "t"
ruleset = "waw-classic"
turns = 4

[map]
name = "rhine-remagen"
hex_size_m = 150
window = "Remagen"

[rules]
first_side = "pact"

[victory]
unit_destroyed_vp = 1

[[sides]]
id = "nato"

[[sides]]
id = "pact"

[[formations]]
id = "A"
side = "nato"

[[units]]
id = "A1"
type = "m60"
formation = "A"
hex = "N17"

[[formations]]
id = "B"
side = "pact"

[[units]]
id = "B1"
type = "t72"
formation = "B"
hex = "H17"

[[objectives]]
name = "Crossroads"
hex = "N17"
vp = 2
"""

DEEP = "nested more than 32 levels deep (tables within tables, arrays within arrays "
DEEP += "or dotted keys of many parts); flatten it"


def write(tmp_path: Path, text: str, name: str = "s.toml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def data() -> dict[str, Any]:
    """BASE as a dict (a fresh copy)."""
    return tomllib.loads(BASE)


def changed(change: Callable[[dict[str, Any]], Any]) -> dict[str, Any]:
    d = data()
    change(d)
    return d


@pytest.fixture
def no_map_build(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fail the test if any map is built (the check must come first)."""

    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("a map was built before the scenario was checked")

    monkeypatch.setattr(geo_maps, "load_map", refuse)
    from wargame.engine import scenario as sc

    sc._load_map_cached.cache_clear()


def cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, list[str]]:
    """Run the command line: the exit code and the stderr lines."""
    code = main(list(argv))
    err = capsys.readouterr().err
    assert "Traceback" not in err
    return code, err.splitlines()


# --------------------------------------------------------------------------- #
# item 2: tracebacks                                                          #
# --------------------------------------------------------------------------- #


def test_deeply_nested_toml_arrays_refused(tmp_path: Path) -> None:
    path = write(tmp_path, BASE + "x = " + "[" * 1000 + "]" * 1000 + "\n")
    assert check_scenario(path) == [f"{path}: not a valid scenario file: {DEEP}"]


def test_deeply_nested_toml_tables_refused(tmp_path: Path) -> None:
    nested = "x = " + "{a = " * 1000 + "1" + "}" * 1000 + "\n"
    path = write(tmp_path, nested + BASE)
    assert check_scenario(path) == [f"{path}: not a valid scenario file: {DEEP}"]


def test_dotted_key_of_5000_parts_refused(tmp_path: Path) -> None:
    path = write(tmp_path, "x" + ".a" * 5000 + " = 1\n" + BASE)
    assert check_scenario(path) == [f"{path}: x.a.a.a…: {DEEP}"]


def test_deeply_nested_json_refused(tmp_path: Path) -> None:
    path = write(tmp_path, '{"a": ' + "[" * 100_000 + "]" * 100_000 + "}", "s.json")
    assert check_scenario(path) == [f"{path}: not a valid scenario file: {DEEP}"]


def test_deeply_nested_dict_refused() -> None:
    deep: Any = 1
    for _ in range(5000):
        deep = {"a": deep}
    d = changed(lambda d: d.update(x=deep))
    with pytest.raises(ScenarioError) as err:
        load_scenario(d)
    assert err.value.problems == (f"<dict>: x.a.a.a…: {DEEP}",)


@pytest.mark.parametrize(
    ("value", "text"), [({"a": 1}, "{'a': 1}"), ([1], "[1]"), (7, "7")]
)
def test_first_side_of_the_wrong_type_refused(value: Any, text: str) -> None:
    d = changed(lambda d: d["rules"].update(first_side=value))
    assert check_scenario(d) == [
        f"<dict>: rules.first_side: {text} is not one of ['nato', 'pact']; "
        "give a side id"
    ]


@pytest.mark.parametrize(("value", "text"), [({"a": 1}, "{'a': 1}"), ([1], "[1]")])
def test_victory_tie_of_the_wrong_type_refused(value: Any, text: str) -> None:
    d = changed(lambda d: d["victory"].update(tie=value))
    assert check_scenario(d) == [
        f'<dict>: victory.tie: {text}: use "draw" or one of the sides '
        "['nato', 'pact']"
    ]


def test_window_place_that_is_not_text_refused(no_map_build: None) -> None:
    d = changed(lambda d: d["map"].update(window={"place": 7}))
    assert check_scenario(d) == [
        "<dict>: map.window.place: must be the name of a place of the map, such as "
        '"Remagen" (at most 100 characters), not 7'
    ]


@pytest.mark.parametrize(("size", "text"), [(1, "1"), (0.001, "0.001"), (5, "5")])
def test_wrong_hex_size_refused_before_the_map_is_built(
    size: float, text: str, no_map_build: None
) -> None:
    d = changed(lambda d: d["map"].update(hex_size_m=size))
    message = (
        f"<dict>: map.hex_size_m: waw-classic is played on hexes of 150 m, not "
        f"{text}; write hex_size_m = 150 or leave it out"
    )
    with pytest.raises(ScenarioError) as err:
        load_scenario(d)
    assert err.value.problems == (message,)
    assert check_scenario(d) == [message]


def test_wrong_hex_size_refused_by_game_before_the_map_is_built(
    no_map_build: None,
) -> None:
    # a Scenario built by hand skips load_scenario: Game checks [map] itself
    d = changed(lambda d: d["map"].update(hex_size_m=1))
    with pytest.raises(ScenarioError) as err:
        Game(Scenario(d, "x.toml"))
    assert err.value.problems == (
        "x.toml: map.hex_size_m: waw-classic is played on hexes of 150 m, not 1; "
        "write hex_size_m = 150 or leave it out",
    )


def test_map_name_of_100000_characters_refused(no_map_build: None) -> None:
    d = changed(lambda d: d["map"].update(name="a" * 100_000))
    assert check_scenario(d) == [
        "<dict>: map.name: a text of 100,000 characters, more than the limit of "
        "10,000; shorten it"
    ]


@pytest.mark.parametrize("name", ["a" * 101, "../etc", "maps/x"])
def test_map_name_that_is_long_or_a_path_refused(name: str, no_map_build: None) -> None:
    d = changed(lambda d: d["map"].update(name=name))
    assert check_scenario(d) == [
        '<dict>: map.name: must be a map name such as "rhine-remagen" (letters, '
        f"digits and _ . -, at most 100 characters), not {shown(name)}"
    ]


def test_20000_units_refused_before_anything_is_built(
    monkeypatch: pytest.MonkeyPatch, no_map_build: None
) -> None:
    def no_ruleset(rid: str) -> Any:
        raise AssertionError("the rule system was asked before the unit count")

    monkeypatch.setattr(ruleset_module, "get_ruleset", no_ruleset)
    unit = {"type": "m60", "formation": "A", "hex": "N17"}
    d = changed(
        lambda d: d.update(units=[{"id": f"U{i}", **unit} for i in range(20_000)])
    )
    with pytest.raises(ScenarioError) as err:
        load_scenario(d)
    assert err.value.problems == (
        "<dict>: units: 20,000 [[units]] tables, more than the limit of 2,000; "
        "make a smaller scenario",
    )


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            lambda d: d["units"][0].update(formation={"a": 1}),
            "<dict>: units[0] ('A1').formation: {'a': 1} is not one of the "
            "formations ['A', 'B']",
        ),
        (
            lambda d: d["units"][1].update(carried_by=[1]),
            "<dict>: units[1] ('B1').carried_by: [1] is not a unit of the scenario",
        ),
        (
            lambda d: d["formations"][1].update(hq=[1]),
            "<dict>: formations[1] ('B').hq: [1] is not a unit of the scenario",
        ),
        (
            lambda d: d["formations"][1].update(side={"x": 1}),
            "<dict>: formations[1] ('B').side: {'x': 1} is not one of the sides "
            "['nato', 'pact']",
        ),
        (
            lambda d: d["objectives"][0].update(controlled_by=[1]),
            "<dict>: objectives[0] ('Crossroads').controlled_by: [1] is not one "
            "of the sides ['nato', 'pact']",
        ),
        (
            lambda d: d.update(
                reinforcements=[{"turn": 2, "units": [[1]], "entry": ["A1"]}]
            ),
            "<dict>: reinforcements[0].units: [1] is not a unit of the scenario",
        ),
    ],
)
def test_references_of_the_wrong_type_refused(
    change: Callable[[dict[str, Any]], Any], message: str
) -> None:
    problems = check_scenario(changed(change))
    assert problems[0] == message


def test_support_side_of_the_wrong_type_refused() -> None:
    support = {"id": "arty", "side": [1], "fp": 3, "to_hit": 4, "rationale": "r"}
    d = changed(lambda d: d.update(support=[support]))
    assert check_scenario(d) == [
        "<dict>: support[0] ('arty').side: [1] is not one of ['nato', 'pact']"
    ]


# --------------------------------------------------------------------------- #
# item 3: validated, then wrong                                               #
# --------------------------------------------------------------------------- #


@pytest.mark.parametrize("chits", [10**9, 10**30])
def test_formation_chit_count_too_large_refused(chits: int) -> None:
    d = changed(lambda d: d["formations"][0].update(chits=chits))
    assert check_scenario(d) == [
        f"<dict>: formations[0] ('A').chits: {chits:,} is more than the limit of "
        "100 chits; use 0–100"
    ]


@pytest.mark.parametrize("chits", [10**9, 10**30])
def test_chaos_chit_count_too_large_refused(chits: int) -> None:
    d = changed(lambda d: d["rules"].update(chaos_chits=chits))
    assert check_scenario(d) == [
        f"<dict>: rules.chaos_chits: must be a whole number from 0 to 100, not {chits}"
    ]


def test_turns_too_large_refused() -> None:
    d = changed(lambda d: d.update(turns=9223372036854775807))
    assert check_scenario(d) == [
        "<dict>: turns: 9223372036854775807 is more than the limit of 1,000 turns; "
        "use 1–1000"
    ]


def test_objective_victory_points_too_large_refused() -> None:
    d = changed(lambda d: d["objectives"][0].update(vp=2**64))
    assert check_scenario(d) == [
        "<dict>: objectives[0] ('Crossroads').vp: 18,446,744,073,709,551,616 is "
        "beyond the limit of ±1,000,000 victory points; use -1,000,000–1,000,000"
    ]


def test_unit_destroyed_victory_points_too_large_refused() -> None:
    d = changed(lambda d: d["victory"].update(unit_destroyed_vp=2**64))
    assert check_scenario(d) == [
        "<dict>: victory.unit_destroyed_vp: must be a whole number from 0 to "
        "1,000,000, not 18446744073709551616"
    ]


@pytest.mark.parametrize(
    ("table", "key", "hint"),
    [
        ("rules", "first_sidee", "first_side"),
        ("victory", "tiee", "tie"),
        ("overrides", "unitz", "units"),
    ],
)
def test_unknown_keys_in_rule_tables_refused(table: str, key: str, hint: str) -> None:
    d = changed(lambda d: d.setdefault(table, {}).update({key: "nato"}))
    with pytest.raises(ScenarioError) as err:
        load_scenario(d)
    assert err.value.problems == (
        f"<dict>: {table}.{key}: unknown key; did you mean '{hint}'?",
    )


def test_unknown_rules_key_refused_in_a_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path, BASE.replace("first_side", "first_sidee"))
    assert cli(capsys, "validate", str(path)) == (
        2,
        [
            f"wargame: error: {path}: rules.first_sidee: unknown key; did you mean "
            "'first_side'?"
        ],
    )


def test_unknown_keys_in_nested_overrides_refused() -> None:
    def change(d: dict[str, Any]) -> None:
        d["overrides"] = {
            "hexes": [{"hex": "N17", "terrain": "woods", "rationale": "r", "x": 1}],
            "terrain": {"woods": {"move_cst": 1, "rationale": "r"}},
            "units": {"t72": {"fulll": {}, "rationale": "r"}},
        }

    assert check_scenario(changed(change)) == [
        "<dict>: overrides.units.t72.fulll: unknown key",
        "<dict>: overrides.terrain.woods.move_cst: unknown key; did you mean "
        "'move_cost'?",
        "<dict>: overrides.hexes[0].x: unknown key",
    ]


@pytest.mark.parametrize(
    ("value", "text"), [(float("inf"), "inf"), (1e9, "1000000000.0"), (-5, "-5")]
)
def test_window_size_infinite_or_huge_refused(
    value: float, text: str, no_map_build: None
) -> None:
    d = changed(
        lambda d: d["map"].update(window={"place": "Remagen", "width_m": value})
    )
    assert check_scenario(d) == [
        "<dict>: map.window.width_m: must be a number of metres above 0 and at "
        f"most 50,000, not {text}"
    ]


def test_window_bbox_infinite_refused(no_map_build: None) -> None:
    inf = float("inf")
    d = changed(lambda d: d["map"].update(window={"bbox": [-inf, 0, inf, 1e9]}))
    assert check_scenario(d) == [
        "<dict>: map.window.bbox: must be [xmin, ymin, xmax, ymax] (finite numbers), "
        "not [-inf, 0, inf, 1000000000.0]"
    ]


def test_window_bbox_larger_than_the_limit_refused(no_map_build: None) -> None:
    d = changed(lambda d: d["map"].update(window={"bbox": [0, 0, 1e9, 1e9]}))
    assert check_scenario(d) == [
        "<dict>: map.window.bbox: a window of 1,000,000,000 × 1,000,000,000 m; "
        "each side is at most 50,000 m"
    ]


def test_run_a_scenario_without_units(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = BASE.split("[[formations]]")[0]  # the sides, no formation or unit
    path = write(tmp_path, text)
    assert main(["run", str(path)]) == 0
    out = capsys.readouterr().out
    assert "\nno units\n" in out


# --------------------------------------------------------------------------- #
# item 4: messages                                                            #
# --------------------------------------------------------------------------- #


def test_infinite_hex_size_says_what_is_wrong(no_map_build: None) -> None:
    d = changed(lambda d: d["map"].update(hex_size_m=float("inf")))
    assert check_scenario(d) == [
        "<dict>: map.hex_size_m: must be a number of metres from 10 to 10000, not inf"
    ]


def test_megabyte_value_is_not_echoed_whole() -> None:
    d = changed(lambda d: d.update(title="x" * 1_000_000))
    assert check_scenario(d) == [
        "<dict>: title: a text of 1,000,000 characters, more than the limit of "
        "10,000; shorten it"
    ]
    d = changed(lambda d: d["units"][0].update(hex="Q" * 5000))
    (line,) = check_scenario(d)
    assert line == (
        f"<dict>: units[0] ('A1').hex: must be a hex label such as \"Q11\", not "
        f"'{'Q' * 58}…"
    )


def test_long_key_is_not_echoed_whole() -> None:
    d = changed(lambda d: d["rules"].update({"k" * 100_000: 1}))
    assert check_scenario(d) == [
        f"<dict>: rules.'{'k' * 58}…: a key of 100,000 characters, more than the "
        "limit of 100; use a shorter key"
    ]


def test_number_of_5000_digits_refused(tmp_path: Path) -> None:
    path = write(tmp_path, BASE.replace("turns = 4", "turns = " + "9" * 5000))
    assert check_scenario(path) == [
        f"{path}: not a valid scenario file: a whole number of more than 4,300 "
        "digits; check the value"
    ]
    d = changed(lambda d: d.update(turns=10**1000))
    assert check_scenario(d) == [
        "<dict>: turns: a whole number of about 1001 digits is far too large for "
        "any value of a scenario; check it"
    ]


def test_utf8_byte_order_mark_accepted(tmp_path: Path) -> None:
    path = tmp_path / "bom.toml"
    path.write_bytes(b"\xef\xbb\xbf" + BASE.encode("utf-8"))
    assert check_scenario(path) == []
    assert load_scenario(path).id == "t"


def test_no_numpy_warnings_before_an_error() -> None:
    d = changed(lambda d: d["units"][0].update(hex=None, lonlat=[float("inf"), 50]))
    del d["units"][0]["hex"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a RuntimeWarning fails the test
        assert check_scenario(d) == [
            "<dict>: units[0] ('A1').lonlat: must be [lon, lat] in degrees (lon "
            "-180–180, lat -90–90), not [inf, 50]"
        ]


# --------------------------------------------------------------------------- #
# item 8 (scenarios): unbounded reads                                         #
# --------------------------------------------------------------------------- #


def test_validate_dev_zero_refused_at_once(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli(capsys, "validate", "/dev/zero") == (
        2,
        [
            "wargame: error: /dev/zero: is not a regular file (a device, pipe or "
            "socket); give a file"
        ],
    )


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_validate_fifo_refused_at_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fifo = tmp_path / "s.toml"
    os.mkfifo(fifo)  # no writer: reading it would block for ever
    assert cli(capsys, "validate", str(fifo)) == (
        2,
        [
            f"wargame: error: {fifo}: is not a regular file (a device, pipe or "
            "socket); give a file"
        ],
    )


def test_scenario_file_over_the_size_limit_refused(tmp_path: Path) -> None:
    path = tmp_path / "big.toml"
    with path.open("wb") as fh:
        fh.write(BASE.encode())
        fh.truncate(MAX_SCENARIO_BYTES + 1024 * 1024)  # sparse: nothing written
    with pytest.raises(ScenarioError) as err:
        load_scenario(path)
    assert err.value.problems == (
        f"{path}: is 3 MiB, more than the limit of 2 MiB; is this the right file?",
    )


# --------------------------------------------------------------------------- #
# the command line: one line per problem, exit code 2                         #
# --------------------------------------------------------------------------- #


def test_validate_bad_files_one_line_each_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    deep = write(tmp_path, BASE + "x = " + "[" * 1000 + "]" * 1000, "deep.toml")
    side = write(
        tmp_path, BASE.replace('first_side = "pact"', "first_side = [1]"), "side.toml"
    )
    code, lines = cli(capsys, "validate", str(deep), str(side), "/dev/zero")
    assert code == 2
    assert lines == [
        f"wargame: error: {deep}: not a valid scenario file: {DEEP}",
        f"wargame: error: {side}: rules.first_side: [1] is not one of ['nato', "
        "'pact']; give a side id",
        "wargame: error: /dev/zero: is not a regular file (a device, pipe or "
        "socket); give a file",
    ]


def test_run_bad_file_one_line_exit_2_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], no_map_build: None
) -> None:
    path = write(tmp_path, BASE.replace("hex_size_m = 150", "hex_size_m = 1"))
    save = tmp_path / "game.json"
    assert cli(capsys, "run", str(path), "--save", str(save)) == (
        2,
        [
            f"wargame: error: {path}: map.hex_size_m: waw-classic is played on "
            "hexes of 150 m, not 1; write hex_size_m = 150 or leave it out"
        ],
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.toml"]


# --------------------------------------------------------------------------- #
# what was accepted still is                                                  #
# --------------------------------------------------------------------------- #


@pytest.mark.parametrize("name", available_scenarios())
def test_shipped_scenarios_still_validate(name: str) -> None:
    assert check_scenario(name) == []


def test_window_hex_bound_is_the_map_apis() -> None:
    from wargame.engine import scenario as scenario_module
    from wargame.geo import maps

    assert scenario_module.MAX_WINDOW_HEXES == maps.MAX_HEXES


# --- found by the long search (make fuzz, 112,400 inputs) --------------------- #


def test_objectives_or_reinforcements_null_read_as_none() -> None:
    # a JSON null validated, then Scenario.objectives raised TypeError
    data = tomllib.loads(BASE)
    data["objectives"], data["reinforcements"] = None, None
    s = load_scenario(data)
    assert s.objectives == [] and s.reinforcements == []


def test_deep_nesting_under_an_unknown_key_names_the_key() -> None:
    data = tomllib.loads(BASE)
    deep: Any = 1
    for _ in range(40):
        deep = [deep]
    data["map"]["namee"] = deep
    with pytest.raises(ScenarioError) as err:
        load_scenario(data)
    assert str(err.value) == (
        "<dict>: map.namee[0][0]…: nested more than 32 levels deep (tables within "
        "tables, arrays within arrays or dotted keys of many parts); flatten it"
    )


def test_malformed_toml_message_does_not_quote_a_long_line(tmp_path: Path) -> None:
    # tomllib's message echoed a 25,000-character header line
    path = tmp_path / "long.toml"
    path.write_text("[" + "a" * 5000 + "\n" + BASE, encoding="utf-8")
    with pytest.raises(ScenarioError) as err:
        load_scenario(path)
    text = str(err.value)
    assert text.startswith(
        f"{path}: not a valid scenario file: malformed TOML at line 1"
    )
    assert len(text) < 400
