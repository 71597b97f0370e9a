"""Fixtures for real-browser tests (Playwright + Debian chromium, offline)."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from typing import Any

import pytest
from uihelpers import (
    ARTIFACTS,
    CHROMIUM_FLAGS,
    block_non_loopback,
    chromium_path,
    free_port,
    lab_argv,
    start_server,
    stop_server,
)

CHROMIUM = chromium_path()
HOW = (
    "install Debian's chromium (`sudo apt-get install chromium`, done by `make test` "
    "when run as root) and the test extra (`pip install -e '.[test]'`)"
)


def pytest_collection_modifyitems(config: Any, items: list[Any]) -> None:
    here = os.path.dirname(__file__)
    reason = None
    if CHROMIUM is None:
        reason = f"no chromium found: {HOW}"
    else:
        try:
            import playwright  # noqa: F401
        except ImportError:
            reason = f"playwright is not installed: {HOW}"
    for item in items:
        if str(item.fspath).startswith(here):
            item.add_marker(pytest.mark.browser)
            if reason:
                item.add_marker(pytest.mark.skip(reason=reason))


@pytest.fixture(scope="session")
def artifacts() -> str:
    ARTIFACTS.mkdir(exist_ok=True)
    return str(ARTIFACTS)


@pytest.fixture(scope="session")
def browser_type_launch_args(
    browser_type_launch_args: dict[str, Any],
) -> dict[str, Any]:
    """pytest-playwright hook: Debian's chromium, never a downloaded browser."""
    return {
        **browser_type_launch_args,
        "executable_path": CHROMIUM,
        "args": CHROMIUM_FLAGS,
        "headless": True,
        "timeout": 60_000,
    }


@pytest.fixture
def offline_page(page: Any) -> Any:
    """A page whose non-loopback requests are aborted; records errors."""
    page.blocked = []
    page.errors = []
    page.console_errors = []
    block_non_loopback(page, page.blocked)
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    page.on(
        "console",
        lambda m: page.console_errors.append(m.text) if m.type == "error" else None,
    )
    page.set_default_timeout(60_000)
    return page


@pytest.fixture(scope="session")
def lab_url(artifacts: str) -> Iterator[str]:
    port = free_port()
    proc = start_server(lab_argv(port), port, ARTIFACTS / "lab.log")
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        stop_server(proc)


@pytest.fixture(scope="session")
def timings(artifacts: str) -> Iterator[dict[str, Any]]:
    data: dict[str, Any] = {}
    yield data
    with open(ARTIFACTS / "timings.json", "w") as f:
        json.dump(data, f, indent=2)
