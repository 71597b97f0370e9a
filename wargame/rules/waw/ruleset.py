"""World at War (classic) as a game: sequence of play, orders and their results.

:class:`WawRuleset` (id ``waw-classic``) plugs the pure rule functions of this
package into :mod:`wargame.engine`.  What it adds, each rule citing its section:

* Operations phase: a chit cup with the formations' chits and two end-turn chits;
  the sides draw in turn; the owner activates or defers a drawn formation chit; the
  second end-turn chit, or a cup without formation chits, ends the phase.
* Action phase: each unit of the active formation acts once - moves hex by hex
  (terrain, roads, rivers only at bridges/ferries, stacking), fires (WaW 6.1),
  assaults/overruns, rallies, mounts/dismounts, or its HQ moves on its own - and is
  then Ops Complete.  Enemy moves in sight and range open opportunity fire (6.2).
* Morale, rally, HQ risk rolls, HQ leadership, command range, transport losses,
  hex capture, clean-up (markers removed, HQs repositioned, destroyed HQs
  replaced where their owner chooses, chits returned) and victory points.

This module is the facade: the class, its attributes and the dispatch of each
action type to its family.  The rules themselves are in the mixins:
:mod:`.setup` (scenario -> initial state), :mod:`.sequence` (sequence of play),
:mod:`.activation` (chits, the acting unit, rally), :mod:`.movement`,
:mod:`.fire`, :mod:`.assault`, :mod:`.support`, :mod:`.support_weapons`,
:mod:`.replacement` (one module per action family: the reason an action is
illegal, the legal options and the resolution),
:mod:`.helpers` (public read-only helpers and odds) and :mod:`._common` (shared
queries).

Every assumption made where the seeds are silent carries ``# ASSUMPTION:`` and is
listed in ``docs/rules/waw-classic.md``.

Examples:
    >>> from wargame.engine import Game
    >>> game = Game.from_scenario("test_remagen", seed=1)
    >>> game.state.phase, game.state.vars["drawn"] in game.state.formations
    ('operations', True)
    >>> sorted({type(a).__name__ for a in game.legal_actions()})
    ['Activate', 'Defer']
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, ClassVar

from wargame.engine import (
    Action,
    GameState,
    IllegalActionError,
    RuleContext,
    Scenario,
)

from ._common import (
    _KIND_NAMES,
    END_CHIT,
    EVENT_KINDS,
    PHASES,
    STACK_LIMIT,
    _Snap,
)
from .actions import (
    ACTION_TYPES,
    Activate,
    Assault,
    CallSupport,
    Defer,
    Dismount,
    EndActivation,
    Fire,
    Hide,
    HoldSupport,
    IndirectFire,
    LayBridge,
    Mount,
    Move,
    MoveHQ,
    Pass,
    Rally,
    RecoverBridge,
    RemoveSW,
    ReplaceHQ,
    SetMode,
)
from .activation import _Activation
from .assault import _Assault
from .catalog import Mobility, unit_catalog
from .fire import _Fire, opp_window
from .helpers import _Helpers, unit_odds
from .movement import _Movement
from .presentation import _Presentation
from .replacement import HQ_PENDING, _Replacement
from .sequence import _Sequence
from .setup import _Setup
from .support import _Support
from .support_weapons import _SupportWeapons, sw_removals_owed
from .unit_attrs import carried_by, disrupted, ops_complete

__all__ = [
    "END_CHIT",
    "EVENT_KINDS",
    "PHASES",
    "STACK_LIMIT",
    "WawRuleset",
    "unit_odds",
]


class WawRuleset(
    _Presentation,
    _Sequence,
    _Activation,
    _Movement,
    _Fire,
    _Assault,
    _Support,
    _Replacement,
    _SupportWeapons,
    _Setup,
    _Helpers,
):
    """World at War (classic) bound to one scenario and map.

    Args:
        scenario: the scenario (units, formations, objectives, turns).
        game_map: the map window it is played on.

    Raises:
        ScenarioError: every unit type, position, stack, formation or override
            that cannot be, one problem per line.
    """

    id = "waw-classic"

    title = "World at War (classic: Eisenbach Gap / Blood and Bridges)"

    positions = "hex"

    phases = PHASES

    event_kinds = EVENT_KINDS

    action_types = ACTION_TYPES
    #: The scenario keys World at War adds to the engine's (docs/scenarios.md).
    scenario_keys: ClassVar[Mapping[str, frozenset[str]]] = {
        "scenario": frozenset(
            {"objectives", "reinforcements", "victory", "rules", "overrides", "support"}
        ),
        "formations": frozenset({"morale", "hq_types"}),
        "units": frozenset({"disrupted", "support_weapon", "mode", "deployed"}),
        "rules": frozenset(
            {
                "first_side",
                "chaos_chits",
                "los_observer_height_m",
                "los_target_height_m",
            }
        ),
        "victory": frozenset({"unit_destroyed_vp", "tie"}),
        "overrides": frozenset({"units", "terrain", "hexes"}),
    }
    #: WaW scale (seed 000, "Basics"): hexes of about 150 m (the engine refuses
    #: any other ``map.hex_size_m`` before it builds a map).
    hex_size_m: ClassVar[float] = 150.0

    def __init__(self, scenario: Scenario, game_map: Any) -> None:
        if game_map is None:
            raise scenario.error("map", "World at War is played on a map: add [map]")
        self.scenario = scenario
        self.map = game_map
        self._snap_cache: tuple[GameState, int, _Snap] | None = None
        self._initial = self._build_initial()
        ov = self.scenario.section("overrides")
        self._odds_token = json.dumps(
            [ov.get("units"), ov.get("terrain")], sort_keys=True
        )

    @classmethod
    def unit_types(cls) -> list[str]:
        """Ids of the unit types a scenario may use (``data/units.toml``).

        Examples:
            >>> "t72" in WawRuleset.unit_types()
            True
        """
        return list(unit_catalog())

    # ------------------------------------------------------------------ #
    # legality: one reason function per action (check), mirrored by the
    # generator (legal_actions); tests hold the two to each other
    # ------------------------------------------------------------------ #
    def check(self, state: GameState, action: Action) -> None:
        """Raise :class:`IllegalActionError` saying why ``action`` is not allowed."""
        reason = self.why_not(state, action)
        if reason is not None:
            raise IllegalActionError(reason)

    def why_not(self, state: GameState, action: Action) -> str | None:
        """The reason an action is illegal now, in game terms (``None``: legal)."""
        if state.vars.get("over"):
            return "the game is over"
        handler = self._reasons.get(type(action))
        if handler is None:
            return f"{type(action).__name__} is not a World at War action"
        if not isinstance(action, RemoveSW) and (r := self._sw_removal_block(state)):
            return r  # WaW 1.3.5: the enemy's choice of SW to remove comes first
        return handler(self, state, action)  # type: ignore[no-any-return]

    _reasons: ClassVar[dict[type[Action], Any]] = {
        Activate: _Activation._why_not_activate,
        Defer: _Activation._why_not_defer,
        EndActivation: _Activation._why_not_end,
        Pass: _Activation._why_not_pass,
        Move: _Movement._why_not_move,
        MoveHQ: _Movement._why_not_move_hq,
        Fire: _Fire._why_not_fire,
        Assault: _Assault._why_not_assault,
        Rally: _Activation._why_not_rally,
        Mount: _Movement._why_not_mount,
        Dismount: _Movement._why_not_dismount,
        SetMode: _Movement._why_not_set_mode,
        IndirectFire: _Fire._why_not_indirect,
        Hide: _Movement._why_not_hide,
        CallSupport: _Support._why_not_call,
        HoldSupport: _Support._why_not_hold,
        LayBridge: _Movement._why_not_lay,
        RecoverBridge: _Movement._why_not_recover,
        ReplaceHQ: _Replacement._why_not_replace_hq,
        RemoveSW: _SupportWeapons._why_not_remove_sw,
    }

    # -- the generator ---------------------------------------------------- #
    def legal_actions(self, state: GameState) -> list[Action]:
        """Every legal action of the side to decide, in a stable order."""
        v = state.vars
        if v.get("over"):
            return []
        if sw_removals_owed(state):
            return self._sw_removal_options(state)
        if v.get(HQ_PENDING):
            return self._replace_options(state)
        if v.get("drawn"):
            return self._chit_options(state)
        if v.get("support"):
            return self._support_options(state)
        if opp_window(state):
            return self._opp_window_options(state)
        if v.get("active"):
            return self._unit_actions(state)
        return []

    def _unit_actions(self, st: GameState) -> list[Action]:
        """The active formation's options, unit by unit, family by family."""
        snap = self._snap(st)
        v = st.vars
        fid = v["active"]
        acting = v.get("acting")
        escort = v.get("escort")
        enemy = self.enemy_of(st.formations[fid].side)
        targets = [
            u
            for u in st.units.values()
            if u.side == enemy
            and not u.destroyed
            and u.position is not None
            and carried_by(u) is None
            and u.id not in self.hq_ids
        ]
        out: list[Action] = []
        for uid in self.members[fid]:
            u = st.units[uid]
            if u.destroyed or ops_complete(u) or u.position is None:
                continue
            i = self.info[uid]
            if i.is_hq:
                if escort != uid:
                    out += self._move_hq_options(snap, u)
                continue
            if carried_by(u) is not None:
                if self._dismount_reason(snap, u) is None:
                    out.append(Dismount(uid))
                continue
            if self._hide_reason(st, u) is None:
                out.append(Hide(uid))
            if i.is_bridge_layer:
                out += self._bridge_options(st, u)
            if i.is_mortar and not disrupted(u) and self._spent(u) == 0:
                out += self._indirect_options(snap, u, targets)
            if i.is_helicopter:
                out += self._mode_options(u)
            if i.mobility != Mobility.NONE.value:
                out += self._move_options(snap, u)
            if not disrupted(u):
                out += self._fire_options(snap, u, targets, moving=self._spent(u) > 0)
                out += self._assault_options(snap, u)
            elif acting != uid:
                out.append(Rally(uid))
            if i.is_infantry:
                out += self._mount_options(snap, u)
        out.append(EndActivation())
        return out

    # ------------------------------------------------------------------ #
    # resolution
    # ------------------------------------------------------------------ #
    def apply(self, ctx: RuleContext, action: Action) -> None:
        """Resolve a legal action (call :meth:`check` first)."""
        before = frozenset(k for k, u in ctx.state.units.items() if u.destroyed)
        self._appliers[type(action)](self, ctx, action)
        self._after_losses(ctx, before)

    _appliers: ClassVar[dict[type[Action], Any]] = {
        Activate: _Activation._do_activate,
        Defer: _Activation._do_defer,
        EndActivation: _Activation._do_end,
        Pass: _Activation._do_pass,
        Move: _Movement._do_move,
        MoveHQ: _Movement._do_move_hq,
        Fire: _Fire._do_fire,
        Assault: _Assault._do_assault,
        Rally: _Activation._do_rally,
        Mount: _Movement._do_mount,
        Dismount: _Movement._do_dismount,
        SetMode: _Movement._do_set_mode,
        IndirectFire: _Fire._do_indirect,
        Hide: _Movement._do_hide,
        CallSupport: _Support._do_call_support,
        HoldSupport: _Support._do_hold_support,
        LayBridge: _Movement._do_lay,
        RecoverBridge: _Movement._do_recover,
        ReplaceHQ: _Replacement._do_replace_hq,
        RemoveSW: _SupportWeapons._do_remove_sw,
    }

    # ------------------------------------------------------------------ #
    # presentation
    # ------------------------------------------------------------------ #
    def describe(self, state: GameState, action: Action) -> str:
        """An action in game terms, e.g. ``"T-72 platoon 1/1 moves to K12"``."""

        def n(uid: Any) -> str:
            u = state.units.get(uid) if isinstance(uid, str) else None
            return u.name if u is not None else repr(uid)

        if isinstance(action, Activate | Defer):
            verb = "activate" if isinstance(action, Activate) else "defer"
            return f"{verb} {self._fname(state, action.formation)}"
        if isinstance(action, Move):
            hq = " with its HQ" if action.with_hq else ""
            return f"{n(action.unit)} moves to {action.to}{hq}"
        if isinstance(action, MoveHQ):
            return self._describe_move_hq(state, action, n(action.hq))
        if isinstance(action, Fire):
            hq = " with HQ leadership" if action.with_hq else ""
            k = _KIND_NAMES.get(action.weapon, action.weapon)
            return f"{n(action.unit)} fires {k} at {n(action.target)}{hq}"
        if isinstance(action, Assault):
            hq = " with HQ leadership" if action.with_hq else ""
            return f"{n(action.unit)} assaults {action.hex}{hq}"
        if isinstance(action, Rally):
            return f"{n(action.unit)} tries to rally"
        if isinstance(action, Mount):
            return f"{n(action.unit)} boards {n(action.carrier)}"
        if isinstance(action, Dismount):
            return f"{n(action.unit)} dismounts"
        if isinstance(action, IndirectFire):  # mortars through a spotter
            return (
                f"{n(action.unit)} fires indirectly at {action.hex}, spotted by "
                f"{n(action.spotter)}"
            )
        if isinstance(action, CallSupport | HoldSupport):  # off-map support (1.7)
            sup = self.supports.get(action.support)
            name = sup.name if sup is not None else repr(action.support)
            if isinstance(action, HoldSupport):
                return f"hold {name} for later"
            what = "smoke" if action.smoke else "a fire mission"
            return (
                f"call {name}: {what} on {action.hex}, spotted by {n(action.spotter)}"
            )
        if isinstance(action, LayBridge):
            return f"{n(action.unit)} lays its bridge"
        if isinstance(action, RecoverBridge):
            return f"{n(action.unit)} takes up its bridge"
        if isinstance(action, Hide):
            return f"{n(action.unit)} hides"
        if isinstance(action, ReplaceHQ):
            return f"{n(action.hq)} comes back, reduced, at {action.hex}"
        if isinstance(action, RemoveSW):
            u = state.units.get(action.unit) if isinstance(action.unit, str) else None
            sid = u.attrs.get("sw") if u is not None else None
            what = self.catalog[sid].name if sid in self.catalog else "support weapon"
            return f"remove the unplaced {what} of {n(action.unit)}"
        if isinstance(action, SetMode):
            return f"{n(action.unit)} flies {action.mode}"
        if isinstance(action, EndActivation):
            return "end the formation's action phase"
        if isinstance(action, Pass):
            return "hold fire"
        return super().describe(state, action)

    def unit_columns(self, state: GameState) -> dict[str, dict[str, Any]]:
        """WaW columns for ``Game.units``: the Disrupted and Ops Complete markers,
        the carrier, the status, class, MP left, in command, markers.

        ``status``: ``"destroyed"``, ``"disrupted"`` or ``"ok"`` (replaces the
        engine's).  ``markers``: the unit's special state in words
        (:meth:`marker_words`).
        """
        dis, done, carrier, status = {}, {}, {}, {}
        cls, mp_left, cmd, marks = {}, {}, {}, {}
        for uid, u in state.units.items():
            dis[uid] = disrupted(u)
            done[uid] = ops_complete(u)
            carrier[uid] = carried_by(u)
            status[uid] = (
                "destroyed" if u.destroyed else "disrupted" if dis[uid] else "ok"
            )
            i = self.info[uid]
            cls[uid] = i.utype.unit_class.value
            mp_left[uid] = None if u.destroyed else self._mp(u) - self._spent(u)
            cmd[uid] = None if u.destroyed else self.in_command(state, u)
            marks[uid] = ", ".join(self.marker_words(u)) or None
        return {
            "disrupted": dis,
            "ops_complete": done,
            "carried_by": carrier,
            "status": status,
            "unit_class": cls,
            "mp_left": mp_left,
            "in_command": cmd,
            "markers": marks,
        }
