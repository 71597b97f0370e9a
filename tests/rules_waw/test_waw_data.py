"""WaW unit and terrain data: loads, every value has a source, bad files fail well."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from wargame.rules import waw
from wargame.rules.waw import DataError, get_unit, load_terrain, load_units
from wargame.rules.waw.catalog import DATA_DIR

UNITS_TOML = DATA_DIR / "units.toml"
TERRAIN_TOML = DATA_DIR / "terrain.toml"


def test_units_load_and_every_estimate_has_a_one_line_rationale() -> None:
    units = load_units()
    assert len(units) >= 40
    for unit in units.values():
        if unit.source == "estimate":
            assert unit.rationale and "\n" not in unit.rationale, unit.id
            assert len(unit.rationale) >= 20, unit.id


def test_terrain_loads_and_every_estimate_has_a_rationale() -> None:
    chart = load_terrain()
    for table in (chart.terrain, chart.road, chart.crossing):
        for row in table.values():
            if row.source == "estimate":
                assert row.rationale and "\n" not in row.rationale, row.id


@pytest.mark.parametrize(
    ("unit", "path", "seed"),
    [
        ("t72", "full.ap.fp", "seed 000"),
        ("t72", "full.ap.to_hit", "seed 000"),
        ("m48", "full.ap.fp", "seed 001"),
        ("m48", "full.ap.to_hit", "seed 001"),
        ("t64", "full.armor", "seed 001"),
        ("t64", "full.save", "seed 001"),
        ("chieftain", "full.ap.to_hit", "seed 001"),
        ("chieftain", "full.ap.range", "seed 001"),
        ("t80", "full.ap.to_hit", "seed 001"),
        ("ussr_hq", "full.morale", "seed 000"),
        ("tow_jeep", "unit_class", "seed 000"),
    ],
)
def test_seed_values_carry_their_seed_source(unit: str, path: str, seed: str) -> None:
    assert get_unit(unit).source_of(path).startswith(seed)


def test_seed_values_match_the_seed_examples() -> None:
    t72, m48, t64 = get_unit("t72").full, get_unit("m48").full, get_unit("t64").full
    assert (t72.ap.fp, t72.ap.to_hit) == (4, 5)  # type: ignore[union-attr]
    assert (m48.ap.fp, m48.ap.to_hit) == (3, 4)  # type: ignore[union-attr]
    assert (t64.armor, t64.save) == (2, 5)
    chieftain = get_unit("chieftain").full.ap
    assert chieftain is not None
    assert (chieftain.to_hit, chieftain.range) == (3, 9)
    assert not chieftain.range_underlined
    t80 = get_unit("t80").full.ap
    assert t80 is not None and t80.to_hit == 4 and t80.range in (8, 9)
    chart = load_terrain()
    assert chart.terrain["clear"].defence_dice == 0
    assert chart.terrain["woods"].defence_dice == 1
    assert chart.terrain["town"].defence_dice == 2
    for name in ("clear", "woods", "town"):
        assert chart.terrain[name].source_of("defence_dice").startswith("seed 00")
        assert chart.terrain[name].source_of("move_cost") == "estimate"


def test_estimated_values_are_tagged_estimate() -> None:
    m1 = get_unit("m1")
    assert m1.source_of("full.ap.fp") == "estimate"
    assert get_unit("t72").source_of("full.armor") == "estimate"
    with pytest.raises(KeyError):
        m1.source_of("full.aa.fp")  # M1 has no AA value at all


REQUIRED = [
    *("t72", "t64", "t80", "m48", "chieftain", "tow_jeep", "ussr_infantry"),
    *("m1", "m60", "m113", "m2", "m3", "leopard1", "leopard2", "marder", "luchs"),
    *("fv432", "scorpion", "bmp1", "bmp2", "btr70", "brdm2"),
    *("us_infantry", "frg_infantry", "uk_infantry"),
    *("us_hq", "ussr_hq", "frg_hq", "uk_hq"),
]


def test_catalog_has_the_units_a_rhine_battle_needs() -> None:
    units = load_units()
    assert not [u for u in REQUIRED if u not in units]
    for nation in waw.Nation:
        classes = {u.unit_class for u in units.values() if u.nation is nation}
        for need in ("hq", "infantry", "mortar", "armored", "recon", "aa"):
            assert need in classes, (nation, need)
    for carrier in ("m113", "m2", "marder", "fv432", "bmp1", "bmp2", "btr70"):
        assert units[carrier].carrier, carrier
    for recon in ("m3", "luchs", "scorpion", "brdm2"):
        assert units[recon].unit_class is waw.UnitClass.RECON


def test_unit_classes_and_target_types_are_consistent() -> None:
    for unit in load_units().values():
        tt = unit.target_type()
        if unit.unit_class in ("light_armored", "aa"):
            assert tt is waw.TargetType.LIGHT_ARMORED, unit.id
        if unit.unit_class == "armored":
            assert tt is waw.TargetType.ARMORED, unit.id
        if unit.unit_class in ("infantry", "mortar"):
            assert tt is waw.TargetType.UNARMORED, unit.id
        if unit.one_sided:
            assert unit.reduced is None
        else:
            assert unit.reduced is not None
            # a reduced side is never stronger than the full side
            for kind in ("ap", "he", "aa"):
                full, red = unit.full.weapon(kind), unit.reduced.weapon(kind)
                assert (full is None) == (red is None), (unit.id, kind)
                if full is not None and red is not None:
                    assert red.fp <= full.fp, (unit.id, kind)
            assert unit.reduced.assault <= unit.full.assault, unit.id


def test_sp_mortars_are_unarmored_targets() -> None:
    # WaW 001 §6.1: "mortars and infantry" are the unarmored targets; the
    # self-propelled FV432M and PzMSR (seed 000 §1.3.4.3) are mortars too.
    for uid in ("pzmsr", "fv432_mortar", "us_mortar81", "ussr_mortar120"):
        unit = get_unit(uid)
        assert unit.target_type() is waw.TargetType.UNARMORED, uid
        assert unit.target_type(reduced=True) is waw.TargetType.UNARMORED, uid
        assert unit.full.armor is None and unit.full.save is None, uid
    # a mortar counter with armor is refused, like an armored infantry platoon
    data = get_unit("pzmsr").model_dump()
    data["full"]["armor"], data["full"]["save"] = 1, 6
    with pytest.raises(ValueError, match="mortar unit must not have armor"):
        type(get_unit("pzmsr")).model_validate(data)
    # so an M60's HE at a PzMSR in the open gets no save roll at all (two hits
    # disrupt and reduce it, as on infantry)
    shot = waw.resolve_fire(
        waw.FixedDice([6, 6]), "m60", "pzmsr", range_hexes=3, terrain="clear", kind="he"
    )
    assert shot.roll.save_dice == ()
    assert shot.result.after.strength.value == "reduced"
    assert shot.result.after.disrupted


def test_terrain_chart_covers_the_map_vocabulary() -> None:
    geo = pytest.importorskip("wargame.geo.terrain")
    chart = load_terrain()
    assert set(geo.TERRAIN_CLASSES) <= set(chart.terrain)
    assert set(geo.ROAD_CLASSES) <= set(chart.road)
    assert set(geo.WATERWAY_CLASSES) <= set(chart.crossing)


def test_movement_costs() -> None:
    chart = load_terrain()
    assert chart.movement_cost("clear", "foot") == 1
    assert chart.movement_cost("water", "tracked") == float("inf")
    assert chart.movement_cost("wetland", "wheeled") == float("inf")
    assert chart.movement_cost("woods", "wheeled", road="track") == 1
    assert chart.movement_cost("clear", "tracked", crossing="stream") == 3
    assert chart.movement_cost("clear", "foot", crossing="river") == float("inf")
    with pytest.raises(KeyError, match=r"unknown road class"):
        chart.movement_cost("clear", "foot", road="autobahn")


def test_unknown_unit_id_lists_the_known_ones() -> None:
    with pytest.raises(KeyError, match=r"unknown WaW unit type 't99'.*t72"):
        get_unit("t99")


# ---------------------------------------------------------------------------
# bad data files


def _units_with(tmp_path: Path, edit: Callable[[str], str], unit: str = "t72") -> Path:
    """Write a units file holding only ``unit``'s tables, passed through ``edit``."""
    lines = UNITS_TOML.read_text().splitlines()
    start = lines.index(f"[units.{unit}]")
    end = start + 1
    own = f"[units.{unit}."
    while end < len(lines) and not (
        lines[end].startswith("[units.") and not lines[end].startswith(own)
    ):
        end += 1
    path = tmp_path / "bad_units.toml"
    path.write_text(edit("\n".join(lines[start:end])))
    return path


