"""Units at free points in a real browser: models drawn, click a unit, click the
map, the move's path and cost shown, one press makes it (issue 19, item 6;
issue 20: a Flames of War platoon moved by clicking the map).

Served by Voila from one-cell notebooks written for the tests: the point toy
rule system of the tests (``tests/engine/toy_points.py``) and ``fow-v3``'s
Remagen scenario on the real map, the person playing the first side, the map
zoomed onto a unit (zoom 17, under a metre a pixel) so that a click 60 px from
it lies within one move.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from uihelpers import (
    ARTIFACTS,
    REPO,
    serve_notebook,
    stop_server,
    two_frames,
)

SETUP = f"""import sys
sys.path.insert(0, {str(REPO / "tests" / "engine")!r})
import toy_points
from wargame.engine import Game
from wargame.ui import GameView
game = Game.from_scenario(toy_points.SCENARIO, seed=2)
view = GameView(game, human="red", height="560px")
p = game.state.units["r1"].position
lon, lat = game.map.to_lonlat(p.x, p.y)
view.leaflet.center = (float(lat), float(lon))
view.leaflet.zoom = 17
view"""


FOW_SETUP = """from wargame.engine import Game
from wargame.ui import GameView
game = Game.from_scenario("fow_remagen_1945", seed=1)
view = GameView(game, human="us", height="560px")
p = game.state.units["us_2pl"].position  # 1st Platoon rides in half-tracks
lon, lat = game.map.to_lonlat(p.x, p.y)
view.leaflet.center = (float(lat), float(lon))
view.leaflet.zoom = 17
view"""


@pytest.fixture(scope="module")
def points_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    proc, url = serve_notebook(Path(tmp_path_factory.mktemp("points")), "points", SETUP)
    try:
        yield url
    finally:
        stop_server(proc)


@pytest.fixture(scope="module")
def fow_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    proc, url = serve_notebook(Path(tmp_path_factory.mktemp("fow")), "fow", FOW_SETUP)
    try:
        yield url
    finally:
        stop_server(proc)


def test_models_drawn_and_a_click_to_move(offline_page, points_url, timings):
    page = offline_page
    page.set_viewport_size({"width": 1280, "height": 900})
    page.goto(points_url, wait_until="commit", timeout=120_000)
    page.locator("img.leaflet-image-layer").first.wait_for(timeout=120_000)
    # every model of red's two units on the map and blue's open one: 3 + 3 + 1
    # dots (the HQ's) at least, with their facing ticks
    page.wait_for_function(
        "document.querySelectorAll('path.wargame-model').length >= 7", timeout=60_000
    )
    two_frames(page)
    marker = page.locator('img.leaflet-marker-icon[title*="r1 ("]').first
    marker.wait_for(timeout=30_000)
    t0 = time.time()
    marker.dispatch_event("click")
    page.locator("path.wargame-reach").first.wait_for(timeout=60_000)
    page.locator('path[stroke="#6a3d9a"]').first.wait_for(  # the command ring
        state="attached", timeout=30_000
    )
    timings["voila_point_select_s"] = round(time.time() - t0, 2)
    rows = page.locator(".wargame-log tbody tr").count()
    box = marker.bounding_box()
    assert box is not None
    x = box["x"] + box["width"] / 2 + 60
    y = box["y"] + box["height"] / 2 - 40
    t0 = time.time()
    page.mouse.click(x, y)
    page.locator("path.wargame-point-path").first.wait_for(timeout=60_000)
    page.wait_for_function(
        "!document.querySelector('button.wargame-move-point').disabled",
        timeout=30_000,
    )
    text = page.locator(".wargame-message").first.inner_text()
    assert re.search(r"r1 to \(\d+ E, \d+ N\): \d+ m, going \d+ m of 150 m", text), text
    timings["voila_point_plan_s"] = round(time.time() - t0, 2)
    page.locator("button.wargame-move-point").first.click()
    page.wait_for_function(
        "[...document.querySelectorAll('.wargame-message')].some("
        "e => /r1 moved \\d+ m/.test(e.innerText))",
        timeout=60_000,
    )
    page.screenshot(path=str(ARTIFACTS / "voila_point_move.png"))
    assert page.locator(".wargame-log tbody tr").count() > rows
    assert not page.errors, page.errors


def test_a_flames_of_war_platoon_moves_by_clicking_the_map(
    offline_page, fow_url, timings
):
    page = offline_page
    page.set_viewport_size({"width": 1280, "height": 900})
    page.goto(fow_url, wait_until="commit", timeout=120_000)
    page.locator("img.leaflet-image-layer").first.wait_for(timeout=120_000)
    # the US teams on the table at least: 6 + 3 + 3 + 3 dots (1st Platoon's six
    # ride in the half-tracks)
    page.wait_for_function(
        "document.querySelectorAll('path.wargame-model').length >= 15", timeout=60_000
    )
    two_frames(page)
    marker = page.locator('img.leaflet-marker-icon[title*="2nd Platoon, A/27th"]').first
    marker.wait_for(timeout=30_000)
    marker.dispatch_event("click")
    page.locator("path.wargame-reach").first.wait_for(timeout=60_000)
    rows = page.locator(".wargame-log tbody tr").count()
    box = marker.bounding_box()
    assert box is not None
    t0 = time.time()
    # 50 px west, 60 px north (about 38 m and 46 m): open ground, clear of the
    # other platoons' counters, which stand north-east and east of this one
    page.mouse.click(
        box["x"] + box["width"] / 2 - 50, box["y"] + box["height"] / 2 - 60
    )
    page.locator("path.wargame-point-path").first.wait_for(timeout=60_000)
    page.wait_for_function(
        "!document.querySelector('button.wargame-move-point').disabled",
        timeout=30_000,
    )
    timings["voila_fow_plan_s"] = round(time.time() - t0, 2)
    page.locator("button.wargame-move-point").first.click()
    page.wait_for_function(
        "[...document.querySelectorAll('.wargame-message')].some("
        "e => /moved \\d+ m/.test(e.innerText))",
        timeout=60_000,
    )
    page.screenshot(path=str(ARTIFACTS / "voila_fow_move.png"))
    assert page.locator(".wargame-log tbody tr").count() > rows
    assert not page.errors, page.errors
