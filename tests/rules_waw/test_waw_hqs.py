"""World at War HQs as the engine plays them: replacement after the clean-up
(WaW 1.3.3.3) and step losses of a reduced HQ.

The situation, on the Remagen plateau: Team A's HQ stands with a reduced rifle
platoon at N17; a T-72 at K17 destroys the platoon (scripted dice) and the HQ
dies with its stack; the turn is then played out to the clean-up, where the HQ
comes back.  Team A's other units: M60s at O18 and P17 (the matching type by
default: its most numerous vehicle), an M113 at O17, an M3 at N20, an M60 at Q17
stacked with the HQ of a third formation "C" (whose M60s are at Q17 and P18).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from waw_helpers import activate, refused, scenario, unit
from waw_helpers import since as new_events

from wargame.engine import Game, ScenarioError
from wargame.rules.waw import (
    Activate,
    EndActivation,
    Fire,
    FixedDice,
    MoveHQ,
    Pass,
    ReplaceHQ,
)
from wargame.rules.waw.ai import DoctrinePolicy, GreedyPolicy
from wargame.rules.waw.replacement import default_hq_types

TEAM_A = [
    unit("A-HQ", "us_hq", "A", "N17", name="HQ Team A"),
    unit("A1", "us_infantry", "A", "N17", strength="reduced", name="Rifles 1/A"),
    unit("A2", "m60", "A", "O18", name="M60 2/A"),
    unit("A3", "m60", "A", "P17", name="M60 3/A"),
    unit("A4", "m113", "A", "O17", name="M113 4/A"),
    unit("A5", "m60", "A", "Q17", name="M60 5/A"),
    unit("A6", "m3", "A", "N20", name="M3 6/A"),
]
TEAM_C = [
    unit("C-HQ", "us_hq", "C", "Q17", name="HQ Team C"),
    unit("C1", "m60", "C", "Q17", name="M60 1/C"),
    unit("C2", "m60", "C", "P18", name="M60 2/C"),
]
PACT = [
    unit("B-HQ", "ussr_hq", "B", "J17", name="HQ 1/74"),
    unit("B1", "t72", "B", "K17", name="T-72 1/74"),
]


def hq_scenario(
    team_a: list[dict] = TEAM_A, hq_types: list[str] | None = None
) -> dict[str, Any]:
    sc = scenario([*team_a, *TEAM_C, *PACT], first_side="pact")
    if hq_types is not None:
        sc["formations"][0]["hq_types"] = hq_types
    sc["formations"].append({"id": "C", "side": "nato", "name": "Team C", "hq": "C-HQ"})
    return sc


def hq_destroyed(sc: dict[str, Any]) -> Game:
    """The T-72 destroys the rifles at N17 and Team A's HQ dies with them."""
    g = Game.from_scenario(sc, seed=0)
    activate(g, "B")
    g.rng = FixedDice([6, 6, 6, 6])  # T-72 HE: 2 hits on the reduced rifles
    g.apply(Fire("B1", "A1", "he"))
    assert g.state.units["A-HQ"].destroyed and g.state.units["A1"].destroyed
    g.rng = np.random.default_rng(1)
    return g


def to_cleanup(g: Game) -> None:
    """Play the turn out (every formation ends at once) until the clean-up is
    over or waits for an HQ's owner."""
    turn = g.state.turn
    while g.state.turn == turn and not g.state.vars.get("hq_pending"):
        v = g.state.vars
        if v.get("drawn"):
            g.apply(Activate(v["drawn"]))
        elif v.get("opp"):
            g.apply(Pass())
        else:
            g.apply(EndActivation())


# --------------------------------------------------------------------------- #
# WaW 1.3.3.3 HQ replacement                                                  #
# --------------------------------------------------------------------------- #


