"""Evaluations during training: a model's score against opponents (:func:`evaluate_model`),
the checkpoint-selection evaluation of ``train.py`` (:func:`selection_scores`), and its
background evaluations (``--eval-background``, the default): the periodic selection
evaluations played in one worker process while PPO trains on the other core, in the spirit of
RLlib's ``evaluation_parallel_to_training``.

:class:`BackgroundEvaluator` plays them from candidate files; the training callback
(:class:`agents.training.callbacks.SelfPlayCallback`) submits them at rollout boundaries and takes
the results in later; a checkpoint lists the pending ones (:data:`PENDING_MEMBER`) so that a resumed
run plays them again. Imports torch and stable-baselines3 only when used.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from envs.core.protocol import Game

from ..evaluation.free_for_all import free_for_all
from ..policies.ppo import MaskablePPOPolicy
from .league.selfplay import atomic_save_model
from ..evaluation.tournament import round_robin

__all__ = ["EXTRA_SEED_OFFSET", "MAX_PENDING_EVALUATIONS", "PENDING_MEMBER",
           "BackgroundEvaluator", "candidate_path", "evaluate_model", "global_generators_kept",
           "pending_in_checkpoint", "selection_scores"]


def evaluate_model(model: Any, game: Game, opponents: Mapping[str, Any], games: int, seed: int,
                   max_decisions: int | None = None, jobs: int = 1) -> dict[str, float]:
    """Score of ``model`` (a MaskablePPO model or a :class:`~agents.policies.ppo.MaskablePPOPolicy`;
    arg-max of its masked policy) against each opponent:
    ``{name: (wins + draws / 2) / games}`` over ``games`` games with both seatings on common
    chance seeds (see :mod:`agents.evaluation.tournament`); with three or more sides, the share of
    free-for-all games in which the model placed better than every copy of the opponent, ties
    half (see :mod:`agents.evaluation.free_for_all`). ``jobs`` worker processes play the games (the
    same scores whatever the number)."""
    me = (model if isinstance(model, MaskablePPOPolicy)
          else MaskablePPOPolicy(model, deterministic=True, name="model"))
    scores = {}
    for name, opp in opponents.items():
        if game.num_players > 2:  # the model against n - 1 copies of the opponent, seats rotated
            res = free_for_all(game, {"model": me, name: opp}, games, seed=seed,
                               max_decisions=max_decisions, jobs=jobs)
        else:
            res = round_robin(game, {"model": me, name: opp}, games, seed=seed,
                              max_decisions=max_decisions, jobs=jobs)
        scores[name] = res.pairs[0].a_score
    return scores


#: offset of the tournament seed of the extra selection games (disjoint from eval_seed's)
EXTRA_SEED_OFFSET = 1_000_003


def selection_scores(model: Any, game: Game, opponents: Mapping[str, Any], games: int,
                     seed: int, extra_games: int = 0, extra_below: float = 1.0,
                     max_decisions: int | None = None, jobs: int = 1) -> dict[str, float]:
    """The checkpoint-selection evaluation of ``model`` (a MaskablePPO model or a
    :class:`~agents.policies.ppo.MaskablePPOPolicy`): ``games`` games against each opponent
    (:func:`evaluate_model`, tournament seed ``seed``), then ``extra_games`` more (on the
    disjoint seed ``seed + EXTRA_SEED_OFFSET``) against each opponent it scored below
    ``extra_below`` against; a score is over all the games played against that opponent."""
    scores = evaluate_model(model, game, opponents, games, seed, max_decisions, jobs=jobs)
    hard = {n: o for n, o in opponents.items() if scores[n] < extra_below}
    if extra_games > 0 and hard:
        more = evaluate_model(model, game, hard, extra_games, seed + EXTRA_SEED_OFFSET,
                              max_decisions, jobs=jobs)
        for n, s in more.items():
            scores[n] = (scores[n] * games + s * extra_games) / (games + extra_games)
    return scores


def candidate_path(directory: Path, steps: int) -> Path:
    """``directory/model_<steps, 10 digits>.zip``: the file of the policy evaluated at
    ``steps`` timesteps (background candidates, ``train.py --keep-candidates``)."""
    return Path(directory) / f"model_{int(steps):010d}.zip"


#: what the background evaluation worker inherits when it is forked (see BackgroundEvaluator)
_BACKGROUND: dict[str, Any] = {}


def _evaluate_candidate(path: str) -> tuple[dict[str, float], float]:
    """In the background worker: the selection scores of the candidate checkpoint ``path``
    and the CPU seconds they took."""
    import time

    c = time.process_time()
    bg = _BACKGROUND
    policy = MaskablePPOPolicy.load(path, bg["game"], deterministic=True, name="model")
    scores = selection_scores(policy, bg["game"], bg["opponents"], bg["games"], bg["seed"],
                              bg["extra_games"], bg["extra_below"], bg["max_decisions"])
    return scores, time.process_time() - c


def _init_background(parent: int) -> None:
    """Initializer of the background evaluation worker: one torch thread; SIGTERM ignored
    (a SIGTERM to the whole process group — systemd, Slurm's ``scancel`` — must reach the
    training process, which checkpoints at its next rollout boundary, and not kill the worker
    first: its death would end the run as an error); and on Linux it is killed when the
    training process dies (``PR_SET_PDEATHSIG``), so that a SIGKILLed run leaves no worker
    waiting for work forever. :meth:`BackgroundEvaluator.close` kills it (SIGKILL: the
    worker pool's ``grace=0``)."""
    import signal

    from ..evaluation.tournament import _init_worker

    _init_worker()
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    if sys.platform.startswith("linux"):
        import ctypes

        try:
            ctypes.CDLL(None, use_errno=True).prctl(1, int(signal.SIGKILL))  # PR_SET_PDEATHSIG
        except (OSError, AttributeError):
            pass
    if os.getppid() != parent:  # the parent died before the line above took effect
        os._exit(1)


class BackgroundEvaluator:
    """Plays the periodic selection evaluations of ``train.py`` in one worker process while
    training goes on (PPO uses one core; the evaluations the other), in the spirit of RLlib's
    ``evaluation_parallel_to_training``.

    The evaluations never feed back into training (they choose ``final_model.zip`` and draw
    the learning curves), so running them beside it changes no weight and no score: a
    candidate is written to ``directory/model_<timesteps>.zip`` at its rollout boundary and
    scored from that file, by the same numpy forward pass and tournament seeds as in the
    training process. Results come back in submission order (one worker, first in first out).
    The worker is forked at the first :meth:`submit` (it inherits the game and the opponents);
    :meth:`close` kills it (:func:`envs.core.workers.stop_workers` with ``grace=0``).

    Raises (from :meth:`submit`, :meth:`ready`, :meth:`drain`):
        envs.core.workers.WorkerDiedError: the worker process died (killed, out of memory).
    """

    def __init__(self, game: Game, opponents: Mapping[str, Any], games: int, seed: int,
                 directory: Path, extra_games: int = 0, extra_below: float = 1.0,
                 max_decisions: int | None = None):
        self.settings = {"game": game, "opponents": dict(opponents), "games": games,
                         "seed": seed, "extra_games": extra_games, "extra_below": extra_below,
                         "max_decisions": max_decisions}
        self.directory = Path(directory)
        self._pool_cm: Any = None
        self._pool: Any = None
        #: (timesteps, future, the caller's record of the submission) in submission order
        self._pending: list[tuple[int, Any, dict[str, Any]]] = []

    def path(self, steps: int) -> Path:
        """The candidate file of the policy evaluated at ``steps`` timesteps."""
        return candidate_path(self.directory, steps)

    def submit(self, steps: int, record: Mapping[str, Any], model: Any = None) -> None:
        """Queue the evaluation of the candidate of ``steps`` timesteps; with ``model``, write
        it first (atomically; without, the file must exist: a resumed run's pending one).
        ``record`` is handed back with the scores."""
        from envs.core.workers import submit, worker_pool

        if model is not None:
            atomic_save_model(model, self.path(steps), self.settings["game"])
        first = self._pool is None
        if first:
            self._pool_cm = worker_pool(1, _init_background, (os.getpid(),), grace=0)
            self._pool = self._pool_cm.__enter__()
            _BACKGROUND.update(self.settings)
        try:  # the worker is forked at the first submit, inheriting _BACKGROUND
            fut = submit(self._pool, f"the evaluation at {steps} timesteps",
                         _evaluate_candidate, str(self.path(steps)))
        finally:
            if first:
                _BACKGROUND.clear()
        self._pending.append((int(steps), fut, dict(record)))

    def pending(self) -> list[dict[str, Any]]:
        """The records of the evaluations not yet handed back, oldest first, each with its
        ``timesteps`` (what a checkpoint keeps so that a resumed run plays them again)."""
        return [{**rec, "timesteps": steps} for steps, _, rec in self._pending]

    def ready(self, keep: int | None = None) -> list[tuple[int, dict[str, float], float,
                                                         dict[str, Any]]]:
        """The finished evaluations, oldest first, as ``(timesteps, scores, worker CPU
        seconds, record)``; with ``keep``, first waits until at most ``keep`` are pending
        (0: every one finished)."""
        from envs.core.workers import result_of

        out = []
        while self._pending and ((keep is not None and len(self._pending) > keep)
                                 or self._pending[0][1].done()):
            steps, fut, rec = self._pending.pop(0)
            scores, cpu = result_of(fut, f"the evaluation at {steps} timesteps")
            out.append((steps, scores, cpu, rec))
        return out

    def close(self) -> None:
        """Kill the worker (it ignores SIGTERM; pending evaluations are dropped); safe to
        call twice."""
        if self._pool_cm is not None:
            cm, self._pool_cm, self._pool = self._pool_cm, None, None
            cm.__exit__(None, None, None)


@contextmanager
def global_generators_kept() -> Iterator[None]:
    """Restore Python's, numpy's and torch's global generators on exit: loading a model
    inside a run (a resumed run's pending evaluation played in the training process) must
    not move the draws the run makes next."""
    import random

    import torch

    states = random.getstate(), np.random.get_state(), torch.get_rng_state()
    try:
        yield
    finally:
        random.setstate(states[0])
        np.random.set_state(states[1])
        torch.set_rng_state(states[2])


#: background evaluations in flight at most (one playing, one queued) before training waits
MAX_PENDING_EVALUATIONS = 2

#: checkpoint member listing the timesteps of the background evaluations left pending (JSON)
PENDING_MEMBER = "riposte_pending_evaluations.json"


def pending_in_checkpoint(path: Path) -> list[int]:
    """The timesteps of the background evaluations the checkpoint ``path`` left pending
    (:data:`PENDING_MEMBER`; none for a checkpoint without it or one that cannot be read)."""
    import zipfile

    try:
        with zipfile.ZipFile(path) as zf:
            data = json.loads(zf.read(PENDING_MEMBER))
        return [int(x) for x in data]
    except (OSError, KeyError, ValueError, TypeError, zipfile.BadZipFile):
        return []