def test_bad_value_names_file_unit_and_field(tmp_path: Path) -> None:
    path = _units_with(
        tmp_path, lambda t: t.replace("to_hit = 5, range", "to_hit = 9, range", 1)
    )
    with pytest.raises(DataError) as err:
        load_units(path)
    msg = str(err.value)
    assert "bad_units.toml" in msg and "'t72'" in msg and "full.ap.to_hit" in msg
    assert "9" in msg


def test_estimate_without_rationale_is_rejected(tmp_path: Path) -> None:
    path = _units_with(tmp_path, lambda t: t.replace("rationale =", "# rationale =", 1))
    with pytest.raises(DataError, match=r"'t72'.*no rationale"):
        load_units(path)


def test_misspelt_field_is_rejected(tmp_path: Path) -> None:
    path = _units_with(tmp_path, lambda t: t.replace("armor = 2", "armour = 2", 1))
    with pytest.raises(DataError, match=r"full.armour"):
        load_units(path)


def test_armored_unit_with_light_armor_is_rejected(tmp_path: Path) -> None:
    path = _units_with(tmp_path, lambda t: t.replace("armor = 2", "armor = 1", 1))
    with pytest.raises(DataError, match=r"'t72'.*armored unit needs armor"):
        load_units(path)


def test_value_source_for_missing_value_is_rejected(tmp_path: Path) -> None:
    path = _units_with(
        tmp_path,
        lambda t: t.replace('"full.ap.fp"', '"full.aa.fp"', 1),
    )
    with pytest.raises(DataError, match=r"full.aa.fp"):
        load_units(path)


