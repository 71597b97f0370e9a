"""The ``wargame`` command as a newcomer meets it: help, version, the scenario
list, shared defaults of run and batch, closed pipes, and the CSV log."""

import json
import subprocess
import sys

import pandas as pd
import pytest

from wargame.cli import REPO, main, version
from wargame.engine import available_scenarios, load_scenario


def test_wargame_alone_prints_help_not_an_error(capsys):
    assert main([]) == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: wargame")
    for command in ("scenarios", "run", "batch", "los", "odds", "lab", "classroom"):
        assert f"    {command}" in out


def test_version(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["--version"])
    assert exc.value.code == 0
    assert capsys.readouterr().out.strip() == f"wargame {version()}"


def test_scenarios_lists_every_scenario_with_its_rule_system_and_turns(capsys):
    assert main(["scenarios"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split()[:3] == ["scenario", "rule", "system"]
    names = available_scenarios()
    listed = {line.split()[0]: line for line in lines[1 : 1 + len(names)]}
    assert sorted(listed) == names
    s = load_scenario("coh_partisans")
    row = listed["coh_partisans"].split()
    assert row[1:3] == [s.ruleset, str(s.turns)]
    assert s.title in listed["coh_partisans"]
    assert f"{len(names)} scenario(s)" in lines[-1]


def test_scenarios_by_rule_system(capsys):
    assert main(["scenarios", "--ruleset", "coh"]) == 0
    rows = [ln for ln in capsys.readouterr().out.splitlines()[1:] if ln.strip()][:-1]
    assert rows and all(r.split()[1] == "coh-2e" for r in rows)
    assert main(["scenarios", "--ruleset", "chess"]) == 2
    assert "no scenario of rule system 'chess'" in capsys.readouterr().err


def test_run_and_batch_share_the_default_policies(capsys):
    assert main(["run", "test_remagen", "--turns", "1"]) == 0
    run_line = next(
        ln for ln in capsys.readouterr().out.splitlines() if ln.startswith("policies:")
    )
    batch = ["batch", "test_remagen", "--games", "1", "-q", "--processes", "1"]
    assert main(batch) == 0
    batch_line = next(
        ln for ln in capsys.readouterr().out.splitlines() if ln.startswith("policies:")
    )
    assert run_line == batch_line == "policies: NATO = doctrine, Warsaw Pact = doctrine"


def test_batch_names_a_bad_policy(capsys):
    code = main(["batch", "test_remagen", "--games", "1", "--policy", "nato=clever"])
    assert code == 2
    assert "unknown policy 'clever'" in capsys.readouterr().err


@pytest.mark.parametrize(
    "argv",
    [
        ["odds", "waw-classic", "--list"],
        ["run", "test_remagen", "--turns", "1"],
        ["scenarios"],
    ],
)
def test_a_closed_pipe_ends_quietly(argv):
    # ``wargame ... | head -1``: here the reader is gone before the first write
    proc = subprocess.Popen(
        [sys.executable, "-m", "wargame.cli", *argv],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        bufsize=0,
    )
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()
    err = proc.stderr.read().decode()
    proc.wait(120)
    assert err == ""  # no traceback, no "error: Broken pipe"
    assert proc.returncode in (0, 141)


def test_run_csv_log_has_dice_as_json_lists(tmp_path, capsys):
    out = tmp_path / "log.csv"
    assert main(["run", "test_remagen", "--turns", "1", "--out", str(out)]) == 0
    log = pd.read_csv(out, keep_default_na=False)
    rolled = log[log["dice"] != ""]
    assert len(rolled) > 0
    dice = rolled["dice"].map(json.loads)
    assert all(isinstance(d, list) and all(1 <= v <= 20 for v in d) for d in dice)
