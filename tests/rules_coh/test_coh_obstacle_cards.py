"""Mine-Laying (#40), Obstacle-Clearing (#41), the Tellermine laid as a mine
(S1 card list) and the close-combat retreat restriction (CoH 2e §7.7.3), on
the open level-6 fields east of Niederetscheid (S10's neighbours: T10 T9 S9
R9 R10 S11)."""

from __future__ import annotations

from typing import Any

from coh_fort_helpers import game as _game

from wargame.engine import Game, IllegalActionError
from wargame.rules.coh.actions import Move, Pivot, PlayCard


def game(
    units: list[dict[str, Any]], forts: list[dict[str, Any]], seed: int = 1
) -> Game:
    return _game(units, forts, seed, "t_obstacle_cards")


def rules(g: Game) -> Any:
    """The coh-2e ruleset of a game (its rule methods, for the checks)."""
    return g.ruleset


def unit(uid: str, type_: str, side: str, hex_: str, **kw: Any) -> dict[str, Any]:
    return {"id": uid, "type": type_, "side": side, "hex": hex_, **kw}


def give_hand(g: Game, side: str, *cards: str) -> None:
    """The one state edit these tests make: a side's hand."""
    g.state.decks[f"hand:{side}"] = tuple(cards)


def refused(g: Game, a: Any) -> str:
    before = g.state.digest()
    try:
        g.apply(a)
    except IllegalActionError as exc:
        assert g.state.digest() == before
        return str(exc)
    raise AssertionError(f"{a} was allowed")


FAR = unit("far", "su_rifles_41", "soviet", "P4", facing=0)  # out of sight of S10


# -- card #40 Mine-Laying --------------------------------------------------------- #
def test_mine_laying_out_of_enemy_sight_lays_a_hidden_mine_that_attacks() -> None:
    g = game([unit("x", "de_rifles_41", "german", "S10", facing=1), FAR], [])
    r = rules(g)
    assert r.lay_hidden(g.state, "german", "T9")
    give_hand(g, "german", "mine_laying")
    a = PlayCard("mine_laying", ("x",), "T9", "command")
    assert a in g.legal_actions()
    n = len(g.events)
    g.apply(a)
    assert g.state.decks["mines:german"] == ("T9",)
    assert r.view(g.state, "soviet").decks["mines:german"] == ("?",)
    public = [e for e in g.events[n:] if e.visible_to is None]
    assert not [e for e in public if e.hex_to == "T9" or "T9" in e.detail]
    assert g.state.pools["caps:german"] == 5  # 1 CAP (card list)


def test_mine_laying_in_enemy_sight_is_public_and_not_into_enemies() -> None:
    g = game(
        [
            unit("x", "de_rifles_41", "german", "S10", facing=1),
            unit("s", "su_rifles_41", "soviet", "T9", facing=4),
        ],
        [],
    )
    give_hand(g, "german", "mine_laying")
    assert "an enemy holds it" in refused(g, PlayCard("mine_laying", ("x",), "T9"))
    assert "next to it" in refused(g, PlayCard("mine_laying", ("x",), "U9"))
    g.apply(PlayCard("mine_laying", ("x",), "T10"))
    assert ("mine", "T10", "german") in rules(g).forts(g.state)
    g.apply(Move(("s",), ("T10",), "opportunity"))  # it walks onto the mine
    rolls = [e for e in g.events if e.kind == "mine" and e.dice]
    assert len(rolls) == 1 and rolls[0].target == "s"


def test_mine_laying_needs_one_unhit_unburdened_foot_unit() -> None:
    g = game(
        [
            unit("x", "de_rifles_41", "german", "S10", facing=1),
            unit("y", "de_rifles_41", "german", "S10", facing=1),
            unit("m", "de_mortar_8cm", "german", "S9", facing=1),
            FAR,
        ],
        [],
    )
    give_hand(g, "german", "mine_laying")
    assert "not a group" in refused(g, PlayCard("mine_laying", ("x", "y"), "T9"))
    assert "unburdened" in refused(g, PlayCard("mine_laying", ("m",), "T9"))
    g.state.units["x"].attrs["marked"] = True
    assert "un-hit" in refused(g, PlayCard("mine_laying", ("x",), "T9"))


# -- the Tellermine laid as a mine ------------------------------------------------ #
def test_a_tellermine_may_be_laid_as_a_mine_for_2_ap() -> None:
    g = game([unit("x", "de_rifles_41", "german", "S10", facing=1), FAR], [])
    give_hand(g, "german", "tellermine")
    a = PlayCard("tellermine", ("x",), "T9", "ap")
    assert a in g.legal_actions()
    g.apply(a)
    assert g.state.decks["mines:german"] == ("T9",)
    assert g.state.pools["ap:german"] == 5
    assert "tellermine" not in g.state.decks.get("hand:german", ())


