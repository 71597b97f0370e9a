"""Every worked example of seed 003 §9-10 (shared activations, group actions,
hidden units, snipers), played on real hexes of the Etscheid window.

The card examples (Auto-Rally, Magnetic Mine, hasty defence card) are in
``test_coh_cards.py``.  Where the seed's example names a counter value that the
2nd-edition counter sheet does not have (the §9.12 "HMG" with 4 FP and a 2 AP
fire cost), the test uses the counter that has those values (the LMG 34).
"""

from __future__ import annotations

import pytest
from coh_helpers import caps, events_of, game, pool, status

from wargame.engine import IllegalActionError
from wargame.rules.coh import fire_odds
from wargame.rules.coh.actions import Fire, Move, Pass

FAR = ("far", "de_rifles_41", "german", "AB20", 2)  # out of the way
FAR_SU = ("far-su", "su_rifles_41", "soviet", "AB20", 2)


def test_hexes_of_the_examples_are_what_the_examples_need() -> None:
    b = game([FAR, FAR_SU]).ruleset.board
    # the shared-pool example: a clear road hex, then one open hex further on
    assert b.terrain["A2"] == b.terrain["B1"] == b.terrain["C2"] == "open"
    assert b.road_move("A2", "B1") and not b.road_move("C2", "B1")
    assert b.level["A2"] == b.level["B1"] == b.level["C2"]
    # Figure 14: open ground with woods alongside, all on one level
    assert b.terrain["Z11"] == "heavy_woods"
    assert {b.terrain[h] for h in ("AB11", "AB10", "AA10")} == {"open"}
    # the hidden-rifles example: woods three hexes from open ground, in sight
    assert b.terrain["A16"] == "heavy_woods" and b.terrain["A13"] == "open"
    assert b.distance("A13", "A16") == 3 and b.los("A13", "A16").clear


def test_shared_pool_rifle_1_ap_then_mmg_2_ap_leaves_4_ap() -> None:
    # seed 003 §9.0: the rifle moves into a clear road hex for 1 AP; the German
    # passes; a fresh MMG (2 AP move) joins the activation and moves onto the
    # rifle's hex: 4 AP are left in the one shared pool.
    g = game(
        [
            ("r", "su_rifles_41", "soviet", "A2", 1),
            ("mmg", "su_maxim_mmg", "soviet", "C2", 3),
            FAR,
        ],
        first="soviet",
    )
    g.apply(Move(("r",), ("B1",)))
    assert pool(g, "soviet") == 6 and status(g, "r") == "active"
    assert g.current_side == "german"
    g.apply(Pass())
    g.apply(Move(("mmg",), ("B1",)))
    assert pool(g, "soviet") == 4
    assert status(g, "mmg") == "active" and status(g, "r") == "active"
    assert caps(g, "soviet") == 7  # nothing came from the CAPs


def test_figure_14_group_move_pays_the_woods_cost() -> None:
    # seed 003 §9.11 Figure 14: four rifles sharing an activation group move;
    # three go into the open, one into woods: the group pays 2 AP.
    b = game([FAR, FAR_SU]).ruleset.board
    dests = ("AB11", "AB10", "AA10", "Z11")
    units = [
        (f"r{i}", "su_rifles_41", "soviet", "AA11", b.direction("AA11", d))
        for i, d in enumerate(dests)
    ]
    g = game([*units, FAR], first="soviet")
    g.apply(Move(tuple(f"r{i}" for i in range(4)), dests))
    assert pool(g, "soviet") == 5  # 7 - 2
    assert [g.state.units[f"r{i}"].hex for i in range(4)] == list(dests)
    # had all four gone into the open, the move would have cost 1 AP
    g2 = game([*units[:3], FAR], first="soviet")
    g2.apply(Move(("r0", "r1", "r2"), dests[:3]))
    assert pool(g2, "soviet") == 6


