"""Mortars: indirect fire through a spotting hex, and smoke (CoH 2e §12.0-12.2,
§13; research/coh.md §1.10).

* **Direct fire**: a mortar that sees its target fires like any unit (it must
  respect its minimum range and its arc, §12.0; :mod:`.fire`).  Its HE hits
  the flank DR, hidden stacks included, and red-flank-DR units in heavy woods
  lose the woods' +2 (air burst, §12.1-12.2; :meth:`.fire.Combat.fire_math`).
* **Indirect fire** (:class:`~.actions.IndirectFire`): a mortar with a cost in
  brackets (``indirect_cost``) fires through a *spotting hex*: any hex within
  2 hexes in clear LOS of the mortar and not held by the enemy (it may lie
  outside the mortar's arc).  The target must be in the mortar's arc and in
  the spotting hex's LOS; range and minimum range count from the mortar; the
  elevation modifiers (and, ASSUMPTION, the smoke the line of fire meets) come
  from the spotting hex (§12.0: the mortar has the spotter's LOS "for all
  purposes").  ASSUMPTION: indirect fire is one mortar's (no firegroup), and
  the spotting hex is never the mortar's own (from there it fires directly).
* **Smoke** (:class:`~.actions.SmokeFire`, §13.1): mortars of 8 cm or more
  (the catalog's ``smoke`` flag) fire it like an attack, directly or through
  a spotting hex, at their fire (or indirect) cost; pioneers place it in their
  own or an adjacent hex for 2 AP (§19.0).  Smoke always lands and is +2
  (§13.1); it never harms units.  A firefight may take the capability away
  (``[[units]] smoke = false``).
* **Smoke in fire** (§13): fire that starts or ends in a smoke hex gets its
  smoke DM, and each smoke hex the line passes (only +1 smoke can be passed)
  adds its DM; all cumulative.  The LOS effect is :meth:`.board.CohBoard.smoke_los`.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from wargame.engine import GameState, RuleContext, Unit, var_change

from ._core import AP_POOL, MAX_CAPS_PER_ROLL, Mixin
from .actions import Flame, IndirectFire, SmokeFire

__all__ = ["PIONEER_SMOKE_AP", "SMOKE_PLACED", "Mortars"]

#: Pioneers place smoke for 2 AP (CoH 2e §19.0).
PIONEER_SMOKE_AP = 2
#: Smoke placed by units is +2 unless a firefight says otherwise (§13.1).
SMOKE_PLACED = 2
#: How far a spotting hex may be from its mortar (§12.0).
SPOTTER_REACH = 2
_NOT_KEPT = object()  # a cache miss (None is a kept answer)


class Mortars(Mixin):
    """Mixin: indirect fire, smoke fire and the attack dispatch of
    :meth:`.fire.Combat.do_fire`."""

    board: Any
    specs: dict[str, Any]

    # -- the attack dispatch (used by Combat.do_fire) ---------------------- #
    def attack_problem(
        self, state: GameState, side: str, a: Any
    ) -> tuple[str | None, int]:
        """Why an attack action (fire, indirect fire, flamethrower) is illegal,
        and its cost."""
        lead = state.units.get(a.units[0]) if a.units else None
        if lead is not None and lead.side == side:
            why = self.bunker_fire_problem(state, lead)  # §18.1.2 (bunkers.py)
            if why is not None:
                return why, 0
        if isinstance(a, IndirectFire):
            return self.indirect_problem(state, side, a)
        if isinstance(a, Flame):
            return self.flame_problem(state, side, a)  # type: ignore[no-any-return]
        return self.fire_problem(state, side, a)  # type: ignore[no-any-return]

    def resolved_attack(self, state: GameState, side: str, a: Any) -> Any:
        """The attack with its choices made: an indirect fire's spotting hex."""
        if isinstance(a, IndirectFire) and a.spotter is None:
            lead = state.units[a.units[0]]
            return dataclasses.replace(
                a, spotter=self.best_spotter(state, side, lead, a.hex)
            )
        return a

    def attack_kwargs(self, a: Any) -> dict[str, Any]:
        """What :meth:`fire_math` needs to know of the attack's kind."""
        if isinstance(a, IndirectFire):
            return {"spotter": a.spotter}
        if isinstance(a, Flame):
            return {"flame": True}
        return {}

    def attack_words(self, a: Any) -> str:
        """The fire event's words."""
        if isinstance(a, IndirectFire):
            return f"fires indirectly at {a.hex}, spotted from {a.spotter} (§12.0)"
        if isinstance(a, Flame):
            return f"flamethrower at {a.hex} (§19.1)"
        n = len(a.units) - 1
        return f"fires at {a.hex}" + (f" with {n} supporting" if n else "")

    # -- smoke in fire ---------------------------------------------------- #
    def smoke_dm(self, state: GameState, frm: str, to: str) -> int:
        """The smoke DM of fire from ``frm`` at ``to`` (§13): the smoke of
        both ends and of every hex passed (in close combat, the hex's once)."""
        raw = state.vars.get("smoke")
        if not raw:
            return 0
        smoke = self.smoke_map(raw)
        n = int(smoke.get(to, 0))
        if frm != to:
            n += int(smoke.get(frm, 0)) + int(self.board.smoke_passed(frm, to, smoke))
        return n

    def extra_dms(
        self, state: GameState, target: Unit, eye: str, to: str, *, flank: bool = True
    ) -> list[tuple[int, str]]:
        """DMs :meth:`fire_math` adds: smoke (§13) and fortifications (§18;
        ``flank``: the attack hits the flank, for a bunker's DM)."""
        out: list[tuple[int, str]] = []
        n = self.smoke_dm(state, eye, to)
        if n:
            out.append((n, f"smoke {n:+d} (§13)"))
        out += self.fort_dms(state, target, to, flank=flank)
        return out

    # -- spotting hexes ---------------------------------------------------- #
    def spotting_hexes(self, state: GameState, side: str, mortar: Unit) -> list[str]:
        """Hexes a mortar may spot through (§12.0): within 2 hexes, in its clear
        LOS, without a seen enemy unit, other than its own hex."""
        assert mortar.hex is not None
        memo = self.memo(state)
        if memo is not None:
            mkey = ("spotting", side, mortar.id, mortar.hex)
            kept = memo.get(mkey)
            if kept is None:
                kept = memo[mkey] = tuple(self._spotting(state, side, mortar))
            return list(kept)
        return self._spotting(state, side, mortar)

    def _spotting(self, state: GameState, side: str, mortar: Unit) -> list[str]:
        assert mortar.hex is not None
        around = self.board.within(mortar.hex, SPOTTER_REACH)
        held = frozenset(h for h in around if self.enemy_in(state, h, side))
        key = (mortar.hex, held, tuple(map(tuple, state.vars.get("smoke") or ())))
        cache: dict[Any, list[str]] = self.__dict__.setdefault("_spotter_cache", {})
        got = cache.get(key)
        if got is None:
            if len(cache) > 4096:
                cache.clear()
            got = cache[key] = [
                h
                for h in around
                if h != mortar.hex
                and h not in held
                and self.sight(state, mortar.hex, h).clear
            ]
        return list(got)

    def best_spotter(
        self, state: GameState, side: str, mortar: Unit, target: str
    ) -> str | None:
        """The spotting hex a player would pick for ``target`` (ASSUMPTION:
        the highest, for the elevation modifiers; then the least smoke on the
        line; then the nearest; then by label).  ``None``: no spotting hex
        sees the target."""
        memo = self.memo(state)
        if memo is not None:
            key = ("best_spotter", side, mortar.id, mortar.hex, target)
            if key not in memo:
                memo[key] = self._best_spotter(state, side, mortar, target)
            return memo[key]  # type: ignore[no-any-return]
        return self._best_spotter(state, side, mortar, target)

    def _best_spotter(
        self, state: GameState, side: str, mortar: Unit, target: str
    ) -> str | None:
        assert mortar.hex is not None
        far = int(self.specs[mortar.id].type.range or 0) * 2 + SPOTTER_REACH
        # The pick reads only the board, the smoke and the spotting hexes
        # (themselves of the mortar's hex, the smoke and the held hexes), so it
        # is kept across states by those (a speed-up only, issue #23).
        spots = tuple(self.spotting_hexes(state, side, mortar))
        key = (mortar.hex, far, spots, state.vars.get("smoke") or (), target)
        cache: dict[Any, Any] = self.__dict__.setdefault("_best_spotter_cache", {})
        try:
            got = cache.get(key, _NOT_KEPT)
        except TypeError:  # unhashable smoke: work it out each time
            return self._pick_spotter(state, side, mortar, target, far)
        if got is _NOT_KEPT:
            if len(cache) > 20000:
                cache.clear()
            got = cache[key] = self._pick_spotter(state, side, mortar, target, far)
        return got  # type: ignore[no-any-return]

    def _pick_spotter(
        self, state: GameState, side: str, mortar: Unit, target: str, far: int
    ) -> str | None:
        assert mortar.hex is not None
        # what each spotting hex sees within the mortar's reach, kept per hex
        # (Hidden.sight_fan); a target beyond it is looked at directly
        memo = self.memo(state)
        key = ("spotter_fans", side, mortar.id, mortar.hex)
        fans = None if memo is None else memo.get(key)
        if fans is None:
            fans = [
                (h, self.sight_fan(state, h, None, far))
                for h in self.spotting_hexes(state, side, mortar)
            ]
            if memo is not None:
                memo[key] = fans
        dist = self.board.distance
        cands: list[str] = [
            h
            for h, fan in fans
            if (
                target in fan
                if dist(h, target) <= far
                else self.sight(state, h, target).clear
            )
        ]
        if not cands:
            return None
        return min(
            cands,
            key=lambda h: (
                -self.board.level[h],
                self.smoke_dm(state, h, target),
                self.board.distance(mortar.hex, h),
                h,
            ),
        )

    def spotter_problem(
        self, state: GameState, side: str, mortar: Unit, spotter: str, target: str
    ) -> str | None:
        """Why ``spotter`` is no spotting hex of ``mortar`` for ``target``."""
        assert mortar.hex is not None
        if spotter not in self.board.labels:
            return f"spotting hex {spotter!r} is not a hex of the map"
        if spotter == mortar.hex:
            return "the spotting hex is another hex than the mortar's (§12.0)"
        if self.board.distance(mortar.hex, spotter) > SPOTTER_REACH:
            return (
                f"spotting hex {spotter} is more than {SPOTTER_REACH} hexes from "
                f"{mortar.hex} (§12.0)"
            )
        if self.enemy_in(state, spotter, side):
            return f"spotting hex {spotter} is held by the enemy (§12.0)"
        sight = self.sight(state, mortar.hex, spotter)
        if not sight.clear:
            return f"no line of sight from {mortar.hex} to {spotter}: {sight.why}"
        sight = self.sight(state, spotter, target)
        if not sight.clear:
            return (
                f"no line of sight from spotting hex {spotter} to {target}: "
                f"{sight.why} (§12.0)"
            )
        return None

    # -- legality ---------------------------------------------------------- #
    def _shooter(
        self, state: GameState, side: str, units: tuple[str, ...], hex_: str, what: str
    ) -> tuple[Unit | None, str | None]:
        """The one unit of a single-unit fire action, or why not."""
        if len(units) != 1:
            return None, f"{what} is made by one unit (ASSUMPTION: no firegroup)"
        u = state.units.get(units[0])
        if u is None or u.side != side or u.destroyed or u.hex is None:
            return None, f"{side} fires only with its own units on the map"
        if hex_ not in self.board.labels:
            return None, f"{hex_!r} is not a hex of the map"
        m = self.marker(u)
        if m is not None and (m.no_fire or m.rally_only):
            return None, f"{u.name} is {m.name}: it may not fire (§7.5)"
        return u, None

    def _caps_problem(
        self, state: GameState, side: str, hex_: str, caps: Any, pay: str, cost: int
    ) -> str | None:
        if not isinstance(caps, int) or not 0 <= caps <= MAX_CAPS_PER_ROLL:
            return f"{caps!r} CAPs: at most 2 CAPs modify a roll (§3.2)"
        if not caps:
            return None
        rolls = max(1, len(self.enemy_in(state, hex_, side)))
        have = self.caps(state, side)
        if pay == "command":
            have -= cost
        elif pay == "ap":
            have -= max(0, cost - (self.pool(state, side) or AP_POOL))
        if caps * rolls > have:
            return (
                f"{caps} CAP on each of {rolls} roll(s) is more than the "
                f"{max(have, 0)} CAPs left (§3.2)"
            )
        return None

    def _target_problem(self, state: GameState, side: str, hex_: str) -> str | None:
        if not self.enemy_in(state, hex_, side) and not self.suspected(
            state, side, hex_
        ):
            return f"no enemy is seen or may be hidden at {hex_}"
        return None

    def _range_problem(self, u: Unit, hex_: str) -> str | None:
        assert u.hex is not None
        ut = self.specs[u.id].type
        d = self.board.distance(u.hex, hex_)
        reach = int(ut.range or 0) * 2
        m = self.marker(u)
        if m is not None and m.max_range is not None:
            reach = min(reach, int(m.max_range))
        if d == 0:
            return f"{u.name} fires at another hex than its own"
        if d > reach:
            return (
                f"{hex_} is {d} hexes away, beyond {u.name}'s reach of {reach} (§7.7.1)"
            )
        if d < int(ut.min_range or 0):
            return f"{hex_} is inside {u.name}'s minimum range {ut.min_range} (§12.0)"
        return None

    def _arc_ok(self, u: Unit, hex_: str) -> bool:
        assert u.hex is not None
        return bool(self.all_round(u) or self.board.in_arc(u.hex, u.facing, hex_))

    def indirect_problem(
        self, state: GameState, side: str, a: IndirectFire
    ) -> tuple[str | None, int]:
        """Why an indirect fire is illegal (``None``) and its cost (§12.0)."""
        u, why = self._shooter(state, side, a.units, a.hex, "indirect fire")
        if u is None or why is not None:
            return why, 0
        assert u.hex is not None
        ut = self.specs[u.id].type
        if ut.indirect_cost is None:
            return (
                f"{u.name} has no indirect fire cost: only mortars with a cost in "
                "brackets fire indirectly (CoH 2e §12.0)"
            ), 0
        m = self.marker(u)
        cost = int(ut.indirect_cost) + (int(m.fire_ap) if m is not None else 0)
        if self.enemy_in(state, u.hex, side):
            return f"{u.name} shares its hex with the enemy (§6.0, §7.7.3)", 0
        why = self._range_problem(u, a.hex)
        if why is None and not self._arc_ok(u, a.hex):
            why = f"{a.hex} is outside {u.name}'s arc of fire (§12.0)"
        if why is None:
            if a.spotter is not None:
                why = self.spotter_problem(state, side, u, a.spotter, a.hex)
            elif self.best_spotter(state, side, u, a.hex) is None:
                why = (
                    f"no spotting hex within {SPOTTER_REACH} hexes of {u.hex} sees "
                    f"{a.hex} (§12.0)"
                )
        why = why or self._target_problem(state, side, a.hex)
        why = why or self._caps_problem(state, side, a.hex, a.caps, a.pay, cost)
        return (why, 0) if why else (None, cost)

    def may_fire_smoke(self, uid: str) -> bool:
        """Whether a unit may fire smoke (§13.1): the counter can, and the
        firefight has not taken it away (``[[units]] smoke = false``)."""
        return bool(self.unit_option(uid, "smoke", bool(self.specs[uid].type.smoke)))

    def places_smoke_by_hand(self, uid: str) -> bool:
        """Pioneers (smoke-capable foot units that are no mortars) place smoke
        in their own or an adjacent hex (§13.1, §19.0)."""
        ut = self.specs[uid].type
        return bool(ut.kind == "foot" and not ut.he and self.may_fire_smoke(uid))

    def smoke_problem(
        self, state: GameState, side: str, a: SmokeFire
    ) -> tuple[str | None, int]:
        """Why a smoke fire is illegal (``None``) and its cost (§13.1, §19.0)."""
        u, why = self._shooter(state, side, a.units, a.hex, "smoke")
        if u is None or why is not None:
            return why, 0
        assert u.hex is not None
        ut = self.specs[u.id].type
        if not self.may_fire_smoke(u.id):
            return (
                f"{u.name} may not fire smoke (CoH 2e §13.1: mortars of 8 cm or "
                "more and pioneers, unless the firefight says otherwise)"
            ), 0
        why = self.bunker_fire_problem(state, u)  # §18.1.2 (bunkers.py)
        if why is not None:
            return why, 0
        m = self.marker(u)
        extra = int(m.fire_ap) if m is not None else 0
        d = self.board.distance(u.hex, a.hex)
        if d and self.enemy_in(state, u.hex, side):
            return f"{u.name} shares its hex with the enemy (§6.0, §7.7.3)", 0
        if self.places_smoke_by_hand(u.id):
            if a.spotter is not None:
                return f"{u.name} places smoke itself, with no spotting hex", 0
            if d > 1:
                return (
                    f"{u.name} places smoke in its own hex or one hex away "
                    "(§13.1, §19.0)"
                ), 0
            if d == 1 and not self._arc_ok(u, a.hex):
                return f"{a.hex} is outside {u.name}'s arc of fire (§6.1)", 0
            return None, PIONEER_SMOKE_AP + extra
        why = self._range_problem(u, a.hex)
        if why:
            return why, 0
        cost = int(ut.fire_cost or 0) + extra
        if not self._arc_ok(u, a.hex):
            if not ut.turret:
                return f"{a.hex} is outside {u.name}'s arc of fire (§6.1)", 0
            cost += 1  # turret fire outside the arc (§15.4)
        if a.spotter is None and self.sight(state, u.hex, a.hex).clear:
            return None, cost
        if ut.indirect_cost is None:
            return (
                f"no line of sight from {u.hex} to {a.hex}, and {u.name} does not "
                "fire indirectly (§12.0, §13.1)"
            ), 0
        if a.spotter is not None:
            why = self.spotter_problem(state, side, u, a.spotter, a.hex)
        elif self.best_spotter(state, side, u, a.hex) is None:
            why = f"no spotting hex within {SPOTTER_REACH} of {u.hex} sees {a.hex}"
        if why:
            return why, 0
        return None, int(ut.indirect_cost) + extra

    # -- options ------------------------------------------------------------ #
    # ASSUMPTION (a choice of what to offer, not a rule; the checks accept any
    # hex): the options are indirect fire at seen enemies within reach and at
    # hexes that may hide enemies within normal range and within 3 hexes of an
    # objective or a seen enemy; smoke at hexes of seen enemies, of own units
    # and next to own units (screens).  Mortars reach most of a 50 m board, and
    # every hex of it would drown the other choices.
    def _near_interest(self, state: GameState, side: str) -> set[str]:
        seen = {
            x.hex
            for x in state.units.values()
            if x.side != side and not x.destroyed and x.hex and not x.hidden
        }
        out: set[str] = set()
        for h in sorted(set(self.objective_hexes) | seen):
            out.update(self.board.within(h, 3))
        return out

    def _targets(self, state: GameState, side: str, u: Unit) -> list[str]:
        """Hexes offered for an attack (see above)."""
        assert u.hex is not None
        ut = self.specs[u.id].type
        reach = int(ut.range or 0) * 2
        mine = {x.hex for x in state.units.values() if x.side == side and x.hex}
        enemy = {
            x.hex
            for x in state.units.values()
            if x.side != side and not x.destroyed and x.hex and not x.hidden
        }
        out = {h for h in enemy if self.board.distance(u.hex, h) <= reach}
        if int(state.vars.get(f"hidden_count:{self.other(side)}", 0)) > 0:
            interest = self._near_interest(state, side)
            near = {h for x in mine if x for h in self.board.within(x, 2)}
            out |= {
                h
                for h in self.board.within(u.hex, int(ut.range or 0))
                if h in interest
                and h not in mine
                and h not in enemy
                and (h not in near or self.suspected(state, side, h))
            }
        return sorted(out)

    def indirect_options(self, state: GameState, side: str) -> list[IndirectFire]:
        """Each mortar's indirect fire at each offered target, through the best
        spotting hex."""
        out: list[IndirectFire] = []
        for u in state.units.values():
            if u.side != side or u.destroyed or u.hex is None:
                continue
            if self.specs[u.id].type.indirect_cost is None:
                continue
            pays = self.pays(state, side, (u.id,))
            for h in self._targets(state, side, u):
                probe = IndirectFire((u.id,), h, None, "ap")
                problem, cost = self.indirect_problem(state, side, probe)
                if problem is not None:
                    continue
                for pay in pays:
                    if self.pay_problem(state, side, (u.id,), pay, cost) is None:
                        out.append(
                            probe
                            if pay == "ap"
                            else IndirectFire((u.id,), h, None, pay)
                        )
        return out

    def smoke_options(self, state: GameState, side: str) -> list[SmokeFire]:
        """Each smoke-capable unit's smoke at each offered hex."""
        out: list[SmokeFire] = []
        hexes: set[str] = set()
        for x in state.units.values():
            if x.destroyed or x.hex is None or (x.side != side and x.hidden):
                continue
            hexes.add(x.hex)
            if x.side == side:
                hexes.update(self.board.neighbors(x.hex))
        for u in state.units.values():
            if u.side != side or u.destroyed or u.hex is None:
                continue
            if not self.may_fire_smoke(u.id):
                continue
            pays = self.pays(state, side, (u.id,))
            for h in sorted(hexes):
                problem, cost = self.smoke_problem(
                    state, side, SmokeFire((u.id,), h, "ap")
                )
                if problem is not None:
                    continue
                for pay in pays:
                    if self.pay_problem(state, side, (u.id,), pay, cost) is None:
                        out.append(SmokeFire((u.id,), h, pay))
        return out

    # -- resolution --------------------------------------------------------- #
    def do_smoke(self, ctx: RuleContext, side: str, a: SmokeFire) -> None:
        """Pay and put +2 smoke on the hex (§13.1: it always lands)."""
        st = ctx.state
        problem, cost = self.smoke_problem(st, side, a)
        assert problem is None, problem
        u = st.units[a.units[0]]
        self.reveal_actors(ctx, a.units, "fires smoke")
        self.pay(ctx, side, a.units, a.pay, cost, "smoke")
        self.reveal_marker(ctx, st.units[u.id], "fire")
        had = [(str(h), int(n)) for h, n in st.vars.get("smoke") or ()]
        smoke = (*had, (a.hex, SMOKE_PLACED))
        ctx.emit(
            "smoke",
            side=side,
            unit=u.id,
            hex_to=a.hex,
            result=f"+{SMOKE_PLACED} smoke",
            detail=f"{u.name} fires smoke at {a.hex} (§13.1)",
            changes=var_change(smoke=smoke),
        )
