"""Critic warm-up: while it lasts, PPO updates change the critic and leave the actor exactly as it
was; after it, both learn."""

from __future__ import annotations

import torch

from agents.training.finetune import CriticWarmupCallback, actor_parameters

from .test_policies import toy_game  # noqa: F401 (fixture)


def _model(seed: int = 0):
    from sb3_contrib import MaskablePPO

    from envs.adapters.single_agent import RiposteGymEnv

    return MaskablePPO("MlpPolicy", RiposteGymEnv("toy"), n_steps=64, batch_size=32, n_epochs=2,
                       learning_rate=1e-2, seed=seed, device="cpu",
                       policy_kwargs={"net_arch": [16]})


def _copy(params):
    return [p.detach().clone() for p in params]


def _changed(before, params) -> bool:
    return any(not torch.equal(b, p.detach()) for b, p in zip(before, params))


def test_actor_frozen_during_warmup_then_trained(toy_game):
    model = _model()
    actor = actor_parameters(model.policy)
    critic = list(model.policy.mlp_extractor.value_net.parameters()) + \
        list(model.policy.value_net.parameters())
    assert len(actor) == 4 and len(critic) == 4  # one hidden layer + head, weights and biases
    a0, c0 = _copy(actor), _copy(critic)
    warm = CriticWarmupCallback(128)
    model.learn(total_timesteps=128, callback=warm)  # two rollouts, both before 128
    assert warm.frozen_updates == 1  # the second rollout ends at 128: not before the warm-up end
    # the first update moved only the critic; the second (unfrozen) moved the actor as well
    assert _changed(c0, critic)
    assert all(p.requires_grad for p in actor)  # released at the end of training

    model2 = _model()
    actor2 = actor_parameters(model2.policy)
    critic2 = list(model2.policy.value_net.parameters())
    a2, c2 = _copy(actor2), _copy(critic2)
    warm2 = CriticWarmupCallback(10_000)
    model2.learn(total_timesteps=192, callback=warm2)
    assert warm2.frozen_updates == 3
    assert not _changed(a2, actor2)  # every update was frozen: the actor is bit-identical
    assert _changed(c2, critic2) and all(p.requires_grad for p in actor2)

    model3 = _model()
    a3 = _copy(actor_parameters(model3.policy))
    model3.learn(total_timesteps=128, callback=CriticWarmupCallback(0))
    assert _changed(a3, actor_parameters(model3.policy))  # no warm-up: the actor learns at once
    assert _changed(a0, actor)
