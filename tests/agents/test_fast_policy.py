"""agents.policies.fast_policy: the rollout forward pass without distribution objects gives bitwise
the actions, values and log-probabilities of MaskableActorCriticPolicy.forward, draws the same
numbers from torch's generator, and leaves a short training run's weights unchanged."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

from agents.policies.fast_policy import install_fast_forward, masked_forward, supports_fast_forward
from agents.training.vec_env import make_vec_env


def _model(seed: int = 0, net=(64, 64)):
    venv = make_vec_env("toy", None, None, 2)
    return MaskablePPO("MlpPolicy", venv, n_steps=32, batch_size=32, n_epochs=2, seed=seed,
                       policy_kwargs={"net_arch": list(net)}, device="cpu", verbose=0)


@pytest.mark.slow
@pytest.mark.parametrize("deterministic", [False, True])
def test_masked_forward_equals_the_policy_forward_bitwise(deterministic):
    model = _model()
    policy = model.policy
    n = model.action_space.n
    rng = np.random.default_rng(3)
    obs = torch.as_tensor(rng.normal(size=(16, model.observation_space.shape[0]))
                          .astype(np.float32))
    masks = rng.random((16, n)) < 0.5
    masks[np.arange(16), rng.integers(n, size=16)] = True  # at least one legal id per row
    masks[0] = False
    masks[0, n - 1] = True  # a single legal action
    for m in (masks, None):
        torch.manual_seed(7)
        with torch.no_grad():
            ref = MaskableActorCriticPolicy.forward(policy, obs, deterministic=deterministic,
                                                    action_masks=m)
        after_ref = torch.random.get_rng_state()
        torch.manual_seed(7)
        with torch.no_grad():
            got = masked_forward(policy, obs, deterministic=deterministic, action_masks=m)
        assert torch.equal(torch.random.get_rng_state(), after_ref)
        for a, b in zip(got, ref):
            assert a.dtype == b.dtype and a.shape == b.shape
            assert a.numpy().tobytes() == b.numpy().tobytes()
        if m is not None:
            assert masks[np.arange(16), got[0].numpy()].all()
            assert int(got[0][0]) == n - 1


def test_install_only_on_the_architecture_it_reproduces():
    model = _model()
    assert supports_fast_forward(model.policy)
    assert install_fast_forward(model.policy)
    assert model.policy.forward.__func__ is masked_forward
    assert type(model.policy).forward is MaskableActorCriticPolicy.forward  # class untouched

    class Other(MaskableActorCriticPolicy):
        def forward(self, obs, deterministic=False, action_masks=None):
            return super().forward(obs, deterministic, action_masks)

    venv = make_vec_env("toy", None, None, 1)
    other = MaskablePPO(Other, venv, n_steps=16, batch_size=16, device="cpu")
    assert not supports_fast_forward(other.policy)
    assert not install_fast_forward(other.policy)
    assert "forward" not in vars(other.policy)


@pytest.mark.slow
def test_training_with_the_fast_forward_ends_with_the_same_weights():
    def weights(fast: bool):
        torch.manual_seed(0)
        model = _model(seed=0)
        if fast:
            assert install_fast_forward(model.policy)
        model.learn(total_timesteps=256)
        return {k: v.clone() for k, v in model.policy.state_dict().items()}, model.num_timesteps

    (ref, n_ref), (got, n_got) = weights(False), weights(True)
    assert n_ref == n_got == 256
    assert ref.keys() == got.keys()
    moved = False
    for k in ref:
        assert torch.equal(ref[k], got[k]), k
    first = _model(seed=0).policy.state_dict()
    moved = any(not torch.equal(first[k], ref[k]) for k in ref)
    assert moved  # the run did update the weights
