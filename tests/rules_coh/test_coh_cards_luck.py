"""The Luck! card (#12, S1 p.17 card list: after one of his own rolls, during
his turn, a player rolls 1d6: 1 = -3, 2-6 = +2): the Luck window between an
attack's or a rally's rolls and their results (wargame/rules/coh/luck.py)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from coh_card_helpers import (
    give_hand,
    kinds,
    on_partisans_map,
    play,
    refused,
    set_marker,
)

from wargame.engine import Decision, Game
from wargame.engine.policy import get_policy
from wargame.rules.coh.actions import Fire, KeepRoll, Pass, PlayCard, Rally
from wargame.rules.coh.cards import card
from wargame.rules.coh.luck import luck_choice

LUCK_TABLE = card("luck").d6_table  # (-3, 2, 2, 2, 2, 2)

# Firefight 1's map: a German rifle squad at H14 facing the Soviet squad at K12.
DUEL = [
    {
        "id": "de-rifles",
        "type": "de_rifles_41",
        "side": "german",
        "hex": "H14",
        "facing": 1,
    },
    {"id": "su-rifles", "type": "su_rifles_41", "side": "soviet", "hex": "K12"},
]
TWO_IN_A_HEX = [
    *DUEL,
    {"id": "su-rifles-2", "type": "su_rifles_41", "side": "soviet", "hex": "K12"},
]


def _fire(game: Game) -> Fire:
    return next(
        a
        for a in game.legal_actions()
        if isinstance(a, Fire) and a.card is None and a.pay == "ap"
    )


def _duel(seed: int, hand: tuple[str, ...], units: list[dict[str, Any]] = DUEL) -> Game:
    game = on_partisans_map(units, cards=13, seed=seed)  # Luck (#12) is in the deck
    give_hand(game, "german", *hand)
    return game


def _first_seed(
    test: Callable[[Game], bool],
    hand: tuple[str, ...] = ("luck",),
    units: list[dict[str, Any]] = DUEL,
) -> int:
    """The first seed whose opening German fire passes ``test`` (after it)."""
    for seed in range(200):
        game = _duel(seed, hand, units)
        game.apply(_fire(game))
        if test(game):
            return seed
    raise AssertionError("no seed found")


def _window(game: Game) -> tuple[str, ...]:
    return tuple(game.state.vars.get("luck_window") or ())


def _roll(game: Game, since: int = 0) -> Any:
    return next(e for e in game.events[since:] if e.kind == "attack" and e.dice)


def test_luck_turns_a_near_miss_by_its_d6_table() -> None:
    """A fire that misses by 1 or 2: the window opens, Luck's 1d6 changes the
    roll by -3 or +2 and the result lands with the change."""
    seed = _first_seed(lambda g: bool(_window(g)))
    game = _duel(seed, ("luck",))
    play(game, _fire(game))
    roll = _roll(game)
    assert _window(game) == ("unit:su-rifles",)
    assert game.current_side == "german"
    assert game.legal_actions() == [KeepRoll(), PlayCard("luck", ("su-rifles",))]
    assert not kinds(game.events, "destroyed") and "marked" not in (
        game.state.units["su-rifles"].attrs
    )  # nothing landed yet
    evs = play(game, PlayCard("luck", ("su-rifles",)))
    d6 = next(e for e in evs if e.kind == "card" and e.dice)
    mod = LUCK_TABLE[d6.dice[0] - 1]
    assert next(e for e in evs if e.result == f"{mod:+d}")
    # the roll needed `needed` on 2d6: with Luck it hits iff dice + mod >= needed
    total = sum(roll.dice) + mod
    hit = total >= roll.needed
    landed = [e for e in evs if e.kind == "attack" and e.target == "su-rifles"]
    assert landed[-1].result == ("hit" if hit else "miss")
    assert game.state.decks["discard"] == ("luck",)
    assert game.state.decks["hand:german"] == ()
    assert not _window(game) and game.current_side == "soviet"


def test_keep_roll_lands_the_roll_as_rolled_and_ends_the_turn() -> None:
    seed = _first_seed(lambda g: bool(_window(g)))
    game = _duel(seed, ("luck",))
    play(game, _fire(game))
    roll = _roll(game)
    evs = play(game, KeepRoll())
    assert [e.result for e in evs if e.kind == "attack"] == ["miss"]
    assert sum(roll.dice) < roll.needed
    assert game.state.decks["hand:german"] == ("luck",)
    assert game.current_side == "soviet"
    assert "no roll waits" in refused(game, KeepRoll())


def test_a_hand_without_luck_gets_the_same_window_and_the_foe_cannot_tell() -> None:
    """The window opens on public facts only: a hand of Sniper Fire gets it
    too, with KeepRoll alone; what the Soviets see is the same either way."""
    seed = _first_seed(lambda g: bool(_window(g)))
    with_luck, without = _duel(seed, ("luck",)), _duel(seed, ("sniper_fire",))
    for g in (with_luck, without):
        g.apply(_fire(g))
    assert _window(without) == _window(with_luck)
    assert without.legal_actions() == [KeepRoll()]
    for g in (with_luck, without):
        g.apply(KeepRoll())

    def seen(g: Game) -> list[tuple[Any, ...]]:
        return [
            (e.kind, e.side, e.unit, e.target, e.dice, e.result, e.detail, e.action)
            for e in g.events_for("soviet")
        ]

    assert seen(with_luck) == seen(without)
    assert with_luck.state_for("soviet").decks == without.state_for("soviet").decks


def test_no_window_when_luck_cannot_change_the_result() -> None:
    # a roll far from what it needs: neither -3 nor +2 changes a miss
    far = _first_seed(lambda g: (r := _roll(g)).needed - sum(r.dice) > 2)
    game = _duel(far, ("luck",))
    play(game, _fire(game))
    assert not _window(game) and game.current_side == "soviet"
    near = _first_seed(lambda g: bool(_window(g)))
    # an empty hand (its size is public), no Luck in the deck (cards < 12),
    # or every copy face up on the discard pile: no window either
    empty = _duel(near, ())
    play(empty, _fire(empty))
    no_deck = on_partisans_map(DUEL, cards=11, seed=near)
    give_hand(no_deck, "german", "luck")
    play(no_deck, _fire(no_deck))
    gone = _duel(near, ("sniper_fire",))
    gone.state.decks["discard"] = ("luck",) * 3
    play(gone, _fire(gone))
    for g in (empty, no_deck, gone):
        assert not _window(g) and g.current_side == "soviet"


def test_luck_is_refused_outside_a_window_and_other_actions_inside_one() -> None:
    game = _duel(0, ("luck",))
    assert not any(
        isinstance(a, PlayCard) and a.card == "luck" for a in game.legal_actions()
    )
    assert "after one of your own rolls" in refused(game, PlayCard("luck"))
    seed = _first_seed(lambda g: bool(_window(g)))
    game = _duel(seed, ("luck",))
    play(game, _fire(game))
    assert "wait for Luck" in refused(game, Pass())
    assert "name one roll" in refused(game, PlayCard("luck", ("de-rifles",)))
    assert "is free" in refused(game, PlayCard("luck", ("su-rifles",), pay="command"))


def test_two_units_in_the_hex_one_window_and_luck_on_one_roll() -> None:
    """Several rolls at one hex (§7.5.1): one window after all of them, and
    Luck changes only the roll it is played on."""

    def both(g: Game) -> bool:
        return _window(g) == ("unit:su-rifles", "unit:su-rifles-2")

    seed = _first_seed(both, units=TWO_IN_A_HEX)
    game = _duel(seed, ("luck",), TWO_IN_A_HEX)
    play(game, _fire(game))
    rolls = {e.target: e for e in game.events if e.kind == "attack" and e.dice}
    assert set(rolls) == {"su-rifles", "su-rifles-2"}
    assert not [e for e in game.events if e.kind == "attack" and e.result]
    evs = play(game, PlayCard("luck", ("su-rifles-2",)))
    mod = LUCK_TABLE[next(e for e in evs if e.kind == "card" and e.dice).dice[0] - 1]
    res = {e.target: e.result for e in evs if e.kind == "attack" and e.result}
    for t, r in rolls.items():
        total = sum(r.dice) + (mod if t == "su-rifles-2" else 0)
        assert res[t] == ("hit" if total >= r.needed else "miss")


def test_luck_on_a_rally_roll() -> None:
    def rally_window(seed: int) -> Game:
        game = _duel(seed, ("luck",))
        set_marker(game, "de-rifles", "suppressed")
        play(game, Rally(("de-rifles",)))
        return game

    seed = next(s for s in range(200) if _window(rally_window(s)))
    game = rally_window(seed)
    roll = next(e for e in game.events if e.kind == "rally" and e.dice)
    assert _window(game) == ("unit:de-rifles",)
    evs = play(game, PlayCard("luck", ("de-rifles",)))
    mod = LUCK_TABLE[next(e for e in evs if e.kind == "card" and e.dice).dice[0] - 1]
    rallied = sum(roll.dice) + mod >= roll.needed
    assert bool(game.state.units["de-rifles"].attrs.get("marked")) == (not rallied)


def test_the_ai_plays_luck_on_a_miss_it_can_turn_into_a_hit() -> None:
    seed = _first_seed(lambda g: bool(_window(g)))
    game = _duel(seed, ("luck",))
    play(game, _fire(game))
    roll = _roll(game)
    assert roll.needed - sum(roll.dice) in (1, 2)  # +2 hits, -3 still misses
    decision = Decision(
        "german",
        game.legal_actions(),
        1,
        seed,
        lambda: game.state_for("german"),
        game.ruleset,
    )
    assert luck_choice(decision) == PlayCard("luck", ("su-rifles",))
    for name in ("greedy", "doctrine"):
        pol = get_policy(name, ruleset="coh-2e")
        assert pol.choose(decision) == PlayCard("luck", ("su-rifles",))


def test_a_luck_window_survives_save_load_and_undo(tmp_path: Path) -> None:
    """A window in a real Firefight 1 game (cards up to 13, the random
    player): the save reloads into the same window, undo and redo replay it."""
    rnd = {
        s: get_policy("random", ruleset="coh-2e", seed=3) for s in ("german", "soviet")
    }
    game = Game.from_scenario("coh_partisans", seed=5, policies=rnd)
    for _ in range(3000):
        if game.state.vars.get("luck_window") or game.is_over:
            break
        game.step()
    assert game.state.vars.get("luck_window")
    digest = game.state.digest()
    loaded = Game.load(game.save(tmp_path / "luck.json"))
    assert loaded.state.digest() == digest
    assert loaded.legal_actions() == game.legal_actions()
    last = game.undo()
    assert not game.state.vars.get("luck_window")
    game.apply(last)
    assert game.state.digest() == digest
    game.apply(KeepRoll())
    loaded.apply(KeepRoll())
    assert loaded.state.digest() == game.state.digest()
