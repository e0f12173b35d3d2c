"""The evaluation duty of the training callback
(:class:`~agents.training.callbacks.SelfPlayCallback`): at the first rollout boundary after every
``eval_freq`` timesteps (none before ``eval_after``) the learner plays ``eval_games`` games against
each evaluation opponent, and ``extra_games`` more against those it scored below ``extra_below``
against (the games: :mod:`agents.training.selection`); the scores go to TensorBoard
(``eval/score_vs_<name>``) and to a row of ``run_dir/metrics.csv``, and checkpoint selection keeps
the best evaluated policy as ``run_dir/best_model.zip``. With a background evaluator the games are
played in a worker process and taken in at later rollout boundaries.
"""

from __future__ import annotations

import csv
import hashlib
import io
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from envs.core.files import atomic_write_bytes

from ..policies.ppo import MaskablePPOPolicy
from .league.selfplay import atomic_save_model, atomic_write_text
from .selection import (MAX_PENDING_EVALUATIONS, BackgroundEvaluator, candidate_path,
                        global_generators_kept, pending_in_checkpoint, selection_scores)


class EvaluationDuty:
    """Periodic evaluations, checkpoint selection and ``metrics.csv``, a part of
    :class:`~agents.training.callbacks.SelfPlayCallback` (which holds the settings, the
    :class:`~agents.training.selection.BackgroundEvaluator` when there is one, and the kept-best
    record ``best``)."""

    evaluator: BackgroundEvaluator | None
    best: dict[str, Any] | None

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
                     "sha256": sha256_of(best) if best.is_file() else None}
        return True


    def _keep(self, source: Path | None, path: Path) -> None:
        """Write the current model, or copy ``source``, to ``path`` (atomically)."""
        if source is None:
            atomic_save_model(self.model, path, self.game)
        else:
            atomic_write_bytes(path, source.read_bytes())


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
        rows = metrics_before(path, steps)[1] if path.is_file() else []
        write_metrics(path, list(row), rows + [row])



def metrics_before(path: Path, steps: int) -> tuple[list[str], list[dict[str, str]]]:
    """The columns of the ``metrics.csv`` at ``path`` and its rows of fewer than ``steps``
    timesteps (rows without a timestep count are dropped)."""
    with open(path, newline="", encoding="utf-8") as fh:
        reader = csv.DictReader(fh)
        rows = [r for r in reader
                if r.get("timesteps", "").isdigit() and int(r["timesteps"]) < steps]
        return list(reader.fieldnames or []), rows


def write_metrics(path: Path, fields: list[str], rows: list[Mapping[str, Any]]) -> None:
    """Rewrite the ``metrics.csv`` at ``path`` (atomically) with these columns and rows."""
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=fields, lineterminator="\n")
    w.writeheader()
    w.writerows([{k: r.get(k, "") for k in fields} for r in rows])
    atomic_write_text(path, buf.getvalue())


def sha256_of(path: Path) -> str:
    """The SHA-256 digest (hex) of the file at ``path``."""
    return hashlib.sha256(path.read_bytes()).hexdigest()

