"""The Remagen scenario as the rules tests were written for it: 1st Platoon on
foot in the US start area, no half-tracks, mortars or company command team.

The shipped scenario mounts 1st Platoon in its half-tracks and adds a mortar
section and Hptm. Bratge (docs/rules/fow-v3.md, assumption 27); the tests of
movement, shooting, bombardment and the views place and move 1st Platoon and
add their own batteries, so they start from this older order of battle.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

SCENARIO = Path(__file__).parents[2] / "scenarios" / "fow_remagen_1945.toml"
#: The platoons the combined-arms version added.
ADDED = ("us_halftracks", "us_mortars", "de_bratge")


def remagen_on_foot() -> dict[str, Any]:
    """The scenario's data with 1st Platoon on foot (module docstring)."""
    d = tomllib.loads(SCENARIO.read_text(encoding="utf-8"))
    d["units"] = [u for u in d["units"] if u["id"] not in ADDED]
    u = next(u for u in d["units"] if u["id"] == "us_1pl")
    del u["mounted_in"]
    u.update(zone="us_start", layout="cluster", spacing_m=55.0, facing=45)
    return d
