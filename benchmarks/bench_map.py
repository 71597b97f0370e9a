"""Benchmark: map loading (cold and warm) and the hex-attribute computation.

Run: ``.venv/bin/python benchmarks/bench_map.py`` (or ``make bench``). Each figure is
the median of several runs in fresh processes (cold = empty cache, warm = cache
filled); import time of the package is reported separately. Targets on 2 cores:
warm load <= 0.5 s, cold load <= 3 s.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile

CHILD = r"""
import json, time
t0 = time.perf_counter()
import wargame
t1 = time.perf_counter()
m = wargame.load_map("rhine-remagen")
h = m.hexes
t2 = time.perf_counter()
from wargame.geo.maps import compute_hex_attributes
t3 = time.perf_counter()
compute_hex_attributes(m)
t4 = time.perf_counter()
print(json.dumps({"import": t1 - t0, "load": t2 - t1, "hex_attrs": t4 - t3,
                  "hexes": len(h)}))
"""


def run(cache: str) -> dict[str, float]:
    env = {**os.environ, "WARGAME_CACHE": cache}
    out = subprocess.run(
        [sys.executable, "-c", CHILD],
        env=env,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return json.loads(out.strip().splitlines()[-1])


def main(repeats: int = 5) -> None:
    cold, warm = [], []
    for _ in range(repeats):
        with tempfile.TemporaryDirectory() as d:
            cold.append(run(d))
            warm.append(run(d))
    med = lambda rows, k: statistics.median(r[k] for r in rows)  # noqa: E731
    n = int(cold[0]["hexes"])
    print(
        f"rhine-remagen, 150 m hexes: {n} hexes; "
        f"median of {repeats} runs in fresh processes"
    )
    print(f"{'measure':34s} {'median s':>9s} {'target s':>9s} {'ratio':>7s}")
    rows = [
        ("import wargame", med(cold, "import"), None),
        ("load_map + hexes, cold (no cache)", med(cold, "load"), 3.0),
        ("load_map + hexes, warm (cached)", med(warm, "load"), 0.5),
        ("hex attributes alone (compute)", med(warm, "hex_attrs"), None),
    ]
    for name, v, target in rows:
        t = f"{target:9.2f}" if target else f"{'':9s}"
        r = f"{v / target:6.2f}x" if target else ""
        print(f"{name:34s} {v:9.3f} {t} {r:>7s}")


if __name__ == "__main__":
    main()
