"""The oracle of the fuzz suite: what a clean refusal is, and the bookkeeping.

Every fuzz case hands the library one generated (mostly damaged) input.  The
call must either succeed, or refuse it with a user error: a ``ValueError``
(``ScenarioError``, ``SaveFileError``, ``IllegalActionError``... are ones; a
``TypeError`` too for API arguments) whose message is one line per problem,
each shaped ``<where>: <field>: <problem>``, where ``<where>`` names the file
(scenarios, saves) or the function (API).  Anything else is a bug:
``RecursionError``, ``KeyError``, ``AttributeError``, ``OverflowError``,
``MemoryError``, a ``TypeError`` from inside, a numpy ``RuntimeWarning``, a
hang, a message naming neither the file nor the function, or one echoing a
huge value whole.

Examples:
    >>> assert_clean_error(ValueError("a.toml: turns: must be >= 1; fix it"),
    ...                    where=("a.toml",))
    >>> try:
    ...     assert_clean_error(TypeError("unhashable type: 'dict'"), where=("a.toml",))
    ... except FuzzFailure as exc:
    ...     print(exc.kind)
    crash
    >>> try:
    ...     assert_clean_error(ValueError("cannot convert float NaN to integer"),
    ...                        where=("a.toml",))
    ... except FuzzFailure as exc:
    ...     print(exc.kind)
    message
"""

from __future__ import annotations

import math
import os
import re
import signal
import threading
import traceback
import warnings
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, Phase, settings
from hypothesis.database import DirectoryBasedExampleDatabase

__all__ = [
    "FAMILIES",
    "MAX_LINE",
    "STATS",
    "FuzzFailure",
    "assert_clean_error",
    "check_lines",
    "examples",
    "expect_clean",
    "fuzz_case",
    "fuzz_settings",
    "profile_name",
]

#: The families counted towards the ``make fuzz`` total.
FAMILIES = ("scenarios", "saves", "api", "cli")
#: The longest acceptable message line: long enough for a problem, its field
#: and its fix with a list of choices (~300 characters today), short enough
#: that a 1 MB value echoed whole is caught.
MAX_LINE = 500
#: Longest value text kept in the summary of a failure.
_SHOW = 300

ROOT = Path(__file__).resolve().parents[2]
KEEP_GOING = os.environ.get("WARGAME_FUZZ_KEEP_GOING") == "1"


def profile_name() -> str:
    """The Hypothesis profile of this run: ``ci`` (default) or ``fuzz``."""
    return os.environ.get("WARGAME_FUZZ_PROFILE", "ci")


def examples(ci: int, fuzz: int) -> int:
    """``max_examples`` of one test under the active profile
    (``WARGAME_FUZZ_SCALE`` scales the fuzz counts, for a trial run).

    Examples:
        >>> examples(10, 1000) >= 1
        True
    """
    if profile_name() != "fuzz":
        return ci
    return max(1, round(fuzz * float(os.environ.get("WARGAME_FUZZ_SCALE", "1"))))


_SUPPRESS = (HealthCheck.too_slow, HealthCheck.data_too_large)

# ``ci`` (default, ``make test``): a few dozen examples per test, the same on
# every run (derandomize), no database, no shrinking (a failing CI run reports
# its examples at once instead of spending minutes on each).  ``fuzz`` (``make
# fuzz``): thousands per test, random, shrunk, kept in ``.hypothesis/`` so that
# a failure found once is replayed first next time.  Deadline: generous (a
# correct implementation answers in milliseconds; the first map of a window
# takes ~2 s, several times that on a loaded machine); a hang is caught by the
# watchdog of :func:`fuzz_case`.
settings.register_profile(
    "ci",
    max_examples=20,
    derandomize=True,
    database=None,
    phases=[Phase.explicit, Phase.reuse, Phase.generate],
    deadline=30_000,
    suppress_health_check=_SUPPRESS,
    print_blob=False,
)
settings.register_profile(
    "fuzz",
    max_examples=5_000,
    derandomize=False,
    database=DirectoryBasedExampleDatabase(str(ROOT / ".hypothesis" / "examples")),
    deadline=30_000,
    suppress_health_check=_SUPPRESS,
    print_blob=True,
)


