"""Flames of War v3: what each action and step does to the state (events).

Read with :mod:`.ruleset` (what is legal) — this module rolls the dice (through
the game's logged generator) and emits the events:

* :func:`start_turn`: the Starting Step in its order (research/fow.md §1.1):
  sole survivors and company morale (:mod:`.morale`), objectives taken,
  ambushes (item 4: the step waits for ``Reveal`` or ``Next`` while the side
  has a platoon hidden, :mod:`.ambush`; :func:`finish_start` goes on), air
  support (:mod:`.air`), reserves, rally, remount, free bogged teams, smoke
  removed; then the Movement Step;
* :func:`move`: a platoon's move with its bogging checks;
* :func:`shoot`: one platoon's shooting, from the dice to hit to the saves;
* :func:`next_step`: Movement → Shooting (Pinned Down, air support, then
  platoon morale at its end) → Assault (:mod:`.fight`; platoon morale at its
  end) → the other side's turn, and the end of the game.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from wargame.engine import (
    GameState,
    Model,
    Point,
    RuleContext,
    Unit,
    state_change,
    unit_change,
    var_change,
)
from wargame.engine.state import Change, control_change

from . import air, rof
from .allocation import allocate
from .ambush import hidden_platoons
from .bridges import demolitions_step
from .data import TeamType, Weapon
from .dice import MOTIVATION_TEST, SKILL_TEST, passes
from .hq import motivation_test
from .morale import company_morale, platoon_morale, sole_survivors
from .moves import command_radius_m, out_of_command
from .odds import armour_result, penetrates, save_result
from .reserves import arrivals
from .shooting import PIN_HITS, ShotPlan, facing_armour
from .smoke import clear_smoke

if TYPE_CHECKING:  # pragma: no cover
    from .ruleset import FowRuleset

__all__ = ["end_shooting", "finish_start", "move", "next_step", "shoot", "start_turn"]

#: An objective is taken by teams within 4" (research/fow.md §5, S7 [A]).
OBJECTIVE_IN = 4.0
#: Map classes where a team is in Bulletproof Cover (research §3.4: walls and
#: buildings; ASSUMPTION: every built-up area).
BULLETPROOF = ("town",)


def at(u: Unit) -> Point | None:
    """A platoon's point (``None`` off the table): for the events' places."""
    return u.position if isinstance(u.position, Point) else None


def _with(m: Model, **attrs: object) -> Model:
    """The model with some attrs set (``None`` removes one)."""
    new = {k: v for k, v in m.attrs.items() if k not in attrs}
    new.update({k: v for k, v in attrs.items() if v is not None})
    return Model(m.id, m.kind, m.wounds, m.position, m.facing, m.radius_m, new)


# --------------------------------------------------------------------------- #
# the Starting Step                                                           #
# --------------------------------------------------------------------------- #


def _objectives(rs: FowRuleset, ctx: RuleContext, side: str) -> None:
    """Take objectives: teams within 4" and no enemy team there (research §5)."""
    st = ctx.state
    reach = OBJECTIVE_IN * rs.scale
    for name, (p, _) in rs.objectives.items():
        near: set[str] = set()
        for u in st.units.values():
            if not rs._in_play(u):
                continue
            for m in u.models:
                q = m.position
                if (
                    isinstance(q, Point)
                    and not m.attrs.get("bailed")
                    and not m.attrs.get("bogged")
                    and math.hypot(q.x - p.x, q.y - p.y) <= reach
                ):
                    near.add(u.side)
        if near == {side} and st.control.get(name) != side:
            ctx.emit(
                "objective",
                side=side,
                target=name,
                point_to=p,
                result="taken",
                detail=f"{st.sides[side].name} takes the objective {name}",
                changes=control_change(name, side),
            )


def start_turn(
    rs: FowRuleset, ctx: RuleContext, side: str, *, first: bool = False
) -> None:
    """The Starting Step of ``side``'s turn, then its Movement Step."""
    st = ctx.state
    turn = st.turn if not first else 1
    ctx.emit(
        "turn",
        side=side,
        result=f"turn {turn}",
        detail=f"turn {turn}: {st.sides[side].name} plays",
        changes=state_change(turn=turn, phase="starting") + var_change(side=side),
    )
    # item 1: sole surviving infantry teams take their tests (§1.1, morale.py)
    sole_survivors(rs, ctx, side)
    # item 2 of the Starting Step: company morale, before victory (§1.1, §5)
    if company_morale(rs, ctx, side):
        return
    _objectives(rs, ctx, side)
    demolitions_step(rs, ctx, side)
    # item 4: reveal ambushes; with a platoon hidden, the step waits for the
    # player's Reveal or Next (ambush.py)
    if hidden_platoons(st, side):
        return
    finish_start(rs, ctx, side)


