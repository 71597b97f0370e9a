"""Errors raised by the engine, each a ``ValueError`` with a message in game terms."""

from __future__ import annotations

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
    """A scenario file or dict is missing something or has a bad value."""


class SaveFileError(ValueError):
    """A save file is missing, damaged, foreign or does not replay."""


class UnknownRulesetError(ValueError):
    """No rule system is registered under that id."""
