"""Smoke (CoH 2e §13): markers of +2 or +1 on hexes, thinning each pre-round.

Smoke is kept in the state as ``vars["smoke"]``: a tuple of ``(hex, level)``
pairs.  Each DM of smoke is one LOS obstacle level (§13, research/coh.md §1.10):
+2 smoke blocks sight through the hex and adds +2 DM to fire that starts or
ends in it; +1 smoke does not block on its own and adds +1 DM to fire that
starts, ends or passes through it; smoke adds up.  Each pre-round +2 turns to
+1 and +1 goes (§2.0, §13).

Examples:
    >>> thinned((("G7", 2), ("H8", 1)))
    (('G7', 1),)
"""

from __future__ import annotations

from collections.abc import Iterable

from wargame.engine import RuleContext, var_change

from ._core import Mixin

__all__ = ["Smoke", "thinned"]


def thinned(smoke: Iterable[tuple[str, int]]) -> tuple[tuple[str, int], ...]:
    """Smoke after one pre-round: each marker one level lower, 0 removed."""
    return tuple((h, n - 1) for h, n in smoke if n > 1)


class Smoke(Mixin):
    """Mixin: smoke in the pre-round and in fire."""

    def smoke_levels(self, smoke: object) -> dict[str, int]:
        """Hex -> smoke level from the state's ``smoke`` var."""
        out: dict[str, int] = {}
        pairs: tuple[tuple[str, int], ...] = tuple(smoke or ())  # type: ignore[arg-type]
        for h, n in pairs:
            out[str(h)] = out.get(str(h), 0) + int(n)
        return out

    def smoke_map(self, smoke: object) -> dict[str, int]:
        """:meth:`smoke_levels`, remembered for the last ``smoke`` var seen
        (the var is an immutable tuple); the answer must only be read."""
        last = self.__dict__.get("_smoke_map")
        if last is not None and last[0] == smoke:
            return last[1]  # type: ignore[no-any-return]
        got = self.smoke_levels(smoke)
        if type(smoke) is tuple and all(type(p) is tuple for p in smoke):
            self.__dict__["_smoke_map"] = (smoke, got)  # immutable: safe to keep
        return got

    def thin_smoke(self, ctx: RuleContext) -> None:
        """Pre-round: +2 smoke thins to +1, +1 smoke clears (§2.0, §13)."""
        smoke = tuple(ctx.state.vars.get("smoke") or ())
        if not smoke:
            return
        left = thinned(smoke)
        ctx.emit(
            "round",
            detail="smoke thins (§13)",
            changes=var_change(smoke=left if left else None),
        )
