"""``wargame lab`` and ``wargame classroom``: JupyterLab and the Voila classroom
on 127.0.0.1."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

from ._common import REPO, UsageError

#: The notebook ``wargame lab`` opens when none is named.
QUICKSTART = "notebooks/01_quickstart.ipynb"


def lab_argv(
    notebook: str | None = None, port: int | None = None, *, no_browser: bool = False
) -> list[str]:
    """The command line ``wargame lab`` runs (from the checkout's root).

    JupyterLab on 127.0.0.1 whose file browser starts at the checkout's root
    (notebooks, scenarios and docs in reach) and which opens ``notebook`` (the
    quick start by default) instead of the Launcher. A notebook outside the
    checkout is opened the plain way (its folder becomes the root).

    Examples:
        >>> cmd = lab_argv(port=8888, no_browser=True)
        >>> cmd[6:9]
        ['--ServerApp.port=8888', '--ServerApp.port_retries=0', '--no-browser']
        >>> cmd[5]
        '--ServerApp.default_url=/lab/tree/notebooks/01_quickstart.ipynb'
    """
    nb = notebook or QUICKSTART
    cmd = [sys.executable, "-m", "jupyterlab", "--ServerApp.ip=127.0.0.1"]
    path = Path(nb) if Path(nb).is_absolute() else (REPO / nb)
    try:
        rel = path.resolve().relative_to(REPO.resolve())
    except ValueError:  # outside the checkout: let JupyterLab root it there
        cmd.insert(3, str(path))
    else:
        cmd += [
            f"--ServerApp.root_dir={REPO}",
            f"--ServerApp.default_url=/lab/tree/{rel.as_posix()}",
        ]
    if port:
        cmd += [f"--ServerApp.port={port}", "--ServerApp.port_retries=0"]
    if no_browser:
        cmd.append("--no-browser")
    if os.geteuid() == 0:
        cmd.append("--allow-root")
    return cmd


def cmd_lab(args: argparse.Namespace) -> int:
    nb = args.notebook or QUICKSTART
    if not (REPO / nb).is_file() and not Path(nb).is_file():
        raise UsageError(
            f"no notebook {nb!r} (the notebooks are in {REPO / 'notebooks'})"
        )
    if not (REPO / nb).is_file():
        nb = str(Path(nb).resolve())
    if args.port is not None and not 1 <= args.port <= 65535:
        raise UsageError(f"lab: --port must be between 1 and 65535, not {args.port}")
    cmd = lab_argv(nb, args.port, no_browser=args.no_browser)
    os.chdir(REPO)
    # replace this process so that signals (Ctrl-C, a test's SIGTERM) reach Jupyter
    os.execv(sys.executable, cmd)
    return 0  # pragma: no cover - execv does not return


#: The classroom app, relative to the checkout (served by ``wargame classroom``).
CLASSROOM_NOTEBOOK = "notebooks/classroom.ipynb"


def _port_is_free(port: int) -> bool:
    """Whether a server could listen on 127.0.0.1:port (as Voila binds it)."""
    import socket

    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def _voila_installed() -> bool:
    import importlib.util

    return importlib.util.find_spec("voila") is not None


#: The port ``wargame classroom`` tries first, and how many after it (Voila's own
#: default and ``port_retries``).
CLASSROOM_PORT, CLASSROOM_PORT_TRIES = 8866, 50
#: Environment variable through which the classroom token reaches Voila: Jupyter
#: reads it, and unlike a command-line argument it is not shown to other users by
#: ``ps`` (``/proc/<pid>/environ`` is readable by the owner only).
TOKEN_ENV = "JUPYTER_TOKEN"
NO_TOKEN_WARNING = (
    "classroom: warning: --no-token: the server asks for no token, so any local "
    "user of this machine can open the page and drive the class's game; use it "
    "only on a machine you trust"
)


#: The most visitors ``wargame classroom --class-size`` pre-heats kernels for:
#: each pre-heated kernel holds the app in memory (100–190 MB resident with
#: the Rhine map, measured by benchmarks/bench_ui.py), so 60 take up to 11 GB.
MAX_CLASS_SIZE = 60
#: Seconds Voila waits, once a class of several is being served, before it
#: starts kernels to refill the pool.  ASSUMPTION: a class opens the page
#: within about a minute; refilling later keeps the refill (a kernel start and a
#: run of the app for every visitor) out of the way of the pages being served.
CLASS_REFILL_DELAY_S = 60


def classroom_pool_args(class_size: int) -> list[str]:
    """The Voila options that pre-heat one kernel per visitor of a class.

    Voila hands every visitor a kernel from its pool; a visitor who finds the
    pool empty waits for a new kernel to start and run the app, and when a class
    arrives together those starts share the server's cores (measured: 3.2 s of
    server CPU per visitor when ten arrive at once).  With ``class_size``
    kernels heated before the class arrives, each visitor costs the server
    about 0.2 s of CPU.  A
    class size of 1 keeps ``voila.json``'s pool (one kernel, refilled after 5 s).

    Examples:
        >>> classroom_pool_args(1)
        []
        >>> args = classroom_pool_args(25)
        >>> args[-1]
        '--VoilaKernelManager.fill_delay=60'
        >>> import json
        >>> json.loads(args[0].split("=", 1)[1])[CLASSROOM_NOTEBOOK]
        {'pool_size': 25}
    """
    if class_size <= 1:
        return []
    pool = {"pool_size": class_size}
    config = {
        "default": {"pool_size": 0},
        CLASSROOM_NOTEBOOK: pool,
        Path(CLASSROOM_NOTEBOOK).name: pool,
    }
    return [
        f"--VoilaKernelManager.kernel_pools_config={json.dumps(config)}",
        f"--VoilaKernelManager.fill_delay={CLASS_REFILL_DELAY_S}",
    ]


def classroom_argv(
    port: int | None = None,
    *,
    no_browser: bool = False,
    token: bool = True,
    class_size: int = 1,
) -> list[str]:
    """The command line ``wargame classroom`` runs (from the checkout's root).

    Voila on 127.0.0.1 with a pre-heated kernel: the notebook has already run
    when the first visitor asks for the page (``voila.json`` at the root says
    the same for a plain ``voila`` started there).

    With ``token`` (the default) Voila asks every visitor for the token that
    :func:`classroom_env` puts in its environment (``--Voila.auto_token=True``
    makes it read ``$JUPYTER_TOKEN``): the token never appears on the command
    line. Voila then opens no browser itself (its page would lack the token):
    ``wargame classroom`` opens the token URL (see :func:`open_browser_later`).
    ``class_size`` pre-heats a kernel for each visitor of a class arriving
    together (see :func:`classroom_pool_args`).

    Examples:
        >>> classroom_argv(8866, no_browser=True)[2:]  # doctest: +NORMALIZE_WHITESPACE
        ['voila', 'notebooks/classroom.ipynb', '--Voila.ip=127.0.0.1',
         '--preheat_kernel=True', '--port=8866', '--Voila.port_retries=0',
         '--Voila.auto_token=True', '--no-browser']
        >>> classroom_argv(8866, token=False)[-2:]
        ['--port=8866', '--Voila.port_retries=0']
    """
    cmd = [
        sys.executable,
        "-m",
        "voila",
        CLASSROOM_NOTEBOOK,
        "--Voila.ip=127.0.0.1",
        "--preheat_kernel=True",
    ]
    if port is not None:
        cmd += [f"--port={port}", "--Voila.port_retries=0"]
    if token:
        cmd.append("--Voila.auto_token=True")
    if no_browser or token:
        cmd.append("--no-browser")
    return cmd + classroom_pool_args(class_size)


def new_token() -> str:
    """A fresh classroom token: 32 random bytes, URL-safe (as Jupyter's are).

    Examples:
        >>> len(new_token()) >= 43 and new_token() != new_token()
        True
    """
    import secrets

    return secrets.token_urlsafe(32)


def classroom_env(
    token: str | None, base: dict[str, str] | None = None
) -> dict[str, str]:
    """The environment for :func:`classroom_argv`: the token, or none at all.

    Examples:
        >>> classroom_env("abc", {"PATH": "/bin"})
        {'PATH': '/bin', 'JUPYTER_TOKEN': 'abc'}
        >>> classroom_env(None, {"JUPYTER_TOKEN": "old", "PATH": "/bin"})
        {'PATH': '/bin'}
    """
    env = dict(os.environ if base is None else base)
    env.pop(TOKEN_ENV, None)
    env.pop("JUPYTER_TOKEN_FILE", None)
    if token is not None:
        env[TOKEN_ENV] = token
    return env


def classroom_url(port: int, token: str | None) -> str:
    """The URL to open: ``http://127.0.0.1:PORT/?token=...`` (no query without one).

    Examples:
        >>> classroom_url(8866, "abc"), classroom_url(8866, None)
        ('http://127.0.0.1:8866/?token=abc', 'http://127.0.0.1:8866/')
    """
    base = f"http://127.0.0.1:{port}/"
    return f"{base}?token={token}" if token else base


def _first_free_port() -> int | None:
    for port in range(CLASSROOM_PORT, CLASSROOM_PORT + CLASSROOM_PORT_TRIES + 1):
        if _port_is_free(port):
            return port
    return None


#: Waits for the server, then opens the token URL through a private (0600) HTML
#: file, as Jupyter does, so the token is not on a browser's command line either.
_OPENER = """
import os, signal, socket, sys, tempfile, time, webbrowser
from html import escape
signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))  # still remove the file
url, port = os.environ.pop("WARGAME_CLASSROOM_URL"), int(sys.argv[1])
end = time.time() + 120
while time.time() < end:
    try:
        socket.create_connection(("127.0.0.1", port), 0.5).close()
        break
    except OSError:
        time.sleep(0.25)
