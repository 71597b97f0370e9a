"""The README's run command starts JupyterLab on the quick-start notebook (loopback)."""

import contextlib
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request

import pytest

from wargame.cli import REPO, lab_argv, main


def _free_port() -> int:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


@pytest.mark.slow
def test_wargame_lab_serves_the_quickstart_notebook_on_loopback(tmp_path):
    pytest.importorskip("jupyterlab")
    port = _free_port()
    env = {
        "JUPYTER_RUNTIME_DIR": str(tmp_path / "rt"),
        "HOME": str(tmp_path),
        "PATH": "/usr/bin:/bin",
    }
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "wargame.cli",
            "lab",
            "--no-browser",
            "--port",
            str(port),
        ],
        cwd=REPO,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    try:
        url = None
        deadline = time.time() + 90
        assert proc.stdout is not None
        while time.time() < deadline:
            line = proc.stdout.readline()
            if not line and proc.poll() is not None:
                break
            m = re.search(r"(http://127\.0\.0\.1:\d+/lab\S*token=(\w+))", line)
            if m:
                url, token = m.group(1), m.group(2)
                break
        assert url, "JupyterLab never printed its URL"
        assert f"127.0.0.1:{port}" in url
        # the file browser's root is the checkout: notebooks, scenarios and docs
        api = f"http://127.0.0.1:{port}/api/contents/notebooks/01_quickstart.ipynb"
        # the URL is printed a moment before the socket accepts: retry briefly
        for _ in range(60):
            try:
                with urllib.request.urlopen(f"{api}?token={token}&content=0") as r:
                    assert r.status == 200
                    break
            except ConnectionRefusedError:
                time.sleep(0.25)
            except urllib.error.URLError as exc:
                if not isinstance(exc.reason, ConnectionRefusedError):
                    raise
                time.sleep(0.25)
        else:
            raise AssertionError("JupyterLab never answered on its port")
    finally:
        # the whole process group: JupyterLab and any kernel it started
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(5)


def test_wargame_lab_opens_the_quickstart_with_the_checkout_as_root():
    cmd = lab_argv(no_browser=True)
    assert f"--ServerApp.root_dir={REPO}" in cmd
    # the quick start opens instead of the Launcher
    assert "--ServerApp.default_url=/lab/tree/notebooks/01_quickstart.ipynb" in cmd
    assert "--ServerApp.ip=127.0.0.1" in cmd
    other = lab_argv("notebooks/classroom.ipynb")
    assert "--ServerApp.default_url=/lab/tree/notebooks/classroom.ipynb" in other


def test_wargame_lab_bad_port_exits_2(capsys):
    assert main(["lab", "--port", "70000", "--no-browser"]) == 2
    assert "--port must be between 1 and 65535" in capsys.readouterr().err


def test_wargame_lab_with_a_missing_notebook_exits_2(capsys):
    assert main(["lab", "notebooks/nope.ipynb", "--no-browser"]) == 2
    assert "no notebook 'notebooks/nope.ipynb'" in capsys.readouterr().err
