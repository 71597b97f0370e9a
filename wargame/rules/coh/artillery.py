"""Off-board artillery (OBA, CoH 2e §12.3, §13.1; research/coh.md §1.10).

A firefight gives a side a battery: ``[[sides]] oba = {card = "oba_lefh18",
strikes = 2, spotters = ["de-lmg-1"]}`` (the weapon card of ``data/cards.toml``,
how many strikes it fires, ASSUMPTION: 1 unless the firefight says, and the
units that may spot for it, ASSUMPTION: any of the side's units when none are
named).

* **Plotting** (:class:`PlotArtillery`): in the pre-round, after the cards are
  drawn (§2.0), each side with strikes left writes a target hex down in secret
  (the deck ``oba:<side>``, only its owner sees it; the other side learns only
  that something was written), or nothing (``hex = None``).  The target must be
  in the clear LOS of a spotter then; spotters may be hidden and are not
  revealed (§12.3).  ASSUMPTION: at most one plot per pre-round, none in the
  last round (it would land after the game).
* **The strike**: in the next pre-round, after the new plots, the strike lands
  on the target hex and its 6 neighbours (the usual pattern, §12.3; the card
  data give none), friends included: one attack per unit, resolved like mortar
  fire (HE: flank DR, the air burst in heavy woods, every terrain and
  fortification DM, §12.1-12.2) with the card's FP and no elevation modifiers.
  ASSUMPTION: the smoke of the hit hex counts (fire ending in smoke, §13) and
  no CAPs are added.  In a hex without seen units one die roll stands for the
  attack on whatever may hide there; each side's hidden stack is rolled
  against with it at its lowest flank DR, and only a hit is shown (§10.03).
  A smoke strike (``smoke = True``) puts +2 smoke on all seven hexes (§13.1).
  No drift (drift is a 3rd-edition rule).
* **OBA cards** (the card list: "off-board artillery cards are played and
  resolved during the pre-round sequence"): a firefight may instead deal the
  card itself, ``[[sides]] weapon_cards = ["oba_lefh18"]`` (§8.4).  Each OBA
  card in the hand is one strike: plotting with it takes it from the hand
  (its owner sees that; all see that a target was written down), and when
  the strike lands the card goes face up onto the discard pile (weapon cards
  are discarded after use, §8.4).  A side's ``oba`` battery fires first while
  it has strikes.  ASSUMPTION: a card's spotters are any of the side's units
  (a dealt card names none).  ASSUMPTION: one plot per pre-round, as above.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from wargame.engine import (
    GameState,
    RuleContext,
    Unit,
    deck_change,
    state_change,
    var_change,
)
from wargame.engine.scenario import shown

from ._core import Mixin
from .actions import PlotArtillery
from .fire import FireMath
from .odds import fire_result

__all__ = ["Artillery", "Battery"]

OBA_KEYS = frozenset({"card", "strikes", "spotters"})


@dataclass(frozen=True)
class Battery:
    """A side's off-board artillery: its card and the rest of the deal."""

    card: Any
    strikes: int
    spotters: tuple[str, ...]


