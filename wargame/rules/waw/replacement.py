"""World at War HQ replacement (WaW 1.3.3.3): a destroyed HQ comes back reduced.

After the Clean-up phase has removed its markers, each destroyed HQ is placed,
reduced side up, in a hex holding a friendly unit of its own formation and of
the matching type; with none of that type left it is not placed and its
formation stays out of command (4.0).  The owner chooses the hex: with one
candidate hex the HQ goes there at once, with several the clean-up waits for
the owner's :class:`~.actions.ReplaceHQ` (``state.vars["hq_pending"]``).

The matching type is the scenario formation's ``hq_types``, or by default the
formation's most numerous vehicle type (:func:`default_hq_types`).

Examples:
    >>> from wargame.rules.waw import get_unit
    >>> default_hq_types([get_unit("fv432"), get_unit("uk_infantry"),
    ...                   get_unit("fv432"), get_unit("chieftain")])
    ('fv432',)
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from wargame.engine import Action, GameState, RuleContext, Unit, unit_change, var_change
from wargame.engine.scenario import shown

from ._common import _Queries, _unknown_type
from .actions import ReplaceHQ
from .catalog import UnitClass, UnitType

__all__ = ["HQ_PENDING", "default_hq_types", "hq_types_of"]

#: ``state.vars`` key: the destroyed HQ whose owner chooses its hex now (a tuple
#: of one HQ id, like the other pending decisions), absent or empty otherwise.
HQ_PENDING = "hq_pending"
#: Most unit type ids a formation's ``hq_types`` may list.
_MAX_HQ_TYPES = 50


def default_hq_types(types: Sequence[UnitType]) -> tuple[str, ...]:
    """The matching type of an HQ whose scenario gives no ``hq_types``.

    ``types``: the unit types of the formation's units other than its HQ, in
    scenario order (passengers included, they do not count).

    ASSUMPTION 58 (WaW 1.3.3.3 says "a unit of the matching type" and gives the
    example of a British HQ coming back on an FV432 platoon of its regiment;
    the counters' vehicle is not in the seeds): the formation's most numerous
    vehicle type (tracked or wheeled, helicopters aside) at set-up, ties going
    to the type met first in scenario order; a formation without vehicles
    counts all its units (infantry, foot mortars).  Empty when the formation
    has no unit besides its HQ.

    Examples:
        >>> from wargame.rules.waw import get_unit
        >>> default_hq_types([get_unit("t72"), get_unit("bmp2"), get_unit("bmp2")])
        ('bmp2',)
        >>> default_hq_types([get_unit("t72"), get_unit("bmp2")])  # a tie
        ('t72',)
        >>> default_hq_types([get_unit("us_infantry"), get_unit("us_mortar81")])
        ('us_infantry',)
        >>> default_hq_types([])
        ()
    """
    # ASSUMPTION 58: the most numerous vehicle type, ties in scenario order; a
    # formation without vehicles counts all its units.
    ground = [
        t
        for t in types
        if t.unit_class not in (UnitClass.HQ, UnitClass.HELICOPTER)
        and t.unit_class is not UnitClass.SUPPORT_WEAPON
    ]
    vehicles = [t for t in ground if t.is_vehicle]
    pool = vehicles or ground
    if not pool:
        return ()
    # Counter keeps the order of first appearance: max() returns the first of
    # the most numerous, i.e. the tie goes to scenario order.
    counts = Counter(t.id for t in pool)
    best = max(counts, key=counts.__getitem__)
    return (best,)


def hq_types_of(
    where: str,
    raw: Mapping[str, Any],
    hq: str | None,
    types: Sequence[UnitType],
    catalog: Mapping[str, UnitType],
    add: Callable[[str, str], None],
) -> tuple[str, ...]:
    """A formation's matching HQ types: its ``hq_types``, checked, or the default.

    Args:
        where: the formation's place in the scenario, for messages.
        raw: the ``[[formations]]`` table.
        hq: its HQ unit id (``None``: the formation has no HQ).
        types: the unit types of its other units, in scenario order.
        catalog: the scenario's unit catalog (with its overrides).
        add: reports one problem (field, text).

    Examples:
        >>> from wargame.rules.waw import get_unit, unit_catalog
        >>> bad = []
        >>> hq_types_of("formations[0] ('A')", {"hq_types": ["bmp9"]}, "A-HQ",
        ...             [get_unit("bmp2")], unit_catalog(),
        ...             lambda w, t: bad.append(f"{w}: {t}"))
        ('bmp2',)
        >>> print(bad[0].split(": ", 1)[1])
        unknown WaW unit type 'bmp9' (did you mean bmp2, bmp1?)
    """
    default = default_hq_types(types)
    given = raw.get("hq_types")
    if given is None:
        return default if hq is not None else ()
    field = f"{where}.hq_types"
    if hq is None:
        add(field, "the formation has no HQ to replace (give it an `hq` first)")
        return ()
    if (
        not isinstance(given, list)
        or not given
        or len(given) > _MAX_HQ_TYPES
        or not all(isinstance(t, str) for t in given)
    ):
        add(
            field,
            "must be a non-empty list of unit type ids, such as "
            f'["{default[0] if default else "bmp2"}"], not {shown(given)}',
        )
        return default
    own = {t.id for t in types}
    out: list[str] = []
    ok = True
    for tid in given:
        t = catalog.get(tid)
        if t is None:
            add(field, _unknown_type(tid, catalog))
            ok = False
        elif t.unit_class in (UnitClass.HQ, UnitClass.SUPPORT_WEAPON):
            what = "an HQ" if t.unit_class is UnitClass.HQ else "a support weapon"
            add(
                field,
                f"{shown(tid)} is {what}: an HQ is replaced with one of its "
                "formation's units (WaW 1.3.3.3)",
            )
            ok = False
        elif tid not in own:
            mine = ", ".join(sorted(own)) or "none"
            add(
                field,
                f"no unit of the formation is a {shown(tid)} (its types: {mine})",
            )
            ok = False
        elif tid not in out:
            out.append(tid)
    return tuple(out) if ok else default


class _Replacement(_Queries):
    """HQ replacement in the Clean-up phase (mixin of :class:`~.ruleset.WawRuleset`)."""

    #: formation id -> the unit type ids its destroyed HQ may come back with
    hq_types: dict[str, tuple[str, ...]]

    def _type_names(self, fid: str | None) -> str:
        types = self.hq_types.get(fid or "", ())
        return " or ".join(self.catalog[t].name for t in types) or "none"

    def _replacement_hexes(self, state: GameState, hq: Unit) -> list[str]:
        """WaW 1.3.3.3: hexes where a destroyed HQ may come back, in scenario order.

        A hex with a unit of its formation of the matching type, in play on the
        map, and no HQ (WaW HQs: one HQ per hex).
        """
        types = self.hq_types.get(hq.formation or "", ())
        snap = self._snap(state)
        out: list[str] = []
        # ASSUMPTION 58: a carried platoon of the type counts (its carrier's hex).
        for m in self.members.get(hq.formation or "", ()):
            u = state.units[m]
            h = u.hex
            if (
                u.destroyed
                or h is None
                or self.info[m].is_hq
                or u.type not in types
                or h in snap.hq
                or h in out
            ):
                continue
            out.append(h)
        return out

    def _replace_hqs(self, ctx: RuleContext) -> bool:
        """WaW 1.3.3.3: place the destroyed HQs; True while an owner must choose.

        Formation by formation: none of the matching type left, the HQ stays out
        (its formation is out of command, 4.0); one hex, it is placed there;
        several, the clean-up waits for the owner's :class:`ReplaceHQ` (called
        again afterwards, it goes on with the next HQ).
        """
        st = ctx.state
        for fid in st.formations:
            hq = self._hq_unit(st, fid)
            if hq is None or not hq.destroyed:
                continue
            hexes = self._replacement_hexes(st, hq)
            if not hexes:
                # WaW 1.3.3.3: none of the matching type left: not placed (4.0:
                # out of command).  ASSUMPTION 32: tried again at each clean-up.
                continue
            if len(hexes) == 1:
                self._place_hq(ctx, hq, hexes[0], chosen=False)
                continue
            who = st.sides[hq.side].name
            ctx.emit(
                "hq_replacement",
                side=hq.side,
                formation=fid,
                unit=hq.id,
                result="owner chooses",
                detail=(
                    f"{hq.name} comes back reduced with a unit of its formation "
                    f"of the matching type ({self._type_names(fid)}): {who} "
                    f"chooses the hex ({', '.join(hexes)})"
                ),
                changes=var_change(**{HQ_PENDING: (hq.id,)}),
            )
            return True
        return False

    def _place_hq(self, ctx: RuleContext, hq: Unit, h: str, *, chosen: bool) -> None:
        st = ctx.state
        fid = hq.formation
        types = self.hq_types.get(fid or "", ())
        with_ = ", ".join(
            u.name
            for u in self._snap(st).units(h)
            if u.formation == fid and u.type in types and not self.info[u.id].is_hq
        )
        how = (
            f"{st.sides[hq.side].name}'s choice"
            if chosen
            else "the only hex with a unit of its formation of the matching type"
        )
        changes = unit_change(hq.id, strength="reduced", position=h)
        if chosen:
            changes += var_change(**{HQ_PENDING: None})
        ctx.emit(
            "hq_replaced",
            side=hq.side,
            formation=fid,
            unit=hq.id,
            hex_to=h,
            result="replaced (reduced)",
            detail=f"{hq.name} is replaced, reduced, with {with_} at {h} ({how})",
            changes=changes,
        )

    # -- the decision ------------------------------------------------------ #
    def _pending_hq(self, state: GameState) -> Unit | None:
        """The destroyed HQ whose owner chooses its hex now, if any."""
        pending = state.vars.get(HQ_PENDING)
        return state.units[pending[0]] if pending else None

    def _replace_options(self, state: GameState) -> list[Action]:
        hq = self._pending_hq(state)
        if hq is None:
            return []
        return [ReplaceHQ(hq.id, h) for h in self._replacement_hexes(state, hq)]

    def _why_not_replace_hq(self, state: GameState, a: ReplaceHQ) -> str | None:
        hq = state.units.get(a.hq) if isinstance(a.hq, str) else None
        if hq is None or hq.id not in self.hq_ids:
            return f"there is no HQ {shown(a.hq)} in this game"
        pending = self._pending_hq(state)
        if pending is None or pending.id != hq.id:
            now = f"; {pending.name} is" if pending is not None else ""
            return (
                f"WaW 1.3.3.3: {hq.name} is not waiting to be replaced{now} "
                "(a destroyed HQ comes back in the Clean-up phase)"
            )
        h = a.hex
        if not isinstance(h, str) or h not in self.board:
            return f"{shown(h)} is not a hex of the map"
        snap = self._snap(state)
        here = [u for u in snap.units(h) if not self.info[u.id].is_hq]
        fname = self._fname(state, hq.formation)
        mine = [u for u in here if u.formation == hq.formation]
        if not mine:
            held = (
                ", ".join(f"{u.name} ({self._fname(state, u.formation)})" for u in here)
                or "no unit"
            )
            return (
                f"WaW 1.3.3.3: {hq.name} comes back with a unit of its formation "
                f"({fname}); {h} holds {held}"
            )
        types = self.hq_types.get(hq.formation or "", ())
        if not any(u.type in types for u in mine):
            held = ", ".join(f"{u.name} ({self.info[u.id].utype.name})" for u in mine)
            return (
                f"WaW 1.3.3.3: {hq.name} comes back with a unit of the matching "
                f"type ({self._type_names(hq.formation)}); {h} holds {held}"
            )
        other = snap.hq.get(h)
        if other is not None:
            return f"WaW HQs: one HQ per hex; {h} already holds {other.name}"
        return None

    def _do_replace_hq(self, ctx: RuleContext, a: ReplaceHQ) -> None:
        hq = ctx.state.units[a.hq]
        self._place_hq(ctx, hq, a.hex, chosen=True)
