"""Errors raised by the engine, each a ``ValueError`` with a message in game terms."""

from __future__ import annotations

from collections.abc import Sequence

__all__ = [
    "IllegalActionError",
    "SaveFileError",
    "ScenarioError",
    "UnknownRulesetError",
]


class IllegalActionError(ValueError):
    """An action the rules do not allow now; the game state is left untouched.

    Examples:
        >>> raise IllegalActionError("T-80 platoon 1/74 is Ops Complete")
        Traceback (most recent call last):
        ...
        wargame.engine.errors.IllegalActionError: T-80 platoon 1/74 is Ops Complete
    """


class ScenarioError(ValueError):
    """A scenario file or dict is missing something or has a bad value.

    Args:
        problems: one problem line, or several (``<file>: <field>: <problem>``);
            the message is the lines joined by newlines.

    Examples:
        >>> exc = ScenarioError(["a.toml: turns: missing", "a.toml: id: missing"])
        >>> exc.problems
        ('a.toml: turns: missing', 'a.toml: id: missing')
    """

    def __init__(self, problems: str | Sequence[str]) -> None:
        lines = (problems,) if isinstance(problems, str) else tuple(problems)
        self.problems: tuple[str, ...] = lines
        super().__init__("\n".join(lines))


class SaveFileError(ValueError):
    """A save file is missing, damaged, foreign, does not replay or cannot be
    written."""


class UnknownRulesetError(ValueError):
    """No rule system is registered under that id."""
