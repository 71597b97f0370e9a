"""Benchmark: viewsheds and the hex LOS table vs GDAL and xarray-spatial, with oracles.

Run: ``.venv/bin/python benchmarks/bench_los.py`` (a developer tool: it reads the raw
SRTM tile ``../shared/geodata/dem/N50E007.hgt``; tests never need it).

What it does, in one run on the same DEM:

1. Whole 1201 x 1201 SRTM3 tile, one observer (obstacles off, eye 2.5 m, target
   0 m, curvature coefficient 0.85714; cells 58.9 m x 92.7 m at 50.5 N):
   this project's R2 sweep vs GDAL's ``ViewshedGenerate`` vs xarray-spatial's
   ``viewshed`` (which has no curvature option: it runs without, and is compared
   with a curvature-free oracle). Also within a 10 km radius, where GDAL returns
   the window around the circle and so does ours (``window=True``; the whole-tile
   raster is timed too).
2. Agreement of each with a brute-force oracle: one ray per target cell sampled
   every 0.1 cell on the bilinear DEM (``wargame.geo.los_oracle``), on a seeded
   random sample of cells.
3. The all-pairs hex LOS table of the whole map at range 20 (obstacles on and off),
   its agreement with a 0.5 m-step oracle on a seeded sample of pairs, and the
   3 km hex viewshed polygon (``Map.hex_viewshed``) ready for display.

GDAL and xarray-spatial run in their own virtualenv, ``benchmarks/_work/venv``
(gitignored), which this script creates on first use: ``pip install
gdal==$(gdal-config --version)`` needs Debian's ``libgdal-dev`` (``apt-get install
-y libgdal-dev``). A competitor that cannot be installed is skipped with a message.
Medians of repeated runs are printed; nothing is asserted.

Options: ``--quick`` (fewer repetitions and oracle samples), ``--no-install``
(never create the competitor venv), ``--observer lon,lat`` (repeatable).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
WORK = HERE / "_work"
VENV = WORK / "venv"
TILE = HERE.parents[1] / "shared" / "geodata" / "dem" / "N50E007.hgt"
EYE_M, TARGET_M, CURV = 2.5, 0.0, 0.85714
EARTH_MEAN_RADIUS_M = 6_371_008.8  # for the tile's cell size in metres
OBSERVERS = {  # name: (lon, lat)
    "Erpeler Ley (cliff over the Rhine)": (7.2500, 50.5850),
    "Grosser Oelberg (Siebengebirge top)": (7.2617, 50.6711),
}

# --------------------------------------------------------------------------- #
# competitor worker (runs inside benchmarks/_work/venv)                       #
# --------------------------------------------------------------------------- #

WORKER = r"""
import json, sys, time
import numpy as np
spec = json.loads(sys.argv[1])
z = np.load(spec["dem"]).astype(np.float32)
ny, nx = z.shape
dx, dy, reps = spec["dx"], spec["dy"], spec["reps"]
out = {}

def timed(fn, n):
    ts, res = [], None
    for _ in range(n):
        t0 = time.perf_counter(); res = fn(); ts.append(time.perf_counter() - t0)
    return ts, res

if spec["tool"] == "gdal":
    from osgeo import gdal, osr
    gdal.UseExceptions()
    ds = gdal.GetDriverByName("MEM").Create("", nx, ny, 1, gdal.GDT_Float32)
    ds.SetGeoTransform((0.0, dx, 0.0, ny * dy, 0.0, -dy))
    srs = osr.SpatialReference(); srs.ImportFromEPSG(32632)
    ds.SetProjection(srs.ExportToWkt())
    band = ds.GetRasterBand(1); band.WriteArray(z)
    out["version"] = gdal.__version__
    for case in spec["cases"]:
        r, c, maxd = case["row"], case["col"], case["max_distance_m"]
        ox, oy = (c + 0.5) * dx, ny * dy - (r + 0.5) * dy
        def run():
            vs = gdal.ViewshedGenerate(band, "MEM", "", [], ox, oy, spec["eye"],
                                       spec["target"], 255, 0, 0, 0, spec["curv"],
                                       gdal.GVM_Edge, maxd)
            a = vs.GetRasterBand(1).ReadAsArray()
            gt = vs.GetGeoTransform()
            return a, gt
        ts, (a, gt) = timed(run, case["reps"])
        full = np.zeros((ny, nx), bool)
        c0 = int(round(gt[0] / dx)); r0 = int(round((ny * dy - gt[3]) / dy))
        full[r0:r0 + a.shape[0], c0:c0 + a.shape[1]] = a == 255
        np.save(case["out"], full)
        out[case["name"]] = ts
