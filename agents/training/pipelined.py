"""Pipelined PPO updates: the update on rollout k runs in a second process while the envs
collect rollout k+1 (``train.py --pipelined-updates``; off by default).

In sb3-contrib's loop the learner and the envs take turns on one core: collect a rollout,
update on it, collect the next, so every env step is on the learner's critical path (45% of a
default run's wall time, issue 10 item 6). Here
:class:`UpdateWorker` moves :meth:`agents.training.teacher_kl.TeacherKLMaskablePPO.train` — the same
update, the same code — into one worker process, and the training process goes on collecting
while it runs::

    collect 1 (θ0) | collect 2 (θ0)      | collect 3 (θ1)      | collect 4 (θ2) ...
                   | update 1: θ0 -> θ1  | update 2: θ1 -> θ2  | update 3: θ2 -> θ3

Rollout k+1 is collected by the weights of before update k: one update of policy lag, as in
asynchronous PPO variants (RLlib's APPO; Espeholt et al. 2018 for the off-policy view). The
update is still sb3-contrib's: its probability ratio is taken against the log-probabilities
stored in the buffer, which are those of the policy that really chose the actions, so the
clipping keeps each update near the behaviour policy as PPO's does; the early stop on the
approximate KL (``target_kl``) counts the lag too.

What travels, per rollout (pickled through the worker's pipe, about 7 MB for the default
2,048 x 736 observations): the policy's and the optimizer's state, the teacher's weights when
they changed, which parameters are frozen (the critic warm-up, :mod:`agents.training.finetune`), the
filled rollout buffer (returns and advantages already computed), the schedules' progress and a
seed for the minibatch shuffle drawn from numpy's global generator of the training process.
Back come the new policy and optimizer state, the update counter and the ``train/*`` values
for the logger. The worker is a deterministic function of its request (one torch thread), so
a run is reproducible, and a checkpoint at a rollout boundary keeps the one request in flight
(:attr:`UpdateWorker.pending`) so that ``--resume`` submits it again and continues exactly
(:mod:`agents.training.resume`).

Measured on the 2-core machine: 1.4x the timesteps/s of the sequential
loop without periodic evaluations, but no faster in the default run (1,197 against 1,193
timesteps/s back to back), whose evaluations already use the second core; there the learner
still waited for the envs 34.7% of the time, since a 5-epoch update costs about 0.65 of a
rollout's collection. Hence off by default.

Imports torch lazily.
"""

from __future__ import annotations

import copy
import os
import time
from typing import Any

import numpy as np

__all__ = ["BUFFER_FIELDS", "UPDATE_WORK", "UpdateWorker", "apply_result", "run_request"]

#: what a dead update worker's :class:`~envs.core.workers.WorkerDiedError` names
UPDATE_WORK = "the PPO update"

#: the rollout buffer arrays a request carries
BUFFER_FIELDS = ("observations", "actions", "rewards", "returns", "episode_starts", "values",
                 "log_probs", "advantages", "action_masks")
#: the algorithm settings the worker's model is built with (MaskablePPO's own attributes)
_SETTINGS = ("learning_rate", "n_steps", "batch_size", "n_epochs", "gamma", "gae_lambda",
             "clip_range", "clip_range_vf", "normalize_advantage", "ent_coef", "vf_coef",
             "max_grad_norm", "target_kl", "teacher_kl_coef", "value_epochs")

#: the worker process's own model (built at its first request from _SPEC, inherited at fork)
_WORKER: dict[str, Any] = {}
_SPEC: dict[str, Any] = {}


def _spec(model: Any) -> dict[str, Any]:
    """What the worker needs to build a model that updates exactly as ``model`` does (its
    class, a :class:`~agents.training.teacher_kl.TeacherKLMaskablePPO`, and its settings, with
    a subclass's own :attr:`update_settings`)."""
    names = (*_SETTINGS, *getattr(model, "update_settings", ()))
    return {"cls": type(model), "settings": {k: getattr(model, k) for k in names},
            "policy_kwargs": dict(model.policy_kwargs),
            "observation_space": model.observation_space, "action_space": model.action_space,
            "n_envs": model.n_envs}


