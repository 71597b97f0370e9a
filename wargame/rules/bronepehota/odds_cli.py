"""``wargame odds bronepehota-2008``: exact shot odds from the command line.

One figure of the 2008 armlists shooting at another (§7.4): the shooter is a
squad's soldier (``--shooter pl_tribunators --soldier 2``: his personal weapon)
or a machine's weapon (``--shooter spider --weapon "автоматическая пушка"``);
the target a squad's soldier (``--target-soldier``, his Бр) or a machine at
``--durability`` (its cell is its armour, §5.2; default the top of the track).
The distance is ``--range`` in steps (rounded up, §7.4 I), the target's
visibility ``--cover`` (Table 5: ``full`` +0, ``more_than_half`` +1,
``less_than_half`` +3).  The report gives P(hit) and P(k damages) for
k = 0..n (:func:`~.odds.shot_odds`); ``--list`` names the units and weapons.
"""

from __future__ import annotations

import argparse
import difflib
from collections.abc import Iterable

__all__ = ["OddsCommand"]

_VISIBILITY = {"full": 0, "more_than_half": 1, "less_than_half": 3}


def _unknown(what: str, value: str, choices: Iterable[str]) -> ValueError:
    """A ValueError naming the bad ``value`` of option ``what`` and the choices."""
    names = sorted(choices)
    near = difflib.get_close_matches(value, names, n=1)
    hint = f" (did you mean {near[0]!r}?)" if near else ""
    return ValueError(
        f"{what}: unknown {value!r}{hint}; choose one of: {', '.join(names)}"
    )


class OddsCommand:
    """Mixin: the classmethods ``wargame odds`` calls."""

    @classmethod
    def odds_arguments(cls, parser: argparse.ArgumentParser) -> None:
        """The options of ``wargame odds bronepehota-2008``."""
        parser.add_argument("--shooter", help="squad or machine id (--list)")
        parser.add_argument(
            "--soldier", type=int, default=1, help="the shooting soldier, 1-6"
        )
        parser.add_argument("--weapon", help="the machine's weapon (--list)")
        parser.add_argument("--target", help="squad or machine id (--list)")
        parser.add_argument(
            "--target-soldier", type=int, default=1, help="the soldier shot at, 1-6"
        )
        parser.add_argument(
            "--durability", type=int, help="a target machine's cell (default: top)"
        )
        parser.add_argument(
            "--range", type=float, help="distance in steps (5 cm; rounded up)"
        )
        parser.add_argument(
            "--cover", default="full", help=f"visibility: {', '.join(_VISIBILITY)}"
        )
        parser.add_argument("--list", action="store_true", help="units and weapons")

    @classmethod
    def odds_report(cls, args: argparse.Namespace) -> str:
        """The text of ``wargame odds bronepehota-2008`` (``ValueError``: bad option).

        Examples:
            >>> ns = argparse.Namespace(list=False, shooter="pl_tribunators",
            ...     soldier=1, weapon=None, target="tp_cyber_infantry",
            ...     target_soldier=1, durability=None, range=4.2, cover="full")
            >>> print(OddsCommand.odds_report(ns).splitlines()[2])
            P(hit) 0.6667
        """
        from .data import load_armlists
        from .odds import hit_probability, shot_odds
        from .shooting import steps

        arm = load_armlists()
        units = {**arm.squads, **arm.machines}
        if args.list:
            lines = []
            for k, s in sorted(arm.squads.items()):
                lines.append(f"{k:28s} squad    {s.name} ({s.faction})")
            for k, m in sorted(arm.machines.items()):
                guns = [w.name for w in m.weapons if w.range is not None]
                lines.append(
                    f"{k:28s} machine  {m.name} ({m.faction}), durability "
                    f"1..{m.durability_max}; weapons: {'; '.join(guns) or '-'}"
                )
            return "\n".join(lines)
        for opt in ("shooter", "target", "range"):
            if getattr(args, opt) is None:
                raise ValueError(
                    f"--{opt} is missing; e.g. --shooter pl_tribunators --target "
                    "spider --range 5 (--list for the ids)"
                )
        for opt in ("shooter", "target"):
            if getattr(args, opt) not in units:
                raise _unknown(f"--{opt}", getattr(args, opt), units)
        if not args.range >= 0:
            raise ValueError(f"--range must be 0 or more steps, not {args.range}")
        if args.cover not in _VISIBILITY:
            raise _unknown("--cover", args.cover, _VISIBILITY)
        cover = _VISIBILITY[args.cover]
        # the shooter's dice
        if args.shooter in arm.machines:
            mach = arm.machines[args.shooter]
            arms = {w.name: w for w in mach.weapons if w.range is not None}
            if args.weapon is None:
                raise ValueError(
                    f"--weapon is missing for machine {args.shooter!r}; choose one "
                    f"of: {', '.join(sorted(arms))}"
                )
            if args.weapon not in arms:
                raise _unknown(f"--weapon of {args.shooter}", args.weapon, arms)
            w = arms[args.weapon]
            assert w.range is not None and w.power is not None
            rng, power, who = w.range, w.power, f"{mach.name}'s {w.name}"
        else:
            if args.weapon is not None:
                raise ValueError(
                    f"--weapon: {args.shooter!r} is a squad; its soldiers fire their "
                    "personal weapons (give --soldier 1-6)"
                )
            sq = arm.squads[args.shooter]
            if not 1 <= args.soldier <= len(sq.soldiers):
                raise ValueError(f"--soldier must be 1..{len(sq.soldiers)}")
            s = sq.soldiers[args.soldier - 1]
            if s.range is None or s.power is None:
                armed = [str(x.number) for x in sq.soldiers if x.range and x.power] or [
                    "none"
                ]
                raise ValueError(
                    f"--soldier: soldier {args.soldier} of {args.shooter} has no "
                    f"ranged weapon (dashes, §7.1); armed: {', '.join(armed)}"
                )
            rng, power = s.range, s.power
            who = f"{sq.name}, soldier {args.soldier}"
        # the target's armour
        if args.target in arm.machines:
            tm = arm.machines[args.target]
            cell = tm.durability_max if args.durability is None else args.durability
            if not 1 <= cell <= tm.durability_max:
                raise ValueError(
                    f"--durability must be 1..{tm.durability_max} for {tm.name}"
                )
            armour, whom = cell, f"{tm.name} at durability {cell} (§5.2)"
        else:
            if args.durability is not None:
                raise ValueError(f"--durability: {args.target!r} is a squad")
            tq = arm.squads[args.target]
            if not 1 <= args.target_soldier <= len(tq.soldiers):
                raise ValueError(f"--target-soldier must be 1..{len(tq.soldiers)}")
            armour = tq.soldiers[args.target_soldier - 1].armour
            whom = f"{tq.name}, soldier {args.target_soldier} (Бр {armour})"
        p_hit = hit_probability(rng, args.range)
        pmf = shot_odds(rng, args.range, power, armour, cover=cover)
        lines = [
            f"{who} (range {rng}, power {power}) at {whom}",
            f"{steps(args.range)} steps; cover {args.cover} +{cover}: each die "
            f"above {armour + cover} is one damage",
            f"P(hit) {float(p_hit):.4f}",
            *(f"  {k} damage  {p:.4f}" for k, p in pmf.items()),
            f"expected damage {sum(k * p for k, p in pmf.items()):.4f}",
        ]
        return "\n".join(lines)
