"""The training VecEnv (agents.training.vec_env.RolloutVecEnv) steps exactly like sb3's DummyVecEnv
of the same envs: same observations, rewards, dones, masks and infos (less the label lists)."""

from __future__ import annotations

import numpy as np
import pytest
from sb3_contrib.common.maskable.utils import get_action_masks
from stable_baselines3.common.monitor import Monitor
from stable_baselines3.common.vec_env import DummyVecEnv

from agents import make_agent
from agents.training.vec_env import RolloutVecEnv, make_vec_env
from envs import load_game
from envs.adapters import RiposteGymEnv


def _run(venv, steps: int) -> list:
    venv.seed(4)
    out = [venv.reset().tobytes()]
    rng = np.random.default_rng(0)
    for _ in range(steps):
        masks = get_action_masks(venv)
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        obs, rew, done, infos = venv.step(actions)
        infos = [{k: (v.tobytes() if isinstance(v, np.ndarray) else v)
                  for k, v in i.items() if k not in ("legal_action_labels", "episode")}
                 for i in infos]
        out.append((masks.tobytes(), obs.tobytes(), rew.tolist(), done.tolist(), infos))
    return out


def test_rollout_vec_env_steps_like_dummy_vec_env():
    game = load_game("acw_regimental")

    def venv(cls, labels):
        opp = make_agent("heuristic", game, seed=2)
        return cls([lambda: Monitor(RiposteGymEnv(seat="random", opponent=opp,
                                                  info_labels=labels)) for _ in range(2)])

    ours = _run(venv(RolloutVecEnv, False), 400)
    ref = _run(venv(DummyVecEnv, True), 400)
    assert sum(sum(step[3]) for step in ours[1:]) >= 2  # games ended and were reset
    assert ours == ref


def test_info_labels_off_leaves_only_the_labels_out():
    game = load_game("acw_regimental")
    a = RiposteGymEnv(seat=0, info_labels=False)
    b = RiposteGymEnv(seat=0)
    (oa, ia), (ob, ib) = a.reset(seed=1), b.reset(seed=1)
    assert oa.tobytes() == ob.tobytes()
    assert "legal_action_labels" not in ia
    assert ib["legal_action_labels"] == [game.actions.labels[i] for i in
                                         np.flatnonzero(ib["action_mask"])]
    assert set(ib) - set(ia) == {"legal_action_labels"}


def test_make_vec_env_refuses_an_unknown_kind():
    with pytest.raises(ValueError, match="vec_env 'threads' is not one of"):
        make_vec_env("acw_regimental", None, None, 1, vec_env="threads")
