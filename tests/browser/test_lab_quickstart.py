"""JupyterLab runs the quick-start notebook to a rendered, clickable map."""

from __future__ import annotations

import re
import time
from typing import Any

from uihelpers import ARTIFACTS, two_frames


def _wait_for_kernel(page: Any, lab_url: str) -> None:
    # Lab says 'idle' before the kernel websocket is up; a Run All sent then is lost.
    deadline = time.time() + 90
    while True:
        ks = page.request.get(f"{lab_url}/api/kernels").json()
        if any(k["connections"] >= 1 and k["execution_state"] == "idle" for k in ks):
            return
        assert time.time() < deadline, f"kernel never connected: {ks}"
        page.wait_for_timeout(250)


def _click_inside(page: Any, target: Any, fx: float, fy: float) -> None:
    """Click at a fraction of an element's box, once the layout has settled.

    Lab re-draws cells that come into view, which can move the page between
    reading the box and clicking: check what is under the point first.
    """
    for _ in range(10):
        target.scroll_into_view_if_needed()
        two_frames(page)
        box = target.bounding_box()
        x, y = box["x"] + box["width"] * fx, box["y"] + box["height"] * fy
        hit = page.evaluate(
            "([el, x, y]) => el.contains(document.elementFromPoint(x, y))",
            [target.element_handle(), x, y],
        )
        if hit:
            page.mouse.click(x, y)
            return
        page.wait_for_timeout(300)
    raise AssertionError("the map never settled under the mouse")


def test_jupyterlab_runs_quickstart_to_a_rendered_map(offline_page, lab_url, timings):
    page = offline_page
    page.set_viewport_size({"width": 1400, "height": 1000})
    t0 = time.time()
    page.goto(
        f"{lab_url}/lab/tree/notebooks/01_quickstart.ipynb?reset", timeout=120_000
    )
    page.locator(
        ".jp-NotebookPanel .jp-Notebook-ExecutionIndicator[data-status='idle']"
    ).wait_for(timeout=120_000)
    _wait_for_kernel(page, lab_url)
    timings["lab_open_to_kernel_ready_s"] = round(time.time() - t0, 2)
    t1 = time.time()
    for _ in range(3):
        page.get_by_role("menuitem", name="Run", exact=True).click()
        page.get_by_role("menuitem", name="Run All Cells", exact=True).click()
        try:
            page.wait_for_function(
                r"[...document.querySelectorAll('.jp-InputPrompt')]"
                r".some(e => /\[(\*|\d+)\]/.test(e.textContent))",
                timeout=10_000,
            )
            break
        except Exception:
            continue
    panel = ".jp-NotebookPanel"
    page.locator(f"{panel} .leaflet-container").first.wait_for(timeout=120_000)
    # the offline terrain picture is drawn as an image layer
    page.locator(f"{panel} img.leaflet-image-layer").first.wait_for(timeout=120_000)
    page.locator(
        ".jp-OutputArea-output", has_text=re.compile("Rhine crossings")
    ).wait_for(timeout=180_000)
    timings["lab_run_all_to_map_s"] = round(time.time() - t1, 2)
    # the game further down: GameView with its unit markers, stepped by the notebook
    page.locator(
        ".jp-OutputArea-output", has_text=re.compile("quickstart ok")
    ).wait_for(timeout=180_000)
    timings["lab_run_all_to_game_s"] = round(time.time() - t1, 2)
    page.locator(f"{panel} .wargame-gameview").first.wait_for(timeout=60_000)
    page.wait_for_function(
        f"document.querySelectorAll('{panel} img.leaflet-marker-icon').length >= 5",
        timeout=60_000,
    )
    info = page.locator(f"{panel} .wargame-hex-info-panel").first
    info.scroll_into_view_if_needed()
    # Lab skips drawing cells out of view: wait until the panel is drawn again
    page.wait_for_function(
        "el => el.innerText.includes('Remagen')",
        arg=info.element_handle(),
        timeout=30_000,
    )
    two_frames(page)
    first = info.inner_text()
    assert "Remagen" in first and "town" in first  # selected by the notebook
    first_label = re.search(r"hex\s+([A-Z]+\d+)", first).group(1)
    # click the map centre: the panel shows another hex, found by arithmetic
    leaflet = page.locator(f"{panel} .leaflet-container").first
    _click_inside(page, leaflet, 0.3, 0.6)
    try:
        page.wait_for_function(
            "([el, old]) => !el.innerText.includes(old)",
            arg=[info.element_handle(), first_label],
            timeout=30_000,
        )
    except Exception:
        page.screenshot(path=str(ARTIFACTS / "lab_quickstart_failed.png"))
        raise
    two_frames(page)
    assert re.search(r"hex\s+[A-Z]+\d+", info.inner_text())
    page.screenshot(path=str(ARTIFACTS / "lab_quickstart.png"))
    assert not page.errors, page.errors
