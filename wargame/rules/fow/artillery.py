"""Flames of War v3 bombardments: ranging in, the template, the hits.

The rules, in our own words (research/fow.md §3.8, S3 [A], unless marked):

1. **Who fires**: a platoon's teams with a bombardment weapon (``bombardment
   = true`` in ``data/teams.toml``) that are not Bailed Out or Bogged Down and
   have the aiming point in range.  ASSUMPTION (the brief's reading; the
   sources read do not say): a platoon that moved this turn may not bombard.
   It bombards *instead of* shooting directly (it has fired this step).
2. **A spotter**: ASSUMPTION: any team of the firing platoon (its command team
   included) that is not Bailed Out and sees the aiming point (the point line
   of sight to a team-high mark there).  The +1 for a company command or HQ
   spotter (§3.8) is not used: the scenarios have no company command teams.
3. **Ranging in**: up to 3 attempts, each one die needing the *target's* score
   to be hit (Conscript 2+, Trained 3+, Veteran 4+), +1 if the target is
   Concealed, +1 more if it is also Gone to Ground.  ASSUMPTION: the target is
   the enemy platoon with the team nearest the aiming point, Concealed when that
   team is (its terrain, or smoke between it and the spotter).  Three misses:
   nothing lands.
4. **The template** by guns firing (the table of §3.8): 1–2 guns 6"×6", re-roll
   hits (a hit must be rolled again and the second result stands); 3–5 6"×6";
   6–8 6"×6" re-roll misses, or 12"×6"; 9–13 12"×6" re-roll misses, or
   12"×12"; 14+ 12"×12" re-roll misses.  ASSUMPTION: the smaller template with
   re-rolled misses unless the player asks for the wide one
   (``Bombard(..., wide=True)``).  Centred on the aiming point, turned to the
   line of fire (:mod:`.smoke`).
5. **Hits**: one die per enemy team under the template, needing the *firing*
   platoon's Skill-test number (Veteran 3+, Trained 4+, Conscript 5+;
   ASSUMPTION, research §3.8 and the §10.7 stop-gap).  ASSUMPTION: only enemy
   teams are rolled for (no friendly fire).
6. **Saves** (research §10.7 stop-gap, ASSUMPTION): as for shooting — normal
   saves, the Firepower test after a failed save in Bulletproof Cover — but a
   tank uses its **top** armour against the weapon's AT.  Hits count toward the
   5 hits that Pin Down a platoon in this Shooting Step (§3.6).
7. **Smoke** (research §10.4 stop-gap, ASSUMPTION): a platoon whose weapon can
   fire smoke (its line notes "smoke bombardment") may range in the same way
   and lay a smoke template instead of rolling hits (:mod:`.smoke`).
   ASSUMPTION: once per game per platoon (the sources read are silent; it keeps
   a player from smoking every turn).

The exact odds come from the same rules: :func:`ranging_pmf`,
:func:`p_ranged_in`, :func:`bombard_pmf`, :func:`bombard_odds`.

Examples:
    >>> template_size(2)
    TemplateSize(across_in=6.0, along_in=6.0, reroll='hits')
    >>> template_size(7, wide=True)
    TemplateSize(across_in=12.0, along_in=6.0, reroll=None)
    >>> p_ranged_in(ranging_score("trained", concealed=True, gone_to_ground=False))
    Fraction(7, 8)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Final

import pandas as pd

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

from .data import TeamType, Weapon
from .dice import MOTIVATION_TEST, SKILL_TEST, TO_BE_HIT, _int, p_success, passes
from .rof import mark_all
from .smoke import BOMBARDED_VAR, SMOKE_VAR, Template, landed, markers, smoke_between

if TYPE_CHECKING:  # pragma: no cover
    from .ruleset import FowRuleset

__all__ = [
    "EVENT_KINDS",
    "RANGING_ATTEMPTS",
    "Bombard",
    "BombardPlan",
    "TemplateSize",
    "bombard_actions",
    "bombard_odds",
    "bombard_plan",
    "bombard_pmf",
    "bombard_weapon",
    "bombardment",
    "hits_after_reroll",
    "p_bombard_hit",
    "p_ranged_in",
    "ranging_odds",
    "ranging_pmf",
    "ranging_score",
    "template_size",
]

#: Ranging-in attempts a bombardment may make (research/fow.md §3.8, S3 [A]).
RANGING_ATTEMPTS: Final = 3
#: Height of the mark at the aiming point a spotter must see (m).  ASSUMPTION:
#: a team's height, as a shooter sees an infantry team (ruleset.sight_options).
AIM_MARK_M: Final = 1.6
#: Events of bombardments and smoke (added to ``FowRuleset.event_kinds``).
EVENT_KINDS: Final = (
    "range_in",
    "bombard_hit",
    "bombard_reroll",
    "bombard",
    "smoke",
    "smoke_cleared",
)


@dataclass(frozen=True)
class Bombard(Action):
    """A platoon bombards the aiming point ``at`` (research/fow.md §3.8):
    high explosive, or ``smoke=True`` a smoke template; ``wide=True`` takes the
    larger template of the 6–13 gun rows instead of re-rolled misses."""

    type = "bombard"
    unit: str
    at: Point
    smoke: bool = False
    wide: bool = False


# --------------------------------------------------------------------------- #
# the tables and the exact odds                                               #
# --------------------------------------------------------------------------- #


@dataclass(frozen=True)
class TemplateSize:
    """A template's width across and depth along the line of fire (inches)
    and its re-roll: ``"hits"``, ``"misses"`` or ``None``."""

    across_in: float
    along_in: float
    reroll: str | None


#: (fewest guns, most guns, (default, wide option)) - research/fow.md §3.8.
_TEMPLATES: Final[tuple[tuple[int, int, tuple[TemplateSize, ...]], ...]] = (
    (1, 2, (TemplateSize(6.0, 6.0, "hits"),)),
    (3, 5, (TemplateSize(6.0, 6.0, None),)),
    (6, 8, (TemplateSize(6.0, 6.0, "misses"), TemplateSize(12.0, 6.0, None))),
    (9, 13, (TemplateSize(12.0, 6.0, "misses"), TemplateSize(12.0, 12.0, None))),
    (14, 10**6, (TemplateSize(12.0, 12.0, "misses"),)),
)


def template_size(guns: int, *, wide: bool = False) -> TemplateSize:
    """The template and re-roll of ``guns`` guns firing (research §3.8 table).

    Raises:
        ValueError: fewer than one gun, or ``wide`` where the row has no wide
            template (1–5 and 14+ guns).

    Examples:
        >>> template_size(4)
        TemplateSize(across_in=6.0, along_in=6.0, reroll=None)
        >>> template_size(14)
        TemplateSize(across_in=12.0, along_in=12.0, reroll='misses')
    """
    n = _int("guns", guns, 1)
    for lo, hi, options in _TEMPLATES:
        if lo <= n <= hi:
            if wide and len(options) < 2:
                raise ValueError(
                    f"{n} gun(s) have no wide template (only 6-13 guns choose, "
                    "research/fow.md §3.8)"
                )
            return options[1] if wide else options[0]
    raise AssertionError("unreachable")  # pragma: no cover


def ranging_score(
    target_skill: str,
    *,
    concealed: bool,
    gone_to_ground: bool,
    hq_spotter: bool = False,
) -> int:
    """The score to range in: the target's to-hit number, +1 Concealed, +1
    Gone to Ground (only with Concealed), +1 for a company command or HQ
    spotter (research §3.8, S3 [A]).

    >>> ranging_score("veteran", concealed=True, gone_to_ground=True)
    6
    """
    gtg = concealed and gone_to_ground
    return TO_BE_HIT[target_skill] + int(concealed) + int(gtg) + int(hq_spotter)


def ranging_pmf(score: int, attempts: int = RANGING_ATTEMPTS) -> dict[int, Fraction]:
    """Exact P(ranged in on attempt k), k = 1..``attempts``, and ``0`` = never.

    >>> ranging_pmf(4)
    {1: Fraction(1, 2), 2: Fraction(1, 4), 3: Fraction(1, 8), 0: Fraction(1, 8)}
    """
    p = p_success(score)
    n = _int("attempts", attempts, 1)
    out = {k: (1 - p) ** (k - 1) * p for k in range(1, n + 1)}
    out[0] = (1 - p) ** n
    return out


def p_ranged_in(score: int, within: int = RANGING_ATTEMPTS) -> Fraction:
    """Exact P(ranging in within ``within`` attempts) = 1 - (1 - p)^within.

    >>> p_ranged_in(4, 1), p_ranged_in(4, 2), p_ranged_in(7)
    (Fraction(1, 2), Fraction(3, 4), Fraction(0, 1))
    """
    return 1 - (1 - p_success(score)) ** _int("within", within, 0)


def ranging_odds(score: int) -> pd.Series:
    """:func:`ranging_pmf` as floats, index ``attempt`` (1, 2, 3; 0 = never).

    >>> ranging_odds(4).tolist()
    [0.5, 0.25, 0.125, 0.125]
    """
    pmf = ranging_pmf(score)
    s = pd.Series(
        [float(v) for v in pmf.values()],
        index=pd.Index(list(pmf), name="attempt"),
        name="p",
    )
    s.attrs.update(score=int(score))
    return s


def p_bombard_hit(score: int, reroll: str | None = None) -> Fraction:
    """One team under the template: P(hit) with the template's re-roll.

    Re-roll hits: a hit is rolled again and the second result stands, so p².
    Re-roll misses: p + (1 - p)p (seed 004 p. 20 re-roll rule; research §3.8).

    >>> p_bombard_hit(4, "hits"), p_bombard_hit(4), p_bombard_hit(4, "misses")
    (Fraction(1, 4), Fraction(1, 2), Fraction(3, 4))
    """
    p = p_success(score)
    if reroll == "hits":
        return p * p
    if reroll == "misses":
        return p + (1 - p) * p
    if reroll is not None:
        raise ValueError(f"reroll must be 'hits', 'misses' or None, got {reroll!r}")
    return p


def bombard_pmf(
    teams_under: int,
    score: int,
    reroll: str | None = None,
    *,
    ranging: int | None = None,
) -> tuple[Fraction, ...]:
    """Exact P(hits = k), k = 0..``teams_under``: one die per team; with
    ``ranging`` (the ranging-in score), weighted by P(ranging in within 3).

    >>> bombard_pmf(2, 4)
    (Fraction(1, 4), Fraction(1, 2), Fraction(1, 4))
    >>> bombard_pmf(1, 4, ranging=4)
    (Fraction(9, 16), Fraction(7, 16))
    """
    n = _int("teams_under", teams_under, 0)
    p = p_bombard_hit(score, reroll)
    pmf = [math.comb(n, k) * p**k * (1 - p) ** (n - k) for k in range(n + 1)]
    if ranging is not None:
        r = p_ranged_in(ranging)
        pmf = [r * v for v in pmf]
        pmf[0] += 1 - r
    return tuple(pmf)


def bombard_odds(
    teams_under: int,
    score: int,
    reroll: str | None = None,
    *,
    ranging: int | None = None,
) -> pd.Series:
    """:func:`bombard_pmf` as floats, index ``hits`` (like ``odds.hit_odds``).

    >>> bombard_odds(3, 4, "misses", ranging=3).round(4).tolist()
    [0.0521, 0.1354, 0.4062, 0.4062]
    """
    pmf = bombard_pmf(teams_under, score, reroll, ranging=ranging)
    s = pd.Series(
        [float(v) for v in pmf], index=pd.RangeIndex(len(pmf), name="hits"), name="p"
    )
    s.attrs.update(
        teams_under=int(teams_under), score=int(score), reroll=reroll, ranging=ranging
    )
    return s


def hits_after_reroll(
    faces: Sequence[int], score: int, reroll: str | None, again: Sequence[int]
) -> list[bool]:
    """Which dice hit, in order: ``again`` holds one face per re-rolled die
    (each hit for ``"hits"``, each miss for ``"misses"``), the second result
    standing (seed 004 p. 20).

    >>> hits_after_reroll([4, 2, 6], 4, "hits", [1, 5])
    [False, False, True]
    >>> hits_after_reroll([4, 2, 6], 4, "misses", [5])
    [True, True, True]
    """
    first = [passes(f, score) for f in faces]
    if reroll is None:
        return first
    turn = list(first) if reroll == "hits" else [not h for h in first]
    want = sum(turn)
    if len(again) != want:
        raise ValueError(f"{want} die/dice to re-roll, got {len(again)} face(s)")
    it = iter(again)
    return [
        passes(next(it), score) if t else h for h, t in zip(first, turn, strict=True)
    ]


# --------------------------------------------------------------------------- #
# the plan: who fires, who spots, at whom, what lies under                    #
# --------------------------------------------------------------------------- #


def bombard_weapon(t: TeamType) -> Weapon | None:
    """The team's bombardment weapon line (``None``: it has none)."""
    return next((w for w in t.weapons if w.bombardment), None)


