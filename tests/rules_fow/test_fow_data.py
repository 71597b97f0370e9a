"""fow-v3 team profiles: every team loads, every value has a source, and a bad
file fails with the file, the team and the field in the message."""

from __future__ import annotations

from pathlib import Path

import pytest

from wargame.rules.fow.data import (
    DEFAULT_TEAMS_TOML,
    KINDS,
    MOBILITIES,
    SPECIAL_RULES,
    FowDataError,
    TeamType,
    load_teams,
    source_problem,
)

REMAGEN_TEAMS = {
    "us_rifle_team",
    "us_command_rifle_team",
    "us_m1919_lmg",
    "us_bazooka_team",
    "us_60mm_mortar",
    "us_81mm_mortar",
    "us_m4a3_sherman",
    "us_m26_pershing",
    "us_m3_halftrack",
    "us_m2_halftrack",
    "us_jeep",
    "de_rifle_team",
    "de_rifle_mg_team",
    "de_mg_team",
    "de_mg42_hmg",
    "de_panzerschreck_team",
    "de_pak40",
    "de_flak38",
    "de_panzer_iv_h",
    "de_command_smg_team",
}

TEAMS = load_teams()


def test_every_remagen_team_loads() -> None:
    assert set(TEAMS) == REMAGEN_TEAMS
    assert all(isinstance(t, TeamType) for t in TEAMS.values())
    assert {t.kind for t in TEAMS.values()} == set(KINDS)
    assert all(t.mobility in MOBILITIES for t in TEAMS.values())
    assert any(t.has("command") for t in TEAMS.values() if t.nation == "us")
    assert any(t.has("command") for t in TEAMS.values() if t.nation == "german")


def _team_fields(t: TeamType) -> list[str]:
    out = ["name", "nation", "kind", "mobility", "eye_height_m", "base_radius_m"]
    if t.speed_class is not None:
        out.append("speed_class")
    if t.armour is not None:
        out += ["armour.front", "armour.side", "armour.top"]
    if t.save is not None:
        out.append("save")
    if t.tank_assault is not None:
        out.append("tank_assault")
    if t.special:
        out.append("special")
    return out


@pytest.mark.parametrize("tid", sorted(REMAGEN_TEAMS))
def test_every_value_has_a_source(tid: str) -> None:
    t = TEAMS[tid]
    for f in _team_fields(t):
        assert source_problem(t.source_of(f)) is None, (tid, f)
    for w in t.weapons:
        need = ["name", "range_in", "anti_tank", "firepower"]
        need += ["bombardment"] if w.bombardment else ["rof", "rof_moving"]
        need += ["notes"] if w.notes else []
        for f in need:
            assert source_problem(w.sources[f]) is None, (tid, w.name, f)


def test_estimates_say_why() -> None:
    ests = [
        s
        for t in TEAMS.values()
        for s in [*t.sources.values()]
        + [x for w in t.weapons for x in w.sources.values()]
        if s.startswith("estimate")
    ]
    assert ests and all(s.startswith("estimate: ") and len(s) > 20 for s in ests)


def test_saves_by_kind() -> None:
    """Infantry 3+, guns 5+, unarmoured vehicles 5+ (research §3.4, S12 [A])."""
    for t in TEAMS.values():
        if t.armour is not None:
            assert t.save is None
            continue
        assert t.save == {"infantry": 3, "gun": 5, "transport": 5, "tank": 5}[t.kind]


