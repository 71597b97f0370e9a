"""Flames of War v3 movement: distances by going, At the Double, command distance.

The rules, in this project's words, with where each comes from:

* Going has four categories: Road, Cross-country, Difficult going (three
  kinds: Slow, Difficult, Very Difficult) and Impassable (seed 004 p. 24;
  research/fow.md §2.1).  Difficult going restricts **vehicles** (seed 004
  p. 24); infantry and guns move their one distance in all of it.
* Distances per team (research/fow.md §2.2): tank rows by speed class from the
  v3 summary page (S2, [A]): standard 12"/12"/8", light 16"/16"/8" (road,
  cross-country, difficult going).  Everything else is the **stop-gap** of
  research §10.1: the quick-sheet rows (S12, [A] for v2, [C] for v3):
  half-tracks and jeeps 16/12/4, wheeled 16/8/4, infantry and man-packed guns
  6/6/6, light guns 4, medium and heavy guns 2, immobile guns only towed.  v3
  made wheeled vehicles about 50 % faster (S1, [A]); the v3 figures are not
  known, so the v2 rows stand (flagged in :data:`MOVEMENT_TABLE`).
* Very Difficult going: only foot infantry, man-packed guns and fully tracked
  vehicles may enter it (the bocage rule, research §2.1, S7 [A], generalised to
  all Very Difficult going: ASSUMPTION).
* **Working rule** (research §2.2, [C: S12], probably v2): if a move crosses
  several kinds of going, the most restrictive distance applies to the whole
  move (:func:`move_allowance_in`).  So the road distance needs a move that is
  road all the way (research §2.4 notes this is also the v4 wording).
* **At the Double** (stop-gap of research §10.2): double the distance; a Fast
  Tank goes 32" (S10, [B]).  No shooting, no assault and the enemy's double
  dice are the ruleset's business.
* Command distance (research §2.5, S12 [A-v2/v3]): team to platoon command
  team, Conscript 4"/2", Trained 6"/4", Veteran 8"/6" (tanks/other teams).

Ground scale: :data:`GROUND_SCALE_M_PER_INCH` (an ASSUMPTION; research §10.11
found no source), see its comment.

Examples:
    >>> from wargame.rules.fow.data import load_teams
    >>> t = load_teams()
    >>> move_distance_in(t["us_m4a3_sherman"], "difficult")
    8.0
    >>> move_distance_in(t["us_m3_halftrack"], "road", at_the_double=True)
    32.0
    >>> move_distance_in(t["de_pak40"], "very_difficult")
    0.0
    >>> move_allowance_in(t["us_m3_halftrack"], ["road", "cross_country"])
    12.0
    >>> command_distance_in("veteran", is_tank=True)
    8.0
    >>> inches_to_m(12)
    300.0
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol

__all__ = [
    "GOINGS",
    "GROUND_SCALE_M_PER_INCH",
    "MOVEMENT_TABLE",
    "MoverLike",
    "command_distance_in",
    "inches_to_m",
    "most_restrictive",
    "move_allowance_in",
    "move_distance_in",
    "movement_row",
    "movement_source",
]

#: The going categories, least to most restrictive (seed 004 p. 24).
GOINGS = ("road", "cross_country", "slow", "difficult", "very_difficult", "impassable")

#: Ground scale, metres of map per inch of table.  ASSUMPTION (research §10.11:
#: no source read says what an inch means in FoW).  FoW's figures are 1:100
#: but its ground is compressed; 25 m per inch makes the v3 ranges match real
#: effective ranges: rifle and MG 16" = 400 m, PaK 40 and 75 mm tank guns 32" =
#: 800 m, MG42 HMG 24" = 600 m, bazooka and Panzerschreck 8" = 200 m, SMG 4" =
#: 100 m; a tank's 12" move is 300 m and infantry's 6" is 150 m a turn.  With
#: the rulebook's own pairing of 1" with 2.5 cm (6"/15cm, research §2.2) it is
#: exactly 10 m per cm, so a 6'x4' table is 1.8 km x 1.2 km of the Rhine map.
#: A scenario may choose another scale (every function takes ``metres_per_inch``).
GROUND_SCALE_M_PER_INCH = 25.0

_S2 = "research/fow.md §2.2 (S2 v3 summary page, tank rows, [A])"
_S12 = (
    "research/fow.md §2.2 and §10.1 stop-gap (S12 quick sheet, [A] for v2, "
    "[C] for v3; S1 says v3 wheeled vehicles are faster: not applied)"
)
_S12_INF = 'research/fow.md §2.2 (S12 infantry 6/6/6, [A-v2]; S6 infantry 6", [A])'
_S7 = (
    "research/fow.md §2.1 (S7 bocage, [A]): only foot, man-packed and fully "
    "tracked cross Very Difficult going; generalised from bocage (ASSUMPTION)"
)
_EST_SLOW = (
    'estimate: S2\'s slow-tank row is cut off after 12", 12" (research §2.2); '
    '6" in difficult going is slower than the standard tank\'s 8"'
)
_EST_VSLOW = (
    'estimate: S10 gives a Very Slow Tank 6" (research §2.2, [B]); the same on '
    'roads, 4" in difficult going'
)
_EST_FAST = (
    "estimate: S10 only sets a Fast Tank's At the Double, 32\" (research §2.2, "
    "[B]); otherwise the standard tank row"
)

#: Movement rows: row -> (road, cross_country, slow, difficult, very_difficult)
#: in inches, with a source for each cell (research §2.2, §10.1).  Slow,
#: Difficult and Very Difficult share the "difficult going" column of S2/S12.
MOVEMENT_TABLE: dict[str, tuple[tuple[float, ...], tuple[str, ...]]] = {
    "foot": ((6, 6, 6, 6, 6), (_S12_INF,) * 4 + (_S7,)),
    "man_packed": ((6, 6, 6, 6, 6), (_S12,) * 4 + (_S7,)),
    "light_gun": ((4, 4, 4, 4, 0), (_S12,) * 4 + (_S7,)),
    "medium_gun": ((2, 2, 2, 2, 0), (_S12,) * 4 + (_S7,)),
    "heavy_gun": ((2, 2, 2, 2, 0), (_S12,) * 4 + (_S7,)),
    "immobile": ((0, 0, 0, 0, 0), (_S12 + ": immobile guns move only when towed",) * 5),
    "tank:standard": ((12, 12, 8, 8, 8), (_S2,) * 4 + (_S7,)),
    "tank:light": ((16, 16, 8, 8, 8), (_S2,) * 4 + (_S7,)),
    "tank:slow": ((12, 12, 6, 6, 6), (_S2, _S2, _EST_SLOW, _EST_SLOW, _EST_SLOW)),
    "tank:very_slow": ((6, 6, 4, 4, 4), (_EST_VSLOW,) * 5),
    "tank:fast": ((12, 12, 8, 8, 8), (_EST_FAST,) * 5),
    "half_tracked": ((16, 12, 4, 4, 0), (_S12,) * 4 + (_S7,)),
    "jeep": ((16, 12, 4, 4, 0), (_S12,) * 4 + (_S7,)),
    "wheeled": ((16, 8, 4, 4, 0), (_S12,) * 4 + (_S7,)),
}

#: Fast Tanks At the Double (research §2.2, S10 [B]); others double (§10.2).
FAST_TANK_AT_THE_DOUBLE_IN = 32.0
AT_THE_DOUBLE_SOURCE = (
    "research/fow.md §10.2 stop-gap: At the Double doubles the distance "
    '(ASSUMPTION; Fast Tank 32", S10 [B])'
)

#: Command distance (tanks, other teams) in inches by skill (§2.5, S12).
COMMAND_DISTANCE_IN = {
    "conscript": (4.0, 2.0),
    "trained": (6.0, 4.0),
    "veteran": (8.0, 6.0),
}


class MoverLike(Protocol):
    """What the movement rules need of a team type (``data.TeamType``)."""

    @property
    def mobility(self) -> str: ...

    @property
    def speed_class(self) -> str | None: ...


def movement_row(team_type: MoverLike) -> str:
    """The :data:`MOVEMENT_TABLE` row of a team type.

    Fully tracked vehicles use the tank row of their speed class (a fully
    tracked transport without one: standard, as S12's fully tracked row).

    >>> from wargame.rules.fow.data import load_teams
    >>> movement_row(load_teams()["de_panzer_iv_h"])
    'tank:standard'
    """
    mob = team_type.mobility
    if mob == "fully_tracked":
        return f"tank:{team_type.speed_class or 'standard'}"
    if mob not in MOVEMENT_TABLE:
        raise ValueError(f"no movement row for mobility {mob!r}")
    return mob


def _check_going(going: str) -> int:
    if going not in GOINGS:
        raise ValueError(f"unknown going {going!r}; give one of {list(GOINGS)}")
    return GOINGS.index(going)


def move_distance_in(
    team_type: MoverLike, going: str, *, at_the_double: bool = False
) -> float:
    """Inches the team may move in one kind of going (0: it may not go there).

    >>> from wargame.rules.fow.data import load_teams
    >>> t = load_teams()
    >>> [move_distance_in(t["us_rifle_team"], g) for g in GOINGS]
    [6.0, 6.0, 6.0, 6.0, 6.0, 0.0]
    >>> move_distance_in(t["us_jeep"], "very_difficult")
    0.0
    """
    i = _check_going(going)
    if going == "impassable":
        return 0.0
    row = movement_row(team_type)
    inches = float(MOVEMENT_TABLE[row][0][i])
    if at_the_double and inches > 0:
        if row == "tank:fast" and going in ("road", "cross_country"):
            return FAST_TANK_AT_THE_DOUBLE_IN
        return 2.0 * inches
    return inches


def movement_source(
    team_type: MoverLike, going: str, *, at_the_double: bool = False
) -> str:
    """Where :func:`move_distance_in`'s value comes from.

    >>> from wargame.rules.fow.data import load_teams
    >>> movement_source(load_teams()["us_m4a3_sherman"], "road")[:22]
    'research/fow.md §2.2 ('
    """
    i = _check_going(going)
    if going == "impassable":
        return "seed 004 p. 24: impassable going"
    src = MOVEMENT_TABLE[movement_row(team_type)][1][i]
    return f"{src}; {AT_THE_DOUBLE_SOURCE}" if at_the_double else src


def most_restrictive(team_type: MoverLike, goings: Iterable[str]) -> str:
    """The going of ``goings`` that allows the team the shortest move.

    Ties go to the more restrictive category (a tank's slow and difficult
    going are both 8": difficult).

    >>> from wargame.rules.fow.data import load_teams
    >>> most_restrictive(load_teams()["us_m4a3_sherman"], ["road", "slow", "difficult"])
    'difficult'
    """
    gs = list(goings)
    if not gs:
        raise ValueError("most_restrictive needs at least one going")
    return min(gs, key=lambda g: (move_distance_in(team_type, g), -_check_going(g)))


def move_allowance_in(
    team_type: MoverLike, goings: Iterable[str], *, at_the_double: bool = False
) -> float:
    """Inches for a whole move that crosses ``goings``: the most restrictive
    distance applies to the whole move.

    WORKING RULE (research/fow.md §2.2, [C: S12], probably v2), to be checked
    against an owned v3 rulebook.

    >>> from wargame.rules.fow.data import load_teams
    >>> sherman = load_teams()["us_m4a3_sherman"]
    >>> move_allowance_in(sherman, ["cross_country", "difficult"])
    8.0
    """
    g = most_restrictive(team_type, goings)
    return move_distance_in(team_type, g, at_the_double=at_the_double)


def command_distance_in(skill: str, is_tank: bool) -> float:
    """Inches a team may be from its platoon command team (research §2.5, S12).

    >>> command_distance_in("conscript", is_tank=False)
    2.0
    """
    key = skill.lower() if isinstance(skill, str) else skill
    if key not in COMMAND_DISTANCE_IN:
        raise ValueError(
            f"unknown skill {skill!r}; give one of {list(COMMAND_DISTANCE_IN)}"
        )
    tank, other = COMMAND_DISTANCE_IN[key]
    return tank if is_tank else other


def inches_to_m(
    inches: float, metres_per_inch: float = GROUND_SCALE_M_PER_INCH
) -> float:
    """Table inches as map metres at a ground scale.

    >>> inches_to_m(6, metres_per_inch=20.0)
    120.0
    """
    if not metres_per_inch > 0:
        raise ValueError(f"metres_per_inch must be positive, not {metres_per_inch!r}")
    return float(inches) * float(metres_per_inch)
