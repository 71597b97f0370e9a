"""coh-2e AI players: the doctrine's fire and card play (CoH 2e §20.3; the
card rules the doctrine leaves out are ASSUMPTIONs of wargame.rules.coh.ai_cards),
the attacker's supported bounds, legal choices only, own view only."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from coh_card_helpers import (
    card_playground,
    give_hand,
    on_partisans_map,
    set_marker,
)

from wargame.engine import Decision, Game
from wargame.rules.coh.actions import Fire, Move, Pass, PlayCard
from wargame.rules.coh.ai import DoctrinePolicy, GreedyPolicy
from wargame.rules.coh.ai_cards import careful_aiming_worth
from wargame.rules.coh.ai_ground import cost_field, threats
from wargame.rules.coh.ai_scorer import Scorer


def decision(game: Game) -> Decision:
    side = game.current_side
    assert side is not None
    return Decision(
        side=side,
        legal_actions=game.legal_actions(),
        number=len(game.actions),
        seed=game.seed,
        view=lambda: game.ruleset.view(game.state, side),
        rules=game.ruleset,
    )


def u(uid: str, kind: str, side: str, hex_: str, **kw: Any) -> dict[str, Any]:
    return {"id": uid, "type": kind, "side": side, "hex": hex_, **kw}


def lmg_against(target_hex: str) -> Game:
    """A German LMG 34 (4 FP) at H10 facing a Soviet rifle squad."""
    return on_partisans_map(
        [
            u("de-lmg", "de_lmg34", "german", "H10", facing=0),
            u("su-rifles", "su_rifles_41", "soviet", target_hex, facing=3),
        ],
        cards=13,
    )


def test_doctrine_plays_careful_aiming_when_it_turns_a_10_into_an_8() -> None:
    game = lmg_against("K12")  # stone building: DV 12 + 2
    give_hand(game, "german", "careful_aiming")
    d = decision(game)
    s = Scorer(d)
    plain = next(a for a in d.legal_actions if isinstance(a, Fire) and a.card is None)
    assert s.fire_value(plain)[1] == 10
    assert s.fire_value(replace(plain, card="careful_aiming"))[1] == 8
    choice = DoctrinePolicy().choose(d)
    assert isinstance(choice, Fire) and choice.card == "careful_aiming"
    assert choice.hex == "K12"
    game.apply(choice)  # and it is legal
    assert "careful_aiming" not in game.state.decks["hand:german"]


def test_doctrine_keeps_careful_aiming_for_a_shot_that_needs_it() -> None:
    game = lmg_against("J11")  # open ground: DV 12, the LMG needs 8
    give_hand(game, "german", "careful_aiming")
    d = decision(game)
    plain = next(a for a in d.legal_actions if isinstance(a, Fire) and a.card is None)
    assert Scorer(d).fire_value(plain)[1] == 8
    choice = DoctrinePolicy().choose(d)
    assert isinstance(choice, Fire) and choice.card is None
    assert careful_aiming_worth(10, 8) and not careful_aiming_worth(8, 6)


def test_doctrine_rallies_pinned_units_with_rally_up() -> None:
    game = on_partisans_map(
        [
            u("de-rifles", "de_rifles_41", "german", "H10", facing=0),
            u("su-rifles-1", "su_rifles_41", "soviet", "L11", facing=3),
            u("su-rifles-2", "su_rifles_41", "soviet", "K12", facing=3),
        ],
        first="soviet",
        cards=13,
    )
    give_hand(game, "soviet", "rally_up")
    set_marker(game, "su-rifles-1", "pinned")
    set_marker(game, "su-rifles-2", "pinned")
    choice = DoctrinePolicy().choose(decision(game))
    assert isinstance(choice, PlayCard) and choice.card == "rally_up"
    assert set(choice.units) == {"su-rifles-1", "su-rifles-2"}


def test_battlefield_confusion_falls_on_the_most_dangerous_fresh_enemy() -> None:
    game = on_partisans_map(
        [
            u("de-rifles", "de_rifles_41", "german", "H14", facing=0),
            u("su-rifles", "su_rifles_41", "soviet", "K12", facing=3),
            u("su-t34", "su_t34a_m40", "soviet", "J13", facing=3),
        ],
        cards=13,
    )
    give_hand(game, "german", "battlefield_confusion")
    for policy in (DoctrinePolicy(), GreedyPolicy()):
        choice = policy.choose(decision(game))
        assert isinstance(choice, PlayCard), policy
        assert choice.card == "battlefield_confusion" and choice.units == ("su-t34",)


AIS: dict[str, Any] = {"greedy": GreedyPolicy, "doctrine": DoctrinePolicy}


class Checked:
    """Wraps a policy: every choice must be one of the legal actions (or one
    with CAPs added, the doctrine's §20.3 CAPs, which legal_actions offers
    without), legal on the side's view, and a card played must be in the
    deciding side's hand as its view shows it."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.cards: list[str] = []

    def choose(self, d: Decision) -> Any:
        a = self.inner.choose(d)
        offered = replace(a, caps=0) if getattr(a, "caps", 0) else a
        assert offered in d.legal_actions
        assert d.rules.why_not(d.state, a) is None
        card = getattr(a, "card", None)
        if card is not None:
            assert card in d.state.decks[f"hand:{d.side}"]
            self.cards.append(card)
        return a


