"""A game's state as display data: unit stacks, panels and tables (pure functions).

Everything here reads a :class:`~wargame.engine.Game` (and optionally another
:class:`~wargame.engine.GameState` of it, e.g. a replayed one) and returns plain
data or HTML strings; nothing imports a widget library.  Rule questions (weapon
ranges, odds, whether an action is legal) are asked of the rule system through
its public functions, never answered here.

Examples:
    >>> from wargame.engine import Game
    >>> game = Game.from_scenario("test_remagen", seed=1)
    >>> stacks = {s.hex: s for s in unit_stacks(game)}
    >>> stacks["N17"].units, stacks["N17"].side
    (('US-M1', 'US-HQ'), 'nato')
    >>> fire_ranges(game, "SU-T1")              # T-72: printed range 8 (WaW 6.1.1)
    FireRanges(normal=9, extended=17)
    >>> "<table" in log_table_html(game.log)
    True
"""

from __future__ import annotations

import html
import weakref
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any, NamedTuple

from .symbols import NATION_COLOURS, side_colour, symbol_kind, unit_svg

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from wargame.engine import Action, Game, GameState, Unit

__all__ = [
    "FireRanges",
    "Stack",
    "UnitLook",
    "actions_involving",
    "cup_html",
    "dice_html",
    "dice_svg",
    "fire_odds",
    "fire_odds_html",
    "fire_ranges",
    "last_rolls",
    "log_table_html",
    "status_html",
    "unit_looks",
    "unit_stacks",
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


@dataclass(frozen=True)
class UnitLook:
    """How a unit is drawn: role icon, counter colour and type name."""

    kind: str
    colour: str
    type_name: str
    nation: str | None = None


def _is_waw(game: Game) -> bool:
    return str(getattr(game.ruleset, "id", "")).startswith("waw")


def unit_looks(game: Game) -> dict[str, UnitLook]:
    """Role icon and counter colour of every unit of a game.

    World at War units take the nation colour of their counter (US green, Soviet
    red, West German grey, British beige) and the icon of their unit class; units
    of other rule systems take a colour per side and the icon their ``unit_class``
    column (if any) suggests.
    """
    sides = list(game.state.sides)
    classes: Mapping[str, Any] = {}
    if not _is_waw(game):
        try:
            classes = game.ruleset.unit_columns(game.state).get("unit_class", {})
        except Exception:
            classes = {}
    out: dict[str, UnitLook] = {}
    for uid, u in game.state.units.items():
        colour = side_colour(sides.index(u.side) if u.side in sides else 0)
        if _is_waw(game):
            from wargame.rules.waw import get_unit

            try:
                t = get_unit(u.type)
            except KeyError:
                out[uid] = UnitLook("unknown", colour, u.type)
                continue
            nation = t.nation.value
            out[uid] = UnitLook(
                symbol_kind(t.unit_class.value),
                NATION_COLOURS.get(nation, colour),
                t.name,
                nation,
            )
        else:
            out[uid] = UnitLook(symbol_kind(classes.get(uid)), colour, u.type)
    return out


class Stack(NamedTuple):
    """The units in one hex, as one marker.

    Attributes:
        hex: the hex label.
        lon, lat: the hex centre.
        units: unit ids, the top (shown) unit first: combat units, then HQs,
            then passengers.
        side: the side of the top unit.
        svg: the symbol of the top unit with the stack's size.
        title: a tooltip naming every unit and its state.
    """

    hex: str
    lon: float
    lat: float
    units: tuple[str, ...]
    side: str
    svg: str
    title: str


def _rank(u: Unit, looks: Mapping[str, UnitLook]) -> tuple[int, str]:
    if u.carried_by is not None:
        return (2, u.id)
    if looks[u.id].kind == "hq":
        return (1, u.id)
    return (0, u.id)


def unit_state_words(u: Unit) -> str:
    """``"reduced, disrupted, Ops Complete"`` style words (``"full"`` if none)."""
    words = [] if u.strength in ("full", None) else [str(u.strength)]
    if u.disrupted:
        words.append("disrupted")
    if u.ops_complete:
        words.append("Ops Complete")
    if u.carried_by is not None:
        words.append(f"aboard {u.carried_by}")
    return ", ".join(words) or "full"


def units_by_hex(state: GameState) -> dict[str, list[Unit]]:
    """Units in play per hex (destroyed and off-map units left out)."""
    out: dict[str, list[Unit]] = {}
    for u in state.units.values():
        h = u.hex
        if h is None or u.destroyed:
            continue
        out.setdefault(h, []).append(u)
    return out


def _unit_markers(game: Game, state: GameState) -> Mapping[str, str]:
    """The rule system's ``markers`` words per unit (helicopter mode...), if any."""
    try:
        marks = game.ruleset.unit_columns(state).get("markers", {})
    except Exception:  # a rule system without unit columns
        return {}
    return {k: str(v) for k, v in marks.items() if v}


def unit_stacks(
    game: Game,
    state: GameState | None = None,
    looks: Mapping[str, UnitLook] | None = None,
) -> list[Stack]:
    """One :class:`Stack` per occupied hex, sorted by hex label.

    Args:
        game: the game (its map places the hexes).
        state: the state to draw (default: the game's current state; pass
            ``game.state_for(side)`` to hide what that side cannot see, or a
            replayed state).
        looks: unit looks (default: :func:`unit_looks`).
    """
    state = game.state if state is None else state
    looks = unit_looks(game) if looks is None else looks
    where = hex_lonlat(game.map)
    marks = _unit_markers(game, state)
    out = []
    for h, units in sorted(units_by_hex(state).items()):
        units.sort(key=lambda u: _rank(u, looks))
        top = units[0]
        look = looks.get(top.id) or UnitLook("unknown", side_colour(0), top.type)
        svg = unit_svg(
            look.kind,
            look.colour,
            reduced=top.strength == "reduced",
            disrupted=top.disrupted,
            ops_complete=top.ops_complete,
            stack=len(units),
        )
        words = {
            u.id: ", ".join(filter(None, (unit_state_words(u), marks.get(u.id))))
            for u in units
        }
        title = f"{h}: " + "; ".join(f"{u.name} ({words[u.id]})" for u in units)
        lon, lat = where[h]
        out.append(Stack(h, lon, lat, tuple(u.id for u in units), top.side, svg, title))
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
    items = "".join(
        f"<li><b>{_e(u.name)}</b> <span style='color:#555'>({_e(u.id)}, "
        f"{_e(sides[u.side].name if u.side in sides else u.side)}; "
        f"{_e(unit_state_words(u))})</span></li>"
        for u in units
    )
    return f"<ul style='margin:0;padding-left:16px'>{items}</ul>"


# --------------------------------------------------------------------------- #
# rule questions, asked of the rule system                                    #
# --------------------------------------------------------------------------- #


class FireRanges(NamedTuple):
    """Hex distances (1 = adjacent) a unit can reach at normal and extended range."""

    normal: int
    extended: int


@lru_cache(maxsize=256)
def _weapon_reach(weapon_range: int, underlined: bool) -> FireRanges:
    from wargame.rules.waw import IllegalFireError, RangeBand, range_band, rule_range

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
    return FireRanges(normal, extended)


def fire_ranges(
    game: Game, unit_id: str, state: GameState | None = None
) -> FireRanges | None:
    """How far a unit's longest weapon reaches, in hex distance, as the rules say.

    For World at War this asks the rules' own ``range_band`` for each printed
    weapon of the unit's current side (full or reduced).  ``None`` for a unit
    without weapons or a rule system without ranged fire.
    """
    if not _is_waw(game):
        return None
    from wargame.rules.waw import get_unit

    state = game.state if state is None else state
    u = state.units[unit_id]
    try:
        side = get_unit(u.type).side(u.strength == "reduced")
    except KeyError:
        return None
    best: FireRanges | None = None
    for kind in ("ap", "he", "aa"):
        w = getattr(side, kind)
        if w is None or w.fp <= 0:
            continue
        r = _weapon_reach(int(w.range), bool(w.range_underlined))
        best = (
            r
            if best is None
            else FireRanges(max(best.normal, r.normal), max(best.extended, r.extended))
        )
    return best


def fire_odds(game: Game, attacker: str, target: str) -> pd.DataFrame:
    """Exact result odds of ``attacker`` firing at ``target``, one row per weapon.

    Asks :func:`wargame.rules.waw.unit_odds` (the same rule code as the dice) for
    every weapon of the attacker; a weapon the rules forbid here (range, target
    type) gets its reason in the ``note`` column instead of numbers.  Whether the
    shot is legal *now* (whose turn, line of sight) is in ``legal``.

    Raises:
        ValueError: not a rule system with fire odds, or a unit is not in play.
    """
    import pandas as pd

    if not _is_waw(game):
        raise ValueError(f"no fire odds for rule system {game.ruleset.id!r}")
    from wargame.rules.waw import OUTCOMES, get_unit, unit_odds

    st = game.state
    u, t = st.units[attacker], st.units[target]
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
            p = unit_odds(game, attacker, target, weapon=kind, results=True)
            row.update({k: float(p[k]) for k in OUTCOMES})
            row["note"] = ""
        except ValueError as exc:
            row.update(dict.fromkeys(OUTCOMES, float("nan")))
            row["note"] = str(exc)
        row["legal"] = why_not(
            game, {"type": "fire", "unit": attacker, "target": target, "weapon": kind}
        )
        rows.append(row)
    cols = ["weapon", *OUTCOMES, "note", "legal"]
    return pd.DataFrame(rows, columns=cols).set_index("weapon")


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
        >>> from wargame.rules.waw import Move, Fire, EndActivation
        >>> acts = [Move("A", "K12"), Move("A", "K13"), Fire("A", "B", "ap"),
        ...         EndActivation()]
        >>> actions_involving(acts, unit="A", hex="K12")
        [Move(unit='A', to='K12', with_hq=False)]
        >>> fire = actions_involving(acts, unit="A", hex="L1", units_in_hex=["B"])
        >>> [(type(a).__name__, a.target) for a in fire]
        [('Fire', 'B')]
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


def cup_html(state: GameState) -> str:
    """The chit cup (and every other deck or hand) of a state.

    Formation chits are named and coloured by side; the drawn chit and the active
    formation are shown when the rule system records them.
    """
    sides = list(state.sides)
    colour = {
        f: side_colour(sides.index(x.side))
        for f, x in state.formations.items()
        if x.side in sides
    }

    def chit(item: str) -> str:
        f = state.formations.get(item)
        name = f.name if f is not None else item
        bg = colour.get(item, "#ddd")
        return (
            f"<span title='{_e(name)}' style='display:inline-block;padding:1px 5px;"
            f"margin:1px;border:1px solid #333;border-radius:3px;background:{bg};"
            f"font-size:11px'>{_e(item)}</span>"
        )

    parts = []
    for name, items in state.decks.items():
        chits = "".join(chit(i) for i in items) or "<i>empty</i>"
        parts.append(f"<div><b>{_e(name)}</b> ({len(items)}): {chits}</div>")
    for key, label in (("drawn", "drawn"), ("active", "active formation")):
        v = state.vars.get(key)
        if v:
            parts.append(f"<div>{label}: {chit(str(v))}</div>")
    if not parts:
        parts.append("<i>this rule system has no chit cup</i>")
    return f"<div class='wargame-cup'>{''.join(parts)}</div>"


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


def fire_odds_html(frame: pd.DataFrame, attacker: str, target: str) -> str:
    """:func:`fire_odds` as an HTML table, with whether each shot is legal now.

    The reasons a shot is not legal now are listed once under the table.
    """
    if frame.empty:
        return f"<div class='wargame-odds'><i>{_e(attacker)} has no weapon.</i></div>"
    outcomes = [c for c in frame.columns if c not in ("note", "legal")]
    head = "".join(f"<th>{_e(c)}</th>" for c in ["weapon", *outcomes, "legal now"])
    rows = []
    reasons: list[str] = []
    for weapon, r in frame.iterrows():
        if r["note"]:
            cells = f"<td colspan='{len(outcomes)}'><i>{_e(r['note'])}</i></td>"
        else:
            cells = "".join(f"<td>{float(r[c]):.1%}</td>" for c in outcomes)
        if r["legal"] is None:
            legal = "<b style='color:#1a7f37'>yes</b>"
        else:
            legal = f"<span title='{_e(r['legal'])}'>no</span>"
            if r["legal"] not in reasons:
                reasons.append(str(r["legal"]))
        rows.append(f"<tr><td><b>{_e(weapon)}</b></td>{cells}<td>{legal}</td></tr>")
    why = "".join(
        f"<div style='font-size:11px;color:#555'>Not legal now: {_e(x)}</div>"
        for x in reasons
    )
    return (
        f"<div class='wargame-odds'>{_TABLE_CSS}<b>Exact odds: {_e(attacker)} fires "
        f"at {_e(target)}</b><table class='wargame-table'>"
        f"<thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"
        f"{why}</div>"
    )
