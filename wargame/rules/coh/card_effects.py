"""What each action card does, and when it may be played (the card list, S1
p.17; seed 003 §8, §9.2, §9.14; research/coh.md §5.3): one ``_<effect>_problem``
and one ``_do_<effect>`` per card effect, called by :mod:`.card_play`.

* Command Action (#2): the next action is free (``pay="card"``).
* Auto-Rally (#3, Follow Me!): the unit or group loses its hit markers, no roll;
  No-Rally markers stay (rally rules otherwise, §7.6).
* Rally Up! (#4): a rally roll for each unit of the unit or group, free.
* Rapid Deployment (#5): a unit or stack moves up to 2 hexes, free; not
  pinned, stunned or immobilised units, not into prohibited hexes; a
  vehicle's cargo moves with it (§17.0) and mines on the way attack (card
  text, §18.3.3): the steps are the move's own (``Movement.emit_step``).
* Battlefield Confusion (#6): one seen enemy unit on the map is spent.
* Experienced Sergeant (#7): +1d6 AP to the activated unit's pool.
* Frontline Officer (#8): the unit pays 2 AP, +1d6 CAPs.
* Seek Cover! (#11): hasty defence counters (+1 DM) on a unit or group not in
  close combat.
* Sniper Fire (#13): 1d6: the opponent loses 0/1/1/2/2/3 CAPs this round.
* Bogged Down (#20): a fresh or spent enemy vehicle is immobilised this round.
* Scout Teams (#30): hidden enemies within 2 hexes and in sight of the unit
  are revealed.
* Swift Action (#10, a bonus card): the next action does not end the turn.

Examples:
    >>> from .cards import card
    >>> label(card("auto_rally")), label(card("magnetic_mine"))
    ('#3 Auto-Rally', 'Magnetic Mine')
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from wargame.engine import (
    GameState,
    RuleContext,
    Unit,
    pool_change,
    unit_change,
    var_change,
)

from ._core import Mixin, status_of
from .actions import PlayCard, Rally
from .cards import Card

__all__ = ["CardEffects", "label"]


def label(cd: Card) -> str:
    """A card as the log names it.

    >>> from .cards import card
    >>> label(card("scout_teams"))
    '#30 Scout Teams'
    """
    return f"#{cd.number} {cd.name}" if cd.printed_number else cd.name


class CardEffects(Mixin):
    """Mixin: each card effect's legality and resolution (needs ``board``,
    ``specs``)."""

    board: Any
    specs: dict[str, Any]

    def _own(
        self, state: GameState, side: str, ids: Sequence[str], what: str
    ) -> tuple[list[Unit], str | None]:
        us = []
        for x in ids:
            u = state.units.get(x)
            if u is None or u.side != side or u.destroyed or u.hex is None:
                return [], f"{x!r} is not a unit of {side} on the map"
            us.append(u)
        if not us:
            return [], f"name the unit(s) {what}"
        return us, None

    def _enemy(
        self, state: GameState, side: str, a: PlayCard, cd: Card
    ) -> tuple[Unit | None, str | None]:
        if len(a.units) != 1 or a.hex is not None:
            return None, f"{label(cd)} is played on one enemy unit, not a group"
        u = state.units.get(a.units[0])
        # ASSUMPTION: the card may take a hidden enemy unit (card #6), but an
        # action names units and a side cannot name those it cannot see.
        if u is None or u.side == side or u.destroyed or u.hidden:
            return None, f"{a.units[0]!r} is no enemy unit {side} can see"
        if u.hex is None:
            return None, f"{u.name} is off the map (card list: not off-board units)"
        return u, None

    def _nothing(self, a: PlayCard, cd: Card) -> str | None:
        if a.units or a.hex is not None:
            return f"{label(cd)} is played on no unit or hex"
        return None

    def _command_action_problem(
        self, state: GameState, side: str, a: PlayCard, cd: Card
    ) -> str | None:
        return self._nothing(a, cd)

    def _sniper_fire_problem(
        self, state: GameState, side: str, a: PlayCard, cd: Card
    ) -> str | None:
        return self._nothing(a, cd)

    def _swift_action_problem(
        self, state: GameState, side: str, a: PlayCard, cd: Card
    ) -> str | None:
        if state.vars.get(f"swift:{side}"):
            return "a Swift Action is under way already (card #10)"
        return self._nothing(a, cd)

    def _auto_rally_problem(
        self, state: GameState, side: str, a: PlayCard, cd: Card
    ) -> str | None:
        if a.hex is not None:
            return f"{label(cd)} names no hex"
        _us, why = self._own(state, side, a.units, f"{cd.name} rallies")
        if why is not None:
            return why
        # ASSUMPTION: the rally rules hold for the cards too: no No-Rally marker,
        # no enemy in the hex (§7.6; Rally Up!'s own text: not in close combat).
        problem, _cost = self.rally_problem(state, side, Rally(tuple(a.units)))
        return None if problem is None else str(problem)

    _rally_up_problem = _auto_rally_problem

    def _seek_cover_problem(
        self, state: GameState, side: str, a: PlayCard, cd: Card
    ) -> str | None:
        us, why = self._own(state, side, a.units, "to take cover")
        if why is not None or a.hex is not None:
            return why or f"{label(cd)} names no hex"
        for u in us:
            assert u.hex is not None
            if u.attrs.get("hasty"):
                return f"{u.name} has a hasty defence counter already"
            if self.enemy_in(state, u.hex, side):
                return f"{u.name} is in close combat: no hasty defence (card #11)"
        if len(us) > 1 and not self.group_ok([u.hex for u in us if u.hex]):
            return (
                "a group needs units in the same or continuously adjacent hexes "
                "(seed 003 §9.2, §9.14)"
            )
        return None

    def _rapid_deployment_problem(
        self, state: GameState, side: str, a: PlayCard, cd: Card
    ) -> str | None:
        us, why = self._own(state, side, a.units, "to move")
        if why is not None:
            return why
        if not isinstance(a.hex, str) or a.hex not in self.board.labels:
            return f"give the hex {label(cd)} moves to"
        starts = {u.hex for u in us}
        if len(starts) > 1:
            # ASSUMPTION: a group moves from one hex to one hex here.
            return "a group on Rapid Deployment moves from one hex: name one stack"
        if len(us) > 1 and any(u.hidden for u in us):
            return "hidden units move one at a time here"
        (frm,) = starts
        assert frm is not None
        d = self.board.distance(frm, a.hex)
        if not 1 <= d <= 2:
            return f"{a.hex} is {d} hexes from {frm}: the card moves 1 or 2 hexes"
        for u in us:
            ut = self.specs[u.id].type
            m = self.marker(u)
            if u.attrs.get("carried_by"):
                return f"{u.name} is transported: it goes with its vehicle (§17.0)"
            if ut.move_cost is None:
                return f"{u.name} cannot move (CoH 2e §1.1)"
            if m is not None and (m.no_move or m.rally_only):
                return f"{u.name} is {m.name}: not pinned, stunned or immobilised units"
            if u.attrs.get("bogged") == state.turn:
                return f"{u.name} is bogged down this round (card #20)"
            if u.attrs.get("immobilised"):
                return f"{u.name} is immobilised: not immobilised units (card #5)"
            if self._path(state, u, a.hex) is None:
                return (
                    f"{u.name} has no way to {a.hex} in 2 hexes (prohibited "
                    "terrain, or an enemy hex on the way)"
                )
        return None

    def _path(self, state: GameState, u: Unit, to: str) -> tuple[str, ...] | None:
        """Up to 2 hexes to ``to``, into hexes the unit may enter (card #5),
        through no hex with a seen enemy (entering one ends a move, §7.7.3).
        ASSUMPTION: the first such way in hex order; the card gives no cost."""
        memo = self.memo(state)
        if memo is None:
            return self._path_of(state, u, to)
        key = ("card_path", u.id, u.hex, to)
        if key not in memo:
            memo[key] = self._path_of(state, u, to)
        return memo[key]  # type: ignore[no-any-return]

    def _path_of(self, state: GameState, u: Unit, to: str) -> tuple[str, ...] | None:
        frm = u.hex
        assert frm is not None
        mob = str(self.specs[u.id].type.mobility)
        mob = "foot" if mob == "none" else mob
        nb = self.board.neighbors

        def ok(x: str, y: str) -> bool:
            return self.board.move_extra(x, y, mob) is not None

        if to in nb(frm) and ok(frm, to):
            return (to,)
        for mid in sorted(nb(frm)):
            if (
                mid != to
                and to in nb(mid)
                and ok(frm, mid)
                and ok(mid, to)
                and not self.enemy_in(state, mid, u.side)
            ):
                return (mid, to)
        return None

    def _battlefield_confusion_problem(
        self, state: GameState, side: str, a: PlayCard, cd: Card
    ) -> str | None:
        u, why = self._enemy(state, side, a, cd)
        if u is not None and status_of(u) == "spent":
            return f"{u.name} is spent already"
        return why

    def _bogged_down_problem(
        self, state: GameState, side: str, a: PlayCard, cd: Card
    ) -> str | None:
        u, why = self._enemy(state, side, a, cd)
        if u is None:
            return why
        ut = self.specs[u.id].type
        if ut.kind != "vehicle" or ut.move_cost is None:
            return f"{u.name} is not a vehicle that moves (card #20)"
        if status_of(u) == "active":
            return f"{u.name} is activated: the card takes a fresh or spent vehicle"
        if u.attrs.get("bogged") == state.turn:
            return f"{u.name} is bogged down already"
        return None

    def _one_own(
        self, state: GameState, side: str, a: PlayCard, cd: Card
    ) -> tuple[Unit | None, str | None]:
        if len(a.units) != 1 or a.hex is not None:
            return None, f"{label(cd)} is played on one unit of yours"
        us, why = self._own(state, side, a.units, "")
        return (us[0] if us else None), why

    def _experienced_sergeant_problem(
        self, state: GameState, side: str, a: PlayCard, cd: Card
    ) -> str | None:
        u, why = self._one_own(state, side, a, cd)
        if u is not None and (status_of(u) != "active" or self.pool(state, side) <= 0):
            return f"{u.name} is not activated (card #7 adds APs to an activated unit)"
        return why

    def _frontline_officer_problem(
        self, state: GameState, side: str, a: PlayCard, cd: Card
    ) -> str | None:
        return self._one_own(state, side, a, cd)[1]

    _scout_teams_problem = _frontline_officer_problem

    def _do_command_action(
        self, ctx: RuleContext, side: str, a: PlayCard, cd: Card
    ) -> None:
        ctx.emit(
            "card",
            side=side,
            detail="the next action is free: pay='card' (card #2)",
            changes=var_change(**{f"free_action:{side}": True}),
        )

    def _do_swift_action(
        self, ctx: RuleContext, side: str, a: PlayCard, cd: Card
    ) -> None:
        ctx.emit(
            "card",
            side=side,
            detail="two actions in a row, the opponent's turn skipped (card #10)",
            changes=var_change(**{f"swift:{side}": True}),
        )

    def _do_sniper_fire(
        self, ctx: RuleContext, side: str, a: PlayCard, cd: Card
    ) -> None:
        enemy = self.other(side)
        (d,) = ctx.roll(1, kind="card", side=side, detail="Sniper Fire: 1d6")
        loss = min(int(cd.d6_table[d - 1]), self.caps(ctx.state, enemy))
        ctx.emit(
            "caps",
            side=enemy,
            result=f"-{loss}",
            detail=f"{enemy} loses {loss} CAP this round (card #13)",
            changes=pool_change(f"caps:{enemy}", self.caps(ctx.state, enemy) - loss),
        )

    def _do_auto_rally(
        self, ctx: RuleContext, side: str, a: PlayCard, cd: Card
    ) -> None:
        for uid in a.units:
            self.reveal_marker(ctx, ctx.state.units[uid], "always")  # shown (§7.6)
            self.remove_marker(
                ctx, ctx.state.units[uid], "rallies without a roll (card #3)"
            )

    def _do_rally_up(self, ctx: RuleContext, side: str, a: PlayCard, cd: Card) -> None:
        self.rally_rolls(ctx, side, tuple(a.units))

    def _do_seek_cover(
        self, ctx: RuleContext, side: str, a: PlayCard, cd: Card
    ) -> None:
        for uid in a.units:
            ctx.emit(
                "card",
                side=side,
                unit=uid,
                result="hasty defence",
                detail="a hasty defence counter, +1 DM (card #11, §18.1.3)",
                changes=unit_change(uid, hasty=True),
            )

    def _do_battlefield_confusion(
        self, ctx: RuleContext, side: str, a: PlayCard, cd: Card
    ) -> None:
        (uid,) = a.units
        ctx.emit(
            "spend",
            side=ctx.state.units[uid].side,
            unit=uid,
            detail="marked spent by Battlefield Confusion (card #6)",
            changes=unit_change(uid, status="spent"),
        )

    def _do_bogged_down(
        self, ctx: RuleContext, side: str, a: PlayCard, cd: Card
    ) -> None:
        (uid,) = a.units
        ctx.emit(
            "card",
            side=ctx.state.units[uid].side,
            unit=uid,
            result="bogged down",
            detail="immobilised until the round ends (card #20)",
            # the round number: it comes off when the round ends (card #20)
            changes=unit_change(uid, bogged=ctx.state.turn),
        )

    def _do_experienced_sergeant(
        self, ctx: RuleContext, side: str, a: PlayCard, cd: Card
    ) -> None:
        (d,) = ctx.roll(1, kind="card", side=side, detail="Experienced Sergeant: 1d6")
        pool = self.pool(ctx.state, side) + d
        ctx.emit(
            "card",
            side=side,
            result=f"+{d} AP",
            detail=f"the pool has {pool} AP (card #7)",
            changes=pool_change(f"ap:{side}", pool),
        )

    def _do_frontline_officer(
        self, ctx: RuleContext, side: str, a: PlayCard, cd: Card
    ) -> None:
        (d,) = ctx.roll(1, kind="card", side=side, detail="Frontline Officer: 1d6")
        caps = self.caps(ctx.state, side) + d
        ctx.emit(
            "caps",
            side=side,
            result=f"+{d} CAP",
            detail=f"{side} has {caps} CAP (card #8)",
            changes=pool_change(f"caps:{side}", caps),
        )

    def _do_scout_teams(
        self, ctx: RuleContext, side: str, a: PlayCard, cd: Card
    ) -> None:
        st = ctx.state
        u = st.units[a.units[0]]
        assert u.hex is not None
        found = [
            x
            for x in sorted(st.units.values(), key=lambda x: x.id)
            if x.side != side
            and x.hidden
            and not x.destroyed
            and x.hex is not None
            and self.board.distance(u.hex, x.hex) <= 2
            and self.sight(st, u.hex, x.hex).clear
        ]
        self.reveal(ctx, found, "is found by Scout Teams (card #30)")
        ctx.emit(
            "card",
            side=side,
            result=f"{len(found)} revealed",
            detail="hidden enemies within 2 hexes in sight revealed (card #30)",
        )

    def _do_rapid_deployment(
        self, ctx: RuleContext, side: str, a: PlayCard, cd: Card
    ) -> None:
        """Each unit steps along its way (the move's own step, with its cargo,
        §17.0; mines on the way attack, card #5 and §18.3.3)."""
        st = ctx.state
        assert a.hex is not None
        self.lose_hasty(ctx, a.units, "moves")  # §18.1.3 (hasty.py)
        for uid in a.units:
            for h in self._path(st, st.units[uid], a.hex) or ():
                frm = st.units[uid].hex
                assert frm is not None
                hidden = st.units[uid].hidden
                self.emit_step(
                    ctx,
                    side,
                    uid,
                    h,
                    self.board.direction(frm, h),
                    "Rapid Deployment, hidden (card #5)"
                    if hidden
                    else "Rapid Deployment (card #5)",
                )
                if st.units[uid].destroyed or self.enemy_in(st, h, side):
                    break
