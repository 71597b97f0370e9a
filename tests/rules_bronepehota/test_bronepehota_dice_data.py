"""Dice notation of the armlists and the official 2008 armlist data."""

from __future__ import annotations

import json
import shutil
from fractions import Fraction
from itertools import product
from pathlib import Path

import pytest

from wargame.rules.bronepehota import (
    BronepehotaDataError,
    Dice,
    DiceNotationError,
    choose_loadout,
    load_armlists,
    parse_dice,
)
from wargame.rules.bronepehota.data import DEFAULT_ARMLISTS, DEFAULT_UNITS, LOCOMOTIONS
from wargame.rules.bronepehota.dice import best_of_two_pmf

ARM = load_armlists()


# -- dice ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "dice"),
    [
        ("Д6", Dice(1, 6)),
        ("1Д12", Dice(1, 12)),
        ("2Д12", Dice(2, 12)),
        ("Д20", Dice(1, 20)),
        ("2D12", Dice(2, 12)),
        ("d6+3", Dice(1, 6, 3)),
        ("Д12 + 2", Dice(1, 12, 2)),
        ("6 Д20", Dice(6, 20)),
        ("2д6", Dice(2, 6)),
    ],
)
def test_dice_notation_of_the_armlists_parses(text: str, dice: Dice) -> None:
    assert parse_dice(text) == dice


@pytest.mark.parametrize(
    "text", ["Д7", "2Д", "Д6-1", "", "3Д8", "0Д6", "Д", "x", "Д6+"]
)
def test_bad_dice_notation_names_the_string(text: str) -> None:
    with pytest.raises(DiceNotationError) as exc:
        parse_dice(text)
    assert repr(text) in str(exc.value)


@pytest.mark.parametrize("text", ["Д6+2", "2Д6", "3Д6", "Д20", "2Д12+1"])
def test_dice_pmf_equals_brute_force_enumeration(text: str) -> None:
    d = parse_dice(text)
    counts: dict[int, int] = {}
    for faces in product(range(1, d.sides + 1), repeat=d.count):
        t = d.total(faces)
        counts[t] = counts.get(t, 0) + 1
    n = d.sides**d.count
    assert dict(d.pmf()) == {k: Fraction(v, n) for k, v in sorted(counts.items())}


def test_best_of_two_is_the_maximum_of_two_dice() -> None:
    for sides in (6, 12, 20):
        brute: dict[int, Fraction] = {}
        for a, b in product(range(1, sides + 1), repeat=2):
            brute[max(a, b)] = brute.get(max(a, b), Fraction(0)) + Fraction(
                1, sides * sides
            )
        assert dict(best_of_two_pmf(sides)) == brute


def test_faces_are_checked_against_the_die() -> None:
    with pytest.raises(ValueError, match=r"faces\[1\] must be a Д6 face"):
        parse_dice("2Д6").total([3, 7])
    with pytest.raises(ValueError, match="needs 2 face"):
        parse_dice("2Д6").total([3])


# -- armlists -----------------------------------------------------------------


def test_every_machines_speed_sectors_cover_its_whole_durability_track() -> None:
    for m in ARM.machines.values():
        cells = [c for s in m.speed_sectors for c in range(s.low, s.high + 1)]
        assert sorted(cells) == list(range(1, m.durability_max + 1)), m.id
        assert all(m.speed_at(c) > 0 for c in cells), m.id
        speeds = [s.speed for s in m.speed_sectors]
        assert speeds == sorted(speeds, reverse=True), m.id  # §2.2
        with pytest.raises(ValueError, match="destroyed"):
            m.speed_at(0)


