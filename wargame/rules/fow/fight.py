"""Flames of War v3 Assault Step: the dice and the events of one assault.

The rules are in :mod:`.assault` (pure functions, with their sources and
ASSUMPTIONs); this module rolls through the game's logged generator and emits
the events, in the order of research/fow.md §1.4:

* :func:`assault`: the assaulting platoon declares its target; defensive fire
  (§4, stop-gap §10.5); the charge into contact; the attackers' assault hits;
  the counterattack test of the defending platoons;
* :func:`choose`: the defender's choice for a platoon that passed its
  counterattack test (``Counterattack`` or ``BreakOff``); once every such
  platoon has chosen, the counterattackers charge and strike, and the test
  passes to the other side, until one side is destroyed or breaks off (§1.4
  items 4-5).

While a choice is pending, ``state.vars["fight"]`` holds the assault:
``side`` (who struck last), ``strikers`` (its platoons), ``pending`` (the
defender's platoons still to choose) and ``counter`` (those that chose to
counterattack).  The defender decides (``FowRuleset.current_side``); its
choices are public (a counterattack is declared on the table), so nothing in
the state is one side's secret.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from wargame.engine import Model, Point, RuleContext, Unit, unit_change, var_change

from . import hq, rof
from .allocation import allocate
from .assault import (
    COUNTER_IN,
    DEFENSIVE_FIRE_IN,
    STRIKE_IN,
    assault_weapon,
    break_off_offset,
    can_fight,
    counterattack_results,
    defensive_fire_stops,
    gap_m,
    must_break_off,
    strike_score,
    strikers,
    within,
)
from .consolidate import open_consolidation
from .data import TeamType
from .dice import MOTIVATION_TEST, passes
from .moves import team_move
from .shooting import plan_shot

if TYPE_CHECKING:  # pragma: no cover
    from .ruleset import FowRuleset

__all__ = ["assault", "choose"]


def _with_pos(m: Model, xy: tuple[float, float]) -> Model:
    return Model(m.id, m.kind, m.wounds, Point(*xy), m.facing, m.radius_m, m.attrs)


def _enemy_models(rs: FowRuleset, st: Any, side: str) -> list[Model]:
    return [
        m
        for u in st.units.values()
        if u.side != side and rs._in_play(u)
        for m in u.models
        if isinstance(m.position, Point)
    ]


def _teams(rs: FowRuleset, u: Unit) -> list[tuple[Model, TeamType]]:
    return [(m, rs.team(m)) for m in u.models if isinstance(m.position, Point)]


def _point_of(models: tuple[Model, ...], old: Any) -> Any:
    """The platoon's point: its command team's (the first team) after a move."""
    if not models or not isinstance(models[0].position, Point):
        return old
    return models[0].position


# --------------------------------------------------------------------------- #
# declaring, defensive fire and the charge                                    #
# --------------------------------------------------------------------------- #


def assault(rs: FowRuleset, ctx: RuleContext, uid: str, tid: str) -> None:
    """Platoon ``uid`` assaults platoon ``tid`` (research/fow.md §1.4, §4)."""
    st = ctx.state
    u, t = st.units[uid], st.units[tid]
    ctx.emit(
        "assault",
        side=u.side,
        unit=uid,
        target=tid,
        result="charges",
        detail=f"{u.name} assaults {t.name}",
        changes=unit_change(uid, assaulted=True),
    )
    if _defensive_fire(rs, ctx, uid) or not rs._in_play(st.units[uid]):
        return
    if not rs._in_play(st.units[tid]):
        return
    _charge(rs, ctx, [uid], [tid])
    _round(rs, ctx, u.side, [uid])


def _defensive_fire(rs: FowRuleset, ctx: RuleContext, uid: str) -> bool:
    """Defending teams within 8" of the charging teams fire at the charging
    platoon with their normal shooting; ``True`` if 5 hits stop (and pin) the
    assault (research §4, [C: S16]; stop-gap §10.5, ASSUMPTION)."""
    st = ctx.state
    side = st.units[uid].side
    total = 0
    for did in sorted(st.units):
        u = st.units[uid]
        d = st.units[did]
        if d.side == side or not rs._in_play(d) or not rs._in_play(u):
            continue
        chargers = [m for m, tt in _teams(rs, u) if can_fight(m, tt)]
        shooters = [
            (m, rs.team(m))
            for m in d.models
            if isinstance(m.position, Point)
            and not m.attrs.get("bailed")
            and not m.attrs.get("bogged")
            and within(m, chargers, DEFENSIVE_FIRE_IN, rs.scale)
        ]
        if not shooters:
            continue
        plan = plan_shot(
            shooters,
            _teams(rs, u),
            target_skill=str(u.attrs["skill"]),
            moved=False,  # ASSUMPTION: defensive fire at the full (halted) ROF
            pinned=bool(d.attrs.get("pinned")),
            concealed_at=rs._concealed_at,
            gone_to_ground=False,  # the chargers are moving
            sees=rs._sees,
            metres_per_inch=rs.scale,
        )
        if not plan.shooters:
            continue
        from . import play

        hits_by, weapon_of, origin_of = play.roll_to_hit(
            ctx, d, uid, plan, kind="defensive_fire"
        )
        n = sum(hits_by.values())
        total += n
        spread = allocate(hits_by, list(plan.targets)) if n else {}

        def one_hit(
            m: Model,
            tt: TeamType,
            key: str,
            d: Unit = d,
            w: Any = weapon_of,
            o: Any = origin_of,
        ) -> str:
            return play._resolve_hit(rs, ctx, d.side, uid, m, w[key], o[key])

        models, lost, bailed = play.resolve_hits(rs, ctx, uid, spread, one_hit)
        ctx.emit(
            "defensive_fire",
            side=d.side,
            unit=did,
            target=uid,
            point_from=play.at(d),
            point_to=play.at(st.units[uid]),
            hits=n,
            result=f"{len(lost)} team(s) destroyed",
            detail=f"{d.name} fires defensively at {u.name}: {plan.dice} dice, "
            f"{n} hit(s)",
            changes=play.losses_change(rs, st, uid, models, lost, bailed),
        )
    u = st.units[uid]
    if rs._in_play(u) and defensive_fire_stops(total, rs._is_tank(u)):
        ctx.emit(
            "pinned",
            side=u.side,
            unit=uid,
            hits=total,
            result="Pinned Down: the assault is stopped",
            changes=unit_change(uid, pinned=True),
        )
        return True
    return False


def _charge(
    rs: FowRuleset, ctx: RuleContext, platoons: list[str], targets: list[str]
) -> None:
    """The teams of ``platoons`` charge into contact with the nearest team of
    ``targets`` within 4" (research §4, [C: S16])."""
    st = ctx.state
    enemy = [
        m for tid in targets if rs._in_play(st.units[tid]) for m in st.units[tid].models
    ]
    for uid in platoons:
        u = st.units[uid]
        if not rs._in_play(u):
            continue
        ends = rs.charge_plan(st, u, enemy)
        moved = tuple(_with_pos(m, ends[m.id]) if m.id in ends else m for m in u.models)
        ctx.emit(
            "charge",
            side=u.side,
            unit=uid,
            result=f"{sum(m.id in ends for m in u.models)} team(s) charge into contact",
            changes=unit_change(
                uid, models=moved, position=_point_of(moved, u.position)
            ),
        )


