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

import difflib
import hashlib
import importlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from .state import GameState

__all__ = [
    "ANY_RULESET",
    "Decision",
    "Policy",
    "RandomPolicy",
    "ScoredPolicy",
    "UnknownPolicyError",
    "available_policies",
    "get_policy",
    "register_policy",
]


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


def tie_break(decision: Decision, i: int) -> float:
    """A tiny score (below 1e-6) for the ``i``-th legal action, from the game
    seed and the decision number: ties between equal scores are broken the
    same way in every replay of the game."""
    h = hashlib.blake2b(
        f"{decision.seed}:{decision.number}:{i}".encode(), digest_size=4
    )
    return int.from_bytes(h.digest(), "big") / 2**32 * 1e-6


class ScoredPolicy:
    """A policy that takes the legal action with the best :meth:`score` (plus
    :func:`tie_break`), deciding from the side's view only.

    Examples:
        >>> class Longest(ScoredPolicy):
        ...     def score(self, rules, view, action, side):
        ...         return float(len(action))
        >>> d = Decision("a", ("x", "yyy", "zz"), 0, 1, view=lambda: GameState("t"),
        ...              rules=object())
        >>> Longest().choose(d)
        'yyy'
    """

    def choose(self, decision: Decision) -> Any:
        """The best-scoring legal action (the first one without a view)."""
        acts = list(decision.legal_actions)
        rules = decision.rules
        if rules is None or decision.view is None:
            return acts[0]
        view = decision.view()
        best, best_score = acts[0], float("-inf")
        for i, a in enumerate(acts):
            score = self.score(rules, view, a, decision.side) + tie_break(decision, i)
            if score > best_score:
                best, best_score = a, score
        return best

    def score(self, rules: Any, view: GameState, action: Any, side: str) -> float:
        """The score of one legal action of ``side`` in its ``view``."""
        raise NotImplementedError


# --------------------------------------------------------------------------- #
# registry: policies per rule system                                          #
# --------------------------------------------------------------------------- #

#: The ruleset key of policies that play any rule system (``random``).
ANY_RULESET = "*"

_POLICIES: dict[tuple[str, str], Callable[..., Any] | str] = {
    (ANY_RULESET, "random"): RandomPolicy,
}


class UnknownPolicyError(ValueError):
    """No policy of that name for the rule system (the message lists them)."""


def register_policy(
    name: str, factory: Callable[..., Any] | str, *, ruleset: str = ANY_RULESET
) -> None:
    """Register a policy factory (a class, a function or a lazy ``"module:attr"``)
    under a name, for one rule system (or every one).

    Rule systems register their own policies when :mod:`wargame.rules` loads,
    e.g. ``register_policy("doctrine", "...:DoctrinePolicy", ruleset="waw-classic")``.

    Examples:
        >>> register_policy("Bad Name", RandomPolicy)
        Traceback (most recent call last):
        ...
        ValueError: policy name 'Bad Name' must be lower-case letters, digits, - or _
    """
    if not name or not all(c.islower() or c.isdigit() or c in "-_" for c in name):
        raise ValueError(
            f"policy name {name!r} must be lower-case letters, digits, - or _"
        )
    _POLICIES[(ruleset, name)] = factory


def _discover() -> None:
    from .ruleset import available_rulesets

    available_rulesets()  # imports wargame.rules, whose rule systems register


def available_policies(ruleset: str | None = None) -> list[str]:
    """Names of the policies that play a rule system (``None``: any of them).

    Examples:
        >>> "random" in available_policies("waw-classic")
        True
    """
    _discover()
    return sorted(
        {n for (r, n) in _POLICIES if ruleset is None or r in (ruleset, ANY_RULESET)}
    )


def get_policy(name: str, *, ruleset: str | None = None, **kwargs: Any) -> Any:
    """A new policy object by name for a rule system (keyword arguments go to
    its constructor).

    Without ``ruleset`` the name must be unambiguous among all rule systems.

    Raises:
        UnknownPolicyError: no such policy for that rule system (the message
            lists the ones it has).
        TypeError: a keyword argument the policy does not take.

    Examples:
        >>> get_policy("random", ruleset="waw-classic")
        RandomPolicy(seed=None)
    """
    _discover()
    factory = _POLICIES.get((ANY_RULESET, name))
    if factory is None and ruleset is not None:
        factory = _POLICIES.get((ruleset, name))
    if factory is None and ruleset is None:
        found = [(r, f) for (r, n), f in _POLICIES.items() if n == name]
        if len(found) > 1:
            which = ", ".join(sorted(r for r, _ in found))
            raise UnknownPolicyError(
                f"policy {name!r} exists for several rule systems ({which}); "
                "say which with ruleset=..."
            )
        factory = found[0][1] if found else None
    if factory is None:
        names = available_policies(ruleset)
        close = difflib.get_close_matches(str(name), names, n=2)
        hint = f" (did you mean {', '.join(close)}?)" if close else ""
        whose = f" for {ruleset}" if ruleset is not None else ""
        raise UnknownPolicyError(
            f"unknown policy {name!r}{whose}{hint}; available: {', '.join(names)}"
        )
    if isinstance(factory, str):
        module, _, attr = factory.partition(":")
        factory = getattr(importlib.import_module(module), attr)
        for key, value in list(_POLICIES.items()):
            if value == f"{module}:{attr}":
                _POLICIES[key] = factory
    return factory(**kwargs)
