"""Flames of War v3: rate of fire and the assault that follows it.

Research/fow.md §3.1 ([A-v2/v3: S12], the quick reference sheet; RULES_NOTES
§3.2 "ROF 1 if moved, assaulting or pinned"): a team that will assault fires
at ROF 1.  Read the other way round, as the rule is played: a team that fired
at more than ROF 1 in the Shooting Step does not charge into contact in the
Assault Step of that turn.  So the player declares the intent when it shoots:

* ``Shoot(unit, target, to_assault=True)`` fires every team of the platoon at
  ROF 1 (:func:`.shooting.plan_shot` ``assaulting``); all its teams may then
  charge;
* a plain ``Shoot`` fires at full ROF; every team that rolled more than one
  die for its ROF (:attr:`.shooting.Shooter.rof`, before a target At the
  Double doubles the dice) is marked and is left out of the charge
  (:func:`barred`, used by :meth:`.ruleset.FowRuleset.charge_plan`); if no
  team of the platoon can charge, it has no ``Assault`` in its legal actions.

ASSUMPTIONs (R1-R4 in ``docs/rules/fow-v3.md``):

* R1: teams that moved and fire at their moving ROF of 1 may charge; a team
  whose moving ROF is above 1 (SMGs, assault rifles, flamethrowers keep full
  ROF moving, §3.1) fired above ROF 1 and may not, unless it shot
  ``to_assault``.
* R2: every team of a platoon that fired a bombardment may not charge (a
  bombardment is the platoon's fire for the step, B1; it is not ROF 1 fire).
* R3: the mark lasts to the end of the platoon's own turn; counterattacks in
  the enemy's turn are not limited by it.
* R4: ``to_assault`` is offered only where it changes something: some team
  would roll more than one die, and some team of the platoon could charge an
  enemy team now.

Examples:
    >>> from wargame.engine import Unit
    >>> barred(Unit("u", "U", "us", None, "f", attrs={OVER_ROF1: ["u.1"]}))
    frozenset({'u.1'})
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

from wargame.engine import GameState, Unit, unit_change

from .shooting import ShotPlan

if TYPE_CHECKING:  # pragma: no cover
    from .ruleset import FowRuleset

__all__ = ["OVER_ROF1", "barred", "mark", "mark_all", "ready_worth_offering"]

#: The platoon attribute: ids of its teams that fired above ROF 1 this turn.
OVER_ROF1: Final = "over_rof1"


def barred(u: Unit) -> frozenset[str]:
    """The teams of ``u`` that may not charge this turn (they fired above
    ROF 1, research §3.1)."""
    return frozenset(str(x) for x in u.attrs.get(OVER_ROF1) or ())


def mark(u: Unit, plan: ShotPlan) -> tuple[Any, ...]:
    """The change marking the teams of ``plan`` that fire above ROF 1 (``()``
    if none does)."""
    over = sorted(barred(u) | {s.model for s in plan.shooters if s.rof > 1})
    return unit_change(u.id, **{OVER_ROF1: over}) if over else ()


def mark_all(u: Unit) -> tuple[Any, ...]:
    """Every team of ``u`` (a platoon that bombarded, R2)."""
    return unit_change(u.id, **{OVER_ROF1: sorted(m.id for m in u.models)})


def ready_worth_offering(
    rs: FowRuleset, state: GameState, u: Unit, plan: ShotPlan, enemies: list[Unit]
) -> bool:
    """Whether ``Shoot(..., to_assault=True)`` differs from the plain shot
    and could be followed by a charge (R4)."""
    if not any(s.rof > 1 for s in plan.shooters):
        return False
    if u.attrs.get("pinned") or u.attrs.get("at_double"):
        return False  # it may not assault anyway
    return any(rs.charge_plan(state, u, list(e.models)) for e in enemies)