def finish_start(rs: FowRuleset, ctx: RuleContext, side: str) -> None:
    """The Starting Step from item 5 on (air support, reserves, rally, remount,
    free bogged teams, smoke), then the Movement Step."""
    st = ctx.state
    air.arrival(rs, ctx, side)  # item 5: roll for air support (air.py)
    arrivals(rs, ctx, side)  # item 6: reserves (reserves.py)
    for uid in sorted(st.units):
        u = st.units[uid]
        if u.side != side or not rs._in_play(u):
            continue
        motivation = MOTIVATION_TEST[str(u.attrs["motivation"])]
        skill = SKILL_TEST[str(u.attrs["skill"])]
        # a joined company command team re-rolls a failed rally (hq.py)
        if u.attrs.get("pinned") and motivation_test(
            rs, ctx, u, motivation, kind="rally"
        ):
            ctx.emit(
                "rally",
                side=side,
                unit=uid,
                result="rallied",
                changes=unit_change(uid, pinned=None),
            )
        models = list(st.units[uid].models)
        changed = False
        for i, m in enumerate(models):
            if m.attrs.get("bailed"):
                if motivation_test(rs, ctx, u, motivation, kind="remount", target=m.id):
                    models[i] = _with(m, bailed=None)
                    changed = True
            elif m.attrs.get("bogged"):
                (f,) = ctx.roll(
                    1, needed=skill, kind="unbog", side=side, unit=uid, target=m.id
                )
                if passes(f, skill):
                    models[i] = _with(m, bogged=None)
                    changed = True
        if changed:
            ctx.emit(
                "remount",
                side=side,
                unit=uid,
                result="teams back in action",
                changes=unit_change(uid, models=tuple(models)),
            )
        ch = unit_change(
            uid, moved=None, fired=None, gone_to_ground=None, assaulted=None
        )
        if u.attrs.get("at_double"):  # At the Double ends (double.py)
            ch += unit_change(uid, at_double=None)
        ctx.emit("step", side=side, unit=uid, changes=ch)
    clear_smoke(rs, ctx, side)  # item 10: remove smoke markers (smoke.py)
    ctx.emit(
        "step",
        side=side,
        result="Movement Step",
        changes=state_change(phase="movement"),
    )


# --------------------------------------------------------------------------- #
# the Movement Step                                                           #
# --------------------------------------------------------------------------- #


def move(
    rs: FowRuleset,
    ctx: RuleContext,
    uid: str,
    to: Point,
    column: bool = False,
    *,
    double: bool = False,
) -> None:
    """Move platoon ``uid`` as a body (every team by the platoon's offset) or in
    column; vehicles crossing Difficult or Very Difficult going take their
    bogging checks (research/fow.md §2.1); ``double``: At the Double
    (:mod:`.double`)."""
    st = ctx.state
    u = st.units[uid]
    side = u.side
    start = u.position
    assert isinstance(start, Point)
    dx, dy = float(to.x - start.x), float(to.y - start.y)
    face = round(math.degrees(math.atan2(dx, dy)) % 360, 2)
    skill = SKILL_TEST[str(u.attrs["skill"])]
    _, ends, bogs = rs.plan_move(st, u, to, column, double=double)
    models: list[Model] = []
    for m in u.models:
        t = rs.team(m)
        if m.id not in ends:  # bogged or bailed: stays
            models.append(m)
            continue
        bogged = False
        check = bogs[m.id]
        if t.is_vehicle and check != "none":
            score = skill if check == "skill" else int(check.rstrip("+"))
            (f,) = ctx.roll(
                1, needed=score, kind="bog", side=side, unit=uid, target=m.id
            )
            bogged = not passes(f, score)
        if bogged:
            models.append(_with(m, bogged=True))
        else:
            q = Point(*ends[m.id])
            models.append(Model(m.id, m.kind, m.wounds, q, face, m.radius_m, m.attrs))
    radius = command_radius_m(str(u.attrs["skill"]), rs._is_tank(u), rs.scale)
    out = out_of_command(models, models[0].id, radius)
    end = Point(round(float(to.x), 3), round(float(to.y), 3))  # the platoon's point
    ctx.emit(
        "move",
        side=side,
        unit=uid,
        point_from=start,
        point_to=end,
        result=f"{math.hypot(dx, dy):.0f} m"
        + (" At the Double" if double else "")
        + (f", {len(out)} team(s) out of command" if out else ""),
        detail=f"{u.name} moves {math.hypot(dx, dy):.0f} m"
        + (" At the Double" if double else ""),
        changes=unit_change(
            uid,
            position=end,
            facing=round(face) % 360,
            models=tuple(models),
            moved=True,
        )
        + (unit_change(uid, at_double=True) if double else ()),
    )


