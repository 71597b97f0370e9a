"""NATO-style unit symbols as small SVG pictures (pure functions, no widgets).

A symbol is a counter-coloured frame with the role icon of APP-6 / MIL-STD-2525
land units drawn inside: an ellipse (tracks) for armour, a cross for infantry, both
for mechanised infantry, a diagonal for reconnaissance, a staff for an HQ, a dome
for air defence, a bow tie for helicopters, an inverted V for anti-tank, a tube
and bomb for mortars, the map sign of a bridge for bridge-layers.  Frames are
rectangles for every side (the counters of the board game), filled with the
counter colour the rule system gives (or the side's colour).  Markers show the
counter's state as the rule system's :class:`~wargame.engine.present.UnitLook`
says: a white band for a reduced (flipped) counter, a yellow "D" for a suppressed
one, a grey veil and tick for a unit done for the turn, and the number of units in
a stack.

Examples:
    >>> svg = unit_svg("armour", side_colour(0), stack=2, suppressed=True)
    >>> svg.startswith("<svg") and "<ellipse" in svg and ">2</text>" in svg
    True
    >>> svg_data_url(svg)[:26]
    'data:image/svg+xml;base64,'
    >>> symbol_kind("tank"), symbol_kind("hq"), symbol_kind("mystery")
    ('armour', 'hq', 'unknown')
"""

from __future__ import annotations

import base64
from functools import lru_cache

__all__ = [
    "SIDE_COLOURS",
    "SYMBOL_KINDS",
    "SYMBOL_SIZE",
    "side_colour",
    "svg_data_url",
    "symbol_kind",
    "unit_svg",
]

#: Counter colours of the sides whose rule system gives none, in side order.
SIDE_COLOURS: tuple[str, ...] = ("#5b8fd1", "#d1675b", "#8bb174", "#c9a94f")

#: Role icons drawn inside the frame.
SYMBOL_KINDS: tuple[str, ...] = (
    "armour",
    "mech_infantry",
    "infantry",
    "recon",
    "hq",
    "mortar",
    "air_defence",
    "helicopter",
    "anti_tank",
    "bridging",
    "unknown",
)

# everyday words for a unit's role -> role icon (a rule system's own class words
# are mapped by its ``unit_look`` hook; this is the fallback vocabulary)
_CLASS_KIND: dict[str, str] = {
    **{k: k for k in SYMBOL_KINDS},
    "armor": "armour",
    "armored": "armour",
    "armoured": "armour",
    "tank": "armour",
    "mechanized_infantry": "mech_infantry",
    "mechanised_infantry": "mech_infantry",
    "reconnaissance": "recon",
    "headquarters": "hq",
    "aa": "air_defence",
    "air_defense": "air_defence",
    "anti_aircraft": "air_defence",
    "at": "anti_tank",
    "bridge": "bridging",
    "bridge_layer": "bridging",
}

#: Width and height of a symbol picture in CSS pixels.
SYMBOL_SIZE: tuple[int, int] = (34, 28)

# frame box inside the picture
_X0, _Y0, _W, _H = 4.0, 6.0, 26.0, 17.0
_X1, _Y1 = _X0 + _W, _Y0 + _H
_CX, _CY = _X0 + _W / 2, _Y0 + _H / 2
_INK = "#111"


def symbol_kind(unit_class: str | None) -> str:
    """The role icon for a rule system's unit class (``"unknown"`` if none fits)."""
    return _CLASS_KIND.get(str(unit_class or "").lower(), "unknown")


def side_colour(index: int) -> str:
    """A fallback fill colour for the ``index``-th side."""
    return SIDE_COLOURS[index % len(SIDE_COLOURS)]


def _line(x1: float, y1: float, x2: float, y2: float, w: float = 1.3) -> str:
    return (
        f"<line x1='{x1:g}' y1='{y1:g}' x2='{x2:g}' y2='{y2:g}' "
        f"stroke='{_INK}' stroke-width='{w:g}'/>"
    )


def _ellipse(rx: float, ry: float) -> str:
    return (
        f"<ellipse cx='{_CX:g}' cy='{_CY:g}' rx='{rx:g}' ry='{ry:g}' fill='none' "
        f"stroke='{_INK}' stroke-width='1.3'/>"
    )


