"""Policies: who chooses the next action for a side when the game is stepped.

A policy is any object with ``choose(decision) -> Action``.  :class:`RandomPolicy`
picks uniformly among the legal actions.  Its randomness is derived from the game
seed and the decision number (never from the game's dice generator), so a game
that is saved and loaded, or undone and replayed, makes the same choices as one
played straight through.

Examples:
    >>> d = Decision(side="a", legal_actions=("x", "y", "z"), number=0, seed=1)
    >>> RandomPolicy().choose(d) in ("x", "y", "z")
    True
    >>> RandomPolicy().choose(d) == RandomPolicy().choose(d)
    True
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from .state import GameState

__all__ = ["Decision", "Policy", "RandomPolicy"]


@dataclass(frozen=True)
class Decision:
    """What a policy is asked: which side, which actions, and the side's view.

    Attributes:
        side: the deciding side.
        legal_actions: every legal action (non-empty).
        number: index the chosen action will have in the game's action list.
        seed: the game seed.
        view: callable giving the side's view of the state (computed on demand).
        rules: the game's rule system, for policies that read its public helpers
            (distances, paths, odds...); ``None`` outside a game.
    """

    side: str
    legal_actions: Sequence[Any]
    number: int
    seed: int
    view: Callable[[], GameState] | None = field(default=None, repr=False)
    rules: Any = field(default=None, repr=False)

    @property
    def state(self) -> GameState:
        """The deciding side's view of the state."""
        if self.view is None:
            raise ValueError("this decision carries no state")
        return self.view()


@runtime_checkable
class Policy(Protocol):
    """Chooses one of ``decision.legal_actions``."""

    def choose(self, decision: Decision) -> Any:
        """The chosen action."""
        ...


class RandomPolicy:
    """Uniform choice among the legal actions, reproducible from the game seed.

    Args:
        seed: a seed of its own; ``None`` (default) uses the game seed.
    """

    def __init__(self, seed: int | None = None) -> None:
        if seed is not None and seed < 0:
            raise ValueError("seed must be >= 0")
        self.seed = seed

    def choose(self, decision: Decision) -> Any:
        """Pick an action uniformly at random."""
        actions = decision.legal_actions
        if not actions:
            raise ValueError(f"{decision.side} has no legal action to choose from")
        seed = decision.seed if self.seed is None else self.seed
        # A 64-bit word hashed from (seed, decision number): reproducible on any
        # platform, independent of the game's dice and of earlier choices.
        text = f"random-policy:{seed}:{decision.number}".encode()
        word = int.from_bytes(hashlib.blake2b(text, digest_size=8).digest(), "little")
        return actions[word * len(actions) >> 64]

    def __repr__(self) -> str:
        return f"RandomPolicy(seed={self.seed})"
