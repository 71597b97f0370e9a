"""A toy rule system (id ``toy-1e``) that uses what WaW does not: free points, facing,
hidden units, soldier-level models, secret hands of cards and point pools.

It shows the engine protocol fits the planned skirmish and card-driven systems
without any map, and gives the conformance harness secrets to guard: two squads
take turns; each turn a side may play a card from its secret hand (adding its
value to the side's action-point pool), step a squad 10 m (1 point), shoot a
squad it can see (1 point; rolls 3 d6 through ``ctx.roll``, each 5+ kills a
model), or end its turn.  Blue's squad starts hidden: its steps are seen by blue
alone, and it is revealed when it shoots or when an enemy squad comes within
``SPOT_M`` of it.  A played card is named to its owner only; the other side
learns that a card was played and what the pool now holds.

``hiding`` can be switched off (``ToyRuleset.hidden_information = False`` in a
subclass) to show that the leak checks of :func:`wargame.testing.check_ruleset`
catch a rule system that shows secrets.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, ClassVar

from wargame.engine import (
    Action,
    GameState,
    IllegalActionError,
    Model,
    Outcome,
    Point,
    RuleContext,
    RulesetBase,
    Scenario,
    ScenarioError,
    Side,
    Unit,
    deck_change,
    pool_change,
    register_ruleset,
    state_change,
    unit_change,
    var_change,
)

#: A hidden squad is revealed when an enemy squad is this close (metres).
SPOT_M = 30.0


@dataclass(frozen=True)
class Step(Action):
    type = "step"
    unit: str
    dx: float
    dy: float


@dataclass(frozen=True)
class Shoot(Action):
    type = "shoot"
    unit: str
    target: str


@dataclass(frozen=True)
class Play(Action):
    type = "play"
    card: str


@dataclass(frozen=True)
class Done(Action):
    type = "done"


class ToyRuleset(RulesetBase):
    id = "toy-1e"
    title = "Toy skirmish"
    positions = "point"
    phases = ("setup", "play", "end")
    event_kinds = (
        "turn",
        "step",
        "spend",
        "spotted",
        "revealed",
        "shoot",
        "card",
        "done",
    )
    action_types: ClassVar[dict[str, type[Action]]] = {
        c.type: c for c in (Step, Shoot, Play, Done)
    }
    hidden_information = True

    def __init__(self, scenario: Scenario, game_map: Any) -> None:
        self.scenario = scenario
        self.sides = [s["id"] for s in scenario.sides]
        problems = []
        for i, raw in enumerate(scenario.units):
            where = f"units[{i}]"
            n = raw.get("models")
            if not isinstance(n, int) or isinstance(n, bool) or not 1 <= n <= 20:
                problems.append(
                    scenario.problem(f"{where}.models", "must be a whole number 1-20")
                )
            if raw.get("side") not in self.sides:
                problems.append(
                    scenario.problem(f"{where}.side", f"must be one of {self.sides}")
                )
            for k in ("x", "y"):
                v = raw.get(k)
                if not (
                    isinstance(v, int | float)
                    and not isinstance(v, bool)
                    and math.isfinite(v)
                ):
                    problems.append(
                        scenario.problem(f"{where}.{k}", "must be a number of metres")
                    )
            f = raw.get("facing", 0)
            if not isinstance(f, int) or isinstance(f, bool):
                problems.append(
                    scenario.problem(f"{where}.facing", "must be a whole number")
                )
        if problems:
            raise ScenarioError(problems)

    def initial_state(self) -> GameState:
        st = GameState(ruleset=self.id, phase="setup")
        st.sides = {s["id"]: Side(s["id"], s["name"]) for s in self.scenario.sides}
        for raw in self.scenario.units:
            models = tuple(
                Model(f"{raw['id']}.{i}", "rifleman") for i in range(raw["models"])
            )
            st.units[raw["id"]] = Unit(
                raw["id"],
                raw["id"],
                raw["side"],
                None,
                "squad",
                Point(float(raw["x"]), float(raw["y"])),
                facing=int(raw.get("facing", 0)),
                hidden=bool(raw.get("hidden", False)),
                models=models,
            )
        for side in self.sides:
            st.decks[f"hand:{side}"] = (f"{side}-plus1", f"{side}-plus2")
            st.pools[f"ap-{side}"] = 1
        return st

    def advance(self, ctx: RuleContext) -> None:
        st = ctx.state
        if st.phase == "setup":
            ctx.emit(
                "turn",
                result="turn 1",
                changes=state_change(phase="play") + var_change(side=self.sides[0]),
            )

    def current_side(self, state: GameState) -> str | None:
        return None if state.phase == "end" else state.vars["side"]

    def legal_actions(self, state: GameState) -> list[Action]:
        side = self.current_side(state)
        if side is None:
            return []
        out: list[Action] = [Play(c) for c in state.decks[f"hand:{side}"]]
        for u in state.units.values():
            if u.side == side and not u.destroyed and state.pools[f"ap-{side}"] > 0:
                out += [Step(u.id, 10.0, 0.0), Step(u.id, -10.0, 0.0)]
                out += [
                    Shoot(u.id, t.id)
                    for t in state.units.values()
                    # only what the side sees: the engine passes its view
                    if t.side != side and not t.destroyed
                ]
        return [*out, Done()]

    def check(self, state: GameState, action: Action) -> None:
        for key in ("unit", "target"):
            uid = getattr(action, key, None)
            if uid is not None and uid not in state.units:
                raise IllegalActionError(f"no unit {uid!r}")
        if action not in self.legal_actions(state):
            raise IllegalActionError(f"{action} is not possible now")

    def _spot(self, ctx: RuleContext) -> None:
        """Reveal every hidden squad an enemy squad has come within SPOT_M of."""
        st = ctx.state
        for h in st.units.values():
            if not h.hidden or h.destroyed:
                continue
            for e in st.units.values():
                if e.side == h.side or e.destroyed:
                    continue
                a, b = h.position, e.position
                assert isinstance(a, Point) and isinstance(b, Point)
                if math.hypot(a.x - b.x, a.y - b.y) <= SPOT_M:
                    ctx.emit(
                        "spotted",
                        side=h.side,
                        unit=h.id,
                        target=e.id,
                        result="revealed",
                        changes=unit_change(h.id, hidden=False),
                    )
                    break

    def apply(self, ctx: RuleContext, action: Action) -> None:
        st = ctx.state
        side = st.vars["side"]
        pool = f"ap-{side}"
        if isinstance(action, Play):
            hand = list(st.decks[f"hand:{side}"])
            hand.remove(action.card)
            gain = int(action.card[-1])
            # The card is named to its owner only; everyone sees the new pool.
            ctx.emit(
                "card",
                side=side,
                target=action.card,
                changes=deck_change(f"hand:{side}", hand),
                visible_to=(side,),
            )
            ctx.emit(
                "card",
                side=side,
                result="a card played",
                changes=pool_change(pool, st.pools[pool] + gain),
            )
        elif isinstance(action, Step):
            u = st.units[action.unit]
            p = u.position
            assert isinstance(p, Point)
            facing = round(math.degrees(math.atan2(action.dy, action.dx))) % 360
            # A hidden squad's step is seen by its own side alone.
            ctx.emit(
                "step",
                side=side,
                unit=u.id,
                changes=unit_change(
                    u.id,
                    position=Point(p.x + action.dx, p.y + action.dy),
                    facing=facing,
                ),
                visible_to=(side,) if u.hidden else None,
            )
            ctx.emit("spend", side=side, changes=pool_change(pool, st.pools[pool] - 1))
            self._spot(ctx)
        elif isinstance(action, Shoot):
            t = st.units[action.target]
            if st.units[action.unit].hidden:  # shooting gives the squad away
                ctx.emit(
                    "revealed",
                    side=side,
                    unit=action.unit,
                    changes=unit_change(action.unit, hidden=False),
                )
            faces = ctx.roll(3, needed=5, kind="shoot", side=side, unit=action.unit)
            kills = sum(f >= 5 for f in faces)
            left = t.models[kills:]
            ctx.emit(
                "shoot",
                side=side,
                unit=action.unit,
                target=t.id,
                hits=kills,
                result="destroyed" if not left else f"{len(left)} left",
                changes=unit_change(
                    t.id,
                    models=left,
                    strength="destroyed" if not left else "full",
                )
                + pool_change(pool, st.pools[pool] - 1),
            )
        elif isinstance(action, Done):
            nxt = self.sides[(self.sides.index(side) + 1) % 2]
            over = nxt == self.sides[0] and st.turn >= self.scenario.turns
            ch = var_change(side=nxt) + pool_change(f"ap-{nxt}", 1)
            if over:
                ch += state_change(phase="end")
            elif nxt == self.sides[0]:
                ch += state_change(turn=st.turn + 1)
            ctx.emit("done", side=side, changes=ch)

    def outcome(self, state: GameState) -> Outcome | None:
        if state.phase != "end":
            return None
        alive = {
            s: sum(len(u.models) for u in state.units.values() if u.side == s)
            for s in self.sides
        }
        best = max(alive.values())
        win = [s for s, n in alive.items() if n == best]
        return Outcome(
            win[0] if len(win) == 1 else None, "turn limit", alive, state.turn
        )


register_ruleset("toy-1e", ToyRuleset)

TOY_SCENARIO = {
    "id": "toy",
    "ruleset": "toy-1e",
    "turns": 3,
    "sides": [{"id": "red", "name": "Red"}, {"id": "blue", "name": "Blue"}],
    "units": [
        {"id": "r1", "side": "red", "x": 0, "y": 0, "models": 5},
        {"id": "b1", "side": "blue", "x": 100, "y": 0, "models": 5, "hidden": True},
    ],
}
