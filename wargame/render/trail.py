"""What the last few actions did, on the map: trails, fire lines and dice.

Pure functions from the event log to GeoJSON (no widgets).  They read only the
neutral log columns every rule system fills (``hex_from``, ``hex_to``,
``dice``, ``hits``, ``result``, ``action_index``, ``unit``, ``kind``, and, where
units stand at points, ``x_from``/``y_from``/``x_to``/``y_to`` in map metres),
so they serve every rule system alike, on hexes or at points:

* an event that takes a unit from one hex to another, with no dice, is a
  **move**: a trail from hex to hex;
* an event with dice (or a count of hits) from one hex at another is a
  **shot**: a fire line from the firer's hex to the target's, coloured by its
  result (hits > 0: a hit; 0 hits: a miss; no hit count: a roll), with the
  dice beside it;
* other rolls (a save, a check) are dice at the hex they happened in.

Marks fade with the age of their action: the latest action at full strength,
then lighter, then gone after :data:`FADE_STEPS` actions.

Examples:
    >>> from wargame.engine import Game
    >>> game = Game.from_scenario("test_remagen", seed=1)
    >>> _ = game.run(turns=1)
    >>> fc = step_marks_geojson(game.map, game.log.iloc[:9])
    >>> sorted({f["properties"]["mark"] for f in fc["features"]})
    ['dice', 'move', 'shot']
    >>> [p["result"] for p in (f["properties"] for f in fc["features"])
    ...  if p["mark"] == "shot"]
    ['hit']
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .game import hex_lonlat

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = [
    "FADE_STEPS",
    "RESULT_COLOURS",
    "StepMark",
    "step_marks",
    "step_marks_geojson",
]

#: Actions a mark stays on the map (the latest one, and this many - 1 before it).
FADE_STEPS = 3
#: Opacity of a mark by the age of its action (0: the latest).
OPACITY = (1.0, 0.55, 0.25)
#: Line colour of a shot by its result, and of a move trail.
RESULT_COLOURS = {
    "hit": "#d62728",
    "miss": "#7f7f7f",
    "roll": "#ff7f0e",
    "move": "#1f5fa8",
}


def _na(v: Any) -> bool:
    if v is None:
        return True
    try:
        return bool(v != v)  # NaN, pd.NA -> TypeError
    except TypeError:
        return True


def _text(v: Any) -> str | None:
    return None if _na(v) or v == "" else str(v)


def _dice(v: Any) -> list[int]:
    if not isinstance(v, tuple | list) and _na(v):
        return []
    try:
        return [int(x) for x in v]
    except TypeError:
        return []


class StepMark(dict):  # type: ignore[type-arg]
    """One mark: a dict ``{mark, hexes, age, dice, result, unit, kind, detail}``;
    ``hexes`` holds hex labels, or ``(x, y)`` map points where the log gives
    points instead."""


Place = str | tuple[float, float]


def _point(x: Any, y: Any) -> tuple[float, float] | None:
    if _na(x) or _na(y):
        return None
    return (round(float(x), 2), round(float(y), 2))


def step_marks(log: pd.DataFrame, *, steps: int = FADE_STEPS) -> list[StepMark]:
    """The marks of the last ``steps`` actions of a log (oldest first).

    ``mark`` is ``"move"`` (``hexes``: the hexes walked, in order: consecutive
    move events of one unit in one action are joined into one trail),
    ``"shot"`` (``hexes``: firer's, target's) or ``"dice"`` (``hexes``: the
    hex of the roll).  ``age`` is 0 for the latest action.
    """
    if log is None or len(log) == 0:
        return []
    acted = log[log["action_index"] >= 0]
    if acted.empty:
        return []
    indices = sorted({int(i) for i in acted["action_index"]})[-steps:]
    age_of = {a: len(indices) - 1 - k for k, a in enumerate(indices)}
    rows = acted[acted["action_index"].isin(indices)]
    marks: list[StepMark] = []
    trail: StepMark | None = None
    for r in rows.itertuples(index=False):
        a = int(r.action_index)
        h0: Place | None = _text(r.hex_from) or _point(
            getattr(r, "x_from", None), getattr(r, "y_from", None)
        )
        h1: Place | None = _text(r.hex_to) or _point(
            getattr(r, "x_to", None), getattr(r, "y_to", None)
        )
        dice = _dice(r.dice)
        unit = _text(r.unit)
        base = {
            "age": age_of[a],
            "unit": unit,
            "kind": _text(r.kind),
            "detail": _text(r.detail),
        }
        hits: Any = getattr(r, "hits", None)
        fired = bool(dice) or not _na(hits)  # a shot: dice, or a count of hits
        if h0 and h1 and h0 != h1 and not fired:
            if (
                trail is not None
                and trail["unit"] == unit
                and trail["age"] == age_of[a]
                and trail["hexes"][-1] == h0
            ):
                trail["hexes"].append(h1)
                continue
            trail = StepMark(base, mark="move", hexes=[h0, h1], dice=[], result=None)
            marks.append(trail)
            continue
        trail = None
        if not fired:
            continue
        result = "roll" if _na(hits) else ("hit" if int(hits) > 0 else "miss")
        if h0 and h1 and h0 != h1:
            marks.append(
                StepMark(
                    base,
                    mark="shot",
                    hexes=[h0, h1],
                    dice=dice,
                    result=result,
                    text=_text(r.result),
                )
            )
        elif dice and (h1 or h0):
            marks.append(
                StepMark(
                    base,
                    mark="dice",
                    hexes=[h1 or h0],
                    dice=dice,
                    result=result,
                    text=_text(r.result),
                )
            )
    return marks


def _lonlat(
    m: Any, centres: dict[str, tuple[float, float]], where: Place
) -> tuple[float, float] | None:
    if isinstance(where, str):
        return centres.get(where)
    lon, lat = m.to_lonlat([where[0]], [where[1]])
    return float(lon[0]), float(lat[0])


def _opacity(age: int) -> float:
    return OPACITY[min(age, len(OPACITY) - 1)]


def step_marks_geojson(
    m: Any, log: pd.DataFrame, *, steps: int = FADE_STEPS
) -> dict[str, Any]:
    """The marks of :func:`step_marks` as a GeoJSON FeatureCollection (WGS84).

    Moves and shots are LineStrings between hex centres (or the points of a
    free-movement log), dice are Points (at a shot's middle, else at the
    place); each feature's ``properties`` hold the mark and a Leaflet ``style``
    (colour by result, opacity by age, dashed for a miss).  Hexes not on the
    map are left out.  ``hexes`` lists the hex labels, ``points`` the map points.
    """
    marks = step_marks(log, steps=steps)
    centres = (
        hex_lonlat(m)
        if any(isinstance(h, str) for mk in marks for h in mk["hexes"])
        else {}
    )
    features: list[dict[str, Any]] = []
    for mk in marks:
        found = [_lonlat(m, centres, h) for h in mk["hexes"]]
        pts: list[tuple[float, float]] = [p for p in found if p is not None]
        op = _opacity(mk["age"])
        props = {k: v for k, v in mk.items() if k != "hexes"}
        props["hexes"] = [h for h in mk["hexes"] if isinstance(h, str)]
        props["points"] = [list(h) for h in mk["hexes"] if not isinstance(h, str)]
        if mk["mark"] in ("move", "shot") and len(pts) >= 2:
            colour = RESULT_COLOURS["move" if mk["mark"] == "move" else mk["result"]]
            style = {
                "color": colour,
                "weight": 5 if mk["mark"] == "move" else 4,
                "opacity": op,
            }
            if mk["mark"] == "shot" and mk["result"] == "miss":
                style["dashArray"] = "8 6"
            features.append(
                {
                    "type": "Feature",
                    "geometry": {
                        "type": "LineString",
                        "coordinates": [[round(x, 6), round(y, 6)] for x, y in pts],
                    },
                    "properties": dict(props, style=style),
                }
            )
        if mk["dice"] and pts:
            if mk["mark"] == "shot" and len(pts) >= 2:
                (x0, y0), (x1, y1) = pts[0], pts[-1]
                at = ((x0 + x1) / 2, (y0 + y1) / 2)
            else:
                at = pts[-1]
            features.append(
                {
                    "type": "Feature",
                    "geometry": {
                        "type": "Point",
                        "coordinates": [round(at[0], 6), round(at[1], 6)],
                    },
                    "properties": dict(props, mark="dice", opacity=op),
                }
            )
    return {"type": "FeatureCollection", "features": features}
