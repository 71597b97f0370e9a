"""The issue's long conformance run: ``check_ruleset("coh-2e", ...)`` on every
Conflict of Heroes scenario for 200 seeds, leak checks included.

Run: ``.venv/bin/python benchmarks/conformance_coh.py [--seeds 200]``.  The test
suite plays a few seeds of each (tests/rules_coh/test_coh_conformance.py); this
script plays them all and prints what was checked and how long it took.
"""

from __future__ import annotations

import argparse
import time

from wargame.engine import available_scenarios, load_scenario
from wargame.testing import check_ruleset


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--seeds", type=int, default=200)
    args = p.parse_args()
    if args.seeds < 1:
        p.error("--seeds must be at least 1")
    names = [s for s in available_scenarios() if load_scenario(s).ruleset == "coh-2e"]
    for name in names:
        t = time.perf_counter()
        r = check_ruleset("coh-2e", name, seeds=range(args.seeds), repeat=3)
        dt = time.perf_counter() - t
        wins = {w: r.outcomes.count(w) for w in sorted(set(r.outcomes))}
        print(
            f"{name}: {r.games} games, {r.decisions:,} decisions, "
            f"{r.actions_checked:,} actions and {r.refusals_checked:,} refusals "
            f"checked, {r.events:,} events, {r.leak_checks:,} leak checks, "
            f"winners {wins}, {dt:.0f} s: passed"
        )


if __name__ == "__main__":
    main()
