"""Atomic file output for the command-line tools (no partially written result files).

Used by ``python -m envs.bench --json``, ``evaluate.py --json`` and ``train.py`` (through
``agents.training.league.selfplay``).
"""

from __future__ import annotations

import contextlib
import errno
import os
import signal
import stat
import sys
import tempfile
import threading
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

__all__ = ["atomic_write_bytes", "atomic_write_text", "blank_arguments", "check_name_lengths",
           "check_output_path", "check_output_suffix", "check_png_path", "input_file_problem",
           "quiet_unwritable_stdout", "signals_held", "write_failure", "write_failure_line"]

#: ``errno`` values meaning that the storage refused a write: a full disk or quota, a file
#: larger than allowed, a read-only file system, an I/O error
WRITE_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EROFS, errno.EIO})


def quiet_unwritable_stdout() -> None:
    """Flush standard output; when that fails (a full disk, a closed pipe), point it at
    ``/dev/null`` so that the interpreter's own flush at exit does not fail again and print an
    "Exception ignored" report after the command's one-line error."""
    try:
        sys.stdout.flush()
    except (OSError, ValueError):
        with contextlib.suppress(OSError, ValueError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


def write_failure(exc: BaseException) -> OSError | None:
    """The ``OSError`` with an ``errno`` of :data:`WRITE_ERRNOS` that ``exc`` is, or that it
    was raised while handling (``__cause__`` / ``__context__`` chain), else ``None``."""
    seen: set[int] = set()
    cur: BaseException | None = exc
    while cur is not None and id(cur) not in seen:
        if isinstance(cur, OSError) and cur.errno in WRITE_ERRNOS:
            return cur
        seen.add(id(cur))
        cur = cur.__cause__ or cur.__context__
    return None


def write_failure_line(exc: BaseException) -> str | None:
    """``"cannot write '<file>': <OS error>"`` for a :func:`write_failure` in ``exc``, else
    ``None``. The file is the error's ``filename`` (:func:`atomic_write_bytes` names the
    target, not its temporary file); without one (a ``print`` to a full standard output) the
    line says ``the output``."""
    failure = write_failure(exc)
    if failure is None:
        return None
    what = os.strerror(failure.errno) if failure.errno else str(failure)
    name = failure.filename
    if name is None or isinstance(name, int):
        return f"cannot write the output: {what}"
    return f"cannot write {os.fsdecode(name)!r}: {what}"


def input_file_problem(path: str | Path) -> str | None:
    """Why ``path`` cannot be read as an input file, or ``None`` when it is a regular file (a
    symbolic link to one counts). Checked before a file is opened: reading a device such as
    ``/dev/zero`` never ends (it fills memory), a FIFO blocks.

    Returns:
        ``"no such file"``, ``"is a directory, not a file"``, ``"not a regular file"`` (a
        device, a FIFO, a socket) or ``"cannot read: <OS error>"``; the callers put the path
        and ``": "`` before it (``/dev/zero: not a regular file``).
    """
    try:
        mode = os.stat(path).st_mode
    except (FileNotFoundError, NotADirectoryError):  # (also 'file.toml/x')
        return "no such file"
    except OSError as e:
        return f"cannot read: {e.strerror}"
    except ValueError:  # (a NUL byte in the name)
        return "no such file"
    if stat.S_ISDIR(mode):
        return "is a directory, not a file"
    if not stat.S_ISREG(mode):
        return "not a regular file"
    return None


def blank_arguments(namespace: object, positional: tuple[str, ...] = ()) -> list[str]:
    """The arguments of an ``argparse.Namespace`` whose value is an empty or whitespace-only
    string, or a list holding one: a path or name that cannot be meant (an empty ``--run-dir``
    would write into the current directory, an empty ``--json`` nothing). Flags are named as
    typed (``--run-dir``), the ``positional`` arguments by their upper-case name (``MODEL``).
    Scripts refuse them with one ``error:`` line before any work."""
    bad = []
    for name, value in sorted(vars(namespace).items()):
        values = value if isinstance(value, (list, tuple)) else [value]
        if any(isinstance(v, str) and not v.strip() for v in values):
            bad.append(name.upper() if name in positional else "--" + name.replace("_", "-"))
    return bad


@contextlib.contextmanager
def signals_held() -> Iterator[None]:
    """Inside: SIGINT and SIGTERM wait, and are delivered on the way out to the handlers that
    were there before, so a file and what records it (a count, a stop note, the removal of a
    probe file) happen together or not at all. Without it a Ctrl-C landing after a game
    record's ``os.replace`` but before its count was raised said one game fewer than the
    folder held (seen in a CI run: "78 finished game(s)" with 79 records), and one landing
    between :func:`check_output_path`'s probe file and its removal left the probe behind (seen
    in a test run).

    The signals are held by a Python handler that only notes them (Python runs handlers in the
    main thread), not by ``pthread_sigmask``: a signal sent to the process goes to any thread
    that does not block it, and numpy's BLAS threads do not. Keep what runs inside short: a
    held signal cannot stop it. Outside the main thread, where Python cannot set handlers, it
    changes nothing."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    held: list[int] = []

    def note(signum: int, frame: Any) -> None:
        held.append(signum)

    before = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    before = {s: h for s, h in before.items() if h is not None}  # (None: set outside Python)
    for s in before:
        signal.signal(s, note)
    try:
        yield
    finally:
        for s, handler in before.items():
            signal.signal(s, handler)
        for signum in held:  # now, to the handlers of before (a raising one ends the loop)
            signal.raise_signal(signum)


def same_file(a: str | Path, b: str | Path) -> bool:
    """Whether paths ``a`` and ``b`` name one file: the same real path (also for a file not
    written yet), or, for existing files, the same device and inode (a hard link too)."""
    if os.path.realpath(a) == os.path.realpath(b):
        return True
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def check_not_an_input(path: str | Path, inputs: Iterable[Any]) -> None:
    """Refuse an output ``path`` that is the same file as one of ``inputs`` (file names; other
    values, such as agent names, are skipped): writing it would replace what is read.

    Raises:
        FileExistsError: naming both.
    """
    out = Path(path)
    if not out.exists():
        return
    for inp in inputs:
        if not isinstance(inp, (str, Path)) or not str(inp) or not Path(inp).exists():
            continue
        if same_file(out, inp):
            raise FileExistsError(f"{str(path)!r} is also an input ({str(inp)!r}): writing it "
                                  f"would replace it")


def check_output_suffix(path: str | Path, suffixes: tuple[str, ...], flag: str, written_as: str,
                        inputs: Iterable[Any] = ()) -> Path:
    """:func:`check_output_path` for a file whose format is fixed: the name must end in one of
    ``suffixes`` (any case), e.g. a page written as HTML whatever the name says.

    Raises:
        envs.core.errors.RiposteError: ``"<flag> '<path>': <written_as>; give a file name ending
            in .a or .b"`` for another name; a name that is only the suffix (``.toml``, which
            Python reads as a hidden file with no suffix) is told to add a name before it.
        OSError: as :func:`check_output_path`.
    """
    from .errors import RiposteError

    name = Path(path).name
    if name.lower() in suffixes:
        raise RiposteError(f"{flag} {str(path)!r}: the file name is only the suffix {name!r}; "
                           f"give a name before it, e.g. 'game{name.lower()}'")
    if Path(path).suffix.lower() not in suffixes:
        raise RiposteError(f"{flag} {str(path)!r}: {written_as}; give a file name ending in "
                           f"{' or '.join(suffixes)}")
    return check_output_path(path, inputs)


def check_png_path(path: str | Path, flag: str = "--plot", inputs: Iterable[Any] = ()) -> Path:
    """:func:`check_output_suffix` for a picture: the name must end in ``.png`` (the plots are
    written as PNG whatever the name says).

    Raises:
        envs.core.errors.RiposteError: a name that does not end in ``.png`` (names ``flag``).
        OSError: as :func:`check_output_path`.
    """
    return check_output_suffix(path, (".png",), flag, "plots are written as PNG", inputs)


def check_output_path(path: str | Path, inputs: Iterable[Any] = ()) -> Path:
    """Fail early, before a long job, if ``path`` cannot be written as a file.

    Besides the permission bits, the nearest existing ancestor directory is asked to take a
    new (empty, at once removed) file: some file systems refuse files whatever the bits say
    (``/sys``, ``/proc``, read-only mounts, immutable directories).

    ``inputs``: the files the command reads (:func:`check_not_an_input`).

    Returns:
        ``path`` as a :class:`~pathlib.Path`.

    Raises:
        OSError: ``FileExistsError`` for one of ``inputs``; ``FileNotFoundError`` for an empty
            name; ``IsADirectoryError`` for a name
            that ends with ``/`` (a directory's, whether it exists or not);
            ``IsADirectoryError`` /
            ``PermissionError`` when ``path`` is a directory or an existing file that is not
            a regular one (a device, a ``/proc`` entry), or when its nearest existing
            ancestor directory does not accept new files; ``OSError`` for a name (of the file
            or of a folder on its path) longer than the file system allows.
    """
    if not str(path):
        raise FileNotFoundError("empty file name")
    if isinstance(path, str) and path.endswith(("/", os.sep)):  # Path() would drop the slash
        raise IsADirectoryError(f"{path!r} names a directory (it ends with '/'), not a file")
    path = Path(path)
    check_name_lengths(path)
    if path.is_dir():
        raise IsADirectoryError(f"{str(path)!r} is a directory, not a file")
    if path.exists() and not path.is_file():
        raise PermissionError(f"cannot write {str(path)!r}: it exists and is not a regular file")
    parent = _nearest_existing(path.parent)
    if not parent.is_dir() or not os.access(parent, os.W_OK | os.X_OK):
        raise PermissionError(f"cannot create {str(path)!r}: {str(parent)!r} is not a "
                              "writable directory")
    with signals_held():  # a Ctrl-C here must not leave the probe behind
        try:
            fd, probe = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".probe", dir=parent)
        except OSError as e:
            raise PermissionError(f"cannot create {str(path)!r}: {str(parent)!r} does not "
                                  f"accept new files ({e.strerror})") from None
        os.close(fd)
        os.unlink(probe)
    check_not_an_input(path, inputs)
    return path


def _nearest_existing(folder: Path) -> Path:
    """``folder`` or its nearest ancestor that exists (the root at the latest); a folder whose
    name is too long to ask about counts as missing."""
    while folder != folder.parent:
        try:
            if folder.exists():
                break
        except OSError:  # (a component too long to ask about)
            pass
        folder = folder.parent
    return folder


#: bytes a file's name needs besides its own for the temporary copies written beside it
#: (``.NAME.tmpPID``, ``.NAME.XXXXXXXX.probe``)
TEMP_NAME_ROOM = 20


def check_name_lengths(path: Path) -> None:
    """Refuse a path with a component longer than the file system's limit (``NAME_MAX`` of
    the nearest existing directory, 255 bytes if it cannot be asked); the file's own name must
    leave :data:`TEMP_NAME_ROOM` bytes for its temporary copies. Without this the first
    ``stat`` raised a bare ``[Errno 36] File name too long``.

    Raises:
        OSError: naming the path, the name too long, its length and the limit.
    """
    existing = _nearest_existing(path.parent)
    try:
        name_max = os.pathconf(existing, "PC_NAME_MAX")
        path_max = os.pathconf(existing, "PC_PATH_MAX")
    except (OSError, ValueError):
        name_max, path_max = 255, 4096
    *folders, name = path.parts
    for part, room in [*((f, 0) for f in folders), (name, TEMP_NAME_ROOM)]:
        n = len(os.fsencode(part))
        if n + room > name_max:
            what = ("its file name" if part is name
                    else f"the folder name {part[:24]!r}...")
            raise NameTooLongError(path, f"{what} is {n} bytes long; this file system allows "
                                   f"{name_max - room} at most"
                                   + (f" (the file's own name: {name_max} less {room} for "
                                      f"its temporary copy)" if room else ""))
    n = len(os.fsencode(str(path)))
    if n + TEMP_NAME_ROOM >= path_max:
        raise NameTooLongError(path, f"the path is {n} bytes long; this system allows "
                               f"{path_max - TEMP_NAME_ROOM - 1} at most (with room for the "
                               f"file's temporary copy)")


class NameTooLongError(OSError):
    """A path the file system cannot take: ``str()`` names the path (shortened) and the
    reason, ``strerror`` gives the reason alone (for messages that name the path already)."""

    def __init__(self, path: Path, reason: str):
        super().__init__(f"cannot write {str(path)[:48]!r}...: {reason}")
        self.strerror = reason


def atomic_write_bytes(path: str | Path, data: bytes) -> Path:
    """Write ``data`` to ``path`` through a temporary file in the same directory and
    ``os.replace``: readers see the old file or the new one, never half of it. Missing parent
    directories are created; on any failure the temporary file is removed.

    Raises:
        OSError: when the file cannot be written (the target is left as it was).
    """
    path = check_output_path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp{os.getpid()}")
    try:
        with open(tmp, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except OSError as e:
        tmp.unlink(missing_ok=True)
        # named after the target, not the temporary file
        raise type(e)(e.errno, e.strerror, str(path)) from None
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return path


def atomic_write_text(path: str | Path, text: str) -> Path:
    """:func:`atomic_write_bytes` of ``text`` encoded as UTF-8.

    Raises:
        OSError: when the file cannot be written (the target is left as it was).
    """
    return atomic_write_bytes(path, text.encode("utf-8"))
