"""Issue #16 item 9: the classroom server asks for a token, as JupyterLab does.

``wargame classroom`` makes a fresh random token, hands it to Voila through the
environment (never the command line, which ``ps`` shows to every local user) and
prints the token URL; ``--no-token`` serves without one, with a warning.  The
real-server tests run Voila on 127.0.0.1 only.
"""

import contextlib
import http.client
import os
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from wargame.cli import NO_TOKEN_WARNING, REPO, TOKEN_ENV, main
from wargame.cli import servers as cli

NO_KERNEL = "/api/kernels/00000000-0000-0000-0000-000000000000"
URL_LINE = re.compile(r"^wargame classroom: open (http://127\.0\.0\.1:(\d+)/\S*)$")


class Exec(Exception):
    """Raised by the fake exec: the command would have been run."""


@pytest.fixture
def fake_exec(monkeypatch):
    """Record (argv, env) of the exec and the URL handed to the browser helper."""
    calls = {"exec": [], "browser": []}

    def execve(path, argv, env):
        calls["exec"].append((list(argv), dict(env)))
        raise Exec

    def execv(path, argv):
        calls["exec"].append((list(argv), dict(os.environ)))
        raise Exec

    monkeypatch.setattr(os, "execve", execve)
    monkeypatch.setattr(os, "execv", execv)
    monkeypatch.setattr(
        cli, "open_browser_later", lambda url, port: calls["browser"].append(url)
    )
    monkeypatch.chdir(os.getcwd())  # the commands chdir to the checkout
    return calls


def _free_port() -> int:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = int(s.getsockname()[1])
    s.close()
    return port


def _start(port, *, no_token=False):
    with pytest.raises(Exec):
        main(
            [
                "classroom",
                "--no-browser",
                "--port",
                str(port),
                *(["--no-token"] if no_token else []),
            ]
        )


# --------------------------------------------------------------------------- #
# the command line and environment (no server)                                #
# --------------------------------------------------------------------------- #


def test_classroom_serves_with_a_fresh_token_printed_in_the_url(fake_exec, capsys):
    port = _free_port()
    _start(port)
    [(argv, env)] = fake_exec["exec"]
    token = env[TOKEN_ENV]
    assert re.fullmatch(r"[A-Za-z0-9_-]{43,}", token)  # secrets.token_urlsafe(32)
    out, err = capsys.readouterr()
    assert out == f"wargame classroom: open http://127.0.0.1:{port}/?token={token}\n"
    assert err == ""
    assert "--Voila.auto_token=True" in argv  # Voila reads $JUPYTER_TOKEN
    # the token is never on the command line (``ps`` shows it to everybody)
    assert not any(token in a for a in argv)
    assert not any(
        a.startswith(("--token", "--Voila.token", "--IdentityProvider.token"))
        for a in argv
    )


def test_classroom_token_is_new_at_each_start(fake_exec, monkeypatch):
    monkeypatch.setenv(TOKEN_ENV, "a-stale-token-from-the-shell")
    _start(_free_port())
    _start(_free_port())
    (_, env1), (_, env2) = fake_exec["exec"]
    assert env1[TOKEN_ENV] != env2[TOKEN_ENV]
    assert "a-stale-token-from-the-shell" not in (env1[TOKEN_ENV], env2[TOKEN_ENV])


def test_classroom_opens_the_token_url_itself_not_voila(fake_exec, capsys):
    port = _free_port()
    with pytest.raises(Exec):
        main(["classroom", "--port", str(port)])
    [(argv, env)] = fake_exec["exec"]
    # Voila would open its URL without the token: a login page
    assert "--no-browser" in argv
    assert fake_exec["browser"] == [f"http://127.0.0.1:{port}/?token={env[TOKEN_ENV]}"]


def test_classroom_no_token_warns_on_one_line_and_asks_for_none(
    fake_exec, capsys, monkeypatch
):
    monkeypatch.setenv(TOKEN_ENV, "a-stale-token-from-the-shell")
    port = _free_port()
    _start(port, no_token=True)
    [(argv, env)] = fake_exec["exec"]
    out, err = capsys.readouterr()
    assert err == NO_TOKEN_WARNING + "\n"
    assert err.startswith("classroom: warning: --no-token: ")
    assert "trust" in err
    assert out == f"wargame classroom: open http://127.0.0.1:{port}/\n"
    assert TOKEN_ENV not in env and "JUPYTER_TOKEN_FILE" not in env
    assert "--Voila.auto_token=True" not in argv


def test_lab_still_uses_jupyterlabs_own_token(fake_exec):
    with pytest.raises(Exec):
        main(["lab", "--no-browser", "--port", str(_free_port())])
    [(argv, _)] = fake_exec["exec"]
    assert argv[1:3] == ["-m", "jupyterlab"]
    # nothing turns JupyterLab's generated token off
    assert not any("token" in a.lower() or "password" in a.lower() for a in argv)


