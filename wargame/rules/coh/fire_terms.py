"""The building blocks of an attack's numbers (CoH 2e §7.0-7.7, §7.5), shared
by unit fire (:meth:`.fire.Combat.fire_math`), flamethrowers
(:meth:`.pioneers.Pioneers.flame_math`) and fire at fortifications and
obstacles (:mod:`.obstacles`): each returns the modifier and the words the log
shows, or ``(0, None)`` when nothing applies.

Examples:
    >>> range_fp(crewed=False, reach=5, d=0)
    (4, 'close combat +4 (§7.7.3)')
    >>> range_fp(crewed=True, reach=5, d=0)
    (-2, 'close combat -2 (§7.7.3)')
    >>> range_fp(crewed=False, reach=5, d=1)
    (3, 'adjacent +3 (§7.7.2)')
    >>> range_fp(crewed=False, reach=5, d=7)
    (-2, 'long range -2 (§7.7.1)')
    >>> range_fp(crewed=False, reach=5, d=7, long_range=False)
    (0, None)
"""

from __future__ import annotations

from .hit_markers import HitMarker

__all__ = ["marker_dr", "marker_fp", "range_fp"]

#: Close combat: +4 FP, or -2 for a white-boxed (crewed) FP (§7.7.3).
CC_FP, CC_FP_CREWED = 4, -2
#: Next to the target: +3 FP (§7.7.2).
ADJACENT_FP = 3
#: Beyond the printed range, up to twice it: -2 FP (§7.7.1).
LONG_RANGE_FP = -2


def range_fp(
    *, crewed: bool, reach: int, d: int, long_range: bool = True
) -> tuple[int, str | None]:
    """The FP modifier for distance ``d`` (§7.7.1-7.7.3): close combat at 0,
    adjacent at 1, long range beyond ``reach`` (``long_range=False``: none,
    e.g. a flamethrower, which has no long range, §19.1)."""
    if d == 0:
        add = CC_FP_CREWED if crewed else CC_FP
        return add, f"close combat {add:+d} (§7.7.3)"
    if d == 1:
        return ADJACENT_FP, f"adjacent +{ADJACENT_FP} (§7.7.2)"
    if long_range and d > reach:
        return LONG_RANGE_FP, f"long range {LONG_RANGE_FP} (§7.7.1)"
    return 0, None


def marker_fp(m: HitMarker | None, colour: str) -> tuple[int, str | None]:
    """The firer's hit-marker FP modifier for a ``colour`` attack (§7.5)."""
    mod = m.fp_mod(colour) if m is not None else 0
    return (mod, f"{m.name} {mod:+d}") if m is not None and mod else (0, None)


def marker_dr(m: HitMarker | None, flank: bool) -> tuple[int, str | None]:
    """The target's hit-marker DR modifier at its front or flank (§7.5)."""
    mod = m.dr_mod(flank) if m is not None else 0
    return (mod, f"{m.name} {mod:+d}") if m is not None and mod else (0, None)
