"""What the layers above are shown of a Conflict of Heroes game, through the
engine's neutral hooks: counters (facing, status, hit markers as the viewer may
see them), the AP pool and CAPs, a side's own hand, odds and unit columns.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from wargame.engine import Action, GameState, Unit
from wargame.engine.present import Panel, PanelItem, PanelSection, Reach, UnitLook

from ._core import Mixin, status_of
from .actions import (
    Fire,
    Flame,
    HastyDefence,
    Hide,
    IndirectFire,
    InitiativeBid,
    Load,
    Move,
    Pass,
    Pivot,
    PlayCard,
    PlotArtillery,
    Rally,
    SmokeFire,
    Spend,
    Stall,
    Unload,
)
from .cards import cards_by_id

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = ["Presentation"]

_PAY_WORDS = {
    "ap": "",
    "opportunity": " (opportunity action)",
    "command": " (command action, CAPs)",
    "card": " (free: Command Action card)",
}


class Presentation(Mixin):
    """Mixin: looks, words, panels and columns."""

    specs: dict[str, Any]
    sides: tuple[str, str]
    board: Any

    def _symbol(self, uid: str) -> str:
        ut = self.specs[uid].type
        if ut.kind == "vehicle":
            return "armour" if ut.armored else "recon"
        if ut.he:
            return "mortar"
        if ut.mobility == "wheeled" or (ut.crewed and ut.fp_blue):
            return "anti_tank"
        return "infantry"

    def unit_look(self, state: GameState, unit: Unit) -> UnitLook:
        """Symbol, state words (status, marker as far as the viewer's state
        holds it) and markers (facing, hidden)."""
        ut = self.specs[unit.id].type
        words: list[str] = []
        st = status_of(unit)
        if st != "fresh":
            words.append(st)
        kind = unit.attrs.get("hit") or unit.attrs.get("marker")
        if kind:
            words.append(
                str(kind).replace("_", " ")
                + ("" if unit.attrs.get("marker") else " (face down)")
            )
        elif unit.attrs.get("marked"):
            words.append("hit (face down)")
        if unit.hidden:
            words.append("hidden")
        markers = []
        if unit.facing is not None:
            markers.append(f"facing {unit.facing}")
        if unit.attrs.get("hasty"):
            markers.append("hasty defence")
        if unit.attrs.get("carried_by"):
            markers.append(f"on {unit.attrs['carried_by']}")  # §17.0
        if unit.attrs.get("immobilised"):
            markers.append("immobilised")  # §14.5
        if unit.attrs.get("bogged") == state.turn:
            markers.append("bogged down")
        if unit.attrs.get("trench"):
            markers.append("in a trench")
        if unit.attrs.get("bunker"):
            markers.append("in a bunker")  # §18.1.2
        return UnitLook(
            self._symbol(unit.id),
            None,
            ut.name,
            nation=ut.nation,
            words=tuple(words),
            markers=tuple(markers),
            suppressed=bool(unit.attrs.get("marked")),
            spent=st == "spent",
        )

    def unit_reach(self, state: GameState, unit_id: str) -> tuple[Reach, ...]:
        """Normal and long range rings (§7.7.1), in metres."""
        ut = self.specs[unit_id].type
        if ut.fire_cost is None or not ut.range:
            return ()
        m = float(self.board.hex_size_m)
        return (
            Reach("normal range", ut.range * m),
            Reach("long range", 2 * ut.range * m),
        )

    def odds_table(
        self, state: GameState, shooter: str, target: str
    ) -> pd.DataFrame | None:
        """Exact odds of ``shooter`` firing alone at ``target`` now
        (:func:`unit_odds`)."""
        from .odds_map import unit_odds_frame

        return unit_odds_frame(self, state, shooter, target)

    def panels(self, state: GameState, side: str | None) -> tuple[Panel, ...]:
        """AP pools and CAPs of both sides; the hand ``side`` may see."""
        pools = []
        for s in self.sides:
            pools.append(
                PanelItem(
                    f"{s}: {state.pools.get(f'ap:{s}', 0)} AP, "
                    f"{state.pools.get(f'caps:{s}', 0)} CAP, "
                    f"{state.vars.get(f'vp:{s}', 0)} VP",
                    s,
                )
            )
        sections = [PanelSection("AP pool, CAPs and VP", tuple(pools))]
        cat = cards_by_id()
        for s in self.sides:
            hand = state.decks.get(f"hand:{s}", ())
            if not hand and not state.decks.get("cards"):
                continue
            seen = side is None or side == s
            items = tuple(
                PanelItem(self._card_name(c, cat) if seen else "?", s) for c in hand
            )
            sections.append(PanelSection(f"{s} hand", items))
        played = state.decks.get("discard", ())
        if played:
            sections.append(
                PanelSection(
                    "played cards",
                    tuple(PanelItem(self._card_name(c, cat)) for c in played[-5:]),
                )
            )
        return (Panel("Conflict of Heroes", tuple(sections)),)

    @staticmethod
    def _card_name(card: str, cat: Any) -> str:
        c = cat.get(card)
        if c is None:
            return card
        return f"#{c.number} {c.name}" if c.printed_number else c.name

    def describe(self, state: GameState, action: Action) -> str:
        """An action in game terms, e.g. ``"Rifles '41 moves to G9"``."""

        def names(ids: Any) -> str:
            out = []
            for x in ids:
                u = state.units.get(x) if isinstance(x, str) else None
                out.append(u.name if u is not None else repr(x))
            return " + ".join(out)

        pay = _PAY_WORDS.get(str(getattr(action, "pay", "ap")), "")
        if isinstance(action, Move):
            verb = "moves hidden" if action.hidden else "moves"
            to = ", ".join(action.to) + (
                f" then {', '.join(action.then)}" if action.then else ""
            )
            return f"{names(action.units)} {verb} to {to}{pay}"
        if isinstance(action, Pivot):
            return f"{names(action.units)} pivots to face {action.facing}{pay}"
        if isinstance(action, Fire):
            group = (
                f" (firegroup of {len(action.units)})" if len(action.units) > 1 else ""
            )
            caps = f" +{action.caps} CAP" if action.caps else ""
            card = " with Careful Aiming (+2 FP)" if action.card else ""
            return (
                f"{names(action.units[:1])} fires at {action.hex}{group}{caps}"
                f"{card}{pay}"
            )
        if isinstance(action, IndirectFire):
            via = f" spotted from {action.spotter}" if action.spotter else ""
            caps = f" +{action.caps} CAP" if action.caps else ""
            who = names(action.units)
            return f"{who} fires indirectly at {action.hex}{via}{caps}{pay}"
        if isinstance(action, SmokeFire):
            via = f" spotted from {action.spotter}" if action.spotter else ""
            return f"{names(action.units)} fires smoke at {action.hex}{via}{pay}"
        if isinstance(action, Flame):
            caps = f" +{action.caps} CAP" if action.caps else ""
            who = names(action.units)
            return f"{who} fires its flamethrower at {action.hex}{caps}{pay}"
        if isinstance(action, PlotArtillery):
            if action.hex is None:
                return "plot no artillery this round"
            what = "smoke" if action.smoke else "artillery"
            return f"plot {what} on {action.hex} for the next pre-round"
        if isinstance(action, HastyDefence):
            return f"{names(action.units)} prepares a hasty defence{pay}"
        if isinstance(action, Rally):
            return f"{names(action.units)} tries to rally{pay}"
        if isinstance(action, Hide):
            return f"{names(action.units)} hides at {action.to}{pay}"
        if isinstance(action, Load | Unload):  # §17.0
            verb = "loads" if isinstance(action, Load) else "unloads"
            return f"{names(action.units[:1])} {verb} {names(action.units[1:])}{pay}"
        if isinstance(action, Stall):
            return "stall (1 CAP)" if action.pay == "command" else "stall (1 AP)"
        if isinstance(action, Pass):
            return "pass"
        if isinstance(action, Spend):
            return "spend the activated units"
        if isinstance(action, InitiativeBid):
            return f"add {action.caps} CAP to the initiative roll"
        if isinstance(action, PlayCard):
            paid = {"command": " (CAPs)", "ap": " (APs)"}.get(str(action.pay), "")
            return (
                f"play {self._card_name(action.card, cards_by_id())}"
                + (f" on {names(action.units)}" if action.units else "")
                + (f" at {action.hex}" if action.hex else "")
                + paid
            )
        return f"{action.type}"

    def unit_columns(self, state: GameState) -> dict[str, dict[str, Any]]:
        """CoH columns for ``Game.units``: status, hit marker (as the state
        holds it), DR front/flank, FP red/blue, range."""
        cols: dict[str, dict[str, Any]] = {
            k: {}
            for k in (
                "status",
                "marker",
                "fp_red",
                "fp_blue",
                "range",
                "dr_front",
                "dr_flank",
            )
        }
        for uid, u in state.units.items():
            ut = self.specs[uid].type
            cols["status"][uid] = "destroyed" if u.destroyed else status_of(u)
            kind = u.attrs.get("hit") or u.attrs.get("marker")
            cols["marker"][uid] = (
                str(kind) if kind else ("face down" if u.attrs.get("marked") else None)
            )
            cols["fp_red"][uid] = ut.fp_red
            cols["fp_blue"][uid] = ut.fp_blue
            cols["range"][uid] = ut.range
            cols["dr_front"][uid] = ut.dr_front
            cols["dr_flank"][uid] = ut.dr_flank
        return cols
