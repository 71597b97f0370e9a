"""A game's state as display data: unit stacks, panels and tables (pure functions).

Everything here reads a :class:`~wargame.engine.Game` (and optionally another
:class:`~wargame.engine.GameState` of it, e.g. a replayed one) and returns plain
data or HTML strings; nothing imports a widget library.  Rule questions (weapon
ranges, odds, whether an action is legal) are asked of the rule system through
its hooks (:mod:`wargame.engine.present`: ``unit_look``, ``unit_reach``,
``odds_table``, ``panels``), never answered here; nothing here names a rule
system.

Examples:
    >>> from wargame.engine import Game
    >>> game = Game.from_scenario("test_remagen", seed=1)
    >>> stacks = {s.hex: s for s in unit_stacks(game)}
    >>> stacks["N17"].units, stacks["N17"].side
    (('US-M1', 'US-HQ'), 'nato')
    >>> [(r.label, r.metres) for r in unit_reach(game, "SU-T1")]
    [('normal range', 1350.0), ('extended range', 2550.0)]
    >>> [title for title, _ in panels_html(game)]
    ['Chit cup']
    >>> "<table" in log_table_html(game.log)
    True
"""

from __future__ import annotations

import html
import weakref
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any, NamedTuple

from wargame.engine.present import Panel, PanelItem, Reach, UnitLook

from .symbols import SYMBOL_KINDS, side_colour, symbol_kind, unit_svg

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from wargame.engine import Action, Game, GameState, Point, Unit

__all__ = [
    "Reach",
    "Stack",
    "UnitLook",
    "actions_involving",
    "dice_html",
    "dice_svg",
    "last_rolls",
    "log_table_html",
    "odds_html",
    "odds_table",
    "panel_html",
    "panels_html",
    "reach_hexes",
    "reach_rings_geojson",
    "status_html",
    "unit_looks",
    "unit_reach",
    "unit_stacks",
    "units_by_point",
    "units_html",
]

_TABLE_CSS = (
    "<style>.wargame-table{border-collapse:collapse;font-size:12px}"
    ".wargame-table th,.wargame-table td{padding:1px 6px;text-align:left;"
    "vertical-align:top;border-bottom:1px solid #e4e4e4}"
    ".wargame-table thead th{background:#f3f3f3;position:sticky;top:0}</style>"
)

LOG_SHOWN_COLUMNS: tuple[str, ...] = (
    "seq",
    "turn",
    "phase",
    "side",
    "unit",
    "kind",
    "dice",
    "needed",
    "hits",
    "result",
    "detail",
)


def _e(value: Any) -> str:
    return html.escape(str(value))


def _isna(value: Any) -> bool:
    if value is None:
        return True
    try:
        return bool(value != value)  # NaN, pd.NA raises
    except TypeError:
        return True


# --------------------------------------------------------------------------- #
# units                                                                       #
# --------------------------------------------------------------------------- #


def _side_colours(state: GameState) -> dict[str, str]:
    return {sid: side_colour(i) for i, sid in enumerate(state.sides)}


def _resolved(look: UnitLook, colour: str) -> UnitLook:
    """A look with a drawable icon kind and a concrete colour."""
    symbol = look.symbol if look.symbol in SYMBOL_KINDS else symbol_kind(look.symbol)
    if symbol == look.symbol and look.colour is not None:
        return look
    return replace(look, symbol=symbol, colour=look.colour or colour)


def unit_looks(game: Game, state: GameState | None = None) -> dict[str, UnitLook]:
    """How the rule system draws every unit of a state (its ``unit_look`` hook).

    The looks are made drawable: ``colour`` is never ``None`` (a unit the rule
    system gives no colour takes its side's, :func:`~.symbols.side_colour`) and
    ``symbol`` is one of :data:`~.symbols.SYMBOL_KINDS` (other words go through
    :func:`~.symbols.symbol_kind`).

    Args:
        game: the game (its rule system answers).
        state: the state to draw (default: the game's current state).
    """
    state = game.state if state is None else state
    colours = _side_colours(state)
    hook = game.ruleset.unit_look
    return {
        uid: _resolved(hook(state, u), colours.get(u.side, side_colour(0)))
        for uid, u in state.units.items()
    }


def _fallback_look(u: Unit) -> UnitLook:
    return UnitLook("unknown", side_colour(0), u.type)


