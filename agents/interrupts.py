"""Ctrl-C and SIGTERM for the long-running scripts: one line, a conventional exit status, and
nothing half-written.

:class:`SignalGuard` turns SIGINT and SIGTERM into an :class:`Interrupted` exception (a
``KeyboardInterrupt`` carrying the signal) — *immediately* by default, or, inside
``with guard.deferred():``, only on the *second* signal: the first merely sets
:attr:`SignalGuard.requested`, which a training loop polls at its next safe point (the
``InterruptCallback`` of :mod:`agents.training.callbacks` stops ``model.learn`` there) to save a
checkpoint and exit. The exit status is ``128 + signal`` (130 for SIGINT, 143 for SIGTERM).

Every file the scripts write goes through a temporary file and ``os.replace`` whose clean-up
runs on ``BaseException``, so an :class:`Interrupted` raised anywhere leaves no partial file.

A signal handler's exception is lost when the signal lands while Python runs a finalizer or a
weakref callback (for instance the module-lock callback at the end of an ``import``): Python
prints "Exception ignored" and carries on. While a guard is active, ``sys.unraisablehook``
catches such a lost :class:`Interrupted` and has the same signal sent again a moment later
(from a helper thread), so it is raised outside that callback instead of being dropped (seen
in a loaded test run: a Ctrl-C during the warm start's imports was ignored and the warm start
ran on). A signal that lands while torch is being imported is sent again the same way until
the import is over, instead of being raised inside it: an exception raised inside torch's
first import aborts the whole process (SIGABRT). A signal sent again that has not arrived
when the guarded block ends is raised as the block ends. A handler marked ``ends_at_guard``
(the scripts' handler for their first second, while the libraries load) is not put back
when a guard ends: ``SIG_IGN`` is. Once a
signal has arrived, the hook drops the other "Exception ignored" reports, during the guard
and after it: they come from finalizers of objects the interrupt left half-done — a
``zipfile.ZipFile`` whose member was being opened when a second Ctrl-C landed cannot close
and says so from ``__del__`` — and would print a traceback after the one-line report (seen
once in a fresh-clone ``make test``); the files they held are cleaned up already.

Standard library only.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
from collections.abc import Iterator
from typing import Any

from envs.core.files import quiet_unwritable_stdout, write_failure_line
from envs.core.files import signals_held  # (re-exported: the scripts hold signals too)

__all__ = ["Interrupted", "SignalGuard", "exit_status", "interrupted_in", "signals_held"]

SIGNALS = (signal.SIGINT, signal.SIGTERM)
#: seconds before a signal whose exception Python dropped in a callback is sent again
REDELIVERY_DELAY = 0.05


def exit_status(signum: int) -> int:
    """The shell's status for a process stopped by ``signum``: ``128 + signum``."""
    return 128 + int(signum)


class Interrupted(KeyboardInterrupt):
    """SIGINT or SIGTERM arrived. ``signum``; ``name`` (``"SIGINT"``); ``exit_status``."""

    def __init__(self, signum: int):
        super().__init__(signal.Signals(signum).name)
        self.signum = int(signum)
        self.name = signal.Signals(signum).name
        self.exit_status = exit_status(signum)


def interrupted_in(exc: BaseException) -> Interrupted | None:
    """The :class:`Interrupted` that ``exc`` is, or that it was raised while handling
    (``__cause__`` / ``__context__`` chain), else ``None``.

    A signal's exception raised inside a library's clean-up can be replaced by the error that
    clean-up then raises (seen in a CI run: a second Ctrl-C inside ``torch.save`` surfaced as
    ``RuntimeError: ... unexpected pos`` from the zip writer's ``__exit__``); the scripts treat
    such an error as the interrupt it hides.
    """
    seen: set[int] = set()
    cur: BaseException | None = exc
    while cur is not None and id(cur) not in seen:
        if isinstance(cur, Interrupted):
            return cur
        seen.add(id(cur))
        cur = cur.__cause__ or cur.__context__
    return None


def _importing_torch(frame: Any) -> bool:
    """Whether ``frame`` (a signal handler's) runs inside torch's import: its callers include
    the import machinery (``<frozen importlib._bootstrap>``) and torch's own modules."""
    importing = in_torch = False
    while frame is not None:
        name = frame.f_code.co_filename
        importing = importing or name.startswith("<frozen importlib")
        in_torch = in_torch or f"{os.sep}torch{os.sep}" in name
        frame = frame.f_back
    return importing and in_torch


def _send_again(signum: int) -> None:
    """Send ``signum`` to this process again in :data:`REDELIVERY_DELAY` seconds, from a
    helper thread (the handler then runs in the main thread, outside what held it up)."""
    resend = threading.Timer(REDELIVERY_DELAY, os.kill, (os.getpid(), signum))
    resend.daemon = True
    resend.start()


def _drop_unraisable(unraisable: Any) -> None:
    """``sys.unraisablehook`` left by a guard that a signal stopped: reports nothing."""


