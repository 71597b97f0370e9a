"""The ``wargame`` command line.

Examples::

    wargame map build --source ../shared/geodata     # rebuild maps/rhine-remagen
    wargame map info rhine-remagen
    wargame lab                                      # JupyterLab on the notebooks

User mistakes end with exit code 2 and a one-line message, never a traceback.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
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


def _cmd_odds(args: argparse.Namespace) -> int:
    if args.system != "waw":
        raise UsageError(f"odds: unknown rule system {args.system!r}; available: waw")
    import pandas as pd

    from wargame.rules import waw

    catalog = waw.unit_catalog()
    for role, unit in (("attacker", args.attacker), ("target", args.target)):
        if unit not in catalog:
            raise UsageError(
                f"odds: unknown --{role} unit type {unit!r}"
                f"{_did_you_mean(unit, list(catalog))}; see `wargame odds waw --list`"
            )
    chart = waw.terrain_chart()
    terrains = list(chart.terrain)
    if args.terrain not in terrains:
        raise UsageError(
            f"odds: unknown --terrain {args.terrain!r}; terrain classes: "
            f"{', '.join(terrains)}"
        )
    if args.range < 0:
        raise UsageError(f"odds: --range must be >= 0 hexes, not {args.range}")
    kw = {"moving": args.moving, "leadership": args.leadership}
    try:
        hits = waw.odds(args.attacker, args.target, args.range, args.terrain, **kw)
        results = waw.result_odds(
            args.attacker, args.target, args.range, args.terrain, **kw
        )
    except ValueError as exc:  # e.g. out of range, AP at infantry
        raise UsageError(f"odds: {exc}") from None
    a, t = catalog[args.attacker], catalog[args.target]
    print(
        f"{a.name} fires at {t.name} at {args.range} hexes, target in {args.terrain}"
        f"{', firer moving' if args.moving else ''}"
    )
    table = pd.DataFrame({"P(net hits)": hits})
    table["P(at least)"] = hits[::-1].cumsum()[::-1]
    print(table.to_string(float_format=lambda v: f"{v:7.4f}"))
    print()
    print(results.to_frame("P(result)").to_string(float_format=lambda v: f"{v:7.4f}"))
    return 0


def _cmd_odds_list() -> int:
    from wargame.rules import waw

    for uid, u in waw.unit_catalog().items():
        print(f"{uid:24s} {u.name}")
    return 0


def _cmd_odds_entry(args: argparse.Namespace) -> int:
    if args.system != "waw":
        raise UsageError(f"odds: unknown rule system {args.system!r}; available: waw")
    if args.list:
        return _cmd_odds_list()
    missing = [
        f"--{k}" for k in ("attacker", "target", "range") if getattr(args, k) is None
    ]
    if missing:
        raise UsageError(f"odds: missing {', '.join(missing)} (or use --list)")
    return _cmd_odds(args)


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
    return subprocess.call(cmd, cwd=REPO)


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
        "  wargame odds waw --attacker t72 --target tow_jeep --range 6 "
        "--terrain woods\n"
        "  wargame odds waw --list",
    )
    po.add_argument("system", help="rule system: waw (World at War, classic)")
    po.add_argument("--attacker", help="unit type id of the firer")
    po.add_argument("--target", help="unit type id of the target")
    po.add_argument("--range", type=int, help="range in hexes")
    po.add_argument("--terrain", default="clear", help="terrain class of the target")
    po.add_argument("--moving", action="store_true", help="the firer fires on the move")
    po.add_argument("--leadership", type=int, default=0, help="HQ leadership added")
    po.add_argument("--list", action="store_true", help="list the unit type ids")
    po.set_defaults(func=_cmd_odds_entry)

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
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args))
    except (UsageError, ValueError, FileNotFoundError) as exc:
        print(f"wargame: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
