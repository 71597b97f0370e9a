"""The map-free checks of free positions in a scenario (point rule systems):
types, finite numbers, pairs of keys given together, one position per table,
zone tables, layouts and model tables.  :func:`point_shape_problems` runs when a
scenario is loaded; the checks on the map are in :mod:`wargame.engine.placement`.

Examples:
    >>> point_shape_problems({"units": [{"id": "a", "x": "abc", "y": 1}]}, "s.toml")
    ["s.toml: units[0] ('a').x: must be a finite number of metres, not 'abc'"]
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

__all__ = [
    "LAYOUTS",
    "MAX_MODELS",
    "MODEL_KEYS",
    "POINT_KEYS",
    "UNIT_KEYS",
    "ZONE_KEYS",
    "point_shape_problems",
]

#: The formations a unit's models can be laid out in.
LAYOUTS = ("line", "column", "wedge", "spread", "cluster")
#: Keys of a free position (units, model tables, reinforcement entries,
#: objectives).
POINT_KEYS = ("x", "y", "lonlat", "place", "dx", "dy", "bearing", "distance_m")
#: Further keys of a unit of a point rule system.
UNIT_KEYS = ("zone", "facing", "models", "layout", "spacing_m")
#: Keys of a model table.
MODEL_KEYS = ("id", "kind", "radius_m", "facing", *POINT_KEYS)
#: Keys of a ``[[zones]]`` table.
ZONE_KEYS = ("id", "side", "name", "rect", "polygon", "lonlat", "note")
#: Models of one unit at most (a company of teams, a platoon of soldiers).
MAX_MODELS = 200


def _shown(value: Any) -> str:
    from .scenario import shown

    return shown(value)


def _finite(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v)


# --------------------------------------------------------------------------- #
# shape checks (no map)                                                       #
# --------------------------------------------------------------------------- #


def _position_shape(
    item: Mapping[str, Any], label: str, add: Callable[..., None], *, relative: bool
) -> None:
    """x/y, lonlat, place and the offsets of one table."""
    for k in ("x", "y", "dx", "dy", "distance_m", "bearing"):
        v = item.get(k)
        if v is not None and not _finite(v):
            add(
                f"{label}.{k}",
                f"must be a finite number of metres, not {_shown(v)}"
                if k != "bearing"
                else f"must be a compass bearing in degrees, not {_shown(v)}",
            )
    if (item.get("x") is None) != (item.get("y") is None):
        add(label, "give both x and y (map metres), or neither")
    if (item.get("bearing") is None) != (item.get("distance_m") is None):
        add(label, "give both bearing and distance_m, or neither")
    d: Any = item.get("distance_m")
    if _finite(d) and d < 0:
        add(f"{label}.distance_m", f"{_shown(d)} is negative; give metres >= 0")
    given = [k for k in ("x", "lonlat", "place", "zone") if item.get(k) is not None]
    if len(given) > 1:
        add(f"{label}.{given[1]}", f"give only one of {' / '.join(given)}")
    has_offset = any(item.get(k) is not None for k in ("dx", "dy", "bearing"))
    if has_offset and item.get("zone") is not None:
        add(label, "a unit in a zone is laid out there; remove dx/dy/bearing")
    if has_offset and not given and not relative:
        add(
            label,
            "an offset (dx/dy or bearing/distance_m) needs x/y, lonlat or "
            "place to start from",
        )
    if item.get("dx") is not None and item.get("bearing") is not None:
        add(label, "give dx/dy or bearing/distance_m, not both")


def _zone_shape(z: Any, label: str, add: Callable[..., None]) -> None:
    if not isinstance(z, Mapping):
        add(
            label,
            f"must be a zone table {{rect = [...]}} or {{polygon = [...]}}, "
            f"not {_shown(z)}",
        )
        return
    for k in z:
        if k not in ZONE_KEYS:
            add(f"{label}.{k}", f"unknown key; a zone has {', '.join(ZONE_KEYS)}")
    rect, poly = z.get("rect"), z.get("polygon")
    if (rect is None) == (poly is None):
        add(
            label,
            "give either rect = [xmin, ymin, xmax, ymax] or polygon = [[x, y], ...]",
        )
        return
    if rect is not None:
        if not (isinstance(rect, list) and len(rect) == 4 and all(map(_finite, rect))):
            add(
                f"{label}.rect",
                f"must be [xmin, ymin, xmax, ymax] (finite numbers), "
                f"not {_shown(rect)}",
            )
        elif not (rect[0] < rect[2] and rect[1] < rect[3]):
            add(f"{label}.rect", f"{_shown(rect)} is empty; min < max")
    else:
        ok = (
            isinstance(poly, list)
            and len(poly) >= 3
            and all(
                isinstance(p, list) and len(p) == 2 and all(map(_finite, p))
                for p in poly
            )
        )
        if not ok:
            add(
                f"{label}.polygon",
                "must be a list of at least 3 [x, y] corners "
                f"(finite numbers), not {_shown(poly)}",
            )
    if not isinstance(z.get("lonlat", False), bool):
        add(f"{label}.lonlat", f"must be true or false, not {_shown(z.get('lonlat'))}")


def point_shape_problems(data: Mapping[str, Any], where: str) -> list[str]:
    """The map-free problems of a point scenario's positions, zones and models
    (``<file>: <field>: <problem>`` lines); :func:`load_scenario` runs it for
    rule systems with ``positions = "point"``."""
    lines: list[str] = []

    def add(fld: str, text: str) -> None:
        lines.append(f"{where}: {fld}: {text}")

    zones = data.get("zones")
    zone_ids: set[str] = set()
    if zones is not None:
        if not isinstance(zones, list):
            add("zones", "must be a list of tables ([[zones]])")
        else:
            for i, z in enumerate(zones):
                zid = z.get("id") if isinstance(z, Mapping) else None
                label = f"zones[{i}]" + (f" ({zid!r})" if isinstance(zid, str) else "")
                if not isinstance(zid, str) or not zid:
                    add(f"{label}.id", "missing; every zone needs an id")
                elif zid in zone_ids:
                    add(label, f"duplicate id {zid!r}")
                else:
                    zone_ids.add(zid)
                _zone_shape(z, label, add)
    for i, o in enumerate(data.get("objectives") or []):
        if isinstance(o, Mapping):
            _position_shape(o, f"objectives[{i}]", add, relative=False)
    for i, r in enumerate(data.get("reinforcements") or []):
        entry = r.get("entry") if isinstance(r, Mapping) else None
        for j, e in enumerate(entry if isinstance(entry, list) else []):
            if isinstance(e, Mapping):
                _position_shape(
                    e, f"reinforcements[{i}].entry[{j}]", add, relative=False
                )
    for i, u in enumerate(data.get("units") or []):
        if not isinstance(u, Mapping):
            continue
        uid = u.get("id")
        label = f"units[{i}]" + (f" ({uid!r})" if isinstance(uid, str) else "")
        _position_shape(u, label, add, relative=False)
        z = u.get("zone")
        if isinstance(z, str):
            if z not in zone_ids:
                add(
                    f"{label}.zone",
                    f"{_shown(z)} is not one of the [[zones]] {sorted(zone_ids)}",
                )
        elif z is not None:
            _zone_shape(z, f"{label}.zone", add)
        f = u.get("facing")
        if f is not None and not _finite(f):
            add(
                f"{label}.facing",
                f"must be a compass bearing in degrees (0 north, "
                f"90 east), not {_shown(f)}",
            )
        lay = u.get("layout")
        if lay is not None and lay not in LAYOUTS:
            add(f"{label}.layout", f"{_shown(lay)}: use one of {', '.join(LAYOUTS)}")
        sp = u.get("spacing_m")
        if sp is not None and not (_finite(sp) and sp > 0):
            add(
                f"{label}.spacing_m",
                f"must be a number of metres above 0, not {_shown(sp)}",
            )
        models = u.get("models")
        if models is None:
            continue
        if isinstance(models, int) and not isinstance(models, bool):
            if not 1 <= models <= MAX_MODELS:
                add(f"{label}.models", f"{models} models: give 1–{MAX_MODELS}")
            continue
        if (
            not isinstance(models, list)
            or not models
            or not all(isinstance(m, Mapping) for m in models)
        ):
            add(
                f"{label}.models",
                "must be a count or a list of model tables "
                "[{kind = ..., radius_m = ...}]",
            )
            continue
        if len(models) > MAX_MODELS:
            add(
                f"{label}.models",
                f"{len(models)} models, more than the limit of {MAX_MODELS}",
            )
            continue
        for j, m in enumerate(models):
            ml = f"{label}.models[{j}]"
            for k in m:
                if k not in MODEL_KEYS:
                    add(
                        f"{ml}.{k}", f"unknown key; a model has {', '.join(MODEL_KEYS)}"
                    )
            _position_shape(m, ml, add, relative=True)
            r = m.get("radius_m")
            if r is not None and not (_finite(r) and r >= 0):
                add(f"{ml}.radius_m", f"must be metres >= 0, not {_shown(r)}")
            f = m.get("facing")
            if f is not None and not _finite(f):
                add(
                    f"{ml}.facing",
                    f"must be a compass bearing in degrees, not {_shown(f)}",
                )
            for k in ("id", "kind"):
                v = m.get(k)
                if v is not None and not (isinstance(v, str) and 0 < len(v) <= 100):
                    add(f"{ml}.{k}", f"must be a short text, not {_shown(v)}")
    return lines
