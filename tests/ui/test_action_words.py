"""Every action a view may list is described in words: no raw dict, no
dataclass repr, for every rule system and every shipped scenario (issue 22)."""

from __future__ import annotations

import re

import pytest

from wargame.engine import Game, available_scenarios

RAW = re.compile(r"[{}]|\w+\(\w+=|Point\(|<\w+ object")


@pytest.mark.parametrize("name", available_scenarios())
def test_every_legal_action_met_in_random_play_is_described_in_words(name: str) -> None:
    g = Game.from_scenario(name, seed=3)
    seen: dict[str, str] = {}
    for _ in range(20):
        acts = g.legal_actions()
        if not acts:
            break
        for a in acts:
            text = g.describe(a)
            assert text and not RAW.search(text), (name, a, text)
            seen.setdefault(a.type, text)
        g.step()
    assert seen  # something was offered and described
