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
  hex capture, clean-up (markers removed, HQs repositioned and replaced, chits
  returned) and victory points.

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

import difflib
import json
import weakref
from collections.abc import Callable, Mapping
from functools import lru_cache
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, ClassVar

from pydantic import ValidationError

from wargame.engine import (
    Action,
    Formation,
    GameState,
    Outcome,
    RuleContext,
    Scenario,
    ScenarioError,
    Side,
    Unit,
    control_change,
    deck_change,
    locate_hex,
    state_change,
    unit_change,
    var_change,
)

from ._common import (
    _ALLOWED,
    _DEFAULT_CHITS,
    _KIND_NAMES,
    CHAOS_CHIT,
    END_CHIT,
    EVENT_KINDS,
    PHASES,
    STACK_LIMIT,
    SUPPORT_CHIT,
    Support,
    UnitInfo,
    _Info,
    _plural,
    _Snap,
)
from .actions import (
    ACTION_TYPES,
    Activate,
    Assault,
    Defer,
    Dismount,
    EndActivation,
    Fire,
    Mount,
    Move,
    MoveHQ,
    Pass,
    Rally,
)
from .board import DEFAULT_LOS_HEIGHTS, WawBoard, board_for
from .catalog import (
    ROAD_CLASSES,
    TargetType,
    TerrainChart,
    UnitClass,
    UnitSide,
    UnitType,
    terrain_chart,
    unit_catalog,
)
from .combat import Strength, UnitState, effective_weapon
from .dice import roll_d6
from .orders import _Orders
from .presentation import _Presentation
from .resolution import _Resolution

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from wargame.engine import Game

__all__ = [
    "END_CHIT",
    "EVENT_KINDS",
    "PHASES",
    "STACK_LIMIT",
    "WawRuleset",
    "unit_odds",
]


