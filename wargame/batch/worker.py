"""What runs in a worker: play a chunk of games and summarise each as a row.

A task is plain data (a dict) so it travels to a local process or a Dask worker
on another machine unchanged: the variant's scenario data, its policies, and the
``(game index, seed)`` pairs to play.  A game that raises becomes a row with an
``error`` text; the other games of the chunk go on.
"""

from __future__ import annotations

import json
import time
import traceback
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from wargame.engine import Game, Scenario

from .policies import policy_factory

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = ["destroyed_events", "play_chunk", "summarise"]


def destroyed_events(game: Game) -> list[dict[str, Any]]:
    """Every unit destruction of a game: turn, side, unit, type and hex.

    Read from the events' state changes, so it works for any rule system that
    follows the engine convention (``strength`` becomes ``"destroyed"``).  The
    hex is where the unit was when it was destroyed.
    """
    init = game.initial_state
    where: dict[str, Any] = {k: u.position for k, u in init.units.items()}
    info = {k: (u.side, u.type) for k, u in init.units.items()}
    out: list[dict[str, Any]] = []
    for ev in game.events:
        for scope, key, fld, value in ev.changes:
            if scope != "unit" or key is None:
                continue
            if fld == "position":
                where[key] = value
            elif fld == "strength" and value == "destroyed":
                side, utype = info.get(key, (None, None))
                pos = where.get(key)
                out.append(
                    {
                        "turn": ev.turn,
                        "side": side,
                        "unit": key,
                        "type": utype,
                        "hex": pos if isinstance(pos, str) else None,
                    }
                )
    return out


def summarise(game: Game) -> dict[str, Any]:
    """The result columns of a finished game (without the batch's own columns)."""
    outcome = game.outcome
    if outcome is None:
        raise RuntimeError("the game did not end")
    st = game.state
    row: dict[str, Any] = {
        "winner": outcome.winner if outcome.winner is not None else "draw",
        "termination": outcome.termination,
        "turns": outcome.turn,
    }
    for side in st.sides:
        row[f"vp_{side}"] = int(outcome.victory_points.get(side, 0))
    for side in st.sides:
        row[f"lost_{side}"] = 0
    for u in st.units.values():
        if u.destroyed:
            row[f"lost_{u.side}"] += 1
            key = f"lost_{u.side}_{u.type}"
            row[key] = row.get(key, 0) + 1
    for oid, holder in game.ruleset.objective_control(st).items():
        row[f"held_{oid}"] = holder
    row["actions"] = len(game.actions)
    row["events"] = len(game.events)
    row["destroyed"] = json.dumps(destroyed_events(game), separators=(",", ":"))
    return row


def play_chunk(
    task: Mapping[str, Any],
) -> tuple[list[dict[str, Any]], pd.DataFrame | None]:
    """Play the games of one task; return their rows (and event logs if asked).

    Args:
        task: ``scenario`` (data), ``source``, ``variant``, ``policies`` (side ->
            spec), ``games`` (list of ``[index, seed]``) and ``logs`` (bool).

    Returns:
        One row per game, in the order given, and the concatenated event logs
        (with ``variant``, ``game`` and ``seed`` columns first) or ``None``.
    """
    scenario = Scenario(task["scenario"], task["source"])
    policies: Mapping[str, Any] = task["policies"]
    make_policy = policy_factory(scenario.ruleset)
    rows: list[dict[str, Any]] = []
    logs: list[pd.DataFrame] = []
    games: Sequence[Sequence[int]] = task["games"]
    for index, seed in games:
        t0 = time.perf_counter()
        row: dict[str, Any] = {
            "variant": task["variant"],
            "game": int(index),
            "seed": int(seed),
        }
        try:
            game = Game(
                scenario,
                seed=int(seed),
                policies={s: make_policy(p) for s, p in policies.items()},
            )
            game.run()
            row.update(summarise(game))
            if task.get("logs"):
                log = game.log
                log.insert(0, "seed", int(seed))
                log.insert(0, "game", int(index))
                log.insert(0, "variant", task["variant"])
                logs.append(log)
        except Exception as exc:  # one game's failure must not stop the others
            last = traceback.extract_tb(exc.__traceback__)[-1:]
            at = f" (at {last[0].filename}:{last[0].lineno})" if last else ""
            row["error"] = f"{type(exc).__name__}: {exc}{at}"
        row["wall_time"] = time.perf_counter() - t0
        rows.append(row)
    if not logs:
        return rows, None
    import pandas as pd

    return rows, pd.concat(logs, ignore_index=True)
