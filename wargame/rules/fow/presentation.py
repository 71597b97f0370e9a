"""Flames of War v3 on the map and in words: the rule system's presentation
hooks (the engine's neutral views call them; nothing here changes a game).

* :meth:`~FowPresentation.unit_look`: a platoon's symbol, its state in the
  rulebook's words (Pinned Down, Bailed Out, Bogged Down, Gone to Ground) and
  its ratings;
* :meth:`~FowPresentation.model_marks`: Bailed Out and Bogged Down teams;
* :meth:`~FowPresentation.map_areas`: smoke templates (:mod:`.smoke`);
* :meth:`~FowPresentation.unit_reach`, :meth:`~FowPresentation.unit_going`:
  command distance, one move's reach and the longest direct range;
* :meth:`~FowPresentation.sight_options`: the WYSIWYG look from a team;
* :meth:`~FowPresentation.odds_table` (:mod:`.odds_map`) and
  :meth:`~FowPresentation.describe` (:mod:`.words`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from wargame.engine import Action, GameState, Model, Unit
from wargame.engine.present import Area, Going, Reach, UnitLook

from .going import fow_going
from .moves import command_radius_m
from .shooting import direct_weapon

if TYPE_CHECKING:  # pragma: no cover
    from .data import TeamType
    from .ruleset import FowRuleset

__all__ = ["FowPresentation"]


class FowPresentation:
    """The presentation hooks of :class:`~.ruleset.FowRuleset` (a mixin)."""

    scale: float

    if TYPE_CHECKING:  # pragma: no cover - what the ruleset gives the mixin

        def team(self, m: Model) -> TeamType: ...
        def _sight(self, eye: float, target: float) -> dict[str, Any]: ...
        def _is_tank(self, u: Unit) -> bool: ...
        def _slowest(self, u: Unit) -> TeamType: ...

    def unit_look(self, state: GameState, unit: Unit) -> UnitLook:
        kinds = {self.team(m).kind for m in unit.models} or {"infantry"}
        symbol = (
            "armour"
            if kinds == {"tank"}
            else "anti_tank"
            if kinds == {"gun"}
            else "mech_infantry"
            if "transport" in kinds
            else "infantry"
        )
        words: list[str] = []
        if unit.attrs.get("pinned"):
            words.append("Pinned Down")
        bailed = sum(bool(m.attrs.get("bailed")) for m in unit.models)
        bogged = sum(bool(m.attrs.get("bogged")) for m in unit.models)
        if bailed:
            words.append(f"{bailed} Bailed Out")
        if bogged:
            words.append(f"{bogged} Bogged Down")
        if unit.attrs.get("gone_to_ground"):
            words.append("Gone to Ground")
        rating = f"{unit.attrs.get('motivation', '?')} {unit.attrs.get('skill', '?')}"
        return UnitLook(
            symbol,
            None,
            f"{len(unit.models)} teams ({rating})",
            words=tuple(words),
            suppressed=bool(unit.attrs.get("pinned")),
            spent=bool(unit.attrs.get("moved") and unit.attrs.get("fired")),
        )

    def odds_table(self, state: GameState, shooter: str, target: str) -> Any:
        """Exact odds of ``shooter`` shooting at ``target`` now
        (:func:`.odds_map.platoon_odds`)."""
        from .odds_map import platoon_odds

        return platoon_odds(cast("FowRuleset", self), state, shooter, target)

    def describe(self, state: GameState, action: Action) -> str:
        """The action in words (:mod:`.words`)."""
        from .words import describe

        return describe(cast("FowRuleset", self), state, action)

    def map_areas(self, state: GameState) -> tuple[Area, ...]:
        """The smoke templates on the table (:mod:`.smoke`)."""
        from .smoke import smoke_areas

        return smoke_areas(state)

    def model_marks(self, state: GameState, unit: Unit) -> dict[str, tuple[str, ...]]:
        """Bailed Out and Bogged Down teams (research/fow.md §2.1, §3.5)."""
        out: dict[str, tuple[str, ...]] = {}
        for m in unit.models:
            words = tuple(
                w
                for flag, w in (("bailed", "Bailed Out"), ("bogged", "Bogged Down"))
                if m.attrs.get(flag)
            )
            if words:
                out[m.id] = words
        return out

    def unit_reach(self, state: GameState, unit_id: str) -> tuple[Reach, ...]:
        u = state.units[unit_id]
        if not u.models:
            return ()
        out = [
            Reach(
                "command",
                command_radius_m(str(u.attrs["skill"]), self._is_tank(u), self.scale),
            )
        ]
        going = self.unit_going(state, unit_id)
        if going is not None and going.allowance_m > 0:
            out.append(Reach("move", going.allowance_m))
        ranges = [w.range_in for m in u.models if (w := direct_weapon(self.team(m)))]
        if ranges:
            out.append(Reach("range", max(ranges) * self.scale))
        return tuple(out)

    def unit_going(self, state: GameState, unit_id: str) -> Going | None:
        u = state.units[unit_id]
        if not u.models:
            return None
        return fow_going(self._slowest(u), metres_per_inch=self.scale)

    def sight_options(
        self, state: GameState, observer: str, target: str | None
    ) -> dict[str, Any]:
        u = state.units[observer]
        eye = self.team(u.models[0]).eye_height_m if u.models else 2.0
        t = state.units.get(target) if target is not None else None
        tgt = self.team(t.models[0]).eye_height_m if t is not None and t.models else 1.6
        return self._sight(eye, tgt)
