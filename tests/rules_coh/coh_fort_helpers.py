"""Small coh-2e games with fortifications on the open fields east of
Niederetscheid, shared by the fortification, bunker and obstacle-card tests."""

from __future__ import annotations

from typing import Any

from wargame.engine import Game

WINDOW = {"place": "Niederetscheid", "width_m": 1200, "height_m": 1000}


def scenario(
    units: list[dict[str, Any]], forts: list[dict[str, Any]], sid: str = "t_forts"
) -> dict[str, Any]:
    """A two-side, three-round scenario dict with these units and counters."""
    return {
        "id": sid,
        "title": "test",
        "ruleset": "coh-2e",
        "turns": 3,
        "map": {"name": "rhine-remagen", "hex_size_m": 50, "window": WINDOW},
        "rules": {"level_height_m": 12.5, "first_initiative": "german"},
        "sides": [
            {"id": "german", "nation": "german", "caps": 6},
            {"id": "soviet", "nation": "soviet", "caps": 6},
        ],
        "units": units,
        "fortifications": forts,
    }


def rules(g: Game) -> Any:
    """The coh-2e ruleset of a game (its rule methods, for the checks)."""
    return g.ruleset


def unit(uid: str, type_: str, side: str, hex_: str, **kw: Any) -> dict[str, Any]:
    """One unit table of a scenario."""
    return {"id": uid, "type": type_, "side": side, "hex": hex_, **kw}


def game(
    units: list[dict[str, Any]],
    forts: list[dict[str, Any]],
    seed: int = 1,
    sid: str = "t_forts",
) -> Game:
    """A game of :func:`scenario`."""
    return Game.from_scenario(scenario(units, forts, sid), seed=seed)
