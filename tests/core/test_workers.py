"""``envs.core.workers``: a dead worker is an error naming its work (never a hang), the work's
own errors come back as they are, and leaving the pool stops busy workers at once."""

from __future__ import annotations

import os
import signal
import time

import pytest

from envs.core.workers import WorkerDiedError, result_of, worker_pool


def _sigint_ignored() -> bool:
    return signal.getsignal(signal.SIGINT) is signal.SIG_IGN


def _set_env(value: str) -> None:
    os.environ["RIPOSTE_WORKER_TEST"] = value


def _get_env() -> str | None:
    return os.environ.get("RIPOSTE_WORKER_TEST")


def test_dead_worker_raises_naming_the_work():
    with worker_pool(1) as pool:
        future = pool.submit(os._exit, 3)
        with pytest.raises(WorkerDiedError, match=r"died while playing games 40\.\.49.*--jobs 1"):
            result_of(future, "games 40..49")


def test_the_work_s_own_error_is_raised_as_is():
    with worker_pool(2) as pool:
        with pytest.raises(ValueError, match="invalid literal"):
            result_of(pool.submit(int, "not a number"), "a conversion")
        assert result_of(pool.submit(int, "12"), "a conversion") == 12


def test_leaving_the_pool_terminates_busy_workers():
    t0 = time.monotonic()
    with worker_pool(2) as pool:
        futures = [pool.submit(time.sleep, 60) for _ in range(4)]
        procs = list(pool._processes.values())
        time.sleep(0.5)
    assert time.monotonic() - t0 < 20
    assert len(procs) == 2 and not any(p.is_alive() for p in procs)
    assert not any(f.done() and not f.cancelled() and f.exception() is None for f in futures)


def test_workers_ignore_sigint_and_run_the_initializer():
    with worker_pool(1, _set_env, ("yes",)) as pool:
        assert result_of(pool.submit(_sigint_ignored), "a check") is True
        assert result_of(pool.submit(_get_env), "a check") == "yes"
    assert "RIPOSTE_WORKER_TEST" not in os.environ  # set in the worker only


def _swallow_sigterm() -> None:
    """What a worker forked a moment before SIGTERM does: the parent's handler (a deferred
    SignalGuard) only notes the signal."""
    signal.signal(signal.SIGTERM, lambda signum, frame: None)


@pytest.mark.slow
def test_leaving_the_pool_kills_a_worker_that_lives_through_sigterm():
    """A worker that lives through SIGTERM and never reads the stop sentinel (in CI: stuck on
    the queue lock of a sibling terminated while holding it; here: busy) is killed, instead of
    ``shutdown`` waiting for it forever."""
    import threading

    from envs.core import workers

    done = threading.Event()
    seen: list = []

    def leave() -> None:
        with worker_pool(1, _swallow_sigterm) as pool:
            # the first result proves the initializer has run: SIGTERM is swallowed from now
            assert result_of(pool.submit(int, "7"), "a conversion") == 7
            pool.submit(time.sleep, 600)
            time.sleep(0.5)  # picked up: the worker is busy, the sentinel would come too late
            seen.extend(pool._processes.values())
        done.set()

    t0 = time.monotonic()
    thread = threading.Thread(target=leave, daemon=True)
    thread.start()
    thread.join(timeout=60)
    assert done.is_set(), "leaving the pool hung on a worker that lived through SIGTERM"
    assert time.monotonic() - t0 < workers.TERMINATE_GRACE + 20
    assert [p.exitcode for p in seen] == [-signal.SIGKILL]


def test_jobs_must_be_positive():
    with pytest.raises(ValueError, match="jobs must be >= 1, got 0"):
        with worker_pool(0):
            pass
