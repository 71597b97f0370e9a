"""World at War (classic) as a game: sequence of play, orders and their results.

:class:`WawRuleset` (id ``waw-classic``) plugs the pure rule functions of this
package into :mod:`wargame.engine`.  What it adds, each rule citing its section:

* Operations phase: a chit cup with the formations' chits and two end-turn chits;
  the sides draw in turn; the owner activates or defers a drawn formation chit; the
  second end-turn chit, or a cup without formation chits, ends the phase.
* Action phase: each unit of the active formation acts once - moves hex by hex
  (terrain, roads, rivers only at bridges/ferries, stacking), fires (WaW 6.1),
  assaults/overruns, rallies, mounts/dismounts, or its HQ moves on its own - and is
  then Ops Complete.  Enemy moves in sight and range open opportunity fire (6.2).
* Morale, rally, HQ risk rolls, HQ leadership, command range, transport losses,
  hex capture, clean-up (markers removed, HQs repositioned and replaced, chits
  returned) and victory points.

Every assumption made where the seeds are silent carries ``# ASSUMPTION:`` and is
listed in ``docs/rules/waw-classic.md``.

Examples:
    >>> from wargame.engine import Game
    >>> game = Game.from_scenario("test_remagen", seed=1)
    >>> game.state.phase, game.state.vars["drawn"] in game.state.formations
    ('operations', True)
    >>> sorted({type(a).__name__ for a in game.legal_actions()})
    ['Activate', 'Defer']
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from wargame.engine import (
    Action,
    Formation,
    GameState,
    Outcome,
    RuleContext,
    Scenario,
    Side,
    Unit,
    deck_change,
    state_change,
    unit_change,
    var_change,
)

from ._common import (
    _DEFAULT_CHITS,
    _KIND_NAMES,
    END_CHIT,
    EVENT_KINDS,
    PHASES,
    STACK_LIMIT,
    _Info,
    _plural,
    _Snap,
)
from .actions import (
    ACTION_TYPES,
    Activate,
    Assault,
    Defer,
    Dismount,
    EndActivation,
    Fire,
    Mount,
    Move,
    MoveHQ,
    Pass,
    Rally,
)
from .board import WawBoard, board_for
from .catalog import (
    UnitClass,
    get_unit,
)
from .orders import _Orders
from .resolution import _Resolution

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from wargame.engine import Game

__all__ = [
    "END_CHIT",
    "EVENT_KINDS",
    "PHASES",
    "STACK_LIMIT",
    "WawRuleset",
    "unit_odds",
]


class WawRuleset(_Resolution, _Orders):
    """World at War (classic) bound to one scenario and map.

    Args:
        scenario: the scenario (units, formations, objectives, turns).
        game_map: the map window it is played on.

    Raises:
        ScenarioError: a unit type, hex, stack or formation that cannot be.
    """

    id = "waw-classic"
    title = "World at War (classic: Eisenbach Gap / Blood and Bridges)"
    positions = "hex"
    phases = PHASES
    event_kinds = EVENT_KINDS
    action_types = ACTION_TYPES

    def __init__(self, scenario: Scenario, game_map: Any) -> None:
        if game_map is None:
            raise scenario.error("map", "World at War is played on a map: add [map]")
        self.scenario = scenario
        self.map = game_map
        self.board: WawBoard = board_for(game_map)
        self.chart = self.board.chart
        self._snap_cache: tuple[GameState, int, _Snap] | None = None
        self._initial = self._build_initial()

    # ------------------------------------------------------------------ #
    # scenario -> initial state
    # ------------------------------------------------------------------ #
    def _build_initial(self) -> GameState:
        s = self.scenario
        if len(s.sides) != 2:
            raise s.error("sides", "World at War is a two-player game: give 2 sides")
        sides = {x["id"]: Side(x["id"], str(x.get("name", x["id"]))) for x in s.sides}
        self.side_ids: tuple[str, ...] = tuple(sides)
        rules = s.section("rules")
        first = rules.get("first_side", self.side_ids[0])
        if first not in sides:
            raise s.error("rules.first_side", f"{first!r} is not one of {list(sides)}")
        self.first_side: str = first
        vic = s.section("victory")
        self.destroyed_vp = int(vic.get("unit_destroyed_vp", 0))
        form_side = {f["id"]: f["side"] for f in s.formations}

        info: dict[str, _Info] = {}
        units: dict[str, Unit] = {}
        carried: dict[str, tuple[int, str]] = {}
        for i, raw in enumerate(s.units):
            where = f"units[{i}] ({raw['id']!r})"
            try:
                utype = get_unit(str(raw.get("type")))
            except KeyError as exc:
                raise s.error(f"{where}.type", str(exc.args[0])) from None
            fid = raw.get("formation")
            side = form_side[fid] if fid is not None else raw["side"]
            if raw.get("side", side) != side:
                raise s.error(f"{where}.side", f"its formation {fid!r} is {side!r}")
            strength = raw.get("strength", "full")
            if strength not in ("full", "reduced") or (
                strength == "reduced" and utype.one_sided
            ):
                raise s.error(
                    f"{where}.strength",
                    f"{strength!r}: use 'full' or 'reduced' (one-sided units: full)",
                )
            disrupted = bool(raw.get("disrupted", False))
            is_hq = utype.unit_class is UnitClass.HQ
            if is_hq and disrupted:
                raise s.error(f"{where}.disrupted", "an HQ is never disrupted")
            hex_ = raw.get("hex")
            if hex_ is not None and hex_ not in self.board:
                raise s.error(
                    f"{where}.hex", f"{hex_!r} is not a hex of the map window"
                )
            if raw.get("carried_by") is not None:
                carried[raw["id"]] = (i, str(raw["carried_by"]))
            elif hex_ is None:
                raise s.error(where, "needs a hex (or carried_by a carrier)")
            elif self.board.is_water(hex_) and hex_ not in self.board.ferry:
                raise s.error(f"{where}.hex", f"{hex_} is water (no bridge or ferry)")
            name = str(raw.get("name", f"{utype.name} {raw['id']}"))
            info[raw["id"]] = _Info(
                id=raw["id"],
                name=name,
                side=side,
                formation=fid,
                utype=utype,
                is_hq=is_hq,
                # WaW Stacking: HQs, helicopters, SWs (and markers, wrecks,
                # deployed bridges) do not count.
                counts=utype.unit_class
                not in (UnitClass.HQ, UnitClass.HELICOPTER, UnitClass.SUPPORT_WEAPON),
                is_infantry=utype.unit_class is UnitClass.INFANTRY,
                is_carrier=utype.carrier,
                is_recon=utype.unit_class is UnitClass.RECON,
                mobility=utype.mobility.value,
            )
            units[raw["id"]] = Unit(
                raw["id"], name, side, fid, utype.id, hex_, strength, disrupted
            )
        for uid, (i, cid) in carried.items():
            where = f"units[{i}] ({uid!r}).carried_by"
            c = info.get(cid)
            if c is None or not c.is_carrier or c.side != info[uid].side:
                raise s.error(where, f"{cid!r} is not a friendly carrier")
            if not info[uid].is_infantry:
                raise s.error(where, "only infantry rides in carriers (WaW 5.2)")
            if units[cid].carried_by is not None:
                raise s.error(where, f"{cid!r} is itself carried")
            if any(u.carried_by == cid for u in units.values()):
                raise s.error(where, f"{cid!r} already carries a platoon")
            pos = units[uid].position
            if pos is not None and pos != units[cid].position:
                raise s.error(where, f"{uid!r} is at {pos}, {cid!r} at a different hex")
            units[uid].position = units[cid].position
            units[uid].carried_by = cid
        self.info: dict[str, _Info] = info
        self.hq_ids = frozenset(k for k, v in info.items() if v.is_hq)

        formations: dict[str, Formation] = {}
        self.members: dict[str, tuple[str, ...]] = {}
        for i, raw in enumerate(s.formations):
            where = f"formations[{i}] ({raw['id']!r})"
            hq = raw.get("hq")
            if hq is not None and (
                hq not in info or not info[hq].is_hq or info[hq].formation != raw["id"]
            ):
                raise s.error(
                    f"{where}.hq", f"{hq!r} is not an HQ unit of {raw['id']!r}"
                )
            members = tuple(k for k, v in info.items() if v.formation == raw["id"])
            if "chits" in raw:
                chits = int(raw["chits"])
            else:
                nation = info[hq].utype.nation if hq else None
                chits = _DEFAULT_CHITS.get(nation, 2) if nation else 1  # type: ignore[arg-type]
            formations[raw["id"]] = Formation(
                raw["id"], raw["side"], str(raw.get("name", raw["id"])), hq, chits
            )
            self.members[raw["id"]] = members

        # WaW Stacking at set-up: limits hold always.
        snap = _Snap(GameState(self.id, units=units), info)
        for (h, side), n in snap.count.items():
            if n > STACK_LIMIT:
                raise s.error("units", f"stack at {h} holds {n} {side} units (limit 2)")
        for h, us in snap.at.items():
            if len({u.side for u in us}) > 1:
                raise s.error("units", f"{h} holds units of both sides")
            if sum(1 for u in us if info[u.id].is_hq) > 1:
                raise s.error("units", f"{h} holds more than one HQ")

        self.objectives: tuple[tuple[str, int, str], ...] = ()
        control: dict[str, str] = {}
        objs = []
        for i, raw in enumerate(s.objectives):
            where = f"objectives[{i}]"
            raw_hex = raw.get("hex")
            if raw_hex not in self.board:
                raise s.error(
                    f"{where}.hex", f"{raw_hex!r} is not a hex of the map window"
                )
            h = str(raw_hex)
            vp = raw.get("vp", 1)
            if not isinstance(vp, int) or isinstance(vp, bool):
                raise s.error(f"{where}.vp", f"must be a whole number, not {vp!r}")
            owner = raw.get("controlled_by")
            if owner is not None and owner not in sides:
                raise s.error(f"{where}.controlled_by", f"{owner!r} is not a side")
            if owner is not None:
                control[h] = owner
            objs.append((h, vp, str(raw.get("name", h))))
        self.objectives = tuple(objs)
        self.objective_hexes = frozenset(o[0] for o in objs)

        return GameState(
            ruleset=self.id,
            turn=1,
            phase="setup",
            sides=sides,
            formations=formations,
            units=units,
            decks={"cup": (), "aside": ()},
            control=control,
            vars={},
        )

    def initial_state(self) -> GameState:
        """The scenario's set-up (a fresh copy)."""
        return self._initial.copy()

    # ------------------------------------------------------------------ #
    # protocol: who decides
    # ------------------------------------------------------------------ #
    def current_side(self, state: GameState) -> str | None:
        """The side to decide: chit owner, opportunity-fire side or active side."""
        v = state.vars
        if v.get("over"):
            return None
        if v.get("drawn"):
            return state.formations[v["drawn"]].side
        if v.get("opp"):
            return self.enemy_of(state.units[v["opp"]].side)
        if v.get("active"):
            return state.formations[v["active"]].side
        return None

    def outcome(self, state: GameState) -> Outcome | None:
        """The end of the game, once reached."""
        v = state.vars
        if not v.get("over"):
            return None
        return Outcome(
            winner=v.get("winner"),
            termination=str(v.get("termination")),
            victory_points=dict(v.get("vp", ())),
            turn=state.turn,
        )

    def victory_points(self, state: GameState) -> dict[str, int]:
        """Victory points now: objectives held plus enemy units destroyed.

        Scenario ``[[objectives]]`` give their ``vp`` to the side controlling the
        hex (WaW hex capture: the last side to move through it); ``[victory]
        unit_destroyed_vp`` is scored for each enemy unit destroyed.
        """
        vp = dict.fromkeys(self.side_ids, 0)
        for h, value, _name in self.objectives:
            owner = state.control.get(h)
            if owner is not None:
                vp[owner] += value
        if self.destroyed_vp:
            for u in state.units.values():
                if u.destroyed:
                    vp[self.enemy_of(u.side)] += self.destroyed_vp
        return vp

    # ------------------------------------------------------------------ #
    # automatic steps: chit draws, phase ends, clean-up, end of game
    # ------------------------------------------------------------------ #
    def advance(self, ctx: RuleContext) -> None:
        """Draw chits, close phases, clean up and end the game as the rules say."""
        st = ctx.state
        while True:
            v = st.vars
            if v.get("over"):
                return
            if st.phase == "setup":
                self._begin_turn(ctx, first=True)
                continue
            if self._annihilated(st):
                self._game_over(ctx, "annihilation")
                return
            if v.get("drawn"):
                return
            if v.get("opp"):
                if self._opp_fire_options(self._snap(st), st.units[v["opp"]]):
                    return
                mover = st.units[v["opp"]]
                ctx.emit(
                    "opportunity_end",
                    side=self.enemy_of(mover.side),
                    target=mover.id,
                    detail=f"no more opportunity fire at {mover.name}",
                    changes=var_change(opp=None) + state_change(phase="action"),
                )
                continue
            if v.get("active"):
                return
            if st.phase == "operations":
                cup = st.decks["cup"]
                # WaW 3.0: the second end-turn chit, or no formation chit left in
                # the cup, ends the Operations phase.
                if v.get("end_chits", 0) >= 2 or all(c == END_CHIT for c in cup):
                    self._cleanup(ctx)
                    continue
                self._draw(ctx)
                continue
            raise RuntimeError(f"waw-classic: stuck in phase {st.phase!r}")

    def _annihilated(self, st: GameState) -> bool:
        for side in self.side_ids:
            if not any(
                not u.destroyed and not self.info[u.id].is_hq
                for u in st.units.values()
                if u.side == side
            ):
                return True
        return False

    def _begin_turn(self, ctx: RuleContext, *, first: bool = False) -> None:
        st = ctx.state
        turn = 1 if first else st.turn + 1
        cup = self._full_cup(st)
        ctx.emit(
            "turn",
            result=f"turn {turn}",
            detail=(
                f"turn {turn} of {self.scenario.turns} begins; the cup holds "
                f"{_plural(len(cup), 'chit')}"
            ),
            changes=state_change(turn=turn, phase="operations")
            + deck_change("cup", cup)
            + deck_change("aside", ())
            + var_change(
                next_drawer=self.first_side,
                end_chits=0,
                deferred=(),
                drawn=None,
                active=None,
                acting=None,
                escort=None,
                opp=None,
            ),
        )

    def _full_cup(self, st: GameState) -> tuple[str, ...]:
        """WaW 1.7 / set-up: each formation's chits plus two end-turn chits.

        ASSUMPTION: a formation with no unit left (other than its HQ) puts no
        chit in the cup.
        """
        cup: list[str] = []
        for fid, f in st.formations.items():
            alive = any(
                not st.units[m].destroyed and not self.info[m].is_hq
                for m in self.members[fid]
            )
            if alive:
                cup += [fid] * f.chits
        return (*cup, END_CHIT, END_CHIT)

    def _draw(self, ctx: RuleContext) -> None:
        """WaW Operations phase: the sides draw chits from the cup in turn."""
        st = ctx.state
        v = st.vars
        cup = list(st.decks["cup"])
        drawer = v["next_drawer"]
        # ASSUMPTION: "it does not matter who draws first" - the scenario's
        # first side draws first each turn, then the sides alternate.
        pick = int(ctx.rng.random() * len(cup))
        chit = cup.pop(pick)
        nxt = self.enemy_of(drawer)
        who = st.sides[drawer].name
        if chit == END_CHIT:
            n = v.get("end_chits", 0) + 1
            ctx.emit(
                "draw",
                side=drawer,
                target=chit,
                result="end-turn chit",
                detail=(
                    f"{who} draws an end-turn chit ({'second' if n == 2 else 'first'}"
                    f"); {_plural(len(cup), 'chit')} left in the cup"
                ),
                changes=deck_change("cup", cup)
                + deck_change("aside", (*st.decks["aside"], chit))
                + var_change(end_chits=n, next_drawer=nxt),
            )
            return
        f = st.formations[chit]
        ctx.emit(
            "draw",
            side=drawer,
            formation=chit,
            target=chit,
            result="formation chit",
            detail=(
                f"{who} draws the chit of {f.name} ({st.sides[f.side].name}); "
                f"{_plural(len(cup), 'chit')} left in the cup"
            ),
            changes=deck_change("cup", cup) + var_change(drawn=chit, next_drawer=nxt),
        )

    def _cleanup(self, ctx: RuleContext) -> None:
        """WaW Clean-up phase.

        Remove the Ops Complete markers (smoke, ammunition, "In Zone" and
        "Artillery Shock" markers are not modelled), reposition HQs, replace
        destroyed HQs, return the chits to the cup (3.2.1 exceptions: GAP).
        """
        st = ctx.state
        why = (
            "second end-turn chit drawn"
            if st.vars.get("end_chits", 0) >= 2
            else "no formation chit left in the cup"
        )
        changes: list[Any] = list(state_change(phase="cleanup"))
        for u in st.units.values():
            if u.ops_complete:
                changes += unit_change(u.id, ops_complete=False)
            for key in ("mp", "lead_used"):
                if key in u.attrs:
                    changes += unit_change(u.id, **{key: None})
        changes += var_change(
            drawn=None, active=None, acting=None, escort=None, opp=None, deferred=()
        )
        ctx.emit(
            "cleanup",
            result="markers removed",
            detail=f"Operations phase over ({why}); Ops Complete markers removed",
            changes=changes,
        )
        self._reposition_hqs(ctx)
        self._replace_hqs(ctx)
        cup = self._full_cup(st)
        ctx.emit(
            "chits_returned",
            result=_plural(len(cup), "chit"),
            detail=f"{_plural(len(cup), 'chit')} go back into the cup",
            changes=deck_change("cup", cup) + deck_change("aside", ()),
        )
        if st.turn >= self.scenario.turns:
            self._game_over(ctx, "turn limit")
        else:
            self._begin_turn(ctx)

    def _nearest_stack(
        self, st: GameState, snap: _Snap, hq: Unit, members: set[str] | None
    ) -> str | None:
        """Nearest hex with a unit (of ``members`` if given) and no other HQ."""
        best: tuple[int, str] | None = None
        for u in st.units.values():
            if (
                u.destroyed
                or u.side != hq.side
                or self.info[u.id].is_hq
                or (members is not None and u.id not in members)
            ):
                continue
            h = u.hex
            if h is None:
                continue
            other = snap.hq.get(h)
            if other is not None and other.id != hq.id:
                continue
            cand = (self.board.distance(hq.position, h), h)  # type: ignore[arg-type]
            if best is None or cand < best:
                best = cand
        return best[1] if best else None

    def _reposition_hqs(self, ctx: RuleContext) -> None:
        """WaW HQ movement: an HQ not stacked with its formation moves to it.

        The seed: an HQ that cannot end its move with units of its formation moves
        to the nearest one at the start of the next turn; if its formation is gone,
        to the nearest friendly unit.  ASSUMPTION: done in the Clean-up phase (the
        seed's clean-up list says "reposition HQs"); ties go to the lower label.
        """
        st = ctx.state
        for fid in st.formations:
            hq = self._hq_unit(st, fid)
            if hq is None or hq.destroyed:
                continue
            snap = self._snap(st)
            here = [
                u
                for u in snap.units(hq.position)  # type: ignore[arg-type]
                if u.formation == fid and u.id != hq.id
            ]
            if here:
                continue
            members = {m for m in self.members[fid] if m != hq.id}
            dest = self._nearest_stack(st, snap, hq, members)
            if dest is None:
                dest = self._nearest_stack(st, snap, hq, None)
            if dest is None or dest == hq.position:
                continue
            ctx.emit(
                "hq_reposition",
                side=hq.side,
                formation=fid,
                unit=hq.id,
                hex_from=hq.position,  # type: ignore[arg-type]
                hex_to=dest,
                result="repositioned",
                detail=f"{hq.name} rejoins its units at {dest}",
                changes=unit_change(hq.id, position=dest),
            )

    def _replace_hqs(self, ctx: RuleContext) -> None:
        """WaW 1.3.3.3: a destroyed HQ comes back reduced with a unit of its formation.

        ASSUMPTION: with any surviving non-HQ unit of the formation ("of the
        matching type"), the first in scenario order whose hex has no HQ; if none
        is left the HQ stays out and the formation is out of command (4.0).
        """
        st = ctx.state
        for fid in st.formations:
            hq = self._hq_unit(st, fid)
            if hq is None or not hq.destroyed:
                continue
            snap = self._snap(st)
            for m in self.members[fid]:
                u = st.units[m]
                if u.destroyed or m == hq.id or u.position in snap.hq:
                    continue
                ctx.emit(
                    "hq_replaced",
                    side=hq.side,
                    formation=fid,
                    unit=hq.id,
                    hex_to=u.position,  # type: ignore[arg-type]
                    result="replaced (reduced)",
                    detail=f"{hq.name} is replaced, reduced, with {u.name}",
                    changes=unit_change(hq.id, strength="reduced", position=u.position),
                )
                break

    def _game_over(self, ctx: RuleContext, termination: str) -> None:
        st = ctx.state
        vp = self.victory_points(st)
        if termination == "annihilation":
            # ASSUMPTION: a side with no unit left (HQs aside) loses outright.
            alive = [
                s
                for s in self.side_ids
                if any(
                    not u.destroyed and not self.info[u.id].is_hq
                    for u in st.units.values()
                    if u.side == s
                )
            ]
            winner = alive[0] if len(alive) == 1 else None
        else:
            best = max(vp.values())
            leaders = [s for s, p in vp.items() if p == best]
            winner = leaders[0] if len(leaders) == 1 else None
        text = ", ".join(f"{st.sides[s].name} {p}" for s, p in vp.items())
        ctx.emit(
            "game_over",
            side=winner,
            result=f"{st.sides[winner].name} wins" if winner else "draw",
            detail=f"game over ({termination}); victory points: {text}",
            changes=state_change(phase="end")
            + var_change(
                over=True,
                winner=winner,
                termination=termination,
                vp=tuple(vp.items()),
                drawn=None,
                active=None,
                acting=None,
                escort=None,
                opp=None,
            ),
        )

    # ------------------------------------------------------------------ #
    # presentation
    # ------------------------------------------------------------------ #
    def describe(self, state: GameState, action: Action) -> str:
        """An action in game terms, e.g. ``"T-72 platoon 1/1 moves to K12"``."""

        def n(uid: Any) -> str:
            u = state.units.get(uid) if isinstance(uid, str) else None
            return u.name if u is not None else repr(uid)

        if isinstance(action, Activate | Defer):
            verb = "activate" if isinstance(action, Activate) else "defer"
            return f"{verb} {self._fname(state, action.formation)}"
        if isinstance(action, Move):
            hq = " with its HQ" if action.with_hq else ""
            return f"{n(action.unit)} moves to {action.to}{hq}"
        if isinstance(action, MoveHQ):
            return f"{n(action.hq)} moves on its own to {action.to}"
        if isinstance(action, Fire):
            hq = " with HQ leadership" if action.with_hq else ""
            k = _KIND_NAMES.get(action.weapon, action.weapon)
            return f"{n(action.unit)} fires {k} at {n(action.target)}{hq}"
        if isinstance(action, Assault):
            hq = " with HQ leadership" if action.with_hq else ""
            return f"{n(action.unit)} assaults {action.hex}{hq}"
        if isinstance(action, Rally):
            return f"{n(action.unit)} tries to rally"
        if isinstance(action, Mount):
            return f"{n(action.unit)} boards {n(action.carrier)}"
        if isinstance(action, Dismount):
            return f"{n(action.unit)} dismounts"
        if isinstance(action, EndActivation):
            return "end the formation's action phase"
        if isinstance(action, Pass):
            return "hold fire"
        return super().describe(state, action)

    def unit_columns(self, state: GameState) -> dict[str, dict[str, Any]]:
        """WaW columns for ``Game.units``: class, MP left, in command."""
        cls, mp_left, cmd = {}, {}, {}
        for uid, u in state.units.items():
            i = self.info[uid]
            cls[uid] = i.utype.unit_class.value
            mp_left[uid] = None if u.destroyed else self._mp(u) - self._spent(u)
            cmd[uid] = None if u.destroyed else self.in_command(state, u)
        return {"unit_class": cls, "mp_left": mp_left, "in_command": cmd}


