"""``wargame odds coh-2e``: exact attack odds from the command line (CoH 2e §7).

Two ways to ask: the numbers (``--fp 5 --dv 14``), or two unit types at a range
in a terrain (``--attacker de_hmg34 --target su_rifles_41 --range 4 --terrain
heavy_woods``); ``--flank`` uses the target's flank DR, ``--caps`` adds CAPs.
"""

from __future__ import annotations

import argparse
from typing import Any

__all__ = ["OddsCommand", "attack_numbers"]


def attack_numbers(
    a: Any, t: Any, rng: int, terrain: str, *, flank: bool = False
) -> tuple[int, int, str]:
    """FP and DV of unit type ``a`` firing alone at type ``t`` ``rng`` hexes
    away in ``terrain`` on level ground (§7.1-7.3, §7.7), and the reasons.

    Examples:
        >>> from wargame.rules.coh.catalog import unit_type
        >>> hmg, rifles = unit_type("de_hmg34"), unit_type("su_rifles_41")
        >>> attack_numbers(hmg, rifles, 4, "heavy_woods")[:2]
        (5, 14)
    """
    from .board import terrain_chart

    types = terrain_chart()["types"]
    if terrain not in types:
        raise ValueError(
            f"--terrain: unknown terrain {terrain!r}; use one of {sorted(types)}"
        )
    if not isinstance(rng, int) or rng < 0:
        raise ValueError(f"--range must be 0 or more hexes, not {rng!r}")
    blue = t.dr_colour(flank or rng == 0) == "blue"
    base = a.fp_blue if blue else a.fp_red
    if a.fire_cost is None or base is None:
        raise ValueError(
            f"{a.name} has no {'blue' if blue else 'red'} FP against {t.name} (§7.1)"
        )
    reach = int(a.range or 0)
    if rng > 2 * reach:
        raise ValueError(
            f"{rng} hexes is beyond {a.name}'s reach of {2 * reach} (§7.7.1)"
        )
    fp, terms = int(base), [f"{'blue' if blue else 'red'} FP {base}"]
    if rng == 0:
        add = -2 if a.crewed else 4
        fp += add
        terms.append(f"close combat {add:+d}")
    elif rng == 1:
        fp += 3
        terms.append("adjacent +3")
    elif rng > reach:
        fp -= 2
        terms.append("long range -2")
    side = flank or rng == 0 or a.he or a.sniper
    dr = int(t.dr_flank if side else t.dr_front)
    dm = int(types[terrain]["dm"])
    if a.he and not t.armored and terrain == "heavy_woods":
        dm = 0  # air burst (§12.2)
    dv = dr + dm
    terms.append(f"{'flank' if side else 'front'} DR {dr}, terrain {dm:+d}")
    return fp, dv, "; ".join(terms)


class OddsCommand:
    """Mixin: the classmethods the command line calls."""

    @classmethod
    def odds_arguments(cls, parser: argparse.ArgumentParser) -> None:
        """The options of ``wargame odds coh-2e``."""
        parser.add_argument("--fp", type=int, help="the attack's FP")
        parser.add_argument("--dv", type=int, help="the target's DV")
        parser.add_argument("--attacker", help="unit type id of the firer")
        parser.add_argument("--target", help="unit type id of the target")
        parser.add_argument("--range", type=int, default=2, help="range in hexes")
        parser.add_argument(
            "--terrain", default="open", help="terrain of the target hex"
        )
        parser.add_argument("--flank", action="store_true", help="fire at the flank DR")
        parser.add_argument("--caps", type=int, default=0, help="CAPs added (0-2)")
        parser.add_argument("--list", action="store_true", help="list unit type ids")

    @classmethod
    def odds_report(cls, args: argparse.Namespace) -> str:
        """The text of ``wargame odds coh-2e`` (``ValueError``: a bad option)."""
        import difflib

        from .catalog import unit_catalog
        from .odds import fire_odds

        cat = unit_catalog()
        if args.list:
            return "\n".join(f"{k:24s} {v.name}" for k, v in sorted(cat.items()))
        if args.fp is not None or args.dv is not None:
            if args.fp is None or args.dv is None:
                raise ValueError("give both --fp and --dv (or --attacker and --target)")
            fp, dv, how = args.fp, args.dv, f"FP {args.fp} against DV {args.dv}"
        else:
            for opt in ("attacker", "target"):
                v = getattr(args, opt)
                if v is None:
                    raise ValueError(
                        f"--{opt} is missing; e.g. --{opt} de_rifles_41 (--list)"
                    )
                if v not in cat:
                    near = difflib.get_close_matches(v, list(cat), n=1)
                    hint = f"; did you mean {near[0]!r}?" if near else " (--list)"
                    raise ValueError(f"--{opt}: unknown coh-2e unit type {v!r}{hint}")
            a, t = cat[args.attacker], cat[args.target]
            fp, dv, terms = attack_numbers(
                a, t, args.range, args.terrain, flank=args.flank
            )
            how = f"{a.name} at {t.name}, {args.range} hexes, {args.terrain}: " + terms
        p = fire_odds(fp, dv, caps=args.caps)
        lines = [
            how,
            f"AV = {fp} + 2d6"
            + (f" + {args.caps}" if args.caps else "")
            + f" against DV {dv} (hit on AV >= DV, destroyed on AV >= DV + 4)",
        ]
        lines += [f"  {k:10s} {float(v):.4f}" for k, v in p.items()]
        return "\n".join(lines)
