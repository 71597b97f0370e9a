"""Record the golden playthrough logs under tests/data/golden/<ruleset>/.

Run only when a change of the game's behaviour is intended (and say why in the
commit): ``.venv/bin/python scripts/record_golden.py [--ruleset waw-classic]``.
The games: every shipped scenario of the rule system, doctrine against doctrine
and random against random for seeds 1-5, greedy against doctrine for seeds 1-2.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
GOLDEN = ROOT / "tests" / "data" / "golden"

MATCHUPS: tuple[tuple[str, str, tuple[int, ...]], ...] = (
    ("doctrine", "doctrine", (1, 2, 3, 4, 5)),
    ("random", "random", (1, 2, 3, 4, 5)),
    ("greedy", "doctrine", (1, 2)),
)


def games(ruleset: str) -> list[tuple[Any, dict[str, str], int]]:
    from wargame.engine import available_scenarios, load_scenario

    if ruleset == "toy-1e":  # the engine tests' toy rule system
        sys.path.insert(0, str(ROOT / "tests" / "engine"))
        from toy_ruleset import TOY_SCENARIO

        pols = {"red": "random", "blue": "random"}
        return [(TOY_SCENARIO, pols, seed) for seed in (1, 2, 3)]
    if ruleset == "toypoints-1e":  # the engine tests' point toy rule system
        import tomllib

        sys.path.insert(0, str(ROOT / "tests" / "engine"))
        from toy_points import SCENARIO

        data = tomllib.loads(SCENARIO.read_text(encoding="utf-8"))
        pols = {"red": "random", "blue": "random"}
        return [(data, pols, seed) for seed in (1, 2, 3)]
    if ruleset == "fow-v3":  # a first cut without its own AI: short random games
        import tomllib

        path = ROOT / "scenarios" / "fow_remagen_1945.toml"
        data = tomllib.loads(path.read_text(encoding="utf-8"))
        data["turns"] = 3
        data["id"] = "fow_remagen_1945_3turns"  # not the scenario file: its data
        pols = {"us": "random", "de": "random"}
        return [(data, pols, seed) for seed in (1, 2)]
    if ruleset == "bronepehota-2008":  # a first cut without its own AI
        import tomllib

        path = ROOT / "scenarios" / "bronepehota_linz_bank.toml"
        data = tomllib.loads(path.read_text(encoding="utf-8"))
        data["turns"] = 3
        data["id"] = "bronepehota_linz_bank_3turns"  # not the scenario file: its data
        pols = {"polaris": "random", "protectorate": "random"}
        return [(data, pols, seed) for seed in (1, 2)]
    out: list[tuple[Any, dict[str, str], int]] = []
    for sid in available_scenarios():
        sc = load_scenario(sid)
        if sc.ruleset != ruleset:
            continue
        sides = [s["id"] for s in sc.sides]
        for first, second, seeds in MATCHUPS:
            pols = {sides[0]: first, sides[1]: second}
            out.extend((sid, pols, seed) for seed in seeds)
    return out


def golden_path(ruleset: str, scenario: Any, pols: dict[str, str], seed: int) -> Path:
    names = "-".join(pols[s] for s in pols)
    sid = scenario if isinstance(scenario, str) else scenario["id"]
    return GOLDEN / ruleset / f"{sid}__{names}__s{seed}.jsonl.gz"


def main(argv: list[str] | None = None) -> int:
    """Record the golden logs of one rule system."""
    from wargame.testing.golden import play_header, write_golden

    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--ruleset", default="waw-classic")
    args = p.parse_args(argv)
    todo = games(args.ruleset)
    for sid, pols, seed in todo:
        header = {"ruleset": args.ruleset, "seed": seed, "policies": pols}
        if isinstance(sid, str):
            header["scenario"] = sid
        else:
            header["scenario"], header["scenario_data"] = sid["id"], sid
        game = play_header(header)
        path = write_golden(golden_path(args.ruleset, sid, pols, seed), game, pols)
        print(f"{path.relative_to(ROOT)}: {len(game.events)} events")
    print(f"{len(todo)} golden logs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
