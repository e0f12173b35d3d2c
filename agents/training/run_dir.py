"""The run directory of ``train.py``: what it holds, the checks made before any work, and taking
it over for a run (created, locked, cleared by ``--overwrite``).

Imports neither torch nor stable-baselines3.
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

from ..policies.base import AgentError
from .run_lock import lock_run_dir
from .train_cli import UsageError

#: the frozen warm start that --teacher-kl keeps the policy near, beside the checkpoints
TEACHER_FILE = "teacher_policy.pth"
CKPT_RE = re.compile(r"^ckpt_(\d+)\.zip$")
#: the files and directories train.py writes in the run directory besides tb/ (--overwrite
#: deletes them and tb/, except config.json, which the new run rewrites)
RUN_FILES = ("config.json", "pool.json", "metrics.csv", "metrics.json", "final_model.zip",
             "best_model.zip", "last_model.zip", "learning_curves.png", TEACHER_FILE)
RUN_SUBDIRS = ("checkpoints", "snapshots", "candidates", ".kept", ".evaluations", "exploiters")


def check_run_dir(run_dir: Path) -> None:
    """Refuse, before any work, a run directory where a file train.py writes is a directory
    (or not a regular file), or where one of its subdirectories is a file.

    Raises:
        UsageError: naming the path.
    """
    from envs.core.files import check_output_path

    if not run_dir.is_dir():  # nothing of a run in it yet (mkdir names a file in the way)
        return
    for name in RUN_FILES:
        try:
            check_output_path(run_dir / name)
        except OSError as exc:
            raise UsageError(f"--run-dir {str(run_dir)!r}: {exc}") from None
    for sub in (*RUN_SUBDIRS, "tb"):
        if (run_dir / sub).exists() and not (run_dir / sub).is_dir():
            raise UsageError(f"--run-dir {str(run_dir)!r}: {str(run_dir / sub)!r} is in the "
                             f"way (a file where the run keeps a directory)")


def checkpoints(run_dir: Path) -> list[tuple[int, Path]]:
    """``(timesteps, path)`` of the complete checkpoints in ``run_dir/checkpoints``, sorted."""
    d = run_dir / "checkpoints"
    if not d.is_dir():
        return []
    found = [(int(m.group(1)), d / n) for n in os.listdir(d) if (m := CKPT_RE.match(n))]
    return sorted(found)


def claim_run_dir(run_dir: Path, start_afresh: bool) -> None:
    """Create ``run_dir``, lock it for this process (one run at a time in a directory, held
    until the process ends) and, with ``start_afresh`` (``--overwrite`` without ``--resume``),
    delete what an earlier run wrote there (its TensorBoard curves too; ``config.json`` is
    rewritten by the new run).

    Raises:
        UsageError: when the directory cannot be created, or another run holds it.
    """
    first_new = _first_missing(run_dir)
    try:
        run_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        why = ("a file of that name is in the way" if isinstance(exc, FileExistsError)
               else exc.strerror)
        raise UsageError(f"--run-dir {str(run_dir)!r}: cannot create the directory "
                         f"({why})") from None
    if first_new is not None:
        _CREATED.append((run_dir, first_new))
    try:  # one run at a time in a directory, held until this process ends
        lock_run_dir(run_dir)
    except AgentError as exc:
        raise UsageError(str(exc)) from None
    if start_afresh:  # start afresh, now that every flag is known good
        for sub in (*RUN_SUBDIRS, "tb"):  # (the old run's TensorBoard curves too)
            shutil.rmtree(run_dir / sub, ignore_errors=True)
        for name in RUN_FILES:
            if name != "config.json":
                (run_dir / name).unlink(missing_ok=True)


#: ``(run_dir, first folder created)`` of the run directories :func:`claim_run_dir` created
_CREATED: list[tuple[Path, Path]] = []


def _first_missing(run_dir: Path) -> Path | None:
    """The outermost folder of ``run_dir`` (itself included) that does not exist yet, or None
    when ``run_dir`` exists."""
    missing = None
    for folder in (run_dir, *run_dir.parents):
        if folder.exists():
            break
        missing = folder
    return missing


def discard_empty_run_dirs() -> None:
    """Remove the run directories this process created (:func:`claim_run_dir`) that hold
    nothing but the ``.lock`` and empty folders, with the folders created for them: a run
    interrupted or refused during start-up (before ``config.json``) leaves no empty run
    directory behind. A directory that holds any file is left as it is."""
    while _CREATED:
        run_dir, first_new = _CREATED.pop()
        try:
            files = [p for p in run_dir.rglob("*") if not p.is_dir() and p != run_dir / ".lock"]
        except OSError:
            continue
        if files:
            continue
        shutil.rmtree(run_dir, ignore_errors=True)
        folder = run_dir.parent
        while folder != first_new.parent and folder.is_dir():  # (created for it, now empty)
            try:
                folder.rmdir()
            except OSError:
                break
            folder = folder.parent