def fuzz_settings(
    ci: int, fuzz: int, *, suppress: Sequence[HealthCheck] = ()
) -> settings:
    """The settings of one fuzz test: the active profile, ``ci`` or ``fuzz``
    examples, and extra health checks to suppress."""
    base = settings.get_profile(profile_name())
    return settings(
        base,
        max_examples=examples(ci, fuzz),
        suppress_health_check=[*base.suppress_health_check, *suppress],
    )


#: Per-case wall-clock budget (s).  A correct implementation answers every
#: in-process case in well under a second (first map builds take ~2 s); the
#: budget only turns a hang into a failure instead of a stuck test run.
CASE_TIMEOUT_S = float(os.environ.get("WARGAME_FUZZ_CASE_TIMEOUT", "60"))


@dataclass
class _Stats:
    cases: Counter[str] = field(default_factory=Counter)
    #: "family: what" -> cases (to see a test that ran out of inputs)
    by_call: Counter[str] = field(default_factory=Counter)
    unexpected: Counter[str] = field(default_factory=Counter)
    #: signature -> {"family", "kind", "count", "example", "detail"}
    distinct: dict[str, dict[str, Any]] = field(default_factory=dict)


#: Counters of this process (read by ``conftest.py`` for the summary).
STATS = _Stats()


class FuzzFailure(AssertionError):
    """A fuzz case that did not end in success or a clean refusal.

    Attributes:
        kind: ``crash`` (an unexpected exception type), ``message`` (a user
            error with a bad message), ``hang``, ``warning``, ``state`` (a
            refused call changed the game), ``accepted`` (bad input taken as
            good) or ``lie`` (a save loaded as another game).
        detail: what went wrong, in one line.
        site: where the original exception was raised (``file:line (func)``).
    """

    def __init__(self, kind: str, detail: str, site: str = "") -> None:
        self.kind = kind
        self.detail = detail
        self.site = site
        super().__init__(
            f"[{kind}] {detail}" + (f" (raised at {site})" if site else "")
        )


def _short(text: str, n: int = _SHOW) -> str:
    text = str(text)
    return text if len(text) <= n else f"{text[:n]}... ({len(text)} characters)"


def short_repr(value: Any, n: int = _SHOW) -> str:
    """``repr`` cut to ``n`` characters (safe on deep or huge values)."""
    try:
        text = repr(value)
    except RecursionError:
        text = f"<{type(value).__name__} nested too deep to print>"
    return _short(text, n)


def raise_site(exc: BaseException) -> str:
    """Where ``exc`` was raised: the innermost frame in ``wargame/`` (else the
    innermost frame), as ``path:line (function)``."""
    frames = traceback.extract_tb(exc.__traceback__)
    if not frames:
        return ""
    ours = [f for f in frames if "/wargame/" in f.filename.replace(os.sep, "/")]
    inner = frames[-1]
    f = ours[-1] if ours else inner
    try:
        name = str(Path(f.filename).resolve().relative_to(ROOT))
    except ValueError:
        name = Path(f.filename).name
    text = f"{name}:{f.lineno} ({f.name})"
    if ours and inner is not ours[-1]:
        text += f" -> {Path(inner.filename).name}:{inner.lineno} ({inner.name})"
    return text


#: Texts of Python's own exceptions that mean a bug surfaced in a message
#: (issue 16: "hex_size_m = inf says cannot convert float NaN to integer").
INTERNAL_TEXTS = (
    "cannot convert float NaN to integer",
    "unhashable type",
    "has no attribute",
    "not subscriptable",
    "not supported between instances",
    "unsupported operand type",
    "maximum recursion depth",
    "int too large to convert",
    "Unknown format code",
)

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_.]*")


