"""Flames of War v3 forces in a scenario: platoons of teams with their ratings.

A scenario's ``[[units]]`` entry is one **platoon**; its ``teams`` list says
which teams it has (``{ team = "us_rifle_team", count = 6 }``), one of them its
command team (``command = "us_command_rifle_team"``, placed first).  A platoon
is rated by ``motivation`` (reluctant, confident, fearless) and ``skill``
(conscript, trained, veteran); a platoon of mixed ratings uses the worst
(seed 004 p. 19: "use the worst"; research/fow.md §5).  The engine places the
platoon's teams (``place_units``: x/y, a place, a zone with a layout), each team
a :class:`~wargame.engine.Model` whose ``kind`` is its team type id.

Examples:
    >>> spec = platoon_spec({"id": "1pl", "motivation": "confident",
    ...     "skill": "trained", "command": "us_command_rifle_team",
    ...     "teams": [{"team": "us_rifle_team", "count": 2}]}, "s.toml", 0)
    >>> [t for t, _ in spec.teams], spec.skill
    (['us_command_rifle_team', 'us_rifle_team', 'us_rifle_team'], 'trained')
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from wargame.engine import ScenarioError

from .data import TeamType, load_teams
from .dice import MOTIVATIONS, SKILLS, worst

__all__ = ["PlatoonSpec", "platoon_spec", "teams"]

#: Most teams in one platoon (a guard against typos such as ``count = 600``).
MAX_TEAMS = 40


@cache
def teams() -> Mapping[str, TeamType]:
    """The packaged team profiles (``data/teams.toml``), read once."""
    return load_teams()


@dataclass(frozen=True)
class PlatoonSpec:
    """What a scenario says of one platoon.

    Attributes:
        id: the platoon (unit) id.
        teams: ``(team type id, TeamType)`` per team, the command team first.
        motivation, skill: the platoon's ratings (the worst of its parts).
    """

    id: str
    teams: tuple[tuple[str, TeamType], ...]
    motivation: str
    skill: str

    @property
    def is_tank(self) -> bool:
        """A tank platoon (its command distance is the tanks' one)."""
        return all(t.kind == "tank" for _, t in self.teams)


def _rating(
    raw: Mapping[str, Any], key: str, allowed: Sequence[str], where: str
) -> tuple[str | None, str | None]:
    value = raw.get(key)
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not value:
        return None, f"{where}.{key}: give one of {', '.join(allowed)}"
    bad = [v for v in value if v not in allowed]
    if bad:
        return None, (
            f"{where}.{key}: {bad[0]!r} is not a {key} rating; use one of "
            f"{', '.join(allowed)} (FoW v3, research/fow.md §5)"
        )
    # a platoon of mixed ratings uses the worst (seed 004 p. 19)
    return worst(value, allowed), None


def platoon_spec(raw: Mapping[str, Any], file: str, index: int) -> PlatoonSpec:
    """Check and read one ``[[units]]`` entry of a fow-v3 scenario.

    ``motivation`` and ``skill`` may be a list (a platoon of mixed parts): the
    worst counts.

    Raises:
        ScenarioError: every problem, each naming the file, the unit and the field.
    """
    uid = str(raw.get("id"))
    where = f"{file}: units[{index}] ({uid!r})"
    problems: list[str] = []
    known = teams()
    motivation, why = _rating(raw, "motivation", MOTIVATIONS, where)
    if why:
        problems.append(why)
    skill, why = _rating(raw, "skill", SKILLS, where)
    if why:
        problems.append(why)
    out: list[tuple[str, TeamType]] = []
    command = raw.get("command")
    if command is not None:
        if command not in known:
            problems.append(
                f"{where}.command: {command!r} is not a team type; use one of "
                f"{', '.join(sorted(known))}"
            )
        else:
            out.append((str(command), known[str(command)]))
    listed = raw.get("teams")
    if not isinstance(listed, list) or not listed:
        problems.append(
            f'{where}.teams: give a list such as [{{ team = "us_rifle_team", '
            "count = 6 }]"
        )
        listed = []
    for j, entry in enumerate(listed):
        at = f"{where}.teams[{j}]"
        if not isinstance(entry, Mapping):
            problems.append(f"{at}: give {{ team = <type>, count = <n> }}")
            continue
        extra = set(entry) - {"team", "count"}
        if extra:
            problems.append(f"{at}: unknown key {sorted(extra)[0]!r}; give team, count")
        tid = entry.get("team")
        count = entry.get("count", 1)
        if tid not in known:
            problems.append(
                f"{at}.team: {tid!r} is not a team type; use one of "
                f"{', '.join(sorted(known))}"
            )
            continue
        if isinstance(count, bool) or not isinstance(count, int) or count < 1:
            problems.append(f"{at}.count: {count!r} is not a whole number >= 1")
            continue
        out.extend([(str(tid), known[str(tid)])] * count)
    if len(out) > MAX_TEAMS:
        problems.append(
            f"{where}.teams: {len(out)} teams; a platoon has at most {MAX_TEAMS}"
        )
    if problems:
        raise ScenarioError(problems)
    assert motivation is not None and skill is not None
    return PlatoonSpec(uid, tuple(out), motivation, skill)
