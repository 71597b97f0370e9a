"""Actions: what a player (or a policy) decides, as small frozen dataclasses.

Every rule system defines its own action classes by subclassing :class:`Action`
with a ``type`` name.  Field values are limited to ``str``, ``int``, ``float``,
``bool``, ``None``, :class:`~wargame.engine.state.Point` and tuples of those, so
an action round-trips through a plain dict (and JSON) with
:meth:`Action.to_dict` and :func:`action_from_dict`.  A point is stored as
``{"x": ..., "y": ...}`` and decoded back for a field annotated ``Point`` (or
``Point | None``); a path, a field annotated ``tuple[Point, ...]``, is a list
of such tables.  Coordinates must be finite numbers.

Examples:
    >>> from dataclasses import dataclass
    >>> @dataclass(frozen=True)
    ... class Hop(Action):
    ...     type = "hop"
    ...     unit: str
    ...     path: tuple[str, ...] = ()
    >>> a = Hop("u1", ("L12", "L13"))
    >>> a.to_dict()
    {'type': 'hop', 'unit': 'u1', 'path': ['L12', 'L13']}
    >>> action_from_dict(a.to_dict(), {"hop": Hop}) == a
    True
    >>> @dataclass(frozen=True)
    ... class Go(Action):
    ...     type = "go"
    ...     unit: str
    ...     path: tuple[Point, ...] = ()
    >>> g = Go("u1", (Point(0, 0), Point(30, 40)))
    >>> g.to_dict()["path"]
    [{'x': 0.0, 'y': 0.0}, {'x': 30.0, 'y': 40.0}]
    >>> action_from_dict(g.to_dict(), {"go": Go}) == g
    True
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import MISSING, dataclass, fields
from typing import Any, ClassVar

from .state import Point

__all__ = ["Action", "ActionFormatError", "action_from_dict"]


class ActionFormatError(ValueError):
    """A dict does not describe a known action (unknown type, bad or missing field)."""


_SCALARS = (str, int, float, bool, type(None))
#: The longest text field of an action (unit ids, hex labels, card names are
#: short; a longer one is a mistake, refused before any message echoes it).
MAX_ACTION_TEXT = 200
#: The most items of a list field of an action (a path of hexes, a stack).
MAX_ACTION_ITEMS = 1000
_SIMPLE: dict[str, tuple[type, ...]] = {
    "str": (str,),
    "int": (int,),
    "float": (int, float),
    "bool": (bool,),
}


@functools.cache
def _parts(annotation: Any) -> tuple[str, ...]:
    """``"str | None"`` -> ``("str", "None")`` (cached: decoding is per action)."""
    text = (
        annotation
        if isinstance(annotation, str)
        else getattr(annotation, "__name__", "")
    )
    return tuple(p.strip() for p in text.split("|"))


_FIELDS: dict[type, tuple[tuple[str, Any, bool], ...]] = {}


def _fields_of(cls: type) -> tuple[tuple[str, Any, bool], ...]:
    """``(name, annotation, required)`` of an action class's fields (cached)."""
    got = _FIELDS.get(cls)
    if got is None:
        got = tuple(
            (f.name, f.type, f.default is MISSING and f.default_factory is MISSING)
            for f in fields(cls)
        )
        _FIELDS[cls] = got
    return got


@functools.cache
def _point_kind(annotation: Any) -> str:
    """``"point"`` for a ``Point`` field, ``"path"`` for ``tuple[Point, ...]``,
    else ``""``."""
    text = (
        annotation
        if isinstance(annotation, str)
        else getattr(annotation, "__name__", str(annotation))
    )
    text = text.replace(" ", "").replace("wargame.engine.state.", "")
    if "tuple[Point" in text:
        return "path"
    if "Point" in text.split("|"):
        return "point"
    return ""


def _decode_point(kind: Any, name: str, value: Any) -> Point:
    """A point from ``{"x": .., "y": ..}`` (or an ``[x, y]`` pair)."""
    if isinstance(value, Point):
        return value
    if isinstance(value, Mapping) and set(value) == {"x", "y"}:
        x, y = value["x"], value["y"]
    elif isinstance(value, list | tuple) and len(value) == 2:
        x, y = value
    else:
        raise ActionFormatError(
            f'{kind}: field {name!r} must be a point {{"x": .., "y": ..}} in '
            f"map metres, not {_short(value)}"
        )
    for axis, v in (("x", x), ("y", y)):
        if isinstance(v, bool) or not isinstance(v, int | float):
            raise ActionFormatError(
                f"{kind}: field {name!r}: {axis} must be a number of metres, not "
                f"{_short(v)}"
            )
        if v != v or v in (float("inf"), float("-inf")):
            raise ActionFormatError(
                f"{kind}: field {name!r}: {axis} is {v!r}, not a finite number of "
                "metres"
            )
    return Point(x, y)


