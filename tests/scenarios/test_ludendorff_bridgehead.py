"""The special-rules scenario: helicopters, fire support, an MTU-55 bridge and
carried infantry on the real map, validated and played by the doctrine AI."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from wargame.ai import get_policy
from wargame.engine import Game, check_scenario, load_scenario

NAME = "ludendorff_bridgehead"
REPO = Path(__file__).resolve().parents[2]


def test_the_bridgehead_scenario_validates_and_says_what_is_history() -> None:
    assert check_scenario(NAME) == []
    s = load_scenario(NAME)
    for field in ("description", "briefing", "historical_note", "balance_note"):
        assert len(s.text(field)) > 80, field
    assert "Documented" in s.text("historical_note")
    assert "Invented" in s.text("historical_note")
    types = {u["type"] for u in s.units}
    assert {"mtu55", "mi24", "ah1", "us_mortar81"} <= types
    assert any(u.get("carried_by") for u in s.units)
    assert s.data["support"]


def test_doctrine_plays_the_bridgehead_using_the_special_rules() -> None:
    seen: Counter[tuple[str, str]] = Counter()
    winners = set()
    for seed in range(4):
        g = Game.from_scenario(
            NAME,
            seed=seed,
            policies={"nato": get_policy("doctrine", ruleset="waw-classic"),
                      "pact": get_policy("doctrine", ruleset="waw-classic")},
        )
        g.run()
        assert g.outcome is not None and g.outcome.turn == 8
        winners.add(g.outcome.winner)
        seen.update((e.kind, str(e.result)) for e in g.events)
        heli_fire = [
            e for e in g.events if e.kind == "fire" and e.unit in ("US-AH1", "SU-MI24A")
        ]
        seen[("heli", "fire")] += len(heli_fire)
    assert seen[("bridge", "laid")] >= 1  # the MTU-55 lays its span
    assert seen[("support", "HE")] >= 1  # artillery called through a spotter
    assert seen[("dismount", "dismounted")] >= 1  # the BMPs' infantry gets off
    assert seen[("heli", "fire")] >= 1  # helicopters fight
    assert winners <= {"nato", "pact", None}


def test_wargame_validate_rejects_impossible_combinations(tmp_path, capsys) -> None:
    # Issue 7 bad input: a helicopter carried by a truck, a tank SW on a tank
    # that cannot fire it; each line names the file, the field and the unit.
    from wargame.cli import main

    text = (REPO / "scenarios" / f"{NAME}.toml").read_text()
    text = text.replace(
        'type = "mi24"\nformation = "Hind"\nhex = "Z8"',
        'type = "mi24"\nformation = "Hind"\ncarried_by = "SU-B2"',
    ).replace(
        'type = "t72"\nformation = "1/MRB"\nhex = "AB9"',
        'type = "t72"\nformation = "1/MRB"\nhex = "AB9"\nsupport_weapon = "sniper"',
    )
    path = tmp_path / "bad_bridgehead.toml"
    path.write_text(text)
    assert main(["validate", str(path)]) == 2
    out = capsys.readouterr()
    lines = (out.out + out.err).splitlines()
    assert any(
        str(path) in x
        and "('SU-MI24A').carried_by: Mi-24 Hind section cannot ride in BMP-2" in x
        for x in lines
    ), lines
    assert any(
        "('SU-T2').support_weapon: T-72 tank platoon cannot take AT-11 Sniper" in x
        for x in lines
    ), lines