def test_bad_source_tag_is_rejected(tmp_path: Path) -> None:
    path = _units_with(
        tmp_path, lambda t: t.replace('source = "estimate"', 'source = "guess"', 1)
    )
    with pytest.raises(DataError, match=r"'guess'"):
        load_units(path)


def test_invalid_toml_and_missing_file_name_the_file(tmp_path: Path) -> None:
    bad = tmp_path / "broken.toml"
    bad.write_text("[units.t72\nname = 'x'\n")
    with pytest.raises(DataError, match=r"broken.toml: not valid TOML"):
        load_units(bad)
    with pytest.raises(DataError, match=r"nope.toml: file not found"):
        load_units(tmp_path / "nope.toml")
    empty = tmp_path / "empty.toml"
    empty.write_text("title = 'no units'\n")
    with pytest.raises(DataError, match=r"\[units.<id>\]"):
        load_units(empty)


def test_terrain_chart_missing_a_map_class_is_rejected(tmp_path: Path) -> None:
    text = TERRAIN_TOML.read_text().replace("[terrain.park]", "[terrain.parkland]")
    path = tmp_path / "terrain.toml"
    path.write_text(text)
    with pytest.raises(DataError, match=r"\[terrain\] lacks park"):
        load_terrain(path)


def test_terrain_bad_defence_dice_is_rejected(tmp_path: Path) -> None:
    text = TERRAIN_TOML.read_text().replace("defence_dice = 2", "defence_dice = -1", 1)
    path = tmp_path / "terrain.toml"
    path.write_text(text)
    with pytest.raises(DataError, match=r"terrain 'town': defence_dice = -1"):
        load_terrain(path)


def test_docs_page_lists_every_unit_and_terrain_row() -> None:
    doc = Path(__file__).parents[2] / "docs" / "rules" / "waw-classic.md"
    if not doc.exists():
        pytest.skip("docs not shipped with this install")
    text = doc.read_text()
    chart = load_terrain()
    ids = [*load_units(), *chart.terrain, *chart.road, *chart.crossing]
    assert not [i for i in ids if f"| `{i}` |" not in text]
