"""World at War set-up: a scenario becomes the initial state.

Unit types and counters (the unit catalog, with ``[overrides.units]``), the
terrain chart (``[overrides.terrain]``) and hexes as they were
(``[[overrides.hexes]]``), sight-line heights (7.0 LOS is a GAP, RULES_NOTES
1.3), positions (WaW: ground units start on land), WaW Stacking at set-up,
support weapons (1.3.5), helicopter modes (9.0), bridge units (seed 000),
carriers (5.2), formations and their chits (1.7; RULES_NOTES 1.2 FOUND [B]),
morale, the type a destroyed HQ comes back with (1.3.3.3), reinforcements,
objectives and victory, off-map support (1.7, ASSUMPTION 51), chaos chits.
Every problem is reported, one per line.
"""

from __future__ import annotations

import difflib
import json
import weakref
from collections.abc import Callable, Mapping
from functools import lru_cache
from types import MappingProxyType
from typing import Any, ClassVar

from pydantic import ValidationError

from wargame.engine import (
    Formation,
    GameState,
    ScenarioError,
    Side,
    Unit,
    locate_hex,
)
from wargame.engine.scenario import MAX_CHITS, MAX_VP, shown

from ._common import (
    _DEFAULT_CHITS,
    STACK_LIMIT,
    Support,
    _Info,
    _Queries,
    _Snap,
    _unknown_type,
)
from .board import DEFAULT_LOS_HEIGHTS, WawBoard, board_for
from .catalog import (
    ROAD_CLASSES,
    TerrainChart,
    UnitClass,
    UnitType,
    terrain_chart,
    unit_catalog,
)
from .replacement import hq_types_of
from .unit_attrs import carried_by

#: Entries of the WaW override tables: far more than a scenario changes.
_OVERRIDE_LIMITS = {"units": 500, "terrain": 100, "hexes": 1_000}
#: Off-map supports of a scenario (each puts chits in the cup).
_MAX_SUPPORTS = 100


def _number(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool)


def _whole(v: Any, lo: int, hi: int) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and lo <= v <= hi


