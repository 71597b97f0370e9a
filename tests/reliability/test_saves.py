"""Save files that cannot lie (issue #16, items 5 and 8): a required digest over
everything that decides the game, a required and compared ``check``, strict field
types, bounded and depth-safe reading, atomic writing.

Every refusal is one line ``save file <path>: <field>: <problem>; <fix>``; the
tests compare whole messages.
"""

from __future__ import annotations

import copy
import errno
import json
import os
import threading
from pathlib import Path
from typing import Any

import pytest

import wargame.engine.game as game_module
from wargame.engine import Game, SaveFileError, load_scenario
from wargame.engine.game import SAVE_FIELDS, SAVE_VERSION, _field_digests

DATA = Path(__file__).parent / "data"
SCENARIO = load_scenario("test_remagen")
DAMAGED = "the file is damaged or was edited; use an unedited copy of the save"
EDITED = "use an unedited copy of the save, or start again from the scenario"
NOT_A_SAVE = "give a file written by Game.save"
NO_FILE = "give the path of a file written by Game.save"


def played(seed: int = 3, steps: int = 12) -> Game:
    g = Game(SCENARIO, seed=seed)
    for _ in range(steps):
        g.step()
    return g


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    path = played().save(tmp_path_factory.mktemp("s") / "g.json")
    return json.loads(path.read_text())  # type: ignore[no-any-return]


@pytest.fixture
def data(base: dict[str, Any]) -> dict[str, Any]:
    return copy.deepcopy(base)


def write(tmp_path: Path, content: object) -> Path:
    p = tmp_path / "save.json"
    if isinstance(content, bytes):
        p.write_bytes(content)
    else:
        p.write_text(content if isinstance(content, str) else json.dumps(content))
    return p


def refusal(path: Path) -> str:
    with pytest.raises(SaveFileError) as err:
        Game.load(path)
    return str(err.value)


def redigest(d: dict[str, Any]) -> dict[str, Any]:
    """A forged save: its digest recomputed, so the checks behind it are reached."""
    return {**d, "digest": _field_digests(d)}


def as_version(d: dict[str, Any], version: int) -> dict[str, Any]:
    """The save as an older (digest-less) version."""
    return {k: v for k, v in d.items() if k != "digest"} | {"version": version}


# --------------------------------------------------------------------------- #
# the digest (item 5)                                                         #
# --------------------------------------------------------------------------- #


def test_a_save_is_version_3_with_a_digest_of_every_field(
    base: dict[str, Any],
) -> None:
    assert SAVE_VERSION == 3 and base["version"] == 3
    assert list(base) == [*SAVE_FIELDS, "digest"]
    assert base["digest"] == _field_digests(base)


def test_edited_objective_vp_refused(tmp_path: Path, data: dict[str, Any]) -> None:
    data["scenario"]["objectives"][0]["vp"] += 5
    path = write(tmp_path, data)
    assert refusal(path) == (
        f"save file {path}: scenario: the stored scenario was changed after saving "
        f"(digest mismatch); {EDITED}"
    )


def test_edited_turns_refused(tmp_path: Path, data: dict[str, Any]) -> None:
    data["scenario"]["turns"] = 2
    path = write(tmp_path, data)
    assert refusal(path) == (
        f"save file {path}: scenario: the stored scenario was changed after saving "
        f"(digest mismatch); {EDITED}"
    )


def test_edited_seed_refused(tmp_path: Path, data: dict[str, Any]) -> None:
    data["seed"] += 1
    path = write(tmp_path, data)
    assert refusal(path) == (
        f"save file {path}: seed: the seed was changed after saving (digest "
        f"mismatch); {EDITED}"
    )


def test_edited_actions_and_check_refused_naming_both(
    tmp_path: Path, data: dict[str, Any]
) -> None:
    data["actions"].pop()
    data["check"]["events"] -= 1
    path = write(tmp_path, data)
    assert refusal(path) == (
        f"save file {path}: actions, check: the actions and the check (event count "
        f"or state digest) were changed after saving (digest mismatch); {EDITED}"
    )


