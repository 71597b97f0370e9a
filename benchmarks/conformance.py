"""The issues' long conformance runs: ``check_ruleset`` on every scenario of a
rule system for 200 seeds (leak checks included), on every core.

Run: ``.venv/bin/python benchmarks/conformance.py --ruleset fow-v3 [--seeds 200]
[--processes 2]``.  The test suite plays a few seeds of each scenario; this
script plays them all and prints, per scenario, what was checked and how long
it took.  For a rule system whose units stand at points, ``legal_actions``
offers a sample of the moves (free movement): moves offered before and not now
are not held to be refused (``sampled``), every other action still is.

Examples::

    .venv/bin/python benchmarks/conformance.py --ruleset coh-2e
    .venv/bin/python benchmarks/conformance.py --ruleset fow-v3 --seeds 20
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from wargame.engine import available_scenarios, get_ruleset, load_scenario
from wargame.testing import check_ruleset


def _is_move(action: Any) -> bool:
    return getattr(action, "type", None) == "move"


def run(task: tuple[str, str, int, int]) -> dict[str, Any]:
    """``check_ruleset`` on seeds ``start..stop-1`` of one scenario."""
    ruleset, name, start, stop = task
    points = get_ruleset(ruleset).positions == "point"
    r = check_ruleset(
        ruleset,
        name,
        seeds=range(start, stop),
        repeat=3,
        complete_legal_actions=not points,
        sampled=_is_move if points else None,
    )
    return {
        "games": r.games,
        "decisions": r.decisions,
        "actions": r.actions_checked,
        "refusals": r.refusals_checked,
        "events": r.events,
        "leaks": r.leak_checks,
        "outcomes": list(r.outcomes),
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    p.add_argument("--ruleset", required=True, help="rule system id, e.g. fow-v3")
    p.add_argument("--seeds", type=int, default=200)
    p.add_argument("--processes", type=int, default=os.cpu_count() or 1)
    p.add_argument(
        "--scenario", action="append", help="only this scenario (repeatable)"
    )
    args = p.parse_args(argv)
    if args.seeds < 1 or args.processes < 1:
        p.error("--seeds and --processes must be at least 1")
    names = [
        s for s in available_scenarios() if load_scenario(s).ruleset == args.ruleset
    ]
    if args.scenario:
        unknown = sorted(set(args.scenario) - set(names))
        if unknown:
            print(
                f"not a shipped scenario of {args.ruleset!r}: {', '.join(unknown)} "
                f"(choose from {', '.join(names)})",
                file=sys.stderr,
            )
            return 2
        names = [n for n in names if n in args.scenario]
    if not names:
        print(f"no shipped scenario of {args.ruleset!r}", file=sys.stderr)
        return 2
    chunk = max(1, args.seeds // (4 * args.processes))
    with ProcessPoolExecutor(args.processes) as pool:
        for name in names:
            t = time.perf_counter()
            tasks = [
                (args.ruleset, name, a, min(a + chunk, args.seeds))
                for a in range(0, args.seeds, chunk)
            ]
            total: Counter[str] = Counter()
            winners: Counter[str] = Counter()
            for part in pool.map(run, tasks):
                winners.update(str(w) for w in part.pop("outcomes"))
                total.update(part)
            dt = time.perf_counter() - t
            print(
                f"{name}: {total['games']} games, {total['decisions']:,} decisions, "
                f"{total['actions']:,} actions and {total['refusals']:,} refusals "
                f"checked, {total['events']:,} events, {total['leaks']:,} leak "
                f"checks, winners {dict(sorted(winners.items()))}, {dt:.0f} s wall "
                f"({args.processes} processes): passed",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
