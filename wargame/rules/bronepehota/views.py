"""Бронепехота 2008: what the views show — each unit's reach, the durability
and ammunition tracks, pilots and guns' crews, and the exact odds of one unit's figures
firing at another's (:func:`~.odds.shot_pmf`, §7.4)."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any, cast

from wargame.engine import (
    Action,
    GameState,
    Point,
)
from wargame.engine.points import distance
from wargame.engine.present import Reach, UnitLook

from .actions import Shoot
from .guns import Capture, MoveGun
from .odds import hit_probability, shot_pmf
from .repairs import Repair
from .shooting import (
    steps,
    visibility_of,
)
from .table import COVER, EYE_M, GUN_KEY, Table

if TYPE_CHECKING:  # pragma: no cover
    from .guns import Guns
    from .ruleset import BronepehotaRuleset


class Views(Table):
    """The presentation hooks of :class:`~.ruleset.BronepehotaRuleset`."""

    def describe(self, state: GameState, action: Action) -> str:
        """Gun and repair acts in the rulebook's words (§4.1, §7.5, §9.2,
        §9.3); the others as the engine words them."""

        def gun(gid: str) -> str:
            u = state.units.get(gid)
            g = None if u is None else self.arm.guns.get(u.type)
            return gid if g is None else f"the {g.name} {gid}"

        if isinstance(action, Shoot) and action.weapon.startswith(GUN_KEY):
            return (
                f"{action.soldier} fires {gun(action.weapon[len(GUN_KEY) :])} at "
                f"{action.target_soldier}"
            )
        if isinstance(action, MoveGun):
            return (
                f"{action.soldier} moves with {gun(action.gun)} to "
                f"({action.to.x:.1f}, {action.to.y:.1f}) at half speed"
            )
        if isinstance(action, Capture):
            return f"{action.soldier} captures {gun(action.gun)}"
        if isinstance(action, Repair):
            what = action.target
            if state.units.get(what) is not None and what in self.arm_guns(state):
                what = gun(what)
            return f"{action.soldier} repairs {what} (all his acts this turn)"
        return super().describe(state, action)

    def arm_guns(self, state: GameState) -> set[str]:
        """The ids of the guns on the table."""
        return {k for k, u in state.units.items() if u.type in self.arm.guns}

    def unit_reach(self, state: GameState, unit_id: str) -> tuple[Reach, ...]:
        u = state.units[unit_id]
        gun = self.arm.guns.get(u.type)
        if gun is not None:  # §2.4: a mobile gun goes at half a soldier's pace
            rng = gun.weapon.range
            reach = 0 if rng is None else rng.sides + rng.bonus
            return (Reach("move", 0.0), Reach("range", reach * self.step_m))
        mach = self.arm.machines.get(u.type)
        if mach is not None and u.attrs.get("durability"):
            move = mach.speed_at(int(u.attrs["durability"])) * self.step_m
            ws = [
                self._weapon(self._fig(u, u.models[0]), k)
                for k in u.attrs.get("loadout", ())
            ]
            dice = [w.range for w in ws if w is not None and w.range is not None]
        else:
            sol = [self._soldier(m.attrs) for m in u.models if m.kind == "soldier"]
            move = max((s.speed for s in sol), default=0) * self.step_m
            dice = [s.range for s in sol if s.range is not None]
        reach = max((d.sides + d.bonus for d in dice), default=0)
        return (Reach("move", move), Reach("range", reach * self.step_m))

    def model_marks(self, state: GameState, unit: Any) -> dict[str, tuple[str, ...]]:
        """A machine without a pilot stands out of action (seed §1.6: it can
        neither move nor shoot until someone boards it, official §9.1): drawn
        hollow, with "no pilot" and its durability cell in words.

        Examples:
            >>> from wargame.engine import Model, Point, Unit
            >>> m = Model("t.1", "machine", position=Point(0.0, 0.0))
            >>> u = Unit("t", "T-REX", "a", None, "t_rex", models=(m,),
            ...          attrs={"durability": 5, "pilot": None})
            >>> Views.model_marks(None, None, u)  # type: ignore[arg-type]
            {'t.1': ('no pilot', 'durability 5')}
        """
        if any(m.kind == "gun" for m in unit.models):
            return self._gun_marks(state, unit)
        if "durability" not in unit.attrs or unit.attrs.get("pilot"):
            return {}
        words = ("no pilot", f"durability {unit.attrs['durability']}")
        return {m.id: words for m in unit.models if m.kind == "machine"}

    def _gun_marks(self, state: GameState, unit: Any) -> dict[str, tuple[str, ...]]:
        """An unmanned gun — no soldier of its side who may fire it touches it
        (§7.5) — is out of action: drawn hollow, "unmanned" and its tracks."""
        g = cast("Guns", self).gun_fig(state, unit.id)
        if g is None or cast("Guns", self).crew_of(state, g):
            return {}
        words = (
            "unmanned",
            f"durability {unit.attrs['durability']}",
            f"ammo {unit.attrs['ammo']}",
        )
        return {g.model.id: words}

    def unit_look(self, state: GameState, unit: Any) -> UnitLook:
        """A gun (§2.4): its name, "manned by" its crew (the soldiers of its
        side touching it who may fire it, §7.5) or "unmanned"; its tracks."""
        gun = self.arm.guns.get(unit.type)
        if gun is None:
            return self._figure_look(state, unit)
        g = cast("Guns", self).gun_fig(state, unit.id)
        crew = [] if g is None else cast("Guns", self).crew_of(state, g)
        return UnitLook(
            "mortar" if gun.mobile else "anti_tank",
            None,
            f"{gun.name} ({'mobile' if gun.mobile else 'stationary'} gun)",
            words=(f"manned by {', '.join(crew)}" if crew else "unmanned",),
            markers=(
                f"durability {unit.attrs.get('durability')}",
                f"ammo {unit.attrs.get('ammo')}",
            ),
        )

    def _figure_look(self, state: GameState, unit: Any) -> UnitLook:
        """A squad or a machine: "acted" once its turn is done (§3.2, drawn as
        spent); a machine's durability cell with its sector's colour and speed
        (§2.2, §4.2), its ammunition (§7.7) and its pilot (§1.6) as markers.

        Examples:
            >>> from wargame.engine import load_scenario, Game
            >>> g = Game(load_scenario("bronepehota_linz_bank"), seed=1)
            >>> look = g.ruleset.unit_look(g.state, g.state.units["pl_raptor"])
            >>> look.markers  # doctest: +NORMALIZE_WHITESPACE
            ('durability 9 of 9 (green, speed 5)', 'ammo 12 of 12',
             'pilot pl_assault.1')
        """
        look = super().unit_look(state, unit)
        acted = bool(unit.attrs.get("acted"))
        words = (*look.words, "acted") if acted else look.words
        mach = self.arm.machines.get(unit.type)
        markers: tuple[str, ...] = look.markers
        if mach is not None and unit.attrs.get("durability"):
            d = int(unit.attrs["durability"])
            markers += (
                f"durability {d} of {mach.durability_max} "
                f"({mach.colour_at(d)}, speed {mach.speed_at(d)})",
                f"ammo {unit.attrs.get('ammo')} of {mach.ammo_max}",
            )
            pilot = unit.attrs.get("pilot") or {}
            if pilot.get("id"):
                markers += (f"pilot {pilot['id']}",)
        return replace(look, words=words, markers=markers, spent=acted or look.spent)

    def unit_columns(self, state: GameState) -> dict[str, dict[str, Any]]:
        guns = cast("Guns", self)
        crews: dict[str, Any] = {}
        for k, u in state.units.items():
            g = guns.gun_fig(state, k) if u.type in self.arm.guns else None
            crews[k] = None if g is None else ", ".join(guns.crew_of(state, g)) or "-"
        return {
            "soldiers": {
                k: sum(m.kind == "soldier" for m in u.models)
                for k, u in state.units.items()
            },
            "durability": {
                k: u.attrs.get("durability") for k, u in state.units.items()
            },
            "ammo": {k: u.attrs.get("ammo") for k, u in state.units.items()},
            "pilot": {
                k: (u.attrs.get("pilot") or {}).get("id")
                for k, u in state.units.items()
            },
            "acted": {k: bool(u.attrs.get("acted")) for k, u in state.units.items()},
            "crew": crews,  # a gun's crew (§7.5); "-": unmanned
        }

    def odds_table(self, state: GameState, shooter: str, target: str) -> Any:
        """Exact odds of each figure (and weapon) of ``shooter`` firing at the
        nearest figure of ``target`` now (:func:`~.odds.shot_pmf`, §7.4).

        One row per figure and weapon: the distance in steps (rounded up), the
        visibility and cover (Table 5), the armour with cover, whether the shot
        is allowed now and why not, P(hit), P(at least one damage) and the
        expected damage.  ``None`` when either unit is not on the map.
        """
        import pandas as pd

        a_u, t_u = state.units.get(shooter), state.units.get(target)
        if a_u is None or t_u is None or a_u.destroyed or t_u.destroyed:
            return None
        figs = [self._fig(t_u, m) for m in t_u.models if isinstance(m.position, Point)]
        rows = []
        for m in a_u.models:
            if not isinstance(m.position, Point):
                continue
            f = self._fig(a_u, m)
            if not figs:
                break
            t = min(figs, key=lambda e: distance(self._pos(f), self._pos(e)))
            keys = [""] if f.machine is None else list(a_u.attrs.get("loadout", ()))
            for key in keys:
                if f.machine is None:
                    s = f.soldier
                    if s is None or s.range is None or s.power is None:
                        continue
                    rng, power = s.range, s.power
                else:
                    w = self._weapon(f, key)
                    if w is None or w.range is None or w.power is None:
                        continue
                    rng, power = w.range, w.power
                dist = distance(self._pos(f), self._pos(t)) / self.step_m
                vis = visibility_of(self.visible_part(f, t))
                why = cast("BronepehotaRuleset", self).shot_problem(
                    state, f, t_u.id, t.model.id, key
                )
                cover = COVER.get(vis)
                pmf = shot_pmf(rng, dist, power, t.armour, cover=cover or 0)
                ok = cover is not None
                rows.append(
                    {
                        "shooter": m.id,
                        "weapon": key or "personal weapon",
                        "range": str(rng),
                        "power": str(power),
                        "target": t.model.id,
                        "steps": steps(dist),
                        "visible": vis,
                        "armour": t.armour + (cover or 0),
                        "allowed": why is None,
                        "why_not": why or "",
                        "p_hit": float(hit_probability(rng, dist)) if ok else 0.0,
                        "p_damage": float(1 - pmf[0]) if ok else 0.0,
                        "expected_damage": float(sum(k * p for k, p in enumerate(pmf)))
                        if ok
                        else 0.0,
                    }
                )
        return pd.DataFrame(rows)

    def sight_options(
        self, state: GameState, observer: str, target: str | None
    ) -> dict[str, Any]:
        return {"observer_height_m": EYE_M, "target_height_m": 2.0, "hex_rule": False}
