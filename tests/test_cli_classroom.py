"""`wargame classroom`: the command line it runs, its errors, and voila.json."""

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request

import pytest

from wargame.cli import REPO, classroom_argv, main
from wargame.cli import servers as cli


class Exec(Exception):
    """Raised by the fake os.execv: the command would have been run."""


class Calls(list):
    """The (path, argv, cwd) of each exec, and the environments in ``envs``."""

    def __init__(self):
        super().__init__()
        self.envs = []


@pytest.fixture
def fake_exec(monkeypatch):
    """Record the command line instead of replacing the process.

    ``wargame classroom`` runs ``os.execve`` (the token travels in the
    environment, not on the command line); ``wargame lab`` runs ``os.execv``.
    """
    calls = Calls()

    def execv(path, argv):
        calls.append((path, list(argv), os.getcwd()))
        raise Exec

    def execve(path, argv, env):
        calls.envs.append(dict(env))
        execv(path, argv)

    monkeypatch.setattr(os, "execv", execv)
    monkeypatch.setattr(os, "execve", execve)
    monkeypatch.setattr(cli, "open_browser_later", lambda url, port: None)
    monkeypatch.chdir(os.getcwd())  # the command chdirs to the checkout
    return calls


def _free_port() -> int:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def test_classroom_runs_voila_preheated_on_loopback(fake_exec):
    port = _free_port()
    with pytest.raises(Exec):
        main(["classroom", "--port", str(port), "--no-browser"])
    [(path, argv, cwd)] = fake_exec
    assert path == sys.executable
    assert argv[:4] == [sys.executable, "-m", "voila", "notebooks/classroom.ipynb"]
    assert "--Voila.ip=127.0.0.1" in argv
    assert "--preheat_kernel=True" in argv
    assert f"--port={port}" in argv
    assert "--Voila.port_retries=0" in argv
    assert "--no-browser" in argv
    assert cwd == str(REPO)  # where voila.json is read from


def test_classroom_without_options_lets_voila_pick_port_and_open_a_browser():
    argv = classroom_argv(token=False)
    assert not any(a.startswith("--port") for a in argv)
    assert "--no-browser" not in argv
    assert "--preheat_kernel=True" in argv
    assert "--Voila.ip=127.0.0.1" in argv
    # with a token (the default) wargame opens the token URL, not Voila
    assert "--no-browser" in classroom_argv()


def test_classroom_without_port_picks_the_first_free_one_for_its_url(fake_exec, capsys):
    with pytest.raises(Exec):
        main(["classroom", "--no-browser"])
    [(_, argv, _)] = fake_exec
    [port] = [int(a.split("=")[1]) for a in argv if a.startswith("--port=")]
    assert cli.CLASSROOM_PORT <= port <= cli.CLASSROOM_PORT + cli.CLASSROOM_PORT_TRIES
    assert f"http://127.0.0.1:{port}/?token=" in capsys.readouterr().out


def test_classroom_busy_port_exits_2_with_one_line(fake_exec, capsys):
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        assert main(["classroom", "--port", str(port), "--no-browser"]) == 2
    err = capsys.readouterr().err
    assert f"port {port} on 127.0.0.1 is busy" in err
    assert err.count("\n") == 1
    assert "Traceback" not in err
    assert not fake_exec


@pytest.mark.parametrize("port", ["0", "70000", "-1"])
def test_classroom_port_out_of_range_exits_2(fake_exec, capsys, port):
    assert main(["classroom", "--port", port]) == 2
    err = capsys.readouterr().err
    assert "--port must be between 1 and 65535" in err
    assert err.count("\n") == 1
    assert not fake_exec


def test_classroom_port_not_a_number_is_an_argparse_error(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["classroom", "--port", "eighty"])
    assert exc.value.code == 2
    assert "invalid int value: 'eighty'" in capsys.readouterr().err


def test_classroom_missing_notebook_exits_2(fake_exec, capsys, monkeypatch, tmp_path):
    monkeypatch.setattr(cli, "REPO", tmp_path)
    assert main(["classroom", "--no-browser"]) == 2
    err = capsys.readouterr().err
    assert "no notebook 'notebooks/classroom.ipynb'" in err
    assert "make_classroom_notebook.py" in err
    assert err.count("\n") == 1
    assert not fake_exec


