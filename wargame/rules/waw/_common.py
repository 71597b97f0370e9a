"""Shared pieces of the World at War game rules: vocabulary, occupancy, queries.

Used by :mod:`.orders` (what is legal), :mod:`.resolution` (what happens) and
:mod:`.ruleset` (the sequence of play).  Private to the package.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from wargame.engine import (
    Action,
    GameState,
    RulesetBase,
    Scenario,
    Unit,
)

from .actions import (
    Fire,
)
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
)

__all__ = ["END_CHIT", "EVENT_KINDS", "PHASES", "STACK_LIMIT", "UnitInfo"]

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
    "hq_move",
    "hq_move_check",
    "hq_captured",
    "cleanup",
    "reinforcement",
    "hq_reposition",
    "hq_replaced",
    "chits_returned",
    "game_over",
)
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


#: Static facts about one unit (:meth:`WawRuleset.unit_info`).
UnitInfo = _Info


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


class _Snap:
    """Who is where, built once per state version (see ``WawRuleset._snap``)."""

    __slots__ = ("at", "combat", "count", "hq", "state")

    def __init__(self, state: GameState, info: Mapping[str, _Info]) -> None:
        self.state = state
        at: dict[str, list[Unit]] = {}
        count: dict[tuple[str, str], int] = {}
        combat: dict[tuple[str, str], int] = {}
        hq: dict[str, Unit] = {}
        for u in state.units.values():
            if u.destroyed or not isinstance(u.position, str):
                continue
            h = u.position
            at.setdefault(h, []).append(u)
            i = info[u.id]
            if i.is_hq:
                hq[h] = u
            elif u.carried_by is None:
                key = (h, u.side)
                combat[key] = combat.get(key, 0) + 1
                if i.counts:
                    count[key] = count.get(key, 0) + 1
        self.at = at
        self.count = count
        self.combat = combat
        self.hq = hq

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
    """Small queries on units and states shared by orders and resolution."""

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
    _snap_cache: tuple[GameState, int, _Snap] | None

    # ------------------------------------------------------------------ #
    # small queries
    # ------------------------------------------------------------------ #
    def _snap(self, state: GameState) -> _Snap:
        """Occupancy of a state, cached until its next event (``state.seq``)."""
        hit = self._snap_cache
        if hit is not None and hit[0] is state and hit[1] == state.seq:
            return hit[2]
        snap = _Snap(state, self.info)
        self._snap_cache = (state, state.seq, snap)
        return snap

    def enemy_of(self, side: str) -> str:
        """The other side."""
        a, b = self.side_ids
        return b if side == a else a

    def _side_vals(self, u: Unit) -> UnitSide:
        return self.info[u.id].utype.side(u.strength == "reduced")

    def _mp(self, u: Unit) -> float:
        return float(self._side_vals(u).movement)

    @staticmethod
    def _spent(u: Unit) -> float:
        return float(u.attrs.get("mp", 0.0))

    @staticmethod
    def _ustate(u: Unit) -> UnitState:
        return UnitState(Strength(u.strength), u.disrupted)

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
        if i.is_hq:
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
            or hq.formation != u.formation
            or hq.attrs.get("lead_used")
            or self._leadership(hq) <= 0
        ):
            return None
        return hq

    def _why_no_leader(self, snap: _Snap, u: Unit) -> str | None:
        hq = snap.hq.get(u.position)  # type: ignore[arg-type]
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
            if u.carried_by is None
            and u.id not in self.hq_ids
            and (side is None or u.side == side)
        ]

    def _passenger(self, state: GameState, carrier: Unit) -> Unit | None:
        if not self.info[carrier.id].is_carrier:
            return None
        for u in state.units.values():
            if u.carried_by == carrier.id and not u.destroyed:
                return u
        return None

    @staticmethod
    def _reach(w: Weapon) -> int:
        """Longest rule range of a weapon (WaW 6.1.1: 2x unless underlined)."""
        return w.range if w.range_underlined else 2 * w.range

    def _weapons(self, u: Unit) -> list[tuple[str, Weapon]]:
        """The unit's firepower blocks; an attached support weapon is ``"sw"``."""
        key = (u.type, u.strength, u.attrs.get("sw"))
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

    def _target_type(self, u: Unit) -> TargetType:
        key = (u.type, u.strength)
        cache = self.__dict__.setdefault("_target_type_cache", {})
        hit = cache.get(key)
        if hit is None:
            hit = self.info[u.id].utype.target_type(u.strength == "reduced")
            cache[key] = hit
        return hit  # type: ignore[no-any-return]

    def _hq_paths(
        self, snap: _Snap, hq: Unit
    ) -> Mapping[str, tuple[float, tuple[str, ...]]]:
        enemy = self.enemy_of(hq.side)
        enemy_hexes = [
            h for h, us in snap.at.items() if any(x.side == enemy for x in us)
        ]
        return self.board.reachable(
            hq.position,  # type: ignore[arg-type]
            self.info[hq.id].mobility,
            self._mp(hq) - self._spent(hq),
            enemy_hexes,
        )

    def _fire_options(
        self, snap: _Snap, u: Unit, targets: list[Unit], *, moving: bool
    ) -> list[Action]:
        """Every legal Fire of ``u`` at ``targets`` (fast mirror of _fire_reason)."""
        weapons = self._weapons(u)
        if moving:
            if self._spent(u) > self._mp(u) / 2:
                return []
            weapons = [(k, w) for k, w in weapons if w.fp_underlined]
        if not weapons:
            return []
        lead = self._leader(snap, u) is not None
        out: list[Action] = []
        here: str = u.position  # type: ignore[assignment]
        sw = self._sw(u)
        for t in targets:
            tt = self._target_type(t)
            d = self.board.distance(here, t.position)  # type: ignore[arg-type]
            seen: bool | None = None
            for kind, w in weapons:
                real = sw[1] if kind == "sw" and sw is not None else kind
                if (real, tt) not in _ALLOWED or (d > 1 and d - 1 > self._reach(w)):
                    continue
                if seen is None:
                    seen = d == 1 or self.board.visible(here, t.position)  # type: ignore[arg-type]
                if not seen:
                    break
                out.append(Fire(u.id, t.id, kind))
                if lead:
                    out.append(Fire(u.id, t.id, kind, True))
        return out

    def _opp_fire_options(self, snap: _Snap, mover: Unit) -> list[Action]:
        """WaW 6.2: who may fire at a unit that just moved, and how."""
        if mover.destroyed or mover.carried_by is not None:
            return []
        side = self.enemy_of(mover.side)
        out: list[Action] = []
        for u in snap.state.units.values():
            if (
                u.side != side
                or u.destroyed
                or u.position is None
                or u.ops_complete
                or u.disrupted
                or u.carried_by is not None
                or u.id in self.hq_ids
            ):
                continue
            out += self._fire_options(snap, u, [mover], moving=False)
        return out
