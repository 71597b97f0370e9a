"""World at War HQ independent moves: the path is the player's (issue 17, item 3).

WaW HQ movement (seed 000): an HQ moving on its own rolls a d6 afterwards, -1 if
its path crossed enemy LOS and range in cover, -2 in the open (hexes between
start and end only).  On the Remagen plateau an HQ at N17 going to L17 has a
cheapest path through M17 (open ground in sight of the T-72 at H17) and a longer
one through N16, M16 and L16 out of its sight.
"""

from __future__ import annotations

import json

from waw_helpers import game_for, refused, unit
from waw_helpers import since as new_events

from wargame.engine import Decision, Game
from wargame.rules.waw import EndActivation, FixedDice, MoveHQ
from wargame.rules.waw.ai import DoctrinePolicy

SAFE = ("N16", "M16", "L16", "L17")


def plateau(*extra: dict) -> list[dict]:
    """HQ Team A with an M60 at N17, an M60 at L17; a T-72 at H17."""
    return [
        unit("A-HQ", "us_hq", "A", "N17", name="HQ Team A"),
        unit("A1", "m60", "A", "N17"),
        unit("A2", "m60", "A", "L17"),
        *extra,
        unit("B-HQ", "ussr_hq", "B", "G18"),
        unit("B1", "t72", "B", "H17"),
    ]


def move_hq(action: MoveHQ, die: int) -> tuple[Game, list]:
    g = game_for(plateau())
    g.rng = FixedDice([die])
    n0 = len(g.events)
    g.apply(action)
    assert g.rng.remaining == 0
    return g, new_events(g, n0)


def test_hq_move_modifiers_follow_the_chosen_path() -> None:
    # The same die (3) on two paths: the cheapest one crosses M17 in the open in
    # the T-72's sight (-2: 1, reduced); the longer one stays out of its sight
    # (no modifier: 3, no effect).
    cheap, (move, check) = move_hq(MoveHQ("A-HQ", "L17"), 3)
    assert "via M17 (2 MP, the cheapest path: N17 M17 L17)" in move.detail
    assert "crossed enemy LOS in the open -2" in check.detail
    assert (check.dice, check.result) == ((3,), "reduced")
    assert cheap.state.units["A-HQ"].strength == "reduced"

    safe, (move, check) = move_hq(MoveHQ("A-HQ", "L17", SAFE), 3)
    assert move.kind == "hq_move" and move.hex_to == "L17"
    assert "via N16 M16 L16 (4 MP, its chosen path: N17 N16 M16 L16 L17)" in (
        move.detail
    )
    assert "crossed enemy LOS" not in check.detail
    assert (check.dice, check.result) == ((3,), "no effect")
    hq = safe.state.units["A-HQ"]
    assert (hq.position, hq.strength, hq.attrs["mp"]) == ("L17", "full", 4.0)
    # the hexes of the path taken are the HQ's side's now (hex capture)
    assert all(safe.state.control.get(h) == "nato" for h in SAFE)


def test_legal_actions_offer_cheapest_and_safest_hq_paths() -> None:
    # A3 at N15 is reached out of sight by the cheapest path: offered once.
    g = game_for(plateau(unit("A3", "m60", "A", "N15")))
    moves = [a for a in g.legal_actions() if isinstance(a, MoveHQ)]
    assert moves == [
        MoveHQ("A-HQ", "L17"),
        MoveHQ("A-HQ", "L17", SAFE),
        MoveHQ("A-HQ", "N15"),
    ]
    # the odds shown follow the path: d6 1-2 (with -2: 1-4) loses a step
    rules = g.ruleset
    cheap = rules.hq_move_odds(g.state, MoveHQ("A-HQ", "L17"))
    safe = rules.hq_move_odds(g.state, MoveHQ("A-HQ", "L17", SAFE))
    assert cheap.path == ("N17", "M17", "L17") and cheap.mp == 2.0
    assert cheap.modifiers == (("crossed enemy LOS in the open", -2),)
    assert cheap.odds == {"reduced": 4 / 6, "no effect": 2 / 6}
    assert safe.path == ("N17", *SAFE) and safe.modifiers == ()
    assert safe.odds == {"reduced": 2 / 6, "no effect": 4 / 6}
    assert g.describe(MoveHQ("A-HQ", "L17")) == (
        "HQ Team A moves on its own to L17 via M17 (cheapest path, 2 MP); risk "
        "roll (crossed enemy LOS in the open -2): 67% reduced"
    )
    assert g.describe(MoveHQ("A-HQ", "L17", SAFE)) == (
        "HQ Team A moves on its own to L17 via N16 M16 L16 (chosen path, 4 MP); "
        "risk roll (no modifier): 33% reduced"
    )


