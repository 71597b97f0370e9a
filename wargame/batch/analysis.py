"""Analysis of a batch frame: win rates with intervals, exchange ratios, tables.

Every function takes the frame returned by :func:`wargame.batch.run` (or read
back with :func:`wargame.batch.read_results`) and returns a small DataFrame, one
row per variant by default.  Games that failed (``error`` set) are left out and
counted in an ``errors`` column where it matters.

Intervals: a win rate gets the Wilson score interval (good for small samples and
rates near 0 or 1); a difference of two win rates gets Newcombe's hybrid score
interval from the two Wilson intervals; a loss-exchange ratio gets a percentile
bootstrap over games (seeded, so the table is reproducible).

Examples (the worked examples of Newcombe, Stat. Med. 17, 1998):
    >>> lo, hi = wilson_interval(81, 263)
    >>> round(float(lo), 4), round(float(hi), 4)
    (0.2553, 0.3662)
    >>> d, lo, hi = newcombe_interval(56, 70, 48, 80)
    >>> round(float(d), 2), round(float(lo), 4), round(float(hi), 4)
    (0.2, 0.0524, 0.3339)
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Sequence
from statistics import NormalDist
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = [
    "compare",
    "destroyed_hexes",
    "loss_exchange_ratio",
    "losses",
    "losses_by_turn",
    "newcombe_interval",
    "outcome_shares",
    "sides_of",
    "wilson_interval",
    "win_rate",
]


def _z(confidence: float) -> float:
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be between 0 and 1, not {confidence}")
    return NormalDist().inv_cdf(0.5 + confidence / 2)


def wilson_interval(
    successes: Any, n: Any, confidence: float = 0.95
) -> tuple[Any, Any]:
    """Wilson score interval of a proportion (vectorised; NaN where ``n == 0``).

    Args:
        successes: number of successes (scalar or array).
        n: number of trials (scalar or array).
        confidence: e.g. ``0.95``.

    Returns:
        ``(low, high)``.
    """
    k = np.asarray(successes, dtype=float)
    n = np.asarray(n, dtype=float)
    z = _z(confidence)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = k / n
        denom = 1 + z * z / n
        centre = (p + z * z / (2 * n)) / denom
        half = z / denom * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
        low = np.clip(centre - half, 0.0, 1.0)
        high = np.clip(centre + half, 0.0, 1.0)
    return low, high


def newcombe_interval(
    k1: Any, n1: Any, k2: Any, n2: Any, confidence: float = 0.95
) -> tuple[Any, Any, Any]:
    """Difference ``k1/n1 - k2/n2`` with Newcombe's hybrid score interval.

    The interval treats the two samples as independent; for variants played on
    the same seeds it is on the safe (wide) side.

    Returns:
        ``(difference, low, high)``.
    """
    k1, n1, k2, n2 = (np.asarray(x, dtype=float) for x in (k1, n1, k2, n2))
    with np.errstate(invalid="ignore", divide="ignore"):
        p1, p2 = k1 / n1, k2 / n2
    l1, u1 = wilson_interval(k1, n1, confidence)
    l2, u2 = wilson_interval(k2, n2, confidence)
    d = p1 - p2
    low = d - np.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2)
    high = d + np.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2)
    return d, low, high


def sides_of(frame: pd.DataFrame) -> list[str]:
    """The side ids of a batch frame (from its ``vp_<side>`` columns)."""
    return [c[3:] for c in frame.columns if c.startswith("vp_")]


def _side(frame: pd.DataFrame, side: str) -> str:
    sides = sides_of(frame)
    if side not in sides:
        close = difflib.get_close_matches(side, sides, n=2)
        hint = f" (did you mean {', '.join(close)}?)" if close else ""
        raise ValueError(f"unknown side {side!r}{hint}; sides: {', '.join(sides)}")
    return side


def _ok(frame: pd.DataFrame) -> pd.DataFrame:
    return frame[frame["error"].isna()] if "error" in frame else frame


def _groups(frame: pd.DataFrame, by: str | Sequence[str]) -> Any:
    return frame.groupby(by, observed=True, sort=True)


def win_rate(
    frame: pd.DataFrame,
    side: str,
    by: str | Sequence[str] = "variant",
    confidence: float = 0.95,
) -> pd.DataFrame:
    """How often ``side`` won, with a Wilson interval, per group.

    Returns:
        Columns ``games`` (that finished), ``wins``, ``draws``, ``win_rate``,
        ``low``, ``high``.

    Examples:
        >>> import pandas as pd
        >>> df = pd.DataFrame({"variant": "v", "game": range(5), "vp_a": 0,
        ...     "vp_b": 0, "winner": ["a", "a", "b", "draw", "a"], "error": None})
        >>> win_rate(df, "a").round(3).loc["v"].tolist()
        [5.0, 3.0, 1.0, 0.6, 0.231, 0.882]
    """
    _side(frame, side)
    ok = _ok(frame)
    g = _groups(ok.assign(_win=ok["winner"] == side, _draw=ok["winner"] == "draw"), by)
    out = g.agg(games=("game", "size"), wins=("_win", "sum"), draws=("_draw", "sum"))
    out["win_rate"] = out["wins"] / out["games"]
    out["low"], out["high"] = wilson_interval(out["wins"], out["games"], confidence)
    return out


def outcome_shares(frame: pd.DataFrame, by: str | Sequence[str] = "variant") -> Any:
    """Share of games won by each side, drawn, and failed (``error``), per group."""
    import pandas as pd

    label = frame["winner"].astype(object).where(frame["error"].isna(), "error")
    label = label.where(label.notna(), "error")
    cats = [*sides_of(frame), "draw", "error"]
    table = pd.crosstab(
        [frame[b] for b in ([by] if isinstance(by, str) else by)],
        pd.Categorical(label, categories=cats),
        normalize="index",
        dropna=False,
    )
    table.columns = table.columns.astype(str)
    table.columns.name = "outcome"
    return table.reindex(columns=cats, fill_value=0.0)


def loss_exchange_ratio(
    frame: pd.DataFrame,
    side: str,
    by: str | Sequence[str] = "variant",
    confidence: float = 0.95,
    n_boot: int = 2000,
    seed: int = 0,
) -> pd.DataFrame:
    """Enemy units destroyed per unit ``side`` lost (ratio of totals), per group.

    The interval is a percentile bootstrap over games (``n_boot`` resamples from
    ``numpy.random.default_rng(seed)``).  A group in which ``side`` lost nothing
    has an infinite ratio.

    Returns:
        Columns ``games``, ``lost``, ``enemy_lost``, ``ler``, ``low``, ``high``.

    Examples:
        >>> import pandas as pd
        >>> df = pd.DataFrame({"variant": "v", "game": range(4), "vp_a": 0,
        ...     "vp_b": 0, "lost_a": [1, 0, 2, 1], "lost_b": [3, 1, 2, 2],
        ...     "error": None})
        >>> r = loss_exchange_ratio(df, "a").loc["v"]
        >>> float(r["ler"]), bool(r["low"] <= 2.0 <= r["high"])
        (2.0, True)
    """
    _side(frame, side)
    enemies = [f"lost_{s}" for s in sides_of(frame) if s != side]
    ok = _ok(frame).copy()
    ok["_own"] = ok[f"lost_{side}"].astype(float)
    ok["_enemy"] = ok[enemies].astype(float).sum(axis=1)
    rng = np.random.default_rng(seed)
    alpha = (1 - confidence) / 2
    rows = {}
    for key, grp in _groups(ok, by):
        own = grp["_own"].to_numpy()
        enemy = grp["_enemy"].to_numpy()
        n = len(own)
        idx = rng.integers(0, n, size=(n_boot, n))
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = enemy.sum() / own.sum()
            boot = enemy[idx].sum(axis=1) / own[idx].sum(axis=1)
        boot = np.where(np.isnan(boot), np.inf, boot)
        # No interpolation: bounds stay finite unless the resamples are not.
        low, high = np.quantile(boot, [alpha, 1 - alpha], method="inverted_cdf")
        rows[key] = {
            "games": n,
            "lost": own.sum(),
            "enemy_lost": enemy.sum(),
            "ler": ratio,
            "low": low,
            "high": high,
        }
    import pandas as pd

    out = pd.DataFrame.from_dict(rows, orient="index")
    out.index.name = by if isinstance(by, str) else None
    return out


def compare(
    frame: pd.DataFrame,
    side: str,
    baseline: str | None = None,
    confidence: float = 0.95,
) -> pd.DataFrame:
    """One row per variant: games, win rate of ``side`` with its interval, draws,
    mean victory points and losses per side, loss-exchange ratio, mean turns.

    With ``baseline`` (a variant name), also the difference of each variant's
    win rate from the baseline's, with Newcombe's interval (``diff``,
    ``diff_low``, ``diff_high``).

    Examples:
        >>> import pandas as pd
        >>> df = pd.DataFrame({"variant": ["a"] * 4 + ["b"] * 4,
        ...     "game": [0, 1, 2, 3] * 2, "winner": ["x", "x", "y", "draw"] * 2,
        ...     "vp_x": 1, "vp_y": 0, "lost_x": 1, "lost_y": 2, "turns": 4,
        ...     "error": None})
        >>> compare(df, "x", baseline="a")[["games", "win_rate", "diff"]]
        ... # doctest: +NORMALIZE_WHITESPACE
                 games  win_rate  diff
        variant
        a            4       0.5   0.0
        b            4       0.5   0.0
    """
    _side(frame, side)
    sides = sides_of(frame)
    wr = win_rate(frame, side, "variant", confidence)
    ok = _ok(frame)
    g = _groups(ok, "variant")
    out = wr.rename(columns={"low": "win_low", "high": "win_high"})
    out["draw_rate"] = out["draws"] / out["games"]
    errors = frame.groupby("variant", observed=True)["error"].apply(
        lambda s: int(s.notna().sum())
    )
    out.insert(1, "errors", errors.reindex(out.index).fillna(0).astype(int))
    for s in sides:
        out[f"vp_{s}"] = g[f"vp_{s}"].mean().astype(float)
    for s in sides:
        out[f"lost_{s}"] = g[f"lost_{s}"].mean().astype(float)
    ler = loss_exchange_ratio(frame, side, "variant", confidence)
    out["ler"] = ler["ler"]
    out["ler_low"] = ler["low"]
    out["ler_high"] = ler["high"]
    out["turns"] = g["turns"].mean().astype(float)
    out = out.drop(columns=["wins", "draws"])
    if baseline is not None:
        if baseline not in out.index:
            raise ValueError(
                f"baseline {baseline!r} is not a variant of the frame; variants: "
                f"{', '.join(map(str, out.index))}"
            )
        b = wr.loc[baseline]
        d, lo, hi = newcombe_interval(
            wr["wins"], wr["games"], b["wins"], b["games"], confidence
        )
        out["diff"], out["diff_low"], out["diff_high"] = d, lo, hi
    return out


def losses(frame: pd.DataFrame) -> pd.DataFrame:
    """Every unit destruction of every game, one row each (from ``destroyed``).

    Returns:
        Columns ``variant``, ``game``, ``seed``, ``turn``, ``side``, ``unit``,
        ``type``, ``hex``.

    Examples:
        >>> import pandas as pd
        >>> df = pd.DataFrame({"variant": ["v"], "game": [0], "seed": [9],
        ...     "error": [None], "destroyed": ['[{"turn": 2, "side": "a", '
        ...     '"unit": "A1", "type": "t72", "hex": "K7"}]']})
        >>> losses(df)[["game", "turn", "unit", "hex"]].to_dict("records")
        [{'game': 0, 'turn': 2, 'unit': 'A1', 'hex': 'K7'}]
    """
    import pandas as pd

    rows = []
    ok = _ok(frame)
    for variant, game, seed, text in zip(
        ok["variant"], ok["game"], ok["seed"], ok["destroyed"], strict=True
    ):
        for d in json.loads(text) if isinstance(text, str) else []:
            rows.append({"variant": variant, "game": game, "seed": seed, **d})
    cols = ["variant", "game", "seed", "turn", "side", "unit", "type", "hex"]
    out = pd.DataFrame(rows, columns=cols)
    if "variant" in frame and isinstance(frame["variant"].dtype, pd.CategoricalDtype):
        out["variant"] = pd.Categorical(
            out["variant"], categories=frame["variant"].cat.categories
        )
    return out


def losses_by_turn(frame: pd.DataFrame, cumulative: bool = True) -> pd.DataFrame:
    """Mean units destroyed per game, by variant, turn and side.

    Args:
        frame: a batch frame.
        cumulative: by the end of each turn (default) or in each turn.

    Returns:
        Index ``(variant, turn)``, one column per side.

    Examples:
        >>> import pandas as pd
        >>> hit = '[{"turn": 2, "side": "a", "unit": "A1", "type": "t", "hex": "K7"}]'
        >>> df = pd.DataFrame({"variant": "v", "game": [0, 1], "seed": [1, 2],
        ...     "turns": 3, "vp_a": 0, "vp_b": 0, "error": None,
        ...     "destroyed": [hit, "[]"]})
        >>> losses_by_turn(df)["a"].tolist()    # turns 1, 2, 3; mean of 2 games
        [0.0, 0.5, 0.5]
    """
    import pandas as pd

    ok = _ok(frame)
    sides = sides_of(frame)
    games = ok.groupby("variant", observed=True).size()
    lo = losses(frame)
    last = int(ok["turns"].max()) if len(ok) else 0
    turns = list(range(1, last + 1))
    counts = (
        lo.groupby(["variant", "turn", "side"], observed=True)
        .size()
        .unstack("side")
        .reindex(columns=sides)
        .fillna(0)
    )
    index = pd.MultiIndex.from_product(
        [list(games.index), turns], names=["variant", "turn"]
    )
    counts = counts.reindex(index, fill_value=0).fillna(0)
    if cumulative:
        counts = counts.groupby(level="variant", observed=True).cumsum()
    variants = counts.index.get_level_values("variant")
    per_game = counts.div(games.reindex(variants).to_numpy(), axis=0)
    # Each variant up to the last turn any of its games reached.
    last_turn = ok.groupby("variant", observed=True)["turns"].max()
    keep = counts.index.get_level_values("turn") <= last_turn.reindex(
        variants
    ).to_numpy(float)
    per_game = per_game[keep]
    per_game.columns.name = "side"
    return per_game


def destroyed_hexes(
    frame: pd.DataFrame, side: str | None = None, variant: str | None = None
) -> pd.DataFrame:
    """Where units were destroyed: count and count per game for each hex.

    This is the data of the heat-map layer
    (:func:`wargame.render.heatmap.heat_geojson` turns it into GeoJSON).

    Args:
        frame: a batch frame.
        side: only units of this side.
        variant: only this variant.

    Returns:
        Index ``hex``; columns ``count`` and ``per_game``, largest first.

    Examples:
        >>> import pandas as pd
        >>> hit = '[{"turn": 2, "side": "a", "unit": "A1", "type": "t", "hex": "K7"}]'
        >>> df = pd.DataFrame({"variant": "v", "game": [0, 1], "seed": [1, 2],
        ...     "error": None, "destroyed": [hit, hit]})
        >>> destroyed_hexes(df).to_dict("index")
        {'K7': {'count': 2, 'per_game': 1.0}}
    """
    ok = _ok(frame)
    if variant is not None:
        ok = ok[ok["variant"] == variant]
    lo = losses(ok)
    if side is not None:
        _side(frame, side)
        lo = lo[lo["side"] == side]
    counts = lo.dropna(subset=["hex"]).groupby("hex").size().rename("count")
    out = counts.sort_values(ascending=False, kind="stable").to_frame()
    out["per_game"] = out["count"] / max(1, len(ok))
    return out
