"""Movement: one hex per action, facing, pivots, group moves, reinforcements,
hidden movement and close combat by entering an enemy hex.

* Foot units pay their move cost plus the terrain's extra AP of the hex entered
  (CoH 2e §5.0; road to road negates it, §5.0.1; uphill +1 per level and steep
  hexsides, §11.0-11.1: all in :meth:`CohBoard.move_extra`).
* A unit moves forward into its three front hexes; entering one of the three
  flank hexes is a backwards move, +1 AP, facing kept (§5.1-5.2).  Facing may
  change freely on entering a hex (§5.1); pivoting in place costs 1 AP (§5.3).
* Vehicles move like foot units and may go on free into further hexes with
  their bonus-move symbols (§14.1), carrying their riders (§17.0), and check
  for immobilisation in "!" terrain (§14.5): the rules are in
  :mod:`.vehicles` and :mod:`.transport`.
* Units in the same or continuously adjacent hexes move as a group, each to its
  own hex, paying the highest cost of any one of them (seed 003 §9.11).
* Reinforcements enter at their entry hexes from the round they arrive (§5.5).
* Hidden squads move hidden for +3 AP into cover, +6 AP into the open, every
  other move modifier ignored (seed 003 §10.1).
* Entering a hex held by the enemy starts close combat (§7.7.3).
* A unit that moves or pivots loses its hasty defence counter (research/coh.md
  §1.11, CoH 2e §18.1.3); a vehicle Bogged Down by card #20 may not
  move or pivot this round (S1 card list).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from wargame.engine import GameState, RuleContext, Unit, unit_change

from ._core import BACKWARDS_AP, HIDDEN_MOVE_COVER, HIDDEN_MOVE_OPEN, PIVOT_AP, Mixin
from .actions import Move, Pivot

__all__ = ["Movement"]


class Movement(Mixin):
    """Mixin: the move and pivot rules (needs ``board``, ``specs``)."""

    board: Any
    specs: dict[str, Any]

    # -- costs ------------------------------------------------------------ #
    def _mobility(self, uid: str) -> str:
        mob = str(self.specs[uid].type.mobility)
        return "foot" if mob == "none" else mob

    def step_cost(
        self, state: GameState, uid: str, to: str, *, hidden: bool = False
    ) -> tuple[int | None, str]:
        """AP for unit ``uid`` to enter neighbour ``to``, and why (``None``:
        it may not)."""
        memo = self.memo(state)
        if memo is None:
            return self._step_cost(state, uid, to, hidden)
        key = ("step_cost", uid, to, hidden)
        try:
            got = memo.get(key)
        except TypeError:  # an unhashable hex: nothing kept
            return self._step_cost(state, uid, to, hidden)
        if got is None:
            got = memo[key] = self._step_cost(state, uid, to, hidden)
        return got

    def _step_cost(
        self, state: GameState, uid: str, to: str, hidden: bool
    ) -> tuple[int | None, str]:
        u = state.units[uid]
        ut = self.specs[uid].type
        m = self.marker(u)
        if ut.move_cost is None:
            return None, f"{u.name} cannot move (CoH 2e §1.1)"
        if m is not None and (m.no_move or m.rally_only):
            return None, f"{u.name} is {m.name}: no move (CoH 2e §7.5)"
        if u.attrs.get("bogged") == state.turn:
            return None, f"{u.name} is bogged down this round (card #20)"
        base = int(ut.move_cost) + (int(m.move_ap) if m is not None else 0)
        bar = self.obstacle_bar(state, uid, to)  # wire, road blocks, trenches (§18)
        if bar is not None:
            return None, bar
        frm = u.hex
        if frm is None:  # a reinforcement entering (§5.5)
            entry = tuple(u.attrs.get("entry", ()))
            if to not in entry:
                return None, f"{u.name} enters at {', '.join(entry)} (§5.5)"
            extras = [
                self.board.move_extra(n, to, self._mobility(uid))
                for n in self.board.neighbors(to)
            ]
            ok = [e for e in extras if e is not None]
            if not ok:
                return None, f"{u.name} cannot enter {to}"
            # ASSUMPTION: entering from off the map costs the unit's move cost and
            # the cheapest way into the entry hex from any of its neighbours.
            return base + int(min(ok)), "enters"
        if to not in self.board.neighbors(frm):
            return None, f"{to} is not next to {frm}: one hex per move (CoH 2e §5.0)"
        if hidden:
            if not u.hidden:
                return None, f"{u.name} is not hidden (seed 003 §10.1)"
            if self.board.move_extra(frm, to, self._mobility(uid)) is None:
                return None, f"{u.name} cannot enter {to}"
            add = HIDDEN_MOVE_COVER if self.board.cover(to) else HIDDEN_MOVE_OPEN
            return base + add, "hidden move (seed 003 §10.1)"
        extra = self.board.move_extra(frm, to, self._mobility(uid))
        if extra is None:
            kind = self.board.terrain[to].replace("_", " ")
            return None, f"{u.name} may not enter {to} ({kind}; CoH 2e §4.0, §11.1)"
        cost = base + int(extra)
        if u.facing is not None and to not in self.board.front_hexes(frm, u.facing):
            cost += BACKWARDS_AP  # §5.2
        return cost, "moves"

    def _is_backwards(self, u: Unit, to: str) -> bool:
        return (
            u.hex is not None
            and u.facing is not None
            and to not in self.board.front_hexes(u.hex, u.facing)
        )

    # -- legality --------------------------------------------------------- #
    def move_problem(
        self, state: GameState, side: str, a: Move
    ) -> tuple[str | None, int]:
        """Why a move is illegal (``None``) and its AP cost."""
        memo = self.memo(state)
        if memo is None:
            return self._move_problem(state, side, a)
        key = ("move_problem", side, a)
        try:
            got = memo.get(key)
        except TypeError:  # an unhashable field: nothing kept
            return self._move_problem(state, side, a)
        if got is None:
            got = memo[key] = self._move_problem(state, side, a)
        return got

    def _move_problem(
        self, state: GameState, side: str, a: Move
    ) -> tuple[str | None, int]:
        units = [state.units.get(x) for x in a.units]
        if not a.units or any(u is None for u in units):
            return "no such unit", 0
        us = [u for u in units if u is not None]
        if any(u.side != side or u.destroyed for u in us):
            return f"{side} moves only its own units in play", 0
        if len(set(a.units)) != len(a.units):
            return "a unit is named twice", 0
        dests = (
            a.to if len(a.to) == len(us) else a.to * len(us) if len(a.to) == 1 else ()
        )
        if not dests:
            return "give one hex for all the units, or one per unit", 0
        if a.facing is not None and not (
            isinstance(a.facing, int) and 0 <= a.facing <= 5
        ):
            return f"facing {a.facing!r} is not a hexside 0-5 (§5.1)", 0
        if len(us) > 1:
            where = [u.hex for u in us]
            if any(h is None for h in where):
                return "reinforcements enter one at a time", 0
            if not self.group_ok([h for h in where if h is not None]):
                return (
                    "a group move needs units in the same or continuously adjacent "
                    "hexes (seed 003 §9.11, §9.2)"
                ), 0
            if a.hidden:
                return "hidden units move one at a time here", 0
        if a.then and (len(us) > 1 or not self.specs[us[0].id].type.bonus_moves):
            return "only a single vehicle makes bonus moves (CoH 2e §14.1)", 0
        worst = 0
        for u, to in zip(us, dests, strict=True):
            if u.hex is None and int(u.attrs.get("arrives", 1)) > state.turn:
                return f"{u.name} arrives in round {u.attrs.get('arrives')} (§5.5)", 0
            if a.hidden and u.hex is None:
                return "reinforcements enter in sight", 0
            cost, why = self.step_cost(state, u.id, to, hidden=a.hidden)
            if cost is None:
                return why, 0
            retreat = self.retreat_problem(state, u, to)  # §7.7.3 (cc_retreat.py)
            if retreat is not None:
                return retreat, 0
            worst = max(worst, cost)
        if a.then:
            problem = self.bonus_problem(state, us[0], dests[0], a.then)
            if problem:
                return problem, 0
            worst += self.bonus_cost(us[0], dests[0], a.then)  # uphill (§14.2)
        return None, worst

    def group_ok(self, hexes: Sequence[str]) -> bool:
        from ._core import contiguous

        return contiguous(hexes, self.board.neighbors)

    def move_options(self, state: GameState, side: str, pays: Any) -> list[Move]:
        """Single moves to each neighbour, stack moves, hidden moves, bonus moves."""
        out: list[Move] = []
        mine = [u for u in state.units.values() if u.side == side and not u.destroyed]
        stacks: dict[str, list[str]] = {}
        for u in mine:
            if u.attrs.get("carried_by"):
                continue  # it moves with its vehicle (§17.0)
            if u.hex is None:
                if int(u.attrs.get("arrives", 1)) <= state.turn:
                    for h in u.attrs.get("entry", ()):
                        out += self._paid(state, side, pays, (u.id,), (h,))
                continue
            stacks.setdefault(u.hex, []).append(u.id)
            for to in self.board.neighbors(u.hex):
                if u.hidden:  # hidden, or in the open and so revealed (§10.0 #1)
                    out += self._paid(state, side, pays, (u.id,), (to,), hidden=True)
                out += self._paid(state, side, pays, (u.id,), (to,))
                out += self._bonus_moves(state, side, pays, u, to)
        for h, ids in sorted(stacks.items()):
            # a stack moves in the open: its hidden units are revealed
            if len(ids) < 2:
                continue
            for to in self.board.neighbors(h):
                out += self._paid(state, side, pays, tuple(sorted(ids)), (to,))
        return out

    def _bonus_moves(
        self, state: GameState, side: str, pays: Any, u: Unit, to: str
    ) -> list[Move]:
        """The move into ``to`` with each run of bonus moves (§14.1); the paths
        are legal by construction, only their cost is added."""
        paths = self.bonus_paths(state, u, to)
        if not paths:
            return []
        problem, cost = self.move_problem(state, side, Move((u.id,), (to,)))
        if problem is not None:
            return []
        modes = pays(state, side, (u.id,))
        memo = self.memo(state)
        out = []
        for then in paths:
            total = cost + self.bonus_cost(u, to, then)
            for pay in modes:
                if self.pay_problem(state, side, (u.id,), pay, total) is None:
                    a = Move((u.id,), (to,), pay, None, False, then)
                    out.append(a)
                    if memo is not None:  # what move_problem finds for it
                        memo[("move_problem", side, a)] = (None, total)
        return out

    def _paid(
        self,
        state: GameState,
        side: str,
        pays: Any,
        units: tuple[str, ...],
        to: tuple[str, ...],
        *,
        hidden: bool = False,
        then: tuple[str, ...] = (),
    ) -> list[Move]:
        probe = Move(units, to, "ap", None, hidden, then)
        problem, cost = self.move_problem(state, side, probe)
        if problem is not None:
            return []
        return [
            probe if pay == "ap" else Move(units, to, pay, None, hidden, then)
            for pay in pays(state, side, units)
            if self.pay_problem(state, side, units, pay, cost) is None
        ]

    def pivot_problem(
        self, state: GameState, side: str, a: Pivot
    ) -> tuple[str | None, int]:
        """Why a pivot is illegal, and its cost (1 AP, §5.3)."""
        if not isinstance(a.facing, int) or not 0 <= a.facing <= 5:
            return f"facing {a.facing!r} is not a hexside 0-5 (§5.1)", 0
        us = [state.units.get(x) for x in a.units]
        if not us or any(u is None or u.side != side or u.destroyed for u in us):
            return f"{side} pivots only its own units in play", 0
        cost = PIVOT_AP
        for u in us:
            assert u is not None
            if u.hex is None or u.hidden:
                return f"{u.name} has no facing to change (seed 003 §10.0)", 0
            if u.facing == a.facing:
                return f"{u.name} already faces {a.facing}", 0
            m = self.marker(u)
            if m is not None and (m.no_move or m.rally_only):
                return f"{u.name} is {m.name}: no pivot (§7.5)", 0
            if u.attrs.get("bogged") == state.turn:
                return f"{u.name} is bogged down this round (card #20)", 0
            if m is not None:
                cost = max(cost, PIVOT_AP + int(m.move_ap))
            cost = max(cost, self.bunker_exit_cost(state, u))  # §18.2 (bunkers.py)
        if len(us) > 1 and not self.group_ok([u.hex for u in us if u and u.hex]):
            return "a group pivot needs contiguous units (seed 003 §9.2)", 0
        return None, cost

    def pivot_options(self, state: GameState, side: str, pays: Any) -> list[Pivot]:
        """A pivot of each single unit to each other hexside."""
        out = []
        for u in state.units.values():
            if u.side != side or u.destroyed or u.hex is None or u.hidden:
                continue
            modes = pays(state, side, (u.id,))
            for f in range(6):
                if not modes:
                    continue
                # the problem of a pivot does not depend on the payment
                probe = Pivot((u.id,), f)
                problem, cost = self.pivot_problem(state, side, probe)
                if problem is not None:
                    continue
                for pay in modes:
                    a = probe if pay == "ap" else Pivot((u.id,), f, pay)
                    if self.pay_problem(state, side, a.units, pay, cost) is None:
                        out.append(a)
        return out

    # -- resolution ------------------------------------------------------- #
    def do_move(self, ctx: RuleContext, side: str, a: Move) -> None:
        """Pay, move each unit (and its bonus hexes), reveal and take control."""
        st = ctx.state
        problem, cost = self.move_problem(st, side, a)
        assert problem is None, problem
        if not a.hidden:
            self.reveal_actors(ctx, a.units, "moves in the open")
        paid = self.obstacle_roll(ctx, side, a, cost)  # wire, road blocks (§18.3)
        if paid is None:
            return
        self.pay(ctx, side, self.with_riders(st, a.units), a.pay, paid, "move")
        self.lose_hasty(ctx, a.units, "moves")  # §18.1.3 (hasty.py)
        dests = a.to if len(a.to) == len(a.units) else a.to * len(a.units)
        known = {  # enemy hexes a vehicle may drive through (§14.3)
            x.hex
            for x in st.units.values()
            if x.side != side and not x.hidden and not x.destroyed
        }
        for uid, to in zip(a.units, dests, strict=True):
            u = st.units[uid]
            path = (to, *a.then)
            for h in path:
                frm = u.hex
                facing: int | None
                if frm is None:
                    facing = (
                        a.facing if a.facing is not None else self._entry_facing(u, h)
                    )
                elif a.facing is not None and h == path[-1]:
                    facing = a.facing
                elif self._is_backwards(u, h):
                    facing = u.facing
                else:
                    facing = self.board.direction(frm, h)
                self.emit_step(
                    ctx,
                    side,
                    uid,
                    h,
                    facing,
                    "enters the map (§5.5)" if frm is None else "",
                    unit_change(uid, arrives=None, entry=None) if frm is None else (),
                )
                if st.units[uid].destroyed:
                    break
                if self.immobilisation_roll(ctx, uid, frm):  # §14.5
                    break
                if st.units[uid].destroyed or (
                    self.enemy_in(st, h, side) and (h == path[-1] or h not in known)
                ):
                    break

    def emit_step(
        self,
        ctx: RuleContext,
        side: str,
        uid: str,
        h: str,
        facing: int | None,
        detail: str = "",
        extra: tuple[Any, ...] = (),
    ) -> None:
        """One unit's step into ``h``, for moves and cards alike: the move
        event (a hidden unit's seen by its side alone, seed 003 §10.1) with
        its cargo moving and facing with it (§17.0) and ``extra`` changes,
        then what entering sets off (control, trenches, bunkers, wire, mines,
        §18; the close-combat retreat mark, §7.7.3). Hasty defences are lost
        before, by the caller (``lose_hasty``, §18.1.3)."""
        st = ctx.state
        u = st.units[uid]
        frm = u.hex
        if u.hidden:
            ctx.emit(
                "hidden_move",
                side=side,
                unit=uid,
                hex_from=frm,
                hex_to=h,
                detail=detail or "hidden move (seed 003 §10.1)",
                changes=unit_change(uid, position=h) + extra,
                visible_to=(side,),
            )
        else:
            ctx.emit(
                "move",
                side=side,
                unit=uid,
                hex_from=frm,
                hex_to=h,
                detail=detail,
                changes=unit_change(uid, position=h, facing=facing)
                + extra
                + self.cargo_changes(st, uid, position=h, facing=facing),
            )
        self.after_move(ctx, uid)
        self.on_enter(ctx, uid, h, frm)  # forts, mines, CC (§18, §7.7.3)

    def _entry_facing(self, u: Unit, h: str) -> int:
        """ASSUMPTION: a reinforcement faces the scenario facing of its side's
        units, else the way into the map from its edge (towards the map's centre)."""
        sp = self.specs[u.id]
        if sp.facing is not None:
            return int(sp.facing)
        return 0

    def do_pivot(self, ctx: RuleContext, side: str, a: Pivot) -> None:
        """Pay and turn."""
        problem, cost = self.pivot_problem(ctx.state, side, a)
        assert problem is None, problem
        self.pay(ctx, side, a.units, a.pay, cost, "pivot")
        for uid in a.units:
            ctx.emit(
                "pivot",
                side=side,
                unit=uid,
                result=str(a.facing),
                changes=unit_change(uid, facing=a.facing)
                + self.cargo_changes(ctx.state, uid, facing=a.facing),
            )
        self.after_pivot(ctx, a.units)  # hasty defences, mines (§18)
