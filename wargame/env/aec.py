"""A game as a PettingZoo AEC environment: agents are the scenario's sides and
``agent_selection`` follows the rule system's ``current_side``.

Action space: ``Discrete(max_actions)``. Slot ``i`` holds the ``i``-th legal
action in the order the rule system lists them (deterministic: the same state
gives the same list); ``observation["action_mask"]`` marks the filled slots and
``observation["action_features"]`` says what each holds. ASSUMPTION: a pointer
space over the legal list (rather than a fixed table of every conceivable
action) is the only fixed space that serves rule systems whose actions carry
free points or card choices; when more actions are legal than there are slots
(the default 1,024 is above the most any shipped scenario offered in random
games, 698), the rest are not offered and ``infos[agent]["actions_cut"]`` counts
them.

Illegal input (PettingZoo leaves the convention to the environment), chosen by
``illegal=``: ``"raise"`` (default) raises :class:`ValueError` for an index
outside the space or a masked slot, naming the index and the number of legal
actions, with the game unchanged; ``"lose"`` follows PettingZoo's classic games
(chess, connect four): the episode ends, the offender gets -1, the others 0,
``infos[agent]["illegal_action"]`` is set, and the game itself is unchanged
(so unmasked samplers such as Gymnasium's ``check_env`` can drive it).

Rewards (``reward=``): ``"outcome"`` (default) gives +1 to the winner and -1 to
the loser when the game ends, 0 to both for a draw; ``"vp"`` gives, after every
step, the change in the agent's victory-point lead.

Examples:
    >>> env = aec_env("test_remagen", seed=3)
    >>> env.reset(seed=3)
    >>> env.agent_selection in env.agents
    True
    >>> obs, reward, term, trunc, info = env.last()
    >>> int(obs["action_mask"].sum()) == len(env.legal_actions())
    True
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from wargame.engine import Game, load_scenario
from wargame.engine.scenario import Scenario

from .observation import Encoder

__all__ = ["DEFAULT_MAX_ACTIONS", "WargameAEC", "aec_env"]

#: Action slots when the caller does not say.
DEFAULT_MAX_ACTIONS = 1024
_REWARDS = ("outcome", "vp")
_ILLEGAL = ("raise", "lose")


def _scenario(scenario: str | Scenario | Mapping[str, Any]) -> Scenario:
    if isinstance(scenario, Scenario):
        return scenario
    return load_scenario(scenario)  # ScenarioError (a ValueError) names the problem


class WargameAEC(AECEnv):  # type: ignore[misc]
    """The AEC environment of one scenario (see the module doc)."""

    metadata: ClassVar[dict[str, Any]] = {
        "name": "wargame_v0",
        "is_parallelizable": False,
        "render_modes": [],
    }

    def __init__(
        self,
        scenario: str | Scenario | Mapping[str, Any],
        *,
        seed: int = 0,
        max_actions: int = DEFAULT_MAX_ACTIONS,
        reward: str = "outcome",
        max_steps: int | None = None,
        illegal: str = "raise",
    ) -> None:
        super().__init__()
        if illegal not in _ILLEGAL:
            raise ValueError(
                f"aec_env: illegal: {illegal!r} is not one of {', '.join(_ILLEGAL)}"
            )
        self.illegal = illegal
        if reward not in _REWARDS:
            raise ValueError(
                f"aec_env: reward: {reward!r} is not one of {', '.join(_REWARDS)}"
            )
        if not isinstance(max_actions, int) or max_actions < 1:
            raise ValueError(f"aec_env: max_actions: must be >= 1, not {max_actions!r}")
        if max_steps is not None and (not isinstance(max_steps, int) or max_steps < 1):
            raise ValueError(f"aec_env: max_steps: must be >= 1, not {max_steps!r}")
        if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
            raise ValueError(
                f"aec_env: seed: must be a whole number >= 0, not {seed!r}"
            )
        self.scenario = _scenario(scenario)
        self.reward_kind = reward
        self.max_steps = max_steps
        self._seed = seed
        self.game = Game(self.scenario, seed=seed)
        self._map = self.game.map
        self.encoder = Encoder(self.game, max_actions)
        self.possible_agents = [s["id"] for s in self.scenario.sides]
        self._action_space = spaces.Discrete(max_actions)
        self._setup()

    # -- PettingZoo API ------------------------------------------------------ #
    def observation_space(self, agent: str) -> spaces.Dict:
        """The same dictionary space for every side (see :mod:`.observation`)."""
        return self.encoder.space

    def action_space(self, agent: str) -> spaces.Discrete:
        """``Discrete(max_actions)`` for every side."""
        return self._action_space

    def reset(
        self, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> None:
        """A new game, as ``Game.from_scenario(scenario, seed=seed)`` starts it
        (``None``: the seed given before)."""
        if seed is not None:
            if not isinstance(seed, int | np.integer) or seed < 0:
                raise ValueError(
                    f"reset: seed: must be a whole number >= 0, not {seed!r}"
                )
            self._seed = int(seed)
        self.game = Game(self.scenario, seed=self._seed, game_map=self._map)
        self._setup()

    def _setup(self) -> None:
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self._steps = 0
        self._legal_cache: tuple[int, list[Any]] | None = None
        self._lead = self._leads()
        self._select()

    def legal_actions(self) -> list[Any]:
        """The legal actions of the side to move, in slot order."""
        n = len(self.game.actions)
        if self._legal_cache is None or self._legal_cache[0] != n:
            self._legal_cache = (n, self.game.legal_actions())
        return self._legal_cache[1]

    def _select(self) -> None:
        side = self.game.current_side
        if side is not None:
            self.agent_selection = side
            n = len(self.legal_actions())
            cut = max(0, n - self.encoder.max_actions)
            self.infos[side] = {"legal_actions": min(n, self.encoder.max_actions)}
            if cut:
                self.infos[side]["actions_cut"] = cut
        else:
            self.agent_selection = self.agents[0] if self.agents else ""

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """``agent``'s observation from its own view of the game."""
        if agent not in self.possible_agents:
            raise ValueError(
                f"observe: unknown agent {agent!r}; agents: {self.possible_agents}"
            )
        deciding = self.game.current_side == agent
        legal = self.legal_actions() if deciding else []
        return self.encoder.encode(self.game.state_for(agent), agent, deciding, legal)

    def action_of(self, index: int) -> Any:
        """The action in slot ``index`` now (``ValueError`` if none is there)."""
        legal = self.legal_actions()
        n = min(len(legal), self.encoder.max_actions)
        if (
            not isinstance(index, int | np.integer)
            or isinstance(index, bool)
            or not 0 <= int(index) < self.encoder.max_actions
        ):
            raise ValueError(
                f"step: action {index!r} is outside "
                f"Discrete({self.encoder.max_actions})"
            )
        if int(index) >= n:
            raise ValueError(
                f"step: action {int(index)} is masked out: {n} legal action(s) now "
                f"(slots 0–{n - 1}); read observation['action_mask']"
            )
        return legal[int(index)]

    def index_of(self, action: Any) -> int:
        """The slot of a legal action (``ValueError`` if it is not legal now)."""
        for i, a in enumerate(self.legal_actions()[: self.encoder.max_actions]):
            if a == action:
                return i
        raise ValueError(f"index_of: {action!r} is not a legal action now")

    def step(self, action: int | None) -> None:
        """Apply the action in slot ``action`` for ``agent_selection``."""
        agent = self.agent_selection
        if self.terminations.get(agent) or self.truncations.get(agent):
            self._was_dead_step(action)
            return
        try:
            chosen = self.action_of(action)  # type: ignore[arg-type]
        except ValueError as exc:
            if self.illegal == "raise":
                raise
            self._cumulative_rewards[agent] = 0.0
            self.rewards = dict.fromkeys(self.agents, 0.0)
            self.rewards[agent] = -1.0
            self.terminations = dict.fromkeys(self.agents, True)
            self.infos[agent] = {"illegal_action": str(exc)}
            self._accumulate_rewards()
            return
        self._cumulative_rewards[agent] = 0.0
        self.game.apply(chosen)
        self._steps += 1
        self.rewards = dict.fromkeys(self.agents, 0.0)
        lead = self._leads()
        if self.reward_kind == "vp":
            for a in self.agents:
                self.rewards[a] = float(lead[a] - self._lead[a])
        self._lead = lead
        outcome = self.game.outcome
        if outcome is not None:
            if self.reward_kind == "outcome" and outcome.winner is not None:
                for a in self.agents:
                    self.rewards[a] = 1.0 if a == outcome.winner else -1.0
            self.terminations = dict.fromkeys(self.agents, True)
            for a in self.agents:
                self.infos[a] = {"outcome": outcome.to_dict()}
        elif self.max_steps is not None and self._steps >= self.max_steps:
            self.truncations = dict.fromkeys(self.agents, True)
        self._accumulate_rewards()
        if outcome is None and not any(self.truncations.values()):
            self._select()
        else:
            self.agent_selection = self.agents[0]

    def _leads(self) -> dict[str, float]:
        vp = self.game.ruleset.victory_points(self.game.state)
        total = sum(vp.values())
        return {a: float(2 * vp.get(a, 0) - total) for a in self.possible_agents}

    @property
    def log(self) -> Any:
        """The episode's event log (the umpire's), as :attr:`Game.log`."""
        return self.game.log

    def render(self) -> None:
        """No rendering here: ``env.game.view()`` shows the game in Jupyter."""
        return None

    def close(self) -> None:
        """Nothing to release."""
        return None


def aec_env(scenario: str | Scenario | Mapping[str, Any], **kwargs: Any) -> WargameAEC:
    """A PettingZoo AEC environment of a scenario (name, file, dict or loaded).

    Keyword arguments: ``seed``, ``max_actions``, ``reward`` (``"outcome"`` or
    ``"vp"``), ``max_steps`` (truncation), ``illegal`` (``"raise"`` or
    ``"lose"``). See :class:`WargameAEC`.
    """
    return WargameAEC(scenario, **kwargs)
