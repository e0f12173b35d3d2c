"""One training run at a time in a run directory: ``run_dir/.lock``, held by ``train.py`` (both
backends) while it trains there. Two runs in one directory wrote into each other's checkpoints,
and an ``--overwrite`` deleted a live run's files."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from ..policies.base import AgentError

#: the locks this process holds (open files with an exclusive ``flock``), until it exits
_HELD: list[Any] = []


class RunDirInUseError(AgentError):
    """Another process holds the run directory's lock (the message names its pid)."""


def lock_run_dir(run_dir: str | Path) -> None:
    """Take ``run_dir/.lock`` (``fcntl.flock``, exclusive, held until the process exits) and
    write this process's pid into it. No lock where ``fcntl`` is missing (not POSIX).

    Raises:
        RunDirInUseError: when another process holds it (names its pid).
    """
    try:
        import fcntl
    except ImportError:  # not POSIX
        return
    run_dir = Path(run_dir)
    fh = open(run_dir / ".lock", "a+", encoding="utf-8")  # noqa: SIM115 (held open)
    try:
        fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        fh.seek(0)
        pid = fh.read().strip() or "?"
        fh.close()
        raise RunDirInUseError(f"--run-dir {str(run_dir)!r}: another train.py (pid {pid}) is "
                               f"running there; wait for it to end, or use another "
                               f"--run-dir") from None
    fh.seek(0)
    fh.truncate()
    fh.write(str(os.getpid()))
    fh.flush()
    _HELD.append(fh)
