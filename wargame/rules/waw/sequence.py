"""World at War sequence of play: turns, chit draws, clean-up, end of game.

Rule sections: WaW 3.0 (the Operations phase and its end), 1.7 (the chit cup:
formation, end-turn, support and chaos chits), scenario reinforcements, the
Clean-up phase (markers; HQ repositioning, HQ movement; HQ replacement,
1.3.3.3), hex capture and victory points, the end of the game.  Also who
decides at each moment (``current_side``) and the outcome.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from wargame.engine import (
    GameState,
    Outcome,
    RuleContext,
    Unit,
    control_change,
    deck_change,
    state_change,
    unit_change,
    var_change,
)

from ._common import (
    CHAOS_CHIT,
    END_CHIT,
    STACK_LIMIT,
    SUPPORT_CHIT,
    _plural,
    _Queries,
    _Snap,
)
from .dice import roll_d6
from .fire import clear_opp_window, close_opp_window, opp_window
from .replacement import HQ_PENDING
from .unit_attrs import carried_by, ops_complete


class _Sequence(_Queries):
    """The sequence of play (mixin of :class:`~.ruleset.WawRuleset`)."""

    chaos_chits: int
    destroyed_vp: int
    first_side: str
    reinforcements: tuple[tuple[int, tuple[str, ...], tuple[str, ...]], ...]
    tie_winner: str | None

    if TYPE_CHECKING:  # pragma: no cover
        # .replacement: WaW 1.3.3.3
        def _replace_hqs(self, ctx: RuleContext) -> bool: ...

    # ------------------------------------------------------------------ #
    # protocol: who decides, the result
    # ------------------------------------------------------------------ #
    def current_side(self, state: GameState) -> str | None:
        """The side to decide: the enemy choosing an unplaced SW to remove (WaW
        1.3.5), the owner of an HQ to replace, chit owner, opportunity-fire side
        or active side."""
        v = state.vars
        if v.get("over"):
            return None
        if (chooser := self._sw_chooser(state)) is not None:
            return chooser  # WaW 1.3.5: the enemy chooses the unplaced SW to remove
        if v.get(HQ_PENDING):
            # WaW 1.3.3.3: the owner chooses where its destroyed HQ comes back.
            return state.units[v[HQ_PENDING][0]].side
        if v.get("drawn"):
            return state.formations[v["drawn"]].side
        if v.get("support"):
            return self.supports[v["support"]].side
        if opp_window(state):
            return self._opp_side(state)
        if v.get("active"):
            return state.formations[v["active"]].side
        return None

    def outcome(self, state: GameState) -> Outcome | None:
        """The end of the game, once reached."""
        v = state.vars
        if not v.get("over"):
            return None
        return Outcome(
            winner=v.get("winner"),
            termination=str(v.get("termination")),
            victory_points=dict(v.get("vp", ())),
            turn=state.turn,
        )

    def victory_points(self, state: GameState) -> dict[str, int]:
        """Victory points now: objectives held plus enemy units destroyed.

        Scenario ``[[objectives]]`` give their ``vp`` to the side controlling the
        hex (WaW hex capture: the last side to move through it); ``[victory]
        unit_destroyed_vp`` is scored for each enemy unit destroyed.
        """
        vp = dict.fromkeys(self.side_ids, 0)
        for h, value, _name in self.objectives:
            owner = state.control.get(h)
            if owner is not None:
                vp[owner] += value
        if self.destroyed_vp:
            for u in state.units.values():
                if u.destroyed:
                    vp[self.enemy_of(u.side)] += self.destroyed_vp
        return vp

    # ------------------------------------------------------------------ #
    # automatic steps: chit draws, phase ends, clean-up, end of game
    # ------------------------------------------------------------------ #
    def advance(self, ctx: RuleContext) -> None:
        """Draw chits, close phases, clean up and end the game as the rules say."""
        st = ctx.state
        while True:
            v = st.vars
            if v.get("over"):
                return
            if st.phase == "setup":
                self._begin_turn(ctx, first=True)
                continue
            if self._annihilated(st):
                self._game_over(ctx, "annihilation")
                return
            if self._sw_chooser(st) is not None:
                return  # WaW 1.3.5: the enemy's choice of SW to remove first
            if v.get("drawn") or v.get("support") or v.get(HQ_PENDING):
                return
            if st.phase == "cleanup":
                # an owner has placed its HQ (WaW 1.3.3.3): the clean-up goes on
                self._end_cleanup(ctx)
                continue
            mover = self._opp_mover(st)
            if mover is not None:
                if self._opp_fire_options(self._snap(st), mover):
                    return
                ctx.emit(
                    "opportunity_end",
                    side=self._opp_side(st),
                    target=mover.id,
                    detail=f"no more opportunity fire at {mover.name}",
                    changes=close_opp_window(),
                )
                continue
            if v.get("active"):
                return
            if st.phase == "operations":
                cup = st.decks["cup"]
                # WaW 3.0: the second end-turn chit, or no formation chit left in
                # the cup, ends the Operations phase.
                if v.get("end_chits", 0) >= 2 or not any(
                    c in st.formations for c in cup
                ):
                    self._cleanup(ctx)
                    continue
                self._draw(ctx)
                continue
            raise RuntimeError(f"waw-classic: stuck in phase {st.phase!r}")

    def _annihilated(self, st: GameState) -> bool:
        for side in self.side_ids:
            if not any(
                not u.destroyed and not self.info[u.id].is_hq
                for u in st.units.values()
                if u.side == side
            ):
                return True
        return False

    def _begin_turn(self, ctx: RuleContext, *, first: bool = False) -> None:
        st = ctx.state
        turn = 1 if first else st.turn + 1
        cup = self._full_cup(st, turn)
        ctx.emit(
            "turn",
            result=f"turn {turn}",
            detail=(
                f"turn {turn} of {self.scenario.turns} begins; the cup holds "
                f"{_plural(len(cup), 'chit')}"
            ),
            changes=state_change(turn=turn, phase="operations")
            + deck_change("cup", cup)
            + deck_change("aside", ())
            + var_change(
                next_drawer=self.first_side,
                end_chits=0,
                deferred=(),
                drawn=None,
                drawn_deferred=None,
                active=None,
                acting=None,
                escort=None,
            )
            + clear_opp_window(),
        )
        self._arrive(ctx)

    def _full_cup(self, st: GameState, turn: int | None = None) -> tuple[str, ...]:
        """WaW 1.7 / set-up: each formation's chits plus two end-turn chits.

        ASSUMPTION: a formation with no unit left on the map (other than its HQ)
        puts no chit in the cup; reinforcements count from their turn.
        """
        turn = st.turn if turn is None else turn
        cup: list[str] = []
        for fid, f in st.formations.items():
            alive = any(
                not st.units[m].destroyed
                and not self.info[m].is_hq
                and (
                    st.units[m].position is not None
                    or st.units[m].attrs.get("arrives", turn + 1) <= turn
                )
                for m in self.members[fid]
            )
            if alive:
                cup += [fid] * f.chits
        # WaW set-up / 1.7: air support (and artillery) and chaos chits go in
        # the cup too.  ASSUMPTION 51: a support whose missions are spent (its
        # ammunition depletion marker) puts no chit in.
        ammo = dict(st.vars.get("ammo", ()))
        for sid, sup in self.supports.items():
            if ammo.get(sid, 0) > 0:
                cup += [SUPPORT_CHIT + sid] * sup.chits
        cup += [CHAOS_CHIT] * self.chaos_chits
        return (*cup, END_CHIT, END_CHIT)

    def _arrive(self, ctx: RuleContext) -> None:
        """Scenario reinforcements enter at their entry hexes on their turn.

        ASSUMPTION (scenario rule; the seeds give no procedure): at the start of
        their turn each unit is placed, in scenario order, on the first entry
        hex of its group with room (stacking 2, one HQ) and no enemy unit, with
        its passenger; it then acts when its formation's chit is drawn.  A unit
        that finds no room waits for the next turn.  Entering takes the hex.
        """
        st = ctx.state
        for _turn, ids, entry in self.reinforcements:
            for uid in ids:
                u = st.units[uid]
                due = u.attrs.get("arrives")
                if (
                    u.position is not None
                    or u.destroyed
                    or carried_by(u) is not None
                    or due is None
                    or due > st.turn
                ):
                    continue
                snap = self._snap(st)
                i = self.info[uid]
                dest = None
                for h in entry:
                    if snap.combat.get((h, self.enemy_of(u.side))):
                        continue
                    if i.is_hq and h in snap.hq:
                        continue
                    n = snap.count.get((h, u.side), 0) + (1 if i.counts else 0)
                    if n <= STACK_LIMIT:
                        dest = h
                        break
                if dest is None:
                    ctx.emit(
                        "reinforcement",
                        side=u.side,
                        formation=u.formation,
                        unit=uid,
                        result="delayed",
                        detail=(
                            f"{u.name} cannot enter (entry hexes "
                            f"{', '.join(entry)} full or held by the enemy); "
                            "it tries again next turn"
                        ),
                    )
                    continue
                changes: list[Any] = list(unit_change(uid, position=dest, arrives=None))
                p = next(
                    (
                        x
                        for x in st.units.values()
                        if carried_by(x) == uid and not x.destroyed
                    ),
                    None,
                )
                if p is not None:
                    changes += unit_change(p.id, position=dest, arrives=None)
                if st.control.get(dest) != u.side and not i.is_helicopter:
                    changes += control_change(dest, u.side)  # not by helicopters (43)
                aboard = f" carrying {p.name}" if p is not None else ""
                ctx.emit(
                    "reinforcement",
                    side=u.side,
                    formation=u.formation,
                    unit=uid,
                    hex_to=dest,
                    result="arrived",
                    detail=f"{u.name}{aboard} arrives at {dest}",
                    changes=changes,
                )

    def _draw(self, ctx: RuleContext) -> None:
        """WaW Operations phase: the sides draw chits from the cup in turn."""
        st = ctx.state
        v = st.vars
        cup = list(st.decks["cup"])
        drawer = v["next_drawer"]
        # ASSUMPTION: "it does not matter who draws first" - the scenario's
        # first side draws first each turn, then the sides alternate.
        pick = int(ctx.rng.random() * len(cup))
        chit = cup.pop(pick)
        nxt = self.enemy_of(drawer)
        who = st.sides[drawer].name
        if chit == END_CHIT:
            n = v.get("end_chits", 0) + 1
            ctx.emit(
                "draw",
                side=drawer,
                target=chit,
                result="end-turn chit",
                detail=(
                    f"{who} draws an end-turn chit ({'second' if n == 2 else 'first'}"
                    f"); {_plural(len(cup), 'chit')} left in the cup"
                ),
                changes=deck_change("cup", cup)
                + deck_change("aside", (*st.decks["aside"], chit))
                + var_change(end_chits=n, next_drawer=nxt),
            )
            return
        if chit.startswith(SUPPORT_CHIT):
            sup = self.supports[chit.removeprefix(SUPPORT_CHIT)]
            ctx.emit(
                "draw",
                side=drawer,
                target=chit,
                result="support chit",
                detail=(
                    f"{who} draws the fire support chit of {sup.name} "
                    f"({st.sides[sup.side].name}); {_plural(len(cup), 'chit')} left"
                ),
                changes=deck_change("cup", cup)
                + deck_change("aside", (*st.decks["aside"], chit))
                + var_change(support=sup.id, next_drawer=nxt),
            )
            return
        if chit == CHAOS_CHIT:
            ctx.emit(
                "draw",
                side=drawer,
                target=chit,
                result="chaos chit",
                detail=f"{who} draws a chaos chit; {_plural(len(cup), 'chit')} left",
                changes=deck_change("cup", cup)
                + deck_change("aside", (*st.decks["aside"], chit))
                + var_change(next_drawer=nxt),
            )
            self._chaos(ctx, drawer)
            return
        f = st.formations[chit]
        # ASSUMPTION 23: deferral is per chit.  A deferred chit goes back at the
        # end of the cup and draws keep the cup's order, so the deferred chits of
        # a formation are always its last occurrences in the cup.
        again, deferred = _take_deferred(v.get("deferred", ()), st.decks["cup"], pick)
        ctx.emit(
            "draw",
            side=drawer,
            formation=chit,
            target=chit,
            result="formation chit (deferred before)" if again else "formation chit",
            detail=(
                f"{who} draws {'a deferred' if again else 'the'} chit of {f.name} "
                f"({st.sides[f.side].name}); {_plural(len(cup), 'chit')} left in "
                "the cup"
            ),
            changes=deck_change("cup", cup)
            + var_change(
                drawn=chit,
                drawn_deferred=True if again else None,
                deferred=deferred,
                next_drawer=nxt,
            ),
        )

    def _chaos(self, ctx: RuleContext, side: str) -> None:
        """A chaos chit (WaW 1.7; its effect is not in the seeds).

        ASSUMPTION 55: the fog of war strikes the side that drew it: a d6 of 1-3
        takes one of its formation chits still in the cup out of play for this
        turn (a second d6 picks which, in cup order); 4-6: no effect.
        """
        st = ctx.state
        (die,) = roll_d6(ctx.rng, 1)
        cup = list(st.decks["cup"])
        mine = [
            i
            for i, c in enumerate(cup)
            if c in st.formations and st.formations[c].side == side
        ]
        if die > 3 or not mine:
            ctx.emit(
                "chaos",
                side=side,
                dice=(die,),
                needed=3,
                result="no effect",
                detail=f"chaos: d6 = {die}"
                + (
                    " (4-6: no effect)" if die > 3 else "; no chit of theirs in the cup"
                ),
            )
            return
        (pick,) = roll_d6(ctx.rng, 1)
        idx = mine[(pick - 1) * len(mine) // 6]
        _again, deferred = _take_deferred(st.vars.get("deferred", ()), cup, idx)
        chit = cup.pop(idx)
        ctx.emit(
            "chaos",
            side=side,
            formation=chit,
            target=chit,
            dice=(die, pick),
            needed=3,
            result="chit lost",
            detail=(
                f"chaos: d6 = {die} (1-3): {st.formations[chit].name} loses a chit "
                f"this turn (d6 = {pick} picks it)"
            ),
            changes=deck_change("cup", cup)
            + deck_change("aside", (*st.decks["aside"], chit))
            + (var_change(deferred=deferred) if _again else ()),
        )

    def _cleanup(self, ctx: RuleContext) -> None:
        """WaW Clean-up phase.

        Remove the Ops Complete, "In Zone" and "Artillery Shock" markers, thin
        the smoke (assumption 54; ammunition depletion is the support's
        missions, assumption 51), reposition HQs, replace destroyed HQs
        (1.3.3.3, the owner may have to choose), return the chits to the cup
        (3.2.1 exceptions: GAP).
        """
        st = ctx.state
        why = (
            "second end-turn chit drawn"
            if st.vars.get("end_chits", 0) >= 2
            else "no formation chit left in the cup"
        )
        changes: list[Any] = list(state_change(phase="cleanup"))
        for u in st.units.values():
            if ops_complete(u):
                changes += unit_change(u.id, ops_complete=False)
            # clean-up: "Artillery Shock" markers removed with the Ops Complete ones
            for key in ("mp", "lead_used", "mode_set", "shock"):
                if key in u.attrs:
                    changes += unit_change(u.id, **{key: None})
        changes += var_change(
            drawn=None, drawn_deferred=None, active=None, acting=None, escort=None
        )
        changes += clear_opp_window() + var_change(deferred=())
        # Clean-up (seed 000): remove "In Zone" markers; adjust smoke markers.
        # ASSUMPTION 54: fresh smoke (2) thins (1) at the first clean-up and is gone
        # at the second.
        if st.vars.get("in_zone"):
            changes += var_change(in_zone=())
        smoke = st.vars.get("smoke")
        if smoke:
            changes += var_change(
                smoke=tuple((h, lvl - 1) for h, lvl in smoke if lvl > 1)
            )
        ctx.emit(
            "cleanup",
            result="markers removed",
            detail=(
                f"Operations phase over ({why}); Ops Complete, In Zone and "
                "Artillery Shock markers removed, smoke thinned"
            ),
            changes=changes,
        )
        self._reposition_hqs(ctx)
        self._end_cleanup(ctx)

    def _end_cleanup(self, ctx: RuleContext) -> None:
        """The rest of the clean-up: HQs replaced (WaW 1.3.3.3), chits returned,
        then the next turn or the end of the game; stops while an owner must
        choose where an HQ comes back (``advance`` calls it again after)."""
        st = ctx.state
        if self._replace_hqs(ctx):
            return
        cup = self._full_cup(st)
        ctx.emit(
            "chits_returned",
            result=_plural(len(cup), "chit"),
            detail=f"{_plural(len(cup), 'chit')} go back into the cup",
            changes=deck_change("cup", cup) + deck_change("aside", ()),
        )
        if st.turn >= self.scenario.turns:
            self._game_over(ctx, "turn limit")
        else:
            self._begin_turn(ctx)

    def _nearest_stack(
        self, st: GameState, snap: _Snap, hq: Unit, members: set[str] | None
    ) -> str | None:
        """Nearest hex with a unit (of ``members`` if given) and no other HQ."""
        best: tuple[int, str] | None = None
        for u in st.units.values():
            if (
                u.destroyed
                or u.side != hq.side
                or self.info[u.id].is_hq
                or (members is not None and u.id not in members)
            ):
                continue
            h = u.hex
            if h is None:
                continue
            other = snap.hq.get(h)
            if other is not None and other.id != hq.id:
                continue
            cand = (self.board.distance(hq.position, h), h)  # type: ignore[arg-type]
            if best is None or cand < best:
                best = cand
        return best[1] if best else None

    def _reposition_hqs(self, ctx: RuleContext) -> None:
        """WaW HQ movement: an HQ not stacked with its formation moves to it.

        The seed: an HQ that cannot end its move with units of its formation moves
        to the nearest one at the start of the next turn; if its formation is gone,
        to the nearest friendly unit.  ASSUMPTION: done in the Clean-up phase (the
        seed's clean-up list says "reposition HQs"); ties go to the lower label.
        """
        st = ctx.state
        for fid in st.formations:
            hq = self._hq_unit(st, fid)
            if hq is None or hq.destroyed or hq.position is None:
                continue
            snap = self._snap(st)
            here = [
                u
                for u in snap.units(hq.position)  # type: ignore[arg-type]
                if u.formation == fid and u.id != hq.id
            ]
            if here:
                continue
            members = {m for m in self.members[fid] if m != hq.id}
            dest = self._nearest_stack(st, snap, hq, members)
            if dest is None:
                dest = self._nearest_stack(st, snap, hq, None)
            if dest is None or dest == hq.position:
                continue
            ctx.emit(
                "hq_reposition",
                side=hq.side,
                formation=fid,
                unit=hq.id,
                hex_from=hq.position,  # type: ignore[arg-type]
                hex_to=dest,
                result="repositioned",
                detail=f"{hq.name} rejoins its units at {dest}",
                changes=unit_change(hq.id, position=dest),
            )

    def _game_over(self, ctx: RuleContext, termination: str) -> None:
        st = ctx.state
        vp = self.victory_points(st)
        tie_note = ""
        if termination == "annihilation":
            # ASSUMPTION: a side with no unit left (HQs aside) loses outright.
            alive = [
                s
                for s in self.side_ids
                if any(
                    not u.destroyed and not self.info[u.id].is_hq
                    for u in st.units.values()
                    if u.side == s
                )
            ]
            winner = alive[0] if len(alive) == 1 else None
        else:
            best = max(vp.values())
            leaders = [s for s, p in vp.items() if p == best]
            winner = leaders[0] if len(leaders) == 1 else None
            if winner is None and self.tie_winner is not None:
                # Scenario victory condition: equal VP go to the named side.
                winner = self.tie_winner
                tie_note = f"; equal VP: {st.sides[winner].name} wins ties"
        text = ", ".join(f"{st.sides[s].name} {p}" for s, p in vp.items()) + tie_note
        ctx.emit(
            "game_over",
            side=winner,
            result=f"{st.sides[winner].name} wins" if winner else "draw",
            detail=f"game over ({termination}); victory points: {text}",
            changes=state_change(phase="end")
            + var_change(
                over=True,
                winner=winner,
                termination=termination,
                vp=tuple(vp.items()),
                drawn=None,
                drawn_deferred=None,
                active=None,
                acting=None,
                escort=None,
            )
            + clear_opp_window(),
        )


def _take_deferred(
    deferred: tuple[str, ...], cup: tuple[str, ...] | list[str], index: int
) -> tuple[bool, tuple[str, ...]]:
    """Is the chit at ``cup[index]`` one that was deferred this turn?

    ``deferred`` lists the deferred chits still in the cup (a formation once per
    deferred chit).  They went back at the end of the cup, so they are the last
    occurrences of their formation there.  Returns the answer and ``deferred``
    without that chit.

    >>> _take_deferred(("A",), ["A", "B", "A"], 2)
    (True, ())
    >>> _take_deferred(("A",), ["A", "B", "A"], 0)
    (False, ('A',))
    """
    chit = cup[index]
    n_deferred = deferred.count(chit)
    if not n_deferred:
        return False, deferred
    later = sum(1 for c in list(cup)[index + 1 :] if c == chit)
    if later >= n_deferred:
        return False, deferred
    rest = list(deferred)
    rest.remove(chit)
    return True, tuple(rest)
