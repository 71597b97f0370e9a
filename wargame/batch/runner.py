"""``run``: many games of a scenario and its variants, one row per game.

Game ``i`` of every variant gets the same seed, taken from
``numpy.random.SeedSequence(seed)`` (its ``i``-th spawned child), so variants are
compared on common random numbers and the frame does not depend on how the games
were spread over processes or machines.  Each game runs in a worker; finished
chunks come back to this process, which writes them to ``out`` (if given) and
builds the frame.
"""

from __future__ import annotations

import math
import os
import sys
import warnings
from collections.abc import Callable, Generator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from wargame.engine import Game, Scenario, load_scenario
from wargame.engine.scenario import objective_id

from .policies import make_policy
from .store import Store
from .variants import BatchError, Variant, build_variant, scenario_hash
from .worker import init_worker, play_chunk

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = ["BASELINE", "game_for", "game_seeds", "run"]

#: The variant name used when no variants are given.
BASELINE = "baseline"

#: Most games per task: a killed run loses at most this many per worker.
MAX_CHUNK = 20

Chunk = tuple[int, list[int]]  # (variant index, game indices)


def game_seeds(seed: int, n_games: int) -> list[int]:
    """The seed of each game of a batch: game ``i`` gets the ``i``-th child of
    ``SeedSequence(seed)`` as a 63-bit integer (independent of ``n_games``).

    Examples:
        >>> import numpy as np
        >>> s = game_seeds(7, 3)
        >>> child = np.random.SeedSequence(7).spawn(3)[2]
        >>> s[2] == int(child.generate_state(1, np.uint64)[0] >> np.uint64(1))
        True
        >>> game_seeds(7, 5)[:3] == s
        True
    """
    _check_seed(seed)
    out = []
    for i in range(n_games):
        child = np.random.SeedSequence(seed, spawn_key=(i,))
        out.append(int(child.generate_state(1, np.uint64)[0] >> np.uint64(1)))
    return out


def _check_seed(seed: Any) -> None:
    if not isinstance(seed, int | np.integer) or isinstance(seed, bool) or seed < 0:
        raise BatchError(f"seed must be a whole number >= 0, not {seed!r}")


def _variants(
    base: Scenario,
    variants: Mapping[str, Mapping[str, Any] | None] | None,
    policies: Mapping[str, Any] | None,
) -> list[Variant]:
    if variants is None:
        variants = {BASELINE: {}}
    if not isinstance(variants, Mapping) or not variants:
        raise BatchError(
            "variants must be a dict of name -> overrides, e.g. "
            "{'baseline': {}, 'long': {'turns': 6}}"
        )
    return [build_variant(base, name, ov, policies) for name, ov in variants.items()]


def _side_of(scenario: Mapping[str, Any], unit: Mapping[str, Any]) -> str:
    forms = {f["id"]: f["side"] for f in scenario.get("formations", [])}
    fid = unit.get("formation")
    return str(forms[fid] if fid is not None else unit.get("side"))


def _schema(base: Scenario, vs: Sequence[Variant]) -> list[tuple[str, Any]]:
    """Columns and dtypes of the result frame, known before any game runs."""
    import pandas as pd

    sides = [s["id"] for s in base.sides]
    losses: list[str] = []
    held: list[str] = []
    for v in vs:
        for u in v.scenario.get("units", []):
            col = f"lost_{_side_of(v.scenario, u)}_{u.get('type')}"
            if col not in losses:
                losses.append(col)
        for i, o in enumerate(v.scenario.get("objectives", [])):
            col = f"held_{objective_id(o, i)}"
            if col not in held:
                held.append(col)
    text = pd.StringDtype()
    count = "Int64"
    cols: list[tuple[str, Any]] = [
        ("scenario", text),
        ("variant", pd.CategoricalDtype([v.name for v in vs])),
        ("game", "int64"),
        ("seed", "int64"),
        ("winner", pd.CategoricalDtype([*sides, "draw"])),
        ("termination", text),
        ("turns", count),
    ]
    cols += [(f"vp_{s}", count) for s in sides]
    cols += [(f"lost_{s}", count) for s in sides]
    cols += [(c, count) for c in sorted(losses)]
    cols += [(c, text) for c in held]
    cols += [(f"policy_{s}", text) for s in sides]
    cols += [
        ("actions", count),
        ("events", count),
        ("wall_time", "float64"),
        ("error", text),
        ("destroyed", text),
    ]
    return cols


