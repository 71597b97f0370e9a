"""Batch rows name each objective by a stable id, however the scenario places it."""

from __future__ import annotations

from wargame.batch import run
from wargame.engine import load_scenario
from wargame.engine.scenario import objective_id


def test_ahr_delay_rows_have_one_held_column_per_objective_with_its_holder(
    tmp_path,
) -> None:
    sc = load_scenario("ahr_delay")
    ids = [objective_id(o, i) for i, o in enumerate(sc.objectives)]
    assert "Heimersheim" in ids and len(set(ids)) == len(ids)  # placed by place name
    df = run("ahr_delay", 2, seed=5, processes=1)
    held = [c for c in df.columns if c.startswith("held_")]
    assert held == [f"held_{i}" for i in ids]
    assert "held_None" not in df.columns
    # every objective is held by one of the two sides at the end of these games
    assert df[held].isin(["nato", "pact"]).all().all()
