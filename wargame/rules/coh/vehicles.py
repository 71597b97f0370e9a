"""Vehicle movement and armour (CoH 2e §14-15; research/coh.md §1.9, §2.2).

* **Bonus moves** (§14.1): a vehicle that pays to enter terrain listing one of
  its bonus symbols goes on, free and in the same action, one hex per symbol
  into terrain that allows that symbol: a wheel only along a road (road hex to
  road hex), a track into open ground (plowed fields play as open) or a road.
  Uphill still costs +1 AP a level (§14.2 fig. 27: three open hexes up a hill
  for 3 AP).  +2 smoke negates bonus moves into its hex (§13); a wheeled
  vehicle gets none entering a road hex that holds other vehicles (road
  congestion, §14.2); none after a reverse move (§14.4) or when towing a
  tracked vehicle (§14.5).
* **Enemy hexes** (§14.3): vehicles may move through hexes held by the enemy
  with their bonus moves; one that does not stop there cannot be engaged in
  close combat.  A vehicle stops where it ends its move, or where hidden
  enemies it did not know of are revealed.
* **Immobilisation** (§14.5): after entering a hex whose vehicle cost carries a
  "!" (``board.immobilisation_check``) the owner rolls 2d6: 6 or more is safe,
  else the vehicle is immobilised (``immobilised = "terrain"``, public): no
  move, no pivot, while a turret may still fire out of its arc (§15.4).
* **Armour** (§15): each target of a hex is fired at with the FP colour of its
  DR (§15.1); a Gun Damaged marker takes one colour away (§15.2); open-topped
  vehicles show a red flank DR to HE and to close combat by foot units, tank
  hunters excepted (§15.5); un-transported unburdened foot units with a
  friendly vehicle in their hex have +1 DM (§15.6).

Examples:
    >>> from wargame.engine import Game
    >>> g = Game.from_scenario("coh_tanks_ridge", seed=1)
    >>> r = g.ruleset
    >>> r.specs["su-t34-1"].type.bonus_moves
    ('track', 'track')
    >>> r.shot_colour(r.specs["de-pz-iii-e-1"].type, r.specs["su-t34-1"].type,
    ...               flank=True, he=False, cc=False)
    'blue'
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from wargame.engine import Action, GameState, RuleContext, Unit, unit_change

from ._core import Mixin, status_of
from .actions import Hide, Move, Pivot

__all__ = ["IMMOBILISATION_SAFE", "Vehicles"]

#: 2d6 at or above this is safe after entering "!" terrain (CoH 2e §14.5).
IMMOBILISATION_SAFE = 6
#: Vehicle cover for foot units (§15.6) and the APC's red shield (§16.1).
VEHICLE_COVER_DM, APC_DM = 1, 2


class Vehicles(Mixin):
    """Mixin: bonus moves, immobilisation and the armour rules of fire."""

    board: Any
    specs: dict[str, Any]

    # -- queries ----------------------------------------------------------- #
    def is_vehicle(self, uid: str) -> bool:
        """Whether a unit is a vehicle (CoH 2e §14.0)."""
        return bool(self.specs[uid].type.kind == "vehicle")

    def cargo(self, state: GameState, vid: str) -> list[Unit]:
        """The units riding on (or towed by) vehicle ``vid`` (§17.0)."""
        return [
            u
            for u in state.units.values()
            if not u.destroyed and u.attrs.get("carried_by") == vid
        ]

    def cargo_changes(
        self, state: GameState, vid: str, **values: Any
    ) -> tuple[Any, ...]:
        """The same changes for every unit the vehicle carries: they move and
        face with it (§17.0)."""
        out: tuple[Any, ...] = ()
        for r in self.cargo(state, vid):
            out += unit_change(r.id, **values)
            if "position" in values and r.hex is None:  # enters with it (§5.5)
                out += unit_change(r.id, arrives=None, entry=None)
        return out

    def with_riders(self, state: GameState, units: Sequence[str]) -> tuple[str, ...]:
        """The units of a move and the riders that share it: a vehicle and its
        transported units move as a group (§17.0; fig. 28: both are spent
        after the APC's last move).  ASSUMPTION: spent riders ride along as
        passengers, without taking part in the action."""
        out = list(units)
        for uid in units:
            for r in self.cargo(state, uid):
                if status_of(r) != "spent" and r.id not in out:
                    out.append(r.id)
        return tuple(out)

    def vehicle_action_problem(self, state: GameState, action: Action) -> str | None:
        """Why transported or immobilised units may not take ``action`` (a move,
        pivot or hide of their own; ``None``: nothing against it).

        ASSUMPTION: riders neither pivot nor hide on their own: they face the
        way their vehicle faces (§17.0) until they unload."""
        if not isinstance(action, Move | Pivot | Hide):
            return None
        for uid in action.units:
            u = state.units.get(uid)
            if u is None:
                continue
            by = u.attrs.get("carried_by")
            if by:
                v = state.units.get(str(by))
                return (
                    f"{u.name} rides on {v.name if v else by}: it goes where its "
                    "vehicle goes; unload it first (CoH 2e §17.0)"
                )
            if not isinstance(action, Hide) and u.attrs.get("immobilised"):
                return f"{u.name} is immobilised: no move, no pivot (CoH 2e §14.5)"
        return None

    def rider_problem(self, u: Unit) -> str | None:
        """Transported units may not fire (CoH 2e §17.0)."""
        if u.attrs.get("carried_by"):
            return f"{u.name} is transported: it may not fire (CoH 2e §17.0)"
        return None

    # -- bonus moves (§14.1) ------------------------------------------------ #
    def _smoke_at(self, state: GameState, h: str) -> int:
        return sum(int(n) for x, n in tuple(state.vars.get("smoke") or ()) if x == h)

    def road_step(self, a: str | None, b: str) -> bool:
        """Whether moving from ``a`` into ``b`` follows a road hex to hex
        (§5.0.1, §14.2; the board's ``road_move`` where it has one)."""
        if a is None:
            return False
        road_move = getattr(self.board, "road_move", None)
        if road_move is not None:
            return bool(road_move(a, b))
        return bool(self.board.road.get(a, False) and self.board.road.get(b, False))

    def _terrain_symbols(self, h: str) -> set[str]:
        """Symbols the vehicle table lists for the terrain itself (§14.1: a
        track into open or plowed ground; the board's terrain data where it
        says)."""
        kind = getattr(self.board, "terrain_type", None)
        if kind is not None:
            return set(kind(h).bonus_moves)
        return {"track"} if self.board.terrain[h] in ("open", "plowed") else set()

    def bonus_symbols(
        self, state: GameState, u: Unit, frm: str | None, to: str
    ) -> set[str]:
        """Bonus-move symbols that the terrain of ``to``, entered from ``frm``,
        lists for unit ``u`` (§14.1, §14.2, §13).

        ASSUMPTION: +2 smoke cancels the open-ground bonus moves of its hex
        (§13); here it cancels the road bonus moves into it as well."""
        memo = self.memo(state)
        if memo is None:
            return self._bonus_symbols(state, u, frm, to)
        key = ("bonus_symbols", u.id, frm, to)
        got = memo.get(key)
        if got is None:
            got = memo[key] = frozenset(self._bonus_symbols(state, u, frm, to))
        return set(got)

    def _bonus_symbols(
        self, state: GameState, u: Unit, frm: str | None, to: str
    ) -> set[str]:
        if self._smoke_at(state, to) >= 2:
            return set()
        out = self._terrain_symbols(to)
        if self.negates_open_bonus(state, to):
            out.discard("track")  # trenches, wire (§18)
        if self.road_step(frm, to):
            out |= {"wheel", "track"}  # a road hex (§14.1 T-34 example)
        if (
            out
            and self.specs[u.id].type.mobility == "wheeled"
            and self.board.road.get(to, False)
            and any(
                x.id != u.id
                and self.is_vehicle(x.id)
                and x.attrs.get("carried_by") != u.id
                for x in state.units_at(to)
            )
        ):
            return set()  # road congestion (§14.2)
        return out

    def _tows_tracked(self, state: GameState, vid: str) -> bool:
        return any(
            self.is_vehicle(r.id) and self.specs[r.id].type.mobility == "tracked"
            for r in self.cargo(state, vid)
        )

    def _bonus_start(self, state: GameState, u: Unit, first: str) -> str | None:
        """Why the paid move into ``first`` gives ``u`` no bonus moves."""
        symbols = set(self.specs[u.id].type.bonus_moves)
        if not symbols:
            return f"{u.name} has no bonus moves (§14.1)"
        if (
            u.hex is not None
            and u.facing is not None
            and first not in self.board.front_hexes(u.hex, u.facing)
        ):
            return "no bonus moves after moving in reverse (§14.4)"
        if not self.bonus_symbols(state, u, u.hex, first) & symbols:
            kind = self.board.terrain[first].replace("_", " ")
            return f"entering {first} ({kind}) gives {u.name} no bonus moves (§14.1)"
        if self._tows_tracked(state, u.id):
            return "a vehicle towing a tracked vehicle makes no bonus moves (§14.5)"
        return None

    def _bonus_step(
        self,
        state: GameState,
        u: Unit,
        prev: str | None,
        at: str,
        h: str,
        symbols: Sequence[str],
    ) -> tuple[str | None, str]:
        """Why the bonus move from ``at`` (entered from ``prev``) into ``h`` is
        not allowed, and the symbol it uses."""
        b = self.board
        if prev is not None:
            ahead = b.front_hexes(at, b.direction(prev, at))
            if h not in ahead:
                if h not in b.neighbors(at):
                    return f"bonus move to {h} is not next to {at} (§14.1)", ""
                return f"bonus move to {h} is not ahead of {at} (§14.1, §14.4)", ""
        elif h not in b.neighbors(at):
            return f"bonus move to {h} is not next to {at} (§14.1)", ""
        allowed = self.bonus_symbols(state, u, at, h)
        # a wheel where both fit keeps the track for open ground
        pick = next(
            (x for x in ("wheel", "track") if x in allowed and x in symbols), ""
        )
        if not pick:
            kind = b.terrain[h].replace("_", " ")
            return f"no bonus move into {h} ({kind}; §14.1)", ""
        if b.move_extra(at, h, self.specs[u.id].type.mobility) is None:
            return f"{u.name} may not enter {h}", ""
        return None, pick

    def bonus_problem(
        self, state: GameState, u: Unit, first: str, then: Sequence[str]
    ) -> str | None:
        """Why ``u`` may not go on from ``first`` through ``then`` with its
        bonus moves (``None``: it may)."""
        symbols = list(self.specs[u.id].type.bonus_moves)
        if len(then) > len(symbols):
            return f"{u.name} has {len(symbols)} bonus move(s) (§14.1)"
        if not then:
            return None
        why = self._bonus_start(state, u, first)
        if why:
            return why
        prev, at = u.hex, first
        seen = {u.hex, first}
        for h in then:
            if h in seen:
                return f"bonus moves do not go back to {h}"
            why, pick = self._bonus_step(state, u, prev, at, h, symbols)
            if why:
                return why
            symbols.remove(pick)
            prev, at = at, h
            seen.add(h)
        return None

    def bonus_cost(self, u: Unit, first: str, then: Sequence[str]) -> int:
        """AP the bonus hexes still cost: uphill +1 a level (§14.2 fig. 27)."""
        mob = self.specs[u.id].type.mobility
        total, at = 0, first
        for h in then:
            total += int(self.board.move_extra(at, h, mob) or 0)
            at = h
        return total

    def bonus_paths(
        self, state: GameState, u: Unit, first: str
    ) -> list[tuple[str, ...]]:
        """Every legal run of bonus moves after the paid move into ``first``."""
        memo = self.memo(state)
        if memo is None:
            return self._bonus_paths(state, u, first)
        key = ("bonus_paths", u.id, u.hex, u.facing, first)
        got = memo.get(key)
        if got is None:
            got = memo[key] = self._kept_bonus_paths(state, u, first)
        return list(got)

    def _kept_bonus_paths(
        self, state: GameState, u: Unit, first: str
    ) -> tuple[tuple[str, ...], ...]:
        """:meth:`bonus_paths`, kept from turn to turn for tracked vehicles:
        besides the board they depend only on the vehicle's hex, facing and
        cargo, the smoke and the fortifications (:meth:`bonus_symbols`; the
        road congestion of wheeled units depends on other units: not kept)."""
        if self.specs[u.id].type.mobility == "wheeled":
            return tuple(self._bonus_paths(state, u, first))
        key = (
            u.id,
            u.hex,
            u.facing,
            first,
            state.vars.get("smoke"),
            state.vars.get("forts"),
            tuple(  # its cargo (self.cargo), its ids only
                r.id
                for r in state.units.values()
                if r.attrs.get("carried_by") == u.id and not r.destroyed
            ),
        )
        kept: dict[Any, tuple[tuple[str, ...], ...]] = self.__dict__.setdefault(
            "_bonus_kept", {}
        )
        try:
            got = kept.get(key)
        except TypeError:  # an unhashable var: not kept
            return tuple(self._bonus_paths(state, u, first))
        if got is None:
            if len(kept) > 20000:
                kept.clear()
            got = kept[key] = tuple(self._bonus_paths(state, u, first))
        return got

    def _bonus_paths(
        self, state: GameState, u: Unit, first: str
    ) -> list[tuple[str, ...]]:
        if self._bonus_start(state, u, first) is not None:
            return []
        out: list[tuple[str, ...]] = []

        def grow(path: tuple[str, ...], left: list[str]) -> None:
            at = path[-1] if path else first
            prev = path[-2] if len(path) > 1 else (first if path else u.hex)
            b = self.board
            cands = (
                b.front_hexes(at, b.direction(prev, at))
                if prev is not None
                else b.neighbors(at)
            )
            for h in cands:
                if h == u.hex or h == first or h in path:
                    continue
                why, pick = self._bonus_step(state, u, prev, at, h, left)
                if why is None:
                    out.append((*path, h))
                    if len(left) > 1:
                        rest = list(left)
                        rest.remove(pick)
                        grow((*path, h), rest)

        grow((), list(self.specs[u.id].type.bonus_moves))
        return sorted(out, key=lambda p: (len(p), p))

    # -- immobilisation (§14.5) ---------------------------------------------- #
    def immobilisation_roll(self, ctx: RuleContext, uid: str, frm: str | None) -> bool:
        """After a vehicle enters a "!" hex: 2d6, 6 or more safe, else
        immobilised.  True if it is immobilised now.

        ASSUMPTION: moving road hex to road hex takes no check (the road
        negates the terrain's costs, §14.2); no CAPs are added to the roll (the
        rule allows it; the engine's players do not bid for it)."""
        st = ctx.state
        u = st.units[uid]
        if not self.is_vehicle(uid) or u.destroyed or u.hex is None:
            return False
        h = u.hex
        b = self.board
        if not b.immobilisation_check(h) or self.road_step(frm, h):
            return False
        kind = b.terrain[h].replace("_", " ")
        dice = ctx.roll(
            2,
            kind="immobilisation",
            side=u.side,
            unit=uid,
            needed=IMMOBILISATION_SAFE,
            detail=f"{u.name} entered {kind}: 2d6 >= 6 or immobilised (§14.5)",
        )
        if sum(dice) >= IMMOBILISATION_SAFE:
            return False
        ctx.emit(
            "immobilisation",
            side=u.side,
            unit=uid,
            hex_to=h,
            result="immobilised",
            detail=f"{u.name} is stuck in the {kind} (§14.5)",
            changes=unit_change(uid, immobilised="terrain"),
        )
        return True

    # -- armour in fire (§15) ----------------------------------------------- #
    def shot_colour(self, ut: Any, tt: Any, *, flank: bool, he: bool, cc: bool) -> str:
        """The FP colour a shot of unit type ``ut`` uses against type ``tt``:
        the colour of the DR it hits (§7.1, §15.1), red against an open-topped
        vehicle's flank under HE or foot close combat (§15.5).

        ASSUMPTION: the "tank hunters" that keep their blue FP there are the
        foot squads whose blue FP is above their red (towed guns are not)."""
        colour = str(tt.dr_colour(flank))
        if colour == "blue" and tt.open_topped and flank:
            foot_cc = cc and ut.kind == "foot"
            hunter = ut.mobility == "foot" and (ut.fp_blue or 0) > (ut.fp_red or 0)
            if he or (foot_cc and not hunter):
                colour = "red"
        return colour

    def transport_dms(
        self, state: GameState, target: Unit, hex_: str
    ) -> list[tuple[int, str]]:
        """DMs a target has from vehicles: the APC's red shield for its cargo
        (§16.1, kept for the attack that destroys the APC), vehicle cover for
        un-transported unburdened foot units with a friendly vehicle (§15.6)."""
        by = target.attrs.get("carried_by")
        if by:
            v = self.specs.get(str(by))
            if v is not None and v.type.apc:
                return [(APC_DM, f"APC +{APC_DM} (§16.1)")]
            return []
        if not self.specs[target.id].type.unburdened:
            return []
        if any(
            x.side == target.side
            and self.is_vehicle(x.id)
            and not x.attrs.get("carried_by")
            for x in state.units_at(hex_)
        ):
            return [(VEHICLE_COVER_DM, f"vehicle cover +{VEHICLE_COVER_DM} (§15.6)")]
        return []