elif spec["tool"] == "xrspatial":
    import xarray as xr
    import xrspatial
    out["version"] = xrspatial.__version__
    for case in spec["cases"]:
        r, c, maxd = case["row"], case["col"], case["max_distance_m"]
        if maxd > 0:  # xarray-spatial has no range limit: cut the window
            h = int(maxd // dy) + 1; w = int(maxd // dx) + 1
            r0, c0 = max(0, r - h), max(0, c - w)
            sub = z[r0:r + h + 1, c0:c + w + 1]
        else:
            r0, c0, sub = 0, 0, z
        da = xr.DataArray(sub, dims=["y", "x"])
        da["y"] = (ny - r0 - np.arange(sub.shape[0]) - 0.5) * dy
        da["x"] = (c0 + np.arange(sub.shape[1]) + 0.5) * dx
        def run():
            return xrspatial.viewshed(da, x=float(da["x"][c - c0]),
                                      y=float(da["y"][r - r0]),
                                      observer_elev=spec["eye"],
                                      target_elev=spec["target"]).values
        ts, a = timed(run, case["reps"])
        full = np.zeros((ny, nx), bool)
        full[r0:r0 + a.shape[0], c0:c0 + a.shape[1]] = a != -1
        np.save(case["out"], full)
        out[case["name"]] = ts
print("RESULT " + json.dumps(out))
"""


def ensure_venv(install: bool) -> Path | None:
    """The competitors' python, creating benchmarks/_work/venv if allowed."""
    py = VENV / "bin" / "python"
    if py.exists():
        return py
    if not install:
        print(
            "  (no competitor venv and --no-install: skipping GDAL and xarray-spatial)"
        )
        return None
    gdal_config = shutil.which("gdal-config")
    print(
        "  creating benchmarks/_work/venv for GDAL and xarray-spatial ...", flush=True
    )
    subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True)
    pip = [str(py), "-m", "pip", "install", "-q"]
    subprocess.run([*pip, "numpy", "setuptools", "wheel"], check=False)
    if gdal_config:
        ver = subprocess.run(
            [gdal_config, "--version"], capture_output=True, text=True
        ).stdout.strip()
        r = subprocess.run([*pip, "--no-build-isolation", f"gdal=={ver}"], check=False)
        if r.returncode:
            print(f"  ! pip install gdal=={ver} failed: GDAL will be skipped")
    else:
        print(
            "  ! gdal-config not found (apt-get install -y libgdal-dev): GDAL skipped"
        )
    r = subprocess.run([*pip, "xarray-spatial", "xarray"], check=False)
    if r.returncode:
        print("  ! pip install xarray-spatial failed: it will be skipped")
    return py


def run_worker(py: Path | None, tool: str, spec: dict) -> dict | None:
    if py is None:
        return None
    proc = subprocess.run(
        [str(py), "-c", WORKER, json.dumps({**spec, "tool": tool})],
        capture_output=True,
        text=True,
    )
    for line in proc.stdout.splitlines():
        if line.startswith("RESULT "):
            return json.loads(line[7:])
    err = (proc.stderr.strip().splitlines() or ["no output"])[-1]
    print(f"  ! {tool} skipped: {err}")
    return None


