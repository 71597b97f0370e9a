"""Hidden units, re-hiding, snipers' detection, and what each move reveals
(seed 003 §10.0-10.3), with hex control (CoH 2e §2.5.2).

A hidden unit is a :class:`~wargame.engine.Unit` with ``hidden=True``: its hex
is in the state, and the engine's per-side views leave it out for the enemy.
Everything about it (moves, status, the dice against it when nothing is
revealed) is logged for its owner alone.  It is revealed, with every hidden
unit of its side in the same hex (seed 003 §10.0):

1. when it takes any action but a hidden move (a sniper's fire excepted,
   §10.3; stalling too under the June 2012 printing, a rule option);
2. when a non-hidden unit, friend or foe, is in its hex;
3. when it is fired on and hit (:mod:`.fire`);
4. when an enemy unit with a clear LOS moves within 2 hexes of it in open
   terrain, or into its hex in covering terrain.

A revealed unit's facing is decided then.  ASSUMPTION: it faces the nearest
enemy unit it can see (its owner's choice, made for him).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from wargame.engine import GameState, RuleContext, Unit, control_change, unit_change

from ._core import HIDE_COST, Mixin
from .actions import Hide

__all__ = ["Hidden"]


class Hidden(Mixin):
    """Mixin: hiding and revealing (needs ``board``, ``specs``)."""

    board: Any
    specs: dict[str, Any]
    sides: tuple[str, str]

    # -- shared queries --------------------------------------------------- #
    def enemy_in(self, state: GameState, hex_: str, side: str) -> list[Unit]:
        """Non-hidden enemy units in a hex."""
        memo = self.unit_memo(state)  # unit objects: this state's own memo
        if memo is None:
            return [u for u in state.units_at(hex_) if u.side != side and not u.hidden]
        key = ("enemy_in", hex_, side)
        got = memo.get(key)
        if got is None:
            got = memo[key] = tuple(
                u for u in self.units_in(state, hex_) if u.side != side and not u.hidden
            )
        return list(got)

    def sight(self, state: GameState, a: str, b: str) -> Any:
        """The rulebook LOS between two hexes, smoke included (§6.0, §13)."""
        smoke = state.vars.get("smoke")
        if smoke:
            return self.board.smoke_los(a, b, self.smoke_map(smoke))
        return self.board.los(a, b)

    def sight_fan(
        self, state: GameState, origin: str, facing: int | None, radius: int
    ) -> frozenset[str]:
        """The hexes within ``radius`` of ``origin`` in clear :meth:`sight`
        of it and, with a ``facing``, in that arc of fire (§6.0, §6.1, §13).

        Only the board and the smoke decide it, so it is kept per board and
        smoke (never per unit: hidden units play no part in it)."""
        smoke = state.vars.get("smoke") or ()
        key: tuple[Any, ...] | None = (origin, facing, radius, smoke)
        fans = self.board._fans
        try:
            got: frozenset[str] | None = fans.get(key)
        except TypeError:  # unhashable smoke: work it out each time
            key, got = None, None
        if got is None:
            arc = self.board.in_arc
            got = frozenset(
                h
                for h in self.board.within(origin, radius)
                if (facing is None or arc(origin, facing, h))
                and self.sight(state, origin, h).clear
            )
            if key is not None:
                if len(fans) > 20000:
                    fans.clear()
                fans[key] = got
        return got

    def seen_by_enemy(self, state: GameState, hex_: str, side: str) -> bool:
        """Whether any enemy unit on the map has a clear LOS to ``hex_``."""
        memo = self.memo(state)
        if memo is None:
            return self._seen_by_enemy(state, hex_, side)
        key = ("seen_by_enemy", hex_, side)
        got = memo.get(key)
        if got is None:
            got = memo[key] = self._seen_by_enemy(state, hex_, side)
        return bool(got)

    def _seen_by_enemy(self, state: GameState, hex_: str, side: str) -> bool:
        for u in state.units.values():
            if u.side == side or u.destroyed or u.hex is None or u.hidden:
                continue
            if u.hex == hex_ or self.sight(state, u.hex, hex_).clear:
                return True
        return False

    def suspected(self, state: GameState, side: str, hex_: str) -> bool:
        """Whether ``side`` may fire at ``hex_`` hoping to hit hidden enemies
        (seed 003 §10.0 #3), from what it knows: the enemy has hidden units, and
        one could be in this hex without having been revealed already (a cover
        hex, or an open hex not within 2 hexes of one of ``side``'s units)."""
        memo = self.memo(state)
        if memo is None:
            return self._suspected(state, side, hex_)
        key = ("suspected", side, hex_)
        got = memo.get(key)
        if got is None:
            got = memo[key] = self._suspected(state, side, hex_)
        return bool(got)

    def _suspected(self, state: GameState, side: str, hex_: str) -> bool:
        if int(state.vars.get(f"hidden_count:{self.other(side)}", 0)) <= 0:
            return False
        if any(u.side == side for u in self.units_in(state, hex_)):
            return False
        if self.board.cover(hex_):
            return True
        memo = self.memo(state)
        if memo is not None:
            key = ("watched", side)
            watched = memo.get(key)
            if watched is None:  # what side's units see within 2 hexes
                watched = memo[key] = frozenset().union(
                    *(
                        self.sight_fan(state, u.hex, None, 2)
                        for u in state.units.values()
                        if u.side == side and not u.destroyed and u.hex is not None
                    )
                )
            return hex_ not in watched
        return not any(
            u.side == side
            and not u.destroyed
            and u.hex is not None
            and self.board.distance(u.hex, hex_) <= 2
            and self.sight(state, u.hex, hex_).clear
            for u in state.units.values()
        )

    def other(self, side: str) -> str:
        """The enemy side."""
        return self.sides[1] if self.sides[0] == side else self.sides[0]

    # -- revealing -------------------------------------------------------- #
    def _facing_on_reveal(self, state: GameState, u: Unit) -> int:
        assert u.hex is not None
        best: tuple[int, str] | None = None
        for e in state.units.values():
            if e.side == u.side or e.destroyed or e.hex is None or e.hidden:
                continue
            d = self.board.distance(u.hex, e.hex)
            if d and (best is None or (d, e.hex) < best):
                best = (d, e.hex)
        if best is None:
            return int(self.specs[u.id].facing or 0)
        return self._face_towards(u.hex, best[1])

    def _face_towards(self, frm: str, to: str) -> int:
        """The hexside whose arc holds ``to`` best (the first that has it)."""
        for f in range(6):
            if to in self.board.front_hexes(frm, f):
                return f
        for f in range(6):
            if self.board.in_arc(frm, f, to):
                return f
        return 0

    def reveal(self, ctx: RuleContext, units: Sequence[Unit], why: str) -> None:
        """Put hidden units on the map (one public event each)."""
        st = ctx.state
        for u in units:
            if not st.units[u.id].hidden:
                continue
            facing = self._facing_on_reveal(st, st.units[u.id])
            left = int(st.vars.get(f"hidden_count:{u.side}", 0)) - 1
            ctx.emit(
                "revealed",
                side=u.side,
                unit=u.id,
                hex_to=u.hex,
                result="revealed",
                detail=f"{u.name} {why}",
                changes=(
                    *unit_change(u.id, hidden=False, facing=facing),
                    ("var", f"hidden_count:{u.side}", None, max(left, 0)),
                ),
            )

    def reveal_hex(self, ctx: RuleContext, hex_: str, side: str, why: str) -> None:
        """Reveal every hidden unit of ``side`` in a hex (seed 003 §10.0)."""
        st = ctx.state
        self.reveal(
            ctx, [u for u in st.units_at(hex_) if u.hidden and u.side == side], why
        )

    def reveal_actors(self, ctx: RuleContext, ids: Sequence[str], why: str) -> None:
        """Reveal hidden units that act in the open, and their hexmates (#1)."""
        st = ctx.state
        for uid in ids:
            u = st.units[uid]
            if u.hidden and u.hex is not None:
                self.reveal_hex(ctx, u.hex, u.side, f"{why} (seed 003 §10.0 #1)")

    def after_move(self, ctx: RuleContext, uid: str) -> None:
        """Reveals a move causes (#2, #4), then hex control (§2.5.2)."""
        st = ctx.state
        u = st.units[uid]
        if u.destroyed or u.hex is None:
            return
        h = u.hex
        if not u.hidden:
            # (2) a non-hidden unit in a hex reveals the hidden ones there.
            for side in self.sides:
                if any(x.hidden and x.side == side for x in st.units_at(h)):
                    self.reveal_hex(
                        ctx,
                        h,
                        side,
                        "shares its hex with a unit in the open (seed 003 §10.0 #2)",
                    )
            # (4) an enemy moving near: within 2 hexes in sight (open) / into the hex.
            for x in list(st.units.values()):
                if not x.hidden or x.side == u.side or x.destroyed or x.hex is None:
                    continue
                if self.board.cover(x.hex):
                    continue  # cover: only entering the hex reveals (done above)
                if (
                    self.board.distance(h, x.hex) <= 2
                    and self.sight(st, h, x.hex).clear
                ):
                    self.reveal_hex(
                        ctx,
                        x.hex,
                        x.side,
                        "is spotted: an enemy "
                        "came within 2 hexes in sight (seed 003 §10.0 #4)",
                    )
        else:
            # A hidden unit moving into the open near an enemy in sight (§10.1).
            if not self.board.cover(h) and any(
                e.side != u.side
                and not e.destroyed
                and e.hex is not None
                and not e.hidden
                and self.board.distance(e.hex, h) <= 2
                and self.sight(st, e.hex, h).clear
                for e in st.units.values()
            ):
                self.reveal_hex(
                    ctx,
                    h,
                    u.side,
                    "moved into the open near the enemy (seed 003 §10.1)",
                )
            elif any(not x.hidden for x in st.units_at(h)):
                self.reveal_hex(
                    ctx,
                    h,
                    u.side,
                    "shares its hex with a unit in the open (seed 003 §10.0 #2)",
                )
        self._control(ctx, h)

    def _control(self, ctx: RuleContext, h: str) -> None:
        """Control passes when an opposing ground unit is the sole occupier
        (§2.5.2); trucks and wagons never claim it.  ASSUMPTION: a hidden unit
        does not claim a hex until it is revealed."""
        st = ctx.state
        if h not in self.objective_hexes:
            return
        here = [u for u in st.units_at(h) if not u.hidden]
        sides = {u.side for u in here}
        if len(sides) != 1:
            return
        (side,) = sides
        if st.control.get(h) == side:
            return
        if all(self.no_cap_loss(u.id) for u in here):
            return
        ctx.emit(
            "control",
            side=side,
            hex_to=h,
            result=side,
            detail=f"{side} takes {h} (§2.5.2)",
            changes=control_change(h, side),
        )

    # -- hiding again ------------------------------------------------------ #
    def hide_problem(
        self, state: GameState, side: str, a: Hide
    ) -> tuple[str | None, int]:
        """Why a re-hide is illegal (``None``) and its cost (7 AP, seed 003 §10.2)."""
        us = [state.units.get(x) for x in a.units]
        if not us or any(
            u is None or u.side != side or u.destroyed or u.hex is None for u in us
        ):
            return f"{side} hides only its own units on the map", 0
        if a.to not in self.board.labels:
            return f"{a.to!r} is not a hex of the map", 0
        for u in us:
            assert u is not None and u.hex is not None
            if u.hidden:
                return f"{u.name} is hidden already", 0
            if not self.specs[u.id].type.unburdened:
                return f"{u.name} may not hide: squads only (seed 003 §10.2)", 0
            if u.attrs.get("marked"):
                return f"{u.name} has a hit marker: only un-hit squads hide (§10.2)", 0
            if self.seen_by_enemy(state, u.hex, side):
                return f"{u.name} at {u.hex} is in enemy sight (seed 003 §10.2)", 0
            if self.board.distance(u.hex, a.to) > 1:
                return f"{a.to} is more than 1 hex from {u.name} (seed 003 §10.2)", 0
        if self.seen_by_enemy(state, a.to, side):
            return f"{a.to} is in enemy sight (seed 003 §10.2)", 0
        if any(x.side != side for x in state.units_at(a.to)):
            return f"{a.to} holds enemy units", 0
        if len(us) > 1 and not self.group_ok([u.hex for u in us if u and u.hex]):
            return "a group hide needs contiguous units (seed 003 §9.14)", 0
        return None, HIDE_COST

    def hide_options(self, state: GameState, side: str, pays: Any) -> list[Hide]:
        """Each single squad that may hide, into each hex it may hide in."""
        out: list[Hide] = []
        for u in state.units.values():
            if u.side != side or u.destroyed or u.hex is None or u.hidden:
                continue
            if not self.specs[u.id].type.unburdened or u.attrs.get("marked"):
                continue
            if u.attrs.get("carried_by"):
                continue  # transported units do not hide (.vehicles)
            modes = pays(state, side, (u.id,))
            for to in [u.hex, *self.board.neighbors(u.hex)]:
                if not modes:
                    continue
                # the problem of a hide does not depend on the payment
                probe = Hide((u.id,), to)
                problem, cost = self.hide_problem(state, side, probe)
                if problem is not None:
                    continue
                for pay in modes:
                    a = probe if pay == "ap" else Hide((u.id,), to, pay)
                    if self.pay_problem(state, side, a.units, pay, cost) is None:
                        out.append(a)
        return out

    def do_hide(self, ctx: RuleContext, side: str, a: Hide) -> None:
        """Pay, take the squads off the map, write their new hex down."""
        st = ctx.state
        problem, cost = self.hide_problem(st, side, a)
        assert problem is None, problem
        self.pay(ctx, side, a.units, a.pay, cost, "hide")
        self.lose_hasty(ctx, a.units, "hides")  # ASSUMPTION (fortifications.py)
        n = int(st.vars.get(f"hidden_count:{side}", 0))
        for uid in a.units:
            n += 1
            # The counter leaves the map in sight of all: the event says so but,
            # like every event the enemy sees, names no hidden unit.
            ctx.emit(
                "hide",
                side=side,
                result="hidden",
                detail=f"{st.units[uid].name} hides (seed 003 §10.2)",
                changes=(
                    *unit_change(uid, hidden=True),
                    ("var", f"hidden_count:{side}", None, n),
                ),
            )
            ctx.emit(
                "hide",
                side=side,
                unit=uid,
                hex_to=a.to,
                detail="its new hex, written down",
                visible_to=(side,),
                changes=unit_change(uid, position=a.to, facing=None),
            )

    # -- snipers ------------------------------------------------------------ #
    def detection_check(self, ctx: RuleContext, sniper: Unit) -> None:
        """After a hidden sniper fires, the enemy rolls 1d6: 6 or more detects
        it (seed 003 §10.3).  ASSUMPTION: no CAPs are added to the roll (the
        seed allows it; the engine's players do not yet bid for it)."""
        enemy = self.other(sniper.side)
        (d,) = ctx.roll(
            1,
            kind="detection",
            side=enemy,
            needed=6,
            detail="detection check for a hidden sniper (seed 003 §10.3)",
        )
        if d >= 6:
            u = ctx.state.units[sniper.id]
            assert u.hex is not None
            self.reveal_hex(ctx, u.hex, u.side, "is detected (seed 003 §10.3)")
