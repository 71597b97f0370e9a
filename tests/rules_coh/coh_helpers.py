"""Small coh-2e games on the Etscheid window for rule tests."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from wargame.engine import Event, Game

WINDOW = {"place": "Etscheid", "width_m": 1200, "height_m": 1000}


def game(
    units: Sequence[tuple[Any, ...]],
    *,
    first: str = "german",
    caps: tuple[int, int] = (6, 7),
    seed: int = 1,
    turns: int = 1,
) -> Game:
    """A one-round game: ``units`` are ``(id, type, side, hex, facing[, hidden])``."""
    rows = []
    for u in units:
        uid, typ, side, hex_, facing, *rest = u
        row: dict[str, Any] = {"id": uid, "type": typ, "side": side, "hex": hex_}
        if facing is not None:
            row["facing"] = facing
        if rest and rest[0]:
            row["hidden"] = True
        rows.append(row)
    sc = {
        "id": "coh_test",
        "ruleset": "coh-2e",
        "turns": turns,
        "map": {"name": "rhine-remagen", "hex_size_m": 50, "window": WINDOW},
        "rules": {"first_initiative": first},
        "sides": [
            {"id": "german", "name": "Germans", "nation": "german", "caps": caps[0]},
            {"id": "soviet", "name": "Soviets", "nation": "soviet", "caps": caps[1]},
        ],
        "units": rows,
    }
    return Game.from_scenario(sc, seed=seed)


def events_of(game: Game, kind: str, since: int = 0) -> list[Event]:
    """Events of a kind after the ``since``-th event."""
    return [e for e in game.events[since:] if e.kind == kind]


def pool(game: Game, side: str) -> int:
    return int(game.state.pools[f"ap:{side}"])


def caps(game: Game, side: str) -> int:
    return int(game.state.pools[f"caps:{side}"])


def status(game: Game, uid: str) -> str:
    return str(game.state.units[uid].attrs.get("status", "fresh"))
