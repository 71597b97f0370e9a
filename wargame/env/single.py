"""One side as a Gymnasium environment: the agent plays ``side``; the other
sides are played by named policies of ours (``doctrine``, ``greedy``, ``random``)
between the agent's decisions.

Examples:
    >>> env = gym_env("test_remagen", side="nato", opponent="doctrine")
    >>> obs, info = env.reset(seed=2)
    >>> int(obs["action_mask"].sum()) > 0
    True
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, SupportsFloat

import gymnasium
import numpy as np

from wargame.engine.policy import Decision, available_policies, get_policy
from wargame.engine.scenario import Scenario

from .aec import WargameAEC

__all__ = ["WargameGym", "gym_env"]


def _view_of(game: Any, side: str) -> Callable[[], Any]:
    """The deciding side's view, computed when the policy asks for it."""
    return lambda: game.ruleset.view(game.state, side)


class WargameGym(gymnasium.Env):  # type: ignore[misc]
    """A single-agent view of :class:`~wargame.env.aec.WargameAEC`."""

    metadata = {"render_modes": []}  # noqa: RUF012 - gymnasium.Env declares it

    def __init__(
        self,
        scenario: str | Scenario | Mapping[str, Any],
        *,
        side: str,
        opponent: str = "doctrine",
        **kwargs: Any,
    ) -> None:
        self.aec = WargameAEC(scenario, **kwargs)
        if side not in self.aec.possible_agents:
            raise ValueError(
                f"gym_env: side: unknown side {side!r}; sides: "
                f"{', '.join(self.aec.possible_agents)}"
            )
        ruleset = self.aec.scenario.ruleset
        names = available_policies(ruleset)
        if opponent not in names:
            raise ValueError(
                f"gym_env: opponent: unknown policy {opponent!r}; {ruleset} policies: "
                f"{', '.join(names)}"
            )
        self.side = side
        self.opponent_name = opponent
        self._opponent = get_policy(opponent, ruleset=ruleset)
        self.observation_space = self.aec.observation_space(side)
        self.action_space = self.aec.action_space(side)

    @property
    def game(self) -> Any:
        """The game being played (its ``log``, ``view()``, ``save()``)."""
        return self.aec.game

    def _others_play(self) -> float:
        """Let the other sides move until the agent decides or the game ends;
        the agent's reward collected on the way."""
        env, got = self.aec, 0.0
        while not (env.terminations[self.side] or env.truncations[self.side]):
            agent = env.agent_selection
            if agent == self.side:
                break
            decision = Decision(
                side=agent,
                legal_actions=env.legal_actions(),
                number=len(env.game.actions),
                seed=env.game.seed,
                view=_view_of(env.game, agent),
                rules=env.game.ruleset,
            )
            env.step(env.index_of(self._opponent.choose(decision)))
            got += env.rewards[self.side]
        return got

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        """A new game (``seed`` as :meth:`WargameAEC.reset`)."""
        super().reset(seed=seed)
        self.aec.reset(seed=seed)
        self._others_play()
        return self.aec.observe(self.side), dict(self.aec.infos[self.side])

    def step(
        self, action: int
    ) -> tuple[dict[str, np.ndarray], SupportsFloat, bool, bool, dict[str, Any]]:
        """The agent's action, then the other sides' until it decides again."""
        env = self.aec
        if env.terminations[self.side] or env.truncations[self.side]:
            raise ValueError("step: the episode is over; call reset()")
        if env.illegal == "lose":
            try:
                env.action_of(action)
            except ValueError:
                env.step(action)  # ends the episode with -1 for the agent
                return (
                    env.observe(self.side),
                    env.rewards[self.side],
                    True,
                    False,
                    dict(env.infos[self.side]),
                )
        if env.agent_selection != self.side:  # pragma: no cover - guarded above
            raise ValueError(f"step: it is not {self.side!r}'s decision")
        env.step(action)
        reward = env.rewards[self.side] + self._others_play()
        return (
            env.observe(self.side),
            reward,
            bool(env.terminations[self.side]),
            bool(env.truncations[self.side]),
            dict(env.infos[self.side]),
        )


def gym_env(
    scenario: str | Scenario | Mapping[str, Any],
    *,
    side: str,
    opponent: str = "doctrine",
    **kwargs: Any,
) -> WargameGym:
    """Play ``side`` of a scenario against ``opponent`` (a policy name of its rule
    system); other keywords as :func:`~wargame.env.aec.aec_env`."""
    return WargameGym(scenario, side=side, opponent=opponent, **kwargs)
