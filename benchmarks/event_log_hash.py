"""Hash of the full event logs of doctrine-against-doctrine games (issue 23).

A speed-up must not change a single decision, die roll or state change: run
this script before and after (for instance on a worktree of ``main`` and on the
branch) and compare the printed digests.  Every game's events are written as
the golden-log lines (:func:`wargame.testing.golden.event_line`) and hashed
with SHA-256, one digest per seed and one over all of them.

Examples::

    .venv/bin/python benchmarks/event_log_hash.py
    .venv/bin/python benchmarks/event_log_hash.py --scenario ahr_delay --seeds 6
"""

from __future__ import annotations

import argparse
import hashlib
import sys

from wargame.engine import load_scenario
from wargame.testing.golden import event_line

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from bench_doctrine import play


def digests(name: str, seeds: int) -> list[tuple[int, int, str]]:
    """(seed, events, SHA-256 of the event lines) for seeds 1..``seeds``."""
    scenario = load_scenario(name)
    out = []
    for seed in range(1, seeds + 1):
        game = play(scenario, seed)
        text = "\n".join(event_line(e) for e in game.events)
        out.append((seed, len(game.events), hashlib.sha256(text.encode()).hexdigest()))
    return out


def main(argv: list[str] | None = None) -> int:
    """Print one digest per game and the digest over all games."""
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--scenario", default="remagen_linz_crossing")
    p.add_argument("--seeds", type=int, default=24, help="games (seeds 1..N)")
    args = p.parse_args(argv)
    total = hashlib.sha256()
    for seed, events, digest in digests(args.scenario, args.seeds):
        print(f"seed {seed:3d}  {events:5d} events  {digest[:16]}")
        total.update(digest.encode())
    print(f"all {args.seeds} games of {args.scenario}: {total.hexdigest()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
