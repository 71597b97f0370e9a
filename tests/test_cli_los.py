"""`wargame los`: line of sight on the command line, and its errors."""

from wargame.cli import main


def test_los_from_the_erpeler_ley_to_remagen(capsys):
    assert main(["los", "rhine-remagen", "Erpeler Ley", "Remagen"]) == 0
    out = capsys.readouterr().out
    assert "visible: yes" in out
    assert "distance: " in out


def test_los_by_hex_labels_and_lonlat_agree(capsys):
    assert main(["los", "rhine-remagen", "Erpeler Ley", "Remagen"]) == 0
    by_name = capsys.readouterr().out.splitlines()[1]
    assert main(["los", "rhine-remagen", "7.2458,50.5824", "7.2287,50.5792"]) == 0
    by_lonlat = capsys.readouterr().out.splitlines()[1]
    assert by_name == by_lonlat == "visible: yes"


def test_los_bad_point_exits_2_with_one_line(capsys):
    assert main(["los", "rhine-remagen", "ZZ999", "Remagen"]) == 2
    err = capsys.readouterr().err
    assert "observer 'ZZ999' is neither a hex label" in err
    assert err.count("\n") == 1


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
