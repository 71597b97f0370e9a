"""wargame.ai: policies that choose actions for a side, found by name per rule system.

A policy is any object with ``choose(decision) -> action`` (see
:class:`wargame.engine.Policy`).  Policies are registered per rule system (the
registry lives in :mod:`wargame.engine.policy`; each rule system registers its
own when :mod:`wargame.rules` loads):

* ``random`` plays every rule system: uniform among the legal actions (the
  engine's :class:`~wargame.engine.RandomPolicy`);
* World at War adds ``greedy`` (the shot with the best expected result from the
  exact odds, else a move to cover in range) and ``doctrine`` (objective-driven
  drills), which live beside its rules in ``wargame/rules/waw/ai/``.

Policies hold no rules: they read the side's view of the state and the rule
system's public helpers (``decision.rules``).  They are deterministic given the
game seed: any tie-break or random choice is drawn from a hash of
``(decision.seed, decision.number)``, never from the game's dice.

Examples:
    >>> available_policies("waw-classic")  # doctest: +ELLIPSIS
    ['doctrine', 'greedy', 'random']
    >>> from wargame.engine import Game
    >>> game = Game.from_scenario("test_remagen", seed=2, policies={
    ...     "nato": get_policy("doctrine", ruleset="waw-classic"),
    ...     "pact": get_policy("greedy", ruleset="waw-classic")})
    >>> game.run().termination in ("turn limit", "annihilation")
    True
    >>> try:
    ...     get_policy("doctrin", ruleset="waw-classic")
    ... except UnknownPolicyError as exc:
    ...     print(exc)
    unknown policy 'doctrin' for waw-classic (did you mean doctrine?); ...


A person in a notebook plays one side and lets a policy play the other::

    game = Game.from_scenario("ahr_delay", seed=1,
                              policies={"pact": get_policy("doctrine",
                                                          ruleset="waw-classic")})
    play_until(game, "nato")          # the AI plays until NATO must decide
    game.apply(game.legal_actions()[0])
    play_until(game, "nato")
"""

from __future__ import annotations

from typing import Any

from wargame.engine import RandomPolicy
from wargame.engine.policy import (
    UnknownPolicyError,
    available_policies,
    get_policy,
    register_policy,
)

__all__ = [
    "RandomPolicy",
    "UnknownPolicyError",
    "available_policies",
    "get_policy",
    "play_until",
    "register_policy",
]


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