# --------------------------------------------------------------------------- #
# hits, the counterattack test, break off                                     #
# --------------------------------------------------------------------------- #


def _strike(rs: FowRuleset, ctx: RuleContext, side: str, platoons: list[str]) -> int:
    """The assault hits of ``platoons``' teams within 2" of an enemy team (a
    Skill test each, research §4, [B: S8 part 16]) and their saves; returns
    the hits."""
    st = ctx.state
    enemy = _enemy_models(rs, st, side)
    hits_by: dict[str, int] = {}
    profile: dict[str, tuple[int, int]] = {}
    where: list[Model] = []
    for uid in platoons:
        u = st.units[uid]
        if not rs._in_play(u):
            continue
        # teams that fired above ROF 1 this turn take no part (rof.py, §3.1)
        out = rof.barred(u)
        who = [
            mid for mid in strikers(_teams(rs, u), enemy, rs.scale) if mid not in out
        ]
        if not who:
            continue
        score = strike_score(str(u.attrs["skill"]))
        faces = ctx.roll(
            len(who),
            needed=score,
            kind="assault_hit",
            side=side,
            unit=uid,
            detail=f'{u.name}: {len(who)} team(s) within 2", Skill {score}+',
        )
        by_id = {m.id: m for m in u.models}
        for mid, f in zip(who, faces, strict=True):
            where.append(by_id[mid])
            if passes(f, score):
                at, fp = assault_weapon(rs.team(by_id[mid]))
                key = f"assault (AT {at}, FP {fp}+)"
                hits_by[key] = hits_by.get(key, 0) + 1
                profile[key] = (at, fp)
    total = sum(hits_by.values())
    if not total:
        return 0
    # the defender allocates among its teams within 2" of a striker, nearest
    # first (ASSUMPTION, as shooting's automated owner)
    reach = STRIKE_IN * rs.scale + 1e-6
    near = sorted((min(gap_m(m, s) for s in where), m.id) for m in enemy)
    candidates = [mid for g, mid in near if g <= reach]
    if not candidates:  # pragma: no cover - a striker is within 2" of one
        return total
    owner = {
        m.id: uid
        for uid, u in st.units.items()
        if u.side != side and rs._in_play(u)
        for m in u.models
    }
    spread = allocate(hits_by, candidates)
    for tid in sorted({owner[mid] for mid in candidates}):
        mine = {
            key: {mid: n for mid, n in per.items() if owner[mid] == tid}
            for key, per in spread.items()
        }
        n = sum(sum(per.values()) for per in mine.values())
        if not n:
            continue

        def one_hit(m: Model, tt: TeamType, key: str, tid: str = tid) -> str:
            return _assault_hit(rs, ctx, side, tid, m, *profile[key])

        from . import play

        models, lost, bailed = play.resolve_hits(rs, ctx, tid, mine, one_hit)
        t = st.units[tid]
        ctx.emit(
            "assault_losses",
            side=t.side,
            unit=tid,
            hits=n,
            result=f"{len(lost)} team(s) destroyed",
            detail=f"{t.name} takes {n} assault hit(s)",
            changes=play.losses_change(rs, st, tid, models, lost, bailed),
        )
    return total