def _smoke_weapon(w: Weapon) -> bool:
    return any("smoke" in n for n in w.notes)


@dataclass(frozen=True)
class BombardPlan:
    """Everything fixed before the dice of a bombardment."""

    guns: tuple[str, ...]
    weapon: Weapon
    spotter: str
    target: str
    ranging: int
    concealed: bool
    gone_to_ground: bool
    size: TemplateSize
    template: Template
    under: tuple[tuple[str, str], ...]
    to_hit: int


def _xy(m: Model) -> tuple[float, float]:
    p = m.position
    assert isinstance(p, Point)
    return float(p.x), float(p.y)


def bombard_plan(
    rs: FowRuleset,
    state: GameState,
    u: Unit,
    at: Point,
    *,
    smoke: bool = False,
    wide: bool = False,
) -> tuple[str | None, BombardPlan | None]:
    """``(problem, plan)``: why ``u`` may not bombard ``at`` (``None``: it may)
    and what it would roll (module docstring, rules 1-5)."""
    if not (math.isfinite(at.x) and math.isfinite(at.y)):
        return f"the aiming point ({at.x}, {at.y}) is not a finite point", None
    if u.attrs.get("moved"):
        return (
            f"{u.id} moved this turn; a platoon bombards only if it did not move "
            "(ASSUMPTION, research/fow.md §3.8)",
            None,
        )
    able = [
        (m, w)
        for m in u.models
        if isinstance(m.position, Point)
        and not m.attrs.get("bailed")
        and not m.attrs.get("bogged")
        and (w := bombard_weapon(rs.team(m))) is not None
    ]
    if not able:
        return f"no team of {u.id} can fire a bombardment (research/fow.md §3.8)", None
    a = (float(at.x), float(at.y))
    guns = [(m, w) for m, w in able if math.dist(_xy(m), a) <= w.range_in * rs.scale]
    if not guns:
        reach = max(w.range_in for _, w in able)
        return (
            f'the aiming point ({a[0]:.0f}, {a[1]:.0f}) is beyond the {reach:g}" '
            f"range of every bombarding team of {u.id} (research/fow.md §3.8)",
            None,
        )
    weapon = guns[0][1]
    if smoke:
        if not _smoke_weapon(weapon):
            return f"{weapon.name} of {u.id} cannot fire smoke (data/teams.toml)", None
        if u.attrs.get("smoke_used"):
            return (
                f"{u.id} fired its smoke bombardment already (once per game, "
                "ASSUMPTION, research/fow.md §10.4)",
                None,
            )
    spotter = next(
        (
            m
            for m in u.models
            if isinstance(m.position, Point)
            and not m.attrs.get("bailed")
            and rs._sees(_xy(m), a, rs.team(m).eye_height_m, AIM_MARK_M)
        ),
        None,
    )
    if spotter is None:
        return (
            f"no team of {u.id} sees the aiming point ({a[0]:.0f}, {a[1]:.0f}) to "
            "spot for the bombardment (ASSUMPTION, research/fow.md §3.8)",
            None,
        )
    enemy = [
        (t, m)
        for t in state.units.values()
        if t.side != u.side and rs._in_play(t)
        for m in t.models
        if isinstance(m.position, Point)
    ]
    if not enemy:
        return "no enemy platoon on the table to range in on", None
    target, nearest = min(enemy, key=lambda tm: (math.dist(_xy(tm[1]), a), tm[1].id))
    marks = markers(state)
    where = _xy(nearest)
    concealed = rs._concealed_at(*where) or smoke_between(marks, _xy(spotter), where)
    gtg = bool(target.attrs.get("gone_to_ground"))
    score = ranging_score(
        str(target.attrs["skill"]), concealed=concealed, gone_to_ground=gtg
    )
    try:
        size = template_size(len(guns), wide=wide)
    except ValueError as exc:
        return str(exc), None
    origin = u.position if isinstance(u.position, Point) else guns[0][0].position
    assert isinstance(origin, Point)
    bearing = math.degrees(math.atan2(a[0] - origin.x, a[1] - origin.y)) % 360
    tpl = Template(
        a[0], a[1], bearing, size.across_in * rs.scale, size.along_in * rs.scale
    )
    under = tuple(
        (t.id, m.id)
        for t, m in sorted(enemy, key=lambda tm: (tm[0].id, tm[1].id))
        if tpl.covers(*_xy(m), m.radius_m)
    )
    plan = BombardPlan(
        guns=tuple(m.id for m, _ in guns),
        weapon=weapon,
        spotter=spotter.id,
        target=target.id,
        ranging=score,
        concealed=concealed,
        gone_to_ground=concealed and gtg,
        size=size,
        template=tpl,
        under=under,
        to_hit=SKILL_TEST[str(u.attrs["skill"])],
    )
    return None, plan


