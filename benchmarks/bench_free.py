"""Benchmark: free-movement geography (issue #19) on the shipped Middle Rhine map.

Run: ``PYTHONPATH=. .venv/bin/python benchmarks/bench_free.py [--quick]``.

1. Point LOS, all pairs of 40 x 40 models up to 2 km apart, obstacles on
   (``Map.los_pairs``; target <= 5 ms on 2 cores), in three placements: two
   clusters facing each other across open ground, the same across the Rhine at
   Remagen, and 80 models at random in a 2 km box of woods and fields. The
   answers are compared with the brute-force oracle of the same model
   (``los_oracle.oracle_point_los`` at the model's samples; target >= 99.9 %)
   and with a 0.5 m-step oracle (how far 10 m sampling is from a fine ray).
2. Reach polygon, 1 km allowance with roads (``Map.reach_polygon``, 10 m
   cells; target <= 50 ms) from a town, a wood and open fields.
3. "Who is within d" for 500 models (``PointIndex``; target <= 1 ms): all
   pairs within 150 m, and the index's build.

Medians of repeated runs after a warm-up (numba compiles on first use; the
compiled code is cached on disk). Nothing is asserted.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from typing import Any

import numpy as np

import wargame
from wargame.geo.los import terrain_of_map
from wargame.geo.los_oracle import oracle_point_los
from wargame.geo.measure import PointIndex

COSTS = {
    "clear": 1.0,
    "park": 1.0,
    "orchard": 1.5,
    "wetland": 2.0,
    "woods": 2.0,
    "town": 1.5,
    "water": None,
}
ROADS = {
    "motorway": 0.5,
    "primary": 0.5,
    "secondary": 0.5,
    "tertiary": 0.5,
    "minor": 0.6,
    "track": 0.8,
}


def median_ms(fn: Callable[[], Any], reps: int) -> float:
    fn()
    ts = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t0)
    return statistics.median(ts) * 1e3


def line(what: str, ms: float, target_ms: float) -> None:
    verdict = "ok" if ms <= target_ms else "OVER"
    print(
        f"  {what:<52} {ms:8.3f} ms   target {target_ms:g} ms   "
        f"ratio {ms / target_ms:5.2f}  {verdict}"
    )


def placements(m: Any, rng: np.random.Generator) -> dict[str, tuple[Any, Any]]:
    """Three deployments of 40 + 40 models (in the open where the name says so)."""
    remagen = np.array(m.place_xy("Remagen"))
    ley = np.array(m.place_xy("Erpeler Ley"))
    # fields on the Rhine terrace W of Remagen, where most of them see each other
    fields = np.array((373405.0, 5603218.0))

    def spread(c: Any, r: float, where: tuple[str, ...] | None) -> Any:
        out = np.zeros((0, 2))
        while len(out) < 40:
            p = c + rng.uniform(-r, r, (400, 2))
            if where is not None:
                p = p[np.isin(m.terrain_at(p[:, 0], p[:, 1]), where)]
            out = np.vstack([out, p])
        return out[:40]

    box = remagen + np.array((-3300.0, 2700.0))
    return {
        "two groups in open fields 1.2 km apart, W of Remagen": (
            spread(fields, 300, ("clear", "orchard")),
            spread(fields + np.array((1200, 0)), 300, ("clear", "orchard")),
        ),
        "across the Rhine: Remagen vs Erpeler Ley": (
            spread(remagen, 250, None),
            spread(ley, 250, None),
        ),
        "80 at random in a 1.4 km box (any ground)": (
            spread(box, 700, None),
            spread(box, 700, None),
        ),
    }


def bench_los(m: Any, reps: int, fine_pairs: int) -> None:
    print("1. point LOS, 40 x 40 models, obstacles on (Map.los_pairs)")
    rng = np.random.default_rng(19)
    t = terrain_of_map(m)
    for name, (a, b) in placements(m, rng).items():
        d = np.hypot(*(a[:, None, :] - b[None, :, :]).transpose(2, 0, 1))
        ms = median_ms(lambda a=a, b=b: m.los_pairs(a, b, max_range_m=2000.0), reps)
        v = m.los_pairs(a, b, max_range_m=2000.0)
        line(f"{name} (max {d.max():.0f} m)", ms, 5.0)
        same = np.array(
            [
                [
                    oracle_point_los(
                        t, tuple(p), tuple(q), step_m=10.0, model_samples=True
                    )
                    for q in b
                ]
                for p in a
            ]
        )
        k = rng.choice(1600, fine_pairs, replace=False)
        fine = np.array(
            [
                oracle_point_los(t, tuple(a[i // 40]), tuple(b[i % 40]), step_m=0.5)
                for i in k
            ]
        )
        print(
            f"      visible {v.mean():6.1%}; agreement with the same-model oracle "
            f"{(same == v).mean():.4%} (target 99.9 %), with a 0.5 m-step "
            f"oracle {(fine == v.ravel()[k]).mean():.2%} ({fine_pairs} pairs)"
        )


def bench_reach(m: Any, reps: int) -> None:
    print("2. reach polygon, 1 km allowance, real going with roads (10 m cells)")
    remagen = np.array(m.place_xy("Remagen"))
    starts = {
        "Remagen (town, roads, Rhine bank)": tuple(remagen),
        "open fields west of Remagen": tuple(remagen + np.array((-2500, -1500))),
        "Linz (town on the east bank)": m.place_xy("Linz"),
    }
    for name, o in starts.items():
        ms = median_ms(lambda o=o: m.reach_polygon(o, 1000.0, COSTS, ROADS), reps)
        p = m.reach_polygon(o, 1000.0, COSTS, ROADS)
        line(f"{name}: {p.area / 1e6:.2f} km²", ms, 50.0)


def bench_within(reps: int) -> None:
    print('3. "who is within d", 500 models in a 3 km box (PointIndex)')
    rng = np.random.default_rng(5)
    xy = rng.uniform(0, 3000, (500, 2))
    idx = PointIndex(xy)
    ms = median_ms(lambda: idx.pairs_within(150.0), reps * 10)
    line(f"all pairs within 150 m ({len(idx.pairs_within(150.0))} pairs)", ms, 1.0)
    ms = median_ms(lambda: PointIndex(xy).pairs_within(150.0), reps * 10)
    line("build the index + all pairs within 150 m", ms, 1.0)
    ms = median_ms(lambda: idx.within((1500.0, 1500.0), 150.0), reps * 10)
    line("one model: who is within 150 m", ms, 1.0)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="fewer repetitions")
    args = ap.parse_args()
    reps = 5 if args.quick else 31
    m = wargame.load_map("rhine-remagen")
    t0 = time.perf_counter()
    bench_los(m, reps, 100 if args.quick else 400)
    bench_reach(m, reps)
    bench_within(reps)
    print(f"(total {time.perf_counter() - t0:.0f} s)")


if __name__ == "__main__":
    main()
