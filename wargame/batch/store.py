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
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import uuid
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .variants import BatchError, Variant

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = ["FORMAT", "VERSION", "Store", "read_logs", "read_results"]

FORMAT = "wargame-batch"
VERSION = 1
_PART = re.compile(r"^(v\d{3,})-(\d{8})-(\d{4,})-([0-9a-f]{8})\.parquet$")


def _atomic_write_bytes(path: Path, data: bytes) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with open(tmp, "wb") as fh:
        fh.write(data)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)


def _atomic_parquet(frame: pd.DataFrame, path: Path) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    frame.to_parquet(tmp, index=False)
    with open(tmp, "rb") as fh:
        os.fsync(fh.fileno())
    os.replace(tmp, path)


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
        if self.manifest_path.is_file():
            self.manifest = self._check(self._read_manifest())
        else:
            if self.root.is_dir() and any(
                p for p in self.root.iterdir() if not p.name.startswith(".")
            ):
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
    def _read_manifest(self) -> dict[str, Any]:
        try:
            data = json.loads(self.manifest_path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise BatchError(f"{self.manifest_path}: cannot be read ({exc})") from None
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise BatchError(f"{self.manifest_path}: not a wargame batch manifest")
        if int(data.get("version", 0)) > VERSION:
            raise BatchError(
                f"{self.manifest_path}: written by a newer wargame (batch format "
                f"{data.get('version')}); upgrade wargame"
            )
        return data

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
        if changed or not self.manifest_path.is_file():
            self.results.mkdir(parents=True, exist_ok=True)
            if self.logs:
                self.logs_dir.mkdir(parents=True, exist_ok=True)
            text = json.dumps(self.manifest, indent=1, sort_keys=False) + "\n"
            _atomic_write_bytes(self.manifest_path, text.encode("utf-8"))
        return keys

    # -- parts --------------------------------------------------------------- #
    def _parts(self, folder: Path, keys: set[str]) -> list[Path]:
        if not folder.is_dir():
            return []
        out = []
        for p in sorted(folder.iterdir()):
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
        (their parts rewritten without them) so that they run again."""
        import pandas as pd

        wanted = set(keys.values())
        frames = []
        results = self._parts(self.results, wanted)
        names = {p.name for p in results}
        for orphan in self._parts(self.logs_dir, wanted):
            if orphan.name not in names:
                orphan.unlink()  # logs written, results not: the chunk runs again
        for p in results:
            try:
                df = pd.read_parquet(p)
            except Exception as exc:
                raise BatchError(
                    f"{p}: damaged part ({type(exc).__name__}: {exc}); delete it "
                    "and run again to replay its games"
                ) from None
            failed = df["error"].notna()
            if failed.any():
                df = df[~failed].reset_index(drop=True)
                logp = self.logs_dir / p.name
                if df.empty:
                    p.unlink()
                    if logp.is_file():
                        logp.unlink()
                    continue
                _atomic_parquet(df, p)
            frames.append(df)
        return frames

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
            _atomic_parquet(_log_for_parquet(logs), self.logs_dir / name)
        _atomic_parquet(rows, self.results / name)


def _log_for_parquet(log: pd.DataFrame) -> pd.DataFrame:
    out = log.copy()
    # Dice are tuples in memory; Parquet stores them as lists of integers.
    out["dice"] = [list(d) if d is not None else None for d in out["dice"]]
    return out


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
    man = root / "manifest.json"
    if not man.is_file():
        raise BatchError(f"{root}: not a batch folder (no manifest.json)")
    data = json.loads(man.read_text(encoding="utf-8"))
    order = list(data.get("variants", {}))
    parts = sorted((root / "results").glob("v*.parquet"))
    if not parts:
        return pd.DataFrame()
    df = pd.concat([pd.read_parquet(p) for p in parts], ignore_index=True)
    df["variant"] = pd.Categorical(df["variant"].astype(str), categories=order)
    return df.sort_values(["variant", "game"], kind="stable").reset_index(drop=True)


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
    man = root / "manifest.json"
    if not man.is_file():
        raise BatchError(f"{root}: not a batch folder (no manifest.json)")
    data = json.loads(man.read_text(encoding="utf-8"))
    if not data.get("logs"):
        raise BatchError(f"{root}: the games were run without logs=True")
    variants = data.get("variants", {})
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
    for p in sorted((root / "logs").glob("v*.parquet")):
        m = _PART.match(p.name)
        if not m or m.group(1) not in keys or not (root / "results" / p.name).is_file():
            continue
        df = pd.read_parquet(p)
        if games is not None:
            df = df[df["game"].isin(list(games))]
        frames.append(df)
    if not frames:
        return pd.DataFrame()
    out_df = pd.concat(frames, ignore_index=True)
    out_df["dice"] = [
        tuple(int(x) for x in d) if d is not None else None for d in out_df["dice"]
    ]
    # Text columns as in Game.log: objects, None where missing.
    for col in ("unit", "target", "hex_from", "hex_to", "result", "detail"):
        out_df[col] = out_df[col].astype(object).where(out_df[col].notna(), None)
    order = list(variants)
    out_df["variant"] = pd.Categorical(out_df["variant"].astype(str), categories=order)
    return out_df.sort_values(["variant", "game", "seq"], kind="stable").reset_index(
        drop=True
    )
