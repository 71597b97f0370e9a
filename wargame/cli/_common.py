"""What every ``wargame`` command shares: the usage error, the checkout, scenario
loading and atomic writes."""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

#: The checkout's root (notebooks, scenarios and maps live under it).
REPO = Path(__file__).resolve().parents[2]


class UsageError(Exception):
    """A mistake on the command line: printed as one line, exit code 2."""


def did_you_mean(word: str, choices: Sequence[str]) -> str:
    """`` (did you mean a, b?)`` for close matches, else ``""``.

    Examples:
        >>> did_you_mean("dotrine", ["doctrine", "greedy", "random"])
        ' (did you mean doctrine?)'
    """
    close = difflib.get_close_matches(word, list(choices), n=3)
    return f" (did you mean {', '.join(close)}?)" if close else ""


def write_atomic(path: Path, data: bytes) -> None:
    """``files.write_atomic`` into ``path``'s folder, made if missing."""
    from wargame.engine.files import write_atomic as _write

    path.parent.mkdir(parents=True, exist_ok=True)
    _write(path, data)


def scenario_or_usage(source: str) -> Any:
    """Load and fully check a scenario; every problem becomes a usage error."""
    from wargame.engine import ScenarioError, check_scenario, load_scenario

    try:
        scenario = load_scenario(source)
    except ScenarioError as exc:
        raise UsageError(str(exc)) from None
    problems = check_scenario(scenario)
    if problems:
        raise UsageError("\n".join(problems))
    return scenario


def parse_policies(
    command: str,
    items: Sequence[str] | None,
    sides: Sequence[str],
    names: Sequence[str],
    ruleset: str,
) -> dict[str, str]:
    """``SIDE=NAME`` options checked against the scenario's sides and the rule
    system's policies (``run`` and ``batch`` alike)."""
    chosen: dict[str, str] = {}
    for item in items or []:
        side, sep, name = item.partition("=")
        if not sep or not side or not name:
            raise UsageError(
                f"{command}: --policy {item!r} must be SIDE=NAME, e.g. "
                f"{sides[0]}=doctrine"
            )
        if side not in sides:
            raise UsageError(
                f"{command}: --policy {item!r}: no side {side!r}; sides: "
                f"{', '.join(sides)}"
            )
        if name not in names:
            raise UsageError(
                f"{command}: --policy {item!r}: unknown policy {name!r}"
                f"{did_you_mean(name, names)}; {ruleset} policies: {', '.join(names)}"
            )
        chosen[side] = name
    return chosen


def default_policies(scenario: Any) -> dict[str, str]:
    """Every side's policy when none is named: the rule system's default
    (``doctrine`` where it has one), the same for ``run`` and ``batch``."""
    from wargame.engine import get_ruleset

    default = getattr(get_ruleset(scenario.ruleset), "default_policy", "random")
    return {s["id"]: default for s in scenario.sides}
