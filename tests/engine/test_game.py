"""The Game facade: determinism, save/load, undo/redo, replay, illegal actions,
damaged save files (played with the World at War test scenario)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from wargame.engine import (
    LOG_COLUMNS,
    Game,
    IllegalActionError,
    SaveFileError,
    load_scenario,
)
from wargame.engine.game import _field_digests
from wargame.rules.waw import Activate, Defer, EndActivation, Move, Pass

SCENARIO = load_scenario("test_remagen")


def played(seed: int, steps: int | None = None) -> Game:
    g = Game(SCENARIO, seed=seed)
    if steps is None:
        g.run()
    else:
        for _ in range(steps):
            g.step()
    return g


# --------------------------------------------------------------------------- #
# determinism                                                                 #
# --------------------------------------------------------------------------- #


def test_same_scenario_seed_and_actions_give_an_identical_log_frame() -> None:
    a = played(11)
    b = Game(SCENARIO, seed=11)
    for action in a.actions:
        b.apply(action)
    pd.testing.assert_frame_equal(a.log, b.log)
    pd.testing.assert_frame_equal(a.log, played(11).log)
    assert a.state.digest() == b.state.digest()
    assert not played(12).log.equals(a.log)


def test_save_load_and_continue_gives_the_same_log_as_uninterrupted_play(
    tmp_path: Path,
) -> None:
    full = played(5)
    part = played(5, steps=len(full.actions) // 2)
    loaded = Game.load(part.save(tmp_path / "game.json"))
    pd.testing.assert_frame_equal(loaded.log, part.log)
    assert loaded.state.digest() == part.state.digest()
    loaded.run()
    pd.testing.assert_frame_equal(loaded.log, full.log)
    assert loaded.outcome == full.outcome


def test_undo_then_redo_gives_the_same_state() -> None:
    g = played(8, steps=40)
    digest, log = g.state.digest(), g.log
    rng_state = g.rng.bit_generator.state
    undone = [g.undo() for _ in range(3)]
    assert len(g.actions) == 37 and g.state.digest() != digest
    for action in reversed(undone):
        g.apply(action)
    assert g.state.digest() == digest
    assert g.rng.bit_generator.state == rng_state
    pd.testing.assert_frame_equal(g.log, log)


def test_undo_with_nothing_to_undo() -> None:
    with pytest.raises(IndexError, match="nothing to undo"):
        Game(SCENARIO, seed=1).undo()


def test_replay_rebuilds_every_state_from_the_events_alone() -> None:
    seen: list[str] = []
    g = Game(SCENARIO, seed=21, listeners=[lambda e, s: seen.append(s.digest())])
    for _ in range(60):
        g.step()
    replayed = [state.digest() for _event, state in g.replay()]
    assert replayed == seen and len(seen) == len(g.events)


# --------------------------------------------------------------------------- #
# the API in use                                                              #
# --------------------------------------------------------------------------- #


def test_log_and_units_frames() -> None:
    g = played(2)
    log = g.log
    assert tuple(log.columns) == LOG_COLUMNS
    assert log["seq"].tolist() == list(range(1, len(log) + 1))
    for col in ("phase", "side", "formation", "action", "kind", "unit", "target"):
        assert str(log[col].dtype) == "string", col
    assert set(log["side"].dropna()) == {"nato", "pact"}
    rolls = log[log["kind"] == "fire"]
    assert len(rolls) and rolls["dice"].map(len).gt(0).all()
    assert rolls["needed"].between(1, 6).all()
    units = g.units
    assert {"hex", "strength", "disrupted", "ops_complete", "status"} <= set(units)
    assert set(units.index) == set(g.state.units)
    assert units["status"].isin(["ok", "disrupted", "destroyed"]).all()
    assert "waw-classic" in repr(g) and "seed=2" in repr(g)


def test_step_and_run() -> None:
    g = Game(SCENARIO, seed=4)
    g.run(turns=1)
    assert g.state.turn == 2 and not g.is_over
    out = g.run()
    assert out is not None and g.step() is None and g.current_side is None
    assert out.to_dict()["termination"] in ("turn limit", "annihilation")


def test_actions_may_be_given_as_dicts() -> None:
    g = Game(SCENARIO, seed=1)
    drawn = g.state.vars["drawn"]
    g.apply({"type": "activate", "formation": drawn})
    assert g.actions[-1] == Activate(drawn)
    with pytest.raises(IllegalActionError, match="unknown action type 'fly'"):
        g.apply({"type": "fly"})


def test_state_for_a_side() -> None:
    g = Game(SCENARIO, seed=1)
    assert set(g.state_for("nato").units) == set(g.state.units)  # nothing hidden
    with pytest.raises(ValueError, match="unknown side 'red'"):
        g.state_for("red")
    assert g.describe(Move("US-M1", "O18")) == "M60 platoon 1/A moves to O18"


# --------------------------------------------------------------------------- #
# illegal actions                                                             #
# --------------------------------------------------------------------------- #


def activate(g: Game, formation: str) -> None:
    for _ in range(400):
        v = g.state.vars
        if v.get("active") == formation and not v.get("drawn") and not v.get("opp"):
            return
        d = v.get("drawn")
        if d == formation or (d and v.get("drawn_deferred")):
            g.apply(Activate(d))
        elif d:
            g.apply(Defer(d))
        elif v.get("opp"):
            g.apply(Pass())
        else:
            g.apply(EndActivation())
    raise AssertionError("never activated")


def situation() -> dict:
    data = json.loads(json.dumps(SCENARIO.data))
    for u in data["units"]:
        if u["id"] == "SU-T1":
            u.update(type="t80", name="T-80 platoon 1/74")
        if u["id"] in ("US-M1", "US-HQ"):
            u["hex"] = "K12"
        if u["id"] == "US-M2":
            u["hex"] = "K12"
        if u["id"] == "US-INF2":
            u["hex"] = "J12"
            u["name"] = "Infantry platoon 4/A"
    return data


def assert_untouched(g: Game, action: object, message: str) -> None:
    before = (
        g.state.digest(),
        len(g.events),
        len(g.actions),
        g.rng.bit_generator.state,
    )
    log = g.log
    with pytest.raises(IllegalActionError) as err:
        g.apply(action)  # type: ignore[arg-type]
    assert str(err.value) == message
    assert isinstance(err.value, ValueError)
    after = (g.state.digest(), len(g.events), len(g.actions), g.rng.bit_generator.state)
    assert after == before
    pd.testing.assert_frame_equal(g.log, log)


def test_an_ops_complete_unit_cannot_act_and_nothing_changes() -> None:
    g = Game.from_scenario(situation(), seed=3)
    activate(g, "1/74")
    g.apply(Move("SU-T1", "H16"))
    while g.state.vars.get("opp"):
        g.apply(Pass())
    g.apply(Move("SU-T2", "I15"))  # the T-80's action is over
    while g.state.vars.get("opp"):
        g.apply(Pass())
    assert_untouched(g, Move("SU-T1", "H17"), "T-80 platoon 1/74 is Ops Complete")


def test_a_move_that_would_overstack_is_refused() -> None:
    g = Game.from_scenario(situation(), seed=3)
    activate(g, "A/1-32")
    assert_untouched(g, Move("US-INF2", "K12"), "stack at K12 would hold 3 units")


def test_acting_out_of_turn_is_refused() -> None:
    g = Game.from_scenario(situation(), seed=3)
    drawn = g.state.vars["drawn"]
    name = g.state.formations[drawn].name
    assert_untouched(
        g,
        Move("US-M1", "K11"),
        f"the chit of {name} was drawn: activate or defer it first",
    )
    assert_untouched(
        g,
        Move("nobody", "K11"),
        (f"the chit of {name} was drawn: activate or defer it first"),
    )
    activate(g, "A/1-32")
    assert_untouched(g, Move("nobody", "K11"), "there is no unit 'nobody' in this game")
    assert_untouched(
        g,
        Move("SU-T2", "I15"),
        "T-72 platoon 2/1/74 is not in the active formation (Team A, 1-32 Armor)",
    )


# --------------------------------------------------------------------------- #
# damaged and foreign save files                                              #
# --------------------------------------------------------------------------- #


@pytest.fixture(scope="module")
def save_data(tmp_path_factory: pytest.TempPathFactory) -> dict:
    path = played(9, steps=25).save(tmp_path_factory.mktemp("s") / "g.json")
    return json.loads(path.read_text())  # type: ignore[no-any-return]


def _redigest(d: dict) -> dict:
    """A damaged save with its digest made to match, so that the checks behind
    the digest are reached."""
    return {**d, "digest": _field_digests(d)}


def _old(d: dict, version: int) -> dict:
    """The save as a version-1 or 2 save (no digest)."""
    return {k: v for k, v in d.items() if k != "digest"} | {"version": version}


def _write(tmp_path: Path, content: object) -> Path:
    p = tmp_path / "save.json"
    p.write_text(content if isinstance(content, str) else json.dumps(content))
    return p


def test_a_save_is_versioned_json_with_scenario_seed_and_actions(
    save_data: dict,
) -> None:
    assert save_data["format"] == "wargame-save" and save_data["version"] == 3
    assert save_data["seed"] == 9 and save_data["ruleset"] == "waw-classic"
    assert len(save_data["actions"]) == 25
    assert save_data["scenario"]["id"] == "test_remagen"


@pytest.mark.parametrize(
    ("damage", "problem"),
    [
        (lambda d: "{not json", "is not a wargame save (not valid JSON"),
        (lambda d: json.dumps(d)[:200], "is not a wargame save (not valid JSON"),
        (lambda d: {"hello": "world"}, 'is not a wargame save (no "format": '),
        (lambda d: [1, 2], 'is not a wargame save (no "format": '),
        (lambda d: {**d, "version": 99}, "uses save format version 99, newer than"),
        (lambda d: {**d, "version": "one"}, "has a bad format version 'one'"),
        (lambda d: {**d, "seed": -1}, "seed: must be a whole number >= 0, not -1; "),
        (lambda d: {**d, "actions": None}, "actions: must be a list of actions, not"),
        (lambda d: {**d, "scenario": 3}, "scenario: must be a table, not 3; "),
        (
            lambda d: _redigest({**d, "scenario": {**d["scenario"], "turns": 0}}),
            "scenario: the stored scenario is invalid: turns: ",
        ),
        (
            lambda d: _redigest({**d, "ruleset": "xyz-9"}),
            "ruleset: 'xyz-9' does not match the stored scenario's 'waw-classic'",
        ),
        (
            lambda d: _redigest(
                {
                    **d,
                    "ruleset": "xyz-9",
                    "scenario": {**d["scenario"], "ruleset": "xyz-9"},
                }
            ),
            "unknown ruleset 'xyz-9'; available: ",
        ),
        (
            lambda d: _redigest({**d, "actions": [{"type": "warp"}, *d["actions"]]}),
            "actions[0]: is not a valid action: unknown action type 'warp'",
        ),
        (
            lambda d: _redigest(
                {**d, "actions": [{"type": "end_activation"}, *d["actions"]]}
            ),
            "action #0 ({'type': 'end_activation'}) does not replay: the chit of",
        ),
        (
            lambda d: _redigest({**d, "check": {**d["check"], "state": "0" * 64}}),
            "check.state: replaying the actions does not give the saved state "
            "(checksum mismatch)",
        ),
        (
            lambda d: _redigest({**d, "check": {**d["check"], "events": 3}}),
            "check.events: replaying the actions gives ",
        ),
        (
            lambda d: {**_old(d, 1), "check": {**d["check"], "events": 3}},
            "check.events: replaying the actions gives ",
        ),
    ],
)
def test_damaged_or_foreign_save_files_give_a_clear_error(
    tmp_path: Path, save_data: dict, damage, problem: str
) -> None:
    path = _write(tmp_path, damage(save_data))
    with pytest.raises(SaveFileError) as err:
        Game.load(path)
    assert str(err.value).startswith(f"save file {path}: ")
    assert problem in str(err.value)


def test_a_version_1_save_still_loads_checked_by_its_event_count(
    tmp_path: Path, save_data: dict
) -> None:
    # version 1 digested the old state layout (World at War's disrupted,
    # ops_complete and carried_by as engine Unit fields): the digest is not
    # compared, the event count is
    old = {**_old(save_data, 1), "check": {**save_data["check"]}}
    old["check"]["state"] = "f" * 64
    game = Game.load(_write(tmp_path, old))
    assert len(game.events) == save_data["check"]["events"]
    assert game.state.digest() == save_data["check"]["state"]
    assert game.log.equals(played(9, steps=25).log)


def test_a_missing_save_file(tmp_path: Path) -> None:
    with pytest.raises(SaveFileError, match="no such file"):
        Game.load(tmp_path / "nope.json")


def test_a_binary_file_is_not_a_save(tmp_path: Path) -> None:
    p = tmp_path / "x.json"
    p.write_bytes(np.arange(256, dtype=np.uint8).tobytes())
    with pytest.raises(SaveFileError, match=r"cannot be read|not a wargame save"):
        Game.load(p)
