"""Issue 16, items 1, 7 and 8 (batch): workers after OpenMP, workers that die with
the batch process, duplicated parts, damaged manifests, folders that cannot be
written, and unbounded reads of the files a batch is given."""

from __future__ import annotations

import errno
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import textwrap
import time
import types
from pathlib import Path

import pandas as pd
import pytest

from wargame import batch
from wargame.batch import BatchError, runner
from wargame.cli import main

ROOT = Path(__file__).resolve().parents[2]
SCENARIO = "test_remagen"
SHORT = {"short": {"turns": 2}}
linux_only = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="Linux: fork, prctl and /proc"
)

#: Starts numba's OpenMP threads in the calling process, as a notebook does when
#: it draws a viewshed, and checks that they really run (2 threads, layer omp).
START_OPENMP = """
import numba, wargame
m = wargame.load_map(window="Remagen")
m.viewshed(m.hexes.index[len(m.hexes) // 2], 2000.0)
layer = numba.threading_layer()
assert numba.get_num_threads() > 1, numba.get_num_threads()
print("layer", layer, flush=True)
"""


def child_env() -> dict[str, str]:
    """This checkout first on the path; numba with 2 threads whatever the
    machine (so that its kernels run in parallel) and its default layer."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NUMBA_NUM_THREADS": "2"}
    env.pop("NUMBA_THREADING_LAYER", None)
    return env


def python(code: str, **kw: object) -> subprocess.Popen[str]:
    """This checkout's Python on ``code`` (see :func:`child_env`)."""
    return subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(code)],
        env=child_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        **kw,  # type: ignore[arg-type]
    )


def finish(proc: subprocess.Popen[str], timeout: float = 600) -> str:
    out, err = proc.communicate(timeout=timeout)  # a hang guard, not a timing test
    assert proc.returncode == 0, err[-3000:]
    return out


# -- item 1: a batch after OpenMP -------------------------------------------- #
@linux_only
def test_batch_after_openmp_viewshed_all_games_succeed() -> None:
    out = finish(
        python(
            START_OPENMP
            + """
from wargame import batch
from wargame.batch import runner
df = batch.run("test_remagen", 8, seed=4, processes=2, progress=False)
print("errors", int(df["error"].notna().sum()), "rows", len(df))
one = batch.run("test_remagen", 8, seed=4, processes=1, progress=False)
same = df.drop(columns="wall_time").equals(one.drop(columns="wall_time"))
print("same", same)
print("unsafe", runner._fork_unsafe() is not None)
print("method", runner._mp_context().get_start_method())
"""
        )
    )
    lines = dict(line.split(" ", 1) for line in out.splitlines())
    if lines["layer"] != "omp":  # pragma: no cover - a numba without GNU OpenMP
        pytest.skip(f"numba's threading layer here is {lines['layer']}, not omp")
    assert lines["errors"] == "0 rows 8"
    assert lines["same"] == "True"  # same rows as in one process
    assert lines["unsafe"] == "True"  # the parent really runs OpenMP
    assert lines["method"] == "forkserver"


