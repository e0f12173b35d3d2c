"""The teacher-KL learner (agents/training/teacher_kl.py): the KL term itself, exactly MaskablePPO
at weight 0, a leash that holds at a positive weight, and a teacher that is not in the zip."""

from __future__ import annotations

import math
import zipfile

import numpy as np
import pytest
import torch

import tests.conftest  # noqa: F401  (registers the toy ruleset)
from agents.training.teacher_kl import TeacherKLMaskablePPO, masked_kl


def test_masked_kl_by_hand():
    teacher = torch.tensor([[0.0, math.log(3.0), 5.0], [1.0, 1.0, 1.0]])
    policy = torch.tensor([[0.0, 0.0, -7.0], [2.0, 0.0, 0.0]])
    masks = torch.tensor([[True, True, False], [True, True, True]])
    got = masked_kl(teacher, policy, masks)
    # row 0: p = (1/4, 3/4) over the legal pair, q = (1/2, 1/2); the masked logit is ignored
    want0 = 0.25 * math.log(0.25 / 0.5) + 0.75 * math.log(0.75 / 0.5)
    q = np.exp([2.0, 0.0, 0.0]) / np.exp([2.0, 0.0, 0.0]).sum()
    want1 = sum((1 / 3) * math.log((1 / 3) / qi) for qi in q)
    assert got.tolist() == pytest.approx([want0, want1], rel=1e-6)
    assert masked_kl(policy, policy, masks).tolist() == pytest.approx([0.0, 0.0], abs=1e-7)


def _learner(cls, coef=None, lr=3e-4, seed=0):
    from sb3_contrib import MaskablePPO  # noqa: F401

    from agents.training.vec_env import make_vec_env

    torch.manual_seed(seed)
    venv = make_vec_env("toy", None, None, 2)
    kw = dict(n_steps=32, batch_size=16, n_epochs=2, learning_rate=lr, seed=seed,
              policy_kwargs={"net_arch": [16]}, device="cpu", verbose=0)
    if coef is not None:
        kw["teacher_kl_coef"] = coef
    return cls("MlpPolicy", venv, **kw)


def _weights(model):
    return {k: v.detach().clone() for k, v in model.policy.state_dict().items()}


@pytest.mark.slow
def test_weight_zero_trains_exactly_as_maskableppo():
    from sb3_contrib import MaskablePPO

    torch.set_num_threads(1)
    # one after the other: the constructor seeds torch's global generator, which rollouts use
    plain = _learner(MaskablePPO)
    plain.learn(128)
    leashed = _learner(TeacherKLMaskablePPO, coef=0.0)
    leashed.set_teacher()  # a teacher at weight 0 changes nothing
    leashed.learn(128)
    a, b = _weights(plain), _weights(leashed)
    assert a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)


def _kl_to(model, teacher_weights, obs, masks):
    teacher = _learner(TeacherKLMaskablePPO, coef=0.0)
    teacher.policy.load_state_dict(teacher_weights)
    from agents.training.teacher_kl import _logits

    with torch.no_grad():
        return float(masked_kl(_logits(teacher.policy, obs), _logits(model.policy, obs),
                               masks).mean())


@pytest.mark.slow
def test_positive_weight_keeps_the_policy_near_its_teacher():
    from envs import load_game

    torch.set_num_threads(1)
    start = _weights(_learner(TeacherKLMaskablePPO, coef=0.0, lr=3e-3))
    drifts = {}
    for coef in (0.0, 5.0):
        model = _learner(TeacherKLMaskablePPO, coef=coef, lr=3e-3)
        model.set_teacher()
        model.learn(512)
        game = load_game("toy")
        rng = np.random.default_rng(0)
        obs, masks = [], []
        state = game.new_initial_state()
        while not state.is_terminal() and len(obs) < 40:
            if state.is_chance_node():
                state.apply_action(state.chance_outcomes()[0][0])
                continue
            side = state.current_player()
            obs.append(game.observation(state, side))
            masks.append(state.legal_action_mask())
            state.apply_action(int(rng.choice(state.legal_actions())))
        drifts[coef] = _kl_to(model, start, torch.as_tensor(np.array(obs)),
                              torch.as_tensor(np.array(masks)))
    assert drifts[0.0] > 0.0
    assert drifts[5.0] < 0.5 * drifts[0.0], drifts


