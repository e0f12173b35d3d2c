"""Pipelined PPO updates (agents/training/pipelined.py): the worker's update is the in-process
update bit for bit (frozen parameters and teacher included), a pipelined learn() ends with every
update applied, a checkpoint keeps the update in flight and a run without pipelining
finishes it, and a dead worker is reported as such."""

from __future__ import annotations

import os
import pickle
import signal
import zipfile

import numpy as np
import pytest
import torch

import tests.conftest  # noqa: F401  (registers the toy ruleset)
from agents.training.teacher_kl import TeacherKLMaskablePPO


def _learner(seed=0, coef=0.5):
    from agents.training.vec_env import make_vec_env

    torch.set_num_threads(1)
    torch.manual_seed(seed)
    venv = make_vec_env("toy", None, None, 2)
    return TeacherKLMaskablePPO("MlpPolicy", venv, teacher_kl_coef=coef, n_steps=32,
                                batch_size=16, n_epochs=3, learning_rate=1e-3, seed=seed,
                                policy_kwargs={"net_arch": [16]}, device="cpu", verbose=0)


def _rollout(model):
    _, cb = model._setup_learn(64, callback=None)
    cb.init_callback(model)
    assert model.collect_rollouts(model.env, cb, model.rollout_buffer, model.n_steps)


def _state(model):
    return {k: v.detach().clone() for k, v in model.policy.state_dict().items()}


def _same(a, b):
    return a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)


@pytest.mark.slow
def test_worker_update_is_the_in_process_update():
    from agents.training.selection import global_generators_kept
    from agents.training.finetune import actor_parameters
    from agents.training.pipelined import UpdateWorker, _request, run_request

    model = _learner()
    model.set_teacher()
    _rollout(model)
    frozen = {id(p) for p in actor_parameters(model.policy)}
    for p in model.policy.parameters():  # the critic warm-up: only the critic learns
        p.requires_grad_(id(p) not in frozen)
    request = _request(model, seed=123)
    before = _state(model)

    with global_generators_kept():
        local = run_request(model, request)
    in_process = _state(model)
    assert not _same(before, in_process)  # the critic moved ...
    names = {n for n, p in model.policy.named_parameters() if id(p) in frozen}
    assert names and all(torch.equal(before[n], in_process[n]) for n in names)  # ... the actor not
    assert local["n_updates"] == 3 and local["log"]["train/teacher_kl"] >= 0.0

    model.policy.load_state_dict(before)
    worker = UpdateWorker(model)
    try:
        worker.submit(request)
        assert worker.pending is request
        worker.finish(model)
    finally:
        worker.close()
    assert worker.pending is None and worker.updates == 1 and worker.busy_seconds > 0
    assert _same(_state(model), in_process)
    assert model._n_updates == 3
    opt_local = local["optimizer"]["state"]
    opt_worker = model.policy.optimizer.state_dict()["state"]
    assert opt_local.keys() == opt_worker.keys()
    assert all(torch.equal(opt_local[k]["exp_avg"], opt_worker[k]["exp_avg"]) for k in opt_local)


def _optimizer_equal(a, b):
    return a["state"].keys() == b["state"].keys() and all(
        torch.equal(a["state"][k][n], b["state"][k][n])
        for k in a["state"] for n in a["state"][k])


@pytest.mark.slow
def test_an_update_leaves_its_request_as_it_was():
    """The worker's update does not write into the request the training process keeps for a
    checkpoint (torch shares a sent tensor's memory with the sender, and the optimizer updated
    the request's Adam moments in place: a run resumed from a checkpoint taken while an update
    ran applied that update's moments twice); nor does an update run in this process."""
    import copy

    from agents.training.selection import global_generators_kept
    from agents.training.pipelined import UpdateWorker, _request, run_request

    model = _learner()
    _rollout(model)
    with global_generators_kept():
        model.train_in_process()  # Adam has moments now: the request carries them
    _rollout(model)
    request = _request(model, seed=7)
    kept = copy.deepcopy(request)
    assert kept["optimizer"]["state"]  # (a request with moments to overwrite)
    worker = UpdateWorker(model)
    try:
        worker.submit(request)
        worker.finish(model)
    finally:
        worker.close()
    assert _optimizer_equal(request["optimizer"], kept["optimizer"])
    assert not _optimizer_equal(model.policy.optimizer.state_dict(), kept["optimizer"])
    with global_generators_kept():
        run_request(model, request)
    assert _optimizer_equal(request["optimizer"], kept["optimizer"])


