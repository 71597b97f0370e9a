"""Benchmark: the classroom app in a real browser (Voila + Debian's chromium, offline).

Run: ``.venv/bin/python benchmarks/bench_ui.py [--opens 5] [--steps 20]``.  Prints
medians (targets from the UI issue, never asserted: page opened to interactive map
<= 5 s in Voila, a step updates the view in <= 300 ms):

* **open -> map**: from ``page.goto`` to the terrain picture and the unit markers
  drawn, in a fresh browser context each time (nothing cached in the browser);
* **open -> interactive**: the same until a click on the map has come back from
  the kernel (the hex info panel changed);
* both for Voila as started by default and with a pre-heated kernel
  (``voila notebooks/classroom.ipynb --preheat_kernel=True``), which runs the
  notebook before anyone asks for the page;
* **step -> view**: from a click on *Step* to the status line, the log table and
  the markers updated in the page (``--steps`` clicks in one page);
* **step in Python**: ``GameView.step()`` in this process (engine, policy and the
  widget updates, without the browser).

The machine is shared: the load average is printed with the figures; repeat a
run before reading much into one median.  Servers bind 127.0.0.1 and every
non-loopback request is refused.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

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
    voila_argv,
)

NOTEBOOK = "notebooks/classroom.ipynb"
MARKERS = "img.leaflet-marker-icon"
STATUS = ".wargame-status"


def _warm_cache(steps: int) -> None:
    """Render pictures, build LOS tables, compile kernels once: no run pays for them."""
    code = (
        "from wargame.ui import ClassroomApp\n"
        "v = ClassroomApp().view\n"
        f"for _ in range({steps + 5}): v.step()\n"
        "v.click_hex(next(iter(v.units.stacks)))\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=REPO)


def _open(browser: Any, url: str) -> tuple[float, float, Any]:
    ctx = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = ctx.new_page()
    block_non_loopback(page, [])
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    t0 = time.perf_counter()
    page.goto(url, wait_until="commit", timeout=180_000)
    page.locator("img.leaflet-image-layer").first.wait_for(timeout=180_000)
    page.wait_for_function(
        f"document.querySelectorAll('{MARKERS}').length >= 3", timeout=120_000
    )
    t_map = time.perf_counter() - t0
    info = page.locator(".wargame-hex-info-panel").first
    before = info.inner_text()
    box = page.locator(".leaflet-container").first.bounding_box()
    page.mouse.click(box["x"] + box["width"] * 0.5, box["y"] + box["height"] * 0.8)
    page.wait_for_function(
        "([el, old]) => el.innerText !== old",
        arg=[info.element_handle(), before],
        timeout=60_000,
    )
    t_click = time.perf_counter() - t0
    if errors:
        raise RuntimeError(f"page errors: {errors}")
    return t_map, t_click, ctx


def _steps(page: Any, n: int) -> list[float]:
    out = []
    button = page.locator("button.wargame-step").first
    # the status text is re-written on every update: query it afresh each time
    status_js = f"document.querySelector('{STATUS}').innerText"
    for _ in range(n):
        if button.is_disabled():
            break
        before = page.evaluate(status_js)
        t = time.perf_counter()
        button.click()
        try:
            page.wait_for_function(
                f"old => {status_js} !== old", arg=before, timeout=60_000
            )
        except Exception:
            page.screenshot(path=str(ARTIFACTS / "bench_ui_step_failed.png"))
            raise
        page.evaluate(
            "() => new Promise(r => requestAnimationFrame(() => r()))"
        )  # the frame with the new markers and log rows is drawn
        out.append(time.perf_counter() - t)
    return out


def _python_steps(n: int) -> list[float]:
    from wargame.ui import ClassroomApp

    view = ClassroomApp().view
    assert view is not None
    out = []
    for _ in range(n):
        if view.game.is_over:
            break
        t = time.perf_counter()
        view.step()
        out.append(time.perf_counter() - t)
    return out


def _serve(extra: list[str], label: str) -> tuple[Any, str]:
    port = free_port()
    argv = voila_argv(port, NOTEBOOK) + extra
    proc = start_server(argv, port, ARTIFACTS / f"bench-voila-{label}.log")
    return proc, f"http://127.0.0.1:{port}/"


def _median(xs: list[float]) -> str:
    return f"{statistics.median(xs):.2f} s" if xs else "n/a"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--opens", type=int, default=5, help="page opens per mode")
    ap.add_argument("--steps", type=int, default=20, help="Step clicks")
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright

    ARTIFACTS.mkdir(exist_ok=True)
    os.environ.setdefault("WARGAME_CACHE", "/tmp/wargame-bench-cache")
    _warm_cache(args.steps)
    print(f"load average before: {os.getloadavg()[0]:.1f} (2 cores shared)")
    results: dict[str, dict[str, list[float]]] = {}
    step_times: list[float] = []
    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=chromium_path(), args=CHROMIUM_FLAGS, headless=True
        )
        for label, extra in (
            ("default", []),
            ("preheated", ["--preheat_kernel=True", "--pool_size=1"]),
        ):
            proc, url = _serve(extra, label)
            try:
                maps, clicks = [], []
                for i in range(args.opens):
                    if label == "preheated":
                        time.sleep(6)  # let the pool refill, as between two visitors
                    t_map, t_click, ctx = _open(browser, url)
                    maps.append(t_map)
                    clicks.append(t_click)
                    if label == "default" and i == 0:
                        step_times = _steps(ctx.pages[0], args.steps)
                    ctx.close()
                results[label] = {"map": maps, "interactive": clicks}
            finally:
                stop_server(proc)
        browser.close()
    py = _python_steps(args.steps)
    print(f"load average after:  {os.getloadavg()[0]:.1f}")
    print()
    print("Voila classroom app (notebooks/classroom.ipynb), page opened ->")
    for label, r in results.items():
        print(
            f"  {label:10s} map drawn {_median(r['map'])}, interactive "
            f"{_median(r['interactive'])}   (runs: "
            + ", ".join(f"{x:.1f}" for x in r["interactive"])
            + ")"
        )
    ms = [1000 * x for x in step_times]
    if ms:
        print(
            f"Step click -> view updated in the browser: median "
            f"{statistics.median(ms):.0f} ms, p90 "
            f"{sorted(ms)[int(0.9 * (len(ms) - 1))]:.0f} ms over {len(ms)} steps"
        )
    if py:
        print(
            f"GameView.step() in Python: median {1000 * statistics.median(py):.0f} ms"
        )


if __name__ == "__main__":
    main()
