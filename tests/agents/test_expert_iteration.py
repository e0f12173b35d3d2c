"""Expert iteration (agents/training/expert_iteration.py): the searched rollouts (targets, played
actions, behaviour log-probabilities), the cross-entropy term (PPO's update at weight 0, lower
cross-entropy after an update), reproducibility, the flags of train.py, and a pipelined run
resumed from a checkpoint that ends as the same run uninterrupted."""

from __future__ import annotations

import math
import subprocess
import sys

import numpy as np
import pytest
import torch

import tests.conftest  # noqa: F401  (registers the toy ruleset)
from agents.training.expert_iteration import (ExpertIterationMaskablePPO, SearchRolloutBuffer,
                                              search_ce)


def _learner(seed=0, lr=3e-4, **search):
    from agents.training.vec_env import make_vec_env

    torch.set_num_threads(1)
    venv = make_vec_env("toy", None, None, 2)
    return ExpertIterationMaskablePPO(
        "MlpPolicy", venv, n_steps=32, batch_size=16, n_epochs=2, learning_rate=lr, seed=seed,
        policy_kwargs={"net_arch": [16]}, device="cpu", verbose=0, **search)


def _collect(model):
    """One rollout into the model's buffer (the buffer keeps its (n_steps, n_envs) shape)."""
    _, cb = model._setup_learn(64, callback=None)
    cb.init_callback(model)
    model.collect_rollouts(model.env, cb, model.rollout_buffer, model.n_steps)
    return model.rollout_buffer


def _weights(model):
    return {k: v.detach().clone() for k, v in model.policy.state_dict().items()}


def _mean_ce(model, buf) -> float:
    """The mean cross-entropy of the policy to the targets over the buffer's searched rows."""
    from agents.training.teacher_kl import _logits

    rows = buf.searched.reshape(-1) > 0.5
    obs = torch.as_tensor(buf.observations.reshape(len(rows), -1)[rows])
    masks = torch.as_tensor(buf.action_masks.reshape(len(rows), -1)[rows])
    targets = torch.as_tensor(buf.search_targets.reshape(len(rows), -1)[rows])
    with torch.no_grad():
        return float(search_ce(targets, _logits(model.policy, obs), masks).mean())


def test_search_ce_by_hand():
    targets = torch.tensor([[0.25, 0.75, 0.0], [1.0, 0.0, 0.0]])
    logits = torch.tensor([[0.0, 0.0, 9.0], [math.log(3.0), 0.0, 0.0]])
    masks = torch.tensor([[True, True, False], [True, True, True]])
    got = search_ce(targets, logits, masks)
    # row 0: the policy is (1/2, 1/2) over the legal pair (the masked logit is ignored);
    # row 1: the policy gives the target's action 3/5
    assert got.tolist() == pytest.approx([math.log(2.0), -math.log(0.6)], rel=1e-6)


def test_no_simulations_or_no_fraction_searches_nothing_and_plays_as_ppo():
    from agents.training.teacher_kl import TeacherKLMaskablePPO
    from agents.training.vec_env import make_vec_env

    plain = TeacherKLMaskablePPO(
        "MlpPolicy", make_vec_env("toy", None, None, 2), n_steps=32, batch_size=16, n_epochs=2,
        seed=0, policy_kwargs={"net_arch": [16]}, device="cpu", verbose=0)
    want = _collect(plain).actions.copy()
    for search in (dict(search_simulations=0, search_fraction=1.0),
                   dict(search_simulations=4, search_fraction=0.0)):
        model = _learner(**search)
        buf = _collect(model)
        assert isinstance(buf, SearchRolloutBuffer)
        assert model.searched_decisions == 0 and not buf.searched.any()
        assert not buf.search_targets.any()
        assert np.array_equal(buf.actions, want)


def test_searched_rows_hold_the_search_targets_and_play_the_search_action(monkeypatch):
    from agents.search import GumbelSearch

    results = []
    run = GumbelSearch.run

    def recorded(self, state, rng):
        results.append(run(self, state, rng))
        return results[-1]

    monkeypatch.setattr(GumbelSearch, "run", recorded)
    model = _learner(search_simulations=4, search_fraction=0.5)
    buf = _collect(model)
    rows = [(t, i) for t in range(buf.buffer_size) for i in range(buf.n_envs)
            if buf.searched[t, i]]
    # a random half of the decisions with a choice (the toy game has some with one action)
    assert 0 < len(rows) == len(results) == model.searched_decisions < 64
    for (t, i), result in zip(rows, results):
        target, legal = buf.search_targets[t, i], buf.action_masks[t, i] > 0
        assert legal.sum() >= 2 and result.searched
        assert target.sum() == pytest.approx(1.0, abs=1e-6)
        assert (target[~legal] == 0).all() and np.array_equal(target, result.improved_policy)
        assert int(buf.actions[t, i, 0]) == result.action
        assert buf.log_probs[t, i] == pytest.approx(math.log(target[result.action]), abs=1e-6)
    unsearched = buf.searched == 0
    assert not buf.search_targets[unsearched].any()


