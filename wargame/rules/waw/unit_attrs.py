"""World at War's per-unit markers, kept in the engine unit's ``attrs``.

The engine's :class:`~wargame.engine.Unit` knows no rule system; World at War
keeps its Disrupted and Ops Complete markers and the carrier of a riding platoon
in ``Unit.attrs`` (keys ``"disrupted"``, ``"ops_complete"``, ``"carried_by"``),
set with :func:`~wargame.engine.unit_change` like any other unit field.  Read
them with these accessors (plain functions: they sit on the hot paths of
``legal_actions`` and line-of-sight loops).

Examples:
    >>> from wargame.engine import Unit
    >>> u = Unit("A1", "M1 A1", "nato", None, "m1", "K12", attrs={"disrupted": True})
    >>> disrupted(u), ops_complete(u), carried_by(u)
    (True, False, None)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from wargame.engine import Unit

__all__ = ["carried_by", "disrupted", "ops_complete"]


def disrupted(u: Unit) -> bool:
    """The unit carries a Disrupted marker."""
    return bool(u.attrs.get("disrupted", False))


def ops_complete(u: Unit) -> bool:
    """The unit carries an Ops Complete marker."""
    return bool(u.attrs.get("ops_complete", False))


def carried_by(u: Unit) -> str | None:
    """The id of the carrier the unit rides in, or ``None``."""
    carrier: str | None = u.attrs.get("carried_by")
    return carrier
