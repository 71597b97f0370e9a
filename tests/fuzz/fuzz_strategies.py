"""Hypothesis strategies of the fuzz suite: damaged scenarios, saves and values.

A damaged input is described by a short list of *operations* (drop a key, set
a field to a wrong value, add an unknown key, flip a byte...) applied to a
valid base: a shipped scenario (``scenarios/*.toml``), its TOML or JSON text,
or a real save.  The operations print small (huge or deep values are
:class:`Big` markers built inside the test), so a failing example reads
``[Op('set', ('rules', 'first_side'), {'a': 1})]`` rather than a megabyte.

The schema comes from the engine (``wargame.engine.scenario``: the common
keys) and from World at War's ``scenario_keys``; the values near a field's
own (other ids of the same kind, off-by-one numbers, typos) come from the base
document itself.

Examples:
    >>> doc = {"turns": 4, "units": [{"id": "a"}]}
    >>> apply_ops(doc, [Op("set", ("turns",), -1), Op("drop", ("units", 0, "id"))])
    {'turns': -1, 'units': [{}]}
    >>> doc["turns"]  # the base is never changed
    4
    >>> len(Big("str", 5).make()), Big("deep_list", 3).make()
    (5, [[[0]]])
    >>> apply_text(b"id = 1\\n", [TextOp("truncate", 4)])
    b'id ='
"""

from __future__ import annotations

import copy
import json
import string
import tomllib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

__all__ = [
    "Big",
    "Op",
    "TextOp",
    "apply_ops",
    "apply_text",
    "base_doc",
    "base_names",
    "damaged_doc",
    "damaged_text",
    "too_costly",
    "weird_values",
]

ROOT = Path(__file__).resolve().parents[2]
SCENARIOS = ROOT / "scenarios"
INF = float("inf")
NAN = float("nan")

#: Bases by profile: the ci profile plays only scenarios on the "Remagen"
#: window (one line-of-sight table, built once); ``make fuzz`` uses them all.
CI_BASES = ("test_remagen", "ludendorff_bridgehead")
ALL_BASES = (
    "test_remagen",
    "ludendorff_bridgehead",
    "remagen_linz_crossing",
    "ahr_delay",
    "siebengebirge_heights",
)

#: Keys every table kind may hold (engine common keys + World at War's).
KNOWN_KEYS: dict[str, tuple[str, ...]] = {
    "scenario": (
        "format", "id", "title", "description", "historical_note", "briefing",
        "balance_note", "date", "turn_minutes", "special_rules", "ruleset", "turns",
        "map", "sides", "formations", "units", "objectives", "reinforcements",
        "victory", "rules", "overrides", "support",
    ),
    "map": ("name", "hex_size_m", "window"),
    "window": ("place", "width_m", "height_m", "bbox", "lonlat"),
    "sides": ("id", "name", "posture", "briefing"),
    "formations": ("id", "side", "name", "hq", "chits", "note", "morale"),
    "units": (
        "id", "name", "type", "side", "formation", "carried_by", "strength", "note",
        "hex", "lonlat", "place", "disrupted", "support_weapon", "mode", "deployed",
    ),
    "objectives": (
        "id", "name", "vp", "controlled_by", "note", "hex", "lonlat", "place",
    ),
    "reinforcements": ("turn", "units", "entry", "name", "note"),
    "rules": (
        "first_side", "chaos_chits", "los_observer_height_m", "los_target_height_m",
    ),
    "victory": ("unit_destroyed_vp", "tie"),
    "overrides": ("units", "terrain", "hexes"),
    "support": (
        "id", "side", "name", "kind", "weapon", "fp", "to_hit", "chits", "missions",
        "smoke", "rationale",
    ),
    "overrides.hexes": (
        "hex", "lonlat", "place", "terrain", "road", "bridge", "ferry", "rationale",
    ),
}  # fmt: skip

#: Keys that are counts the rules iterate over: in-process cases keep them
#: small (see :func:`too_costly`); the huge ones are the subprocess cases.
COUNT_KEYS = frozenset(
    {"chits", "missions", "chaos_chits", "fp", "to_hit", "morale", "defence_dice",
     "move_cost", "range", "movement"}
)  # fmt: skip
#: Largest count an in-process case may hold, the fewest metres a hex may have,
#: the most units: beyond them a *wrong* implementation allocates gigabytes or
#: runs for minutes, which the subprocess cases (test_fuzz_pathological.py)
#: check under a memory and time limit instead.
MAX_COUNT = 10_000
MIN_HEX_M = 50.0
MAX_UNITS = 200

