"""A Conflict of Heroes scenario (a "firefight") read into an initial state.

The firefight sheet gives rounds, CAPs per side, the units and where they set
up (facing, hidden or not), reinforcements, control markers, victory points and
the cards (CoH 2e §1.0, §2.5; seed 003 §8.1, §10.0).  Every problem is reported
at once as ``<file>: <field>: <what is wrong and how to fix it>``.

Scenario keys this rule system adds (docs/rules/coh-2e.md):

* ``[[sides]]``: ``caps`` (CAPs per round, §3.2), ``nation`` (``german`` /
  ``soviet``: the Soviets announce initiative CAPs first on a tie, §2.1),
  ``facing`` (default facing of the side's units, 0-5), ``cards`` (cards drawn
  at the start), ``cards_per_round``, ``weapon_cards`` (ids of the weapon
  cards the side holds from the start, CoH 2e §8.4; seed 003 §8.2; off-board
  artillery cards too, §12.3), ``veteran_cards`` (ids of the orange veteran
  cards the firefight gives the side, seed 003 §8.3);
* ``[[units]]``: ``hex``, ``facing`` (0-5: the hexside faced, an index of
  :data:`wargame.geo.hexgrid.AXIAL_DIRECTIONS`), ``hidden`` (seed 003 §10.0),
  ``carried_by`` (instead of a position: the vehicle of the side the unit
  rides on, §17.0);
* ``[rules]``: ``level_height_m`` (10-15 m per hill level, §11.0),
  ``first_initiative`` (who has the initiative in round 1), ``cards`` (the
  deck: every 2nd-edition card numbered at most this, seed 003 §8.1; 0 = none),
  ``extra_cards`` (ids of event cards the firefight mixes into the deck, §8.3),
  ``stall_reveals`` (rule option: the seed reveals a hidden unit that stalls,
  the June 2012 printing does not);
* ``[victory]``: ``kill_vp`` (VP per enemy unit destroyed, §2.5.1);
* ``[[objectives]]``: a control hex, ``vp`` per round held (§2.5.2),
  ``controlled_by``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from wargame.engine import (
    GameState,
    Scenario,
    ScenarioError,
    Side,
    Unit,
    locate_hex,
)
from wargame.engine.scenario import shown

from ._core import Mixin
from .board import CohBoard, board_for
from .catalog import UnitType, unit_catalog

__all__ = ["Setup", "UnitSpec"]

#: The hill level height (m) unless a scenario says (research/coh.md §1.1, §7:
#: the rulebook's 10-15 m per level; 12.5 m is the middle).
DEFAULT_LEVEL_HEIGHT_M = 12.5


@dataclass(frozen=True)
class UnitSpec:
    """A unit of the scenario: id, type and where it starts."""

    id: str
    name: str
    side: str
    type: UnitType
    hex: str | None
    facing: int | None
    hidden: bool
    arrives: int
    entry: tuple[str, ...]


def _int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


class Setup(Mixin):
    """Mixin: reads the scenario (``self.scenario``, ``self.map``)."""

    scenario: Scenario
    map: Any
    board: CohBoard
    sides: tuple[str, str]
    specs: dict[str, UnitSpec]
    caps_start: dict[str, int]
    nation: dict[str, str]
    objectives: tuple[tuple[str, str, int, str | None], ...]

    SIDE_KEYS: ClassVar[frozenset[str]] = frozenset(
        {
            "caps",
            "nation",
            "facing",
            "cards",
            "cards_per_round",
            "weapon_cards",
            "veteran_cards",
        }
    )

    def _read_scenario(self) -> None:
        s = self.scenario
        problems: list[str] = []
        rules = s.section("rules")
        lh = rules.get("level_height_m", DEFAULT_LEVEL_HEIGHT_M)
        if (
            not isinstance(lh, int | float)
            or isinstance(lh, bool)
            or not 10 <= lh <= 15
        ):
            problems.append(
                s.problem(
                    "rules.level_height_m",
                    f"{shown(lh)} is not a hill level height of 10-15 m "
                    "(CoH 2e §11.0); e.g. level_height_m = 12.5",
                )
            )
            lh = DEFAULT_LEVEL_HEIGHT_M
        self.level_height_m = float(lh)
        self.board = board_for(self.map, level_height_m=self.level_height_m)
        sides = [str(x.get("id")) for x in s.sides]
        if len(sides) != 2:
            raise s.error(
                "sides", f"Conflict of Heroes has two sides, not {len(sides)}"
            )
        self.sides = (sides[0], sides[1])
        self.caps_start, self.nation = {}, {}
        self.cards_start: dict[str, int] = {}
        self.cards_round: dict[str, int] = {}
        side_facing: dict[str, int | None] = {}
        for i, raw in enumerate(s.sides):
            sid = str(raw.get("id"))
            where = f"sides[{i}]"
            caps = raw.get("caps", 0)
            if not _int(caps) or not 0 <= caps <= 30:
                problems.append(
                    s.problem(f"{where}.caps", f"{shown(caps)} must be 0-30 CAPs")
                )
                caps = 0
            self.caps_start[sid] = int(caps)
            nat = raw.get("nation", sid)
            self.nation[sid] = str(nat)
            for key, store in (
                ("cards", self.cards_start),
                ("cards_per_round", self.cards_round),
            ):
                n = raw.get(key, 0)
                if not _int(n) or not 0 <= n <= 10:
                    problems.append(
                        s.problem(f"{where}.{key}", f"{shown(n)} must be 0-10 cards")
                    )
                    n = 0
                store[sid] = int(n)
            f = raw.get("facing")
            if f is not None and (not _int(f) or not 0 <= f <= 5):
                problems.append(self._facing_problem(f"{where}.facing", f))
                f = None
            side_facing[sid] = f
        first = rules.get("first_initiative")
        if first is not None and first not in self.sides:
            problems.append(
                s.problem(
                    "rules.first_initiative",
                    f"{shown(first)} is not a side; use one of {list(self.sides)}",
                )
            )
        self.first_initiative: str | None = first
        self.stall_reveals = bool(rules.get("stall_reveals", True))
        kill = s.section("victory").get("kill_vp", 1)
        if not _int(kill) or not 0 <= kill <= 100:
            problems.append(
                s.problem("victory.kill_vp", f"{shown(kill)} must be 0-100")
            )
            kill = 1
        self.kill_vp = int(kill)
        self.specs = {}
        problems += self._read_units(side_facing)
        problems += self._read_fortifications()  # CoH 2e §18 (fortifications.py)
        problems += self.read_riders()  # riders on their vehicles (§17.0)
        problems += self._read_oba()  # CoH 2e §12.3 (artillery.py)
        problems += self._read_objectives()
        problems += self._read_cards(rules)
        if problems:
            raise ScenarioError(problems)

    def _facing_problem(self, where: str, value: Any) -> str:
        return self.scenario.problem(
            where,
            f"{shown(value)} is not a facing; use a hexside 0-5 "
            "(0 north-east, 1 north, ... clockwise from the map's east, see "
            "docs/rules/coh-2e.md)",
        )

    def _read_units(self, side_facing: Mapping[str, int | None]) -> list[str]:
        s, cat = self.scenario, unit_catalog()
        problems: list[str] = []
        arriving: dict[str, tuple[int, tuple[str, ...]]] = {}
        for i, r in enumerate(s.reinforcements):
            entry = []
            for j, e in enumerate(r.get("entry", [])):
                h, key, why = locate_hex(self.map, e, default="hex")
                if why is not None or h is None:
                    problems.append(
                        s.problem(f"reinforcements[{i}].entry[{j}].{key}", str(why))
                    )
                    continue
                entry.append(h)
            for uid in r.get("units", []):
                arriving[str(uid)] = (int(r.get("turn", 1)), tuple(entry))
        for i, raw in enumerate(s.units):
            where = f"units[{i}]"
            uid = str(raw.get("id"))
            tid = raw.get("type")
            ut = cat.get(str(tid))
            if ut is None:
                import difflib

                close = difflib.get_close_matches(str(tid), list(cat), n=1)
                hint = f"; did you mean {close[0]!r}?" if close else ""
                problems.append(
                    s.problem(
                        f"{where}.type", f"unknown coh-2e unit type {shown(tid)}{hint}"
                    )
                )
                continue
            side = raw.get("side")
            if side not in self.sides:
                problems.append(
                    s.problem(f"{where}.side", f"must be one of {list(self.sides)}")
                )
                continue
            hidden = raw.get("hidden", False)
            if not isinstance(hidden, bool):
                problems.append(s.problem(f"{where}.hidden", "must be true or false"))
                hidden = False
            f = raw.get("facing", side_facing.get(side))
            if f is not None and (not _int(f) or not 0 <= f <= 5):
                problems.append(self._facing_problem(f"{where}.facing", f))
                f = 0
            hex_: str | None = None
            # a rider takes its vehicle's hex (engine rule; .transport)
            if uid not in arriving and raw.get("carried_by") is None:
                h, key, why = locate_hex(self.map, raw, default="hex")
                if why is not None or h is None:
                    problems.append(s.problem(f"{where}.{key}", str(why)))
                    continue
                hex_ = h
                if not self.can_stand(h, ut):
                    problems.append(
                        s.problem(
                            f"{where}.hex",
                            f"{ut.name} cannot stand in {h} "
                            f"({self.board.terrain[h].replace('_', ' ')}); "
                            "set it up on land it may enter",
                        )
                    )
            if hidden and not ut.unburdened:
                problems.append(
                    s.problem(
                        f"{where}.hidden",
                        f"{ut.name} may not hide: only squads (unburdened foot "
                        "units) hide (seed 003 §10.2, CoH 2e §1.1)",
                    )
                )
            if f is None and not hidden:
                f = 0
            arrives, came_in = arriving.get(uid, (1, ()))
            self.specs[uid] = UnitSpec(
                uid,
                str(raw.get("name", ut.name)),
                str(side),
                ut,
                hex_,
                None if hidden else f,
                hidden,
                arrives,
                tuple(came_in),
            )
        problems += self._hidden_placement_problems()
        return problems

    def _hidden_placement_problems(self) -> list[str]:
        """A hidden unit set up where it would be revealed at once (seed 003
        §10.0 #2 and #4) is a scenario mistake."""
        out = []
        index = {str(r.get("id")): i for i, r in enumerate(self.scenario.units)}
        shown_units = [sp for sp in self.specs.values() if not sp.hidden and sp.hex]
        for sp in self.specs.values():
            if not sp.hidden or sp.hex is None:
                continue
            where = f"units[{index[sp.id]}].hex"
            for o in shown_units:
                assert o.hex is not None
                if o.hex == sp.hex:
                    out.append(
                        self.scenario.problem(
                            where,
                            f"hidden {sp.id} shares {sp.hex} with {o.id}, which "
                            "reveals it (seed 003 §10.0 #2); set it up alone",
                        )
                    )
                    break
                if (
                    o.side != sp.side
                    and not self.board.cover(sp.hex)
                    and self.board.distance(o.hex, sp.hex) <= 2
                    and self.board.los(o.hex, sp.hex).clear
                ):
                    out.append(
                        self.scenario.problem(
                            where,
                            f"hidden {sp.id} in the open at {sp.hex} is within 2 "
                            f"hexes of enemy {o.id} in sight, which reveals it (seed "
                            "003 §10.0 #4); set it up in cover or further away",
                        )
                    )
                    break
        return out

    def _read_objectives(self) -> list[str]:
        s = self.scenario
        problems: list[str] = []
        objs = []
        for i, raw in enumerate(s.objectives):
            where = f"objectives[{i}]"
            h, key, why = locate_hex(self.map, raw, default="hex")
            if why is not None or h is None:
                problems.append(s.problem(f"{where}.{key}", str(why)))
                continue
            vp = raw.get("vp", 1)
            by = raw.get("controlled_by")
            if by is not None and by not in self.sides:
                problems.append(
                    s.problem(
                        f"{where}.controlled_by", f"must be one of {list(self.sides)}"
                    )
                )
                by = None
            objs.append((str(raw.get("id", h)), h, int(vp), by))
        self.objectives = tuple(objs)
        return problems

    def _read_cards(self, rules: Mapping[str, Any]) -> list[str]:
        from .cards import card_problem

        problems: list[str] = []
        n = rules.get("cards", 0)
        self.card_limit = 0
        msg = card_problem(n)
        if msg is not None:
            problems.append(self.scenario.problem("rules.cards", msg))
        else:
            self.card_limit = int(n)
        self.extra_cards: tuple[str, ...] = self._card_list(
            "rules.extra_cards", rules.get("extra_cards", []), "event", None, problems
        )
        self.weapon_cards: dict[str, tuple[str, ...]] = {}
        self.veteran_cards: dict[str, tuple[str, ...]] = {}
        for i, raw in enumerate(self.scenario.sides):
            sid = str(raw.get("id"))
            self.weapon_cards[sid] = self._card_list(
                f"sides[{i}].weapon_cards",
                raw.get("weapon_cards", []),
                "weapon",
                self.nation.get(sid),
                problems,
            )
            # seed 003 §8.3: "each firefight will specify" the veteran cards
            self.veteran_cards[sid] = self._card_list(
                f"sides[{i}].veteran_cards",
                raw.get("veteran_cards", []),
                "veteran",
                self.nation.get(sid),
                problems,
            )
        return problems

    def _card_list(
        self,
        where: str,
        raw: Any,
        kind: str,
        nation: str | None,
        problems: list[str],
    ) -> tuple[str, ...]:
        """Card ids of one kind from a scenario list (bad ones reported)."""
        from .cards import cards_by_id

        s = self.scenario
        if not isinstance(raw, list) or not all(isinstance(x, str) for x in raw):
            problems.append(
                s.problem(where, f"{shown(raw)} must be a list of card ids")
            )
            return ()
        out = []
        cat = cards_by_id()
        for j, cid in enumerate(raw):
            cd = cat.get(cid)
            if cd is None:
                import difflib

                close = difflib.get_close_matches(cid, list(cat), n=1)
                hint = f"; did you mean {close[0]!r}?" if close else ""
                problems.append(
                    s.problem(f"{where}[{j}]", f"unknown coh-2e card {cid!r}{hint}")
                )
            elif cd.type != kind:
                problems.append(
                    s.problem(
                        f"{where}[{j}]",
                        f"{cid!r} is a {cd.type} card; only {kind} cards go here "
                        "(numbered action and bonus cards come with rules.cards)",
                    )
                )
            elif nation is not None and cd.nation not in (None, nation):
                problems.append(
                    s.problem(
                        f"{where}[{j}]",
                        f"{cid!r} is a {cd.nation} card; this side is {nation}",
                    )
                )
            else:
                out.append(cid)
        return tuple(out)

    # ------------------------------------------------------------------ #
    def _build_initial(self) -> GameState:
        st = GameState(ruleset="coh-2e", phase="setup")
        names = {str(x["id"]): str(x.get("name", x["id"])) for x in self.scenario.sides}
        st.sides = {
            sid: Side(sid, names[sid], {"nation": self.nation[sid]})
            for sid in self.sides
        }
        for sp in self.specs.values():
            attrs: dict[str, Any] = {"status": "fresh"}
            if sp.hex is None:
                attrs["arrives"] = sp.arrives
                attrs["entry"] = sp.entry
            if sp.id in self.riders:
                attrs["carried_by"] = self.riders[sp.id]
            st.units[sp.id] = Unit(
                sp.id,
                sp.name,
                sp.side,
                None,
                sp.type.id,
                sp.hex,
                facing=sp.facing,
                hidden=sp.hidden,
                attrs=attrs,
            )
        for sid in self.sides:
            st.pools[f"ap:{sid}"] = 0
            st.pools[f"caps:{sid}"] = self.caps_start[sid]
            st.vars[f"vp:{sid}"] = 0
            st.vars[f"losses:{sid}"] = 0
        for oid, h, _vp, by in self.objectives:
            if by is not None:
                st.control[h] = by
            del oid
        st.vars["passes"] = 0
        st.vars["turn_no"] = 0
        self._init_forts(st)
        self._init_oba(st)
        return st

    def can_stand(self, label: str, ut: UnitType) -> bool:
        """Whether a unit of type ``ut`` may be in ``label`` at all: some
        neighbour lets it in (deep water and, for vehicles, water do not)."""
        b = self.board
        return any(
            b.move_extra(n, label, ut.mobility) is not None for n in b.neighbors(label)
        ) or not b.neighbors(label)

    def unit_type_of(self, unit_id: str) -> UnitType:
        """The unit type of a scenario unit."""
        return self.specs[unit_id].type
