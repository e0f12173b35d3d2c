"""What ``train.py`` and ``evaluate.py`` do first: until a script's own
:class:`agents.interrupts.SignalGuard` is up (torch, stable-baselines3 and the engine take a
second or more to import), SIGINT and SIGTERM end it with one line and the shell's status
``128 + signal`` instead of a traceback from inside an import. Nothing has been written yet.

A top-level module of the standard library only, beside the scripts: a module inside the
``agents`` or ``envs`` package could only be imported through that package, which loads numpy
and the engine first.
"""

from __future__ import annotations

import os
import signal
import sys
from typing import Any


def stopped_while_starting(signum: int, frame: Any) -> None:
    """SIGINT / SIGTERM before the script's own ``SignalGuard`` is up (torch and the rest are
    still loading): one line and the shell's status ``128 + signal``, not a traceback from
    inside an import. Nothing has been written yet."""
    sys.stdout.flush()
    print(f"interrupted ({signal.Signals(signum).name}) while starting: nothing was written",
          file=sys.stderr, flush=True)
    os._exit(128 + signum)


stopped_while_starting.ends_at_guard = True  # type: ignore[attr-defined]  # (SignalGuard)


def install() -> None:
    """Make :func:`stopped_while_starting` the handler of SIGINT and SIGTERM (a script's first
    statement, before its heavy imports)."""
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, stopped_while_starting)
