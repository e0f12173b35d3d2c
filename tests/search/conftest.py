"""Fixtures of the search tests: networks built directly on a game's spaces (no training),
with hand-set weights where a test needs a known prior."""

from __future__ import annotations

import numpy as np
import pytest

from envs.rulesets import REGISTRY

REGISTRY.setdefault("ambush", "tests.search.ambush:AmbushGame")


def network(game, seed: int = 0, net_arch=(16, 16)):
    """A randomly initialised ``MaskableActorCriticPolicy`` on ``game``'s spaces."""
    import torch
    from gymnasium import spaces
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    torch.manual_seed(seed)
    obs = spaces.Box(-np.inf, np.inf, (game.observation_size,), np.float32)
    policy = MaskableActorCriticPolicy(obs, spaces.Discrete(game.num_distinct_actions),
                                       lambda _: 0.0, net_arch=list(net_arch))
    policy.set_training_mode(False)
    return policy


def biased_network(game, favour: dict[str, float]):
    """A network whose logits are the constant ``favour[label]`` (0 for other actions) and
    whose value is 0 everywhere."""
    import torch

    policy = network(game)
    with torch.no_grad():
        policy.action_net.weight.zero_()
        policy.action_net.bias.zero_()
        for label, v in favour.items():
            policy.action_net.bias[game.actions.id(label)] = v
        policy.value_net.weight.zero_()
        policy.value_net.bias.zero_()
    return policy


@pytest.fixture
def ambush():
    from envs import load_game

    return load_game("ambush")