else:
    sys.exit(0)
fd, path = tempfile.mkstemp(prefix="wargame-classroom-", suffix=".html")
page = '<meta http-equiv="refresh" content="0;url=%s">' % escape(url, quote=True)
os.write(fd, page.encode())
os.close(fd)
try:
    webbrowser.open("file://" + path)
    time.sleep(60)
finally:
    os.remove(path)
"""


def open_browser_later(url: str, port: int) -> Any:
    """Open ``url`` in a browser once 127.0.0.1:port accepts (a helper process).

    The URL (and its token) travels in the helper's environment, not its
    arguments. Returns the ``Popen``.
    """
    import subprocess

    env = dict(os.environ, WARGAME_CLASSROOM_URL=url)
    return subprocess.Popen(
        [sys.executable, "-c", _OPENER, str(port)],
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def cmd_classroom(args: argparse.Namespace) -> int:
    port = args.port
    if port is not None and not 1 <= port <= 65535:
        raise UsageError(f"classroom: --port must be between 1 and 65535, not {port}")
    if not (REPO / CLASSROOM_NOTEBOOK).is_file():
        raise UsageError(
            f"classroom: no notebook {CLASSROOM_NOTEBOOK!r} in {REPO} (regenerate "
            "it with: python scripts/make_classroom_notebook.py)"
        )
    if not _voila_installed():
        raise UsageError(
            "classroom: Voila is not installed: pip install 'wargame[lab]'"
        )
    if port is not None and not _port_is_free(port):
        raise UsageError(
            f"classroom: port {port} on 127.0.0.1 is busy; choose another with "
            "--port, or leave --port out to take the next free one"
        )
    if port is None:  # chosen here, so that the printed URL is the right one
        port = _first_free_port()
        if port is None:
            last = CLASSROOM_PORT + CLASSROOM_PORT_TRIES
            raise UsageError(
                f"classroom: ports {CLASSROOM_PORT}–{last} on 127.0.0.1 are all "
                "busy; choose a free one with --port"
            )
    size = args.class_size
    if not 1 <= size <= MAX_CLASS_SIZE:
        raise UsageError(
            f"classroom: --class-size must be between 1 and {MAX_CLASS_SIZE}, "
            f"not {size} (each visitor's pre-heated kernel holds up to about 190 MB)"
        )
    token = None if args.no_token else new_token()
    if token is None:
        print(NO_TOKEN_WARNING, file=sys.stderr, flush=True)
    url = classroom_url(port, token)
    print(f"wargame classroom: open {url}", flush=True)
    cmd = classroom_argv(
        port, no_browser=args.no_browser, token=token is not None, class_size=size
    )
    if size > 1:
        print(
            f"wargame classroom: pre-heating {size} kernels (about "
            f"{size * 190 / 1024:.1f} GB); the page is ready once they have run",
            flush=True,
        )
    if token is not None and not args.no_browser:
        open_browser_later(url, port)
    os.chdir(REPO)  # Voila reads voila.json from here
    # replace this process so that signals (Ctrl-C, a test's SIGTERM) reach Voila
    os.execve(sys.executable, cmd, classroom_env(token))
    return 0  # pragma: no cover - execve does not return


def add_parsers(sub: Any) -> None:
    """``lab`` and ``classroom``."""
    pl = sub.add_parser(
        "lab",
        help="open JupyterLab on the notebooks",
        epilog="Example:\n  wargame lab --no-browser",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    pl.add_argument("notebook", nargs="?", help="notebook to open")
    pl.add_argument("--no-browser", action="store_true", help="headless: print the URL")
    pl.add_argument(
        "--port", type=int, help="port on 127.0.0.1 (default: 8888 or next)"
    )
    pl.set_defaults(func=cmd_lab)
    pc = sub.add_parser(
        "classroom",
        help="serve the classroom app (Voila, pre-heated kernel) on 127.0.0.1",
        description="Serve notebooks/classroom.ipynb with Voila on 127.0.0.1, "
        "with a pre-heated kernel: the app has already run when the page is "
        "opened.  Like JupyterLab it asks for a fresh random token, printed in "
        "the URL it shows (http://127.0.0.1:PORT/?token=...); --no-token serves "
        "without one on a trusted machine.  One kernel is pre-heated (voila.json "
        "at the checkout's root); for a class opening the page together, "
        "--class-size N pre-heats one per visitor.  Ctrl-C stops it.",
        epilog="Examples:\n  wargame classroom\n  wargame classroom --port 8866 "
        "--no-browser\n  wargame classroom --class-size 25   # a class at once"
        "\n  wargame classroom --no-token   # trusted machine only",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    pc.add_argument(
        "--port", type=int, help="port on 127.0.0.1 (default: 8866 or the next free)"
    )
    pc.add_argument(
        "--no-browser", action="store_true", help="headless: only print the URL"
    )
    pc.add_argument(
        "--no-token",
        action="store_true",
        help="serve without a token (prints a warning): only on a trusted machine, "
        "where no other user can reach 127.0.0.1",
    )
    pc.add_argument(
        "--class-size",
        type=int,
        default=1,
        metavar="N",
        help="visitors expected to open the page together: pre-heat a kernel for "
        f"each (1 to {MAX_CLASS_SIZE}; up to about 190 MB each; default 1)",
    )
    pc.set_defaults(func=cmd_classroom)