class Stack(NamedTuple):
    """The units at one place (a hex or a free point), as one marker.

    Attributes:
        hex: the hex label; for units at a free point, the hex the point lies in
            (``None`` off the hex grid).
        lon, lat: where the marker stands: the hex centre, or the point.
        units: unit ids, the top (shown) unit first, in the rule system's
            stacking order (:attr:`UnitLook.rank`).
        side: the side of the top unit.
        svg: the symbol of the top unit with the stack's size.
        title: a tooltip naming every unit and its state.
        point: the free point (map metres) of a point stack, else ``None``.
    """

    hex: str | None
    lon: float
    lat: float
    units: tuple[str, ...]
    side: str
    svg: str
    title: str
    point: Point | None = None

    @property
    def key(self) -> str:
        """What tells stacks apart: the hex label, or ``"@x,y"`` for a point."""
        if self.point is not None:
            return f"@{float(self.point.x):.2f},{float(self.point.y):.2f}"
        return str(self.hex)


def units_by_hex(state: GameState) -> dict[str, list[Unit]]:
    """Units in play per hex (destroyed, off-map and point units left out)."""
    out: dict[str, list[Unit]] = {}
    for u in state.units.values():
        h = u.hex
        if h is None or u.destroyed:
            continue
        out.setdefault(h, []).append(u)
    return out


def units_by_point(state: GameState) -> dict[Point, list[Unit]]:
    """Units in play per free point (units in hexes or off the map left out)."""
    from wargame.engine import Point

    out: dict[Point, list[Unit]] = {}
    for u in state.units.values():
        p = u.position
        if not isinstance(p, Point) or u.destroyed:
            continue
        out.setdefault(p, []).append(u)
    return out


def _unit_words(look: UnitLook) -> str:
    """State words and markers of a unit for a tooltip."""
    return ", ".join((look.state_text, *look.markers))


def _point_hex(m: Any, p: Point) -> str | None:
    try:
        return str(m.hex_at_xy(float(p.x), float(p.y)))
    except (ValueError, AttributeError):
        return None


def _stack(
    where: str,
    hex_label: str | None,
    lonlat: tuple[float, float],
    units: list[Unit],
    looks: Mapping[str, UnitLook],
    point: Point | None = None,
) -> Stack:
    got = {u.id: looks.get(u.id) or _fallback_look(u) for u in units}
    units.sort(key=lambda u: (got[u.id].rank, u.id))
    top = units[0]
    look = got[top.id]
    svg = unit_svg(
        look.symbol,
        look.colour or side_colour(0),
        reduced=look.reduced,
        suppressed=look.suppressed,
        spent=look.spent,
        stack=len(units),
    )
    title = f"{where}: " + "; ".join(
        f"{u.name} ({_unit_words(got[u.id])})" for u in units
    )
    lon, lat = lonlat
    return Stack(
        hex_label, lon, lat, tuple(u.id for u in units), top.side, svg, title, point
    )


def unit_stacks(
    game: Game,
    state: GameState | None = None,
    looks: Mapping[str, UnitLook] | None = None,
) -> list[Stack]:
    """One :class:`Stack` per occupied hex (sorted by label), then one per
    occupied free point (sorted by x, y).

    Units standing at a free :class:`~wargame.engine.Point` (map metres) are
    grouped by identical point and drawn at ``m.to_lonlat(x, y)``.

    Args:
        game: the game (its map places the hexes and points).
        state: the state to draw (default: the game's current state; pass
            ``game.state_for(side)`` to hide what that side cannot see, or a
            replayed state).
        looks: unit looks (default: :func:`unit_looks` of ``state``).
    """
    state = game.state if state is None else state
    looks = unit_looks(game, state) if looks is None else looks
    m = game.map
    where = hex_lonlat(m)
    out = [
        _stack(h, h, where[h], units, looks)
        for h, units in sorted(units_by_hex(state).items())
    ]
    points = units_by_point(state)
    for p in sorted(points, key=lambda p: (p.x, p.y)):
        lon, lat = m.to_lonlat(float(p.x), float(p.y))
        h = _point_hex(m, p)
        label = f"{p.x:.0f} E, {p.y:.0f} N" + (f" (in {h})" if h else "")
        out.append(
            _stack(label, h, (float(lon), float(lat)), points[p], looks, point=p)
        )
    return out


_LONLAT: weakref.WeakKeyDictionary[Any, dict[str, tuple[float, float]]] = (
    weakref.WeakKeyDictionary()
)


