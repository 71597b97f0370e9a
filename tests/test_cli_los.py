"""`wargame los`: line of sight on the command line, told in hexes, places and
metres, and its errors."""

import re

import pandas as pd

from wargame.cli import main


def test_los_from_the_erpeler_ley_to_remagen_is_one_readable_verdict(capsys):
    assert main(["los", "rhine-remagen", "Erpeler Ley", "Remagen"]) == 0
    lines = capsys.readouterr().out.splitlines()
    # one verdict, in place names, hex labels and metres, never UTM pairs
    assert lines[0] == "Erpeler Ley [BY85] to Remagen [BP87], 1,228 m: visible"
    assert sum("visible" in line for line in lines) == 1
    assert not re.search(r"\d{6}", "\n".join(lines))  # no UTM metres
    assert "Blocker(" not in "\n".join(lines)


def test_los_takes_the_only_map_by_default(capsys):
    assert main(["los", "Erpeler Ley", "Remagen"]) == 0
    default = capsys.readouterr().out
    assert main(["los", "rhine-remagen", "Erpeler Ley", "Remagen"]) == 0
    assert capsys.readouterr().out == default


def test_los_by_names_and_by_lonlat_agree(capsys):
    assert main(["los", "Erpeler Ley", "Remagen"]) == 0
    by_name = capsys.readouterr().out.splitlines()[0]
    assert main(["los", "7.2458,50.5824", "7.2287,50.5792"]) == 0
    by_lonlat = capsys.readouterr().out.splitlines()[0]
    assert by_name.endswith(": visible") and by_lonlat.endswith(": visible")


def test_los_blocked_says_what_blocks_where(capsys):
    # Remagen's own town hex does not block (hex rule); the next town hex does
    assert main(["los", "Remagen", "Linz"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].endswith(": not visible")
    assert out[1] == "first blocked 80 m from the observer by town in hex BQ88"


def test_los_says_that_the_hex_size_changes_which_obstacles_count(capsys):
    assert main(["los", "Remagen", "Linz", "--hex-size", "50"]) == 0
    out = capsys.readouterr().out
    assert "hex rule: on 50 m hexes" in out and "--hex-size" in out
    assert main(["los", "Remagen", "Linz", "--no-obstacles"]) == 0
    assert "hex rule" not in capsys.readouterr().out  # bare ground: no obstacles


def test_los_writes_the_profile_csv_and_chart(capsys, tmp_path):
    csv, png = tmp_path / "p.csv", tmp_path / "los.png"
    args = ["los", "Erpeler Ley", "Remagen", "--profile-csv", str(csv)]
    assert main([*args, "--plot", str(png)]) == 0
    prof = pd.read_csv(csv)
    assert {"distance_m", "ground_m", "sight_line_m"} <= set(prof.columns)
    assert prof["distance_m"].iloc[-1] > 1200  # out to the target, 1,228 m away
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_los_bad_plot_suffix_exits_2_and_writes_nothing(capsys, tmp_path):
    bad = tmp_path / "los.txt"
    assert main(["los", "Erpeler Ley", "Remagen", "--plot", str(bad)]) == 2
    assert "--plot" in capsys.readouterr().err
    assert not bad.exists()


def test_los_bad_point_exits_2_with_one_line(capsys):
    assert main(["los", "rhine-remagen", "ZZ999", "Remagen"]) == 2
    err = capsys.readouterr().err
    assert "observer 'ZZ999' is neither a hex label" in err
    assert err.count("\n") == 1


def test_los_wrong_number_of_words_exits_2(capsys):
    assert main(["los", "Remagen"]) == 2
    assert "give an observer and a target" in capsys.readouterr().err


def test_los_unknown_map_exits_2(capsys):
    assert main(["los", "atlantis", "A1", "B2"]) == 2
    assert (
        "unknown map 'atlantis'; available maps: rhine-remagen"
        in capsys.readouterr().err
    )


def test_los_negative_height_exits_2(capsys):
    code = main(
        ["los", "rhine-remagen", "Erpeler Ley", "Remagen", "--observer-height", "-3"]
    )
    assert code == 2
    assert "observer_height_m" in capsys.readouterr().err
