"""Бронепехота 2008: the optional rules a scenario turns on.

The rulebook leaves several rules to the players' agreement before the game
(official rules 05.08.08): a scenario names the ones it plays in
``[rules] options = [...]``, checked on load.  Each name and its section:

* ``grenades`` — every infantryman may throw a grenade instead of firing his
  personal weapon (§7.8; :mod:`.grenades`);
* ``blasts`` — a weapon's special property "взрыв": a hit attacks everything
  near the target (§7.4 IV; :mod:`.grenades`);
* ``aimed_fire`` — an infantryman who does nothing but shoot doubles his range
  result (§11.1; :mod:`.aimed`);
* ``panic`` — a survival test equal to Бр: the soldier lives but flees (§11.2;
  :mod:`.panic`);
* ``limited_ammo`` — machines spend their ammunition track (§7.7; played
  before this list existed as ``[rules] limited_ammo = true``, still read);
* ``jump_packs`` — ПрN soldiers may jump instead of walking (§9.4;
  :mod:`.jumps`).

ASSUMPTION (docs, numbered): a scenario without ``options`` plays as before
this list: limited ammunition on (``limited_ammo`` true unless set false) and
every other option off.  A scenario with ``options`` plays exactly the named
ones; it may not also set the old ``limited_ammo`` key.

Examples:
    >>> sorted(OPTIONS)[:3]
    ['aimed_fire', 'blasts', 'grenades']
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, Final

__all__ = ["OPTIONS", "read_options"]

#: The optional rules a scenario may name, and their sections.
OPTIONS: Final[Mapping[str, str]] = MappingProxyType(
    {
        "grenades": "§7.8",
        "blasts": "§7.4 IV",
        "aimed_fire": "§11.1",
        "panic": "§11.2",
        "limited_ammo": "§7.7",
        "jump_packs": "§9.4",
    }
)


def read_options(scenario: Any) -> tuple[frozenset[str], list[str]]:
    """The options a scenario plays (its ``[rules]`` table) and the problems
    found, each naming the file and the field.

    Examples:
        >>> class S:
        ...     source = "x.toml"
        ...     def __init__(self, rules): self.rules = rules
        ...     def section(self, name): return self.rules
        ...     def problem(self, where, text): return f"{self.source}: {where}: {text}"
        >>> read_options(S({}))
        (frozenset({'limited_ammo'}), [])
        >>> sorted(read_options(S({"options": ["grenades", "panic"]}))[0])
        ['grenades', 'panic']
        >>> read_options(S({"options": ["grenade"]}))[1][0][:52]
        "x.toml: rules.options[0]: 'grenade' is not an option"
    """
    rules = scenario.section("rules")
    problems: list[str] = []
    ammo = rules.get("limited_ammo", True)
    if not isinstance(ammo, bool):
        problems.append(scenario.problem("rules.limited_ammo", "must be true/false"))
        ammo = True
    if "options" not in rules:
        # ASSUMPTION: limited ammunition unless the scenario says otherwise: the
        # sheets carry the track and §7.7 leaves it to agreement
        return (frozenset({"limited_ammo"}) if ammo else frozenset()), problems
    raw = rules["options"]
    if "limited_ammo" in rules:
        problems.append(
            scenario.problem(
                "rules.limited_ammo",
                'give it in rules.options ("limited_ammo") or here, not both',
            )
        )
    if not isinstance(raw, list):
        problems.append(
            scenario.problem(
                "rules.options",
                f"must be a list of option names, some of {sorted(OPTIONS)}",
            )
        )
        return frozenset(), problems
    got: set[str] = set()
    for i, name in enumerate(raw):
        if not isinstance(name, str) or name not in OPTIONS:
            problems.append(
                scenario.problem(
                    f"rules.options[{i}]",
                    f"{name!r} is not an option of bronepehota-2008; known options: "
                    + ", ".join(f"{k} ({v})" for k, v in sorted(OPTIONS.items())),
                )
            )
        elif name in got:
            problems.append(
                scenario.problem(f"rules.options[{i}]", f"{name!r} is given twice")
            )
        else:
            got.add(name)
    return frozenset(got), problems
