"""Flames of War v3 air support: Starting Step item 5 and Shooting Step item 10.

The sources give only the places in the turn: the Starting Step rolls for air
support (research/fow.md §1.1 item 5, S2 [A], S12 [A]) and the Shooting Step's
air support comes after all platoons have shot and Pinned Down is checked,
before platoon morale (§1.3 item 10, S12 [A]); and the shape of an aircraft's
profile: up to two weapons, each with To Hit, AT and FP (§6.1, S13 [B/C]).
Every number and the rest of the procedure is the project's (ASSUMPTION, A1-A10
in docs/rules/fow-v3.md):

* **A scenario side** may have ``air_support = {level = "priority" | "limited"
  | "sporadic", aircraft = "<profile id>"}`` (the profile an
  ``[aircraft.<id>]`` table of ``data/teams.toml``).
* **Arrival** (item 5): one die in each of the side's Starting Steps against
  :data:`ARRIVES_ON` (priority 3+, limited 4+, sporadic 5+: ASSUMPTION, the
  levels' names ordered by how often the aircraft come); one aircraft a
  sortie.
* **The strike** (item 10): after all platoons shot and pinning is checked
  the owner chooses ``AirStrike(target)`` or ``Next`` (no strike).  The target
  is any enemy platoon on the table with a team more than :data:`CLEAR_IN`
  (4") from every friendly team (ASSUMPTION: pilots do not strafe next to
  their own troops); only those teams can be hit.  Pilots see from above: no
  line of sight, range, Concealed or Gone to Ground modifier (ASSUMPTION).
* **Anti-aircraft fire** (kept simple): each team of the target's side with
  the ``anti_aircraft`` or ``aa_mg`` rule, not Bailed Out or Bogged Down,
  within :data:`AA_RANGE_IN` (16") of a team that can be hit, rolls one die;
  any :data:`AA_SCORE` (5+) drives the aircraft off before it attacks
  (ASSUMPTION).
* **Hits**: each weapon rolls its ``dice`` at its ``to_hit``; the owner
  allocates them over the teams that can be hit (:func:`.allocation.allocate`,
  the platoon's order, command team last); each is resolved by
  :func:`.play.hit_team`: infantry and guns save as usual (Bulletproof Cover
  in towns), tanks and armoured vehicles on their **top armour** (the §10.7
  stop-gap of bombardments).  Five hits of the strike Pin Down a platoon that
  is not all tanks (ASSUMPTION: item 9 is past, so the strike counts apart).

Examples:
    >>> ARRIVES_ON["priority"], ARRIVES_ON["sporadic"]
    (3, 5)
    >>> p_arrives("limited")
    Fraction(1, 2)
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Final

from wargame.engine import (
    Action,
    GameState,
    Model,
    Point,
    RuleContext,
    Unit,
    unit_change,
    var_change,
)

from .allocation import allocate
from .data import Aircraft, TeamType, load_aircraft
from .dice import p_success, passes
from .odds import armour_pmf, save_pmf
from .shooting import PIN_HITS

if TYPE_CHECKING:  # pragma: no cover
    from .ruleset import FowRuleset

__all__ = [
    "AA_RANGE_IN",
    "AA_SCORE",
    "ARRIVES_ON",
    "CLEAR_IN",
    "EVENT_KINDS",
    "AirStrike",
    "AirSupport",
    "air_support_problems",
    "arrival",
    "await_strike",
    "hold_off",
    "p_arrives",
    "strike",
    "strike_problem",
    "strike_targets",
    "strike_value",
]

#: The score of the arrival die by level (ASSUMPTION A1: the sources name the
#: roll, research §1.1 item 5, not its numbers).
ARRIVES_ON: Final = {"priority": 3, "limited": 4, "sporadic": 5}
#: Pilots attack no team within 4" of a friendly team (ASSUMPTION A4).
CLEAR_IN: Final = 4.0
#: Anti-aircraft teams within 16" of the struck teams fire (ASSUMPTION A6: the
#: 2cm FlaK 38's range, research §6.2 data).
AA_RANGE_IN: Final = 16.0
#: One anti-aircraft die on 5+ drives the aircraft off (ASSUMPTION A6).
AA_SCORE: Final = 5
#: Special rules that fire at aircraft (``data.SPECIAL_RULES``).
AA_RULES: Final = ("anti_aircraft", "aa_mg")
#: Events of air support.
EVENT_KINDS: Final = ("air_support", "air_attack", "anti_aircraft", "air_strike")
_KEYS: Final = frozenset({"level", "aircraft"})


@dataclass(frozen=True)
class AirStrike(Action):
    """Shooting Step item 10: the side's aircraft attack enemy platoon
    ``target`` (research/fow.md §1.3; :mod:`.air`)."""

    type = "air_strike"
    target: str


@dataclass(frozen=True)
class AirSupport:
    """A side's air support: its level and its aircraft's profile."""

    level: str
    aircraft: Aircraft

    @property
    def arrives_on(self) -> int:
        """The score of the arrival die (:data:`ARRIVES_ON`)."""
        return ARRIVES_ON[self.level]


def p_arrives(level: str) -> Fraction:
    """The chance the aircraft come in one Starting Step.

    >>> p_arrives("priority")
    Fraction(2, 3)
    """
    return p_success(ARRIVES_ON[level])


def air_support_problems(
    sides: Sequence[Mapping[str, Any]], file: str
) -> tuple[dict[str, AirSupport], list[str]]:
    """The sides' ``air_support`` tables, and what is wrong with them (file,
    side, field and why).

    >>> _, bad = air_support_problems(
    ...     [{"id": "us", "air_support": {"level": "daily"}}], "s.toml")
    >>> bad[0]  # doctest: +ELLIPSIS
    "s.toml: sides[0] ('us').air_support.level: 'daily' is not one of ..."
    """
    out: dict[str, AirSupport] = {}
    problems: list[str] = []
    planes: dict[str, Aircraft] | None = None
    for i, s in enumerate(sides):
        raw = s.get("air_support")
        if raw is None:
            continue
        at = f"{file}: sides[{i}] ({s.get('id')!r}).air_support"
        if not isinstance(raw, Mapping):
            problems.append(f"{at}: {raw!r} is not a table {{level, aircraft}}")
            continue
        for k in sorted(set(raw) - _KEYS):
            problems.append(f"{at}.{k}: unknown key (level, aircraft)")
        level = raw.get("level")
        if level not in ARRIVES_ON:
            problems.append(
                f"{at}.level: {level!r} is not one of {', '.join(ARRIVES_ON)}"
            )
        planes = load_aircraft() if planes is None else planes
        aid = raw.get("aircraft")
        if not isinstance(aid, str) or aid not in planes:
            problems.append(
                f"{at}.aircraft: {aid!r} is not an aircraft profile of the data "
                f"({', '.join(sorted(planes)) or 'none'})"
            )
        if level in ARRIVES_ON and isinstance(aid, str) and aid in planes:
            out[str(s.get("id"))] = AirSupport(str(level), planes[aid])
    return out, problems


# --------------------------------------------------------------------------- #
# Starting Step item 5                                                        #
# --------------------------------------------------------------------------- #


def arrival(rs: FowRuleset, ctx: RuleContext, side: str) -> None:
    """Starting Step item 5: ``side`` rolls for its air support."""
    air = rs.air.get(side)
    if air is None:
        return
    (f,) = ctx.roll(
        1,
        needed=air.arrives_on,
        kind="air_support",
        side=side,
        detail=f"{air.level} air support ({air.aircraft.name}), {air.arrives_on}+",
    )
    ok = passes(f, air.arrives_on)
    ctx.emit(
        "air_support",
        side=side,
        result="arrives" if ok else "does not come",
        detail=f"{air.aircraft.name} " + ("arrives" if ok else "does not come"),
        changes=var_change(air_arrived=side if ok else None, air_pending=None),
    )


# --------------------------------------------------------------------------- #
# Shooting Step item 10                                                       #
# --------------------------------------------------------------------------- #


def _xy(m: Model) -> tuple[float, float] | None:
    p = m.position
    return (float(p.x), float(p.y)) if isinstance(p, Point) else None


def _clear_teams(rs: FowRuleset, state: GameState, side: str, t: Unit) -> list[Model]:
    """The teams of ``t`` more than 4" (base edge to edge) from every team of
    ``side``: those the pilots may hit, the command team last."""
    friends = [
        (xy, m.radius_m)
        for u in state.units.values()
        if u.side == side and rs._in_play(u)
        for m in u.models
        if (xy := _xy(m)) is not None
    ]
    reach = CLEAR_IN * rs.scale
    out = []
    for m in t.models:
        xy = _xy(m)
        if xy is None:
            continue
        if all(math.dist(xy, f) - r - m.radius_m > reach for f, r in friends):
            out.append(m)
    out.sort(key=lambda m: m.id == t.models[0].id)  # the command team last
    return out


def strike_problem(rs: FowRuleset, state: GameState, tid: str) -> str | None:
    """Why the side to play may not make an air strike on ``tid`` now
    (``None``: it may)."""
    side = str(state.vars.get("side"))
    if side not in rs.air:
        return f"{side} has no air support in this scenario (research §1.1 item 5)"
    if state.phase != "shooting" or not state.vars.get("air_pending"):
        return (
            "aircraft attack in the Shooting Step after every platoon has shot "
            f"(research/fow.md §1.3 item 10), not now (the {state.phase} step)"
        )
    if state.vars.get("air_arrived") != side:
        return f"{side}'s aircraft did not arrive this turn (research §1.1 item 5)"
    return _target_problem(rs, state, side, tid)


def _target_problem(
    rs: FowRuleset, state: GameState, side: str, tid: str
) -> str | None:
    t = state.units.get(tid)
    if t is None:
        return f"no platoon {tid!r}"
    if t.side == side or not rs._in_play(t):
        return f"{tid} is not an enemy platoon on the table"
    if not _clear_teams(rs, state, side, t):
        return (
            f'every team of {tid} is within {CLEAR_IN:g}" of a {side} team: pilots '
            "do not attack next to their own troops (ASSUMPTION, air.py)"
        )
    return None


def strike_targets(rs: FowRuleset, state: GameState, side: str) -> list[str]:
    """The enemy platoons ``side``'s aircraft may attack."""
    return [
        uid
        for uid in sorted(state.units)
        if _target_problem(rs, state, side, uid) is None
    ]