def _assault_hit(
    rs: FowRuleset,
    ctx: RuleContext,
    side: str,
    tid: str,
    m: Model,
    anti_tank: int,
    firepower: int,
) -> str:
    """One assault hit: a tank by its top armour (stop-gap §10.5), other teams
    by their save with no cover (ASSUMPTION, :mod:`.assault`)."""
    from . import play

    return play.hit_team(
        rs,
        ctx,
        side,
        tid,
        m,
        anti_tank=anti_tank,
        firepower=firepower,
        origin=None,
        bulletproof=False,
        at_words="assault AT",
    )


def _round(rs: FowRuleset, ctx: RuleContext, side: str, platoons: list[str]) -> None:
    """One round: ``platoons`` of ``side`` strike; then the enemy platoons
    within 4" take the counterattack test (research §1.4 items 3-4)."""
    st = ctx.state
    hits = _strike(rs, ctx, side, platoons)
    ours = [
        m
        for uid in platoons
        if rs._in_play(st.units[uid])
        for m in st.units[uid].models
    ]
    defenders = [
        did
        for did in sorted(st.units)
        if st.units[did].side != side
        and rs._in_play(st.units[did])
        and any(within(m, ours, COUNTER_IN, rs.scale) for m in st.units[did].models)
    ]
    if not defenders:
        _won(rs, ctx, side, platoons)
        return
    other = st.units[defenders[0]].side
    mot = {did: str(st.units[did].attrs["motivation"]) for did in defenders}
    if hits:
        (face,) = ctx.roll(
            1,
            kind="counterattack",
            side=other,
            detail="one die for every defending platoon against its Motivation",
        )
        passed = counterattack_results(face, mot)
        # a failed die is re-rolled once for the platoons the company command
        # team has joined (research §1.1; hq.py H3)
        helped = [
            did
            for did in defenders
            if not passed[did] and hq.joined_by(rs, st, st.units[did])
        ]
        if helped:
            (again,) = ctx.roll(
                1,
                kind="counterattack_reroll",
                side=other,
                detail="re-rolled for "
                + ", ".join(st.units[d].name for d in helped)
                + ": the company command team has joined",
            )
            for did in helped:
                passed[did] = passes(again, MOTIVATION_TEST[mot[did]])
    else:  # no hits: passed automatically (research §4, [A: S1, S4])
        passed = counterattack_results(1, mot, attackers_hit=False)
    pending: list[str] = []
    for did in defenders:
        d = st.units[did]
        forced = must_break_off(_teams(rs, d), _enemy_models(rs, st, d.side), rs.scale)
        # independent teams (the company command team) always break off
        # rather than counterattack, whatever the die (research §4, [A: S4])
        independent = hq.is_company_command(d)
        ok = passed[did] and not forced and not independent
        ctx.emit(
            "counterattack",
            side=other,
            unit=did,
            result="passed" if ok else "failed",
            detail=f"{d.name} "
            + (
                "must break off: an independent team (research §4, S4)"
                if independent
                else "must break off: unarmoured tanks (research §4, S4)"
                if forced
                else ("may counterattack" if ok else "fails and must break off")
            )
            + ("" if hits else " (the attackers scored no hit)"),
        )
        if ok:
            pending.append(did)
        else:
            _break_off(rs, ctx, did)
    if not pending:
        _won(rs, ctx, side, platoons)
        return
    ctx.emit(
        "step",
        side=other,
        result="counterattack or break off",
        changes=var_change(
            fight={
                "side": side,
                "strikers": list(platoons),
                "pending": pending,
                "counter": [],
            }
        ),
    )


