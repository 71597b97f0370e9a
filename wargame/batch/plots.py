"""Matplotlib figures of a batch frame (each returns its ``Axes``).

Examples:
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from wargame import batch
    >>> df = batch.run("test_remagen", 2, processes=1, progress=False)
    >>> plot_outcomes(df).get_title()
    'Outcome of the games'
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from .analysis import (
    destroyed_hexes,
    losses_by_turn,
    outcome_shares,
    sides_of,
    win_rate,
)

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd
    from matplotlib.axes import Axes

__all__ = [
    "plot_destroyed_hexes",
    "plot_losses_over_turns",
    "plot_outcomes",
    "plot_win_rates",
]

_TERRAIN_TINT = {
    "woods": "#e3efd9",
    "town": "#e6e6e6",
    "water": "#dbe9f6",
    "park": "#eef5e6",
    "orchard": "#eef5e6",
    "wetland": "#e4f0ee",
}

_OUTCOME_COLOURS = ["tab:blue", "tab:red", "tab:green", "tab:purple", "tab:brown"]


def _axes(ax: Axes | None, size: tuple[float, float] = (7, 3.5)) -> Axes:
    if ax is not None:
        return ax
    import matplotlib.pyplot as plt

    return plt.subplots(figsize=size)[1]


def plot_outcomes(frame: pd.DataFrame, ax: Axes | None = None) -> Axes:
    """Stacked bars: share of games each side won, drawn or failed, per variant."""
    ax = _axes(ax)
    shares = outcome_shares(frame)
    colours = [
        *_OUTCOME_COLOURS[: len(sides_of(frame))],
        "lightgrey",
        "black",
    ]
    left = np.zeros(len(shares))
    labels = [str(v) for v in shares.index]
    for col, colour in zip(shares.columns, colours, strict=True):
        values = shares[col].to_numpy()
        if not values.any() and col == "error":
            continue
        ax.barh(labels, values, left=left, color=colour, label=col)
        left += values
    ax.set_xlim(0, 1)
    ax.invert_yaxis()
    ax.set_xlabel("share of games")
    ax.set_title("Outcome of the games")
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1), fontsize="small")
    return ax


def plot_win_rates(
    frame: pd.DataFrame, side: str, ax: Axes | None = None, confidence: float = 0.95
) -> Axes:
    """Win rate of ``side`` per variant with its Wilson interval."""
    ax = _axes(ax)
    wr = win_rate(frame, side, confidence=confidence)
    y = np.arange(len(wr))
    rate = wr["win_rate"].to_numpy(float)
    err = np.vstack(
        [rate - wr["low"].to_numpy(float), wr["high"].to_numpy(float) - rate]
    )
    ax.errorbar(rate, y, xerr=err, fmt="o", capsize=4, color="tab:blue")
    for yi, (r, n) in enumerate(zip(rate, wr["games"], strict=True)):
        ax.annotate(
            f"{r:.0%} of {n}",
            (r, yi),
            textcoords="offset points",
            xytext=(0, 7),
            ha="center",
            fontsize="small",
        )
    ax.set_yticks(y, [str(v) for v in wr.index])
    ax.set_ylim(len(wr) - 0.5, -0.7)
    ax.set_xlim(0, 1)
    ax.set_xlabel(f"{side} win rate ({confidence:.0%} interval)")
    ax.set_title(f"How often {side} wins")
    ax.grid(axis="x", alpha=0.3)
    return ax


def plot_losses_over_turns(
    frame: pd.DataFrame, ax: Axes | None = None, cumulative: bool = True
) -> Axes:
    """Mean units destroyed per game by turn: one line per variant and side."""
    ax = _axes(ax)
    table = losses_by_turn(frame, cumulative=cumulative)
    styles = ["-", "--", ":", "-."]
    for i, side in enumerate(table.columns):
        for j, variant in enumerate(table.index.get_level_values("variant").unique()):
            s = table.loc[variant, side]
            ax.plot(
                s.index,
                s.to_numpy(),
                styles[i % len(styles)],
                marker="o",
                color=f"C{j}",
                label=f"{variant}: {side}",
            )
    from matplotlib.ticker import MaxNLocator

    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("turn")
    what = "by the end of the turn" if cumulative else "in the turn"
    ax.set_ylabel(f"units destroyed {what}")
    ax.set_title("Losses over the turns (mean per game)")
    ax.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.01, 1))
    ax.grid(alpha=0.3)
    return ax


def plot_destroyed_hexes(
    frame: pd.DataFrame,
    game_map: Any,
    ax: Axes | None = None,
    side: str | None = None,
    variant: str | None = None,
    cmap: str = "YlOrRd",
    vmax: float | None = None,
) -> Axes:
    """Heat map of the hexes where units were destroyed, on the map window.

    The other hexes are tinted by terrain (woods green, towns grey, water blue)
    for orientation.

    Args:
        frame: a batch frame.
        game_map: the scenario's map (``Scenario.load_map()``), for hex shapes.
        ax: axes to draw on.
        side: only units of this side.
        variant: only this variant.
        cmap: a matplotlib colour map.
        vmax: top of the colour scale (units destroyed per game), e.g. to give
            several maps the same scale.
    """
    from matplotlib.collections import PolyCollection

    ax = _axes(ax, (6, 5))
    data = destroyed_hexes(frame, side=side, variant=variant)
    hexes = game_map.hexes
    polys = game_map.hex_polygons(list(hexes.index))
    tint = [_TERRAIN_TINT.get(str(t), "white") for t in hexes["terrain"]]
    outline = PolyCollection(
        [np.asarray(p.exterior.coords) for p in polys],
        facecolor=tint,
        edgecolor="0.8",
        linewidth=0.3,
    )
    ax.add_collection(outline)
    if len(data):
        hot = game_map.hex_polygons(list(data.index))
        coll = PolyCollection(
            [np.asarray(p.exterior.coords) for p in hot],
            array=data["per_game"].to_numpy(float),
            cmap=cmap,
            clim=(0, vmax if vmax is not None else float(data["per_game"].max())),
            edgecolor="0.4",
            linewidth=0.4,
        )
        ax.add_collection(coll)
        ax.figure.colorbar(coll, ax=ax, label="units destroyed per game")
    ax.autoscale_view()
    ax.set_aspect("equal")
    ax.set_xticks([])
    ax.set_yticks([])
    who = f"{side} units" if side else "units"
    ax.set_title(f"Where {who} were destroyed" + (f" ({variant})" if variant else ""))
    return ax