def test_sourced_values() -> None:
    pak = TEAMS["de_pak40"].weapons[0]
    assert (pak.range_in, pak.rof, pak.anti_tank, pak.firepower) == (32, 2, 12, 3)
    assert TEAMS["de_pak40"].mobility == "medium_gun"
    sherman = TEAMS["us_m4a3_sherman"]
    assert (sherman.armour.front, sherman.armour.side, sherman.armour.top) == (6, 4, 1)
    assert sherman.speed_class == "standard"
    gun, coax, _hull, aa = sherman.weapons
    assert (gun.range_in, gun.rof, gun.rof_moving, gun.anti_tank) == (32, 2, 1, 10)
    assert (coax.rof, coax.rof_moving, coax.anti_tank, coax.firepower) == (3, 3, 2, 6)
    assert (aa.anti_tank, aa.firepower) == (4, 5)
    hmg = TEAMS["de_mg42_hmg"].weapons[0]
    assert (hmg.range_in, hmg.rof, hmg.rof_moving) == (24, 6, 1)
    smg = TEAMS["de_command_smg_team"].weapons[0]
    assert (smg.range_in, smg.rof, smg.rof_moving, smg.anti_tank) == (4, 3, 3, 1)
    schreck = TEAMS["de_panzerschreck_team"]
    assert (schreck.weapons[0].anti_tank, schreck.tank_assault) == (11, 5)
    assert TEAMS["us_bazooka_team"].tank_assault == 4
    mortar = TEAMS["us_81mm_mortar"].weapons[0]
    assert mortar.bombardment and mortar.rof is None and mortar.rof_moving is None


def test_panzer_iv_h_armour_is_not_the_panther_copy() -> None:
    """research §6.2: S13's 10/5/1 looks copied from the Panther."""
    p4 = TEAMS["de_panzer_iv_h"]
    assert (p4.armour.front, p4.armour.side) == (6, 3)
    assert p4.source_of("armour.front").startswith("estimate: ")
    assert p4.source_of("armour.side").startswith("estimate: ")


def test_eye_heights() -> None:
    assert TEAMS["us_rifle_team"].eye_height_m == 1.6
    for t in TEAMS.values():
        if t.kind == "tank":
            assert 2.3 <= t.eye_height_m <= 3.0


def test_vehicle_mobility() -> None:
    assert TEAMS["us_jeep"].is_vehicle and TEAMS["us_m3_halftrack"].is_vehicle
    assert not TEAMS["de_flak38"].is_vehicle
    with pytest.raises(ValueError, match="unknown special rule"):
        TEAMS["us_jeep"].has("flying")
    with pytest.raises(KeyError, match=r"no field 'armour\.front'"):
        TEAMS["us_jeep"].source_of("armour.front")


# ----------------------------------------------------------------- bad files

GOOD = """
[teams.x_tank]
name = "Test tank"
nation = "us"
kind = "tank"
mobility = "fully_tracked"
speed_class = "standard"
armour = { front = 6, side = 4, top = 1 }
special = ["smoke"]
eye_height_m = 2.5
base_radius_m = 30.0
source = "research/fow.md §6.2 (S13, [B/C])"
[teams.x_tank.sources]
eye_height_m = "estimate: a tank's sights are about 2.5 m up"
[[teams.x_tank.weapons]]
name = "Gun"
range_in = 32
rof = 2
anti_tank = 10
firepower = 3
source = "research/fow.md §6.2 (S13, [B/C])"
"""


def _write(tmp_path: Path, text: str) -> Path:
    p = tmp_path / "teams.toml"
    p.write_text(text, encoding="utf-8")
    return p


def test_good_file_loads(tmp_path: Path) -> None:
    t = load_teams(_write(tmp_path, GOOD))["x_tank"]
    assert t.armour is not None and t.armour.front == 6
    assert t.source_of("eye_height_m").startswith("estimate: ")
    assert t.weapons[0].sources["rof_moving"].startswith("research/fow.md §3.1")


