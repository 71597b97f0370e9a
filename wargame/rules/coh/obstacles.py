"""Destroying fortifications and obstacles by fire (CoH 2e §18.4, §18.3.1;
research/coh.md §1.11).

* A counter with a red number (its DR: ``data/fortifications.toml`` or the
  scenario's ``dr``, :mod:`.bunkers`) is destroyed by mortar fire, artillery
  (off-board strikes), the red FP of tanks and guns (not MGs) and foot units'
  close-combat attacks (§18.4); flamethrowers, MGs, rifles at range and
  weapon cards do not (ASSUMPTION: the rule's list is complete).
* Each such attack on a hex also rolls, separately, against each destroyable
  counter in it (§18.4, §18.3.1: "resolved simultaneously against the wire and
  any other units"): AV = the firer's red FP with its usual modifiers (hit
  marker, firegroup, range, firing down, Careful Aiming) + 2d6 against DV = the
  red number + terrain DM + smoke (§18.4) + elevation (ASSUMPTION: the height
  DM counts as terrain).  A hit (AV >= DV) removes the counter; units inside a
  destroyed fortification keep its DM for that attack (§18.4: it goes after
  the units' rolls).
* A player may fire at a hex holding only a destroyable counter (§18.4).
* ASSUMPTION: CAPs spent on an attack modify the units' rolls, never the
  counter's.  ASSUMPTION: an attack rolls only against counters not owned by
  the firer's side (a side does not blast its own bunker or wire); counters
  with no owner are rolled against by both.
* Tracked vehicles still crush wire by entering it (§18.3.1, :mod:`.fortifications`).
"""

from __future__ import annotations

from typing import Any

from wargame.engine import GameState, RuleContext, Unit, unit_change, var_change

from ._core import Mixin
from .actions import Flame, IndirectFire
from .fire import FireMath
from .fire_terms import marker_fp, range_fp

__all__ = ["Obstacles"]

_WORDS = {
    "wire": "barbed wire",
    "roadblock": "road block",
    "trench": "trench",
    "bunker": "bunker",
}


