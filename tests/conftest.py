"""Test-session setup: the toy rule system of tests/engine is always registered,
so that the conformance and golden-log tests over ``available_rulesets()`` see
it whichever test files run."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent / "engine"))

import toy_ruleset  # noqa: F401  (registers "toy-1e")
