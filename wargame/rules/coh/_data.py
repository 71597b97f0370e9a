"""Reading and checking the coh-2e data files (``data/*.toml``).

Every loader reads its file with :func:`read_toml` and checks each value with a
:class:`Checker`, so a bad file fails with one message naming the file, the entry
and the field.  Every value carries a source (see :func:`source_problem`).

Examples:
    >>> source_problem("research/coh.md §3.2 (S4, [B])") is None
    True
    >>> source_problem("estimate")
    "an estimate needs a rationale: 'estimate: <why>'"
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, NoReturn

__all__ = [
    "DATA_DIR",
    "Checker",
    "CohDataError",
    "check_defaults",
    "read_toml",
    "source_problem",
]

DATA_DIR = Path(__file__).parent / "data"

#: What a source may cite (research notes, the 2e rulebook, the seed, an estimate).
SOURCE_PREFIXES = ("research/coh.md", "CoH 2e", "seed 003", "S1 ")


class CohDataError(ValueError):
    """A coh-2e data file is missing, unreadable or holds a bad value."""


def read_toml(path: Path) -> dict[str, Any]:
    """The parsed file, or :class:`CohDataError` naming the file."""
    try:
        with path.open("rb") as f:
            return tomllib.load(f)
    except OSError as e:
        raise CohDataError(f"{path}: cannot read the file ({e.strerror or e})") from e
    except tomllib.TOMLDecodeError as e:
        raise CohDataError(f"{path}: not valid TOML ({e})") from e


def source_problem(text: object) -> str | None:
    """Why ``text`` is not a usable source (None when it is).

    A source cites research/coh.md, the 2e rulebook (``CoH 2e §...``), seed 003,
    or is ``"estimate: <rationale>"`` (STYLE: estimates say why).
    """
    if not isinstance(text, str) or not text.strip():
        return "a source must be a non-empty string"
    if text.startswith("estimate"):
        why = text.removeprefix("estimate").lstrip()
        if not why.startswith(":") or len(why[1:].strip()) < 10:
            return "an estimate needs a rationale: 'estimate: <why>'"
        return None
    if not text.startswith(SOURCE_PREFIXES):
        return (
            f"source {text!r} must start with one of {list(SOURCE_PREFIXES)} "
            "or 'estimate: '"
        )
    return None


class Checker:
    """Typed reads from one entry (``what`` ``name``) of one data file."""

    def __init__(self, path: Path, what: str, name: str, raw: object) -> None:
        self.path, self.what, self.name = path, what, name
        if not isinstance(raw, Mapping):
            self.fail(None, f"must be a table, not {type(raw).__name__}")
        self.raw: Mapping[str, Any] = raw

    def fail(self, field: str | None, msg: str) -> NoReturn:
        """Raise the error for ``field`` of this entry."""
        at = f"{self.what} {self.name!r}" + (
            "" if field is None else f", field {field!r}"
        )
        raise CohDataError(f"{self.path}: {at}: {msg}")

    def only(self, allowed: Iterable[str]) -> None:
        """Fail on a key not in ``allowed`` (a typo would otherwise be ignored)."""
        allowed = set(allowed)
        for key in self.raw:
            if key not in allowed:
                self.fail(key, f"unknown field; known fields: {sorted(allowed)}")

    def int_(
        self, field: str, lo: int, hi: int, *, required: bool = False
    ) -> int | None:
        """An int in ``lo..hi`` (None when absent and not required)."""
        v = self.raw.get(field)
        if v is None:
            if required:
                self.fail(field, "is required")
            return None
        if isinstance(v, bool) or not isinstance(v, int):
            self.fail(field, f"{v!r} is not an integer")
        if not lo <= v <= hi:
            self.fail(field, f"{v} is out of range {lo}..{hi}")
        return v

    def req_int(self, field: str, lo: int, hi: int) -> int:
        """A required int in ``lo..hi``."""
        v = self.int_(field, lo, hi, required=True)
        assert v is not None
        return v

    def bool_(self, field: str, default: bool = False) -> bool:
        """A boolean (``default`` when absent)."""
        v = self.raw.get(field, default)
        if not isinstance(v, bool):
            self.fail(field, f"{v!r} must be true or false")
        return v

    def str_(self, field: str, *, required: bool = True) -> str | None:
        """A non-empty string."""
        v = self.raw.get(field)
        if v is None and not required:
            return None
        if not isinstance(v, str) or not v.strip():
            self.fail(
                field,
                "is required" if v is None else f"{v!r} is not a non-empty string",
            )
        return v

    def req_str(self, field: str) -> str:
        """A required non-empty string."""
        v = self.str_(field)
        assert v is not None
        return v

    def choice(
        self, field: str, choices: Iterable[str], *, required: bool = True
    ) -> str | None:
        """One of ``choices``."""
        choices = tuple(choices)
        v = self.raw.get(field)
        if v is None and not required:
            return None
        if v not in choices:
            self.fail(field, f"{v!r} must be one of {list(choices)}")
        return str(v)

    def str_list(
        self, field: str, choices: Iterable[str] | None = None
    ) -> tuple[str, ...]:
        """A list of strings (each one of ``choices`` when given); () when absent."""
        v = self.raw.get(field, [])
        if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
            self.fail(field, f"{v!r} must be a list of strings")
        if choices is not None:
            allowed = tuple(choices)
            for x in v:
                if x not in allowed:
                    self.fail(field, f"{x!r} must be one of {list(allowed)}")
        return tuple(v)

    def sources(
        self, default: str, field_defaults: Mapping[str, str], fields: Iterable[str]
    ) -> dict[str, str]:
        """Every field's source: the entry's ``sources`` table over the defaults."""
        own = self.raw.get("sources", {})
        if not isinstance(own, Mapping):
            self.fail("sources", "must be a table of field = source")
        fields = tuple(fields)
        for key, text in own.items():
            if key not in fields:
                self.fail("sources", f"names {key!r}, which is not a field")
            why = source_problem(text)
            if why is not None:
                self.fail(f"sources.{key}", why)
        return {f: str(own.get(f, field_defaults.get(f, default))) for f in fields}


def check_defaults(path: Path, doc: Mapping[str, Any]) -> tuple[str, dict[str, str]]:
    """The file's ``[defaults]``: its ``source`` and ``field_sources``."""
    c = Checker(path, "table", "defaults", doc.get("defaults", {}))
    c.only({"source", "field_sources"})
    default = c.req_str("source")
    why = source_problem(default)
    if why is not None:
        c.fail("source", why)
    fs = c.raw.get("field_sources", {})
    if not isinstance(fs, Mapping):
        c.fail("field_sources", "must be a table of field = source")
    for key, text in fs.items():
        why = source_problem(text)
        if why is not None:
            c.fail(f"field_sources.{key}", why)
    return default, {str(k): str(v) for k, v in fs.items()}
