"""Flames of War v3 shooting: one platoon fires at one enemy platoon.

In the order of the Shooting Step (research/fow.md §1.3, S12 [A]):

1. **Who can shoot**: the platoon's teams that are not Bailed Out or Bogged
   Down (§3.5, §2.1) and have a direct-fire weapon, each at the target teams
   within that weapon's range and in line of sight.  Line of sight is the look
   from the model (WYSIWYG, seed 004 p. 20): the map's point line of sight from
   the team's eye height to the target team's height.
2. **Dice**: one per point of ROF; ROF 1 if the platoon moved this turn (the
   weapon's moving ROF) or is Pinned Down (§3.1; S6 [A]).
3. **To hit**: by the *target's* skill (Conscript 2+, Trained 3+, Veteran 4+),
   +1 at long range (over 16"), +1 if Concealed, +1 more if also Gone to Ground;
   above 6 never hits (seed 004 p. 20; research §3.2).
4. **Allocation**: the target's owner spreads the hits evenly over the teams
   the shooters can hit, weapon type by weapon type (research §3.3).
   ASSUMPTION: the owner's choice is automated, nearest teams first.
5. **Saves**: armoured teams by armour against the weapon's AT, then the
   Firepower test (§3.5); others by their save, and in Bulletproof Cover a failed
   save is followed by a Firepower test (§3.4).
6. A platoon hit 5 or more times in one Shooting Step is Pinned Down (§3.6),
   checked at the end of the step.

Facing: a hit is on the front armour if the shooter stands within 90° of the
target's facing, else on the side (research §3.5 "where the line of sight
crosses the hull front"; ASSUMPTION: the turret faces as the hull).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from wargame.engine import Model, Point

from .data import TeamType, Weapon
from .dice import TO_BE_HIT

__all__ = [
    "LONG_RANGE_IN",
    "PIN_HITS",
    "SIGHT_MARGIN_IN",
    "Shooter",
    "ShotPlan",
    "direct_weapon",
    "plan_shot",
]

#: Long range: over 16" (research/fow.md §3.2, [B: S11; C: S16]).
LONG_RANGE_IN = 16.0
#: Hits in one Shooting Step that Pin Down a platoon (research §3.6, S12 [A]).
PIN_HITS = 5
#: How deep into woods or a town a team sees and is seen (inches).  ASSUMPTION:
#: the map's obstacles (trees 20 m, houses 10 m high) hide whatever stands
#: farther in; a team whose base (2" across) reaches the edge of the area is
#: seen (and Concealed), so the point line of sight ignores the area terrain
#: within 2" of either end (``Map.los(..., margin_m=...)``).  The v3 rule for
#: seeing into area terrain is not in the sources read (research §3.7, §10).
SIGHT_MARGIN_IN = 2.0


def direct_weapon(t: TeamType) -> Weapon | None:
    """The team's first direct-fire weapon line (``None``: it cannot shoot)."""
    for w in t.weapons:
        if not w.bombardment and w.rof is not None and w.rof > 0:
            return w
    return None


@dataclass(frozen=True)
class Shooter:
    """One shooting team: its dice and the target teams it can hit."""

    model: str
    weapon: Weapon
    dice: int
    to_hit: int
    targets: tuple[str, ...]
    long_range: bool
    #: the ROF it fires at (its dice before a target At the Double doubles
    #: them); above 1 it may not charge this turn (research §3.1, :mod:`.rof`)
    rof: int = 1


@dataclass(frozen=True)
class ShotPlan:
    """Everything fixed before the dice: who shoots, what, needing what."""

    shooters: tuple[Shooter, ...]
    concealed: bool
    gone_to_ground: bool

    @property
    def dice(self) -> int:
        """All dice the platoon rolls."""
        return sum(s.dice for s in self.shooters)

    @property
    def targets(self) -> tuple[str, ...]:
        """Target teams some shooter can hit (the owner allocates among them)."""
        seen: dict[str, None] = {}
        for s in self.shooters:
            seen.update(dict.fromkeys(s.targets))
        return tuple(seen)


