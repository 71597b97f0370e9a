"""Flames of War v3 reserves: platoons that arrive during the game.

The sources say only that the Starting Step brings reserves onto the table
(research/fow.md §1.1 item 6, S2 [A]; student2.ru "Шаг начала хода": after
rallying and freeing teams the player brings on his reserves); how they arrive
is a gap (research §10).  The rest is the project's, every part an ASSUMPTION:

* **A scenario holds a platoon in reserve** with ``reserve = true`` and,
  optionally, ``arrives = { from_turn = 3, on = 5 }``; its ``zone`` (or
  ``x``/``y``, ``place``) is where it enters.  ASSUMPTION: from turn 3 on 5+,
  the commonly played v3 figures, not in the sources read.
* **Off the table until it arrives**: no position, it does not move, shoot,
  take objectives or Starting Step tests, and it does not count for company
  morale (neither in the company's start nor among the platoons left).
* **Arrival** (Starting Step item 6): from ``from_turn`` on, one die per
  platoon still in reserve (``ctx.roll`` kind ``reserves``); on the score it
  is placed where the engine's placement put it at set-up (the entry zone),
  then moves normally in the Movement Step.

Examples:
    >>> RESERVE_FROM_TURN, RESERVE_ON
    (3, 5)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final

from wargame.engine import RuleContext, unit_change

from .dice import passes

if TYPE_CHECKING:  # pragma: no cover
    from .ruleset import FowRuleset

__all__ = [
    "EVENT_KINDS",
    "RESERVE_FROM_TURN",
    "RESERVE_ON",
    "arrivals",
    "reserve_attrs",
    "reserves_problems",
]

#: First turn a reserve may arrive (ASSUMPTION, see the module docstring).
RESERVE_FROM_TURN: Final = 3
#: The score a reserve platoon's die needs (ASSUMPTION, as above).
RESERVE_ON: Final = 5
#: Events of reserves.
EVENT_KINDS: Final = ("reserves",)
_ARRIVES_KEYS: Final = frozenset({"from_turn", "on"})


def reserves_problems(units: Sequence[Mapping[str, Any]], file: str) -> list[str]:
    """What is wrong with the scenario's ``reserve``/``arrives`` entries
    (file, unit, field and why).

    Examples:
        >>> reserves_problems([{"id": "p", "reserve": "yes"}], "s.toml")
        ["s.toml: units[0] ('p').reserve: 'yes' is not true or false"]
    """
    out: list[str] = []
    for i, raw in enumerate(units):
        at = f"{file}: units[{i}] ({raw.get('id')!r})"
        res = raw.get("reserve")
        arr = raw.get("arrives")
        if res is not None and not isinstance(res, bool):
            out.append(f"{at}.reserve: {res!r} is not true or false")
            continue
        if arr is not None and not res:
            out.append(f"{at}.arrives: only a platoon with reserve = true arrives")
            continue
        if not res:
            continue
        if raw.get("mounted_in") is not None:
            out.append(f"{at}.reserve: a mounted platoon rides in its transport")
        if not any(raw.get(k) is not None for k in ("x", "lonlat", "place", "zone")):
            out.append(f"{at}.reserve: give the entry zone (zone, place or x/y)")
        if arr is None:
            continue
        if not isinstance(arr, Mapping):
            out.append(f"{at}.arrives: {arr!r} is not a table")
            continue
        for k in sorted(set(arr) - _ARRIVES_KEYS):
            out.append(f"{at}.arrives.{k}: unknown key (from_turn, on)")
        ft, on = arr.get("from_turn", RESERVE_FROM_TURN), arr.get("on", RESERVE_ON)
        if isinstance(ft, bool) or not isinstance(ft, int) or ft < 2:
            out.append(f"{at}.arrives.from_turn: {ft!r} is not a turn from 2 on")
        if isinstance(on, bool) or not isinstance(on, int) or not 2 <= on <= 6:
            out.append(f"{at}.arrives.on: {on!r} is not a score from 2 to 6")
    return out


def reserve_attrs(raw: Mapping[str, Any]) -> dict[str, int]:
    """The unit attributes of a platoon in reserve: ``reserve`` (its first
    turn) and ``reserve_on`` (its score); none for any other platoon.

    Examples:
        >>> reserve_attrs({"reserve": True, "arrives": {"on": 4}})
        {'reserve': 3, 'reserve_on': 4}
    """
    if not raw.get("reserve"):
        return {}
    arr = raw.get("arrives") or {}
    return {
        "reserve": int(arr.get("from_turn", RESERVE_FROM_TURN)),
        "reserve_on": int(arr.get("on", RESERVE_ON)),
    }


def arrivals(rs: FowRuleset, ctx: RuleContext, side: str) -> None:
    """Starting Step item 6: ``side``'s reserve platoons roll to arrive."""
    st = ctx.state
    for uid in sorted(st.units):
        u = st.units[uid]
        if u.side != side or not u.attrs.get("reserve") or u.destroyed:
            continue
        if st.turn < int(u.attrs["reserve"]):
            continue
        on = int(u.attrs["reserve_on"])
        (f,) = ctx.roll(1, needed=on, kind="reserves", side=side, unit=uid)
        if not passes(f, on):
            continue
        pu = rs.placed[uid]
        ctx.emit(
            "reserves",
            side=side,
            unit=uid,
            result="arrives",
            detail=f"{u.name} arrives from reserve",
            point_to=pu.position,
            changes=unit_change(
                uid,
                position=pu.position,
                facing=round(pu.facing) % 360,
                models=pu.models,
                reserve=None,
                reserve_on=None,
            ),
        )
