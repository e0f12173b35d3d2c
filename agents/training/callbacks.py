"""The callbacks of ``train.py``: :class:`InterruptCallback` stops ``model.learn`` at a rollout
boundary once a Ctrl-C is pending, and :class:`SelfPlayCallback` snapshots, checkpoints and
evaluates on a schedule. Each of its duties is a module of its own:
:mod:`agents.training.snapshots`, :mod:`agents.training.checkpoints` and
:mod:`agents.training.evaluations` (the evaluation games themselves, also the background ones:
:mod:`agents.training.selection`); this module holds the schedule.

Imports stable-baselines3 (not needed by the rest of :mod:`agents` at import time).
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from stable_baselines3.common.callbacks import BaseCallback

from envs.core.protocol import Game

from .checkpoints import CheckpointDuty
from .evaluations import EvaluationDuty
from .league.selfplay import OpponentPool
from .selection import BackgroundEvaluator
from .snapshots import SnapshotDuty
from .vec_env import TimedVecEnv


class InterruptCallback(BaseCallback):
    """Stops ``model.learn`` at the next *rollout boundary* (after a PPO update, before the
    next rollout) once ``guard.requested`` is set (a :class:`agents.interrupts.SignalGuard` in
    deferred mode), calling ``at_stop(timesteps)`` there first (``train.py``: save the
    checkpoint, whose resume is then exact; see :mod:`agents.training.resume`). ``stopped_at`` is
    the boundary's timestep count and ``saved`` what ``at_stop`` returned (both ``None`` when
    ``learn`` reached its budget first). The wait is at most one rollout and one update."""

    def __init__(self, guard: Any, at_stop: Any = None):
        super().__init__(verbose=0)
        self.guard = guard
        self.at_stop = at_stop
        self.stopped_at: int | None = None
        self.saved: Any = None

    def _on_rollout_start(self) -> None:
        if self.guard.requested is not None and self.stopped_at is None:
            self.stopped_at = int(self.num_timesteps)
            if self.at_stop is not None:
                self.saved = self.at_stop(self.stopped_at)

    def _on_step(self) -> bool:
        return self.stopped_at is None



class SelfPlayCallback(SnapshotDuty, EvaluationDuty, CheckpointDuty, BaseCallback):
    """Every ``snapshot_freq`` timesteps adds a snapshot to the pool, at the first rollout
    boundary (after the PPO update) after every ``checkpoint_freq`` timesteps writes
    ``run_dir/checkpoints/ckpt_<timesteps>.zip`` with the resume state inside (every generator
    and env state, :mod:`agents.training.resume`; only at a boundary is the rollout buffer empty, so
    only there is resuming exact) and ``run_dir/pool.json`` (atomically, keeping the last
    ``keep_checkpoints``), at the first rollout boundary after every ``eval_freq`` timesteps
    (0: never; none before ``eval_after``) plays ``eval_games`` against each evaluation
    opponent and ``extra_games`` more against those it scored below ``extra_below`` against
    (:meth:`scores`), logs ``eval/score_vs_<name>`` to TensorBoard and appends a row to
    ``run_dir/metrics.csv``; with ``candidates_dir``, every evaluated policy is also kept there
    as ``model_<timesteps>.zip``.

    Checkpoint selection: every evaluated policy (the warm start at 0 timesteps, the periodic
    ones, and whatever ``train.py`` passes to :meth:`consider`) is a candidate; the one with the
    best worst-case score over the evaluation opponents (ties: better mean, then later) is kept
    as ``run_dir/best_model.zip`` and described by :attr:`best`. When the pool is a
    :class:`~agents.training.league.pfsp.League`, every finished training episode is recorded
    in it (PFSP win rates).

    With ``background=True`` the periodic evaluations are played by a
    :class:`BackgroundEvaluator` (one worker process, candidates in
    ``run_dir/.evaluations/``) while training goes on: their results are taken in at the next
    rollout boundaries (metrics rows and selection as if played at their own boundary; the
    TensorBoard ``eval/`` values are logged when they arrive, with ``eval/timesteps`` saying
    which policy they score); at most :data:`MAX_PENDING_EVALUATIONS` are in flight (when one
    more is due, training waits for the oldest), :meth:`drain` waits for the rest,
    :meth:`close` stops the worker, and a checkpoint lists the evaluations still pending so
    that ``--resume`` plays them again. ``eval_seconds`` is then the time training waited
    for them."""

    def __init__(self, run_dir: Path, pool: OpponentPool, game: Game,
                 eval_opponents: Mapping[str, Any], snapshot_freq: int, checkpoint_freq: int,
                 eval_freq: int, eval_games: int, eval_seed: int, keep_checkpoints: int = 3,
                 max_decisions: int | None = None, timed_env: TimedVecEnv | None = None,
                 eval_after: int = 0, extra_games: int = 0, extra_below: float = 1.0,
                 candidates_dir: Path | None = None, eval_jobs: int = 1,
                 background: bool = False):
        super().__init__(verbose=0)
        self.background = background
        self.evaluator: BackgroundEvaluator | None = None
        #: the background evaluations' candidate files
        self.evaluations_dir = Path(run_dir) / ".evaluations"
        #: each checkpoint's kept policy (:meth:`kept_path`)
        self.kept_dir = Path(run_dir) / ".kept"
        #: evaluations a resumed run's checkpoint left pending (played again at the start)
        self.restored_pending: list[dict[str, Any]] = []
        self.eval_after = eval_after
        self.eval_jobs = eval_jobs
        self.extra_games = extra_games
        self.extra_below = extra_below
        self.candidates_dir = None if candidates_dir is None else Path(candidates_dir)
        self.run_dir = Path(run_dir)
        self.pool = pool
        self.game = game
        self.eval_opponents = dict(eval_opponents)
        self.snapshot_freq = snapshot_freq
        self.checkpoint_freq = checkpoint_freq
        self.eval_freq = eval_freq
        self.eval_games = eval_games
        self.eval_seed = eval_seed
        self.keep_checkpoints = keep_checkpoints
        self.max_decisions = max_decisions
        self.timed_env = timed_env
        self._t0 = time.perf_counter()
        self._steps0 = 0
        self._marks: dict[str, int] = {}
        self.best: dict[str, Any] | None = None
        self._scores: dict[str, list[float]] = {}
        #: wall and CPU seconds of the periodic evaluations (inside ``model.learn``)
        self.eval_seconds = 0.0
        self.eval_cpu_seconds = 0.0

    def _on_training_start(self) -> None:
        self._t0 = time.perf_counter()
        self._steps0 = self.num_timesteps
        self._marks = {"snap": self.num_timesteps, "ckpt": self.num_timesteps,
                       "eval": self.num_timesteps}
        if self.background and self.eval_games and self.eval_freq:
            self.evaluator = BackgroundEvaluator(
                self.game, self.eval_opponents, self.eval_games, self.eval_seed,
                self.evaluations_dir, self.extra_games, self.extra_below,
                self.max_decisions)
        self._replay_restored()
        if self.eval_games and self.eval_freq and self.num_timesteps == 0:
            self._evaluate(0)  # the warm start: the first point of the curves, a candidate

    def _due(self, key: str, freq: int) -> bool:
        if freq <= 0:
            return False
        if self.num_timesteps // freq > self._marks[key] // freq:
            self._marks[key] = self.num_timesteps
            return True
        return False

    def _on_step(self) -> bool:
        """Every step: record the episodes that ended, then add a snapshot when one is due."""
        steps = self.num_timesteps
        self._record_episodes()
        if self._due("snap", self.snapshot_freq):
            self._take_snapshot(steps)
        return True

    def _on_rollout_start(self) -> None:
        """The rollout boundary (the previous update is done, the buffer empty): evaluate when
        an evaluation is due (so an evaluated policy is exactly the checkpoint of the same
        timestep; not before ``eval_after``: the actor was still frozen, the policy the warm
        start's), then checkpoint when one is due."""
        steps = self.num_timesteps
        self._take_ready()  # the background evaluations finished by now
        if self.eval_games and self._due("eval", self.eval_freq) and steps >= self.eval_after:
            self._evaluate(steps)  # (the end is not a boundary here: train.py evaluates it)
        if steps > self._steps0 and self._due("ckpt", self.checkpoint_freq):
            self.save_checkpoint(steps)

    def _on_rollout_end(self) -> None:
        """The rollout's self-play win rates to TensorBoard."""
        self._log_win_rates()