def test_hq_replacement_is_owners_choice_of_matching_type() -> None:
    # WaW 1.3.3.3: a destroyed HQ is placed, reduced, after the clean-up's
    # markers, in any hex with a unit of its formation of the matching type
    # (ASSUMPTION 58: Team A's most numerous vehicle, the M60); the owner
    # chooses.  Not the M113 hex O17 (another type), not Q17 (it holds Team C's
    # HQ: one HQ per hex), not P18 (Team C's M60).
    g = hq_destroyed(hq_scenario())
    to_cleanup(g)
    st = g.state
    assert st.phase == "cleanup" and st.vars["hq_pending"] == ("A-HQ",)
    assert g.current_side == "nato"
    assert g.legal_actions() == [ReplaceHQ("A-HQ", "O18"), ReplaceHQ("A-HQ", "P17")]
    rules = g.ruleset
    hexes = rules.board.labels
    tried = [ReplaceHQ(hq, h) for hq in sorted(rules.hq_ids) for h in hexes]
    assert {a for a in tried if rules.why_not(st, a) is None} == set(g.legal_actions())
    ask = g.events[-1]
    assert (ask.kind, ask.unit) == ("hq_replacement", "A-HQ")
    assert ask.result == "owner chooses"
    assert "(O18, P17)" in ask.detail and "M60" in ask.detail
    # the clean-up's markers came first, the chits wait for the choice
    kinds = [e.kind for e in g.events]
    assert kinds.index("cleanup") < len(kinds) - 1
    assert "chits_returned" not in kinds[kinds.index("cleanup") :]

    n0 = len(g.events)
    g.apply(ReplaceHQ("A-HQ", "P17"))
    ev = new_events(g, n0)
    assert [e.kind for e in ev][:3] == ["hq_replaced", "chits_returned", "turn"]
    assert ev[0].hex_to == "P17" and "nato" in ev[0].side
    assert "NATO's choice" in ev[0].detail
    hq = g.state.units["A-HQ"]
    assert (hq.strength, hq.position) == ("reduced", "P17")
    assert "hq_pending" not in g.state.vars or not g.state.vars["hq_pending"]
    assert g.state.turn == 2 and g.state.phase == "operations"


def test_hq_replacement_refuses_other_formations_types_and_hq_hexes() -> None:
    # Bad input: IllegalActionError naming the rule and the units, state unchanged.
    g = hq_destroyed(hq_scenario())
    to_cleanup(g)
    assert refused(g, ReplaceHQ("A-HQ", "P18")) == (
        "WaW 1.3.3.3: HQ Team A comes back with a unit of its formation (Team A); "
        "P18 holds M60 2/C (Team C)"
    )
    assert refused(g, ReplaceHQ("A-HQ", "O17")) == (
        "WaW 1.3.3.3: HQ Team A comes back with a unit of the matching type "
        "(M60A3 tank platoon); O17 holds M113 4/A (M113 APC platoon)"
    )
    assert refused(g, ReplaceHQ("A-HQ", "Q17")) == (
        "WaW HQs: one HQ per hex; Q17 already holds HQ Team C"
    )
    assert refused(g, ReplaceHQ("C-HQ", "O18")) == (
        "WaW 1.3.3.3: HQ Team C is not waiting to be replaced; HQ Team A is "
        "(a destroyed HQ comes back in the Clean-up phase)"
    )
    assert refused(g, ReplaceHQ("A-HQ", "K17")).startswith(
        "WaW 1.3.3.3: HQ Team A comes back with a unit of its formation"
    )
    assert refused(g, EndActivation()) == (
        "NATO is choosing where HQ Team A comes back (WaW 1.3.3.3): replace it first"
    )
    # and outside the clean-up, no HQ is waiting
    g.apply(ReplaceHQ("A-HQ", "O18"))
    assert refused(g, ReplaceHQ("A-HQ", "P17")).startswith(
        "WaW 1.3.3.3: HQ Team A is not waiting to be replaced"
    )


def test_hq_replacement_with_one_matching_hex_is_automatic() -> None:
    # The scenario names the matching type (hq_types): only the M113 hex O17
    # qualifies (under the old rule the first unit in scenario order, the M60
    # at O18, would have taken it).
    g = hq_destroyed(hq_scenario(hq_types=["m113"]))
    to_cleanup(g)
    assert g.state.turn == 2 and not g.state.vars.get("hq_pending")
    (rep,) = [e for e in g.events if e.kind == "hq_replaced"]
    assert rep.hex_to == "O17" and "the only hex" in rep.detail
    assert "hq_replacement" not in [e.kind for e in g.events]
    hq = g.state.units["A-HQ"]
    assert (hq.strength, hq.position) == ("reduced", "O17")


def test_hq_without_a_unit_of_the_matching_type_left_is_not_replaced() -> None:
    # WaW 1.3.3.3: with no unit of the matching type left the HQ is not placed;
    # its formation is out of command (4.0).
    g = hq_destroyed(hq_scenario(hq_types=["us_infantry"]))
    to_cleanup(g)
    assert g.state.turn == 2
    assert not [e for e in g.events if e.kind in ("hq_replaced", "hq_replacement")]
    assert g.state.units["A-HQ"].destroyed
    a2 = g.state.units["A2"]
    assert not g.ruleset.in_command(g.state, a2)


