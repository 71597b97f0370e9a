"""Flames of War v3 assaults: the pure rules (no dice drawn, no state changed).

The Assault Step as research/fow.md §1.4 pieces it together, each part from §4
with its tag; the sources leave several numbers open (§10 item 5) and the
stop-gaps used here are marked ASSUMPTION:

1. **Charge** (§4, [C: S16]): the assaulting platoon's teams move up to
   :data:`CHARGE_IN` (4") into contact with the target platoon's teams.
   ASSUMPTION: 4" is only a [C] source (the brief agrees); a team charges the
   nearest team of the target, in a straight line, and the line must be
   passable going for it (:func:`charge_moves`).  Teams farther than 4" from
   every target team stay where they are.
2. **Defensive fire** (§4, [C: S16]; stop-gap of §10.5): before contact,
   defending teams within :data:`DEFENSIVE_FIRE_IN` (ASSUMPTION: 8") of a
   charging team fire their normal shooting at the charging platoon;
   :data:`DEFENSIVE_FIRE_STOP_HITS` (5, [C: S16]) hits pin a platoon that is
   not all tanks and stop its assault (:func:`defensive_fire_stops`).
   ASSUMPTION: a tank platoon is never stopped, only thinned out.
3. **Assault hits** (§4, [B: S8 part 16]): every tank, infantry and gun team
   (not transports; not Bailed Out or Bogged Down, §2.1 and §3.5) within
   :data:`STRIKE_IN` (2") of an enemy team rolls one die, a plain Skill test
   of its *own* skill with no modifiers: Veteran 3+, Trained 4+, Conscript 5+
   (:func:`strike_score`, :func:`strikers`, :func:`assault_hits_pmf`).
4. **Saves** of assault hits: as usual for infantry and guns (the team's
   save; ASSUMPTION: no Bulletproof Cover Firepower test, the attackers are at
   the wall); a tank is hit on its **top** armour (stop-gap of §10.5, [A: S7,
   indirect]) by the striker's Tank Assault rating, or else the anti-tank of
   its direct-fire weapon (ASSUMPTION), with that weapon's Firepower
   (:func:`assault_weapon`).
5. **Counterattack test** (§4, [A: S1, S4; B: S8 part 17]): the defending
   platoons with a team within :data:`COUNTER_IN` (4") of an attacking team
   test on **one** die against each platoon's Motivation; a re-roll is a second
   die for the platoons that failed the first only; if the attackers scored no
   hit every platoon passes (:func:`counterattack_results`, research §8 E4).
   A platoon that passes chooses to counterattack or break off; one that fails
   breaks off.  A platoon with an unarmoured tank team within 4" of an enemy
   team must break off ([A: S4], :func:`must_break_off`); so must an
   independent team, the company command team (S4; :mod:`.fight`, H6).
6. **Break off** (gap, §10.5): ASSUMPTION: each team moves
   :data:`BREAK_OFF_IN` (6") straight away from the nearest enemy team
   (:func:`break_off_offset`); a team that cannot (Bogged Down, Bailed Out,
   immobile, impassable going or the map's edge in the way) is destroyed
   (ASSUMPTION: the gap "fate of teams that cannot break off").
7. **Counterattacks** repeat 3-5 with the sides swapped until one side is
   destroyed or breaks off ([B: S8 part 17]); counterattacking teams charge
   into contact as in 1 (ASSUMPTION: no defensive fire against a
   counterattack).
8. **Consolidation** (gap): ASSUMPTION: the winner may move up to
   :data:`CONSOLIDATE_IN` (4"), its player's choice (:mod:`.consolidate`,
   C1-C6).

Distances between teams are from base edge to base edge (:func:`gap_m`);
"contact" is a gap of 0.

Examples:
    >>> strike_score("trained")
    4
    >>> str(1 - assault_hits_pmf(["trained"] * 3)[0])  # research §8 E7
    '7/8'
    >>> counterattack_results(4, {"a": "fearless", "b": "reluctant"})
    {'a': True, 'b': False}
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from fractions import Fraction
from typing import Final

from wargame.engine import Model, Point

from .data import TeamType
from .dice import MOTIVATION_TEST, SKILL_TEST, _face, p_success, passes
from .shooting import direct_weapon

__all__ = [
    "BREAK_OFF_IN",
    "CHARGE_IN",
    "CONSOLIDATE_IN",
    "COUNTER_IN",
    "DEFENSIVE_FIRE_IN",
    "DEFENSIVE_FIRE_STOP_HITS",
    "STRIKE_IN",
    "assault_hits_pmf",
    "assault_weapon",
    "break_off_offset",
    "can_fight",
    "charge_moves",
    "counterattack_pmf",
    "counterattack_results",
    "defensive_fire_stops",
    "gap_m",
    "must_break_off",
    "strike_score",
    "strikers",
    "within",
]

#: Charge distance into contact.  ASSUMPTION: only a [C] source (research §4,
#: S16); the brief agrees.
CHARGE_IN: Final = 4.0
#: Teams within 2" of an enemy team roll to hit (research §4, [B: S8 part 16]).
STRIKE_IN: Final = 2.0
#: Defenders within 4" of the attacking teams take the counterattack test
#: (research §4, [B: S8 part 17]).
COUNTER_IN: Final = 4.0
#: Defending teams within 8" of a charging team make defensive fire.
#: ASSUMPTION: the stop-gap of research §10.5 (the range is a gap).
DEFENSIVE_FIRE_IN: Final = 8.0
#: Defensive-fire hits that stop (and pin) an assault (research §4, [C: S16]).
DEFENSIVE_FIRE_STOP_HITS: Final = 5
#: Break-off distance.  ASSUMPTION: 6" straight away (research §10.5, a gap).
BREAK_OFF_IN: Final = 6.0
#: Consolidation distance.  ASSUMPTION: up to 4" (research §10.5, a gap).
CONSOLIDATE_IN: Final = 4.0

Team = tuple[Model, TeamType]


def _xy(m: Model) -> tuple[float, float]:
    p = m.position
    assert isinstance(p, Point)
    return float(p.x), float(p.y)


def gap_m(a: Model, b: Model) -> float:
    """Distance between two teams' bases, edge to edge (0 = in contact).

    >>> gap_m(Model("a", "x", position=Point(0, 0), radius_m=25.0),
    ...       Model("b", "x", position=Point(0, 80), radius_m=25.0))
    30.0
    """
    return max(0.0, math.dist(_xy(a), _xy(b)) - a.radius_m - b.radius_m)


def within(a: Model, others: Sequence[Model], inches: float, mpi: float) -> bool:
    """Whether team ``a`` is within ``inches`` of one of ``others`` (edges)."""
    reach = inches * mpi + 1e-6
    return any(gap_m(a, b) <= reach for b in others)


def can_fight(m: Model, t: TeamType) -> bool:
    """Tank, infantry and gun teams fight in assaults; transports do not, nor
    Bailed Out or Bogged Down teams (research §4 [B: S8 part 16]; §2.1, §3.5)."""
    return (
        t.kind in ("tank", "infantry", "gun")
        and not m.attrs.get("bailed")
        and not m.attrs.get("bogged")
        and isinstance(m.position, Point)
    )


def strike_score(skill: str) -> int:
    """The score an assaulting team needs: a plain Skill test of its own skill,
    no modifiers (research §4, [B: S8 part 16]; §5).

    >>> strike_score("veteran"), strike_score("conscript")
    (3, 5)
    """
    return SKILL_TEST[skill]


def strikers(own: Sequence[Team], enemy: Sequence[Model], mpi: float) -> list[str]:
    """The teams of ``own`` that roll in an assault: able to fight and within
    2" of an enemy team (research §4, [B: S8 part 16]).  ASSUMPTION: within 2"
    a team sees its enemy (line of sight is not checked)."""
    return [
        m.id for m, t in own if can_fight(m, t) and within(m, enemy, STRIKE_IN, mpi)
    ]


def assault_hits_pmf(skills: Sequence[str]) -> tuple[Fraction, ...]:
    """Exact P(hits = k), k = 0..n, of ``n`` striking teams, one die each by its
    own skill (research §4; §8 E7).

    >>> [str(p) for p in assault_hits_pmf(["trained", "trained"])]
    ['1/4', '1/2', '1/4']
    """
    pmf: list[Fraction] = [Fraction(1)]
    for s in skills:
        p = p_success(strike_score(s))
        nxt = [Fraction(0)] * (len(pmf) + 1)
        for k, q in enumerate(pmf):
            nxt[k] += q * (1 - p)
            nxt[k + 1] += q * p
        pmf = nxt
    return tuple(pmf)


def assault_weapon(t: TeamType) -> tuple[int, int]:
    """``(anti_tank, firepower)`` of a team's assault hits on a tank: its Tank
    Assault rating (research §3.9, [B: S10]) or else its direct-fire weapon's
    anti-tank (ASSUMPTION), with that weapon's Firepower (ASSUMPTION; 6 without
    a weapon).  The hit meets the tank's top armour (stop-gap of §10.5).

    >>> from wargame.rules.fow.forces import teams
    >>> t = teams()
    >>> assault_weapon(t["us_bazooka_team"]), assault_weapon(t["us_rifle_team"])
    ((4, 5), (2, 6))
    """
    w = direct_weapon(t)
    at = t.tank_assault if t.tank_assault is not None else (w.anti_tank if w else 1)
    return int(at), int(w.firepower) if w is not None else 6


def charge_moves(
    chargers: Sequence[Team],
    targets: Sequence[Model],
    *,
    mpi: float,
    passable: Callable[[Model, TeamType, float, float], bool],
) -> dict[str, tuple[float, float]]:
    """Where each charging team ends: in contact with the nearest target team
    within 4" (research §4, [C: S16]), straight at it.

    Args:
        chargers: the assaulting teams able to fight (:func:`can_fight`).
        targets: the target platoon's teams.
        mpi: metres per inch.
        passable: ``passable(model, team, dx, dy)``: the team may make that
            move (its going is not impassable for it, it stays on the map).

    Returns:
        The end point of every team that charges (a team already in contact
        stays where it is); a team out of reach or blocked is left out.
    """
    out: dict[str, tuple[float, float]] = {}
    reach = CHARGE_IN * mpi + 1e-6
    for m, t in chargers:
        if not can_fight(m, t) or not targets:
            continue
        near = min(targets, key=lambda b: (gap_m(m, b), b.id))
        g = gap_m(m, near)
        if g > reach:
            continue
        a, b = _xy(m), _xy(near)
        d = math.dist(a, b)
        if g <= 1e-6 or d <= 1e-9:
            out[m.id] = a
            continue
        f = g / d
        dx, dy = (b[0] - a[0]) * f, (b[1] - a[1]) * f
        if passable(m, t, dx, dy):
            out[m.id] = (round(a[0] + dx, 3), round(a[1] + dy, 3))
    return out


def defensive_fire_stops(hits: int, all_tanks: bool) -> bool:
    """Whether defensive fire stops an assault: 5 or more hits on a platoon
    that is not all tanks (research §4, [C: S16]; tanks: ASSUMPTION, never).

    >>> defensive_fire_stops(5, False), defensive_fire_stops(4, False)
    (True, False)
    >>> defensive_fire_stops(9, True)
    False
    """
    return not all_tanks and hits >= DEFENSIVE_FIRE_STOP_HITS


def counterattack_results(
    face: int,
    motivations: Mapping[str, str],
    *,
    reroll_face: int | None = None,
    attackers_hit: bool = True,
) -> dict[str, bool]:
    """Who passes the counterattack test: ONE die for all defending platoons,
    compared with each platoon's Motivation (research §4, [A: S1, S4]; §8 E4).

    Args:
        face: the one die rolled for every defending platoon.
        motivations: platoon id -> its Motivation rating.
        reroll_face: a re-roll (e.g. a company command attached): a second die
            that applies only to the platoons that failed ``face``.
        attackers_hit: ``False`` if the attackers scored no hit: then every
            platoon passes automatically.

    >>> counterattack_results(3, {"f": "fearless", "c": "confident"})
    {'f': True, 'c': False}
    >>> counterattack_results(3, {"c": "confident"}, reroll_face=4)
    {'c': True}
    >>> counterattack_results(1, {"c": "reluctant"}, attackers_hit=False)
    {'c': True}
    """
    f = _face("face", face)
    r = None if reroll_face is None else _face("reroll_face", reroll_face)
    out: dict[str, bool] = {}
    for uid, mot in motivations.items():
        score = MOTIVATION_TEST[mot]
        ok = not attackers_hit or passes(f, score)
        if not ok and r is not None:
            ok = passes(r, score)
        out[uid] = ok
    return out


def counterattack_pmf(motivation: str, *, reroll: bool = False) -> Fraction:
    """Exact chance one platoon passes its counterattack test (research §4).

    >>> counterattack_pmf("confident"), counterattack_pmf("confident", reroll=True)
    (Fraction(1, 2), Fraction(3, 4))
    """
    p = p_success(MOTIVATION_TEST[motivation])
    return p + (1 - p) * p if reroll else p


def must_break_off(own: Sequence[Team], enemy: Sequence[Model], mpi: float) -> bool:
    """A platoon with an unarmoured tank team within 4" of an enemy team may
    not counterattack (research §4, [A: S4]).

    >>> from wargame.rules.fow.forces import teams
    >>> t = teams()["us_rifle_team"]
    >>> must_break_off([(Model("a", t.id, position=Point(0, 0)), t)], [], 25.0)
    False
    """
    return any(
        t.kind == "tank" and t.armour is None and within(m, enemy, COUNTER_IN, mpi)
        for m, t in own
    )


def break_off_offset(
    m: Model, enemy: Sequence[Model], mpi: float
) -> tuple[float, float]:
    """``(dx, dy)`` of a team breaking off: 6" straight away from the nearest
    enemy team (ASSUMPTION, research §10.5).

    >>> break_off_offset(Model("a", "x", position=Point(0, 100)),
    ...                  [Model("b", "x", position=Point(0, 0))], 25.0)
    (0.0, 150.0)
    """
    a = _xy(m)
    if not enemy:
        return 0.0, 0.0
    near = min(enemy, key=lambda b: (math.dist(a, _xy(b)), b.id))
    b = _xy(near)
    d = math.dist(a, b)
    ux, uy = ((a[0] - b[0]) / d, (a[1] - b[1]) / d) if d > 1e-9 else (0.0, -1.0)
    step = BREAK_OFF_IN * mpi
    return round(ux * step, 3), round(uy * step, 3)
