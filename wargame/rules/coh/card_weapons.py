"""Weapon cards: grenades, Molotov cocktails, Tellermines and magnetic mines
(CoH 2e §8.4 and the card list, S1 p.17; seed 003 §8.2; research/coh.md §5.3).

A weapon card is played as an action (``PlayCard(card, units=(user,),
hex=target)``) by one foot unit of the card's nation, and discarded after use
(§8.4).  The attack uses the card's FP, modified by the user's hit marker
(§8.4), and rolls against every unit in the target hex as unit fire does
(§7.5.1):

* **Grenades, Molotov** (free): in the unit's own hex (close combat, no
  close-combat FP modifier, the flank DR, §7.7.3) or at 1 hex with -2 FP (long
  range); terrain DMs apply; red FP only.
* **Tellermine, magnetic mine** (2 AP/CAP): only in the unit's own hex, against
  vehicles (blue FP), no DMs and no close-combat modifiers (seed 003 §8.2
  example: a hidden German squad attacks a T-34 that moved onto it).

ASSUMPTION: a weapon card is not assigned to one unit at set-up (§8.4) but
held in the hand; any foot unit of its side may use it.  ASSUMPTION: weapon
cards do not join firegroups here, take no CAP dice modifiers and have no
elevation or adjacent +3 bonus (the card's own range terms replace §7.7).
Laying a Tellermine as a mine is in :mod:`.card_obstacles`.
"""

from __future__ import annotations

from typing import Any

from wargame.engine import GameState, RuleContext, Unit, unit_change

from ._core import Mixin
from .actions import PlayCard
from .attack_rolls import PlanEntry
from .cards import Card
from .fire import FireMath

__all__ = ["LONG_RANGE_FP", "WEAPONS", "CardWeapons"]

#: Weapon-card effects this module plays.
WEAPONS = ("grenades", "molotov", "tellermine", "magnetic_mine")
#: Thrown weapons at 1 hex: long range, -2 FP (S1 card list).
LONG_RANGE_FP = -2
_MINES = ("tellermine", "magnetic_mine")
#: The ways each cost icon may be paid in a ``PlayCard`` (``None``: free).
_PAYS: dict[str, tuple[str | None, ...]] = {
    "free": (None,),
    "cap": ("command",),
    "ap": ("ap",),
    "ap_or_cap": ("ap", "command"),
}


