"""Benchmark: CPU seconds per doctrine-against-doctrine game, every scenario.

Run: ``.venv/bin/python benchmarks/bench_doctrine.py`` (issue 23, speed of play).
For every shipped scenario (``scenarios/*.toml``, every rule system) it plays
``--seeds`` games (seeds 1..N, default 10) of the ``doctrine`` policy on both
sides in one warm process (one untimed game per scenario first: map, board,
line-of-sight table and the odds caches are built once per process, as in a
notebook or a batch run) and prints the median CPU seconds per game
(``time.process_time``) and the median actions per game.  No target is
asserted.

The machine is shared, so the figures move with its load.  Between the games
of each scenario a fixed pure-Python reference workload (:func:`reference`: a
Dijkstra on a 100 x 100 grid, no project code) is timed three times;
``ratio`` is the scenario's median CPU per game over the median reference
time, so runs on a busy and on a quiet machine (or of two commits, one after
the other) can be compared by their ratios.

``--profile`` plays the games of one scenario (``--scenario``, default
``remagen_linz_crossing``) under :mod:`cProfile` and prints the 15 functions
with the largest cumulative time.

Examples::

    .venv/bin/python benchmarks/bench_doctrine.py
    .venv/bin/python benchmarks/bench_doctrine.py --scenario remagen_linz_crossing
    .venv/bin/python benchmarks/bench_doctrine.py --profile --seeds 5
"""

from __future__ import annotations

import argparse
import cProfile
import heapq
import io
import pstats
import statistics
import sys
import time
from typing import Any

from wargame.ai import get_policy
from wargame.engine import Game, available_scenarios, load_scenario

DEFAULT_PROFILE = "remagen_linz_crossing"


def reference(n: int = 100) -> float:
    """CPU seconds of a fixed pure-Python workload (Dijkstra on an n x n grid
    with tuple keys, dicts and a heap: the kind of work the rules and the AI
    do), independent of the project's code."""
    t = time.process_time()
    cost = {(x, y): 1 + (x * 7 + y * 13) % 5 for x in range(n) for y in range(n)}
    dist: dict[tuple[int, int], int] = {(0, 0): 0}
    heap = [(0, (0, 0))]
    while heap:
        c, (x, y) = heapq.heappop(heap)
        if c > dist[(x, y)]:
            continue
        for nb in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)):
            step = cost.get(nb)
            if step is None:
                continue
            nc = c + step
            if nc < dist.get(nb, 1 << 30):
                dist[nb] = nc
                heapq.heappush(heap, (nc, nb))
    return time.process_time() - t


def best_policy(ruleset: str) -> str:
    """``doctrine`` where the rule system has it, else ``greedy``, else
    ``random`` (a rule system still without its own AI, e.g. fow-v3 today)."""
    from wargame.engine.policy import UnknownPolicyError

    for name in ("doctrine", "greedy"):
        try:
            get_policy(name, ruleset=ruleset)
        except UnknownPolicyError:
            continue
        return name
    return "random"


def play(scenario: Any, seed: int) -> Game:
    """One game of the rule system's best AI against itself, played to the end."""
    a, b = (s["id"] for s in scenario.sides)
    name = best_policy(scenario.ruleset)
    policies = {
        a: get_policy(name, ruleset=scenario.ruleset),
        b: get_policy(name, ruleset=scenario.ruleset),
    }
    game = Game(scenario, seed=seed, policies=policies)
    game.run()
    return game


def bench(name: str, seeds: int) -> tuple[float, float, str, float]:
    """(median CPU s per game, median actions per game, rule system, median
    reference time): the reference is timed after every game, so that both
    medians see the same load."""
    scenario = load_scenario(name)
    play(scenario, 0)  # warm: map, board, LOS table, caches
    secs, actions, refs = [], [], [reference()]
    for seed in range(1, seeds + 1):
        t = time.process_time()
        game = play(scenario, seed)
        secs.append(time.process_time() - t)
        actions.append(len(game.actions))
        refs.extend(reference() for _ in range(3))
    return (
        statistics.median(secs),
        statistics.median(actions),
        scenario.ruleset,
        statistics.median(refs),
    )


def profile(name: str, seeds: int, top: int = 15) -> str:
    """The ``top`` functions by cumulative time over ``seeds`` warm games."""
    scenario = load_scenario(name)
    play(scenario, 0)
    prof = cProfile.Profile()
    prof.enable()
    for seed in range(1, seeds + 1):
        play(scenario, seed)
    prof.disable()
    out = io.StringIO()
    pstats.Stats(prof, stream=out).sort_stats("cumulative").print_stats(top)
    return out.getvalue()


def _positive(text: str) -> int:
    """An argparse type: a whole number of at least 1."""
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if n < 1:
        raise argparse.ArgumentTypeError(f"{n}: give at least 1")
    return n


def main(argv: list[str] | None = None) -> int:
    """Print the table (or the profile)."""
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--seeds", type=_positive, default=10, help="games per scenario")
    p.add_argument(
        "--scenario", action="append", help="only this scenario (repeatable)"
    )
    p.add_argument(
        "--profile", action="store_true", help="cProfile one scenario instead"
    )
    args = p.parse_args(argv)
    names = args.scenario or available_scenarios()
    unknown = sorted(set(names) - set(available_scenarios()))
    if unknown:
        p.error(f"unknown scenario(s): {', '.join(unknown)}")
    if args.profile:
        name = names[0] if args.scenario else DEFAULT_PROFILE
        print(f"{name}: {args.seeds} doctrine games, top 15 by cumulative time")
        print(profile(name, args.seeds))
        return 0
    print(f"doctrine vs doctrine, {args.seeds} warm games per scenario (medians)")
    print(
        f"{'scenario':26s} {'rules':12s} {'CPU s/game':>10s} {'actions':>8s} "
        f"{'ratio':>7s}"
    )
    refs = []
    for name in names:
        sec, acts, ruleset, ref = bench(name, args.seeds)
        refs.append(ref)
        print(
            f"{name:26s} {ruleset:12s} {sec:10.4f} {acts:8.0f} {sec / ref:7.2f}"
            + (
                ""
                if best_policy(ruleset) == "doctrine"
                else f"  ({best_policy(ruleset)})"
            ),
            flush=True,
        )
    print(
        f"reference workload: {statistics.median(refs):.4f} CPU s (median over the "
        "scenarios); ratio = CPU s per game / the reference timed between the "
        "same scenario's games"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
