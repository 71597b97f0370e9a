"""wargame.env: every scenario as a PettingZoo AEC environment, checked by
PettingZoo's own tests; the same games as Game; nothing hidden observed."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

pytest.importorskip("pettingzoo")
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, seed_test

from wargame.engine import Game, available_scenarios, load_scenario
from wargame.engine.policy import get_policy
from wargame.env import aec_env, gym_env

SCENARIOS = available_scenarios()


@pytest.fixture(autouse=True)
def _quiet() -> None:
    # PettingZoo recommends Box observations and player_N names: advice, not rules
    warnings.filterwarnings("ignore", category=UserWarning, module="pettingzoo")


@pytest.mark.parametrize("name", SCENARIOS)
def test_pettingzoo_api_test_passes(name: str) -> None:
    api_test(aec_env(name, seed=1), num_cycles=40, verbose_progress=False)


@pytest.mark.parametrize("name", SCENARIOS)
def test_pettingzoo_seed_test_passes(name: str) -> None:
    seed_test(lambda: aec_env(name), num_cycles=15)


def test_an_episode_with_a_recorded_games_actions_gives_the_identical_log() -> None:
    sc = load_scenario("test_remagen")
    policies = {s["id"]: get_policy("doctrine", ruleset=sc.ruleset) for s in sc.sides}
    game = Game(sc, seed=7, policies=policies)
    game.run()
    env = aec_env(sc, seed=7)
    env.reset(seed=7)
    for action in game.actions:
        assert env.agent_selection == env.game.current_side
        env.step(env.index_of(action))
    assert all(env.terminations.values())
    a, b = game.log, env.log
    assert len(a) == len(b) > 100
    assert a.drop(columns=["dice"]).equals(b.drop(columns=["dice"]))
    assert a["dice"].tolist() == b["dice"].tolist()
    # the outcome reward: +1 to the winner, -1 to the loser
    out = game.outcome
    assert out is not None and out.winner is not None
    assert env.rewards[out.winner] == 1.0
    assert sum(env.rewards.values()) == 0.0


def test_reset_seed_gives_the_game_from_scenario_with_that_seed() -> None:
    env = aec_env("coh_partisans")
    env.reset(seed=5)
    g = Game.from_scenario("coh_partisans", seed=5)
    assert env.legal_actions() == g.legal_actions()
    assert env.agent_selection == g.current_side


def test_no_observation_holds_a_hidden_enemy_unit() -> None:
    env = aec_env("coh_hidden_village", seed=3)
    env.reset(seed=3)
    index = env.encoder.unit_index
    checked = hidden_seen = 0
    rng = np.random.default_rng(0)
    for _ in range(400):
        if any(env.terminations.values()):
            break
        state = env.game.state
        hidden = {
            uid: u.side
            for uid, u in state.units.items()
            if u.hidden and not u.destroyed
        }
        for agent in env.possible_agents:
            obs = env.observe(agent)
            for uid, side in hidden.items():
                if side == agent:
                    continue
                hidden_seen += 1
                i = index[uid]
                assert obs["unit_side"][i] == 0, uid
                assert obs["unit_hex"][i] == -1, uid
                feats = obs["action_features"]
                assert not (feats[:, 1:3] == i + 1).any(), uid
            # the enemy counts per hex are the units the side can see
            seen = [
                u for u in env.game.state_for(agent).units.values()
                if u.side != agent and not u.destroyed
            ]
            assert obs["enemy_units"].sum() <= len(seen)
            checked += 1
        mask = env.observe(env.agent_selection)["action_mask"]
        env.step(int(rng.choice(np.flatnonzero(mask))))
    assert checked > 100 and hidden_seen > 50  # hidden units were there to leak


def test_an_index_outside_the_space_or_masked_out_is_refused_unchanged() -> None:
    env = aec_env("test_remagen", seed=2)
    env.reset(seed=2)
    n = len(env.legal_actions())
    before = (len(env.game.actions), env.agent_selection)
    for bad, words in ((-1, "outside Discrete"), (10_000, "outside Discrete"),
                       (n, "masked out"), (1.5, "outside Discrete")):
        with pytest.raises(ValueError, match=words):
            env.step(bad)  # type: ignore[arg-type]
    assert (len(env.game.actions), env.agent_selection) == before


def test_illegal_lose_ends_the_episode_for_the_offender_game_unchanged() -> None:
    env = aec_env("test_remagen", seed=2, illegal="lose")
    env.reset(seed=2)
    agent, n = env.agent_selection, len(env.game.actions)
    env.step(len(env.legal_actions()))  # the first masked slot
    assert all(env.terminations.values())
    assert env.rewards[agent] == -1.0
    assert sum(env.rewards.values()) == -1.0
    assert "masked out" in env.infos[agent]["illegal_action"]
    assert len(env.game.actions) == n


def test_bad_arguments_are_clear_errors() -> None:
    with pytest.raises(ValueError, match="atlantis: no such scenario"):
        aec_env("atlantis")
    with pytest.raises(ValueError, match="reward"):
        aec_env("test_remagen", reward="kills")
    with pytest.raises(ValueError, match="max_actions"):
        aec_env("test_remagen", max_actions=0)
    with pytest.raises(ValueError, match="unknown side 'nobody'"):
        gym_env("test_remagen", side="nobody")
    with pytest.raises(ValueError, match="unknown policy 'clever'"):
        gym_env("test_remagen", side="nato", opponent="clever")


def test_vp_reward_is_the_change_in_the_lead() -> None:
    env = aec_env("test_remagen", seed=4, reward="vp")
    env.reset(seed=4)

    def leads() -> dict[str, int]:
        vp = env.game.ruleset.victory_points(env.game.state)
        return {a: 2 * vp.get(a, 0) - sum(vp.values()) for a in env.possible_agents}

    start = leads()
    total = dict.fromkeys(env.possible_agents, 0.0)
    rng = np.random.default_rng(1)
    while not any(env.terminations.values()):
        mask = env.observe(env.agent_selection)["action_mask"]
        env.step(int(rng.choice(np.flatnonzero(mask))))
        for a in total:
            total[a] += env.rewards[a]
    end = leads()
    assert end != start  # victory points changed hands in this game
    for a in total:
        assert total[a] == pytest.approx(end[a] - start[a])


def test_gymnasium_wrapper_passes_gymnasiums_env_checker_and_plays_to_the_end() -> None:
    checked = gym_env("test_remagen", side="nato", seed=0, illegal="lose")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_env(checked, skip_render_check=True)
    env = gym_env("test_remagen", side="nato", opponent="doctrine", seed=0)
    obs, _ = env.reset(seed=11)
    rng = np.random.default_rng(2)
    done, steps, reward = False, 0, 0.0
    while not done:
        assert env.game.current_side == "nato"
        action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        obs, r, term, trunc, _info = env.step(action)
        reward += float(r)
        done = term or trunc
        steps += 1
    assert env.game.outcome is not None
    winner = env.game.outcome.winner
    assert reward == (0.0 if winner is None else (1.0 if winner == "nato" else -1.0))
    assert steps > 5
