"""Shared pieces of the World at War game rules: vocabulary, occupancy, queries.

Used by every mixin of :class:`~.ruleset.WawRuleset`: :mod:`.setup` (scenario ->
initial state), :mod:`.sequence` (the sequence of play), :mod:`.activation`,
:mod:`.movement`, :mod:`.fire`, :mod:`.assault`, :mod:`.support` and
:mod:`.support_weapons` (the action families) and :mod:`.helpers` (public
read-only helpers).  Private to the package.

Rule sections of the shared queries: WaW Stacking, 1.3.3 / 4.0 command range,
1.3.4.4 recon, 1.3.5 support weapons, 5.0 movement costs (and the seed 000
bridge units), 6.1.1 weapon reach, 6.1.5 hiding, 7.0 LOS, 9.0 helicopter modes,
the clean-up smoke markers, HQ leadership.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from wargame.engine import (
    GameState,
    RuleContext,
    RulesetBase,
    Scenario,
    Unit,
    unit_change,
)
from wargame.engine.scenario import shown

from .board import WawBoard
from .catalog import (
    Nation,
    TargetType,
    TerrainChart,
    UnitSide,
    UnitType,
    Weapon,
)
from .combat import (
    IllegalFireError,
    Strength,
    UnitState,
    check_fire_kind,
    effective_weapon,
)
from .unit_attrs import carried_by, disrupted


def _unknown_type(name: object, catalog: Mapping[str, Any]) -> str:
    """The scenario message for a unit type the catalog does not know.

    >>> _unknown_type("bmp9", {"bmp1": 0, "bmp2": 0, "t72": 0})
    "unknown WaW unit type 'bmp9' (did you mean bmp2, bmp1?)"
    """
    close = difflib.get_close_matches(str(name)[:100], list(catalog), n=3)
    hint = f" (did you mean {', '.join(close)}?)" if close else ""
    return f"unknown WaW unit type {shown(name)}{hint}"


if TYPE_CHECKING:  # pragma: no cover
    from wargame.engine import Action

    from .combat import HitResult

__all__ = [
    "CHAOS_CHIT",
    "END_CHIT",
    "EVENT_KINDS",
    "PHASES",
    "STACK_LIMIT",
    "SUPPORT_CHIT",
    "Support",
    "UnitInfo",
]

#: Phases as logged: setup, the Operations phase (chit draws), a formation's
#: action phase, an opportunity-fire window inside it, the Clean-up phase, the end.
PHASES = ("setup", "operations", "action", "opportunity", "cleanup", "end")
EVENT_KINDS = (
    "turn",
    "draw",
    "activate",
    "defer",
    "activation_end",
    "command",
    "move",
    "ops_complete",
    "opportunity",
    "opportunity_end",
    "pass",
    "fire",
    "save",
    "hit",
    "passengers",
    "hq_stack_check",
    "assault",
    "assault_roll",
    "allocation",
    "retreat",
    "advance",
    "assault_result",
    "rally",
    "mount",
    "dismount",
    "mode",
    "wreck",
    "sw_loss",
    "sw_removed",
    "indirect_fire",
    "hide",
    "support",
    "support_fire",
    "in_zone",
    "chaos",
    "hq_move",
    "hq_move_check",
    "hq_captured",
    "cleanup",
    "reinforcement",
    "hq_reposition",
    "hq_replacement",
    "hq_replaced",
    "chits_returned",
    "game_over",
)
#: ASSUMPTION 57 (WaW 5.2 costs not in the seeds): loading or unloading a
#: platoon costs its carrier 1 MP.
LOAD_MP = 1.0
#: Seed 000 bridge units: laying or taking up an MTU-55 bridge costs 2 MP.
BRIDGE_MP = 2.0
#: The end-turn chit in the cup (WaW 1.7: two per cup).
END_CHIT = "END"
# WaW Stacking (seed 000): at most two units per hex.
STACK_LIMIT = 2
# RULES_NOTES 1.2 FOUND [B]: NATO companies have two formation chits, Soviet
# battalions one (scenarios may say otherwise).
_DEFAULT_CHITS = {Nation.USSR: 1}
_KIND_NAMES = {"ap": "AP", "he": "HE", "aa": "AA", "sw": "SW"}


@dataclass(frozen=True, slots=True)
class _Info:
    """Static facts about one unit of the scenario (public as ``UnitInfo``)."""

    id: str
    name: str
    side: str
    formation: str | None
    utype: UnitType
    is_hq: bool
    counts: bool  # counts against the stacking limit (when not carried)
    is_infantry: bool
    is_carrier: bool
    is_recon: bool
    mobility: str
    is_helicopter: bool = False
    is_mortar: bool = False
    is_bridge_layer: bool = False
    is_vehicle: bool = False


#: Static facts about one unit (:meth:`WawRuleset.unit_info`).
UnitInfo = _Info

#: Cup chit prefix of an off-map fire support chit, and the chaos chit (WaW 1.7).
SUPPORT_CHIT = "SUPPORT:"
CHAOS_CHIT = "CHAOS"


@dataclass(frozen=True, slots=True)
class Support:
    """An off-map artillery battery or air support of a scenario (WaW 1.7).

    The seeds name the chits ("air support" chits go in the cup at set-up) and
    the clean-up markers (smoke, ammunition depletion, "In Zone", "Artillery
    Shock") but not their rules; the values are the scenario's estimates.
    """

    id: str
    side: str
    name: str
    kind: str  # "artillery" | "air"
    weapon: str  # "he" | "ap"
    fp: int
    to_hit: int
    chits: int
    missions: int
    smoke: bool


def _word(before: UnitState, after: UnitState) -> str:
    if after.destroyed and not before.destroyed:
        return "destroyed"
    if after.reduced and not before.reduced:
        return "reduced"
    if after.disrupted and not before.disrupted:
        return "disrupted"
    return "no effect"


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


_HERE = object()  # _unit_event's default hex_to: the unit's own hex


def _unit_event(
    ctx: RuleContext, kind: str, u: Unit, *, hex_to: Any = _HERE, **kw: Any
) -> None:
    """Emit ``kind`` as an event of unit ``u``: its side, formation and id, and
    its hex as ``hex_to`` unless another one (or None) is given."""
    ctx.emit(
        kind,
        side=u.side,
        formation=u.formation,
        unit=u.id,
        hex_to=u.hex if hex_to is _HERE else hex_to,
        **kw,
    )


class _Snap:
    """Who is where, built once per state version (see ``WawRuleset._snap``)."""

    __slots__ = ("at", "bridges", "combat", "count", "hq", "memo", "state")

    def __init__(self, state: GameState, info: Mapping[str, _Info]) -> None:
        self.state = state
        at: dict[str, list[Unit]] = {}
        count: dict[tuple[str, str], int] = {}
        combat: dict[tuple[str, str], int] = {}
        hq: dict[str, Unit] = {}
        bridges: dict[str, Unit] = {}
        for u in state.units.values():
            h = u.position
            if u.strength == "destroyed" or not isinstance(h, str):  # u.destroyed
                continue
            attrs = u.attrs
            deployed = attrs.get("deployed")
            if deployed:
                bridges[h] = u
            here = at.get(h)
            if here is None:
                at[h] = [u]
            else:
                here.append(u)
            i = info[u.id]
            if i.is_hq:
                hq[h] = u
            elif attrs.get("carried_by") is None:  # carried_by(u)
                key = (h, u.side)
                combat[key] = combat.get(key, 0) + 1
                # WaW stacking: a deployed bridge does not count.
                if i.counts and not deployed:
                    count[key] = count.get(key, 0) + 1
        self.at = at
        self.count = count
        self.combat = combat
        self.hq = hq
        self.bridges = bridges
        #: answers that depend on nothing but this occupancy and their key
        self.memo: dict[Any, Any] = {}

    def units(self, h: str) -> list[Unit]:
        return self.at.get(h, [])


# Which fire kinds may hit which target types (from check_fire_kind itself).
def _allowed_pairs() -> frozenset[tuple[str, TargetType]]:
    out = set()
    for k in ("ap", "he", "aa"):
        for tt in TargetType:
            try:
                check_fire_kind(k, tt)
            except IllegalFireError:
                continue
            out.add((k, tt))
    return frozenset(out)


_ALLOWED = _allowed_pairs()


class _Queries(RulesetBase):
    """Small queries on units and states shared by every mixin of the rules."""

    # Set by WawRuleset.__init__ from the scenario and the map.
    scenario: Scenario
    map: Any
    board: WawBoard
    chart: TerrainChart
    info: dict[str, _Info]
    hq_ids: frozenset[str]
    members: dict[str, tuple[str, ...]]
    side_ids: tuple[str, ...]
    objectives: tuple[tuple[str, int, str], ...]
    catalog: Mapping[str, UnitType]
    supports: dict[str, Support]
    _snap_cache: tuple[GameState, int, _Snap] | None
    _snap_other: tuple[GameState, int, _Snap] | None

    if TYPE_CHECKING:  # pragma: no cover
        # What the mixins of the action families offer each other (declared
        # here for the type checker; WawRuleset brings them together).
        # .activation: the phase and the acting unit
        def _phase_reason(self, state: GameState, need: str) -> str | None: ...
        def _actor(self, state: GameState, uid: Any) -> tuple[Unit, str | None]: ...
        def _action_actor(
            self, state: GameState, uid: Any
        ) -> tuple[Unit, str | None]: ...
        def _begin(
            self, ctx: RuleContext, u: Unit, *, command_check: bool = True
        ) -> bool: ...
        def _end_action(self, st: GameState, u: Unit) -> tuple[Any, ...]: ...

        # .fire: the opportunity-fire window, hits and their knock-on
        def _opp_mover(self, state: GameState) -> Unit | None: ...
        def _opp_side(self, state: GameState) -> str | None: ...
        def _opp_fire_options(self, snap: _Snap, mover: Unit) -> list[Action]: ...
        def _offer_opportunity(self, ctx: RuleContext, mover: Unit) -> None: ...
        def _hit(
            self, ctx: RuleContext, t: Unit, hit: HitResult, *, by: str
        ) -> tuple[bool, bool]: ...
        def _hq_stack(
            self, ctx: RuleContext, h: str, side: str, unit_destroyed: bool
        ) -> None: ...

        # .support: "In Zone" hexes
        def _in_zone(self, ctx: RuleContext, u: Unit) -> None: ...

        # .support_weapons: the unplaced-SW loss roll and the enemy's choice
        def _unplaced_sw_rolls(self, ctx: RuleContext, lost: list[Unit]) -> None: ...
        def _sw_chooser(self, state: GameState) -> str | None: ...

    # ------------------------------------------------------------------ #
    # small queries
    # ------------------------------------------------------------------ #
    def _snap(self, state: GameState) -> _Snap:
        """Occupancy of a state, cached until its next event (``state.seq``)."""
        hit = self._snap_cache
        if hit is not None and hit[0] is state and hit[1] == state.seq:
            return hit[2]
        # the game's state and a policy's copy of it (Decision.state) take
        # turns: the last two are kept
        other = self.__dict__.get("_snap_other")
        if other is not None and other[0] is state and other[1] == state.seq:
            self._snap_other, self._snap_cache = hit, other
            return other[2]  # type: ignore[no-any-return]
        snap = _Snap(state, self.info)
        self._snap_other = hit
        self._snap_cache = (state, state.seq, snap)
        return snap

    def enemy_of(self, side: str) -> str:
        """The other side."""
        a, b = self.side_ids
        return b if side == a else a

    def _side_vals(self, u: Unit) -> UnitSide:
        # WaW 9.0: a helicopter shows the side of its current mode.
        return self.info[u.id].utype.side(u.strength == "reduced", u.attrs.get("mode"))

    def _hidden(self, state: GameState, t: Unit, at: str | None = None) -> bool:
        """WaW 6.1.5 hiding, and recon negating it (1.3.4.4).

        ASSUMPTION 50 (6.1.5 is not in the seeds; seed 001's M48 example gives the
        T-64 "hidden" in ruins a bonus die on top of the terrain dice, while the
        TOW jeep in woods of seed 000 rolls its terrain die only): hiding is a
        unit's action (:class:`~.actions.Hide`) in terrain with defence dice; a
        hiding unit rolls one extra defence die (``concealment_dice``, within the
        armored cap of two terrain dice) until it moves, fires or assaults.  It
        gets no bonus while an enemy recon unit (on the map, not disrupted) has
        its hex in line of sight (1.3.4.4).
        """
        h = at or t.position
        if not t.attrs.get("hiding") or not isinstance(h, str):
            return False
        if self.board.defence_dice(h) <= 0:
            return False
        return self._recon_watching(state, t.side, h) is None

    def _recon_watching(self, state: GameState, side: str, h: str) -> Unit | None:
        """An enemy recon unit with ``h`` in its LOS (WaW 1.3.4.4), if any."""
        for x in state.units.values():
            if (
                x.side == side
                or x.destroyed
                or not self.info[x.id].is_recon
                or not isinstance(x.position, str)
                or carried_by(x) is not None
                or disrupted(x)
            ):
                continue
            if self._ground_los(state, x.position, h):
                return x
        return None

    @staticmethod
    def _unhide(u: Unit) -> tuple[Any, ...]:
        """A hiding unit that moves, fires or assaults is hiding no more."""
        return unit_change(u.id, hiding=None) if u.attrs.get("hiding") else ()

    # -- MTU-55 bridges (seed 000 "bridge units") -------------------------- #
    def _bridges(self, state: GameState) -> dict[str, Unit]:
        """Deployed bridges: water hex -> the bridge-layer unit."""
        return self._snap(state).bridges

    @staticmethod
    def _bridgeable(board: WawBoard, h: str) -> bool:
        """A river/stream (or open water) hex a bridge layer may span."""
        return board.is_water(h) or board.waterway.get(h) == "stream"

    def _enter_costs(self, state: GameState, u: Unit) -> dict[str, float]:
        """Entry costs that replace the chart's for ``u`` in this state.

        Seed 000 bridge units: crossing a deployed bridge costs 2 MP, 3 if the
        bridge is disrupted; the MTU-55 itself may drive onto river and stream
        hexes (ASSUMPTION 56: at 1 MP, like clear terrain, to lay its span).
        Helicopters fly over everything.
        """
        i = self.info[u.id]
        if i.is_helicopter:
            return {}
        out: dict[str, float] = {}
        if i.is_bridge_layer and not u.attrs.get("deployed"):
            out.update(dict.fromkeys(self._bridgeable_hexes(), 1.0))
        for h, b in self._bridges(state).items():
            if b.side == u.side:
                out[h] = 3.0 if disrupted(b) else 2.0
        return out

    def _bridgeable_hexes(self) -> frozenset[str]:
        hit = self.__dict__.get("_bridgeable_set")
        if hit is None:
            hit = frozenset(
                h for h in self.board.labels if self._bridgeable(self.board, h)
            )
            self.__dict__["_bridgeable_set"] = hit
        return hit

    def _enter_cost(
        self, state: GameState, u: Unit, a: str, b: str, *, assault: bool = False
    ) -> float:
        """MP for ``u`` to move from ``a`` into adjacent ``b`` in this state.

        ``assault``: to assault ``b`` (seed 000: a laid bridge may be assaulted,
        so the enemy's bridge hex is entered at the crossing cost too).
        """
        i = self.info[u.id]
        if not i.is_helicopter:
            if (
                i.is_bridge_layer
                and not u.attrs.get("deployed")
                and self._bridgeable(self.board, b)
            ):
                return 1.0
            bridge = self._bridges(state).get(b)
            if bridge is not None and (assault or bridge.side == u.side):
                return 3.0 if disrupted(bridge) else 2.0
        return self.board.move_cost(a, b, i.mobility)

    def _entry_overrides(self, state: GameState, u: Unit) -> dict[str, float]:
        """The hexes whose entry :meth:`_enter_cost` (no assault) gives ``u``
        from this state rather than the chart, with their MP."""
        i = self.info[u.id]
        if i.is_helicopter:
            return {}
        over = {
            h: 3.0 if disrupted(b) else 2.0
            for h, b in self._bridges(state).items()
            if b.side == u.side
        }
        if i.is_bridge_layer and not u.attrs.get("deployed"):
            over.update(dict.fromkeys(self._bridgeable_hexes(), 1.0))
        return over

    def _enter_cost_fn(self, state: GameState, u: Unit) -> Callable[[str, str], float]:
        """:meth:`_enter_cost` of ``u`` in this state as a ``(a, b) -> MP``
        function (no assault), for searches that ask it many times."""
        mob = self.info[u.id].mobility
        cost = self.board.move_cost
        get = self._entry_overrides(state, u).get
        return lambda a, b: get(b) or cost(a, b, mob)

    def _high(self, u: Unit) -> bool:
        """A helicopter flying high (WaW 9.0 modes)."""
        return self.info[u.id].is_helicopter and u.attrs.get("mode") == "high"

    def _los(self, state: GameState, u: Unit, frm: str, t: Unit, to: str) -> bool:
        """Line of sight between two units (WaW 7.0, helicopter modes, smoke).

        Adjacent hexes always see each other (WaW 6.1).  ASSUMPTION 42 (the player
        aid's helicopter LOS table is not in the seeds): a helicopter flying high
        sees and is seen from every hex (it is above every obstacle, smoke too);
        a helicopter in low mode (nap of the earth) uses the ground LOS of its
        hex.  Smoke: see :meth:`_smoked`.
        """
        if frm == to or self.board.distance(frm, to) <= 1:
            return True
        if self._high(u) or self._high(t):
            return True
        return self._ground_los(state, frm, to)

    def _ground_los(self, state: GameState, frm: str, to: str) -> bool:
        """Ground LOS between two hexes: the map's, then smoke (adjacent: yes)."""
        if frm == to or self.board.distance(frm, to) <= 1:
            return True
        return self.board.visible(frm, to) and not self._smoked(state, frm, to)

    def _smoked(self, state: GameState, frm: str, to: str) -> bool:
        """WaW clean-up "smoke markers" (ASSUMPTION 54: rules not in the seeds).

        A smoke marker blocks ground LOS into, out of and through its hex
        (adjacent hexes still see each other).
        """
        smoke = state.vars.get("smoke")
        if not smoke:
            return False
        hexes = {h for h, _level in smoke}
        return any(h in hexes for h in self.board.line(frm, to))

    def _mp(self, u: Unit) -> float:
        return float(self._side_vals(u).movement)

    @staticmethod
    def _spent(u: Unit) -> float:
        return float(u.attrs.get("mp", 0.0))

    @staticmethod
    def _ustate(u: Unit) -> UnitState:
        return UnitState(Strength(u.strength), disrupted(u))

    def _fname(self, state: GameState, fid: str | None) -> str:
        return state.formations[fid].name if fid in state.formations else str(fid)

    def _hq_unit(self, state: GameState, fid: str | None) -> Unit | None:
        f = state.formations.get(fid) if fid is not None else None
        return state.units.get(f.hq) if f is not None and f.hq else None

    def _morale(self, state: GameState, fid: str | None) -> int:
        """WaW Morale: units use their HQ's morale value.

        A scenario may give a formation its own ``morale`` (e.g. the seed's "all
        units of the 74th GTR have morale 7"); it replaces the HQ counter's.
        """
        f = state.formations.get(fid) if fid is not None else None
        if f is not None and f.attrs.get("morale") is not None:
            return int(f.attrs["morale"])
        hq = self._hq_unit(state, fid)
        if hq is None:
            # ASSUMPTION: a formation without an HQ counter uses morale 7.
            return 7
        # ASSUMPTION: a destroyed HQ's formation uses the HQ's reduced side.
        side = self.info[hq.id].utype.side(hq.strength != "full")
        return int(side.morale or 7)

    def _leadership(self, hq: Unit) -> int:
        return int(
            self.info[hq.id].utype.side(hq.strength == "reduced").leadership or 0
        )

    def _command_range(self, hq: Unit) -> int:
        side = self.info[hq.id].utype.side(hq.strength == "reduced")
        return int(side.command_range or 0)

    def in_command(self, state: GameState, u: Unit) -> bool:
        """Within its HQ's command range (WaW 1.3.3, 4.0; recon doubled, 1.3.4.4).

        ASSUMPTION (4.0 is a GAP): in command = the formation's HQ is in play and
        at most its command range (twice that for recon units) away; HQs are
        always in command; a formation whose HQ is destroyed is out of command.
        """
        i = self.info[u.id]
        if i.is_hq or i.is_helicopter:
            # ASSUMPTION 43: helicopters (controlled by radio from their own HQ off
            # the map) are always in command.
            return True
        hq = self._hq_unit(state, u.formation)
        if hq is None or hq.destroyed or not isinstance(u.position, str):
            return False
        reach = self._command_range(hq) * (2 if i.is_recon else 1)
        return self.board.distance(u.position, hq.position) <= reach  # type: ignore[arg-type]

    def _leader(self, snap: _Snap, u: Unit) -> Unit | None:
        """The HQ that may add leadership to this unit's attack, if any."""
        hq = snap.hq.get(u.position)  # type: ignore[arg-type]
        if (
            hq is None
            or self.info[u.id].is_helicopter
            or hq.formation != u.formation
            or hq.attrs.get("lead_used")
            or self._leadership(hq) <= 0
        ):
            return None
        return hq

    def _why_no_leader(self, snap: _Snap, u: Unit) -> str | None:
        hq = snap.hq.get(u.position)  # type: ignore[arg-type]
        if self.info[u.id].is_helicopter:
            # WaW Helicopters (seed 000): they attack separately from the other
            # units of their hex, so no HQ lends them its leadership.
            return f"{u.name} is a helicopter: it attacks alone, without HQ leadership"
        if hq is None or hq.formation != u.formation:
            return f"{u.name} has no HQ of its formation in its hex ({u.position})"
        if hq.attrs.get("lead_used"):
            return f"{hq.name} has already lent its leadership this turn"
        if self._leadership(hq) <= 0:
            return f"{hq.name} has no leadership to lend"
        return None

    def _combatants(self, snap: _Snap, h: str, side: str | None = None) -> list[Unit]:
        """Units at ``h`` that fight and can be hit: not HQs, not passengers."""
        return [
            u
            for u in snap.at.get(h, ())
            if carried_by(u) is None
            and u.id not in self.hq_ids
            and (side is None or u.side == side)
        ]

    def _passenger(self, state: GameState, carrier: Unit) -> Unit | None:
        if not self.info[carrier.id].is_carrier:
            return None
        for u in state.units.values():
            if carried_by(u) == carrier.id and not u.destroyed:
                return u
        return None

    @staticmethod
    def _reach(w: Weapon) -> int:
        """Longest rule range of a weapon (WaW 6.1.1: 2x unless underlined)."""
        return w.reach

    def weapon_reach(self, unit: Unit) -> int:
        """Longest rule range (hexes, WaW 6.1.1) of any of the unit's weapons.

        ``-1`` for a unit without weapons (HQs).
        """
        key = (unit.type, unit.strength, unit.attrs.get("sw"), unit.attrs.get("mode"))
        cache = self.__dict__.setdefault("_weapon_reach_cache", {})
        hit = cache.get(key)
        if hit is None:
            hit = cache[key] = max(
                (self._reach(w) for _k, w in self._weapons(unit)), default=-1
            )
        return hit  # type: ignore[no-any-return]

    def _weapons(self, u: Unit) -> list[tuple[str, Weapon]]:
        """The unit's firepower blocks; an attached support weapon is ``"sw"``."""
        key = (u.type, u.strength, u.attrs.get("sw"), u.attrs.get("mode"))
        cache = self.__dict__.setdefault("_weapons_cache", {})
        hit = cache.get(key)
        if hit is not None:
            return hit  # type: ignore[no-any-return]
        side = self._side_vals(u)
        out = []
        for kind in ("ap", "he", "aa"):
            w = getattr(side, kind)
            if w is not None and w.fp > 0:
                out.append((kind, w))
        sw = self._sw(u)
        if sw is not None:
            out.append(("sw", sw[2]))
        cache[key] = out
        return out

    def _sw(self, u: Unit) -> tuple[UnitType, str, Weapon] | None:
        """The support weapon attached to ``u`` (type, its fire kind, weapon).

        WaW 1.3.5: an SW gives the unit it is attached to an extra weapon; one
        per infantry platoon.  ASSUMPTION: the scenario attaches it to a named
        unit; a tank ATGM is gone once it has fired without a hit.
        """
        sid = u.attrs.get("sw")
        if not sid:
            return None
        t = self.catalog[sid]
        for kind in ("ap", "aa"):
            w = getattr(t.full, kind)
            if w is not None and w.fp > 0:
                return t, kind, w
        return None

    def _shot_plan(
        self, attacker: Unit, tt: TargetType
    ) -> tuple[tuple[str, str, int, bool, UnitType, bool], ...]:
        """The weapons of :meth:`shot_odds` that may fire at target type ``tt``:
        ``(kind, fire kind, reach, fp underlined, unit type rolled, is the SW)``
        each (WaW 6.1, 1.3.4.5, 1.3.5); cached per unit, strength, SW, mode."""
        key = (
            attacker.id,
            attacker.strength,
            attacker.attrs.get("sw"),
            attacker.attrs.get("mode"),
            tt,
        )
        cache = self.__dict__.setdefault("_shot_plan_cache", {})
        hit = cache.get(key)
        if hit is not None:
            return hit  # type: ignore[no-any-return]
        out = []
        for kind, w in self._weapons(attacker):
            sw = self._sw(attacker) if kind == "sw" else None
            real = sw[1] if sw is not None else kind
            if (real, tt) not in _ALLOWED:
                continue
            reach = self._reach(effective_weapon(w, real, tt))
            a_type = sw[0] if sw is not None else self.info[attacker.id].utype
            out.append((kind, real, reach, w.fp_underlined, a_type, sw is not None))
        plan = tuple(out)
        cache[key] = plan
        return plan

    def _target_type(self, u: Unit) -> TargetType:
        key = (u.type, u.strength)
        cache = self.__dict__.setdefault("_target_type_cache", {})
        hit = cache.get(key)
        if hit is None:
            hit = self.info[u.id].utype.target_type(u.strength == "reduced")
            cache[key] = hit
        return hit  # type: ignore[no-any-return]

    def _spotter(
        self, st: GameState, spotter: Any, side: Any
    ) -> tuple[Unit, str | None]:
        """The unit calling fire for ``side`` (before its line of sight), or why not."""
        sp = st.units.get(spotter) if isinstance(spotter, str) else None
        if sp is None:
            return None, f"there is no unit {spotter!r} in this game"  # type: ignore[return-value]
        i = self.info[sp.id]
        if sp.side != side or not (i.is_hq or i.is_recon):
            # WaW 1.3.4.3 / 1.3.4.4: HQs and recon units call the fire (mortars
            # and artillery alike).
            return (
                sp,
                f"{sp.name} cannot spot: only a friendly HQ or recon unit calls fire",
            )
        if sp.destroyed or sp.position is None or carried_by(sp) is not None:
            return sp, f"{sp.name} is not on the map to spot"
        if disrupted(sp):
            return sp, f"{sp.name} is disrupted and cannot call fire"
        return sp, None

    def _terrain_text(self, h: str) -> str:
        if self.board.is_water(h):
            return "water: only at a bridge or ferry"
        return self.board.terrain[h]
