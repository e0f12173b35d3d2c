"""Training helpers for ``train.py``: the vectorised self-play env, a VecEnv wrapper that times
``env.step``, and the callback that snapshots, checkpoints and evaluates (the evaluations
themselves, also the background ones: :mod:`agents.training.selection`).

Imports gymnasium, stable-baselines3 and sb3-contrib (not needed by the rest of :mod:`agents`
at import time).
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import os
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.monitor import Monitor
from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv, VecEnv, VecEnvWrapper

from envs.core.files import atomic_write_bytes
from envs.core.protocol import Game

from ..policies.ppo import MaskablePPOPolicy
from .league.pfsp import OpponentTag
from .league.selfplay import OpponentPool, atomic_save_model, atomic_write_text
from .selection import (MAX_PENDING_EVALUATIONS, PENDING_MEMBER, BackgroundEvaluator,
                        candidate_path, global_generators_kept, pending_in_checkpoint,
                        selection_scores)


VEC_ENVS = ("dummy", "subproc")


def make_vec_env(ruleset: str, scenario: str | None, opponent: Any, n_envs: int = 1,
                 max_decisions: int | None = None, shaped_reward: bool = False,
                 params: Mapping[str, Any] | None = None, vec_env: str = "dummy") -> VecEnv:
    """``n_envs`` ``RiposteGymEnv`` (seat drawn every episode, ``opponent`` a policy or an
    :class:`~agents.training.league.selfplay.OpponentPool`, no label lists in ``info``), each in an
    :class:`~agents.training.league.pfsp.OpponentTag` (``info["opponent"]``) and a ``Monitor``.

    ``vec_env="dummy"``: all in this process, in one :class:`RolloutVecEnv` (what training
    uses). ``"subproc"``: one process each (``SubprocVecEnv``, forkserver); every process gets
    its own copy of ``opponent`` at construction, so an opponent pool's later changes (latest
    weights, snapshots) do not reach them — only for measuring env throughput.

    Raises:
        ValueError: for a ``vec_env`` that is not one of :data:`VEC_ENVS`.
    """
    if vec_env not in VEC_ENVS:
        raise ValueError(f"vec_env {vec_env!r} is not one of {VEC_ENVS}")
    from envs.adapters.single_agent import RiposteGymEnv

    def make():
        return Monitor(OpponentTag(RiposteGymEnv(
            ruleset=ruleset, scenario=scenario, params=params, seat="random", opponent=opponent,
            max_decisions=max_decisions, shaped_reward=shaped_reward, info_labels=False)))

    if vec_env == "subproc":
        return SubprocVecEnv([make for _ in range(n_envs)])
    return RolloutVecEnv([make for _ in range(n_envs)])


class RolloutVecEnv(DummyVecEnv):
    """``DummyVecEnv`` for training: the same steps, observations, rewards and dones, with two
    per-step costs removed.

    * ``step_wait`` hands out the list of the envs' own ``info`` dicts (a shallow copy) instead
      of a ``deepcopy`` of them: every ``RiposteGymEnv.step``/``reset`` builds fresh dicts, so
      nothing is shared between steps.
    * ``env_method("action_masks")`` (what MaskablePPO calls before every step) asks the
      unwrapped envs directly instead of walking the wrapper chain by attribute lookup.
    """

    def step_wait(self):
        for i, env in enumerate(self.envs):
            obs, self.buf_rews[i], terminated, truncated, info = env.step(self.actions[i])
            self.buf_dones[i] = done = terminated or truncated
            info["TimeLimit.truncated"] = truncated and not terminated
            if done:
                info["terminal_observation"] = obs
                obs, self.reset_infos[i] = env.reset()
            self.buf_infos[i] = info
            self._save_obs(i, obs)
        return (self._obs_from_buf(), np.copy(self.buf_rews), np.copy(self.buf_dones),
                list(self.buf_infos))

    def env_method(self, method_name: str, *method_args, indices=None, **method_kwargs):
        if method_name == "action_masks" and not method_args and not method_kwargs:
            return [env.unwrapped.action_masks() for env in self._get_target_envs(indices)]
        return super().env_method(method_name, *method_args, indices=indices, **method_kwargs)


class TimedVecEnv(VecEnvWrapper):
    """Pass-through VecEnv wrapper that adds up the time spent inside the wrapped env:
    ``step`` (which includes the opponents' decisions and chance), ``reset`` and the
    ``action_masks`` calls. ``env_seconds`` is the total wall time (``time.perf_counter``),
    ``env_cpu_seconds`` the CPU time of this process in those calls (``time.process_time``;
    with envs in other processes that is only the pipes' side of it, see
    :meth:`worker_cpu_seconds`)."""

    def __init__(self, venv: VecEnv):
        super().__init__(venv)
        self.env_seconds = 0.0
        self.env_cpu_seconds = 0.0
        self.env_steps = 0

    def _add(self, t: float, c: float) -> None:
        self.env_seconds += time.perf_counter() - t
        self.env_cpu_seconds += time.process_time() - c

    def reset(self):
        t, c = time.perf_counter(), time.process_time()
        obs = self.venv.reset()
        self._add(t, c)
        return obs

    def step_async(self, actions: np.ndarray) -> None:
        t, c = time.perf_counter(), time.process_time()
        self.venv.step_async(actions)
        self._add(t, c)

    def step_wait(self):
        t, c = time.perf_counter(), time.process_time()
        out = self.venv.step_wait()
        self._add(t, c)
        self.env_steps += self.num_envs
        return out

    def env_method(self, method_name: str, *method_args, indices=None, **method_kwargs):
        t, c = time.perf_counter(), time.process_time()
        out = self.venv.env_method(method_name, *method_args, indices=indices, **method_kwargs)
        self._add(t, c)
        return out

    def worker_cpu_seconds(self) -> float:
        """CPU seconds (user + system) used so far by the env worker processes of a wrapped
        ``SubprocVecEnv`` (read from ``/proc/PID/stat``; call before ``close``); 0.0 for
        in-process envs, NaN where ``/proc`` cannot be read."""
        procs = getattr(self.venv, "processes", None) or []
        total = 0.0
        for proc in procs:
            try:
                with open(f"/proc/{proc.pid}/stat", encoding="ascii") as fh:
                    fields = fh.read().rsplit(")", 1)[1].split()
                total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
            except (OSError, ValueError, IndexError):
                return float("nan")
        return total


def in_process_envs(venv: VecEnv) -> bool:
    """True when the envs of ``venv`` (through VecEnv wrappers) live in this process (a
    ``DummyVecEnv`` such as :class:`RolloutVecEnv`), which exact resume needs."""
    v = venv
    while not hasattr(v, "envs"):
        v = getattr(v, "venv", None)
        if v is None:
            return False
    return True


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


class SelfPlayCallback(BaseCallback):
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

    def _replay_restored(self) -> None:
        """Play the evaluations a resumed run's checkpoint left pending, from their candidate
        files (none when this run evaluates nothing: ``eval_games`` 0)."""
        pending, self.restored_pending = self.restored_pending, []
        if self.eval_games:
            for rec in pending:
                self._replay_pending(rec)

    def check_restored_pending(self) -> None:
        """Raise :class:`~agents.policies.base.AgentError` when a candidate of an evaluation the
        resumed checkpoint left pending is gone (``run_dir/.evaluations/``; not needed, and
        not checked, when this run evaluates nothing: ``eval_games`` 0)."""
        from ..policies.base import AgentError

        for rec in self.restored_pending if self.eval_games else ():
            path = candidate_path(self.evaluations_dir, rec["timesteps"])
            if not path.is_file():
                raise AgentError(f"the checkpoint left the evaluation of the policy of "
                                 f"{int(rec['timesteps'])} timesteps pending, but that "
                                 f"policy's file {str(path)!r} is gone")

    def _replay_pending(self, rec: dict[str, Any]) -> None:
        steps = int(rec["timesteps"])
        path = candidate_path(self.evaluations_dir, steps)
        if self.evaluator is not None:
            self.evaluator.submit(steps, rec)
            return
        with global_generators_kept():  # building the loaded network draws from torch's
            policy = MaskablePPOPolicy.load(path, self.game, deterministic=True, name="model")
        self._take(steps, self.scores(policy), rec, path)

    def scores(self, model: Any = None) -> dict[str, float]:
        """The selection evaluation of ``model`` (default: the learner): ``eval_games`` games
        against each evaluation opponent, then ``extra_games`` more (on the disjoint tournament
        seed ``eval_seed + EXTRA_SEED_OFFSET``) against each opponent it scored below
        ``extra_below`` against; a score is over all the games played against that opponent."""
        model = self.model if model is None else model
        return selection_scores(model, self.game, self.eval_opponents, self.eval_games,
                                self.eval_seed, self.extra_games, self.extra_below,
                                self.max_decisions, jobs=self.eval_jobs)

    def _record(self, steps: int) -> dict[str, Any]:
        """What a metrics row of an evaluation at ``steps`` says besides the scores, taken
        now (at its rollout boundary)."""
        env_s = self.timed_env.env_seconds if self.timed_env is not None else float("nan")
        return {"wall": time.perf_counter() - self._t0, "session_steps": steps - self._steps0,
                "env_seconds": env_s, "snapshots": len(self.pool.snapshots)}

    def _evaluate(self, steps: int) -> None:
        if self.evaluator is not None:
            # evaluations due faster than the worker plays them: wait rather than pile up
            # candidates (training then goes at the blocking evaluations' pace)
            self._take_ready(keep=MAX_PENDING_EVALUATIONS - 1)
            self.evaluator.submit(steps, self._record(steps), self.model)
            return
        t, c = time.perf_counter(), time.process_time()
        scores = self.scores()
        self.eval_seconds += time.perf_counter() - t
        self.eval_cpu_seconds += time.process_time() - c
        self._take(steps, scores, self._record(steps))

    def _take(self, steps: int, scores: Mapping[str, float], rec: Mapping[str, Any],
              source: Path | None = None) -> None:
        """Log, write the metrics row of and consider the evaluation of ``steps``."""
        # (no logger when a resumed run only finishes: model.learn never ran)
        logger = getattr(self.model, "_logger", None)
        if logger is not None:
            for name, s in scores.items():
                logger.record(f"eval/score_vs_{name}", s)
            if source is not None:
                logger.record("eval/timesteps", steps)
        self.write_metrics_row(steps, scores, rec["wall"], rec["session_steps"],
                               rec.get("env_seconds"), rec.get("snapshots"))
        self.consider(steps, scores, source)

    def _take_ready(self, keep: int | None = None) -> None:
        """Take in the finished background evaluations; with ``keep``, first wait until at
        most ``keep`` are pending (the wait counts in ``eval_seconds``)."""
        if self.evaluator is None:
            return
        t = time.perf_counter()
        taken = self.evaluator.ready(keep)
        for steps, scores, cpu, rec in taken:
            self.eval_cpu_seconds += cpu
            self._take(steps, scores, rec, self.evaluator.path(steps))
        if taken:
            self._prune_candidates()
        if keep is not None:
            self.eval_seconds += time.perf_counter() - t

    def drain(self) -> None:
        """Wait for the background evaluations still pending and take them in (no-op
        without ``background``); the wait counts in ``eval_seconds``. Evaluations a resumed
        run's checkpoint left pending and no training played yet are played here."""
        self._replay_restored()  # (--resume of a run with nothing left to train)
        self._take_ready(keep=0)

    def pending_evaluations(self) -> list[dict[str, Any]]:
        """The background evaluations not yet taken in (what a checkpoint keeps)."""
        return [] if self.evaluator is None else self.evaluator.pending()

    def close(self) -> None:
        """Stop the background evaluation worker (pending evaluations are dropped: a
        checkpoint lists them); safe to call twice."""
        if self.evaluator is not None:
            self.evaluator.close()

    def consider(self, steps: int, scores: Mapping[str, float],
                 source: Path | None = None) -> bool:
        """Make the evaluated policy the kept one (``run_dir/best_model.zip``, atomically)
        when its evaluation ``scores`` beat the best so far on the worst case (ties: the mean,
        then later wins). The policy is the current model, or the checkpoint file ``source``
        (a background evaluation's candidate). True when it was kept."""
        if not scores:
            return False
        if self.candidates_dir is not None:
            self._keep(source, candidate_path(self.candidates_dir, steps))
        worst, mean = min(scores.values()), sum(scores.values()) / len(scores)
        if self.best is not None and (worst, mean) < (self.best["worst"], self.best["mean"]):
            return False
        best = self.run_dir / "best_model.zip"
        self._keep(source, best)
        self.best = {"timesteps": int(steps), "worst": worst, "mean": mean,
                     "scores": dict(scores),
                     "sha256": _sha256(best) if best.is_file() else None}
        return True

    def kept_path(self, steps: int) -> Path:
        """``run_dir/.kept/ckpt_<steps, 10 digits>.zip``: the kept policy (``best_model.zip``)
        as it was when the checkpoint ``checkpoints/ckpt_<steps>.zip`` was written (a hard
        link where the file system allows it; deleted with that checkpoint)."""
        return self.kept_dir / f"ckpt_{int(steps):010d}.zip"

    def discard_after(self, steps: int) -> None:
        """Undo what an interrupted run wrote after the checkpoint of ``steps`` timesteps that
        this run resumes from: ``best_model.zip`` is put back to the policy the checkpoint's
        kept-best record names (from :meth:`kept_path`; removed when the record names none)
        and the ``metrics.csv`` rows of later timesteps are dropped. A record without a
        digest (a checkpoint of an older Riposte) leaves ``best_model.zip`` as it is.

        Raises:
            AgentError: when ``best_model.zip`` holds another policy and the checkpoint's copy
                of the kept one is gone or differs.
        """
        from ..policies.base import AgentError

        best = self.run_dir / "best_model.zip"
        if self.best is None:
            best.unlink(missing_ok=True)
        elif self.best.get("sha256") and (not best.is_file() or
                                          _sha256(best) != self.best["sha256"]):
            kept = self.kept_path(steps)
            if not kept.is_file() or _sha256(kept) != self.best["sha256"]:
                raise AgentError(f"the checkpoint kept the policy of "
                                 f"{int(self.best['timesteps'])} timesteps, but "
                                 f"{str(best)!r} holds another one and the checkpoint's copy "
                                 f"{str(kept)!r} is {'changed' if kept.is_file() else 'gone'}")
            atomic_write_bytes(best, kept.read_bytes())
        path = self.run_dir / "metrics.csv"
        if path.is_file():
            fields, rows = _metrics_before(path, steps + 1)
            _write_metrics(path, fields, rows)

    def _keep(self, source: Path | None, path: Path) -> None:
        """Write the current model, or copy ``source``, to ``path`` (atomically)."""
        if source is None:
            atomic_save_model(self.model, path, self.game)
        else:
            atomic_write_bytes(path, source.read_bytes())

    def _due(self, key: str, freq: int) -> bool:
        if freq <= 0:
            return False
        if self.num_timesteps // freq > self._marks[key] // freq:
            self._marks[key] = self.num_timesteps
            return True
        return False

    def _on_step(self) -> bool:
        steps = self.num_timesteps
        record = getattr(self.pool, "record_episode", None)
        if record is not None:
            for done, info in zip(self.locals.get("dones", ()), self.locals.get("infos", ())):
                if done:
                    record(info)
        self._tally_episodes()
        if self._due("snap", self.snapshot_freq):
            self.pool.add_snapshot(self.model, steps)
            self.logger.record("selfplay/snapshots", len(self.pool.snapshots))
        return True

    def _tally_episodes(self) -> None:
        """Score (win 1, draw or cap 0.5, loss 0) of every episode that ended this step, kept
        per opponent (``info["opponent"]``; all snapshots count as ``snapshot``)."""
        for done, info in zip(self.locals.get("dones", ()), self.locals.get("infos", ())):
            if not done or "opponent" not in info:
                continue
            winner = info.get("winner") if "returns" in info else None
            score = 0.5 if winner is None else float(winner == info.get("side"))
            key = str(info["opponent"]).split(":")[0]
            self._scores.setdefault(key, []).append(score)

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
        """TensorBoard ``selfplay/win_rate_vs_<opponent>`` (draws count half) over the
        episodes that ended in this rollout, and ``selfplay/episodes_vs_<opponent>``."""
        for key, scores in sorted(self._scores.items()):
            self.logger.record(f"selfplay/win_rate_vs_{key}", float(np.mean(scores)))
            self.logger.record(f"selfplay/episodes_vs_{key}", len(scores))
        self._scores = {}

    def save_checkpoint(self, steps: int) -> Path:
        """Write the model with its resume state
        (:func:`agents.training.resume.capture_training_state`; call it at a rollout boundary) and
        the pool state; prune old checkpoints."""
        from ..policies.checkpoint import save_model
        from .resume import RESUME_MEMBER, capture_training_state

        ckdir = self.run_dir / "checkpoints"
        self.pool.save(self.run_dir / "pool.json")
        if self.best is not None:  # before the checkpoint that needs it (discard_after)
            _link_or_copy(self.run_dir / "best_model.zip", self.kept_path(steps))
        extra = {}
        if in_process_envs(self.training_env):  # (--vec-env subproc: no exact resume)
            extra[RESUME_MEMBER] = capture_training_state(self.model, self.training_env,
                                                          self.pool, self)
        pending = [int(r["timesteps"]) for r in self.pending_evaluations()]
        extra[PENDING_MEMBER] = json.dumps(pending).encode()
        path = save_model(self.model, ckdir / f"ckpt_{steps:010d}.zip", self.game,
                          extra=extra)
        old = sorted(p for p in ckdir.glob("ckpt_*.zip") if not p.name.startswith("."))
        for p in old[:-self.keep_checkpoints]:
            p.unlink(missing_ok=True)
        for p in self.kept_dir.glob("ckpt_*.zip"):  # the kept policies of checkpoints deleted
            if not (ckdir / p.name).is_file():
                p.unlink(missing_ok=True)
        self._prune_candidates()
        return path

    def _prune_candidates(self) -> None:
        """Delete the background evaluations' candidate files that nothing needs any more:
        not pending, and not left pending by a checkpoint still on disk (a ``--resume`` from
        it plays them again); the directory goes when it is empty."""
        d = self.evaluations_dir
        if not d.is_dir():
            return
        keep = {int(r["timesteps"]) for r in self.pending_evaluations() + self.restored_pending}
        for ck in (self.run_dir / "checkpoints").glob("ckpt_*.zip"):
            keep.update(pending_in_checkpoint(ck))
        for f in d.glob("model_*.zip"):
            tail = f.stem.removeprefix("model_")
            if tail.isdigit() and int(tail) not in keep:
                f.unlink(missing_ok=True)
        try:
            d.rmdir()
        except OSError:  # not empty (or gone)
            pass

    def write_metrics_row(self, steps: int, scores: Mapping[str, float], wall: float,
                          session_steps: int, env_seconds: float | None = None,
                          snapshots: int | None = None) -> None:
        """Add ``timesteps, wall_seconds, timesteps_per_second, env_time_share, snapshots,
        score_vs_<name>...`` to ``run_dir/metrics.csv`` (rewritten atomically): each timestep
        once — rows at ``steps`` or later (the final evaluation at a periodic one's timestep,
        or what an interrupted run wrote after the checkpoint it resumed from) are replaced."""
        path = self.run_dir / "metrics.csv"
        names = list(self.eval_opponents)
        env_s = env_seconds if env_seconds is not None else (
            self.timed_env.env_seconds if self.timed_env is not None else float("nan"))
        row = {"timesteps": steps, "wall_seconds": round(wall, 3),
               "timesteps_per_second": round(session_steps / wall, 3) if wall > 0 else 0.0,
               "env_time_share": round(env_s / wall, 4) if wall > 0 and session_steps else 0.0,
               "snapshots": len(self.pool.snapshots) if snapshots is None else snapshots}
        row.update({f"score_vs_{n}": scores.get(n, "") for n in names})
        # rows of a later timestep (an interrupted run's) are replaced
        rows = _metrics_before(path, steps)[1] if path.is_file() else []
        _write_metrics(path, list(row), rows + [row])


def _metrics_before(path: Path, steps: int) -> tuple[list[str], list[dict[str, str]]]:
    """The columns of the ``metrics.csv`` at ``path`` and its rows of fewer than ``steps``
    timesteps (rows without a timestep count are dropped)."""
    with open(path, newline="", encoding="utf-8") as fh:
        reader = csv.DictReader(fh)
        rows = [r for r in reader
                if r.get("timesteps", "").isdigit() and int(r["timesteps"]) < steps]
        return list(reader.fieldnames or []), rows


def _write_metrics(path: Path, fields: list[str], rows: list[Mapping[str, Any]]) -> None:
    """Rewrite the ``metrics.csv`` at ``path`` (atomically) with these columns and rows."""
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=fields, lineterminator="\n")
    w.writeheader()
    w.writerows([{k: r.get(k, "") for k in fields} for r in rows])
    atomic_write_text(path, buf.getvalue())


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _link_or_copy(src: Path, dst: Path) -> None:
    """Make ``dst`` hold ``src``'s bytes, replacing it atomically: a hard link (no copy; the
    kept file is replaced, never modified in place, so the link keeps the old bytes), or a
    copy where the file system has no hard links."""
    dst.parent.mkdir(parents=True, exist_ok=True)
    tmp = dst.with_name(f".{dst.name}.tmp{os.getpid()}")
    tmp.unlink(missing_ok=True)
    try:
        os.link(src, tmp)
    except OSError:
        atomic_write_bytes(dst, src.read_bytes())
        return
    os.replace(tmp, dst)
