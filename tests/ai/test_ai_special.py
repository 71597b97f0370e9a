"""AI policies with the special World at War capabilities: fire support called
through spotters, mortars firing indirectly, infantry boarding its carrier, and
legal, reproducible play of the special-units scenario."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from wargame.ai import get_policy
from wargame.engine import Decision, Game
from wargame.rules.waw import (
    Activate,
    CallSupport,
    Defer,
    EndActivation,
    FixedDice,
    HoldSupport,
    IndirectFire,
    Mount,
    Pass,
    RemoveSW,
    SetMode,
)
from wargame.rules.waw.ai.doctrine import DoctrinePolicy
from wargame.rules.waw.ai.greedy import GreedyPolicy

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "rules_waw"))
from waw_helpers import activate, game_for, scenario, unit
from waw_special import special_scenario


def decision_of(game: Game) -> Decision:
    side = game.current_side
    assert side is not None
    return Decision(
        side,
        game.legal_actions(),
        len(game.actions),
        game.seed,
        view=lambda: game.state_for(side),
        rules=game.ruleset,
    )


def play_activation(game: Game, policy: object, formation: str) -> None:
    """Let ``policy`` play ``formation``'s activation (12 actions at most)."""
    for _ in range(12):
        if game.state.vars.get("active") != formation:
            break
        game.apply(policy.choose(decision_of(game)))  # type: ignore[attr-defined]


TARGETS = [
    unit("A-HQ", "us_hq", "A", "M18"),
    unit("A1", "m60", "A", "M18"),
    unit("A2", "us_mortar81", "A", "P18"),
    unit("B-HQ", "ussr_hq", "B", "H17"),
    unit("B1", "ussr_infantry", "B", "K16"),
    unit("B2", "bmp1", "B", "K16"),
    unit("B3", "t72", "B", "B3"),
]


@pytest.mark.parametrize("policy", [GreedyPolicy(), DoctrinePolicy()])
def test_policies_fire_the_mortar_through_the_hq_that_sees_the_target(
    policy: object,
) -> None:
    # WaW 1.3.4.3: K16 is out of the mortar's sight but in its HQ's.
    units = [u for u in TARGETS if u["id"] != "A1"]
    game = game_for(units, "A", seed=1)
    acts = game.legal_actions()
    assert IndirectFire("A2", "K16", "A-HQ") in acts
    assert policy.choose(decision_of(game)) == IndirectFire("A2", "K16", "A-HQ")  # type: ignore[attr-defined]


@pytest.mark.parametrize("name", ["greedy", "doctrine"])
def test_policies_call_artillery_on_the_enemy_a_spotter_sees(name: str) -> None:
    arty = {
        "id": "arty",
        "side": "nato",
        "name": "155 mm battery",
        "fp": 4,
        "to_hit": 4,
        "missions": 3,
        "rationale": "test battery",
    }
    game = Game.from_scenario(scenario(TARGETS, support=[arty]), seed=3)
    for _ in range(300):
        v = game.state.vars
        if v.get("support") == "arty":
            break
        acts = game.legal_actions()
        nxt = next(
            (a for a in acts if isinstance(a, Defer | Activate | HoldSupport | Pass)),
            None,
        ) or next(a for a in acts if isinstance(a, EndActivation))
        game.apply(nxt)
    choice = get_policy(name, ruleset="waw-classic").choose(decision_of(game))
    assert choice == CallSupport("arty", "K16", "A-HQ")


def test_doctrine_boards_far_infantry_onto_its_carrier() -> None:
    # WaW 5.2: a long walk ahead and no enemy near: ride.
    units = [
        unit("A-HQ", "us_hq", "A", "N17"),
        unit("A1", "us_infantry", "A", "N17"),
        unit("A2", "m113", "A", "N17"),
        unit("B-HQ", "ussr_hq", "B", "B3"),
        unit("B1", "t72", "B", "B3"),
    ]
    objectives = [{"hex": "C4", "vp": 3, "controlled_by": "pact"}]
    game = game_for(units, "A", seed=2, objectives=objectives)
    assert Mount("A1", "A2") in game.legal_actions()
    assert DoctrinePolicy().choose(decision_of(game)) == Mount("A1", "A2")


