"""Golden playthrough logs: a whole game's events, recorded once and diffed in CI.

A golden log is a gzip'd JSON-lines file: the first line a header (rule system,
scenario, seed, the policy of each side), then one line per event with every log
column and the state changes it carried.  Replaying the header (same scenario,
seed and policies) must give exactly the same lines; a refactoring of a rule
system that changes any die, reason or state change shows up as the first line
that differs.  OpenSpiel's ``playthroughs/*.txt`` are the model.

Examples:
    >>> from wargame.engine import Game
    >>> game = Game.from_scenario("test_remagen", seed=3)
    >>> _ = game.run()
    >>> lines = record_lines(game, {"nato": "random", "pact": "random"})
    >>> header = json.loads(lines[0])
    >>> header["ruleset"], header["seed"], header["events"] == len(lines) - 1
    ('waw-classic', 3, True)
"""

from __future__ import annotations

import gzip
import io
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from wargame.engine import LOG_COLUMNS, Event, Game
from wargame.engine.events import POINT_COLUMNS
from wargame.engine.state import jsonable

__all__ = [
    "GOLDEN_FORMAT",
    "diff_golden",
    "event_line",
    "play_header",
    "read_golden",
    "record_lines",
    "write_golden",
]

GOLDEN_FORMAT = "wargame-golden-1"


def event_line(event: Event) -> str:
    """One event as a canonical JSON line (log columns plus changes)."""
    row: dict[str, Any] = {c: jsonable(getattr(event, c)) for c in LOG_COLUMNS}
    if event.visible_to is None:
        del row["visible_to"]  # public events: lines as before the column existed
    for c in POINT_COLUMNS:  # hex games: lines as before the point columns existed
        if row[c] is None:
            del row[c]
    row["changes"] = [jsonable(list(c)) for c in event.changes]
    return json.dumps(row, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _header(game: Game, policies: Mapping[str, str]) -> dict[str, Any]:
    from wargame.engine import available_scenarios

    outcome = game.outcome
    extra: dict[str, Any] = {}
    if game.scenario.id not in available_scenarios():
        extra["scenario_data"] = game.scenario.to_dict()  # not a shipped one
    return {
        **extra,
        "format": GOLDEN_FORMAT,
        "ruleset": game.scenario.ruleset,
        "scenario": game.scenario.id,
        "seed": game.seed,
        "policies": dict(sorted(policies.items())),
        "actions": len(game.actions),
        "events": len(game.events),
        "outcome": None if outcome is None else outcome.to_dict(),
    }


def record_lines(game: Game, policies: Mapping[str, str]) -> list[str]:
    """The golden lines of a finished game: a header, then one line per event."""
    head = json.dumps(_header(game, policies), sort_keys=True, ensure_ascii=False)
    return [head, *(event_line(e) for e in game.events)]


def write_golden(path: str | Path, game: Game, policies: Mapping[str, str]) -> Path:
    """Write a game's golden log (byte-identical for identical games)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    text = "\n".join(record_lines(game, policies)) + "\n"
    buf = io.BytesIO()
    with gzip.GzipFile(fileobj=buf, mode="wb", mtime=0, compresslevel=9) as fh:
        fh.write(text.encode("utf-8"))
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_bytes(buf.getvalue())
    tmp.replace(path)
    return path


def read_golden(path: str | Path) -> tuple[dict[str, Any], list[str]]:
    """The header and the event lines of a golden log."""
    with gzip.open(Path(path), "rt", encoding="utf-8") as fh:
        lines = fh.read().splitlines()
    header = json.loads(lines[0])
    if header.get("format") != GOLDEN_FORMAT:
        raise ValueError(f"{path}: not a golden log ({header.get('format')!r})")
    return header, lines[1:]


def play_header(header: Mapping[str, Any], *, max_actions: int = 100_000) -> Game:
    """Play the game a golden header describes, to its end."""
    from wargame.engine.policy import get_policy

    game = Game.from_scenario(
        header.get("scenario_data", header["scenario"]), seed=int(header["seed"])
    )
    policies = {
        side: get_policy(name, ruleset=header["ruleset"])
        for side, name in header["policies"].items()
    }
    game.policies.update(policies)
    game.run(max_actions=max_actions)
    return game


def diff_golden(path: str | Path) -> str | None:
    """Replay a golden log; ``None`` when identical, else the first difference."""
    header, want = read_golden(path)
    game = play_header(header)
    got = record_lines(game, header["policies"])
    got_head, got_events = json.loads(got[0]), got[1:]
    for i, (a, b) in enumerate(zip(want, got_events, strict=False)):
        if a != b:
            return f"{path}: event {i + 1} differs\n  golden: {a}\n  now:    {b}"
    if len(want) != len(got_events):
        return f"{path}: {len(want)} events in the golden log, {len(got_events)} now"
    if got_head != header:
        return f"{path}: header differs\n  golden: {header}\n  now:    {got_head}"
    return None