# --------------------------------------------------------------------------- #
# a real server on 127.0.0.1                                                  #
# --------------------------------------------------------------------------- #


@contextlib.contextmanager
def _classroom(tmp_path: Path, *extra: str):
    """``wargame classroom --no-browser`` on a free port; yields (url, port)."""
    pytest.importorskip("voila")
    port = _free_port()
    log = tmp_path / "classroom.log"
    env = dict(os.environ, JUPYTER_RUNTIME_DIR=str(tmp_path / "rt"))
    cmd = [sys.executable, "-m", "wargame.cli", "classroom", "--no-browser"]
    with open(log, "w") as out:
        proc = subprocess.Popen(
            [*cmd, "--port", str(port), *extra],
            cwd=tmp_path,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
    try:
        deadline = time.time() + 120
        while True:
            assert proc.poll() is None, log.read_text()
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
                break
            except OSError:
                assert time.time() < deadline, "the classroom never listened"
                time.sleep(0.25)
        urls = [
            m for line in log.read_text().splitlines() if (m := URL_LINE.match(line))
        ]
        assert urls, log.read_text()
        assert int(urls[0].group(2)) == port
        yield urls[0].group(1), port
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(5)


def _get(port: int, path: str, timeout: float = 30) -> tuple[int, str]:
    """(status, Location) of a GET on 127.0.0.1, redirects not followed."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.request("GET", path)
        r = conn.getresponse()
        r.read()
        return r.status, r.getheader("Location") or ""
    finally:
        conn.close()


@pytest.mark.slow
def test_classroom_server_refuses_without_the_token_and_serves_with_it(tmp_path):
    with _classroom(tmp_path) as (url, port):
        token = url.split("?token=", 1)[1]
        # no token: the page sends you to the login form, the API says 403
        assert _get(port, "/") == (302, "/login?next=%2F")
        assert _get(port, NO_KERNEL)[0] == 403
        assert _get(port, f"{NO_KERNEL}?token=not-{token}")[0] == 403
        # the token: let in (no such kernel: 404, not 403), and the page is served
        assert _get(port, f"{NO_KERNEL}?token={token}")[0] == 404
        assert _get(port, f"/?token={token}", timeout=180)[0] == 200


@pytest.mark.slow
def test_classroom_server_with_no_token_serves_without_one(tmp_path):
    with _classroom(tmp_path, "--no-token") as (url, port):
        assert url == f"http://127.0.0.1:{port}/"
        assert _get(port, NO_KERNEL)[0] == 404  # let in without a token
        assert _get(port, "/", timeout=180)[0] == 200
    assert NO_TOKEN_WARNING in (tmp_path / "classroom.log").read_text()


def test_the_checkout_holds_the_classroom_notebook():
    # the real-server tests above serve it; a missing one is a clear failure here
    assert (REPO / cli.CLASSROOM_NOTEBOOK).is_file()


def test_browser_helper_opens_a_private_redirect_file_with_the_token(
    tmp_path, monkeypatch
):
    """The token URL reaches the browser through a 0600 file, not its arguments."""
    seen = tmp_path / "seen.txt"
    fake_browser = tmp_path / "browser.py"
    fake_browser.write_text(
        "import os, stat, sys\n"
        "path = sys.argv[1].removeprefix('file://')\n"
        "mode = stat.S_IMODE(os.stat(path).st_mode)\n"
        f"open({str(seen)!r}, 'w').write(f'{{mode:o}} {{sys.argv[1]}}\\n' "
        "+ open(path).read())\n"
    )
    monkeypatch.setenv("BROWSER", f"{sys.executable} {fake_browser} %s")
    url = "http://127.0.0.1:1/?token=abc&x=<y>"
    with socket.socket() as server:  # the "classroom": only its port is needed
        server.bind(("127.0.0.1", 0))
        server.listen()
        helper = cli.open_browser_later(url, server.getsockname()[1])
        try:
            deadline = time.time() + 60
            while not (seen.exists() and "refresh" in seen.read_text()):
                assert time.time() < deadline, "the browser was never opened"
                assert helper.poll() is None
                time.sleep(0.1)
        finally:
            helper.terminate()
            helper.wait(10)
    first, page = seen.read_text().split("\n", 1)
    mode, arg = first.split()
    assert mode == "600"
    assert arg.startswith("file://") and "token" not in arg
    assert page == (
        '<meta http-equiv="refresh" content="0;url='
        'http://127.0.0.1:1/?token=abc&amp;x=&lt;y&gt;">'
    )
    assert not Path(arg.removeprefix("file://")).exists()  # removed on SIGTERM
