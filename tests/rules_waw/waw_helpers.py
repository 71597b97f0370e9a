"""Small World at War situations on the Remagen window, for rule tests.

``scenario(...)`` builds a scenario dict with a NATO company ("A", HQ optional)
and a Soviet battalion ("B"); ``activate(game, "A")`` plays chit draws (deferring
or briefly activating other formations) until that formation's action phase.
"""

from __future__ import annotations

from typing import Any

import pytest

from wargame.engine import Game, IllegalActionError
from wargame.rules.waw import Activate, Defer, EndActivation, Pass

MAP = {"name": "rhine-remagen", "hex_size_m": 150, "window": "Remagen"}


def unit(uid: str, utype: str, formation: str, hex_: str | None, **kw: Any) -> dict:
    """One ``[[units]]`` table."""
    out = {"id": uid, "type": utype, "formation": formation, **kw}
    if hex_ is not None:
        out["hex"] = hex_
    return out


def with_hqs(team_a: list[dict], team_b: list[dict]) -> list[dict]:
    """``team_a`` after its HQ "A-HQ" at N17, ``team_b`` after "B-HQ" at H17."""
    return [
        unit("A-HQ", "us_hq", "A", "N17"),
        *team_a,
        unit("B-HQ", "ussr_hq", "B", "H17"),
        *team_b,
    ]


def scenario(
    units: list[dict],
    *,
    turns: int = 6,
    objectives: list[dict] | None = None,
    nato_hq: bool = True,
    pact_hq: bool = True,
    first_side: str = "nato",
    **extra: Any,
) -> dict:
    """A two-formation scenario dict: NATO formation "A", Soviet formation "B".

    HQ units must be among ``units`` with ids "A-HQ" / "B-HQ" when the flags say so.
    """
    formations = [
        {
            "id": "A",
            "side": "nato",
            "name": "Team A",
            "hq": "A-HQ" if nato_hq else None,
        },
        {"id": "B", "side": "pact", "name": "1/74", "hq": "B-HQ" if pact_hq else None},
    ]
    for f in formations:
        if f["hq"] is None:
            del f["hq"]
    data = {
        "id": "rule-test",
        "ruleset": "waw-classic",
        "turns": turns,
        "map": dict(MAP),
        "rules": {"first_side": first_side},
        "sides": [{"id": "nato", "name": "NATO"}, {"id": "pact", "name": "Pact"}],
        "formations": formations,
        "units": units,
        "objectives": objectives or [],
    }
    data.update(extra)
    return data


def activate(game: Game, formation: str, *, limit: int = 400) -> None:
    """Play chit draws until ``formation`` is in its action phase (no window open)."""
    for _ in range(limit):
        v = game.state.vars
        if game.is_over:
            raise AssertionError(f"game ended before {formation} was activated")
        if v.get("active") == formation and not v.get("drawn") and not v.get("opp"):
            return
        drawn = v.get("drawn")
        if drawn == formation:
            game.apply(Activate(formation))
        elif drawn:
            if v.get("drawn_deferred"):
                game.apply(Activate(drawn))
            else:
                game.apply(Defer(drawn))
        elif v.get("opp"):
            game.apply(Pass())
        elif v.get("active"):
            game.apply(EndActivation())
    raise AssertionError(f"{formation} was never activated")


def game_for(units: list[dict], formation: str = "A", seed: int = 0, **kw) -> Game:
    """A game of ``scenario(units, **kw)`` in ``formation``'s action phase."""
    g = Game.from_scenario(scenario(units, **kw), seed=seed)
    activate(g, formation)
    return g


def refused(g: Game, action) -> str:
    """The reason an illegal action is refused; checks that nothing changed."""
    digest, n = g.state.digest(), len(g.events)
    with pytest.raises(IllegalActionError) as err:
        g.apply(action)
    assert g.state.digest() == digest and len(g.events) == n
    return str(err.value)


def since(g: Game, n0: int) -> list:
    """The events logged since the log had ``n0`` of them."""
    return list(g.events[n0:])


def hold_fire(game: Game) -> None:
    """Decline any open opportunity fire."""
    while game.state.vars.get("opp"):
        game.apply(Pass())


def kinds(events: list) -> list[str]:
    """Event kinds, in order."""
    return [e.kind for e in events]
