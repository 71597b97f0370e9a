"""Where a unit may move: one-step destinations and multi-hex paths.

Asked of the rule system only through the engine's neutral interface: the
unit's legal actions that carry a destination field ``to`` (a hex, or a path of
hexes) are the moves; a longer path is found by breadth-first search, re-aiming
such a legal move at each neighbouring hex, letting the rules ``check`` it and
``apply`` it on a **copy** of the deciding side's view (no hidden unit can
steer the search; the game is untouched).  A step after which the rules hand
the decision to someone else (e.g. opportunity fire) ends a path there.

Examples:
    >>> from wargame.engine import Game
    >>> game = Game.from_scenario("test_remagen", seed=1)
    >>> _ = [game.step() for _ in range(2)]       # the Pact activates
    >>> paths = reachable(game, "SU-B2")            # BMP-1 platoon 2/2/74
    >>> len(paths["G17"]), len(paths["H10"])        # one move; seven moves
    (1, 7)
    >>> [destination_of(a) for a in paths["G14"]]  # G15 is in enemy sight
    ['F15', 'F14', 'G14']
"""

from __future__ import annotations

import copy
from collections import deque
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from wargame.engine import Action, Game, GameState

__all__ = [
    "MAX_SEARCH",
    "actions_reaimed",
    "destination_of",
    "move_templates",
    "reachable",
]

#: Most states the path search looks at (a guard for fast units on open ground).
MAX_SEARCH = 250


def destination_of(action: Action) -> str | None:
    """The last hex of an action's ``to`` field (``None``: not a move)."""
    to = action.to_dict().get("to")
    if isinstance(to, str):
        return to
    if isinstance(to, list | tuple) and to and isinstance(to[-1], str):
        return to[-1]
    return None


def _mentions(action: Action, unit: str) -> bool:
    for v in action.to_dict().values():
        if v == unit or (isinstance(v, list | tuple) and unit in v):
            return True
    return False


def move_templates(legal: list[Action], unit: str) -> list[Action]:
    """The unit's legal one-step moves, in the rule system's order."""
    return [a for a in legal if destination_of(a) and _mentions(a, unit)]


def _aimed(game: Game, template: Action, hex_: str) -> Action | None:
    d = template.to_dict()
    d["to"] = hex_ if isinstance(d["to"], str) else [hex_]
    try:
        return game.ruleset.action_from_dict(d)
    except Exception:  # a template that cannot be re-aimed
        return None


def _decider_state(game: Game, side: str) -> GameState:
    if getattr(game.ruleset, "hidden_information", False):
        return game.ruleset.view(game.state, side)
    return game.state.copy()


def reachable(
    game: Game, unit: str, *, limit: int = MAX_SEARCH
) -> dict[str, list[Action]]:
    """Hex -> the shortest list of legal moves that takes ``unit`` there now.

    Only for the side to decide, and only its own unit; ``{}`` otherwise.
    """
    from wargame.engine.ruleset import RuleContext

    side = game.current_side
    if side is None:
        return {}
    legal = game.legal_actions()
    templates = move_templates(legal, unit)
    if not templates:
        return {}
    start = _decider_state(game, side)
    u0 = start.units.get(unit)
    if u0 is None or u0.hex is None:
        return {}
    grid = game.map.grid
    kinds: list[Action] = []
    for t in templates:  # one template per kind of move (its other fields)
        d = t.to_dict()
        d.pop("to")
        if all({**k.to_dict(), "to": None} != {**d, "to": None} for k in kinds):
            kinds.append(t)
    paths: dict[str, list[Action]] = {}
    for t in templates:
        h = destination_of(t)
        if h is not None and h not in paths and h != u0.hex:
            paths[h] = [t]
    queue: deque[tuple[GameState, list[Action], Any]] = deque(
        [(start, [], copy.deepcopy(game.rng))]
    )
    seen = {u0.hex}
    n0 = len(game.actions)
    looked = 0
    while queue and looked < limit:
        state, path, rng = queue.popleft()
        here = state.units[unit].hex
        for nb in grid.neighbors(here):  # type: ignore[arg-type]
            if nb in seen:
                continue
            for t in kinds:
                a = _aimed(game, t, nb)
                if a is None:
                    continue
                try:
                    game.ruleset.check(state, a)
                except Exception:  # not legal: try the next kind
                    continue
                nxt = state.copy()
                rng2 = copy.deepcopy(rng)
                events: list[Any] = []
                try:
                    ctx = RuleContext(
                        nxt, rng2, game.map, events.append, a, n0 + len(path)
                    )
                    game.ruleset.apply(ctx, a)
                    ctx.action = None
                    game.ruleset.advance(ctx)
                except Exception:  # the rules refused half-way
                    continue
                looked += 1
                u = nxt.units.get(unit)
                if u is None or u.destroyed or u.hex != nb:
                    break
                seen.add(nb)
                paths.setdefault(nb, [*path, a])
                if game.ruleset.current_side(nxt) == side:
                    queue.append((nxt, [*path, a], rng2))
                break
    return paths


def actions_reaimed(game: Game, unit: str, label: str) -> list[dict[str, Any]]:
    """Legal actions re-aimed at ``label`` for ``unit`` (one per action type).

    The actions asked about when the rules are to say why a click does nothing:
    first the unit's own legal actions with their hex fields moved to
    ``label``, then (if it has none) other units' of its side given to it.
    """
    from .game import actions_involving, hex_lonlat

    hexes = hex_lonlat(game.map)
    state = game.state
    side = state.units[unit].side
    mates = {k for k, u in state.units.items() if u.side == side}
    legal = game.legal_actions()
    own = actions_involving(legal, unit=unit)
    others = [a for a in legal if a not in own]
    out: dict[str, dict[str, Any]] = {}
    for actions, swap_unit in ((own, False), (others, True)):
        for a in actions:
            d = a.to_dict()
            if d.get("type") in out:
                continue
            at = [k for k, v in d.items() if isinstance(v, str) and v in hexes]
            who = [k for k, v in d.items() if isinstance(v, str) and v in mates]
            if not at or (swap_unit and not who):
                continue
            d.update(dict.fromkeys(at, label))
            if swap_unit:
                d[who[0]] = unit
            out[str(d.get("type"))] = d
        if out:
            break
    return list(out.values())
