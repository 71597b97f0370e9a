"""Paying for actions: the activation pool, opportunity and command actions.

* **Unit (AP) action** (CoH 2e §3.0): a fresh unit is activated with 7 AP;
  further fresh units may share that one pool, joining on the fly (seed 003
  §9.0).  A side has one pool at a time.  When the pool is empty every unit
  that shared it is spent, even if some were destroyed.  CAPs top up a pool
  that is short, one for one (§3.2.1).
* **Opportunity action** (§3.1): fresh units not activated take one action
  free and are spent (a group opportunity action spends them all, seed 003
  §9.2).
* **Command action** (§3.2): any units, fresh, active or spent, paid wholly in
  CAPs; their status does not change (seed 003 §9.2).
* **Card** (``"card"``): the free action a Command Action card (#2) grants,
  any units, their status unchanged (S1 card list; seed 003 §8.1).

Status changes of hidden units are logged for their owner alone.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from wargame.engine import (
    GameState,
    RuleContext,
    pool_change,
    unit_change,
    var_change,
)

from ._core import AP_POOL, Mixin, status_of

__all__ = ["Activation"]


class Activation(Mixin):
    """Mixin: who may pay for an action and how; the payment as events."""

    sides: tuple[str, str]

    def pool(self, state: GameState, side: str) -> int:
        """APs left in the side's activation pool (0: no pool open)."""
        return int(state.pools.get(f"ap:{side}", 0))

    def caps(self, state: GameState, side: str) -> int:
        """The side's CAPs now (§3.2)."""
        return int(state.pools.get(f"caps:{side}", 0))

    def pay_problem(
        self, state: GameState, side: str, units: Sequence[str], pay: str, cost: int
    ) -> str | None:
        """Why ``units`` cannot pay ``cost`` this way (``None``: they can)."""
        memo = self.memo(state)
        if memo is None:
            return self._pay_problem(state, side, units, pay, cost)
        key = ("pay_problem", side, units, pay, cost)
        try:
            if key in memo:
                return memo[key]  # type: ignore[no-any-return]
        except TypeError:  # units given as a list: nothing kept
            return self._pay_problem(state, side, units, pay, cost)
        got = memo[key] = self._pay_problem(state, side, units, pay, cost)
        return got

    def _pay_problem(
        self, state: GameState, side: str, units: Sequence[str], pay: str, cost: int
    ) -> str | None:
        us = [state.units[u] for u in units]
        if pay == "ap":
            bad = [u.id for u in us if status_of(u) == "spent"]
            if bad:
                return (
                    f"{', '.join(bad)} spent: a spent unit acts only through a "
                    "command action or a card (CoH 2e §2.2, seed 003 §9.2)"
                )
            pool = self.pool(state, side)
            if pool == 0 and any(status_of(u) == "active" for u in us):
                return "the pool is empty"  # pragma: no cover - spent at 0
            have = (pool if pool > 0 else AP_POOL) + self.caps(state, side)
            if cost > have:
                return (
                    f"the action costs {cost} AP and the pool has "
                    f"{pool if pool > 0 else AP_POOL} AP + {self.caps(state, side)} "
                    "CAPs (CoH 2e §3.0, §3.2.1)"
                )
            return None
        if pay == "opportunity":
            bad = [u.id for u in us if status_of(u) != "fresh"]
            if bad:
                return (
                    f"{', '.join(bad)} not fresh: only fresh, non-activated units "
                    "take opportunity actions (CoH 2e §3.1)"
                )
            return None
        if pay == "command":
            if cost > self.caps(state, side):
                return (
                    f"a command action costing {cost} CAPs, and {side} has "
                    f"{self.caps(state, side)} (CoH 2e §3.2)"
                )
            return None
        if pay == "card":
            if not state.vars.get(f"free_action:{side}"):
                return (
                    "pay='card' is the free action of a Command Action card (#2): "
                    "play the card first (seed 003 §8.1)"
                )
            return None
        return f"unknown payment {pay!r}; use 'ap', 'opportunity', 'command' or 'card'"

    def pay(
        self,
        ctx: RuleContext,
        side: str,
        units: Sequence[str],
        pay: str,
        cost: int,
        what: str,
    ) -> None:
        """Emit the payment of an action (pools and unit status)."""
        st = ctx.state
        public: list[Any] = []
        private: list[Any] = []

        def status(uid: str, value: str) -> None:
            (private if st.units[uid].hidden else public).extend(
                unit_change(uid, status=value)
            )

        detail = what
        if pay == "ap":
            pool = self.pool(st, side)
            if pool == 0:  # a new activation (§3.0)
                pool = AP_POOL
            for uid in units:
                if status_of(st.units[uid]) == "fresh":
                    status(uid, "active")  # activated / joins the pool (§9.0)
            from_pool = min(pool, cost)
            from_caps = cost - from_pool
            left = pool - from_pool
            public += list(pool_change(f"ap:{side}", left))
            if from_caps:
                public += list(
                    pool_change(f"caps:{side}", self.caps(st, side) - from_caps)
                )
            detail = (
                f"{what}: {from_pool} AP"
                + (f" + {from_caps} CAP" if from_caps else "")
                + f", {left} AP left"
            )
            if left == 0:  # pool spent: every sharer is spent (§9.0)
                sharers = {
                    u.id
                    for u in st.units.values()
                    if u.side == side and status_of(u) == "active"
                } | set(units)
                for uid in sorted(sharers):
                    status(uid, "spent")
        elif pay == "opportunity":
            for uid in units:
                status(uid, "spent")
            detail = f"{what}: opportunity action, free, then spent (§3.1)"
        elif pay == "command":
            public += list(pool_change(f"caps:{side}", self.caps(st, side) - cost))
            detail = f"{what}: command action, {cost} CAP (§3.2)"
        elif pay == "card":
            # The Command Action card's free action: no cost, status unchanged
            # (S1 card list #2; fresh units acting through a card stay fresh,
            # seed 003 §8.1).
            public += list(var_change(**{f"free_action:{side}": None}))
            detail = f"{what}: free, the Command Action card's action (card #2)"
        self._emit_split(ctx, side, detail, public, private, "hidden units' status")

    def spend_pool(self, ctx: RuleContext, side: str, why: str) -> None:
        """Spend every activated unit and empty the pool (§2.2 pass, §3.0)."""
        st = ctx.state
        public: list[Any] = list(pool_change(f"ap:{side}", 0))
        private: list[Any] = []
        for u in st.units.values():
            if u.side == side and status_of(u) == "active":
                (private if u.hidden else public).extend(
                    unit_change(u.id, status="spent")
                )
        self._emit_split(ctx, side, why, public, private, "hidden units spent")

    @staticmethod
    def _emit_split(
        ctx: RuleContext,
        side: str,
        detail: str,
        public: list[Any],
        private: list[Any],
        private_detail: str,
    ) -> None:
        """One public ``spend`` event, and the hidden units' part for their owner."""
        ctx.emit("spend", side=side, detail=detail, changes=public)
        if private:
            ctx.emit(
                "spend",
                side=side,
                detail=private_detail,
                changes=private,
                visible_to=(side,),
            )
