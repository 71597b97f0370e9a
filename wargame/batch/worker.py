"""What runs in a worker: play a chunk of games and summarise each as a row.

A task is plain data (a dict) so it travels to a local process or a Dask worker
on another machine unchanged: the variant's scenario data, its policies, and the
``(game index, seed)`` pairs to play.  A game that raises becomes a row with an
``error`` text; the other games of the chunk go on.

A local worker process also runs :func:`init_worker` first, so that it dies with
the batch process: killed (``kill -9``) or crashed, the batch leaves no worker
behind blocked on its task queue.
"""

from __future__ import annotations

import ctypes
import json
import os
import select
import signal
import sys
import threading
import time
import traceback
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from wargame.engine import Game, Scenario

from .policies import policy_factory

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = ["destroyed_events", "init_worker", "play_chunk", "summarise"]

#: How often a worker looks for its batch process where the system gives no
#: handle to wait on (no ``pidfd``): 0.5 s keeps "no worker alive 5 s after a
#: kill" with a wide margin and costs nothing measurable.
WATCH_INTERVAL_S = 0.5
_PR_SET_PDEATHSIG = 1  # <linux/prctl.h>


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


def init_worker(batch_pid: int, sys_path: list[str]) -> None:
    """Set up a local worker process: the batch's import path, and death with
    the batch process.

    Two mechanisms, because a worker's parent is not always the batch process
    (one started by multiprocessing's fork server is the server's child):

    * Linux ``prctl(PR_SET_PDEATHSIG, SIGKILL)``: the kernel kills the worker
      when its parent dies, even while it is inside a compiled kernel holding the
      GIL (the fork server exits when the batch process does, so this covers
      its workers too);
    * a daemon thread that waits for ``batch_pid`` to end (``pidfd``, else a
      poll every :data:`WATCH_INTERVAL_S`) and then ends the worker.

    Args:
        batch_pid: the process that runs ``wargame.batch.run``.
        sys_path: its ``sys.path``, so that policies from modules it can import
            unpickle here (a fork server keeps the path it started with).
    """
    sys.path[:] = sys_path
    if sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
        except (OSError, AttributeError):  # pragma: no cover - no prctl
            pass
    threading.Thread(
        target=_watch, args=(batch_pid, os.getppid()), name="batch-watch", daemon=True
    ).start()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # pragma: no cover - another user's pid now
        return False
    return True


def _watch(batch_pid: int, parent: int) -> None:
    """Return only by ending the process, once ``batch_pid`` has ended."""
    fd = None
    if hasattr(os, "pidfd_open"):
        try:
            fd = os.pidfd_open(batch_pid)
        except ProcessLookupError:
            os._exit(1)  # the batch ended before this worker started
        except OSError:  # pragma: no cover - kernel < 5.3, seccomp
            fd = None
    if fd is not None:
        poller = select.poll()
        poller.register(fd, select.POLLIN)  # readable once the process ended
        while not poller.poll():  # pragma: no cover - poll() without timeout
            pass
    else:  # pragma: no cover - macOS, old kernels
        while _alive(batch_pid) and os.getppid() == parent:
            time.sleep(WATCH_INTERVAL_S)
    os._exit(1)