def _typed(df: pd.DataFrame, schema: Sequence[tuple[str, Any]]) -> pd.DataFrame:
    """Same columns, order and dtypes whatever path the rows came by."""
    import pandas as pd

    n = len(df)
    missing = pd.Series([None] * n, index=df.index, dtype=object)
    ok = df["error"].isna().to_numpy() if "error" in df else np.ones(n, bool)
    cols: dict[str, Any] = {}
    for c, dtype in schema:
        col = df.get(c, missing)
        if isinstance(dtype, pd.CategoricalDtype):
            values = col.astype(object).to_numpy()
            cols[c] = pd.Categorical(
                [None if pd.isna(v) else v for v in values], dtype=dtype
            )
        elif isinstance(dtype, pd.StringDtype):
            values = col.astype(object).to_numpy()
            cols[c] = pd.array(
                [None if pd.isna(v) else str(v) for v in values], dtype=dtype
            )
        elif dtype == "int64":
            cols[c] = col.to_numpy(dtype="int64")
        elif dtype == "float64":
            cols[c] = pd.to_numeric(col, errors="coerce").to_numpy(dtype="float64")
        else:  # counts: nullable integers; a finished game lost 0 of a type absent
            num = pd.to_numeric(col, errors="coerce").to_numpy(dtype="float64")
            if c.startswith("lost_"):
                num = np.where(ok & np.isnan(num), 0.0, num)
            cols[c] = pd.array(num, dtype=dtype)
    return pd.DataFrame(cols, index=pd.RangeIndex(n))


def _chunks(pending: Sequence[tuple[int, int]], workers: int) -> list[Chunk]:
    """Consecutive games of one variant, about 8 tasks per worker."""
    size = max(1, min(MAX_CHUNK, math.ceil(len(pending) / max(1, workers * 8))))
    out: list[Chunk] = []
    for vi, g in pending:
        if out and out[-1][0] == vi and len(out[-1][1]) < size:
            out[-1][1].append(g)
        else:
            out.append((vi, [g]))
    return out


def _default_processes() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - macOS, Windows
        return os.cpu_count() or 1


def _fork_unsafe() -> str | None:
    """Why forking this process would kill or hang its workers, else ``None``.

    GNU OpenMP cannot be forked once its threads run: numba's ``omp`` threading
    layer kills such a child at once ("fork() called from a process already
    using GNU OpenMP, this is unsafe").  It starts with the first parallel
    kernel (a viewshed, a line-of-sight table built on a fresh cache), so a
    notebook that drew a viewshed could no longer fork.  ``libgomp`` being
    loaded at all (by numba or any other library) counts as started: the check
    is cheap and errs on the safe side.  numba's ``workqueue`` and ``tbb``
    layers are fork-safe.
    """
    par = sys.modules.get("numba.np.ufunc.parallel")
    if par is not None:
        try:
            layer = par.threading_layer()
        except ValueError:  # no parallel kernel has run in this process
            layer = None
        if layer == "omp":
            return "numba's OpenMP threading layer runs in this process"
    try:
        with open("/proc/self/maps", encoding="utf-8", errors="replace") as fh:
            if any("libgomp" in line for line in fh):
                return "GNU OpenMP (libgomp) is loaded in this process"
    except OSError:  # pragma: no cover - no /proc
        pass
    return None


#: The module every worker needs, imported once by the fork server so that the
#: workers it forks start without importing wargame again.
_WORKER_MODULE = "wargame.batch.worker"


def _mp_context() -> Any:
    """How local workers start.

    Linux: forked from this process when that is safe (see :func:`_fork_unsafe`):
    they inherit the loaded map and caches and start in milliseconds.  Once
    OpenMP runs here, forked from multiprocessing's fork server instead: a fresh
    process (started by fork + exec, so OpenMP-free) that has imported the
    worker module once; each worker then loads the map itself (about 1-2 s).
    Elsewhere spawn (the macOS/Windows default): each worker loads the map.
    """
    import multiprocessing as mp

    if not sys.platform.startswith("linux"):  # pragma: no cover - macOS, Windows
        return mp.get_context("spawn")
    if _fork_unsafe() is None:
        return mp.get_context("fork")
    ctx = mp.get_context("forkserver")
    from multiprocessing import forkserver

    # Keep modules someone else asked the (process-wide) server to preload.
    had = list(getattr(forkserver._forkserver, "_preload_modules", []))
    ctx.set_forkserver_preload([*dict.fromkeys([*had, _WORKER_MODULE])])
    return ctx