@pytest.mark.slow
def test_pipelined_learn_applies_every_update_one_rollout_late():
    model = _learner(coef=0.0)
    start = _state(model)
    worker = model.start_pipelined_updates()
    try:
        model.learn(4 * 64)  # four rollouts of 2 envs x 32 steps
    finally:
        model.stop_pipelined_updates()
    assert worker.updates == 4 and worker.pending is None
    assert model._n_updates == 4 * 3
    assert not _same(start, _state(model))
    assert model.update_worker is None

    # the same run without the worker applies each update before the next rollout: the two
    # learners part ways (the pipelined one collected its second rollout with the first weights)
    sync = _learner(coef=0.0)
    sync.learn(4 * 64)
    assert not _same(_state(sync), _state(model))


def test_a_dead_update_worker_is_named():
    from agents.training.pipelined import UPDATE_WORK, UpdateWorker, _request
    from envs.core.workers import WorkerDiedError

    model = _learner()
    _rollout(model)
    worker = UpdateWorker(model)
    try:
        worker.submit(_request(model, seed=1))
        worker.finish(model)  # the worker is up
        worker.submit(_request(model, seed=2))
        (pid,) = list(worker._pool._processes)
        os.kill(pid, signal.SIGKILL)
        with pytest.raises(WorkerDiedError) as info:
            worker.finish(model)
        assert info.value.what == UPDATE_WORK
    finally:
        worker.close()


@pytest.mark.slow
def test_checkpoint_keeps_the_update_in_flight_and_a_sync_resume_finishes_it(tmp_path):
    from tests.test_resume import _train
    from tests.test_scripts import TOY_POOL

    run_dir = tmp_path / "run"
    common = ["--ruleset", "toy", "--seed", "3", "--run-dir", str(run_dir),
              "--n-envs", "1", "--n-steps", "64", "--batch-size", "32", "--n-epochs", "2",
              "--net-arch", "32", "--checkpoint-freq", "128", "--snapshot-freq", "128",
              "--eval-freq", "0", "--eval-games", "0", "--critic-warmup", "0",
              "--no-progress-bar", "--no-tensorboard", *TOY_POOL]
    r = _train("--total-timesteps", "192", "--pipelined-updates", *common)
    assert r.returncode == 0, r.stderr
    assert "pipelined PPO updates: the update worker ran 3 updates" in r.stdout, r.stdout
    metrics = __import__("json").loads((run_dir / "metrics.json").read_text())
    assert metrics["pipelined_updates"] is True and 0.0 <= metrics["learner_wait_share"] <= 1.0

    from agents.training.resume import RESUME_MEMBER

    ckpt = run_dir / "checkpoints" / "ckpt_0000000128.zip"
    with zipfile.ZipFile(ckpt) as zf:
        blob = zf.read(RESUME_MEMBER)

    class Loose(pickle.Unpickler):  # only to look inside (games are persistent ids)
        def persistent_load(self, pid):
            return None

    import io

    state = Loose(io.BytesIO(blob)).load()
    request = state["pipeline"]
    assert request is not None  # rollout 2's update was in flight at the boundary of 128
    assert request["buffer"]["observations"].shape[0] == 64
    assert request["n_updates"] == 2  # the first update (2 epochs) was applied

    # resume from 128 without a worker: the update in flight runs here first
    for p in (run_dir / "checkpoints").glob("ckpt_0000000192.zip"):
        p.unlink()
    r = _train("--total-timesteps", "256", "--resume", "--no-pipelined-updates", *common)
    assert r.returncode == 0, r.stderr
    assert "resuming from" in r.stdout and "pipelined PPO updates" not in r.stdout
    assert (run_dir / "final_model.zip").is_file()
    assert np.isfinite(__import__("json").loads(
        (run_dir / "metrics.json").read_text())["timesteps"])


def test_a_result_is_applied_to_a_model_without_a_logger():
    """A resumed run that only finishes (``train.py --resume`` at its last timesteps) waits for
    the update its checkpoint kept before ``learn`` ever set up a logger: the weights and the
    update counter are put in, the ``train/*`` values are dropped."""
    from agents.training.pipelined import apply_result

    source, model = _learner(seed=1), _learner(seed=2)
    assert "_logger" not in vars(model)
    apply_result(model, {"policy": source.policy.state_dict(),
                         "optimizer": source.policy.optimizer.state_dict(),
                         "n_updates": 7, "log": {"train/loss": 0.5}})
    assert _same(_state(model), _state(source)) and model._n_updates == 7
