"""wargame.testing: tools that check a rule system the same way for every one.

* :func:`check_ruleset` (:mod:`wargame.testing.conformance`): random legal play
  to the end with invariants, legality, determinism, save/load, replay and
  secrets checked, for any registered rule system;
* :mod:`wargame.testing.golden`: golden playthrough logs, recorded once and
  replayed in CI (a refactoring must leave every die and every change as it was).
"""

from __future__ import annotations

from .conformance import (
    ConformanceError,
    ConformanceReport,
    check_ruleset,
    secrets_seen,
)
from .golden import diff_golden, read_golden, record_lines, write_golden

__all__ = [
    "ConformanceError",
    "ConformanceReport",
    "check_ruleset",
    "diff_golden",
    "read_golden",
    "record_lines",
    "secrets_seen",
    "write_golden",
]