def _check_picklable_policies(vs: Sequence[Variant]) -> None:
    """A worker that does not fork from this process cannot see classes defined
    in a notebook or console (``__main__`` without a file): say so up front
    rather than let every worker die unpickling its task."""
    main = sys.modules.get("__main__")
    if main is not None and getattr(main, "__file__", None):
        return  # a script: the workers import it (guard it with __main__)
    for v in vs:
        for side, policy in v.policies.items():
            cls = type(policy)
            if cls.__module__ == "__main__":
                raise BatchError(
                    f"run: policies: {side}: {cls.__name__} is defined in this "
                    f"notebook or console, and the workers cannot be forked here "
                    f"({_fork_unsafe()}), so they cannot see it; move the class "
                    "to a .py module and import it, or pass processes=1"
                )


ChunkResult = tuple[list[dict[str, Any]], "pd.DataFrame | None"]


def _failed_chunk(
    task: Mapping[str, Any], exc: BaseException, hint: str = ""
) -> ChunkResult:
    rows = [
        {
            "variant": task["variant"],
            "game": int(i),
            "seed": int(s),
            "error": f"worker failed: {type(exc).__name__}: {exc}{hint}",
        }
        for i, s in task["games"]
    ]
    return rows, None


def _execute_local(
    tasks: list[dict[str, Any]], processes: int, ctx: Any = None
) -> Generator[tuple[int, ChunkResult], None, None]:
    if processes <= 1 or len(tasks) <= 1:
        for k, task in enumerate(tasks):
            yield k, play_chunk(task)
        return
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
    from concurrent.futures.process import BrokenProcessPool

    if ctx is None:
        ctx = _mp_context()
    hint = ""
    main = sys.modules.get("__main__")
    main_file = getattr(main, "__file__", None)
    main_spec = getattr(main, "__spec__", None)  # -m: workers skip __main__
    if ctx.get_start_method() != "fork" and main_file and main_spec is None:
        hint = (
            f" (the workers could not be forked and import the main script "
            f"{main_file}: put its code under if __name__ == '__main__':)"
        )
    pool = ProcessPoolExecutor(
        max_workers=min(processes, len(tasks)),
        mp_context=ctx,
        initializer=init_worker,
        initargs=(os.getpid(), list(sys.path)),
    )
    finished = False
    try:
        futures = {pool.submit(play_chunk, t): k for k, t in enumerate(tasks)}
        todo = set(futures)
        while todo:
            done, todo = wait(todo, return_when=FIRST_COMPLETED)
            for fut in sorted(done, key=futures.__getitem__):
                k = futures[fut]
                exc = fut.exception()
                if exc is None:
                    yield k, fut.result()
                else:  # the hint only where a worker died
                    broken = isinstance(exc, BrokenProcessPool)
                    yield k, _failed_chunk(tasks[k], exc, hint if broken else "")
        finished = True
    finally:
        # Interrupted: drop the queued chunks, do not wait for the running ones.
        pool.shutdown(wait=finished, cancel_futures=not finished)


def _execute_dask(
    tasks: list[dict[str, Any]], client: Any
) -> Generator[tuple[int, ChunkResult], None, None]:
    from distributed import as_completed

    futures = client.map(play_chunk, tasks, pure=False)
    index = {f.key: k for k, f in enumerate(futures)}
    try:
        for fut in as_completed(futures):  # type: ignore[no-untyped-call,unused-ignore]
            k = index[fut.key]
            if fut.status == "error":
                yield k, _failed_chunk(tasks[k], fut.exception())
            else:
                yield k, fut.result()
            fut.release()
    except BaseException:
        client.cancel(futures)
        raise


