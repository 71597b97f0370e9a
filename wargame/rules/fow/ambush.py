"""Flames of War v3 ambushes: platoons set up hidden, revealed later.

The sources name the step only: the Starting Step's item 4 reveals ambushes
(research/fow.md §1.1, S2 and S12 [A]); how an ambush is set up and sprung is
not in the v3 text read (research §10).  Everything below is the project's,
each part an ASSUMPTION (M1-M8 in ``docs/rules/fow-v3.md``):

* **A scenario sets a platoon in ambush** with ``ambush = true``: it is placed
  where the scenario puts it but **hidden** (:attr:`Unit.hidden`): the enemy's
  view, legal actions and log do not hold it (the engine's hidden units).
* **A hidden platoon does nothing**: it does not move, shoot, bombard,
  assault, take or contest objectives, and it cannot be shot at, bombarded or
  assaulted (it is not on the table for the enemy).
* **Its owner reveals it** with :class:`Reveal` at item 4 of any of its own
  Starting Steps: while it has hidden platoons the Starting Step waits there
  for ``Reveal(unit)`` or ``Next`` (go on to item 5).
* **Where it may be revealed** (M9; the v3 limit is not in the sources read,
  research §1.1 and S1-S16 name only the step): the platoon is placed where it
  lay hidden, and its owner may not reveal it there while an enemy team on the
  table stands within :data:`REVEAL_CLEAR_IN` (16") of one of its teams, or
  within :data:`REVEAL_CLEAR_CONCEALED_IN` (4") if every team of the platoon is
  in concealing terrain and no enemy team has line of sight to any of them
  (:func:`placement_problem`).  Such a ``Reveal`` is not offered and is
  refused.  Enemy platoons still hidden do not count (the owner cannot know
  of them).
* **Sprung**: it is revealed at once when an enemy team comes within
  :data:`SPRUNG_IN` (8") of one of its teams, measured centre to centre, after
  whatever brought the enemy there (a move, a charge, an arrival).  Sprung in
  the enemy's turn it is Gone to Ground (it neither moved nor shot in its own
  last turn, research §3.2).

Examples:
    >>> SPRUNG_IN
    8.0
    >>> ambush_problems([{"id": "p", "ambush": "yes"}], "s.toml")
    ["s.toml: units[0] ('p').ambush: 'yes' is not true or false"]
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from wargame.engine import Action, GameState, Point, RuleContext, Unit, unit_change

if TYPE_CHECKING:  # pragma: no cover
    from .ruleset import FowRuleset

__all__ = [
    "EVENT_KINDS",
    "REVEAL_CLEAR_CONCEALED_IN",
    "REVEAL_CLEAR_IN",
    "SPRUNG_IN",
    "Reveal",
    "ambush_problems",
    "hidden_from_enemy",
    "hidden_platoons",
    "placement_problem",
    "reveal",
    "reveal_actions",
    "reveal_problem",
    "should_reveal",
    "spring",
]

#: An enemy team this close (table inches, centre to centre) springs an
#: ambush.  ASSUMPTION: 8" is the distance the project already uses for the
#: closest fire (defensive fire, assumption 15) and the Remagen demolition;
#: and two teams within the 4" of one objective are within 8" of each other,
#: so an enemy never takes an objective from under a hidden platoon unseen.
SPRUNG_IN: Final = 8.0
#: A platoon may not be revealed by its owner within this of an enemy team
#: (table inches, centre to centre).  ASSUMPTION M9 (the brief's stop-gap; no
#: v3 source read gives the limit).
REVEAL_CLEAR_IN: Final = 16.0
#: ... or within this, if the platoon is in concealing terrain and out of every
#: enemy team's line of sight (ASSUMPTION M9).
REVEAL_CLEAR_CONCEALED_IN: Final = 4.0
#: Events of ambushes.
EVENT_KINDS: Final = ("ambush",)


@dataclass(frozen=True)
class Reveal(Action):
    """Reveal a platoon in ambush (the Starting Step, item 4, research §1.1)."""

    type = "reveal"
    unit: str


def ambush_problems(units: Sequence[Mapping[str, Any]], file: str) -> list[str]:
    """What is wrong with the scenario's ``ambush`` entries (file, unit, field
    and why): not true or false, or on a platoon in reserve or riding in a
    transport (neither is on the table to hide)."""
    out: list[str] = []
    for i, raw in enumerate(units):
        amb = raw.get("ambush")
        if amb is None:
            continue
        at = f"{file}: units[{i}] ({raw.get('id')!r}).ambush"
        if not isinstance(amb, bool):
            out.append(f"{at}: {amb!r} is not true or false")
            continue
        if amb and raw.get("reserve"):
            out.append(
                f"{at}: a platoon in reserve is off the table and cannot lie in "
                "ambush (give ambush or reserve, not both)"
            )
        if amb and raw.get("mounted_in") is not None:
            out.append(f"{at}: a mounted platoon rides in its transport")
    return out


def hidden_platoons(state: GameState, side: str) -> list[str]:
    """``side``'s platoons still hidden in ambush (in the state, or in ``side``'s
    own view), sorted."""
    return sorted(
        k
        for k, u in state.units.items()
        if u.side == side and u.hidden and not u.destroyed
    )


def reveal_problem(rs: FowRuleset, state: GameState, side: str, uid: str) -> str | None:
    """Why ``side`` may not reveal ``uid`` now (``None``: it may)."""
    u = state.units.get(uid)
    if u is None:
        return f"no platoon {uid!r}"
    if u.side != side:
        return f"{uid} is not {side}'s platoon"
    if not u.hidden:
        return f"{uid} is not hidden in ambush"
    if state.phase != "starting":
        return (
            "ambushes are revealed in the Starting Step (item 4, research/fow.md "
            f"§1.1), not the {state.phase} step"
        )
    return placement_problem(rs, state, u)


def hidden_from_enemy(rs: FowRuleset, state: GameState, u: Unit) -> bool:
    """Every team of ``u`` in concealing terrain and out of the line of sight
    of every enemy team on the table (M9)."""
    mine = [
        ((float(p.x), float(p.y)), rs.team(m).eye_height_m)
        for m in u.models
        if isinstance(p := m.position, Point)
    ]
    if not all(rs._concealed_at(*b) for b, _ in mine):
        return False
    for e in state.units.values():
        if e.side == u.side or not rs._in_play(e):
            continue
        for n in e.models:
            q = n.position
            if not isinstance(q, Point):
                continue
            a, eye = (float(q.x), float(q.y)), rs.team(n).eye_height_m
            if any(rs._sees(a, b, eye, tgt) for b, tgt in mine):
                return False
    return True


def placement_problem(rs: FowRuleset, state: GameState, u: Unit) -> str | None:
    """Why ``u`` may not be revealed where it lies (``None``: it may; M9)."""
    near = [
        (_gap_in(rs, u, e), e.id)
        for e in state.units.values()
        if e.side != u.side and rs._in_play(e)
    ]
    gap, eid = min(near, default=(math.inf, ""))
    if gap >= REVEAL_CLEAR_IN:
        return None
    if gap >= REVEAL_CLEAR_CONCEALED_IN and hidden_from_enemy(rs, state, u):
        return None
    limit = (
        REVEAL_CLEAR_CONCEALED_IN
        if hidden_from_enemy(rs, state, u)
        else REVEAL_CLEAR_IN
    )
    why = (
        "concealed and out of sight"
        if limit == REVEAL_CLEAR_CONCEALED_IN
        else "not concealed and out of every enemy team's sight"
    )
    return (
        f'an enemy team of {eid} is {gap:.1f}" from it: an ambush ({why}) may '
        f'not be revealed within {limit:g}" ({limit * rs.scale:.0f} m) of an '
        "enemy team (ASSUMPTION M9, ambush.py; research/fow.md §1.1 item 4)"
    )


def reveal_actions(rs: FowRuleset, state: GameState, side: str) -> list[Action]:
    """``Reveal`` for each of ``side``'s hidden platoons that may be revealed
    where it lies (the Starting Step, item 4; M9)."""
    return [
        Reveal(uid)
        for uid in hidden_platoons(state, side)
        if placement_problem(rs, state, state.units[uid]) is None
    ]


def reveal(ctx: RuleContext, uid: str, why: str, *, gone_to_ground: bool) -> None:
    """Put platoon ``uid`` on the table for everyone (a public event)."""
    u = ctx.state.units[uid]
    ch = unit_change(uid, hidden=False)
    if gone_to_ground:
        ch += unit_change(uid, gone_to_ground=True)
    ctx.emit(
        "ambush",
        side=u.side,
        unit=uid,
        result="revealed",
        detail=f"{u.name} is revealed: {why}",
        point_to=u.position if isinstance(u.position, Point) else None,
        changes=ch,
    )


def _gap_in(rs: FowRuleset, a: Unit, b: Unit) -> float:
    """The least centre-to-centre distance between teams of two platoons, in
    table inches (infinite if either has no team on the table)."""
    best = math.inf
    for m in a.models:
        p = m.position
        if not isinstance(p, Point):
            continue
        for n in b.models:
            q = n.position
            if isinstance(q, Point):
                best = min(best, math.hypot(p.x - q.x, p.y - q.y))
    return best / rs.scale


def spring(rs: FowRuleset, ctx: RuleContext) -> None:
    """Reveal every hidden platoon an enemy team has come within
    :data:`SPRUNG_IN` of (after any action or automatic step)."""
    st = ctx.state
    hidden = [u for u in st.units.values() if u.hidden and not u.destroyed]
    if not hidden or st.phase == "end":
        return
    for u in sorted(hidden, key=lambda x: x.id):
        near = [
            e
            for e in st.units.values()
            if e.side != u.side and rs._in_play(e) and _gap_in(rs, u, e) <= SPRUNG_IN
        ]
        if near:
            enemy = min(near, key=lambda e: (_gap_in(rs, u, e), e.id))
            reveal(
                ctx,
                u.id,
                f'{enemy.name} came within {SPRUNG_IN:g}" '
                f"({SPRUNG_IN * rs.scale:.0f} m) of it (ASSUMPTION, ambush.py)",
                gone_to_ground=st.vars.get("side") != u.side,
            )


def should_reveal(rs: FowRuleset, view: GameState, uid: str) -> bool:
    """The AI's choice: reveal when an enemy team in the side's view stands
    within the platoon's longest direct-fire range (it may shoot this turn),
    or in the game's last turn (to take and hold objectives)."""
    from .shooting import direct_weapon

    u = view.units[uid]
    if view.turn >= rs.scenario.turns:
        return True
    ranges = [w.range_in for m in u.models if (w := direct_weapon(rs.team(m)))]
    reach = max(ranges, default=0.0)
    return any(
        e.side != u.side and rs._in_play(e) and _gap_in(rs, u, e) <= reach
        for e in view.units.values()
    )
