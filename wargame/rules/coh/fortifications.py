"""Fortifications and obstacles (CoH 2e §18; research/coh.md §1.11).

Scenario-placed features (``[[fortifications]]``: ``kind``, a position,
``side`` = the owner, ``hidden`` for mines) are kept in ``vars["forts"]`` as
``(kind, hex, owner)`` triples; hidden mines in the deck ``mines:<owner>``,
which only the owner sees.  At most one of each kind per hex (§18.0); none
blocks LOS.

* **Hasty defence** (:class:`~.actions.HastyDefence`, §18.1.3): any foot unit,
  7 AP, not in water; the unit gets +1 DM all round (unit attr ``hasty``, used
  by :meth:`.fire.Combat.fire_math`) until it moves, pivots or hides (ASSUMPTION:
  hiding takes the counter off with the unit).  A group action.  ASSUMPTION:
  counters are unlimited.  A firefight may give one at the start
  (``[[units]] hasty = true``).
* **Trenches** (§18.1.1-18.2): unburdened foot units and mortars that enter a
  trench hex with no seen enemy in it occupy the trench for free (unit attr
  ``trench``); occupants get +2 DM all round and face and fire in every
  direction (their DR is still front or flank by facing, §18.4).  Wheeled units
  may not enter.  In close combat only the defenders are inside (§18.2).
* **Barbed wire** (§18.3.1): wheeled units may not enter; foot units roll 1d6
  for extra AP after declaring the move; a tracked vehicle entering removes it.
* **Road blocks** (§18.3.2): wheeled units may not enter; tracked vehicles roll
  1d6 for extra AP; foot units are not affected; +1 DM to every unit in it.
* Wire, road block: a unit that cannot pay the rolled cost stays put and loses
  its remaining APs (the attempt is its action).  ASSUMPTION: the mover pays
  APs then CAPs if it can (as every AP action); one roll for a group; a
  command move that cannot pay still pays its announced cost; hidden moves
  ignore the wire (seed 003 §10.1: every other move modifier is ignored).
* Trenches, wire and +2 smoke negate open-terrain bonus moves (§13, §14.1).
* **Mines** (§18.3.3, :mod:`.mines`): a unit entering a mined hex, or taking an
  action in it other than fire, rally or spotting (here: pivot, hasty defence),
  is attacked:
  the owner rolls 2d6, 8 or more hits, no DMs.  ASSUMPTION: the owner adds no
  CAPs; a hit is a hit marker (a second hit destroys), never an outright kill.
  Pioneers reveal hidden mines they enter and are not attacked (§19.0;
  ASSUMPTION: "pioneers" are the unit types named so, and no mine attacks
  them).  A hidden unit moving hidden onto a mine is attacked in secret
  (logged for its side only) and revealed only if hit; a hidden mine becomes
  public when a unit in the open enters it or when it hits.
* **Bunkers** (§18.1.2, §18.2): :mod:`.bunkers`.  **Destroying counters by
  fire** (§18.4): :mod:`.obstacles`.  **Cards #40, #41 and the Tellermine laid
  as a mine**: :mod:`.card_obstacles`.  **Hasty defences**: :mod:`.hasty`.
* Not played yet: building fortifications in play (§18.1: only when a firefight
  says so; none does).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from wargame.engine import (
    GameState,
    RuleContext,
    locate_hex,
    unit_change,
    var_change,
)
from wargame.engine.scenario import shown

from ._core import Mixin
from .actions import Move
from .bunkers import BUNKER_KEYS
from .hasty import HASTY_COST, WATER

__all__ = ["FORT_KINDS", "HASTY_COST", "Fortifications"]

FORT_KINDS = ("trench", "bunker", "wire", "roadblock", "mine")
FORT_KEYS = frozenset(
    {"kind", "hex", "lonlat", "place", "side", "hidden", "note"} | BUNKER_KEYS
)
_WORDS = {"wire": "barbed wire", "roadblock": "road block", "trench": "trench"}


def _bool(v: Any) -> bool:
    return isinstance(v, bool)


class Fortifications(Mixin):
    """Mixin: fortifications, obstacles, mines and hasty defences."""

    board: Any
    specs: dict[str, Any]
    sides: tuple[str, str]
    fort_setup: tuple[tuple[str, str, str, bool], ...] = ()
    unit_options: dict[str, dict[str, bool]]

    # -- scenario ---------------------------------------------------------- #
    def _read_fortifications(self) -> list[str]:
        """``[[fortifications]]`` and the units' ``hasty``/``smoke``/
        ``flamethrower`` keys; one problem per line."""
        s = self.scenario
        problems = self._read_unit_options()
        raw = s.data.get("fortifications", [])
        if not isinstance(raw, list) or not all(isinstance(r, Mapping) for r in raw):
            return [
                *problems,
                s.problem(
                    "fortifications", "must be a list of tables ([[fortifications]])"
                ),
            ]
        out: list[tuple[str, str, str, bool]] = []
        self.fort_numbers: dict[tuple[str, str], Any] = {}
        for i, r in enumerate(raw):
            where = f"fortifications[{i}]"
            for key in sorted(set(r) - FORT_KEYS):
                problems.append(
                    s.problem(
                        f"{where}.{key}",
                        f"unknown key; use {', '.join(sorted(FORT_KEYS))}",
                    )
                )
            kind = r.get("kind")
            if kind not in FORT_KINDS:
                problems.append(
                    s.problem(
                        f"{where}.kind",
                        f"{shown(kind)} is not a fortification this rule system "
                        f"plays; use one of {list(FORT_KINDS)}",
                    )
                )
                continue
            h, key, why = locate_hex(self.map, r, default="hex")
            if why is not None or h is None:
                problems.append(s.problem(f"{where}.{key}", str(why)))
                continue
            side = r.get("side")
            if side is not None and side not in self.sides:
                problems.append(
                    s.problem(f"{where}.side", f"must be one of {list(self.sides)}")
                )
                continue
            hidden = r.get("hidden", False)
            if not _bool(hidden):
                problems.append(s.problem(f"{where}.hidden", "must be true or false"))
                hidden = False
            if hidden and kind != "mine":
                problems.append(
                    s.problem(
                        f"{where}.hidden",
                        f"only mines are placed hidden (§18.3.3); remove it from "
                        f"the {kind}",
                    )
                )
            if kind == "mine" and side is None:
                problems.append(
                    s.problem(
                        f"{where}.side",
                        "a mine needs its owner, who rolls its attacks (§18.3.3); "
                        f"add side = one of {list(self.sides)}",
                    )
                )
                continue
            if kind == "trench" and self.board.terrain[h] in WATER:
                problems.append(
                    s.problem(f"{where}.hex", f"no trench in water ({h}); move it")
                )
            if any(k == kind and x == h for k, x, _o, _h in out):
                problems.append(
                    s.problem(
                        f"{where}.hex",
                        f"a second {kind} in {h}: at most one of each kind per "
                        "hex (§18.0)",
                    )
                )
                continue
            more = self._read_fort_numbers(str(kind), r, where, h)  # bunkers.py
            problems += more
            if not more:
                out.append((str(kind), h, str(side or ""), bool(hidden)))
        self.fort_setup = tuple(out)
        index = {str(r.get("id")): i for i, r in enumerate(s.units)}
        for sp in self.specs.values():
            if sp.hex is None or sp.type.mobility != "wheeled":
                continue
            for kind, h, _o, hid in out:
                if h == sp.hex and kind in _WORDS and not hid:
                    problems.append(
                        s.problem(
                            f"units[{index[sp.id]}].hex",
                            f"wheeled {sp.name} cannot stand in the {_WORDS[kind]} "
                            f"at {h} (§18.1.1, §18.3); set it up elsewhere",
                        )
                    )
        return problems

    def _read_unit_options(self) -> list[str]:
        s = self.scenario
        problems: list[str] = []
        self.unit_options = {}
        for i, raw in enumerate(s.units):
            uid = str(raw.get("id"))
            sp = self.specs.get(uid)
            if sp is None:
                continue
            opts: dict[str, bool] = {}
            for key in ("smoke", "flamethrower", "hasty"):
                if key not in raw:
                    continue
                v = raw[key]
                if not _bool(v):
                    problems.append(
                        s.problem(f"units[{i}].{key}", "must be true or false")
                    )
                    continue
                opts[key] = bool(v)
            ut = sp.type
            if opts.get("flamethrower") and not ut.flamethrower:
                problems.append(
                    s.problem(
                        f"units[{i}].flamethrower",
                        f"{ut.name} has no flamethrower to keep; a firefight may "
                        "only take one away (flamethrower = false, §19.1)",
                    )
                )
            if opts.get("smoke") and ut.fire_cost is None:
                problems.append(
                    s.problem(
                        f"units[{i}].smoke",
                        f"{ut.name} cannot attack, so it cannot fire smoke (§13.1)",
                    )
                )
            if opts.get("hasty"):
                if ut.kind != "foot" or sp.hex is None or sp.hidden:
                    problems.append(
                        s.problem(
                            f"units[{i}].hasty",
                            "a hasty defence starts under a foot unit set up in "
                            "the open on the map, not a vehicle, a hidden unit or "
                            "a reinforcement (§18.1.3)",
                        )
                    )
                elif self.board.terrain[sp.hex] in WATER:
                    problems.append(
                        s.problem(
                            f"units[{i}].hasty", "no hasty defence in water (§18.1.3)"
                        )
                    )
            self.unit_options[uid] = opts
        return problems

    def _init_forts(self, st: GameState) -> None:
        """Put the scenario's fortifications and hasty defences in the state."""
        public = tuple((k, h, o) for k, h, o, hid in self.fort_setup if not hid)
        if public:
            st.vars["forts"] = public
        for side in self.sides:
            mines = sorted(h for k, h, o, hid in self.fort_setup if hid and o == side)
            if mines:
                st.decks[f"mines:{side}"] = tuple(mines)
        for uid, sp in self.specs.items():
            u = st.units[uid]
            if (
                sp.hex is not None
                and self.trench_eligible(uid)
                and any(k == "trench" and h == sp.hex for k, h, _o in public)
            ):
                u.attrs["trench"] = True
            b = self.bunker_in(st, sp.hex) if sp.hex is not None else None
            if b is not None and not u.hidden and self.bunker_eligible(uid):
                u.attrs["bunker"] = True  # §18.1.2: it faces the bunker's way
                u.facing = b.facing
            if self.unit_options.get(uid, {}).get("hasty"):
                u.attrs["hasty"] = True

    # -- queries ------------------------------------------------------------ #
    def forts(self, state: GameState) -> list[tuple[str, str, str]]:
        """The public fortifications and obstacles: ``(kind, hex, owner)``."""
        return [(str(k), str(h), str(o)) for k, h, o in state.vars.get("forts") or ()]

    def has_fort(self, state: GameState, kind: str, hex_: str) -> bool:
        """Whether a public feature of ``kind`` is in ``hex_``."""
        return any(k == kind and h == hex_ for k, h, _o in self.forts(state))

    def unit_option(self, uid: str, what: str, default: bool) -> bool:
        """A capability the firefight sets for one unit (``[[units]]`` key)."""
        return bool(self.unit_options.get(uid, {}).get(what, default))

    def trench_eligible(self, uid: str) -> bool:
        """Unburdened foot units and mortars occupy trenches (§18.1.1)."""
        ut = self.specs[uid].type
        mortar = ut.he and ut.kind == "foot" and ut.mobility == "foot"
        return bool(ut.unburdened or mortar)

    def is_pioneer(self, uid: str) -> bool:
        """Pioneers (§19.0; ASSUMPTION: the unit types named so)."""
        return "pioneers" in str(self.specs[uid].type.id)

    def all_round(self, u: Any) -> bool:
        """Trench occupants face and fire in every direction (§18.1.1)."""
        return bool(u.attrs.get("trench"))

    def fort_dms(
        self, state: GameState, target: Any, to: str, *, flank: bool = True
    ) -> list[tuple[int, str]]:
        """Fortification DMs of a unit attacked in ``to`` (§18.1.1, §18.1.2,
        §18.3.2); ``flank``: the attack hits the flank (a bunker's smaller DM)."""
        out: list[tuple[int, str]] = self.bunker_dms(state, target, to, flank)
        if target.attrs.get("trench") and self.has_fort(state, "trench", to):
            out.append((2, "trench +2 (§18.1.1)"))
        if self.has_fort(state, "roadblock", to):
            out.append((1, "road block +1 (§18.3.2)"))
        return out

    def negates_open_bonus(self, state: GameState, hex_: str) -> bool:
        """+2 smoke, trenches and wire negate open-terrain bonus moves (§13,
        §18.1.1, §18.3.1)."""
        smoke = self.smoke_map(state.vars.get("smoke"))
        return int(smoke.get(hex_, 0)) >= 2 or any(
            self.has_fort(state, k, hex_) for k in ("trench", "wire")
        )

    def obstacle_bar(self, state: GameState, uid: str, to: str) -> str | None:
        """Why a unit may not enter ``to`` for its fortifications (``None``: it may)."""
        if self.specs[uid].type.mobility != "wheeled":
            return None
        for kind in ("wire", "roadblock", "trench"):
            if self.has_fort(state, kind, to):
                return (
                    f"{state.units[uid].name} may not enter {to}: wheeled units do "
                    f"not enter {_WORDS[kind]} hexes (§18.1.1, §18.3)"
                )
        return None

    def _rolls_to_enter(self, state: GameState, uid: str, to: str) -> str | None:
        mob = str(self.specs[uid].type.mobility)
        if mob in ("foot", "none") and self.has_fort(state, "wire", to):
            return "barbed wire (§18.3.1)"
        if mob == "tracked" and self.has_fort(state, "roadblock", to):
            return "road block (§18.3.2)"
        return None

    # -- movement hooks ------------------------------------------------------ #
    def obstacle_roll(
        self, ctx: RuleContext, side: str, a: Move, cost: int
    ) -> int | None:
        """A move into wire or a road block: roll 1d6 extra AP (§18.3); the cost
        to pay, or ``None`` when the unit cannot pay and loses its APs."""
        st = ctx.state
        if a.hidden:
            return cost
        dests = a.to if len(a.to) == len(a.units) else a.to * len(a.units)
        what = [
            w
            for uid, to in zip(a.units, dests, strict=True)
            if (w := self._rolls_to_enter(st, uid, to)) is not None
        ]
        if not what:
            return cost
        (d,) = ctx.roll(
            1, kind="obstacle", side=side, detail=f"{what[0]}: +1d6 AP to enter"
        )
        if self.pay_problem(st, side, a.units, a.pay, cost + d) is None:
            return cost + d
        ctx.emit(
            "move",
            side=side,
            unit=a.units[0],
            result="stays",
            detail=f"cannot pay {cost + d} AP to cross the {what[0]}: the attempt "
            "costs its remaining APs (§18.3)",
        )
        if a.pay == "ap":
            left = self.pool(st, side) or 7
            self.pay(ctx, side, a.units, "ap", left, "move (failed)")
        elif a.pay == "command":
            self.pay(ctx, side, a.units, "command", cost, "move (failed)")
        return None

    def on_enter(
        self, ctx: RuleContext, uid: str, h: str, frm: str | None = None
    ) -> None:
        """After a unit entered ``h`` from ``frm``: trench and bunker occupancy,
        tracked vehicles crushing wire, mines, a close-combat advance."""
        st = ctx.state
        u = st.units[uid]
        if u.destroyed or u.hex != h:
            return
        self.note_advance(ctx, uid, frm, h)  # §7.7.3 (cc_retreat.py)
        self.bunker_on_enter(ctx, uid, h)  # §18.2 (bunkers.py)
        inside = (
            self.has_fort(st, "trench", h)
            and self.trench_eligible(uid)
            and not self.enemy_in(st, h, u.side)
        )
        if bool(u.attrs.get("trench")) != inside:
            ctx.emit(
                "fortification",
                side=u.side,
                unit=uid,
                hex_to=h,
                detail="occupies the trench (§18.2)" if inside else "leaves the trench",
                changes=unit_change(uid, trench=True if inside else None),
                visible_to=(u.side,) if u.hidden else None,
            )
        if self.specs[uid].type.mobility == "tracked" and self.has_fort(st, "wire", h):
            left = tuple(
                (k, x, o) for k, x, o in self.forts(st) if not (k == "wire" and x == h)
            )
            ctx.emit(
                "fortification",
                side=u.side,
                unit=uid,
                hex_to=h,
                result="wire destroyed",
                detail="a tracked vehicle crushes the wire (§18.3.1)",
                changes=var_change(forts=left or None),
            )
        self.mines_go_off(ctx, uid, h)

    def after_pivot(self, ctx: RuleContext, units: Sequence[str]) -> None:
        """A pivot removes hasty defences and sets off mines (§18.1.3, §18.3.3)."""
        self.lose_hasty(ctx, units, "pivots")
        for uid in units:
            self.bunker_after_pivot(ctx, uid)  # §18.2 (bunkers.py)
            u = ctx.state.units[uid]
            if not u.destroyed and u.hex is not None:
                self.mines_go_off(ctx, uid, u.hex)
