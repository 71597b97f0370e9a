"""World at War movement: units, HQs, carriers, bridges, helicopter modes, hiding.

Rule sections: WaW 5.0 (movement points, terrain and road costs, rivers only at
bridges and ferries), WaW Stacking, hex capture (RULES_NOTES 1.2 FOUND [B]), HQ
movement (from stack to stack, the risk roll and its exposure), 5.2 carriers
(mount, dismount), the seed 000 bridge units (MTU-55:
lay and take up a bridge), 9.0 helicopter modes, 6.1.5 hiding (1.3.4.4: not in
the sight of enemy recon).  A move may open opportunity fire (6.2, :mod:`.fire`)
and be attacked in an "In Zone" hex (:mod:`.support`).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Mapping
from typing import Any

from wargame.engine import (
    Action,
    GameState,
    RuleContext,
    Unit,
    control_change,
    unit_change,
    var_change,
)

from ._common import (
    BRIDGE_MP,
    LOAD_MP,
    STACK_LIMIT,
    _Queries,
    _Snap,
    _unit_event,
    _word,
)
from .actions import (
    Dismount,
    Hide,
    LayBridge,
    Mount,
    Move,
    MoveHQ,
    RecoverBridge,
    SetMode,
)
from .board import LOS_TABLE_RANGE
from .catalog import (
    Mobility,
)
from .command import Exposure, hq_move_check
from .hq_paths import (
    HQMoveOdds,
    path_penalty,
    path_problem,
    safest_paths_numbered,
)
from .hq_paths import hq_move_odds as _odds_along
from .unit_attrs import carried_by, disrupted, ops_complete

#: hex -> (penalty, MP, path) of :func:`~.hq_paths.safest_paths`
_SafePaths = Mapping[str, tuple[int, float, tuple[str, ...]]]


class _Movement(_Queries):
    """Movement and the unit actions that go with it (mixin of
    :class:`~.ruleset.WawRuleset`)."""

    # -- Move ------------------------------------------------------------- #
    def _why_not_move(self, state: GameState, a: Move) -> str | None:
        u, r = self._action_actor(state, a.unit)
        if r:
            return r
        i = self.info[u.id]
        if i.is_hq:
            return (
                f"{u.name} is an HQ: it moves with a unit (with_hq) or on its own "
                "(move_hq)"
            )
        if (carrier := carried_by(u)) is not None:
            c = state.units[carrier]
            return f"{u.name} is aboard {c.name} and moves with it"
        if i.mobility == Mobility.NONE.value:
            return f"{u.name} cannot move by itself"
        return self._move_reason(self._snap(state), u, a.to, a.with_hq)

    def _move_reason(self, snap: _Snap, u: Unit, to: Any, with_hq: bool) -> str | None:
        st = snap.state
        if u.attrs.get("deployed"):
            return f"{u.name} has laid its bridge: take it up first"
        frm: str = u.position  # type: ignore[assignment]
        board = self.board
        if to not in board:
            return f"{to!r} is not a hex of the map"
        if to not in board.neighbors[frm]:
            return f"{to} is not adjacent to {u.name} at {frm}"
        # WaW 5.0: movement points, terrain and road costs (terrain chart);
        # deployed MTU-55 bridges (seed 000 bridge units).
        cost = self._enter_cost(st, u, frm, to)
        if cost == math.inf:
            return f"{u.name} cannot enter {to} ({self._terrain_text(to)})"
        left = self._mp(u) - self._spent(u)
        if cost > left:
            return f"{u.name} has {left:g} MP left; entering {to} costs {cost:g}"
        if snap.combat.get((to, self.enemy_of(u.side))):
            return f"{to} holds enemy units: assault it instead"
        enemy_hq = snap.hq.get(to)
        if self.info[u.id].is_helicopter and enemy_hq and enemy_hq.side != u.side:
            # ASSUMPTION 43: helicopters take no ground, so they do not overrun a
            # lone HQ either (and no hex ever holds both sides).
            return (
                f"{u.name} is a helicopter and takes no ground: it may not enter "
                f"{to}, held by {enemy_hq.name}"
            )
        # WaW Stacking: at most two units per hex, always.
        n = snap.count.get((to, u.side), 0) + (1 if self.info[u.id].counts else 0)
        if n > STACK_LIMIT:
            return f"stack at {to} would hold {n} units"
        acting = st.vars.get("acting")
        hq: Unit | None = None
        if with_hq:
            if acting == u.id:
                return f"{u.name} is already moving; its HQ can only join at the start"
            hq = self._hq_unit(st, u.formation)
            if hq is None or hq.destroyed or hq.position != frm:
                return f"{u.name} has no HQ of its formation in its hex ({frm})"
            if ops_complete(hq):
                return f"{hq.name} is Ops Complete"
        elif acting == u.id and st.vars.get("escort"):
            hq = st.units[st.vars["escort"]]
        if hq is not None:
            # WaW HQs: at most one HQ per hex.
            other = snap.hq.get(to)
            if other is not None and other.side == u.side and other.id != hq.id:
                return f"{to} already holds an HQ ({other.name})"
        return None

    def _move_options(self, snap: _Snap, u: Unit) -> list[Action]:
        """Every legal Move of ``u`` (with its HQ too where it may come along)."""
        st = snap.state
        uid = u.id
        fid = u.formation
        here: str = u.position  # type: ignore[assignment]
        hq = snap.hq.get(here)
        may_escort = (
            st.vars.get("acting") != uid
            and hq is not None
            and hq.formation == fid
            and hq.id == st.formations[fid].hq  # type: ignore[index]
            and not ops_complete(hq)
        )
        out: list[Action] = []
        if u.attrs.get("deployed"):
            return out  # a laid bridge moves only once taken up
        # The tests of _move_reason(snap, u, nb, False) without its messages
        # (a fast mirror; legal_actions and check are held to each other by
        # the conformance tests): WaW 5.0 costs and MP, no enemy-held hex, no
        # helicopter into a hex with an enemy HQ (ASSUMPTION 43), stacking at
        # most two, one HQ per hex for an escorted mover.
        left = self._mp(u) - self._spent(u)
        enemy = self.enemy_of(u.side)
        i = self.info[uid]
        heli = i.is_helicopter
        n0 = 1 if i.counts else 0
        escort: Unit | None = None
        if st.vars.get("acting") == uid and st.vars.get("escort"):
            escort = st.units[st.vars["escort"]]
        combat, count, hqs = snap.combat, snap.count, snap.hq
        for nb in self.board.neighbors[here]:
            cost = self._enter_cost(st, u, here, nb)
            if cost == math.inf or cost > left or combat.get((nb, enemy)):
                continue
            other = hqs.get(nb)
            if heli and other and other.side != u.side:
                continue
            if count.get((nb, u.side), 0) + n0 > STACK_LIMIT:
                continue
            if (
                escort is not None
                and other is not None
                and other.side == u.side
                and other.id != escort.id
            ):
                continue
            out.append(Move(uid, nb))
            if may_escort and self._move_reason(snap, u, nb, True) is None:
                out.append(Move(uid, nb, True))
        return out

    def _do_move(self, ctx: RuleContext, a: Move) -> None:
        st = ctx.state
        u = st.units[a.unit]
        if not self._begin(ctx, u):
            return
        frm: str = u.position  # type: ignore[assignment]
        to = a.to
        board = self.board
        cost = self._enter_cost(st, u, frm, to)
        mp = self._mp(u)
        spent = self._spent(u) + cost
        note = ""
        if board.ferry_water(to) and not board.ferry_water(frm):
            spent = max(spent, mp)  # ASSUMPTION: boarding a ferry ends the move
            note = "; boards the ferry (move ends)"
        for x in list(st.units.values()):
            if (
                x.position == to
                and x.side != u.side
                and not x.destroyed
                and x.id in self.hq_ids
            ):
                # ASSUMPTION: an HQ left alone is destroyed when an enemy unit
                # enters its hex (HQs cannot be attacked, WaW HQ in combat);
                # logged before the move so no hex ever holds both sides.
                _unit_event(
                    ctx,
                    "hq_captured",
                    x,
                    hex_to=to,
                    result="destroyed",
                    detail=f"{x.name}, alone at {to}, is overrun by {u.name}",
                    changes=unit_change(x.id, strength="destroyed"),
                )
        changes: list[Any] = list(unit_change(u.id, position=to, mp=spent))
        changes += self._unhide(u)
        p = self._passenger(st, u)
        if p is not None:
            changes += unit_change(p.id, position=to)
        escort = st.vars.get("escort") if st.vars.get("acting") == u.id else None
        if a.with_hq:
            hq = self._hq_unit(st, u.formation)
            escort = hq.id if hq is not None else None
        if escort:
            changes += unit_change(escort, position=to)
            note += f"; {st.units[escort].name} moves with it"
        changes += var_change(acting=u.id, escort=escort)
        # WaW hex capture (RULES_NOTES 1.2 FOUND [B]): the last side to move
        # through a hex controls it.  ASSUMPTION 43: ground units only - a
        # helicopter flies over and holds no hex or objective.
        captured = st.control.get(to) != u.side and not self.info[u.id].is_helicopter
        if captured:
            changes += control_change(to, u.side)
        obj = [name for h, _vp, name in self.objectives if h == to]
        if captured and obj:
            note += f"; takes objective {obj[0]}"
        _unit_event(
            ctx,
            "move",
            u,
            hex_from=frm,
            hex_to=to,
            result="captured" if captured else "moved",
            detail=(
                f"{u.name} moves {frm} -> {to} ({cost:g} MP, "
                f"{max(mp - spent, 0):g} left){note}"
            ),
            changes=changes,
        )
        self._in_zone(ctx, st.units[u.id])
        self._offer_opportunity(ctx, st.units[u.id])

    # -- MoveHQ ----------------------------------------------------------- #
    def _why_not_move_hq(self, state: GameState, a: MoveHQ) -> str | None:
        u, r = self._action_actor(state, a.hq)
        if r:
            return r
        if not self.info[u.id].is_hq:
            return f"{u.name} is not an HQ"
        if state.vars.get("escort") == u.id:
            mover = state.units[state.vars["acting"]]
            return f"{u.name} is moving with {mover.name}"
        snap = self._snap(state)
        return self._move_hq_reason(snap, u, a.to, a.path)

    def _move_hq_reason(
        self, snap: _Snap, u: Unit, to: Any, path: Any = None
    ) -> str | None:
        # WaW HQ movement: from one friendly stack to another, within its MP.
        if not snap.combat.get((u.position, u.side)):  # type: ignore[arg-type]
            return f"{u.name} must start its move stacked with a friendly unit"
        if to not in self.board:
            return f"{to!r} is not a hex of the map"
        if to == u.position:
            return f"{u.name} is already at {to}"
        other = snap.hq.get(to)
        if other is not None:
            return f"{to} already holds an HQ ({other.name})"
        if not snap.combat.get((to, u.side)):
            return f"{u.name} must end its move with friendly units; {to} has none"
        if path is not None:
            return self._hq_path_reason(snap, u, to, path)
        if to not in self._hq_paths(snap, u):
            return f"{u.name} cannot reach {to} with {self._mp(u):g} MP"
        return None

    def _hq_path_reason(self, snap: _Snap, hq: Unit, to: str, path: Any) -> str | None:
        """Why the path a player gave an HQ's independent move is not legal
        (WaW HQ movement / 5.0, see :func:`~.hq_paths.path_problem`)."""
        st = snap.state
        board = self.board
        return path_problem(
            hq.name,
            hq.position,  # type: ignore[arg-type]
            to,
            path,
            mp=self._mp(hq) - self._spent(hq),
            neighbors=board.neighbors,
            enter_cost=lambda a, b: self._enter_cost(st, hq, a, b),
            blocked=self._hq_blocked(snap, hq),
            ends_move=self._boards_ferry,
            terrain_text=self._terrain_text,
        )

    def _boards_ferry(self, a: str, b: str) -> bool:
        """Stepping from ``a`` into ``b`` boards a ferry (the move ends there)."""
        return self.board.ferry_water(b) and not self.board.ferry_water(a)

    def _boards_ferry_fn(self) -> Callable[[str, str], bool]:
        """:meth:`_boards_ferry` as a quick function of the board's ferry hexes."""
        water = frozenset(h for h in self.board.ferry if self.board.ferry_water(h))
        return lambda a, b: b in water and a not in water

    def _hq_blocked(self, snap: _Snap, hq: Unit) -> list[str]:
        """Hexes an HQ moving on its own may not enter: those with enemy units."""
        enemy = self.enemy_of(hq.side)
        return [h for h, us in snap.at.items() if any(x.side == enemy for x in us)]

    def _hq_destinations(self, snap: _Snap, hq: Unit) -> list[str]:
        here = hq.position
        if not snap.combat.get((here, hq.side)):  # type: ignore[arg-type]
            return []
        cands = sorted(
            h
            for (h, side), n in snap.combat.items()
            if side == hq.side and n and h != here and h not in snap.hq
        )
        if not cands:
            return []
        paths = self._hq_paths(snap, hq)
        return [h for h in cands if h in paths]

    def _move_hq_options(self, snap: _Snap, hq: Unit) -> list[Action]:
        """Every offered MoveHQ of ``hq``: per destination, its cheapest path
        (``path=None``) and its safest path when that is less exposed.

        WaW HQ movement: the -1/-2 of the risk roll follow the path, so the path
        is the player's; ``check`` accepts any legal path (see
        :meth:`_hq_path_reason`), the list offers these two.  The safest path
        has the least penalty, then the fewest MP, then the first hexes in
        label order (:func:`~.hq_paths.safest_paths`); when the cheapest path
        is as little exposed, it is the safest too and is offered once.
        """
        # ASSUMPTION 31: these two paths are offered; any legal path is accepted.
        here = hq.position
        if not snap.combat.get((here, hq.side)):  # type: ignore[arg-type]
            return []
        cands = tuple(
            sorted(
                h
                for (h, side), n in snap.combat.items()
                if side == hq.side and n and h != here and h not in snap.hq
            )
        )
        if not cands:
            return []
        # The offer to a stack depends only on these (the enemy units and the
        # smoke, the HQ's hex, MP and bridges) and the stack's hex: remembered
        # per stack while they are the same (a pure function).
        st = snap.state
        key = (
            self._snap_exposure_key(snap, hq.side),
            hq.id,
            here,
            self._mp(hq) - self._spent(hq),
            hq.attrs.get("deployed"),
            frozenset(self._enter_costs(st, hq).items()),
            frozenset(self._entry_overrides(st, hq).items()),
        )
        cache: dict[Any, dict[str, tuple[Action, ...]]] = self.__dict__.setdefault(
            "_hq_options_cache", {}
        )
        per = cache.get(key)
        if per is None:
            if len(cache) > 512:
                cache.clear()
            per = cache[key] = {}
        todo = [h for h in cands if h not in per]
        if todo:
            self._hq_options_to(snap, hq, todo, per)
        out: list[Action] = []
        for h in cands:
            out += per[h]
        return out

    def _hq_options_to(
        self,
        snap: _Snap,
        hq: Unit,
        todo: list[str],
        per: dict[str, tuple[Action, ...]],
    ) -> None:
        """The MoveHQ offers of ``hq`` to each of the friendly stacks ``todo``
        (none where it cannot reach), into ``per``."""
        cheap = self._hq_paths(snap, hq)
        dests = [h for h in todo if h in cheap]
        for h in todo:
            if h not in cheap:
                per[h] = ()
        if not dests:
            return
        exposure = self._exposures(snap, hq.side)
        pens = [path_penalty(cheap[h][1], exposure) for h in dests]
        # only paths less exposed than the worst cheapest path are looked for
        # (the same answers, see safest_paths' ``below``)
        need = max(pens)
        safe = self._hq_safe_paths(snap, hq, need) if need else {}
        for h, pen in zip(dests, pens, strict=True):
            acts: tuple[Action, ...] = (MoveHQ(hq.id, h),)
            if pen:
                got = safe.get(h)
                if got is not None and got[0] < pen:
                    acts += (MoveHQ(hq.id, h, got[2][1:]),)
            per[h] = acts

    def _hq_paths(
        self, snap: _Snap, hq: Unit
    ) -> Mapping[str, tuple[float, tuple[str, ...]]]:
        left = self._mp(hq) - self._spent(hq)
        key = ("hq_paths", hq.id, hq.position, left, hq.attrs.get("deployed"))
        hit = snap.memo.get(key)
        if hit is None:
            hit = snap.memo[key] = self.board.reachable(
                hq.position,  # type: ignore[arg-type]
                self.info[hq.id].mobility,
                left,
                self._hq_blocked(snap, hq),
                self._enter_costs(snap.state, hq),
            )
        return hit

    def _hq_route(
        self, snap: _Snap, hq: Unit, a: MoveHQ
    ) -> tuple[float, tuple[str, ...]]:
        """``(MP, path from the start hex to a.to)`` that a legal MoveHQ takes."""
        if a.path is None:
            return self._hq_paths(snap, hq)[a.to]
        path: tuple[str, ...] = (hq.position, *a.path)  # type: ignore[arg-type]
        cost = sum(
            self._enter_cost(snap.state, hq, x, y) for x, y in itertools.pairwise(path)
        )
        return cost, path

    def _hq_safe_paths(
        self, snap: _Snap, hq: Unit, below: int = 4
    ) -> Mapping[str, tuple[int, float, tuple[str, ...]]]:
        """Least exposed paths of an HQ within its MP: ``hex -> (penalty, MP, path)``
        (:func:`~.hq_paths.safest_paths`), under the movement rules of
        :meth:`_hq_paths`: WaW 5.0 costs, enemy hexes blocked, boarding a ferry
        ends the move.  Only the hexes whose least penalty is below ``below``
        are sure to be there."""
        st = snap.state
        left = self._mp(hq) - self._spent(hq)
        # the same while the enemy, the smoke, the HQ's hex, MP and bridges are
        key = (
            self._snap_exposure_key(snap, hq.side),
            hq.id,
            hq.position,
            left,
            frozenset(self._enter_costs(st, hq).items()),
        )
        cache: dict[Any, tuple[int, _SafePaths]] = self.__dict__.setdefault(
            "_safe_paths_cache", {}
        )
        entry = cache.get(key)
        if entry is None or entry[0] < below:
            if len(cache) > 256:
                cache.clear()
            ranks, adj, ferry = self.board._ranked(
                self.info[hq.id].mobility, self._entry_overrides(st, hq)
            )
            entry = cache[key] = (
                below,
                safest_paths_numbered(
                    ranks.names,
                    ranks.id_of,
                    adj,
                    hq.position,  # type: ignore[arg-type]
                    left,
                    self._exposures(snap, hq.side),
                    blocked=self._hq_blocked(snap, hq),
                    ferry=ferry,
                    below=below,
                ),
            )
        return entry[1]

    def hq_move_odds(self, state: GameState, action: MoveHQ) -> HQMoveOdds:
        """Path, MP and exact risk-roll odds of an HQ's independent move.

        WaW HQ movement: the -1/-2 follow the path the action takes (its own,
        or the cheapest); the odds are those of the rule code that rolls the
        die.  Whose turn it is and Ops Complete are not checked.

        Raises:
            ValueError: the HQ cannot make this move (the reason says why).

        Examples:
            >>> from wargame.engine import Game
            >>> from wargame.rules.waw import MoveHQ
            >>> g = Game.from_scenario("test_remagen")
            >>> o = g.ruleset.hq_move_odds(g.state, MoveHQ("US-HQ", "O18"))
            >>> o.path, round(sum(o.odds.values()), 9)
            (('N17', 'O18'), 1.0)
        """
        hq = state.units.get(action.hq) if isinstance(action.hq, str) else None
        if hq is None or hq.destroyed or hq.position is None:
            raise ValueError(f"there is no HQ {action.hq!r} in play")
        if not self.info[hq.id].is_hq:
            raise ValueError(f"{hq.name} is not an HQ")
        snap = self._snap(state)
        why = self._move_hq_reason(snap, hq, action.to, action.path)
        if why:
            raise ValueError(why)
        cost, path = self._hq_route(snap, hq, action)
        return _odds_along(
            path,
            cost,
            start_end_adjacent=self.board.distance(path[0], path[-1]) == 1,
            exposure=self._exposures(snap, hq.side),
            hq_state=self._ustate(hq),
        )

    def _describe_move_hq(self, state: GameState, a: MoveHQ, name: str) -> str:
        """A MoveHQ in words, with its path and the odds of its risk roll."""
        text = f"{name} moves on its own to {a.to}"
        try:
            o = self.hq_move_odds(state, a)
        except (ValueError, KeyError, TypeError):
            if isinstance(a.path, tuple) and a.path:
                text += " via " + " ".join(str(h) for h in a.path)
            return text
        via = " ".join(o.path[1:-1]) or "next door"
        which = "cheapest path" if a.path is None else "chosen path"
        mods = ", ".join(f"{r} {m:+d}" for r, m in o.modifiers) or "no modifier"
        hit = next((w for w in o.odds if w != "no effect"), "reduced")
        return (
            f"{text} via {via} ({which}, {o.mp:g} MP); risk roll ({mods}): "
            f"{o.loss:.0%} {hit}"
        )

    def _do_move_hq(self, ctx: RuleContext, a: MoveHQ) -> None:
        st = ctx.state
        hq = st.units[a.hq]
        if not self._begin(ctx, hq, command_check=False):
            return
        snap = self._snap(st)
        # WaW HQ movement: the player's path, or the cheapest one.
        cost, path = self._hq_route(snap, hq, a)
        frm: str = hq.position  # type: ignore[assignment]
        changes: list[Any] = list(unit_change(hq.id, position=a.to, mp=cost))
        changes += self._end_action(st, hq)
        for h in path[1:]:
            if st.control.get(h) != hq.side:
                changes += control_change(h, hq.side)
        which = "the cheapest path" if a.path is None else "its chosen path"
        _unit_event(
            ctx,
            "hq_move",
            hq,
            hex_from=frm,
            hex_to=a.to,
            result="moved",
            detail=(
                f"{hq.name} moves on its own {frm} -> {a.to} via "
                f"{' '.join(path[1:-1]) or '(adjacent)'} ({cost:g} MP, {which}: "
                f"{' '.join(path)})"
            ),
            changes=changes,
        )
        # WaW HQ movement: the risk roll, with the exposure of the path hexes.
        exposure = [self._exposure(snap, h, hq.side) for h in path]
        chk = hq_move_check(
            ctx.rng,
            start_end_adjacent=self.board.distance(frm, a.to) == 1,
            path_exposure=exposure,
            hq_state=self._ustate(hq),
        )
        mods = ", ".join(f"{r} {m:+d}" for r, m in chk.modifiers)
        word = _word(chk.before, chk.after)
        _unit_event(
            ctx,
            "hq_move_check",
            hq,
            hex_to=a.to,
            dice=(chk.die,) if chk.die is not None else None,
            needed=2,
            result=word,
            detail=(
                f"{hq.name} moved alone: d6 = {chk.die}"
                + (f" ({mods})" if mods else "")
                + f" = {chk.total}; 2 or less loses a step: {word}"
            ),
            changes=(
                unit_change(hq.id, strength=chk.after.strength.value)
                if chk.after != chk.before
                else ()
            ),
        )

    @staticmethod
    def _exposure_key(st: GameState, side: str) -> tuple[Any, ...]:
        """What an HQ's exposure depends on: the enemy units and the smoke."""
        enemy = tuple(
            (
                u.id,
                u.position,
                u.strength,
                u.attrs.get("mode"),
                u.attrs.get("sw"),
                carried_by(u),
            )
            for u in st.units.values()
            if u.side != side and not u.destroyed
        )
        return (side, enemy, repr(st.vars.get("smoke")))

    def _snap_exposure_key(self, snap: _Snap, side: str) -> tuple[Any, ...]:
        """:meth:`_exposure_key` of the snapshot's state (remembered with it)."""
        key = ("exposure_key", side)
        hit = snap.memo.get(key)
        if hit is None:
            hit = snap.memo[key] = self._exposure_key(snap.state, side)
        return hit

    def _exposures(self, snap: _Snap, side: str) -> Callable[[str], Exposure]:
        """:meth:`_exposure` of ``side``'s HQ by hex, cached while the enemy
        units and the smoke stay as they are (the safest-path search asks for
        many hexes, decision after decision)."""
        key = self._snap_exposure_key(snap, side)
        cache: dict[Any, tuple[Any, dict[str, Exposure]]] = self.__dict__.setdefault(
            "_exposure_cache", {}
        )
        entry = cache.get(key)
        if entry is None:
            if len(cache) > 64:
                cache.clear()
            entry = cache[key] = (self._watchers(snap, side), {})
        watchers, per = entry

        def exposure(h: str) -> Exposure:
            got = per.get(h)
            if got is None:
                got = per[h] = self._exposure(snap, h, side, watchers)
            return got

        return exposure

    def _watchers(
        self, snap: _Snap, side: str
    ) -> list[tuple[str, int, bool, frozenset[str] | None]]:
        """Enemy units that may see and shoot at an HQ of ``side``: their hex,
        longest weapon reach, whether they fly high and the hexes they see (the
        LOS table's, None without one; see :meth:`_exposure`)."""
        out: list[tuple[str, int, bool, frozenset[str] | None]] = []
        for u in snap.state.units.values():
            if (
                u.side == side
                or u.destroyed
                or not isinstance(u.position, str)
                or carried_by(u) is not None
                or u.id in self.hq_ids
            ):
                continue
            pos = u.position
            seen = self.board.visible_from(pos)
            out.append((pos, self.weapon_reach(u), self._high(u), seen))
        return out

    def _exposure(
        self,
        snap: _Snap,
        h: str,
        side: str,
        watchers: list[tuple[str, int, bool, frozenset[str] | None]] | None = None,
    ) -> Exposure:
        """WaW HQ movement (b)/(c): is ``h`` in enemy LOS and weapon range?

        ASSUMPTION 31: "in range of their guns" = within the longest reach of any
        of the enemy unit's weapons (2x range unless underlined; adjacent always);
        "under cover" = terrain with defence dice.
        """
        if watchers is None:
            watchers = self._watchers(snap, side)
        row, index = self.board.distance_row(h), self.board.index
        smoke = bool(snap.state.vars.get("smoke"))
        for pos, reach, high, seen in watchers:
            d = row[index[pos]]
            if d == 0 or (d > 1 and d - 1 > reach) or (d > 1 and reach < 0):
                continue
            if high or d <= 1:
                exposed = True
            elif seen is not None and not smoke and d <= LOS_TABLE_RANGE:
                exposed = h in seen  # the table's answer, as _ground_los gives it
            else:
                exposed = self._ground_los(snap.state, pos, h)
            if exposed:
                return (
                    Exposure.COVER if self.board.defence_dice(h) > 0 else Exposure.OPEN
                )
        return Exposure.NONE

    # -- Mount, Dismount (WaW 5.2 carriers) ------------------------------- #
    def _why_not_mount(self, state: GameState, a: Mount) -> str | None:
        u, r = self._action_actor(state, a.unit)
        if r:
            return r
        if (carrier := carried_by(u)) is not None:
            return f"{u.name} is already aboard {state.units[carrier].name}"
        if not self.info[u.id].is_infantry:
            return f"{u.name} is not infantry and cannot board a carrier"
        c = state.units.get(a.carrier) if isinstance(a.carrier, str) else None
        if c is None:
            return f"there is no unit {a.carrier!r} in this game"
        return self._mount_reason(state, u, c)

    def _mount_reason(self, state: GameState, u: Unit, c: Unit) -> str | None:
        # WaW 5.2: carriers (movement in a circle) carry one infantry platoon.
        if c.side != u.side or not self.info[c.id].is_carrier:
            return f"{c.name} is not a friendly carrier"
        if c.destroyed:
            return f"{c.name} is destroyed"
        if c.position != u.position:
            return f"{c.name} is at {c.position}, not in {u.name}'s hex {u.position}"
        p = self._passenger(state, c)
        if p is not None:
            return f"{c.name} already carries {p.name}"
        left = self._mp(c) - self._spent(c)
        if left < LOAD_MP:
            # ASSUMPTION 57: loading takes 1 MP of the carrier's movement.
            return f"{c.name} has {left:g} MP left; loading costs it {LOAD_MP:g}"
        return None

    def _mount_options(self, snap: _Snap, u: Unit) -> list[Action]:
        """Every carrier in its hex the infantry platoon ``u`` may board."""
        return [
            Mount(u.id, c.id)
            for c in snap.units(u.position)  # type: ignore[arg-type]
            if c.id != u.id and self._mount_reason(snap.state, u, c) is None
        ]

    def _why_not_dismount(self, state: GameState, a: Dismount) -> str | None:
        u, r = self._action_actor(state, a.unit)
        if r:
            return r
        if carried_by(u) is None:
            return f"{u.name} is not aboard a carrier"
        return self._dismount_reason(self._snap(state), u)

    def _dismount_reason(self, snap: _Snap, u: Unit) -> str | None:
        h: str = u.position  # type: ignore[assignment]
        if self.board.is_water(h):
            return f"{u.name} cannot dismount on the water at {h}"
        # WaW Stacking: carrier and passengers count as one; apart, as two.
        n = snap.count.get((h, u.side), 0) + 1
        if n > STACK_LIMIT:
            return f"stack at {h} would hold {n} units"
        return None

    def _do_mount(self, ctx: RuleContext, a: Mount) -> None:
        st = ctx.state
        u = st.units[a.unit]
        if not self._begin(ctx, u):
            return
        c = st.units[a.carrier]
        # ASSUMPTION 34: boarding is the platoon's action (Ops Complete); the
        # carrier may still move it this activation, with 1 MP less
        # (ASSUMPTION 57: loading costs the carrier 1 MP).
        _unit_event(
            ctx,
            "mount",
            u,
            target=c.id,
            result="aboard",
            detail=f"{u.name} boards {c.name} at {u.position}",
            changes=(
                *unit_change(u.id, carried_by=c.id),
                *unit_change(c.id, mp=self._spent(c) + LOAD_MP),
                *self._unhide(u),
                *self._end_action(st, u),
            ),
        )

    def _do_dismount(self, ctx: RuleContext, a: Dismount) -> None:
        st = ctx.state
        u = st.units[a.unit]
        if not self._begin(ctx, u):
            return
        c = st.units[carried_by(u)]  # type: ignore[index]
        # ASSUMPTION 34: dismounting is the platoon's action (Ops Complete);
        # ASSUMPTION 57: it takes 1 MP of what the carrier has left.
        spent = min(self._spent(c) + LOAD_MP, self._mp(c))
        _unit_event(
            ctx,
            "dismount",
            u,
            target=c.id,
            result="dismounted",
            detail=f"{u.name} dismounts from {c.name} at {u.position}",
            changes=(
                *unit_change(u.id, carried_by=None),
                *unit_change(c.id, mp=spent),
                *self._end_action(st, u),
            ),
        )

    # -- MTU-55 bridges (seed 000 bridge units) ------------------------- #
    def _why_not_lay(self, state: GameState, a: LayBridge) -> str | None:
        u, r = self._action_actor(state, a.unit)
        if r:
            return r
        return self._lay_reason(u)

    def _lay_reason(self, u: Unit) -> str | None:
        # Seed 000 bridge units: the MTU-55 lays its span on a river/stream hex
        # for 2 MP.
        if not self.info[u.id].is_bridge_layer:
            return f"{u.name} is not a bridge layer"
        if u.attrs.get("deployed"):
            return f"{u.name} has already laid its bridge"
        if disrupted(u):
            # ASSUMPTION 56: a disrupted bridge layer cannot lay its bridge.
            return f"{u.name} is disrupted and cannot lay its bridge"
        h: str = u.position  # type: ignore[assignment]
        if not self._bridgeable(self.board, h):
            return (
                f"{u.name} is at {h} ({self.board.terrain[h]}), not on a river or "
                "stream hex: bridges are laid on water"
            )
        left = self._mp(u) - self._spent(u)
        if left < BRIDGE_MP:
            return f"{u.name} has {left:g} MP left; laying the bridge costs 2"
        return None

    def _why_not_recover(self, state: GameState, a: RecoverBridge) -> str | None:
        u, r = self._action_actor(state, a.unit)
        if r:
            return r
        return self._recover_reason(state, u)

    def _recover_reason(self, state: GameState, u: Unit) -> str | None:
        if not u.attrs.get("deployed"):
            return f"{u.name} has no bridge laid"
        if disrupted(u):
            return f"{u.name} is disrupted and cannot take its bridge up"
        others = [
            x
            for x in self._snap(state).units(u.position)  # type: ignore[arg-type]
            if x.id != u.id
        ]
        if others:
            # ASSUMPTION 56: not while units stand on the bridge.
            return f"{others[0].name} is on the bridge at {u.position}"
        left = self._mp(u) - self._spent(u)
        if left < BRIDGE_MP:
            return f"{u.name} has {left:g} MP left; taking the bridge up costs 2"
        return None

    def _bridge_options(self, st: GameState, u: Unit) -> list[Action]:
        """LayBridge / RecoverBridge for a bridge layer, where legal."""
        out: list[Action] = []
        if self._lay_reason(u) is None:
            out.append(LayBridge(u.id))
        if self._recover_reason(st, u) is None:
            out.append(RecoverBridge(u.id))
        return out

    def _do_lay(self, ctx: RuleContext, a: LayBridge) -> None:
        st = ctx.state
        u = st.units[a.unit]
        if not self._begin(ctx, u):
            return
        # Seed 000: laying the bridge costs 2 MP.  ASSUMPTION 56: it is the layer's
        # action (Ops Complete); the hex is crossable from the next move on.
        _unit_event(
            ctx,
            "bridge",
            u,
            result="laid",
            detail=(
                f"{u.name} lays its bridge at {u.position} (2 MP): crossing costs "
                "2 MP, 3 while the bridge is disrupted"
            ),
            changes=(
                *unit_change(u.id, deployed=True, mp=self._spent(u) + BRIDGE_MP),
                *self._end_action(st, u),
            ),
        )

    def _do_recover(self, ctx: RuleContext, a: RecoverBridge) -> None:
        st = ctx.state
        u = st.units[a.unit]
        if not self._begin(ctx, u):
            return
        # Seed 000: taking the bridge up costs 2 MP; the layer may move on.
        _unit_event(
            ctx,
            "bridge",
            u,
            result="taken up",
            detail=f"{u.name} takes its bridge up at {u.position} (2 MP)",
            changes=unit_change(u.id, deployed=None, mp=self._spent(u) + BRIDGE_MP)
            + var_change(acting=u.id, escort=None),
        )

    # -- helicopter modes (WaW 9.0) ---------------------------------------- #
    def _why_not_set_mode(self, state: GameState, a: SetMode) -> str | None:
        u, r = self._action_actor(state, a.unit)
        if r:
            return r
        return self._set_mode_reason(u, a.mode)

    def _set_mode_reason(self, u: Unit, mode: Any) -> str | None:
        # WaW 9.0 (seed 000 Helicopters): two modes, one per side of the counter.
        if not self.info[u.id].is_helicopter:
            return f"{u.name} is not a helicopter: only helicopters have modes"
        if mode not in ("low", "high"):
            return f"unknown mode {mode!r}: use 'low' or 'high'"
        if u.attrs.get("mode", "low") == mode:
            return f"{u.name} is already in {mode} mode"
        if u.attrs.get("mode_set"):
            # ASSUMPTION 42: one change of mode per activation.
            return f"{u.name} has already changed mode this turn"
        return None

    def _mode_options(self, u: Unit) -> list[Action]:
        """The mode change a helicopter may make now."""
        return [
            SetMode(u.id, mode)
            for mode in ("low", "high")
            if self._set_mode_reason(u, mode) is None
        ]

    def _do_set_mode(self, ctx: RuleContext, a: SetMode) -> None:
        st = ctx.state
        u = st.units[a.unit]
        if not self._begin(ctx, u):
            return
        # WaW 9.0: the helicopter turns its counter to the other mode side.
        # ASSUMPTION 42: changing mode costs no MP and is part of the helicopter's
        # action (it may still move and fire); popping up to high mode in enemy
        # sight and range opens opportunity fire like a move.
        _unit_event(
            ctx,
            "mode",
            u,
            result=a.mode,
            detail=(
                f"{u.name} goes to {a.mode} mode "
                + (
                    "(flying above the terrain)"
                    if a.mode == "high"
                    else "(nap of the earth)"
                )
            ),
            changes=unit_change(u.id, mode=None if a.mode == "low" else "high")
            + unit_change(u.id, mode_set=True)
            + var_change(acting=u.id, escort=None),
        )
        self._offer_opportunity(ctx, st.units[u.id])

    # -- hiding (WaW 6.1.5) ----------------------------------------------- #
    def _why_not_hide(self, state: GameState, a: Hide) -> str | None:
        u, r = self._action_actor(state, a.unit)
        if r:
            return r
        return self._hide_reason(state, u)

    def _hide_reason(self, state: GameState, u: Unit) -> str | None:
        # WaW 6.1.5 hiding (procedure assumed, see _Queries._hidden).
        i = self.info[u.id]
        if i.is_hq or i.is_helicopter:
            return f"{u.name} cannot hide (HQs and helicopters do not)"
        if (carrier := carried_by(u)) is not None:
            return f"{u.name} is aboard {state.units[carrier].name}"
        if u.attrs.get("hiding"):
            return f"{u.name} is already hiding"
        if state.vars.get("acting") == u.id or self._spent(u) > 0:
            return f"{u.name} has moved this turn and cannot hide"
        h: str = u.position  # type: ignore[assignment]
        if self.board.defence_dice(h) <= 0:
            return f"{u.name} has no cover to hide in at {h} ({self.board.terrain[h]})"
        rec = self._recon_watching(state, u.side, h)
        if rec is not None:
            # WaW 1.3.4.4: units in the LOS of enemy recon cannot hide.
            return f"{u.name} is watched by {rec.name} and cannot hide (WaW 1.3.4.4)"
        return None

    def _do_hide(self, ctx: RuleContext, a: Hide) -> None:
        st = ctx.state
        u = st.units[a.unit]
        if not self._begin(ctx, u):
            return
        # WaW 6.1.5 (ASSUMPTION 50 on the procedure, see _hidden): hiding is the
        # unit's action; it lasts until the unit moves, fires or assaults.
        _unit_event(
            ctx,
            "hide",
            u,
            result="hiding",
            detail=f"{u.name} hides at {u.position} ({self.board.terrain[u.hex]})",  # type: ignore[index]
            changes=(*unit_change(u.id, hiding=True), *self._end_action(st, u)),
        )