def test_any_legal_hq_path_is_accepted() -> None:
    # The player's path need not be one of the two offered: 9 MP of 9.
    g = game_for(plateau())
    long_way = ("N16", "N15", "M15", "L15", "K15", "J15", "J16", "K17", "L17")
    assert MoveHQ("A-HQ", "L17", long_way) not in g.legal_actions()
    g.rng = FixedDice([6])
    g.apply(MoveHQ("A-HQ", "L17", long_way))
    assert g.state.units["A-HQ"].position == "L17"
    assert "9 MP, its chosen path" in g.events[-2].detail


def test_hq_path_through_enemy_hex_is_illegal() -> None:
    g = game_for(plateau(unit("B2", "bmp2", "B", "M16")))
    assert MoveHQ("A-HQ", "L17", SAFE) not in g.legal_actions()
    assert refused(g, MoveHQ("A-HQ", "L17", SAFE)) == (
        "M16 holds enemy units: HQ Team A may not move through it "
        "(WaW HQ movement / 5.0)"
    )


def test_hq_path_through_impassable_hex_is_illegal() -> None:
    # M9 is the Rhine, with no bridge or ferry.
    g = game_for(
        [
            unit("A-HQ", "us_hq", "A", "L9", name="HQ Team A"),
            unit("A1", "m60", "A", "L9"),
            unit("A2", "m60", "A", "M10"),
            unit("B-HQ", "ussr_hq", "B", "H17"),
            unit("B1", "t72", "B", "H17"),
        ]
    )
    assert refused(g, MoveHQ("A-HQ", "M10", ("M9", "M10"))) == (
        "HQ Team A cannot enter M9 (water: only at a bridge or ferry) "
        "(WaW HQ movement / 5.0)"
    )


def test_hq_path_beyond_its_mp_is_illegal() -> None:
    g = game_for(plateau())
    too_long = ("N16", "N15", "M15", "L15", "K15", "J15", "J16", "K17", "K18", "L17")
    assert refused(g, MoveHQ("A-HQ", "L17", too_long)) == (
        "HQ Team A has 9 MP left; its path costs 10 by L17 (WaW HQ movement / 5.0)"
    )


def test_hq_path_must_go_hex_by_hex_to_its_destination() -> None:
    g = game_for(plateau())
    assert refused(g, MoveHQ("A-HQ", "L17", ("L16", "L17"))) == (
        "L16 is not adjacent to N17: HQ Team A's path goes hex by hex "
        "(WaW HQ movement / 5.0)"
    )
    assert refused(g, MoveHQ("A-HQ", "L17", ("N16", "M16", "L16"))) == (
        "HQ Team A's path ends at L16, not at its destination L17 "
        "(WaW HQ movement / 5.0)"
    )
    assert refused(g, MoveHQ("A-HQ", "L17", ("M17", "N17", "M17", "L17"))) == (
        "HQ Team A's path enters N17 twice (WaW HQ movement / 5.0)"
    )
    assert refused(g, MoveHQ("A-HQ", "L17", ())).startswith("HQ Team A's path is empty")
    assert refused(g, MoveHQ("A-HQ", "L17", ("N16", "ZZ99"))) == (
        "HQ Team A's path names 'ZZ99', not a hex of the map (WaW HQ movement / 5.0)"
    )
    # the destination rules stand whatever the path
    assert refused(g, MoveHQ("A-HQ", "M17", ("M17",))) == (
        "HQ Team A must end its move with friendly units; M17 has none"
    )


def test_hq_move_with_a_path_survives_save_and_load(tmp_path) -> None:
    g = game_for(plateau())
    action = MoveHQ("A-HQ", "L17", SAFE)
    raw = json.loads(json.dumps(action.to_dict()))
    assert raw["path"] == list(SAFE)
    assert g.ruleset.action_from_dict(raw) == action  # lists come back as tuples
    # an action saved before paths existed still decodes: the cheapest path
    old = g.ruleset.action_from_dict({"type": "move_hq", "hq": "A-HQ", "to": "L17"})
    assert old == MoveHQ("A-HQ", "L17") and old.path is None
    g.apply(action)
    loaded = Game.load(g.save(tmp_path / "hq_path.json"))
    assert loaded.actions[-1] == action
    assert loaded.state.digest() == g.state.digest()
    assert loaded.state.units["A-HQ"].position == "L17"


def test_doctrine_moves_its_hq_by_the_safer_path() -> None:
    # A3 at I16 is out of the HQ's command range (4) at N17; from L17 all three
    # are in range, so the doctrine moves the HQ there, by the path out of sight.
    g = game_for(plateau(unit("A3", "m60", "A", "I16")))
    offered = [a for a in g.legal_actions() if isinstance(a, MoveHQ)]
    assert MoveHQ("A-HQ", "L17", SAFE) in offered
    decision = Decision(
        side="nato",
        legal_actions=[*offered, EndActivation()],
        number=len(g.actions),
        seed=g.seed,
        view=lambda: g.state,
        rules=g.ruleset,
    )
    assert DoctrinePolicy().choose(decision) == MoveHQ("A-HQ", "L17", SAFE)
