"""Moves in a real browser: legal destinations drawn, a multi-hex move in one confirm.

Served by Voila from a two-cell notebook written for the test (the person plays
the Pact in test_remagen, seed 1, after its first two actions; BMP-1 platoon
SU-B2 selected), so no clicks are spent on setting up.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from uihelpers import (
    ARTIFACTS,
    serve_notebook,
    stop_server,
    two_frames,
)

SETUP = """from wargame.engine import Game
from wargame.ui import GameView
game = Game.from_scenario("test_remagen", seed=1)
for _ in range(2):
    game.step()
view = GameView(game, human="pact", height="520px")
view.select_unit("SU-B2")
view"""


@pytest.fixture(scope="module")
def moves_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    proc, url = serve_notebook(Path(tmp_path_factory.mktemp("moves")), "moves", SETUP)
    try:
        yield url
    finally:
        stop_server(proc)


def test_destinations_drawn_and_a_multi_hex_move_in_one_confirm(
    offline_page, moves_url, timings
):
    page = offline_page
    page.set_viewport_size({"width": 1280, "height": 900})
    page.goto(moves_url, wait_until="commit", timeout=120_000)
    page.locator("img.leaflet-image-layer").first.wait_for(timeout=120_000)
    page.wait_for_function(
        "document.querySelectorAll('path.wargame-dest').length >= 6", timeout=60_000
    )
    n = page.locator("path.wargame-dest").count()
    assert n >= 6  # the one-step hexes and the farther ones
    two_frames(page)
    rows = page.locator(".wargame-log tbody tr").count()
    # the farthest destination is drawn last
    t0 = time.time()
    page.locator("path.wargame-dest").nth(n - 1).click(force=True)
    page.locator("path.wargame-path").first.wait_for(timeout=30_000)
    assert "→" in page.locator(".wargame-message").first.inner_text()
    button = page.locator("button.wargame-move-path").first
    page.wait_for_function(
        "!document.querySelector('button.wargame-move-path').disabled", timeout=30_000
    )
    button.click()
    page.wait_for_function(
        "[...document.querySelectorAll('.wargame-message')].some("
        "e => /moved \\d+ hex|stopped at/.test(e.innerText))",
        timeout=60_000,
    )
    timings["voila_multi_hex_move_s"] = round(time.time() - t0, 2)
    text = page.locator(".wargame-message").first.inner_text()
    page.screenshot(path=str(ARTIFACTS / "voila_multi_hex_move.png"))
    assert page.locator(".wargame-log tbody tr").count() > rows + 1, text
    assert not page.errors, page.errors