def _xy(m: Model) -> tuple[float, float]:
    p = m.position
    assert isinstance(p, Point)
    return float(p.x), float(p.y)


def plan_shot(
    shooters: Sequence[tuple[Model, TeamType]],
    targets: Sequence[tuple[Model, TeamType]],
    *,
    target_skill: str,
    moved: bool,
    pinned: bool,
    concealed_at: Callable[[float, float], bool],
    gone_to_ground: bool,
    sees: Callable[[tuple[float, float], tuple[float, float], float, float], bool],
    metres_per_inch: float,
    assaulting: bool = False,
) -> ShotPlan:
    """Who of a platoon can hit whom of another, and with how many dice.

    Args:
        shooters: the firing platoon's teams able to shoot (not bailed out or
            bogged) with their profiles.
        targets: the target platoon's teams in play.
        target_skill: the target platoon's skill (it sets the score to hit).
        moved: the firing platoon moved this turn (ROF 1, the moving ROF).
        pinned: the firing platoon is Pinned Down (ROF 1).
        concealed_at: whether a team standing at a point is Concealed there.
        gone_to_ground: the target platoon neither moved nor shot last turn.
        sees: ``sees(a, b, eye_m, target_m)`` line of sight between points.
        metres_per_inch: the ground scale.
        assaulting: the platoon shoots ready to assault: ROF 1 (research
            §3.1, [A-v2/v3: S12]: a team that will assault fires ROF 1).
    """
    base = TO_BE_HIT[target_skill]
    seen_targets: set[str] = set()
    out: list[Shooter] = []
    per_shooter: list[tuple[Model, TeamType, Weapon, list[tuple[str, float]]]] = []
    for m, t in shooters:
        w = direct_weapon(t)
        if w is None:
            continue
        reach = w.range_in * metres_per_inch
        a = _xy(m)
        hits: list[tuple[str, float]] = []
        for tm, tt in targets:
            b = _xy(tm)
            d = math.dist(a, b)
            if d <= reach and sees(a, b, t.eye_height_m, tt.eye_height_m):
                hits.append((tm.id, d))
        if hits:
            per_shooter.append((m, t, w, hits))
            seen_targets.update(tid for tid, _ in hits)
    # Concealed: every target team the shooters can see is concealed
    # (research §3.2, §3.7; ASSUMPTION: the platoon counts as Concealed only if
    # all its visible teams are).
    where = {tm.id: _xy(tm) for tm, _ in targets}
    concealed = bool(seen_targets) and all(
        concealed_at(*where[tid]) for tid in seen_targets
    )
    gtg = concealed and gone_to_ground  # Gone to Ground counts only if Concealed
    for m, _t, w, hits in per_shooter:
        rof = w.rof or 0
        if moved:
            rof = w.rof_moving if w.rof_moving is not None else 1
        if pinned or assaulting:
            rof = min(rof, 1)
        if rof <= 0:
            continue
        nearest = min(d for _, d in hits)
        long_range = nearest > LONG_RANGE_IN * metres_per_inch
        score = base + int(long_range) + int(concealed) + int(gtg)
        out.append(
            Shooter(
                m.id,
                w,
                rof,
                score,
                tuple(tid for tid, _ in sorted(hits, key=lambda h: h[1])),
                long_range,
                rof,
            )
        )
    return ShotPlan(tuple(out), concealed, gtg)


def facing_armour(
    target: Model, armour: Any, shooter_xy: tuple[float, float]
) -> tuple[str, int]:
    """``("front" | "side", value)``: the armour a shot from ``shooter_xy`` meets.

    Front if the shooter is within 90° of the way the target faces (research
    §3.5; ASSUMPTION: the hull's and the turret's fronts face the same way).
    """
    x, y = _xy(target)
    bearing = math.degrees(math.atan2(shooter_xy[0] - x, shooter_xy[1] - y)) % 360
    facing = target.facing if target.facing is not None else bearing
    off = abs((bearing - facing + 180) % 360 - 180)
    return ("front", int(armour.front)) if off <= 90 else ("side", int(armour.side))
