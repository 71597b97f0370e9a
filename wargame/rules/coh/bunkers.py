"""Bunkers and the counters' printed numbers (CoH 2e §18.1.2, §18.2, §18.4;
research/coh.md §1.11).

* A scenario places a bunker as ``[[fortifications]] kind = "bunker"`` with
  its ``hex`` (or ``lonlat``/``place``), its fixed ``facing`` (required: the
  counter's red facing arrow, §5.1), and optionally its printed ``dm_front``
  and ``dm_flank`` (default +5/+3, the S1 §18.1.2 example) and ``dr`` (its red
  number, default 16, the S1 §18.4 example); ``data/fortifications.toml``
  holds the defaults and their sources.
* Unburdened foot units, anti-tank guns and field guns occupy a bunker (unit
  attr ``bunker``) when they enter its hex with no seen enemy in it, for free
  (§18.2); vehicles and burdened foot units do not (ASSUMPTION: "guns" are the
  foot-kind units with a wheeled or no move, i.e. towed guns).  An occupant
  faces the bunker's way and may not pivot (§18.1.2, §5.1); it fires only into
  the bunker's arc (the ordinary arc rule); a mortar in a bunker may not fire
  (§18.1.2).
* Occupants get the bunker's front DM against fire from its front, its flank
  DM (the smaller number) against fire from its flank, mortars, artillery and
  close combat (§18.1.2), on top of the terrain DM (§18.1).  In close combat
  only the defenders are inside (§18.2).
* Leaving: a move out of the hex leaves the bunker for free (§18.2).  Leaving
  it in place costs the unit's normal move cost for its hex and it may then face
  any way (§18.2 example: an LMG pays 1 AP): ASSUMPTION: played as a
  :class:`~.actions.Pivot` of the occupant, which costs that much.  ASSUMPTION:
  re-entering in place is not offered (a unit re-enters by moving into the hex).
* ASSUMPTION: hidden units set up in a bunker hex are not inside it (a hidden
  unit has no facing); they occupy it by moving in.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from wargame.engine import GameState, RuleContext, Unit, unit_change
from wargame.engine.scenario import shown

from ._core import Mixin
from ._data import DATA_DIR, Checker, check_defaults, read_toml

__all__ = ["BUNKER_KEYS", "Bunkers", "FortNumbers", "fort_chart"]

FORT_FILE = DATA_DIR / "fortifications.toml"
#: The ``[[fortifications]]`` keys of the counters' numbers.
BUNKER_KEYS = frozenset({"facing", "dm_front", "dm_flank", "dr"})
_FIELDS = ("dm_front", "dm_flank", "dr")


@dataclass(frozen=True)
class FortNumbers:
    """A counter's printed numbers: a bunker's DMs and facing, the red number
    (``dr``: ``None`` when fire cannot destroy it, §18.4)."""

    kind: str
    dm_front: int | None = None
    dm_flank: int | None = None
    dr: int | None = None
    facing: int | None = None


@cache
def fort_chart(path: Path = FORT_FILE) -> dict[str, FortNumbers]:
    """The default numbers of each kind of counter (``data/fortifications.toml``).

    >>> fort_chart()["bunker"].dm_front, fort_chart()["bunker"].dm_flank
    (5, 3)
    >>> fort_chart()["wire"].dr is not None, fort_chart()["mine"].dr
    (True, None)
    """
    doc = read_toml(path)
    default, fdefaults = check_defaults(path, doc)
    kinds = doc.get("kinds")
    if not isinstance(kinds, Mapping):
        Checker(path, "file", "kinds", None).fail(None, "needs a [kinds] table")
    out: dict[str, FortNumbers] = {}
    for kind, raw in kinds.items():
        c = Checker(path, "kind", str(kind), raw)
        c.only({*_FIELDS, "sources"})
        c.sources(default, fdefaults, _FIELDS)
        out[str(kind)] = FortNumbers(
            str(kind),
            c.int_("dm_front", 0, 9),
            c.int_("dm_flank", 0, 9),
            c.int_("dr", 2, 30),
        )
    return out


def _int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


class Bunkers(Mixin):
    """Mixin: bunker occupancy, facing, DMs and fire limits; the counters'
    numbers."""

    board: Any
    specs: dict[str, Any]
    #: The numbers of each placed counter, by ``(kind, hex)``.
    fort_numbers: dict[tuple[str, str], FortNumbers]

    # -- scenario ----------------------------------------------------------- #
    def _read_fort_numbers(
        self, kind: str, r: Mapping[str, Any], where: str, h: str
    ) -> list[str]:
        """Check a ``[[fortifications]]`` entry's numbers and keep them (one
        problem per line)."""
        s = self.scenario
        problems: list[str] = []
        base = fort_chart().get(kind, FortNumbers(kind))
        got: dict[str, Any] = {}
        for key in ("facing", "dm_front", "dm_flank"):
            if key in r and kind != "bunker":
                problems.append(
                    s.problem(
                        f"{where}.{key}",
                        f"only bunkers have a {key} (§18.1.2); remove it from "
                        f"the {kind}",
                    )
                )
        if kind == "bunker":
            f: Any = r.get("facing")
            if not (_int(f) and 0 <= f <= 5):
                problems.append(
                    s.problem(
                        f"{where}.facing",
                        f"{shown(f)}: a bunker needs its fixed facing, a hexside "
                        "0-5 (§18.1.2); add facing = 0..5",
                    )
                )
            else:
                got["facing"] = int(f)
            for key in ("dm_front", "dm_flank"):
                v: Any = r.get(key, getattr(base, key))
                if not (_int(v) and 0 <= v <= 9):
                    problems.append(
                        s.problem(
                            f"{where}.{key}",
                            f"{shown(v)} must be a whole DM 0-9 (the counter's "
                            "shield, §18.1.2)",
                        )
                    )
                else:
                    got[key] = int(v)
            if got.get("dm_flank", 0) > got.get("dm_front", 9):
                problems.append(
                    s.problem(
                        f"{where}.dm_flank",
                        "a bunker's flank DM is the smaller number (§18.1.2); "
                        "swap dm_front and dm_flank",
                    )
                )
        if "dr" in r:
            v = r["dr"]
            if kind == "mine":
                problems.append(
                    s.problem(
                        f"{where}.dr",
                        "mines have a black attack number, not a red DR "
                        "(§18.3.3); remove dr",
                    )
                )
            elif v is False:
                got["dr"] = None
            elif not (_int(v) and 2 <= v <= 30):
                problems.append(
                    s.problem(
                        f"{where}.dr",
                        f"{shown(v)}: the counter's red number is a DR 2-30, or "
                        "false when fire cannot destroy it (§18.4)",
                    )
                )
            else:
                got["dr"] = int(v)
        if not problems:
            self.fort_numbers[(kind, h)] = FortNumbers(
                kind,
                got.get("dm_front", base.dm_front),
                got.get("dm_flank", base.dm_flank),
                got.get("dr", base.dr),
                got.get("facing"),
            )
        return problems

    # -- queries ------------------------------------------------------------ #
    def numbers(self, kind: str, hex_: str) -> FortNumbers:
        """The printed numbers of the ``kind`` counter in ``hex_`` (a counter
        laid in play has the defaults)."""
        got = getattr(self, "fort_numbers", {}).get((kind, hex_))
        return got or fort_chart().get(kind, FortNumbers(kind))

    def bunker_in(self, state: GameState, hex_: str) -> FortNumbers | None:
        """The bunker standing in ``hex_`` (``None``: none)."""
        if not self.has_fort(state, "bunker", hex_):
            return None
        return self.numbers("bunker", hex_)

    def is_gun(self, uid: str) -> bool:
        """ASSUMPTION: anti-tank and field guns are the foot-kind units with a
        wheeled or no move (towed guns, §18.1.2)."""
        ut = self.specs[uid].type
        return bool(ut.kind == "foot" and ut.mobility in ("wheeled", "none"))

    def bunker_eligible(self, uid: str) -> bool:
        """Unburdened foot units, anti-tank and field guns occupy bunkers
        (§18.1.2)."""
        ut = self.specs[uid].type
        return bool((ut.kind == "foot" and ut.unburdened) or self.is_gun(uid))

    def is_mortar(self, uid: str) -> bool:
        """Mortars: foot-moving HE units (§12.0)."""
        ut = self.specs[uid].type
        return bool(ut.he and ut.kind == "foot" and ut.mobility == "foot")

    def bunker_dms(
        self, state: GameState, target: Unit, to: str, flank: bool
    ) -> list[tuple[int, str]]:
        """An occupant's bunker DM (§18.1.2): the front one against frontal
        fire, the flank one against flank, HE and close-combat attacks
        (``flank``: what :meth:`.fire.Combat.fire_math` decided)."""
        b = self.bunker_in(state, to) if target.attrs.get("bunker") else None
        if b is None:
            return []
        dm = int((b.dm_flank if flank else b.dm_front) or 0)
        where = "flank" if flank else "front"
        return [(dm, f"bunker {where} {dm:+d} (§18.1.2)")] if dm else []

    def bunker_fire_problem(self, state: GameState, lead: Unit) -> str | None:
        """Why ``lead`` may not fire from its bunker (mortars, §18.1.2)."""
        if lead.attrs.get("bunker") and self.is_mortar(lead.id):
            return f"{lead.name} is a mortar in a bunker: it may not fire (§18.1.2)"
        return None

    def bunker_exit_cost(self, state: GameState, u: Unit) -> int:
        """What a pivot costs an occupant: leaving the bunker in place costs the
        normal move cost for the hex (§18.2 example), then it faces any way;
        0 for a unit in no bunker."""
        if not u.attrs.get("bunker") or u.hex is None:
            return 0
        ut = self.specs[u.id].type
        mob = "foot" if ut.mobility == "none" else str(ut.mobility)
        extra = min(
            (
                e
                for n in self.board.neighbors(u.hex)
                if (e := self.board.move_extra(n, u.hex, mob)) is not None
            ),
            default=0,
        )
        m = self.marker(u)
        return int(ut.move_cost or 0) + int(extra) + (int(m.move_ap) if m else 0)

    # -- movement ------------------------------------------------------------ #
    def bunker_on_enter(self, ctx: RuleContext, uid: str, h: str) -> None:
        """After a unit entered ``h``: it occupies an empty or friendly bunker,
        facing its way, or leaves the one it was in (§18.2)."""
        st = ctx.state
        u = st.units[uid]
        b = self.bunker_in(st, h)
        inside = (
            b is not None
            and self.bunker_eligible(uid)
            and not self.enemy_in(st, h, u.side)
        )
        if bool(u.attrs.get("bunker")) == inside:
            return
        facing = b.facing if inside and b is not None else None
        ctx.emit(
            "fortification",
            side=u.side,
            unit=uid,
            hex_to=h,
            detail=(
                f"occupies the bunker, facing {facing} (§18.2, §18.1.2)"
                if inside
                else "leaves the bunker (§18.2)"
            ),
            changes=unit_change(uid, bunker=True, facing=facing)
            if inside and not u.hidden
            else unit_change(uid, bunker=True if inside else None),
            visible_to=(u.side,) if u.hidden else None,
        )

    def bunker_after_pivot(self, ctx: RuleContext, uid: str) -> None:
        """A pivot of an occupant is its leaving the bunker in place (§18.2)."""
        u = ctx.state.units[uid]
        if not u.attrs.get("bunker"):
            return
        ctx.emit(
            "fortification",
            side=u.side,
            unit=uid,
            hex_to=u.hex,
            detail="leaves the bunker in place, paying its move cost, and "
            "faces a new way (§18.2)",
            changes=unit_change(uid, bunker=None),
        )
