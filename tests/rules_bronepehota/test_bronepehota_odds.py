"""Exact shot and melee odds equal brute-force enumeration through the dice path,
and 100,000 seeded shots agree with them within 3 standard errors."""

from __future__ import annotations

import math
from collections import Counter
from fractions import Fraction
from itertools import product

import numpy as np
import pytest

from wargame.rules.bronepehota import (
    melee_odds,
    melee_pmf,
    parse_dice,
    resolve_melee,
    resolve_shot,
    shot_odds,
    shot_pmf,
)

SHOTS = [
    # range, distance in steps, power, armour, cover, bonus, aimed
    ("Д6+2", 4.05, "1Д12", 2, 0, 0, False),  # §7.4 I's shooter
    ("Д12", 5.0, "3Д12", 7, 0, 0, False),  # §7.4 III's SALAMANDER, one die less
    ("D6+1", 9.5, "2D6", 2, 3, 0, True),  # aimed, less than half visible
    ("Д20", 13.2, "2Д20", 11, 1, 0, False),
    ("Д6", 3.0, "3Д6", 6, 0, 1, False),  # nothing can pierce 6 on a Д6
]


def _hit(r, rf, dist, bonus, aimed) -> bool:
    """An independent oracle of §7.4 I (and §11.1): reach >= distance rounded up."""
    reach = (rf + r.bonus + bonus) * (2 if aimed else 1)
    return reach >= math.ceil(dist - 1e-9)


def _brute_shot(rng, dist, power, armour, cover, bonus, aimed) -> dict[int, Fraction]:
    """Every range face x every power face tuple, each resolved by the dice path."""
    r, p = parse_dice(rng), parse_dice(power)
    out: Counter[int] = Counter()
    total = 0
    for rf in range(1, r.sides + 1):
        hit = _hit(r, rf, dist, bonus, aimed)
        if not hit:  # no power dice after a miss: every power tuple weighs the same
            shot = resolve_shot(
                r,
                p,
                dist,
                armour,
                range_face=rf,
                power_faces=None,
                cover=cover,
                range_bonus=bonus,
                aimed=aimed,
            )
            assert not shot.hit
            out[shot.damage] += p.sides**p.count
            total += p.sides**p.count
            continue
        for pf in product(range(1, p.sides + 1), repeat=p.count):
            shot = resolve_shot(
                r,
                p,
                dist,
                armour,
                range_face=rf,
                power_faces=pf,
                cover=cover,
                range_bonus=bonus,
                aimed=aimed,
            )
            assert shot.hit
            out[shot.damage] += 1
            total += 1
    return {k: Fraction(v, total) for k, v in out.items()}


@pytest.mark.parametrize(
    ("rng", "dist", "power", "armour", "cover", "bonus", "aimed"), SHOTS
)
def test_shot_pmf_equals_brute_force_enumeration(
    rng, dist, power, armour, cover, bonus, aimed
) -> None:
    pmf = shot_pmf(
        rng, dist, power, armour, cover=cover, range_bonus=bonus, aimed=aimed
    )
    brute = _brute_shot(rng, dist, power, armour, cover, bonus, aimed)
    assert sum(pmf) == 1
    assert {k: p for k, p in enumerate(pmf) if p} == brute
    s = shot_odds(rng, dist, power, armour, cover=cover, range_bonus=bonus, aimed=aimed)
    assert s.index.name == "damage" and list(s.index) == list(range(len(pmf)))
    assert s.tolist() == [float(p) for p in pmf]


def test_salamander_shot_exact_values() -> None:
    # Д12 at 5 steps hits on 5-12 (2/3); each Д12 pierces armour 7 on 8-12 (5/12)
    pmf = shot_pmf("Д12", 5, "4Д12", 7)
    p = Fraction(5, 12)
    assert pmf[0] == Fraction(1, 3) + Fraction(2, 3) * (1 - p) ** 4
    assert pmf[4] == Fraction(2, 3) * p**4


def test_cover_is_armour_and_equal_faces_never_pierce() -> None:
    # +3 cover on Бр 3 = armour 6: a Д6 power die can never pierce (§7.3, §7.4 II)
    assert shot_odds("Д6+2", 2, "3Д6", 3, cover=3).tolist() == [1.0, 0.0, 0.0, 0.0]
    assert shot_pmf("Д6+2", 2, "1Д6", 5) == (Fraction(5, 6), Fraction(1, 6))


def test_shot_dice_path_agrees_with_exact_odds_over_100000_seeded_shots() -> None:
    rng_die, power = parse_dice("Д12"), parse_dice("4Д12")
    exact = shot_pmf(rng_die, 5.0, power, 7)
    gen = np.random.default_rng(20080805)
    n = 100_000
    range_faces = gen.integers(1, 13, size=n)
    power_faces = gen.integers(1, 13, size=(n, 4))
    counts = Counter(
        resolve_shot(
            rng_die,
            power,
            5.0,
            7,
            range_face=int(rf),
            power_faces=[int(f) for f in pf] if rf >= 5 else None,
        ).damage
        for rf, pf in zip(range_faces, power_faces, strict=True)
    )
    for k, p in enumerate(exact):
        pf = float(p)
        se = math.sqrt(pf * (1 - pf) / n)
        assert abs(counts[k] / n - pf) <= 3 * se + 1e-12, (k, counts[k] / n, pf)


MELEES = [
    ("Д6+2", "Д6+3", False),  # §8.2 Fig. 50
    ("Д6+12", 9, False),  # §8.1 Fig. 49
    ("Д6+4", "Д6+4", True),  # surprise
    ("Д6", 8, False),  # a gun it can never beat
    ("Д6+9", "Д6+9", True),
]


@pytest.mark.parametrize(("attack", "defence", "surprise"), MELEES)
def test_melee_pmf_equals_brute_force_enumeration(attack, defence, surprise) -> None:
    out: Counter[int] = Counter()
    attacks = product(range(1, 7), repeat=2 if surprise else 1)
    defences = [None] if isinstance(defence, int) else list(range(1, 7))
    total = 0
    for af, df in product(list(attacks), defences):
        out[resolve_melee(attack, af, defence, df, surprise=surprise).damage] += 1
        total += 1
    brute = {k: Fraction(v, total) for k, v in out.items()}
    pmf = melee_pmf(attack, defence, surprise=surprise)
    assert {k: p for k, p in pmf.items() if p} == brute
    s = melee_odds(attack, defence, surprise=surprise)
    assert math.isclose(s.sum(), 1.0)
    assert s.index.name == "damage"


def test_melee_infantry_exact_numbers() -> None:
    # Д6+2 against Д6+3 wins only when the attack die beats the defence die by 2+
    pmf = melee_pmf("Д6+2", "Д6+3")
    assert pmf[0] == Fraction(26, 36)
    assert sum(p for k, p in pmf.items() if k) == Fraction(10, 36)
    # surprise: the better of two dice
    assert melee_pmf("Д6", 5, surprise=True)[1] == Fraction(11, 36)
    assert melee_pmf("Д6", 8)[0] == 1


def test_melee_signature_rejects_several_dice() -> None:
    with pytest.raises(ValueError, match="one die plus a bonus"):
        melee_odds("2Д6", "Д6")
