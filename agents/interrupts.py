"""Ctrl-C and SIGTERM for the long-running scripts: one line, a conventional exit status, and
nothing half-written.

:class:`SignalGuard` turns SIGINT and SIGTERM into an :class:`Interrupted` exception (a
``KeyboardInterrupt`` carrying the signal) — *immediately* by default, or, inside
``with guard.deferred():``, only on the *second* signal: the first merely sets
:attr:`SignalGuard.requested`, which a training loop polls at its next safe point (the
``InterruptCallback`` of :mod:`agents.training` stops ``model.learn`` there) to save a
checkpoint and exit. The exit status is ``128 + signal`` (130 for SIGINT, 143 for SIGTERM).

Every file the scripts write goes through a temporary file and ``os.replace`` whose clean-up
runs on ``BaseException``, so an :class:`Interrupted` raised anywhere leaves no partial file.

Standard library only.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator
from typing import Any

__all__ = ["Interrupted", "SignalGuard", "exit_status"]

SIGNALS = (signal.SIGINT, signal.SIGTERM)


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


class SignalGuard:
    """Context manager installing SIGINT / SIGTERM handlers (restored on exit; a no-op outside
    the main thread, where Python cannot install handlers). Once a signal has arrived, leaving
    the guard ignores further SIGINT / SIGTERM instead of restoring the default handlers: the
    script is on its way out, and a late Ctrl-C during interpreter shutdown would otherwise
    print a ``KeyboardInterrupt`` traceback from a finalizer."""

    def __init__(self) -> None:
        self.requested: int | None = None
        self.signalled = False
        self._defer = False
        self._old: dict[int, Any] = {}

    @property
    def requested_name(self) -> str | None:
        return None if self.requested is None else signal.Signals(self.requested).name

    def _handle(self, signum: int, frame: Any) -> None:
        self.signalled = True
        if self._defer and self.requested is None:
            self.requested = signum
            return
        raise Interrupted(signum)

    def __enter__(self) -> "SignalGuard":
        if threading.current_thread() is threading.main_thread():
            for s in SIGNALS:
                self._old[s] = signal.signal(s, self._handle)
        return self

    def __exit__(self, *exc: Any) -> None:
        for s, old in self._old.items():
            signal.signal(s, signal.SIG_IGN if self.signalled else old)
        self._old.clear()

    @contextlib.contextmanager
    def deferred(self) -> Iterator["SignalGuard"]:
        """Inside: the first signal only sets :attr:`requested`; a second one raises."""
        self._defer = True
        try:
            yield self
        finally:
            self._defer = False


def run_guarded(fn: Any, *args: Any, what: str = "nothing was written") -> int:
    """``fn(*args)`` under a :class:`SignalGuard`; SIGINT / SIGTERM print one line on stderr
    (``interrupted (SIGINT): <what>``) and give ``128 + signal`` instead of a traceback."""
    import sys

    with SignalGuard():
        try:
            return fn(*args)
        except Interrupted as exc:
            print(f"interrupted ({exc.name}): {what}", file=sys.stderr)
            return exc.exit_status
