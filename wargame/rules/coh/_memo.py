"""Answers remembered while one state is read and not changed: a speed-up only.

Finding the legal actions (and the players' choice among them) asks the same
questions of one state thousands of times: which units stand in a hex, which
enemy is seen there, which hexes a mortar may spot through, what a move costs.
Inside :meth:`MemoScope.memo_scope` the state is only read, so each answer is
worked out once and kept; outside a scope (while the rules apply an action and
change the state) nothing is kept.

Two memos live in a scope:

* :meth:`MemoScope.memo`: plain answers (costs, reasons, hex labels, sets of
  hexes) of questions that are functions of the state's *content* alone.  When
  the scope ends they are kept with a fingerprint of that content (every unit
  field and attribute, decks, pools, control, vars), and a later scope on a
  state of equal content (the engine hands the legal actions, the policy and
  the check each their own copy of one side's view) starts from them.  Equal
  content gives equal answers, so nothing crosses from one side's view to the
  other's: their contents differ (hidden units, secret hit markers, hands).
* the units of each hex (:meth:`MemoScope.units_in`): objects of that one
  state, never carried over.

Nested scopes on the same state share its memos.

Examples:
    >>> from wargame.engine import GameState
    >>> m, st = MemoScope(), GameState(ruleset="demo")
    >>> m.memo(st) is None
    True
    >>> with m.memo_scope(st):
    ...     m.memo(st)["answer"] = 42
    >>> m.memo(st) is None
    True
    >>> same = st.copy()  # another object, the same content: the answer is kept
    >>> with m.memo_scope(same):
    ...     m.memo(same)["answer"]
    42
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from wargame.engine import GameState, Unit

__all__ = ["MemoScope", "fingerprint"]


def fingerprint(state: GameState) -> tuple[Any, ...] | None:
    """Everything of ``state`` a rule may read, as a comparable tuple
    (``None``: a value that cannot be compared so, e.g. a list in ``vars``)."""
    try:
        units = tuple(
            (
                k,
                u.name,
                u.side,
                u.formation,
                u.type,
                u.position,
                u.strength,
                u.facing,
                u.hidden,
                u.models,
                frozenset(u.attrs.items()),
            )
            for k, u in state.units.items()
        )
        fp = (
            state.ruleset,
            state.turn,
            state.phase,
            state.seq,
            units,
            frozenset(state.decks.items()),
            frozenset(state.pools.items()),
            frozenset(state.control.items()),
            frozenset(state.vars.items()),
        )
        hash(fp)  # every part immutable (a list or dict somewhere: no)
    except TypeError:
        return None
    return fp


class MemoScope:
    """Mixin: memos per state while that state is only read."""

    _memo_for: GameState | None = None
    _memo: dict[Any, Any] | None = None
    _memo_units: dict[Any, Any] | None = None
    #: (fingerprint, plain answers) of the last scope
    _memo_last: tuple[tuple[Any, ...], dict[Any, Any]] | None = None

    @contextmanager
    def memo_scope(self, state: GameState) -> Iterator[None]:
        """Remember answers about ``state`` until the block ends (the caller
        promises not to change ``state`` inside it)."""
        if self._memo_for is state:
            yield
            return
        prev = self._memo_for, self._memo, self._memo_units
        fp = fingerprint(state)
        last = self._memo_last
        memo: dict[Any, Any] = {}
        if fp is not None and last is not None and last[0] == fp:
            memo = last[1]
        self._memo_for, self._memo, self._memo_units = state, memo, None
        try:
            yield
        finally:
            self._memo_for, self._memo, self._memo_units = prev
            if fp is not None:
                self._memo_last = (fp, memo)

    def memo(self, state: GameState) -> dict[Any, Any] | None:
        """The plain-answer memo of ``state`` (``None`` outside a scope of
        that state).  Keep in it only answers that are functions of the
        state's content (no unit objects)."""
        return self._memo if self._memo_for is state else None

    def unit_memo(self, state: GameState) -> dict[Any, Any] | None:
        """The memo of answers holding ``state``'s unit objects (``None``
        outside a scope of that state); never carried to another state."""
        if self._memo_for is not state:
            return None
        got = self._memo_units
        if got is None:
            at: dict[Any, list[Unit]] = {}
            for u in state.units.values():
                if not u.destroyed:
                    at.setdefault(u.position, []).append(u)
            got = self._memo_units = {"units_at": at}
        return got

    def units_in(self, state: GameState, hex_: str) -> list[Unit]:
        """Units in play in a hex (:meth:`GameState.units_at`), from an index
        of the hexes built once per scope."""
        got = self.unit_memo(state)
        if got is None:
            return state.units_at(hex_)
        return list(got["units_at"].get(hex_, ()))