class WawRuleset(_Presentation, _Resolution, _Orders):
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
        "formations": frozenset({"morale"}),
        "units": frozenset({"support_weapon", "mode", "deployed"}),
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
    #: WaW scale (seed 000, "Basics"): hexes of about 150 m.
    HEX_SIZE_M = 150.0

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
    # scenario -> initial state
    # ------------------------------------------------------------------ #
    def _build_initial(self) -> GameState:
        s = self.scenario
        bad: list[str] = []

        def add(where: str, text: str) -> None:
            bad.append(s.problem(where, text))

        size = (s.map_spec or {}).get("hex_size_m", self.HEX_SIZE_M)
        if abs(float(size) - self.HEX_SIZE_M) > 1e-9:
            add(
                "map.hex_size_m",
                f"World at War hexes are {self.HEX_SIZE_M:g} m, not {size!r}",
            )
        overrides = s.section("overrides")
        self.catalog = _scenario_catalog(overrides.get("units"), add)
        chart = _scenario_chart(overrides.get("terrain"), add)
        hex_changes = self._hex_overrides(overrides.get("hexes"), chart, add)
        base = board_for(self.map)
        self.board: WawBoard = (
            base
            if not hex_changes and chart is None
            else _changed_board(base, hex_changes, chart, overrides)
        )
        self.chart = self.board.chart
        # Sight-line heights (WaW 7.0 LOS is a GAP, RULES_NOTES 1.3; the physical
        # LOS of the map decides): a scenario or a batch variant may ask "what if
        # the observers stood on a 10 m tower".
        los_h = []
        for key, default in (
            ("los_observer_height_m", DEFAULT_LOS_HEIGHTS[0]),
            ("los_target_height_m", DEFAULT_LOS_HEIGHTS[1]),
        ):
            v = s.section("rules").get(key, default)
            if (
                isinstance(v, bool)
                or not isinstance(v, int | float)
                or not 0 <= v <= 100
            ):
                add(f"rules.{key}", f"must be a height of 0 to 100 m, not {v!r}")
                v = default
            los_h.append(float(v))
        if tuple(los_h) != DEFAULT_LOS_HEIGHTS:
            self.board = self.board.with_los(los_h[0], los_h[1])

        if len(s.sides) != 2:
            add("sides", "World at War is a two-player game: give 2 sides")
        sides = {x["id"]: Side(x["id"], str(x.get("name", x["id"]))) for x in s.sides}
        self.side_ids: tuple[str, ...] = tuple(sides)
        rules = s.section("rules")
        first = rules.get("first_side", self.side_ids[0] if sides else None)
        if first not in sides:
            add("rules.first_side", f"{first!r} is not one of {list(sides)}")
        self.first_side: str = str(first)
        vic = s.section("victory")
        dvp = vic.get("unit_destroyed_vp", 0)
        if not isinstance(dvp, int) or isinstance(dvp, bool) or dvp < 0:
            add(
                "victory.unit_destroyed_vp", f"must be a whole number >= 0, not {dvp!r}"
            )
            dvp = 0
        self.destroyed_vp = int(dvp)
        tie = vic.get("tie", "draw")
        if tie != "draw" and tie not in sides:
            add("victory.tie", f'{tie!r}: use "draw" or one of the sides {list(sides)}')
        self.tie_winner: str | None = None if tie == "draw" else str(tie)
        form_side = {f["id"]: f["side"] for f in s.formations}

        arrivals: dict[str, int] = {}
        for r in s.reinforcements:
            for uid in r["units"]:
                arrivals[uid] = int(r["turn"])

        info: dict[str, _Info] = {}
        units: dict[str, Unit] = {}
        carried: dict[str, tuple[int, str]] = {}
        for i, raw in enumerate(s.units):
            where = f"units[{i}] ({raw['id']!r})"
            tname = raw.get("type")
            if tname is None:
                add(f"{where}.type", 'missing; a unit type such as "t72"')
                continue
            utype = self.catalog.get(str(tname))
            if utype is None:
                close = difflib.get_close_matches(str(tname), list(self.catalog), n=3)
                hint = f" (did you mean {', '.join(close)}?)" if close else ""
                add(
                    f"{where}.type",
                    f"unknown WaW unit type {tname!r}{hint}; list them with "
                    "`wargame odds waw --list`",
                )
                continue
            fid = raw.get("formation")
            side = form_side[fid] if fid is not None else raw["side"]
            strength = raw.get("strength", "full")
            if strength not in ("full", "reduced") or (
                strength == "reduced" and utype.one_sided
            ):
                add(
                    f"{where}.strength",
                    f"{strength!r}: use 'full' or 'reduced' (one-sided units: full)",
                )
                strength = "full"
            disrupted = bool(raw.get("disrupted", False))
            is_hq = utype.unit_class is UnitClass.HQ
            if is_hq and disrupted:
                add(f"{where}.disrupted", "an HQ is never disrupted")
                disrupted = False
            if utype.unit_class is UnitClass.SUPPORT_WEAPON:
                add(
                    f"{where}.type",
                    f"{tname!r} is a support weapon: attach it to a unit with "
                    f"support_weapon = {tname!r} (WaW 1.3.5)",
                )
                continue
            is_heli = utype.unit_class is UnitClass.HELICOPTER
            attrs: dict[str, Any] = {}
            dep = raw.get("deployed")
            if dep is not None:
                # Seed 000 bridge units: a bridge may be placed by the scenario.
                if utype.unit_class is not UnitClass.BRIDGE_LAYER or not isinstance(
                    dep, bool
                ):
                    add(
                        f"{where}.deployed",
                        "only bridge layers (MTU-55) have a deployed bridge: "
                        "true or false",
                    )
                elif dep:
                    attrs["deployed"] = True
            mode = raw.get("mode")
            if mode is not None:
                if not is_heli:
                    add(
                        f"{where}.mode",
                        f"only helicopters have modes (WaW 9.0); {utype.name} has none",
                    )
                elif mode not in ("low", "high"):
                    add(f"{where}.mode", f'{mode!r}: use "low" or "high"')
                elif mode == "high":
                    attrs["mode"] = "high"
            sw_id = raw.get("support_weapon")
            if sw_id is not None:
                why = self._sw_problem(sw_id, utype)
                if why:
                    add(f"{where}.support_weapon", why)
                else:
                    attrs["sw"] = str(sw_id)
            hex_, key, why = locate_hex(self.map, raw)
            if why:
                add(f"{where}.{key}", why)
            if hex_ is not None and not why and hex_ not in self.board:
                add(f"{where}.hex", f"{hex_!r} is not a playable hex of the map window")
                hex_ = None
            uid = raw["id"]
            if raw.get("carried_by") is not None:
                carried[uid] = (i, str(raw["carried_by"]))
            elif uid in arrivals:
                attrs["arrives"] = arrivals[uid]
            elif hex_ is None and not why:
                add(
                    where,
                    "has no position: give hex, lonlat or place, carried_by, or "
                    "list it in a [[reinforcements]] group",
                )
            elif (
                hex_ is not None
                and not is_heli
                and not (
                    utype.unit_class is UnitClass.BRIDGE_LAYER
                    and self._bridgeable(self.board, hex_)
                )
                and self.board.is_water(hex_)
                and (hex_ not in self.board.ferry and hex_ not in self.board.bridge)
            ):
                # WaW: ground units cross rivers only at bridges (and ferries).
                pos_key = next(
                    (k for k in ("hex", "lonlat", "place") if raw.get(k) is not None),
                    "hex",
                )
                add(
                    f"{where}.{pos_key}",
                    f"{hex_} is water (the Rhine or a river) with no bridge or "
                    "ferry: ground units start on land",
                )
            if (
                attrs.get("deployed")
                and hex_ is not None
                and not self._bridgeable(self.board, hex_)
            ):
                add(
                    f"{where}.deployed",
                    f"{hex_} is not a river or stream hex: a bridge spans water",
                )
            name = str(raw.get("name", f"{utype.name} {uid}"))
            info[uid] = _Info(
                id=uid,
                name=name,
                side=side,
                formation=fid,
                utype=utype,
                is_hq=is_hq,
                # WaW Stacking: HQs, helicopters, SWs (and markers, wrecks,
                # deployed bridges) do not count.
                counts=utype.unit_class
                not in (UnitClass.HQ, UnitClass.HELICOPTER, UnitClass.SUPPORT_WEAPON),
                is_infantry=utype.unit_class is UnitClass.INFANTRY,
                is_carrier=utype.carrier,
                is_recon=utype.unit_class is UnitClass.RECON,
                mobility=utype.mobility.value,
                is_helicopter=is_heli,
                is_mortar=utype.unit_class is UnitClass.MORTAR,
                is_bridge_layer=utype.unit_class is UnitClass.BRIDGE_LAYER,
                is_vehicle=utype.is_vehicle,
                light_vehicle=utype.is_vehicle
                and utype.target_type()
                in (TargetType.LIGHT_ARMORED, TargetType.UNARMORED_VEHICLE),
            )
            units[uid] = Unit(
                uid,
                name,
                side,
                fid,
                utype.id,
                hex_ if uid not in arrivals else None,
                strength,
                disrupted,
                attrs=attrs,
            )
        for uid, (i, cid) in carried.items():
            where = f"units[{i}] ({uid!r}).carried_by"
            if uid not in info:
                continue
            c = info.get(cid)
            if c is None or not c.is_carrier or c.side != info[uid].side:
                add(where, f"{cid!r} is not a friendly carrier")
                continue
            if not info[uid].is_infantry:
                add(
                    where,
                    f"{info[uid].utype.name} cannot ride in {info[cid].utype.name}: "
                    "carriers carry only infantry platoons and their support "
                    "weapons (WaW 5.2, movement in a circle)",
                )
                continue
            if units[cid].carried_by is not None or cid in carried:
                add(where, f"{cid!r} is itself carried")
                continue
            if any(u.carried_by == cid for u in units.values()):
                add(where, f"{cid!r} already carries a platoon")
                continue
            units[uid].position = units[cid].position
            units[uid].carried_by = cid
            if cid in arrivals:
                units[uid].attrs["arrives"] = arrivals[cid]
        self.info: dict[str, _Info] = info
        self.hq_ids = frozenset(k for k, v in info.items() if v.is_hq)

        formations: dict[str, Formation] = {}
        self.members: dict[str, tuple[str, ...]] = {}
        for i, raw in enumerate(s.formations):
            where = f"formations[{i}] ({raw['id']!r})"
            hq = raw.get("hq")
            if (
                hq is not None
                and hq in info
                and (not info[hq].is_hq or info[hq].formation != raw["id"])
            ):
                add(f"{where}.hq", f"{hq!r} is not an HQ unit of {raw['id']!r}")
                hq = None
            elif hq is not None and hq not in info:
                hq = None
            members = tuple(k for k, v in info.items() if v.formation == raw["id"])
            if "chits" in raw:
                chits = int(raw["chits"])
            else:
                nation = info[hq].utype.nation if hq else None
                chits = _DEFAULT_CHITS.get(nation, 2) if nation else 1  # type: ignore[arg-type]
            fattrs: dict[str, Any] = {}
            morale = raw.get("morale")
            if morale is not None:
                if (
                    not isinstance(morale, int)
                    or isinstance(morale, bool)
                    or not (2 <= morale <= 12)
                ):
                    # WaW Morale: 2d6 <= morale passes, so 2..12.
                    add(
                        f"{where}.morale",
                        f"must be a whole number 2–12, not {morale!r}",
                    )
                else:
                    fattrs["morale"] = morale
            formations[raw["id"]] = Formation(
                raw["id"],
                raw["side"],
                str(raw.get("name", raw["id"])),
                hq,
                chits,
                fattrs,
            )
            self.members[raw["id"]] = members

        # WaW Stacking at set-up: limits hold always.
        snap = _Snap(GameState(self.id, units=units), info)
        for (h, side), n in sorted(snap.count.items()):
            if n > STACK_LIMIT:
                who = sorted(
                    u.id
                    for u in snap.units(h)
                    if u.side == side and info[u.id].counts and u.carried_by is None
                )
                add(
                    "units",
                    f"stack at {h} holds {n} {side} units ({', '.join(who)}); the "
                    f"limit is {STACK_LIMIT} (HQs and passengers aside): move one",
                )
        for h, us in sorted(snap.at.items()):
            if len({u.side for u in us}) > 1:
                add("units", f"{h} holds units of both sides")
            hqs = [u.id for u in us if info[u.id].is_hq]
            if len(hqs) > 1:
                add("units", f"{h} holds more than one HQ ({', '.join(hqs)})")

        self.reinforcements: tuple[tuple[int, tuple[str, ...], tuple[str, ...]], ...]
        groups = []
        for i, raw in enumerate(s.reinforcements):
            where = f"reinforcements[{i}]"
            entry: list[str] = []
            for j, e in enumerate(raw["entry"]):
                eh, key, why = locate_hex(self.map, e, default="hex")
                if why or eh is None:
                    add(f"{where}.entry[{j}]" + (f".{key}" if key else ""), str(why))
                    continue
                if eh not in self.board:
                    add(f"{where}.entry[{j}]", f"{eh!r} is not a playable hex")
                elif self.board.is_water(eh) and eh not in self.board.bridge:
                    add(
                        f"{where}.entry[{j}]",
                        f"{eh} is in the water; reinforcements enter on land",
                    )
                else:
                    entry.append(eh)
            ids = tuple(u for u in raw["units"] if u in info)
            groups.append((int(raw["turn"]), ids, tuple(entry)))
        self.reinforcements = tuple(groups)

        objs: list[tuple[str, int, str]] = []
        control: dict[str, str] = {}
        for i, raw in enumerate(s.objectives):
            where = f"objectives[{i}]"
            if isinstance(raw.get("name"), str):
                where += f" ({raw['name']!r})"
            oh, key, why = locate_hex(self.map, raw, default="hex")
            if why or oh is None:
                add(f"{where}.{key}", str(why))
                continue
            if oh not in self.board:
                add(f"{where}.hex", f"{oh!r} is not a playable hex of the map window")
                continue
            if any(o[0] == oh for o in objs):
                add(f"{where}.hex", f"{oh} is already an objective")
                continue
            vp = raw.get("vp", 1)
            owner = raw.get("controlled_by")
            if owner is not None:
                control[oh] = owner
            objs.append((oh, int(vp), str(raw.get("name", oh))))
        self.objectives: tuple[tuple[str, int, str], ...] = tuple(objs)
        self.objective_hexes = frozenset(o[0] for o in objs)
        self.supports: dict[str, Support] = self._parse_supports(sides, add)
        chaos = rules.get("chaos_chits", 0)
        if not isinstance(chaos, int) or isinstance(chaos, bool) or chaos < 0:
            add("rules.chaos_chits", f"must be a whole number >= 0, not {chaos!r}")
            chaos = 0
        self.chaos_chits = int(chaos)
        if bad:
            raise ScenarioError(bad)

        return GameState(
            ruleset=self.id,
            turn=1,
            phase="setup",
            sides=sides,
            formations=formations,
            units=units,
            decks={"cup": (), "aside": ()},
            control=control,
            vars=(
                {"ammo": tuple((k, v.missions) for k, v in self.supports.items())}
                if self.supports
                else {}
            ),
        )

    _SUPPORT_KEYS = (
        "id",
        "side",
        "name",
        "kind",
        "weapon",
        "fp",
        "to_hit",
        "chits",
        "missions",
        "smoke",
        "rationale",
    )

    def _parse_supports(
        self, sides: Mapping[str, Side], add: Callable[[str, str], None]
    ) -> dict[str, Support]:
        """``[[support]]``: off-map artillery and air support (WaW 1.7 chits).

        ASSUMPTION 51 (no artillery rules in the seeds): a support has a side,
        firepower and to-hit (the scenario's estimates, so a ``rationale`` is
        required), ``chits`` per turn in the cup while it has ``missions`` left
        (the ammunition depletion marker), and may fire smoke (artillery only).
        """
        raw = self.scenario.data.get("support")
        out: dict[str, Support] = {}
        if raw is None:
            return out
        if not isinstance(raw, list) or not all(isinstance(x, Mapping) for x in raw):
            add("support", "must be a list of tables ([[support]])")
            return out

        def whole(
            item: Mapping[str, Any], key: str, lo: int, hi: int, dflt: Any
        ) -> int:
            v = item.get(key, dflt)
            if not isinstance(v, int) or isinstance(v, bool) or not lo <= v <= hi:
                add(f"{where}.{key}", f"must be a whole number {lo}-{hi}, not {v!r}")
                return lo
            return v

        for i, item in enumerate(raw):
            sid = item.get("id")
            where = f"support[{i}]" + (f" ({sid!r})" if isinstance(sid, str) else "")
            for k in item:
                if k not in self._SUPPORT_KEYS:
                    close = difflib.get_close_matches(str(k), self._SUPPORT_KEYS, n=1)
                    hint = f"; did you mean {close[0]!r}?" if close else ""
                    add(f"{where}.{k}", f"unknown key{hint}")
            if not isinstance(sid, str) or not sid or sid in out:
                add(f"{where}.id", "needs a unique id")
                continue
            side = item.get("side")
            if side not in sides:
                add(f"{where}.side", f"{side!r} is not one of {list(sides)}")
                continue
            kind = item.get("kind", "artillery")
            if kind not in ("artillery", "air"):
                add(f"{where}.kind", f'{kind!r}: use "artillery" or "air"')
            weapon = item.get("weapon", "he")
            if weapon not in ("he", "ap"):
                add(f"{where}.weapon", f'{weapon!r}: use "he" or "ap"')
            smoke = item.get("smoke", kind == "artillery")
            if not isinstance(smoke, bool) or (smoke and kind != "artillery"):
                add(f"{where}.smoke", "true or false; only artillery fires smoke")
                smoke = False
            if not str(item.get("rationale", "")).strip():
                add(f"{where}.rationale", "missing; say where the values come from")
            out[sid] = Support(
                id=sid,
                side=str(side),
                name=str(item.get("name", sid)),
                kind=str(kind),
                weapon=str(weapon),
                fp=whole(item, "fp", 1, 20, None),
                to_hit=whole(item, "to_hit", 2, 6, None),
                chits=whole(item, "chits", 1, 4, 1),
                missions=whole(item, "missions", 1, 99, 3),
                smoke=bool(smoke),
            )
        return out

    def _sw_problem(self, sw_id: Any, utype: UnitType) -> str | None:
        """Why a support weapon cannot go with a unit (WaW 1.3.5), or None."""
        t = self.catalog.get(sw_id) if isinstance(sw_id, str) else None
        sws = [
            k
            for k, v in self.catalog.items()
            if v.unit_class is UnitClass.SUPPORT_WEAPON
        ]
        if t is None or t.unit_class is not UnitClass.SUPPORT_WEAPON:
            close = difflib.get_close_matches(str(sw_id), sws, n=3)
            hint = f"did you mean {', '.join(close)}? " if close else ""
            return (
                f"{sw_id!r} is not a support weapon type; {hint}known: {', '.join(sws)}"
            )
        if t.attaches_to == "infantry" and utype.unit_class is not UnitClass.INFANTRY:
            return f"{t.name} goes with infantry (WaW 1.3.5), not a {utype.name}"
        if t.attaches_to == "tank" and utype.id not in t.platforms:
            # WaW 1.3.5 tank SW: only the T-80 and T-64 fire ATGMs through the gun.
            return (
                f"{utype.name} cannot take {t.name}: it is fired through the gun "
                f"of {', '.join(t.platforms)} only (WaW 1.3.5)"
            )
        if t.nation != utype.nation:
            return (
                f"{t.name} ({t.nation.value}) does not belong to a {utype.name} "
                f"({utype.nation.value})"
            )
        return None

    def _hex_overrides(
        self, raw: Any, chart: TerrainChart | None, add: Any
    ) -> dict[str, dict[str, Any]]:
        """``[[overrides.hexes]]``: hexes as they were (e.g. a bridge that stood)."""
        if raw is None:
            return {}
        if not isinstance(raw, list) or not all(isinstance(x, Mapping) for x in raw):
            add("overrides.hexes", "must be a list of tables ([[overrides.hexes]])")
            return {}
        terrains = list((chart or terrain_chart()).terrain)
        allowed = (
            "hex",
            "lonlat",
            "place",
            "terrain",
            "road",
            "bridge",
            "ferry",
            "rationale",
        )
        out: dict[str, dict[str, Any]] = {}
        for i, item in enumerate(raw):
            where = f"overrides.hexes[{i}]"
            for k in item:
                if k not in allowed:
                    close = difflib.get_close_matches(str(k), allowed, n=1)
                    hint = f"; did you mean {close[0]!r}?" if close else ""
                    add(f"{where}.{k}", f"unknown key{hint}")
            if not str(item.get("rationale", "")).strip():
                add(f"{where}.rationale", "missing; say why the scenario changes it")
            h, key, why = locate_hex(self.map, item, default="hex")
            if why:
                add(f"{where}.{key}", why)
                continue
            ch: dict[str, Any] = {}
            t = item.get("terrain")
            if t is not None:
                if t not in terrains:
                    add(f"{where}.terrain", f"{t!r}: use one of {', '.join(terrains)}")
                else:
                    ch["terrain"] = t
            r = item.get("road")
            if r is not None:
                if r != "none" and r not in ROAD_CLASSES:
                    add(
                        f"{where}.road",
                        f'{r!r}: use one of {", ".join(ROAD_CLASSES)} or "none"',
                    )
                else:
                    ch["road"] = r
            for flag in ("bridge", "ferry"):
                v = item.get(flag)
                if v is not None:
                    if not isinstance(v, bool):
                        add(f"{where}.{flag}", f"must be true or false, not {v!r}")
                    else:
                        ch[flag] = v
            if not ch:
                add(where, "changes nothing: give terrain, road, bridge or ferry")
            assert h is not None
            out.setdefault(h, {}).update(ch)
        return out

    def initial_state(self) -> GameState:
        """The scenario's set-up (a fresh copy)."""
        return self._initial.copy()

    # ------------------------------------------------------------------ #
    # protocol: who decides
    # ------------------------------------------------------------------ #
    def current_side(self, state: GameState) -> str | None:
        """The side to decide: chit owner, opportunity-fire side or active side."""
        v = state.vars
        if v.get("over"):
            return None
        if v.get("drawn"):
            return state.formations[v["drawn"]].side
        if v.get("support"):
            return self.supports[v["support"]].side
        if v.get("opp"):
            return self.enemy_of(state.units[v["opp"]].side)
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
            if v.get("drawn") or v.get("support"):
                return
            if v.get("opp"):
                if self._opp_fire_options(self._snap(st), st.units[v["opp"]]):
                    return
                mover = st.units[v["opp"]]
                ctx.emit(
                    "opportunity_end",
                    side=self.enemy_of(mover.side),
                    target=mover.id,
                    detail=f"no more opportunity fire at {mover.name}",
                    changes=var_change(opp=None) + state_change(phase="action"),
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
                active=None,
                acting=None,
                escort=None,
                opp=None,
            ),
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
                    or u.carried_by is not None
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
                        if x.carried_by == uid and not x.destroyed
                    ),
                    None,
                )
                if p is not None:
                    changes += unit_change(p.id, position=dest, arrives=None)
                if st.control.get(dest) != u.side:
                    changes += control_change(dest, u.side)
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
        ctx.emit(
            "draw",
            side=drawer,
            formation=chit,
            target=chit,
            result="formation chit",
            detail=(
                f"{who} draws the chit of {f.name} ({st.sides[f.side].name}); "
                f"{_plural(len(cup), 'chit')} left in the cup"
            ),
            changes=deck_change("cup", cup) + var_change(drawn=chit, next_drawer=nxt),
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
            + deck_change("aside", (*st.decks["aside"], chit)),
        )

    def _cleanup(self, ctx: RuleContext) -> None:
        """WaW Clean-up phase.

        Remove the Ops Complete markers (smoke, ammunition, "In Zone" and
        "Artillery Shock" markers are not modelled), reposition HQs, replace
        destroyed HQs, return the chits to the cup (3.2.1 exceptions: GAP).
        """
        st = ctx.state
        why = (
            "second end-turn chit drawn"
            if st.vars.get("end_chits", 0) >= 2
            else "no formation chit left in the cup"
        )
        changes: list[Any] = list(state_change(phase="cleanup"))
        for u in st.units.values():
            if u.ops_complete:
                changes += unit_change(u.id, ops_complete=False)
            # clean-up: "Artillery Shock" markers removed with the Ops Complete ones
            for key in ("mp", "lead_used", "mode_set", "shock"):
                if key in u.attrs:
                    changes += unit_change(u.id, **{key: None})
        changes += var_change(
            drawn=None, active=None, acting=None, escort=None, opp=None, deferred=()
        )
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
        self._replace_hqs(ctx)
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

    def _replace_hqs(self, ctx: RuleContext) -> None:
        """WaW 1.3.3.3: a destroyed HQ comes back reduced with a unit of its formation.

        ASSUMPTION: with any surviving non-HQ unit of the formation ("of the
        matching type"), the first in scenario order whose hex has no HQ; if none
        is left the HQ stays out and the formation is out of command (4.0).
        """
        st = ctx.state
        for fid in st.formations:
            hq = self._hq_unit(st, fid)
            if hq is None or not hq.destroyed:
                continue
            snap = self._snap(st)
            for m in self.members[fid]:
                u = st.units[m]
                if (
                    u.destroyed
                    or m == hq.id
                    or u.position is None
                    or u.position in snap.hq
                ):
                    continue
                ctx.emit(
                    "hq_replaced",
                    side=hq.side,
                    formation=fid,
                    unit=hq.id,
                    hex_to=u.position,  # type: ignore[arg-type]
                    result="replaced (reduced)",
                    detail=f"{hq.name} is replaced, reduced, with {u.name}",
                    changes=unit_change(hq.id, strength="reduced", position=u.position),
                )
                break

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
                active=None,
                acting=None,
                escort=None,
                opp=None,
            ),
        )

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
            return f"{n(action.hq)} moves on its own to {action.to}"
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
        if isinstance(action, EndActivation):
            return "end the formation's action phase"
        if isinstance(action, Pass):
            return "hold fire"
        return super().describe(state, action)

    # ------------------------------------------------------------------ #
    # public helpers (for AI policies, notebooks and tests): read-only
    # ------------------------------------------------------------------ #
    def unit_info(self, unit_id: str) -> UnitInfo:
        """Static facts of a unit: type, HQ, infantry, carrier, recon, mobility.

        Examples:
            >>> from wargame.engine import Game
            >>> g = Game.from_scenario("test_remagen")
            >>> g.ruleset.unit_info("SU-B1").is_carrier
            True
        """
        return self.info[unit_id]

    def side_values(self, unit: Unit) -> UnitSide:
        """The counter side in use (full or reduced) of a unit."""
        return self._side_vals(unit)

    def movement_left(self, unit: Unit) -> float:
        """Movement points the unit has left this turn (WaW 5.0)."""
        return self._mp(unit) - self._spent(unit)

    def hq_of(self, state: GameState, formation: str | None) -> Unit | None:
        """The HQ unit of a formation (``None`` if it has none)."""
        return self._hq_unit(state, formation)

    def morale(self, state: GameState, formation: str | None) -> int:
        """The morale a formation's units test against (WaW Morale)."""
        return self._morale(state, formation)

    def leadership(self, hq: Unit) -> int:
        """Leadership of an HQ on its current side."""
        return self._leadership(hq)

    def weapon_reach(self, unit: Unit) -> int:
        """Longest rule range (hexes, WaW 6.1.1) of any of the unit's weapons.

        ``-1`` for a unit without weapons (HQs).
        """
        return max((self._reach(w) for _k, w in self._weapons(unit)), default=-1)

    def paths(
        self, state: GameState, unit: Unit, *, start: str | None = None
    ) -> Mapping[str, tuple[float, tuple[str, ...]]]:
        """Where a unit can still move this turn: ``hex -> (MP, path)``.

        Cheapest paths (WaW 5.0 costs) within its remaining movement points,
        avoiding enemy hexes and friendly stacks it could not enter (stacking,
        one HQ per hex); boarding a ferry ends a path.  Opportunity fire on the
        way is not foreseen.
        """
        snap = self._snap(state)
        here = start or unit.position
        if not isinstance(here, str):
            return {}
        i = self.info[unit.id]
        enemy = self.enemy_of(unit.side)
        blocked = {h for (h, side), n in snap.combat.items() if side == enemy and n}
        if i.counts:
            blocked |= {
                h
                for (h, side), n in snap.count.items()
                if side == unit.side and n >= STACK_LIMIT and h != here
            }
        return self.board.reachable(
            here,
            i.mobility,
            self.movement_left(unit),
            sorted(blocked),
            self._enter_costs(state, unit),
        )

    def area_fire_odds(
        self,
        state: GameState,
        firepower: int,
        to_hit: int,
        weapon: str,
        h: str,
        side: str,
    ) -> list[tuple[Unit, dict[str, float]]]:
        """Exact result odds of indirect or off-map fire at every enemy of ``h``.

        Same rule code as the dice (WaW 1.3.4.3 mortars, support chits): one
        entry per unit of the hex that such fire attacks.
        """
        from .odds import support_result_probabilities

        snap = self._snap(state)
        out = []
        for t in self._combatants(snap, h, self.enemy_of(side)):
            if (
                self.info[t.id].is_helicopter
                or (
                    weapon,
                    self._target_type(t),
                )
                not in _ALLOWED
            ):
                continue
            probs = support_result_probabilities(
                firepower,
                to_hit,
                self.info[t.id].utype,
                kind=weapon,
                terrain_dice=self.board.defence_dice(h)
                + (1 if self._hidden(state, t) else 0),
                target_state=self._ustate(t),
            )
            out.append((t, {k: float(v) for k, v in probs.items()}))
        return out

    def shot_odds(
        self,
        state: GameState,
        attacker: Unit,
        target: Unit,
        *,
        at: str | None = None,
        target_at: str | None = None,
        moving: bool = False,
        weapons: tuple[str, ...] | None = None,
    ) -> tuple[str, dict[str, float]] | None:
        """The attacker's best weapon against a target, and its result odds.

        The exact odds of :func:`~wargame.rules.waw.result_odds` (same rule code
        as the dice) for each weapon that may fire (WaW 6.1: weapon kind, range,
        LOS from ``at`` to ``target_at``; 6.1.3 on the move), keeping the one
        most likely to reduce or destroy.  Positions default to where the units
        are, so "what if I stood there?" can be asked too.  Whose turn it is, Ops
        Complete and disruption are not checked (see ``legal_actions``).

        Returns:
            ``(weapon, {"no effect": p, "disrupted": p, "reduced": p,
            "destroyed": p})`` or ``None`` if no weapon can fire.

        Examples:
            >>> from wargame.engine import Game
            >>> g = Game.from_scenario("test_remagen")
            >>> st = g.state
            >>> w, p = g.ruleset.shot_odds(st, st.units["SU-T1"], st.units["US-INF2"])
            >>> w, round(sum(p.values()), 9)
            ('he', 1.0)
        """
        frm = at or attacker.position
        to = target_at or target.position
        if not isinstance(frm, str) or not isinstance(to, str):
            return None
        d = self.board.distance(frm, to)
        if d == 0:
            return None
        tt = self._target_type(target)
        best: tuple[float, str, dict[str, float]] | None = None
        seen: bool | None = None
        for kind, w in self._weapons(attacker):
            if weapons is not None and kind not in weapons:
                continue
            sw = self._sw(attacker) if kind == "sw" else None
            real = sw[1] if sw is not None else kind
            if (real, tt) not in _ALLOWED or (
                d > 1 and d - 1 > self._reach(effective_weapon(w, real, tt))
            ):
                continue
            if moving and (
                not w.fp_underlined or self._spent(attacker) > self._mp(attacker) / 2
            ):
                continue
            if seen is None:
                seen = self._los(state, attacker, frm, target, to)
            if not seen:
                return None
            p = self._result_odds(
                sw[0] if sw is not None else self.info[attacker.id].utype,
                "full" if sw is not None else attacker.strength,
                real,
                self.info[target.id].utype,
                target.strength,
                target.disrupted,
                d,
                self.board.terrain[to],
                moving,
                None if sw is not None else attacker.attrs.get("mode"),
                self._hidden(state, target, target_at),
            )
            score = p["reduced"] + p["destroyed"] + 0.3 * p["disrupted"]
            if best is None or score > best[0]:
                best = (score, kind, p)
        return None if best is None else (best[1], best[2])

    def _result_odds(
        self,
        attacker: UnitType,
        a_strength: str,
        kind: str,
        target: UnitType,
        t_strength: str,
        t_disrupted: bool,
        d: int,
        terrain: str,
        moving: bool,
        mode: str | None = None,
        hidden: bool = False,
    ) -> dict[str, float]:
        key = (
            self._odds_token,
            mode,
            hidden,
            attacker.id,
            a_strength,
            kind,
            target.id,
            t_strength,
            t_disrupted,
            d,
            terrain,
            moving,
        )
        hit = _ODDS_CACHE.get(key)
        if hit is None:
            from .odds import result_probabilities

            probs = result_probabilities(
                attacker,
                target,
                d - 1,
                terrain,
                target_state=UnitState(Strength(t_strength), t_disrupted),
                kind=kind,
                moving=moving,
                attacker_reduced=a_strength == "reduced",
                adjacent=d == 1,
                chart=self.chart,
                attacker_mode=mode,
                concealment_dice=1 if hidden else 0,
            )
            hit = {k: float(v) for k, v in probs.items()}
            if len(_ODDS_CACHE) > 200_000:
                _ODDS_CACHE.clear()
            _ODDS_CACHE[key] = hit
        return hit

    def unit_columns(self, state: GameState) -> dict[str, dict[str, Any]]:
        """WaW columns for ``Game.units``: class, MP left, in command, markers.

        ``markers``: the unit's special state in words - helicopter mode (9.0),
        laid bridge, hiding (6.1.5), Artillery Shock, its support weapon (1.3.5).
        """
        cls, mp_left, cmd, marks = {}, {}, {}, {}
        for uid, u in state.units.items():
            i = self.info[uid]
            cls[uid] = i.utype.unit_class.value
            mp_left[uid] = None if u.destroyed else self._mp(u) - self._spent(u)
            cmd[uid] = None if u.destroyed else self.in_command(state, u)
            words = []
            if i.is_helicopter:
                words.append(f"{u.attrs.get('mode') or 'low'} mode")
            if u.attrs.get("deployed"):
                words.append("bridge laid")
            if u.attrs.get("hiding"):
                words.append("hiding")
            if u.attrs.get("shock"):
                words.append("artillery shock")
            if u.attrs.get("sw"):
                placed = "placed" if u.attrs.get("sw_placed") else "unplaced"
                words.append(f"SW {self.catalog[u.attrs['sw']].name} ({placed})")
            marks[uid] = ", ".join(words) or None
        return {
            "unit_class": cls,
            "mp_left": mp_left,
            "in_command": cmd,
            "markers": marks,
        }


