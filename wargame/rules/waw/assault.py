"""World at War assault and overrun: the attack into a hex, retreat, advance.

Rule sections: the seed's assault procedure (RULES_NOTES 1.2 FOUND [B]: assault
or overrun by the attacker and the defenders' terrain, simultaneous results,
the defender driven out retreats one hex straight back or is destroyed), HQ
leadership in assault, the HQ risk roll of a stack hit (HQ in combat), 5.2
passengers, the seed 000 bridge units (a laid bridge may be assaulted).
"""

from __future__ import annotations

import math
from typing import Any

from wargame.engine import (
    Action,
    GameState,
    RuleContext,
    Unit,
    control_change,
    unit_change,
)

from ._common import (
    STACK_LIMIT,
    _plural,
    _Queries,
    _Snap,
    _unit_event,
)
from .actions import (
    Assault,
)
from .combat import (
    assault_type,
    hit_result,
    resolve_assault,
)
from .unit_attrs import carried_by, disrupted


class _Assault(_Queries):
    """Assault and overrun (mixin of :class:`~.ruleset.WawRuleset`)."""

    def _why_not_assault(self, state: GameState, a: Assault) -> str | None:
        u, r = self._action_actor(state, a.unit)
        if r:
            return r
        if self.info[u.id].is_hq:
            return f"{u.name} is an HQ: HQs do not assault, they lend leadership"
        if (carrier := carried_by(u)) is not None:
            return f"{u.name} is aboard {state.units[carrier].name}: dismount first"
        if disrupted(u):
            # ASSUMPTION: disrupted units may not assault (as they may not fire).
            return f"{u.name} is disrupted and cannot assault"
        if self._side_vals(u).assault <= 0:
            return f"{u.name} has no assault dice"
        return self._assault_reason(self._snap(state), u, a.hex, a.with_hq)

    def _assault_reason(
        self, snap: _Snap, u: Unit, h: Any, with_hq: bool
    ) -> str | None:
        if h not in self.board:
            return f"{h!r} is not a hex of the map"
        if h not in self.board.neighbors[u.position]:  # type: ignore[index]
            return f"{h} is not adjacent to {u.name} at {u.position}"
        if not any(
            not self.info[x.id].is_helicopter
            for x in self._combatants(snap, h, self.enemy_of(u.side))
        ):
            # ASSUMPTION 43: helicopters are not assaulted (they fly; fire at them).
            return f"there is no enemy ground unit to assault at {h}"
        # ASSUMPTION: assaulting costs the MP of entering the defender's hex.
        cost = self._enter_cost(snap.state, u, u.position, h, assault=True)  # type: ignore[arg-type]
        if cost == math.inf:
            return f"{u.name} cannot enter {h} ({self._terrain_text(h)})"
        left = self._mp(u) - self._spent(u)
        if cost > left:
            return f"{u.name} has {left:g} MP left; assaulting into {h} costs {cost:g}"
        if with_hq:
            return self._why_no_leader(snap, u)
        return None

    def _assault_options(self, snap: _Snap, u: Unit) -> list[Action]:
        """Every legal Assault of ``u`` (not disrupted) on its neighbours."""
        out: list[Action] = []
        if self._side_vals(u).assault > 0:
            lead = self._leader(snap, u) is not None
            enemy = self.enemy_of(u.side)
            for nb in self.board.neighbors[u.position]:  # type: ignore[index]
                # no enemy combat unit there (snap.combat counts the units of
                # _combatants): no assault, as _assault_reason says
                if not snap.combat.get((nb, enemy)):
                    continue
                if self._assault_reason(snap, u, nb, False) is None:
                    out.append(Assault(u.id, nb))
                    if lead:
                        out.append(Assault(u.id, nb, True))
        return out

    def _do_assault(self, ctx: RuleContext, a: Assault) -> None:
        st = ctx.state
        u = st.units[a.unit]
        if not self._begin(ctx, u):
            return
        snap = self._snap(st)
        h = a.hex
        frm: str = u.position  # type: ignore[assignment]
        enemy = self.enemy_of(u.side)
        # ASSUMPTION 43: helicopters in the hex take no part in an assault.
        defenders = [
            x
            for x in self._combatants(snap, h, enemy)
            if not self.info[x.id].is_helicopter
        ]
        ai = self.info[u.id]
        kind = assault_type(
            attackers_are_vehicles=ai.utype.is_vehicle,
            defenders_are_infantry=all(self.info[d.id].is_infantry for d in defenders),
            defender_terrain_open=self.board.defence_dice(h) == 0,
        )
        changes: list[Any] = []
        lead = 0
        if a.with_hq:
            hq = self._leader(snap, u)
            assert hq is not None
            lead = self._leadership(hq)
            changes += unit_change(hq.id, lead_used=True)
        dlead = 0
        dhq = snap.hq.get(h)
        if (
            dhq is not None
            and dhq.side == enemy
            and not dhq.attrs.get("lead_used")
            and self._leadership(dhq) > 0
        ):
            # ASSUMPTION: a defending HQ lends its leadership to the defence if
            # it has not lent it yet this turn.
            dlead = self._leadership(dhq)
            changes += unit_change(dhq.id, lead_used=True)
        cost = self._enter_cost(st, u, frm, h, assault=True)
        changes += unit_change(u.id, mp=self._spent(u) + cost)
        changes += self._unhide(u)
        verb = "overruns" if kind.value == "overrun" else "assaults"
        _unit_event(
            ctx,
            "assault",
            u,
            target=h,
            hex_from=frm,
            hex_to=h,
            result=kind.value,
            detail=(
                f"{u.name} {verb} {h} held by "
                + ", ".join(d.name for d in defenders)
                + (f" (HQ leadership +{lead})" if lead else "")
            ),
            changes=changes,
        )
        res = resolve_assault(
            ctx.rng,
            [self._side_vals(u).assault],
            [self._side_vals(d).assault for d in defenders],
            attacker_leadership=lead,
            defender_leadership=dlead,
            kind=kind,
        )
        for who, roll, side_id in (
            (u.name, res.attacker, u.side),
            (" and ".join(d.name for d in defenders), res.defender, enemy),
        ):
            ctx.emit(
                "assault_roll",
                side=side_id,
                unit=u.id if side_id == u.side else None,
                target=h,
                hex_to=h,
                dice=roll.dice,
                needed=roll.to_hit,
                hits=roll.hits,
                result=_plural(roll.hits, "hit"),
                detail=(f"{who}: {len(roll.dice)} assault dice, hit on {roll.to_hit}+"),
            )
            if roll.allocation_dice:
                ctx.emit(
                    "allocation",
                    side=side_id,
                    target=h,
                    dice=roll.allocation_dice,
                    result="placed",
                    detail="odd hits placed on the enemy stack by d6",
                )
        # Results are simultaneous (FOUND [B]): hits on both stacks, then checks.
        d_aff = d_dead = False
        for d, n in zip(defenders, res.attacker.allocation, strict=True):
            if n:
                hr = hit_result(
                    n,
                    self._target_type(d),
                    "assault",
                    self._ustate(d),
                    one_sided=self.info[d.id].utype.one_sided,
                    fragile=self.info[d.id].is_bridge_layer,
                )
                aff, dead = self._hit(ctx, d, hr, by=f"{u.name}'s {kind.value}")
                d_aff, d_dead = d_aff or aff, d_dead or dead
        a_aff = a_dead = False
        if res.defender.allocation[0]:
            hr = hit_result(
                res.defender.allocation[0],
                self._target_type(u),
                "assault",
                self._ustate(u),
                one_sided=ai.utype.one_sided,
                fragile=ai.is_bridge_layer,
            )
            a_aff, a_dead = self._hit(ctx, u, hr, by="the defenders")
        if d_aff:
            self._hq_stack(ctx, h, enemy, d_dead)
        if a_aff:
            self._hq_stack(ctx, frm, u.side, a_dead)
        # FOUND [B]: the defender keeps the hex unless it took more hits than it
        # scored; otherwise it retreats one hex straight back or is destroyed.
        if u.destroyed:
            outcome = "attacker destroyed"
        elif res.defender_holds:
            outcome = "defender holds"
        else:
            self._retreat(ctx, frm, h, enemy)
            outcome = "defender driven out"
            # the attacker takes the hex, unless it is water with no bridge left
            # (an assaulted MTU-55 bridge that is gone: ASSUMPTION 56)
            if (
                not any(x.side == enemy for x in self._snap(st).units(h))
                and self._enter_cost(st, st.units[u.id], frm, h) != math.inf
            ):
                self._advance(ctx, u, h)
                outcome = "hex taken"
        _unit_event(
            ctx,
            "assault_result",
            u,
            target=h,
            result=outcome,
            detail=(
                f"{kind.value} on {h}: {res.attacker.hits} hits scored, "
                f"{res.defender.hits} taken: {outcome}"
            ),
            changes=self._end_action(st, u),
        )

    def _retreat(self, ctx: RuleContext, origin: str, h: str, side: str) -> None:
        """Defenders driven out of ``h`` retreat one hex straight back.

        FOUND [B]: "retreats one hex straight back along the assault path or is
        destroyed".  ASSUMPTION: destroyed when that hex is off the map,
        impassable for it, holds enemy units or a full stack; a defending HQ goes
        with the retreating units, or dies if none could retreat.
        """
        st = ctx.state
        dest = self.board.beyond(origin, h)
        retreated = False
        for d in self._combatants(self._snap(st), h, side):
            snap = self._snap(st)
            why = None
            if d.attrs.get("deployed"):
                # ASSUMPTION 56: a laid bridge cannot fall back; it is lost.
                why = "a laid bridge cannot move"
            elif dest is None:
                why = "the map edge"
            elif self.board.move_cost(h, dest, self.info[d.id].mobility) == math.inf:
                why = f"{dest} is impassable"
            elif any(x.side != side for x in snap.units(dest)):
                why = f"the enemy at {dest}"
            elif snap.count.get((dest, side), 0) + 1 > STACK_LIMIT:
                why = f"the full stack at {dest}"
            p = self._passenger(st, d)
            if why is None:
                changes: list[Any] = list(unit_change(d.id, position=dest))
                changes += self._unhide(d)
                if p is not None:
                    changes += unit_change(p.id, position=dest)
                if st.control.get(dest) != side:  # type: ignore[arg-type]
                    changes += control_change(dest, side)  # type: ignore[arg-type]
                ctx.emit(
                    "retreat",
                    side=side,
                    formation=d.formation,
                    unit=d.id,
                    hex_from=h,
                    hex_to=dest,
                    result="retreats",
                    detail=f"{d.name} falls back from {h} to {dest}",
                    changes=changes,
                )
                retreated = True
            else:
                changes = list(unit_change(d.id, strength="destroyed"))
                if p is not None:
                    changes += unit_change(p.id, strength="destroyed")
                ctx.emit(
                    "retreat",
                    side=side,
                    formation=d.formation,
                    unit=d.id,
                    hex_from=h,
                    result="destroyed",
                    detail=f"{d.name} cannot fall back ({why}) and is destroyed",
                    changes=changes,
                )
        snap = self._snap(st)
        hq = snap.hq.get(h)
        if hq is None or hq.side != side:
            return
        if retreated and dest not in snap.hq:
            ctx.emit(
                "retreat",
                side=side,
                formation=hq.formation,
                unit=hq.id,
                hex_from=h,
                hex_to=dest,
                result="retreats",
                detail=f"{hq.name} falls back with its units to {dest}",
                changes=unit_change(hq.id, position=dest),
            )
        else:
            ctx.emit(
                "retreat",
                side=side,
                formation=hq.formation,
                unit=hq.id,
                hex_from=h,
                result="destroyed",
                detail=f"{hq.name} is caught at {h} and destroyed",
                changes=unit_change(hq.id, strength="destroyed"),
            )

    def _advance(self, ctx: RuleContext, u: Unit, h: str) -> None:
        """ASSUMPTION: a successful assault takes the hex: the attacker moves in."""
        st = ctx.state
        frm = u.position
        changes: list[Any] = list(unit_change(u.id, position=h))
        p = self._passenger(st, u)
        if p is not None:
            changes += unit_change(p.id, position=h)
        if st.control.get(h) != u.side:
            changes += control_change(h, u.side)
        _unit_event(
            ctx,
            "advance",
            u,
            hex_from=frm,
            hex_to=h,
            result="captured",
            detail=f"{u.name} advances into {h}",
            changes=changes,
        )
