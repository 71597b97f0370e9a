"""Benchmark: World at War fire resolutions per second and random-policy games.

Run: ``.venv/bin/python benchmarks/bench_engine.py``.  Prints medians (no targets
are asserted anywhere):

* fire resolutions per second - ``wargame.rules.waw.resolve_fire`` (plan, dice,
  saves and result) of an M60 at a T-72 in woods, in batches;
* seconds per random-policy game of ``scenarios/test_remagen.toml`` (4 turns,
  13 counters) with the map and LOS table warm, over many seeds;
* the same game's actions and events per second;
* a cold start in a fresh process with an empty cache (map window, hex
  attributes, LOS table, first game);
* Conflict of Heroes 2e beside it: its dice path (``coh.odds.resolve_fire``)
  and random-policy games of ``coh_partisans`` (games per second, and the
  ratio to World at War's).
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

from wargame.engine import Game, load_scenario
from wargame.rules import waw

COLD = r"""
import json, time
t0 = time.perf_counter()
from wargame.engine import Game
g = Game.from_scenario("test_remagen", seed=0)
t1 = time.perf_counter()
g.run()
t2 = time.perf_counter()
print(json.dumps({"setup": t1 - t0, "first_game": t2 - t1}))
"""


def fire_rate(batch: int = 20_000, repeats: int = 5) -> float:
    rng = np.random.default_rng(1)
    m60, t72 = waw.get_unit("m60"), waw.get_unit("t72")
    rates = []
    for _ in range(repeats):
        t = time.perf_counter()
        for _ in range(batch):
            waw.resolve_fire(rng, m60, t72, range_hexes=5, terrain="woods")
        rates.append(batch / (time.perf_counter() - t))
    return statistics.median(rates)


def game_times(
    seeds: int = 60, name: str = "test_remagen"
) -> tuple[float, float, float, float]:
    scenario = load_scenario(name)
    Game(scenario, seed=0).run()  # warm: map, board, LOS table
    secs, actions, events = [], [], []
    for seed in range(1, seeds + 1):
        t = time.perf_counter()
        g = Game(scenario, seed=seed)
        g.run()
        secs.append(time.perf_counter() - t)
        actions.append(len(g.actions))
        events.append(len(g.events))
    per_game = statistics.median(secs)
    return (
        per_game,
        statistics.median(a / s for a, s in zip(actions, secs, strict=True)),
        statistics.median(e / s for e, s in zip(events, secs, strict=True)),
        statistics.median(actions),
    )


def coh_fire_rate(batch: int = 20_000, repeats: int = 5) -> float:
    from wargame.rules.coh.odds import resolve_fire

    rng = np.random.default_rng(1)
    rates = []
    for _ in range(repeats):
        t = time.perf_counter()
        for _ in range(batch):
            resolve_fire(5, 14, rng)
        rates.append(batch / (time.perf_counter() - t))
    return statistics.median(rates)


def cold_start(repeats: int = 3) -> dict[str, float]:
    rows = []
    for _ in range(repeats):
        with tempfile.TemporaryDirectory() as cache:
            env = {**os.environ, "WARGAME_CACHE": cache}
            out = subprocess.run(
                [sys.executable, "-c", COLD],
                env=env,
                check=True,
                capture_output=True,
                text=True,
            ).stdout
            rows.append(json.loads(out.strip().splitlines()[-1]))
    return {k: statistics.median(r[k] for r in rows) for k in rows[0]}


def env_rates(name: str, seeds: int = 10) -> tuple[float, float]:
    """Steps per second of the PettingZoo environment (a random masked agent
    on both sides, observations of the side to move built at every step) and of
    ``Game.step`` (random policy) on the same scenario and seeds: medians."""
    import numpy as np

    from wargame.env import aec_env

    env = aec_env(name, seed=0)
    env_rate, game_rate = [], []
    for seed in range(1, seeds + 1):
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        n, t = 0, time.perf_counter()
        while not any(env.terminations.values()):
            obs = env.observe(env.agent_selection)
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
            n += 1
        env_rate.append(n / (time.perf_counter() - t))
        g = Game(env.scenario, seed=seed)
        n, t = 0, time.perf_counter()
        while g.step() is not None:
            n += 1
        game_rate.append(n / (time.perf_counter() - t))
    return statistics.median(env_rate), statistics.median(game_rate)


def main() -> None:
    rate = fire_rate()
    per_game, aps, eps, n_actions = game_times()
    cold = cold_start()
    coh_game, coh_aps, coh_eps, coh_actions = game_times(20, "coh_partisans")
    coh_fire = coh_fire_rate()
    print("World at War engine benchmark (medians)")
    print(f"{'measure':52s} {'median':>12s}")
    print(f"{'fire resolutions per second (resolve_fire)':52s} {rate:12,.0f}")
    print(
        f"{'seconds per random-policy game (test_remagen, warm)':52s} {per_game:12.4f}"
    )
    print(f"{'  actions per game':52s} {n_actions:12.0f}")
    print(f"{'  actions per second':52s} {aps:12,.0f}")
    print(f"{'  events per second':52s} {eps:12,.0f}")
    label = "cold start: scenario + map + LOS table, s (fresh)"
    print(f"{label:52s} {cold['setup']:12.2f}")
    print(f"{'cold start: first game, s (fresh)':52s} {cold['first_game']:12.2f}")
    print()
    print("Conflict of Heroes 2e beside it (medians)")
    print(f"{'fire resolutions per second (coh resolve_fire)':52s} {coh_fire:12,.0f}")
    label = "seconds per random-policy game (coh_partisans, warm)"
    print(f"{label:52s} {coh_game:12.4f}")
    print(f"{'  games per second':52s} {1 / coh_game:12.2f}")
    print(f"{'  games per second, World at War test_remagen':52s} {1 / per_game:12.2f}")
    print(f"{'  ratio CoH / WaW games per second':52s} {per_game / coh_game:12.2f}")
    print(f"{'  actions per game':52s} {coh_actions:12.0f}")
    print(f"{'  actions per second':52s} {coh_aps:12,.0f}")
    print(f"{'  events per second':52s} {coh_eps:12,.0f}")
    print()
    print("PettingZoo environment (wargame.env) beside Game.step (medians)")
    for name in ("test_remagen", "coh_partisans"):
        env_sps, game_sps = env_rates(name)
        print(f"{'  env steps per second, ' + name:52s} {env_sps:12,.0f}")
        print(f"{'  Game.step per second, ' + name:52s} {game_sps:12,.0f}")
        print(f"{'  ratio env / Game.step':52s} {env_sps / game_sps:12.2f}")


if __name__ == "__main__":
    main()