def hex_lonlat(m: Any) -> dict[str, tuple[float, float]]:
    """Hex label -> centre (lon, lat), computed once per map object."""
    out = _LONLAT.get(m)
    if out is None:
        h = m.hexes
        out = {
            str(k): (float(lon), float(lat))
            for k, lon, lat in zip(h.index, h["lon"], h["lat"], strict=True)
        }
        _LONLAT[m] = out
    return out


def units_html(game: Game, label: str, state: GameState | None = None) -> str:
    """A small HTML list of the units in a hex (for the hex info panel)."""
    state = game.state if state is None else state
    units = [u for u in state.units.values() if u.hex == label and not u.destroyed]
    if not units:
        return "<i>none</i>"
    sides = state.sides
    hook = game.ruleset.unit_look
    items = "".join(
        f"<li><b>{_e(u.name)}</b> <span style='color:#555'>({_e(u.id)}, "
        f"{_e(sides[u.side].name if u.side in sides else u.side)}; "
        f"{_e(hook(state, u).state_text)})</span></li>"
        for u in units
    )
    return f"<ul style='margin:0;padding-left:16px'>{items}</ul>"


# --------------------------------------------------------------------------- #
# rule questions, asked of the rule system                                    #
# --------------------------------------------------------------------------- #


def unit_reach(
    game: Game, unit_id: str, state: GameState | None = None
) -> tuple[Reach, ...]:
    """The distances a unit reaches (range rings), in metres, longest last.

    Asks the rule system's ``unit_reach`` hook; empty for a unit that reaches
    nothing (or a rule system without range rings).
    """
    state = game.state if state is None else state
    reach = game.ruleset.unit_reach(state, unit_id)
    return tuple(sorted(reach, key=lambda r: r.metres))


def reach_hexes(m: Any, reach: Sequence[Reach]) -> list[tuple[str, int]]:
    """Each reach as ``(label, hex distance)``: ``round(metres / hex size)``.

    Examples:
        >>> from types import SimpleNamespace
        >>> reach_hexes(SimpleNamespace(hex_size_m=150.0), [Reach("normal", 1350.0)])
        [('normal', 9)]
    """
    size = float(m.hex_size_m)
    return [(r.label, round(r.metres / size)) for r in reach]


def reach_rings_geojson(m: Any, label: str, reach: Sequence[Reach]) -> dict[str, Any]:
    """One range ring per :class:`Reach` around a hex, named by its label.

    The hexes within each reach (rounded to whole hexes) are outlined as
    :func:`~wargame.render.los.range_rings_geojson` does; the outermost ring of
    several is drawn finer (the ``"extended"`` style), the others bolder.
    Each feature's properties hold ``ring`` (the label), ``hexes`` and
    ``metres``.
    """
    from .los import RING_STYLES, range_rings_geojson

    feats: list[dict[str, Any]] = []
    n = len(reach)
    for i, (r, (name, d)) in enumerate(zip(reach, reach_hexes(m, reach), strict=True)):
        style = dict(RING_STYLES["extended" if n > 1 and i == n - 1 else "normal"])
        slug = "".join(c if c.isalnum() else "-" for c in name.lower()).strip("-")
        style["className"] = f"wargame-range-ring wargame-range-{slug or i}"
        for f in range_rings_geojson(m, label, {name: d})["features"]:
            f["properties"]["style"] = style
            f["properties"]["metres"] = float(r.metres)
            feats.append(f)
    return {"type": "FeatureCollection", "features": feats}


def odds_table(
    game: Game, attacker: str, target: str, state: GameState | None = None
) -> pd.DataFrame | None:
    """The exact odds of ``attacker`` attacking ``target``, as the rule system
    computes them (its ``odds_table`` hook), or ``None`` when it has none.

    The frame's index names the attack (a weapon), its columns the outcomes, and
    optionally ``note`` (why this attack cannot be made at all) and ``legal``
    (``None``, or why it is not legal now).

    Raises:
        ValueError: the rule system says the question makes no sense (e.g. a
            unit is not in play).
    """
    state = game.state if state is None else state
    return game.ruleset.odds_table(state, attacker, target)


