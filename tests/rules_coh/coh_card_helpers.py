"""Helpers for the coh-2e card tests: games on Firefight 1's map and the few
direct state edits the tests need (hands, hit markers, status, CAPs).

Every edit of ``game.state`` made by a test goes through a function here.
"""

from __future__ import annotations

import copy
import tomllib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from wargame.engine import Action, Event, Game, IllegalActionError

PARTISANS = Path(__file__).resolve().parents[2] / "scenarios" / "coh_partisans.toml"


def partisans(seed: int = 1) -> Game:
    """Firefight 1 "Partisans" (cards numbered up to 13), round 1, German turn."""
    return Game.from_scenario("coh_partisans", seed=seed)


def on_partisans_map(
    units: Sequence[dict[str, Any]],
    *,
    first: str = "german",
    cards: int = 0,
    extra_cards: Sequence[str] = (),
    weapon_cards: dict[str, Sequence[str]] | None = None,
    turns: int = 2,
    seed: int = 1,
) -> Game:
    """A game on Firefight 1's map (the Etscheid window) with these units set
    up, no reinforcements, the square N11 as the control hex."""
    with PARTISANS.open("rb") as fh:
        data = tomllib.load(fh)
    data = copy.deepcopy(data)
    data["id"] = "coh_cards_test"
    data["turns"] = turns
    data["units"] = list(units)
    data.pop("reinforcements", None)
    data["rules"]["first_initiative"] = first
    data["rules"]["cards"] = cards
    if extra_cards:
        data["rules"]["extra_cards"] = list(extra_cards)
    for s in data["sides"]:
        s["cards"] = 2 if (cards or extra_cards) else 0
        s["cards_per_round"] = 1 if (cards or extra_cards) else 0
        if weapon_cards and s["id"] in weapon_cards:
            s["weapon_cards"] = list(weapon_cards[s["id"]])
    return Game.from_scenario(data, seed=seed)


def give_hand(game: Game, side: str, *cards: str) -> None:
    """Set ``side``'s hand to exactly these cards."""
    game.state.decks[f"hand:{side}"] = tuple(cards)


def set_marker(game: Game, uid: str, kind: str) -> None:
    """Put a face-down hit marker of ``kind`` under a unit."""
    u = game.state.units[uid]
    u.attrs["hit"] = kind
    u.attrs["marked"] = True


def set_status(game: Game, uid: str, status: str) -> None:
    """Make a unit fresh, active or spent."""
    game.state.units[uid].attrs["status"] = status


def set_caps(game: Game, side: str, caps: int) -> None:
    """Set a side's CAPs."""
    game.state.pools[f"caps:{side}"] = caps


def play(game: Game, *actions: Action) -> list[Event]:
    """Apply actions in turn; the events they produced."""
    out: list[Event] = []
    for a in actions:
        out += game.apply(a)
    return out


def refused(game: Game, action: Action) -> str:
    """The refusal message of an illegal action; the state must not change."""
    before = game.state.digest()
    n = len(game.events)
    try:
        game.apply(action)
    except IllegalActionError as exc:
        assert game.state.digest() == before
        assert len(game.events) == n
        return str(exc)
    raise AssertionError(f"{action} was allowed")


def kinds(events: Sequence[Event], kind: str) -> list[Event]:
    """The events of one kind."""
    return [e for e in events if e.kind == kind]


def card_playground(seed: int = 0) -> dict[str, Any]:
    """A three-round scenario dict on Firefight 1's map with every numbered
    card (cards = 41, Luck! among them), three event cards, the weapon and
    off-board artillery cards of both sides, Close Call for both, hidden
    squads on both sides and a T-34: every playable card turns up."""
    with PARTISANS.open("rb") as fh:
        data = copy.deepcopy(tomllib.load(fh))
    data["id"] = "coh_cards_playground"
    data["turns"] = 3
    data.pop("reinforcements", None)
    data["rules"]["cards"] = 41
    data["rules"]["extra_cards"] = ["score", "firefight_event", "objective_1"]
    weapons = {
        "german": ["grenades", "magnetic_mine", "tellermine", "oba_lefh18"],
        "soviet": ["molotov", "oba_m38"],
    }
    for s in data["sides"]:
        s["cards"], s["cards_per_round"] = 5, 3
        s["weapon_cards"] = weapons[s["id"]]
        s["veteran_cards"] = ["close_call"]

    def u(uid: str, kind: str, side: str, hex_: str, **kw: Any) -> dict[str, Any]:
        return {"id": uid, "type": kind, "side": side, "hex": hex_, **kw}

    data["units"] = [
        u("de-rifles", "de_rifles_41", "german", "F10", hidden=True),
        u("de-rifles-2", "de_rifles_41", "german", "H14", facing=1),
        u("de-lmg", "de_lmg34", "german", "I14", facing=1),
        u("de-hmg", "de_hmg34", "german", "H13", facing=1),
        u("su-t34", "su_t34a_m40", "soviet", "G11", facing=3),
        u("su-rifles", "su_rifles_41", "soviet", "K12"),
        u("su-rifles-2", "su_rifles_41", "soviet", "L11"),
        u("su-rifles-3", "su_rifles_41", "soviet", "M15", hidden=True),
        u("su-maxim", "su_maxim_mmg", "soviet", "L12"),
    ]
    return data
