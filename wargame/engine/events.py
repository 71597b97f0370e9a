"""Events: the log of a game, one plain row per state change or die roll.

An :class:`Event` is the single source of truth of a game: it carries the
``changes`` that were applied to the state (see
:data:`~wargame.engine.state.Change`) plus the columns an analyst reads (who, what,
where, which dice, what they needed, what followed).  :func:`events_frame` turns a
list of events into a pandas DataFrame with stable columns (:data:`LOG_COLUMNS`) and
dtypes, whatever the rule system.

Examples:
    >>> e = Event(seq=1, turn=1, phase="action", side="nato", formation="A",
    ...           unit="A1", action="fire", kind="fire", target="B1",
    ...           dice=(4, 5, 1), needed=4, hits=2, result="2 hits",
    ...           detail="M60 fires")
    >>> df = events_frame([e])
    >>> list(df.columns) == list(LOG_COLUMNS)
    True
    >>> df.loc[0, "hits"], df.loc[0, "dice"]
    (np.int64(2), (4, 5, 1))
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .state import Change

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = [
    "LOG_COLUMNS",
    "POINT_COLUMNS",
    "TEXT_COLUMNS",
    "Event",
    "events_frame",
    "log_for_parquet",
]

#: The point columns (map metres; NaN in the frame when the event has none).
POINT_COLUMNS: tuple[str, ...] = ("x_from", "y_from", "x_to", "y_to")

#: Text columns of the log (pandas ``string``; ``pd.NA`` where missing).
TEXT_COLUMNS: tuple[str, ...] = (
    "phase",
    "side",
    "formation",
    "unit",
    "action",
    "kind",
    "target",
    "hex_from",
    "hex_to",
    "result",
    "detail",
)

#: Columns of :attr:`wargame.engine.Game.log`, in order.
LOG_COLUMNS: tuple[str, ...] = (
    "seq",
    "turn",
    "phase",
    "side",
    "formation",
    "unit",
    "action",
    "kind",
    "target",
    "hex_from",
    "hex_to",
    "x_from",
    "y_from",
    "x_to",
    "y_to",
    "dice",
    "needed",
    "hits",
    "result",
    "detail",
    "action_index",
    "visible_to",
)


@dataclass(frozen=True, slots=True)
class Event:
    """One row of the game log.

    Attributes:
        seq: 1-based position in the log.
        turn: game turn, after the event (a new turn's first event is in it).
        phase: phase after the event (rule-system word).
        side: the side it concerns (the acting side for actions).
        formation: the formation concerned, if any.
        unit: the acting or affected unit id.
        action: ``type`` of the action that caused it (``None``: automatic step).
        kind: what happened (``"move"``, ``"fire"``, ``"save"``, ``"draw"``...).
        target: target unit id (or hex, chit...) when there is one.
        hex_from: where from (hex label) for movement.
        hex_to: where to, or the hex where it happened.
        dice: the faces rolled, in order, for a die roll.
        needed: the number each die had to reach (or the total needed).
        hits: successes counted (hits, saves...).
        result: the outcome in a word or two.
        detail: one sentence in game terms.
        action_index: index (in the game's action list) of the action that caused
            it; ``-1`` for what happened before the first action.
        changes: the state changes it carries.
        visible_to: the sides that may see it (``None``: every side).  An event
            about a hidden unit or a secret card names only its owner; the
            umpire's log (:attr:`Game.log`) holds every event, a side's log
            (:meth:`Game.log_for`) only those it may see.
        x_from, y_from: where from, in map metres, for a move or a shot from a
            free point (``RuleContext.emit(point_from=...)``).
        x_to, y_to: where to (or where it happened), in map metres.
    """

    seq: int
    turn: int
    phase: str
    side: str | None = None
    formation: str | None = None
    unit: str | None = None
    action: str | None = None
    kind: str = "note"
    target: str | None = None
    hex_from: str | None = None
    hex_to: str | None = None
    dice: tuple[int, ...] | None = None
    needed: int | None = None
    hits: int | None = None
    result: str | None = None
    detail: str = ""
    action_index: int = -1
    changes: tuple[Change, ...] = ()
    visible_to: tuple[str, ...] | None = None
    x_from: float | None = None
    y_from: float | None = None
    x_to: float | None = None
    y_to: float | None = None

    def visible(self, side: str | None) -> bool:
        """Whether ``side`` may see this event (``None``: the umpire sees all)."""
        return side is None or self.visible_to is None or side in self.visible_to

    def to_row(self) -> dict[str, object]:
        """The log columns of this event as a dict."""
        return {c: getattr(self, c) for c in LOG_COLUMNS}


def events_frame(
    events: Sequence[Event],
    *,
    categories: dict[str, Sequence[str]] | None = None,
) -> pd.DataFrame:
    """A DataFrame of events with the stable :data:`LOG_COLUMNS` and dtypes.

    One missing-value convention: ``pd.NA`` in every column.  ``phase``,
    ``side``, ``formation``, ``unit``, ``action``, ``kind``, ``target``,
    ``hex_from``, ``hex_to``, ``result`` and ``detail`` are pandas strings;
    ``needed`` and ``hits`` nullable integers; ``x_from``, ``y_from``, ``x_to``,
    ``y_to`` nullable floats; ``dice`` holds tuples and ``visible_to`` tuples of
    sides (``pd.NA``: none).

    Args:
        events: the events.
        categories: ignored (kept for callers that passed category lists when
            these columns were categoricals).
    """
    import pandas as pd

    del categories
    cols: dict[str, list[object]] = {c: [] for c in LOG_COLUMNS}
    for e in events:
        for c in LOG_COLUMNS:
            cols[c].append(getattr(e, c))
    n = len(events)
    na = pd.NA
    data: dict[str, object] = {
        "seq": pd.array(cols["seq"], dtype="int64"),
        "turn": pd.array(cols["turn"], dtype="int64"),
    }
    for c in TEXT_COLUMNS:
        data[c] = pd.array(
            [na if v is None else str(v) for v in cols[c]], dtype="string"
        )
    for c in POINT_COLUMNS:
        data[c] = pd.array(cols[c], dtype="Float64")
    for c in ("dice", "visible_to"):
        data[c] = pd.Series([na if v is None else v for v in cols[c]], dtype=object)
    data["needed"] = pd.array(cols["needed"], dtype="Int64")
    data["hits"] = pd.array(cols["hits"], dtype="Int64")
    data["action_index"] = pd.array(cols["action_index"], dtype="int64")
    frame = pd.DataFrame(data, index=pd.RangeIndex(n))
    return frame[list(LOG_COLUMNS)]


def log_for_parquet(log: pd.DataFrame) -> pd.DataFrame:
    """A copy of a log that Parquet stores: the tuple columns (``dice``,
    ``visible_to``) as lists, missing as null.

    Examples:
        >>> df = events_frame([Event(seq=1, turn=1, phase="a", dice=(6, 2))])
        >>> out = log_for_parquet(df)
        >>> out["dice"].tolist(), out["visible_to"].tolist()
        ([[6, 2]], [None])
    """
    out = log.copy()
    for col in ("dice", "visible_to"):
        if col in out:
            out[col] = [
                list(v) if isinstance(v, tuple | list) else None for v in out[col]
            ]
    return out