def test_figure_15_units_no_longer_adjacent_may_not_group_move() -> None:
    # seed 003 §9.11 Figure 15: the lone squad in the woods is not adjacent to
    # the other two, so the three may not group move together.
    b = game([FAR, FAR_SU]).ruleset.board
    assert b.distance("AB11", "Z11") == 2
    g = game(
        [
            ("r1", "su_rifles_41", "soviet", "AB11", 2),
            ("r2", "su_rifles_41", "soviet", "Z11", 2),
            FAR,
        ],
        first="soviet",
    )
    before = g.state.digest()
    with pytest.raises(IllegalActionError, match="continuously adjacent"):
        g.apply(Move(("r1", "r2"), ("AB10", "Z10")))
    assert g.state.digest() == before


def test_figure_16_firegroup_adds_1_fp_and_pays_the_leaders_cost() -> None:
    # seed 003 §9.12 Figure 16: a 4 FP, 2 AP MG squad leads, a rifle squad in
    # its hex supports: 4 FP becomes 5, the group pays the leader's 2 AP.
    g = game(
        [
            ("mg", "de_lmg34", "german", "K4", 5),
            ("rf", "de_rifles_41", "german", "K4", 5),
            ("su", "su_rifles_41", "soviet", "K7", 2),
        ],
    )
    b = g.ruleset.board
    assert b.distance("K4", "K7") == 3 and b.los("K4", "K7").clear
    assert b.level["K4"] == b.level["K7"] and b.terrain["K7"] == "open"
    n = len(g.events)
    g.apply(Fire(("mg", "rf"), "K7"))
    (attack,) = [e for e in events_of(g, "attack", n) if e.dice]
    assert "red FP 4" in attack.detail and "firegroup +1" in attack.detail
    assert attack.needed == 12 - 5  # Soviet rifles' front DR 12, open ground
    assert pool(g, "german") == 5
    assert status(g, "mg") == status(g, "rf") == "active"


def _fig17(pay: str) -> object:
    return game(
        [
            ("A", "de_rifles_41", "german", "AB9", 4),
            ("B", "de_rifles_41", "german", "AA10", 4),
            ("C", "su_rifles_41", "soviet", "Y10", 1),
            FAR_SU,
        ],
    )


def test_figures_17_to_19_cap_group_actions_leave_squad_b_fresh() -> None:
    # seed 003 §9.2 Figures 17-19: A moves onto B for 1 AP; both group move for
    # 1 CAP (B does not share A's pool); both group fire for 3 CAPs, A leading:
    # 5 FP becomes 6; A moves into the woods for 2 AP and has 4 AP left; B is
    # still fresh, since only CAPs paid for what it did.
    g = _fig17("command")
    g.apply(Move(("A",), ("AA10",)))
    assert pool(g, "german") == 6
    g.apply(Pass())
    g.apply(Move(("A", "B"), ("Z10",), pay="command"))
    assert caps(g, "german") == 5 and pool(g, "german") == 6
    g.apply(Pass())
    n = len(g.events)
    g.apply(Fire(("A", "B"), "Y10", pay="command"))
    assert caps(g, "german") == 2  # the leader's fire cost, 3, in CAPs
    (attack,) = [e for e in events_of(g, "attack", n) if e.dice]
    assert "adjacent +3" in attack.detail and "firegroup +1" in attack.detail
    assert attack.needed == 12 - 6  # red FP 2 + 3 adjacent + 1 supporter
    if not g.is_over:
        g.apply(Pass())
    g.apply(Move(("A",), ("Y11",)))
    assert g.state.units["A"].hex == "Y11"
    assert pool(g, "german") == 4
    assert status(g, "B") == "fresh" and status(g, "A") == "active"


def test_figures_17_to_19_shared_pool_spends_both_squads() -> None:
    # seed 003 §9.2, the same moves out of one shared pool: 1 + 1 + 3 + 2 = 7 AP.
    g = _fig17("ap")
    g.apply(Move(("A",), ("AA10",)))
    g.apply(Pass())
    g.apply(Move(("A", "B"), ("Z10",)))
    g.apply(Pass())
    g.apply(Fire(("A", "B"), "Y10"))
    assert pool(g, "german") == 2
    if not g.is_over:
        g.apply(Pass())
    g.apply(Move(("A",), ("Y11",)))
    assert pool(g, "german") == 0
    assert status(g, "A") == status(g, "B") == "spent"
    assert caps(g, "german") == 6


