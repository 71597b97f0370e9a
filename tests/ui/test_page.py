"""The classroom page: built at once outside Voila, just after the cell under Voila."""

import asyncio
import json
import subprocess
import sys
import threading
from pathlib import Path

import ipywidgets as w
import pytest

from wargame.ui.page import classroom_page, deferred_box, under_voila

NOTEBOOK = Path(__file__).resolve().parents[2] / "notebooks" / "classroom.ipynb"


def test_outside_voila_the_app_is_built_before_the_cell_returns(monkeypatch):
    monkeypatch.delenv("VOILA_BASE_URL", raising=False)
    monkeypatch.delenv("VOILA_PREHEAT", raising=False)
    assert not under_voila()
    box = classroom_page()
    [app] = box.children
    assert type(app).__name__ == "ClassroomApp"
    assert app.view is not None and app.view.units.stacks


@pytest.mark.parametrize("var", ["VOILA_BASE_URL", "VOILA_PREHEAT"])
def test_voila_kernels_are_recognised(monkeypatch, var):
    monkeypatch.setenv(var, "False")
    assert under_voila()


def in_thread(fn):
    """Run ``fn`` in a thread of its own and return what it returns.

    Earlier tests (Playwright's sync API) may leave an event loop marked as
    running in the main thread, where asyncio.run() would refuse to start.
    """
    out = {}

    def target():
        try:
            out["value"] = fn()
        except BaseException as exc:  # re-raised in the test's thread
            out["error"] = exc

    t = threading.Thread(target=target)
    t.start()
    t.join()
    if "error" in out:
        raise out["error"]
    return out["value"]


def test_without_an_event_loop_a_deferred_box_is_built_at_once():
    box = in_thread(lambda: deferred_box(lambda: w.HTML("app"), defer=True))
    assert [c.value for c in box.children] == ["app"]


def test_a_deferred_box_shows_a_note_then_the_app_after_the_cell():
    built = []

    def build():
        built.append(1)
        return w.HTML("app")

    async def cell_then_idle():
        box = deferred_box(build, note="Loading…", defer=True)
        assert not built  # the cell returns before the build
        assert "Loading…" in box.children[0].value
        await asyncio.sleep(0.3)  # the kernel's loop runs the build
        return box

    box = in_thread(lambda: asyncio.run(cell_then_idle()))
    assert built == [1]
    assert [c.value for c in box.children] == ["app"]


def test_a_failed_deferred_build_is_one_line_in_the_page(capsys):
    def build():
        raise ValueError("no scenario")

    async def cell_then_idle():
        box = deferred_box(build, defer=True)
        await asyncio.sleep(0.3)
        return box

    box = in_thread(lambda: asyncio.run(cell_then_idle()))
    [note] = box.children
    assert "The app could not start: ValueError: no scenario" in note.value
    assert "Traceback" not in note.value
    assert "Traceback" in capsys.readouterr().err  # for the kernel's log


def test_the_classroom_notebook_uses_the_page():
    nb = json.loads(NOTEBOOK.read_text())
    [cell] = nb["cells"]
    assert "classroom_page()" in "".join(cell["source"])
    assert cell["outputs"] == []


def test_without_ipyleaflet_the_page_shows_a_note_not_a_traceback():
    code = (
        "import sys; sys.modules['ipyleaflet'] = None\n"
        "from wargame.ui import classroom_page\n"
        "box = classroom_page(defer=False)\n"
        "h = box.children[0].value\n"
        "assert 'pip install' in h and 'ipyleaflet' in h, h[:300]\n"
        "print('ok')\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=300
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"
