"""The Atomic Africa environments: PettingZoo AEC ``envs.atomic_africa_v0`` (api_test,
seed_test) and Gymnasium ``riposte/AtomicAfrica-v0`` (Gymnasium's and SB3's check_env,
``action_masks()``), both registered; ``decision_type`` in info."""

from __future__ import annotations

import warnings

import gymnasium as gym
import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

from envs import atomic_africa_v0
from envs.adapters.registration import GYM_AA_ID, PZ_AA_ID, register_envs


def test_pettingzoo_api_and_seed_tests() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # all-zero off-turn masks are by design
        api_test(atomic_africa_v0.env(scenario="duel", render_mode="ansi"), num_cycles=30)
        api_test(atomic_africa_v0.env(scenario="duel", randomize_seats=True), num_cycles=30)
        seed_test(lambda: atomic_africa_v0.env(scenario="duel", randomize_seats=True),
                  num_cycles=30)


def test_aec_infos_name_the_decision_type() -> None:
    env = atomic_africa_v0.env(scenario="reaction")
    env.reset(seed=4)
    seen = set()
    for agent in env.agent_iter():
        obs, _, term, trunc, info = env.last()
        if term or trunc:
            env.step(None)
            continue
        seen.add(info["decision_type"])
        assert np.array_equal(info["action_mask"], obs["action_mask"])
        env.step(int(np.flatnonzero(obs["action_mask"])[0]))
    assert {"orders", "activation", "maneuver", "fire", "reserve_play"} <= seen
    raw = atomic_africa_v0.raw_env()
    assert raw.metadata["name"] == "atomic_africa_v0"


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore:.*Box observation space (minimum|maximum) value")
@pytest.mark.filterwarnings("ignore:illegal action ends the episode")
def test_gymnasium_and_sb3_check_env() -> None:
    from gymnasium.utils.env_checker import check_env
    from stable_baselines3.common.env_checker import check_env as sb3_check_env

    register_envs()
    assert gym.registry[GYM_AA_ID].kwargs["ruleset"] == "atomic_africa"
    check_env(gym.make(GYM_AA_ID, scenario="duel").unwrapped)
    sb3_check_env(gym.make(GYM_AA_ID, scenario="duel").unwrapped)
    check_env(gym.make(GYM_AA_ID).unwrapped)


def test_gym_env_action_masks_and_decision_type() -> None:
    register_envs()
    env = gym.make(GYM_AA_ID, scenario="duel", illegal_action="raise").unwrapped
    obs, info = env.reset(seed=1)
    assert obs.shape == (869,) and "decision_type" in info
    steps = 0
    while True:
        m = env.action_masks()
        assert m.shape == (104,) and m.any()
        obs, r, term, trunc, info = env.step(int(np.flatnonzero(m)[-1]))
        steps += 1
        if term or trunc:
            break
    assert steps > 5 and r in (-1.0, 0.0, 1.0)


def test_pettingzoo_registry() -> None:
    import pettingzoo

    register_envs()
    reg = getattr(pettingzoo, "aec_registry", None)
    if reg is None:
        pytest.skip("this PettingZoo has no registry")
    assert reg[PZ_AA_ID].entry_point == "envs.atomic_africa_v0:env"