def bombard_actions(rs: FowRuleset, state: GameState, u: Unit) -> list[Bombard]:
    """A few bombardments to offer ``u``: one per enemy platoon, aimed at the
    team of it that puts the most enemy teams under the template (and smoke on
    the same point, if it can fire smoke)."""
    if u.attrs.get("moved") or not any(
        bombard_weapon(rs.team(m)) is not None for m in u.models
    ):
        return []
    out: list[Bombard] = []
    for t in sorted(state.units.values(), key=lambda v: v.id):
        if t.side == u.side or not rs._in_play(t):
            continue
        best: tuple[int, Point] | None = None
        for m in t.models:
            p = m.position
            if not isinstance(p, Point):
                continue
            aim = Point(round(float(p.x), 1), round(float(p.y), 1))
            why, plan = bombard_plan(rs, state, u, aim)
            if why is None and plan is not None:
                n = len(plan.under)
                if best is None or n > best[0]:
                    best = (n, aim)
        if best is None:
            continue
        out.append(Bombard(u.id, best[1]))
        if bombard_plan(rs, state, u, best[1], smoke=True)[0] is None:
            out.append(Bombard(u.id, best[1], smoke=True))
    return out


# --------------------------------------------------------------------------- #
# the dice                                                                    #
# --------------------------------------------------------------------------- #