def unit_odds(
    game: Game,
    attacker: str,
    target: str,
    *,
    weapon: str | None = None,
    with_hq: bool = False,
    results: bool = False,
) -> pd.Series:
    """Exact odds of one unit of a game firing at another, as things stand.

    Range (from the grid), the target's terrain, both units' strength, fire on the
    move and HQ leadership come from the game; the numbers come from
    :func:`~wargame.rules.waw.odds` / :func:`~wargame.rules.waw.result_odds`, the
    same rule code the dice path uses.  Line of sight and whose turn it is are not
    checked (use :meth:`wargame.engine.Game.legal_actions` for that).

    Args:
        game: a ``waw-classic`` game.
        attacker: firing unit id.
        target: target unit id.
        weapon: ``"ap"``, ``"he"`` or ``"aa"`` (default: the rules' usual choice).
        with_hq: add the leadership of the attacker's HQ in its hex.
        results: P(no effect / disrupted / reduced / destroyed) instead of
            P(net hits).

    Examples:
        >>> from wargame.engine import Game
        >>> g = Game.from_scenario("test_remagen", seed=1)
        >>> p = unit_odds(g, "SU-T1", "US-M1")
        >>> round(float(p.sum()), 9), p.index.name
        (1.0, 'net_hits')
    """
    from .odds import odds, result_odds

    rules = game.ruleset
    if not isinstance(rules, WawRuleset):
        raise TypeError("unit_odds needs a waw-classic game")
    st = game.state
    u, t = st.units[attacker], st.units[target]
    if u.destroyed or t.destroyed:
        raise ValueError("both units must be in play")
    d = rules.board.distance(u.position, t.position)  # type: ignore[arg-type]
    lead = 0
    if with_hq:
        snap = rules._snap(st)
        why = rules._why_no_leader(snap, u)
        if why:
            raise ValueError(why)
        lead = rules._leadership(snap.hq[u.position])  # type: ignore[index]
    common: dict[str, Any] = {
        "kind": weapon,
        "moving": rules._spent(u) > 0,
        "attacker_reduced": u.strength == "reduced",
        "leadership": lead,
        "adjacent": d == 1,
        "chart": rules.chart,
        "attacker_mode": u.attrs.get("mode"),
        # WaW 6.1.5: a hiding target's extra defence die
        "concealment_dice": 1 if rules._hidden(st, t) else 0,
    }
    a_type, t_type = rules.info[u.id].utype, rules.info[t.id].utype
    terrain = rules.board.terrain[t.position]  # type: ignore[index]
    if results:
        return result_odds(
            a_type, t_type, d - 1, terrain, target_state=rules._ustate(t), **common
        )
    return odds(
        a_type, t_type, d - 1, terrain, target_reduced=t.strength == "reduced", **common
    )


