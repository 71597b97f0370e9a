"""Take the README screenshots with Playwright and Debian's chromium (offline).

Run from the repository root:  .venv/bin/python scripts/take_screenshots.py

Writes small 256-colour PNGs to docs/img/:

* ``classroom.png``: the Voila classroom app (notebooks/classroom.ipynb);
* ``game_view.png``: the game view with a unit's line-of-sight polygon, range
  rings, a sight line to a target, the odds and the profile;
* ``los_inspector.png``: the LOS inspector with a viewshed and a sight line.

Voila serves small temporary notebooks that set the scene (select a unit, pick
a target) through the same methods the clicks call; the servers bind 127.0.0.1
and every non-loopback request is refused.
"""

from __future__ import annotations

import io
import os
import sys
import tempfile
from pathlib import Path

import nbformat
from PIL import Image

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests" / "browser"))

from uihelpers import (  # noqa: E402
    ARTIFACTS,
    CHROMIUM_FLAGS,
    block_non_loopback,
    chromium_path,
    free_port,
    start_server,
    stop_server,
    two_frames,
    voila_argv,
)

OUT = REPO / "docs" / "img"
MAX_BYTES = 300_000

GAME_SCENE = """
from wargame.engine.scenario import available_scenarios
from wargame.render.game import odds_table, unit_reach
from wargame.ui import ClassroomApp

name = "remagen_linz_crossing"
if name not in available_scenarios():
    name = available_scenarios()[0]
app = ClassroomApp(name, seed=3)
view = app.view
for _ in range(14):
    view.step()
g = view.game

def shots():
    units = [u for u in g.state.units.values() if not u.destroyed and u.hex]
    for a in units:
        reach = unit_reach(g, a.id)
        if not reach:
            continue
        longest = round(reach[-1].metres / g.map.hex_size_m)
        for t in units:
            d = g.map.grid.distance(a.hex, t.hex)
            if t.side != a.side and 2 < d <= longest:
                if g.map.los(a.hex, t.hex).visible:
                    f = odds_table(g, a.id, t.id)
                    if f is not None and (f["note"] == "").any():
                        yield a.id, t.id

attacker, target = next(shots())
view.select_unit(attacker)
view.pick_target(target)
app
"""

LOS_SCENE = """
import wargame
from wargame.ui import LOSInspector

w = wargame.load_map(window="Remagen")
inspector = LOSInspector(w, mode="viewshed", height="560px")
inspector.inspect_viewshed(w.hex_of_place("Erpeler Ley"))
inspector.inspect_line(w.hex_of_place("Erpeler Ley"), w.hex_of_place("Remagen"))
inspector
"""


def _notebook(folder: Path, name: str, code: str) -> Path:
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(code)]
    nb.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    path = folder / name
    nbformat.write(nb, path)
    return path


def _save(png: bytes, name: str) -> Path:
    img = Image.open(io.BytesIO(png)).convert("RGB")
    small = img.quantize(colors=256, method=Image.Quantize.FASTOCTREE)
    path = OUT / name
    small.save(path, optimize=True)
    while path.stat().st_size > MAX_BYTES:  # shrink until it fits
        img = img.resize((int(img.width * 0.85), int(img.height * 0.85)))
        img.quantize(colors=256, method=Image.Quantize.FASTOCTREE).save(
            path, optimize=True
        )
    return path


def _page(browser, url: str, width: int, height: int):  # type: ignore[no-untyped-def]
    page = browser.new_page(viewport={"width": width, "height": height})
    block_non_loopback(page, [])
    page.set_default_timeout(180_000)
    page.goto(url, wait_until="commit")
    page.locator("img.leaflet-image-layer").first.wait_for()
    return page


def main() -> None:
    from playwright.sync_api import sync_playwright

    OUT.mkdir(parents=True, exist_ok=True)
    ARTIFACTS.mkdir(exist_ok=True)
    written = []
    with (
        tempfile.TemporaryDirectory(prefix="wargame-shots-") as tmp,
        sync_playwright() as p,
    ):
        browser = p.chromium.launch(
            executable_path=chromium_path(), args=CHROMIUM_FLAGS, headless=True
        )
        for nb_name, code, shots in (
            ("game.ipynb", GAME_SCENE, ("classroom", "game_view")),
            ("los.ipynb", LOS_SCENE, ("los_inspector",)),
        ):
            nb = _notebook(Path(tmp), nb_name, code)
            port = free_port()
            proc = start_server(
                voila_argv(port, str(nb)), port, ARTIFACTS / f"shots-{nb_name}.log"
            )
            try:
                page = _page(browser, f"http://127.0.0.1:{port}/", 1360, 980)
                if "classroom" in shots:
                    page.wait_for_function(
                        "document.querySelectorAll('img.leaflet-marker-icon')"
                        ".length >= 3"
                    )
                    page.locator("path.wargame-los-line").first.wait_for()
                    page.locator(".wargame-profile").first.wait_for()
                    two_frames(page)
                    page.wait_for_timeout(500)
                    written.append(_save(page.screenshot(), "classroom.png"))
                    view = page.locator(".wargame-gameview").first
                    box = view.bounding_box()
                    clip = {
                        "x": box["x"],
                        "y": box["y"],
                        "width": box["width"],
                        "height": min(box["height"], 760),
                    }
                    written.append(_save(page.screenshot(clip=clip), "game_view.png"))
                else:
                    page.locator("path.wargame-viewshed").first.wait_for()
                    page.locator("path.wargame-los-line").first.wait_for()
                    two_frames(page)
                    page.wait_for_timeout(500)
                    insp = page.locator(".wargame-los-inspector").first
                    written.append(_save(insp.screenshot(), "los_inspector.png"))
                page.close()
            finally:
                stop_server(proc)
        browser.close()
    for path in written:
        print(f"{path.relative_to(REPO)}: {os.path.getsize(path) / 1000:.0f} kB")


if __name__ == "__main__":
    main()
