"""Place names over the map: labels of a fixed screen size, off the counters.

The terrain picture of a map view carries no names; the names are labels
(`wargame.render.places`) that keep their size at every zoom, villages from
zoom 12.5, and never lie on a unit counter or on another name.
"""

from __future__ import annotations

import pytest

pytest.importorskip("ipyleaflet")

import wargame
from wargame.engine import Game, load_scenario
from wargame.render.places import _pixel, declutter, label_size, place_names
from wargame.render.terrain import map_picture
from wargame.ui import GameView, MapView


def _screen_box(lat, lon, zoom, dx, dy, w, h):
    x, y = _pixel(lat, lon, zoom)
    return (x + dx - w / 2, y + dy - h / 2, x + dx + w / 2, y + dy + h / 2)


def _overlap(a, b):
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def test_the_whole_map_names_its_twelve_towns_at_zoom_12_and_villages_closer():
    m = wargame.load_map()
    view = MapView(m)
    assert view.leaflet.zoom == 12
    towns = {p.name for p in place_names(m) if p.kind == "town"}
    assert {"Remagen", "Linz", "Andernach", "Sinzig", "Bad Honnef"} <= towns
    assert {lab.name for lab in view.labels} == towns  # no village at zoom 12
    shown = [mk for mk in view.names.layers if mk.visible]
    assert len(shown) == len(towns)
    remagen = next(lab for lab in view.labels if lab.name == "Remagen")
    # on the market square, where nothing covers it
    assert (round(remagen.lat, 3), round(remagen.lon, 3)) == (50.579, 7.229)
    assert (remagen.dx, remagen.dy) == (0.0, 0.0)
    view.leaflet.zoom = 13.5  # the user zooms in: the villages are named too
    names = {lab.name for lab in view.labels}
    assert towns < names and {"Kripp", "Erpel", "Unkel"} <= names
    view.leaflet.zoom = 12
    assert {lab.name for lab in view.labels} == towns
    assert sum(mk.visible for mk in view.names.layers) == len(towns)


def test_the_view_picture_has_no_names_the_static_picture_keeps_them():
    m = wargame.load_map()
    plain, named = map_picture(m, labels=False), map_picture(m)
    assert plain.size == named.size and plain.latlon_corners == named.latlon_corners
    assert plain.png != named.png
    assert MapView(m).terrain.url == plain.data_url()
    assert MapView(m, names=False).terrain.url == named.data_url()
    assert MapView(m, names=False).labels == []


def test_no_name_lies_on_a_counter_or_on_another_name():
    """Counters on the towns of a scenario push their names aside; every
    label's box is clear of every counter and every other label."""
    game = Game(load_scenario("remagen_linz_crossing"), seed=1)
    view = GameView(game)
    zoom = float(view.leaflet.zoom)
    counters = view.units.places()
    assert counters and view.mapview.labels
    cw, ch = view.units.counter_px
    cboxes = [_screen_box(la, lo, zoom, 0, 0, cw, ch) for la, lo in counters]
    lboxes = [
        _screen_box(lab.lat, lab.lon, zoom, lab.dx, lab.dy, lab.w, lab.h)
        for lab in view.mapview.labels
    ]
    for lab, box in zip(view.mapview.labels, lboxes, strict=True):
        assert not any(_overlap(box, c) for c in cboxes), lab.name
    for i, a in enumerate(lboxes):
        assert not any(_overlap(a, b) for b in lboxes[i + 1 :])


def test_a_counter_on_a_town_moves_its_name_and_leaving_brings_it_back():
    m = wargame.load_map(window="Remagen")
    view = MapView(m)
    remagen = next(lab for lab in view.labels if lab.name == "Remagen")
    assert (remagen.dx, remagen.dy) == (0.0, 0.0)
    view.avoid([(remagen.lat, remagen.lon)])
    moved = next(lab for lab in view.labels if lab.name == "Remagen")
    _, h = label_size("Remagen", "town")
    assert moved.dy == -(28 + h) / 2 - 2  # just above a 34x28 counter
    view.avoid([])
    back = next(lab for lab in view.labels if lab.name == "Remagen")
    assert (back.dx, back.dy) == (0.0, 0.0)


def test_a_name_with_no_free_spot_is_left_out():
    [p] = [q for q in place_names(wargame.load_map()) if q.name == "Linz"]
    ring = [
        (p.lat + dlat, p.lon + dlon)
        for dlat in (-0.0006, 0.0, 0.0006)
        for dlon in (-0.0012, -0.0006, 0.0, 0.0006, 0.0012)
    ]
    assert declutter([p], zoom=14) and not declutter([p], zoom=14, counters=ring)