def _names(word: str, head: str) -> bool:
    """Whether ``head`` names ``word``: as a whole word for an identifier
    (``hex_at`` is not named by ``hex_at_xy``), as a substring for a path."""
    if _IDENT.fullmatch(word):
        pattern = rf"(?<![A-Za-z0-9_]){re.escape(word)}(?![A-Za-z0-9_])"
        return re.search(pattern, head) is not None
    return word in head


def check_lines(
    lines: Sequence[str], *, where: Sequence[str] = (), shape: bool = True
) -> str | None:
    """The first problem of message lines, or ``None`` if they are clean.

    Each line must be non-empty, at most :data:`MAX_LINE` characters, free of
    ``Traceback``, and (``shape``) hold ``<where>: <field>: <problem>``: a
    ``": "`` with one of ``where`` before the first one.
    """
    if not lines:
        return "an empty message"
    for i, line in enumerate(lines, 1):
        if not line.strip():
            return f"message line {i} is empty"
        if len(line) > MAX_LINE:
            return (
                f"message line {i} has {len(line)} characters (more than "
                f"{MAX_LINE}: a value echoed whole?): {_short(line, 120)!r}"
            )
        if "Traceback" in line:
            return f"message line {i} holds a traceback: {_short(line, 120)!r}"
        internal = next((t for t in INTERNAL_TEXTS if t in line), None)
        if internal:
            return (
                f"message line {i} is a Python error ({internal!r}), not the "
                f"problem: {_short(line, 160)!r}"
            )
        if not shape:
            continue
        head, sep, _ = line.partition(": ")
        if not sep:
            return (
                f"message line {i} is not '<where>: <field>: <problem>': "
                f"{_short(line, 160)!r}"
            )
        if where and not any(_names(w, head) for w in where):
            return (
                f"message line {i} does not name {where[0]!r} before its first "
                f"': ': {_short(line, 160)!r}"
            )
    return None


def assert_clean_error(
    exc: BaseException,
    *,
    where: Sequence[str] = (),
    types: tuple[type[BaseException], ...] = (ValueError,),
    relaxed: tuple[type[BaseException], ...] = (),
) -> None:
    """Raise :class:`FuzzFailure` unless ``exc`` is a clean user error.

    Args:
        exc: the exception the call raised.
        where: texts one of which must appear before the first ``": "`` of
            every line (the file name, the function name).
        types: the exception types a user error may have.
        relaxed: types whose messages are in game terms (``IllegalActionError``:
            "T-80 platoon 1/74 is Ops Complete"): checked for one non-empty,
            bounded line, not for the ``<where>: <field>`` shape.
    """
    site = raise_site(exc)
    if not isinstance(exc, types):
        raise FuzzFailure(
            "crash", f"{type(exc).__name__}: {_short(str(exc), 200)}", site
        ) from exc
    problems = getattr(exc, "problems", None)
    text = str(exc)
    lines = list(problems) if isinstance(problems, tuple | list) else text.split("\n")
    is_relaxed = isinstance(exc, relaxed) if relaxed else False
    if is_relaxed and len(lines) != 1:
        bad: str | None = f"{len(lines)} lines where one was expected"
    else:
        bad = check_lines(lines, where=where, shape=not is_relaxed)
    if bad:
        raise FuzzFailure("message", f"{type(exc).__name__}: {bad}", site) from exc


def expect_clean(
    fn: Callable[..., Any],
    *args: Any,
    where: Sequence[str] = (),
    types: tuple[type[BaseException], ...] = (ValueError,),
    relaxed: tuple[type[BaseException], ...] = (),
    **kwargs: Any,
) -> tuple[bool, Any]:
    """Call ``fn``: ``(True, result)``, or ``(False, exc)`` for a clean refusal.

    Raises:
        FuzzFailure: anything else (see :func:`assert_clean_error`).
    """
    try:
        return True, fn(*args, **kwargs)
    except FuzzFailure:
        raise
    except _Timeout:
        raise
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as exc:
        assert_clean_error(exc, where=where, types=types, relaxed=relaxed)
        return False, exc


class _Timeout(BaseException):
    """Raised by the watchdog (a BaseException, so ``except Exception`` in the
    code under test cannot swallow it)."""