class SignalGuard:
    """Context manager installing SIGINT / SIGTERM handlers (restored on exit; a no-op outside
    the main thread, where Python cannot install handlers). Once a signal has arrived, leaving
    the guard ignores further SIGINT / SIGTERM instead of restoring the default handlers: the
    script is on its way out, and a late Ctrl-C during interpreter shutdown would otherwise
    print a ``KeyboardInterrupt`` traceback from a finalizer; for the same reason the
    "Exception ignored" reports of finalizers are dropped from then on."""

    def __init__(self) -> None:
        self.requested: int | None = None
        self.signalled = False
        self._defer = False
        self._old: dict[int, Any] = {}
        self._old_hook: Any = None
        self._pending: int | None = None  # a signal sent again that has not arrived yet

    @property
    def requested_name(self) -> str | None:
        return None if self.requested is None else signal.Signals(self.requested).name

    def _handle(self, signum: int, frame: Any) -> None:
        self.signalled = True
        if self._defer and self.requested is None:
            self.requested = signum
            return
        if _importing_torch(frame):
            # not inside torch's import: an exception raised there aborts the process
            # (SIGABRT from C++, a 400-line dump; seen when a Ctrl-C landed on train.py's
            # `import torch`); a helper thread sends the signal again until it is over
            self._pending = signum
            _send_again(signum)
            return
        self._pending = None
        raise Interrupted(signum)

    def _unraisable(self, unraisable: Any) -> None:
        """``sys.unraisablehook`` while the guard is active: an :class:`Interrupted` raised
        where Python cannot propagate it is delivered again; anything else goes to the hook
        that was installed before."""
        if self.signalled and not isinstance(unraisable.exc_value, Interrupted):
            return  # the run is stopping: a finalizer of what the interrupt left half-done
        if isinstance(unraisable.exc_value, Interrupted):
            # not from here: a signal raised now would be handled inside this hook, where its
            # exception is lost again; a helper thread sends it once the callback is over
            # (should it still land inside one, this hook runs again)
            self._pending = unraisable.exc_value.signum
            _send_again(unraisable.exc_value.signum)
            return
        (self._old_hook or sys.__unraisablehook__)(unraisable)

    def __enter__(self) -> "SignalGuard":
        if threading.current_thread() is threading.main_thread():
            for s in SIGNALS:
                self._old[s] = signal.signal(s, self._handle)
            self._old_hook = sys.unraisablehook
            sys.unraisablehook = self._unraisable
        return self

    def __exit__(self, *exc: Any) -> None:
        for s, old in self._old.items():
            if getattr(old, "ends_at_guard", False):
                old = signal.SIG_IGN  # a script's start-up handler: the start is long over
            signal.signal(s, signal.SIG_IGN if self.signalled else old)
        self._old.clear()
        if self._old_hook is not None:
            # on the way out after a signal: finalizers stay quiet (see the module docstring)
            sys.unraisablehook = _drop_unraisable if self.signalled else self._old_hook
            self._old_hook = None
        if self._pending is not None and exc[0] is None:
            # a signal held back (inside torch's import, or lost in a callback) whose second
            # sending has not arrived when the block ends: it still stops the command
            pending, self._pending = self._pending, None
            raise Interrupted(pending)

    @contextlib.contextmanager
    def deferred(self) -> Iterator["SignalGuard"]:
        """Inside: the first signal only sets :attr:`requested`; a second one raises."""
        self._defer = True
        try:
            yield self
        finally:
            self._defer = False


#: what an interrupted command leaves behind (``interrupted (SIGINT): <what>``) when
#: :func:`run_guarded` is given no ``what``: a command that keeps a partial result (recorded
#: games, finished runs) says so here as it goes
STOP_NOTE: dict[str, str] = {"what": "nothing was written"}


def run_guarded(fn: Any, *args: Any, what: str | None = None) -> int:
    """``fn(*args)`` under a :class:`SignalGuard`; SIGINT / SIGTERM print one line on stderr
    (``interrupted (SIGINT): <what>``, default :data:`STOP_NOTE` at that moment) and give
    ``128 + signal`` instead of a traceback; a
    worker process that died (:class:`~envs.core.workers.WorkerDiedError`) or a file the
    storage refused to write (a full disk: :func:`envs.core.files.write_failure_line`) prints
    one ``error:`` line and gives 1."""
    from envs.core.workers import WorkerDiedError

    with SignalGuard():
        try:
            return fn(*args)
        except BaseException as exc:
            # the interrupt first: a worker that died of the same signal is no error
            if (intr := interrupted_in(exc)) is not None:
                print(f"interrupted ({intr.name}): {STOP_NOTE['what'] if what is None else what}",
                      file=sys.stderr)
                return intr.exit_status
            if isinstance(exc, WorkerDiedError):
                print(f"error: {exc}", file=sys.stderr)
                return 1
            if (line := write_failure_line(exc)) is not None:  # a full disk: one line
                quiet_unwritable_stdout()
                print(f"error: {line}", file=sys.stderr)
                return 1
            raise