def run(
    scenario: str | Path | Mapping[str, Any] | Scenario,
    n_games: int,
    seed: int = 0,
    policies: Mapping[str, Any] | None = None,
    variants: Mapping[str, Mapping[str, Any] | None] | None = None,
    client: Any = None,
    processes: int | None = None,
    out: str | Path | None = None,
    progress: bool = True,
    logs: bool = False,
) -> pd.DataFrame:
    """Play ``n_games`` games of a scenario (per variant); one row per game.

    Args:
        scenario: a scenario name (``"test_remagen"``), file, dict or
            :class:`~wargame.engine.Scenario`.
        n_games: games per variant (>= 1).
        seed: the batch seed; game ``i`` gets :func:`game_seeds` ``(seed)[i]``,
            the same in every variant.
        policies: side -> policy (``"random"``, ``{"name": ..., **kw}`` or a
            picklable object); sides not given play ``"random"``.
        variants: name -> overrides (see :mod:`wargame.batch.variants`); default
            one variant ``"baseline"`` with no overrides.
        client: a ``dask.distributed.Client``: games run on its workers.
        processes: local worker processes (``None``: every core; ``1``: in this
            process).  Ignored with ``client``.
        out: a folder for the results as Parquet; running again with the same
            folder resumes (finished games are read back, not played again).
        progress: show a progress bar (a widget in notebooks).
        logs: also keep every game's event log in ``out`` (see
            :func:`~wargame.batch.read_logs`).

    Returns:
        One row per (variant, game), sorted by variant then game: ``scenario``,
        ``variant``, ``game``, ``seed``, ``winner`` (a side or ``"draw"``),
        ``termination``, ``turns`` (the turn it ended in), ``vp_<side>``,
        ``lost_<side>`` and ``lost_<side>_<type>`` (units out of play at the
        end), ``held_<objective id>`` (who holds each objective, by its id,
        hex or name), ``policy_<side>``,
        ``actions``, ``events``, ``wall_time`` (s), ``error`` (why the game
        failed, else missing) and ``destroyed`` (JSON list of each destruction:
        turn, side, unit, type, hex).  Everything but ``wall_time`` is the same
        whatever ``processes`` or ``client``.

    Raises:
        BatchError: ``n_games < 1``, a bad seed, an unknown variant parameter or
            policy, a variant the rules reject, or an ``out`` folder holding
            another scenario's results; all before any game runs.

    Examples:
        >>> df = run("test_remagen", 2, seed=1, processes=1, progress=False)
        >>> len(df), list(df.columns[:5])
        (2, ['scenario', 'variant', 'game', 'seed', 'winner'])
        >>> df["seed"].tolist() == game_seeds(1, 2)
        True
    """
    from multiprocessing import process as mp_process

    import pandas as pd

    if getattr(mp_process.current_process(), "_inheriting", False):
        raise BatchError(
            "run: called while a new worker process imports the main script; "
            "put the script's code under if __name__ == '__main__': (workers "
            "that cannot be forked import the script)"
        )
    if (
        not isinstance(n_games, int | np.integer)
        or isinstance(n_games, bool)
        or n_games < 1
    ):
        raise BatchError(f"n_games must be a whole number >= 1, not {n_games!r}")
    _check_seed(seed)
    if processes is not None and (
        not isinstance(processes, int) or isinstance(processes, bool) or processes < 1
    ):
        raise BatchError(f"processes must be a whole number >= 1, not {processes!r}")
    if logs and out is None:
        raise BatchError("logs=True keeps event logs in the out folder: give out=")
    try:
        base = scenario if isinstance(scenario, Scenario) else load_scenario(scenario)
    except ValueError as exc:
        raise BatchError(str(exc)) from None
    vs = _variants(base, variants, policies)
    schema = _schema(base, vs)
    seeds = game_seeds(int(seed), int(n_games))

    workers = (
        1
        if client is None and processes == 1
        else (
            _dask_workers(client)
            if client is not None
            else (processes or _default_processes())
        )
    )
    ctx = None
    if client is None and workers > 1 and len(vs) * n_games > 1:
        ctx = _mp_context()  # decided before anything is written
        if ctx.get_start_method() != "fork":
            _check_picklable_policies(vs)

    store: Store | None = None
    keys: dict[str, str] = {}
    frames: list[pd.DataFrame] = []
    done: set[tuple[str, int]] = set()
    if out is not None:
        store = Store(
            out,
            {"id": base.id, "source": base.source, "sha256": scenario_hash(base.data)},
            int(seed),
            logs,
        )
        keys = store.register(vs)
        for df in store.finished(keys):
            df = _typed(df[df["game"] < n_games], schema)
            frames.append(df)
            done.update(
                zip(df["variant"].astype(str), df["game"].astype(int), strict=True)
            )

    pending = [
        (vi, g)
        for vi, v in enumerate(vs)
        for g in range(n_games)
        if (v.name, g) not in done
    ]
    chunks = _chunks(pending, workers)
    tasks = [
        {
            "scenario": vs[vi].scenario,
            "source": vs[vi].source,
            "variant": vs[vi].name,
            "policies": vs[vi].policies,
            "games": [(g, seeds[g]) for g in games],
            "logs": logs,
        }
        for vi, games in chunks
    ]
    results = (
        _execute_dask(tasks, client)
        if client is not None
        else _execute_local(tasks, workers, ctx)
    )
    bar = _progress(
        progress, len(vs) * n_games, len(vs) * n_games - len(pending), base.id
    )
    new_rows: list[dict[str, Any]] = []
    try:
        for k, (rows, log) in results:
            vi, games = chunks[k]
            _label(rows, base, vs[vi])
            if store is not None:
                part = _typed(pd.DataFrame(rows), schema)
                store.write(keys[vs[vi].name], games, part, log)
            new_rows += rows
            bar(len(games))
    finally:
        results.close()
        bar(None)
    if new_rows:  # typed once, whatever the number of chunks
        frames.append(_typed(pd.DataFrame(new_rows), schema))
    frame = _assemble(frames, schema)
    _warn_failures(frame)
    return frame