class CardWeapons(Mixin):
    """Mixin: weapon-card attacks (needs ``board``, ``specs``)."""

    board: Any
    specs: dict[str, Any]

    def weapon_problem(
        self, state: GameState, side: str, a: PlayCard, cd: Card
    ) -> str | None:
        """Why ``a`` is not a legal attack with weapon card ``cd`` (``None``: it is)."""
        if cd.effect == "tellermine" and self.lays_tellermine(state, side, a):
            why: str | None = self.lay_problem(state, side, a, cd)  # laid as a mine
            return why
        if len(a.units) != 1:
            return (
                f"one foot unit attacks with {cd.name} (weapon cards do not join "
                "firegroups here)"
            )
        u = state.units.get(a.units[0])
        if u is None or u.side != side or u.destroyed or u.hex is None:
            return f"{a.units[0]!r} is not a unit of {side} on the map"
        ut = self.specs[u.id].type
        if ut.kind != "foot":
            return f"{u.name} is not a foot unit: foot units use {cd.name} (§8.4)"
        m = self.marker(u)
        if m is not None and (m.no_fire or m.rally_only):
            return f"{u.name} is {m.name}: no weapon card until it rallies (§8.4)"
        if not isinstance(a.hex, str) or a.hex not in self.board.labels:
            return f"give the hex {cd.name} attacks"
        d = self.board.distance(u.hex, a.hex)
        if d > int(cd.range or 0):
            return (
                f"{a.hex} is {d} hexes from {u.name}: {cd.name} reaches "
                f"{cd.range or 0} (card list)"
            )
        if d == 0:
            if not self.enemy_in(state, u.hex, side):
                return f"{cd.name} in the own hex needs an enemy there (§7.7.3)"
            if u.attrs.get("cc_turn") == state.vars.get("turn_no"):
                return f"{u.name} has made its close-combat attack this turn (§7.7.3)"
        else:
            if self.enemy_in(state, u.hex, side):
                return (
                    f"{u.name} shares its hex with the enemy: it attacks only "
                    "into its own hex (§7.7.3)"
                )
            if u.facing is not None and not self.board.in_arc(u.hex, u.facing, a.hex):
                return f"{a.hex} is outside {u.name}'s arc of fire (§6.1)"
            sight = self.sight(state, u.hex, a.hex)
            if not sight.clear:
                return f"no line of sight from {u.hex} to {a.hex}: {sight.why} (§6.0)"
        targets = [
            t
            for t in self.enemy_in(state, a.hex, side)
            if self.weapon_math(state, u, t, cd, a.hex) is not None
        ]
        if not targets:
            colour = "blue" if cd.fp_red is None else "red"
            return f"no enemy seen at {a.hex} that {cd.name}'s {colour} FP can attack"
        return None

    def weapon_math(
        self, state: GameState, user: Unit, target: Unit, cd: Card, hex_: str
    ) -> FireMath | None:
        """FP and DV of ``user`` attacking ``target`` in ``hex_`` with ``cd``
        (``None``: the card has no FP of the colour the target needs, §7.1)."""
        assert user.hex is not None
        tt = self.specs[target.id].type
        d = self.board.distance(user.hex, hex_)
        flank = d == 0  # close combat hits the flank (§7.7.3)
        if not flank and target.facing is not None:
            flank = not self.board.in_arc(hex_, target.facing, user.hex)
        blue = tt.dr_colour(flank) == "blue"
        if tt.open_topped and d == 0:
            blue = False  # foot close combat against open-topped: red (§15.5)
        base = cd.fp_blue if blue else cd.fp_red
        if base is None:
            return None
        fp = int(base)
        terms = [f"{cd.name} {'blue' if blue else 'red'} FP {base}"]
        m = self.marker(user)
        if m is not None and m.fp_mod("blue" if blue else "red"):
            fp += m.fp_mod("blue" if blue else "red")
            terms.append(f"{m.name} {m.fp_mod('blue' if blue else 'red'):+d} (§8.4)")
        if d >= 1:
            fp += LONG_RANGE_FP
            terms.append(f"1 hex: long range {LONG_RANGE_FP} (card list)")
        dr = int(tt.dr_flank if flank else tt.dr_front)
        dv = dr
        dvt = [f"{'flank' if flank else 'front'} DR {dr}"]
        tm = self.marker(target)
        if tm is not None and tm.dr_mod(flank):
            dv += tm.dr_mod(flank)
            dvt.append(f"{tm.name} {tm.dr_mod(flank):+d}")
        if cd.effect in _MINES:
            dvt.append("no DMs (card list)")
        else:
            dm = int(self.board.dm(hex_))
            if dm:
                dv += dm
                dvt.append(f"terrain {dm:+d} (card list: terrain applies)")
            if target.attrs.get("hasty"):
                dv += 1
                dvt.append("hasty defence +1 (§18)")
        return FireMath(fp, dv, flank, tuple(terms), tuple(dvt))

    def weapon_candidates(
        self, state: GameState, side: str, cd: Card
    ) -> list[PlayCard]:
        """Every attack with ``cd`` worth checking: each own foot unit at each
        hex within the card's range holding a seen enemy, each way to pay."""
        out = []
        for u in sorted(state.units.values(), key=lambda x: x.id):
            if u.side != side or u.destroyed or u.hex is None:
                continue
            if self.specs[u.id].type.kind != "foot":
                continue
            for h in sorted(self.board.within(u.hex, int(cd.range or 0))):
                if self.enemy_in(state, h, side):
                    out += [PlayCard(cd.id, (u.id,), h, p) for p in _PAYS[cd.pay]]
        if cd.effect == "tellermine":  # laid as a mine (card_obstacles.py)
            out += self.lay_candidates(state, side, cd)
        return out

    def do_weapon(
        self, ctx: RuleContext, side: str, a: PlayCard, cd: Card, mode: str | None
    ) -> None:
        """Reveal the user, play the card, pay, and roll against each unit in
        the target hex (§7.5.1)."""
        st = ctx.state
        if cd.effect == "tellermine" and self.lays_tellermine(st, side, a):
            self.do_lay_tellermine(ctx, side, a, cd, mode)  # card_obstacles.py
            return
        uid = a.units[0]
        assert a.hex is not None
        self.reveal_actors(ctx, (uid,), f"attacks with {cd.name}")
        self.card_played(ctx, side, cd, (uid,), a.hex)
        if mode is not None:
            self.pay(ctx, side, (uid,), mode, int(cd.cost or 0), cd.name)
        u = st.units[uid]
        assert u.hex is not None
        self.reveal_marker(ctx, u, "fire")
        cc = self.board.distance(u.hex, a.hex) == 0
        ctx.emit(
            "fire",
            side=side,
            unit=uid,
            hex_to=a.hex,
            detail=(
                f"close-combat attack with {cd.name} (§7.7.3)"
                if cc
                else f"attacks {a.hex} with {cd.name}"
            ),
            changes=unit_change(uid, cc_turn=st.vars.get("turn_no")) if cc else (),
        )
        plan: list[PlanEntry] = []
        for t in [x for x in st.units_at(a.hex) if not x.hidden]:
            if (cc and t.side == side) or st.units[t.id].destroyed:
                continue
            self.reveal_marker(ctx, t, "fired_at")
            fm = self.weapon_math(st, st.units[uid], st.units[t.id], cd, a.hex)
            if fm is None:
                ctx.emit(
                    "attack",
                    side=side,
                    unit=uid,
                    target=t.id,
                    result="no attack",
                    detail=f"{cd.name} has no FP of the colour {t.name} needs (§7.1)",
                )
                continue
            dice = ctx.roll(
                2,
                kind="attack",
                side=side,
                unit=uid,
                target=t.id,
                needed=fm.needed,
                detail=f"AV {fm.fp}+2d6 vs DV {fm.dv}: "
                + ", ".join(fm.fp_terms)
                + " | "
                + ", ".join(fm.dv_terms),
            )
            plan.append(["seen", t.id, fm.fp + sum(dice), fm.dv])
        # the rolls land together, after a Luck! window if one opens (card #12)
        if not self.offer_luck(ctx, side, plan, None):
            self.land_rolls(ctx, side, plan)
