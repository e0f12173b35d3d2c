"""Behaviour-cloning warm start: demonstrations are the teacher's legal choices with discounted
final results, and pre-training fits a deterministic teacher exactly."""

from __future__ import annotations

import numpy as np
import pytest

from agents import RandomPolicy
from agents.training.bc import collect_demonstrations, pretrain
from agents.policies.base import BasePolicy, legal_ids

from .test_policies import toy_game  # noqa: F401 (fixture)


class FirstLegal(BasePolicy):
    """Deterministic teacher: the lowest legal id (attack, or dodge in a reaction window)."""

    name = "first-legal"

    def act(self, observation, action_mask):
        return int(legal_ids(action_mask)[0])


def test_demonstrations_record_the_teacher(toy_game):
    teacher = FirstLegal()
    data = collect_demonstrations(toy_game, teacher, [teacher, RandomPolicy(0)], n_games=6,
                                  seed=0, gamma=0.9)
    assert data.games == 6 and len(data) > 20
    assert data.obs.shape == (len(data), toy_game.observation_size)
    assert data.masks[np.arange(len(data)), data.actions].all()
    labels = {toy_game.actions.labels[a] for a in data.actions}
    assert labels == {"attack", "react:dodge"}
    assert np.all(np.abs(data.returns) <= 1.0)
    # the teacher's last decision in a decided game carries the undiscounted result
    assert set(np.round(np.abs(data.returns), 6)) & {1.0}
    assert len(collect_demonstrations(toy_game, teacher, [RandomPolicy(1)], 3, seed=0)) < len(
        collect_demonstrations(toy_game, teacher, [teacher], 3, seed=0))  # both sides recorded


@pytest.mark.slow
def test_pretrain_fits_a_deterministic_teacher(toy_game):
    from sb3_contrib import MaskablePPO

    from envs.adapters.single_agent import RiposteGymEnv

    teacher = FirstLegal()
    data = collect_demonstrations(toy_game, teacher, [RandomPolicy(0)], n_games=8, seed=1)
    model = MaskablePPO("MlpPolicy", RiposteGymEnv("toy"), n_steps=64, batch_size=32, seed=0,
                        device="cpu", policy_kwargs={"net_arch": [32]})
    stats = pretrain(model, data, epochs=40, batch_size=64, lr=1e-2)
    assert stats["samples"] == len(data) and stats["accuracy"] == pytest.approx(1.0)
    assert np.isfinite(stats["loss"])
