"""``wargame los [MAP] A B``: line of sight between two hexes, places or points,
told in hex labels, place names and metres."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from ._common import UsageError, write_atomic


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


def _map_and_points(args: argparse.Namespace) -> tuple[str, str, str]:
    """``[MAP] A B``: the map may be left out when there is only one."""
    from wargame.geo.maps import available_maps

    words = list(args.points)
    if len(words) == 3:
        return words[0], words[1], words[2]
    if len(words) != 2:
        raise UsageError(
            f"los: give an observer and a target (and a map name first if there are "
            f"several maps), not {len(words)} word(s): {' '.join(words)!r}"
        )
    maps = available_maps()
    if len(maps) != 1:
        raise UsageError(
            "los: there are several maps; name one first, e.g. wargame los "
            f"{maps[0] if maps else 'rhine-remagen'} A B (maps: "
            f"{', '.join(maps) or 'none found'})"
        )
    return maps[0], words[0], words[1]


def _name(text: str, hex_label: str | None) -> str:
    """What the user typed, with its hex: ``Remagen [BP87]``."""
    t = text.strip()
    if hex_label is None or t.upper() == hex_label:
        return f"hex {hex_label}" if hex_label else t
    return f"{t} [{hex_label}]"


def verdict(
    res: Any,
    a_text: str,
    b_text: str,
    hex_size_m: float,
    obstacles: dict[str, float] | None,
) -> list[str]:
    """The lines ``wargame los`` prints: one verdict, then why and on what terms.

    Examples:
        >>> from wargame.geo.maps import load_map
        >>> m = load_map()
        >>> r = m.los(m.place_xy("Erpeler Ley"), m.place_xy("Remagen"))
        >>> verdict(r, "Erpeler Ley", "Remagen", 150.0, None)[0].endswith(": visible")
        True
    """
    head = (
        f"{_name(a_text, res.observer_hex)} to {_name(b_text, res.target_hex)}, "
        f"{res.distance_m:,.0f} m: {'visible' if res.visible else 'not visible'}"
    )
    lines = [head]
    if not res.visible and res.blocked_at is not None and res.blocker is not None:
        what = "the ground" if res.blocker.kind == "terrain" else res.blocker.kind
        where = f" in hex {res.blocker.hex}" if res.blocker.hex else ""
        lines.append(
            f"first blocked {res.blocked_at.distance_m:,.0f} m from the observer by "
            f"{what}{where}"
        )
    seen = (
        "bare ground (no woods or towns)"
        if obstacles is None
        else ", ".join(f"{k} {v:g} m" for k, v in sorted(obstacles.items()))
    )
    lines.append(
        f"eye {res.observer_height_m:g} m, target {res.target_height_m:g} m above "
        f"ground; obstacles: {seen}"
    )
    if obstacles is not None:
        lines.append(
            f"hex rule: on {hex_size_m:g} m hexes, obstacles in the observer's and the "
            "target's own hexes do not block, so another --hex-size can change "
            "the verdict"
        )
    return lines


def cmd_los(args: argparse.Namespace) -> int:
    from wargame.geo.maps import load_map

    name, a_text, b_text = _map_and_points(args)
    for flag, value in (("--profile-csv", args.profile_csv), ("--plot", args.plot)):
        if value is not None and not str(value).strip():
            raise UsageError(f"los: {flag} needs a file name")
    if args.plot is not None and Path(args.plot).suffix.lower() not in (
        ".png",
        ".svg",
        ".pdf",
    ):
        raise UsageError(f"los: --plot {args.plot!r} must end in .png, .svg or .pdf")
    m = load_map(name, hex_size_m=args.hex_size)
    a = _point_arg(m, a_text, "observer")
    b = _point_arg(m, b_text, "target")
    res = m.los(
        a,
        b,
        observer_height_m=args.observer_height,
        target_height_m=args.target_height,
        obstacles=not args.no_obstacles,
    )
    heights = None if args.no_obstacles else dict(m.obstacle_heights_m)
    print("\n".join(verdict(res, a_text, b_text, m.hex_size_m, heights)))
    if args.profile_csv:
        out = Path(args.profile_csv)
        write_atomic(out, res.profile.to_csv(index=False).encode("utf-8"))
        print(f"profile ({len(res.profile)} samples) written to {out}")
    if args.plot:
        import io

        import matplotlib

        matplotlib.use("Agg")
        fig = res.plot(title=f"{a_text} to {b_text}")
        buf = io.BytesIO()
        fig.savefig(buf, format=Path(args.plot).suffix.lower()[1:], dpi=110)
        write_atomic(Path(args.plot), buf.getvalue())
        print(f"profile chart written to {args.plot}")
    return 0


def add_parser(sub: Any) -> None:
    """``los``."""
    pv = sub.add_parser(
        "los",
        help="line of sight between two hexes, places or points",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="Examples:\n"
        "  wargame los 'Erpeler Ley' Remagen\n"
        "  wargame los rhine-remagen BY85 BP87 --observer-height 10\n"
        "  wargame los 7.25,50.585 7.2287,50.5792 --no-obstacles\n"
        "  wargame los 'Erpeler Ley' Linz --profile-csv profile.csv --plot los.png\n"
        "The map may be left out when there is only one.",
    )
    pv.add_argument(
        "points",
        nargs="+",
        metavar="[MAP] A B",
        help="map name (optional), then observer and target: hex label, place "
        "name, 'lon,lat' or 'x,y' in map metres",
    )
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
    pv.add_argument(
        "--hex-size",
        type=float,
        default=150.0,
        help="hex size in metres (default 150): the hex rule ignores obstacles in "
        "the two end hexes, so the size changes which obstacles count",
    )
    pv.add_argument("--profile-csv", metavar="FILE", help="write the terrain profile")
    pv.add_argument(
        "--plot", metavar="FILE", help="draw the profile chart (.png, .svg or .pdf)"
    )
    pv.set_defaults(func=cmd_los)
