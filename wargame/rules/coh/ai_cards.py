"""Which card from the hand the Conflict of Heroes players play, and on what
(seed 003 §8, S1 card list; research/coh.md §5.3).

The rulebook's solitaire doctrine (CoH 2e §20.2-20.3) says nothing about
cards, so every rule here is an ASSUMPTION (listed in docs/rules/coh-2e.md,
AI): a card is played when the situation its text is made for is there, as
a careful player would, from the deciding side's view only:

* Command Action (#2): when a unit has a shot needing 8 or less (the free
  action then takes it), or a rally to make;
* Auto-Rally (#3) and Rally Up! (#4): on the largest group of hit units
  (Auto-Rally only while enemies see them: it costs 2 CAPs);
* Experienced Sergeant (#7): on the activated unit while its pool is low
  and it has a target; Frontline Officer (#8): on a unit with an enemy in
  sight, when the side has fewer than 3 CAPs left;
* Seek Cover! (#11): on the group most under fire (seen enemies in range);
* Sniper Fire (#13): while the enemy has 2 or more CAPs and is in contact
  (a side's CAPs come back each round, §3.2);
* Battlefield Confusion (#6): on the fresh seen enemy with the most FP in
  reach of own units; Bogged Down (#20): on the nearest fresh enemy vehicle;
* Scout Teams (#30): when the enemy has hidden units;
* weapon cards (grenades, Molotov, mines): the attack with the best odds, if
  it hits with at least 1 chance in 3;
* Careful Aiming (#9) goes with a fire (:func:`careful_aiming_worth`).

Swift Action and Rapid Deployment are not played (the players plan one action
at a time); Luck, Mine-Laying and Obstacle-Clearing are gaps of the engine.

Example:
    >>> careful_aiming_worth(10, 8), careful_aiming_worth(6, 4)
    (True, False)
"""

from __future__ import annotations

from typing import Any

from wargame.engine import Action

from ._core import status_of
from .actions import Fire, PlayCard, Rally
from .ai_ground import threats
from .card_weapons import WEAPONS
from .cards import cards_by_id
from .odds import fire_odds

__all__ = ["card_plays", "careful_aiming_worth"]


def careful_aiming_worth(need: int, need_with: int) -> bool:
    """Careful Aiming (+2 FP) is worth its card when the shot without it is
    doubtful (needs 9 or more on 2d6) and with it a good one (8 or less).
    ASSUMPTION (the doctrine's 8-or-less "good shot" of §20.3)."""
    return need >= 9 and need_with <= 8


def card_plays(s: Any, acts: list[Action]) -> list[tuple[float, Action]]:
    """Each card play worth making now, with its worth (expected VP-like
    units, the greedy scale), best first."""
    cat = cards_by_id()
    plays = [a for a in acts if isinstance(a, PlayCard)]
    if not plays:
        return []
    r, v, side = s.rules, s.view, s.side
    enemy = r.other(side)
    mine = [u for u in v.units.values() if u.side == side and not u.destroyed]
    seen_enemy = any(  # contact: an own unit has an enemy in its LOS (§6.0)
        r.sight(v, u.hex, e.hex).clear
        for u in mine
        if u.hex is not None
        for e in s.enemies
        if not e.hidden
    )
    good_shot = any(
        isinstance(a, Fire) and a.card is None and s.fire_value(a)[1] <= 8 for a in acts
    )
    rally = any(isinstance(a, Rally) for a in acts) or any(
        u.attrs.get("marked") for u in mine
    )
    under_fire: dict[str, int] = {}

    def fire_on(uid: str) -> int:
        if uid not in under_fire:
            u = v.units[uid]
            under_fire[uid] = threats(r, v, side, u.hex) if u.hex else 0
        return under_fire[uid]

    out: list[tuple[float, Action]] = []
    for a in plays:
        cd = cat.get(a.card)
        if cd is None:
            continue
        e = cd.effect
        w = 0.0
        if e == "command_action":
            w = 0.5 if good_shot else (0.3 if rally else 0.0)
        elif e in ("auto_rally", "rally_up"):
            hit = [x for x in a.units if v.units[x].attrs.get("marked")]
            seen = sum(1 for x in hit if fire_on(x))
            if e == "auto_rally":
                w = 0.35 * seen if r.caps(v, side) >= 3 else 0.0
            else:
                w = 0.3 * len(hit) + 0.1 * seen
        elif e == "experienced_sergeant":
            w = 0.4 if (r.pool(v, side) <= 3 and seen_enemy) else 0.0
        elif e == "frontline_officer":
            w = 0.3 if (r.caps(v, side) < 3 and seen_enemy and a.pay == "ap") else 0.0
        elif e == "seek_cover":
            w = 0.15 * sum(fire_on(x) for x in a.units)
            w = w if w >= 0.3 else 0.0
        elif e == "sniper_fire":
            w = 0.3 if (r.caps(v, enemy) >= 2 and seen_enemy) else 0.0
        elif e == "battlefield_confusion" and a.units:
            t = v.units[a.units[0]]
            if status_of(t) == "fresh" and t.hex is not None:
                ut = r.specs[t.id].type
                fp = max(int(ut.fp_red or 0), int(ut.fp_blue or 0))
                reach = any(
                    u.hex is not None
                    and r.board.distance(u.hex, t.hex) <= int(ut.range or 0)
                    for u in mine
                )
                w = 0.1 * fp if reach else 0.0
        elif e == "bogged_down" and a.units:
            t = v.units[a.units[0]]
            near = min(
                (
                    r.board.distance(u.hex, t.hex)
                    for u in mine
                    if u.hex is not None and t.hex is not None
                ),
                default=99,
            )
            w = 0.4 if near <= 6 else 0.0
        elif e == "scout_teams":
            w = 0.3 if int(v.vars.get(f"hidden_count:{enemy}", 0)) > 0 else 0.0
        elif e in WEAPONS and a.units and a.hex is not None:
            w = _weapon_worth(r, v, side, a, cd)
        if w > 0:
            out.append((w, a))
    out.sort(key=lambda t: -t[0])
    return out


def _weapon_worth(r: Any, v: Any, side: str, a: PlayCard, cd: Any) -> float:
    """Expected kills and hits of a weapon card's attack (the card's own FP
    and DV, :meth:`weapon_math`), if it hits with a chance of 1 in 3."""
    user = v.units[a.units[0]]
    best, total = 0.0, 0.0
    for t in v.units_at(a.hex):
        if t.side == side or t.hidden:
            continue
        fm = r.weapon_math(v, user, t, cd, a.hex)
        if fm is None:
            continue
        p = fire_odds(fm.fp, fm.dv)
        hit = float(p["hit"]) + float(p["destroyed"])
        best = max(best, hit)
        already = bool(t.attrs.get("marked"))
        total += float(p["destroyed"]) + (float(p["hit"]) * (1.0 if already else 0.4))
    return total if best >= 1 / 3 else 0.0