def _build(spec: dict[str, Any]) -> Any:
    """The worker's model: no env, only the training env's spaces and count (all an update
    needs: the policy, its optimizer and a rollout buffer of the same shape)."""
    from ..policies.ppo import quiet_logger

    model = spec["cls"]("MlpPolicy", None, policy_kwargs=spec["policy_kwargs"], device="cpu",
                        verbose=0, _init_setup_model=False, **spec["settings"])
    model.observation_space, model.action_space = spec["observation_space"], spec["action_space"]
    model.n_envs = spec["n_envs"]
    model._setup_model()
    model.set_logger(quiet_logger())
    return model


def _fields(buf: Any) -> tuple[str, ...]:
    """The arrays of ``buf`` a request carries: :data:`BUFFER_FIELDS`, or a buffer class's own
    ``fields`` (:class:`agents.training.expert_iteration.SearchRolloutBuffer`)."""
    return getattr(buf, "fields", BUFFER_FIELDS)


def _request(model: Any, seed: int) -> dict[str, Any]:
    """The update request for the rollout now in ``model.rollout_buffer`` (copies)."""
    policy, buf = model.policy, model.rollout_buffer
    teacher = getattr(model, "teacher", None)
    return {
        "policy": copy.deepcopy(policy.state_dict()),
        "optimizer": copy.deepcopy(policy.optimizer.state_dict()),
        "teacher": None if teacher is None else copy.deepcopy(teacher.state_dict()),
        "frozen": [n for n, p in policy.named_parameters() if not p.requires_grad],
        "buffer": {f: np.array(getattr(buf, f), copy=True) for f in _fields(buf)},
        "progress": float(model._current_progress_remaining),
        "n_updates": int(model._n_updates),
        "seed": int(seed),
    }


def run_request(model: Any, request: dict[str, Any]) -> dict[str, Any]:
    """Run one update request on ``model`` (the worker's, or the training process's own when
    a checkpoint's pending request is finished without a worker): load its weights, optimizer
    state, teacher, frozen parameters and buffer, seed numpy's global generator (the shuffle),
    run ``model.train()`` and return the result :func:`apply_result` puts back."""
    t, c = time.perf_counter(), time.process_time()
    policy = model.policy
    policy.load_state_dict(request["policy"], strict=True)  # (copies into the parameters)
    # a copy: the optimizer keeps the tensors it is given and Adam updates them in place, and
    # a request sent to the worker shares its tensors' memory with the training process's
    # `pending` copy (torch pickles tensors for multiprocessing through shared memory); without
    # it the worker wrote the update's result into the request a checkpoint keeps, and a run
    # resumed from that checkpoint applied the update's Adam moments twice
    policy.optimizer.load_state_dict(copy.deepcopy(request["optimizer"]))
    if request["teacher"] is None:
        model.teacher = None
    else:
        model.load_teacher_state_dict(request["teacher"])
    frozen = set(request["frozen"])
    for name, p in policy.named_parameters():
        p.requires_grad_(name not in frozen)
    buf = model.rollout_buffer
    buf.reset()
    for f in _fields(buf):
        getattr(buf, f)[...] = request["buffer"][f]
    buf.pos, buf.full = buf.buffer_size, True
    model._current_progress_remaining = request["progress"]
    model._n_updates = request["n_updates"]
    np.random.seed(request["seed"])
    logger = model.logger
    for d in (logger.name_to_value, logger.name_to_count, logger.name_to_excluded):
        d.clear()
    model.train_in_process()
    return {"policy": copy.deepcopy(policy.state_dict()),
            "optimizer": copy.deepcopy(policy.optimizer.state_dict()),
            "n_updates": int(model._n_updates),
            "log": dict(logger.name_to_value),
            "busy": time.perf_counter() - t, "cpu": time.process_time() - c}


