"""How World at War shows itself to the layers above the rules.

The presentation and analysis hooks of :class:`~wargame.engine.Ruleset` for
``waw-classic``: counters in their nation's colour with the icon of their unit
class, the counter's state in the rulebook's words (reduced, disrupted, Ops
Complete: 000 §1.3, 3.0), weapon reach from the rules' own range bands (6.1.1),
the exact odds table of a shot (6.0, from the same rule code as the dice), the
chit cup (2.0), objective control and victory points (scenario rules), and the
``wargame odds waw-classic`` command line.

Examples:
    >>> from wargame.engine import Game
    >>> game = Game.from_scenario("test_remagen", seed=1)
    >>> look = game.ruleset.unit_look(game.state, game.state.units["SU-T1"])
    >>> look.symbol, look.colour, look.nation
    ('armour', '#c8483c', 'ussr')
    >>> [r.metres for r in game.ruleset.unit_reach(game.state, "SU-T1")]
    [1350.0, 2550.0]
    >>> game.ruleset.panels(game.state, None)[0].title
    'Chit cup'
"""

from __future__ import annotations

import argparse
from functools import lru_cache
from typing import TYPE_CHECKING, Any, ClassVar

from wargame.engine import GameState, Unit
from wargame.engine.present import Panel, PanelItem, PanelSection, Reach, UnitLook
from wargame.engine.scenario import objective_id

from .catalog import get_unit, terrain_chart, unit_catalog
from .combat import IllegalFireError, RangeBand, plan_fire, range_band, rule_range
from .unit_attrs import carried_by, disrupted, ops_complete

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = ["NATION_COLOURS", "UNIT_ICONS", "fire_reach"]

#: Counter colours of the seeds' nations: US green, Soviet red, West German grey,
#: British beige.
NATION_COLOURS: dict[str, str] = {
    "us": "#7a9a4a",
    "ussr": "#c8483c",
    "frg": "#a4a8ab",
    "uk": "#d9c79b",
}

#: The NATO-style icon of each World at War unit class.
UNIT_ICONS: dict[str, str] = {
    "armored": "armour",
    "light_armored": "mech_infantry",
    "infantry": "infantry",
    "recon": "recon",
    "hq": "hq",
    "mortar": "mortar",
    "aa": "air_defence",
    "helicopter": "helicopter",
    "unarmored_vehicle": "anti_tank",
    "support_weapon": "anti_tank",
    "bridge_layer": "bridging",
}


@lru_cache(maxsize=256)
def fire_reach(weapon_range: int, underlined: bool) -> tuple[int, int]:
    """Hex distances (1 = adjacent) a weapon reaches at normal and extended range,
    from the rules' own range bands (WaW 6.1.1).

    Examples:
        >>> fire_reach(8, False)    # T-72 gun: printed range 8
        (9, 17)
    """
    normal = extended = 1
    for d in range(1, 2 * weapon_range + 3):
        try:
            band = range_band(
                rule_range(d),
                weapon_range,
                range_underlined=underlined,
                adjacent=d == 1,
            )
        except IllegalFireError:
            break
        extended = d
        if band is not RangeBand.EXTENDED:
            normal = d
    return normal, extended


