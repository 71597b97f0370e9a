"""Every rule system as a PettingZoo AEC environment, and a Gymnasium
single-agent wrapper that plays one side against one of our policies.

Needs the optional extra ``wargame[rl]`` (``pettingzoo``, ``gymnasium``).

Examples:
    >>> from wargame.env import aec_env
    >>> env = aec_env("test_remagen", seed=1)
    >>> env.reset(seed=1)
    >>> sorted(env.possible_agents)
    ['nato', 'pact']
"""

from .aec import DEFAULT_MAX_ACTIONS, WargameAEC, aec_env
from .single import WargameGym, gym_env

__all__ = ["DEFAULT_MAX_ACTIONS", "WargameAEC", "WargameGym", "aec_env", "gym_env"]