BAD = [
    # (replace this, with this, field named in the message, what it says)
    ('kind = "tank"', 'kind = "cavalry"', "kind", "must be one of"),
    ('mobility = "fully_tracked"', 'mobility = "hover"', "mobility", "must be one of"),
    ('speed_class = "standard"', 'speed_class = "zippy"', "speed_class", "one of"),
    ('special = ["smoke"]', 'special = ["smokey"]', "special", "must be one of"),
    ('nation = "us"', 'nation = "mars"', "nation", "must be one of"),
    ("front = 6", 'front = "six"', "armour.front", "not a whole number"),
    ("top = 1", "top = 1.5", "armour.top", "not a whole number"),
    ("side = 4, ", "", "armour.side", "is required"),
    ("front = 6", "front = 6, rear = 1", "armour.rear", "unknown field"),
    ("anti_tank = 10", 'anti_tank = "10"', "weapons[0].anti_tank", "not a whole"),
    ("anti_tank = 10", "anti_tank = 10.5", "weapons[0].anti_tank", "not a whole"),
    ("range_in = 32", 'range_in = "32in"', "weapons[0].range_in", "not a number"),
    ("firepower = 3", "firepower = 7", "weapons[0].firepower", "out of range"),
    ("rof = 2", "rof = 2\nrof_moving = 3", "weapons[0].rof_moving", "out of range"),
    ("rof = 2", "rof = 2\nbombardment = true", "weapons[0].rof", "no ROF"),
    ("firepower = 3", "firepower = 3\nsplash = 2", "weapons[0].splash", "unknown"),
    ("base_radius_m = 30.0", "base_radius_m = 30.0\ncolour = 1", "colour", "unknown"),
    ("eye_height_m = 2.5", 'eye_height_m = "tall"', "eye_height_m", "not a number"),
    (
        'source = "research/fow.md §6.2 (S13, [B/C])"\n[teams',
        "[teams",
        "name",
        "has no source",
    ),
    (
        'eye_height_m = "estimate: a tank\'s sights are about 2.5 m up"',
        'eye_height_m = "estimate"',
        "sources.eye_height_m",
        "needs a rationale",
    ),
    (
        'eye_height_m = "estimate: a tank\'s sights are about 2.5 m up"',
        'eye_height_m = "I think so"',
        "sources.eye_height_m",
        "must start with",
    ),
    (
        'eye_height_m = "estimate: a tank\'s sights are about 2.5 m up"',
        'save = "research/fow.md §3.4"',
        "sources",
        "not a field given",
    ),
    ("[teams.x_tank.sources]", "save = 5\n[teams.x_tank.sources]", "save", "armour"),
    (
        "armour = { front = 6, side = 4, top = 1 }\n",
        "",
        "armour",
        "needs armour or a save",
    ),
    ('kind = "tank"', 'kind = "infantry"', "mobility", "vehicle mobility"),
]


@pytest.mark.parametrize(("old", "new", "field", "says"), BAD)
def test_bad_file_names_file_team_and_field(
    tmp_path: Path, old: str, new: str, field: str, says: str
) -> None:
    assert old in GOOD, old
    p = _write(tmp_path, GOOD.replace(old, new, 1))
    with pytest.raises(FowDataError) as e:
        load_teams(p)
    msg = str(e.value)
    assert str(p) in msg
    assert "team 'x_tank'" in msg
    assert f"field {field!r}" in msg, msg
    assert says in msg, msg


def test_weapon_without_source(tmp_path: Path) -> None:
    text = GOOD.rsplit('source = "research', 1)[0]
    with pytest.raises(FowDataError, match=r"field 'weapons\[0\]\.name'.*no source"):
        load_teams(_write(tmp_path, text))


def test_speed_class_only_for_tanks(tmp_path: Path) -> None:
    text = GOOD.replace('kind = "tank"', 'kind = "transport"')
    with pytest.raises(FowDataError, match=r"field 'speed_class'.*only tank"):
        load_teams(_write(tmp_path, text))


def test_file_level_errors(tmp_path: Path) -> None:
    with pytest.raises(FowDataError, match="cannot read"):
        load_teams(tmp_path / "missing.toml")
    with pytest.raises(FowDataError, match="not valid TOML"):
        load_teams(_write(tmp_path, "[teams.x\n"))
    with pytest.raises(FowDataError, match="unknown top-level"):
        load_teams(_write(tmp_path, GOOD + "\n[units.y]\nname = 'y'\n"))
    with pytest.raises(FowDataError, match="no \\[teams"):
        load_teams(_write(tmp_path, "# empty\n"))


def test_default_path_and_specials_closed() -> None:
    assert DEFAULT_TEAMS_TOML.is_file()
    used = {s for t in TEAMS.values() for s in t.special}
    assert used <= set(SPECIAL_RULES)