def await_strike(rs: FowRuleset, ctx: RuleContext, side: str) -> bool:
    """Item 10 reached: ``True`` if ``side``'s aircraft wait for the owner's
    choice of target (``AirStrike`` or ``Next``)."""
    st = ctx.state
    if st.vars.get("air_arrived") != side:
        return False
    if strike_targets(rs, st, side):
        ctx.emit(
            "step",
            side=side,
            result="air support: choose a target",
            changes=var_change(air_pending=True),
        )
        return True
    ctx.emit(
        "air_support",
        side=side,
        result="finds no target",
        changes=var_change(air_arrived=None, air_pending=None),
    )
    return False


def hold_off(ctx: RuleContext, side: str) -> None:
    """The owner lets the aircraft go without a strike (``Next`` at item 10)."""
    ctx.emit(
        "air_support",
        side=side,
        result="no strike",
        changes=var_change(air_arrived=None, air_pending=None),
    )


def _aa_teams(
    rs: FowRuleset, state: GameState, tid: str, hit: list[Model]
) -> list[Model]:
    """The target side's anti-aircraft teams in range of the struck teams."""
    owner = state.units[tid].side
    reach = AA_RANGE_IN * rs.scale
    spots = [xy for m in hit if (xy := _xy(m)) is not None]
    out = []
    for uid in sorted(state.units):
        u = state.units[uid]
        if u.side != owner or not rs._in_play(u):
            continue
        for m in u.models:
            xy = _xy(m)
            tt = rs.team(m)
            if (
                xy is not None
                and any(tt.has(r) for r in AA_RULES)
                and not m.attrs.get("bailed")
                and not m.attrs.get("bogged")
                and any(math.dist(xy, s) <= reach for s in spots)
            ):
                out.append(m)
    return out


