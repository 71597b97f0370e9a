"""Fire, firegroups, close combat and hit markers (CoH 2e §7, seed 003 §9.12,
§10.0 #3, §10.3): legality and the attack numbers.  The rolls and their
results are in :mod:`.attack_rolls`, rally in :mod:`.rally`.

* **AV = FP + 2d6 (+ up to 2 CAPs)** against **DV = DR + terrain DM + the other
  modifiers**; a hit on AV >= DV, the unit destroyed outright on AV >= DV + 4, and
  a second hit destroys it (§7.0-7.5).  FP is red against soft targets, blue
  against armoured ones (§7.1, §15.1).
* DR is the front DR, or the flank DR when the fire comes from outside the
  target's arc of fire (§7.3); close combat, HE and snipers always hit the flank.
* Range: beyond the printed range and up to twice it, -2 FP (long range); next
  to the target +3 FP (§7.7.1-7.7.2); elevation +1 FP / +1 DM (§11.2).
* Close combat (§7.7.3): fire at the own hex with an enemy in it, +4 FP (or -2
  for a crewed weapon's white-box FP), always at the flank DR.
* Every unit in the target hex is rolled against, friend and foe in a close
  combat hex (§7.5.1); a hex that may hide enemies is resolved against the
  hidden unit with the lowest front DR (seed 003 §10.0 #3) whether or not one
  is there, and the firer learns only whether something was hit.
* A firegroup adds +1 FP per supporter (seed 003 §9.12); modifiers are the
  leader's; it pays the leader's fire cost.
* Hit markers are drawn at random, face down, from the foot or vehicle pile
  (§7.5); KIA is revealed and the unit removed at once.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from wargame.engine import (
    GameState,
    RuleContext,
    Unit,
    pool_change,
    unit_change,
    var_change,
)

from ._core import MAX_CAPS_PER_ROLL, Mixin
from .actions import Fire
from .fire_terms import marker_dr, marker_fp, range_fp
from .hit_markers import HitMarker, hit_marker_decks, marker

__all__ = ["Combat", "FireMath"]


@dataclass(frozen=True)
class FireMath:
    """The numbers of one attack roll: FP and DV, each with its reasons."""

    fp: int
    dv: int
    flank: bool
    fp_terms: tuple[str, ...]
    dv_terms: tuple[str, ...]

    @property
    def needed(self) -> int:
        """The 2d6 total (with CAPs) that hits."""
        return self.dv - self.fp


class Combat(Mixin):
    """Mixin: fire legality, the attack numbers and their resolution."""

    board: Any
    specs: dict[str, Any]
    sides: tuple[str, str]

    # -- markers ---------------------------------------------------------- #
    def marker(self, u: Unit) -> HitMarker | None:
        """The unit's hit marker, if its side may see it (``None``: none or
        face down to the viewer)."""
        kind = u.attrs.get("hit") or u.attrs.get("marker")
        if not kind:
            return None
        return marker(str(kind), self.specs[u.id].type.kind)

    # -- the numbers ------------------------------------------------------ #
    def fire_math(
        self,
        state: GameState,
        leader: Unit,
        target: Unit,
        *,
        supporters: int = 0,
        at: str | None = None,
        tgt_hex: str | None = None,
        hidden_target: bool = False,
        spotter: str | None = None,
        flame: bool = False,
        bonus_fp: int = 0,
    ) -> FireMath | None:
        """FP and DV of ``leader`` attacking ``target`` (``None``: no FP of the
        colour the target needs, §7.1).  ``spotter``: the spotting hex of an
        indirect mortar attack, whose height gives the elevation modifiers
        (§12.0); ``flame``: a flamethrower attack (§19.1); ``bonus_fp``: a
        Careful Aiming card's +2 (card #9, CoH 2e §8.2)."""
        ut, tt = self.specs[leader.id].type, self.specs[target.id].type
        frm = at or leader.hex
        to = tgt_hex or target.hex
        assert frm is not None and to is not None
        d = self.board.distance(frm, to)
        cc = d == 0
        if flame:
            fm: FireMath | None = self.flame_math(leader, target, d)
            if fm is not None and bonus_fp:  # Careful Aiming on a flamethrower
                fm = replace(
                    fm,
                    fp=fm.fp + bonus_fp,
                    fp_terms=(
                        *fm.fp_terms,
                        f"Careful Aiming card {bonus_fp:+d} (card #9)",
                    ),
                )
            return fm
        sniper = self.is_sniper(leader.id)
        he = bool(ut.he)
        # transported units are always hit at the flank (§17.1)
        flank = cc or he or sniper or bool(target.attrs.get("carried_by"))
        if not flank and not hidden_target and target.facing is not None:
            flank = not self.board.in_arc(to, target.facing, frm)
        colour = self.shot_colour(ut, tt, flank=flank, he=he, cc=cc)  # §15.1, §15.5
        blue = colour == "blue"
        base = ut.fp_blue if blue else ut.fp_red
        if base is None:
            return None
        fp = int(base)
        terms = [f"{colour} FP {base}"]
        m = self.marker(leader)
        if m is not None and m.gun_damaged == colour:
            return None  # Gun Damaged: that colour cannot attack (§15.2)
        mod, why = marker_fp(m, colour)
        if why:
            fp += mod
            terms.append(why)
        if supporters:
            fp += supporters
            terms.append(f"firegroup +{supporters} (seed 003 §9.12)")
        if bonus_fp:
            fp += bonus_fp
            terms.append(f"Careful Aiming card {bonus_fp:+d} (card #9)")
        add, why = range_fp(crewed=bool(ut.crewed), reach=int(ut.range or 0), d=d)
        if why:
            fp += add
            terms.append(why)
        eye = spotter or frm  # indirect fire: elevation from the spotter (§12.0)
        fp_up, dm_up = (0, 0) if cc else self.board.elevation_bonus(eye, to)
        if fp_up:
            fp += fp_up
            terms.append("firing down +1 (§11.2)")
        dr = int(tt.dr_flank if flank else tt.dr_front)
        dv = dr
        dvt = [f"{'flank' if flank else 'front'} DR {dr}"]
        mod, why = marker_dr(self.marker(target), flank)
        if why:
            dv += mod
            dvt.append(why)
        dm = int(self.board.dm(to, he=he, air_burst_soft=he and not tt.armored))
        if dm:
            dv += dm
            dvt.append(f"terrain {dm:+d} ({self.board.terrain[to].replace('_', ' ')})")
        if dm_up:
            dv += dm_up
            dvt.append("target higher +1 (§11.2)")
        if target.attrs.get("hasty"):
            dv += 1
            dvt.append("hasty defence +1 (§18)")
        for add, why in self.extra_dms(state, target, eye, to, flank=flank):
            dv += add
            dvt.append(why)
        for mod, why in self.transport_dms(state, target, to):  # §15.6, §16.1
            dv += mod
            dvt.append(why)
        return FireMath(fp, dv, flank, tuple(terms), tuple(dvt))

    def is_sniper(self, uid: str) -> bool:
        """Whether a unit is a sniper squad (seed 003 §10.3)."""
        return bool(self.specs[uid].type.sniper)

    def no_cap_loss(self, uid: str) -> bool:
        """Trucks and wagons cost no CAP when lost and never claim control
        hexes (§7.4, §2.5.2): unarmoured wheeled carriers."""
        ut = self.specs[uid].type
        return ut.mobility == "wheeled" and ut.can_transport and not ut.armored

    # -- legality --------------------------------------------------------- #
    def fire_problem(
        self, state: GameState, side: str, a: Fire
    ) -> tuple[str | None, int]:
        """Why a fire action is illegal (``None``) and its AP cost."""
        if not a.units:
            return "name the fire leader", 0
        us = [state.units.get(x) for x in a.units]
        if any(u is None or u.side != side or u.destroyed or u.hex is None for u in us):
            return f"{side} fires only with its own units on the map", 0
        if len(set(a.units)) != len(a.units):
            return "a unit is named twice", 0
        if not isinstance(a.caps, int) or not 0 <= a.caps <= MAX_CAPS_PER_ROLL:
            return f"{a.caps!r} CAPs: at most 2 CAPs modify a roll (§3.2)", 0
        if a.hex not in self.board.labels:
            return f"{a.hex!r} is not a hex of the map", 0
        lead = us[0]
        assert lead is not None and lead.hex is not None
        ut = self.specs[lead.id].type
        if ut.fire_cost is None:
            return f"{lead.name} cannot attack (CoH 2e §16.0)", 0
        rides = self.rider_problem(lead)  # §17.0
        if rides:
            return str(rides), 0
        m = self.marker(lead)
        if m is not None and (m.no_fire or m.rally_only):
            return f"{lead.name} is {m.name}: it may not fire (§7.5)", 0
        cost = int(ut.fire_cost) + (int(m.fire_ap) if m is not None else 0)
        d = self.board.distance(lead.hex, a.hex)
        enemies_here = self.enemy_in(state, lead.hex, side)
        if d == 0:
            if not enemies_here:
                return "close combat needs an enemy in the hex (§7.7.3)", 0
            if lead.attrs.get("cc_turn") == state.vars.get("turn_no"):
                return (
                    f"{lead.name} has made its close-combat attack this turn (§7.7.3)",
                    0,
                )
        else:
            if enemies_here:
                return (
                    f"{lead.name} shares its hex with the enemy: it fires only "
                    "into its own hex (§6.0, §7.7.3)"
                ), 0
            reach = int(ut.range or 0) * 2
            if m is not None and m.max_range is not None:
                reach = min(reach, int(m.max_range))
            if d > reach:
                return (
                    f"{a.hex} is {d} hexes away, beyond {lead.name}'s reach of "
                    f"{reach} (§7.7.1)",
                    0,
                )
            if ut.min_range and d < int(ut.min_range):
                return (
                    f"{a.hex} is inside {lead.name}'s minimum range of {ut.min_range}",
                    0,
                )
            if (
                lead.facing is not None
                and not self.all_round(lead)
                and not self.board.in_arc(lead.hex, lead.facing, a.hex)
            ):
                if not ut.turret:
                    return f"{a.hex} is outside {lead.name}'s arc of fire (§6.1)", 0
                cost += 1  # turret fire outside the arc (§15.4)
            sight = self.sight(state, lead.hex, a.hex)
            if not sight.clear:
                return (
                    f"no line of sight from {lead.hex} to {a.hex}: {sight.why} (§6.0)",
                    0,
                )
            if (
                not self.enemy_in(state, a.hex, side)
                and not self.suspected(state, side, a.hex)
                and not self.fort_fire_target(state, side, lead, a.hex)  # §18.4
            ):
                return f"no enemy is seen or may be hidden at {a.hex}", 0
            if any(
                x.side == side and not x.destroyed for x in state.units_at(a.hex)
            ) and not self.enemy_in(state, a.hex, side):
                return f"{a.hex} holds only friendly units", 0
        for s in us[1:]:
            assert s is not None and s.hex is not None
            why = self._support_problem(state, lead, s, a.hex)
            if why:
                return why, 0
        if a.caps:
            rolls = max(1, len(self.enemy_in(state, a.hex, side)))
            have = self.caps(state, side)
            if a.pay == "command":
                have -= cost
            elif a.pay == "ap":
                pool = self.pool(state, side) or 7
                have -= max(0, cost - pool)
            if a.caps * rolls > have:
                return (
                    f"{a.caps} CAP on each of {rolls} roll(s) is more than the "
                    f"{max(have, 0)} CAPs left (§3.2)"
                ), 0
        return None, cost

    def _support_problem(
        self, state: GameState, lead: Unit, s: Unit, hex_: str
    ) -> str | None:
        assert lead.hex is not None and s.hex is not None
        st_ = self.specs[s.id].type
        rides = self.rider_problem(s)  # §17.0
        if rides:
            return str(rides)
        d_lead = self.board.distance(lead.hex, s.hex)
        if d_lead > 1:
            return (
                f"supporter {s.name} is not in or next to the leader's hex "
                "(seed 003 §9.12)"
            )
        if self.board.distance(lead.hex, hex_) == 0 and s.hex != lead.hex:
            return "in close combat a firegroup needs its units in the hex (§7.7.3)"
        if st_.fire_cost is None or not any(
            (v or 0) > 0 for v in (st_.fp_red, st_.fp_blue)
        ):
            return f"{s.name} has no printed FP above 0 (seed 003 §9.12)"
        m = self.marker(s)
        if m is not None and (
            m.no_fire or m.rally_only or m.fp_red or m.fp_blue or m.gun_damaged
        ):
            return (
                f"{s.name}'s {m.name} marker affects its FP: it cannot support "
                "(seed 003 §9.12)"
            )
        d = self.board.distance(s.hex, hex_)
        if d > 0:
            if self.enemy_in(state, s.hex, s.side):
                return f"{s.name} shares its hex with the enemy (§6.0)"
            if not self.all_round(s) and (
                s.facing is None or not self.board.in_arc(s.hex, s.facing, hex_)
            ):
                return f"{hex_} is outside supporter {s.name}'s arc (seed 003 §9.12)"
            if d > int(st_.range or 0):
                return (
                    f"{hex_} is at long range for supporter {s.name} (seed 003 §9.12)"
                )
            if st_.min_range and d < int(st_.min_range):
                return f"{hex_} is inside supporter {s.name}'s minimum range"
            if not self.sight(state, s.hex, hex_).clear:
                return (
                    f"supporter {s.name} has no clear line of sight to {hex_} "
                    "(seed 003 §9.12)"
                )
        return None

    def _supporters_for(self, state: GameState, a: Any, target: Unit) -> int:
        blue = self.specs[target.id].type.armored
        n = 0
        for uid in a.units[1:]:
            t = self.specs[uid].type
            if ((t.fp_blue if blue else t.fp_red) or 0) > 0:
                n += 1
        return n

    def draw_marker(self, ctx: RuleContext, t: Unit, why: str) -> None:
        """Draw a hit marker at random from the unit's pile, face down (§7.5)."""
        st = ctx.state
        deck = self.specs[t.id].type.kind
        pile = [mk.id for mk in hit_marker_decks()[deck]]
        for u in st.units.values():
            if (
                not u.destroyed
                and u.attrs.get("hit")
                and self.specs[u.id].type.kind == deck
            ):
                pile.remove(str(u.attrs["hit"]))
        ctx.emit(
            "attack",
            side=t.side,
            target=t.id,
            result="hit",
            detail=why,
            changes=unit_change(t.id, marked=True),
        )
        (i,) = ctx.roll(
            1,
            sides=len(pile),
            kind="draw",
            side=t.side,
            target=t.id,
            detail="hit marker drawn face down",
            visible_to=(t.side,),
        )
        kind = sorted(pile)[i - 1]
        mk = marker(kind, deck)
        ctx.emit(
            "hit_marker",
            side=t.side,
            target=t.id,
            result=kind,
            detail=f"{mk.name} (face down)",
            changes=unit_change(t.id, hit=kind),
            visible_to=(t.side,),
        )
        if mk.kia:
            self.reveal_marker(ctx, st.units[t.id], "always")
            self.destroy(ctx, st.units[t.id], f"{mk.name} marker (§7.5)")

    def reveal_marker(self, ctx: RuleContext, u: Unit, use: str) -> None:
        """Turn a face-down marker up when the stat it changes is used (§7.5)."""
        kind = u.attrs.get("hit")
        if not kind or u.attrs.get("marker"):
            return
        mk = marker(str(kind), self.specs[u.id].type.kind)
        if use == "always" or use in tuple(mk.reveal_when or ()):
            ctx.emit(
                "marker_revealed",
                side=u.side,
                unit=u.id,
                result=str(kind),
                detail=f"{mk.name} turned face up (§7.5)",
                changes=unit_change(u.id, marker=str(kind)),
            )

    def destroy(self, ctx: RuleContext, t: Unit, why: str) -> None:
        """Remove a unit: VP to the enemy, its side's CAP track (§2.5.1, §7.4)."""
        st = ctx.state
        side = t.side
        enemy = self.other(side)
        if t.attrs.get("hit"):
            # The face-down kind is the owner's secret: cleared in his own event.
            ctx.emit(
                "destroyed",
                side=side,
                unit=t.id,
                detail="its hit marker goes back to the pile",
                changes=unit_change(t.id, hit=None),
                visible_to=(side,),
            )
        ch = unit_change(
            t.id,
            strength="destroyed",
            status="spent",
            marker=None,
            marked=None,
        )
        ch += var_change(
            **{f"vp:{enemy}": int(st.vars.get(f"vp:{enemy}", 0)) + self.kill_vp}
        )
        if not self.no_cap_loss(t.id):
            losses = int(st.vars.get(f"losses:{side}", 0)) + 1
            top = self.caps_start[side] - losses
            ch += var_change(**{f"losses:{side}": losses})
            caps = self.caps(st, side)
            if caps > top:
                ch += pool_change(f"caps:{side}", max(0, top))
        ctx.emit(
            "destroyed",
            side=side,
            unit=t.id,
            result="destroyed",
            detail=why,
            changes=ch,
        )
