"""Conflict of Heroes: Awakening the Bear, 2nd edition, as a game (``coh-2e``).

:class:`CohRuleset` plugs the rules of this package into :mod:`wargame.engine`:
the round (:mod:`.sequence`), paying for actions (:mod:`.activation`),
movement (:mod:`.movement`), fire, close combat, hit markers and rally
(:mod:`.fire`), hidden units and snipers (:mod:`.hidden`), cards
(:mod:`.cards`, :mod:`.deck`, :mod:`.card_play`), the scenario
(:mod:`.setup`) and what the layers above are shown (:mod:`.presentation`).
The seed text (003: §8-10, a later printing of the 2nd edition) wins over the
June 2012 rulebook; each difference is a rule option.  Every judgement call
carries ``# ASSUMPTION:`` and is listed in ``docs/rules/coh-2e.md``.

Examples:
    >>> from wargame.engine import Game
    >>> game = Game.from_scenario("coh_partisans", seed=1)
    >>> game.state.phase, game.current_side
    ('play', 'german')
    >>> sorted({type(a).__name__ for a in game.legal_actions()})  # they enter
    ['Move', 'Pass', 'PlayCard', 'Stall']
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from wargame.engine import (
    Action,
    GameState,
    IllegalActionError,
    RuleContext,
    RulesetBase,
    Scenario,
)

from ._core import EVENT_KINDS, PHASES, status_of
from .actions import (
    ACTION_TYPES,
    PAY_MODES,
    Fire,
    Flame,
    HastyDefence,
    Hide,
    IndirectFire,
    InitiativeBid,
    KeepRoll,
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
from .activation import Activation
from .artillery import Artillery
from .attack_rolls import AttackRolls
from .bunkers import Bunkers
from .card_obstacles import CardObstacles
from .card_play import CardPlay
from .cc_retreat import CcRetreat
from .deck import Cards
from .fire import Combat
from .fortifications import Fortifications
from .hasty import HastyDefences
from .hidden import Hidden
from .luck import Luck
from .mines import Mines
from .mortars import Mortars
from .movement import Movement
from .obstacles import Obstacles
from .odds_cli import OddsCommand
from .pioneers import Pioneers
from .presentation import Presentation
from .rally import Rallying
from .sequence import RoundSequence
from .setup import Setup
from .smoke import Smoke
from .transport import Transport
from .vehicles import Vehicles
from .veterans import Veterans

__all__ = ["CohRuleset"]

#: The method that says why an action of each type is illegal, and its cost.
_CHECKS: dict[type, str] = {
    Move: "move_problem",
    Pivot: "pivot_problem",
    Fire: "fire_problem",
    Rally: "rally_problem",
    Hide: "hide_problem",
    IndirectFire: "indirect_problem",
    SmokeFire: "smoke_problem",
    Flame: "flame_problem",
    HastyDefence: "hasty_problem",
    Load: "load_problem",
    Unload: "unload_problem",
}


class CohRuleset(
    OddsCommand,
    Presentation,
    CardPlay,
    Luck,
    Veterans,
    CardObstacles,
    RoundSequence,
    Activation,
    Movement,
    AttackRolls,
    Rallying,
    Combat,
    Mortars,
    Pioneers,
    Fortifications,
    Bunkers,
    Obstacles,
    HastyDefences,
    CcRetreat,
    Vehicles,
    Transport,
    Mines,
    Artillery,
    Hidden,
    Cards,
    Smoke,
    Setup,
    RulesetBase,
):
    """Conflict of Heroes 2nd edition bound to one scenario and map.

    Raises:
        ScenarioError: every problem of the scenario, one per line.
    """

    id = "coh-2e"
    title = "Conflict of Heroes: Awakening the Bear! (2nd edition)"
    positions = "hex"
    phases = PHASES
    event_kinds = EVENT_KINDS
    action_types = ACTION_TYPES
    hidden_information = True
    #: A hit marker lies face down: its kind is the owner's secret (§7.5).
    secret_attrs: ClassVar[frozenset[str]] = frozenset({"hit"})
    #: CoH scale (research/coh.md §1.1): hexes of 40-50 m; the engine plays 50 m.
    hex_size_m: ClassVar[float] = 50.0
    default_policy: ClassVar[str] = "random"
    odds_command: ClassVar[bool] = True
    scenario_keys: ClassVar[Mapping[str, frozenset[str]]] = {
        "scenario": frozenset(
            {"objectives", "reinforcements", "victory", "rules", "fortifications"}
        ),
        "sides": Setup.SIDE_KEYS | {"oba"},
        "units": frozenset(
            {
                "hex",
                "lonlat",
                "place",
                "facing",
                "hidden",
                "hasty",
                "smoke",
                "flamethrower",
            }
        ),
        "rules": frozenset(
            {
                "level_height_m",
                "first_initiative",
                "cards",
                "extra_cards",
                "stall_reveals",
            }
        ),
        "victory": frozenset({"kill_vp"}),
        "objectives": frozenset({"hex", "lonlat", "place"}),
    }

    def __init__(self, scenario: Scenario, game_map: Any) -> None:
        if game_map is None:
            raise scenario.error(
                "map", "Conflict of Heroes is played on a map: add [map]"
            )
        self.scenario = scenario
        self.map = game_map
        self._read_scenario()
        self.objective_hexes = frozenset(h for _i, h, _v, _b in self.objectives)
        self._initial = self._build_initial()

    def initial_state(self) -> GameState:
        """The state before the first pre-round."""
        st = self._initial.copy()
        for side in self.sides:
            st.vars[f"hidden_count:{side}"] = sum(
                1 for u in st.units.values() if u.side == side and u.hidden
            )
        return st

    # -- who may pay how -------------------------------------------------- #
    def pays(self, state: GameState, side: str, units: tuple[str, ...]) -> list[str]:
        """The payment modes worth trying for ``units`` now."""
        memo = self.memo(state)
        if memo is None:
            return self._pays(state, side, units)
        key = ("pays", side, units)
        got = memo.get(key)
        if got is None:
            got = memo[key] = tuple(self._pays(state, side, units))
        return list(got)

    def _pays(self, state: GameState, side: str, units: tuple[str, ...]) -> list[str]:
        if self.free_action(state, side):
            return ["card"]  # a Command Action card's free action (card #2)
        sts = [status_of(state.units[u]) for u in units]
        out = []
        if all(s != "spent" for s in sts):
            out.append("ap")
        if all(s == "fresh" for s in sts):
            out.append("opportunity")
        if self.caps(state, side) > 0:
            out.append("command")
        return out

    # -- legality --------------------------------------------------------- #
    def check(self, state: GameState, action: Action) -> None:
        """Raise :class:`IllegalActionError` saying why ``action`` is not allowed."""
        with self.memo_scope(state):  # only read: answers kept (_memo.py)
            reason = self.why_not(state, action)
        if reason is not None:
            raise IllegalActionError(reason)

    def why_not(self, state: GameState, action: Action) -> str | None:
        """The reason an action is illegal now (``None``: legal)."""
        if state.vars.get("over"):
            return "the game is over"
        side = self.current_side(state)
        if side is None:
            return "nobody is to decide"
        if state.phase == "initiative":
            if not isinstance(action, InitiativeBid):
                return "announce initiative CAPs first (§2.1)"
            return self.bid_problem(state, action)
        if isinstance(action, InitiativeBid):
            return "no initiative roll is under way"
        if self.close_call_open(state):  # a veteran card's window (seed 003 §8.3)
            return self.close_call_problem(state, side, action)
        if state.phase == "artillery" or isinstance(action, PlotArtillery):
            if not isinstance(action, PlotArtillery):
                return "write down the artillery target first (§2.0, §12.3)"
            return self.plot_problem(state, side, action)
        if self.luck_window(state):  # the rolls wait for Luck! (card #12)
            return self.luck_problem(state, side, action)
        if isinstance(action, KeepRoll):
            return "no roll waits for a Luck! card (card #12)"
        pay = getattr(action, "pay", None)
        if pay is not None and pay not in PAY_MODES:
            return f"unknown payment {pay!r}; use one of {list(PAY_MODES)}"
        if isinstance(action, Pass):
            return None
        pending = self.pending_card_problem(state, side, action)
        if pending is not None:
            return pending
        if isinstance(action, Spend):
            return None if self.pool(state, side) > 0 else "no activation pool is open"
        if isinstance(action, Stall):
            if action.pay == "ap":
                return (
                    None
                    if self.pool(state, side) > 0
                    else ("stalling with AP needs an activated pool (§2.2)")
                )
            if action.pay == "command":
                return None if self.caps(state, side) >= 1 else "no CAP to stall with"
            return "a stall is paid with 1 AP or 1 CAP (§2.2)"
        name = _CHECKS.get(type(action))
        fn = None if name is None else getattr(self, name)
        if fn is None:
            if isinstance(action, PlayCard):
                return self.card_play_problem(state, side, action)
            return f"{type(action).__name__} is not a Conflict of Heroes action"
        problem, cost = fn(state, side, action)
        if problem is not None:
            return str(problem)
        if isinstance(action, Fire | IndirectFire | Flame) and action.card is not None:
            problem = self.fire_card_problem(state, side, action)  # §8.2
            if problem is not None:
                return problem
        problem = self.vehicle_action_problem(state, action)  # §14.5, §17.0
        if problem is not None:
            return problem
        units = tuple(getattr(action, "units", ()))
        return self.pay_problem(state, side, units, str(pay), int(cost))

    def legal_actions(self, state: GameState) -> list[Action]:
        """Every action the side to decide may take, in a stable order."""
        with self.memo_scope(state):  # only read: answers kept (_memo.py)
            return self._legal_actions(state)

    def _legal_actions(self, state: GameState) -> list[Action]:
        side = self.current_side(state)
        if side is None:
            return []
        if state.phase == "initiative":
            return list(self.bid_options(state))
        if self.close_call_open(state):
            return self.close_call_options(state, side)  # seed 003 §8.3
        if state.phase == "artillery":
            return list(self.plot_options(state))
        if self.luck_window(state):
            return self.luck_options(state, side)  # card #12
        out: list[Action] = [Pass()]
        if not self.free_action(state, side):
            if self.pool(state, side) > 0:
                out += [Spend(), Stall("ap")]
            if self.caps(state, side) >= 1:
                out.append(Stall("command"))
        out += self.move_options(state, side, self.pays)
        out += self.pivot_options(state, side, self.pays)
        fires = self.fire_options(state, side)
        out += fires
        out += self.rally_options(state, side)
        out += self.hide_options(state, side, self.pays)
        indirect = self.indirect_options(state, side)  # §12 (mortars.py)
        out += indirect
        out += self.smoke_options(state, side)  # §13
        flames = self.flame_options(state, side)  # §19 (pioneers.py)
        out += flames
        out += self.hasty_options(state, side)  # §18.1.3 (hasty.py)
        out += self.transport_options(state, side, self.pays)  # §17
        out += self.card_options(state, side, [*fires, *indirect, *flames])  # §8
        if not any(  # what vehicle_action_problem looks for (§14.5, §17.0)
            u.attrs.get("carried_by") or u.attrs.get("immobilised")
            for u in state.units.values()
        ):
            return out
        return [a for a in out if self.vehicle_action_problem(state, a) is None]

    def fire_options(self, state: GameState, side: str) -> list[Action]:
        """Each unit at each hex it may fire at, alone and with every supporter."""
        out: list[Action] = []
        mine = [
            u
            for u in state.units.values()
            if u.side == side and not u.destroyed and u.hex is not None
        ]
        enemy_hexes = sorted(
            {
                u.hex
                for u in state.units.values()
                if u.side != side
                and not u.destroyed
                and u.hex is not None
                and not u.hidden
            }
        )
        hidden_left = int(state.vars.get(f"hidden_count:{self.other(side)}", 0)) > 0
        suspect: set[str] = set()
        if hidden_left:
            mine_hexes = {u.hex for u in mine}
            near = {h for x in mine_hexes if x for h in self.board.within(x, 2)}
            seen = set(enemy_hexes)
            # only the hexes some unit may be offered (its normal range, below)
            offered = {
                h
                for u in mine
                if u.hex is not None and self.specs[u.id].type.fire_cost is not None
                for h in self.board.within(u.hex, int(self.specs[u.id].type.range or 0))
            }
            suspect = {
                h
                for h in offered
                if h not in mine_hexes
                and h not in seen
                and (h not in near or self.suspected(state, side, h))
            }
        pays_of = {u.id: self.pays(state, side, (u.id,)) for u in mine}
        for lead in mine:
            ut = self.specs[lead.id].type
            if ut.fire_cost is None:
                continue
            assert lead.hex is not None
            reach = int(ut.range or 0) * 2
            cands = [
                h for h in enemy_hexes if self.board.distance(lead.hex, h) <= reach
            ]
            if suspect:
                # Fire at hexes that may hide enemies: within normal range only
                # (ASSUMPTION: a choice of what to offer, not a rule; check()
                # accepts any reach).
                cands += [
                    h
                    for h in self.board.within(lead.hex, int(ut.range or 0))
                    if h in suspect
                ]
            lead_pays = pays_of[lead.id]
            beside = [
                s
                for s in mine
                if s.id != lead.id
                and s.hex is not None
                and self.board.distance(s.hex, lead.hex) <= 1
            ]
            narrow = (
                lead.facing is not None and not ut.turret and not self.all_round(lead)
            )
            # the hexes in its arc (if narrow) and clear LOS, within its reach
            fan = self.sight_fan(
                state, lead.hex, lead.facing if narrow else None, max(reach, 0)
            )
            # the rest is what fire_problem refuses, left out cheaply first
            at = lead.hex  # read once: a property (issue #23)
            for h in sorted(h for h in set(cands) if h == at or h in fan):
                # the problem of a fire without CAPs does not depend on the payment
                probe = Fire((lead.id,), h)
                problem, cost = self.fire_problem(state, side, probe)
                if problem is not None:
                    continue
                sup_all = [
                    s
                    for s in beside
                    if self._support_problem(state, lead, s, h) is None
                ]
                for pay in lead_pays:
                    if self.pay_problem(state, side, (lead.id,), pay, cost):
                        continue
                    out.append(probe if pay == "ap" else Fire((lead.id,), h, pay))
                    sup = tuple(s.id for s in sup_all if pay in pays_of[s.id])
                    if sup:
                        g = Fire((lead.id, *sup), h, pay)
                        if self.why_not(state, g) is None:
                            out.append(g)
        return out

    def rally_options(self, state: GameState, side: str) -> list[Action]:
        """Each hit unit that may rally, each way it may pay."""
        out: list[Action] = []
        for u in state.units.values():
            if u.side != side or u.destroyed or not u.attrs.get("marked"):
                continue
            for pay in self.pays(state, side, (u.id,)):
                a = Rally((u.id,), pay)
                if self.why_not(state, a) is None:
                    out.append(a)
        return out

    # -- resolution ------------------------------------------------------- #
    def apply(self, ctx: RuleContext, action: Action) -> None:
        """Resolve a legal action, then hand the turn over (§2.2)."""
        st = ctx.state
        if isinstance(action, InitiativeBid):
            self.do_bid(ctx, action)
            return
        if self.close_call_open(st):  # seed 003 §8.3
            self.do_close_call(ctx, str(self.current_side(st)), action)
            return
        if isinstance(action, PlotArtillery):
            self.do_plot(ctx, action)
            return
        side = str(self.current_side(st))
        if self.luck_window(st):  # the decision on Luck! (card #12)
            self.resolve_luck(ctx, side, action)
            self._end_action(ctx, side)
            return
        if isinstance(action, Spend):
            self.spend_pool(ctx, side, "the activated units are spent (§3.0)")
            return
        if isinstance(action, Pass):
            if self.pool(st, side) > 0:
                self.spend_pool(ctx, side, "passes: the pool's APs are lost (§2.2)")
            self.next_turn(ctx, side, passed=True)
            return
        if isinstance(action, Stall):
            if action.pay == "ap" and self.stall_reveals:
                active = [
                    u.id
                    for u in st.units.values()
                    if u.side == side and status_of(u) == "active" and u.hidden
                ]
                self.reveal_actors(ctx, active, "stalls")
            self.pay(ctx, side, (), action.pay, 1, "stall")
            ctx.emit("stall", side=side, detail="stalls (§2.2)")
        elif isinstance(action, Move):
            self.do_move(ctx, side, action)
        elif isinstance(action, Pivot):
            self.do_pivot(ctx, side, action)
        elif isinstance(action, Fire | IndirectFire | Flame):
            self.do_fire(ctx, side, action)
        elif isinstance(action, SmokeFire):
            self.do_smoke(ctx, side, action)
        elif isinstance(action, HastyDefence):
            self.do_hasty(ctx, side, action)
        elif isinstance(action, Rally):
            self.do_rally(ctx, side, action)
        elif isinstance(action, Hide):
            self.do_hide(ctx, side, action)
        elif isinstance(action, Load | Unload):
            self.do_transport(ctx, side, action)
        elif isinstance(action, PlayCard) and not self.do_play_card(ctx, side, action):
            self.settle_cargo(ctx)
            return  # a Command Action or Swift Action card: the turn goes on
        if self.luck_window(st):
            return  # the rolls wait for the roller's Luck! decision (card #12)
        self._end_action(ctx, side)

    def _end_action(self, ctx: RuleContext, side: str) -> None:
        """After an action's results: cargo of destroyed vehicles (§17.1), the
        game's end, the next turn (§2.2)."""
        self.settle_cargo(ctx)
        self.check_annihilation(ctx)
        if not ctx.state.vars.get("over"):
            self.next_turn(ctx, side)