# --------------------------------------------------------------------------- #
# the Shooting Step                                                           #
# --------------------------------------------------------------------------- #


def shoot(
    rs: FowRuleset, ctx: RuleContext, uid: str, tid: str, assaulting: bool = False
) -> None:
    """Platoon ``uid`` shoots at platoon ``tid`` (research/fow.md §1.3, §3);
    ``assaulting``: at ROF 1, ready to assault (§3.1); teams that fire above
    ROF 1 are marked and do not charge this turn (:mod:`.rof`)."""
    st = ctx.state
    u, t = st.units[uid], st.units[tid]
    side = u.side
    plan = rs.shot_plan(st, u, t, assaulting=assaulting)
    hits_by, weapon_of, origin_of = roll_to_hit(ctx, u, tid, plan, kind="to_hit")
    total = sum(hits_by.values())
    # the owner allocates: nearest teams first (ASSUMPTION, shooting.py)
    spread = allocate(hits_by, list(plan.targets)) if total else {}

    def one_hit(m: Model, tt: TeamType, key: str) -> str:
        return _resolve_hit(rs, ctx, side, tid, m, weapon_of[key], origin_of[key])

    models, lost, bailed = resolve_hits(rs, ctx, tid, spread, one_hit)
    ch = losses_change(rs, st, tid, models, lost, bailed)
    step_hits = int(t.attrs.get("hits_step", 0)) + total
    ch += unit_change(tid, hits_step=step_hits)
    left = [m for m in t.models if m.id not in lost]
    ctx.emit(
        "shoot",
        side=side,
        unit=uid,
        target=tid,
        point_from=at(u),
        point_to=at(t),
        hits=total,
        result="destroyed" if not left else f"{len(lost)} team(s) destroyed",
        detail=f"{u.name} shoots at {t.name}: {plan.dice} dice, {total} hit(s)"
        + (", at ROF 1 ready to assault" if assaulting else "")
        + (", Concealed" if plan.concealed else "")
        + (", Gone to Ground" if plan.gone_to_ground else ""),
        changes=ch + unit_change(uid, fired=True) + rof.mark(u, plan),
    )


def roll_to_hit(
    ctx: RuleContext, u: Unit, tid: str, plan: ShotPlan, *, kind: str
) -> tuple[dict[str, int], dict[str, Weapon], dict[str, tuple[float, float]]]:
    """Roll every shooter's dice of ``plan`` (``kind``: ``to_hit``, or
    ``defensive_fire`` in an assault): ``(hits, weapon, origin)`` by weapon
    type (one AT/Firepower pair, research §3.3)."""
    uid, side = u.id, u.side
    where = {m.id: m for m in u.models}
    hits_by: dict[str, int] = {}
    weapon_of: dict[str, Weapon] = {}
    origin_of: dict[str, tuple[float, float]] = {}
    for s in plan.shooters:
        faces = ctx.roll(
            s.dice,
            needed=s.to_hit,
            kind=kind,
            side=side,
            unit=uid,
            target=tid,
            detail=f"{s.model} fires {s.weapon.name}: {s.dice} dice, {s.to_hit}+",
        )
        n = 0 if s.to_hit > 6 else sum(f >= s.to_hit for f in faces)
        if n:
            key = f"{s.weapon.name} (AT {s.weapon.anti_tank}, FP {s.weapon.firepower}+)"
            hits_by[key] = hits_by.get(key, 0) + n
            weapon_of[key] = s.weapon
            p = where[s.model].position
            assert isinstance(p, Point)
            origin_of[key] = (float(p.x), float(p.y))
    return hits_by, weapon_of, origin_of


