"""`out=`: Parquet results that survive a kill and resume without losing or
replaying finished games; folders of other studies are refused up front."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest
from batch_helpers import SCENARIO, Counter, ExplodingPolicy, same_frame

from wargame import batch
from wargame.batch import BatchError, runner
from wargame.engine import load_scenario

SHORT = {"short": {"turns": 2}}


def parts(out: Path) -> dict[str, float]:
    return {p.name: p.stat().st_mtime_ns for p in (out / "results").glob("*.parquet")}


def rows_on_disk(out: Path) -> int:
    return sum(len(pd.read_parquet(p)) for p in (out / "results").glob("*.parquet"))


@pytest.fixture(scope="module")
def whole() -> pd.DataFrame:
    """The uninterrupted run every resumed run must reproduce."""
    return batch.run(SCENARIO, 40, seed=11, variants=SHORT, processes=1, progress=False)


def test_resume_plays_only_the_missing_games(tmp_path, monkeypatch, whole) -> None:
    out = tmp_path / "study"
    first = batch.run(
        SCENARIO, 15, seed=11, variants=SHORT, processes=1, progress=False, out=out
    )
    same_frame(first, whole.iloc[:15])
    before = parts(out)
    counter = Counter(runner.play_chunk)
    monkeypatch.setattr(runner, "play_chunk", counter)
    resumed = batch.run(
        SCENARIO, 40, seed=11, variants=SHORT, processes=1, progress=False, out=out
    )
    assert sorted(g for _, g in counter.games) == list(range(15, 40))
    same_frame(resumed, whole)
    assert {k: v for k, v in parts(out).items() if k in before} == before
    assert rows_on_disk(out) == 40
    # once more: nothing left to play, same frame read back from Parquet
    counter.games.clear()
    again = batch.run(
        SCENARIO, 40, seed=11, variants=SHORT, processes=1, progress=False, out=out
    )
    assert counter.games == []
    same_frame(again, whole)
    same_frame(batch.read_results(out), whole)


KILLED = """
import sys
from wargame import batch
batch.run("test_remagen", 40, seed=11, variants={"short": {"turns": 2}},
          processes=1, progress=False, out=sys.argv[1])
"""


def test_kill_mid_run_then_resume_gives_exactly_n_rows(tmp_path, whole) -> None:
    out = tmp_path / "killed"
    proc = subprocess.Popen(
        [sys.executable, "-c", KILLED, str(out)], env=os.environ.copy()
    )
    try:
        deadline = time.monotonic() + 60
        while len(parts(out)) < 2 if (out / "results").is_dir() else True:
            assert proc.poll() is None, "the run ended before it could be killed"
            assert time.monotonic() < deadline, "no results after 60 s"
            time.sleep(0.02)
        proc.kill()  # SIGKILL: no clean-up, no finally blocks
    finally:
        proc.wait()
    done = rows_on_disk(out)
    assert 0 < done < 40
    before = parts(out)
    resumed = batch.run(
        SCENARIO, 40, seed=11, variants=SHORT, processes=2, progress=False, out=out
    )
    assert len(resumed) == 40
    same_frame(resumed, whole)
    # the parts written before the kill are untouched, and every game is on disk
    # exactly once: nothing was lost, nothing played twice
    assert {k: v for k, v in parts(out).items() if k in before} == before
    games = pd.concat(pd.read_parquet(p) for p in (out / "results").glob("*.parquet"))
    assert sorted(games["game"]) == list(range(40))
    assert not list((out / "results").glob(".*.tmp"))


def test_failed_games_are_stored_and_played_again_on_resume(tmp_path) -> None:
    out = tmp_path / "errors"
    bad = batch.game_seeds(11, 5)[2]
    policies = {"nato": ExplodingPolicy(bad)}
    with pytest.warns(RuntimeWarning):
        df = batch.run(
            SCENARIO,
            5,
            seed=11,
            variants=SHORT,
            processes=1,
            progress=False,
            out=out,
            policies=policies,
        )
    assert df["error"].notna().sum() == 1
    stored = batch.read_results(out)
    assert stored.loc[stored["error"].notna(), "game"].tolist() == [2]
    counter = Counter(runner.play_chunk)
    original = runner.play_chunk
    try:
        runner.play_chunk = counter
        with pytest.warns(RuntimeWarning):
            again = batch.run(
                SCENARIO,
                5,
                seed=11,
                variants=SHORT,
                processes=1,
                progress=False,
                out=out,
                policies=policies,
            )
    finally:
        runner.play_chunk = original
    assert counter.games == [("short", 2)]
    assert len(again) == 5 and rows_on_disk(out) == 5


# --------------------------------------------------------------------------- #
# folders that belong to another study: refused before any game runs          #
# --------------------------------------------------------------------------- #


@pytest.fixture()
def no_games(monkeypatch):
    def refuse(task):  # pragma: no cover - reached only if the check fails
        raise AssertionError("a game ran")

    monkeypatch.setattr(runner, "play_chunk", refuse)


@pytest.fixture(scope="module")
def used(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("used") / "study"
    batch.run(SCENARIO, 2, seed=1, variants=SHORT, processes=1, progress=False, out=out)
    return out


def test_out_holding_another_scenario_is_refused(used, no_games) -> None:
    other = load_scenario(SCENARIO).to_dict()
    other["id"] = "other_study"
    with pytest.raises(BatchError, match=r"holds results of scenario 'test_remagen'"):
        batch.run(other, 2, seed=1, variants=SHORT, out=used, progress=False)


def test_out_holding_an_edited_scenario_is_refused(used, no_games) -> None:
    edited = load_scenario(SCENARIO).to_dict()
    edited["objectives"][0]["vp"] = 5
    with pytest.raises(BatchError, match=r"another version of scenario"):
        batch.run(edited, 2, seed=1, variants=SHORT, out=used, progress=False)


def test_out_with_another_seed_is_refused(used, no_games) -> None:
    with pytest.raises(BatchError, match=r"holds results of seed 1, not 2"):
        batch.run(SCENARIO, 2, seed=2, variants=SHORT, out=used, progress=False)


def test_a_reused_variant_name_with_other_overrides_is_refused(used, no_games) -> None:
    with pytest.raises(BatchError, match=r"variant 'short' run with other overrides"):
        batch.run(
            SCENARIO,
            2,
            seed=1,
            variants={"short": {"turns": 3}},
            out=used,
            progress=False,
        )


def test_logs_asked_for_a_folder_run_without_them_is_refused(used, no_games) -> None:
    with pytest.raises(BatchError, match=r"without event logs"):
        batch.run(
            SCENARIO, 2, seed=1, variants=SHORT, out=used, progress=False, logs=True
        )


def test_a_folder_that_is_not_a_batch_is_refused(tmp_path, no_games) -> None:
    (tmp_path / "notes.txt").write_text("mine")
    with pytest.raises(BatchError, match=r"not empty and has no manifest.json"):
        batch.run(SCENARIO, 2, out=tmp_path, progress=False)
    assert [p.name for p in tmp_path.iterdir()] == ["notes.txt"]


def test_a_new_variant_is_added_to_an_existing_folder(tmp_path) -> None:
    out = tmp_path / "grow"
    batch.run(SCENARIO, 2, seed=1, variants=SHORT, processes=1, progress=False, out=out)
    both = {**SHORT, "one turn": {"turns": 1}}
    df = batch.run(
        SCENARIO, 2, seed=1, variants=both, processes=1, progress=False, out=out
    )
    assert df.groupby("variant", observed=True).size().to_dict() == {
        "short": 2,
        "one turn": 2,
    }
    assert rows_on_disk(out) == 4
