"""Analysis helpers, plots, the heat-map layer and the `wargame batch` command."""

from __future__ import annotations

import json

import matplotlib
import numpy as np
import pandas as pd
import pytest
from batch_helpers import SCENARIO

from wargame import batch
from wargame.cli import main
from wargame.engine import load_scenario
from wargame.render.heatmap import heat_geojson

matplotlib.use("Agg")

STUDY = {"base": {}, "short": {"turns": 2}}
N = 8


@pytest.fixture(scope="module")
def frame() -> pd.DataFrame:
    return batch.run(SCENARIO, N, seed=2, variants=STUDY, processes=2, progress=False)


def toy(winners: list[str], lost_a: list[int], lost_b: list[int]) -> pd.DataFrame:
    n = len(winners)
    return pd.DataFrame(
        {
            "variant": pd.Categorical(["v"] * n),
            "game": range(n),
            "seed": range(n),
            "winner": winners,
            "vp_a": 0,
            "vp_b": 0,
            "lost_a": lost_a,
            "lost_b": lost_b,
            "turns": 3,
            "error": None,
            "destroyed": "[]",
        }
    )


def test_wilson_interval_matches_newcombe_worked_examples() -> None:
    # Newcombe (1998), Stat. Med. 17:857, table I: 81/263, 15/148, 0/20, 1/29
    for k, n, lo, hi in [
        (81, 263, 0.2553, 0.3662),
        (15, 148, 0.0624, 0.1605),
        (0, 20, 0.0, 0.1611),
        (1, 29, 0.0061, 0.1718),
    ]:
        got = batch.wilson_interval(k, n)
        assert np.allclose(got, (lo, hi), atol=5e-5), (k, n, got)
    assert np.isnan(batch.wilson_interval(0, 0)[0])


def test_win_rate_counts_wins_and_leaves_failed_games_out() -> None:
    df = toy(["a", "a", "b", "draw", "a"], [0] * 5, [0] * 5)
    df.loc[4, "error"] = "RuntimeError: boom"
    wr = batch.win_rate(df, "a").loc["v"]
    assert (wr["games"], wr["wins"], wr["draws"]) == (4, 2, 1)
    lo, hi = batch.wilson_interval(2, 4)
    assert (wr["low"], wr["high"]) == (lo, hi)
    with pytest.raises(ValueError, match=r"unknown side 'c'; sides: a, b"):
        batch.win_rate(df, "c")


def test_loss_exchange_ratio_is_a_ratio_of_totals_with_a_bootstrap_interval() -> None:
    df = toy(["a"] * 4, [1, 0, 2, 1], [3, 1, 2, 2])
    ler = batch.loss_exchange_ratio(df, "a", seed=1).loc["v"]
    assert ler["ler"] == 8 / 4 and (ler["lost"], ler["enemy_lost"]) == (4, 8)
    assert ler["low"] <= 2.0 <= ler["high"]
    again = batch.loss_exchange_ratio(df, "a", seed=1).loc["v"]
    assert (again["low"], again["high"]) == (ler["low"], ler["high"])
    none_lost = batch.loss_exchange_ratio(toy(["a"], [0], [2]), "a").loc["v"]
    assert none_lost["ler"] == np.inf


def test_compare_has_a_row_per_variant_and_a_zero_difference_for_baseline(
    frame,
) -> None:
    table = batch.compare(frame, "nato", baseline="base")
    assert list(table.index) == ["base", "short"]
    assert (table["games"] == N).all() and (table["errors"] == 0).all()
    assert table.loc["base", "diff"] == 0
    assert table.loc["short", "turns"] <= 2
    assert (table["win_low"] <= table["win_rate"]).all()
    assert (table["win_rate"] <= table["win_high"]).all()
    wr = frame[frame["variant"] == "short"]["winner"].eq("nato").mean()
    assert table.loc["short", "win_rate"] == pytest.approx(wr)
    assert table.loc["base", "lost_pact"] == pytest.approx(
        frame.loc[frame["variant"] == "base", "lost_pact"].mean()
    )


def test_losses_by_turn_ends_at_the_destructions_of_the_games(frame) -> None:
    long = batch.losses(frame)
    assert len(long) == sum(len(json.loads(t)) for t in frame["destroyed"])
    table = batch.losses_by_turn(frame)
    assert table.loc["short"].index.max() <= 2
    for variant in ("base", "short"):
        sub = long[long["variant"] == variant]
        last = table.loc[variant].iloc[-1]
        for side in ("nato", "pact"):
            assert last[side] == pytest.approx((sub["side"] == side).sum() / N)
        assert (table.loc[variant].diff().dropna() >= 0).all().all()


def test_destroyed_hexes_count_every_destruction_in_a_hex(frame) -> None:
    hexes = batch.destroyed_hexes(frame)
    assert hexes["count"].sum() == batch.losses(frame)["hex"].notna().sum()
    assert hexes["count"].is_monotonic_decreasing
    pact = batch.destroyed_hexes(frame, side="pact", variant="base")
    assert pact["count"].sum() <= hexes["count"].sum()
    m = load_scenario(SCENARIO).load_map()
    fc = heat_geojson(m, hexes["per_game"])
    assert [f["id"] for f in fc["features"]] == list(hexes.index)
    props = fc["features"][0]["properties"]
    assert props["scaled"] == 1.0 and props["fill"].startswith("#")
    assert heat_geojson(m, {}) == {"type": "FeatureCollection", "features": []}


def test_plots_draw_every_variant(frame) -> None:
    ax = batch.plot_outcomes(frame)
    assert [t.get_text() for t in ax.get_yticklabels()] == ["base", "short"]
    ax = batch.plot_win_rates(frame, "nato")
    assert len(ax.get_yticks()) == 2
    ax = batch.plot_losses_over_turns(frame)
    assert len(ax.get_lines()) == 4  # 2 variants x 2 sides
    m = load_scenario(SCENARIO).load_map()
    ax = batch.plot_destroyed_hexes(frame, m, side="pact")
    assert ax.get_title() == "Where pact units were destroyed"
    matplotlib.pyplot.close("all")


# --------------------------------------------------------------------------- #
# command line                                                                #
# --------------------------------------------------------------------------- #


def test_cli_batch_prints_the_comparison_and_resumes(tmp_path, capsys) -> None:
    variants = tmp_path / "v.toml"
    variants.write_text("[base]\n\n[short]\nturns = 2\n")
    argv = [
        "batch",
        SCENARIO,
        "--games",
        "3",
        "--seed",
        "4",
        "--variants",
        str(variants),
        "--processes",
        "1",
        "--out",
        str(tmp_path / "o"),
        "-q",
    ]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "test_remagen: 6 games (2 variant(s) x 3), seed 4" in out
    assert "nato wins (95% CI)" in out and "short" in out
    assert main(argv) == 0  # resumed: read back, same table
    again = capsys.readouterr().out
    assert again.splitlines()[1:] == out.splitlines()[1:]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--games", "0"], "batch: --games must be >= 1, not 0"),
        (["--games", "2", "--policy", "nato"], "must be SIDE=NAME"),
        (["--games", "2", "--policy", "nato=gredy"], "unknown policy 'gredy'"),
        (["--games", "2", "--variants", "missing.toml"], "cannot be read"),
    ],
)
def test_cli_batch_mistakes_are_one_line_and_exit_2(args, message, capsys) -> None:
    assert main(["batch", SCENARIO, *args]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1