# -- card #41 Obstacle-Clearing --------------------------------------------------- #
def test_obstacle_clearing_removes_the_wire_of_the_units_own_hex() -> None:
    g = game(
        [unit("x", "de_rifles_41", "german", "S10", facing=1), FAR],
        [{"kind": "wire", "hex": "S10"}, {"kind": "roadblock", "hex": "T9"}],
    )
    give_hand(g, "german", "obstacle_clearing")
    r = rules(g)
    assert "own hex" in refused(g, PlayCard("obstacle_clearing", ("x",), "T9"))
    g.apply(PlayCard("obstacle_clearing", ("x",)))
    assert not r.has_fort(g.state, "wire", "S10")
    assert r.has_fort(g.state, "roadblock", "T9")


def test_obstacle_clearing_takes_a_mine_first_and_not_in_close_combat() -> None:
    g = game(
        [
            unit("x", "de_rifles_41", "german", "S10", facing=1),
            unit("s", "su_rifles_41", "soviet", "S10", facing=4),
        ],
        [
            {"kind": "wire", "hex": "S10"},
            {"kind": "mine", "hex": "S10", "side": "soviet"},
        ],
    )
    give_hand(g, "german", "obstacle_clearing")
    assert "close combat" in refused(g, PlayCard("obstacle_clearing", ("x",)))
    g2 = game(
        [unit("x", "de_rifles_41", "german", "S10", facing=1), FAR],
        [
            {"kind": "wire", "hex": "S10"},
            {"kind": "mine", "hex": "S10", "side": "soviet"},
        ],
    )
    give_hand(g2, "german", "obstacle_clearing")
    g2.apply(PlayCard("obstacle_clearing", ("x",)))
    r = rules(g2)
    assert not r.has_fort(g2.state, "mine", "S10") and r.has_fort(
        g2.state, "wire", "S10"
    )


# -- §7.7.3 the close-combat retreat restriction --------------------------------- #
def test_a_defender_may_not_retreat_towards_the_hex_the_attacker_came_from() -> None:
    g = game(
        [
            unit("x", "de_rifles_41", "german", "T9", facing=4),
            unit("s", "su_rifles_41", "soviet", "S10", facing=1),
        ],
        [],
    )
    g.apply(Move(("x",), ("S10",)))  # from T9: T9, T10 and S9 are barred
    why = refused(g, Move(("s",), ("T10",), "opportunity"))
    assert "§7.7.3" in why and "T9" in why
    for to in ("T9", "S9"):
        assert "§7.7.3" in str(
            rules(g).why_not(g.state, Move(("s",), (to,), "opportunity"))
        )
    g.apply(Move(("s",), ("R10",), "opportunity"))  # away from the attacker: fine
    assert g.state.units["s"].hex == "R10"


def test_the_retreat_restriction_holds_for_the_reaction_turn_only() -> None:
    g = game(
        [
            unit("x", "de_rifles_41", "german", "T9", facing=4),
            unit("s", "su_rifles_41", "soviet", "S10", facing=1),
            FAR,
        ],
        [],
    )
    g.apply(Move(("x",), ("S10",)))
    g.apply(Move(("far",), ("P5",), "opportunity"))  # the reaction turn: elsewhere
    g.apply(Pivot(("x",), 3))  # the German's next action
    assert g.state.units["x"].hex == g.state.units["s"].hex == "S10"
    # a later turn: the hexes barred by the first advance are open again
    assert rules(g).why_not(g.state, Move(("s",), ("T10",), "command")) is None


# -- §18.1.3 one way to lose a hasty defence ----------------------------------- #
def test_moving_by_action_or_by_rapid_deployment_loses_hasty_defence_once() -> None:
    for how in ("move", "card"):
        g = game(
            [unit("x", "de_rifles_41", "german", "S10", facing=1, hasty=True), FAR],
            [{"kind": "mine", "hex": "T10", "side": "soviet"}],
        )
        give_hand(g, "german", "rapid_deployment")
        n = len(g.events)
        if how == "move":
            g.apply(Move(("x",), ("T9",)))
        else:
            g.apply(PlayCard("rapid_deployment", ("x",), "T10"))
        assert "hasty" not in g.state.units["x"].attrs
        lost = [e for e in g.events[n:] if e.result == "hasty defence lost"]
        assert len(lost) == 1 and "§18.1.3" in lost[0].detail
        if how == "card":  # intervening mines affect the moving unit (card #5)
            assert [e for e in g.events[n:] if e.kind == "mine" and e.dice]


# -- the conformance harness over all of it ---------------------------------- #
def test_conformance_with_bunkers_obstacles_and_the_obstacle_cards() -> None:
    """Random play with a bunker, wire, a road block, open and hidden mines and
    a deck with cards #40 and #41 and the Tellermine: legality, determinism,
    save/load and no leak (hidden mines laid in play included)."""
    from coh_card_helpers import card_playground

    from wargame.testing import check_ruleset

    data = card_playground()
    data["fortifications"] = [
        {"kind": "bunker", "hex": "K12", "side": "soviet", "facing": 3},
        {"kind": "wire", "hex": "J12"},
        {"kind": "roadblock", "hex": "J11"},
        {"kind": "mine", "hex": "I12", "side": "soviet", "hidden": True},
        {"kind": "mine", "hex": "J13", "side": "german"},
    ]
    report = check_ruleset("coh-2e", data, seeds=range(3), repeat=1, per_decision=3)
    assert report.games == 3 and report.leak_checks > 100