# --------------------------------------------------------------------------- #
# scenario overrides (cached: every game of a scenario shares them)            #
# --------------------------------------------------------------------------- #

_Problems = tuple[tuple[str, str], ...]
#: Exact result odds by (scenario overrides, units, states, range, terrain...).
_ODDS_CACHE: dict[tuple[Any, ...], dict[str, float]] = {}


def _leaf_paths(d: Mapping[str, Any], prefix: str = "") -> list[str]:
    out = []
    for k, v in d.items():
        path = f"{prefix}{k}"
        if isinstance(v, Mapping):
            out += _leaf_paths(v, path + ".")
        else:
            out.append(path)
    return out


def _merge(base: Any, top: Any) -> Any:
    if isinstance(base, Mapping) and isinstance(top, Mapping):
        out = dict(base)
        for k, v in top.items():
            out[k] = _merge(base.get(k), v) if k in base else v
        return out
    return top


def _pydantic_lines(where: str, exc: ValidationError) -> list[tuple[str, str]]:
    out = []
    for err in exc.errors():
        loc = ".".join(str(x) for x in err["loc"])
        msg = err["msg"].removeprefix("Value error, ")
        if err["type"] == "extra_forbidden":
            msg = "unknown key"
        out.append(
            (
                f"{where}.{loc}" if loc else where,
                f"{msg} (got {err.get('input')!r})"
                if err["type"] != "extra_forbidden"
                else msg,
            )
        )
    return out