def test_the_ais_play_only_legal_cards_they_hold() -> None:
    played: dict[str, list[str]] = {"greedy": [], "doctrine": []}
    for seed in (1, 2, 3):
        for first, second in (("greedy", "doctrine"), ("doctrine", "greedy")):
            pols = {"german": Checked(AIS[first]()), "soviet": Checked(AIS[second]())}
            g = Game.from_scenario(card_playground(), seed=seed, policies=pols)
            g.run()
            played[first] += pols["german"].cards
            played[second] += pols["soviet"].cards
    assert played["greedy"] and played["doctrine"]  # both play cards


def test_a_hidden_enemy_never_changes_the_doctrine_choice() -> None:
    """The same game with a hidden Soviet squad in one hex or another: the
    German doctrine decides alike (it decides from its own view)."""

    def first_moves(hidden_hex: str) -> list[Any]:
        game = on_partisans_map(
            [
                u("de-rifles", "de_rifles_41", "german", "E9", facing=0),
                u("de-lmg", "de_lmg34", "german", "E10", facing=0),
                u("su-rifles", "su_rifles_41", "soviet", "L11", facing=3),
                u("su-hidden", "su_rifles_41", "soviet", hidden_hex, hidden=True),
            ],
        )
        out = []
        for _ in range(6):
            side = game.current_side
            if side is None:
                break
            if side == "german":
                a = DoctrinePolicy().choose(decision(game))
                out.append(a)
            else:
                a = Pass()
            game.apply(a)
        return out

    assert first_moves("H12") == first_moves("P17") == first_moves("AB5")


def test_the_attacker_does_not_step_alone_into_fire() -> None:
    """One rifle squad at the woods' edge, two more far behind: it waits in
    cover rather than step into the Soviet squad's fire alone."""
    game = on_partisans_map(
        [
            u("de-rifles-1", "de_rifles_41", "german", "F9", facing=0),
            u("de-rifles-2", "de_rifles_41", "german", "A12", facing=0),
            u("de-rifles-3", "de_rifles_41", "german", "A14", facing=0),
            u("su-rifles", "su_rifles_41", "soviet", "J10", facing=3),
        ],
    )
    d = decision(game)
    s = Scorer(d)
    r, v = s.rules, s.view
    assert threats(r, v, "german", "F9") == 0 and threats(r, v, "german", "G9") == 1
    choice = DoctrinePolicy().choose(d)
    if isinstance(choice, Move) and choice.units == ("de-rifles-1",):
        assert threats(r, v, "german", choice.to[0]) == 0


def test_the_cost_field_counts_woods_and_climbs() -> None:
    game = on_partisans_map([u("de-rifles", "de_rifles_41", "german", "A8")])
    board = game.ruleset.board
    f = cost_field(board, "L9")
    assert f["L9"] == 0.0
    for h in board.neighbors("L9"):
        # one step in: 1 AP plus the terrain's extra and any climb (§5.0, §11.0)
        assert f[h] <= 1.0 + float(board.move_extra(h, "L9", "foot") or 0)
    assert f["A8"] > board.distance("A8", "L9")  # the western woods cost more


def tanks_ridge(german_tank_at: str | None = None) -> Game:
    """T-34s on the Ridge with the Soviets to move; one Panzer III moved."""
    import tomllib
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "scenarios" / "coh_tanks_ridge.toml"
    data = tomllib.loads(path.read_text())
    data["rules"]["first_initiative"] = "soviet"
    if german_tank_at is not None:
        for row in data["units"]:
            if row["id"] == "de-pz-iii-e-1":
                row["hex"] = german_tank_at
    return Game.from_scenario(data, seed=1)


def test_riders_stay_on_far_from_the_enemy_and_get_off_near_it() -> None:
    def transport(d: Decision) -> Any:
        return DoctrinePolicy._transport(Scorer(d), list(d.legal_actions), ("ap",))

    assert transport(decision(tanks_ridge())) is None
    near = decision(tanks_ridge("G19"))  # 3 hexes from the T-34 at D19
    got = transport(near)
    assert got is not None and got.type == "unload"
    assert set(got.units) == {"su-t34-1", "su-rifles-1"}  # all get off together
    assert near.rules.why_not(near.state, got) is None


def test_sniper_fire_waits_for_contact() -> None:
    game = on_partisans_map(
        [
            u("de-rifles", "de_rifles_41", "german", "A12", facing=0),
            u("su-rifles", "su_rifles_41", "soviet", "P12", facing=3),
        ],
        cards=13,
    )
    give_hand(game, "german", "sniper_fire")
    d = decision(game)
    assert not game.ruleset.sight(d.state, "A12", "P12").clear
    choice = DoctrinePolicy().choose(d)
    assert not isinstance(choice, PlayCard)
    contact = on_partisans_map(
        [
            u("de-rifles", "de_rifles_41", "german", "H10", facing=0),
            u("su-rifles", "su_rifles_41", "soviet", "K12", facing=3),
        ],
        cards=13,
    )
    give_hand(contact, "german", "sniper_fire")
    choice = DoctrinePolicy().choose(decision(contact))
    assert isinstance(choice, PlayCard) and choice.card == "sniper_fire"
