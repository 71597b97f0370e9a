"""Invariants of a World at War game, checked after every event (test helper).

``InvariantChecker`` is a game listener: ``Game.from_scenario(..., listeners=[c])``
calls it with each event and the state that event produced.  It raises
``AssertionError`` naming the event as soon as an invariant breaks.

Per event:
* stacking: at most 2 counted units per side and hex; at most one HQ per hex;
* wrecks: at most one marker per hex (WaW 1.3.4.2); helicopters never take a
  hex (assumption 43);
* positions: every unit in play has exactly one on-map hex (reinforcements not
  yet arrived have none); passengers share their carrier's hex; no hex holds
  units of both sides;
* destroyed units never act; Ops Complete units never act again in the turn
  (checked on the event kinds that are a unit acting);
* cup and chits: during a turn, cup + set-aside + the drawn chit are exactly the
  chits the turn started with; end-turn chits drawn match the set-aside ones.
At decision points (``CheckingPolicy``): no living passenger sits in a destroyed
carrier; the side to decide has a legal action.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

from wargame.engine import Decision, Event, GameState, RandomPolicy
from wargame.rules.waw.ruleset import END_CHIT, STACK_LIMIT, WawRuleset
from wargame.rules.waw.unit_attrs import carried_by, ops_complete

# event kinds where the event's ``unit`` is the one acting
ACTING_KINDS = frozenset(
    {
        "move",
        "fire",
        "assault",
        "rally",
        "mount",
        "dismount",
        "hq_move",
        "command",
        "mode",
    }
)


class InvariantChecker:
    """Listener checking the invariants above after every event."""

    def __init__(self, rules: WawRuleset) -> None:
        self.rules = rules
        self.done: set[str] = set()  # Ops Complete this turn
        self.done_by: dict[str, int] = {}  # ... and by which action
        self.dead: set[str] = set()
        self.turn_chits: Counter[str] | None = None
        self.events = 0
        self.last_seq = 0

    def __call__(self, event: Event, state: GameState) -> None:
        where = f"event {event.seq} ({event.kind}: {event.detail})"
        assert event.seq == self.last_seq + 1, f"{where}: seq not consecutive"
        self.last_seq = event.seq
        self.events += 1
        if event.kind in ACTING_KINDS and event.action is not None:
            actor = event.unit
            assert actor is not None, where
            assert actor not in self.dead, f"{where}: destroyed unit {actor} acts"
            # the support-weapon shot of a combined fire (WaW 1.3.5) belongs to the
            # action that made the platoon Ops Complete
            same_action = self.done_by.get(actor) == event.action_index
            assert actor not in self.done or same_action, (
                f"{where}: Ops Complete unit {actor} acts"
            )
        for scope, key, name, value in event.changes:
            if scope != "unit":
                continue
            if name == "ops_complete" and value:
                self.done.add(key)  # type: ignore[arg-type]
                self.done_by[key] = event.action_index  # type: ignore[index]
            if name == "strength":
                if value == "destroyed":
                    self.dead.add(key)  # type: ignore[arg-type]
                else:  # an HQ replaced after clean-up (WaW 1.3.3.3)
                    self.dead.discard(key)  # type: ignore[arg-type]
        if (
            event.kind in ("move", "reinforcement")
            and event.unit
            and self.rules.info[event.unit].is_helicopter
        ):
            # assumption 43: helicopters take no ground
            assert not any(c[0] == "control" for c in event.changes), where
        if event.kind == "cleanup":
            self.done.clear()
            assert not any(ops_complete(u) for u in state.units.values()), where
        if event.kind == "turn":
            self.turn_chits = Counter(state.decks["cup"])
            self.done.clear()
        self.check_state(state, where)

    def check_state(self, state: GameState, where: str) -> None:
        rules = self.rules
        info = rules.info
        counted: Counter[tuple[str, str]] = Counter()
        hqs: Counter[str] = Counter()
        sides_at: dict[str, set[str]] = {}
        for u in state.units.values():
            if u.destroyed:
                continue
            pos = u.position
            if pos is None and u.attrs.get("arrives") is not None:
                continue  # a reinforcement that has not arrived yet
            assert isinstance(pos, str) and pos in rules.board, (
                f"{where}: {u.id} has no on-map hex ({pos!r})"
            )
            sides_at.setdefault(pos, set()).add(u.side)
            if carried_by(u) is not None:
                c = state.units[carried_by(u)]
                assert c.position == pos, f"{where}: {u.id} not in its carrier's hex"
                assert info[c.id].is_carrier and carried_by(c) is None, where
                continue
            if info[u.id].is_hq:
                hqs[pos] += 1
            elif info[u.id].counts and not u.attrs.get("deployed"):
                counted[(pos, u.side)] += 1  # a deployed bridge does not count
        for (h, side), n in counted.items():
            assert n <= STACK_LIMIT, f"{where}: stack at {h} holds {n} {side} units"
        for h, n in hqs.items():
            assert n <= 1, f"{where}: {n} HQs at {h}"
        wrecks = state.vars.get("wrecks", ())
        assert list(wrecks) == sorted(set(wrecks)), f"{where}: wrecks {wrecks}"
        for h, sides in sides_at.items():
            assert len(sides) == 1, f"{where}: both sides at {h}"
        # chits
        if state.phase in ("operations", "action", "opportunity"):
            assert self.turn_chits is not None, where
            drawn = state.vars.get("drawn")
            now = Counter(state.decks["cup"]) + Counter(state.decks["aside"])
            if drawn:
                now[drawn] += 1
            assert now == self.turn_chits, f"{where}: chits {now} != {self.turn_chits}"
            ends = sum(1 for c in state.decks["aside"] if c == END_CHIT)
            assert ends == state.vars.get("end_chits", 0) <= 2, where
            # a chit is deferred at most once (assumption 23): the deferred
            # chits still in the cup are among the formation's chits there
            deferred = Counter(state.vars.get("deferred", ()))
            for f, n in deferred.items():
                assert n <= Counter(state.decks["cup"])[f], where
        acting = state.vars.get("acting")
        if acting is not None:
            u = state.units[acting]
            assert u.formation == state.vars.get("active"), f"{where}: acting {acting}"
            assert not u.destroyed and not ops_complete(u), f"{where}: acting {acting}"


class CheckingPolicy:
    """RandomPolicy that also checks the decision-point invariants.

    Whenever a side is asked to decide: it has at least one legal action, and no
    living passenger sits in a destroyed carrier.
    """

    def __init__(self, game_state: Callable[[], GameState]) -> None:
        self.inner = RandomPolicy()
        self.state = game_state
        self.decisions = 0

    def choose(self, decision: Decision) -> Any:
        assert decision.legal_actions, f"{decision.side} has no legal action"
        st = self.state()
        for u in st.units.values():
            if carried_by(u) is not None and not u.destroyed:
                assert not st.units[carried_by(u)].destroyed, f"{u.id} in a wreck"
        self.decisions += 1
        return self.inner.choose(decision)
