"""Flames of War v3 transports: passengers riding in a transport platoon.

The rule in the sources (research/fow.md §1.2, S12 [A]): passengers get out at
the start of their move or get in at the end of it; passengers save on 5+
(§3.4, S12 [A]).  The rest is the project's, every part an ASSUMPTION:

* **A scenario mounts a platoon** with ``mounted_in = "<transport platoon
  id>"`` and no position of its own: a platoon of foot or man-packed teams of
  the same side, riding in a platoon whose every team is a transport
  (``special = ["transport"]``); one passenger platoon per transport platoon
  (the data has no capacity).
* **Riding**: the passengers are off the table (no position; they go where
  the transport goes); they do not shoot, are not shot at, take no objective
  and take no Starting Step tests.
* **Dismount** (Movement Step, before the passengers move): each passenger
  team gets out at the spot of a transport team (in turn); the platoon may
  then move; not in the turn it got in.
* **Mount** (Movement Step, at the end of the passengers' move or instead of
  it): every passenger team within 2" of a team of the transport platoon
  (base edge to base edge); the transport may still move this turn.
* **A transport platoon destroyed** with passengers aboard: they get out at
  its point (in a ring of 2" when the ground allows) and each team takes the
  passengers' 5+ save or is destroyed.

Examples:
    >>> Dismount("us_1pl").to_dict()
    {'type': 'dismount', 'unit': 'us_1pl'}
    >>> MOUNT_IN_IN, PASSENGER_SAVE
    (2.0, 5)
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from wargame.engine import Action, GameState, Model, Point, RuleContext, unit_change

from .dice import passes
from .forces import PlatoonSpec

if TYPE_CHECKING:  # pragma: no cover
    from .ruleset import FowRuleset

__all__ = [
    "EVENT_KINDS",
    "MOUNT_IN_IN",
    "PASSENGER_SAVE",
    "Dismount",
    "Mount",
    "after_fire",
    "dismount",
    "dismount_problem",
    "mount",
    "mount_problem",
    "mounts_problems",
    "transport_actions",
]

#: How close (inches, base edge to base edge) passengers must be to get in.
#: ASSUMPTION: the sources read give no distance.
MOUNT_IN_IN: Final = 2.0
#: Passengers' save (research/fow.md §3.4, S12 [A]).
PASSENGER_SAVE: Final = 5
#: Mobilities of teams that can ride (ASSUMPTION: foot and man-packed).
RIDERS: Final = ("foot", "man_packed")
#: Events of mounting and dismounting.
EVENT_KINDS: Final = ("mount", "dismount")


@dataclass(frozen=True)
class Dismount(Action):
    """Passengers get out of their transport (at the start of their move)."""

    type = "dismount"
    unit: str


@dataclass(frozen=True)
class Mount(Action):
    """A platoon gets into a transport platoon (at the end of its move)."""

    type = "mount"
    unit: str
    transport: str


# --------------------------------------------------------------------------- #
# the scenario                                                                #
# --------------------------------------------------------------------------- #


def mounts_problems(
    units: Sequence[Mapping[str, Any]],
    specs: Mapping[str, PlatoonSpec],
    side_of: Mapping[str, str | None],
    file: str,
) -> list[str]:
    """What is wrong with the scenario's ``mounted_in`` entries (file, unit,
    field and why)."""
    out: list[str] = []
    carried: dict[str, str] = {}
    for i, raw in enumerate(units):
        tid = raw.get("mounted_in")
        if tid is None:
            continue
        uid = str(raw.get("id"))
        at = f"{file}: units[{i}] ({uid!r}).mounted_in"
        if not isinstance(tid, str) or tid not in specs:
            out.append(f"{at}: {tid!r} is not a platoon of the scenario")
            continue
        if any(raw.get(k) is not None for k in ("x", "lonlat", "place", "zone")):
            out.append(f"{at}: a mounted platoon rides in {tid} and has no position")
        if not all(t.has("transport") for _, t in specs[tid].teams):
            out.append(f"{at}: {tid} is not a transport platoon (data/teams.toml)")
        if not all(t.mobility in RIDERS for _, t in specs[uid].teams):
            out.append(f"{at}: only foot and man-packed teams ride (ASSUMPTION)")
        if side_of.get(uid) != side_of.get(tid):
            out.append(f"{at}: {tid} is of another side")
        if tid in carried:
            out.append(f"{at}: {tid} carries {carried[tid]} already (one platoon)")
        carried[tid] = uid
    mounted = {str(r.get("id")) for r in units if r.get("mounted_in") is not None}
    for i, raw in enumerate(units):
        if raw.get("mounted_in") in mounted:
            out.append(
                f"{file}: units[{i}] ({raw.get('id')!r}).mounted_in: "
                f"{raw['mounted_in']} rides in a transport itself"
            )
    return out


# --------------------------------------------------------------------------- #
# the checks                                                                  #
# --------------------------------------------------------------------------- #


def _turn_key(state: GameState) -> str:
    return f"{state.turn}:{state.vars.get('side')}"


def _passengers(state: GameState, tid: str) -> list[str]:
    return sorted(
        uid for uid, u in state.units.items() if u.attrs.get("mounted_in") == tid
    )


def dismount_problem(rs: FowRuleset, state: GameState, uid: str) -> str | None:
    """Why platoon ``uid`` may not get out now (``None``: it may)."""
    side = rs.current_side(state)
    u = state.units.get(uid)
    if state.phase != "movement":
        return f"passengers get out in the Movement Step, not the {state.phase} step"
    if u is None or u.side != side:
        return f"{uid!r} is not a platoon of {side}"
    tid = u.attrs.get("mounted_in")
    if tid is None:
        return f"{uid} is not mounted"
    if u.attrs.get("mounted_turn") == _turn_key(state):
        return f"{uid} got into {tid} this turn (research/fow.md §1.2)"
    t = state.units.get(str(tid))
    if t is None or not rs._in_play(t):
        return f"its transport {tid} is not on the table"  # pragma: no cover
    return None


def mount_problem(rs: FowRuleset, state: GameState, uid: str, tid: str) -> str | None:
    """Why platoon ``uid`` may not get into transport platoon ``tid`` now."""
    side = rs.current_side(state)
    u, t = state.units.get(uid), state.units.get(tid)
    if state.phase != "movement":
        return f"passengers get in in the Movement Step, not the {state.phase} step"
    if u is None or u.side != side or not rs._in_play(u):
        return f"{uid!r} is not a platoon of {side} on the table"
    if t is None or t.side != side or not rs._in_play(t) or t.id == uid:
        return f"{tid!r} is not another platoon of {side} on the table"
    if not all(rs.team(m).has("transport") for m in t.models):
        return f"{tid} is not a transport platoon (data/teams.toml)"
    if not all(rs.team(m).mobility in RIDERS for m in u.models):
        return f"only foot and man-packed teams ride (ASSUMPTION); {uid} has others"
    if _passengers(state, tid):
        return f"{tid} carries {_passengers(state, tid)[0]} already (one platoon)"
    reach = MOUNT_IN_IN * rs.scale
    for m in u.models:
        p = m.position
        assert isinstance(p, Point)
        gap = min(
            math.hypot(p.x - q.position.x, p.y - q.position.y) - m.radius_m - q.radius_m
            for q in t.models
            if isinstance(q.position, Point)
        )
        if m.attrs.get("bailed") or m.attrs.get("bogged") or gap > reach + 1e-6:
            return (
                f"team {m.id} is {max(gap, 0.0):.0f} m from {tid}'s nearest team; "
                f'passengers get in within {MOUNT_IN_IN:g}" (ASSUMPTION)'
            )
    return None


def transport_actions(rs: FowRuleset, state: GameState, side: str) -> list[Action]:
    """The Mount and Dismount actions open to ``side`` now."""
    out: list[Action] = []
    for uid in sorted(state.units):
        u = state.units[uid]
        if u.side != side:
            continue
        if u.attrs.get("mounted_in") is not None:
            if dismount_problem(rs, state, uid) is None:
                out.append(Dismount(uid))
            continue
        if not rs._in_play(u):
            continue
        for tid in sorted(state.units):
            if (
                tid != uid
                and state.units[tid].side == side
                and mount_problem(rs, state, uid, tid) is None
            ):
                out.append(Mount(uid, tid))
    return out


# --------------------------------------------------------------------------- #
# the state changes                                                           #
# --------------------------------------------------------------------------- #


def mount(rs: FowRuleset, ctx: RuleContext, uid: str, tid: str) -> None:
    """Platoon ``uid`` gets into ``tid``: off the table, riding."""
    st = ctx.state
    u = st.units[uid]
    off = tuple(dataclasses.replace(m, position=None) for m in u.models)
    ctx.emit(
        "mount",
        side=u.side,
        unit=uid,
        target=tid,
        result=f"gets into {tid}",
        point_from=u.position if isinstance(u.position, Point) else None,
        changes=unit_change(uid, position=None, models=off)
        + unit_change(uid, mounted_in=tid, mounted_turn=_turn_key(st)),
    )


def _out(rs: FowRuleset, u: Any, spots: Sequence[Point]) -> tuple[Model, ...]:
    return tuple(
        dataclasses.replace(m, position=spots[i % len(spots)])
        for i, m in enumerate(u.models)
    )


def dismount(rs: FowRuleset, ctx: RuleContext, uid: str) -> None:
    """Platoon ``uid`` gets out, each team at a transport team's spot; it may
    then move (the flags of the turn it got in are cleared)."""
    st = ctx.state
    u = st.units[uid]
    t = st.units[str(u.attrs["mounted_in"])]
    spots = [m.position for m in t.models if isinstance(m.position, Point)]
    models = _out(rs, u, spots)
    here = models[0].position
    assert isinstance(here, Point)
    ctx.emit(
        "dismount",
        side=u.side,
        unit=uid,
        target=t.id,
        result=f"gets out of {t.id}",
        point_to=here,
        changes=unit_change(uid, position=here, models=models)
        + unit_change(uid, mounted_in=None, mounted_turn=None, moved=None, fired=None),
    )


def after_fire(rs: FowRuleset, ctx: RuleContext) -> None:
    """Passengers of a transport platoon just destroyed get out at its point
    and each team takes the passengers' 5+ save (module docstring)."""
    st = ctx.state
    for uid in sorted(st.units):
        u = st.units[uid]
        tid = u.attrs.get("mounted_in")
        if tid is None:
            continue
        t = st.units[str(tid)]
        if rs._in_play(t):
            continue
        c = t.position
        assert isinstance(c, Point)
        ring = MOUNT_IN_IN * rs.scale
        n = len(u.models)
        spots: list[Point] = []
        for k in range(n):
            a = 2 * math.pi * k / max(n, 1)
            p = Point(
                round(c.x + ring * math.sin(a), 3), round(c.y + ring * math.cos(a), 3)
            )
            land = str(rs.map.terrain_at(p.x, p.y)) != "water"
            spots.append(p if land else c)
        models = _out(rs, u, spots)
        kept: list[Model] = []
        for m in models:
            (f,) = ctx.roll(
                1,
                needed=PASSENGER_SAVE,
                kind="save",
                side=u.side,
                unit=uid,
                target=m.id,
                detail="passenger's save (research/fow.md §3.4)",
            )
            if passes(f, PASSENGER_SAVE):
                kept.append(m)
        ch = unit_change(uid, mounted_in=None, mounted_turn=None)
        if kept:
            ch += unit_change(uid, position=kept[0].position, models=tuple(kept))
        else:
            ch += unit_change(uid, models=(), strength="destroyed", position=c)
        ctx.emit(
            "dismount",
            side=u.side,
            unit=uid,
            target=t.id,
            result=f"{t.id} destroyed: {n - len(kept)} passenger team(s) lost",
            changes=ch,
        )
