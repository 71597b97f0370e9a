"""Balance report: win shares of the shipped scenarios, AI against AI.

Run: ``.venv/bin/python benchmarks/balance_report.py`` (default: every scenario
in ``scenarios/`` but the engine test scenario, 100 seeds of ``doctrine``
against ``doctrine``, on every core).  Prints, per scenario, the share of games
each side won (with a 95 % Wilson interval), draws, mean victory points and CPU
seconds per game.  ``--vs-random N`` adds ``doctrine`` against ``random`` from
either side over N seeds (the AI should win at least 80 % of those).

The acceptance target (issue 5): neither side of at least two scenarios wins
more than 85 % of the doctrine-against-doctrine games.

Examples::

    .venv/bin/python benchmarks/balance_report.py
    .venv/bin/python benchmarks/balance_report.py --seeds 40 --vs-random 20
    .venv/bin/python benchmarks/balance_report.py ahr_delay --processes 1
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor

from wargame.ai import get_policy
from wargame.engine import Game, available_scenarios, load_scenario

SKIP = {"test_remagen"}  # the engine test scenario: not a balanced scenario


def play(task: tuple[str, int, str, str]) -> tuple[str | None, dict[str, int], float]:
    """One game: (winner, victory points, CPU seconds)."""
    name, seed, first, second = task
    scenario = load_scenario(name)
    a, b = (s["id"] for s in scenario.sides)
    t = time.process_time()
    game = Game(
        scenario,
        seed=seed,
        policies={
            a: get_policy(first, ruleset=scenario.ruleset),
            b: get_policy(second, ruleset=scenario.ruleset),
        },
    )
    out = game.run()
    assert out is not None
    return out.winner, dict(out.victory_points), time.process_time() - t


def _positive(text: str) -> int:
    """An argparse type: a whole number of at least 1 (argparse says why not)."""
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if n < 1:
        raise argparse.ArgumentTypeError(f"{n} games: give at least 1")
    return n


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """95 % Wilson score interval of a share k / n."""
    if n == 0:
        return (0.0, 1.0)
    p = k / n
    den = 1 + z * z / n
    mid = (p + z * z / (2 * n)) / den
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / den
    return (max(0.0, mid - half), min(1.0, mid + half))


def run_matchup(
    pool: ProcessPoolExecutor, name: str, seeds: int, first: str, second: str
) -> dict[str, object]:
    """Play ``seeds`` games of one scenario and summarise them."""
    results = list(pool.map(play, [(name, s, first, second) for s in range(seeds)]))
    sides = [s["id"] for s in load_scenario(name).sides]
    wins = Counter(w for w, _vp, _t in results)
    row: dict[str, object] = {"scenario": name, "games": seeds}
    for side in sides:
        row[f"wins_{side}"] = wins.get(side, 0) / seeds
        row[f"ci_{side}"] = wilson(wins.get(side, 0), seeds)
        row[f"vp_{side}"] = sum(vp[side] for _w, vp, _t in results) / seeds
    row["draws"] = wins.get(None, 0) / seeds
    row["sec_per_game"] = sum(t for _w, _vp, t in results) / seeds
    row["sides"] = sides
    return row


def main(argv: list[str] | None = None) -> int:
    """Print the balance table (and doctrine against random if asked)."""
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("scenarios", nargs="*", help="scenario names (default: all)")
    p.add_argument(
        "--seeds", type=_positive, default=100, help="games per scenario (at least 1)"
    )
    p.add_argument("--processes", type=int, default=os.cpu_count() or 1)
    p.add_argument(
        "--vs-random", type=int, default=0, metavar="N", help="also doctrine vs random"
    )
    args = p.parse_args(argv)
    names = args.scenarios or [n for n in available_scenarios() if n not in SKIP]
    balanced = 0
    with ProcessPoolExecutor(max(1, args.processes)) as pool:
        print(f"doctrine vs doctrine, {args.seeds} seeds per scenario")
        print(
            f"{'scenario':24s} {'side':6s} {'wins':>6s} {'95% CI':>13s} "
            f"{'mean VP':>8s}   draws  s/game"
        )
        for name in names:
            row = run_matchup(pool, name, args.seeds, "doctrine", "doctrine")
            sides = row["sides"]
            assert isinstance(sides, list)
            for i, side in enumerate(sides):
                lo, hi = row[f"ci_{side}"]  # type: ignore[misc]
                tail = (
                    f"  {row['draws']:6.0%}  {row['sec_per_game']:6.2f}"
                    if i == 0
                    else ""
                )
                print(
                    f"{name if i == 0 else '':24s} {side:6s} "
                    f"{row[f'wins_{side}']:6.0%} ({lo:4.0%}–{hi:4.0%}) "
                    f"{row[f'vp_{side}']:8.1f}{tail}"
                )
            if all(row[f"wins_{s}"] <= 0.85 for s in sides):  # type: ignore[operator]
                balanced += 1
        print(
            f"\n{balanced} of {len(names)} scenarios balanced (no side above 85 %); "
            "target: at least 2"
        )
        if args.vs_random:
            n = args.vs_random
            print(f"\ndoctrine vs random, {n} seeds each way")
            for name in names:
                a, b = (s["id"] for s in load_scenario(name).sides)
                r1 = run_matchup(pool, name, n, "doctrine", "random")
                r2 = run_matchup(pool, name, n, "random", "doctrine")
                print(
                    f"{name:24s} doctrine as {a}: {r1[f'wins_{a}']:5.0%} wins;  "
                    f"doctrine as {b}: {r2[f'wins_{b}']:5.0%} wins"
                )
    return 0 if balanced >= 2 else 1


if __name__ == "__main__":
    sys.exit(main())
