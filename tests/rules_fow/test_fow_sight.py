"""The remembered team-to-team sight gives the map's own answer, pair by pair."""

from __future__ import annotations

import numpy as np

from wargame.geo.maps import load_map
from wargame.rules.fow.sight import Sight


def test_warmed_sight_equals_the_map_los_for_every_pair() -> None:
    m = load_map()
    rng = np.random.default_rng(7)
    # around the Ludendorff Bridge: river, banks, Erpel's houses, the Ley's woods
    eyes = [
        (375300 + rng.uniform(0, 900), 5604200 + rng.uniform(0, 800)) for _ in range(12)
    ]
    targets = [
        (375300 + rng.uniform(0, 900), 5604200 + rng.uniform(0, 800)) for _ in range(15)
    ]
    warm = Sight(m, margin_m=50.0)
    assert warm.warm(eyes, targets, 1.5, 2.5, max_range_m=700.0) > 0
    seen = total = 0
    for a in eyes:
        for b in targets:
            if np.hypot(a[0] - b[0], a[1] - b[1]) > 700.0:
                continue
            direct = m.los(a, b, 1.5, 2.5, hex_rule=False, margin_m=50.0).visible
            assert warm.sees(a, b, 1.5, 2.5) == bool(direct), (a, b)
            seen += bool(direct)
            total += 1
    assert 0 < seen < total  # a real mix of clear and blocked looks
    # a second warm learns nothing new; other heights are other looks
    assert warm.warm(eyes, targets, 1.5, 2.5, max_range_m=700.0) == 0
    assert warm.warm(eyes[:1], targets[:1], 3.0, 2.5, max_range_m=5000.0) == 1