@pytest.mark.parametrize("name", ["greedy", "doctrine"])
def test_policies_play_the_special_units_scenario_reproducibly(name: str) -> None:
    def play() -> Game:
        g = Game.from_scenario(
            special_scenario(),
            seed=7,
            policies={"nato": get_policy(name, ruleset="waw-classic"),
                      "pact": get_policy(name, ruleset="waw-classic")},
        )
        g.run()
        return g

    a, b = play(), play()
    assert a.is_over and a.log.equals(b.log)
    kinds = set(a.log["kind"])
    assert {"support", "fire"} <= kinds


def test_doctrine_lays_a_bridge_over_the_rhine_and_crosses_it() -> None:
    # Seed 000 bridge units: the MTU-55 drives onto the water at the old
    # Ludendorff site (Y11), lays its span, and the tanks cross toward the goal.
    units = [
        unit("A-HQ", "us_hq", "A", "B3"),
        unit("A1", "m60", "A", "B3"),
        unit("B-HQ", "ussr_hq", "B", "Y10"),
        unit("B1", "mtu55", "B", "Y10"),
        unit("B2", "t72", "B", "Y10"),
    ]
    objectives = [{"hex": "Y13", "vp": 3, "controlled_by": "nato"}]
    game = game_for(units, "B", seed=4, objectives=objectives)
    policy = DoctrinePolicy()
    play_activation(game, policy, "B")
    kinds = [e.kind for e in game.events]
    assert "bridge" in kinds
    assert game.state.units["B1"].position == "Y11"
    assert game.state.units["B1"].attrs.get("deployed")
    # next activation: the tank crosses on the bridge toward Remagen
    activate(game, "B")
    play_activation(game, policy, "B")
    crossed = [e.hex_to for e in game.events if e.kind == "move" and e.unit == "B2"]
    assert "Y11" in crossed  # over the bridge, the only way across here
    assert game.state.units["B2"].position != "Y10"


def test_doctrine_takes_a_helicopter_high_to_see_over_the_cover() -> None:
    # WaW 9.0 modes (assumption 42): low mode uses the ground LOS of its hex;
    # from N17 the Cobra cannot see K16 low, but high it sees everything.
    units = [
        unit("A-HQ", "us_hq", "A", "N17"),
        unit("A1", "ah1", "A", "N17", name="Cobra 1/A"),
        unit("B-HQ", "ussr_hq", "B", "B3"),
        unit("B1", "bmp1", "B", "K16"),
    ]
    game = game_for(units, "A", seed=5)
    assert not game.ruleset.board.visible("N17", "K16")
    assert not [a for a in game.legal_actions() if getattr(a, "target", None) == "B1"]
    assert DoctrinePolicy().choose(decision_of(game)) == SetMode("A1", "high")


def test_policies_remove_the_unplaced_sw_that_threatens_them_most() -> None:
    # WaW 1.3.5: the enemy chooses which unplaced SW goes: the policies take
    # the Sagger that has the M60 in its sights, not the SA-16 (no aircraft,
    # though its weapon is the stronger by firepower x hit chance x reach).
    units = [
        unit("A-HQ", "us_hq", "A", "M18"),
        unit("A1", "m60", "A", "M18"),
        unit("A2", "us_mortar81", "A", "P18"),
        unit("B-HQ", "ussr_hq", "B", "H17"),
        unit("B1", "ussr_infantry", "B", "K16", strength="reduced"),
        unit("B2", "ussr_infantry", "B", "K16", strength="reduced"),
        unit("B3", "ussr_infantry", "B", "G17", support_weapon="sa16"),
        unit("B4", "ussr_infantry", "B", "H17", support_weapon="sagger"),
    ]
    for policy in (GreedyPolicy(), DoctrinePolicy()):
        g = game_for(units)
        g.rng = FixedDice([5, 5, 1, 5, 5, 1, 3, 2])  # both die; 2nd roll 2-1 = 1
        g.apply(IndirectFire("A2", "K16", "A-HQ"))
        assert g.legal_actions() == [RemoveSW("B3"), RemoveSW("B4")]
        assert policy.choose(decision_of(g)) == RemoveSW("B4")
