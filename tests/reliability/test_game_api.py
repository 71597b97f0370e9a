"""Issue 16: the Game API's refusals, found by the fuzz suite (tests/fuzz).

Each case was a traceback, an unhashable ``TypeError`` or an action accepted
that its own save then refused to load; each is now one line naming the
method and the argument, and the game is left as it was.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from wargame.engine import (
    Game,
    IllegalActionError,
    SaveFileError,
    ScenarioError,
    load_scenario,
)
from wargame.rules.waw.actions import Activate, Move


@pytest.fixture(scope="module")
def game() -> Game:
    return Game.from_scenario("test_remagen", seed=3)


def _unchanged(game: Game, before: tuple[int, str]) -> None:
    assert (len(game.events), game.state.digest()) == before


def _snapshot(game: Game) -> tuple[int, str]:
    return len(game.events), game.state.digest()


def test_apply_action_object_with_a_wrong_field_type_refused(game: Game) -> None:
    # Move(with_hq="") was applied and recorded, and the game's own save then
    # refused to load ("field 'with_hq' must be bool").
    before = _snapshot(game)
    with pytest.raises(IllegalActionError) as err:
        game.apply(Move(unit="x", to="Q11", with_hq=""))  # type: ignore[arg-type]
    assert str(err.value) == (
        "Game.apply: action: move: field 'with_hq' must be bool, not str"
    )
    _unchanged(game, before)


def test_apply_action_with_a_list_for_an_id_refused(game: Game) -> None:
    before = _snapshot(game)
    with pytest.raises(IllegalActionError) as err:
        game.apply(Activate(formation=[]))  # type: ignore[arg-type]
    assert str(err.value) == (
        "Game.apply: action: activate: field 'formation' must be str, not tuple"
    )
    _unchanged(game, before)


def test_apply_action_with_a_huge_id_is_not_echoed(game: Game) -> None:
    before = _snapshot(game)
    with pytest.raises(IllegalActionError) as err:
        game.apply({"type": "activate", "formation": "f" * 100_000})
    assert str(err.value) == (
        "Game.apply: action: activate: field 'formation' is a text of 100000 "
        "characters, more than the limit of 200"
    )
    _unchanged(game, before)


def test_apply_something_that_is_not_an_action_refused(game: Game) -> None:
    with pytest.raises(IllegalActionError) as err:
        game.apply(42)  # type: ignore[arg-type]
    assert str(err.value) == (
        "Game.apply: action: 42 is not an action; give an Action or its to_dict() table"
    )


@pytest.mark.parametrize("method", ["log_for", "events_for", "state_for", "replay"])
def test_side_argument_of_the_wrong_type_refused(game: Game, method: str) -> None:
    # a list side raised TypeError: unhashable type
    with pytest.raises(ValueError) as err:
        result = getattr(game, method)(["nato"])
        list(result)  # replay is a generator
    assert str(err.value) == (
        f"Game.{method}: side: unknown side ['nato']; give one of "
        f"{list(game.state.sides)} (or None: the umpire's view)"
    )


@pytest.mark.parametrize("turns", ["x", {}, False, -1, 1.5])
def test_run_turns_of_the_wrong_type_refused(game: Game, turns: object) -> None:
    before = _snapshot(game)
    with pytest.raises(ValueError, match=r"^Game\.run: turns: must be a whole number"):
        game.run(turns=turns)  # type: ignore[arg-type]
    _unchanged(game, before)


def test_game_seed_message_names_game() -> None:
    with pytest.raises(ValueError) as err:
        Game.from_scenario("test_remagen", seed=-1)
    assert str(err.value) == "Game: seed: must be a whole number >= 0, not -1"


@pytest.mark.parametrize("source", [123, None, 1.5, b"test_remagen", ["a"], {1}])
def test_load_scenario_of_something_that_is_not_a_source(source: object) -> None:
    with pytest.raises(ScenarioError) as err:
        load_scenario(source)  # type: ignore[arg-type]
    text = str(err.value)
    assert text.startswith("load_scenario: source: ")
    assert text.endswith(
        "is not a scenario; give a file path, a scenario name such as "
        '"test_remagen", or a table (dict)'
    )


def test_load_scenario_with_a_name_too_long_for_the_file_system() -> None:
    with pytest.raises(ScenarioError) as err:
        load_scenario("x" * 5000)
    text = str(err.value)
    assert text.endswith(": cannot be read (File name too long)")
    assert len(text) < 300  # the path is cut, not echoed whole


def test_load_scenario_with_a_nul_byte_in_the_name() -> None:
    with pytest.raises(ScenarioError) as err:
        load_scenario("test\x00remagen")
    assert str(err.value) == (
        "test\\x00remagen: the path holds a NUL byte; give the path of a file"
    )


def test_game_load_with_a_nul_byte_in_the_path(tmp_path: Path) -> None:
    with pytest.raises(SaveFileError) as err:
        Game.load(str(tmp_path / "a\x00.json"))
    assert str(err.value) == (
        f"save file {tmp_path}/a\\x00.json: the path holds a NUL byte; give the "
        "path of a file"
    )


def test_map_point_that_is_a_ragged_sequence_refused() -> None:
    import wargame

    m = wargame.load_map(window="Remagen")
    with pytest.raises(ValueError) as err:
        m.los((1.0, [[1.0]]), "Q11")  # type: ignore[arg-type]
    assert str(err.value).startswith(
        "Map.los: a: (1.0, [[1.0]]) is not a hex label or an (x, y) point; "
    )


# --- found by the long search (make fuzz, 112,400 inputs) --------------------- #


def test_describe_malformed_action_object_refused(game: Game) -> None:
    # Game.describe(Fire(weapon={})) raised TypeError: unhashable type: 'dict'
    with pytest.raises(IllegalActionError) as err:
        game.describe(Activate(formation={}))  # type: ignore[arg-type]
    assert str(err.value) == (
        "Game.describe: action: activate: field 'formation' has a bad value {}"
    )


def test_units_of_a_game_without_units_is_an_empty_frame() -> None:
    # Game.units raised KeyError "None of ['unit'] are in the columns"
    data = tomllib.loads(Path("scenarios/test_remagen.toml").read_text())
    data["units"], data["formations"] = [], []
    data.pop("reinforcements", None)
    game = Game(load_scenario(data), seed=1)
    assert game.units.empty
    assert {"side", "hex", "status"} <= set(game.units.columns)


def test_viewshed_from_an_edge_hex_with_a_tiny_radius() -> None:
    # AF21's centre lies past the Remagen window; radius 1 m missed the raster
    # ("window ... does not overlap the raster")
    import wargame

    m = wargame.load_map(window="Remagen")
    assert m.viewshed("AF21", 1).area == 0.0
    assert m.viewshed("AF21", 500).area > 0.0
