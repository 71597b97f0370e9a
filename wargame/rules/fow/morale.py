"""Flames of War v3 morale: platoon morale and company morale.

* **Platoon morale** (research/fow.md §5, [B: S9, citing rulebook p. 172]; the
  last item of the Shooting Step, §1.3 item 11, and of the Assault Step, §1.4
  item 7): at the end of a Shooting or Assault Step, a platoon that has more
  teams destroyed than still fighting, and that lost teams (destroyed or Bailed
  Out) in that step, takes a Motivation test; it tests again in every later
  step in which it loses teams (:func:`platoon_test_needed`).  ASSUMPTION: a
  team is "still fighting" when it is neither Bailed Out nor Bogged Down (both
  may not fight, §2.1, §3.5); teams destroyed count from the platoon's
  strength at the start of the game.  ASSUMPTION (the result of failure is a
  gap, §10.6): a platoon that fails leaves the table (it counts as destroyed).
* **Company morale** (research §5, [A: S12, S2]; the second item of the
  Starting Step, §1.1): a company below half strength takes a Motivation test;
  if it fails, its player loses the game.  ASSUMPTION ("half strength" is a
  gap, §10.6): a side is below half strength when fewer than half of its
  starting platoons are still in play (:func:`below_half_strength`); it tests
  on the worst Motivation of its platoons in play (the mixed-ratings rule,
  seed 004 p. 19; the company command team is not in the data).
* **Sole survivors** (research §1.1 item 1, [A: S2]; the detail is a gap,
  §5, §10.6): in its Starting Step, before company morale, an infantry
  platoon reduced to a single team takes a Motivation test; a failure
  destroys it (:func:`sole_survivor_test_needed`, :func:`sole_survivors`).
  ASSUMPTION (V1-V4 in docs/rules/fow-v3.md): "reduced to" means the platoon
  started with two or more teams and has exactly one left, an infantry team;
  the test is taken in every Starting Step while it is alone; the company
  command and independent teams, which are exempt, are not in the data.

Examples:
    >>> platoon_test_needed(start=4, destroyed=2, fighting=2, lost_this_step=1)
    False
    >>> platoon_test_needed(start=5, destroyed=3, fighting=2, lost_this_step=1)
    True
    >>> below_half_strength(start=5, in_play=2), below_half_strength(start=4, in_play=2)
    (True, False)
    >>> sole_survivor_test_needed(start=3, left=1, infantry=True)
    True
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from wargame.engine import Model, RuleContext, state_change, unit_change, var_change

from .dice import MOTIVATION_TEST, MOTIVATIONS, passes, worst
from .hq import motivation_test

if TYPE_CHECKING:  # pragma: no cover
    from .ruleset import FowRuleset

__all__ = [
    "below_half_strength",
    "company_morale",
    "fighting",
    "platoon_morale",
    "platoon_test_needed",
    "sole_survivor_test_needed",
    "sole_survivors",
]


def fighting(models: tuple[Model, ...]) -> int:
    """Teams still fighting: neither Bailed Out nor Bogged Down (ASSUMPTION)."""
    return sum(not m.attrs.get("bailed") and not m.attrs.get("bogged") for m in models)


def platoon_test_needed(
    *, start: int, destroyed: int, fighting: int, lost_this_step: int
) -> bool:
    """Whether a platoon takes a platoon morale test at the end of a step:
    more teams destroyed than still fighting, and teams lost in this step
    (research §5, [B: S9]).  ``start`` is checked against the others.

    >>> platoon_test_needed(start=5, destroyed=3, fighting=2, lost_this_step=0)
    False
    """
    if destroyed < 0 or fighting < 0 or destroyed + fighting > start:
        raise ValueError(
            f"a platoon of {start} teams cannot have {destroyed} destroyed and "
            f"{fighting} fighting"
        )
    return lost_this_step > 0 and destroyed > fighting


def below_half_strength(*, start: int, in_play: int) -> bool:
    """Fewer than half of a side's starting platoons in play (ASSUMPTION for
    "below half strength", research §10.6).

    >>> below_half_strength(start=3, in_play=1), below_half_strength(start=3, in_play=2)
    (True, False)
    """
    return 2 * in_play < start


def platoon_morale(rs: FowRuleset, ctx: RuleContext, step: str) -> None:
    """Platoon morale at the end of the Shooting or Assault Step (both sides'
    platoons that lost teams in the step; research §5, [B: S9])."""
    st = ctx.state
    for uid in sorted(st.units):
        u = st.units[uid]
        lost = int(u.attrs.get("lost_step", 0))
        if not lost:
            continue
        clear = unit_change(uid, lost_step=None)
        if not rs._in_play(u):
            ctx.emit("step", side=u.side, unit=uid, changes=clear)
            continue
        start = len(rs.specs[uid].teams)
        now = tuple(u.models)
        if not platoon_test_needed(
            start=start,
            destroyed=start - len(now),
            fighting=fighting(now),
            lost_this_step=lost,
        ):
            ctx.emit("step", side=u.side, unit=uid, changes=clear)
            continue
        score = MOTIVATION_TEST[str(u.attrs["motivation"])]
        ok = motivation_test(  # re-rolled with the company command (hq.py)
            rs,
            ctx,
            u,
            score,
            kind="platoon_morale",
            detail=f"{u.name}: {start - len(now)} of {start} teams destroyed at "
            f"the end of the {step} Step, Motivation {score}+",
        )
        ch = clear if ok else clear + unit_change(uid, strength="destroyed")
        ctx.emit(
            "morale",
            side=u.side,
            unit=uid,
            result="holds" if ok else "breaks and leaves the table",
            detail=f"{u.name} " + ("holds" if ok else "fails its platoon morale test"),
            changes=ch,
        )


def company_morale(rs: FowRuleset, ctx: RuleContext, side: str) -> bool:
    """The company morale check of ``side``'s Starting Step (research §5,
    [A: S12, S2]); ``True`` if it failed and the game is over (its player
    loses, the outcome ``"company morale"``)."""
    st = ctx.state
    # reserves still to arrive do not count (ASSUMPTION, reserves.py)
    platoons = [
        u for u in st.units.values() if u.side == side and not u.attrs.get("reserve")
    ]
    # a platoon hidden in ambush is still in play (ambush.py)
    alive = [u for u in platoons if rs._on_table(u)]
    if not alive or not below_half_strength(start=len(platoons), in_play=len(alive)):
        return False
    mot = worst([str(u.attrs["motivation"]) for u in alive], MOTIVATIONS)
    score = MOTIVATION_TEST[mot]
    (f,) = ctx.roll(
        1,
        needed=score,
        kind="company_morale",
        side=side,
        detail=f"{st.sides[side].name}: {len(alive)} of {len(platoons)} platoons "
        f"left, Motivation {score}+",
    )
    if passes(f, score):
        ctx.emit("company_morale", side=side, result="the company holds")
        return False
    ctx.emit(
        "company_morale",
        side=side,
        result="the company breaks",
        detail=f"{st.sides[side].name} fails its company morale test and loses",
        changes=var_change(company_broke=side),
    )
    ctx.emit("end", side=side, result="game over", changes=state_change(phase="end"))
    return True


def sole_survivor_test_needed(*, start: int, left: int, infantry: bool) -> bool:
    """Whether a platoon's last team takes the sole-survivor test (research
    §1.1 item 1, [A: S2]): one team left, an infantry team, of a platoon that
    started with more.  ASSUMPTION (the rule's text is a gap, §10.6): a
    platoon of one team from the start is not "reduced" to it.

    >>> sole_survivor_test_needed(start=1, left=1, infantry=True)
    False
    >>> sole_survivor_test_needed(start=4, left=1, infantry=False)
    False
    """
    return infantry and left == 1 and start > 1


def sole_survivors(rs: FowRuleset, ctx: RuleContext, side: str) -> None:
    """Starting Step item 1 (research §1.1, [A: S2]): each of ``side``'s
    infantry platoons reduced to one team takes a Motivation test; a failure
    destroys it (ASSUMPTION V2: the team gives up or slips away, and the
    platoon counts as destroyed, as a failed platoon morale test)."""
    st = ctx.state
    for uid in sorted(st.units):
        u = st.units[uid]
        if u.side != side or not rs._in_play(u):
            continue
        start = len(rs.specs[uid].teams)
        infantry = len(u.models) == 1 and rs.team(u.models[0]).kind == "infantry"
        if not sole_survivor_test_needed(
            start=start, left=len(u.models), infantry=infantry
        ):
            continue
        score = MOTIVATION_TEST[str(u.attrs["motivation"])]
        ok = motivation_test(  # re-rolled with the company command (hq.py)
            rs,
            ctx,
            u,
            score,
            kind="sole_survivor",
            target=u.models[0].id,
            detail=f"{u.name}: the last of {start} teams, Motivation {score}+",
        )
        ctx.emit(
            "sole_survivor",
            side=side,
            unit=uid,
            result="stays" if ok else "destroyed",
            detail=f"{u.name}'s last team "
            + ("stays in the fight" if ok else "fails its test and is destroyed"),
            changes=() if ok else unit_change(uid, strength="destroyed"),
        )