def unit_odds(
    game: Game,
    attacker: str,
    target: str,
    *,
    weapon: str | None = None,
    with_hq: bool = False,
    results: bool = False,
) -> pd.Series:
    """Exact odds of one unit of a game firing at another, as things stand.

    Range (from the grid), the target's terrain, both units' strength, fire on the
    move and HQ leadership come from the game; the numbers come from
    :func:`~wargame.rules.waw.odds` / :func:`~wargame.rules.waw.result_odds`, the
    same rule code the dice path uses.  Line of sight and whose turn it is are not
    checked (use :meth:`wargame.engine.Game.legal_actions` for that).

    Args:
        game: a ``waw-classic`` game.
        attacker: firing unit id.
        target: target unit id.
        weapon: ``"ap"``, ``"he"`` or ``"aa"`` (default: the rules' usual choice).
        with_hq: add the leadership of the attacker's HQ in its hex.
        results: P(no effect / disrupted / reduced / destroyed) instead of
            P(net hits).

    Examples:
        >>> from wargame.engine import Game
        >>> g = Game.from_scenario("test_remagen", seed=1)
        >>> p = unit_odds(g, "SU-T1", "US-M1")
        >>> round(float(p.sum()), 9), p.index.name
        (1.0, 'net_hits')
    """
    from .odds import odds, result_odds

    rules = game.ruleset
    if not isinstance(rules, WawRuleset):
        raise TypeError("unit_odds needs a waw-classic game")
    st = game.state
    u, t = st.units[attacker], st.units[target]
    if u.destroyed or t.destroyed:
        raise ValueError("both units must be in play")
    d = rules.board.distance(u.position, t.position)  # type: ignore[arg-type]
    lead = 0
    if with_hq:
        snap = rules._snap(st)
        why = rules._why_no_leader(snap, u)
        if why:
            raise ValueError(why)
        lead = rules._leadership(snap.hq[u.position])  # type: ignore[index]
    common: dict[str, Any] = {
        "kind": weapon,
        "moving": rules._spent(u) > 0,
        "attacker_reduced": u.strength == "reduced",
        "leadership": lead,
        "adjacent": d == 1,
        "chart": rules.chart,
    }
    a_type, t_type = rules.info[u.id].utype, rules.info[t.id].utype
    terrain = rules.board.terrain[t.position]  # type: ignore[index]
    if results:
        return result_odds(
            a_type, t_type, d - 1, terrain, target_state=rules._ustate(t), **common
        )
    return odds(
        a_type, t_type, d - 1, terrain, target_reduced=t.strength == "reduced", **common
    )
