"""The ``wargame`` command line.

Examples::

    wargame map build --source ../shared/geodata     # rebuild maps/rhine-remagen
    wargame map info rhine-remagen
    wargame lab                                      # JupyterLab on the notebooks
    wargame classroom                                # the classroom app in Voila
    wargame validate scenarios/*.toml                # check scenario files
    wargame run ahr_delay --seed 7 --out log.csv     # play one with AI policies

User mistakes end with exit code 2 and one line per problem, never a traceback.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]


class UsageError(Exception):
    """A mistake on the command line: printed as one line, exit code 2."""


def _default_source() -> Path:
    env = os.environ.get("WARGAME_GEODATA")
    if env:
        return Path(env)
    return REPO.parent / "shared" / "geodata"


def _cmd_map_build(args: argparse.Namespace) -> int:
    from wargame.geo.build import BuildError, BuildParams, build_map

    source = Path(args.source) if args.source else _default_source()
    out = Path(args.out) if args.out else REPO / "maps"
    quiet = args.quiet

    def log(msg: str) -> None:
        if not quiet:
            print(msg, flush=True)

    def post(folder: Path) -> dict[str, Any]:
        from wargame.geo.maps import Map
        from wargame.render.terrain import terrain_image

        meta = json.loads((folder / "metadata.json").read_text(encoding="utf-8"))
        log("picture: hillshade, terrain, roads, names -> terrain.png")
        img = terrain_image(Map(folder, meta), metres_per_px=args.picture_m)
        (folder / "terrain.png").write_bytes(img.png)
        return {
            "picture": {
                "file": "terrain.png",
                "lonlat_bounds": img.lonlat_bounds,
                "size": list(img.size),
                "metres_per_px": args.picture_m,
                "projection": "EPSG:3857 rows and columns",
            }
        }

    try:
        target = build_map(source, out, BuildParams(), log=log, post=post)
    except BuildError as exc:
        raise UsageError(str(exc)) from None
    size = sum(p.stat().st_size for p in target.iterdir()) / 1e6
    print(f"wrote {target} ({size:.1f} MB)")
    return 0


def _cmd_map_info(args: argparse.Namespace) -> int:
    from wargame.geo.maps import load_map

    m = load_map(args.name, hex_size_m=args.hex_size)
    meta = m.meta
    xmin, ymin, xmax, ymax = m.bounds
    print(f"{m.name}: {m.title}")
    print(
        f"  CRS {m.crs}; x {xmin:.0f}–{xmax:.0f} m, y {ymin:.0f}–{ymax:.0f} m "
        f"({(xmax - xmin) / 1000:.1f} × {(ymax - ymin) / 1000:.1f} km)"
    )
    print(
        f"  hexes: {m.grid.n_hexes} of {m.hex_size_m:g} m "
        f"({m.grid.n_cols} columns × {m.grid.n_rows} rows)"
    )
    print(
        f"  DEM cell {meta['dem']['cell_m']:g} m; "
        f"land cover {meta['landcover']['cell_m']:g} m"
    )
    shares = m.hexes["terrain"].value_counts(normalize=True)
    print("  terrain: " + ", ".join(f"{k} {v:.0%}" for k, v in shares.items() if v > 0))
    print(f"  {meta['attribution']}")
    return 0


def _did_you_mean(word: str, choices: Sequence[str]) -> str:
    import difflib

    close = difflib.get_close_matches(word, list(choices), n=3)
    return f" (did you mean {', '.join(close)}?)" if close else ""


def _odds_ruleset(system: str) -> Any:
    """The rule system of ``wargame odds SYSTEM`` (an id or its unique prefix)."""
    from wargame.engine import available_rulesets, get_ruleset

    ids = available_rulesets()
    match = [r for r in ids if r == system] or [r for r in ids if r.startswith(system)]
    with_odds = [r for r in ids if getattr(get_ruleset(r), "odds_command", False)]
    if len(match) != 1 or match[0] not in with_odds:
        raise UsageError(
            f"odds: unknown rule system {system!r}; rule systems with odds: "
            f"{', '.join(with_odds) or '(none)'}"
        )
    return get_ruleset(match[0])


def _cmd_odds_entry(args: argparse.Namespace) -> int:
    cls = _odds_ruleset(args.system)
    parser = argparse.ArgumentParser(prog=f"wargame odds {cls.id}")
    cls.odds_arguments(parser)
    if any(a in ("-h", "--help") for a in args.options):
        parser.print_help()
        return 0
    try:
        opts = parser.parse_args(args.options)
    except SystemExit as exc:  # argparse printed why
        return int(exc.code or 0) and 2
    try:
        print(cls.odds_report(opts))
    except ValueError as exc:  # e.g. out of range, AP at infantry
        raise UsageError(f"odds: {exc}") from None
    return 0


def _point_arg(m: Any, text: str, role: str) -> Any:
    """A hex label, a place or peak name, 'x,y' in map metres or 'lon,lat'."""
    t = text.strip()
    if "," in t:
        try:
            a, b = (float(v) for v in t.split(","))
        except ValueError:
            raise UsageError(f"los: {role} {text!r} is not two numbers 'a,b'") from None
        if abs(a) <= 180 and abs(b) <= 90:  # lon,lat
            x, y = m.to_xy(a, b)
            return (float(x), float(y))
        return (a, b)
    if m.grid.contains_label(t):
        return t.upper()
    try:
        return m.hex_of_place(t)
    except ValueError as exc:
        raise UsageError(
            f"los: {role} {text!r} is neither a hex label on map {m.name!r} "
            f"(columns A–{m.grid.labels()[-1].rstrip('0123456789')}, rows "
            f"1–{m.grid.n_rows}) nor a place: {exc}"
        ) from None


def _cmd_los(args: argparse.Namespace) -> int:
    from wargame.geo.maps import load_map

    m = load_map(args.map, hex_size_m=args.hex_size)
    a = _point_arg(m, args.a, "observer")
    b = _point_arg(m, args.b, "target")
    res = m.los(
        a,
        b,
        observer_height_m=args.observer_height,
        target_height_m=args.target_height,
        obstacles=not args.no_obstacles,
    )
    print(res.explain())
    print(f"visible: {'yes' if res.visible else 'no'}")
    print(f"distance: {res.distance_m:.0f} m")
    if res.blocker is not None:
        print(f"blocker: {res.blocker}")
    return 0


def _cmd_lab(args: argparse.Namespace) -> int:
    nb = args.notebook or "notebooks/01_quickstart.ipynb"
    if not (REPO / nb).is_file() and not Path(nb).is_file():
        raise UsageError(
            f"no notebook {nb!r} (the notebooks are in {REPO / 'notebooks'})"
        )
    cmd = [sys.executable, "-m", "jupyterlab", nb, "--ServerApp.ip=127.0.0.1"]
    if args.port:
        cmd += [f"--ServerApp.port={args.port}", "--ServerApp.port_retries=0"]
    if args.no_browser:
        cmd.append("--no-browser")
    if os.geteuid() == 0:
        cmd.append("--allow-root")
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


def classroom_argv(
    port: int | None = None, *, no_browser: bool = False, token: bool = True
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
    return cmd


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


def _cmd_classroom(args: argparse.Namespace) -> int:
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
    token = None if args.no_token else new_token()
    if token is None:
        print(NO_TOKEN_WARNING, file=sys.stderr, flush=True)
    url = classroom_url(port, token)
    print(f"wargame classroom: open {url}", flush=True)
    cmd = classroom_argv(port, no_browser=args.no_browser, token=token is not None)
    if token is not None and not args.no_browser:
        open_browser_later(url, port)
    os.chdir(REPO)  # Voila reads voila.json from here
    # replace this process so that signals (Ctrl-C, a test's SIGTERM) reach Voila
    os.execve(sys.executable, cmd, classroom_env(token))
    return 0  # pragma: no cover - execve does not return


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``wargame`` command."""
    p = argparse.ArgumentParser(
        prog="wargame",
        description="Tactical wargames on real geography.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="Examples:\n  wargame map info\n"
        "  wargame map build --source ../shared/geodata\n  wargame lab",
    )
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    pm = sub.add_parser("map", help="build or describe maps")
    msub = pm.add_subparsers(dest="map_command", metavar="SUBCOMMAND")
    msub.required = True
    pb = msub.add_parser(
        "build",
        help="build maps/rhine-remagen from the raw SRTM and OSM inputs",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="Example:\n  wargame map build --source ../shared/geodata --out maps",
    )
    pb.add_argument(
        "--source",
        help="raw input folder (default: $WARGAME_GEODATA or "
        "../shared/geodata next to the checkout)",
    )
    pb.add_argument("--out", help="folder of maps to write into (default: maps/)")
    pb.add_argument(
        "--picture-m",
        type=float,
        default=12.0,
        help="terrain picture resolution in metres per pixel (default 12)",
    )
    pb.add_argument("-q", "--quiet", action="store_true", help="print only the result")
    pb.set_defaults(func=_cmd_map_build)
    pi = msub.add_parser(
        "info",
        help="describe a map",
        epilog="Example:\n  wargame map info rhine-remagen --hex-size 150",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    pi.add_argument("name", nargs="?", default="rhine-remagen")
    pi.add_argument("--hex-size", type=float, default=150.0, help="hex size in metres")
    pi.set_defaults(func=_cmd_map_info)

    po = sub.add_parser(
        "odds",
        help="exact odds of one unit firing at another",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="Examples:\n"
        "  wargame odds waw-classic --attacker t72 --target tow_jeep --range 6 "
        "--terrain woods\n"
        "  wargame odds waw-classic --list\n"
        "  wargame odds waw-classic --help   (that rule system's options)",
    )
    po.add_argument(
        "system", help="rule system id (or a unique prefix), e.g. waw-classic"
    )
    po.add_argument(
        "options", nargs=argparse.REMAINDER, help="the rule system's own options"
    )
    po.set_defaults(func=_cmd_odds_entry)

    pv = sub.add_parser(
        "los",
        help="line of sight between two hexes, places or points",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="Examples:\n"
        "  wargame los rhine-remagen 'Erpeler Ley' Remagen\n"
        "  wargame los rhine-remagen BY85 BP87 --observer-height 10\n"
        "  wargame los rhine-remagen 7.25,50.585 7.2287,50.5792 --no-obstacles",
    )
    pv.add_argument("map", help="map name, e.g. rhine-remagen")
    pv.add_argument("a", help="observer: hex label, place name, 'lon,lat' or 'x,y'")
    pv.add_argument("b", help="target: hex label, place name, 'lon,lat' or 'x,y'")
    pv.add_argument(
        "--observer-height",
        type=float,
        default=2.5,
        help="eye height above ground, m (default 2.5)",
    )
    pv.add_argument(
        "--target-height",
        type=float,
        default=2.0,
        help="target height above ground, m (default 2.0)",
    )
    pv.add_argument(
        "--no-obstacles",
        action="store_true",
        help="bare ground: ignore woods and towns",
    )
    pv.add_argument("--hex-size", type=float, default=150.0, help="hex size in metres")
    pv.set_defaults(func=_cmd_los)

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
    pl.set_defaults(func=_cmd_lab)
    pc = sub.add_parser(
        "classroom",
        help="serve the classroom app (Voila, pre-heated kernel) on 127.0.0.1",
        description="Serve notebooks/classroom.ipynb with Voila on 127.0.0.1, "
        "with a pre-heated kernel: the app has already run when the page is "
        "opened.  Like JupyterLab it asks for a fresh random token, printed in "
        "the URL it shows (http://127.0.0.1:PORT/?token=...); --no-token serves "
        "without one on a trusted machine.  The pool of pre-heated kernels and "
        "how long Voila waits before it refills it are set in voila.json at the "
        "checkout's root.  Ctrl-C stops it.",
        epilog="Examples:\n  wargame classroom\n  wargame classroom --port 8866 "
        "--no-browser\n  wargame classroom --no-token   # trusted machine only",
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
    pc.set_defaults(func=_cmd_classroom)
    _add_batch_parser(sub)
    _add_run_parser(sub)
    _add_validate_parser(sub)
    return p


def _cmd_batch(args: argparse.Namespace) -> int:
    import time
    import warnings

    from wargame.batch import compare, load_variants, run

    if args.games < 1:
        raise UsageError(f"batch: --games must be >= 1, not {args.games}")
    policies: dict[str, str] = {}
    for item in args.policy or []:
        side, sep, name = item.partition("=")
        if not sep or not side or not name:
            raise UsageError(
                f"batch: --policy {item!r} must be SIDE=NAME, e.g. nato=random"
            )
        policies[side] = name
    variants = load_variants(args.variants) if args.variants else None
    t0 = time.perf_counter()
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("ignore", RuntimeWarning)  # failures reported below
        df = run(
            args.scenario,
            args.games,
            seed=args.seed,
            policies=policies or None,
            variants=variants,
            processes=args.processes,
            out=args.out,
            progress=not args.quiet,
            logs=args.logs,
        )
    seconds = time.perf_counter() - t0
    sides = [c[3:] for c in df.columns if c.startswith("vp_")]
    side = args.side or sides[0]
    if side not in sides:
        raise UsageError(
            f"batch: --side {side!r} is not a side; sides: {', '.join(sides)}"
        )
    table = compare(df, side)
    print(
        f"{df['scenario'].iloc[0]}: {len(df)} games ({table.index.size} variant(s) x "
        f"{args.games}), seed {args.seed}, {seconds:.1f} s"
    )
    lines = [
        f"{'variant':24s} {'games':>5s}  {side + ' wins (95% CI)':>22s} {'draws':>6s}"
        + "".join(f" {'lost ' + s:>10s}" for s in sides)
        + f" {'LER ' + side:>9s}"
    ]
    for name, r in table.iterrows():
        lines.append(
            f"{str(name)[:24]:24s} {int(r['games']):5d}  "
            f"{r['win_rate']:6.0%} ({r['win_low']:4.0%}–{r['win_high']:4.0%})   "
            f"{r['draw_rate']:6.0%}"
            + "".join(f" {r['lost_' + s]:10.2f}" for s in sides)
            + f" {r['ler']:9.2f}"
        )
    print("\n".join(lines))
    if args.out:
        print(f"results in {args.out} (Parquet; read with wargame.batch.read_results)")
    failed = df[df["error"].notna()]
    if len(failed):
        first = failed.iloc[0]
        print(
            f"wargame: {len(failed)} game(s) failed; first: variant "
            f"{first['variant']!r}, game {first['game']}, seed {first['seed']}: "
            f"{first['error']}",
            file=sys.stderr,
        )
        return 1
    return 0


def _add_batch_parser(sub: Any) -> None:
    pb = sub.add_parser(
        "batch",
        help="play many games of a scenario (and its variants) for a what-if study",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="Examples:\n"
        "  wargame batch test_remagen --games 200 --seed 1\n"
        "  wargame batch test_remagen --games 400 --variants what_if.toml "
        "--out runs/what_if\n"
        "  wargame batch scenarios/test_remagen.toml --games 50 --policy pact=random\n"
        "Re-running with the same --out resumes an interrupted run.",
    )
    pb.add_argument("scenario", help="scenario name or .toml/.json file")
    pb.add_argument("--games", type=int, required=True, help="games per variant")
    pb.add_argument("--seed", type=int, default=0, help="batch seed (default 0)")
    pb.add_argument(
        "--variants", help="TOML/JSON file: one table of overrides per variant"
    )
    pb.add_argument(
        "--processes", type=int, help="worker processes (default: every core)"
    )
    pb.add_argument("--out", help="folder for the Parquet results (resumable)")
    pb.add_argument(
        "--policy",
        action="append",
        metavar="SIDE=NAME",
        help="policy of a side, e.g. nato=random (repeatable)",
    )
    pb.add_argument(
        "--logs", action="store_true", help="keep every game's event log in --out"
    )
    pb.add_argument("--side", help="side whose win rate is shown (default: first)")
    pb.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    pb.set_defaults(func=_cmd_batch)


def _write_atomic(path: Path, data: bytes) -> None:
    """``files.write_atomic`` into ``path``'s folder, made if missing."""
    from wargame.engine.files import write_atomic

    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, data)


def _scenario_or_usage(source: str) -> Any:
    """Load and fully check a scenario; every problem becomes a usage error."""
    from wargame.engine import ScenarioError, check_scenario, load_scenario

    try:
        scenario = load_scenario(source)
    except ScenarioError as exc:
        raise UsageError(str(exc)) from None
    problems = check_scenario(scenario)
    if problems:
        raise UsageError("\n".join(problems))
    return scenario


def _losses_table(game: Any) -> Any:
    """Units at the start, arrived and destroyed, by side and type, and how many
    ended in each weaker state, in the rule system's own words (World at War:
    ``reduced``)."""
    from collections import Counter

    import pandas as pd

    start = game.initial_state
    usual = Counter(u.strength for u in start.units.values()).most_common(1)
    fresh = usual[0][0] if usual else ""
    words = sorted(
        {u.strength for u in game.state.units.values()} - {"destroyed", fresh}
    )
    rows = []
    for uid, u in game.state.units.items():
        u0 = start.units[uid]
        row = {
            "side": u.side,
            "type": u.type,
            "units": 1,
            "arrived": int(u.position is not None or u.destroyed),
            "destroyed": int(u.destroyed),
        }
        for w in words:
            row[w] = int(u.strength == w and u0.strength != w)
        rows.append(row)
    columns = ["units", "arrived", "destroyed", *words]
    # the columns named: a scenario without units gives an empty table
    df = pd.DataFrame(rows, columns=["side", "type", *columns])
    return df.groupby(["side", "type"], sort=True)[columns].sum()


def _cmd_run(args: argparse.Namespace) -> int:
    from wargame.engine import Game, get_ruleset
    from wargame.engine.policy import available_policies, get_policy

    out = Path(args.out) if args.out else None
    if out is not None and out.suffix.lower() not in (".csv", ".parquet"):
        raise UsageError(
            f"run: --out {args.out!r} must end in .csv or .parquet (the log's format)"
        )
    if out is not None and out.suffix.lower() == ".parquet":
        try:
            import pyarrow  # noqa: F401
        except ImportError:
            raise UsageError(
                "run: writing .parquet needs pyarrow (pip install 'wargame[geo]'); "
                "or use --out log.csv"
            ) from None
    save = Path(args.save) if args.save else None
    if args.seed < 0:
        raise UsageError(f"run: --seed must be >= 0, not {args.seed}")
    if args.turns is not None and args.turns < 1:
        raise UsageError(f"run: --turns must be >= 1, not {args.turns}")
    scenario = _scenario_or_usage(args.scenario)
    sides = [s["id"] for s in scenario.sides]
    names = available_policies(scenario.ruleset)
    default = getattr(get_ruleset(scenario.ruleset), "default_policy", "random")
    chosen = dict.fromkeys(sides, default)
    for item in args.policy or []:
        side, sep, name = item.partition("=")
        if not sep or not side or not name:
            raise UsageError(
                f"run: --policy {item!r} must be SIDE=NAME, e.g. {sides[0]}=doctrine"
            )
        if side not in chosen:
            raise UsageError(
                f"run: --policy {item!r}: no side {side!r}; sides: {', '.join(sides)}"
            )
        if name not in names:
            raise UsageError(
                f"run: --policy {item!r}: unknown policy {name!r}"
                f"{_did_you_mean(name, names)}; {scenario.ruleset} policies: "
                f"{', '.join(names)}"
            )
        chosen[side] = name
    policies = {
        side: get_policy(name, ruleset=scenario.ruleset)
        for side, name in chosen.items()
    }
    game = Game(scenario, seed=args.seed, policies=policies)
    outcome = game.run(turns=args.turns)
    # outputs first (atomically), then the summary
    if out is not None:
        log = game.log
        if out.suffix.lower() == ".csv":
            _write_atomic(out, log.to_csv(index=False).encode("utf-8"))
        else:
            log = log.assign(dice=log["dice"].map(lambda d: list(d) if d else None))
            _write_atomic(out, log.to_parquet(None, index=False))
    if save is not None:
        save.parent.mkdir(parents=True, exist_ok=True)
        game.save(save)  # atomic itself (files.write_atomic)
    st = game.state
    side_names = {s: st.sides[s].name for s in sides}
    print(f"{scenario.title} ({scenario.id}, {scenario.ruleset}), seed {args.seed}")
    print("policies: " + ", ".join(f"{side_names[s]} = {chosen[s]}" for s in sides))
    if outcome is None:
        vp = game.ruleset.victory_points(st)
        print(f"stopped after turn {st.turn - 1} of {scenario.turns}: not over")
    else:
        vp = dict(outcome.victory_points)
        winner = side_names.get(outcome.winner, "draw") if outcome.winner else "draw"
        print(f"result: {winner} ({outcome.termination}, turn {outcome.turn})")
    print(
        "victory points: " + ", ".join(f"{side_names[s]} {vp.get(s, 0)}" for s in sides)
    )
    table = _losses_table(game)
    print()
    if table.empty:
        print("no units")
    else:
        table.index = table.index.set_levels(
            [side_names.get(s, s) for s in table.index.levels[0]], level=0
        )
        print(table.to_string())
    print(f"\n{len(game.actions)} actions, {len(game.events)} events")
    if out is not None:
        print(f"log written to {out}")
    if save is not None:
        print(f"game saved to {save} (wargame.engine.Game.load)")
    return 0


def _add_run_parser(sub: Any) -> None:
    pr = sub.add_parser(
        "run",
        help="play a scenario to the end with AI policies and print a summary",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="Examples:\n"
        "  wargame run ahr_delay --seed 7\n"
        "  wargame run scenarios/remagen_linz_crossing.toml --policy frg=greedy "
        "--policy pact=doctrine\n"
        "  wargame run siebengebirge_heights --turns 3 --out log.csv "
        "--save game.json\n"
        "Policies: random, greedy, doctrine (default: doctrine for every side).",
    )
    pr.add_argument("scenario", help="scenario name (see scenarios/) or .toml file")
    pr.add_argument("--seed", type=int, default=0, help="dice seed (default 0)")
    pr.add_argument("--turns", type=int, help="play at most this many turns")
    pr.add_argument(
        "--policy",
        action="append",
        metavar="SIDE=NAME",
        help="policy of a side, e.g. pact=greedy (repeatable)",
    )
    pr.add_argument("--out", help="write the event log: log.csv or log.parquet")
    pr.add_argument("--save", help="write a save file (JSON) to load and replay")
    pr.set_defaults(func=_cmd_run)


def _cmd_validate(args: argparse.Namespace) -> int:
    from wargame.engine import ScenarioError, check_scenario, load_scenario

    problems: list[str] = []
    for source in args.files:
        try:
            scenario = load_scenario(source)
        except ScenarioError as exc:
            problems += exc.problems
            continue
        found = check_scenario(scenario)
        if found:
            problems += found
            continue
        print(
            f"ok: {scenario.source}: {scenario.title} ({scenario.ruleset}, "
            f"{scenario.turns} turns, {len(scenario.units)} units)"
        )
    if problems:
        raise UsageError("\n".join(problems))
    return 0


def _add_validate_parser(sub: Any) -> None:
    pv = sub.add_parser(
        "validate",
        help="check scenario files without playing them",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="Examples:\n"
        "  wargame validate scenarios/*.toml\n"
        "  wargame validate my_scenario.toml\n"
        "Exit code 2 and one line per problem (file: field: problem) if any.",
    )
    pv.add_argument(
        "files", nargs="+", metavar="FILE", help="scenario files (or names)"
    )
    pv.set_defaults(func=_cmd_validate)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args))
    except (UsageError, ValueError, FileNotFoundError) as exc:
        for line in str(exc).splitlines() or [""]:  # one line per problem
            print(f"wargame: error: {line}", file=sys.stderr)
        return 2
    except OSError as exc:  # a folder or disk the command could not use
        where = f"{exc.filename}: " if exc.filename else ""
        print(
            f"wargame: error: {where}{exc.strerror or exc}; check the path, its "
            "permissions and the free disk space",
            file=sys.stderr,
        )
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