# --------------------------------------------------------------------------- #
# helpers                                                                     #
# --------------------------------------------------------------------------- #


def load_tile() -> np.ndarray:
    raw = np.fromfile(TILE, ">i2").reshape(1201, 1201).astype(np.float32)
    z = raw.copy()
    bad = z < -1000  # SRTM voids: filled with the mean of valid 4-neighbours
    while bad.any():
        p = np.pad(np.where(bad, np.nan, z), 1, constant_values=np.nan)
        nb = np.stack([p[:-2, 1:-1], p[2:, 1:-1], p[1:-1, :-2], p[1:-1, 2:]])
        with np.errstate(all="ignore"):
            cnt = (~np.isnan(nb)).sum(0)
            mean = np.nansum(nb, 0) / np.maximum(cnt, 1)
        fill = bad & (cnt > 0)
        z[fill] = mean[fill]
        bad &= ~fill
    return z


def timed(fn, n: int) -> tuple[list[float], object]:
    ts, res = [], None
    for _ in range(n):
        t0 = time.perf_counter()
        res = fn()
        ts.append(time.perf_counter() - t0)
    return ts, res


class Ms(float):
    """A median in milliseconds that also remembers the best run."""

    best: float


def med_ms(ts: list[float]) -> Ms:
    out = Ms(statistics.median(ts) * 1e3)
    out.best = min(ts) * 1e3
    return out


def fmt_ms(ms: float) -> str:
    return f"{ms:,.1f} ms" if ms < 1e4 else f"{ms / 1e3:,.1f} s"


class Table:
    def __init__(self) -> None:
        self.rows: list[tuple[str, str, str, str, str]] = []

    def add(
        self,
        what: str,
        who: str,
        ms: float | None,
        ref_ms: float | None,
        agree: str = "",
    ) -> None:
        t = "skipped" if ms is None else fmt_ms(ms)
        best = getattr(ms, "best", None)
        t += "" if best is None else f" (best {fmt_ms(best)})"
        ratio = "" if ms is None or not ref_ms else f"{ms / ref_ms:,.2f}x"
        self.rows.append((what, who, t, ratio, agree))

    def print(self) -> None:
        head = ("case", "implementation", "median (best)", "vs ours", "agreement")
        w = [max(len(r[i]) for r in [head, *self.rows]) for i in range(5)]
        line = "  ".join(h.ljust(w[i]) for i, h in enumerate(head))
        print("\n" + line + "\n" + "-" * len(line))
        for r in self.rows:
            print(
                "  ".join(
                    v.ljust(w[i]) if i != 2 else v.rjust(w[i]) for i, v in enumerate(r)
                )
            )


