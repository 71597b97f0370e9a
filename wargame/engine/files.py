"""Reading and writing the files a user hands us, safely.

Every file the engine reads on a user's say-so (scenarios, saves, batch
manifests, variant files) goes through :func:`read_limited`: it refuses what is
not a regular file (``/dev/zero``, a FIFO, a folder) and anything larger than
its limit *before* reading it, so a wrong path can neither hang nor fill the
memory.  Parsed documents are checked by :func:`check_depth` (iteratively, so a
100,000-deep array cannot blow the stack), and :func:`parse_json` turns the
parser's own ``RecursionError`` into a message.  Every file the engine writes
goes through :func:`write_atomic`: a temporary file in the same folder, flushed
and renamed over the target, removed again on any failure, so a full disk or a
read-only folder leaves the old file (or none), never half of a new one.

Examples:
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> p = write_atomic(d / "a.json", b'{"a": [1, 2]}')
    >>> parse_json(read_limited(p, limit=100).decode())
    {'a': [1, 2]}
    >>> try:
    ...     read_limited(p, limit=4)
    ... except InputFileError as exc:
    ...     print(exc.problem)
    is 13 bytes, more than the limit of 4 bytes; is this the right file?
    >>> try:
    ...     check_depth({"a": [[[1]]]}, limit=3)
    ... except ValueError as exc:
    ...     print(str(exc)[:30])
    nested more than 3 levels deep
"""

from __future__ import annotations

import contextlib
import json
import os
import stat
import tempfile
from pathlib import Path
from typing import Any

__all__ = [
    "MAX_DEPTH",
    "MAX_FILE_BYTES",
    "PATH_CHARS",
    "InputFileError",
    "TooDeepError",
    "check_depth",
    "parse_json",
    "path_text",
    "read_limited",
    "write_atomic",
]

#: The largest file the engine reads (scenarios, saves, manifests): 64 MiB.  A
#: big scenario is ~100 kB and a 1,000-action save ~200 kB, so this leaves room
#: for a long campaign and still refuses a wrong file at once.
MAX_FILE_BYTES = 64 * 1024 * 1024
#: The deepest nesting of tables/arrays a document may have.  Scenarios nest
#: 4–5 levels (``map.window.bbox``, ``units[i].lonlat``), saves 6–7.
MAX_DEPTH = 32


class InputFileError(ValueError):
    """A file that cannot be read as input: missing, not a regular file, too big.

    Attributes:
        path: the path as given.
        problem: what is wrong and the fix, without the path.
    """

    def __init__(self, path: str | os.PathLike[str], problem: str) -> None:
        self.path = str(path)
        self.problem = problem
        super().__init__(f"{path_text(path)}: {problem}")


#: The most characters of a path shown in a message.
PATH_CHARS = 200


def path_text(path: str | os.PathLike[str]) -> str:
    """A path as messages show it: cut to :data:`PATH_CHARS` characters, NUL
    bytes and line breaks escaped, so a message stays one readable line.

    Examples:
        >>> path_text("a/b.toml"), len(path_text("x" * 5000))
        ('a/b.toml', 200)
    """
    text = str(path)
    text = text.replace("\x00", "\\x00").replace("\n", "\\n").replace("\r", "\\r")
    if len(text) > PATH_CHARS:
        text = text[: PATH_CHARS - 1] + "…"
    return text


def _size_text(n: int) -> str:
    """``2 MiB`` for whole mebibytes, else the exact count (no misleading
    rounding: a file just over a 2 MiB limit must not read "2 MiB")."""
    mib = 1024 * 1024
    if n >= mib and n % mib == 0:
        return f"{n // mib} MiB"
    return f"{n} bytes"