def _hit_on(
    rs: FowRuleset, ctx: RuleContext, side: str, tid: str, m: Model, w: Weapon
) -> str:
    """One bombardment hit: top armour against AT, or the save (rule 6)."""
    from .play import hit_team, in_bulletproof_cover

    return hit_team(
        rs,
        ctx,
        side,
        tid,
        m,
        anti_tank=w.anti_tank,
        firepower=w.firepower,
        origin=None,
        bulletproof=in_bulletproof_cover(rs, m),
        note=" (bombardment)",
    )


def bombardment(rs: FowRuleset, ctx: RuleContext, action: Bombard) -> None:
    """Platoon ``action.unit`` bombards ``action.at`` (module docstring)."""
    from .play import _with, at

    st = ctx.state
    u = st.units[action.unit]
    side = u.side
    why, plan = bombard_plan(rs, st, u, action.at, smoke=action.smoke, wide=action.wide)
    assert why is None and plan is not None, why
    # its teams may not charge this turn (rof.py, R2)
    fired = unit_change(u.id, fired=True) + mark_all(u)
    ranged = 0
    for k in range(1, RANGING_ATTEMPTS + 1):
        (f,) = ctx.roll(
            1,
            needed=plan.ranging,
            kind="range_in",
            side=side,
            unit=u.id,
            target=plan.target,
            detail=f"ranging in, attempt {k}: {plan.ranging}+ (spotter {plan.spotter})",
        )
        if passes(f, plan.ranging):
            ranged = k
            break
    what = "smoke" if action.smoke else plan.weapon.name
    if not ranged:
        ctx.emit(
            "bombard",
            side=side,
            unit=u.id,
            target=plan.target,
            point_from=at(u),
            point_to=action.at,
            hits=0,
            result="failed to range in",
            detail=f"{u.name} fails to range in {what} on {plan.target}",
            changes=fired
            + (unit_change(u.id, smoke_used=True) if action.smoke else ()),
        )
        return
    if action.smoke:
        marks = (*markers(st), plan.template.marker(side, u.id))
        ctx.emit(
            "smoke",
            side=side,
            unit=u.id,
            target=plan.target,
            point_to=action.at,
            result=f"smoke laid (ranged in on attempt {ranged})",
            detail=f"{u.name} lays a smoke template",
            changes=fired
            + unit_change(u.id, smoke_used=True)
            + var_change(**{SMOKE_VAR: marks}),
        )
        return
    n = len(plan.under)
    faces = (
        ctx.roll(
            n,
            needed=plan.to_hit,
            kind="bombard_hit",
            side=side,
            unit=u.id,
            target=plan.target,
            detail=f'{len(plan.guns)} gun(s), {plan.size.across_in:g}"x'
            f'{plan.size.along_in:g}" template, one die per team under it, '
            f"{plan.to_hit}+",
        )
        if n
        else ()
    )
    reroll = plan.size.reroll
    first = [passes(f, plan.to_hit) for f in faces]
    turn = sum(first) if reroll == "hits" else n - sum(first) if reroll else 0
    again = (
        ctx.roll(
            turn,
            needed=plan.to_hit,
            kind="bombard_reroll",
            side=side,
            unit=u.id,
            target=plan.target,
            detail=f"re-roll {reroll}",
        )
        if turn
        else ()
    )
    hit = hits_after_reroll(faces, plan.to_hit, reroll, again)
    by_platoon: dict[str, list[str]] = {}
    for (tid, mid), h in zip(plan.under, hit, strict=True):
        if h:
            by_platoon.setdefault(tid, []).append(mid)
    changes: list[Any] = list(fired)
    lost_total = 0
    for tid, mids in sorted(by_platoon.items()):
        t = st.units[tid]
        models = {m.id: m for m in t.models}
        lost: set[str] = set()
        for mid in mids:
            m = models[mid]
            result = _hit_on(rs, ctx, side, tid, m, plan.weapon)
            if result == "destroyed":
                lost.add(mid)
            elif result == "bailed out":
                if m.attrs.get("bailed"):  # bailed again (research §3.5)
                    mot = MOTIVATION_TEST[str(t.attrs["motivation"])]
                    (f,) = ctx.roll(
                        1, needed=mot, kind="save", side=t.side, unit=tid, target=mid
                    )
                    if not passes(f, mot):
                        lost.add(mid)
                else:
                    models[mid] = _with(m, bailed=True)
        left = tuple(models[m.id] for m in t.models if m.id not in lost)
        steps = int(t.attrs.get("hits_step", 0)) + len(mids)
        changes += unit_change(tid, models=left, hits_step=steps)
        if not left:
            changes += unit_change(tid, strength="destroyed")
        lost_total += len(lost)
    total = sum(hit)
    ctx.emit(
        "bombard",
        side=side,
        unit=u.id,
        target=plan.target,
        point_from=at(u),
        point_to=action.at,
        hits=total,
        result=f"{total} hit(s), {lost_total} team(s) destroyed",
        detail=f"{u.name} bombards with {what} (ranged in on attempt {ranged}): "
        f"{n} team(s) under the template",
        changes=tuple(changes)
        # where it landed stays drawn until the firing side's next turn (smoke.py)
        + var_change(
            **{BOMBARDED_VAR: (*landed(st), plan.template.marker(side, u.id))}
        ),
    )
