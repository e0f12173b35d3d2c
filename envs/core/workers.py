"""Worker processes for the command-line tools: a process pool that fails loudly.

Used by ``python -m envs fuzz --jobs`` and by the tournaments of ``evaluate.py`` and
``train.py`` (``agents.evaluation.tournament.play_schedule``). It is the standard library's
:class:`concurrent.futures.ProcessPoolExecutor` with two things added:

* a worker that dies (killed, out of memory, a crash in C code) raises
  :class:`WorkerDiedError` in the parent, naming the work it was doing — where
  ``multiprocessing.Pool`` would replace the worker silently and wait for its lost task forever;
* leaving the ``with`` block (at the end, on an error or on Ctrl-C in the parent) terminates the
  workers at once instead of letting them finish their queued work.

Workers are forked where the platform can (they inherit the parent's objects: a game, agents),
spawned elsewhere; they ignore SIGINT, since the parent decides what Ctrl-C means, and keep
SIGTERM's default so that they can be stopped.
"""

from __future__ import annotations

import multiprocessing as mp
import signal
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from typing import Any, TypeVar

__all__ = ["WorkerDiedError", "result_of", "stop_workers", "submit", "worker_pool"]

T = TypeVar("T")


class WorkerDiedError(RuntimeError):
    """A worker process ended abruptly (killed by a signal, out of memory, a crash) while it
    had work; the message says which work and how to play it in one process. ``what`` names
    the work (``None`` when not given), so that a caller can word its own advice."""

    def __init__(self, message: str, what: str | None = None):
        super().__init__(message)
        self.what = what


def _init(initializer: Callable[..., None] | None, initargs: tuple[Any, ...]) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C ...
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # ... and stops its workers with SIGTERM
    if initializer is not None:
        initializer(*initargs)


@contextmanager
def worker_pool(jobs: int, initializer: Callable[..., None] | None = None,
                initargs: tuple[Any, ...] = (),
                grace: float | None = None) -> Iterator[ProcessPoolExecutor]:
    """A :class:`~concurrent.futures.ProcessPoolExecutor` of ``jobs`` workers, terminated on exit
    (:func:`stop_workers` with ``grace``).

    With the ``fork`` start method the workers are forked at the first ``submit`` (or ``map``),
    so whatever module state they should inherit must be in place by then.

    Raises:
        ValueError: for ``jobs < 1``.
    """
    if jobs < 1:
        raise ValueError(f"jobs must be >= 1, got {jobs}")
    method = "fork" if "fork" in mp.get_all_start_methods() else "spawn"
    pool = ProcessPoolExecutor(jobs, mp_context=mp.get_context(method), initializer=_init,
                               initargs=(initializer, initargs))
    try:
        yield pool
    finally:
        stop_workers(pool, grace)


#: seconds a worker has to exit after SIGTERM before it is killed (SIGKILL)
TERMINATE_GRACE = 2.0


def stop_workers(pool: ProcessPoolExecutor, grace: float | None = None) -> None:
    """Terminate ``pool``'s workers (queued work is dropped) and wait for them to exit.

    A worker still alive ``grace`` seconds (default :data:`TERMINATE_GRACE`) after SIGTERM is
    killed; with ``grace=0`` the workers are killed (SIGKILL) at once, for workers that ignore
    SIGTERM and whose work can be thrown away. A worker
    forked a moment before still runs the parent's Python signal handlers until its
    initializer resets them, and the parent's :class:`~agents.interrupts.SignalGuard` only
    notes a deferred SIGTERM; such a worker lives on, and when its sibling died holding the
    call queue's read lock (an idle worker waits inside ``Queue.get`` holding it) it waits for
    that lock forever, never sees ``shutdown``'s stop sentinel, and ``shutdown`` waited for it
    forever (a CI hang: a two-game evaluation ended while its second worker was starting)."""
    grace = TERMINATE_GRACE if grace is None else grace
    procs = list((getattr(pool, "_processes", None) or {}).values())  # no public handle (3.11)
    for p in procs:
        if p.is_alive():
            p.kill() if grace <= 0 else p.terminate()
    for p in procs:
        p.join(grace)
        if p.is_alive():
            p.kill()
            p.join()
    pool.shutdown(wait=True, cancel_futures=True)


def _died(what: str) -> WorkerDiedError:
    return WorkerDiedError(
        f"a worker process died while playing {what} (killed by a signal or out of memory?); "
        f"play it in one process (--jobs 1) to see what happens", what)


def submit(pool: ProcessPoolExecutor, what: str, fn: Callable[..., T], *args: Any) -> Future[T]:
    """``pool.submit(fn, *args)``, with a pool broken by a dead worker reported as
    :class:`WorkerDiedError` naming ``what`` (the work in flight).

    Raises:
        WorkerDiedError: a worker of ``pool`` has died.
    """
    try:
        return pool.submit(fn, *args)
    except BrokenProcessPool as exc:
        raise _died(what) from exc


def result_of(future: Future[T], what: str) -> T:
    """``future.result()``, with a dead worker reported as :class:`WorkerDiedError` naming
    ``what`` (e.g. ``"games 40..49"``).

    Raises:
        WorkerDiedError: the worker running (or about to run) the work died.
        Exception: whatever the work itself raised, re-raised as is.
    """
    try:
        return future.result()
    except BrokenProcessPool as exc:
        raise _died(what) from exc