def read_limited(path: str | os.PathLike[str], *, limit: int = MAX_FILE_BYTES) -> bytes:
    """The bytes of a regular file of at most ``limit`` bytes.

    Raises:
        InputFileError: no such file, a folder, a device or FIFO, unreadable,
            or larger than ``limit`` (checked before reading, and again while
            reading, for a file that grows).
    """
    p = Path(path)
    try:
        # O_NONBLOCK: opening a FIFO with no writer must not block.
        fd = os.open(p, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        raise InputFileError(path, "no such file") from None
    except ValueError:  # "embedded null byte"
        raise InputFileError(
            path, "the path holds a NUL byte; give the path of a file"
        ) from None
    except IsADirectoryError:
        raise InputFileError(path, "is a folder, not a file") from None
    except OSError as exc:
        raise InputFileError(path, f"cannot be read ({exc.strerror or exc})") from None
    try:
        st = os.fstat(fd)
        if stat.S_ISDIR(st.st_mode):
            raise InputFileError(path, "is a folder, not a file")
        if not stat.S_ISREG(st.st_mode):
            raise InputFileError(
                path, "is not a regular file (a device, pipe or socket); give a file"
            )
        if st.st_size > limit:
            raise InputFileError(
                path,
                f"is {_size_text(st.st_size)}, more than the limit of "
                f"{_size_text(limit)}; is this the right file?",
            )
        chunks: list[bytes] = []
        total = 0
        while True:
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                break
            total += len(chunk)
            if total > limit:
                raise InputFileError(
                    path,
                    f"is more than the limit of {_size_text(limit)}; "
                    "is this the right file?",
                )
            chunks.append(chunk)
        return b"".join(chunks)
    except OSError as exc:
        raise InputFileError(path, f"cannot be read ({exc.strerror or exc})") from None
    finally:
        os.close(fd)


class TooDeepError(ValueError):
    """Nesting deeper than the limit; ``path`` is where (``map.namee[0]``...)."""

    def __init__(self, message: str, path: str = "") -> None:
        super().__init__(message)
        self.path = path


def _path_of(parts: tuple[Any, ...]) -> str:
    """``("map", "namee", 0, 0)`` -> ``"map.namee[0][0]"`` (first 4 parts)."""
    out = ""
    for part in parts[:4]:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            name = str(part)
            name = name if len(name) <= 40 else name[:39] + "…"
            out += f".{name}" if out else name
    return out + ("…" if len(parts) > 4 else "")


def check_depth(data: Any, *, limit: int = MAX_DEPTH) -> None:
    """Refuse tables/arrays nested more than ``limit`` levels (iterative).

    Raises:
        TooDeepError: a ``ValueError`` naming the limit and the fix; its
            ``path`` says under which key the nesting is too deep.
    """
    stack: list[tuple[Any, tuple[Any, ...]]] = [(data, ())]
    while stack:
        value, parts = stack.pop()
        if isinstance(value, dict):
            children: Any = [(v, (*parts, k)) for k, v in value.items()]
        elif isinstance(value, list | tuple):
            children = [(v, (*parts, i)) for i, v in enumerate(value)]
        else:
            continue
        if len(parts) >= limit:
            raise TooDeepError(
                f"nested more than {limit} levels deep (tables within tables or "
                "arrays within arrays); flatten it",
                _path_of(parts),
            )
        stack.extend(children)


def parse_json(text: str, *, limit: int = MAX_DEPTH) -> Any:
    """``json.loads`` that reports deep nesting as a ``ValueError``.

    Raises:
        ValueError: malformed JSON, or nested more than ``limit`` levels.
    """
    try:
        data = json.loads(text)
    except RecursionError:
        raise ValueError(
            f"nested more than {limit} levels deep (arrays within arrays); flatten it"
        ) from None
    check_depth(data, limit=limit)
    return data


def _umask() -> int:
    """The process's umask, read without changing it where the OS allows."""
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    mask = os.umask(0o022)  # pragma: no cover - not Linux
    os.umask(mask)  # pragma: no cover
    return mask  # pragma: no cover


def write_atomic(path: str | os.PathLike[str], data: bytes) -> Path:
    """Write ``data`` to ``path`` all at once: a temporary file in the same
    folder, flushed, then renamed over ``path``; on any error the temporary
    file is removed and ``path`` is left as it was.  The file gets the
    permissions of an ordinary new file (``0o666`` less the umask), not the
    private ``0o600`` of a temporary file.

    Raises:
        OSError: the folder is missing or read-only, the disk is full...
    """
    p = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{p.name}.", suffix=".tmp", dir=p.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, p)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    return p