def _icon(kind: str) -> str:
    cross = _line(_X0, _Y0, _X1, _Y1) + _line(_X0, _Y1, _X1, _Y0)
    if kind == "armour":
        return _ellipse(_W * 0.32, _H * 0.26)
    if kind == "mech_infantry":
        return cross + _ellipse(_W * 0.3, _H * 0.24)
    if kind == "infantry":
        return cross
    if kind == "recon":
        return _line(_X0, _Y1, _X1, _Y0)
    if kind == "hq":
        # the staff hangs from the frame's lower left corner (APP-6 headquarters)
        return _line(_X0, _Y1, _X0, _Y1 + 5.0, 1.6) + (
            f"<text x='{_CX:g}' y='{_CY + 3.5:g}' font-family='sans-serif' "
            f"font-size='10' font-weight='bold' text-anchor='middle' "
            f"fill='{_INK}'>HQ</text>"
        )
    if kind == "mortar":
        return (
            f"<circle cx='{_CX:g}' cy='{_Y1 - 4:g}' r='2' fill='none' "
            f"stroke='{_INK}' stroke-width='1.2'/>"
            + _line(_CX, _Y1 - 6, _CX, _Y0 + 2.5)
            + f"<path d='M{_CX - 3:g},{_Y0 + 5.5:g} L{_CX:g},{_Y0 + 2:g} "
            f"L{_CX + 3:g},{_Y0 + 5.5:g}' fill='none' stroke='{_INK}' "
            "stroke-width='1.2'/>"
        )
    if kind == "air_defence":
        return (
            f"<path d='M{_X0 + 4:g},{_Y1:g} Q{_CX:g},{_Y0 + 3:g} {_X1 - 4:g},{_Y1:g}' "
            f"fill='none' stroke='{_INK}' stroke-width='1.3'/>"
        )
    if kind == "helicopter":
        dx, dy = 8.0, 5.0
        return (
            f"<path d='M{_CX - dx:g},{_CY - dy:g} L{_CX + dx:g},{_CY + dy:g} "
            f"L{_CX + dx:g},{_CY - dy:g} L{_CX - dx:g},{_CY + dy:g} Z' "
            f"fill='{_INK}' fill-opacity='0.75' stroke='{_INK}' stroke-width='0.8'/>"
        )
    if kind == "anti_tank":
        return (
            f"<path d='M{_X0 + 3:g},{_Y1:g} L{_CX:g},{_Y0 + 2:g} L{_X1 - 3:g},{_Y1:g}' "
            f"fill='none' stroke='{_INK}' stroke-width='1.3'/>"
        )
    if kind == "bridging":
        # the map sign of a bridge: two brackets turned away from each other
        return (
            "".join(
                f"<path d='M{_CX + sx * 3:g},{_Y0 + 2:g} Q{_CX + sx * 7:g},{_CY:g} "
                f"{_CX + sx * 3:g},{_Y1 - 2:g}' fill='none' stroke='{_INK}' "
                "stroke-width='1.4'/>"
                for sx in (-1, 1)
            )
            + _line(_CX - 6, _Y0 + 3.5, _CX + 6, _Y0 + 3.5)
            + _line(_CX - 6, _Y1 - 3.5, _CX + 6, _Y1 - 3.5)
        )
    return (
        f"<text x='{_CX:g}' y='{_CY + 4:g}' font-family='sans-serif' font-size='11' "
        f"text-anchor='middle' fill='{_INK}'>?</text>"
    )


@lru_cache(maxsize=1024)
def unit_svg(
    kind: str,
    colour: str,
    *,
    reduced: bool = False,
    suppressed: bool = False,
    spent: bool = False,
    stack: int = 1,
) -> str:
    """One unit (or the top of a stack) as an SVG picture.

    Args:
        kind: a role icon from :data:`SYMBOL_KINDS` (see :func:`symbol_kind`).
        colour: frame fill (the rule system's counter colour, or
            :func:`side_colour`).
        reduced: the counter shows its reduced side (white band along the top).
        suppressed: a yellow "D" marker on the counter (e.g. World at War's
            disrupted).
        spent: the counter is veiled grey with a tick (done for the turn).
        stack: number of units in the hex; above 1 a second frame shows behind
            and the number is written in a white badge.

    Returns:
        A standalone ``<svg>`` of :data:`SYMBOL_SIZE` pixels.
    """
    w, h = SYMBOL_SIZE
    parts = [
        f"<svg xmlns='http://www.w3.org/2000/svg' width='{w}' height='{h}' "
        f"viewBox='0 0 {w} {h}'>"
    ]
    if stack > 1:
        parts.append(
            f"<rect x='{_X0 + 3:g}' y='{_Y0 - 3:g}' width='{_W:g}' height='{_H:g}' "
            f"fill='{colour}' stroke='{_INK}' stroke-width='1'/>"
        )
    parts.append(
        f"<rect x='{_X0:g}' y='{_Y0:g}' width='{_W:g}' height='{_H:g}' "
        f"fill='{colour}' stroke='{_INK}' stroke-width='1.4'/>"
    )
    if reduced:
        parts.append(
            f"<rect x='{_X0 + 0.7:g}' y='{_Y0 + 0.7:g}' width='{_W - 1.4:g}' "
            "height='3.6' fill='#fff' fill-opacity='0.9'/>"
        )
    parts.append(_icon(kind))
    if spent:
        parts.append(
            f"<rect x='{_X0:g}' y='{_Y0:g}' width='{_W:g}' height='{_H:g}' "
            "fill='#555' fill-opacity='0.45'/>"
            f"<path d='M{_X1 - 8:g},{_Y1 - 4:g} l2.5,2.5 l5,-6' fill='none' "
            "stroke='#fff' stroke-width='2'/>"
        )
    if suppressed:
        parts.append(
            f"<circle cx='{_X1:g}' cy='{_Y0:g}' r='5' fill='#ffd23f' stroke='{_INK}' "
            "stroke-width='0.8'/>"
            f"<text x='{_X1:g}' y='{_Y0 + 3.2:g}' font-family='sans-serif' "
            "font-size='8' font-weight='bold' text-anchor='middle' "
            f"fill='{_INK}'>D</text>"
        )
    if stack > 1:
        parts.append(
            f"<circle cx='{_X0:g}' cy='{_Y0:g}' r='5' fill='#fff' stroke='{_INK}' "
            "stroke-width='0.8'/>"
            f"<text x='{_X0:g}' y='{_Y0 + 3.2:g}' font-family='sans-serif' "
            "font-size='8' font-weight='bold' text-anchor='middle' "
            f"fill='{_INK}'>{int(stack)}</text>"
        )
    parts.append("</svg>")
    return "".join(parts)


def svg_data_url(svg: str) -> str:
    """An SVG as a ``data:`` URL (for ``ipyleaflet.Icon(icon_url=...)``)."""
    return "data:image/svg+xml;base64," + base64.b64encode(svg.encode()).decode()