def test_teacher_is_not_saved_in_the_zip_and_comes_back_from_its_weights(tmp_path):
    torch.set_num_threads(1)
    model = _learner(TeacherKLMaskablePPO, coef=1.0)
    model.set_teacher()
    model.learn(64)
    path = tmp_path / "m.zip"
    model.save(path)
    with zipfile.ZipFile(path) as zf:
        assert "\"teacher\"" not in zf.read("data").decode()
    back = TeacherKLMaskablePPO.load(path, device="cpu")
    assert back.teacher is None and back.teacher_kl_coef == 1.0
    weights = model.teacher_state_dict()
    back.load_teacher_state_dict(weights)
    got = back.teacher_state_dict()
    assert all(torch.equal(got[k], weights[k]) for k in weights)
    assert not any(p.requires_grad for p in back.teacher.parameters())


def test_negative_weight_and_missing_teacher_are_refused():
    from sb3_contrib import MaskablePPO  # noqa: F401

    with pytest.raises(ValueError, match="teacher_kl_coef must be >= 0"):
        _learner(TeacherKLMaskablePPO, coef=-0.1)
    with pytest.raises(ValueError, match="no teacher set"):
        _learner(TeacherKLMaskablePPO, coef=1.0).teacher_state_dict()


def _value_loss(model):
    import torch.nn.functional as F

    whole = next(model.rollout_buffer.get(None))  # (the buffer as one batch)
    with torch.no_grad():
        values = model.policy.predict_values(whole.observations).flatten()
    return float(F.mse_loss(whole.returns, values))


def test_value_epochs_train_the_critic_alone_and_lower_its_loss():
    """PPG's critic-only phase: after the PPO epochs, ``value_epochs`` passes that move the
    critic's weights, leave the actor's as the PPO epochs left them, and fit the returns
    better than the update without them."""
    from agents.training.finetune import actor_parameters

    torch.set_num_threads(1)
    losses, weights = {}, {}
    for k in (0, 4):
        model = _learner(TeacherKLMaskablePPO, coef=0.0, lr=3e-3)
        model.value_epochs = k
        _, cb = model._setup_learn(64, callback=None)
        cb.init_callback(model)
        model.collect_rollouts(model.env, cb, model.rollout_buffer, model.n_steps)
        np.random.seed(7)  # the same minibatch shuffles in both
        model.train_in_process()
        losses[k] = _value_loss(model)
        actor = {id(p) for p in actor_parameters(model.policy)}
        weights[k] = {n: p.detach().clone() for n, p in model.policy.named_parameters()}
        names_actor = {n for n, p in model.policy.named_parameters() if id(p) in actor}
    assert names_actor
    same_actor = all(torch.equal(weights[0][n], weights[4][n]) for n in names_actor)
    moved_critic = any(not torch.equal(weights[0][n], weights[4][n])
                       for n in weights[0] if n not in names_actor)
    assert same_actor and moved_critic
    assert losses[4] < losses[0], losses


def test_value_epochs_are_kept_by_the_pipelined_worker_and_refused_below_zero():
    from agents.training.pipelined import _spec

    model = _learner(TeacherKLMaskablePPO, coef=0.0)
    assert model.value_epochs == 0 and _spec(model)["settings"]["value_epochs"] == 0
    model.value_epochs = 3
    assert _spec(model)["settings"]["value_epochs"] == 3
    with pytest.raises(ValueError, match="value_epochs must be >= 0"):
        TeacherKLMaskablePPO("MlpPolicy", model.env, value_epochs=-1, device="cpu")