def _kill_p(tt: TeamType, anti_tank: int, firepower: int) -> float:
    if tt.armour is not None:
        return float(armour_pmf(tt.armour.top, anti_tank, firepower)["destroyed"])
    return float(save_pmf(tt.save if tt.save is not None else 7)["destroyed"])


def strike_value(rs: FowRuleset, state: GameState, tid: str) -> tuple[float, float]:
    """``(expected teams destroyed, expected hits)`` of an air strike on
    ``tid`` (exact per-die odds; each hit on the first team that can be hit;
    both times the chance no anti-aircraft die drives the aircraft off): the
    AI players' score."""
    side = str(state.vars.get("side"))
    air = rs.air.get(side)
    t = state.units.get(tid)
    if air is None or t is None:
        return 0.0, 0.0
    clear = _clear_teams(rs, state, side, t)
    if not clear:
        return 0.0, 0.0
    n_aa = len(_aa_teams(rs, state, tid, clear))
    through = float((1 - p_success(AA_SCORE)) ** n_aa)
    first = rs.team(clear[0])
    kills = hits = 0.0
    for w in air.aircraft.weapons:
        h = w.dice * float(p_success(w.to_hit))
        hits += h
        kills += h * _kill_p(first, w.anti_tank, w.firepower)
    return through * kills, through * hits


