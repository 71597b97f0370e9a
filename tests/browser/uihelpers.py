"""Helpers for the real-browser tests: Chromium flags, free port, start/stop servers.

Adapted from shared/recipes/browser-tests: Debian's chromium driven by Playwright,
servers on 127.0.0.1 only, every non-loopback request aborted.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
ARTIFACTS = REPO / "test-artifacts"
VENV_BIN = os.path.dirname(sys.executable)
CHROMIUM_CANDIDATES = ("/usr/lib/chromium/chromium", "/usr/bin/chromium")
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
LOOPBACK_PREFIXES = ("http://127.0.0.1", "ws://127.0.0.1", "data:", "blob:", "about:")
#: Every URL that does not go to loopback.  Routing only these (a pattern the
#: browser matches itself) leaves loopback requests alone: routing all of them
#: through a Python handler delays each of the page's ~150 requests.
NON_LOOPBACK = re.compile(r"^(?!(?:https?|wss?)://127\.0\.0\.1[:/]|data:|blob:|about:)")


def chromium_path() -> str | None:
    """Debian's chromium binary, or None."""
    env = os.environ.get("CHROMIUM")
    if env and os.path.exists(env):
        return env
    for c in CHROMIUM_CANDIDATES:
        if os.path.exists(c):
            return c
    return shutil.which("chromium")


def free_port() -> int:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = int(s.getsockname()[1])
    s.close()
    return port


def start_server(
    argv: list[str],
    port: int,
    log_path: Path,
    timeout: float = 90,
    cwd: Path | str = REPO,
    env: dict[str, str] | None = None,
) -> Any:
    """Start a server (bound to 127.0.0.1:port) in its own process group and wait.

    It runs in ``cwd`` (the checkout by default, where Voila reads voila.json),
    with ``env`` (default: this process's environment) and private Jupyter dirs.
    """
    tmp = tempfile.mkdtemp(prefix="wargame-uitest-")
    env = dict(
        os.environ if env is None else env,
        PATH=VENV_BIN + os.pathsep + os.environ.get("PATH", ""),
        JUPYTER_RUNTIME_DIR=os.path.join(tmp, "runtime"),
        JUPYTERLAB_SETTINGS_DIR=os.path.join(tmp, "lab-settings"),
        JUPYTERLAB_WORKSPACES_DIR=os.path.join(tmp, "lab-workspaces"),
    )
    nd = os.path.join(
        env["JUPYTERLAB_SETTINGS_DIR"], "@jupyterlab", "apputils-extension"
    )
    os.makedirs(nd, exist_ok=True)
    with open(os.path.join(nd, "notification.jupyterlab-settings"), "w") as f:
        f.write('{"fetchNews": "false"}')
    dd = os.path.join(
        env["JUPYTERLAB_SETTINGS_DIR"], "@jupyterlab", "docmanager-extension"
    )
    os.makedirs(dd, exist_ok=True)
    with open(os.path.join(dd, "plugin.jupyterlab-settings"), "w") as f:
        f.write('{"autosave": false}')
    log = open(log_path, "w")  # noqa: SIM115 - closed with the process
    proc = subprocess.Popen(
        argv,
        cwd=cwd,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
        start_new_session=True,
    )
    t0 = time.time()
    while True:
        if proc.poll() is not None:
            raise RuntimeError(f"{argv[0]} exited rc={proc.returncode}; see {log_path}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            break
        except OSError:
            if time.time() - t0 > timeout:
                stop_server(proc)
                raise RuntimeError(
                    f"{argv[0]} not listening after {timeout}s"
                ) from None
            time.sleep(0.2)
    return proc


def stop_server(proc: Any, grace: float = 20) -> None:
    """SIGTERM the server; SIGKILL its process group if it does not stop."""
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(grace)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)
    if proc.poll() is None:
        proc.wait(5)


def voila_argv(port: int, notebook: str, *, token: bool = False) -> list[str]:
    """Voila on 127.0.0.1:port; ``token``: ask for ``$JUPYTER_TOKEN``, as
    ``wargame classroom`` does (see ``wargame.cli.classroom_argv``)."""
    return [
        os.path.join(VENV_BIN, "voila"),
        notebook,
        "--no-browser",
        f"--port={port}",
        "--Voila.ip=127.0.0.1",
        "--Voila.port_retries=0",
        "--VoilaConfiguration.show_tracebacks=True",
        *(["--Voila.auto_token=True"] if token else []),
    ]


def serve_notebook(folder: Path, name: str, source: str) -> tuple[Any, str]:
    """Write a one-cell notebook ``folder/name.ipynb`` and serve it with Voila
    on a free loopback port: ``(process, url)`` (stop it with
    :func:`stop_server`)."""
    import nbformat

    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(source)]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3"}
    nbformat.write(nb, folder / f"{name}.ipynb")
    port = free_port()
    argv = voila_argv(port, str(folder / f"{name}.ipynb"))
    proc = start_server(argv, port, ARTIFACTS / f"voila-{name}.log", cwd=REPO)
    return proc, f"http://127.0.0.1:{port}/"


def lab_argv(port: int) -> list[str]:
    return [
        os.path.join(VENV_BIN, "jupyter"),
        "lab",
        "--no-browser",
        f"--port={port}",
        "--ServerApp.ip=127.0.0.1",
        "--ServerApp.port_retries=0",
        "--IdentityProvider.token=",
        "--ServerApp.password=",
        "--allow-root",
        f"--ServerApp.root_dir={REPO}",
        "--LabApp.news_url=None",
        "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
    ]


def block_non_loopback(page: Any, blocked: list[str]) -> None:
    """Abort every request that does not go to loopback (and list it)."""

    def handler(route: Any) -> None:
        url = route.request.url
        if url.startswith(LOOPBACK_PREFIXES):  # the pattern should not match these
            route.continue_()
        else:
            blocked.append(url)
            route.abort()

    page.route(NON_LOOPBACK, handler)


def _group_cpu_s(pgid: int) -> float:
    """CPU seconds used so far by the live processes of a process group (Linux)."""
    total = 0.0
    tick = os.sysconf("SC_CLK_TCK")
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == pgid:  # field 5 of stat: the process group
            total += (int(fields[11]) + int(fields[12])) / tick  # utime + stime
    return total


def wait_idle(proc: Any, quiet: float = 1.0, timeout: float = 120) -> float:
    """Wait until a server started by :func:`start_server` (and its kernels) idles.

    Idle: less than 5 % of a core used over ``quiet`` seconds.  Returns the
    seconds waited (``timeout`` at most).
    """
    t0 = time.time()
    last = _group_cpu_s(proc.pid)
    while time.time() - t0 < timeout:
        time.sleep(quiet)
        now = _group_cpu_s(proc.pid)
        if now - last < 0.05 * quiet:
            break
        last = now
    return time.time() - t0


def two_frames(page: Any) -> None:
    page.evaluate(
        "() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))"
    )
