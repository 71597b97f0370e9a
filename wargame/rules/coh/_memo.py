"""Answers remembered while one state is read and not changed: a speed-up only.

Finding the legal actions (and the players' choice among them) asks the same
questions of one state thousands of times: which units stand in a hex, which
enemy is seen there, which hexes a mortar may spot through.  Inside
:meth:`MemoScope.memo_scope` the state is only read, so each answer is worked
out once and kept in a dict that lives as long as the scope; outside a scope
(while the rules apply an action and change the state) nothing is kept.

The memo belongs to one state *object*: each side's view is its own object, so
what one side's memo holds (hidden units included) never answers a question
about another state.  Nested scopes on the same state share its memo.

Examples:
    >>> from wargame.engine import GameState
    >>> m, st = MemoScope(), GameState(ruleset="demo")
    >>> m.memo(st) is None
    True
    >>> with m.memo_scope(st):
    ...     m.memo(st)
    {}
    >>> m.memo(st) is None
    True
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from wargame.engine import GameState, Unit

__all__ = ["MemoScope"]


class MemoScope:
    """Mixin: a memo per state while that state is only read."""

    _memo_for: GameState | None = None
    _memo: dict[Any, Any] | None = None

    @contextmanager
    def memo_scope(self, state: GameState) -> Iterator[None]:
        """Remember answers about ``state`` until the block ends (the caller
        promises not to change ``state`` inside it)."""
        if self._memo_for is state:
            yield
            return
        prev = self._memo_for, self._memo
        self._memo_for, self._memo = state, {}
        try:
            yield
        finally:
            self._memo_for, self._memo = prev

    def memo(self, state: GameState) -> dict[Any, Any] | None:
        """The memo of ``state`` (``None`` outside a scope of that state)."""
        return self._memo if self._memo_for is state else None

    def units_in(self, state: GameState, hex_: str) -> list[Unit]:
        """Units in play in a hex (:meth:`GameState.units_at`), from an index
        of the hexes built once per scope."""
        memo = self._memo if self._memo_for is state else None
        if memo is None:
            return state.units_at(hex_)
        at = memo.get("units_at")
        if at is None:
            at = memo["units_at"] = {}
            for u in state.units.values():
                if not u.destroyed:
                    at.setdefault(u.position, []).append(u)
        return list(at.get(hex_, ()))
