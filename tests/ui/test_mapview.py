"""Python-side tests of the map widget (no browser)."""

import pytest

import wargame

pytest.importorskip("ipyleaflet")
from wargame.ui import MapView


@pytest.fixture(scope="module")
def view():
    return MapView(wargame.load_map(window="Remagen"))


def test_terrain_picture_is_the_base_layer_and_works_offline(view):
    names = [layer.name for layer in view.leaflet.layers]
    assert names == ["terrain", "place names", "selection"]  # no web tiles
    assert view.terrain.url.startswith("data:image/png;base64,")


def test_click_selects_the_hex_by_arithmetic(view):
    label = view.click_lonlat(7.2287, 50.5792)  # Remagen market square
    assert label == view.game_map.hex_of_place("Remagen")
    assert view.selected == label
    feats = view.selection.data["features"]
    assert len(feats) == 1 and feats[0]["id"] == label
    assert "town" in view.info.value and label in view.info.value


def test_leaflet_click_event_goes_through_the_handler(view):
    seen = []
    view.on_hex_click(seen.append)
    view.leaflet._handle_leaflet_event(
        None,
        {"event": "interaction", "type": "click", "coordinates": [50.5792, 7.2287]},
        None,
    )
    assert seen == [view.game_map.hex_of_place("Remagen")]


def test_click_off_the_map_gives_a_message_and_changes_nothing(view):
    view.select_hex(view.game_map.hex_of_place("Remagen"))
    before = (view.selected, view.selection.data, view.info.value)
    assert view.click_lonlat(9.0, 50.0) is None
    assert "off the map" in view.message.value
    assert (view.selected, view.selection.data, view.info.value) == before


def test_picture_bounds_are_named_by_their_order():
    """``lonlat_bounds`` is (west, south, east, north) like ``Map.lonlat_bounds``;
    the Leaflet order is ``latlon_corners`` (issue 22, item 9)."""
    from wargame.render.terrain import map_picture

    m = wargame.load_map()
    pic = map_picture(m)
    w, s, e, n = pic.lonlat_bounds
    (s2, w2), (n2, e2) = pic.latlon_corners
    assert (w, s, e, n) == (w2, s2, e2, n2)
    assert 7.0 < w < e < 7.6 and 50.4 < s < n < 50.7  # the Middle Rhine
    mw, _, _, mn = m.lonlat_bounds
    assert abs(w - mw) < 0.02 and abs(n - mn) < 0.02