# --------------------------------------------------------------------------- #
# main                                                                        #
# --------------------------------------------------------------------------- #


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--no-install", action="store_true")
    ap.add_argument("--observer", action="append", default=[])
    ap.add_argument(
        "--parts",
        default="tile,table,hex",
        help="comma-separated subset of tile,table,hex",
    )
    args = ap.parse_args()
    parts = set(args.parts.split(","))
    # a 10 km viewshed takes about a millisecond: many calls cost nothing and make
    # its median steady (seven moved by +-40 % between runs)
    reps_tile, reps_10k = (3, 51) if args.quick else (9, 201)
    n_cells = 4_000 if args.quick else 20_000
    n_pairs = 1_000 if args.quick else 5_000

    import numba

    import wargame
    from wargame.geo import los as L
    from wargame.geo.los_oracle import oracle_pairs, oracle_viewshed
    from wargame.geo.viewshed import viewshed_array

    print(
        f"wargame {wargame.__version__}, numba {numba.__version__}, "
        f"numpy {np.__version__}, {os.cpu_count()} cores, "
        f"{numba.config.NUMBA_NUM_THREADS} numba threads"
    )
    table = Table()
    observers = dict(OBSERVERS)
    for o in args.observer:
        lon, lat = (float(v) for v in o.split(","))
        observers[f"({lon}, {lat})"] = (lon, lat)

    # ---- 1 + 2: viewsheds on the raw tile --------------------------------- #
    if "tile" not in parts:
        pass
    elif not TILE.is_file():
        print(f"! {TILE} not found: skipping the SRTM tile viewsheds")
    else:
        WORK.mkdir(exist_ok=True)
        z = load_tile()
        dem_path = WORK / "N50E007_filled.npy"
        np.save(dem_path, z)
        ny, nx = z.shape
        lat_c = 50.5
        dy = EARTH_MEAN_RADIUS_M * math.radians(3 / 3600)
        dx = dy * math.cos(math.radians(lat_c))
        print(
            f"SRTM tile {nx} x {ny}, cells {dx:.1f} m x {dy:.1f} m, "
            f"eye {EYE_M} m, target {TARGET_M} m, curvature {CURV}"
        )
        py = ensure_venv(not args.no_install)
        cases = []
        for name, (lon, lat) in observers.items():
            r = round((51 - lat) * 1200)
            c = round((lon - 7) * 1200)
            for maxd, reps in ((0.0, reps_tile), (10_000.0, reps_10k)):
                tag = f"{'tile' if maxd == 0 else '10km'}-{r}-{c}"
                cases.append(
                    {
                        "name": tag,
                        "row": r,
                        "col": c,
                        "max_distance_m": maxd,
                        "reps": reps,
                        "label": name,
                    }
                )
        viewshed_array(z[:50, :50], dx, dy, 25, 25)  # compile outside the timings
        spec = {
            "dem": str(dem_path),
            "dx": dx,
            "dy": dy,
            "eye": EYE_M,
            "target": TARGET_M,
            "curv": CURV,
            "reps": 0,
        }
        comp: dict[str, dict | None] = {}
        for tool in ("gdal", "xrspatial"):
            tcases = []
            for cs in cases:
                reps = (
                    cs["reps"]
                    if tool == "gdal"
                    else (1 if cs["max_distance_m"] == 0 else 3)
                )
                tcases.append(
                    {**cs, "reps": reps, "out": str(WORK / f"{tool}-{cs['name']}.npy")}
                )
            print(f"  running {tool} ...", flush=True)
            comp[tool] = run_worker(py, tool, {**spec, "cases": tcases})
        if comp.get("gdal"):
            print(
                f"  GDAL {comp['gdal']['version']} (python bindings "
                "against Debian's libgdal)"
            )
        if comp.get("xrspatial"):
            print(f"  xarray-spatial {comp['xrspatial']['version']}")
        rng = np.random.default_rng(2024)
        for cs in cases:
            r, c, maxd = cs["row"], cs["col"], cs["max_distance_m"]

            # within a radius GDAL returns the window around the circle (with its
            # geotransform); so does ours with window=True
            def ours_fn(r=r, c=c, maxd=maxd, window=maxd > 0):  # type: ignore[no-untyped-def]
                return viewshed_array(
                    z,
                    dx,
                    dy,
                    r,
                    c,
                    EYE_M,
                    TARGET_M,
                    max_distance_m=maxd,
                    curvature_coeff=CURV,
                    window=window,
                )

            ts, ours = timed(ours_fn, cs["reps"])
            ts_full: list[float] = []
            if maxd > 0:
                w = ours
                ours = np.zeros((ny, nx), bool)
                h_, w_ = w.visible.shape
                ours[w.row0 : w.row0 + h_, w.col0 : w.col0 + w_] = w.visible
                ts_full, _ = timed(lambda f=ours_fn: f(window=False), cs["reps"])
            numba.set_num_threads(1)  # GDAL 3.6's viewshed runs on one thread
            ts1, _ = timed(ours_fn, cs["reps"])
            numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
            # oracle on a random sample of cells (within range)
            rr, cc = np.mgrid[0:ny, 0:nx]
            if maxd > 0:
                inside = np.hypot((rr - r) * dy, (cc - c) * dx) <= maxd
            else:
                inside = np.ones((ny, nx), bool)
            cand = np.flatnonzero(inside.ravel())
            pick = rng.choice(cand, min(n_cells, cand.size), replace=False)
            pr, pc = np.divmod(pick, nx)
            t0 = time.perf_counter()
            ref = oracle_viewshed(
                z, dx, dy, r, c, EYE_M, TARGET_M, rows=pr, cols=pc, curvature_coeff=CURV
            )
            t_oracle = time.perf_counter() - t0

            def agree(mask, ref=ref, pr=pr, pc=pc) -> str:  # type: ignore[no-untyped-def]
                a = (mask[pr, pc] == ref).mean() * 100
                return f"{a:.2f} % of {len(pr):,} cells"

            what = f"{'whole tile' if maxd == 0 else '10 km radius'}: {cs['label']}"
            ours_ms = med_ms(ts)
            table.add(
                what,
                f"wargame R2 (numba, {numba.config.NUMBA_NUM_THREADS} threads)",
                ours_ms,
                ours_ms,
                agree(ours) + f" (visible {ref.mean() * 100:.1f} %)",
            )
            table.add(what, "wargame R2 (numba, 1 thread)", med_ms(ts1), ours_ms)
            if ts_full:
                table.add(
                    what,
                    "wargame R2, as a raster of the whole tile",
                    med_ms(ts_full),
                    ours_ms,
                )
            g = comp.get("gdal")
            if g and cs["name"] in g:
                table.add(
                    what,
                    f"GDAL {g['version']} ViewshedGenerate",
                    med_ms(g[cs["name"]]),
                    ours_ms,
                    agree(np.load(WORK / f"gdal-{cs['name']}.npy")),
                )
            else:
                table.add(what, "GDAL ViewshedGenerate", None, None, "not installed")
            x = comp.get("xrspatial")
            if x and cs["name"] in x:
                ref_flat = oracle_viewshed(
                    z,
                    dx,
                    dy,
                    r,
                    c,
                    EYE_M,
                    TARGET_M,
                    rows=pr,
                    cols=pc,
                    curvature_coeff=0.0,
                )
                table.add(
                    what,
                    f"xarray-spatial {x['version']} (no curvature)",
                    med_ms(x[cs["name"]]),
                    ours_ms,
                    agree(np.load(WORK / f"xrspatial-{cs['name']}.npy"), ref_flat)
                    + " (flat-earth oracle)",
                )
            else:
                table.add(what, "xarray-spatial viewshed", None, None, "not installed")
            print(f"  {what}: done (oracle {t_oracle:.1f} s)", flush=True)

    # ---- 3: the hex LOS table on the shipped map --------------------------- #
    m = wargame.load_map("rhine-remagen")
    t = L.terrain_of_map(m)
    _ = m.hexes
    print(
        f"map {m.name}: {m.grid.n_hexes:,} hexes, DEM {m.dem.shape}, "
        f"land cover {m.landcover.shape}"
    )
    # compile (or load from numba's cache) every kernel the table uses, with and
    # without obstacles, so that the timings below are of the builds alone
    woods = np.full((40, 40), L.TERRAIN_CLASSES.index("woods"), np.uint8)
    tiny = L.LOSTerrain.from_dem(np.zeros((8, 8)), 50.0, cover=woods, cover_cell_m=10.0)
    for obst in (True, False):
        L.build_hex_los_table(tiny, 2, obstacles=obst)
    for obst in (True, False) if "table" in parts else ():
        # the first build on a fresh terrain also makes the per-terrain bounds
        # (march cell bounds, packed cover, near-ring bounds), cached for later
        # builds with any eye heights: timed once, apart
        for key in [k for k in t._cache if k != "fp"]:
            del t._cache[key]
        t0 = time.perf_counter()
        L.build_hex_los_table(t, 20, obstacles=obst)
        t_first = time.perf_counter() - t0
        n = (5 if obst else 1) if args.quick else 7
        c0 = time.process_time()
        ts, tab = timed(
            lambda obst=obst: L.build_hex_los_table(t, 20, obstacles=obst), n
        )
        cpu = (time.process_time() - c0) / n
        g = m.grid
        q, r = g.all_axial()
        # pair sample: uniform over observers, then over targets in range
        rng = np.random.default_rng(7)
        i = rng.integers(0, g.n_hexes, n_pairs * 2)
        off = np.array(
            [
                (a, b)
                for a in range(-20, 21)
                for b in range(-20, 21)
                if 0 < (abs(a) + abs(b) + abs(a + b)) // 2 <= 20
            ]
        )
        o = off[rng.integers(0, len(off), i.size)]
        j = g.index_of(q[i] + o[:, 0], r[i] + o[:, 1])
        ok = j >= 0
        i, j = i[ok][:n_pairs], j[ok][:n_pairs]
        cx, cy = g.axial_to_xy(q, r)
        t0 = time.perf_counter()
        ref = oracle_pairs(
            t,
            np.column_stack([cx[i], cy[i]]),
            np.column_stack([cx[j], cy[j]]),
            obstacles=obst,
            step_m=0.5,
        )
        t_oracle = time.perf_counter() - t0
        got = tab.visible_index(i, j)
        dq, dr = L._half_offsets(20)
        qq = q[:, None] + dq[None, :]
        rr_ = r[:, None] + dr[None, :]
        n_pairs_tot = int(g.in_bounds(qq, rr_).sum()) * 2
        what = (
            f"hex LOS table, whole map, range 20 ({n_pairs_tot / 1e6:.1f} M ordered"
            f" pairs), obstacles {'on' if obst else 'off'}"
        )
        table.add(
            what,
            f"wargame (numba; CPU {cpu:.1f} s/run)",
            med_ms(ts),
            med_ms(ts),
            f"{(got == ref).mean() * 100:.2f} % of {len(i):,} pairs "
            f"(visible {ref.mean() * 100:.1f} %)",
        )
        table.add(
            "... its first build on a fresh terrain (+ per-terrain bounds)",
            "wargame (numba)",
            med_ms([t_first]),
            med_ms(ts),
            "",
        )
        print(f"  {what}: done (oracle {t_oracle:.1f} s)", flush=True)

    # ---- 3 km hex viewshed polygon, ready for display ---------------------- #
    if "hex" not in parts:
        table.print()
        return
    rng = np.random.default_rng(3)
    labels = m.hexes.index.to_numpy()
    obs = rng.choice(labels, 15 if args.quick else 41, replace=False)
    m.hex_viewshed(obs[0])
    ts = []
    ts_ll = []
    for h in obs:
        t0 = time.perf_counter()
        hv = m.hex_viewshed(h, range_hexes=20)
        t1 = time.perf_counter()
        m.to_lonlat_geometry(hv.polygon)
        t2 = time.perf_counter()
        ts.append(t1 - t0)
        ts_ll.append(t2 - t0)
    table.add(
        "hex viewshed polygon, 3 km (range 20), map metres",
        "wargame",
        med_ms(ts),
        med_ms(ts),
        "same kernel as the table",
    )
    table.add(
        "... the same in lon/lat for Leaflet", "wargame", med_ms(ts_ll), med_ms(ts)
    )
    for obst in (True, False):
        ley = m.place_xy("Erpeler Ley")
        m.viewshed(ley, 3_000.0, obstacles=obst)
        ts, _ = timed(
            lambda ley=ley, obst=obst: m.viewshed(ley, 3_000.0, obstacles=obst), 7
        )
        table.add(
            f"Map.viewshed polygon, 3 km, obstacles {'on' if obst else 'off'}",
            "wargame",
            med_ms(ts),
            med_ms(ts),
            "per-cell los()" if obst else "R2 sweep",
        )
    table.print()


if __name__ == "__main__":
    main()
