"""``wargame odds fow-v3``: exact shooting odds from the command line.

Two ways to ask: the numbers (``--dice 4 --to-hit 4``, optionally
``--reroll``), or one team shooting at another (``--shooter de_pak40 --target
us_m4a3_sherman --range-in 20``) with the target's ``--skill`` and its
situation (``--concealed``, ``--gone-to-ground``, ``--moved`` for the shooter,
``--side`` armour, ``--cover`` for Bulletproof Cover).  The report gives the
score to hit with each modifier, the hits, and what one hit does (research/fow.md
§3; seed 004 p. 20).
"""

from __future__ import annotations

import argparse
import difflib

__all__ = ["OddsCommand"]


class OddsCommand:
    """Mixin: the classmethods the command line calls."""

    @classmethod
    def odds_arguments(cls, parser: argparse.ArgumentParser) -> None:
        """The options of ``wargame odds fow-v3``."""
        parser.add_argument("--dice", type=int, help="dice rolled")
        parser.add_argument("--to-hit", type=int, help="score needed after modifiers")
        parser.add_argument("--reroll", action="store_true", help="re-roll misses once")
        parser.add_argument("--shooter", help="team type id of the shooter")
        parser.add_argument("--target", help="team type id of the target")
        parser.add_argument("--range-in", type=float, default=10.0, help="inches")
        parser.add_argument(
            "--skill", default="trained", help="the target's skill (sets the score)"
        )
        parser.add_argument("--concealed", action="store_true")
        parser.add_argument("--gone-to-ground", action="store_true")
        parser.add_argument("--moved", action="store_true", help="the shooter moved")
        parser.add_argument("--side", action="store_true", help="hit the side armour")
        parser.add_argument(
            "--cover", action="store_true", help="the target is in Bulletproof Cover"
        )
        parser.add_argument("--list", action="store_true", help="list team type ids")

    @classmethod
    def odds_report(cls, args: argparse.Namespace) -> str:
        """The text of ``wargame odds fow-v3`` (``ValueError``: a bad option).

        Examples:
            >>> ns = argparse.Namespace(dice=4, to_hit=4, reroll=False, list=False,
            ...     shooter=None, target=None)
            >>> print(OddsCommand.odds_report(ns).splitlines()[1])
              0 hits  0.0625
        """
        from .dice import SKILLS, TO_BE_HIT
        from .forces import teams
        from .odds import armour_odds, hit_odds, save_odds
        from .shooting import LONG_RANGE_IN, direct_weapon

        cat = teams()
        if args.list:
            return "\n".join(f"{k:24s} {v.name}" for k, v in sorted(cat.items()))
        if args.dice is not None or args.to_hit is not None:
            if args.dice is None or args.to_hit is None:
                raise ValueError(
                    "give both --dice and --to-hit (or --shooter and --target)"
                )
            p = hit_odds(args.dice, args.to_hit, reroll=args.reroll)
            head = f"{args.dice} dice needing {args.to_hit}+" + (
                ", misses re-rolled once" if args.reroll else ""
            )
            return "\n".join([head, *(f"  {k} hits  {v:.4f}" for k, v in p.items())])
        for opt in ("shooter", "target"):
            v = getattr(args, opt)
            if v is None:
                raise ValueError(
                    f"--{opt} is missing; e.g. --{opt} us_rifle_team (--list)"
                )
            if v not in cat:
                near = difflib.get_close_matches(v, list(cat), n=1)
                hint = f"; did you mean {near[0]!r}?" if near else " (--list)"
                raise ValueError(f"--{opt}: unknown fow-v3 team type {v!r}{hint}")
        if args.skill not in SKILLS:
            raise ValueError(f"--skill: {args.skill!r}; use one of {', '.join(SKILLS)}")
        s, t = cat[args.shooter], cat[args.target]
        w = direct_weapon(s)
        if w is None:
            raise ValueError(f"{s.name} has no direct-fire weapon")
        if not args.range_in >= 0:
            raise ValueError(
                f"--range-in must be 0 or more inches, not {args.range_in}"
            )
        if args.range_in > w.range_in:
            raise ValueError(
                f"{args.range_in:g}\" is beyond {s.name}'s {w.name} range of "
                f'{w.range_in:g}"'
            )
        score = TO_BE_HIT[args.skill]
        terms = [f"{args.skill} target {score}+"]
        if args.range_in > LONG_RANGE_IN:
            score += 1
            terms.append('long range (over 16") +1')
        if args.concealed:
            score += 1
            terms.append("Concealed +1")
            if args.gone_to_ground:
                score += 1
                terms.append("Gone to Ground +1")
        dice = (
            (w.rof_moving if w.rof_moving is not None else 1)
            if args.moved
            else w.rof or 0
        )
        p = hit_odds(dice, score)
        lines = [
            f'{s.name} ({w.name}: {w.range_in:g}", ROF {w.rof}, AT {w.anti_tank}, '
            f'FP {w.firepower}+) at {t.name}, {args.range_in:g}"',
            f"{dice} dice needing {score}+ ({'; '.join(terms)})"
            + ("; above 6 never hits" if score > 6 else ""),
            *(f"  {k} hits  {v:.4f}" for k, v in p.items()),
        ]
        if t.armour is not None:
            face = "side" if args.side else "front"
            armour = t.armour.side if args.side else t.armour.front
            per = armour_odds(armour, w.anti_tank, w.firepower)
            lines.append(f"one hit: {face} armour {armour} against AT {w.anti_tank}")
        else:
            save = t.save if t.save is not None else 7
            per = save_odds(save, w.firepower if args.cover else None)
            lines.append(
                f"one hit: save {save}+"
                + (
                    f", then Firepower {w.firepower}+ (Bulletproof Cover)"
                    if args.cover
                    else ""
                )
            )
        lines += [f"  {k:10s} {v:.4f}" for k, v in per.items()]
        return "\n".join(lines)