def why_not(game: Game, action: Mapping[str, Any] | Action) -> str | None:
    """Why the rules forbid an action now (``None``: it is legal).

    Asks the rule system's ``check`` without changing anything.
    """
    from wargame.engine import ActionFormatError, IllegalActionError

    if game.is_over:
        return "the game is over"
    try:
        a = (
            game.ruleset.action_from_dict(action)
            if isinstance(action, Mapping)
            else action
        )
        game.ruleset.check(game.state, a)
    except ActionFormatError as exc:
        return str(exc)
    except IllegalActionError as exc:
        return str(exc)
    return None


def actions_involving(
    actions: Sequence[Action],
    *,
    unit: str | None = None,
    hex: str | None = None,
    units_in_hex: Iterable[str] = (),
) -> list[Action]:
    """Legal actions that name a unit and/or a hex (or a unit standing in it).

    Matches on the action's fields (``to_dict()`` values), so it needs no
    knowledge of the rule system.

    Examples:
        >>> from dataclasses import dataclass
        >>> from wargame.engine import Action
        >>> @dataclass(frozen=True)
        ... class Go(Action):
        ...     type = "go"
        ...     unit: str
        ...     to: str
        >>> @dataclass(frozen=True)
        ... class Hit(Action):
        ...     type = "hit"
        ...     unit: str
        ...     target: str
        >>> acts = [Go("A", "K12"), Go("A", "K13"), Hit("A", "B"), Go("C", "K12")]
        >>> actions_involving(acts, unit="A", hex="K12")
        [Go(unit='A', to='K12')]
        >>> actions_involving(acts, unit="A", hex="L1", units_in_hex=["B"])
        [Hit(unit='A', target='B')]
    """
    others = set(units_in_hex)
    out = []
    for a in actions:
        values: set[str] = set()
        for v in a.to_dict().values():
            if isinstance(v, list | tuple):
                values.update(str(x) for x in v)
            elif v is not None and not isinstance(v, bool):
                values.add(str(v))
        if unit is not None and unit not in values:
            continue
        if hex is not None and hex not in values and not (values & others):
            continue
        out.append(a)
    return out


# --------------------------------------------------------------------------- #
# panels                                                                      #
# --------------------------------------------------------------------------- #

_PIPS = {
    1: [(0.5, 0.5)],
    2: [(0.27, 0.27), (0.73, 0.73)],
    3: [(0.27, 0.27), (0.5, 0.5), (0.73, 0.73)],
    4: [(0.27, 0.27), (0.73, 0.27), (0.27, 0.73), (0.73, 0.73)],
    5: [(0.27, 0.27), (0.73, 0.27), (0.5, 0.5), (0.27, 0.73), (0.73, 0.73)],
    6: [
        (0.27, 0.25),
        (0.73, 0.25),
        (0.27, 0.5),
        (0.73, 0.5),
        (0.27, 0.75),
        (0.73, 0.75),
    ],
}


def dice_svg(face: int, size: int = 26) -> str:
    """One die face as inline SVG (pips; a number for faces above 6).

    Examples:
        >>> dice_svg(5).count("<circle")
        5
    """
    s = size
    body = (
        f"<rect x='1' y='1' width='{s - 2}' height='{s - 2}' rx='{s // 6}' "
        "fill='#fffdf5' stroke='#333' stroke-width='1.2'/>"
    )
    pips = _PIPS.get(int(face))
    if pips is None:
        body += (
            f"<text x='{s / 2:g}' y='{s * 0.68:g}' font-size='{s // 2}' "
            f"text-anchor='middle' font-family='sans-serif'>{int(face)}</text>"
        )
    else:
        r = s * 0.09
        body += "".join(
            f"<circle cx='{x * s:.1f}' cy='{y * s:.1f}' r='{r:.1f}' fill='#222'/>"
            for x, y in pips
        )
    return (
        f"<svg class='wargame-die' width='{s}' height='{s}' viewBox='0 0 {s} {s}' "
        f"style='margin-right:3px;vertical-align:middle'>{body}</svg>"
    )


def last_rolls(log: pd.DataFrame) -> pd.DataFrame:
    """The die rolls of the latest action that rolled any (rows of the log)."""
    rolls = log[log["dice"].notna()]
    if rolls.empty:
        return rolls
    last = rolls["action_index"].iloc[-1]
    return rolls[rolls["action_index"] == last]


