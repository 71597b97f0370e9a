"""Flames of War v3 consolidation: the winner of an assault may move up to 4".

Research/fow.md §1.4 item 6 names the step ("the winner consolidates") and §4
one restriction ([A: S7]: winners may not consolidate to within 2"/5 cm of a
bunker); the distance and the rest are a gap (§10.5).  The project's reading,
each part an ASSUMPTION (C1-C6 in ``docs/rules/fow-v3.md``):

* **Who** (C1): every platoon of the winning side that struck in the last
  round of the assault and is still on the table; each chooses once, in the
  order of their ids, before anything else happens in the Assault Step (the
  winner is the side to play, :func:`side_to_play`, even when it is the
  defender who won by counterattacking in the enemy's turn).
* **The choice** (C2): :class:`Consolidate` ``(unit, to)`` moves the platoon
  as a body, its point to ``to`` (as :class:`~.ruleset.Move`); ``to=None``
  holds its ground.
* **How far** (C3): at most :data:`~.assault.CONSOLIDATE_IN` (4") straight
  line for the platoon's point, and no team farther than its own distance in
  the going of the move (the ordinary movement rules: going, impassable
  ground, linear obstacles, bridges, bogging checks, :mod:`.moves`).
* **Not into contact** (C4): no team that moves may end within
  :data:`CLEAR_IN` (2", base edge to base edge) of an enemy team on the table;
  the 2" of the bunker rule [A: S7] made general, and the distance at which
  teams strike in an assault (§4), so a consolidation never starts a new fight.
  Teams hidden in ambush do not count (the winner cannot know of them).
* **Effects** (C5): a platoon that moves has moved this turn if it is the
  phasing side's (not Gone to Ground, §3.2), and loses Gone to Ground if it
  is the other side's.  Nothing else: no shooting, no second assault.
* The AI players (C6) score each option as a move (:mod:`.ai`,
  :mod:`.doctrine`).

Examples:
    >>> CLEAR_IN
    2.0
    >>> Consolidate("us_a").to is None
    True
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from wargame.engine import (
    Action,
    GameState,
    Model,
    Point,
    RuleContext,
    candidate_moves,
    unit_change,
    var_change,
)

from .assault import CONSOLIDATE_IN, gap_m
from .dice import SKILL_TEST, passes

if TYPE_CHECKING:  # pragma: no cover
    from .ruleset import FowRuleset

__all__ = [
    "CLEAR_IN",
    "Consolidate",
    "consolidate",
    "consolidate_problem",
    "consolidation_actions",
    "open_consolidation",
    "pending",
    "side_to_play",
]

#: A consolidating team may not end within this of an enemy team (base edge to
#: base edge).  ASSUMPTION C4: the 2" of the bunker rule (research §4, [A: S7])
#: made general.
CLEAR_IN: Final = 2.0


@dataclass(frozen=True)
class Consolidate(Action):
    """The winner of an assault: move platoon ``unit``'s point to ``to`` (up
    to 4", research §1.4 item 6), or hold its ground (``to=None``)."""

    type = "consolidate"
    unit: str
    to: Point | None = None


def pending(state: GameState) -> list[str]:
    """The winning platoons still to consolidate (empty: none)."""
    c = state.vars.get("consolidate")
    return list(c["pending"]) if c else []


def side_to_play(state: GameState) -> str | None:
    """The side whose platoons consolidate now (``None``: no consolidation)."""
    left = pending(state)
    return str(state.units[left[0]].side) if left else None


def _movers(u: Any) -> list[Model]:
    return [
        m
        for m in u.models
        if isinstance(m.position, Point)
        and not m.attrs.get("bogged")
        and not m.attrs.get("bailed")
    ]


def open_consolidation(
    rs: FowRuleset, ctx: RuleContext, platoons: list[str]
) -> tuple[Any, ...]:
    """The changes that open the winners' consolidation (C1): every platoon of
    ``platoons`` on the table with a team that can move; ``()`` if none."""
    st = ctx.state
    who = sorted(
        p for p in platoons if rs._in_play(st.units[p]) and _movers(st.units[p])
    )
    if not who:
        return ()
    return var_change(consolidate={"pending": who})


def _enemy(rs: FowRuleset, state: GameState, side: str) -> list[Model]:
    return [
        m
        for e in state.units.values()
        if e.side != side and rs._in_play(e)
        for m in e.models
        if isinstance(m.position, Point)
    ]