HEXES = ("A1", "Q11", "N17", "H17", "AF21", "AG1", "A22", "ZZ99", "q11", "Q011",
         "Q 11", "R9", "X9", "Y12", "", "11Q")  # fmt: skip
PLACES = ("Remagen", "remagen", " Remagen ", "Erpel", "Linz", "Kripp", "Bonn",
          "Nowhere", "Erpeler Ley", "")  # fmt: skip
UNIT_TYPES = ("t72", "m60", "us_hq", "ussr_hq", "us_infantry", "ussr_infantry",
              "m113", "bmp1", "mi24", "mtu55", "dragon", "songster", "t27", "T72",
              "")  # fmt: skip
ACTION_TYPES = ("activate", "defer", "move", "move_hq", "fire", "indirect_fire",
                "assault", "rally", "mount", "dismount", "end_activation", "pass",
                "set_mode", "hide", "call_support", "hold_support", "lay_bridge",
                "recover_bridge", "nope", "")  # fmt: skip
WINDOWS: tuple[Any, ...] = (
    "Remagen", "remagen", "Erpel", "Linz", "Nowhere", "", " ",
    {"place": "Remagen"}, {"place": "Remagen", "width_m": 3000, "height_m": 2000},
    {"place": 7}, {"place": None}, {"place": ["Remagen"]}, {"place": {"a": 1}},
    {"place": "Remagen", "width_m": INF}, {"place": "Remagen", "width_m": 1e9},
    {"place": "Remagen", "height_m": NAN}, {"place": "Remagen", "width_m": -1},
    {"place": "Remagen", "width_m": 0}, {"place": "Remagen", "width_m": 1},
    {"place": "Remagen", "width_m": "4000"}, {"place": "Remagen", "width_m": True},
    {"place": "Remagen", "width_m": 2**64},
    {"bbox": [375600, 5600300, 379000, 5604300]},
    {"bbox": [375600, 5600300, 379000]}, {"bbox": [-INF, -INF, INF, INF]},
    {"bbox": [NAN, NAN, NAN, NAN]}, {"bbox": [1, 2, 3, 4]},
    {"bbox": [379000, 5604300, 375600, 5600300]}, {"bbox": ["a", "b", "c", "d"]},
    {"bbox": [7.2, 50.56, 7.26, 50.6], "lonlat": True},
    {"bbox": [7.2, 50.56, 7.26, 50.6], "lonlat": "yes"},
    {"bbox": [-1e308, 0, 1e308, 1e308]}, {"bbox": "abcd"}, {"bbox": {}},
    {"bbox": [True, False, True, False]},
    {"place": "Remagen", "bbox": [375600, 5600300, 379000, 5604300]},
    {"lonlat": True}, {},
)  # fmt: skip


