"""Session-wide test setup: a private per-run cache so tests never see stale data."""

import os
import tempfile

if "WARGAME_TEST_KEEP_CACHE" not in os.environ:
    os.environ["WARGAME_CACHE"] = tempfile.mkdtemp(prefix="wargame-test-cache-")
os.environ.setdefault("MPLBACKEND", "Agg")

# The toy rule systems of tests/engine are always registered, so that the conformance
# and golden-log tests over ``available_rulesets()`` see it whichever files run.
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent / "tests" / "engine"))

import toy_points  # noqa: F401  (registers "toypoints-1e")
import toy_ruleset  # noqa: F401  (registers "toy-1e")