def _dask_workers(client: Any) -> int:
    try:
        info = client.scheduler_info()
        return max(1, sum(int(w.get("nthreads", 1)) for w in info["workers"].values()))
    except Exception:  # pragma: no cover - an unusual client
        return 1


def _label(rows: list[dict[str, Any]], base: Scenario, v: Variant) -> None:
    """Add the columns the parent knows: scenario and policies."""
    labels = {f"policy_{side}": label for side, label in v.policy_labels.items()}
    for row in rows:
        row["scenario"] = base.id
        row.update(labels)
        row.setdefault("error", None)


def _assemble(frames: list[pd.DataFrame], schema: Sequence[tuple[str, Any]]) -> Any:
    import pandas as pd

    if frames:  # each already typed by _typed
        frame = pd.concat(frames, ignore_index=True)
    else:  # pragma: no cover - n_games >= 1 always gives rows
        frame = _typed(pd.DataFrame(columns=[c for c, _ in schema]), schema)
    frame = frame.sort_values(["variant", "game"], kind="stable")
    frame = frame.drop_duplicates(["variant", "game"], keep="first")
    return frame.reset_index(drop=True)


def _progress(on: bool, total: int, initial: int, desc: str) -> Callable[[Any], None]:
    if not on:
        return lambda _n: None
    from tqdm.auto import tqdm

    bar = tqdm(total=total, initial=initial, desc=desc, unit="game", smoothing=0.1)

    def update(n: int | None) -> None:
        if n is None:
            bar.close()
        else:
            bar.update(n)

    return update


def _warn_failures(frame: pd.DataFrame) -> None:
    failed = frame[frame["error"].notna()]
    if failed.empty:
        return
    first = failed.iloc[0]
    warnings.warn(
        f"{len(failed)} of {len(frame)} games failed; the rows have an 'error'. "
        f"First: variant {first['variant']!r}, game {first['game']}, seed "
        f"{first['seed']}: {first['error']}.  Replay it with "
        f"wargame.batch.game_for(scenario, {int(first['seed'])}, "
        f"variant={str(first['variant'])!r}, variants=...)",
        RuntimeWarning,
        stacklevel=3,
    )


def game_for(
    scenario: str | Path | Mapping[str, Any] | Scenario,
    seed: int,
    *,
    variant: str = BASELINE,
    variants: Mapping[str, Mapping[str, Any] | None] | None = None,
    policies: Mapping[str, Any] | None = None,
) -> Game:
    """The game of one result row, ready to replay (``run()``) or inspect.

    Args:
        scenario: the batch's scenario.
        seed: the row's ``seed``.
        variant: the row's ``variant``.
        variants: the batch's variants (``None``: baseline only).
        policies: the batch's policies.

    Examples:
        >>> df = run("test_remagen", 1, seed=5, processes=1, progress=False)
        >>> game = game_for("test_remagen", int(df.loc[0, "seed"]))
        >>> game.run().winner == (None if df.loc[0, "winner"] == "draw"
        ...                       else df.loc[0, "winner"])
        True
    """
    base = scenario if isinstance(scenario, Scenario) else load_scenario(scenario)
    if variants is None:
        if variant != BASELINE:
            raise BatchError(
                f"variant {variant!r}: give the batch's variants= to rebuild it"
            )
        chosen: dict[str, Mapping[str, Any] | None] = {BASELINE: {}}
    elif variant not in variants:
        raise BatchError(f"no variant {variant!r}; variants: {', '.join(variants)}")
    else:
        chosen = {variant: variants[variant]}
    v = _variants(base, chosen, policies)[0]
    return Game(
        Scenario(v.scenario, v.source),
        seed=int(seed),
        policies={s: make_policy(p, base.ruleset) for s, p in v.policies.items()},
    )
