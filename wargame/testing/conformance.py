"""The conformance harness every rule system passes: :func:`check_ruleset`.

PettingZoo's ``api_test``/``seed_test`` and OpenSpiel's ``random_sim_test`` are the
models: the harness ships with the library, so a rule system written anywhere is
checked the same way as the built-in ones.  For each seed it plays the scenario
to the end with random legal actions and checks:

1. **play**: every decision offers at least one action; the game ends within
   ``max_actions``; generic invariants after every event (one event number after
   the other, units of known sides and formations, a JSON-friendly state at each
   decision) and the caller's own invariants (listeners);
2. **legality**: ``legal_actions`` agrees with ``check`` (a sample of the offered
   actions passes it on the deciding side's view; actions offered before and
   not now are refused);
3. **determinism**: two games with one seed give the same events, line by line;
4. **save and load**: a game saved half-way, loaded and played on equals the
   uninterrupted game;
5. **replay**: applying the events' changes to the initial state rebuilds the
   final state;
6. **secrets**: no side's view holds another side's hidden unit, secret unit
   attribute or hand; no action offered to a side names a unit hidden from it;
   no event a side may see names such a unit or carries a change of it, or of
   a deck the side may not see.

Examples:
    >>> report = check_ruleset("waw-classic", "test_remagen", seeds=[1])
    >>> report.games, report.decisions > 10
    (1, True)
    >>> check_ruleset("waw-clasic", "test_remagen")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    wargame.engine.errors.UnknownRulesetError: unknown ruleset 'waw-clasic'; ...
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from wargame.engine import (
    Action,
    Decision,
    Event,
    Game,
    GameState,
    IllegalActionError,
    Listener,
    RandomPolicy,
    Scenario,
    get_ruleset,
    load_scenario,
)

from .golden import event_line

__all__ = ["ConformanceError", "ConformanceReport", "check_ruleset", "secrets_seen"]


class ConformanceError(AssertionError):
    """A rule system broke the protocol (the message says where and how)."""


@dataclass
class ConformanceReport:
    """What :func:`check_ruleset` played and checked."""

    ruleset: str
    scenario: str
    games: int = 0
    decisions: int = 0
    actions_checked: int = 0
    refusals_checked: int = 0
    events: int = 0
    leak_checks: int = 0
    outcomes: list[str] = field(default_factory=list)


def _values(action: Action) -> set[str]:
    out: set[str] = set()
    for v in action.to_dict().values():
        if isinstance(v, list | tuple):
            out.update(str(x) for x in v)
        elif isinstance(v, str):
            out.add(v)
    return out


def _hidden_from(state: GameState, side: str) -> set[str]:
    return {k for k, u in state.units.items() if u.hidden and u.side != side}


def secrets_seen(
    ruleset: Any,
    state: GameState,
    side: str,
    *,
    event: Event | None = None,
    actions: Sequence[Action] = (),
) -> list[str]:
    """Every secret of other sides that ``side`` gets to see (empty: none).

    Looks at the side's view of ``state``, the ``actions`` offered to it and,
    with ``event`` (and ``state`` the state after it), whether that event, if
    the side may see it, names or changes what is hidden from the side.
    """
    out: list[str] = []
    hidden = _hidden_from(state, side)
    view = ruleset.view(state, side)
    secret_attrs = frozenset(getattr(ruleset, "secret_attrs", frozenset()))
    for uid in sorted(hidden & view.units.keys()):
        out.append(f"{side}'s view holds hidden unit {uid}")
    for uid, u in view.units.items():
        if u.side != side and secret_attrs & u.attrs.keys():
            keys = sorted(secret_attrs & u.attrs.keys())
            out.append(f"{side}'s view shows secret {keys} of {uid}")
    secret_decks = set()
    for name in state.decks:
        viewers = ruleset.deck_viewers(state, name)
        if viewers is None or side in viewers:
            continue
        secret_decks.add(name)
        shown = view.decks.get(name, ())
        if any(x != "?" for x in shown):
            out.append(f"{side}'s view shows the contents of deck {name!r}")
    for a in actions:
        named = sorted(_values(a) & hidden)
        if named:
            out.append(f"{side} is offered {a} naming hidden unit(s) {named}")
    if event is not None and event.visible(side):
        for col in ("unit", "target"):
            v = getattr(event, col)
            if v in hidden:
                out.append(f"event {event.seq} seen by {side} names hidden {v}")
        for scope, key, attr, value in event.changes:
            if (
                scope == "unit"
                and key in hidden
                and not (attr == "hidden" and value is True)
            ):
                out.append(
                    f"event {event.seq} seen by {side} changes hidden unit {key}"
                )
            elif scope == "unit" and attr in secret_attrs and key in state.units:
                if state.units[key].side != side:
                    out.append(
                        f"event {event.seq} seen by {side} changes secret {attr} "
                        f"of {key}"
                    )
            elif scope == "deck" and key in secret_decks:
                out.append(f"event {event.seq} seen by {side} changes deck {key!r}")
    return out


def _has_secrets(ruleset: Any, state: GameState) -> bool:
    """Whether anything in the state is secret from some side (whatever the
    rule system says of its ``hidden_information``)."""
    secret_attrs = frozenset(getattr(ruleset, "secret_attrs", frozenset()))
    for u in state.units.values():
        if u.hidden or (secret_attrs and secret_attrs & u.attrs.keys()):
            return True
    return any(ruleset.deck_viewers(state, name) is not None for name in state.decks)


class _Watcher:
    """A listener: generic invariants and secrets after every event."""

    def __init__(self, game_ref: list[Game], report: ConformanceReport) -> None:
        self.game_ref = game_ref
        self.report = report
        self.last_seq = 0

    def __call__(self, event: Event, state: GameState) -> None:
        where = f"event {event.seq} ({event.kind})"
        if event.seq != self.last_seq + 1:
            raise ConformanceError(f"{where}: follows event {self.last_seq}")
        self.last_seq = event.seq
        for uid, u in state.units.items():
            if u.side not in state.sides:
                raise ConformanceError(f"{where}: unit {uid} of unknown side {u.side}")
            if u.formation is not None and u.formation not in state.formations:
                raise ConformanceError(
                    f"{where}: unit {uid} of unknown formation {u.formation}"
                )
        if not self.game_ref:
            return
        rules = self.game_ref[0].ruleset
        if not _has_secrets(rules, state):
            return
        for side in state.sides:
            leaks = secrets_seen(rules, state, side, event=event)
            self.report.leak_checks += 1
            if leaks:
                raise ConformanceError(f"{where}: " + "; ".join(leaks))


def _spread(items: Sequence[Action], n: int) -> list[Action]:
    if len(items) <= n:
        return list(items)
    if n <= 1:
        return list(items[:n])
    step = (len(items) - 1) / (n - 1)
    return [items[round(i * step)] for i in range(n)]


def _play(
    scenario: Scenario,
    seed: int,
    report: ConformanceReport,
    listeners: Sequence[Callable[[Scenario], Listener]],
    per_decision: int,
    max_actions: int,
    complete: bool,
    sampled: Callable[[Action], bool] | None = None,
) -> Game:
    ref: list[Game] = []
    watcher = _Watcher(ref, report)
    game = Game(
        scenario,
        seed=seed,
        listeners=[*(make(scenario) for make in listeners), watcher],
    )
    ref.append(game)
    policy = RandomPolicy()
    previous: list[Action] = []
    rules = game.ruleset
    for _ in range(max_actions):
        if game.is_over:
            break
        side = game.current_side
        assert side is not None
        where = f"{scenario.id} seed {seed}, decision {len(game.actions)} ({side})"
        acts = game.legal_actions()
        if not acts:
            raise ConformanceError(f"{where}: no legal action")
        report.decisions += 1
        try:
            game.state.to_dict()
        except TypeError as exc:
            raise ConformanceError(f"{where}: state is not plain data: {exc}") from None
        view = rules.view(game.state, side)
        for a in _spread(acts, per_decision):
            try:
                rules.check(view, a)
            except IllegalActionError as exc:
                raise ConformanceError(
                    f"{where}: legal_actions offers {a} but check says: {exc}"
                ) from None
            report.actions_checked += 1
        if complete:
            now = set(acts)
            gone = [
                a
                for a in previous
                if a not in now and (sampled is None or not sampled(a))
            ]
            for a in _spread(gone, per_decision):
                try:
                    rules.check(view, a)
                except IllegalActionError:
                    report.refusals_checked += 1
                    continue
                raise ConformanceError(
                    f"{where}: check allows {a}, which legal_actions does not offer"
                )
        if _has_secrets(rules, game.state):
            for s in game.state.sides:
                leaks = secrets_seen(
                    rules, game.state, s, actions=acts if s == side else ()
                )
                report.leak_checks += 1
                if leaks:
                    raise ConformanceError(f"{where}: " + "; ".join(leaks))
        previous = acts
        game.apply(policy.choose(_decision(game, side, acts)))
    else:
        raise ConformanceError(f"{scenario.id} seed {seed}: no end in {max_actions}")
    return game


def _decision(game: Game, side: str, acts: Sequence[Action]) -> Decision:
    return Decision(
        side=side, legal_actions=acts, number=len(game.actions), seed=game.seed
    )


def _lines(game: Game) -> list[str]:
    return [event_line(e) for e in game.events]


def _first_difference(a: list[str], b: list[str]) -> str:
    for i, (x, y) in enumerate(zip(a, b, strict=False)):
        if x != y:
            return f"event {i + 1}:\n  first:  {x}\n  second: {y}"
    return f"{len(a)} events against {len(b)}"


def check_ruleset(
    ruleset_id: str,
    scenario: str | Path | Mapping[str, Any] | Scenario,
    *,
    seeds: Iterable[int] = range(5),
    listeners: Sequence[Callable[[Scenario], Listener]] = (),
    per_decision: int = 6,
    repeat: int = 2,
    max_actions: int = 50_000,
    complete_legal_actions: bool = True,
    sampled: Callable[[Action], bool] | None = None,
) -> ConformanceReport:
    """Play a scenario of a rule system to the end for each seed and check the
    protocol (see the module docstring for what is checked).

    Args:
        ruleset_id: the registered id, e.g. ``"waw-classic"``.
        scenario: a scenario of that rule system (name, path, dict or loaded).
        seeds: the seeds to play.
        listeners: factories ``scenario -> listener`` of extra invariants, a
            listener ``(event, state)`` per game that raises ``AssertionError``.
        per_decision: how many offered (and withdrawn) actions to check against
            ``check`` at each decision, spread over the list.
        repeat: how many of the seeds to play twice for determinism.
        max_actions: a game longer than this fails.
        complete_legal_actions: ``legal_actions`` lists every legal action (so
            an action offered before and not now must be refused); ``False``
            for rule systems that offer a sample (free movement).
        sampled: actions of which ``legal_actions`` offers a sample only (say,
            an HQ's own path: any legal path is accepted, a few are offered);
            an action offered before and not now is not held to be refused
            when ``sampled(action)`` is true.  Every other action still is.

    Raises:
        UnknownRulesetError: no such rule system (the message lists the ids).
        ConformanceError: a check failed (the message says which, where).
    """
    get_ruleset(ruleset_id)  # unknown id: the error lists the registered ones
    sc = scenario if isinstance(scenario, Scenario) else load_scenario(scenario)
    if sc.ruleset != ruleset_id:
        raise ValueError(
            f"scenario {sc.id!r} is for {sc.ruleset!r}, not {ruleset_id!r}"
        )
    report = ConformanceReport(ruleset_id, sc.id)
    for i, seed in enumerate(seeds):
        game = _play(
            sc,
            seed,
            report,
            listeners,
            per_decision,
            max_actions,
            complete_legal_actions,
            sampled,
        )
        report.games += 1
        report.events += len(game.events)
        outcome = game.outcome
        assert outcome is not None
        report.outcomes.append(str(outcome.winner))
        where = f"{sc.id} seed {seed}"
        lines = _lines(game)
        if i < repeat:
            again = _play(
                sc,
                seed,
                ConformanceReport(ruleset_id, sc.id),
                listeners,
                1,
                max_actions,
                False,
            )
            if _lines(again) != lines:
                raise ConformanceError(
                    f"{where}: two games with one seed differ at "
                    + _first_difference(lines, _lines(again))
                )
        _check_save_load(game, lines, where)
        _check_replay(game, where)
    return report


def _check_save_load(game: Game, lines: list[str], where: str) -> None:
    half = len(game.actions) // 2
    part = Game(game.scenario, seed=game.seed, game_map=game.map)
    for a in game.actions[:half]:
        part.apply(a)
    with tempfile.TemporaryDirectory() as tmp:
        path = part.save(Path(tmp) / "half.json")
        loaded = Game.load(path)
    for a in game.actions[half:]:
        loaded.apply(a)
    if _lines(loaded) != lines:
        raise ConformanceError(
            f"{where}: saved after {half} actions, loaded and played on, the game "
            "differs at " + _first_difference(lines, _lines(loaded))
        )
    if loaded.state.digest() != game.state.digest():
        raise ConformanceError(f"{where}: the loaded game ends in another state")


def _check_replay(game: Game, where: str) -> None:
    last: GameState | None = None
    for _, state in game.replay():
        last = state
    final = game.initial_state if last is None else last
    if final.digest() != game.state.digest():
        raise ConformanceError(f"{where}: replaying the events gives another state")
