"""wargame.ai: policies that choose actions for a side, found by name.

A policy is any object with ``choose(decision) -> action`` (see
:class:`wargame.engine.Policy`).  The registry gives the built-in ones by name:

* ``random`` - uniform among the legal actions (the engine's
  :class:`~wargame.engine.RandomPolicy`);
* ``greedy`` - :class:`GreedyPolicy`: fires at the target with the best expected
  result from the exact odds, otherwise moves to cover within range;
* ``doctrine`` - :class:`DoctrinePolicy`: objective-driven play (advance by
  bounds through cover, overwatch for opportunity fire, rally near the HQ, hold
  what was taken, defer chits when waiting pays).

Policies hold no rules: they read the side's view of the state and the rule
system's public helpers (``decision.rules``: paths, odds, line of sight...).
They are deterministic given the game seed: any tie-break or random choice is
drawn from a hash of ``(decision.seed, decision.number)``, never from the
game's dice.  ``greedy`` and ``doctrine`` know World at War; for other rule
systems they fall back to ``random``.

Examples:
    >>> available_policies()
    ['doctrine', 'greedy', 'random']
    >>> from wargame.engine import Game
    >>> game = Game.from_scenario("test_remagen", seed=2,
    ...     policies={"nato": get_policy("doctrine"), "pact": get_policy("greedy")})
    >>> game.run().termination in ("turn limit", "annihilation")
    True

A person in a notebook plays one side and lets a policy play the other::

    game = Game.from_scenario("ahr_delay", seed=1,
                              policies={"pact": get_policy("doctrine")})
    play_until(game, "nato")          # the AI plays until NATO must decide
    game.apply(game.legal_actions()[0])
    play_until(game, "nato")
"""

from __future__ import annotations

import difflib
from collections.abc import Callable
from typing import Any

from wargame.engine import Policy, RandomPolicy
from wargame.rules.waw.ai import DoctrinePolicy, GreedyPolicy

__all__ = [
    "DoctrinePolicy",
    "GreedyPolicy",
    "RandomPolicy",
    "available_policies",
    "get_policy",
    "play_until",
    "register_policy",
]

_REGISTRY: dict[str, Callable[..., Policy]] = {
    "random": RandomPolicy,
    "greedy": GreedyPolicy,
    "doctrine": DoctrinePolicy,
}


def register_policy(name: str, factory: Callable[..., Policy]) -> None:
    """Register a policy factory (a class or a function) under a name.

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
    _REGISTRY[name] = factory


def available_policies() -> list[str]:
    """Names of the registered policies, sorted."""
    return sorted(_REGISTRY)


def get_policy(name: str, **kwargs: Any) -> Policy:
    """A new policy object by name (keyword arguments go to its constructor).

    Raises:
        ValueError: unknown name (the message lists the available ones).
        TypeError: a keyword argument the policy does not take.

    Examples:
        >>> get_policy("greedy", seed=4)
        GreedyPolicy(seed=4)
        >>> try:  # doctest: +ELLIPSIS
        ...     get_policy("doctrin")
        ... except ValueError as exc:
        ...     print(exc)
        unknown policy 'doctrin' (did you mean doctrine?); available: doctrine, ...
    """
    factory = _REGISTRY.get(name)
    if factory is None:
        close = difflib.get_close_matches(str(name), list(_REGISTRY), n=2)
        hint = f" (did you mean {', '.join(close)}?)" if close else ""
        raise ValueError(
            f"unknown policy {name!r}{hint}; available: "
            f"{', '.join(available_policies())}"
        )
    return factory(**kwargs)


def play_until(game: Any, side: str, *, max_actions: int = 100_000) -> int:
    """Let the game's policies play until ``side`` must decide (or the end).

    For a person playing ``side`` in a notebook: give policies for the other
    side(s), call this, look at ``game.legal_actions()``, ``game.apply(...)``
    one, and call it again.

    Returns:
        The number of actions the policies played.

    Raises:
        ValueError: ``side`` is not a side of the game.
    """
    if side not in game.state.sides:
        raise ValueError(f"unknown side {side!r}; sides: {list(game.state.sides)}")
    n = 0
    while not game.is_over and game.current_side != side:
        if n >= max_actions:
            raise RuntimeError(f"{side} never had to decide in {max_actions} actions")
        game.step()
        n += 1
    return n