def test_group_opportunity_retreat_spends_both_squads() -> None:
    # seed 003 §9.2: two fresh squads stacked together retreat one hex
    # backwards each, into different hexes, as a group opportunity move.
    g = game(
        [
            ("a", "de_rifles_41", "german", "K5", 2),
            ("b", "de_rifles_41", "german", "K5", 2),
            FAR_SU,
        ]
    )
    b = g.ruleset.board
    rear = [h for h in b.neighbors("K5") if h not in b.front_hexes("K5", 2)]
    g.apply(Move(("a", "b"), (rear[0], rear[1]), pay="opportunity"))
    assert status(g, "a") == status(g, "b") == "spent"
    assert pool(g, "german") == 0 and caps(g, "german") == 6
    assert g.state.units["a"].facing == 2  # a backwards move keeps the facing


def _hidden_rifle_game(seed: int) -> object:
    return game(
        [
            ("hmg", "de_hmg34", "german", "A13", 5),
            ("hid", "su_rifles_41", "soviet", "A16", None, True),
            FAR_SU,
        ],
        seed=seed,
    )


def test_hidden_rifles_in_woods_dv_14_against_av_13_miss_and_reveal_nothing() -> None:
    # seed 003 §10.0 #3: a hidden rifle squad in woods has a DV of 14 (12 + 2);
    # a 5 FP HMG fires at the hex and scores AV 13: a miss; the German learns
    # nothing, not even that the squad is there.
    assert float(fire_odds(5, 14)["miss"]) == pytest.approx(26 / 36)
    for seed in range(200):
        g = _hidden_rifle_game(seed)
        assert Fire(("hmg",), "A16") in g.legal_actions()  # a suspected hex
        n = len(g.events)
        g.apply(Fire(("hmg",), "A16"))
        rolls = [e for e in events_of(g, "attack", n) if e.dice]
        if sum(rolls[0].dice) == 8:
            break
    else:
        pytest.fail("no seed rolled 8")
    mine = [e for e in g.events[n:] if e.visible("soviet") and not e.visible("german")]
    assert any(e.result == "miss" and "DV 14" in e.detail for e in mine)
    seen = [e for e in g.events[n:] if e.visible("german")]
    assert [e.result for e in seen if e.kind == "attack" and e.result] == [
        "nothing revealed"
    ]
    assert not any("hid" in (e.unit, e.target) for e in seen)
    assert g.state.units["hid"].hidden
    assert "hid" not in g.state_for("german").units


def test_hidden_move_costs_4_ap_in_woods() -> None:
    # seed 003 §10.1: a Soviet rifle squad pays 1 + 3 = 4 AP to move hidden in
    # woods; the move is the Soviet's secret.
    g = game(
        [("hid", "su_rifles_41", "soviet", "A16", None, True), FAR], first="soviet"
    )
    assert g.ruleset.board.terrain["B15"] == "heavy_woods"
    n = len(g.events)
    g.apply(Move(("hid",), ("B15",), hidden=True))
    assert pool(g, "soviet") == 3
    assert g.state.units["hid"].hex == "B15" and g.state.units["hid"].hidden
    moved = events_of(g, "hidden_move", n)
    assert moved and all(e.visible_to == ("soviet",) for e in moved)
    assert "hid" not in g.state_for("german").units


def test_sniper_fires_through_the_front_arc_at_the_flank_dr() -> None:
    # seed 003 §10.3: a hidden sniper fires at an HMG through its front arc;
    # the HMG defends with its flank DR; the sniper stays hidden unless the
    # German's detection roll is 6.
    g = game(
        [
            ("hmg", "de_hmg34", "german", "A13", 5),
            ("sn", "su_sniper", "soviet", "A16", None, True),
        ],
        first="soviet",
    )
    b = g.ruleset.board
    assert b.in_arc("A13", 5, "A16")  # the shot comes through the front
    n = len(g.events)
    g.apply(Fire(("sn",), "A13"))
    (attack,) = [e for e in events_of(g, "attack", n) if e.dice]
    assert "flank DR 10" in attack.detail  # HMG 34: flank 10, front 12
    fired = events_of(g, "fire", n)
    assert fired and fired[0].unit is None  # the sniper is not named
    (det,) = events_of(g, "detection", n)
    assert det.side == "german" and det.needed == 6
    assert g.state.units["sn"].hidden == (det.dice[0] < 6)
