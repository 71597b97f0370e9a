"""Flames of War v3 actions in words, for the log panel, the classroom and the
action list (the rule system's ``describe`` hook).

Platoons are named as the scenario names them; a move or a bombardment says
how far and which way from the platoon's point (compass, map north).

Examples:
    >>> from wargame.engine import Game
    >>> g = Game.from_scenario("fow_ockenfels_1945", seed=1)
    >>> sorted({g.describe(a).split(" ")[0] for a in g.legal_actions()})
    ['Armored', 'Company', 'End', 'Sherman']
    >>> g.describe(g.legal_actions()[-1])
    'End the Movement Step'
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from wargame.engine import Action, GameState, Point, RulesetBase
from wargame.engine.points import COMPASS

if TYPE_CHECKING:  # pragma: no cover
    from .ruleset import FowRuleset

__all__ = ["describe"]

STEP_NAMES = {
    "starting": "Starting Step",
    "movement": "Movement Step",
    "shooting": "Shooting Step",
    "assault": "Assault Step",
}


def _name(state: GameState, uid: str) -> str:
    u = state.units.get(uid)
    return u.name if u is not None else uid


def _way(state: GameState, uid: str, to: Point) -> str:
    """``"150 m NE"``: from the platoon's point to ``to``."""
    u = state.units.get(uid)
    here = u.position if u is not None else None
    if not isinstance(here, Point):
        return f"to ({to.x:.0f}, {to.y:.0f})"
    dx, dy = to.x - here.x, to.y - here.y
    bearing = math.degrees(math.atan2(dx, dy)) % 360
    return f"{math.hypot(dx, dy):.0f} m {COMPASS[round(bearing / 45) % 8]}"


def describe(rs: FowRuleset, state: GameState, action: Action) -> str:
    """One action in words (module docstring)."""
    from .air import AirStrike
    from .ambush import Reveal
    from .artillery import Bombard
    from .consolidate import Consolidate
    from .double import AtTheDouble
    from .ruleset import Assault, BreakOff, Counterattack, Move, Next, Shoot
    from .transport import Dismount, Mount

    if isinstance(action, Move):
        how = " in column" if action.column else ""
        way = _way(state, action.unit, action.to)
        return f"{_name(state, action.unit)} moves {way}{how}"
    if isinstance(action, AtTheDouble):
        how = " in column" if action.column else ""
        way = _way(state, action.unit, action.to)
        return f"{_name(state, action.unit)} moves At the Double {way}{how}"
    if isinstance(action, Shoot):
        ready = " at ROF 1, ready to assault" if action.to_assault else ""
        target = _name(state, action.target)
        return f"{_name(state, action.unit)} shoots at {target}{ready}"
    if isinstance(action, Consolidate):
        if action.to is None:
            return f"{_name(state, action.unit)} holds its ground after the assault"
        way = _way(state, action.unit, action.to)
        return f"{_name(state, action.unit)} consolidates {way}"
    if isinstance(action, Bombard):
        what = "lays smoke" if action.smoke else "bombards"
        wide = " (the larger template)" if action.wide else ""
        way = _way(state, action.unit, action.at)
        return f"{_name(state, action.unit)} {what} {way} away{wide}"
    if isinstance(action, Assault):
        return f"{_name(state, action.unit)} assaults {_name(state, action.target)}"
    if isinstance(action, Counterattack):
        return f"{_name(state, action.unit)} counterattacks"
    if isinstance(action, BreakOff):
        return f"{_name(state, action.unit)} breaks off"
    if isinstance(action, Mount):
        into = _name(state, action.transport)
        return f"{_name(state, action.unit)} gets into {into}"
    if isinstance(action, Dismount):
        return f"{_name(state, action.unit)} gets out of its transports"
    if isinstance(action, AirStrike):
        air = rs.air.get(str(state.vars.get("side")))
        plane = air.aircraft.name if air is not None else "The aircraft"
        return f"{plane} attacks {_name(state, action.target)}"
    if isinstance(action, Next) and state.vars.get("air_pending"):
        return "Let the aircraft go without a strike"
    if isinstance(action, Reveal):
        return f"{_name(state, action.unit)} springs its ambush"
    if isinstance(action, Next):
        step = STEP_NAMES.get(state.phase, state.phase)
        return f"End the {step}"
    return RulesetBase.describe(rs, state, action)  # the engine's words