def resolve_hits(
    rs: FowRuleset,
    ctx: RuleContext,
    tid: str,
    spread: Mapping[str, Mapping[str, int]],
    one_hit: Callable[[Model, TeamType, str], str],
) -> tuple[dict[str, Model], set[str], int]:
    """Resolve allocated hits on platoon ``tid``'s teams, hit by hit:
    ``one_hit(team, profile, weapon key)`` rolls the save (or armour and
    Firepower).  A Bailed Out team bailed out again is abandoned on a failed
    Motivation test (research §3.5).  Returns ``(teams by id, destroyed ids,
    teams newly Bailed Out)``; nothing is emitted but the dice."""
    t = ctx.state.units[tid]
    models = {m.id: m for m in t.models}
    lost: set[str] = set()
    bailed = 0
    for key, per_team in spread.items():
        for mid, n in per_team.items():
            for _ in range(n):
                if mid in lost or mid not in models:
                    continue
                m = models[mid]
                result = one_hit(m, rs.team(m), key)
                if result == "destroyed":
                    lost.add(mid)
                elif result == "bailed out":
                    if m.attrs.get("bailed"):
                        # bailed out again: the crew abandon it on a failed
                        # Motivation test (research §3.5)
                        mot = MOTIVATION_TEST[str(t.attrs["motivation"])]
                        (f,) = ctx.roll(
                            1,
                            needed=mot,
                            kind="save",
                            side=t.side,
                            unit=tid,
                            target=mid,
                        )
                        if not passes(f, mot):
                            lost.add(mid)
                    else:
                        models[mid] = _with(m, bailed=True)
                        bailed += 1
    return models, lost, bailed


def losses_change(
    rs: FowRuleset,
    st: GameState,
    tid: str,
    models: Mapping[str, Model],
    lost: set[str],
    bailed: int,
) -> tuple[Change, ...]:
    """The changes of platoon ``tid`` after hits: its teams left, and the teams
    it lost this step (destroyed or Bailed Out, for platoon morale, research
    §5); ``strength="destroyed"`` when no team is left."""
    t = st.units[tid]
    left = tuple(models[m.id] for m in t.models if m.id not in lost)
    ch = unit_change(tid, models=left)
    if lost or bailed:
        ch += unit_change(
            tid, lost_step=int(t.attrs.get("lost_step", 0)) + len(lost) + bailed
        )
    if not left:
        ch += unit_change(tid, strength="destroyed")
    return ch


def hit_team(
    rs: FowRuleset,
    ctx: RuleContext,
    side: str,
    tid: str,
    m: Model,
    *,
    anti_tank: int,
    firepower: int,
    origin: tuple[float, float] | None,
    bulletproof: bool,
    at_words: str = "AT",
    note: str = "",
) -> str:
    """One hit on team ``m`` of platoon ``tid``, from ``side``: ``"no effect"``,
    ``"bailed out"``, ``"saved"`` or ``"destroyed"``.

    A team with armour rolls a die plus the armour the hit meets (the side
    facing ``origin``, or the top armour when ``origin`` is ``None``) against
    ``anti_tank``, and a penetration takes a Firepower test (research §3.5);
    any other team rolls its save, and in Bulletproof Cover a failed save
    takes a Firepower test too (§3.4).  Shooting, bombardments and assaults
    all resolve their hits here.
    """
    tt = rs.team(m)
    owner = ctx.state.units[tid].side
    if tt.armour is not None:
        face, armour = (
            ("top", int(tt.armour.top))
            if origin is None
            else facing_armour(m, tt.armour, origin)
        )
        (f,) = ctx.roll(
            1,
            kind="armour",
            side=owner,
            unit=tid,
            target=m.id,
            detail=f"{face} armour {armour} against {at_words} {anti_tank}{note}",
        )
        fp = None
        if penetrates(f, armour, anti_tank):
            (fp,) = ctx.roll(
                1, needed=firepower, kind="firepower", side=side, target=m.id
            )
        return armour_result(f, armour, anti_tank, fp, firepower)
    save = tt.save if tt.save is not None else 7
    (f,) = ctx.roll(
        1, needed=min(save, 7), kind="save", side=owner, unit=tid, target=m.id
    )
    fp = None
    if not passes(f, save) and bulletproof:
        (fp,) = ctx.roll(1, needed=firepower, kind="firepower", side=side, target=m.id)
    return save_result(f, save, fp, firepower if bulletproof else None)