class _Setup(_Queries):
    """Scenario -> initial state (mixin of :class:`~.ruleset.WawRuleset`)."""

    hex_size_m: ClassVar[float]
    _initial: GameState

    # ------------------------------------------------------------------ #
    # scenario -> initial state
    # ------------------------------------------------------------------ #
    def _build_initial(self) -> GameState:
        s = self.scenario
        bad: list[str] = []

        def add(where: str, text: str) -> None:
            bad.append(s.problem(where, text))

        # The engine refuses another size before it builds the map (the class's
        # hex_size_m); this also holds for a map handed to Game(game_map=...).
        for size in (
            (s.map_spec or {}).get("hex_size_m", self.hex_size_m),
            getattr(self.map, "hex_size_m", self.hex_size_m),
        ):
            if not _number(size) or abs(float(size) - self.hex_size_m) > 1e-9:
                add(
                    "map.hex_size_m",
                    f"World at War hexes are {self.hex_size_m:g} m, not "
                    f"{shown(size)}; write hex_size_m = {self.hex_size_m:g}",
                )
                break
        overrides = s.section("overrides")
        for table, limit in _OVERRIDE_LIMITS.items():
            v = overrides.get(table)
            if isinstance(v, list | dict) and len(v) > limit:
                add(
                    f"overrides.{table}",
                    f"{len(v):,} entries, more than the limit of {limit:,}; "
                    "change fewer",
                )
                overrides[table] = None
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
        for height_key, default in (
            ("los_observer_height_m", DEFAULT_LOS_HEIGHTS[0]),
            ("los_target_height_m", DEFAULT_LOS_HEIGHTS[1]),
        ):
            v = s.section("rules").get(height_key, default)
            if (
                isinstance(v, bool)
                or not isinstance(v, int | float)
                or not 0 <= v <= 100
            ):
                add(
                    f"rules.{height_key}",
                    f"must be a height of 0 to 100 m, not {shown(v)}",
                )
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
        if not isinstance(first, str) or first not in sides:
            add(
                "rules.first_side",
                f"{shown(first)} is not one of {list(sides)}; give a side id",
            )
        self.first_side: str = str(first)
        vic = s.section("victory")
        dvp = vic.get("unit_destroyed_vp", 0)
        if not _whole(dvp, 0, MAX_VP):
            add(
                "victory.unit_destroyed_vp",
                f"must be a whole number from 0 to {MAX_VP:,}, not {shown(dvp)}",
            )
            dvp = 0
        self.destroyed_vp = int(dvp)
        tie = vic.get("tie", "draw")
        if tie != "draw" and (not isinstance(tie, str) or tie not in sides):
            add(
                "victory.tie",
                f'{shown(tie)}: use "draw" or one of the sides {list(sides)}',
            )
            tie = "draw"
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
                add(
                    f"{where}.type",
                    f"{_unknown_type(tname, self.catalog)}; list them with "
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
                    f"{shown(strength)}: use 'full' or 'reduced' (one-sided units: "
                    "full)",
                )
                strength = "full"
            disrupted = raw.get("disrupted", False)
            if not isinstance(disrupted, bool):
                add(
                    f"{where}.disrupted",
                    f"must be true or false, not {shown(disrupted)}",
                )
                disrupted = False
            is_hq = utype.unit_class is UnitClass.HQ
            if is_hq and disrupted:
                add(f"{where}.disrupted", "an HQ is never disrupted")
                disrupted = False
            if utype.unit_class is UnitClass.SUPPORT_WEAPON:
                add(
                    f"{where}.type",
                    f"{shown(tname)} is a support weapon: attach it to a unit with "
                    f"support_weapon = {shown(tname)} (WaW 1.3.5)",
                )
                continue
            is_heli = utype.unit_class is UnitClass.HELICOPTER
            attrs: dict[str, Any] = {}
            if disrupted:
                attrs["disrupted"] = True
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
                    add(f"{where}.mode", f'{shown(mode)}: use "low" or "high"')
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
            )
            units[uid] = Unit(
                uid,
                name,
                side,
                fid,
                utype.id,
                hex_ if uid not in arrivals else None,
                strength,
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
            if carried_by(units[cid]) is not None or cid in carried:
                add(where, f"{cid!r} is itself carried")
                continue
            if any(carried_by(u) == cid for u in units.values()):
                add(where, f"{cid!r} already carries a platoon")
                continue
            units[uid].position = units[cid].position
            units[uid].attrs["carried_by"] = cid
            if cid in arrivals:
                units[uid].attrs["arrives"] = arrivals[cid]
        self.info: dict[str, _Info] = info
        self.hq_ids = frozenset(k for k, v in info.items() if v.is_hq)

        formations: dict[str, Formation] = {}
        self.members: dict[str, tuple[str, ...]] = {}
        self.hq_types: dict[str, tuple[str, ...]] = {}
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
                chits = _DEFAULT_CHITS.get(nation, 2) if nation else 1
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
                        f"must be a whole number 2–12, not {shown(morale)}",
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
            # WaW 1.3.3.3: the type a destroyed HQ comes back with (ASSUMPTION 58).
            self.hq_types[raw["id"]] = hq_types_of(
                where,
                raw,
                hq,
                [info[m].utype for m in members if not info[m].is_hq],
                self.catalog,
                add,
            )

        # WaW Stacking at set-up: limits hold always.
        snap = _Snap(GameState(self.id, units=units), info)
        for (h, side), n in sorted(snap.count.items()):
            if n > STACK_LIMIT:
                who = sorted(
                    u.id
                    for u in snap.units(h)
                    if u.side == side and info[u.id].counts and carried_by(u) is None
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
                where += f" ({shown(raw['name'])})"
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
            if not _whole(vp, -MAX_VP, MAX_VP):  # the engine checks it first
                add(f"{where}.vp", f"must be a whole number, at most ±{MAX_VP:,}")
                continue
            owner = raw.get("controlled_by")
            if owner is not None:
                if not isinstance(owner, str) or owner not in sides:
                    add(f"{where}.controlled_by", f"{shown(owner)} is not a side")
                    continue
                control[oh] = owner
            objs.append((oh, int(vp), str(raw.get("name", oh))))
        self.objectives: tuple[tuple[str, int, str], ...] = tuple(objs)
        self.objective_hexes = frozenset(o[0] for o in objs)
        self.supports: dict[str, Support] = self._parse_supports(sides, add)
        chaos = rules.get("chaos_chits", 0)
        if not _whole(chaos, 0, MAX_CHITS):
            # the cup is filled every turn: a huge count would fill the memory
            add(
                "rules.chaos_chits",
                f"must be a whole number from 0 to {MAX_CHITS}, not {shown(chaos)}",
            )
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
        if len(raw) > _MAX_SUPPORTS:
            add(
                "support",
                f"{len(raw):,} [[support]] tables, more than the limit of "
                f"{_MAX_SUPPORTS}; give fewer",
            )
            return out

        def whole(
            item: Mapping[str, Any], key: str, lo: int, hi: int, dflt: Any
        ) -> int:
            v = item.get(key, dflt)
            if not isinstance(v, int) or isinstance(v, bool) or not lo <= v <= hi:
                add(
                    f"{where}.{key}",
                    f"must be a whole number {lo}-{hi}, not {shown(v)}",
                )
                return lo
            return v

        for i, item in enumerate(raw):
            sid = item.get("id")
            where = f"support[{i}]" + (
                f" ({shown(sid)})" if isinstance(sid, str) else ""
            )
            for k in item:
                if k not in self._SUPPORT_KEYS:
                    close = difflib.get_close_matches(str(k), self._SUPPORT_KEYS, n=1)
                    hint = f"; did you mean {close[0]!r}?" if close else ""
                    add(f"{where}.{k}", f"unknown key{hint}")
            if not isinstance(sid, str) or not sid or sid in out:
                add(f"{where}.id", "needs a unique id")
                continue
            side = item.get("side")
            if not isinstance(side, str) or side not in sides:
                add(f"{where}.side", f"{shown(side)} is not one of {list(sides)}")
                continue
            kind = item.get("kind", "artillery")
            if kind not in ("artillery", "air"):
                add(f"{where}.kind", f'{shown(kind)}: use "artillery" or "air"')
            weapon = item.get("weapon", "he")
            if weapon not in ("he", "ap"):
                add(f"{where}.weapon", f'{shown(weapon)}: use "he" or "ap"')
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
            close = difflib.get_close_matches(str(sw_id)[:100], sws, n=3)
            hint = f"did you mean {', '.join(close)}? " if close else ""
            return (
                f"{shown(sw_id)} is not a support weapon type; {hint}known: "
                f"{', '.join(sws)}"
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
                    add(
                        f"{where}.terrain",
                        f"{shown(t)}: use one of {', '.join(terrains)}",
                    )
                else:
                    ch["terrain"] = t
            r = item.get("road")
            if r is not None:
                if r != "none" and r not in ROAD_CLASSES:
                    add(
                        f"{where}.road",
                        f'{shown(r)}: use one of {", ".join(ROAD_CLASSES)} or "none"',
                    )
                else:
                    ch["road"] = r
            for flag in ("bridge", "ferry"):
                v = item.get(flag)
                if v is not None:
                    if not isinstance(v, bool):
                        add(
                            f"{where}.{flag}",
                            f"must be true or false, not {shown(v)}",
                        )
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


# --------------------------------------------------------------------------- #
# scenario overrides (cached: every game of a scenario shares them)            #
# --------------------------------------------------------------------------- #

_Problems = tuple[tuple[str, str], ...]


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
                f"{msg} (got {shown(err.get('input'))})"
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