def apply_result(model: Any, result: dict[str, Any]) -> None:
    """Put an update's result into ``model``: its policy and optimizer state, the update
    counter, and the ``train/*`` values in its logger."""
    model.policy.load_state_dict(result["policy"], strict=True)
    model.policy.optimizer.load_state_dict(result["optimizer"])
    model._n_updates = result["n_updates"]
    if "_logger" not in vars(model):  # (a resumed run that only finishes never set one up)
        return
    for key, value in result["log"].items():
        model.logger.record(key, value,
                            exclude="tensorboard" if key == "train/n_updates" else None)


def _serve(request: dict[str, Any]) -> dict[str, Any]:
    """The worker's task: build the model at the first request, then run ``request``."""
    if "model" not in _WORKER:
        _WORKER["model"] = _build(_SPEC)
    return run_request(_WORKER["model"], request)


class UpdateWorker:
    """The PPO update of ``model`` in one worker process, one rollout behind the envs (see the
    module docstring). :meth:`exchange` is what ``model.train()`` does with a worker: wait for
    the update in flight and put its result into ``model``, then submit the rollout just
    collected. :meth:`finish` waits for the last one. ``busy_seconds`` and ``cpu_seconds``
    add up the worker's time inside updates, ``wait_seconds`` the training process's time
    waiting for them.

    Raises (from :meth:`exchange`, :meth:`finish`):
        envs.core.workers.WorkerDiedError: the worker process died (killed, out of memory).
    """

    def __init__(self, model: Any):
        self.spec = _spec(model)
        self._pool_cm: Any = None
        self._pool: Any = None
        self._future: Any = None
        #: the request in flight (None when none is): what a checkpoint keeps
        self.pending: dict[str, Any] | None = None
        self.busy_seconds = 0.0
        self.cpu_seconds = 0.0
        self.wait_seconds = 0.0
        self.updates = 0

    def _start(self) -> None:
        from envs.core.workers import worker_pool

        from .selection import _init_background

        self._pool_cm = worker_pool(1, _init_background, (os.getpid(),), grace=0)
        self._pool = self._pool_cm.__enter__()

    def submit(self, request: dict[str, Any]) -> None:
        """Send ``request`` (nothing may be in flight)."""
        from envs.core.workers import submit

        first = self._pool is None
        if first:
            self._start()
            _SPEC.update(self.spec)
        try:  # the worker is forked at the first submit, inheriting _SPEC
            self._future = submit(self._pool, UPDATE_WORK, _serve, request)
        finally:
            if first:
                _SPEC.clear()
        self.pending = request

    def finish(self, model: Any) -> None:
        """Wait for the update in flight (if any) and put its result into ``model``."""
        from envs.core.workers import result_of

        if self._future is None:
            return
        t = time.perf_counter()
        result = result_of(self._future, UPDATE_WORK)
        self.wait_seconds += time.perf_counter() - t
        self._future, self.pending = None, None
        apply_result(model, result)
        self.busy_seconds += result["busy"]
        self.cpu_seconds += result["cpu"]
        self.updates += 1

    def exchange(self, model: Any) -> None:
        """``model.train()`` with a worker: :meth:`finish` the update in flight, then submit
        the rollout now in ``model.rollout_buffer`` (its shuffle seed drawn from numpy's global
        generator, which the run's checkpoints save)."""
        self.finish(model)
        self.submit(_request(model, np.random.randint(2**31 - 1)))

    def close(self) -> None:
        """Kill the worker (an update in flight is dropped); safe to call twice."""
        if self._pool_cm is not None:
            cm, self._pool_cm, self._pool, self._future = self._pool_cm, None, None, None
            cm.__exit__(None, None, None)
