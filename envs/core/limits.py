"""Upper bounds of the command-line budgets, checked before any work starts.

A budget (timesteps, games) above the largest 64-bit integer cannot be counted by numpy or
torch and would fail, or wrap, deep inside a run; a number of worker processes or environments
far above the machine's processors starts thousands of processes (``--jobs 100000`` did) or
fills memory before the first game. The scripts refuse both with one ``error:`` line naming
the flag.

Standard library only.
"""

from __future__ import annotations

import os

__all__ = ["INT64_MAX", "MAX_IN_PROCESS_ENVS", "WORKERS_PER_CPU", "budget_problem",
           "in_process_envs_problem", "max_workers", "usable_cpus", "workers_problem"]

#: the largest count a budget may hold (numpy's and torch's ``int64``)
INT64_MAX = 2**63 - 1
#: worker processes allowed per processor this process may run on
WORKERS_PER_CPU = 8
#: environments stepped in this process (``--n-envs`` with ``--vec-env dummy``): each holds a
#: game and its rollout rows, so far more than this only fills memory
MAX_IN_PROCESS_ENVS = 4096


def usable_cpus() -> int:
    """Processors this process may run on (its CPU affinity where the OS tells it), >= 1."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def max_workers() -> int:
    """The most worker processes a command may start: :data:`WORKERS_PER_CPU` per usable
    processor (:func:`usable_cpus`)."""
    return WORKERS_PER_CPU * usable_cpus()


def budget_problem(flag: str, value: int) -> str | None:
    """``"<flag> <value> is above the largest 64-bit integer (...)"`` for a budget that
    cannot be counted, else ``None`` (the lower bound is each script's own check)."""
    if value > INT64_MAX:
        return (f"{flag} {value} is above the largest 64-bit integer ({INT64_MAX}), the most "
                f"a run can count")
    return None


def workers_problem(flag: str, value: int, what: str = "worker processes") -> str | None:
    """``"<flag> <value> is above <limit>, <WORKERS_PER_CPU> <what> per processor ..."`` when
    ``value`` is above :func:`max_workers`, else ``None``."""
    if value > (limit := max_workers()):
        return (f"{flag} {value} is above {limit}, {WORKERS_PER_CPU} {what} per processor of "
                f"this machine ({usable_cpus()})")
    return None


def in_process_envs_problem(flag: str, value: int) -> str | None:
    """``"<flag> <value> is above <MAX_IN_PROCESS_ENVS>, ..."`` for more environments than one
    process should step (:data:`MAX_IN_PROCESS_ENVS`), else ``None``."""
    if value > MAX_IN_PROCESS_ENVS:
        return (f"{flag} {value} is above {MAX_IN_PROCESS_ENVS}, the most environments "
                f"stepped in one process")
    return None
