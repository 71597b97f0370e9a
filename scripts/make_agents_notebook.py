"""Regenerate notebooks/05_agents.ipynb (run from the repository root)."""

import nbformat as nbf

nb = nbf.v4.new_notebook()
md, code = nbf.v4.new_markdown_cell, nbf.v4.new_code_cell
nb.cells = [
    md("""# Agents: a scenario as a PettingZoo / Gymnasium environment

`wargame.env` turns any scenario into a PettingZoo AEC environment (agents are the
scenario's sides) or a Gymnasium environment for one side against one of our policies.
Observations come from the side's own view only; the action space is `Discrete(1024)`
with `action_mask` marking the legal actions; every die is still logged, so any episode
can be replayed in the game view. Nothing is trained here: a random *masked* agent plays
NATO against the `doctrine` policy, and we read its win rate."""),
    code("""import numpy as np
import pandas as pd

from wargame.env import gym_env

env = gym_env("test_remagen", side="nato", opponent="doctrine")
obs, info = env.reset(seed=0)
{k: v.shape for k, v in obs.items()}"""),
    code("""def random_masked_agent(obs, rng):
    return int(rng.choice(np.flatnonzero(obs["action_mask"])))


rows = []
rng = np.random.default_rng(1)
for seed in range(12):
    obs, info = env.reset(seed=seed)
    done, reward, steps = False, 0.0, 0
    while not done:
        obs, r, term, trunc, info = env.step(random_masked_agent(obs, rng))
        reward, steps, done = reward + float(r), steps + 1, term or trunc
    rows.append({"seed": seed, "reward": reward, "agent steps": steps,
                 "winner": env.game.outcome.winner})
games = pd.DataFrame(rows)
games"""),
    code("""summary = pd.Series({
    "games": len(games),
    "random agent win rate": (games["reward"] > 0).mean(),
    "doctrine win rate": (games["reward"] < 0).mean(),
})
assert summary["games"] == 12
summary"""),
    md("""The last episode's log is an ordinary event log, as from `Game.log`:"""),
    code("""log = env.game.log
assert len(log) > 0 and {"turn", "side", "kind", "dice"} <= set(log.columns)
log[log["dice"].notna()].head()"""),
]
nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
nbf.write(nb, "notebooks/05_agents.ipynb")
