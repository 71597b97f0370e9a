"""Exact odds of one unit firing at another on the map (CoH 2e §7), from the
same numbers the dice path uses (:meth:`Combat.fire_math`, :func:`fire_odds`).

Examples:
    >>> from wargame.engine import Game
    >>> from wargame.rules.coh.actions import Move
    >>> g = Game.from_scenario("coh_partisans", seed=1)
    >>> _ = g.apply(Move(("de-lmg-1",), ("A8",)))
    >>> df = unit_odds(g, "su-maxim", "de-lmg-1")
    >>> df[["fp", "dv", "needed"]].iloc[0].tolist()  # red 3, downhill +1; woods +2
    [4, 14, 10]
    >>> round(float(df["hit"].iloc[0]), 4)  # 2d6 >= 10: 6/36
    0.1667
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from wargame.engine import GameState

from .odds import fire_odds

__all__ = ["unit_odds", "unit_odds_frame"]


def unit_odds_frame(
    rules: Any, state: GameState, shooter: str, target: str
) -> pd.DataFrame | None:
    """One row: FP, DV, the 2d6 needed, and P(miss/hit/destroyed) of
    ``shooter`` firing alone at ``target`` from where they stand (``None``
    when it cannot: no hex, or no FP of the colour the target needs)."""
    s, t = state.units.get(shooter), state.units.get(target)
    if s is None or t is None or s.hex is None or t.hex is None:
        return None
    fm = rules.fire_math(state, s, t)
    if fm is None:
        return None
    p = fire_odds(fm.fp, fm.dv)
    row = {
        "fp": fm.fp,
        "dv": fm.dv,
        "needed": fm.needed,
        "flank": fm.flank,
        "distance": rules.board.distance(s.hex, t.hex),
        "miss": float(p["miss"]),
        "hit": float(p["hit"]),
        "destroyed": float(p["destroyed"]),
        "fp_terms": "; ".join(fm.fp_terms),
        "dv_terms": "; ".join(fm.dv_terms),
    }
    return pd.DataFrame(
        [row], index=pd.Index([f"{shooter} -> {target}"], name="attack")
    )


def unit_odds(game: Any, shooter: str, target: str) -> pd.DataFrame:
    """Exact odds of ``shooter`` firing alone at ``target`` in a game now.

    Raises:
        ValueError: a unit is not on the map, or cannot attack that target.
    """
    df = unit_odds_frame(game.ruleset, game.state, shooter, target)
    if df is None:
        raise ValueError(
            f"{shooter!r} cannot attack {target!r} now (off the map, unknown, or "
            "no FP of the colour the target needs, CoH 2e §7.1)"
        )
    return df
