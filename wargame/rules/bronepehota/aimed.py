"""Бронепехота 2008: aimed fire of infantrymen (§11.1), optional rule
``aimed_fire`` (:mod:`.options`).

An infantryman who does nothing but shoot this turn doubles his range result
(die plus bonus); the power dice are unchanged.  The player declares it before
the shot, so the soldier neither moves nor fights in melee this turn.  Never
for grenades (§11.1 note), machines or guns.

ASSUMPTIONS (docs, numbered): the declaration is the shot itself
(:class:`AimedShot`), allowed only as the soldier's first act of the turn; after
it he may not move, board or melee (his acts this turn are over but for that
shot).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, cast

from wargame.engine import Action, GameState, IllegalActionError
from wargame.engine.points import distance

from .actions import Fig, Shoot
from .odds import hit_probability
from .table import Table

if TYPE_CHECKING:  # pragma: no cover
    from .ruleset import BronepehotaRuleset

__all__ = ["AIMED_DONE", "Aimed", "AimedShot"]

#: The acts an aimed shot uses up (§11.1: no move, no melee; ASSUMPTION: no boarding).
AIMED_DONE = ("shoot", "move", "melee", "board")


@dataclass(frozen=True)
class AimedShot(Shoot):
    """An infantryman's aimed shot with his personal weapon (§11.1): the range
    result doubled; his only act this turn."""

    type = "aimed_shot"


class Aimed(Table):
    """Aimed fire (the module docstring)."""

    options: frozenset[str]

    def aimed_problem(self, state: GameState, f: Fig) -> str | None:
        """Why ``f`` may not declare aimed fire now (``None``: he may)."""
        if "aimed_fire" not in self.options:
            return "§11.1: aimed fire is an optional rule this scenario does not play"
        if f.machine is not None:
            return "§11.1: a machine's range is never doubled (infantry only)"
        rs = cast("BronepehotaRuleset", self)
        if rs._did(state, f.model.id):
            return f"§11.1: {f.model.id} has already acted this turn (shooting only)"
        return None

    def check_aimed(self, state: GameState, action: AimedShot) -> None:
        """Raise :class:`IllegalActionError` unless ``action`` is legal now."""
        rs = cast("BronepehotaRuleset", self)
        f = rs._turn_to_act(state, action.unit, action.soldier, "shoot")
        why = self.aimed_problem(state, f) or rs.shot_problem(
            state, f, action.target, action.target_soldier, action.weapon
        )
        if why is not None:
            raise IllegalActionError(f"{f.model.id} cannot fire aimed: {why}")

    def aimed_actions(self, state: GameState, f: Fig) -> list[Action]:
        """Aimed shots offered to ``f``: enemies his doubled range can reach."""
        if "aimed_fire" not in self.options or self.aimed_problem(state, f):
            return []
        rs = cast("BronepehotaRuleset", self)
        try:
            rs._turn_to_act(state, f.unit.id, f.model.id, "shoot")
        except IllegalActionError:
            return []
        dice = self._dice(state, f, "")
        if isinstance(dice, str):
            return []
        a = self._pos(f)
        out: list[Action] = []
        for e in self._figures(state):
            if e.unit.side == f.unit.side:
                continue
            d = distance(a, self._pos(e)) / self.step_m
            if hit_probability(dice[0], d, aimed=True) == 0:
                continue
            if rs.shot_problem(state, f, e.unit.id, e.model.id) is None:
                out.append(AimedShot(f.unit.id, f.model.id, e.unit.id, e.model.id))
        return out