@linux_only
def test_unguarded_script_after_openmp_says_how_to_fix(tmp_path) -> None:
    script = tmp_path / "study.py"  # no if __name__ == "__main__": guard
    script.write_text(
        START_OPENMP
        + """
import warnings
from wargame import batch
warnings.simplefilter("ignore")
df = batch.run("test_remagen", 2, seed=4, processes=2, progress=False)
print("error", df["error"].iloc[0])
"""
    )
    done = subprocess.run(
        [sys.executable, str(script)],
        env=child_env(),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    error = done.stdout.splitlines()[-1]
    assert error.startswith("error worker failed: BrokenProcessPool: ")
    assert error.endswith(
        f"(the workers could not be forked and import the main script {script}: "
        "put its code under if __name__ == '__main__':)"
    )
    # each worker stopped at the batch call, with the fix in its traceback
    assert "run: called while a new worker process imports the main script" in (
        done.stderr
    )


@linux_only
def test_batch_in_a_clean_process_still_forks() -> None:
    out = finish(
        python(
            """
from wargame.batch import runner
print(runner._fork_unsafe(), runner._mp_context().get_start_method())
"""
        )
    )
    assert out.split() == ["None", "fork"]


def test_notebook_policy_after_openmp_refused_before_anything_is_written(
    tmp_path, monkeypatch
) -> None:
    monkeypatch.setattr(runner, "_fork_unsafe", lambda: "OpenMP runs (test)")
    monkeypatch.setitem(sys.modules, "__main__", types.ModuleType("__main__"))
    Notebook = type(
        "NotebookPolicy",
        (),
        {"__module__": "__main__", "choose": lambda self, decision: None},
    )
    out = tmp_path / "study"
    with pytest.raises(BatchError) as info:
        batch.run(
            SCENARIO,
            4,
            processes=2,
            progress=False,
            policies={"nato": Notebook()},
            out=out,
        )
    assert str(info.value) == (
        "run: policies: nato: NotebookPolicy is defined in this notebook or "
        "console, and the workers cannot be forked here (OpenMP runs (test)), so "
        "they cannot see it; move the class to a .py module and import it, or "
        "pass processes=1"
    )
    assert not out.exists()


# -- item 7: workers die with the batch process ------------------------------ #
def descendants(pid: int) -> set[int]:
    """Every process below ``pid`` (from /proc/*/stat: works without psutil)."""
    children: dict[int, list[int]] = {}
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            stat = (d / "stat").read_text()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        children.setdefault(ppid, []).append(int(d.name))
    out: set[int] = set()
    todo = [pid]
    while todo:
        for c in children.get(todo.pop(), []):
            if c not in out:
                out.add(c)
                todo.append(c)
    return out


def running(pid: int) -> bool:
    """Alive and not a zombie (a killed orphan may wait for a reaper)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


@linux_only
@pytest.mark.parametrize("openmp", [False, True], ids=["forked", "fork-server"])
def test_killed_batch_leaves_no_worker_alive(tmp_path, openmp) -> None:
    out = tmp_path / "study"
    proc = python(
        (START_OPENMP if openmp else "")
        + f"""
from wargame import batch
batch.run("test_remagen", 4000, seed=1, variants={{"short": {{"turns": 2}}}},
          processes=2, progress=False, out={str(out)!r})
"""
    )
    workers: list[int] = []
    try:
        deadline = time.monotonic() + 600  # a hang guard for a loaded machine
        while not list((out / "results").glob("*.parquet")):
            assert proc.poll() is None, proc.communicate()[1][-3000:]
            assert time.monotonic() < deadline, "no game finished in 10 minutes"
            time.sleep(0.1)
        family = descendants(proc.pid)
        workers += [p for p in family if running(p)]
        assert len(workers) >= 2, family  # the pool's two workers at least
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        limit = time.monotonic() + 5.0  # the bound of the issue: 5 s
        while any(running(p) for p in workers) and time.monotonic() < limit:
            time.sleep(0.05)
        alive = [p for p in workers if running(p)]
        assert not alive, f"workers alive 5 s after kill -9 of the batch: {alive}"
    finally:  # a failed test must not leave the workers (holding its pipes)
        if proc.poll() is None:
            workers += list(descendants(proc.pid))
            proc.kill()
        for p in workers:
            if running(p):
                os.kill(p, signal.SIGKILL)
        proc.communicate(timeout=60)


# -- item 7: duplicated part files -------------------------------------------- #
@pytest.fixture
def study(tmp_path) -> Path:
    out = tmp_path / "study"
    batch.run(SCENARIO, 6, seed=3, variants=SHORT, processes=1, progress=False, out=out)
    return out


def copy_part(out: Path) -> tuple[Path, Path]:
    first = sorted((out / "results").glob("v*.parquet"))[0]
    copy = first.with_name(first.name[:-16] + "0badc0de.parquet")
    shutil.copy(first, copy)
    return first, copy


def test_duplicated_part_read_once(study) -> None:
    before = batch.read_results(study)
    copy_part(study)
    after = batch.read_results(study)
    assert len(after) == len(before) == 6
    pd.testing.assert_frame_equal(after, before)
    again = batch.run(
        SCENARIO, 6, seed=3, variants=SHORT, processes=1, progress=False, out=study
    )
    assert len(again) == 6


def test_duplicated_part_with_other_results_refused(study) -> None:
    first, copy = copy_part(study)
    df = pd.read_parquet(copy)
    df.loc[0, "actions"] = df.loc[0, "actions"] + 1
    df.to_parquet(copy, index=False)
    game = int(df.loc[0, "game"])
    a, b = sorted([first, copy])  # the later file is the one reported
    expected = (
        f"{b}: variant 'short', game {game}: also stored in {a.name} with "
        "another result; delete the wrong part (its games are played again by the "
        "next run with this folder)"
    )
    with pytest.raises(BatchError) as info:
        batch.read_results(study)
    assert str(info.value) == expected
    with pytest.raises(BatchError) as info:
        batch.run(
            SCENARIO, 6, seed=3, variants=SHORT, processes=1, progress=False, out=study
        )
    assert str(info.value) == expected


def test_duplicated_log_part_read_once(tmp_path) -> None:
    out = tmp_path / "logs"
    batch.run(
        SCENARIO,
        2,
        seed=3,
        variants=SHORT,
        processes=1,
        progress=False,
        out=out,
        logs=True,
    )
    before = batch.read_logs(out)
    first = sorted((out / "results").glob("v*.parquet"))[0]
    for folder in ("results", "logs"):
        src = out / folder / first.name
        shutil.copy(src, src.with_name(first.name[:-16] + "0badc0de.parquet"))
    pd.testing.assert_frame_equal(batch.read_logs(out), before)


# -- item 7 and 8: manifests -------------------------------------------------- #
FIX = "wargame writes this file: restore it, or start again in a new folder (out=)"


def good_manifest(study: Path) -> dict:
    return json.loads((study / "manifest.json").read_text())


MANIFEST_CASES = {
    "version_text": (
        lambda m: m.update(version="x"),
        "version: is 'x', not a whole number >= 1",
    ),
    "version_bool": (
        lambda m: m.update(version=True),
        "version: is True, not a whole number >= 1",
    ),
    "version_zero": (
        lambda m: m.update(version=0),
        "version: is 0, not a whole number >= 1",
    ),
    "scenario_text": (
        lambda m: m.update(scenario="test_remagen"),
        "scenario: is 'test_remagen', not a table (id, source, sha256)",
    ),
    "scenario_missing": (
        lambda m: m.pop("scenario"),
        "scenario: is None, not a table (id, source, sha256)",
    ),
    "scenario_sha_number": (
        lambda m: m["scenario"].update(sha256=7),
        "scenario.sha256: is 7, not a text",
    ),
    "seed_negative": (
        lambda m: m.update(seed=-1),
        "seed: is -1, not a whole number >= 0",
    ),
    "logs_text": (lambda m: m.update(logs="yes"), "logs: is 'yes', not true or false"),
    "variants_list": (
        lambda m: m.update(variants=[1]),
        "variants: is [1], not a table of variants",
    ),
    "variant_text": (
        lambda m: m["variants"].update(short="x"),
        "variants.short: is 'x', not a table",
    ),
    "variant_key_bad": (
        lambda m: m["variants"]["short"].update(key="../x"),
        "variants.short.key: is '../x', not a key like 'v000'",
    ),
    "variant_key_twice": (
        lambda m: m["variants"].update(other=dict(m["variants"]["short"])),
        "variants.other.key: 'v000' is also the key of 'short'",
    ),
    "overrides_text": (
        lambda m: m["variants"]["short"].update(overrides="turns=2"),
        "variants.short.overrides: is 'turns=2', not a table",
    ),
}


@pytest.mark.parametrize("case", list(MANIFEST_CASES))
def test_manifest_bad_field_refused(study, case) -> None:
    change, problem = MANIFEST_CASES[case]
    man = study / "manifest.json"
    data = good_manifest(study)
    change(data)
    man.write_text(json.dumps(data))
    expected = f"{man}: {problem}; {FIX}"
    for call in (
        lambda: batch.read_results(study),
        lambda: batch.run(
            SCENARIO, 6, seed=3, variants=SHORT, processes=1, progress=False, out=study
        ),
    ):
        with pytest.raises(BatchError) as info:
            call()
        assert str(info.value) == expected
    assert json.loads(man.read_text()) == data  # nothing rewritten


def test_manifest_newer_version_refused(study) -> None:
    man = study / "manifest.json"
    data = good_manifest(study)
    data["version"] = 99
    man.write_text(json.dumps(data))
    with pytest.raises(BatchError) as info:
        batch.read_results(study)
    assert str(info.value) == (
        f"{man}: version: 99 is a newer batch format than this wargame reads (1); "
        "upgrade wargame"
    )


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        (
            "[" * 100_000 + "]" * 100_000,
            "is not valid JSON (nested more than 32 "
            "levels deep (arrays within arrays); flatten it)",
        ),
        (
            '{"format": ' * 50 + "1" + "}" * 50,
            "is not valid JSON (nested more than 32 levels deep (tables within "
            "tables or arrays within arrays); flatten it)",
        ),
        (
            "{not json",
            "is not valid JSON (Expecting property name enclosed in double "
            "quotes: line 1 column 2 (char 1))",
        ),
        ("[1, 2]", "holds a JSON list, not a batch manifest (an object)"),
    ],
    ids=["deep_arrays", "deep_tables", "not_json", "a_list"],
)
def test_manifest_not_json_object_refused(study, text, problem) -> None:
    man = study / "manifest.json"
    man.write_text(text)
    with pytest.raises(BatchError) as info:
        batch.read_results(study)
    assert str(info.value) == f"{man}: {problem}; {FIX}"


def test_manifest_huge_file_refused_unread(study) -> None:
    man = study / "manifest.json"
    with open(man, "r+b") as fh:
        fh.truncate(65 * 1024 * 1024)  # sparse: refused from its size, not read
    with pytest.raises(BatchError) as info:
        batch.read_results(study)
    assert str(info.value) == (
        f"{man}: is 65 MiB, more than the limit of 64 MiB; is this the right file?"
    )


@linux_only
def test_manifest_fifo_refused_without_blocking(study) -> None:
    man = study / "manifest.json"
    man.unlink()
    os.mkfifo(man)
    with pytest.raises(BatchError) as info:
        batch.read_results(study)
    assert str(info.value) == (
        f"{man}: is not a regular file (a device, pipe or socket); give a file"
    )


# -- item 8: variants files --------------------------------------------------- #
@linux_only
def test_variants_file_device_refused() -> None:
    with pytest.raises(BatchError) as info:
        batch.load_variants("/dev/zero")
    assert str(info.value) == (
        "variants file /dev/zero: cannot be read (is not a regular file (a device, "
        "pipe or socket); give a file)"
    )


@pytest.mark.parametrize("suffix", [".toml", ".json"])
def test_variants_file_deep_nesting_refused(tmp_path, suffix) -> None:
    p = tmp_path / f"v{suffix}"
    deep = "[" * 5000 + "]" * 5000
    p.write_text(f"[a]\nx = {deep}\n" if suffix == ".toml" else f'{{"a": {deep}}}')
    with pytest.raises(BatchError) as info:
        batch.load_variants(p)
    assert re.fullmatch(
        rf"variants file {re.escape(str(p))}: not valid TOML/JSON: nested more than "
        r"32 levels deep.*",
        str(info.value),
    )


# -- item 7: folders that cannot be written ----------------------------------- #
def cli_batch(out: Path, capsys) -> tuple[int, list[str]]:
    code = main(
        ["batch", SCENARIO, "--games", "4", "--processes", "1", "-q", "--out", str(out)]
    )
    return code, capsys.readouterr().err.splitlines()


def temp_files(folder: Path) -> list[Path]:
    return [p for p in folder.rglob("*") if p.name.endswith(".tmp")]


def unwritable(folder: Path, where: str, why: str) -> str:
    return (
        f"wargame: error: {folder}: {where}: cannot be written ({why}); give out= "
        "(--out) a folder you can write to, or free disk space; games already "
        "stored are kept and the next run resumes"
    )


@pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() == 0,
    reason="root ignores folder permissions (see the simulated test below)",
)
def test_batch_cli_read_only_folder_one_line(tmp_path, capsys) -> None:
    out = tmp_path / "ro"
    out.mkdir()
    out.chmod(0o555)
    try:
        code, err = cli_batch(out, capsys)
    finally:
        out.chmod(0o755)
    assert code == 2
    assert err == [unwritable(out, "manifest.json", "Permission denied")]
    assert list(out.iterdir()) == []


def test_batch_cli_read_only_file_system_one_line(
    tmp_path, capsys, monkeypatch
) -> None:
    out = tmp_path / "ro"
    out.mkdir()
    real_open, real_mkdir = os.open, os.mkdir
    writes = os.O_WRONLY | os.O_RDWR | os.O_CREAT

    def ro_open(path, flags, *a, **kw):  # what a read-only file system answers
        if flags & writes and str(path).startswith(str(out)):
            raise OSError(errno.EROFS, os.strerror(errno.EROFS), str(path))
        return real_open(path, flags, *a, **kw)

    def ro_mkdir(path, *a, **kw):
        if str(path).startswith(str(out)):
            raise OSError(errno.EROFS, os.strerror(errno.EROFS), str(path))
        return real_mkdir(path, *a, **kw)

    monkeypatch.setattr(os, "open", ro_open)
    monkeypatch.setattr(os, "mkdir", ro_mkdir)
    code, err = cli_batch(out, capsys)
    assert code == 2
    assert err == [unwritable(out, "manifest.json", "Read-only file system")]
    assert list(out.iterdir()) == []


@pytest.mark.parametrize("ok_writes", [0, 1], ids=["manifest", "first_part"])
def test_batch_cli_disk_full_leaves_no_temp_file(
    tmp_path, capsys, monkeypatch, ok_writes
) -> None:
    out = tmp_path / "full"
    real = os.fsync
    calls = []

    def full(fd: int) -> None:
        calls.append(fd)
        if len(calls) > ok_writes:  # the data was written: the temp file exists
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        real(fd)

    monkeypatch.setattr(os, "fsync", full)
    code, err = cli_batch(out, capsys)
    assert code == 2
    assert len(err) == 1
    part = r"results/v000-\d{8}-\d{4}-[0-9a-f]{8}\.parquet"
    expected = re.escape(unwritable(out, "WHERE", "No space left on device"))
    where = "manifest.json" if ok_writes == 0 else part
    assert re.fullmatch(expected.replace("WHERE", where), err[0]), err[0]
    assert temp_files(out) == []
    assert not list((out / "results").glob("*.parquet"))
    assert (out / "manifest.json").is_file() == (ok_writes == 1)
    monkeypatch.setattr(os, "fsync", real)
    code, _ = cli_batch(out, capsys)  # space again: the same folder works
    assert code == 0
    assert len(batch.read_results(out)) == 4


def test_store_write_failure_in_api_is_a_batch_error(tmp_path, monkeypatch) -> None:
    out = tmp_path / "api"

    def full(fd: int) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "fsync", full)
    with pytest.raises(BatchError, match=r": manifest.json: cannot be written \(No "):
        batch.run(SCENARIO, 2, processes=1, progress=False, out=out)
    assert temp_files(out) == []


def test_cli_os_error_elsewhere_is_one_line(capsys, monkeypatch) -> None:
    def denied(*a, **kw):
        raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), "/srv/x")

    monkeypatch.setattr(batch, "run", denied)
    assert main(["batch", SCENARIO, "--games", "2", "-q"]) == 2
    assert capsys.readouterr().err.splitlines() == [
        "wargame: error: /srv/x: Permission denied; check the path, its permissions "
        "and the free disk space"
    ]


def test_unreadable_results_folder_one_line(study, monkeypatch) -> None:
    real = os.listdir

    def denied(path="."):
        if str(path) == str(study / "results"):
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(path))
        return real(path)

    monkeypatch.setattr(os, "listdir", denied)
    with pytest.raises(BatchError) as info:
        batch.read_results(study)
    assert str(info.value) == (
        f"{study}: results: cannot be read (Permission denied); give out= (--out) "
        "a folder you can read and write"
    )
