"""Conformance: the test scenario played to the end with random legal actions.

For 200 seeds the game is played by RandomPolicy (through ``CheckingPolicy``) while
``InvariantChecker`` checks, after every single event: stacking, one position per
unit, destroyed units never acting, Ops Complete units never acting again in the
turn, and the cup and chits staying consistent (see ``waw_invariants``).  A second
test holds ``legal_actions`` and ``check`` to each other over many states.
"""

from __future__ import annotations

import functools
import itertools
from collections import Counter

import pytest
from waw_invariants import CheckingPolicy, InvariantChecker

from wargame.engine import Game, GameState, load_scenario
from wargame.rules.waw import (
    Activate,
    Assault,
    Defer,
    Dismount,
    EndActivation,
    Fire,
    Mount,
    Move,
    MoveHQ,
    Pass,
    Rally,
    WawRuleset,
)

SCENARIO = load_scenario("test_remagen")
SEEDS = range(200)


@functools.cache
def rules() -> WawRuleset:
    r = Game(SCENARIO, seed=0).ruleset
    assert isinstance(r, WawRuleset)
    return r


def play(seed: int) -> tuple[Game, InvariantChecker, CheckingPolicy]:
    holder: dict[str, Game] = {}
    policy = CheckingPolicy(lambda: holder["game"].state)
    checker = InvariantChecker(rules())
    game = Game(
        SCENARIO,
        seed=seed,
        listeners=[checker],
        policies={"nato": policy, "pact": policy},
    )
    holder["game"] = game
    game.run()
    return game, checker, policy


@pytest.mark.parametrize("seed", SEEDS)
def test_random_play_to_the_end_keeps_every_invariant(seed: int) -> None:
    game, checker, policy = play(seed)
    out = game.outcome
    assert out is not None
    assert out.termination in ("turn limit", "annihilation")
    assert set(out.victory_points) == {"nato", "pact"}
    assert checker.events == len(game.events) > 0
    assert policy.decisions == len(game.actions)
    if seed % 40 == 0:
        # the events alone rebuild the final state (replay needs no rules or dice)
        *_, (last, state) = game.replay()
        assert last.seq == len(game.events)
        assert state.digest() == game.state.digest()


def test_random_play_visits_every_kind_of_event() -> None:
    seen: Counter[str] = Counter()
    for seed in range(60):
        game = Game(SCENARIO, seed=seed)
        game.run()
        seen.update(e.kind for e in game.events)
    rules = game.ruleset
    assert isinstance(rules, WawRuleset)
    # covered by rule tests; reinforcements by tests/scenarios (the test
    # scenario has none)
    rare = {"allocation", "hq_captured", "reinforcement"}
    missing = set(rules.event_kinds) - set(seen) - rare
    assert not missing, f"random play never produced {sorted(missing)}"


def candidates(rules: WawRuleset, st: GameState) -> list:
    """Every action one could try in this state, legal or not."""
    units = [u for u in st.units.values() if not u.destroyed]
    hexes = sorted({u.position for u in units if isinstance(u.position, str)})
    out: list = [EndActivation(), Pass()]
    for f in st.formations:
        out += [Activate(f), Defer(f)]
    for u in units:
        nbs = rules.board.neighbors[u.position]  # type: ignore[index]
        out += [Move(u.id, n, hq) for n in nbs for hq in (False, True)]
        out += [Assault(u.id, n, hq) for n in nbs for hq in (False, True)]
        out += [Rally(u.id), Dismount(u.id)]
        out += [MoveHQ(u.id, h) for h in hexes]
        for t in units:
            out += [
                Fire(u.id, t.id, k, hq)
                for k, hq in itertools.product(("ap", "he", "aa"), (False, True))
            ]
            if t.position == u.position:
                out.append(Mount(u.id, t.id))
    return out


@pytest.mark.parametrize("seed", [3, 11, 27])
def test_legal_actions_are_exactly_the_actions_check_accepts(seed: int) -> None:
    game = Game(SCENARIO, seed=seed)
    rules = game.ruleset
    assert isinstance(rules, WawRuleset)
    n = 0
    while not game.is_over and n < 60:
        st = game.state
        legal = game.legal_actions()
        assert len(set(legal)) == len(legal), "duplicate legal actions"
        accepted = {a for a in candidates(rules, st) if rules.why_not(st, a) is None}
        assert set(legal) == accepted
        for a in legal:  # every legal action passes check
            rules.check(st, a)
        game.step()
        n += 1