def dice_html(rolls: pd.DataFrame, *, title: str = "Last roll") -> str:
    """The dice panel: faces, the number needed, hits and the result in words.

    ``rolls`` are log rows with dice (e.g. :func:`last_rolls`); the last one is
    shown large, the earlier ones of the same action above it.
    """
    if rolls is None or len(rolls) == 0:
        return (
            f"<div class='wargame-dice'><b>{_e(title)}</b><br>"
            "<i>no dice rolled yet</i></div>"
        )
    lines = []
    n = len(rolls)
    for i, (_, r) in enumerate(rolls.iterrows()):
        big = i == n - 1
        faces = "".join(dice_svg(int(f), 30 if big else 20) for f in r["dice"])
        needed = "" if _isna(r["needed"]) else f"needed <b>{int(r['needed'])}</b>"
        hits = "" if _isna(r["hits"]) else f"hits <b>{int(r['hits'])}</b>"
        facts = " · ".join(x for x in (needed, hits) if x)
        result = "" if _isna(r["result"]) else _e(r["result"])
        style = "" if big else "opacity:0.75;font-size:90%"
        lines.append(
            f"<div class='wargame-roll' style='margin:3px 0;{style}'>"
            f"<span style='color:#555'>#{int(r['seq'])} {_e(r['kind'])}</span> "
            f"{faces} {facts} → <b>{result}</b>"
            f"<div style='color:#444;font-size:90%'>{_e(r['detail'])}</div></div>"
        )
    return f"<div class='wargame-dice'><b>{_e(title)}</b>{''.join(lines)}</div>"


def log_table_html(
    log: pd.DataFrame,
    *,
    turn: int | None = None,
    side: str | None = None,
    unit: str | None = None,
    limit: int = 100,
    newest_first: bool = True,
) -> str:
    """The game log as an HTML table, filtered by turn, side and unit.

    Args:
        log: ``Game.log``.
        turn, side, unit: keep only these rows (``unit`` matches the acting unit or
            the target).
        limit: at most this many rows (the newest).
        newest_first: newest event at the top.
    """
    df = filter_log(log, turn=turn, side=side, unit=unit)
    total = len(df)
    df = df.tail(limit)
    if newest_first:
        df = df.iloc[::-1]
    head = "".join(f"<th>{c}</th>" for c in LOG_SHOWN_COLUMNS)
    rows = []
    for rec in df[list(LOG_SHOWN_COLUMNS)].itertuples(index=False):
        cells = []
        for c, v in zip(LOG_SHOWN_COLUMNS, rec, strict=True):
            if not isinstance(v, tuple) and _isna(v):
                text = ""
            elif c == "dice":
                text = " ".join(str(x) for x in v)
            else:
                text = str(v)
            cells.append(f"<td>{_e(text)}</td>")
        rows.append("<tr>" + "".join(cells) + "</tr>")
    shown = f"{total} events" + (f", newest {limit} shown" if total > limit else "")
    return (
        f"<div class='wargame-log'>{_TABLE_CSS}<div style='color:#555'>{shown}</div>"
        "<table class='wargame-table'>"
        f"<thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table></div>"
    )


def filter_log(
    log: pd.DataFrame,
    *,
    turn: int | None = None,
    side: str | None = None,
    unit: str | None = None,
) -> pd.DataFrame:
    """Rows of the log of one turn, side and/or unit (acting or targeted)."""
    df = log
    if turn is not None:
        df = df[df["turn"] == turn]
    if side is not None:
        df = df[df["side"] == side]
    if unit is not None:
        df = df[(df["unit"] == unit) | (df["target"] == unit)]
    return df


def panel_html(panel: Panel, colours: Mapping[str, str] | None = None) -> str:
    """One side panel of the rule system (World at War: the chit cup) as HTML.

    Each section is a titled row of items; an item with a side is filled with
    that side's colour (``colours``: side id -> CSS colour).
    """
    colours = colours or {}

    def item(it: PanelItem) -> str:
        bg = colours.get(it.side, "#ddd") if it.side is not None else "#ddd"
        return (
            f"<span title='{_e(it.title or it.text)}' style='display:inline-block;"
            "padding:1px 5px;margin:1px;border:1px solid #333;border-radius:3px;"
            f"background:{bg};font-size:11px'>{_e(it.text)}</span>"
        )

    parts = [
        f"<div><b>{_e(sec.title)}</b> ({len(sec.items)}): "
        f"{''.join(item(i) for i in sec.items) or '<i>empty</i>'}</div>"
        for sec in panel.sections
    ]
    if not parts:
        parts.append("<i>empty</i>")
    return f"<div class='wargame-panel'>{''.join(parts)}</div>"