def test_digest_deleted_refused(tmp_path: Path, data: dict[str, Any]) -> None:
    del data["digest"]
    path = write(tmp_path, data)
    assert refusal(path) == f"save file {path}: digest: is missing; {DAMAGED}"


def test_digest_part_deleted_refused(tmp_path: Path, data: dict[str, Any]) -> None:
    del data["digest"]["scenario"]
    path = write(tmp_path, data)
    assert refusal(path) == f"save file {path}: digest.scenario: is missing; {DAMAGED}"


def test_digest_not_a_table_refused(tmp_path: Path, data: dict[str, Any]) -> None:
    data["digest"] = "0" * 64
    path = write(tmp_path, data)
    assert refusal(path) == (
        f"save file {path}: digest: must be a table with {', '.join(SAVE_FIELDS)}, "
        f"not '{'0' * 56}...; {DAMAGED}"
    )


def test_digest_part_not_a_sha256_refused(
    tmp_path: Path, data: dict[str, Any]
) -> None:
    data["digest"]["seed"] = "zz"
    path = write(tmp_path, data)
    assert refusal(path) == (
        f"save file {path}: digest.seed: must be a SHA-256 in 64 hex digits, not "
        f"'zz'; {DAMAGED}"
    )


def test_version_lowered_to_skip_the_digest_refused(
    tmp_path: Path, data: dict[str, Any]
) -> None:
    data["version"] = 2
    path = write(tmp_path, data)
    assert refusal(path) == (
        f"save file {path}: version: is 2, but the save has a digest (saves have "
        "one from version 3): the version was edited; set it back to 3, or use an "
        "unedited copy of the save"
    )


