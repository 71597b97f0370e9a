"""``wargame run``, ``wargame validate`` and ``wargame scenarios``: one scenario
played, checked or listed."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from wargame.render.export import log_csv

from ._common import (
    UsageError,
    default_policies,
    parse_policies,
    scenario_or_usage,
    write_atomic,
)


def _losses_table(game: Any) -> Any:
    """Units at the start, arrived and destroyed, by side and type, and how many
    ended in each weaker state, in the rule system's own words (World at War:
    ``reduced``)."""
    from collections import Counter

    import pandas as pd

    start = game.initial_state
    usual = Counter(u.strength for u in start.units.values()).most_common(1)
    fresh = usual[0][0] if usual else ""
    words = sorted(
        {u.strength for u in game.state.units.values()} - {"destroyed", fresh}
    )
    rows = []
    for uid, u in game.state.units.items():
        u0 = start.units[uid]
        row = {
            "side": u.side,
            "type": u.type,
            "units": 1,
            "arrived": int(u.position is not None or u.destroyed),
            "destroyed": int(u.destroyed),
        }
        for w in words:
            row[w] = int(u.strength == w and u0.strength != w)
        rows.append(row)
    columns = ["units", "arrived", "destroyed", *words]
    # the columns named: a scenario without units gives an empty table
    df = pd.DataFrame(rows, columns=["side", "type", *columns])
    return df.groupby(["side", "type"], sort=True)[columns].sum()


def cmd_run(args: argparse.Namespace) -> int:
    from wargame.engine import Game
    from wargame.engine.policy import available_policies, get_policy

    out = Path(args.out) if args.out else None
    if out is not None and out.suffix.lower() not in (".csv", ".parquet"):
        raise UsageError(
            f"run: --out {args.out!r} must end in .csv or .parquet (the log's format)"
        )
    if out is not None and out.suffix.lower() == ".parquet":
        try:
            import pyarrow  # noqa: F401
        except ImportError:
            raise UsageError(
                "run: writing .parquet needs pyarrow (pip install 'wargame[geo]'); "
                "or use --out log.csv"
            ) from None
    save = Path(args.save) if args.save else None
    if args.seed < 0:
        raise UsageError(f"run: --seed must be >= 0, not {args.seed}")
    if args.turns is not None and args.turns < 1:
        raise UsageError(f"run: --turns must be >= 1, not {args.turns}")
    scenario = scenario_or_usage(args.scenario)
    sides = [s["id"] for s in scenario.sides]
    chosen = default_policies(scenario)
    chosen.update(
        parse_policies(
            "run",
            args.policy,
            sides,
            available_policies(scenario.ruleset),
            scenario.ruleset,
        )
    )
    policies = {
        side: get_policy(name, ruleset=scenario.ruleset)
        for side, name in chosen.items()
    }
    game = Game(scenario, seed=args.seed, policies=policies)
    outcome = game.run(turns=args.turns)
    # outputs first (atomically), then the summary
    if out is not None:
        log = game.log
        if out.suffix.lower() == ".csv":
            write_atomic(out, log_csv(log))
        else:
            from wargame.engine.events import log_for_parquet

            write_atomic(out, log_for_parquet(log).to_parquet(None, index=False))
    if save is not None:
        save.parent.mkdir(parents=True, exist_ok=True)
        game.save(save)  # atomic itself (files.write_atomic)
    st = game.state
    side_names = {s: st.sides[s].name for s in sides}
    print(f"{scenario.title} ({scenario.id}, {scenario.ruleset}), seed {args.seed}")
    print("policies: " + ", ".join(f"{side_names[s]} = {chosen[s]}" for s in sides))
    if outcome is None:
        vp = game.ruleset.victory_points(st)
        print(f"stopped after turn {st.turn - 1} of {scenario.turns}: not over")
    else:
        vp = dict(outcome.victory_points)
        winner = side_names.get(outcome.winner, "draw") if outcome.winner else "draw"
        print(f"result: {winner} ({outcome.termination}, turn {outcome.turn})")
    print(
        "victory points: " + ", ".join(f"{side_names[s]} {vp.get(s, 0)}" for s in sides)
    )
    table = _losses_table(game)
    print()
    if table.empty:
        print("no units")
    else:
        table.index = table.index.set_levels(
            [side_names.get(s, s) for s in table.index.levels[0]], level=0
        )
        print(table.to_string())
    print(f"\n{len(game.actions)} actions, {len(game.events)} events")
    if out is not None:
        print(f"log written to {out}")
    if save is not None:
        print(f"game saved to {save} (wargame.engine.Game.load)")
    return 0


def add_run_parser(sub: Any) -> None:
    """``run``."""
    pr = sub.add_parser(
        "run",
        help="play a scenario to the end with AI policies and print a summary",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="Examples:\n"
        "  wargame run ahr_delay --seed 7\n"
        "  wargame run scenarios/remagen_linz_crossing.toml --policy frg=greedy "
        "--policy pact=doctrine\n"
        "  wargame run siebengebirge_heights --turns 3 --out log.csv "
        "--save game.json\n"
        "Policies: random, greedy, doctrine (default: doctrine for every side).",
    )
    pr.add_argument("scenario", help="scenario name (see scenarios/) or .toml file")
    pr.add_argument("--seed", type=int, default=0, help="dice seed (default 0)")
    pr.add_argument("--turns", type=int, help="play at most this many turns")
    pr.add_argument(
        "--policy",
        action="append",
        metavar="SIDE=NAME",
        help="policy of a side, e.g. pact=greedy (repeatable)",
    )
    pr.add_argument("--out", help="write the event log: log.csv or log.parquet")
    pr.add_argument("--save", help="write a save file (JSON) to load and replay")
    pr.set_defaults(func=cmd_run)


def cmd_validate(args: argparse.Namespace) -> int:
    from wargame.engine import ScenarioError, check_scenario, load_scenario

    problems: list[str] = []
    for source in args.files:
        try:
            scenario = load_scenario(source)
        except ScenarioError as exc:
            problems += exc.problems
            continue
        found = check_scenario(scenario)
        if found:
            problems += found
            continue
        print(
            f"ok: {scenario.source}: {scenario.title} ({scenario.ruleset}, "
            f"{scenario.turns} turns, {len(scenario.units)} units)"
        )
    if problems:
        raise UsageError("\n".join(problems))
    return 0


def add_validate_parser(sub: Any) -> None:
    """``validate``."""
    pv = sub.add_parser(
        "validate",
        help="check scenario files without playing them",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="Examples:\n"
        "  wargame validate scenarios/*.toml\n"
        "  wargame validate my_scenario.toml\n"
        "Exit code 2 and one line per problem (file: field: problem) if any.",
    )
    pv.add_argument(
        "files", nargs="+", metavar="FILE", help="scenario files (or names)"
    )
    pv.set_defaults(func=cmd_validate)


def cmd_scenarios(args: argparse.Namespace) -> int:
    """List every scenario: name, rule system, turns, title and sides."""
    from wargame.engine import ScenarioError, available_scenarios, load_scenario

    rows: list[tuple[str, str, str, str, str]] = []
    broken: list[str] = []
    for name in available_scenarios():
        try:
            s = load_scenario(name)
        except ScenarioError as exc:
            broken.append(f"{name}: {exc.problems[0] if exc.problems else exc}")
            continue
        if args.ruleset and not s.ruleset.startswith(args.ruleset):
            continue
        sides = " vs ".join(str(x.get("name", x["id"])) for x in s.sides)
        rows.append((name, s.ruleset, str(s.turns), s.title, sides))
    if args.ruleset and not rows:
        raise UsageError(f"scenarios: no scenario of rule system {args.ruleset!r}")
    head = ("scenario", "rule system", "turns", "title", "sides")
    widths = [max(len(r[i]) for r in [head, *rows]) for i in range(4)]
    for r in [head, *rows]:
        cells = (v.ljust(w) for v, w in zip(r[:4], widths, strict=True))
        print("  ".join(cells) + "  " + r[4])
    print(f"\n{len(rows)} scenario(s); play one with: wargame run NAME")
    for line in broken:
        print(f"wargame: warning: {line}", file=sys.stderr)
    return 0


def add_scenarios_parser(sub: Any) -> None:
    """``scenarios``."""
    ps = sub.add_parser(
        "scenarios",
        help="list the scenarios with rule system, turns, sides and title",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="Examples:\n  wargame scenarios\n  wargame scenarios --ruleset coh",
    )
    ps.add_argument("--ruleset", help="only this rule system (an id or its prefix)")
    ps.set_defaults(func=cmd_scenarios)
