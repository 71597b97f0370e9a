"""``wargame map build`` and ``wargame map info``."""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path
from typing import Any

from ._common import REPO, UsageError


def _default_source() -> Path:
    env = os.environ.get("WARGAME_GEODATA")
    if env:
        return Path(env)
    return REPO.parent / "shared" / "geodata"


def cmd_build(args: argparse.Namespace) -> int:
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
        m = Map(folder, meta)
        img = terrain_image(m, metres_per_px=args.picture_m)
        (folder / "terrain.png").write_bytes(img.png)
        log("picture without the names (map views label them) -> terrain-plain.png")
        plain = terrain_image(m, metres_per_px=args.picture_m, labels=False)
        (folder / "terrain-plain.png").write_bytes(plain.png)
        return {
            "picture": {
                "file": "terrain.png",
                "plain": "terrain-plain.png",
                "lonlat_bounds": img.latlon_corners,  # key kept: ((s, w), (n, e))
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


def cmd_info(args: argparse.Namespace) -> int:
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


def add_parser(sub: Any) -> None:
    """``map build`` and ``map info``."""
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
    pb.set_defaults(func=cmd_build)
    pi = msub.add_parser(
        "info",
        help="describe a map",
        epilog="Example:\n  wargame map info rhine-remagen --hex-size 150",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    pi.add_argument("name", nargs="?", default="rhine-remagen")
    pi.add_argument("--hex-size", type=float, default=150.0, help="hex size in metres")
    pi.set_defaults(func=cmd_info)