@dataclass(frozen=True)
class Big:
    """A value too big to print, built inside the test by :meth:`make`.

    Kinds: ``str`` (``n`` x "x"), ``ustr`` (non-ASCII text), ``list`` (``n``
    zeros), ``table`` (``n`` keys), ``deep_list`` / ``deep_table`` (nested
    ``n`` levels), ``dotted`` (a TOML-like key of ``n`` parts).
    """

    kind: str
    n: int

    def make(self) -> Any:
        """The value itself (built iteratively: no recursion)."""
        n = self.n
        if self.kind == "str":
            return "x" * n
        if self.kind == "ustr":
            return ("é🙂Ω\u0301" * (n // 4 + 1))[:n]
        if self.kind == "list":
            return [0] * n
        if self.kind == "table":
            return {f"k{i}": i for i in range(n)}
        if self.kind == "deep_list":
            v: Any = [0]
            for _ in range(n - 1):
                v = [v]
            return v
        if self.kind == "deep_table":
            v = {"a": 0}
            for _ in range(n - 1):
                v = {"a": v}
            return v
        if self.kind == "dotted":
            return ".".join(["a"] * n)
        raise ValueError(f"Big: kind: unknown {self.kind!r}")


def materialize(value: Any) -> Any:
    """``value`` with its :class:`Big` markers built (a fresh copy)."""
    if isinstance(value, Big):
        return value.make()
    if isinstance(value, list):
        return [materialize(v) for v in value]
    if isinstance(value, dict):
        return {k: materialize(v) for k, v in value.items()}
    return value


# --------------------------------------------------------------------------- #
# bases                                                                       #
# --------------------------------------------------------------------------- #


def base_names(profile: str) -> tuple[str, ...]:
    """The shipped scenarios used as bases under a profile."""
    return ALL_BASES if profile == "fuzz" else CI_BASES


@cache
def base_text(name: str) -> bytes:
    """The bytes of ``scenarios/<name>.toml``."""
    return (SCENARIOS / f"{name}.toml").read_bytes()


@cache
def _base_doc(name: str) -> str:
    return json.dumps(tomllib.loads(base_text(name).decode()))


def base_doc(name: str) -> dict[str, Any]:
    """A fresh copy of a shipped scenario as a dict."""
    return json.loads(_base_doc(name))  # type: ignore[no-any-return]


def _walk(
    doc: Any, path: tuple[Any, ...] = ()
) -> Iterator[tuple[tuple[Any, ...], Any]]:
    stack: list[tuple[tuple[Any, ...], Any]] = [(path, doc)]
    while stack:
        p, v = stack.pop()
        yield p, v
        if isinstance(v, dict):
            stack.extend(((*p, k), x) for k, x in reversed(list(v.items())))
        elif isinstance(v, list):
            stack.extend(((*p, i), x) for i, x in reversed(list(enumerate(v))))


def table_kind(path: tuple[Any, ...]) -> str | None:
    """The :data:`KNOWN_KEYS` kind of the table at ``path`` (``None``: free-form).

    Examples:
        >>> table_kind(()), table_kind(("units", 3)), table_kind(("map", "window"))
        ('scenario', 'units', 'window')
        >>> table_kind(("overrides", "hexes", 0)), table_kind(("overrides", "units"))
        ('overrides.hexes', None)
    """
    if path == ():
        return "scenario"
    if path == ("map",):
        return "map"
    if path == ("map", "window"):
        return "window"
    if len(path) == 1 and path[0] in ("rules", "victory", "overrides"):
        return str(path[0])
    if len(path) == 2 and isinstance(path[1], int) and path[0] in KNOWN_KEYS:
        return str(path[0])
    if (
        len(path) == 3
        and path[:2] == ("overrides", "hexes")
        and isinstance(path[2], int)
    ):
        return "overrides.hexes"
    return None


@dataclass(frozen=True)
class _Shape:
    paths: tuple[tuple[Any, ...], ...]
    tables: tuple[tuple[Any, ...], ...]
    lists: tuple[tuple[Any, ...], ...]
    ids: Mapping[str, tuple[str, ...]]


@cache
def shape(name: str) -> _Shape:
    """Paths of a base document: every value, the known tables, the lists."""
    doc = base_doc(name)
    paths, tables, lists = [], [], []
    for p, v in _walk(doc):
        if p:
            paths.append(p)
        if isinstance(v, dict) and table_kind(p) is not None:
            tables.append(p)
        if isinstance(v, list):
            lists.append(p)
    ids = {
        k: tuple(str(x.get("id")) for x in doc.get(k, []) if isinstance(x, dict))
        for k in ("sides", "formations", "units", "support")
    }
    return _Shape(tuple(paths), tuple(tables), tuple(lists), ids)


def _get(doc: Any, path: tuple[Any, ...]) -> Any:
    for k in path:
        in_list = isinstance(doc, list) and isinstance(k, int) and 0 <= k < len(doc)
        if (isinstance(doc, dict) and k in doc) or in_list:
            doc = doc[k]
        else:
            raise LookupError(path)
    return doc


# --------------------------------------------------------------------------- #
# operations on documents                                                     #
# --------------------------------------------------------------------------- #


@dataclass(frozen=True)
class Op:
    """One damage: ``drop`` / ``set`` / ``add`` (a key to the table at
    ``path``) / ``dup`` / ``remove`` (a list item) / ``empty`` (a list) /
    ``clone`` (``value`` copies of the list item at ``path``)."""

    kind: str
    path: tuple[Any, ...]
    value: Any = None


def apply_ops(doc: Mapping[str, Any], ops: list[Op]) -> dict[str, Any]:
    """A damaged deep copy of ``doc`` (an op whose path is gone is skipped)."""
    out = copy.deepcopy(dict(doc))
    for op in ops:
        try:
            if op.kind == "add":
                table = _get(out, op.path)
                key, value = op.value
                if isinstance(table, dict):
                    table[key] = materialize(value)
                continue
            parent = _get(out, op.path[:-1])
            key = op.path[-1]
            if op.kind == "drop":
                if isinstance(parent, dict):
                    parent.pop(key, None)
                elif (
                    isinstance(parent, list)
                    and isinstance(key, int)
                    and key < len(parent)
                ):
                    del parent[key]
            elif op.kind == "set":
                if isinstance(parent, dict) or (
                    isinstance(parent, list)
                    and isinstance(key, int)
                    and key < len(parent)
                ):
                    parent[key] = materialize(op.value)
            elif op.kind in ("dup", "remove", "clone"):
                if not (
                    isinstance(parent, list)
                    and isinstance(key, int)
                    and key < len(parent)
                ):
                    continue
                if op.kind == "dup":
                    parent.insert(key + 1, copy.deepcopy(parent[key]))
                elif op.kind == "remove":
                    del parent[key]
                else:
                    item = parent[key]
                    for i in range(int(op.value)):
                        twin = copy.deepcopy(item)
                        if isinstance(twin, dict) and isinstance(twin.get("id"), str):
                            twin["id"] = f"{twin['id']}-c{i}"
                        parent.append(twin)
            elif op.kind == "empty":
                target = _get(out, op.path)
                if isinstance(target, list):
                    target.clear()
        except LookupError:
            continue
    return out


#: The widest window (m) an in-process case may ask for: World at War's board
#: is built in pure Python, ~30 s for the whole 27 x 33 km map, so a whole-map
#: window (no window, an infinite bbox, width_m = 1e9) is a subprocess case.
MAX_WINDOW_M = 20_000.0


def _big_window(spec: Any) -> str | None:
    if not isinstance(spec, dict):
        return None
    w = spec.get("window", None)
    if "window" not in spec or w is None:
        return "map.window (the whole map)"
    if not isinstance(w, dict):
        return None
    spans: list[Any] = [w.get("width_m", 0), w.get("height_m", 0)]
    b = w.get("bbox")
    if isinstance(b, list) and len(b) == 4:
        try:
            dx, dy = float(b[2]) - float(b[0]), float(b[3]) - float(b[1])
        except (TypeError, ValueError, OverflowError):
            dx = dy = 0.0
        scale = 1e5 if w.get("lonlat") else 1.0  # ~metres per degree
        spans += [dx * scale, dy * scale]
    for s in spans:
        if isinstance(s, int | float) and not isinstance(s, bool):
            try:
                if float(s) > MAX_WINDOW_M:  # inf included, nan not
                    return "map.window (huge)"
            except OverflowError:
                return "map.window (huge)"
    return None


def too_costly(doc: Any) -> str | None:
    """Why a document is kept out of the in-process cases, or ``None``.

    Hexes under :data:`MIN_HEX_M`, counts over :data:`MAX_COUNT`, more than
    :data:`MAX_UNITS` units: a wrong implementation would build a map of
    millions of hexes or fill a cup with a billion chits.  Those values are
    the subprocess cases.  Deep values are not walked below 50 levels.
    """
    if isinstance(doc, dict):
        units = doc.get("units")
        if isinstance(units, list) and len(units) > MAX_UNITS:
            return "units"
        big = _big_window(doc.get("map"))
        if big:
            return big
    stack: list[tuple[Any, int]] = [(doc, 0)]
    while stack:
        v, depth = stack.pop()
        if depth > 50:
            continue
        if isinstance(v, dict):
            for k, x in v.items():
                if (
                    k == "hex_size_m"
                    and isinstance(x, int | float)
                    and 0 < x < MIN_HEX_M
                ):
                    return "hex_size_m"  # True included: True == 1
                count = isinstance(x, int | float) and not isinstance(x, bool)
                if k in COUNT_KEYS and count and abs(x) > MAX_COUNT:
                    return str(k)  # NaN compares False: kept
                stack.append((x, depth + 1))
        elif isinstance(v, list):
            stack.extend((x, depth + 1) for x in v)
    return None


# --------------------------------------------------------------------------- #
# values                                                                      #
# --------------------------------------------------------------------------- #

WRONG: tuple[Any, ...] = (
    None, True, False, 0, -1, 1, 2, 3, 7, 150, 2**31, 2**53 + 1, 2**63 - 1, 2**63,
    2**64, -(2**64), 10**30, 0.0, -0.0, 0.5, 1.5, 149.5, 1e-9, 1e308, -1e308, INF,
    -INF, NAN, "", " ", "x", "150", "1", "true", "nato", "pact", "draw", "Q11",
    "ZZ99", "Remagen", "é", "e\u0301", "🙂", "Ω≈ç√", "\x00", "a\nb", "\t", "a: b",
    [], [1], [1, 2], ["a", "b"], [None], [1, 2, 3, 4], [[1, 2]], [{}], {}, {"a": 1},
    {"place": 7}, {"hex": "Q11"}, {"id": "x"},
    Big("str", 10_000), Big("str", 1_000_000), Big("ustr", 100_000),
    Big("list", 10_000), Big("table", 5_000), Big("deep_list", 40),
    Big("deep_list", 1000), Big("deep_table", 40), Big("deep_table", 1000),
)  # fmt: skip


def weird_values() -> st.SearchStrategy[Any]:
    """Wrong types, odd numbers, odd text, containers, huge and deep values."""
    scalars = st.one_of(
        st.none(),
        st.booleans(),
        st.integers(min_value=-(2**70), max_value=2**70),
        st.floats(),
        st.text(max_size=30),
    )
    small = st.one_of(st.integers(-5, 5), st.text(max_size=4), st.none())
    return st.one_of(
        st.sampled_from(WRONG),
        scalars,
        st.lists(small, max_size=5),
        st.dictionaries(st.text(max_size=6), small, max_size=3),
    )


def _typos(word: str) -> list[str]:
    out = [word + "x", word.upper(), word.lower(), f" {word}", f"{word} ", word[:-1],
           word[1:], word + "\n", word.replace("-", "_")]  # fmt: skip
    return [w for w in out if w != word]


def _near(name: str, path: tuple[Any, ...], original: Any) -> st.SearchStrategy[Any]:
    """Values near a field's own: other ids of the same kind, typos, ±1..."""
    key = next((k for k in reversed(path) if isinstance(k, str)), "")
    sh = shape(name)
    pool: list[Any] = []
    if key in ("side", "controlled_by", "first_side", "tie"):
        pool += [*sh.ids["sides"], "draw", "nobody"]
    if key == "formation":
        pool += list(sh.ids["formations"])
    if key in ("hq", "carried_by", "unit", "target", "sw_target", "spotter") or (
        path[:1] == ("reinforcements",) and key == "units"
    ):
        pool += list(sh.ids["units"])
    if key in ("hex", "entry", "to"):
        pool += list(HEXES)
    if key == "weapon":
        pool += ["ap", "he", "aa", "sw", "AP", "x"]
    if key == "type" and path[:1] == ("actions",):
        pool += list(ACTION_TYPES)
    if key == "place":
        pool += list(PLACES)
    if key in ("type", "support_weapon", "base") and path[:1] != ("actions",):
        pool += list(UNIT_TYPES)
    if key == "window":
        pool += list(WINDOWS)
    if key == "lonlat":
        pool += [[7.23, 50.58], [7.23], [NAN, NAN], [INF, 50.0], [7.23, 50.58, 0.0],
                 ["7.23", "50.58"], [1e308, 1e308], [True, False], [-190.0, 100.0],
                 True, False]  # fmt: skip
    if key in ("posture",):
        pool += ["attack", "defend", "Attack", "hold"]
    if key in ("strength",):
        pool += ["full", "reduced", "destroyed", "Full"]
    if key in ("mode",):
        pool += ["low", "high", "nap"]
    if key in ("ruleset",):
        pool += ["waw-classic", "waw-clasic", "toy-1e", "WAW-CLASSIC", "waw"]
    if isinstance(original, str):
        pool += _typos(original) if original else ["x"]
    elif isinstance(original, bool):
        pool += [not original, int(original), str(original).lower()]
    elif isinstance(original, int):
        pool += [original + d for d in (-2, -1, 1, 2)] + [-original, original * 1000, 0]
    elif isinstance(original, float):
        pool += [original + 0.5, -original, original * 1e6, 0.0]
    elif isinstance(original, list):
        pool += [[], original[:1], original + original[-1:], list(reversed(original))]
    if not pool:
        return weird_values()
    return st.sampled_from(pool)


def _value_for(name: str, path: tuple[Any, ...]) -> st.SearchStrategy[Any]:
    try:
        original = _get(base_doc(name), path)
    except LookupError:
        original = None
    return st.one_of(_near(name, path, original), weird_values())


def _unknown_key(kind: str) -> st.SearchStrategy[str]:
    known = KNOWN_KEYS.get(kind, ())
    typos = [k + "e" for k in known] + [k[:-1] for k in known if len(k) > 2]
    typos += [k.upper() for k in known] + [f"x_{k}" for k in known]
    words = st.text(string.ascii_lowercase + "_", min_size=1, max_size=12)
    return st.one_of(st.sampled_from(typos or ["zz"]), words).filter(
        lambda k: k not in known
    )


@st.composite
def unknown_key_op(draw: st.DrawFn, name: str) -> Op:
    """An unknown key (a typo of a known one, or a made-up word) added to one
    of the base document's tables."""
    sh = shape(name)
    path = draw(st.sampled_from(sh.tables))
    kind = table_kind(path) or "scenario"
    key = draw(_unknown_key(kind))
    value = draw(st.one_of(st.sampled_from([1, "x", True, 0.5, "nato", [1], {}]),
                           weird_values()))  # fmt: skip
    return Op("add", path, (key, value))


@st.composite
def op(draw: st.DrawFn, name: str) -> Op:
    """One damage of the base scenario ``name``."""
    sh = shape(name)
    kind = draw(
        st.sampled_from(
            ("set", "set", "set", "set", "drop", "drop", "add", "add", "dup",
             "remove", "empty", "clone")
        )
    )  # fmt: skip
    if kind == "set":
        path = draw(st.sampled_from(sh.paths))
        return Op("set", path, draw(_value_for(name, path)))
    if kind == "drop":
        return Op("drop", draw(st.sampled_from(sh.paths)))
    if kind == "add":
        path = draw(st.sampled_from(sh.tables))
        tk = table_kind(path) or "scenario"
        known = KNOWN_KEYS.get(tk, ("x",))
        key = draw(st.one_of(st.sampled_from(known), _unknown_key(tk)))
        return Op("add", path, (key, draw(_value_for(name, (*path, key)))))
    items = [p for p in sh.paths if isinstance(p[-1], int)]
    if kind == "empty":
        return Op("empty", draw(st.sampled_from(sh.lists)))
    path = draw(st.sampled_from(items))
    if kind == "clone":
        return Op("clone", path, draw(st.integers(1, 20)))
    return Op(kind, path)


@st.composite
def damaged_doc(draw: st.DrawFn, names: tuple[str, ...]) -> tuple[str, list[Op]]:
    """A base scenario name and 1-4 damages (apply them with :func:`apply_ops`)."""
    name = draw(st.sampled_from(names))
    ops = draw(st.lists(op(name), min_size=1, max_size=4))
    return name, ops


# --------------------------------------------------------------------------- #
# operations on text                                                          #
# --------------------------------------------------------------------------- #


@dataclass(frozen=True)
class TextOp:
    """One damage of a file's bytes: ``flip`` (xor ``value`` at ``at``),
    ``insert``, ``delete`` (``value`` bytes), ``truncate``, ``bom``, ``crlf``,
    ``dupline`` / ``delline`` (line ``at``), ``prepend`` (a line such as a
    deep array, a dotted key, a long value: a :class:`Big` or bytes)."""

    kind: str
    at: int = 0
    value: Any = None


def _line_for(value: Any, suffix: str) -> bytes:
    """A line defining ``x`` as a deep/long value in TOML or JSON syntax."""
    if isinstance(value, bytes):
        return value
    assert isinstance(value, Big)
    n = value.n
    if suffix == ".json":
        if value.kind == "deep_list":
            return b'"x": ' + b"[" * n + b"]" * n + b", "
        if value.kind == "deep_table":
            return b'"x": ' + b'{"a": ' * n + b"1" + b"}" * n + b", "
        return b'"x": "' + b"x" * n + b'", '
    if value.kind == "deep_list":
        return b"x = " + b"[" * n + b"]" * n + b"\n"
    if value.kind == "deep_table":
        return b"x = " + b"{a=" * n + b"1" + b"}" * n + b"\n"
    if value.kind == "dotted":
        return Big("dotted", n).make().encode() + b" = 1\n"
    if value.kind == "header":
        return b"[" + Big("dotted", n).make().encode() + b"]\nz = 1\n"
    return b'title = "' + b"x" * n + b'"\n'


def apply_text(data: bytes, ops: list[TextOp], suffix: str = ".toml") -> bytes:
    """``data`` with the byte damages applied in order (positions wrap)."""
    out = bytearray(data)
    for o in ops:
        n = max(len(out), 1)
        at = o.at % n
        if o.kind == "flip" and out:
            out[at] ^= o.value or 1
        elif o.kind == "insert":
            out[at:at] = o.value
        elif o.kind == "delete":
            del out[at : at + o.value]
        elif o.kind == "truncate":
            del out[at:]
        elif o.kind == "bom":
            out[0:0] = b"\xef\xbb\xbf"
        elif o.kind == "crlf":
            out = bytearray(bytes(out).replace(b"\n", b"\r\n"))
        elif o.kind in ("dupline", "delline"):
            lines = bytes(out).split(b"\n")
            i = o.at % len(lines)
            if o.kind == "dupline":
                lines.insert(i, lines[i])
            else:
                del lines[i]
            out = bytearray(b"\n".join(lines))
        elif o.kind == "prepend":
            line = _line_for(o.value, suffix)
            if suffix == ".json" and out[:1] == b"{":
                out[1:1] = line
            else:
                out[0:0] = line
    return bytes(out)


_JUNK = (b"\x00", b"\xff", b"\xc3", b"\"", b"'", b"[", b"]", b"{", b"}", b"=", b"\n",
         b"#", b"\\", b"1e9999", b"nan", b"inf", b"\xef\xbb\xbf", b"[[units]]\n",
         b"turns = 3\n", b"\"\"\"")  # fmt: skip
_PREPEND = (Big("deep_list", 1000), Big("deep_list", 30), Big("deep_table", 1000),
            Big("deep_table", 30), Big("dotted", 5000), Big("dotted", 30),
            Big("header", 5000), Big("str", 1_000_000),
            b"turns = 9223372036854775807\n", b"turnz = 3\n", b"\xff\xfe\n",
            b"date = 1985-09-14\n", b"x = 1e400\n", b"x = nan\n",
            b"x = 99999999999999999999999\n")  # fmt: skip


def text_op(prepends: tuple[Any, ...] = _PREPEND) -> st.SearchStrategy[TextOp]:
    """One damage of a file's bytes (``prepends``: the lines it may add)."""
    pos = st.integers(0, 1 << 16)
    return st.one_of(
        st.builds(TextOp, st.just("flip"), pos, st.integers(1, 255)),
        st.builds(TextOp, st.just("insert"), pos,
                  st.one_of(st.sampled_from(_JUNK), st.binary(min_size=1, max_size=8))),
        st.builds(TextOp, st.just("delete"), pos, st.integers(1, 64)),
        st.builds(TextOp, st.just("truncate"), pos),
        st.just(TextOp("bom")),
        st.just(TextOp("crlf")),
        st.builds(TextOp, st.sampled_from(("dupline", "delline")), pos),
        st.builds(TextOp, st.just("prepend"), st.just(0), st.sampled_from(prepends)),
    )  # fmt: skip


@st.composite
def damaged_text(
    draw: st.DrawFn, names: tuple[str, ...], suffixes: tuple[str, ...] = (".toml",)
) -> tuple[str, str, list[TextOp]]:
    """A base scenario, a file suffix and 1-3 byte damages."""
    name = draw(st.sampled_from(names))
    suffix = draw(st.sampled_from(suffixes))
    ops = draw(st.lists(text_op(), min_size=1, max_size=3))
    return name, suffix, ops


#: Lines added to a save's JSON: 100,000-deep arrays (issue 16, item 5) and
#: a few odd values.
SAVE_PREPEND = (Big("deep_list", 100_000), Big("deep_table", 100_000),
                Big("deep_list", 1000), Big("deep_list", 20), Big("str", 1_000_000),
                b'"version": 2, ', b'"x": NaN, ', b'"x": 1e999, ', b'"seed": 4, ',
                b'"check": null, ')  # fmt: skip


def dumps_deep(value: Any) -> bytes:
    """``json.dumps`` of a value nested up to a few thousand levels."""
    import sys

    old = sys.getrecursionlimit()
    sys.setrecursionlimit(max(old, 20_000))
    try:
        return json.dumps(value, indent=1).encode()
    finally:
        sys.setrecursionlimit(old)


def base_bytes(name: str, suffix: str) -> bytes:
    """A shipped scenario as TOML (its file) or JSON text."""
    if suffix == ".json":
        return json.dumps(base_doc(name), indent=1).encode()
    return base_text(name)