class Obstacles(Mixin):
    """Mixin: rolls against fortification and obstacle counters (§18.4)."""

    board: Any
    specs: dict[str, Any]

    # -- queries ------------------------------------------------------------ #
    def fort_targets(self, state: GameState, side: str, hex_: str) -> list[str]:
        """The kinds of destroyable counters in ``hex_`` that ``side``'s fire
        rolls against (§18.4)."""
        return [
            k
            for k, h, owner in self.forts(state)
            if h == hex_ and owner != side and self.numbers(k, h).dr is not None
        ]

    def destroys_forts(self, lead: Unit, a: Any, d: int) -> str | None:
        """What makes ``lead``'s attack ``a`` at distance ``d`` one that destroys
        counters (§18.4); ``None``: it does not."""
        if isinstance(a, Flame):
            return None
        ut = self.specs[lead.id].type
        if ut.fp_red is None:
            return None
        if self.is_mortar(lead.id):
            return "mortar fire"
        if isinstance(a, IndirectFire):
            return None
        if d == 0 and ut.kind == "foot":
            return "a foot unit's close combat"
        if ut.kind == "vehicle" and ut.armored:
            return "a tank's red FP"
        if self.is_gun(lead.id):
            return "a gun's red FP"
        return None

    def fort_fire_target(self, state: GameState, side: str, lead: Unit, h: str) -> bool:
        """Whether ``lead`` may fire at ``h`` for its counters alone (§18.4:
        a player may attack an empty fortification or obstacle)."""
        if lead.hex is None or not self.fort_targets(state, side, h):
            return False
        d = self.board.distance(lead.hex, h)
        return self.destroys_forts(lead, None, d) is not None

    def fort_math(
        self, state: GameState, lead: Unit, a: Any, kind: str
    ) -> FireMath | None:
        """FP and DV of ``lead``'s attack ``a`` on the ``kind`` counter in
        ``a.hex`` (§18.4); ``None``: no red FP."""
        ut = self.specs[lead.id].type
        nums = self.numbers(kind, a.hex)
        if ut.fp_red is None or nums.dr is None or lead.hex is None:
            return None
        spotter = getattr(a, "spotter", None)
        eye = spotter or lead.hex
        d = self.board.distance(lead.hex, a.hex)
        fp = int(ut.fp_red)
        terms = [f"red FP {fp}"]
        support = sum(
            1 for uid in a.units[1:] if (self.specs[uid].type.fp_red or 0) > 0
        )
        fp_up, dm_up = (0, 0) if d == 0 else self.board.elevation_bonus(eye, a.hex)
        bonus = int(self.fire_card_fp(a))
        for add, why in (
            marker_fp(self.marker(lead), "red"),
            (support, f"firegroup +{support} (seed 003 §9.12)"),
            range_fp(crewed=bool(ut.crewed), reach=int(ut.range or 0), d=d),
            (fp_up, "firing down +1 (§11.2)"),
            (bonus, f"Careful Aiming card {bonus:+d} (card #9)"),
        ):
            if add and why:
                fp += add
                terms.append(why)
        dv = int(nums.dr)
        dvt = [f"{_WORDS.get(kind, kind)} red DR {dv} (§18.4)"]
        for add, why in (
            (int(self.board.dm(a.hex, he=bool(ut.he))), "terrain"),
            (self.smoke_dm(state, eye, a.hex), "smoke (§13)"),
            (dm_up, "higher +1 (§11.2)"),
        ):
            if add:
                dv += add
                dvt.append(f"{why} {add:+d}")
        return FireMath(fp, dv, True, tuple(terms), tuple(dvt))

    # -- resolution --------------------------------------------------------- #
    def fire_at_forts(self, ctx: RuleContext, side: str, a: Any, lead: Unit) -> None:
        """After an attack's unit rolls: one roll against each destroyable
        counter in the hex, each hit removing it (§18.4)."""
        st = ctx.state
        if lead.hex is None:
            return
        how = self.destroys_forts(lead, a, self.board.distance(lead.hex, a.hex))
        kinds = self.fort_targets(st, side, a.hex) if how else []
        hits = []
        for kind in kinds:
            fm = self.fort_math(st, lead, a, kind)
            if fm is None:
                continue
            dice = ctx.roll(
                2,
                kind="attack",
                side=side,
                unit=None if lead.hidden else lead.id,
                hex_to=a.hex,
                needed=fm.needed,
                detail=f"{how} at the {_WORDS.get(kind, kind)}: AV {fm.fp}+2d6 vs "
                f"DV {fm.dv}: "
                + ", ".join(fm.fp_terms)
                + " | "
                + ", ".join(fm.dv_terms),
            )
            av = fm.fp + sum(dice)
            if av >= fm.dv:
                hits.append(kind)
            else:
                ctx.emit(
                    "obstacle",
                    side=side,
                    hex_to=a.hex,
                    result="miss",
                    detail=f"AV {av} < DV {fm.dv}: the {_WORDS.get(kind, kind)} "
                    "stands (§18.4)",
                )
        for kind in hits:
            self.remove_fort(ctx, side, kind, a.hex, f"destroyed by {how} (§18.4)")

    def oba_at_forts(self, ctx: RuleContext, side: str, card: Any, h: str) -> None:
        """An artillery strike's roll against each destroyable counter in ``h``
        (§18.4): the card's red FP against the counter's DV."""
        st = ctx.state
        if card.fp_red is None:
            return
        hits = []
        for kind in self.fort_targets(st, side, h):
            nums = self.numbers(kind, h)
            assert nums.dr is not None
            dm = int(self.board.dm(h, he=True)) + self.smoke_dm(st, h, h)
            dv = int(nums.dr) + dm
            dice = ctx.roll(
                2,
                kind="attack",
                side=side,
                hex_to=h,
                needed=dv - int(card.fp_red),
                detail=f"artillery at the {_WORDS.get(kind, kind)}: AV "
                f"{card.fp_red}+2d6 vs DV {dv} (red DR {nums.dr}, DM {dm:+d}; §18.4)",
            )
            if int(card.fp_red) + sum(dice) >= dv:
                hits.append(kind)
        for kind in hits:
            self.remove_fort(ctx, side, kind, h, "destroyed by artillery (§18.4)")

    def remove_fort(
        self, ctx: RuleContext, side: str | None, kind: str, h: str, why: str
    ) -> None:
        """Take the ``kind`` counter in ``h`` off the map; its occupants are
        no longer inside (§18.4, card #41)."""
        st = ctx.state
        left = tuple(
            (k, x, o) for k, x, o in self.forts(st) if not (k == kind and x == h)
        )
        attr = {"trench": "trench", "bunker": "bunker"}.get(kind)
        inside = [u for u in st.units_at(h) if attr is not None and u.attrs.get(attr)]
        ch = var_change(forts=left or None)
        ch += (
            tuple(
                c
                for u in inside
                if not u.hidden
                for c in unit_change(u.id, **{attr: None})
            )
            if attr
            else ()
        )
        ctx.emit(
            "obstacle",
            side=side,
            hex_to=h,
            result=f"{kind} destroyed",
            detail=f"the {_WORDS.get(kind, kind)} at {h}: {why}",
            changes=ch,
        )
        for u in inside:
            if u.hidden and attr is not None:
                ctx.emit(
                    "obstacle",
                    side=u.side,
                    unit=u.id,
                    detail=f"no longer in a {kind}",
                    changes=unit_change(u.id, **{attr: None}),
                    visible_to=(u.side,),
                )
