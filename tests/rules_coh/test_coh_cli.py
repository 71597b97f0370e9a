"""`wargame validate`, `wargame run` and `wargame odds coh` on coh-2e."""

from __future__ import annotations

from wargame.cli import main
from wargame.rules.coh import fire_odds


def test_validate_and_run_a_coh_scenario(capsys) -> None:  # type: ignore[no-untyped-def]
    assert main(["validate", "coh_partisans"]) == 0
    assert "coh-2e" in capsys.readouterr().out
    assert main(["run", "coh_partisans", "--seed", "2"]) == 0
    out = capsys.readouterr().out
    assert "actions" in out and "Soviet partisans" in out


def test_odds_coh_prints_the_exact_table(capsys) -> None:  # type: ignore[no-untyped-def]
    args = [
        "odds",
        "coh",
        "--attacker",
        "de_hmg34",
        "--target",
        "su_rifles_41",
        "--range",
        "4",
        "--terrain",
        "heavy_woods",
    ]
    assert main(args) == 0
    out = capsys.readouterr().out
    for k, p in fire_odds(5, 14).items():  # the seed's hidden-rifle numbers
        assert f"{k:10s} {float(p):.4f}" in out


def test_odds_coh_refuses_bad_options_in_one_line(capsys) -> None:  # type: ignore[no-untyped-def]
    assert main(["odds", "coh", "--attacker", "de_hmg", "--target", "x"]) == 2
    err = capsys.readouterr().err
    assert "did you mean 'de_hmg34'" in err and "Traceback" not in err
    assert main(["odds", "coh", "--fp", "5"]) == 2
    assert "--dv" in capsys.readouterr().err
    assert main(["odds", "coh", "--fp", "5", "--dv", "14", "--caps", "3"]) == 2