def _plain(value: Any) -> Any:
    """A field value as JSON-friendly data (points as tables, tuples as lists)."""
    if isinstance(value, Point):
        return value.to_dict()
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    return value


def _matches(annotation: Any, value: Any) -> bool:
    """Loose check of a value against a field annotation written as a string."""
    parts = _parts(annotation)
    if value is None:
        return "None" in parts or not all(p in _SIMPLE for p in parts)
    for p in parts:
        allowed = _SIMPLE.get(p)
        if allowed is None:
            return True  # not a simple annotation (tuple[...], Literal...): accept
        if isinstance(value, allowed) and not (p == "int" and isinstance(value, bool)):
            return True
    return False


@dataclass(frozen=True)
class Action:
    """Base class of all actions.  Subclasses set ``type`` (a short name)."""

    type: ClassVar[str] = "action"

    def to_dict(self) -> dict[str, Any]:
        """``{"type": ..., <field>: <value>, ...}`` with tuples as lists."""
        out: dict[str, Any] = {"type": self.type}
        for f in fields(self):
            out[f.name] = _plain(getattr(self, f.name))
        return out


def _short(value: Any) -> str:
    from .scenario import shown

    return shown(value)


def action_from_dict(
    data: Mapping[str, Any], types: Mapping[str, type[Action]]
) -> Action:
    """Build an action from :meth:`Action.to_dict` output.

    Args:
        data: the dict (``type`` plus fields).
        types: action classes by ``type`` name (a ruleset's vocabulary).

    Raises:
        ActionFormatError: unknown type, unknown or missing field, bad value.
    """
    if not isinstance(data, Mapping):
        raise ActionFormatError(f"an action must be a mapping, not {_short(data)}")
    kind = data.get("type")
    cls = types.get(kind) if isinstance(kind, str) else None
    if cls is None:
        names = ", ".join(sorted(types))
        raise ActionFormatError(f"unknown action type {_short(kind)}; known: {names}")
    known = _fields_of(cls)
    extra = sorted(set(data) - {n for n, _, _ in known} - {"type"})
    if extra:
        raise ActionFormatError(
            f"{kind}: unknown field(s) {', '.join(_short(x)[1:-1] for x in extra[:5])}"
        )
    kwargs: dict[str, Any] = {}
    for name, annotation, required in known:
        if name not in data:
            if required:
                raise ActionFormatError(f"{kind}: missing field {name!r}")
            continue
        v = data[name]
        pk = _point_kind(annotation)
        if pk == "point" and v is not None:
            kwargs[name] = _decode_point(kind, name, v)
            continue
        if pk == "path" and v is None and "None" in _parts(annotation):
            kwargs[name] = None
            continue
        if pk == "path":
            if not isinstance(v, list | tuple):
                raise ActionFormatError(
                    f"{kind}: field {name!r} must be a path (a list of points), "
                    f"not {_short(v)}"
                )
            if len(v) > MAX_ACTION_ITEMS:
                raise ActionFormatError(
                    f"{kind}: field {name!r} has {len(v)} points, more than the "
                    f"limit of {MAX_ACTION_ITEMS}"
                )
            kwargs[name] = tuple(
                _decode_point(kind, f"{name}[{i}]", p) for i, p in enumerate(v)
            )
            continue
        if isinstance(v, list | tuple):
            if len(v) > MAX_ACTION_ITEMS:
                raise ActionFormatError(
                    f"{kind}: field {name!r} has {len(v)} items, more than the "
                    f"limit of {MAX_ACTION_ITEMS}"
                )
            if not all(isinstance(x, _SCALARS) for x in v):
                raise ActionFormatError(
                    f"{kind}: field {name!r} has a bad value {_short(v)}"
                )
            v = tuple(v)
        elif not isinstance(v, _SCALARS):
            raise ActionFormatError(
                f"{kind}: field {name!r} has a bad value {_short(v)}"
            )
        for x in v if isinstance(v, tuple) else (v,):
            if type(x) is str and len(x) > MAX_ACTION_TEXT:
                raise ActionFormatError(
                    f"{kind}: field {name!r} is a text of {len(x)} characters, more "
                    f"than the limit of {MAX_ACTION_TEXT}"
                )
        if not _matches(annotation, v):
            raise ActionFormatError(
                f"{kind}: field {name!r} must be {annotation}, not {type(v).__name__}"
            )
        kwargs[name] = v
    try:
        return cls(**kwargs)
    except (TypeError, ValueError) as exc:
        raise ActionFormatError(f"{kind}: {exc}") from None