class _Presentation:
    """The presentation hooks of :class:`~wargame.rules.waw.WawRuleset`."""

    default_policy: ClassVar[str] = "doctrine"
    odds_command: ClassVar[bool] = True

    info: Any
    map: Any
    scenario: Any
    catalog: Any
    objectives: tuple[tuple[str, int, str], ...]

    # -- counters ------------------------------------------------------------ #
    def unit_look(self, state: GameState, unit: Unit) -> UnitLook:
        """Nation colour, class icon and the counter's state words."""
        try:
            t = get_unit(unit.type)
        except KeyError:
            return UnitLook("unknown", None, unit.type)
        words: list[str] = []
        if unit.strength == "reduced":
            words.append("reduced")
        if disrupted(unit):
            words.append("disrupted")
        if ops_complete(unit):
            words.append("Ops Complete")
        if carried_by(unit) is not None:
            words.append(f"aboard {carried_by(unit)}")
        marks = self.marker_words(unit)
        kind = UNIT_ICONS.get(t.unit_class.value, "unknown")
        rank = 2 if carried_by(unit) is not None else 1 if kind == "hq" else 0
        return UnitLook(
            kind,
            NATION_COLOURS.get(t.nation.value),
            t.name,
            t.nation.value,
            words=tuple(words),
            markers=marks,
            reduced=unit.strength == "reduced",
            suppressed=disrupted(unit),
            spent=ops_complete(unit),
            rank=rank,
        )

    def marker_words(self, unit: Unit) -> tuple[str, ...]:
        """The unit's special state in words: helicopter mode (9.0), laid bridge,
        hiding (6.1.5), Artillery Shock, its support weapon (1.3.5)."""
        words = []
        if self.info[unit.id].is_helicopter:
            words.append(f"{unit.attrs.get('mode') or 'low'} mode")
        if unit.attrs.get("deployed"):
            words.append("bridge laid")
        if unit.attrs.get("hiding"):
            words.append("hiding")
        if unit.attrs.get("shock"):
            words.append("artillery shock")
        if unit.attrs.get("sw"):
            placed = "placed" if unit.attrs.get("sw_placed") else "unplaced"
            words.append(f"SW {self.catalog[unit.attrs['sw']].name} ({placed})")
        return tuple(words)

    def unit_reach(self, state: GameState, unit_id: str) -> tuple[Reach, ...]:
        """Normal and extended range of the unit's longest weapon (6.1.1), in
        metres between hex centres."""
        u = state.units[unit_id]
        try:
            side = get_unit(u.type).side(u.strength == "reduced")
        except KeyError:
            return ()
        normal = extended = 0
        for kind in ("ap", "he", "aa"):
            w = getattr(side, kind)
            if w is None or w.fp <= 0:
                continue
            n, e = fire_reach(int(w.range), bool(w.range_underlined))
            normal, extended = max(normal, n), max(extended, e)
        if not extended:
            return ()
        size = float(self.map.hex_size_m)
        return (
            Reach("normal range", normal * size),
            Reach("extended range", extended * size),
        )

    def odds_table(
        self, state: GameState, shooter: str, target: str
    ) -> pd.DataFrame | None:
        """Exact results of ``shooter`` firing each of its weapons at ``target``
        (6.0), with whether the shot is legal now (``legal``: ``None`` or why
        not) and why a weapon cannot fire at all (``note``)."""
        import pandas as pd

        from .actions import Fire
        from .helpers import state_odds
        from .odds import OUTCOMES

        u, t = state.units[shooter], state.units[target]
        if u.destroyed or t.destroyed:
            raise ValueError("both units must be in play")
        side = get_unit(u.type).side(u.strength == "reduced")
        rows = []
        for kind in ("ap", "he", "aa"):
            w = getattr(side, kind)
            if w is None or w.fp <= 0:
                continue
            row: dict[str, Any] = {"weapon": kind.upper()}
            try:
                p = state_odds(
                    self,  # type: ignore[arg-type]  # mixed into WawRuleset
                    state,
                    shooter,
                    target,
                    weapon=kind,
                    results=True,
                )
                row.update({k: float(p[k]) for k in OUTCOMES})
                row["note"] = ""
            except ValueError as exc:
                row.update(dict.fromkeys(OUTCOMES, float("nan")))
                row["note"] = str(exc)
            row["legal"] = self.why_not(state, Fire(shooter, target, kind))  # type: ignore[attr-defined]
            rows.append(row)
        cols = ["weapon", *OUTCOMES, "note", "legal"]
        return pd.DataFrame(rows, columns=cols).set_index("weapon")

    # -- panels and results -------------------------------------------------- #
    def panels(self, state: GameState, side: str | None) -> tuple[Panel, ...]:
        """The chit cup (2.0): chits in the cup, set aside, drawn, active."""
        owner = {f.id: f.side for f in state.formations.values()}

        def item(chit: str) -> PanelItem:
            f = state.formations.get(chit)
            return PanelItem(chit, owner.get(chit), f.name if f is not None else chit)

        sections = [
            PanelSection(name, tuple(item(c) for c in state.decks.get(name, ())))
            for name in ("cup", "aside")
        ]
        for key, title in (("drawn", "drawn"), ("active", "active formation")):
            v = state.vars.get(key)
            if v:
                sections.append(PanelSection(title, (item(str(v)),)))
        return (Panel("Chit cup", tuple(sections)),)

    def objective_control(self, state: GameState) -> dict[str, str | None]:
        """Who holds each scenario objective, by its stable id."""
        # setup's objectives (hex, vp, name) are the scenario's, in order: a
        # scenario with a bad objective never makes a rule system
        return {
            objective_id(raw, i): state.control.get(h)
            for i, (raw, (h, _vp, _name)) in enumerate(
                zip(self.scenario.objectives, self.objectives, strict=True)
            )
        }

    # -- command line: wargame odds waw-classic ------------------------------ #
    @classmethod
    def odds_arguments(cls, parser: argparse.ArgumentParser) -> None:
        """The options of ``wargame odds waw-classic``."""
        parser.add_argument("--attacker", help="unit type id of the firer")
        parser.add_argument("--target", help="unit type id of the target")
        parser.add_argument("--range", type=int, help="range in hexes")
        parser.add_argument(
            "--terrain", default="clear", help="terrain class of the target"
        )
        parser.add_argument(
            "--moving", action="store_true", help="the firer fires on the move"
        )
        parser.add_argument(
            "--leadership", type=int, default=0, help="HQ leadership added"
        )
        parser.add_argument(
            "--weapon",
            choices=["ap", "he", "aa", "assault"],
            help="which firepower: ap, he, aa or assault (default: the one the "
            "rules pick for this target, WaW 6.1)",
        )
        parser.add_argument("--list", action="store_true", help="list unit type ids")

    @classmethod
    def odds_report(cls, args: argparse.Namespace) -> str:
        """The text of ``wargame odds waw-classic``.

        Raises:
            ValueError: a bad option (the message says which and what to use).
        """
        import difflib

        import pandas as pd

        from .odds import odds, result_odds

        catalog = unit_catalog()
        if args.list:
            return "\n".join(f"{uid:24s} {u.name}" for uid, u in catalog.items())
        need = ("attacker", "target", "range")
        missing = [f"--{k}" for k in need if getattr(args, k) is None]
        if missing:
            raise ValueError(f"missing {', '.join(missing)} (or use --list)")
        for role, unit in (("attacker", args.attacker), ("target", args.target)):
            if unit not in catalog:
                close = difflib.get_close_matches(unit, list(catalog), n=3)
                hint = f" (did you mean {', '.join(close)}?)" if close else ""
                raise ValueError(
                    f"unknown --{role} unit type {unit!r}{hint}; "
                    "see `wargame odds waw-classic --list`"
                )
        terrains = list(terrain_chart().terrain)
        if args.terrain not in terrains:
            raise ValueError(
                f"unknown --terrain {args.terrain!r}; terrain classes: "
                f"{', '.join(terrains)}"
            )
        if args.range < 0:
            raise ValueError(f"--range must be >= 0 hexes, not {args.range}")
        kw = {
            "moving": args.moving,
            "leadership": args.leadership,
            "kind": getattr(args, "weapon", None),
        }
        try:
            plan = plan_fire(
                args.attacker,
                args.target,
                range_hexes=args.range,
                terrain=args.terrain,
                **kw,
            )
        except IllegalFireError as exc:
            raise ValueError(str(exc)) from None
        hits = odds(args.attacker, args.target, args.range, args.terrain, **kw)
        results = result_odds(
            args.attacker, args.target, args.range, args.terrain, **kw
        )
        a, t = catalog[args.attacker], catalog[args.target]
        table = pd.DataFrame({"P(net hits)": hits})
        table["P(at least)"] = hits[::-1].cumsum()[::-1]
        fmt = lambda v: f"{v:7.4f}"  # noqa: E731
        f = plan.fire
        mods = ", ".join(f"{why} {m:+d}" for why, m in f.to_hit_modifiers)
        return "\n".join(
            [
                f"{a.name} fires at {t.name} at {args.range} hexes, target in "
                f"{args.terrain}{', firer moving' if args.moving else ''}",
                f"weapon: {plan.kind.value.upper()} firepower, {f.printed_firepower} "
                f"dice hitting on {f.printed_to_hit}+ as printed; "
                f"{plan.band.value} range (WaW 6.1.1: to-hit "
                f"{plan.band.to_hit_modifier:+d})",
                f"rolled: {f.firepower} dice hitting on {f.to_hit}+"
                + (f" ({mods})" if mods else ""),
                table.to_string(float_format=fmt),
                "",
                results.to_frame("P(result)").to_string(float_format=fmt),
            ]
        )