def test_digest_is_compared_before_anything_is_built(
    tmp_path: Path, data: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_build(*args: object, **kwargs: object) -> None:
        raise AssertionError("the scenario was loaded before the digest check")

    monkeypatch.setattr(game_module, "load_scenario", no_build)
    data["scenario"]["map"]["hex_size_m"] = 1  # would be a huge map if built
    path = write(tmp_path, data)
    assert refusal(path).startswith(f"save file {path}: scenario: the stored ")


# --------------------------------------------------------------------------- #
# the check: required and compared (item 5)                                   #
# --------------------------------------------------------------------------- #


def test_check_deleted_refused(tmp_path: Path, data: dict[str, Any]) -> None:
    del data["check"]
    path = write(tmp_path, data)
    assert refusal(path) == f"save file {path}: check: is missing; {DAMAGED}"


@pytest.mark.parametrize("version", [1, 2])
def test_check_deleted_refused_in_old_versions(
    tmp_path: Path, data: dict[str, Any], version: int
) -> None:
    old = as_version(data, version)
    del old["check"]
    path = write(tmp_path, old)
    assert refusal(path) == f"save file {path}: check: is missing; {DAMAGED}"


def test_check_state_deleted_refused(tmp_path: Path, data: dict[str, Any]) -> None:
    old = as_version(data, 2)
    del old["check"]["state"]
    path = write(tmp_path, old)
    assert refusal(path) == f"save file {path}: check.state: is missing; {DAMAGED}"


def test_check_events_wrong_refused(tmp_path: Path, data: dict[str, Any]) -> None:
    n = data["check"]["events"]
    data["check"]["events"] = n + 1
    path = write(tmp_path, redigest(data))
    assert refusal(path) == (
        f"save file {path}: check.events: replaying the actions gives {n} events, "
        f"the save has {n + 1}; the file is damaged or was written by another "
        "version"
    )


@pytest.mark.parametrize("version", [1, 2])
def test_check_events_wrong_refused_in_old_versions(
    tmp_path: Path, data: dict[str, Any], version: int
) -> None:
    old = as_version(data, version)
    n = old["check"]["events"]
    old["check"]["events"] = n - 1
    path = write(tmp_path, old)
    assert refusal(path) == (
        f"save file {path}: check.events: replaying the actions gives {n} events, "
        f"the save has {n - 1}; the file is damaged or was written by another "
        "version"
    )


def test_check_state_wrong_refused(tmp_path: Path, data: dict[str, Any]) -> None:
    data["check"]["state"] = "0" * 64
    path = write(tmp_path, redigest(data))
    assert refusal(path) == (
        f"save file {path}: check.state: replaying the actions does not give the "
        "saved state (checksum mismatch); the file is damaged or was written by "
        "another version"
    )


def test_check_events_true_refused(tmp_path: Path, data: dict[str, Any]) -> None:
    data["check"]["events"] = True
    path = write(tmp_path, data)
    assert refusal(path) == (
        f"save file {path}: check.events: must be a whole number >= 0, not True; "
        f"{DAMAGED}"
    )


def test_unknown_check_field_refused(tmp_path: Path, data: dict[str, Any]) -> None:
    data["check"]["skip"] = True
    path = write(tmp_path, data)
    assert refusal(path) == (
        f"save file {path}: check.skip: unknown field; remove it (check has only "
        "events, state)"
    )


# --------------------------------------------------------------------------- #
# field types (item 5)                                                        #
# --------------------------------------------------------------------------- #


def test_version_true_refused(tmp_path: Path, data: dict[str, Any]) -> None:
    data["version"] = True
    path = write(tmp_path, data)
    assert refusal(path) == (
        f"save file {path}: version: has a bad format version True (a whole number "
        f"from 1 to 3 is expected); {DAMAGED}"
    )


def test_version_float_refused(tmp_path: Path, data: dict[str, Any]) -> None:
    data["version"] = 3.0
    path = write(tmp_path, data)
    assert refusal(path) == (
        f"save file {path}: version: has a bad format version 3.0 (a whole number "
        f"from 1 to 3 is expected); {DAMAGED}"
    )


def test_version_huge_refused_with_a_short_message(
    tmp_path: Path, data: dict[str, Any]
) -> None:
    data["version"] = 10**4000
    path = write(tmp_path, data)
    assert refusal(path) == (
        f"save file {path}: version: uses save format version 1{'0' * 56}..., "
        "newer than this wargame supports (3); upgrade wargame"
    )


@pytest.mark.parametrize("seed", [True, 3.0, -1, "3", None])
def test_seed_not_a_whole_number_refused(
    tmp_path: Path, data: dict[str, Any], seed: object
) -> None:
    data["seed"] = seed
    path = write(tmp_path, data)
    assert refusal(path) == (
        f"save file {path}: seed: must be a whole number >= 0, not {seed!r}; "
        f"{DAMAGED}"
    )


def test_actions_not_a_list_refused(tmp_path: Path, data: dict[str, Any]) -> None:
    data["actions"] = {"type": "pass"}
    path = write(tmp_path, data)
    assert refusal(path) == (
        f"save file {path}: actions: must be a list of actions, not "
        f"{{'type': 'pass'}}; {DAMAGED}"
    )


def test_action_not_a_table_refused(tmp_path: Path, data: dict[str, Any]) -> None:
    data["actions"][2] = "pass"
    path = write(tmp_path, data)
    assert refusal(path) == (
        f"save file {path}: actions[2]: must be a table, not 'pass'; {DAMAGED}"
    )


def test_scenario_not_a_table_refused(tmp_path: Path, data: dict[str, Any]) -> None:
    data["scenario"] = "test_remagen"
    path = write(tmp_path, data)
    assert refusal(path) == (
        f"save file {path}: scenario: must be a table, not 'test_remagen'; {DAMAGED}"
    )


def test_scenario_source_not_text_refused(
    tmp_path: Path, data: dict[str, Any]
) -> None:
    data["scenario_source"] = 7
    path = write(tmp_path, data)
    assert refusal(path) == (
        f"save file {path}: scenario_source: must be text, not 7; {DAMAGED}"
    )


def test_wargame_version_not_text_refused(
    tmp_path: Path, data: dict[str, Any]
) -> None:
    data["wargame"] = [0, 1]
    path = write(tmp_path, data)
    assert refusal(path) == (
        f"save file {path}: wargame: must be text, not [0, 1]; {DAMAGED}"
    )


def test_ruleset_not_text_refused(tmp_path: Path, data: dict[str, Any]) -> None:
    data["ruleset"] = {"id": "waw-classic"}
    path = write(tmp_path, data)
    assert refusal(path) == (
        f"save file {path}: ruleset: must be text, not {{'id': 'waw-classic'}}; "
        f"{DAMAGED}"
    )


def test_unknown_top_level_field_refused(tmp_path: Path, data: dict[str, Any]) -> None:
    data["cheat"] = 1
    path = write(tmp_path, data)
    assert refusal(path) == (
        f"save file {path}: cheat: unknown field in a version-3 save; remove it "
        f"(a save has only {', '.join(SAVE_FIELDS)}, digest)"
    )


@pytest.mark.parametrize("field", ["wargame", "ruleset", "scenario_source", "seed"])
def test_missing_field_refused(
    tmp_path: Path, data: dict[str, Any], field: str
) -> None:
    del data[field]
    path = write(tmp_path, data)
    assert refusal(path) == f"save file {path}: {field}: is missing; {DAMAGED}"


def test_not_a_save_refused(tmp_path: Path) -> None:
    path = write(tmp_path, {"format": "something-else"})
    assert refusal(path) == (
        f'save file {path}: format: is not a wargame save (no "format": '
        f'"wargame-save"); {NOT_A_SAVE}'
    )


def test_invalid_stored_scenario_in_an_old_save_refused(
    tmp_path: Path, data: dict[str, Any]
) -> None:
    old = as_version(data, 2)
    old["scenario"]["turns"] = 0
    path = write(tmp_path, old)
    assert refusal(path) == (
        f"save file {path}: scenario: the stored scenario is invalid: turns: must "
        f"be a whole number >= 1, not 0; {DAMAGED}"
    )


def test_action_that_does_not_replay_names_its_index(
    tmp_path: Path, data: dict[str, Any]
) -> None:
    data["actions"].insert(0, {"type": "warp"})
    path = write(tmp_path, redigest(data))
    assert refusal(path).startswith(
        f"save file {path}: actions[0]: is not a valid action: unknown action "
        "type 'warp'; known: "
    )


# --------------------------------------------------------------------------- #
# reading: bounded, non-blocking, depth-safe (items 5 and 8)                  #
# --------------------------------------------------------------------------- #


def test_dev_zero_refused_quickly() -> None:
    if not os.path.exists("/dev/zero"):
        pytest.skip("no /dev/zero")
    assert refusal(Path("/dev/zero")) == (
        "save file /dev/zero: is not a regular file (a device, pipe or socket); "
        "give a file"
    )


def test_fifo_refused_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo)
    result: list[str] = []

    def load() -> None:
        try:
            Game.load(fifo)
        except SaveFileError as exc:
            result.append(str(exc))

    t = threading.Thread(target=load, daemon=True)
    t.start()
    t.join(60)  # a hang guard, not a timing assertion
    if t.is_alive():  # unblock a reader stuck in open(), then fail
        fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
        os.close(fd)
        t.join(10)
        pytest.fail("Game.load blocked on a FIFO")
    assert result == [
        f"save file {fifo}: is not a regular file (a device, pipe or socket); "
        "give a file"
    ]


