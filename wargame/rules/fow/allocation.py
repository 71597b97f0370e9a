"""Allocating hits to the teams of the target platoon (Flames of War v3).

The rules, in our own words, with their sources:

* The player who owns the target platoon allocates the hits to its teams, not
  the shooter (that the shooter assigns hits is new in v4).  research/fow.md
  §3.3 [B: S15; A: S5].
* Hits from weapons with different anti-tank or Firepower ratings are allocated
  type by type, as evenly as possible: no team takes a second hit of a type until
  every team has one hit of that type.  Each type's hits are kept apart (each is
  saved with its own AT and Firepower).  research/fow.md §3.3 [A: S5].
* A platoon can score more hits than the target has teams ("multiple kills").
  research/fow.md §3.3 [A: S5].

Assumptions (gaps in the sources, research/fow.md §10 item 8):

* The rest of the multiple-kill rule is not readable.  Here surplus hits simply
  wrap around: a third hit of a type goes to a team only after every team has
  two, and so on.  Every hit is then saved on its own.
* The owner's choice is given as one order of preference (``teams``, who takes
  hits first), used for every weapon type: each type starts again at the top of
  that order.  An owner who wants another order for some type calls
  :func:`allocate` for that type alone.
* Which teams may be allocated hits at all (line of sight, range) is the
  caller's business: pass only the teams that can take them.

Examples:
    >>> allocate({"rifle": 5, "hmg": 2}, ["a", "b", "c", "d"])["rifle"]
    {'a': 2, 'b': 1, 'c': 1, 'd': 1}
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from .dice import _int

__all__ = ["allocate"]


def allocate(
    hits: Mapping[str, int], teams: Sequence[str]
) -> dict[str, dict[str, int]]:
    """Spread each weapon type's hits over the target's teams, as the owner chooses.

    Args:
        hits: hits scored, by weapon type (each type = one AT/Firepower pair).
        teams: the target platoon's teams that can take hits, in the owner's
            order of preference (the first takes hits first).

    Returns:
        For each weapon type in ``hits``, the number of hits per team, with every
        team listed in ``teams`` order (0 for a team without a hit of that type).

    Raises:
        ValueError: a negative or non-integer hit count, a repeated team, or hits
            with no team to take them.

    Examples:
        >>> allocate({"hmg": 2}, ["a", "b", "c", "d"])
        {'hmg': {'a': 1, 'b': 1, 'c': 0, 'd': 0}}
        >>> allocate({"hmg": 2}, ["d", "c", "b", "a"])  # the owner picks who
        {'hmg': {'d': 1, 'c': 1, 'b': 0, 'a': 0}}
        >>> allocate({"mg": 7}, ["a", "b", "c"])  # multiple kills wrap around
        {'mg': {'a': 3, 'b': 2, 'c': 2}}
    """
    order = list(teams)
    repeated = sorted({t for t in order if order.count(t) > 1})
    if repeated:
        raise ValueError(f"teams: each team once, repeated {repeated}")
    out: dict[str, dict[str, int]] = {}
    for weapon, count in hits.items():
        n = _int(f"hits[{weapon!r}]", count, 0)
        if n and not order:
            raise ValueError(f"teams: {n} {weapon!r} hit(s) but no team to take them")
        rounds, extra = divmod(n, len(order)) if order else (0, 0)
        out[weapon] = {t: rounds + (i < extra) for i, t in enumerate(order)}
    return out
