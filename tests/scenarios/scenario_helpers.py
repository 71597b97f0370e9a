"""Helpers for the scenario tests: a small valid scenario to break, file writing."""

from __future__ import annotations

import re
import sys
from pathlib import Path

from wargame.ai import get_policy
from wargame.engine import Game, load_scenario

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "rules_waw"))
from waw_invariants import InvariantChecker

REPO = Path(__file__).resolve().parents[2]
SHIPPED = ("remagen_linz_crossing", "ahr_delay", "siebengebirge_heights")

#: A small valid World at War scenario on the Remagen window (N17 and H17 are on
#: the plateau, R9 is the Rhine).
BASE = """\
id = "t"
ruleset = "waw-classic"
turns = 4

[map]
name = "rhine-remagen"
window = "Remagen"

[[sides]]
id = "nato"

[[sides]]
id = "pact"

[[formations]]
id = "A"
side = "nato"

[[units]]
id = "A1"
type = "m60"
formation = "A"
hex = "N17"

[[formations]]
id = "B"
side = "pact"

[[units]]
id = "B1"
type = "t72"
formation = "B"
hex = "H17"
"""


def write(tmp_path: Path, name: str, text: str) -> Path:
    """Write a scenario file and return its path."""
    path = tmp_path / f"{name}.toml"
    path.write_text(text, encoding="utf-8")
    return path


def docs_example() -> str:
    """The annotated example scenario of docs/scenarios.md."""
    text = (REPO / "docs" / "scenarios.md").read_text(encoding="utf-8")
    match = re.search(r"```toml\n(.*?)```", text, re.S)
    assert match, "docs/scenarios.md has no ```toml example"
    return match.group(1)


def play(task: tuple[str, int, str, str]) -> tuple[str | None, str, int]:
    """One game to the end: (winner, termination, last turn).

    Doctrine against doctrine is played with the invariant checker listening
    to every event (stacking, positions with reinforcements, Ops Complete,
    chits): it raises at the first broken invariant.
    """
    name, seed, first, second = task
    scenario = load_scenario(name)
    a, b = (s["id"] for s in scenario.sides)
    rs = scenario.ruleset
    policies = {a: get_policy(first, ruleset=rs), b: get_policy(second, ruleset=rs)}
    listeners = []
    if first == second == "doctrine":
        rules = Game(scenario, seed=seed).ruleset
        listeners.append(InvariantChecker(rules))  # type: ignore[arg-type]
    game = Game(scenario, seed=seed, policies=policies, listeners=listeners)
    out = game.run()
    assert out is not None and game.is_over
    if listeners:
        assert listeners[0].events == len(game.events)
    return out.winner, out.termination, out.turn