def test_folder_refused(tmp_path: Path) -> None:
    assert refusal(tmp_path) == (
        f"save file {tmp_path}: is a folder, not a file; {NO_FILE}"
    )


def test_missing_file_refused(tmp_path: Path) -> None:
    path = tmp_path / "nope.json"
    assert refusal(path) == f"save file {path}: no such file; {NO_FILE}"


def test_too_large_file_refused(
    tmp_path: Path, data: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(game_module, "SAVE_MAX_BYTES", 1000)
    path = write(tmp_path, data)
    size = path.stat().st_size
    assert refusal(path) == (
        f"save file {path}: is {size} bytes, more than the limit of 1000 bytes; "
        "is this the right file?"
    )


def test_deep_nesting_refused(tmp_path: Path) -> None:
    path = write(tmp_path, b"[" * 100_000 + b"]" * 100_000)
    assert refusal(path) == (
        f"save file {path}: is not a wargame save: nested more than 33 levels "
        f"deep (arrays within arrays); {NOT_A_SAVE}"
    )


def test_deep_nesting_in_a_field_refused(
    tmp_path: Path, data: dict[str, Any]
) -> None:
    data["actions"] = "HERE"
    text = json.dumps(data).replace('"HERE"', "[" * 100_000 + "]" * 100_000)
    path = write(tmp_path, text)
    assert refusal(path) == (
        f"save file {path}: is not a wargame save: nested more than 33 levels "
        f"deep (arrays within arrays); {NOT_A_SAVE}"
    )


def test_binary_file_refused(tmp_path: Path) -> None:
    path = write(tmp_path, bytes(range(256)))
    assert refusal(path) == (
        f"save file {path}: is not a wargame save (not UTF-8 text: byte 128 is "
        f"invalid); {NOT_A_SAVE}"
    )


def test_truncated_file_refused(tmp_path: Path, data: dict[str, Any]) -> None:
    path = write(tmp_path, json.dumps(data)[:100])
    message = refusal(path)
    assert message.startswith(
        f"save file {path}: is not a wargame save (not valid JSON: "
    )
    assert message.endswith(f"); {NOT_A_SAVE}") and "\n" not in message


# --------------------------------------------------------------------------- #
# writing: atomic, clear errors (item 5's writer, item 8)                     #
# --------------------------------------------------------------------------- #


def test_atomic_write_leaves_old_file_intact_when_writing_fails(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "game.json"
    path.write_text("the old save\n")

    def disk_full(src: object, dst: object) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "replace", disk_full)
    with pytest.raises(SaveFileError) as err:
        played(steps=2).save(path)
    assert str(err.value) == (
        f"save file {path}: cannot be written ({os.strerror(errno.ENOSPC)}); "
        "choose an existing folder you may write to, on a disk with room"
    )
    assert isinstance(err.value.__cause__, OSError)
    assert path.read_text() == "the old save\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["game.json"]


def test_save_into_a_missing_folder_refused(tmp_path: Path) -> None:
    path = tmp_path / "no" / "game.json"
    with pytest.raises(SaveFileError) as err:
        played(steps=2).save(path)
    assert str(err.value) == (
        f"save file {path}: cannot be written ({os.strerror(errno.ENOENT)}); "
        "choose an existing folder you may write to, on a disk with room"
    )
    assert list(tmp_path.iterdir()) == []


def test_save_over_a_folder_refused_without_tmp(tmp_path: Path) -> None:
    target = tmp_path / "game.json"
    target.mkdir()
    with pytest.raises(SaveFileError) as err:
        played(steps=2).save(target)
    assert str(err.value).startswith(f"save file {target}: cannot be written (")
    assert [p.name for p in tmp_path.iterdir()] == ["game.json"]
    assert target.is_dir() and list(target.iterdir()) == []


def test_save_and_load_refuse_a_path_that_is_not_a_path() -> None:
    with pytest.raises(SaveFileError) as err:
        Game.load(3)  # type: ignore[arg-type]
    assert str(err.value) == (
        "Game.load: path: must be a file path (str or os.PathLike), not 3; give "
        "the path of a file written by Game.save"
    )
    with pytest.raises(SaveFileError) as err:
        played(steps=0).save(None)  # type: ignore[arg-type]
    assert str(err.value) == (
        "Game.save: path: must be a file path (str or os.PathLike), not None; "
        "give the path of the save file to write"
    )


# --------------------------------------------------------------------------- #
# old saves, round trip, nothing half-built                                   #
# --------------------------------------------------------------------------- #


def test_old_v2_save_still_loads() -> None:
    # written by wargame 0.1.0's Game.save (save format 2), before the digest
    game = Game.load(DATA / "remagen_v2.json")
    saved = json.loads((DATA / "remagen_v2.json").read_text())
    assert saved["version"] == 2 and "digest" not in saved
    assert len(game.events) == saved["check"]["events"] == 30
    assert game.state.digest() == saved["check"]["state"]
    fresh = Game(SCENARIO, seed=5)
    for _ in range(12):
        fresh.step()
    assert game.log.equals(fresh.log)


def test_old_v2_save_continues_and_saves_as_v3(tmp_path: Path) -> None:
    game = Game.load(DATA / "remagen_v2.json")
    game.step()
    again = Game.load(game.save(tmp_path / "v3.json"))
    assert json.loads((tmp_path / "v3.json").read_text())["version"] == 3
    assert again.log.equals(game.log)


def test_constructed_v2_save_still_loads(tmp_path: Path, data: dict[str, Any]) -> None:
    path = write(tmp_path, as_version(data, 2))
    game = Game.load(path)
    assert game.state.digest() == data["check"]["state"]


def test_v2_stored_scenario_is_not_covered(
    tmp_path: Path, base: dict[str, Any], data: dict[str, Any]
) -> None:
    # documented: only version-3 saves cover the stored scenario
    old = as_version(data, 2)
    old["scenario"]["objectives"][0]["vp"] += 5
    game = Game.load(write(tmp_path, old))
    vp = base["scenario"]["objectives"][0]["vp"]
    assert game.scenario.data["objectives"][0]["vp"] == vp + 5


def test_round_trip_save_load_continue_equal(tmp_path: Path) -> None:
    original = played(seed=11, steps=20)
    loaded = Game.load(original.save(tmp_path / "half.json"))
    assert loaded.state.digest() == original.state.digest()
    assert loaded.log.equals(original.log)
    original.run()
    loaded.run()
    assert loaded.outcome == original.outcome
    assert loaded.log.equals(original.log)
    assert loaded.state.digest() == original.state.digest()


def test_a_damaged_save_builds_and_changes_nothing(
    tmp_path: Path, data: dict[str, Any]
) -> None:
    seen: list[object] = []
    policies: dict[str, Any] = {}
    data["actions"].insert(3, {"type": "end_activation"})
    path = write(tmp_path, redigest(data))
    pattern = r"^save file .*: actions\[\d+\]: action #\d+ .* does not replay: "
    with pytest.raises(SaveFileError, match=pattern):
        Game.load(path, policies=policies, listeners=[lambda e, s: seen.append(e)])
    assert seen == [] and policies == {}
    # the same file, repaired, loads; the failed attempt left nothing behind
    data["actions"].pop(3)
    assert len(Game.load(write(tmp_path, redigest(data))).events) == (
        data["check"]["events"]
    )


def test_unknown_field_with_an_odd_name_is_shown_on_one_line(
    tmp_path: Path, data: dict[str, Any]
) -> None:
    odd = "a\nb" * 50
    data[odd] = 1
    path = write(tmp_path, data)
    message = refusal(path)
    assert "\n" not in message
    assert message == (
        f"save file {path}: {repr(odd)[:57]}...: unknown field "
        f"in a version-3 save; remove it (a save has only {', '.join(SAVE_FIELDS)}, "
        "digest)"
    )
