"""Conformance: the test scenarios played to the end with random legal actions.

For 200 seeds of ``test_remagen`` (and 100 of the special-units scenario of
``waw_special``: helicopters in both modes, air defence, support weapons and a
tank ATGM, carriers and a truck) the game is played by RandomPolicy (through
``CheckingPolicy``) while
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
from waw_special import special_scenario

from wargame.engine import Game, GameState, load_scenario
from wargame.rules.waw import (
    Activate,
    Assault,
    CallSupport,
    Defer,
    Dismount,
    EndActivation,
    Fire,
    Hide,
    HoldSupport,
    IndirectFire,
    LayBridge,
    Mount,
    Move,
    MoveHQ,
    Pass,
    Rally,
    RecoverBridge,
    RemoveSW,
    ReplaceHQ,
    SetMode,
    WawRuleset,
)

SCENARIO = load_scenario("test_remagen")
SPECIAL = load_scenario(special_scenario())
SEEDS = range(200)
SPECIAL_SEEDS = range(100)


@functools.cache
def rules(special: bool = False) -> WawRuleset:
    r = Game(SPECIAL if special else SCENARIO, seed=0).ruleset
    assert isinstance(r, WawRuleset)
    return r


def play(
    seed: int, special: bool = False
) -> tuple[Game, InvariantChecker, CheckingPolicy]:
    holder: dict[str, Game] = {}
    policy = CheckingPolicy(lambda: holder["game"].state)
    checker = InvariantChecker(rules(special))
    game = Game(
        SPECIAL if special else SCENARIO,
        seed=seed,
        listeners=[checker],
        policies={"nato": policy, "pact": policy},
    )
    holder["game"] = game
    game.run()
    return game, checker, policy


@pytest.mark.parametrize(
    ("seed", "special"),
    [(s, False) for s in SEEDS] + [(s, True) for s in SPECIAL_SEEDS],
)
def test_random_play_to_the_end_keeps_every_invariant(seed: int, special: bool) -> None:
    game, checker, policy = play(seed, special)
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
        for scenario in (SCENARIO, SPECIAL):
            game = Game(scenario, seed=seed)
            game.run()
            seen.update(e.kind for e in game.events)
    rules = game.ruleset
    assert isinstance(rules, WawRuleset)
    # covered by rule tests; reinforcements by tests/scenarios (the test
    # scenario has none)
    # and "In Zone" attacks by test_waw_special_rules
    rare = {"allocation", "hq_captured", "reinforcement", "in_zone"}
    missing = set(rules.event_kinds) - set(seen) - rare
    assert not missing, f"random play never produced {sorted(missing)}"


def candidates(rules: WawRuleset, st: GameState) -> list:
    """Every action one could try in this state, legal or not."""
    units = [u for u in st.units.values() if not u.destroyed]
    hexes = sorted({u.position for u in units if isinstance(u.position, str)})
    out: list = [EndActivation(), Pass()]
    for f in st.formations:
        out += [Activate(f), Defer(f)]
    out += [ReplaceHQ(hq, h) for hq in sorted(rules.hq_ids) for h in hexes]
    spotters = [u for u in units if u.id in rules.hq_ids or rules.info[u.id].is_recon]
    for sid in rules.supports:
        out.append(HoldSupport(sid))
        out += [
            CallSupport(sid, h, sp.id, smoke)
            for h in hexes
            for sp in spotters
            for smoke in (False, True)
        ]
    for u in units:
        nbs = rules.board.neighbors[u.position]  # type: ignore[index]
        out += [Move(u.id, n, hq) for n in nbs for hq in (False, True)]
        out += [Assault(u.id, n, hq) for n in nbs for hq in (False, True)]
        out += [Rally(u.id), Dismount(u.id), SetMode(u.id, "low"), Hide(u.id)]
        out += [LayBridge(u.id), RecoverBridge(u.id), RemoveSW(u.id)]
        if rules.info[u.id].is_mortar:
            out += [IndirectFire(u.id, h, x.id) for h in hexes for x in units]
        out.append(SetMode(u.id, "high"))
        out += [MoveHQ(u.id, h) for h in hexes]
        sw_targets: list[str | None] = [None]
        if u.attrs.get("sw"):
            sw_targets += [t.id for t in units]
        for t in units:
            out += [
                Fire(u.id, t.id, k, hq, t2)
                for k, hq in itertools.product(("ap", "he", "aa", "sw"), (False, True))
                for t2 in sw_targets
            ]
            if t.position == u.position:
                out.append(Mount(u.id, t.id))
    return out


@pytest.mark.parametrize(("seed", "special"), [(3, False), (11, False), (27, True)])
def test_legal_actions_are_exactly_the_actions_check_accepts(
    seed: int, special: bool
) -> None:
    game = Game(SPECIAL if special else SCENARIO, seed=seed)
    rules = game.ruleset
    assert isinstance(rules, WawRuleset)
    n = 0
    while not game.is_over and n < 60:
        st = game.state
        legal = game.legal_actions()
        assert len(set(legal)) == len(legal), "duplicate legal actions"
        accepted = {a for a in candidates(rules, st) if rules.why_not(st, a) is None}
        # An HQ's own path (MoveHQ.path) may be any legal path: the list offers
        # the cheapest (path=None, among the candidates) and the safest; check
        # accepts those and refuses the same path cut short or turned back.
        paths = [a for a in legal if isinstance(a, MoveHQ) and a.path is not None]
        assert set(legal) - set(paths) == accepted
        for a in paths:
            assert MoveHQ(a.hq, a.to) in accepted
            bad = [a.path[:-1]]
            if len(a.path) > 1:
                bad += [a.path[::-1], (a.to,) * len(a.path)]
            for path in bad:
                assert rules.why_not(st, MoveHQ(a.hq, a.to, path)) is not None
        for a in legal:  # every legal action passes check
            rules.check(st, a)
        game.step()
        n += 1


# --------------------------------------------------------------------------- #
# determinism, save/load, undo and replay with the special units              #
# --------------------------------------------------------------------------- #


def test_special_units_games_are_deterministic_and_reload(tmp_path) -> None:
    a, b = Game(SPECIAL, seed=13), Game(SPECIAL, seed=13)
    a.run()
    b.run()
    assert a.log.equals(b.log) and a.state.digest() == b.state.digest()
    kinds = set(a.log["kind"])
    assert {"mode", "wreck"} & kinds, "the seed should exercise special rules"
    part = Game(SPECIAL, seed=13)
    for _ in range(len(a.actions) // 2):
        part.step()
    loaded = Game.load(part.save(tmp_path / "special.json"))
    assert loaded.state.digest() == part.state.digest()
    loaded.run()
    assert loaded.log.equals(a.log)


def test_special_units_undo_redo_and_replay() -> None:
    g = Game(SPECIAL, seed=5)
    for _ in range(80):
        g.step()
    digest = g.state.digest()
    undone = [g.undo() for _ in range(4)]
    for action in reversed(undone):
        g.apply(action)
    assert g.state.digest() == digest
    *_, (_last, state) = g.replay()
    assert state.digest() == digest
