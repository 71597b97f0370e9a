"""wargame.testing: tools that check a rule system the same way for every one.

* :mod:`wargame.testing.golden`: golden playthrough logs, recorded once and
  replayed in CI (a refactoring must leave every die and every change as it was).
"""

from __future__ import annotations

from .golden import diff_golden, read_golden, record_lines, write_golden

__all__ = ["diff_golden", "read_golden", "record_lines", "write_golden"]
