"""The ``wargame`` command line.

Examples::

    wargame scenarios                                # what there is to play
    wargame run ahr_delay --seed 7 --out log.csv     # play one with AI policies
    wargame batch test_remagen --games 200           # many games, win rates
    wargame validate scenarios/*.toml                # check scenario files
    wargame odds waw-classic --list                  # exact odds of one shot
    wargame los 'Erpeler Ley' Remagen                # line of sight
    wargame map build --source ../shared/geodata     # rebuild maps/rhine-remagen
    wargame lab                                      # JupyterLab on the quick start
    wargame classroom                                # the classroom app in Voila

User mistakes end with exit code 2 and one line per problem, never a traceback;
output cut short by a closed pipe (``wargame run ... | head``) ends quietly.

One module per command family: :mod:`.play` (run, validate, scenarios),
:mod:`.batch`, :mod:`.odds`, :mod:`.los`, :mod:`.maps`, :mod:`.servers` (lab,
classroom).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from . import batch, los, maps, odds, play, servers
from ._common import REPO, UsageError
from .servers import (
    CLASSROOM_NOTEBOOK,
    CLASSROOM_PORT,
    CLASSROOM_PORT_TRIES,
    NO_TOKEN_WARNING,
    TOKEN_ENV,
    classroom_argv,
    classroom_env,
    classroom_url,
    lab_argv,
    new_token,
    open_browser_later,
)

__all__ = [
    "CLASSROOM_NOTEBOOK",
    "CLASSROOM_PORT",
    "CLASSROOM_PORT_TRIES",
    "NO_TOKEN_WARNING",
    "REPO",
    "TOKEN_ENV",
    "UsageError",
    "build_parser",
    "classroom_argv",
    "classroom_env",
    "classroom_url",
    "lab_argv",
    "main",
    "new_token",
    "open_browser_later",
    "version",
]


def version() -> str:
    """The installed package's version (``wargame --version``).

    Examples:
        >>> version()[0].isdigit()
        True
    """
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as _version

    try:
        return _version("wargame")
    except PackageNotFoundError:  # a source tree that was never installed
        return "0+unknown"


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``wargame`` command."""
    p = argparse.ArgumentParser(
        prog="wargame",
        description="Tactical wargames on real geography: the Middle Rhine map, "
        "four rule systems, AI players, exact odds and line of sight.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="Examples:\n"
        "  wargame scenarios\n"
        "  wargame run ahr_delay --seed 7\n"
        "  wargame los 'Erpeler Ley' Remagen\n"
        "  wargame lab\n"
        "'wargame COMMAND --help' tells more about each command.",
    )
    p.add_argument("--version", action="version", version=f"%(prog)s {version()}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    play.add_scenarios_parser(sub)
    play.add_run_parser(sub)
    batch.add_parser(sub)
    play.add_validate_parser(sub)
    odds.add_parser(sub)
    los.add_parser(sub)
    maps.add_parser(sub)
    servers.add_parsers(sub)
    return p


def _quiet_broken_pipe() -> int:
    """The reader went away (``| head``): no traceback, and no second one when
    Python flushes stdout at exit; 141 = 128 + SIGPIPE, as shell tools end."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # stdout is not a real file (a test's capture)
        pass
    return 141


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        if getattr(args, "func", None) is None:  # ``wargame`` alone: help
            parser.print_help()
            return 0
        return int(args.func(args))
    except (UsageError, ValueError, FileNotFoundError) as exc:
        for line in str(exc).splitlines() or [""]:  # one line per problem
            print(f"wargame: error: {line}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return _quiet_broken_pipe()
    except OSError as exc:  # a folder or disk the command could not use
        where = f"{exc.filename}: " if exc.filename else ""
        print(
            f"wargame: error: {where}{exc.strerror or exc}; check the path, its "
            "permissions and the free disk space",
            file=sys.stderr,
        )
        return 2
    except KeyboardInterrupt:
        return 130
