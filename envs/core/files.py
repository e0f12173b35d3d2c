"""Atomic file output for the command-line tools (no partially written result files).

Used by ``python -m envs.bench --json``, ``evaluate.py --json`` and ``train.py`` (through
``agents.selfplay``).
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["atomic_write_text", "check_output_path"]


def check_output_path(path: str | Path) -> Path:
    """Fail early, before a long job, if ``path`` cannot be written as a file.

    Returns:
        ``path`` as a :class:`~pathlib.Path`.

    Raises:
        OSError: (``IsADirectoryError`` / ``PermissionError``) when ``path`` is a directory or
            its nearest existing ancestor directory is not writable.
    """
    path = Path(path)
    if path.is_dir():
        raise IsADirectoryError(f"{str(path)!r} is a directory, not a file")
    parent = path.parent
    while not parent.exists() and parent != parent.parent:
        parent = parent.parent
    if not parent.is_dir() or not os.access(parent, os.W_OK | os.X_OK):
        raise PermissionError(f"cannot create {str(path)!r}: {str(parent)!r} is not a "
                              "writable directory")
    return path


def atomic_write_text(path: str | Path, text: str) -> Path:
    """Write ``text`` (UTF-8) to ``path`` through a temporary file in the same directory and
    ``os.replace``: readers see the old file or the new one, never half of it. Missing parent
    directories are created; on any failure the temporary file is removed.

    Raises:
        OSError: when the file cannot be written (the target is left as it was).
    """
    path = check_output_path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp{os.getpid()}")
    try:
        with open(tmp, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return path