def test_classroom_without_voila_exits_2(fake_exec, capsys, monkeypatch):
    monkeypatch.setattr(cli, "_voila_installed", lambda: False)
    assert main(["classroom"]) == 2
    err = capsys.readouterr().err
    assert "Voila is not installed: pip install 'wargame[lab]'" in err
    assert err.count("\n") == 1
    assert not fake_exec


def test_voila_json_preheats_only_the_classroom_app():
    conf = json.loads((REPO / "voila.json").read_text())
    assert conf["VoilaConfiguration"]["preheat_kernel"] is True
    assert conf["Voila"]["ip"] == "127.0.0.1"
    pools = conf["VoilaKernelManager"]["kernel_pools_config"]
    assert pools["default"]["pool_size"] == 0  # other notebooks: no idle kernels
    # Voila names the notebook relative to its root: the notebook's folder when
    # one notebook is served, the checkout when a folder is
    assert pools["classroom.ipynb"]["pool_size"] >= 1
    assert pools["notebooks/classroom.ipynb"]["pool_size"] >= 1


def test_voila_started_in_the_checkout_reads_voila_json():
    pytest.importorskip("voila")
    code = (
        "from voila.app import Voila\n"
        "a = Voila()\n"
        "a.initialize(['notebooks/classroom.ipynb'])\n"
        "print(a.voila_configuration.preheat_kernel, a.ip)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    ).stdout.split()
    assert out == ["True", "127.0.0.1"]


@pytest.mark.slow
def test_wargame_classroom_serves_the_app_on_loopback_with_a_class_pool(tmp_path):
    """The real server: it listens on loopback, serves Voila's files, and with
    ``--class-size 2`` heats two kernels (Voila's own log says so)."""
    pytest.importorskip("voila")
    port = _free_port()
    env = dict(os.environ, JUPYTER_RUNTIME_DIR=str(tmp_path / "rt"))
    cmd = [sys.executable, "-m", "wargame.cli", "classroom", "--no-browser"]
    log_path = tmp_path / "classroom.log"
    with open(log_path, "w") as log:
        proc = subprocess.Popen(
            [*cmd, "--port", str(port), "--class-size", "2"],
            cwd=tmp_path,  # the command finds the checkout itself
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
        )
    try:
        deadline = time.time() + 90
        while time.time() < deadline:
            assert proc.poll() is None, log_path.read_text()
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
                break
            except OSError:
                time.sleep(0.25)
        else:
            raise AssertionError("wargame classroom never listened on its port")
        # the page itself waits for the pre-heated kernel: ask for a static file
        url = f"http://127.0.0.1:{port}/voila/static/voila.js"
        with urllib.request.urlopen(url, timeout=30) as r:
            assert r.status == 200
        filled = "Kernel pool of classroom.ipynb is filled with 2 kernel(s)"
        deadline = time.time() + 240
        while filled not in log_path.read_text():
            assert time.time() < deadline, log_path.read_text()[-3000:]
            assert proc.poll() is None, log_path.read_text()[-3000:]
            time.sleep(0.5)
        assert "pre-heating 2 kernels" in log_path.read_text()
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(5)


def test_classroom_class_size_heats_one_kernel_per_visitor(fake_exec, capsys):
    with pytest.raises(Exec):
        main(["classroom", "--no-browser", "--class-size", "25"])
    [(_, argv, _)] = fake_exec
    pools_arg = "--VoilaKernelManager.kernel_pools_config="
    [pools] = [a for a in argv if a.startswith(pools_arg)]
    conf = json.loads(pools.split("=", 1)[1])
    # both names Voila may give the notebook, and no idle kernels for others
    assert conf["notebooks/classroom.ipynb"] == {"pool_size": 25}
    assert conf["classroom.ipynb"] == {"pool_size": 25}
    assert conf["default"] == {"pool_size": 0}
    assert f"--VoilaKernelManager.fill_delay={cli.CLASS_REFILL_DELAY_S}" in argv
    assert "pre-heating 25 kernels" in capsys.readouterr().out


def test_classroom_default_class_size_keeps_voila_json():
    assert not any("kernel_pools_config" in a for a in classroom_argv(token=False))


@pytest.mark.parametrize("size", ["0", "-3", "61"])
def test_classroom_class_size_out_of_range_exits_2(fake_exec, capsys, size):
    assert main(["classroom", "--class-size", size]) == 2
    err = capsys.readouterr().err
    assert f"--class-size must be between 1 and 60, not {size}" in err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert not fake_exec