def test_weight_zero_is_maskableppo_update_on_the_same_rollout():
    from sb3_contrib import MaskablePPO

    from agents.training.pipelined import BUFFER_FIELDS

    model = _learner(search_simulations=4, search_fraction=0.5, search_coef=0.0)
    buf = _collect(model)
    plain = MaskablePPO("MlpPolicy", model.env, n_steps=32, batch_size=16, n_epochs=2,
                        seed=0, policy_kwargs={"net_arch": [16]}, device="cpu", verbose=0)
    plain.policy.load_state_dict(model.policy.state_dict())
    plain.rollout_buffer.reset()
    for f in BUFFER_FIELDS:
        getattr(plain.rollout_buffer, f)[...] = getattr(buf, f)
    plain.rollout_buffer.full = True
    from agents.policies.ppo import quiet_logger

    plain.set_logger(quiet_logger())
    for m in (model, plain):
        m._current_progress_remaining = 1.0
        np.random.seed(7)  # the same minibatch shuffles
        m.train_in_process() if m is model else m.train()
    a, b = _weights(model), _weights(plain)
    assert all(torch.equal(a[k], b[k]) for k in a)


def test_one_update_lowers_the_cross_entropy_to_the_search():
    """On the same searched rollout, one update with the term brings the policy nearer the
    search's targets (KL = cross-entropy - the targets' entropy) than PPO's update alone."""
    kl = {}
    for coef in (0.0, 5.0):
        model = _learner(lr=1e-2, search_simulations=4, search_fraction=0.5, search_coef=coef)
        model.n_epochs = 8
        buf = _collect(model)
        rows = buf.searched.reshape(-1) > 0.5
        t = buf.search_targets.reshape(len(rows), -1)[rows]
        entropy = float(np.mean(-np.where(t > 0, t * np.log(np.maximum(t, 1e-12)), 0).sum(-1)))
        before = _mean_ce(model, buf) - entropy
        model._current_progress_remaining = 1.0
        np.random.seed(7)
        model.train_in_process()
        kl[coef] = _mean_ce(model, buf) - entropy
        assert ("train/search_ce" in model.logger.name_to_value) == (coef > 0)
    assert before > 0.05 and kl[5.0] < 0.7 * before and kl[5.0] < 0.85 * kl[0.0], (before, kl)


def test_the_same_seed_gives_the_same_run():
    runs = []
    for _ in range(2):
        model = _learner(search_simulations=4, search_fraction=0.5)
        model.learn(128)
        runs.append((_weights(model), model.rollout_buffer.search_targets.copy(),
                     model.searched_decisions))
    (w0, t0, n0), (w1, t1, n1) = runs
    assert n0 == n1 > 0 and np.array_equal(t0, t1)
    assert all(torch.equal(w0[k], w1[k]) for k in w0)


def test_settings_out_of_range_are_refused():
    for kw, message in ((dict(search_simulations=-1), "search_simulations must be"),
                        (dict(search_fraction=1.5), "search_fraction must be in"),
                        (dict(search_coef=math.nan), "search_coef must be")):
        with pytest.raises(ValueError, match=message):
            _learner(**kw)


@pytest.mark.parametrize("args, message", [
    (["--expert-iteration-sims", "-1"], "--expert-iteration-sims must be >= 0"),
    (["--expert-iteration-sims", "8", "--search-fraction", "1.5"],
     "--search-fraction must be in [0, 1]"),
    (["--search-coef", "inf"], "--search-coef must be a finite number >= 0"),
    (["--expert-iteration-sims", "8", "--vec-env", "subproc"],
     "--expert-iteration-sims needs --vec-env dummy"),
    (["--expert-iteration-sims", "8", "--backend", "rllib"],
     "--expert-iteration-sims is an option of the sb3 backend"),
])
def test_bad_flags_are_one_error_line(tmp_path, capsys, args, message):
    from agents.training.train_cli import parse_args

    with pytest.raises(SystemExit) as exc:
        parse_args(["--ruleset", "toy", "--run-dir", str(tmp_path / "r"), *args])
    assert exc.value.code == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and message in lines[0], lines


@pytest.mark.slow
def test_pipelined_run_resumed_continues_as_expert_iteration(tmp_path):
    """train.py with expert iteration and pipelined updates (the ACW preset's), stopped at a
    checkpoint and resumed: the same weights and the same searched decisions as the run
    uninterrupted; the resumed model is an expert-iteration learner."""
    from tests.test_scripts import LAUNCH, ROOT, TOY_POOL

    common = ["--ruleset", "toy", "--seed", "4", "--n-envs", "2", "--n-steps", "64",
              "--batch-size", "64", "--n-epochs", "2", "--net-arch", "32", "--eval-games", "4",
              "--eval-extra-games", "4", "--critic-warmup", "256", "--eval-freq", "256",
              "--checkpoint-freq", "256", "--snapshot-freq", "128", "--torch-threads", "1",
              "--no-progress-bar", "--no-tensorboard", "--expert-iteration-sims", "4",
              "--search-fraction", "0.5", "--pipelined-updates", *TOY_POOL]

    def train(*args):
        r = subprocess.run([sys.executable, "-c", LAUNCH, "train.py", *common, *args],
                           cwd=ROOT, capture_output=True, text=True, timeout=600)
        assert r.returncode == 0, r.stderr

    train("--total-timesteps", "1280", "--run-dir", str(tmp_path / "whole"))
    train("--total-timesteps", "768", "--run-dir", str(tmp_path / "half"))
    train("--total-timesteps", "1280", "--run-dir", str(tmp_path / "half"), "--resume")
    a, b = (ExpertIterationMaskablePPO.load(tmp_path / d / "final_model.zip", device="cpu")
            for d in ("whole", "half"))
    assert b.search_simulations == 4
    assert a.searched_decisions == b.searched_decisions > 0
    wa, wb = _weights(a), _weights(b)
    assert all(torch.allclose(wa[k], wb[k], atol=1e-5) for k in wa)
