"""Бронепехота 2008: the optional rules in play (:mod:`.options` lists them).

:class:`OptionRules` gathers the mixins of the options — grenades and blasts
(:mod:`.grenades`), aimed fire (:mod:`.aimed`), jump packs (:mod:`.jumps`) and
panic (:mod:`.panic`) — and gives the rule system one place to ask for the
actions they add and to check them.  An option the scenario does not play adds
no action, and its actions are refused.
"""

from __future__ import annotations

from wargame.engine import Action, GameState

from .actions import Fig
from .aimed import Aimed, AimedShot
from .grenades import Grenades, Throw
from .jumps import Jump, Jumps
from .panic import Panic

__all__ = ["OPTION_ACTIONS", "AimedShot", "Jump", "OptionRules", "Throw"]

#: The action types the options add.
OPTION_ACTIONS = (Throw, AimedShot, Jump)


class OptionRules(Grenades, Aimed, Jumps, Panic):
    """The optional rules' actions and checks (the module docstring)."""

    def option_actions(self, state: GameState, f: Fig) -> list[Action]:
        """The actions the scenario's options offer figure ``f`` now."""
        if not self.options - {"limited_ammo"} or f.machine is not None:
            return []
        return [
            *self.aimed_actions(state, f),
            *self.throw_actions(state, f),
            *self.jump_actions(state, f),
        ]

    def check_option(self, state: GameState, action: Action) -> None:
        """Raise :class:`~wargame.engine.IllegalActionError` unless the option
        action ``action`` is legal now."""
        if isinstance(action, Throw):
            self.check_throw(state, action)
        elif isinstance(action, AimedShot):
            self.check_aimed(state, action)
        elif isinstance(action, Jump):
            self.check_jump(state, action)