@contextmanager
def _watchdog(seconds: float) -> Iterator[None]:
    usable = (
        seconds > 0
        and hasattr(signal, "setitimer")
        and threading.current_thread() is threading.main_thread()
    )
    if not usable:
        yield
        return

    def fire(signum: int, frame: Any) -> None:
        raise _Timeout()

    old = signal.signal(signal.SIGALRM, fire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def _signature(family: str, exc: FuzzFailure, what: str) -> str:
    """One bug, one signature: where it was raised, else the gist of the
    detail (values, numbers and the input after " for " left out)."""
    site = exc.site.split(" -> ")[0]
    if not site:
        gist = re.sub(r"'[^']*'|\"[^\"]*\"", "'…'", exc.detail)
        gist = re.sub(r"[-+]?\d[\d.e+]*", "N", gist)
        site = re.split(r" for | \(|: |, not ", gist)[0][:80]
    return f"{family} | {exc.kind} | {what} | {site}"


def record(family: str, exc: FuzzFailure, *, what: str, example: str) -> None:
    """Count an unexpected outcome and keep its first example."""
    STATS.unexpected[family] += 1
    sig = _signature(family, exc, what)
    entry = STATS.distinct.get(sig)
    if entry is None:
        STATS.distinct[sig] = {
            "family": family,
            "kind": exc.kind,
            "what": what,
            "site": exc.site,
            "detail": _short(exc.detail, 400),
            "example": _short(example, 600),
            "count": 1,
        }
    else:
        entry["count"] += 1
        if len(example) < len(entry["example"]):  # keep the smallest example
            entry["example"] = _short(example, 600)
            entry["detail"] = _short(exc.detail, 400)


@contextmanager
def fuzz_case(
    family: str,
    what: str,
    example: Callable[[], str] | str = "",
    *,
    timeout_s: float | None = None,
) -> Iterator[None]:
    """One generated input: counted, timed, checked for warnings.

    Args:
        family: ``scenarios``, ``saves``, ``api`` or ``cli``.
        what: the call under test (for the summary), e.g. ``"load_scenario"``.
        example: the input, or a callable giving its short description.
        timeout_s: the wall-clock budget (default :data:`CASE_TIMEOUT_S`).

    A :class:`FuzzFailure` (or a hang or a ``RuntimeWarning``) inside is
    recorded; it fails the test unless ``WARGAME_FUZZ_KEEP_GOING=1`` (survey
    mode of ``scripts/fuzz.py --keep-going``).
    """
    STATS.cases[family] += 1
    STATS.by_call[f"{family}: {what}"] += 1
    budget = CASE_TIMEOUT_S if timeout_s is None else timeout_s
    failure: FuzzFailure | None = None
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            with _watchdog(budget):
                yield
        except FuzzFailure as exc:
            failure = exc
        except _Timeout:
            failure = FuzzFailure("hang", f"{what}: no answer within {budget:g} s")
        except Exception as exc:
            failure = FuzzFailure(
                "crash",
                f"{type(exc).__name__}: {_short(str(exc), 200)}",
                raise_site(exc),
            )
            failure.__cause__ = exc
    if failure is None:
        noisy = [w for w in caught if issubclass(w.category, RuntimeWarning)]
        if noisy:
            w = noisy[0]
            failure = FuzzFailure(
                "warning",
                f"{what}: {w.category.__name__}: {_short(str(w.message), 160)}",
                f"{Path(w.filename).name}:{w.lineno}",
            )
    if failure is None:
        return
    text = example() if callable(example) else example
    record(family, failure, what=what, example=text)
    if not KEEP_GOING:
        raise failure


def is_real_number(v: Any) -> bool:
    """A real number that is not a bool (numpy scalars included)."""
    import numpy as np

    if isinstance(v, bool | np.bool_):
        return False
    return isinstance(v, int | float | np.integer | np.floating)


def is_finite_number(v: Any) -> bool:
    """A finite real number that is not a bool."""
    if not is_real_number(v):
        return False
    try:
        return math.isfinite(float(v))
    except OverflowError:
        return False
