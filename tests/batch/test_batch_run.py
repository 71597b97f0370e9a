"""`wargame.batch.run`: one row per game, seeds, identical frames whatever the
executor, failed games reported and isolated, replay of a row, event logs."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from batch_helpers import SCENARIO, VARIANTS, Counter, ExplodingPolicy, same_frame

from wargame import batch
from wargame.batch import runner
from wargame.engine import Game, load_scenario

N = 6


@pytest.fixture(scope="module")
def serial() -> pd.DataFrame:
    return batch.run(
        SCENARIO, N, seed=3, variants=VARIANTS, processes=1, progress=False
    )


def test_one_row_per_variant_and_game_in_order(serial: pd.DataFrame) -> None:
    assert len(serial) == 2 * N
    assert list(serial["variant"].astype(str)) == ["base"] * N + ["short"] * N
    assert list(serial["game"]) == list(range(N)) * 2
    assert (serial["scenario"] == "test_remagen").all()
    assert serial["error"].isna().all()
    assert set(serial["winner"].astype(str)) <= {"nato", "pact", "draw"}
    assert (serial["turns"] <= 4).all()
    assert (serial.loc[serial["variant"] == "short", "turns"] <= 2).all()
    assert (serial["wall_time"] > 0).all()


def test_game_i_gets_the_ith_seed_sequence_child_in_every_variant(
    serial: pd.DataFrame,
) -> None:
    children = np.random.SeedSequence(3).spawn(N)
    expected = [
        int(c.generate_state(1, np.uint64)[0] >> np.uint64(1)) for c in children
    ]
    for _, grp in serial.groupby("variant", observed=True):
        assert grp["seed"].tolist() == expected
    # game i's seed does not depend on how many games are asked for
    assert batch.game_seeds(3, 2 * N)[:N] == expected


def test_columns_count_losses_by_side_and_unit_type(serial: pd.DataFrame) -> None:
    for side in ("nato", "pact"):
        by_type = serial[[c for c in serial if c.startswith(f"lost_{side}_")]]
        assert (by_type.sum(axis=1) == serial[f"lost_{side}"]).all()
    assert {"lost_nato_m60", "lost_pact_t72", "lost_pact_ussr_hq"} <= set(serial)
    assert {"held_N16", "held_Q11", "held_H16"} <= set(serial)
    assert (serial["policy_nato"] == "random").all()


def test_frame_is_the_same_with_one_process_and_two(serial: pd.DataFrame) -> None:
    two = batch.run(SCENARIO, N, seed=3, variants=VARIANTS, processes=2, progress=False)
    same_frame(serial, two)


def test_frame_is_the_same_on_a_two_worker_dask_cluster(serial: pd.DataFrame) -> None:
    distributed = pytest.importorskip("distributed")
    with (
        distributed.LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=False,
            dashboard_address=":0",
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        on_dask = batch.run(
            SCENARIO, N, seed=3, variants=VARIANTS, client=client, progress=False
        )
    same_frame(serial, on_dask)


def test_game_for_replays_a_row_exactly(serial: pd.DataFrame) -> None:
    row = serial[serial["variant"] == "short"].iloc[2]
    game = batch.game_for(
        SCENARIO, int(row["seed"]), variant="short", variants=VARIANTS
    )
    outcome = game.run()
    assert (outcome.winner or "draw") == row["winner"]
    assert dict(outcome.victory_points) == {
        "nato": row["vp_nato"],
        "pact": row["vp_pact"],
    }
    assert len(game.actions) == row["actions"]
    assert len(game.events) == row["events"]


def test_destroyed_lists_every_destruction_with_turn_and_hex(
    serial: pd.DataFrame,
) -> None:
    scenario = load_scenario(SCENARIO)
    for _, row in serial[serial["variant"] == "base"].iterrows():
        events = json.loads(row["destroyed"])
        game = Game(scenario, seed=int(row["seed"]))
        game.run()
        units = game.units
        dead = set(units.index[units["status"] == "destroyed"])
        # every unit out of play at the end was destroyed once, in a hex
        assert dead <= {e["unit"] for e in events}
        assert all(e["hex"] and 1 <= e["turn"] <= row["turns"] for e in events)
        for e in events:
            assert units.loc[e["unit"], "side"] == e["side"]
            assert units.loc[e["unit"], "type"] == e["type"]


def test_a_game_that_raises_is_a_row_with_its_seed_and_the_others_go_on() -> None:
    seeds = batch.game_seeds(0, 4)
    bad = seeds[1]
    with pytest.warns(RuntimeWarning, match=rf"game 1, seed {bad}"):
        df = batch.run(
            SCENARIO,
            4,
            seed=0,
            processes=2,
            progress=False,
            policies={"nato": ExplodingPolicy(bad)},
            variants={"short": {"turns": 2}},
        )
    assert len(df) == 4
    failed = df[df["error"].notna()]
    assert failed["game"].tolist() == [1]
    assert failed["seed"].tolist() == [bad]
    assert failed["variant"].astype(str).tolist() == ["short"]
    assert failed["error"].iloc[0].startswith("RuntimeError: the policy exploded")
    assert failed["winner"].isna().all() and failed["lost_nato"].isna().all()
    ok = df[df["error"].isna()]
    assert ok["winner"].notna().all() and (ok["actions"] > 3).all()
    assert (df["policy_nato"] == f"ExplodingPolicy(bad={bad})").all()


def test_event_logs_are_kept_on_request_and_match_the_replay(tmp_path) -> None:
    out = tmp_path / "logs"
    df = batch.run(
        SCENARIO,
        3,
        seed=8,
        variants={"short": {"turns": 2}},
        processes=1,
        progress=False,
        out=out,
        logs=True,
    )
    logs = batch.read_logs(out, variant="short", games=[1])
    assert set(logs["game"]) == {1}
    game = batch.game_for(
        SCENARIO,
        int(df.loc[1, "seed"]),
        variant="short",
        variants={"short": {"turns": 2}},
    )
    game.run()
    expected = game.log
    got = logs.drop(columns=["variant", "game", "seed"])
    assert len(got) == len(expected) == df.loc[1, "events"]
    assert got["dice"].tolist() == expected["dice"].tolist()
    for col in ("seq", "turn", "unit", "target", "hex_to", "result", "detail"):
        assert got[col].tolist() == expected[col].tolist(), col
    assert got["kind"].astype(str).tolist() == expected["kind"].astype(str).tolist()
    assert len(batch.read_logs(out)) == df["events"].sum()


def test_one_process_runs_in_this_process_without_a_pool(monkeypatch) -> None:
    counter = Counter(runner.play_chunk)
    monkeypatch.setattr(runner, "play_chunk", counter)
    batch.run(
        SCENARIO, 3, processes=1, progress=False, variants={"short": {"turns": 1}}
    )
    assert sorted(counter.games) == [("short", 0), ("short", 1), ("short", 2)]


def test_batch_imports_only_lower_layers_and_the_heat_layer_no_widgets() -> None:
    # DESIGN: batch may import engine, rules, ai, geo; never ui (nor render, above it).
    import ast
    from pathlib import Path

    import wargame

    root = Path(wargame.__file__).parent
    files = [*sorted((root / "batch").glob("*.py")), root / "render" / "heatmap.py"]
    for path in files:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [node.module or ""]
            else:
                continue
            for name in names:
                banned = ("wargame.ui", "ipywidgets", "ipyleaflet")
                if path.parent.name == "batch":
                    banned += ("wargame.render",)
                assert not name.startswith(banned), f"{path.name} imports {name}"