def consolidate_problem(
    rs: FowRuleset, state: GameState, uid: str, to: Point | None
) -> str | None:
    """Why platoon ``uid`` may not consolidate to ``to`` now (``None``: it
    may; C1-C4)."""
    if uid not in pending(state):
        return (
            f"{uid} has won no assault and is not waiting to consolidate "
            "(research/fow.md §1.4 item 6)"
        )
    if to is None:
        return None
    u = state.units[uid]
    start = u.position
    assert isinstance(start, Point)
    if not (math.isfinite(to.x) and math.isfinite(to.y)):
        return f"the point ({to.x}, {to.y}) is not a finite point"
    dx, dy = float(to.x - start.x), float(to.y - start.y)
    length = math.hypot(dx, dy)
    if length < 0.01:
        return "the platoon is already there (hold its ground with to=None)"
    reach = CONSOLIDATE_IN * rs.scale
    if length > reach + 1e-6:
        return (
            f"{length:.0f} m is farther than the consolidation move of "
            f'{CONSOLIDATE_IN:g}" ({reach:.0f} m; ASSUMPTION C3, research/fow.md '
            "§10.5)"
        )
    command = u.models[0]
    if command.attrs.get("bogged") or command.attrs.get("bailed"):
        return (
            f"its command team {command.id} is Bogged Down or Bailed Out and "
            "cannot move (research/fow.md §2.1, §3.5)"
        )
    why, ends, _ = rs.plan_move(state, u, to)
    if why is not None:
        return why
    enemy = _enemy(rs, state, str(u.side))
    clear = CLEAR_IN * rs.scale
    for m in u.models:
        if m.id not in ends:
            continue
        moved = Model(m.id, m.kind, position=Point(*ends[m.id]), radius_m=m.radius_m)
        for e in enemy:
            if gap_m(moved, e) < clear - 1e-6:
                return (
                    f'{m.id} would end within {CLEAR_IN:g}" ({clear:.0f} m) of '
                    f"the enemy team {e.id}: a consolidation does not move into "
                    "contact (ASSUMPTION C4, research/fow.md §4 [A: S7])"
                )
    return None


def consolidation_actions(rs: FowRuleset, state: GameState) -> list[Action]:
    """The first waiting platoon's options: hold, then moves of up to 4"
    toward each objective, to the nearest cover and in eight directions (the
    engine's sample of a free move, as for the Movement Step)."""
    left = pending(state)
    if not left:
        return []
    uid = left[0]
    u = state.units[uid]
    origin = u.position
    assert isinstance(origin, Point)
    out: list[Action] = [Consolidate(uid)]
    targets = {k: p for k, (p, _) in rs.objectives.items()}
    for c in candidate_moves(
        origin,
        CONSOLIDATE_IN * rs.scale,
        game_map=rs.map,
        objectives=targets,
        cover=("woods", "town"),
        keep=lambda p: consolidate_problem(rs, state, uid, p) is None,
    ):
        out.append(Consolidate(uid, c.point))
    return out


def consolidate(rs: FowRuleset, ctx: RuleContext, uid: str, to: Point | None) -> None:
    """Platoon ``uid`` consolidates to ``to`` (or holds its ground): its teams
    move by the platoon's offset, vehicles take their bogging checks as in any
    move (research §2.1); then the next winner chooses, or the step goes on."""
    st = ctx.state
    u = st.units[uid]
    rest = [p for p in pending(st) if p != uid]
    after = var_change(consolidate={"pending": rest} if rest else None)
    if to is None:
        ctx.emit(
            "consolidate",
            side=u.side,
            unit=uid,
            result="holds its ground",
            detail=f"{u.name} holds its ground after the assault",
            changes=after,
        )
        return
    start = u.position
    assert isinstance(start, Point)
    dx, dy = float(to.x - start.x), float(to.y - start.y)
    face = round(math.degrees(math.atan2(dx, dy)) % 360, 2)
    skill = SKILL_TEST[str(u.attrs["skill"])]
    _, ends, bogs = rs.plan_move(st, u, to)
    models: list[Model] = []
    for m in u.models:
        t = rs.team(m)
        if m.id not in ends:  # bogged or bailed: stays
            models.append(m)
            continue
        check = bogs[m.id]
        if t.is_vehicle and check != "none":
            score = skill if check == "skill" else int(check.rstrip("+"))
            (f,) = ctx.roll(
                1, needed=score, kind="bog", side=u.side, unit=uid, target=m.id
            )
            if not passes(f, score):
                models.append(
                    Model(
                        m.id,
                        m.kind,
                        m.wounds,
                        m.position,
                        m.facing,
                        m.radius_m,
                        {**m.attrs, "bogged": True},
                    )
                )
                continue
        q = Point(*ends[m.id])
        models.append(Model(m.id, m.kind, m.wounds, q, face, m.radius_m, m.attrs))
    end = Point(round(float(to.x), 3), round(float(to.y), 3))
    phasing = st.vars.get("side") == u.side
    ch = unit_change(
        uid, position=end, facing=round(face) % 360, models=tuple(models)
    ) + (
        unit_change(uid, moved=True)
        if phasing
        else unit_change(uid, gone_to_ground=None)
    )
    ctx.emit(
        "consolidate",
        side=u.side,
        unit=uid,
        point_from=start,
        point_to=end,
        result=f"consolidates {math.hypot(dx, dy):.0f} m",
        detail=f"{u.name} consolidates {math.hypot(dx, dy):.0f} m after the assault",
        changes=ch + after,
    )