def panels_html(
    game: Game, state: GameState | None = None, side: str | None = None
) -> list[tuple[str, str]]:
    """The rule system's side panels (its ``panels`` hook) as ``(title, html)``.

    Args:
        game: the game.
        state: the state shown (default: the game's current state).
        side: the side looking (``None``: everything is seen).

    Returns:
        One pair per panel, in the rule system's order (empty: no panels).
    """
    state = game.state if state is None else state
    colours = _side_colours(state)
    return [(p.title, panel_html(p, colours)) for p in game.ruleset.panels(state, side)]


def status_html(
    game: Game,
    *,
    human: str | None = None,
    policy_names: Mapping[str, str] | None = None,
    state: GameState | None = None,
) -> str:
    """One line: turn, phase, who decides, seed, actions so far, or the outcome."""
    st = game.state if state is None else state
    sides = st.sides
    turns = getattr(game.scenario, "turns", None)
    bits = [f"<b>Turn {st.turn}{f'/{turns}' if turns else ''}</b>", _e(st.phase)]
    out = game.outcome if state is None else None
    if out is not None:
        who = sides[out.winner].name if out.winner in sides else "nobody (draw)"
        vp = ", ".join(
            f"{_e(sides[s].name if s in sides else s)} {p}"
            for s, p in out.victory_points.items()
        )
        bits.append(
            f"<b style='color:#8a1c1c'>game over: {_e(who)} wins</b> "
            f"({_e(out.termination)}; VP {vp})"
        )
    elif state is None and game.current_side is not None:
        side = game.current_side
        who = "you" if side == human else f"AI: {(policy_names or {}).get(side, '?')}"
        bits.append(f"to decide: <b>{_e(sides[side].name)}</b> ({_e(who)})")
    bits.append(f"seed {game.seed}")
    bits.append(f"{len(game.actions)} actions")
    return "<div class='wargame-status'>" + " · ".join(bits) + "</div>"


def odds_html(frame: pd.DataFrame | None, attacker: str, target: str) -> str:
    """:func:`odds_table` as an HTML table, with whether each attack is legal now.

    Generic over the frame: its index names the attacks (e.g. weapons), every
    column but ``note`` and ``legal`` is an outcome's probability.  A row with a
    ``note`` shows it instead of numbers; the reasons an attack is not legal now
    (``legal`` not ``None``) are listed once under the table.
    """
    if frame is None:
        return "<div class='wargame-odds'><i>no odds for this rule system</i></div>"
    if frame.empty:
        return f"<div class='wargame-odds'><i>{_e(attacker)} has no weapon.</i></div>"
    outcomes = [c for c in frame.columns if c not in ("note", "legal")]
    has_legal = "legal" in frame.columns
    first = frame.index.name or "attack"
    head = "".join(
        f"<th>{_e(c)}</th>"
        for c in [first, *outcomes, *(["legal now"] if has_legal else [])]
    )

    def cell(v: Any) -> str:
        if isinstance(v, bool) or not isinstance(v, int | float):
            return "" if _isna(v) else _e(v)
        return "" if _isna(v) else f"{float(v):.1%}"

    rows = []
    reasons: list[str] = []
    for name, r in frame.iterrows():
        note = r.get("note") if "note" in frame.columns else None
        if note and not _isna(note):
            cells = f"<td colspan='{len(outcomes)}'><i>{_e(note)}</i></td>"
        else:
            cells = "".join(f"<td>{cell(r[c])}</td>" for c in outcomes)
        legal = ""
        if has_legal:
            why = r["legal"]
            if why is None or _isna(why):
                legal = "<td><b style='color:#1a7f37'>yes</b></td>"
            else:
                legal = f"<td><span title='{_e(why)}'>no</span></td>"
                if str(why) not in reasons:
                    reasons.append(str(why))
        rows.append(f"<tr><td><b>{_e(name)}</b></td>{cells}{legal}</tr>")
    why = "".join(
        f"<div style='font-size:11px;color:#555'>Not legal now: {_e(x)}</div>"
        for x in reasons
    )
    return (
        f"<div class='wargame-odds'>{_TABLE_CSS}<b>Exact odds: {_e(attacker)} "
        f"attacks {_e(target)}</b><table class='wargame-table'>"
        f"<thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"
        f"{why}</div>"
    )
