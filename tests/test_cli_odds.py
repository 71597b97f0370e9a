"""`wargame odds`: exact odds on the command line, and its errors."""

import pytest

from wargame.cli import main
from wargame.rules import waw


def test_odds_prints_the_exact_table(capsys):
    code = main(
        [
            "odds",
            "waw",
            "--attacker",
            "t72",
            "--target",
            "tow_jeep",
            "--range",
            "6",
            "--terrain",
            "woods",
        ]
    )
    assert code == 0
    out = capsys.readouterr().out
    expected = waw.odds("t72", "tow_jeep", 6, "woods")
    for k, p in expected.items():
        assert f"{k}              {p:.4f}" in out
    assert "destroyed" in out


def test_odds_of_a_self_propelled_mortar_have_no_armor_save(capsys):
    # WaW 001 §6.1 (issue 17): the PzMSR is an unarmored target, so an M60's HE
    # (2 dice hitting on 3+ at half range) is not saved in the open: P(2 net hits)
    # = (2/3)^2, and two hits disrupt and reduce it.
    argv = "odds waw-classic --attacker m60 --target pzmsr --range 3 --terrain clear"
    assert main(argv.split()) == 0
    out = capsys.readouterr().out
    assert "2              0.4444" in out
    assert "reduced       0.4444" in out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            ["odds", "waw", "--attacker", "t27", "--target", "m1", "--range", "3"],
            "unknown --attacker unit type 't27' (did you mean t72?)",
        ),
        (
            [
                "odds",
                "waw",
                "--attacker",
                "t72",
                "--target",
                "m1",
                "--range",
                "3",
                "--terrain",
                "jungle",
            ],
            "unknown --terrain 'jungle'",
        ),
        (["odds", "bp", "--attacker", "t72"], "unknown rule system 'bp'"),
        (["odds", "waw", "--attacker", "t72"], "missing --target, --range"),
        (
            ["odds", "waw", "--attacker", "t72", "--target", "m1", "--range", "40"],
            "beyond twice the printed range",
        ),
    ],
)
def test_odds_bad_input_exits_2_with_one_line(argv, message, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err
    assert err.count("\n") == 1 and "Traceback" not in err


def test_odds_of_a_rule_system_lists_its_own_options_and_refuses_unknown_ones(capsys):
    assert main(["odds", "waw-classic", "--help"]) == 0
    assert "--attacker ATTACKER" in capsys.readouterr().out
    assert main(["odds", "waw-classic", "--bogus"]) == 2
    assert "unrecognized arguments: --bogus" in capsys.readouterr().err
    assert main(["odds", "nosuch", "--list"]) == 2
    assert "rule systems with odds: bronepehota-2008, coh-2e, fow-v3, waw-classic" in (
        capsys.readouterr().err
    )


def test_fow_odds_give_e1_from_the_command_line(capsys):
    """research/fow.md §8 E1: PaK 40s at a Sherman 20" away: 4+ (3+ and long
    range), and per hit Destroyed 5/9, Bailed Out 4/9."""
    argv = "odds fow --shooter de_pak40 --target us_m4a3_sherman --range-in 20"
    assert main(argv.split()) == 0
    out = capsys.readouterr().out
    assert '2 dice needing 4+ (trained target 3+; long range (over 16") +1)' in out
    assert "destroyed  0.5556" in out and "bailed out 0.4444" in out
    assert main(["odds", "fow-v3", "--dice", "12", "--to-hit", "6"]) == 0
    assert "  2 hits  0.2961" in capsys.readouterr().out  # E2: Binomial(12, 1/6)
    assert main(["odds", "fow", "--shooter", "us_rifl", "--target", "x"]) == 2
    assert "did you mean 'us_rifle_team'?" in capsys.readouterr().err


def test_odds_says_which_weapon_and_range_band_it_used(capsys):
    argv = ["odds", "waw-classic", "--attacker", "t72", "--target", "tow_jeep"]
    assert main([*argv, "--range", "6", "--terrain", "woods"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[1].startswith("weapon: AP firepower, 4 dice hitting on 5+")
    assert "normal range (WaW 6.1.1: to-hit +0)" in lines[1]


def test_odds_weapon_option_picks_the_firepower(capsys):
    argv = ["odds", "waw-classic", "--attacker", "t72", "--target", "tow_jeep"]
    assert main([*argv, "--range", "6", "--weapon", "he"]) == 0
    out = capsys.readouterr().out
    assert "weapon: HE firepower, 2 dice" in out
    # two HE dice: at most 2 net hits, so no row for 3
    assert "\n3 " not in out.split("P(result)")[0]


def test_odds_weapon_the_target_cannot_take_exits_2(capsys):
    argv = ["odds", "waw-classic", "--attacker", "t72", "--target", "tow_jeep"]
    assert main([*argv, "--range", "6", "--weapon", "aa"]) == 2
    assert "AA fire cannot be used against" in capsys.readouterr().err