@lru_cache(maxsize=32)
def _catalog_for(raw_json: str) -> tuple[Mapping[str, UnitType], _Problems]:
    """The unit catalog with ``[overrides.units]`` applied, and its problems."""
    raw = json.loads(raw_json)
    base = unit_catalog()
    out: dict[str, UnitType] = dict(base)
    problems: list[tuple[str, str]] = []
    if not isinstance(raw, dict):
        problems.append(("overrides.units", "must be a table: [overrides.units.t72]"))
        return MappingProxyType(out), tuple(problems)
    for tid, body in raw.items():
        where = f"overrides.units.{tid}"
        if not isinstance(body, dict):
            problems.append((where, "must be a table of counter values"))
            continue
        body = dict(body)
        rationale = str(body.pop("rationale", "") or "").strip()
        parent_id = body.pop("base", None)
        if not rationale:
            problems.append(
                (
                    f"{where}.rationale",
                    "missing; say why the scenario changes the counter",
                )
            )
        if tid in base:
            if parent_id not in (None, tid):
                problems.append(
                    (f"{where}.base", "only for new types; this one exists already")
                )
            parent: UnitType | None = base[tid]
        else:
            parent = base.get(parent_id) if isinstance(parent_id, str) else None
            if parent is None:
                close = difflib.get_close_matches(str(tid), list(base), n=1)
                hint = f"did you mean {close[0]!r}? " if close else ""
                problems.append(
                    (
                        where,
                        f"{tid!r} is not a unit type; {hint}to add a new type, give "
                        'base = "<existing type>"',
                    )
                )
                continue
        assert parent is not None
        merged = _merge(parent.model_dump(mode="json"), body)
        merged["id"] = tid
        changed = _leaf_paths(body)
        merged["value_sources"] = {
            k: v
            for k, v in parent.value_sources.items()
            if not any(k == c or k.startswith(c + ".") for c in changed)
        }
        # Values a scenario sets are the scenario author's estimates.
        merged["source"] = "estimate"
        merged["rationale"] = " ".join(
            x for x in (parent.rationale or "", f"Scenario: {rationale}") if x
        )
        try:
            out[tid] = UnitType.model_validate(merged)
        except ValidationError as exc:
            problems += _pydantic_lines(where, exc)
    return MappingProxyType(out), tuple(problems)


