"""Small hand-built fow-v3 fights on open ground of the Remagen map (a clear
field east of Remagen, 450 x 200 m with no woods, town or water)."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from wargame.engine import Game
from wargame.rules.fow.ruleset import Next

SCENARIO = Path(__file__).parents[2] / "scenarios" / "fow_remagen_1945.toml"
#: The middle of the open field (map metres).
FIELD = (376600.0, 5603850.0)


def platoon(
    uid: str,
    side_formation: str,
    teams: list[tuple[str, int]],
    *,
    x: float,
    y: float,
    facing: float,
    motivation: str = "confident",
    skill: str = "trained",
    command: str | None = None,
) -> dict[str, Any]:
    """One ``[[units]]`` entry laid out in a line abreast, 55 m apart."""
    u: dict[str, Any] = {
        "id": uid,
        "name": uid,
        "formation": side_formation,
        "motivation": motivation,
        "skill": skill,
        "teams": [{"team": t, "count": n} for t, n in teams],
        "x": x,
        "y": y,
        "layout": "line",
        "spacing_m": 55.0,
        "facing": facing,
    }
    if command is not None:
        u["command"] = command
    return u


def game(units: list[dict[str, Any]], *, seed: int = 1, turns: int = 3) -> Game:
    """A game of the given platoons with Remagen's sides, formations and
    objectives, in the US Movement Step of turn 1."""
    d = tomllib.loads(SCENARIO.read_text(encoding="utf-8"))
    d["units"] = units
    d["turns"] = turns
    for side in d["sides"]:  # no aircraft in the hand-built fights
        side.pop("air_support", None)
    return Game.from_scenario(d, seed=seed)


def fight(units: list[dict[str, Any]], *, seed: int = 1, turns: int = 3) -> Game:
    """:func:`game`, stepped to the US Assault Step of turn 1."""
    g = game(units, seed=seed, turns=turns)
    g.apply(Next())  # to the Shooting Step
    g.apply(Next())  # to the Assault Step
    assert g.state.phase == "assault" and g.current_side == "us"
    return g


def riflemen_facing(
    gap_m: float, *, seed: int = 1, de_motivation: str = "confident", **kw: Any
) -> Game:
    """Three Trained US infantry teams (a command team and two rifle teams)
    facing three German teams ``gap_m`` apart, base edge to base edge (bases
    1" = 25 m in radius)."""
    x, y = FIELD
    us = platoon(
        "us_a",
        "tf_engeman",
        [("us_rifle_team", 2)],
        command="us_command_rifle_team",
        x=x,
        y=y,
        facing=0.0,
        **kw,
    )
    de = platoon(
        "de_a",
        "bratge",
        [("de_rifle_team", 2)],
        command="de_command_smg_team",
        x=x,
        y=y + gap_m + 50.0,
        facing=180.0,
        motivation=de_motivation,
    )
    return fight([us, de], seed=seed)


def e4_platoons() -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """Worked example E4's fight: Veteran US riflemen (``us_a``) charging a
    Fearless (``de_a``) and, 165 m east of it, a Reluctant (``de_b``) German
    platoon, both within 4" of the attackers after the hits."""
    x, y = FIELD
    us = platoon(
        "us_a",
        "tf_engeman",
        [("us_rifle_team", 4)],
        command="us_command_rifle_team",
        x=x,
        y=y,
        facing=0.0,
        skill="veteran",  # hard to hit: the charge comes in more often
    )
    de_a = platoon(
        "de_a",
        "bratge",
        [("de_rifle_team", 3)],
        x=x,
        y=y + 110.0,
        facing=180.0,
        motivation="fearless",
    )
    de_b = platoon(
        "de_b",
        "bratge",
        [("de_rifle_team", 3)],
        x=x + 165.0,
        y=y + 110.0,
        facing=180.0,
        motivation="reluctant",
    )
    return us, de_a, de_b