def strike(rs: FowRuleset, ctx: RuleContext, tid: str) -> None:
    """The aircraft attack platoon ``tid`` (module docstring)."""
    from .play import at, hit_team, in_bulletproof_cover, losses_change, resolve_hits

    st = ctx.state
    side = str(st.vars["side"])
    air = rs.air[side]
    plane = air.aircraft
    t = st.units[tid]
    done = var_change(air_arrived=None, air_pending=None)
    clear = _clear_teams(rs, st, side, t)
    for m in _aa_teams(rs, st, tid, clear):
        (f,) = ctx.roll(
            1,
            needed=AA_SCORE,
            kind="anti_aircraft",
            side=t.side,
            target=m.id,
            detail=f"{m.id} fires at the {plane.name}, {AA_SCORE}+",
        )
        if passes(f, AA_SCORE):
            ctx.emit(
                "air_strike",
                side=side,
                target=tid,
                point_to=at(t),
                hits=0,
                result="driven off",
                detail=f"{plane.name} is driven off by {m.id}'s anti-aircraft fire",
                changes=done,
            )
            return
    hits_by: dict[str, int] = {}
    weapon_of = {}
    for w in plane.weapons:
        faces = ctx.roll(
            w.dice,
            needed=w.to_hit,
            kind="air_attack",
            side=side,
            target=tid,
            detail=f"{plane.name} fires {w.name}: {w.dice} dice, {w.to_hit}+",
        )
        n = sum(f >= w.to_hit for f in faces)
        if n:
            key = f"{w.name} (AT {w.anti_tank}, FP {w.firepower}+)"
            hits_by[key] = n
            weapon_of[key] = w
    total = sum(hits_by.values())
    spread = allocate(hits_by, [m.id for m in clear]) if total else {}

    def one_hit(m: Model, tt: TeamType, key: str) -> str:
        w = weapon_of[key]
        return hit_team(
            rs,
            ctx,
            side,
            tid,
            m,
            anti_tank=w.anti_tank,
            firepower=w.firepower,
            origin=None,  # from above: top armour (ASSUMPTION, §10.7)
            bulletproof=in_bulletproof_cover(rs, m),
            note=f" ({plane.name})",
        )

    models, lost, bailed = resolve_hits(rs, ctx, tid, spread, one_hit)
    ch = losses_change(rs, st, tid, models, lost, bailed)
    left = [m for m in t.models if m.id not in lost]
    pinned = total >= PIN_HITS and left and not rs._is_tank(t)
    if pinned:
        ch += unit_change(tid, pinned=True)
    ctx.emit(
        "air_strike",
        side=side,
        target=tid,
        point_to=at(t),
        hits=total,
        result=("destroyed" if not left else f"{len(lost)} team(s) destroyed")
        + (", Pinned Down" if pinned else ""),
        detail=f"{plane.name} attacks {t.name}: {total} hit(s)",
        changes=ch + done,
    )