def _scenario_catalog(
    raw: Any, add: Callable[[str, str], None]
) -> Mapping[str, UnitType]:
    if raw is None:
        return unit_catalog()
    catalog, problems = _catalog_for(json.dumps(raw, sort_keys=True))
    for where, text in problems:
        add(where, text)
    return catalog


_TERRAIN_OVERRIDE_KEYS = ("defence_dice", "move_cost", "rationale")


@lru_cache(maxsize=32)
def _chart_for(raw_json: str) -> tuple[TerrainChart | None, _Problems]:
    """The terrain chart with ``[overrides.terrain]`` applied, and its problems."""
    raw = json.loads(raw_json)
    base = terrain_chart()
    problems: list[tuple[str, str]] = []
    if not isinstance(raw, dict):
        return None, (
            ("overrides.terrain", "must be a table: [overrides.terrain.woods]"),
        )
    terrain = dict(base.terrain)
    for cls, body in raw.items():
        where = f"overrides.terrain.{cls}"
        if cls not in terrain:
            problems.append(
                (
                    where,
                    f"{cls!r} is not a terrain class; use one of {', '.join(terrain)}",
                )
            )
            continue
        if not isinstance(body, dict):
            problems.append((where, "must be a table"))
            continue
        for k in body:
            if k == "blocks_los":
                problems.append(
                    (
                        f"{where}.{k}",
                        "line of sight is physical (DEM and obstacle heights); a "
                        "scenario cannot change it",
                    )
                )
            elif k not in _TERRAIN_OVERRIDE_KEYS:
                close = difflib.get_close_matches(str(k), _TERRAIN_OVERRIDE_KEYS, n=1)
                hint = f"; did you mean {close[0]!r}?" if close else ""
                problems.append((f"{where}.{k}", f"unknown key{hint}"))
        rationale = str(body.get("rationale", "") or "").strip()
        if not rationale:
            problems.append((f"{where}.rationale", "missing; say why it changes"))
        change = {k: v for k, v in body.items() if k in ("defence_dice", "move_cost")}
        old = terrain[cls]
        merged = _merge(old.model_dump(mode="json"), change)
        merged["value_sources"] = {
            k: v for k, v in old.value_sources.items() if k.split(".")[0] not in change
        }
        merged["source"] = "estimate"
        merged["rationale"] = " ".join(
            x for x in (old.rationale or "", f"Scenario: {rationale}") if x
        )
        try:
            terrain[cls] = type(old).model_validate(merged)
        except ValidationError as exc:
            problems += _pydantic_lines(where, exc)
    chart = TerrainChart(terrain=terrain, road=base.road, crossing=base.crossing)
    return chart, tuple(problems)


def _scenario_chart(raw: Any, add: Callable[[str, str], None]) -> TerrainChart | None:
    if raw is None:
        return None
    chart, problems = _chart_for(json.dumps(raw, sort_keys=True))
    for where, text in problems:
        add(where, text)
    return chart


_changed_boards: weakref.WeakKeyDictionary[Any, dict[str, WawBoard]] = (
    weakref.WeakKeyDictionary()
)


def _changed_board(
    base: WawBoard,
    hexes: Mapping[str, Mapping[str, Any]],
    chart: TerrainChart | None,
    overrides: Mapping[str, Any],
) -> WawBoard:
    """The board with the scenario's hex and terrain overrides (cached per map)."""
    key = json.dumps(
        {"hexes": hexes, "terrain": overrides.get("terrain")}, sort_keys=True
    )
    per_map = _changed_boards.setdefault(base.map, {})
    board = per_map.get(key)
    if board is None:
        board = base.with_changes(hexes, chart)
        per_map[key] = board
    return board
