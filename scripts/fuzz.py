"""``make fuzz``: the long property-based search of tests/fuzz (over 100,000 inputs).

Runs ``pytest tests/fuzz`` under the Hypothesis profile ``fuzz`` (thousands
of examples per test, random, with the example database in ``.hypothesis/``
so that a failure found once is replayed first next time), then prints the
generated inputs per family (scenarios, saves, API calls, CLI runs) and the
unexpected outcomes, from ``build/fuzz-summary.json``.

Usage::

    python scripts/fuzz.py               # strict: a test stops at its first failure
    python scripts/fuzz.py --keep-going  # survey: count every failure, list them
    python scripts/fuzz.py -- -k saves   # extra pytest arguments after --

Exit code 0 only when pytest passed, no outcome was unexpected and at least
``--min-total`` inputs (default 100,000) were generated.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SUMMARY = ROOT / "build" / "fuzz-summary.json"


def main(argv: list[str] | None = None) -> int:
    """Run the fuzz profile; returns the exit code."""
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument(
        "--keep-going",
        action="store_true",
        help="record failures without stopping (survey of distinct bugs)",
    )
    p.add_argument(
        "--min-total",
        type=int,
        default=100_000,
        help="fewest generated inputs for success (default 100,000)",
    )
    p.add_argument("--profile", default="fuzz", choices=("fuzz", "ci"))
    p.add_argument("pytest_args", nargs="*", help="extra pytest arguments (after --)")
    args = p.parse_args(argv)
    env = dict(os.environ)
    env["WARGAME_FUZZ_PROFILE"] = args.profile
    env["WARGAME_FUZZ_SUMMARY"] = str(SUMMARY)
    if args.keep_going:
        env["WARGAME_FUZZ_KEEP_GOING"] = "1"
    SUMMARY.unlink(missing_ok=True)
    cmd = [
        sys.executable,
        "-m",
        "pytest",
        "-q",
        "-p",
        "no:cacheprovider",
        "tests/fuzz",
        *args.pytest_args,
    ]
    print("+", " ".join(cmd), flush=True)
    code = subprocess.call(cmd, cwd=ROOT, env=env)
    if not SUMMARY.exists():
        print(
            "fuzz: no summary written (pytest did not reach the end)", file=sys.stderr
        )
        return code or 1
    s = json.loads(SUMMARY.read_text())
    print()
    print(f"fuzz totals ({s['profile']} profile):")
    for family, n in s["cases"].items():
        print(f"  {family:10s} {n:>9,}")
    print(f"  {'total':10s} {s['total']:>9,} generated inputs")
    print(f"  unexpected outcomes: {s['unexpected']:,} ({len(s['distinct'])} distinct)")
    for d in s["distinct"]:
        print(f"    [{d['family']}/{d['kind']}] {d['what']}: {d['detail'][:160]}")
    short = s["total"] < args.min_total
    if short:
        print(f"fuzz: only {s['total']:,} inputs, fewer than {args.min_total:,}")
    return code or int(s["unexpected"] > 0) or int(short)


if __name__ == "__main__":
    sys.exit(main())
