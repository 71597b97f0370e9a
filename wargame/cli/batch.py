"""``wargame batch``: many games of a scenario and its variants, for a what-if
study; the same default policies as ``wargame run``."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ._common import UsageError, default_policies, parse_policies, scenario_or_usage


def cmd_batch(args: argparse.Namespace) -> int:
    import time
    import warnings

    from wargame.batch import compare, load_variants, policy_names, run

    if args.games < 1:
        raise UsageError(f"batch: --games must be >= 1, not {args.games}")
    scenario = scenario_or_usage(args.scenario)
    sides = [s["id"] for s in scenario.sides]
    policies = default_policies(scenario)
    policies.update(
        parse_policies(
            "batch",
            args.policy,
            sides,
            policy_names(scenario.ruleset),
            scenario.ruleset,
        )
    )
    variants = load_variants(args.variants) if args.variants else None
    t0 = time.perf_counter()
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("ignore", RuntimeWarning)  # failures reported below
        df = run(
            args.scenario,
            args.games,
            seed=args.seed,
            policies=policies,
            variants=variants,
            processes=args.processes,
            out=args.out,
            progress=not args.quiet,
            logs=args.logs,
        )
    seconds = time.perf_counter() - t0
    sides = [c[3:] for c in df.columns if c.startswith("vp_")]
    side = args.side or sides[0]
    if side not in sides:
        raise UsageError(
            f"batch: --side {side!r} is not a side; sides: {', '.join(sides)}"
        )
    table = compare(df, side)
    print(
        f"{df['scenario'].iloc[0]}: {len(df)} games ({table.index.size} variant(s) x "
        f"{args.games}), seed {args.seed}, {seconds:.1f} s"
    )
    lines = [
        f"{'variant':24s} {'games':>5s}  {side + ' wins (95% CI)':>22s} {'draws':>6s}"
        + "".join(f" {'lost ' + s:>10s}" for s in sides)
        + f" {'LER ' + side:>9s}"
    ]
    for name, r in table.iterrows():
        lines.append(
            f"{str(name)[:24]:24s} {int(r['games']):5d}  "
            f"{r['win_rate']:6.0%} ({r['win_low']:4.0%}–{r['win_high']:4.0%})   "
            f"{r['draw_rate']:6.0%}"
            + "".join(f" {r['lost_' + s]:10.2f}" for s in sides)
            + f" {r['ler']:9.2f}"
        )
    names = {s["id"]: s.get("name", s["id"]) for s in scenario.sides}
    print(
        "policies: "
        + ", ".join(f"{names[s]} = {p}" for s, p in policies.items())
        + (" (a variant may set its own)" if variants else "")
    )
    print("\n".join(lines))
    if args.out:
        print(f"results in {args.out} (Parquet; read with wargame.batch.read_results)")
    failed = df[df["error"].notna()]
    if len(failed):
        first = failed.iloc[0]
        print(
            f"wargame: {len(failed)} game(s) failed; first: variant "
            f"{first['variant']!r}, game {first['game']}, seed {first['seed']}: "
            f"{first['error']}",
            file=sys.stderr,
        )
        return 1
    return 0


def add_parser(sub: Any) -> None:
    """``batch``."""
    pb = sub.add_parser(
        "batch",
        help="play many games of a scenario (and its variants) for a what-if study",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="Examples:\n"
        "  wargame batch test_remagen --games 200 --seed 1\n"
        "  wargame batch test_remagen --games 400 --variants what_if.toml "
        "--out runs/what_if\n"
        "  wargame batch scenarios/test_remagen.toml --games 50 --policy pact=random\n"
        "Re-running with the same --out resumes an interrupted run.",
    )
    pb.add_argument("scenario", help="scenario name or .toml/.json file")
    pb.add_argument("--games", type=int, required=True, help="games per variant")
    pb.add_argument("--seed", type=int, default=0, help="batch seed (default 0)")
    pb.add_argument(
        "--variants", help="TOML/JSON file: one table of overrides per variant"
    )
    pb.add_argument(
        "--processes", type=int, help="worker processes (default: every core)"
    )
    pb.add_argument("--out", help="folder for the Parquet results (resumable)")
    pb.add_argument(
        "--policy",
        action="append",
        metavar="SIDE=NAME",
        help="policy of a side, e.g. nato=random (repeatable; default: the rule "
        "system's default, as for wargame run)",
    )
    pb.add_argument(
        "--logs", action="store_true", help="keep every game's event log in --out"
    )
    pb.add_argument("--side", help="side whose win rate is shown (default: first)")
    pb.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    pb.set_defaults(func=cmd_batch)