def in_bulletproof_cover(rs: FowRuleset, m: Model) -> bool:
    """Whether team ``m`` stands in Bulletproof Cover (:data:`BULLETPROOF`)."""
    p = m.position
    assert isinstance(p, Point)
    return str(rs.map.terrain_at(float(p.x), float(p.y))) in BULLETPROOF


def _resolve_hit(
    rs: FowRuleset,
    ctx: RuleContext,
    side: str,
    tid: str,
    m: Model,
    w: Weapon,
    origin: tuple[float, float],
) -> str:
    """One shooting hit by weapon ``w`` fired from ``origin``."""
    return hit_team(
        rs,
        ctx,
        side,
        tid,
        m,
        anti_tank=w.anti_tank,
        firepower=w.firepower,
        origin=origin,
        bulletproof=in_bulletproof_cover(rs, m),
    )


# --------------------------------------------------------------------------- #
# steps and turns                                                             #
# --------------------------------------------------------------------------- #


def end_shooting(rs: FowRuleset, ctx: RuleContext, side: str) -> None:
    """The end of the Shooting Step after air support: Platoon Morale checks
    (§1.3 item 11), then the Assault Step."""
    platoon_morale(rs, ctx, "Shooting")
    ctx.emit(
        "step",
        side=side,
        result="Assault Step",
        changes=state_change(phase="assault"),
    )


def next_step(rs: FowRuleset, ctx: RuleContext) -> None:
    """End the current step: Movement → Shooting → Assault → next side."""
    st = ctx.state
    side = str(st.vars["side"])
    if st.phase == "movement":
        ctx.emit(
            "step",
            side=side,
            result="Shooting Step",
            changes=state_change(phase="shooting"),
        )
        return
    if st.phase == "shooting" and st.vars.get("air_pending"):
        # Next at item 10: the aircraft go without a strike (air.py)
        air.hold_off(ctx, side)
        end_shooting(rs, ctx, side)
        return
    if st.phase == "shooting":
        for uid in sorted(st.units):
            u = st.units[uid]
            n = int(u.attrs.get("hits_step", 0))
            if not n:
                continue
            ch = unit_change(uid, hits_step=None)
            tanks = rs._is_tank(u) if u.models else False
            if n >= PIN_HITS and not tanks and rs._in_play(u):
                ch += unit_change(uid, pinned=True)
                ctx.emit(
                    "pinned",
                    side=u.side,
                    unit=uid,
                    hits=n,
                    result="Pinned Down",
                    changes=ch,
                )
            else:
                ctx.emit("step", side=u.side, unit=uid, changes=ch)
        # item 10: air support (air.py); the owner then chooses a target
        if air.await_strike(rs, ctx, side):
            return
        end_shooting(rs, ctx, side)
        return
    # the end of the Assault Step: Platoon Morale checks (§1.4 item 7), then
    # the turn passes
    platoon_morale(rs, ctx, "Assault")
    for uid in sorted(st.units):
        u = st.units[uid]
        if u.side == side and rs._in_play(u):
            gtg = not u.attrs.get("moved") and not u.attrs.get("fired")
            ctx.emit(
                "step",
                side=side,
                unit=uid,
                # the ROF-1 marks of the turn end with it (rof.py, R3)
                changes=unit_change(uid, gone_to_ground=gtg or None)
                + unit_change(uid, **{rof.OVER_ROF1: None}),
            )
    alive = [
        s
        for s in rs.sides
        if any(rs._in_game(u) for u in st.units.values() if u.side == s)
    ]
    nxt = rs.sides[(rs.sides.index(side) + 1) % len(rs.sides)]
    last = nxt == rs.sides[0] and st.turn >= rs.scenario.turns
    if len(alive) < len(rs.sides) or last:
        ctx.emit(
            "end", side=side, result="game over", changes=state_change(phase="end")
        )
        return
    turn = st.turn + 1 if nxt == rs.sides[0] else st.turn
    ctx.emit("step", side=side, changes=state_change(turn=turn))
    start_turn(rs, ctx, nxt)
