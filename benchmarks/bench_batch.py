"""Benchmark: games per second of ``wargame.batch.run`` and its overhead.

Run: ``.venv/bin/python benchmarks/bench_batch.py [--games 200] [--repeats 3]``.

Plays the same games of ``test_remagen`` (random policies) five ways and prints the
median wall time of ``--repeats`` runs of each:

* a plain loop ``Game(scenario, seed=s).run()`` in this process (the reference);
* ``batch.run(processes=1)`` (in this process: the batch machinery alone);
* ``batch.run(processes=2)`` (two forked worker processes);
* ``batch.run(client=...)`` on a 2-worker Dask ``LocalCluster`` (worker processes,
  one thread each; the cluster's start-up is timed separately);

then games per second (and CPU milliseconds per game, counting forked workers),
the scaling factor from one to two workers (target >= 1.7x on 2 free cores) and
the per-game overhead of the batch machinery over the plain loop (target <= 5 %
of a game's time), in wall time and in CPU time (less sensitive to load).  The
load average before and after is printed: wall-time figures mean little on a
busy machine.  Timings are never asserted.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import resource
import statistics
import time
from collections.abc import Callable
from typing import Any


def load() -> str:
    one, five, fifteen = os.getloadavg()
    return (
        f"load average {one:.2f}, {five:.2f}, {fifteen:.2f} on {os.cpu_count()} cores"
    )


def cpu_seconds() -> float:
    """CPU time of this process and of its reaped children (forked workers)."""
    me = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def timed(fn: Callable[[], Any]) -> tuple[float, float]:
    """Wall and CPU seconds of one call."""
    c0, t0 = cpu_seconds(), time.perf_counter()
    fn()
    return time.perf_counter() - t0, cpu_seconds() - c0


def machinery_alone(scenario: Any, seeds: list[int], repeats: int) -> float:
    """Milliseconds per game the batch adds around the games themselves.

    Measured apart from the games, so it is not drowned in their run-to-run
    variation: ``batch.run`` with games that cost nothing (the worker returns
    ready rows), plus ``summarise`` of real finished games (the one piece of
    per-game work a worker adds).
    """
    from wargame import batch
    from wargame.batch import runner, worker
    from wargame.engine import Game

    games = []
    for s in seeds[:20]:
        g = Game(scenario, seed=s)
        g.run()
        games.append(g)
    t0 = time.perf_counter()
    for _ in range(repeats):
        rows = [worker.summarise(g) for g in games]
    summary_ms = (time.perf_counter() - t0) / (repeats * len(games)) * 1000
    row = rows[0]

    def instant(task: Any) -> Any:
        return [
            {**row, "variant": task["variant"], "game": g, "seed": s, "wall_time": 0.0}
            for g, s in task["games"]
        ], None

    real = runner.play_chunk
    runner.play_chunk = instant
    try:
        n = len(seeds)
        calls = [
            timed(lambda: batch.run(scenario, n, processes=1, progress=False))[0]
            for _ in range(repeats)
        ]
    finally:
        runner.play_chunk = real
    return summary_ms + statistics.median(calls) / len(seeds) * 1000


def _noop(i: int) -> int:
    return i


def dask_task_cost(client: Any, repeats: int, tasks: int = 400) -> float:
    """Median milliseconds a task costs on ``client`` when it does nothing: the
    scheduler's and the workers' share of each of ``batch.run``'s tasks."""
    out = []
    for r in range(repeats):
        t0 = time.perf_counter()
        futures = client.map(
            _noop, range(tasks), key=[f"noop-{r}-{i}" for i in range(tasks)]
        )
        client.gather(futures)
        out.append((time.perf_counter() - t0) / tasks * 1000)
    return statistics.median(out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--scenario", default="test_remagen")
    ap.add_argument("--no-dask", action="store_true")
    args = ap.parse_args()
    n, reps = args.games, args.repeats

    from wargame import batch
    from wargame.engine import Game, load_scenario

    print(f"before: {load()}")
    scenario = load_scenario(args.scenario)
    seeds = batch.game_seeds(0, n)
    Game(scenario, seed=seeds[0]).run()  # warm: map, board, line-of-sight tables

    def plain() -> None:
        for s in seeds:
            Game(scenario, seed=s).run()

    def run(**kw: Any) -> Any:
        return batch.run(scenario, n, seed=0, progress=False, **kw)

    executors: dict[str, Callable[[], Any]] = {
        "plain loop, this process": plain,
        "batch.run(processes=1)": lambda: run(processes=1),
        "batch.run(processes=2)": lambda: run(processes=2),
    }
    start = warm = None
    dask_task_ms = None
    with contextlib.ExitStack() as stack:
        if not args.no_dask:
            from distributed import Client, LocalCluster

            t0 = time.perf_counter()
            cluster = stack.enter_context(
                LocalCluster(
                    n_workers=2,
                    threads_per_worker=1,
                    processes=True,
                    dashboard_address=":0",
                )
            )
            client = stack.enter_context(Client(cluster))
            start = time.perf_counter() - t0
            t0 = time.perf_counter()
            batch.run(scenario, 4, seed=1, progress=False, client=client)
            warm = time.perf_counter() - t0
            executors["batch.run(client=2 Dask workers)"] = lambda: run(client=client)
            dask_task_ms = dask_task_cost(client, reps)
        # Interleaved rounds, so that a change in the machine's load hits all alike.
        times: dict[str, list[float]] = {name: [] for name in executors}
        cpu: dict[str, list[float]] = {name: [] for name in executors}
        for _ in range(reps):
            for name, fn in executors.items():
                wall, used = timed(fn)
                times[name].append(wall)
                cpu[name].append(used)
    rows = list(times.items())
    med = {name: statistics.median(t) for name, t in rows}
    print(
        f"\n{args.scenario}: {n} games per run, median of {reps} runs "
        f"(all runs in brackets)"
    )
    print(
        f"{'executor':34s} {'median s':>9s} {'games/s':>8s} {'CPU ms/game':>12s}  runs"
    )
    for name, t in rows:
        runs = ", ".join(f"{x:.1f}" for x in t)
        per = statistics.median(cpu[name]) / n * 1000
        cpu_txt = f"{per:12.1f}" if "Dask" not in name else f"{'n/a':>12s}"
        print(f"{name:34s} {med[name]:9.2f} {n / med[name]:8.1f} {cpu_txt}  [{runs}]")
    if start is not None:
        print(
            f"(not included above: Dask cluster start-up {start:.1f} s, then a first "
            f"4-game run on the fresh workers {warm:.1f} s: import and map loading)"
        )

    plain_t = med["plain loop, this process"]
    one = med["batch.run(processes=1)"]
    game_ms = plain_t / n * 1000
    over_ms = (one - plain_t) / n * 1000
    print(f"\nmean game time (plain loop): {game_ms:.1f} ms")
    print(
        f"batch machinery overhead per game (processes=1 vs plain loop): "
        f"{over_ms:+.2f} ms = {over_ms / game_ms:+.1%} of a game (target <= 5 %)"
    )
    alone = machinery_alone(scenario, seeds, reps)
    print(
        f"  the machinery measured alone (per-call set-up and frame building with "
        f"no-op games, plus each game's summary row): {alone:.2f} ms per game "
        f"= {alone / game_ms:.1%} of a game"
    )
    cpu_plain = statistics.median(cpu["plain loop, this process"])
    for name in ("batch.run(processes=1)", "batch.run(processes=2)"):
        extra = (statistics.median(cpu[name]) - cpu_plain) / n * 1000
        print(
            f"  in CPU time (less sensitive to load), {name}: {extra:+.2f} ms "
            f"= {extra / (cpu_plain / n * 1000):+.1%} of a game"
        )
    two = med["batch.run(processes=2)"]
    print(f"scaling 1 -> 2 processes: {one / two:.2f}x (target >= 1.7x)")
    if "batch.run(client=2 Dask workers)" in med:
        dask_t = med["batch.run(client=2 Dask workers)"]
        print(f"scaling 1 process -> 2 Dask workers: {one / dask_t:.2f}x")
    if dask_task_ms is not None:
        from wargame.batch.runner import _chunks

        size = len(_chunks([(0, g) for g in range(n)], 2)[0][1])
        per_game = dask_task_ms / size
        print(
            f"Dask scheduling per task (a no-op task's round trip through the "
            f"scheduler, 2 workers): {dask_task_ms:.2f} ms; batch.run sends {size} "
            f"games a task here, so {per_game:.2f} ms per game = "
            f"{per_game / game_ms:.1%} of a game (target <= 5 %)"
        )
    print(f"after: {load()}")


if __name__ == "__main__":
    main()
