"""Exact odds of one platoon shooting at another where they stand on the map.

The rule system's ``odds_table`` hook (the game view's odds panel, the
classroom): :func:`platoon_odds` plans the shot exactly as the Shooting Step
would (:meth:`FowRuleset.shot_plan`: who is in range and in sight, the dice
after moving or pinning, the score with long range, Concealed and Gone to
Ground, research/fow.md §3.1–3.2, §3.7) and gives, for each shooting team,
its dice and score, the exact distribution of its hits (:func:`.odds.hit_odds`)
and what one hit does to the nearest target team it can hit (armour and
Firepower, :func:`.odds.armour_odds`, from the side the shot meets; or the
save, with Bulletproof Cover, :func:`.odds.save_odds`).

Examples:
    >>> from wargame.engine import Game
    >>> g = Game.from_scenario("fow_ockenfels_1945", seed=1)
    >>> f = platoon_odds(g.ruleset, g.state, "us_shermans", "de_panzers")
    >>> list(f.columns)[:4]
    ['dice', 'to_hit', 'p_any_hit', 'expected_hits']
    >>> bool(f["legal"].notna().all())  # 1.1 km apart: out of range
    True
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pandas as pd

from wargame.engine import GameState, Point

from .odds import armour_odds, hit_odds, save_odds
from .play import in_bulletproof_cover
from .shooting import direct_weapon, facing_armour

if TYPE_CHECKING:  # pragma: no cover
    from .ruleset import FowRuleset

__all__ = ["platoon_odds"]

#: The per-hit outcomes shown (armour results and save results; "survived":
#: a failed save that the Firepower test let off, in Bulletproof Cover).
OUTCOMES = ("destroyed", "bailed out", "no effect", "saved", "survived")


def platoon_odds(
    rs: FowRuleset, state: GameState, shooter: str, target: str
) -> pd.DataFrame:
    """One row per team of ``shooter``: ``dice``, ``to_hit`` (the score),
    ``p_any_hit``, ``expected_hits``, ``target_team``, the probability of each
    of :data:`OUTCOMES` for one hit on it, ``expected_destroyed`` and
    ``legal`` (``None``, or why the platoon may not shoot at ``target`` now).
    Teams that cannot hit (out of range or sight, no direct weapon) have a
    ``note`` and no numbers.

    Raises:
        ValueError: a platoon not in play, or two platoons of one side.
    """
    u, t = state.units.get(shooter), state.units.get(target)
    for uid, x in ((shooter, u), (target, t)):
        if x is None or not rs._in_play(x):
            raise ValueError(f"{uid!r} is not a platoon on the table")
    assert u is not None and t is not None
    if u.side == t.side:
        raise ValueError(f"{shooter} and {target} are on the same side")
    plan = rs.shot_plan(state, u, t)
    legal = rs.shot_problem(state, u, target)
    if state.phase != "shooting" and legal is None:
        legal = f"shots are made in the Shooting Step, not the {state.phase} step"
    by_model = {s.model: s for s in plan.shooters}
    targets = {m.id: m for m in t.models}
    rows: list[dict[str, object]] = []
    index: list[str] = []
    for m in u.models:
        tt = rs.team(m)
        w = direct_weapon(tt)
        index.append(f"{m.id} {w.name if w else tt.name}")
        s = by_model.get(m.id)
        if s is None:
            rows.append({"note": "out of range or sight, or no direct weapon"})
            continue
        hits = hit_odds(s.dice, s.to_hit)
        victim = targets[s.targets[0]]
        vt = rs.team(victim)
        p = m.position
        assert isinstance(p, Point)
        if vt.armour is not None:
            _, armour = facing_armour(victim, vt.armour, (float(p.x), float(p.y)))
            one = armour_odds(armour, s.weapon.anti_tank, s.weapon.firepower)
        else:
            cover = in_bulletproof_cover(rs, victim)
            save = vt.save if vt.save is not None else 7
            one = save_odds(save, s.weapon.firepower if cover else None)
        expected = float((hits * hits.index).sum())
        row: dict[str, object] = {
            "dice": s.dice,
            "to_hit": s.to_hit,
            "p_any_hit": float(1.0 - hits.iloc[0]),
            "expected_hits": expected,
            "target_team": victim.id,
        }
        for o in OUTCOMES:
            row[o] = float(one.get(o, 0.0))
        row["expected_destroyed"] = expected * float(one.get("destroyed", 0.0))
        rows.append(row)
    cols = [
        "dice",
        "to_hit",
        "p_any_hit",
        "expected_hits",
        "target_team",
        *OUTCOMES,
        "expected_destroyed",
        "note",
    ]
    frame = pd.DataFrame(rows, index=pd.Index(index, name="attack"))
    frame = frame.reindex(columns=cols)
    frame["legal"] = legal
    return frame
