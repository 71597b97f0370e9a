"""Fuzz: the public API with bad arguments.

``wargame.load_map(window="Remagen")`` and its ``elevation``, ``terrain_at``,
``hex_at_xy``, ``hex_at``, ``los``, ``viewshed`` and ``hex_of_place``;
``load_map`` itself; and the :class:`~wargame.engine.Game` methods a user
calls (``apply`` with malformed actions, ``log_for`` and friends with a wrong
side, ``Game(seed=...)``, ``run(turns=...)``).

Each argument is classified *good* (the call must answer), *bad* (the call
must refuse: not a number, a bool for a number, infinite, NaN, off the map)
or *edge* (either is fine: just outside the window, huge but finite).  A
refusal is a ``ValueError``/``TypeError`` whose every line names the
function: ``<function>: <argument>: <problem>; <fix>``.  A vectorised call
may answer NaN for a bad point, never a clamped value.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from fuzz_oracle import (
    FuzzFailure,
    expect_clean,
    fuzz_case,
    fuzz_settings,
    is_finite_number,
    is_real_number,
)
from fuzz_strategies import PLACES, WINDOWS, Big, materialize
from hypothesis import given
from hypothesis import strategies as st

from wargame.engine import Game, IllegalActionError, load_scenario

GOOD, EDGE, BAD = "good", "edge", "bad"
INF, NAN = float("inf"), float("nan")


def _worst(*kinds: str) -> str:
    return BAD if BAD in kinds else EDGE if EDGE in kinds else GOOD


# --------------------------------------------------------------------------- #
# coordinates                                                                 #
# --------------------------------------------------------------------------- #


@dataclass(frozen=True)
class Coord:
    """A coordinate spec, made concrete on a map by :func:`make_coord`.

    ``kind``: ``in`` (a fraction of the window: 0-1 inside), ``full`` (a
    fraction of the whole map), ``raw`` (the value itself), ``np32`` / ``str``
    (an ``in`` value as numpy float32 / as text), ``array`` / ``list`` (of
    ``in`` fractions; ``None`` items are NaN).
    """

    kind: str
    value: Any


RAW_COORDS = (
    INF, -INF, NAN, 1e308, -1e308, 10**400, -(10**400), 2**64, 0, -1, True, False,
    None, "abc", "", [], {}, [[1.0]], (1, 2), 1j, Big("list", 10_000),
)  # fmt: skip

coords = st.one_of(
    st.builds(Coord, st.just("in"), st.floats(-0.3, 1.3)),
    st.builds(Coord, st.just("in"), st.floats(0.05, 0.95)),
    st.builds(Coord, st.just("full"), st.floats(-0.5, 1.5)),
    st.builds(Coord, st.just("raw"), st.sampled_from(RAW_COORDS)),
    st.builds(Coord, st.just("raw"), st.floats()),
    st.builds(Coord, st.just("raw"), st.integers(-(2**70), 2**70)),
    st.builds(Coord, st.sampled_from(("np32", "str")), st.floats(0.05, 0.95)),
    st.builds(
        Coord,
        st.sampled_from(("array", "list")),
        st.lists(st.one_of(st.floats(-0.3, 1.3), st.none()), max_size=4).map(tuple),
    ),
)


def _span(bounds: tuple[float, ...], axis: int) -> tuple[float, float]:
    return bounds[axis], bounds[axis + 2]


def make_coord(c: Coord, m: Any, axis: int) -> Any:
    """The concrete value of ``c`` on map ``m`` (axis 0: x, 1: y)."""
    lo, hi = _span(m.bounds, axis)
    flo, fhi = _span(m.full_bounds, axis)

    def at(f: float | None) -> float:
        return NAN if f is None else lo + f * (hi - lo)

    if c.kind == "in":
        return at(c.value)
    if c.kind == "full":
        return flo + c.value * (fhi - flo)
    if c.kind == "np32":
        return np.float32(at(c.value))
    if c.kind == "str":
        return str(at(c.value))
    if c.kind == "array":
        return np.array([at(f) for f in c.value])
    if c.kind == "list":
        return [at(f) for f in c.value]
    return materialize(c.value)


def classify(v: Any, lo: float, hi: float, *, inner: float, outer: float) -> str:
    """``good`` (a real number clearly inside), ``bad`` (not a real number,
    a bool, non-finite or clearly outside), else ``edge``."""
    if not is_real_number(v):
        return BAD
    try:
        f = float(v)
    except OverflowError:
        return BAD
    if not math.isfinite(f) or f < lo - outer or f > hi + outer:
        return BAD
    if lo + inner <= f <= hi - inner:
        return GOOD
    return EDGE


def _elements(v: Any) -> list[Any] | None:
    """The items of a numeric array-like: an array, a list or tuple (nested
    too) of real numbers (``None``: not one; a bool or text item is not)."""
    if not isinstance(v, np.ndarray | list | tuple):
        return None
    try:
        arr = np.asarray(v)
    except (ValueError, TypeError, OverflowError):
        return None
    return list(arr.ravel()) if arr.dtype.kind in "fiu" else None


# --------------------------------------------------------------------------- #
# elevation / terrain_at                                                      #
# --------------------------------------------------------------------------- #


def _point_kinds(m: Any, x: Any, y: Any) -> list[tuple[str, bool]]:
    """Per point: (class, inside the whole map) of a scalar or vector call."""
    xs, ys = _elements(x), _elements(y)
    if xs is None and ys is None:
        xs, ys = [x], [y]
    elif xs is None or ys is None:
        xs = xs if xs is not None else [x] * len(ys or [])
        ys = ys if ys is not None else [y] * len(xs)
    if len(xs) != len(ys):
        return [(BAD, False)]
    out = []
    for a, b in zip(xs, ys, strict=True):
        k = _worst(
            classify(a, *_span(m.bounds, 0), inner=1.0, outer=1e9),
            classify(b, *_span(m.bounds, 1), inner=1.0, outer=1e9),
        )
        full = _worst(
            classify(a, *_span(m.full_bounds, 0), inner=-1000.0, outer=1000.0),
            classify(b, *_span(m.full_bounds, 1), inner=-1000.0, outer=1000.0),
        )
        # "good": inside the window; BAD: not a number or off the whole map
        out.append((BAD if full == BAD else k if k == GOOD else EDGE, full != BAD))
    return out


def _is_numeric_input(v: Any) -> bool:
    return is_real_number(v) or _elements(v) is not None


@pytest.mark.parametrize("fn", ["elevation", "terrain_at"])
@fuzz_settings(60, 12_000)
@given(cx=coords, cy=coords)
def test_map_point_queries(fn: str, cx: Coord, cy: Coord, remagen_map: Any) -> None:
    """``elevation(x, y)`` / ``terrain_at(x, y)``: a value for points on the
    map, a refusal (or NaN / no class) for the others: never the edge's
    value for a point off the map, never an answer for a string or a bool."""
    m = remagen_map
    x, y = make_coord(cx, m, 0), make_coord(cy, m, 1)
    with fuzz_case("api", f"Map.{fn}", lambda: repr((cx, cy))):
        kinds = _point_kinds(m, x, y)
        ok, out = expect_clean(
            getattr(m, fn), x, y, where=(fn,), types=(ValueError, TypeError)
        )
        typed = _is_numeric_input(x) and _is_numeric_input(y)
        if not ok:
            if typed and all(k == GOOD for k, _ in kinds) and kinds:
                raise FuzzFailure("refused", f"{fn} refused points on the map: {out}")
            return
        if not typed:
            raise FuzzFailure(
                "accepted", f"{fn} answered {out!r} for x={x!r}, y={y!r}"[:300]
            )
        values = np.ravel(np.asarray(out, dtype=object))
        if len(values) != len(kinds):
            return  # broadcasting a scalar with an empty array: nothing to judge
        for (kind, _), v in zip(kinds, values, strict=True):
            blank = v is None or v == "" or (is_real_number(v) and math.isnan(float(v)))
            if kind == GOOD and blank:
                raise FuzzFailure("wrong", f"{fn} gave {v!r} for a point on the map")
            if kind == BAD and not blank:
                raise FuzzFailure(
                    "accepted",
                    f"{fn} gave {v!r} for a point off the map (x={x!r}, y={y!r})"[:300],
                )


# --------------------------------------------------------------------------- #
# hex_at_xy / hex_at                                                          #
# --------------------------------------------------------------------------- #


def _scalar_kind(m: Any, x: Any, y: Any, outer: float) -> str:
    if _elements(x) is not None or _elements(y) is not None:
        return EDGE  # a one-item array may be taken as a scalar
    return _worst(
        classify(x, *_span(m.bounds, 0), inner=1.0, outer=outer),
        classify(y, *_span(m.bounds, 1), inner=1.0, outer=outer),
    )


def _judge_label(fn: str, kind: str, ok: bool, out: Any, m: Any, args: str) -> None:
    if ok and kind == BAD:
        raise FuzzFailure("accepted", f"{fn} answered {out!r} for {args}"[:300])
    if ok and (not isinstance(out, str) or out not in m.hexes.index):
        raise FuzzFailure("wrong", f"{fn} answered {out!r}, not a hex label"[:300])
    if not ok and kind == GOOD:
        raise FuzzFailure("refused", f"{fn} refused a point on the map: {out}"[:300])


@fuzz_settings(60, 12_000)
@given(cx=coords, cy=coords)
def test_hex_at_xy(cx: Coord, cy: Coord, remagen_map: Any) -> None:
    """``hex_at_xy(x, y)``: the label inside the window, a refusal outside."""
    m = remagen_map
    x, y = make_coord(cx, m, 0), make_coord(cy, m, 1)
    with fuzz_case("api", "Map.hex_at_xy", lambda: repr((cx, cy))):
        kind = _scalar_kind(m, x, y, outer=300.0)
        ok, out = expect_clean(
            m.hex_at_xy, x, y, where=("hex_at_xy",), types=(ValueError, TypeError)
        )
        _judge_label("hex_at_xy", kind, ok, out, m, f"x={x!r}, y={y!r}")


@fuzz_settings(60, 10_000)
@given(cx=coords, cy=coords)
def test_hex_at(cx: Coord, cy: Coord, remagen_map: Any) -> None:
    """``hex_at(lon=..., lat=...)``: as ``hex_at_xy`` in degrees."""
    m = remagen_map
    x, y = make_coord(cx, m, 0), make_coord(cy, m, 1)
    # the same specs as degrees: a finite number is moved into lon/lat
    lon, lat = x, y
    if is_finite_number(x) and is_finite_number(y):
        lo, la = m.to_lonlat(float(x), float(y))
        lon = type(x)(lo) if isinstance(x, np.floating) else float(lo)
        lat = type(y)(la) if isinstance(y, np.floating) else float(la)
    elif is_finite_number(x) and cx.kind in ("in", "full"):
        lon = float(m.to_lonlat(float(x), sum(_span(m.bounds, 1)) / 2)[0])
    with fuzz_case("api", "Map.hex_at", lambda: repr((cx, cy))):
        kind = _scalar_kind(m, x, y, outer=300.0)
        if kind != BAD and not (is_finite_number(lon) and is_finite_number(lat)):
            kind = EDGE
        ok, out = expect_clean(
            m.hex_at, lon=lon, lat=lat, where=("hex_at",), types=(ValueError, TypeError)
        )
        _judge_label("hex_at", kind, ok, out, m, f"lon={lon!r}, lat={lat!r}")


# --------------------------------------------------------------------------- #
# los / viewshed                                                              #
# --------------------------------------------------------------------------- #

LABELS = ("A1", "Q11", "AF21", "N17", "q11", " Q11 ", "ZZ99", "AG22", "A0", "", "11",
          Big("str", 10_000), 123, None, True, ["Q11"], ("Q", 11))  # fmt: skip
GOOD_LABELS = ("A1", "Q11", "AF21", "N17")
EDGE_LABELS = ("q11", " Q11 ")
HEIGHTS = (0, 0.0, 2.5, 10, 100.0, -0.0, -1, -1e-9, INF, -INF, NAN, 1e6, 1e308,
           2**64, 10**400, "2", True, False, None, [2.0], np.float32(2.5),
           np.int64(3))  # fmt: skip
OBSTACLES = (True, False, {}, {"woods": 5.0}, {"town": 0}, {"woods": -1},
             {"woods": INF}, {"woods": NAN}, {"nope": 1}, {"woods": "x"},
             {"woods": 1e308}, {"woods": True}, "yes", 1, 0, None, [], {1: 2},
             {"woods": 10**400})  # fmt: skip


@dataclass(frozen=True)
class Where:
    """A ``los``/``viewshed`` point: a label or an ``(x, y)`` pair."""

    label: Any = None
    xy: tuple[Coord, Coord] | None = None


wheres = st.one_of(
    st.builds(Where, label=st.sampled_from(LABELS)),
    st.builds(Where, xy=st.tuples(coords, coords)),
)


def make_where(w: Where, m: Any) -> tuple[Any, str]:
    if w.xy is None:
        v = materialize(w.label)
        kind = GOOD if v in GOOD_LABELS else EDGE if v in EDGE_LABELS else BAD
        return v, kind
    x, y = make_coord(w.xy[0], m, 0), make_coord(w.xy[1], m, 1)
    return (x, y), _scalar_kind(m, x, y, outer=300.0)


def height_kind(h: Any) -> str:
    if not is_real_number(h):
        return BAD
    try:
        f = float(h)
    except OverflowError:
        return BAD
    if not math.isfinite(f) or f < 0:
        return BAD
    return GOOD if f <= 1000 else EDGE


def obstacles_kind(o: Any) -> str:
    if isinstance(o, bool):
        return GOOD
    if isinstance(o, dict):
        kinds = [GOOD if k in ("woods", "town") else BAD for k in o] + [
            height_kind(v) for v in o.values()
        ]
        return _worst(*kinds) if kinds else GOOD
    return EDGE if o in (0, 1, None) else BAD


@fuzz_settings(50, 8_000)
@given(
    a=wheres,
    b=wheres,
    oh=st.sampled_from(HEIGHTS),
    th=st.sampled_from(HEIGHTS),
    ob=st.sampled_from(OBSTACLES),
)
def test_los(a: Where, b: Where, oh: Any, th: Any, ob: Any, remagen_map: Any) -> None:
    """``los(a, b, observer_height_m, target_height_m, obstacles)``."""
    m = remagen_map
    (va, ka), (vb, kb) = make_where(a, m), make_where(b, m)
    kind = _worst(ka, kb, height_kind(oh), height_kind(th), obstacles_kind(ob))
    with fuzz_case("api", "Map.los", lambda: repr((a, b, oh, th, ob))):
        ok, out = expect_clean(
            m.los, va, vb, oh, th, ob, where=("los",), types=(ValueError, TypeError)
        )
        if ok and kind == BAD:
            raise FuzzFailure(
                "accepted", f"los answered for {(va, vb, oh, th, ob)!r}"[:300]
            )
        if ok and not isinstance(getattr(out, "visible", None), bool | np.bool_):
            raise FuzzFailure("wrong", f"los gave {out!r}"[:200])
        if not ok and kind == GOOD:
            raise FuzzFailure("refused", f"los refused good arguments: {out}"[:300])


RADII = (1, 50, 500.0, 1000, 0, -1, -0.0, INF, NAN, 1e308, 1e9, 2**64, 10**400, "500",
         True, None, [500], np.float32(300))  # fmt: skip


@fuzz_settings(30, 3_000)
@given(
    obs=wheres,
    radius=st.one_of(st.sampled_from(RADII), st.floats(10, 1000)),
    oh=st.sampled_from(HEIGHTS),
    th=st.sampled_from(HEIGHTS),
    ob=st.sampled_from(OBSTACLES),
    as_array=st.booleans(),
)
def test_viewshed(
    obs: Where, radius: Any, oh: Any, th: Any, ob: Any, as_array: bool, remagen_map: Any
) -> None:
    """``viewshed(observer, radius_m, observer_height_m, target_height_m, ...)``."""
    m = remagen_map
    vo, ko = make_where(obs, m)
    kr = height_kind(radius)
    if kr != BAD and float(radius) <= 0:
        kr = BAD
    if kr == GOOD and not 10 <= float(radius) <= 1000:
        kr = EDGE
    if kr == EDGE and is_finite_number(radius) and float(radius) > 1e6:
        kr = BAD  # a radius of 1,000 km on a 4 km window
    kind = _worst(ko, kr, height_kind(oh), height_kind(th), obstacles_kind(ob))
    with fuzz_case("api", "Map.viewshed", lambda: repr((obs, radius, oh, th, ob))):
        ok, out = expect_clean(
            m.viewshed, vo, radius, oh, th, ob, as_array,
            where=("viewshed",), types=(ValueError, TypeError),
        )  # fmt: skip
        if ok and kind == BAD:
            raise FuzzFailure(
                "accepted", f"viewshed answered for {(vo, radius, oh, th, ob)!r}"[:300]
            )
        if not ok and kind == GOOD:
            raise FuzzFailure(
                "refused", f"viewshed refused good arguments: {out}"[:300]
            )


# --------------------------------------------------------------------------- #
# hex_of_place / load_map                                                     #
# --------------------------------------------------------------------------- #

NAMES = (*PLACES, "REMAGEN", "Remagen\x00", "Remagen\n", Big("str", 10_000),
         Big("str", 1_000_000), Big("ustr", 5_000), 123, None, ["Remagen"],
         b"Remagen", {"name": "Remagen"}, True)  # fmt: skip


@fuzz_settings(30, 3_000)
@given(name=st.one_of(st.sampled_from(NAMES), st.text(max_size=20)))
def test_hex_of_place(name: Any, remagen_map: Any) -> None:
    """``hex_of_place(name)``: a hex of the window, or a clean refusal."""
    m = remagen_map
    value = materialize(name)
    kind = (
        GOOD
        if value in ("Remagen", "remagen", "REMAGEN")
        else EDGE
        if value in PLACES
        else BAD
    )
    with fuzz_case("api", "Map.hex_of_place", lambda: repr(name)[:200]):
        ok, out = expect_clean(
            m.hex_of_place,
            value,
            where=("hex_of_place",),
            types=(ValueError, TypeError),
        )
        if ok and (not isinstance(out, str) or out not in m.hexes.index):
            raise FuzzFailure("wrong", f"hex_of_place gave {out!r}"[:200])
        if ok and kind == BAD and isinstance(value, str) and value.strip():
            # an unknown text may still be a real place name: only non-texts
            return
        if ok and kind == BAD:
            raise FuzzFailure("accepted", f"hex_of_place answered for {value!r}"[:200])
        if not ok and kind == GOOD:
            raise FuzzFailure("refused", f"hex_of_place refused {value!r}: {out}"[:300])


MAP_NAMES = ("rhine-remagen", "", "nope", "../maps", "rhine-remagen/..",
             "Rhine-Remagen", Big("str", 100_000), 123, None, b"rhine-remagen",
             ["rhine-remagen"])  # fmt: skip
HEX_SIZES = (150, 150.0, 300, 1000, 60.5, 1e308, 0, -1, -150, INF, -INF, NAN, "150",
             None, [150], True, False, 10**400, 2**64, 1, 0.001,
             np.float64(150))  # fmt: skip
TUPLE_WINDOWS = ((375600, 5600300, 379000, 5604300), (375600, 5600300, 379000),
                 (-INF, -INF, INF, INF), (NAN, 1, 2, 3), ("a", "b", "c", "d"),
                 (True, False, True, False))  # fmt: skip
#: A request the map must refuse: a window 10 times the map's size or more.
ABSURD_M = 300_000.0


def window_kind(w: Any) -> str:
    """good / bad / edge of a ``window`` argument (see the module doc)."""
    if w in ("Remagen", "remagen", None) or w == {"place": "Remagen"}:
        return GOOD
    if isinstance(w, str):
        return EDGE if w.strip() else BAD
    if isinstance(w, tuple):
        w = {"bbox": list(w)}
    if not isinstance(w, dict):
        return BAD
    kinds = []
    if ("place" in w) == ("bbox" in w):
        return BAD
    if "place" in w and not (isinstance(w["place"], str) and w["place"].strip()):
        return BAD
    for k in ("width_m", "height_m"):
        if k in w:
            v = w[k]
            if not is_finite_number(v) or float(v) <= 0 or float(v) >= ABSURD_M:
                return BAD
            kinds.append(GOOD if 500 <= float(v) <= 10_000 else EDGE)
    if "bbox" in w:
        b = w["bbox"]
        if not (isinstance(b, list | tuple) and len(b) == 4):
            return BAD
        if not all(is_finite_number(v) for v in b):
            return BAD
        if b[2] <= b[0] or b[3] <= b[1]:
            return BAD
        scale = 1e5 if w.get("lonlat") else 1.0
        if (b[2] - b[0]) * scale >= ABSURD_M or (b[3] - b[1]) * scale >= ABSURD_M:
            return BAD
        kinds.append(GOOD if list(b) == [375600, 5600300, 379000, 5604300] else EDGE)
    if "lonlat" in w and not isinstance(w["lonlat"], bool):
        kinds.append(EDGE)
    return _worst(*kinds) if kinds else GOOD


#: The most hexes a map ``load_map`` accepts may have: beyond, its per-hex
#: table (~40 columns) needs gigabytes.  Ten million is far above any game
#: (the whole map at 50 m: ~415,000).
MAX_HEXES = 10_000_000


@fuzz_settings(30, 3_000)
@given(
    name=st.sampled_from(MAP_NAMES),
    size=st.sampled_from(HEX_SIZES),
    window=st.sampled_from((*WINDOWS, *TUPLE_WINDOWS)),
)
def test_load_map(name: Any, size: Any, window: Any) -> None:
    """``wargame.load_map(name, hex_size_m, window)``."""
    import wargame

    name_v, window_v = materialize(name), materialize(window)
    kn = GOOD if name_v == "rhine-remagen" else BAD
    ks = height_kind(size)
    if ks != BAD and float(size) <= 0:
        ks = BAD
    if ks == GOOD and not 50 <= float(size) <= 1000:
        ks = EDGE
    kind = _worst(kn, ks, window_kind(window_v))
    with fuzz_case("api", "wargame.load_map", lambda: repr((name, size, window))):
        ok, out = expect_clean(
            wargame.load_map, name_v, size, window_v,
            where=("load_map",), types=(ValueError, TypeError),
        )  # fmt: skip
        if not ok:
            if kind == GOOD:
                raise FuzzFailure("refused", f"load_map refused good arguments: {out}")
            return
        if kind == BAD:
            raise FuzzFailure(
                "accepted", f"load_map took {(name_v, size, window_v)!r}"[:300]
            )
        if out.grid.n_hexes > MAX_HEXES:
            raise FuzzFailure(
                "accepted", f"load_map built a grid of {out.grid.n_hexes:,} hexes"
            )
        if not all(math.isfinite(v) for v in out.bounds):
            raise FuzzFailure("accepted", f"load_map made bounds {out.bounds}")


# --------------------------------------------------------------------------- #
# Game                                                                        #
# --------------------------------------------------------------------------- #


@pytest.fixture(scope="session")
def remagen_scenario(warm_specs: set[str]) -> Any:
    return load_scenario("test_remagen")


def _fingerprint(game: Game) -> tuple[str, int, int]:
    return game.state.digest(), len(game.actions), len(game.events)


ACTION_VALUES = (None, True, 0, -1, 1.5, NAN, "", "x", "SU-T1", "US-M1", "Q11", "ZZ99",
                 "ap", "sw", [], ["Q11"], {}, {"a": 1}, Big("str", 100_000),
                 Big("deep_list", 1000), 2**64)  # fmt: skip


@st.composite
def damaged_action(draw: st.DrawFn, game: Game) -> Any:
    """A legal action of ``game``, damaged (as a dict, or a built Action with
    bad field values), or something that is not an action at all."""
    legal = game.legal_actions()
    action = draw(st.sampled_from(legal)) if legal else None
    kind = draw(
        st.sampled_from(("field", "field", "drop", "add", "type", "object", "junk"))
    )
    if action is None or kind == "junk":
        return draw(st.sampled_from(ACTION_VALUES))
    d = action.to_dict()
    fields = [k for k in d if k != "type"]
    if kind == "drop" and fields:
        d.pop(draw(st.sampled_from(fields)))
    elif kind == "add":
        d[draw(st.sampled_from(("unitt", "x", "", "extra")))] = draw(
            st.sampled_from(ACTION_VALUES)
        )
    elif kind == "type":
        d["type"] = draw(
            st.sampled_from(
                ("move", "fire", "pass", "defer", "nope", "", None, 1, "FIRE")
            )
        )
    elif kind == "object" and fields:
        f = draw(st.sampled_from(fields))
        value = draw(st.sampled_from(ACTION_VALUES))
        return (
            "object",
            type(action),
            {**{k: getattr(action, k) for k in fields}, f: value},
        )
    elif fields:
        d[draw(st.sampled_from(fields))] = draw(st.sampled_from(ACTION_VALUES))
    return d


@fuzz_settings(50, 6_000)
@given(data=st.data(), seed=st.integers(0, 50), steps=st.integers(0, 12))
def test_game_apply_malformed(
    data: st.DataObject, seed: int, steps: int, remagen_scenario: Any
) -> None:
    """``Game.apply`` (and ``describe``) with malformed actions: refused with
    an ``IllegalActionError`` that leaves the game as it was, or legal."""
    game = Game(remagen_scenario, seed=seed)
    for _ in range(steps):
        if game.step() is None:
            break
    raw = data.draw(damaged_action(game), label="action")
    action = raw
    if isinstance(raw, tuple) and raw[:1] == ("object",):
        _, cls, kwargs = raw
        action = cls(**{k: materialize(v) for k, v in kwargs.items()})
    else:
        action = materialize(raw)
    legal = [a.to_dict() for a in game.legal_actions()]
    before = _fingerprint(game)
    with fuzz_case("api", "Game.apply", lambda: repr(raw)[:300]):
        if hasattr(action, "to_dict"):
            expect_clean(
                game.describe, action, where=("describe",),
                types=(ValueError, TypeError), relaxed=(IllegalActionError,),
            )  # fmt: skip
        ok, _ = expect_clean(
            game.apply, action, where=("apply",),
            types=(IllegalActionError, TypeError), relaxed=(IllegalActionError,),
        )  # fmt: skip
        if not ok:
            if _fingerprint(game) != before:
                raise FuzzFailure("state", "a refused action changed the game")
            return
        done = game.actions[-1].to_dict()
        if done not in legal:
            raise FuzzFailure(
                "accepted",
                f"apply took {done!r}, which legal_actions did not list"[:300],
            )


SIDES = ("nato", "pact", None, "", "NATO", "nato ", "draw", 0, 1.5, True, [],
         ["nato"], {}, Big("str", 100_000), "pact\n")  # fmt: skip


@pytest.mark.parametrize("fn", ["log_for", "events_for", "state_for", "replay"])
@fuzz_settings(15, 1_500)
@given(side=st.one_of(st.sampled_from(SIDES), st.text(max_size=8)))
def test_game_side_arguments(fn: str, side: Any, remagen_scenario: Any) -> None:
    """``log_for`` / ``events_for`` / ``state_for`` / ``replay`` with a wrong side."""
    game = Game(remagen_scenario, seed=1)
    for _ in range(4):
        game.step()
    value = materialize(side)
    with fuzz_case("api", f"Game.{fn}", lambda: repr(side)[:200]):
        call = getattr(game, fn)
        ok, _ = expect_clean(
            (lambda s: list(call(s))) if fn == "replay" else call,
            value,
            where=(fn,),
            types=(ValueError, TypeError),
        )
        known = value in ("nato", "pact") or (value is None and fn != "state_for")
        if ok and not known:
            raise FuzzFailure("accepted", f"{fn} answered for side {value!r}"[:200])
        if not ok and known:
            raise FuzzFailure("refused", f"{fn} refused side {value!r}")


SEEDS = (0, 1, 2**32, 2**64, 10**100, -1, -(2**64), 1.0, 1.5, NAN, INF, "1", True,
         False, None, [1], np.int64(5), np.int64(-1), np.uint64(2**64 - 1),
         np.float64(1))  # fmt: skip


@fuzz_settings(20, 1_500)
@given(
    seed=st.one_of(
        st.sampled_from(SEEDS),
        st.integers(-(2**70), 2**70),
        st.floats(),
        st.text(max_size=4),
    ),
    via=st.sampled_from(("Game", "from_scenario")),
)
def test_game_seed(seed: Any, via: str, remagen_scenario: Any, fuzz_dir: Path) -> None:
    """``Game(scenario, seed=...)`` and ``Game.from_scenario``; a big seed
    survives a save and a load."""
    good = (
        isinstance(seed, int | np.integer) and not isinstance(seed, bool) and seed >= 0
    )
    with fuzz_case("api", f"Game.{via}(seed)", repr(seed)):
        fn = Game if via == "Game" else Game.from_scenario
        ok, game = expect_clean(
            fn, remagen_scenario, seed=seed, where=("Game", "from_scenario"),
            types=(ValueError, TypeError),
        )  # fmt: skip
        if not ok:
            if good:
                raise FuzzFailure("refused", f"Game refused seed {seed!r}: {game}")
            return
        if not good:
            raise FuzzFailure("accepted", f"Game took seed {seed!r}")
        game.step()
        path = game.save(fuzz_dir / "seed-save.json")
        again = Game.load(path)
        if again.seed != int(seed) or again.state.digest() != game.state.digest():
            raise FuzzFailure("lie", f"seed {seed!r} did not survive a save")
        json.loads(path.read_text())


TURNS = ("1", 1.5, [], {}, -1, 0, True, False, 1, None, -INF, b"1")


@fuzz_settings(8, 300)
@given(
    turns=st.one_of(
        st.sampled_from(TURNS),
        st.integers(-10, 2),
        st.floats(max_value=2.0),
        st.text(max_size=3),
    )
)
def test_game_run_turns(turns: Any, remagen_scenario: Any) -> None:
    """``Game.run(turns=...)`` with a wrong type: refused, not a TypeError
    from inside."""
    game = Game(remagen_scenario, seed=2)
    with fuzz_case("api", "Game.run(turns)", repr(turns)):
        ok, _ = expect_clean(
            game.run, turns, where=("run",), types=(ValueError, TypeError)
        )
        if ok and not (turns is None or is_real_number(turns)):
            raise FuzzFailure("accepted", f"run took turns={turns!r}")
