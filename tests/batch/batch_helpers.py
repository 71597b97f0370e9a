"""Shared pieces of the batch tests: a small study and a policy that fails."""

from __future__ import annotations

from typing import Any

import pandas as pd

from wargame.engine import Decision, RandomPolicy

SCENARIO = "test_remagen"
#: Two variants; the 2-turn one keeps the games short.
VARIANTS: dict[str, dict[str, Any]] = {"base": {}, "short": {"turns": 2}}


def same_frame(a: pd.DataFrame, b: pd.DataFrame) -> None:
    """Equal in everything but the wall time (the only column allowed to vary)."""
    pd.testing.assert_frame_equal(
        a.drop(columns="wall_time"), b.drop(columns="wall_time")
    )


class ExplodingPolicy:
    """Random play, except that the game with seed ``bad`` raises at the side's
    first decision from the game's fourth on."""

    def __init__(self, bad: int) -> None:
        self.bad = bad
        self.inner = RandomPolicy()

    def choose(self, decision: Decision) -> Any:
        if decision.seed == self.bad and decision.number >= 3:
            raise RuntimeError("the policy exploded")
        return self.inner.choose(decision)

    def __repr__(self) -> str:
        return f"ExplodingPolicy(bad={self.bad})"


class Counter:
    """Wraps ``play_chunk`` to count the games actually played."""

    def __init__(self, real: Any) -> None:
        self.real = real
        self.games: list[tuple[str, int]] = []

    def __call__(self, task: Any) -> Any:
        self.games += [(task["variant"], int(g)) for g, _ in task["games"]]
        return self.real(task)