def test_hq_replacement_survives_save_load_undo_and_replay(tmp_path) -> None:
    # A random game of the test scenario in which the Soviet 2/74's HQ dies and
    # comes back where its owner chooses (the game's own dice throughout).
    g = Game.from_scenario("test_remagen", seed=0)
    while not g.state.vars.get("hq_pending"):
        assert g.step() is not None, "the game should ask for an HQ's hex"
    digest, side, legal = g.state.digest(), g.current_side, g.legal_actions()
    assert len(legal) >= 2 and all(isinstance(a, ReplaceHQ) for a in legal)
    loaded = Game.load(g.save(tmp_path / "pending.json"))
    assert loaded.state.digest() == digest
    assert loaded.legal_actions() == legal and loaded.current_side == side
    g.apply(legal[-1])
    after = g.state.digest()
    assert g.undo() == legal[-1]
    assert g.state.digest() == digest and g.current_side == side
    g.apply(legal[-1])
    assert g.state.digest() == after
    loaded.apply(legal[-1])
    assert loaded.state.digest() == after
    *_, (_last, state) = g.replay()
    assert state.digest() == after


@pytest.mark.parametrize("policy", [DoctrinePolicy(), GreedyPolicy()])
def test_policies_bring_the_hq_back_where_it_commands_most_units(policy) -> None:
    # The reduced HQ commands 3 hexes around it: from O18 all five of Team A's
    # units (the M3 at N20 too), from P17 four; O18 wins although it is the
    # more exposed hex (open ground in the T-72's sight).
    g = hq_destroyed(hq_scenario())
    to_cleanup(g)
    g.policies["nato"] = policy
    assert g.step() == ReplaceHQ("A-HQ", "O18")


def test_policies_prefer_the_less_exposed_hex_between_equals() -> None:
    # Without the M3 both hexes command all four units: the woods at P17, out of
    # the T-72's sight, beat the open O18.
    team_a = [u for u in TEAM_A if u["id"] != "A6"]
    for policy in (DoctrinePolicy(), GreedyPolicy()):
        g = hq_destroyed(hq_scenario(team_a))
        to_cleanup(g)
        g.policies["nato"] = policy
        assert g.step() == ReplaceHQ("A-HQ", "P17")


def test_default_hq_type_is_the_most_numerous_vehicle() -> None:
    # ASSUMPTION 58: vehicles first (the seed's British HQ on an FV432), ties in
    # scenario order; a formation on foot counts its other units.
    from wargame.rules.waw import get_unit

    uk = [get_unit(t) for t in ("uk_infantry", "uk_infantry", "fv432", "uk_infantry")]
    assert default_hq_types(uk) == ("fv432",)
    assert default_hq_types([get_unit("t72"), get_unit("bmp2")]) == ("t72",)
    assert default_hq_types([get_unit("us_infantry")]) == ("us_infantry",)


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ([], "must be a non-empty list of unit type ids"),
        ("m60", "must be a non-empty list of unit type ids"),
        ([3], "must be a non-empty list of unit type ids"),
        (["m6O"], "unknown WaW unit type 'm6O' (did you mean m60"),
        (["us_hq"], "'us_hq' is an HQ: an HQ is replaced with one of its"),
        (["t72"], "no unit of the formation is a 't72' (its types: m113, m3, m60, us_"),
    ],
)
def test_hq_types_in_a_scenario_are_checked(value: Any, message: str) -> None:
    with pytest.raises(ScenarioError) as err:
        Game.from_scenario(hq_scenario(hq_types=value), seed=0)
    text = str(err.value)
    assert "formations[0] ('A').hq_types: " in text and message in text


# --------------------------------------------------------------------------- #
# WaW HQ movement: a reduced HQ failing its move roll                         #
# --------------------------------------------------------------------------- #


def test_reduced_hq_failing_its_move_roll_is_destroyed() -> None:
    # WaW HQ movement: a modified 1-2 after an independent move reduces the HQ;
    # one already reduced is destroyed (the HQ-in-combat sentence of seed 000).
    units = [
        unit("A-HQ", "us_hq", "A", "Z8", strength="reduced", name="HQ Team A"),
        unit("A1", "m60", "A", "Z8"),
        unit("A2", "m60", "A", "Z9"),
        *PACT,
    ]
    g = Game.from_scenario(scenario(units), seed=0)
    activate(g, "A")
    g.rng = FixedDice([1])  # 1 + 1 (adjacent) = 2: fails
    n0 = len(g.events)
    g.apply(MoveHQ("A-HQ", "Z9"))
    check = next(e for e in new_events(g, n0) if e.kind == "hq_move_check")
    assert check.dice == (1,) and "start and end adjacent +1" in check.detail
    assert check.result == "destroyed"
    assert g.state.units["A-HQ"].destroyed
    assert g.rng.remaining == 0