class Artillery(Mixin):
    """Mixin: the OBA's plots and strikes in the pre-round."""

    board: Any
    specs: dict[str, Any]
    sides: tuple[str, str]
    batteries: dict[str, Battery]

    # -- scenario ----------------------------------------------------------- #
    def _read_oba(self) -> list[str]:
        """``[[sides]] oba``; one problem per line."""
        from .cards import cards_by_id

        s = self.scenario
        self.batteries = {}
        problems: list[str] = []
        for i, raw in enumerate(s.sides):
            spec = raw.get("oba")
            if spec is None:
                continue
            where = f"sides[{i}].oba"
            sid = str(raw.get("id"))
            if not isinstance(spec, Mapping):
                problems.append(
                    s.problem(where, 'must be a table, e.g. {card = "oba_lefh18"}')
                )
                continue
            for key in sorted(set(spec) - OBA_KEYS):
                problems.append(
                    s.problem(f"{where}.{key}", f"unknown key; use {sorted(OBA_KEYS)}")
                )
            cat = cards_by_id()
            cid = spec.get("card")
            oba = sorted(k for k, c in cat.items() if c.effect == "oba")
            c = cat.get(str(cid))
            if c is None or c.effect != "oba":
                problems.append(
                    s.problem(
                        f"{where}.card",
                        f"{shown(cid)} is no off-board artillery card; use one of "
                        f"{oba}",
                    )
                )
                continue
            if c.nation is not None and c.nation != self.nation.get(sid):
                problems.append(
                    s.problem(
                        f"{where}.card",
                        f"{c.name} is {c.nation}, the side is {self.nation.get(sid)}",
                    )
                )
            n = spec.get("strikes", 1)
            if not isinstance(n, int) or isinstance(n, bool) or not 1 <= n <= 10:
                problems.append(s.problem(f"{where}.strikes", f"{shown(n)}: 1-10"))
                n = 1
            spotters = spec.get("spotters", [])
            if not isinstance(spotters, list) or not all(
                x in self.specs and self.specs[x].side == sid for x in spotters
            ):
                problems.append(
                    s.problem(
                        f"{where}.spotters",
                        f"{shown(spotters)}: a list of the side's unit ids",
                    )
                )
                spotters = []
            self.batteries[sid] = Battery(c, int(n), tuple(str(x) for x in spotters))
        return problems

    def _init_oba(self, st: GameState) -> None:
        for sid, b in self.batteries.items():
            st.vars[f"oba_left:{sid}"] = b.strikes

    # -- the pre-round ------------------------------------------------------- #
    def _may_plot(self, state: GameState, side: str, rnd: int) -> bool:
        if rnd >= int(self.scenario.turns):
            return False
        return self.plot_source(state, side) is not None

    def plot_source(self, state: GameState, side: str) -> tuple[Any, bool] | None:
        """What the next plot fires: (card, whether it is an OBA card of the
        hand), the side's battery first while it has strikes (module
        docstring); ``None``: no artillery left."""
        from .cards import cards_by_id

        b = self.batteries.get(side)
        if b is not None and int(state.vars.get(f"oba_left:{side}", 0)) > 0:
            return b.card, False
        cat = cards_by_id()
        for cid in sorted(state.decks.get(f"hand:{side}", ())):
            cd = cat.get(cid)
            if cd is not None and cd.effect == "oba":
                return cd, True
        return None

    def begin_plotting(self, ctx: RuleContext, rnd: int) -> bool:
        """Open the artillery phase if a side may plot (``True``: it waits for
        their decisions)."""
        order = [s for s in self.sides if self._may_plot(ctx.state, s, rnd)]
        if not order:
            return False
        ctx.emit(
            "oba",
            detail="off-board artillery targets are written down (§2.0, §12.3)",
            changes=state_change(phase="artillery")
            + var_change(plotter=order[0], plot_order=tuple(order)),
        )
        return True

    def _spotters(self, state: GameState, side: str) -> list[Unit]:
        b = self.batteries.get(side)
        src = self.plot_source(state, side)
        from_hand = src is not None and src[1]
        named = set(b.spotters) if b is not None and not from_hand else set()
        return [
            u
            for u in state.units.values()
            if u.side == side
            and not u.destroyed
            and u.hex is not None
            and (not named or u.id in named)
        ]

    def plot_problem(self, state: GameState, side: str, a: PlotArtillery) -> str | None:
        """Why a plot is not allowed (``None``: it is)."""
        if state.phase != "artillery" or state.vars.get("plotter") != side:
            return "no artillery target is being written down"
        if a.hex is None:
            return None if not a.smoke else "smoke needs a target hex"
        if a.hex not in self.board.labels:
            return f"{a.hex!r} is not a hex of the map"
        if not any(
            u.hex == a.hex or self.sight(state, u.hex, a.hex).clear
            for u in self._spotters(state, side)
        ):
            return f"no spotter of {side} sees {a.hex} (§12.3)"
        return None

    def plot_options(self, state: GameState) -> list[PlotArtillery]:
        """No strike, or a strike (HE or smoke) at every hex a spotter sees
        (§12.3: any hex; the hexes of seen enemy units come first)."""
        side = str(state.vars.get("plotter"))
        out = [PlotArtillery()]
        spotters = self._spotters(state, side)
        seen = {
            u.hex
            for u in state.units.values()
            if u.side != side and not u.destroyed and u.hex and not u.hidden
        }
        # every hex a spotter sees (its own included): its sight fan over the
        # whole board, kept per hex and smoke (Hidden.sight_fan)
        axial = self.board._axial.values()
        qs, rs = [q for q, _r in axial], [r for _q, r in axial]
        span = max(qs) - min(qs) + max(rs) - min(rs) if qs else 0
        seen_by: set[str] = set()
        for u in spotters:
            assert u.hex is not None
            seen_by.add(u.hex)
            seen_by |= self.sight_fan(state, u.hex, None, span)
        hexes = sorted(seen_by)
        for h in sorted(hexes, key=lambda x: x not in seen):
            out += [PlotArtillery(h, False), PlotArtillery(h, True)]
        return out

    def do_plot(self, ctx: RuleContext, a: PlotArtillery) -> None:
        """Write the target down (secretly) and hand the word on."""
        st = ctx.state
        side = str(st.vars["plotter"])
        order = tuple(st.vars.get("plot_order") or ())
        rest = order[order.index(side) + 1 :] if side in order else ()
        if a.hex is not None:
            src = self.plot_source(st, side)
            assert src is not None
            cd, from_hand = src
            item = f"{st.turn}:{a.hex}"
            if from_hand:  # the OBA card's id rides with the plot
                item += f":{'smoke' if a.smoke else 'he'}:{cd.id}"
                hand = list(st.decks.get(f"hand:{side}", ()))
                hand.remove(cd.id)
                ctx.emit(
                    "card",
                    side=side,
                    detail=f"{cd.name} leaves the hand: its target is written down",
                    changes=deck_change(f"hand:{side}", hand),
                    visible_to=(side,),
                )
            elif a.smoke:
                item += ":smoke"
            ctx.emit(
                "oba",
                side=side,
                hex_to=a.hex,
                detail=f"target {a.hex}{' (smoke)' if a.smoke else ''} written down",
                changes=deck_change(
                    f"oba:{side}", (*st.decks.get(f"oba:{side}", ()), item)
                ),
                visible_to=(side,),
            )
            left = int(st.vars.get(f"oba_left:{side}", 0)) - (0 if from_hand else 1)
            ctx.emit(
                "oba",
                side=side,
                detail=f"{side} writes down an artillery target",
                changes=var_change(**{f"oba_left:{side}": left})
                if not from_hand
                else (),
            )
        else:
            ctx.emit("oba", side=side, detail=f"{side} plots no artillery this round")
        ctx.emit(
            "oba",
            changes=var_change(plotter=rest[0] if rest else None)
            + (() if rest else var_change(plot_order=None)),
        )

    def resolve_oba(self, ctx: RuleContext, rnd: int) -> bool:
        """Strikes plotted in the last pre-round land now (§12.3), one at a
        time: each is announced (the hexes it hits), then, before its attacks,
        the target's side may play Close Call (:mod:`.veterans`).  ``False``:
        the strike waits for that decision (resumed by calling this again)."""
        st = ctx.state
        while True:
            pending = st.vars.get("strike")
            if pending is None:
                nxt = self._next_due(st, rnd)
                if nxt is None:
                    return True
                side, item = nxt
                deck = f"oba:{side}"
                ctx.emit(
                    "oba",
                    side=side,
                    detail="the written target is fired",
                    changes=deck_change(
                        deck, [x for x in st.decks.get(deck, ()) if x != item]
                    ),
                    visible_to=(side,),
                )
                parts = item.split(":")  # round:hex[:smoke] or round:hex:he|smoke:card
                card_id = parts[3] if len(parts) > 3 else None
                smoke = parts[2] == "smoke" if len(parts) > 2 else False
                self._announce_strike(ctx, side, parts[1], smoke, card_id)
                if not smoke and self.open_close_call(ctx, side, parts[1]):
                    return False
                continue
            side, h, smoke, card_id = pending
            ctx.emit("oba", changes=var_change(strike=None))
            self._strike(ctx, str(side), str(h), bool(smoke), card_id or None)

    def _next_due(self, state: GameState, rnd: int) -> tuple[str, str] | None:
        for side in self.sides:
            for x in state.decks.get(f"oba:{side}", ()):
                if x.split(":")[0] == str(rnd - 1):
                    return side, x
        return None

    def _oba_card(self, side: str, card_id: str | None) -> Any:
        from .cards import cards_by_id

        return cards_by_id()[card_id] if card_id else self.batteries[side].card

    def _announce_strike(
        self, ctx: RuleContext, side: str, h: str, smoke: bool, card_id: str | None
    ) -> None:
        """Where the strike lands, for all to see; an OBA card of the hand is
        used up (face up on the discard pile, §8.4)."""
        st = ctx.state
        card = self._oba_card(side, card_id)
        if card_id is not None:
            ctx.emit(
                "card",
                side=side,
                result=card_id,
                detail=f"{side} plays {card.name} (§12.3)",
                changes=deck_change("discard", (*st.decks.get("discard", ()), card_id)),
            )
        ctx.emit(
            "oba",
            side=side,
            hex_to=h,
            result="smoke" if smoke else "strike",
            detail=f"{card.name} lands on {h} and the hexes around it (§12.3)",
            changes=var_change(strike=(side, h, smoke, card_id or "")),
        )

    def _strike(
        self,
        ctx: RuleContext,
        side: str,
        h: str,
        smoke: bool,
        card_id: str | None = None,
    ) -> None:
        """The strike's smoke, or its attacks on every unit of the seven hexes."""
        st = ctx.state
        card = self._oba_card(side, card_id)
        pattern = [h, *sorted(self.board.neighbors(h))]
        if smoke:
            had = [(str(x), int(n)) for x, n in st.vars.get("smoke") or ()]
            ctx.emit(
                "smoke",
                side=side,
                hex_to=h,
                result="+2 smoke",
                detail="artillery smoke on the seven hexes (§13.1)",
                changes=var_change(smoke=(*had, *((x, 2) for x in pattern))),
            )
            return
        for x in pattern:
            shown_units = [
                u for u in st.units_at(x) if not u.destroyed and not u.hidden
            ]
            for u in shown_units:
                if not st.units[u.id].destroyed:
                    self._oba_attack(ctx, side, card, st.units[u.id], x)
            if not shown_units:
                self._oba_hidden(ctx, side, card, x)
            self.oba_at_forts(ctx, side, card, x)  # §18.4 (obstacles.py)

    def oba_math(self, state: GameState, card: Any, t: Unit, h: str) -> FireMath | None:
        """FP and DV of the card's strike on ``t`` in ``h`` (module docstring)."""
        tt = self.specs[t.id].type
        blue = tt.dr_colour(True) == "blue" and not tt.open_topped
        base = card.fp_blue if blue else card.fp_red
        if base is None:
            return None
        dv = int(tt.dr_flank)
        dvt = [f"flank DR {dv}"]
        m = self.marker(t)
        if m is not None and m.dr_mod(True):
            dv += m.dr_mod(True)
            dvt.append(f"{m.name} {m.dr_mod(True):+d}")
        dm = int(self.board.dm(h, he=True, air_burst_soft=not tt.armored))
        if dm:
            dv += dm
            dvt.append(f"terrain {dm:+d}")
        if t.attrs.get("hasty"):
            dv += 1
            dvt.append("hasty defence +1 (§18)")
        for add, why in self.extra_dms(state, t, h, h):
            dv += add
            dvt.append(why)
        fp_terms = (f"{card.name} {'blue' if blue else 'red'} FP {base}",)
        return FireMath(int(base), dv, True, fp_terms, tuple(dvt))

    def _oba_attack(
        self, ctx: RuleContext, side: str, card: Any, t: Unit, h: str
    ) -> None:
        fm = self.oba_math(ctx.state, card, t, h)
        if fm is None:
            ctx.emit(
                "attack",
                side=side,
                target=t.id,
                result="no attack",
                detail=f"no FP of the colour {t.name} needs (§7.1)",
            )
            return
        self.reveal_marker(ctx, t, "fired_at")
        dice = ctx.roll(
            2,
            kind="attack",
            side=side,
            target=t.id,
            needed=fm.needed,
            detail=f"artillery AV {fm.fp}+2d6 vs DV {fm.dv}: " + ", ".join(fm.dv_terms),
        )
        av = fm.fp + sum(dice)
        self._land(ctx, side, ctx.state.units[t.id], fire_result(av, fm.dv), av, fm.dv)

    def _oba_hidden(self, ctx: RuleContext, side: str, card: Any, h: str) -> None:
        st = ctx.state
        dice = ctx.roll(
            2,
            kind="attack",
            side=side,
            hex_to=h,
            detail=f"artillery on {h}, where units may be hidden",
        )
        for owner in self.sides:
            stack = [u for u in st.units_at(h) if u.hidden and u.side == owner]
            if not stack:
                continue
            t = min(stack, key=lambda u: (int(self.specs[u.id].type.dr_flank), u.id))
            fm = self.oba_math(st, card, t, h)
            if fm is None:
                continue
            av = fm.fp + sum(dice)
            result = fire_result(av, fm.dv)
            if result == "miss":
                ctx.emit(
                    "attack",
                    side=owner,
                    target=t.id,
                    hex_to=h,
                    result="miss",
                    detail=f"AV {av} against hidden {t.name}'s DV {fm.dv}",
                    visible_to=(owner,),
                )
                continue
            self.reveal_hex(ctx, h, owner, "is hit by artillery (§10.03, §12.3)")
            self._land(ctx, side, st.units[t.id], result, av, fm.dv)
