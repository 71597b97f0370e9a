"""Flames of War v3 company command team: its platoon re-rolls failed Motivation.

Research/fow.md §1.1 [A: S2, S12]: if the company command team (or a higher
HQ team) has joined a platoon, that platoon re-rolls its failed Motivation
tests.  The sources say no more, so the rest is ASSUMPTION, numbered H1–H5 in
``docs/rules/fow-v3.md``:

H1. A scenario marks a one-team platoon ``company_command = true``; it is the
    company command team (checked: one team, not a reserve, not in ambush).
H2. It has joined a platoon of its side while its team stands within that
    platoon's command distance (§2.5) of the platoon's command team (its
    first team), at the moment of the test; it joins at most one platoon at a
    time, the nearest.
H3. The re-roll is one more die, logged; the second result stands (the
    seed's rule: one re-roll at most).  It serves the rally, remount, platoon
    morale, sole-survivor and counterattack tests; for the counterattack's one
    die for every defending platoon, the re-roll is rolled once and counts for
    the platoons it has joined.
H4. Its own platoon tests as any platoon; it does not re-roll for itself.
H6. In an assault it is an independent team: as a defending platoon it always
    breaks off, never counterattacks (research §4, [A: S4]; :mod:`.fight`).

Examples:
    >>> from wargame.engine import Model, Point, Unit
    >>> hq = Unit("hq", "HQ", "us", None, "company", attrs={"company_command": True,
    ...     "skill": "trained"}, models=(Model("hq.1", "team", position=Point(0, 0)),))
    >>> is_company_command(hq)
    True
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from wargame.engine import RuleContext, Unit

from .dice import passes
from .moves import command_radius_m

if TYPE_CHECKING:  # pragma: no cover
    from wargame.engine import GameState

    from .ruleset import FowRuleset

__all__ = [
    "company_command_problems",
    "is_company_command",
    "joined_by",
    "motivation_test",
]


def is_company_command(u: Unit) -> bool:
    """Whether a platoon is the company command team (H1)."""
    return bool(u.attrs.get("company_command"))


def company_command_problems(units: Sequence[Any], file: str) -> list[str]:
    """Problems with ``company_command`` keys of a scenario's units (H1)."""
    out: list[str] = []
    for i, raw in enumerate(units):
        if "company_command" not in raw:
            continue
        where = f"{file}: units[{i}] ({raw.get('id')!r}).company_command"
        v = raw["company_command"]
        if not isinstance(v, bool):
            out.append(f"{where}: {v!r} is not true or false")
            continue
        if not v:
            continue
        teams = raw.get("teams", [])
        n = sum(int(t.get("count", 1)) for t in teams if isinstance(t, dict))
        n += 1 if raw.get("command") else 0
        if n != 1:
            out.append(
                f"{where}: the company command is one team, this platoon has {n}; "
                "give it a single team"
            )
        for key in ("reserve", "ambush", "mounted_in"):
            if raw.get(key):
                out.append(
                    f"{where}: a company command team cannot also be {key} "
                    "(ASSUMPTION H1, fow/hq.py)"
                )
    return out


def _pos(u: Unit) -> tuple[float, float] | None:
    if not u.models or u.models[0].position is None:
        return None
    p = u.models[0].position
    return float(p.x), float(p.y)  # type: ignore[union-attr]


def joined_by(rs: FowRuleset, state: GameState, u: Unit) -> str | None:
    """The company command team that has joined platoon ``u`` now, if any (H2)."""
    if is_company_command(u):
        return None  # H4
    here = _pos(u)
    if here is None:
        return None
    reach = command_radius_m(str(u.attrs["skill"]), rs._is_tank(u), rs.scale)
    best: tuple[float, str] | None = None
    for hid in sorted(state.units):
        h = state.units[hid]
        if h.side != u.side or not is_company_command(h) or not rs._in_play(h):
            continue
        p = _pos(h)
        if p is None:
            continue
        d = math.hypot(p[0] - here[0], p[1] - here[1])
        if d > reach:
            continue
        # H2: the nearest platoon only
        nearest = min(
            (
                math.hypot(p[0] - q[0], p[1] - q[1])
                for o in state.units.values()
                if o.side == u.side
                and o.id != h.id
                and not is_company_command(o)
                and rs._in_play(o)
                and (q := _pos(o)) is not None
            ),
            default=d,
        )
        if d <= nearest + 1e-9 and (best is None or d < best[0]):
            best = (d, hid)
    return None if best is None else best[1]


def motivation_test(
    rs: FowRuleset,
    ctx: RuleContext,
    u: Unit,
    score: int,
    *,
    kind: str,
    **roll: Any,
) -> bool:
    """One Motivation test of platoon ``u``, re-rolled once if it failed and
    the company command team has joined the platoon (H2, H3)."""
    (f,) = ctx.roll(1, needed=score, kind=kind, side=u.side, unit=u.id, **roll)
    if passes(f, score):
        return True
    hq = joined_by(rs, ctx.state, u)
    if hq is None:
        return False
    (g,) = ctx.roll(
        1,
        needed=score,
        kind=f"{kind}_reroll",
        side=u.side,
        unit=u.id,
        detail=f"re-rolled: the company command team ({ctx.state.units[hq].name}) "
        "has joined the platoon (research §1.1)",
    )
    return passes(g, score)
