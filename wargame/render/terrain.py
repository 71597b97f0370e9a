"""The offline terrain picture: hillshade, terrain colours, water, roads, rail, towns.

A pure function of the map data (no widgets, no network). The picture is laid out
in Web Mercator rows and columns so that Leaflet's ``ImageOverlay`` (which stretches
an image linearly between two lon/lat corners in Web Mercator) puts every pixel in
the right place; pixels outside the map's UTM rectangle are transparent.

Examples:
    >>> import wargame
    >>> from wargame.render.terrain import terrain_image
    >>> img = terrain_image(wargame.load_map(window="Linz"), metres_per_px=20)
    >>> img.png[:4] == b"\\x89PNG" and img.size[0] > 100
    True
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt
from PIL import Image, ImageDraw, ImageFont
from pyproj import Transformer

from wargame.geo.raster import bilinear, nearest
from wargame.geo.terrain import TERRAIN_CLASSES

if TYPE_CHECKING:  # pragma: no cover
    from wargame.geo.maps import Map

# RGB colours of the generic terrain classes (a topographic-map palette).
TERRAIN_COLOURS: dict[str, tuple[int, int, int]] = {
    "clear": (238, 234, 214),
    "park": (205, 228, 180),
    "orchard": (214, 226, 160),
    "wetland": (184, 216, 204),
    "woods": (150, 190, 128),
    "town": (222, 190, 176),
    "water": (140, 190, 226),
}
ROAD_STYLE: dict[str, tuple[tuple[int, int, int], float]] = {
    "motorway": ((214, 110, 60), 3.2),
    "primary": ((232, 160, 70), 2.6),
    "secondary": ((240, 200, 90), 2.2),
    "tertiary": ((255, 250, 235), 1.8),
    "minor": ((255, 252, 244), 1.2),
    "track": ((150, 120, 90), 0.8),
}
WATERWAY_STYLE: dict[str, tuple[tuple[int, int, int], float]] = {
    "river": ((90, 150, 210), 2.0),
    "canal": ((90, 150, 210), 1.5),
    "stream": ((110, 165, 215), 1.0),
}
WEB_MERCATOR = "EPSG:3857"


@dataclass(frozen=True)
class TerrainImage:
    """A rendered picture and where it goes.

    Attributes:
        png: the PNG bytes.
        latlon_corners: ``((south, west), (north, east))``: the corners as
            (lat, lon) pairs, the order Leaflet's ``ImageOverlay`` wants.
        size: ``(width, height)`` in pixels.
    """

    png: bytes
    latlon_corners: tuple[tuple[float, float], tuple[float, float]]
    size: tuple[int, int]

    @property
    def lonlat_bounds(self) -> tuple[float, float, float, float]:
        """``(west, south, east, north)`` in degrees, as ``Map.lonlat_bounds``."""
        (s, w), (n, e) = self.latlon_corners
        return (w, s, e, n)

    def data_url(self) -> str:
        """The picture as a ``data:`` URL (for ``ipyleaflet.ImageOverlay``)."""
        import base64

        return "data:image/png;base64," + base64.b64encode(self.png).decode("ascii")

    def _repr_png_(self) -> bytes:
        return self.png


def hillshade(
    z: npt.NDArray[np.floating],
    cell_m: float,
    azimuth_deg: float = 315.0,
    altitude_deg: float = 45.0,
    z_factor: float = 1.5,
) -> npt.NDArray[np.float64]:
    """Lambertian hillshade in 0..1 of a north-up DEM (Horn-style central slopes).

    Examples:
        >>> import numpy as np
        >>> flat = hillshade(np.zeros((5, 5)), 50.0)
        >>> round(float(flat[2, 2]), 3)  # sin(45°) on flat ground
        0.707
    """
    zz = np.asarray(z, dtype=np.float64) * z_factor
    dzdy, dzdx = np.gradient(zz, cell_m)
    # rows go south, so northward slope is -dzdy
    slope = np.arctan(np.hypot(dzdx, dzdy))
    aspect = np.arctan2(-dzdx, dzdy)  # direction the slope faces, from north, clockwise
    az = np.deg2rad(azimuth_deg)
    alt = np.deg2rad(altitude_deg)
    shade = np.sin(alt) * np.cos(slope) + np.cos(alt) * np.sin(slope) * np.cos(
        az - aspect
    )
    return np.clip(shade, 0.0, 1.0)


def _pixel_frame(
    m: Map, metres_per_px: float
) -> tuple[Transformer, Transformer, tuple[float, float, float, float], int, int]:
    to_merc = Transformer.from_crs(m.crs, WEB_MERCATOR, always_xy=True)
    from_merc = Transformer.from_crs(WEB_MERCATOR, m.crs, always_xy=True)
    xmin, ymin, xmax, ymax = m.bounds
    xs = np.array([xmin, xmax, xmin, xmax])
    ys = np.array([ymin, ymin, ymax, ymax])
    mx, my = to_merc.transform(xs, ys)
    mb = (float(mx.min()), float(my.min()), float(mx.max()), float(my.max()))
    # Web Mercator stretches distances by 1/cos(lat)
    lat = np.deg2rad(m.lonlat_bounds[1] / 2 + m.lonlat_bounds[3] / 2)
    merc_per_px = metres_per_px / np.cos(lat)
    w = int(np.ceil((mb[2] - mb[0]) / merc_per_px))
    h = int(np.ceil((mb[3] - mb[1]) / merc_per_px))
    return to_merc, from_merc, mb, w, h


def terrain_image(
    m: Map,
    *,
    metres_per_px: float = 12.0,
    hex_outlines: bool = False,
    roads: bool = True,
    labels: bool = True,
    quantize: bool = True,
) -> TerrainImage:
    """Render the map's terrain picture.

    Args:
        m: the map (a window of it renders just that window).
        metres_per_px: ground resolution of the picture.
        hex_outlines: draw the hex grid.
        roads: draw roads and rail.
        labels: write the names of towns and villages.
        quantize: reduce to a 256-colour palette (5× smaller PNG, same look).
    """
    to_merc, from_merc, mb, w, h = _pixel_frame(m, metres_per_px)
    # pixel centres in Web Mercator -> map metres
    px = mb[0] + (np.arange(w) + 0.5) * (mb[2] - mb[0]) / w
    py = mb[3] - (np.arange(h) + 0.5) * (mb[3] - mb[1]) / h
    gx, gy = np.meshgrid(px, py)
    ux, uy = from_merc.transform(gx.ravel(), gy.ravel())
    inside = m.contains_xy(ux, uy)

    lc = nearest(m.landcover, m.landcover_grid, ux, uy).astype(np.int64)
    palette = np.array([TERRAIN_COLOURS[c] for c in TERRAIN_CLASSES], dtype=np.float64)
    rgb = palette[lc]
    shade = hillshade(m.dem, m.dem_grid.cell_m)
    s = bilinear(shade, m.dem_grid, ux, uy)
    # keep flat ground at full colour, darken slopes facing away from the light
    flat = np.sin(np.deg2rad(45.0))
    k = np.clip(0.55 + 0.45 * (s / flat), 0.35, 1.15)
    water = lc == TERRAIN_CLASSES.index("water")
    k[water] = 1.0
    rgb = np.clip(rgb * k[:, None], 0, 255)
    alpha = np.where(inside, 255, 0)
    arr = (
        np.concatenate([rgb, alpha[:, None]], axis=1).astype(np.uint8).reshape(h, w, 4)
    )
    img = Image.fromarray(arr, mode="RGBA")
    draw = ImageDraw.Draw(img, "RGBA")
    scale = 12.0 / metres_per_px

    def to_px(coords: npt.NDArray[np.float64]) -> list[tuple[float, float]]:
        mx, my = to_merc.transform(coords[:, 0], coords[:, 1])
        cx = (mx - mb[0]) / (mb[2] - mb[0]) * w
        cy = (mb[3] - my) / (mb[3] - mb[1]) * h
        return list(zip(cx.tolist(), cy.tolist(), strict=True))

    def lines(df: Any, colour: tuple[int, ...], width: float) -> None:
        import shapely

        wpx = max(1, round(width * scale))
        for g in df["geometry"]:
            for part in shapely.get_parts(g):
                if part.geom_type != "LineString" or part.is_empty:
                    continue
                draw.line(to_px(np.asarray(part.coords)), fill=colour, width=wpx)

    ww = m.layer("waterways")
    for cls, (col, width) in WATERWAY_STYLE.items():
        if len(ww):
            lines(ww[ww["class"] == cls], col, width)
    if roads:
        rd = m.layer("roads")
        for cls in reversed(list(ROAD_STYLE)):
            col, width = ROAD_STYLE[cls]
            if len(rd):
                sub = rd[rd["class"] == cls]
                if cls in ("motorway", "primary", "secondary"):
                    lines(sub, (90, 70, 50), width + 1.2)  # casing
                lines(sub, col, width)
        rail = m.layer("rail")
        if len(rail):
            lines(rail, (70, 70, 70), 1.4)
    if hex_outlines:
        polys = m.hex_polygons()
        import shapely

        wpx = 1
        for p in polys:
            draw.line(
                to_px(np.asarray(shapely.get_coordinates(p))),
                fill=(60, 60, 60, 70),
                width=wpx,
            )
    if labels:
        pl = m.layer("places")
        if len(pl):
            font_big = _font(round(15 * scale))
            font_small = _font(round(11 * scale))
            for _, row in pl.iterrows():
                if row["class"] not in ("town", "village"):
                    continue
                x, y = to_px(np.array([[row["geometry"].x, row["geometry"].y]]))[0]
                font = font_big if row["class"] == "town" else font_small
                draw.text(
                    (x, y),
                    str(row["name"]),
                    fill=(40, 30, 30, 255),
                    font=font,
                    anchor="mm",
                    stroke_width=2,
                    stroke_fill=(255, 255, 255, 200),
                )
    buf = io.BytesIO()
    out = (
        img.quantize(colors=256, method=Image.Quantize.FASTOCTREE) if quantize else img
    )
    out.save(buf, format="PNG", optimize=True)
    west, south = merc_to_lonlat(mb[0], mb[1])
    east, north = merc_to_lonlat(mb[2], mb[3])
    return TerrainImage(
        png=buf.getvalue(),
        latlon_corners=((south, west), (north, east)),
        size=(w, h),
    )


_MERC_TO_LONLAT = Transformer.from_crs(WEB_MERCATOR, "EPSG:4326", always_xy=True)


def merc_to_lonlat(mx: float, my: float) -> tuple[float, float]:
    """Web Mercator metres to (lon, lat)."""
    lon, lat = _MERC_TO_LONLAT.transform(mx, my)
    return float(lon), float(lat)


def _font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    try:
        return ImageFont.load_default(size=max(8, size))
    except TypeError:  # Pillow < 10.1
        return ImageFont.load_default()


def map_picture(
    m: Map, *, hex_outlines: bool = False, labels: bool = True
) -> TerrainImage:
    """The terrain picture of a map, as fast as possible.

    The whole map's picture ships with the map (``terrain.png``, and
    ``terrain-plain.png`` without the place names, for views that draw the
    names themselves: :mod:`wargame.render.places`); windows and pictures with
    hex outlines are rendered once and kept in the per-user cache.
    """
    import json

    from wargame.geo.maps import _cache_key, _read_checked, cache_dir

    pic = m.meta.get("picture")
    shipped = pic and (pic["file"] if labels else pic.get("plain"))
    if pic and shipped and m.window is None and not hex_outlines:
        png = _read_checked(m.folder, shipped, m.meta)
        # the map's metadata.json keeps the corners under "lonlat_bounds" as
        # ((south, west), (north, east)), the order Leaflet takes
        (s, w), (n, e) = pic["lonlat_bounds"]
        size = Image.open(io.BytesIO(png)).size
        return TerrainImage(png=png, latlon_corners=((s, w), (n, e)), size=size)
    key = (
        _cache_key(m) + ("-hex" if hex_outlines else "") + ("" if labels else "-plain")
    )
    folder = cache_dir() / "pictures"
    png_path = folder / f"{m.name}-{key}.png"
    meta_path = png_path.with_suffix(".json")
    if png_path.is_file() and meta_path.is_file():
        try:
            info = json.loads(meta_path.read_text())
            png = png_path.read_bytes()
            (s, w), (n, e) = info["latlon_corners"]
            return TerrainImage(
                png=png, latlon_corners=((s, w), (n, e)), size=tuple(info["size"])
            )  # type: ignore[arg-type]
        except (OSError, ValueError, KeyError):
            pass  # damaged cache: render again
    res = 6.0 if m.window is not None else 12.0
    img = terrain_image(m, metres_per_px=res, hex_outlines=hex_outlines, labels=labels)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        png_path.write_bytes(img.png)
        meta_path.write_text(
            json.dumps({"latlon_corners": img.latlon_corners, "size": img.size})
        )
    except OSError:
        pass
    return img
