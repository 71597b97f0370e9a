"""wargame.batch: many games of a scenario and its variants, as one DataFrame.

``run(scenario, n_games, ...)`` plays every game (local processes by default, or
the workers of a Dask client), one row per game; ``out=`` keeps the rows as
Parquet and resumes an interrupted study.  The analysis helpers turn the frame
into win rates with 95 % intervals, loss-exchange ratios, a per-variant
comparison, and the data of plots and map layers.

Examples:
    >>> from wargame import batch
    >>> df = batch.run("test_remagen", 2, seed=0, processes=1, progress=False,
    ...                variants={"4 turns": {}, "2 turns": {"turns": 2}})
    >>> df.groupby("variant", observed=True).size().to_dict()
    {'4 turns': 2, '2 turns': 2}
    >>> int(df["turns"].max()) <= 4
    True

See ``docs/scaling.md`` for clusters and ``notebooks/04_what_if.ipynb`` for a study.
"""

from __future__ import annotations

from .analysis import (
    compare,
    destroyed_hexes,
    loss_exchange_ratio,
    losses,
    losses_by_turn,
    newcombe_interval,
    outcome_shares,
    wilson_interval,
    win_rate,
)
from .plots import (
    plot_destroyed_hexes,
    plot_losses_over_turns,
    plot_outcomes,
    plot_win_rates,
)
from .policies import policy_names
from .runner import BASELINE, game_for, game_seeds, run
from .store import read_logs, read_results
from .variants import BatchError, build_variant, load_variants, variant_grid

__all__ = [
    "BASELINE",
    "BatchError",
    "build_variant",
    "compare",
    "destroyed_hexes",
    "game_for",
    "game_seeds",
    "load_variants",
    "loss_exchange_ratio",
    "losses",
    "losses_by_turn",
    "newcombe_interval",
    "outcome_shares",
    "plot_destroyed_hexes",
    "plot_losses_over_turns",
    "plot_outcomes",
    "plot_win_rates",
    "policy_names",
    "read_logs",
    "read_results",
    "run",
    "variant_grid",
    "wilson_interval",
    "win_rate",
]
