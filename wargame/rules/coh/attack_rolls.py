"""Attack rolls and their results (CoH 2e §7.0-7.5, §7.7.3; seed 003 §10.0 #3,
§10.3): the resolution half of :mod:`.fire`.

An attack (``Fire``, ``IndirectFire``, ``Flame``, a weapon card) is resolved in
two steps:

1. **the rolls**: pay, reveal, then one 2d6 roll per unit in the target hex
   (§7.5.1), or one roll for a hex that may hide enemies (seed 003 §10.0 #3);
   each roll becomes a *plan entry* (JSON-friendly lists, :data:`PlanEntry`);
2. **the results**: :meth:`AttackRolls.land_rolls` lands each entry in order
   (hit markers drawn, units destroyed), then a hidden sniper's detection
   check (seed 003 §10.3).

Between the two the Luck! card (#12) may be played (:mod:`.luck`): when its
window opens, the plan waits in its owner's secret deck ``roll:<side>``.  The
rolls of one attack are simultaneous (the vehicles last: cargo keeps the
APC's +2, §15.6, §16.1), so every roll is made before any result lands.

Plan entries:

* ``["seen", target, av, dv]``: a roll against a unit the firer sees;
* ``["blind", hex, dice]``: the roll at a hex that may hide enemies (the
  hidden unit it is resolved against is chosen when it lands, from the
  attack, which the secret deck also keeps: the firer never names it);
* ``["rally", unit, total, rally]``: a rally roll (2d6 + bonus vs the
  marker's rally number, §7.6);
* ``["detect", sniper]``: a hidden sniper's detection check after it fired.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from wargame.engine import RuleContext, Unit, pool_change, unit_change

from ._core import Mixin
from .odds import fire_result

__all__ = ["AttackRolls", "PlanEntry"]

#: One roll waiting for its result (module docstring).
PlanEntry = list[Any]


class AttackRolls(Mixin):
    """Mixin: roll an attack, then land its results."""

    board: Any
    specs: dict[str, Any]
    sides: tuple[str, str]

    def do_fire(self, ctx: RuleContext, side: str, a: Any) -> None:
        """Pay, then roll against every unit in the hex (hidden ones as the
        seed says), one roll each, and apply the results (after a Luck!
        window, if one opens).  ``a``: a :class:`Fire`, or an indirect or
        flamethrower attack (:mod:`.mortars`, :mod:`.pioneers`)."""
        st = ctx.state
        problem, cost = self.attack_problem(st, side, a)
        assert problem is None, problem
        a = self.resolved_attack(st, side, a)
        lead = st.units[a.units[0]]
        assert lead.hex is not None
        sniper_hidden = lead.hidden and self.is_sniper(lead.id)
        if not sniper_hidden:
            self.reveal_actors(ctx, a.units, "fires")
        self.pay(ctx, side, a.units, a.pay, cost, "fire")
        if a.card is not None:  # a bonus card played with the fire (§8.2)
            self.play_bonus_card(ctx, side, a.card)
        self.reveal_marker(ctx, lead, "fire")
        cc = self.board.distance(lead.hex, a.hex) == 0
        if cc:
            ctx.emit(
                "fire",
                side=side,
                unit=lead.id,
                hex_to=a.hex,
                detail="close-combat attack (§7.7.3)",
                changes=unit_change(lead.id, cc_turn=st.vars.get("turn_no")),
            )
        elif sniper_hidden:
            ctx.emit(
                "fire",
                side=side,
                hex_to=a.hex,
                detail="a hidden sniper fires (seed 003 §10.3)",
            )
        else:
            ctx.emit(
                "fire",
                side=side,
                unit=lead.id,
                hex_to=a.hex,
                detail=self.attack_words(a),
            )
        in_hex = [u for u in st.units_at(a.hex) if not u.destroyed]
        shown = [u for u in in_hex if not u.hidden and not (cc and u.side == side)]
        if sniper_hidden or self.is_sniper(lead.id):
            # Snipers never hit their own units in close combat (seed 003 §10.3).
            shown = [u for u in shown if u.side != side]
        # Vehicles last: the rolls are simultaneous, so cargo keeps the APC's
        # +2 and foot units their vehicle cover (§15.6, §16.1).
        shown.sort(key=lambda u: self.is_vehicle(u.id))
        if caps_total := a.caps * max(1, len(shown)):
            have = self.caps(st, side)
            ctx.emit(
                "caps",
                side=side,
                detail=f"{caps_total} CAP on the attack rolls (§3.2)",
                changes=pool_change(f"caps:{side}", have - caps_total),
            )
        plan: list[PlanEntry] = []
        for t in shown:
            entry = self._attack_roll(ctx, side, a, lead, st.units[t.id])
            if entry is not None:
                plan.append(entry)
        hidden = [u for u in in_hex if u.hidden and u.side == self.other(side)]
        if not shown and (hidden or self.suspected(st, side, a.hex)):
            plan.append(self._blind_roll(ctx, side, a, lead))
        plan.append(["forts", lead.id])  # counters in the hex, after units (§18.4)
        if sniper_hidden:
            plan.append(["detect", lead.id])
        if not self.offer_luck(ctx, side, plan, a):
            self.land_rolls(ctx, side, plan, a)

    def _attack_roll(
        self, ctx: RuleContext, side: str, a: Any, lead: Unit, t: Unit
    ) -> PlanEntry | None:
        """Roll against a seen unit (``None``: no FP of its colour)."""
        st = ctx.state
        self.reveal_marker(ctx, t, "fired_at")
        fm = self.fire_math(
            st,
            lead,
            t,
            supporters=self._supporters_for(st, a, t),
            tgt_hex=a.hex,
            **self.attack_kwargs(a),
            bonus_fp=self.fire_card_fp(a),
        )
        if fm is None:
            ctx.emit(
                "attack",
                side=side,
                unit=None if lead.hidden else lead.id,
                target=t.id,
                result="no attack",
                detail=f"no FP of the colour {t.name} needs (§7.1)",
            )
            return None
        caps = a.caps  # paid in do_fire, before the dice (§3.2)
        dice = ctx.roll(
            2,
            kind="attack",
            side=side,
            unit=None if lead.hidden else lead.id,
            target=t.id,
            needed=fm.needed - caps,
            detail=f"AV {fm.fp}+2d6+{caps} vs DV {fm.dv}: "
            + ", ".join(fm.fp_terms)
            + " | "
            + ", ".join(fm.dv_terms),
        )
        return ["seen", t.id, fm.fp + sum(dice) + caps, fm.dv]

    def _blind_roll(self, ctx: RuleContext, side: str, a: Any, lead: Unit) -> PlanEntry:
        """The roll at a hex that may hide enemies (seed 003 §10.0 #3)."""
        dice = ctx.roll(
            2,
            kind="attack",
            side=side,
            unit=None if lead.hidden else lead.id,
            hex_to=a.hex,
            detail=f"fire at {a.hex}, where enemies may be hidden",
        )
        return ["blind", a.hex, sum(dice)]

    def land_rolls(
        self,
        ctx: RuleContext,
        side: str,
        plan: Sequence[PlanEntry],
        attack: Any = None,
        mods: Mapping[int, int] | None = None,
    ) -> None:
        """Land every roll of ``plan`` in order, entry ``i`` changed by
        ``mods[i]`` (a Luck! card, #12); ``attack``: the attack of a
        ``blind`` entry."""
        st = ctx.state
        mods = mods or {}
        for i, e in enumerate(plan):
            m = int(mods.get(i, 0))
            kind = e[0]
            if kind == "seen":
                t = st.units[str(e[1])]
                if t.destroyed:
                    continue
                av, dv = int(e[2]) + m, int(e[3])
                self._land(ctx, side, t, fire_result(av, dv), av, dv)
            elif kind == "blind":
                self._land_blind(ctx, side, attack, str(e[1]), int(e[2]) + m)
            elif kind == "rally":
                self.land_rally(ctx, side, str(e[1]), int(e[2]) + m, int(e[3]))
            elif kind == "forts":  # ASSUMPTION: no Luck on counter rolls
                lead = st.units[str(e[1])]
                if attack is not None and not lead.destroyed:
                    self.fire_at_forts(ctx, side, attack, lead)  # obstacles.py
            elif kind == "detect":
                lead = st.units[str(e[1])]
                if not lead.destroyed:
                    self.detection_check(ctx, lead)
            else:  # pragma: no cover - the plans are built here
                raise ValueError(f"unknown roll plan entry {e!r}")

    def _land_blind(
        self, ctx: RuleContext, side: str, a: Any, hex_: str, dice: int
    ) -> None:
        """Fire at a hex that may hide enemies (seed 003 §10.0 #3; mortars,
        artillery and flamethrowers, which hit the flank, against the lowest
        flank DR, CoH 2e §10.03, §19.1): resolved against the hidden unit
        with the lowest DR, and the firer learns only whether it hit."""
        st = ctx.state
        lead = st.units[a.units[0]]
        hidden = [
            u
            for u in st.units_at(hex_)
            if u.hidden and not u.destroyed and u.side == self.other(side)
        ]
        if not hidden:
            self._nothing_revealed(ctx, side, hex_)
            return
        he = bool(self.specs[lead.id].type.he)
        kw = self.attack_kwargs(a)
        key = "dr_flank" if he or kw.get("flame") else "dr_front"
        t = min(hidden, key=lambda u: (int(getattr(self.specs[u.id].type, key)), u.id))
        fm = self.fire_math(
            st,
            lead,
            t,
            supporters=self._supporters_for(st, a, t),
            tgt_hex=hex_,
            hidden_target=True,
            **kw,
            bonus_fp=self.fire_card_fp(a),
        )
        if fm is None:
            self._nothing_revealed(ctx, side, hex_)
            return
        av = fm.fp + dice + a.caps
        result = fire_result(av, fm.dv)
        owner = t.side
        if result == "miss":
            self._nothing_revealed(ctx, side, hex_)
            ctx.emit(
                "attack",
                side=owner,
                target=t.id,
                hex_to=hex_,
                result="miss",
                detail=f"AV {av} against hidden {t.name}'s DV {fm.dv}: "
                + ", ".join(fm.dv_terms),
                visible_to=(owner,),
            )
            return
        self.reveal_hex(ctx, hex_, owner, "is hit while hidden (seed 003 §10.0 #3)")
        self._land(ctx, side, st.units[t.id], result, av, fm.dv)

    @staticmethod
    def _nothing_revealed(ctx: RuleContext, side: str, hex_: str) -> None:
        """What the firer learns of a fire at a hex that may hide enemies and
        hits nothing it can see (seed 003 §10.0 #3)."""
        ctx.emit(
            "attack",
            side=side,
            hex_to=hex_,
            result="nothing revealed",
            detail="no hit is revealed (seed 003 §10.0 #3)",
        )

    def _land(
        self, ctx: RuleContext, side: str, t: Unit, result: str, av: int, dv: int
    ) -> None:
        """One attack's result on ``t``: a miss, a hit marker, or destroyed
        (AV >= DV + 4, or a second hit; §7.0, §7.5)."""
        if result == "miss":
            ctx.emit(
                "attack",
                side=side,
                target=t.id,
                result="miss",
                detail=f"AV {av} < DV {dv}",
            )
            return
        if result == "destroyed" or t.attrs.get("marked"):
            why = (
                f"AV {av} >= DV {dv} + 4 (§7.0)"
                if result == "destroyed"
                else "a second hit destroys (§7.5)"
            )
            self.destroy(ctx, t, why)
            return
        self.draw_marker(ctx, t, f"AV {av} >= DV {dv}: hit (§7.5)")