def _break_off(rs: FowRuleset, ctx: RuleContext, uid: str) -> None:
    """Platoon ``uid`` breaks off: each team 6" straight away from the nearest
    enemy team; a team that cannot is destroyed (ASSUMPTIONs, :mod:`.assault`)."""
    st = ctx.state
    u = st.units[uid]
    enemy = _enemy_models(rs, st, u.side)
    from .bridges import standing

    bridges = standing(rs, st)
    left: list[Model] = []
    lost = 0
    for m in u.models:
        t = rs.team(m)
        if m.attrs.get("bailed") or m.attrs.get("bogged"):
            lost += 1
            continue
        dx, dy = break_off_offset(m, enemy, rs.scale)
        if dx == 0.0 and dy == 0.0:  # no enemy left to break off from
            left.append(m)
            continue
        tm = team_move(rs.map, m, t, dx, dy, metres_per_inch=rs.scale, bridges=bridges)
        if tm.going == "impassable" or tm.allowance_m <= 0:
            lost += 1
            continue
        left.append(_with_pos(m, tm.end))
    models = tuple(left)
    ch = unit_change(uid, models=models, position=_point_of(models, u.position))
    if lost:
        ch += unit_change(uid, lost_step=int(u.attrs.get("lost_step", 0)) + lost)
    if not models:
        ch += unit_change(uid, strength="destroyed")
    ctx.emit(
        "break_off",
        side=u.side,
        unit=uid,
        result="breaks off"
        + (f", {lost} team(s) that could not are destroyed" if lost else ""),
        detail=f'{u.name} breaks off 6" away from the enemy',
        changes=ch,
    )


def _won(rs: FowRuleset, ctx: RuleContext, side: str, platoons: list[str]) -> None:
    """The assault is over: ``side`` holds the field, and its platoons that
    struck last may consolidate up to 4" (research §1.4 item 6;
    :mod:`.consolidate`, ASSUMPTIONs C1-C6): each then chooses
    ``Consolidate(unit, to)`` or holds its ground."""
    st = ctx.state
    names = [st.units[p].name for p in platoons if rs._in_play(st.units[p])]
    opened = open_consolidation(rs, ctx, platoons)
    ctx.emit(
        "consolidate",
        side=side,
        unit=platoons[0] if platoons else None,
        result="wins the assault",
        detail=(", ".join(names) or st.sides[side].name)
        + " win the assault"
        + (" and may consolidate" if opened else " and hold their ground"),
        changes=(var_change(fight=None) if st.vars.get("fight") is not None else ())
        + opened,
    )


# --------------------------------------------------------------------------- #
# the defender's choice                                                       #
# --------------------------------------------------------------------------- #


def choose(rs: FowRuleset, ctx: RuleContext, uid: str, counter: bool) -> None:
    """The defender's choice for platoon ``uid``: counterattack or break off
    (research §4, [A: S1, S4])."""
    st = ctx.state
    fight = dict(st.vars["fight"])
    pending = [p for p in fight["pending"] if p != uid]
    chosen = list(fight["counter"]) + ([uid] if counter else [])
    if not counter:
        _break_off(rs, ctx, uid)
    else:
        ctx.emit(
            "counterattack",
            side=st.units[uid].side,
            unit=uid,
            result="counterattacks",
        )
    if pending:
        ctx.emit(
            "step",
            side=st.units[uid].side,
            changes=var_change(fight={**fight, "pending": pending, "counter": chosen}),
        )
        return
    ctx.emit("step", side=st.units[uid].side, changes=var_change(fight=None))
    attackers = [p for p in fight["strikers"] if rs._in_play(st.units[p])]
    chosen = [p for p in chosen if rs._in_play(st.units[p])]
    if not chosen:
        _won(rs, ctx, str(fight["side"]), attackers)
        return
    side = st.units[chosen[0]].side
    if not attackers:  # pragma: no cover - the strikers are in the fight
        _won(rs, ctx, side, chosen)
        return
    _charge(rs, ctx, chosen, attackers)
    _round(rs, ctx, side, chosen)