def test_armlists_hold_the_official_2008_values() -> None:
    assert len(ARM.squads) == 11 and len(ARM.machines) == 15 and len(ARM.guns) == 2
    assert all(len(s.soldiers) == 6 for s in ARM.squads.values())  # §2.1
    sala = ARM.machines["salamander"]
    assert (sala.heavy, sala.cost, sala.rank, sala.durability_max) == (False, 40, 1, 7)
    assert [(s.high, s.low, s.speed) for s in sala.speed_sectors] == [
        (7, 3, 4),
        (2, 1, 3),
    ]
    assert [s.colour for s in sala.speed_sectors] == ["green", "red"]
    varan = ARM.machines["varan"]
    rockets = varan.weapon("ракеты дальнего действия")
    assert (str(rockets.range), str(rockets.power), rockets.count) == ("Д20", "4Д12", 2)
    assert rockets.blast is not None and rockets.blast.radius_steps == 1
    mortar = ARM.guns["mortar"]
    assert mortar.mobile and (mortar.rank, mortar.fire_rate, mortar.ammo_max) == (
        1,
        1,
        12,
    )
    assert mortar.weapon.blast is not None and str(mortar.weapon.blast.power) == "Д20"
    militia = ARM.squads["tp_velian_militia"]
    assert militia.faction == "protectorate" and militia.cost == 40
    assert str(militia.soldiers[2].range) == "Д20" and militia.soldiers[2].melee == 0
    regime = ARM.squads["pl_regime_clones"].soldiers[0]
    assert not regime.armed and regime.jump == 3 and not regime.repairs
    assert ARM.squads["pl_heavy_clone_infantry"].soldiers[0].repairs
    assert ARM.machines["gryphon"].faction == "protectorate"
    assert ARM.machines["spider"].faction == "polaris"  # research §6.3: not B2's


def test_locomotion_is_an_estimate_with_its_rationale() -> None:
    for m in ARM.machines.values():
        assert m.locomotion in LOCOMOTIONS
        src = m.source_of("locomotion")
        assert src.startswith("estimate: ") and "not printed" in src, m.id
        assert m.source_of("rank").startswith("research/bronepehota.md §6")
    assert {m.id for m in ARM.machines.values() if m.flier} == {"thunder", "sprut"}


def test_loadout_not_in_the_arsenal_names_machine_and_weapon() -> None:
    with pytest.raises(ValueError, match=r"'gryphon'.*'пушка гатлинга'"):
        choose_loadout(ARM.machines["gryphon"], ["пушка гатлинга"])
    with pytest.raises(ValueError, match="more 'лазерная пушка' than the 1"):
        choose_loadout(ARM.machines["gryphon"], ["лазерная пушка"] * 2)


def _copy(tmp_path: Path) -> tuple[Path, dict]:
    shutil.copy(DEFAULT_UNITS, tmp_path / "units.toml")
    return tmp_path / "a.json", json.loads(DEFAULT_ARMLISTS.read_text(encoding="utf-8"))


def _load(path: Path, raw: dict) -> None:
    path.write_text(json.dumps(raw, ensure_ascii=False), encoding="utf-8")
    load_armlists(path, path.parent / "units.toml")


def test_bad_power_notation_names_file_unit_and_field(tmp_path: Path) -> None:
    path, raw = _copy(tmp_path)
    raw["machines"][0]["weapons"][0]["power"] = "6Д7"
    with pytest.raises(BronepehotaDataError) as exc:
        _load(path, raw)
    msg = str(exc.value)
    assert "a.json" in msg and "machine 'Demolisher'" in msg and "'power'" in msg
    assert "'6Д7'" in msg


def test_a_gap_in_the_speed_sectors_is_an_error(tmp_path: Path) -> None:
    path, raw = _copy(tmp_path)
    raw["machines"][1]["speed_sectors"][1]["max"] = 7  # Helix: 12-9, 7-5, 4-1
    with pytest.raises(
        BronepehotaDataError, match=r"machine 'Helix', speed_sectors\[1\]"
    ):
        _load(path, raw)


def test_a_squad_of_five_and_an_unknown_property_are_errors(tmp_path: Path) -> None:
    path, raw = _copy(tmp_path)
    raw["squads"][0]["soldiers"].pop()
    with pytest.raises(BronepehotaDataError, match="six soldiers"):
        _load(path, raw)
    path, raw = _copy(tmp_path)
    raw["squads"][0]["soldiers"][2]["props"] = "Г"
    with pytest.raises(BronepehotaDataError, match=r"soldier 3, field 'props'.*'Г'"):
        _load(path, raw)


def test_a_range_with_several_dice_is_an_error(tmp_path: Path) -> None:
    path, raw = _copy(tmp_path)
    raw["squads"][1]["soldiers"][0]["range"] = "2Д12"
    with pytest.raises(BronepehotaDataError, match=r"field 'range'.*one die"):
        _load(path, raw)


def test_missing_file_is_named(tmp_path: Path) -> None:
    with pytest.raises(BronepehotaDataError, match="no such armlist file"):
        load_armlists(tmp_path / "none.json")
