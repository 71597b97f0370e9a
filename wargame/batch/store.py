"""The ``out=`` folder of a batch: a manifest and Parquet parts, written atomically.

Layout::

    out/
      manifest.json                 scenario id, source and SHA-256, seed, variants
      results/v000-00000040-0008-1f2e3d4c.parquet   variant v000: 8 games from 40
      logs/v000-00000040-0008-1f2e3d4c.parquet      their event logs (logs=True)

Each part is written to a temporary file and renamed into place, so a part is
either complete or absent: a run killed at any moment loses at most the chunks
in flight, and the next run with the same folder plays only the games that have
no row yet.  Games that failed (``error`` set) are played again on resume.  The
last part of a name is random so that names never clash between runs.

A game stored twice (a part copied under another name, two runs on one folder
at once) is read once when both rows agree (games are deterministic: all
columns but ``wall_time`` are equal), and a finished row wins over a failed one;
two rows that disagree are refused with a message naming both files, since the
folder cannot say which is right.  The manifest is checked field by field
(types, ranges, unique variant keys), read with the engine's size limit and
nesting bound, and a folder that cannot be written (read-only, disk full) is
reported with the folder and the fix, leaving no temporary file behind.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import uuid
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from wargame.engine.events import POINT_COLUMNS, TEXT_COLUMNS, log_for_parquet
from wargame.engine.files import parse_json, read_limited, write_atomic

from .variants import BatchError, Variant

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = ["FORMAT", "VERSION", "Store", "read_logs", "read_results"]

FORMAT = "wargame-batch"
VERSION = 1
_PART = re.compile(r"^(v\d{3,})-(\d{8})-(\d{4,})-([0-9a-f]{8})\.parquet$")
_KEY = re.compile(r"^v\d{3,}$")
#: What to do about a manifest that is not as wargame wrote it.
_MANIFEST_FIX = (
    "wargame writes this file: restore it, or start again in a new folder (out=)"
)
#: The columns every result part has, whatever the scenario.
_PART_COLUMNS = ("variant", "game", "seed", "error")


def _write(path: Path, data: bytes) -> None:
    # write_atomic gives the file ordinary permissions (0o666 less the umask)
    write_atomic(path, data)


def _atomic_parquet(frame: pd.DataFrame, path: Path) -> None:
    data = frame.to_parquet(None, index=False)  # bytes: one atomic write
    _write(path, data)


@contextlib.contextmanager
def _disk(root: Path, path: Path, doing: str = "written") -> Iterator[None]:
    """Turn an ``OSError`` (read-only folder, disk full...) into one line."""
    try:
        yield
    except OSError as exc:
        try:
            where = f"{path.relative_to(root)}: " if path != root else ""
        except ValueError:  # pragma: no cover - every path is inside root
            where = f"{path}: "
        fix = (
            "give out= (--out) a folder you can read and write"
            if doing == "read"
            else "give out= (--out) a folder you can write to, or free disk space; "
            "games already stored are kept and the next run resumes"
        )
        raise BatchError(
            f"{root}: {where}cannot be {doing} ({exc.strerror or exc}); {fix}"
        ) from None


def read_manifest(path: str | Path) -> dict[str, Any]:
    """The manifest of a batch folder, checked field by field.

    Raises:
        BatchError: ``<file>: <field>: <problem>; <fix>`` for a file that is
            missing, too big, a device, not JSON, too deeply nested, or a field
            of the wrong type or value.

    Examples:
        >>> import json, tempfile, pathlib
        >>> p = pathlib.Path(tempfile.mkdtemp()) / "manifest.json"
        >>> _ = p.write_text(json.dumps({"format": FORMAT, "version": "x"}))
        >>> try:
        ...     read_manifest(p)
        ... except BatchError as exc:
        ...     print(str(exc).split(": ", 1)[1].split(";")[0])
        version: is 'x', not a whole number >= 1
    """
    p = Path(path)
    try:
        text = read_limited(p).decode("utf-8")
        data = parse_json(text)
    except UnicodeDecodeError:
        raise BatchError(f"{p}: is not UTF-8 text; {_MANIFEST_FIX}") from None
    except ValueError as exc:  # InputFileError is one: "<path>: problem"
        if str(exc).startswith(f"{p}: "):
            raise BatchError(str(exc)) from None
        raise BatchError(f"{p}: is not valid JSON ({exc}); {_MANIFEST_FIX}") from None

    def bad(fld: str, problem: str) -> BatchError:
        return BatchError(f"{p}: {fld}: {problem}; {_MANIFEST_FIX}")

    def show(v: Any) -> str:
        text = repr(v)
        return text if len(text) <= 60 else text[:57] + "..."

    if not isinstance(data, dict):
        raise BatchError(
            f"{p}: holds a JSON {type(data).__name__}, not a batch manifest (an "
            f"object); {_MANIFEST_FIX}"
        )
    if data.get("format") != FORMAT:
        raise bad("format", f"is {show(data.get('format'))}, not {FORMAT!r}")
    version = data.get("version")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise bad("version", f"is {show(version)}, not a whole number >= 1")
    if version > VERSION:
        raise BatchError(
            f"{p}: version: {version} is a newer batch format than this wargame "
            f"reads ({VERSION}); upgrade wargame"
        )
    scenario = data.get("scenario")
    if not isinstance(scenario, dict):
        raise bad("scenario", f"is {show(scenario)}, not a table (id, source, sha256)")
    for k in ("id", "source", "sha256"):
        if not isinstance(scenario.get(k), str):
            raise bad(f"scenario.{k}", f"is {show(scenario.get(k))}, not a text")
    seed = data.get("seed")
    if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
        raise bad("seed", f"is {show(seed)}, not a whole number >= 0")
    if not isinstance(data.get("logs"), bool):
        raise bad("logs", f"is {show(data.get('logs'))}, not true or false")
    variants = data.get("variants")
    if not isinstance(variants, dict):
        raise bad("variants", f"is {show(variants)}, not a table of variants")
    seen: dict[str, str] = {}
    for name, entry in variants.items():
        where = f"variants.{name}"
        if not isinstance(entry, dict):
            raise bad(where, f"is {show(entry)}, not a table")
        key = entry.get("key")
        if not isinstance(key, str) or not _KEY.match(key):
            raise bad(f"{where}.key", f"is {show(key)}, not a key like 'v000'")
        if key in seen:
            raise bad(f"{where}.key", f"{key!r} is also the key of {seen[key]!r}")
        seen[key] = name
        if not isinstance(entry.get("sha256"), str):
            raise bad(f"{where}.sha256", f"is {show(entry.get('sha256'))}, not a text")
        for k in ("overrides", "policies"):
            if not isinstance(entry.get(k), dict):
                raise bad(f"{where}.{k}", f"is {show(entry.get(k))}, not a table")
    return data


def _read_part(p: Path) -> pd.DataFrame:
    import pandas as pd

    try:
        df = pd.read_parquet(p)
    except Exception as exc:
        raise BatchError(
            f"{p}: damaged part ({type(exc).__name__}: {exc}); delete it "
            "and run again to replay its games"
        ) from None
    missing = [c for c in _PART_COLUMNS if c not in df.columns]
    if missing:
        raise BatchError(
            f"{p}: {missing[0]}: no such column, so this is not a batch part; "
            "delete it and run again to replay its games"
        )
    return df


def _same(a: Any, b: Any) -> bool:
    import pandas as pd

    na, nb = bool(pd.isna(a)), bool(pd.isna(b))
    return (na and nb) or (not na and not nb and bool(a == b))


def _combine(parts: Sequence[tuple[Path, pd.DataFrame]]) -> pd.DataFrame:
    """The rows of these parts, each (variant, game) once (see the module
    docstring); refuses two rows of one game that disagree."""
    import pandas as pd

    if not parts:
        return pd.DataFrame()
    df = pd.concat(
        [d.assign(_part=i) for i, (_, d) in enumerate(parts)], ignore_index=True
    )
    key = pd.DataFrame({"v": df["variant"].astype(str), "g": df["game"]})
    dup = key.duplicated(keep=False).to_numpy()
    if not dup.any():
        return df.drop(columns="_part")
    keep = ~dup
    for (variant, game), idx in key[dup].groupby(["v", "g"], sort=False).groups.items():
        rows = df.loc[idx]
        done = rows[rows["error"].isna()]
        rows = done if len(done) else rows.iloc[:1]  # a failed attempt loses
        first = rows.iloc[0]
        pa, da = parts[int(first["_part"])]
        for _, other in rows.iloc[1:].iterrows():
            pb, db = parts[int(other["_part"])]
            cols = [c for c in da.columns if c in db.columns and c != "wall_time"]
            if not all(_same(first[c], other[c]) for c in cols):
                raise BatchError(
                    f"{pb}: variant {variant!r}, game {game}: also stored in "
                    f"{pa.name} with another result; delete the wrong part (its "
                    "games are played again by the next run with this folder)"
                )
        keep[int(first.name)] = True
    return df[keep].drop(columns="_part").reset_index(drop=True)


class Store:
    """One batch folder (see the module docstring).

    Args:
        root: the folder (created if missing).
        scenario: ``{"id", "source", "sha256"}`` of the base scenario.
        seed: the batch seed.
        logs: whether event logs are kept.

    Raises:
        BatchError: the folder holds another scenario's (or seed's) results,
            results with/without logs when the call says otherwise, a variant of
            the same name with other overrides, or files that are not a batch.
    """

    def __init__(
        self, root: str | Path, scenario: Mapping[str, str], seed: int, logs: bool
    ) -> None:
        self.root = Path(root)
        self.results = self.root / "results"
        self.logs_dir = self.root / "logs"
        self.logs = logs
        self.manifest_path = self.root / "manifest.json"
        self.scenario = dict(scenario)
        self.seed = seed
        try:
            import pyarrow  # noqa: F401  (the Parquet engine)
        except ImportError:
            raise BatchError(
                "out= writes Parquet and needs pyarrow: pip install 'wargame[scale]'"
            ) from None
        if self.root.exists() and not self.root.is_dir():
            raise BatchError(f"out={self.root}: is a file, not a folder")
        if os.path.lexists(self.manifest_path):  # a FIFO too: refused, not skipped
            self.manifest = self._check(read_manifest(self.manifest_path))
        else:
            with _disk(self.root, self.root, "read"):
                used = self.root.is_dir() and any(
                    p for p in self.root.iterdir() if not p.name.startswith(".")
                )
            if used:
                raise BatchError(
                    f"out={self.root}: the folder is not empty and has no "
                    "manifest.json, so it is not a batch folder; give a new or "
                    "empty folder"
                )
            self.manifest = {
                "format": FORMAT,
                "version": VERSION,
                "scenario": self.scenario,
                "seed": seed,
                "logs": logs,
                "variants": {},
            }

    # -- manifest ------------------------------------------------------------ #
    def _check(self, data: dict[str, Any]) -> dict[str, Any]:
        old = data.get("scenario", {})
        here = f"out={self.root} holds results of"
        if old.get("sha256") != self.scenario["sha256"]:
            if old.get("id") == self.scenario["id"]:
                raise BatchError(
                    f"{here} another version of scenario {old.get('id')!r} "
                    f"(hash {str(old.get('sha256'))[:12]}, now "
                    f"{self.scenario['sha256'][:12]}: the scenario changed); "
                    "use another folder"
                )
            raise BatchError(
                f"{here} scenario {old.get('id')!r} ({old.get('source')}), not "
                f"{self.scenario['id']!r}; use another folder"
            )
        if data.get("seed") != self.seed:
            raise BatchError(
                f"{here} seed {data.get('seed')}, not {self.seed}; use another "
                "folder or the same seed"
            )
        if bool(data.get("logs")) != self.logs:
            was = "with" if data.get("logs") else "without"
            raise BatchError(
                f"{here} games run {was} event logs; run again with "
                f"logs={bool(data.get('logs'))} or use another folder"
            )
        return data

    def register(self, variants: Sequence[Variant]) -> dict[str, str]:
        """Give each variant its file key (``v000``...); check reused names.

        Returns:
            variant name -> key.
        """
        known: dict[str, Any] = self.manifest["variants"]
        keys: dict[str, str] = {}
        changed = False
        for v in variants:
            entry = known.get(v.name)
            digest = v.digest()
            if entry is None:
                entry = {
                    "key": f"v{len(known):03d}",
                    "sha256": digest,
                    "overrides": v.overrides,
                    "policies": v.policy_labels,
                }
                known[v.name] = entry
                changed = True
            elif entry.get("sha256") != digest:
                raise BatchError(
                    f"out={self.root} holds variant {v.name!r} run with other "
                    f"overrides or policies ({entry.get('overrides')}, "
                    f"{entry.get('policies')}); rename the variant or use another "
                    "folder"
                )
            keys[v.name] = str(entry["key"])
        # The manifest first: a folder left without one holds nothing else, so
        # it can be used again once it is writable (or the disk has room).
        with _disk(self.root, self.root):
            self.root.mkdir(parents=True, exist_ok=True)
        if changed or not self.manifest_path.is_file():
            text = json.dumps(self.manifest, indent=1, sort_keys=False) + "\n"
            with _disk(self.root, self.manifest_path):
                _write(self.manifest_path, text.encode("utf-8"))
        for folder in (self.results, self.logs_dir) if self.logs else (self.results,):
            with _disk(self.root, folder):
                folder.mkdir(exist_ok=True)
        return keys

    # -- parts --------------------------------------------------------------- #
    def _parts(self, folder: Path, keys: set[str]) -> list[Path]:
        if not folder.is_dir():
            return []
        out = []
        with _disk(self.root, folder, "read"):
            names = sorted(folder.iterdir())
        for p in names:
            if p.name.startswith(".") and p.name.endswith(".tmp"):
                with contextlib.suppress(OSError):
                    p.unlink()  # left by a killed run
                continue
            m = _PART.match(p.name)
            if m and m.group(1) in keys:
                out.append(p)
        return out

    def finished(self, keys: Mapping[str, str]) -> list[pd.DataFrame]:
        """Rows already on disk for these variants; failed games are dropped
        (their parts rewritten without them) so that they run again; a game
        stored twice is returned once (see the module docstring)."""
        wanted = set(keys.values())
        parts: list[tuple[Path, pd.DataFrame]] = []
        results = self._parts(self.results, wanted)
        names = {p.name for p in results}
        for orphan in self._parts(self.logs_dir, wanted):
            if orphan.name not in names:
                with _disk(self.root, orphan, "deleted"):
                    orphan.unlink()  # logs written, results not: the chunk runs again
        for p in results:
            df = _read_part(p)
            failed = df["error"].notna()
            if failed.any():
                df = df[~failed].reset_index(drop=True)
                logp = self.logs_dir / p.name
                if df.empty:
                    with _disk(self.root, p, "deleted"):
                        p.unlink()
                        if logp.is_file():
                            logp.unlink()
                    continue
                with _disk(self.root, p):
                    _atomic_parquet(df, p)
            parts.append((p, df))
        return [_combine(parts)] if parts else []

    def write(
        self,
        key: str,
        games: Sequence[int],
        rows: pd.DataFrame,
        logs: pd.DataFrame | None,
    ) -> None:
        """Write one finished chunk: its logs first, then its rows."""
        name = f"{key}-{min(games):08d}-{len(games):04d}-{uuid.uuid4().hex[:8]}.parquet"
        if self.logs and logs is not None:
            with _disk(self.root, self.logs_dir / name):
                _atomic_parquet(log_for_parquet(logs), self.logs_dir / name)
        with _disk(self.root, self.results / name):
            _atomic_parquet(rows, self.results / name)


def read_results(out: str | Path) -> pd.DataFrame:
    """Every result row stored in a batch folder (all variants, all games).

    Rows are sorted by variant (in the order they were first run) and game.
    ``wargame.batch.run`` with the same folder returns the same rows for the
    variants and games it was asked for.

    Examples:
        >>> import tempfile
        >>> from wargame.batch import run
        >>> out = tempfile.mkdtemp()
        >>> df = run("test_remagen", 2, processes=1, progress=False, out=out,
        ...          logs=True)
        >>> len(read_results(out)), set(read_logs(out)["game"]) == {0, 1}
        (2, True)
    """
    import pandas as pd

    root = Path(out)
    data = _folder_manifest(root)
    variants: dict[str, Any] = data["variants"]
    order = list(variants)
    keys = {v["key"] for v in variants.values()}
    parts = _listed(root, "results", keys)
    if not parts:
        return pd.DataFrame()
    df = _combine([(p, _read_part(p)) for p in parts])
    df["variant"] = pd.Categorical(df["variant"].astype(str), categories=order)
    return df.sort_values(["variant", "game"], kind="stable").reset_index(drop=True)


def _folder_manifest(root: Path) -> dict[str, Any]:
    man = root / "manifest.json"
    if not os.path.lexists(man):
        raise BatchError(f"{root}: not a batch folder (no manifest.json)")
    return read_manifest(man)


def _listed(root: Path, folder: str, keys: set[str]) -> list[Path]:
    """The parts of ``root/folder`` that belong to these variant keys."""
    d = root / folder
    if not d.is_dir():
        return []
    with _disk(root, d, "read"):
        names = sorted(d.iterdir())
    out = []
    for p in names:
        m = _PART.match(p.name)
        if m and m.group(1) in keys:
            out.append(p)
    return out


def read_logs(
    out: str | Path,
    variant: str | None = None,
    games: Sequence[int] | None = None,
) -> pd.DataFrame:
    """Event logs stored by ``run(..., out=..., logs=True)``.

    Args:
        out: the batch folder.
        variant: only this variant.
        games: only these game indices.

    Returns:
        The logs of the games with ``variant``, ``game`` and ``seed`` columns
        first, then the columns of :attr:`wargame.engine.Game.log` (dice as
        tuples), sorted by variant, game and ``seq``.
    """
    import pandas as pd

    root = Path(out)
    data = _folder_manifest(root)
    if not data["logs"]:
        raise BatchError(f"{root}: the games were run without logs=True")
    variants: dict[str, Any] = data["variants"]
    if variant is not None and variant not in variants:
        raise BatchError(
            f"{root}: no variant {variant!r}; variants: {', '.join(variants)}"
        )
    keys = (
        {variants[variant]["key"]}
        if variant is not None
        else {v["key"] for v in variants.values()}
    )
    frames = []
    seen: set[tuple[str, int]] = set()
    for p in _listed(root, "logs", keys):
        if not (root / "results" / p.name).is_file():
            continue
        try:
            df = pd.read_parquet(p)
        except Exception as exc:
            raise BatchError(
                f"{p}: damaged part ({type(exc).__name__}: {exc}); delete it and "
                "its results part, and run again to replay its games"
            ) from None
        if games is not None:
            df = df[df["game"].isin(list(games))]
        # A game whose part is stored twice: its events from the first part only.
        vg = list(zip(df["variant"].astype(str), df["game"].astype(int), strict=True))
        df = df[[k not in seen for k in vg]]
        seen.update(vg)
        frames.append(df)
    if not frames:
        return pd.DataFrame()
    out_df = pd.concat(frames, ignore_index=True)
    out_df["dice"] = pd.Series(
        [tuple(int(x) for x in d) if d is not None else pd.NA for d in out_df["dice"]],
        dtype=object,
    )
    # Columns as in Game.log: pandas strings and nullable numbers, pd.NA missing.
    for col in TEXT_COLUMNS:
        out_df[col] = out_df[col].astype("string")
    for col in POINT_COLUMNS:
        out_df[col] = out_df[col].astype("Float64")
    for col in ("needed", "hits"):
        out_df[col] = out_df[col].astype("Int64")
    order = list(variants)
    out_df["variant"] = pd.Categorical(out_df["variant"].astype(str), categories=order)
    return out_df.sort_values(["variant", "game", "seq"], kind="stable").reset_index(
        drop=True
    )
