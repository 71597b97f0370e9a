"""``wargame odds SYSTEM ...``: exact odds from a rule system's own odds code
(each rule system declares its options through ``odds_arguments``)."""

from __future__ import annotations

import argparse
from typing import Any

from ._common import UsageError


def _odds_ruleset(system: str) -> Any:
    """The rule system of ``wargame odds SYSTEM`` (an id or its unique prefix)."""
    from wargame.engine import available_rulesets, get_ruleset

    ids = available_rulesets()
    match = [r for r in ids if r == system] or [r for r in ids if r.startswith(system)]
    with_odds = [r for r in ids if getattr(get_ruleset(r), "odds_command", False)]
    if len(match) != 1 or match[0] not in with_odds:
        raise UsageError(
            f"odds: unknown rule system {system!r}; rule systems with odds: "
            f"{', '.join(with_odds) or '(none)'}"
        )
    return get_ruleset(match[0])


def cmd_odds(args: argparse.Namespace) -> int:
    cls = _odds_ruleset(args.system)
    parser = argparse.ArgumentParser(prog=f"wargame odds {cls.id}")
    cls.odds_arguments(parser)
    if any(a in ("-h", "--help") for a in args.options):
        parser.print_help()
        return 0
    try:
        opts = parser.parse_args(args.options)
    except SystemExit as exc:  # argparse printed why
        return int(exc.code or 0) and 2
    try:
        print(cls.odds_report(opts))
    except ValueError as exc:  # e.g. out of range, AP at infantry
        raise UsageError(f"odds: {exc}") from None
    return 0


def add_parser(sub: Any) -> None:
    """``odds``."""
    po = sub.add_parser(
        "odds",
        help="exact odds of one unit firing at another",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="Examples:\n"
        "  wargame odds waw-classic --attacker t72 --target tow_jeep --range 6 "
        "--terrain woods\n"
        "  wargame odds waw-classic --list\n"
        "  wargame odds waw-classic --help   (that rule system's options)",
    )
    po.add_argument(
        "system", help="rule system id (or a unique prefix), e.g. waw-classic"
    )
    po.add_argument(
        "options", nargs=argparse.REMAINDER, help="the rule system's own options"
    )
    po.set_defaults(func=cmd_odds)
