"""Helpers for the scenario tests: a small valid scenario to break, file writing."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SHIPPED = ("remagen_linz_crossing", "ahr_delay", "siebengebirge_heights")

#: A small valid World at War scenario on the Remagen window (N17 and H17 are on
#: the plateau, R9 is the Rhine).
BASE = """\
id = "t"
ruleset = "waw-classic"
turns = 4

[map]
name = "rhine-remagen"
window = "Remagen"

[[sides]]
id = "nato"

[[sides]]
id = "pact"

[[formations]]
id = "A"
side = "nato"

[[units]]
id = "A1"
type = "m60"
formation = "A"
hex = "N17"

[[formations]]
id = "B"
side = "pact"

[[units]]
id = "B1"
type = "t72"
formation = "B"
hex = "H17"
"""


def write(tmp_path: Path, name: str, text: str) -> Path:
    """Write a scenario file and return its path."""
    path = tmp_path / f"{name}.toml"
    path.write_text(text, encoding="utf-8")
    return path


def docs_example() -> str:
    """The annotated example scenario of docs/scenarios.md."""
    text = (REPO / "docs" / "scenarios.md").read_text(encoding="utf-8")
    match = re.search(r"```toml\n(.*?)```", text, re.S)
    assert match, "docs/scenarios.md has no ```toml example"
    return match.group(1)
