"""Acceptance: every shipped scenario validates, plays to the end AI against AI
(doctrine on both sides, 50 seeds), doctrine beats random from either side, and
`wargame run` exits 0 and writes the log it was asked for."""

from __future__ import annotations

import multiprocessing
import os
import subprocess
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pandas as pd
import pytest
from scenario_helpers import REPO, SHIPPED, play

from wargame.cli import main
from wargame.engine import Game, available_scenarios, check_scenario, load_scenario

SEEDS = 50  # doctrine against doctrine, per scenario (issue 5 acceptance)
VS_RANDOM = 10  # doctrine against random, per scenario and side


@pytest.fixture(scope="module")
def pool() -> ProcessPoolExecutor:
    # warm the map and LOS caches once, then share them with two workers
    for name in SHIPPED:
        Game.from_scenario(name, seed=0)
    # spawn, not fork: the parent may hold numba/OpenMP threads
    with ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("spawn")) as ex:
        yield ex  # type: ignore[misc]


def test_the_shipped_scenarios_are_found_by_name() -> None:
    assert set(SHIPPED) <= set(available_scenarios())


@pytest.mark.parametrize("name", SHIPPED)
def test_every_scenario_validates_and_says_what_is_history(name: str) -> None:
    assert check_scenario(name) == []
    s = load_scenario(name)
    for field in ("description", "briefing", "historical_note", "balance_note"):
        assert len(s.text(field)) > 80, f"{name}: {field} too short"
    assert "Documented" in s.text("historical_note")
    assert "Invented" in s.text("historical_note")
    assert {s.posture(x["id"]) for x in s.sides} == {"attack", "defend"}


@pytest.mark.slow
@pytest.mark.parametrize("name", SHIPPED)
def test_doctrine_plays_every_scenario_to_the_end_for_50_seeds(
    name: str, pool: ProcessPoolExecutor
) -> None:
    # every event of every game is checked against the invariants (see play)
    tasks = [(name, seed, "doctrine", "doctrine") for seed in range(SEEDS)]
    results = list(pool.map(play, tasks))
    turns = load_scenario(name).turns
    assert len(results) == SEEDS
    for _winner, termination, turn in results:
        assert termination in ("turn limit", "annihilation")
        assert termination == "annihilation" or turn == turns
    winners = {w for w, _t, _n in results}
    assert len(winners - {None}) == 2, f"{name}: one side never wins: {winners}"


@pytest.mark.slow
@pytest.mark.parametrize("name", SHIPPED)
def test_doctrine_beats_random_from_either_side(
    name: str, pool: ProcessPoolExecutor
) -> None:
    a, b = (s["id"] for s in load_scenario(name).sides)
    first = list(
        pool.map(play, [(name, s, "doctrine", "random") for s in range(VS_RANDOM)])
    )
    second = list(
        pool.map(play, [(name, s, "random", "doctrine") for s in range(VS_RANDOM)])
    )
    share_a = sum(w == a for w, _t, _n in first) / VS_RANDOM
    share_b = sum(w == b for w, _t, _n in second) / VS_RANDOM
    assert share_a >= 0.8, f"doctrine as {a} won only {share_a:.0%} against random"
    assert share_b >= 0.8, f"doctrine as {b} won only {share_b:.0%} against random"


@pytest.mark.parametrize(
    ("name", "suffix"),
    [
        ("remagen_linz_crossing", ".csv"),
        ("ahr_delay", ".parquet"),
        ("siebengebirge_heights", ".csv"),
    ],
)
def test_wargame_run_exits_0_and_writes_the_log(
    name: str, suffix: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log, save = tmp_path / f"log{suffix}", tmp_path / "game.json"
    code = main(["run", name, "--seed", "3", "--out", str(log), "--save", str(save)])
    assert code == 0
    out = capsys.readouterr().out
    assert "result: " in out and "victory points: " in out and "destroyed" in out
    frame = pd.read_csv(log) if suffix == ".csv" else pd.read_parquet(log)
    game = Game.load(save)  # the save replays to the same game
    assert len(frame) == len(game.events) and game.is_over
    assert list(frame.columns)[:3] == ["seq", "turn", "phase"]
    assert sorted(os.listdir(tmp_path)) == sorted([log.name, "game.json"])


def test_the_wargame_command_runs_a_scenario_for_a_few_turns(tmp_path: Path) -> None:
    log = tmp_path / "log.csv"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "wargame.cli",
            "run",
            "remagen_linz_crossing",
            "--turns",
            "1",
            "--policy",
            "frg=greedy",
            "--out",
            str(log),
        ],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=300,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert "stopped after turn 1 of 8: not over" in proc.stdout
    assert "Bundeswehr = greedy" in proc.stdout
    assert log.stat().st_size > 0
