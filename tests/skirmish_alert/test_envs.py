"""The skirmish alert environments: PettingZoo AEC (player_0 … player_{n-1}) under api_test and
seed_test for 2 and 4 teams; the Gymnasium env riposte/SkirmishAlert-v0 (one learner, n − 1
opponents, each drawn from a pool) under both check_envs."""

from __future__ import annotations

import warnings

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, seed_test
from stable_baselines3.common.env_checker import check_env as sb3_check_env

import envs.skirmish_alert_v0 as skirmish_alert_v0
from envs.adapters.registration import GYM_SKIRMISH_ID, PZ_SKIRMISH_ID, register_envs


@pytest.mark.parametrize("scenario,n", [("default", 2), ("ffa4", 4)])
def test_aec_api_and_seed_test(scenario: str, n: int) -> None:
    env = skirmish_alert_v0.env(scenario=scenario)
    assert env.possible_agents == [f"player_{i}" for i in range(n)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # api_test warns about all-zero off-turn masks by design
        api_test(env, num_cycles=20)
        api_test(skirmish_alert_v0.env(scenario=scenario, randomize_seats=True), num_cycles=20)
    seed_test(lambda: skirmish_alert_v0.env(scenario=scenario, randomize_seats=True),
              num_cycles=20)


def test_aec_never_asks_with_an_empty_mask_and_returns_sum_to_zero() -> None:
    env = skirmish_alert_v0.env(scenario="ffa4", params={"rounds": 2})
    rng = np.random.default_rng(0)
    for seed in range(2):
        env.reset(seed=seed)
        total = {a: 0.0 for a in env.possible_agents}
        for agent in env.agent_iter():
            obs, r, term, trunc, _ = env.last()
            total[agent] += r
            if term or trunc:
                env.step(None)
                continue
            mask = obs["action_mask"]
            assert mask.any()
            env.step(int(rng.choice(np.flatnonzero(mask))))
        assert abs(sum(total.values())) < 1e-9


@pytest.mark.slow
@pytest.mark.parametrize("scenario", ["default", "ffa4"])
def test_gymnasium_env_passes_both_checkers(scenario: str) -> None:
    register_envs()
    assert GYM_SKIRMISH_ID in gym.registry
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_env(gym.make(GYM_SKIRMISH_ID, scenario=scenario).unwrapped)
        sb3_check_env(gym.make(GYM_SKIRMISH_ID, scenario=scenario).unwrapped)


class _Named:
    def __init__(self, name: str, pick: int):
        self.name, self.pick, self.calls = name, pick, 0

    def __call__(self, obs, mask):
        self.calls += 1
        legal = np.flatnonzero(mask)
        return int(legal[0] if self.pick == 0 else legal[-1])


class _Pool:
    """A pool that hands out a fresh opponent per draw."""

    def __init__(self):
        self.drawn: list[_Named] = []

    def sample_opponent(self, rng):
        o = _Named(f"opp{len(self.drawn)}", len(self.drawn) % 2)
        self.drawn.append(o)
        return o


def test_four_teams_seat_one_learner_and_three_pool_opponents() -> None:
    pool = _Pool()
    env = gym.make(GYM_SKIRMISH_ID, scenario="ffa4", seat=0, opponent=pool,
                   params={"rounds": 1}).unwrapped
    obs, info = env.reset(seed=0)
    assert len(pool.drawn) == 3
    assert info["opponents"] == {1: "opp0", 2: "opp1", 3: "opp2"}
    done = False
    while not done:
        legal = np.flatnonzero(env.action_masks())
        obs, r, term, trunc, info = env.step(int(legal[0]))
        done = term or trunc
    assert all(o.calls > 0 for o in pool.drawn)  # every seat had its own policy
    assert abs(sum(info["returns"])) < 1e-9


def test_pettingzoo_registration() -> None:
    import pettingzoo

    register_envs()
    registry = getattr(pettingzoo, "aec_registry", None)
    if registry is None:
        pytest.skip("this PettingZoo has no registry")
    assert PZ_SKIRMISH_ID in registry
