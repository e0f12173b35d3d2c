"""The Gymnasium single-agent env: API checkers, registration, seeding, seats, opponents,
illegal actions, truncation and MaskablePPO compatibility."""

from __future__ import annotations

import warnings

import gymnasium as gym
import numpy as np
import pytest

from envs.adapters import RiposteGymEnv
from envs.adapters.registration import GYM_ACW_ID, register_envs
from envs.core.errors import (IllegalActionError, InvalidStateError, ParameterError,
                              ResetNeededError)

from . import RULESETS, require_ruleset


@pytest.fixture(params=RULESETS)
def ruleset(request) -> str:
    require_ruleset(request.param)
    return request.param


def first_legal(mask: np.ndarray) -> int:
    return int(np.flatnonzero(mask)[0])


def play(env: RiposteGymEnv, seed: int, policy=first_legal) -> list[tuple]:
    """One episode with a deterministic learner policy; the trajectory as comparable tuples."""
    obs, info = env.reset(seed=seed)
    traj = [(obs.tobytes(), info["seat"], info["decision_type"])]
    while True:
        a = policy(env.action_masks())
        obs, r, term, trunc, info = env.step(a)
        traj.append((a, obs.tobytes(), r, term, trunc, info["decision_type"]))
        if term or trunc:
            return traj


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore:.*Box observation space (minimum|maximum) value")
@pytest.mark.filterwarnings("ignore:illegal action ends the episode")
def test_gymnasium_and_sb3_check_env(ruleset):
    from gymnasium.utils.env_checker import check_env
    from stable_baselines3.common.env_checker import check_env as sb3_check_env

    # Gymnasium's checker samples its action *before* its seeded reset, so with masks the
    # sampled id may be illegal in the new state: the checked env ends such a game as a loss
    # (illegal_action="loss") instead of raising. LegalDiscrete.sample() otherwise plays legal ids.
    env = gym.make(GYM_ACW_ID, ruleset=ruleset, illegal_action="loss", render_mode="ansi")
    check_env(env.unwrapped)
    sb3_check_env(env.unwrapped)
    assert isinstance(env.unwrapped.render(), str)


@pytest.mark.filterwarnings("ignore:.*Box observation space (minimum|maximum) value")
@pytest.mark.filterwarnings("ignore:illegal action ends the episode")
def test_registered_id_passes_the_checkers_as_users_run_them():
    """Issue 14 item 6: exactly the user's calls, no keyword arguments."""
    from gymnasium.utils.env_checker import check_env
    from stable_baselines3.common.env_checker import check_env as sb3_check_env

    register_envs()
    assert gym.registry[GYM_ACW_ID].kwargs["illegal_action"] == "loss"
    check_env(gym.make(GYM_ACW_ID).unwrapped)
    sb3_check_env(gym.make(GYM_ACW_ID).unwrapped)


def test_registered_id_loss_by_default_warns_once_and_raise_stays_available():
    register_envs()
    env = gym.make(GYM_ACW_ID, ruleset="toy", seat=1).unwrapped
    assert env.illegal_action == "loss"
    _, info = env.reset(seed=0)
    bad = int(np.flatnonzero(~env.action_masks())[0])
    with pytest.warns(UserWarning, match="illegal action ends the episode as a loss"):
        _, r, term, trunc, info = env.step(bad)
    assert (r, term, trunc) == (-1.0, True, False)
    assert "learner chose illegal" in info["illegal_action"]
    env.reset(seed=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the second illegal action does not warn again
        _, r, term, _, info = env.step(bad)
    assert r == -1.0 and term and "illegal_action" in info
    strict = gym.make(GYM_ACW_ID, ruleset="toy", seat=1, illegal_action="raise").unwrapped
    strict.reset(seed=0)
    with pytest.raises(IllegalActionError):
        strict.step(bad)


def test_spaces_match_the_game(ruleset):
    env = RiposteGymEnv(ruleset, seat=0)
    g = env.game
    assert env.observation_space.shape == (g.observation_size,)
    assert env.observation_space.dtype == np.float32
    assert env.action_space.n == g.num_distinct_actions
    obs, info = env.reset(seed=0)
    assert obs.shape == (g.observation_size,) and obs.dtype == np.float32
    m = env.action_masks()
    assert m.dtype == bool and m.shape == (g.num_distinct_actions,) and m.any()
    assert np.array_equal(info["action_mask"], m)
    assert info["legal_action_labels"] == [g.actions.labels[i] for i in np.flatnonzero(m)]
    # the space's argument-less sample() draws legal ids only
    env.action_space.seed(3)
    assert all(m[env.action_space.sample()] for _ in range(50))


def test_gymnasium_make_registered_id():
    register_envs()
    register_envs()  # idempotent
    assert GYM_ACW_ID in gym.registry
    assert gym.registry[GYM_ACW_ID].entry_point == "envs.adapters.single_agent:RiposteGymEnv"
    env = gym.make(GYM_ACW_ID, ruleset="toy", seat=1)
    obs, info = env.reset(seed=1)
    assert info["seat"] == 1 and info["side_name"] == "blue"
    assert env.unwrapped.game.ruleset_id == "toy"
    # Gymnasium's "module:id" form imports the registering module first
    env = gym.make("envs.adapters:" + GYM_ACW_ID, ruleset="toy")
    assert isinstance(env.unwrapped, RiposteGymEnv)


def test_gymnasium_make_acw():
    require_ruleset("acw_regimental")
    env = gym.make(GYM_ACW_ID)
    obs, info = env.reset(seed=0)
    assert env.unwrapped.game.ruleset_id == "acw_regimental"
    assert obs.shape == env.observation_space.shape
    assert env.unwrapped.action_masks().any()


@pytest.mark.slow
def test_same_seed_same_game_different_seed_differs(ruleset):
    env = RiposteGymEnv(ruleset)
    a, b = play(env, 7), play(env, 7)
    assert a == b
    others = [play(env, s) for s in range(8, 14)]
    assert any(o != a for o in others)


def test_seats(ruleset):
    env = RiposteGymEnv(ruleset)  # "random"
    seats = {env.reset(seed=s)[1]["seat"] for s in range(30)}
    assert seats == set(range(env.game.num_players))
    for s, name in enumerate(env.game.side_names):
        for seat in (s, name):
            e = RiposteGymEnv(ruleset, seat=seat)
            for k in range(3):
                _, info = e.reset(seed=k)
                assert info["seat"] == s and info["side"] == s and info["side_name"] == name
    _, info = env.reset(seed=0, options={"seat": 1})
    assert info["seat"] == 1
    with pytest.raises(ParameterError, match="seat"):
        RiposteGymEnv(ruleset, seat=5)
    with pytest.raises(ParameterError, match="seat"):
        RiposteGymEnv(ruleset, seat="nobody")


def test_illegal_learner_action_raises_and_is_not_substituted():
    env = RiposteGymEnv("toy", seat=0)
    env.reset(seed=0)  # red's first decision: attack / pass (rest needs a wound, TOY-3)
    before = env.state.to_json()
    with pytest.raises(IllegalActionError, match=r"learner.*'rest'.*TOY-3.*legal: \['attack', 'pass'\]"):
        env.step(1)
    with pytest.raises(IllegalActionError, match="not an id"):
        env.step(99)
    with pytest.raises(IllegalActionError, match="not an id"):
        env.step(0.0)
    assert env.state.to_json() == before  # nothing was applied
    obs, r, term, trunc, info = env.step(np.int64(0))  # numpy ids are accepted
    assert not term and not trunc


def test_illegal_action_loss_mode():
    env = RiposteGymEnv("toy", seat=1, illegal_action="loss")
    _, info = env.reset(seed=0)
    bad = int(np.flatnonzero(~env.action_masks())[0])
    obs, r, term, trunc, info = env.step(bad)
    assert (r, term, trunc) == (-1.0, True, False)
    assert info["returns"] == [1.0, -1.0] and info["winner"] == 0
    assert "learner chose illegal" in info["illegal_action"]
    assert not env.action_masks().any()
    with pytest.raises(ResetNeededError, match=r"^step\(\) after the episode ended: call "
                                               r"reset\(\) to start the next one$"):
        env.step(0)


def test_step_and_action_masks_before_reset_say_call_reset_first():
    env = RiposteGymEnv("toy", seat=1)
    for call, f in (("step", lambda: env.step(0)), ("action_masks", env.action_masks)):
        with pytest.raises(ResetNeededError, match=rf"^{call}\(\) before reset\(\): call "
                                                   rf"reset\(\) first") as e:
            f()
        assert isinstance(e.value, InvalidStateError) and isinstance(e.value, RuntimeError)
    env.reset(seed=0)
    assert env.action_masks().any()
    env.close()  # no game any more: the same error, not a mask of all False
    with pytest.raises(ResetNeededError, match=r"^action_masks\(\) before reset\(\)"):
        env.action_masks()


def test_illegal_opponent_action_names_the_opponent():
    class Stubborn:
        name = "always-rest"

        def __call__(self, obs, mask):
            return 1  # 'rest' is illegal at full hit points (TOY-3) and in reaction windows

    env = RiposteGymEnv("toy", seat=1, opponent=Stubborn())
    with pytest.raises(IllegalActionError, match=r"opponent always-rest chose illegal action 'rest'"):
        env.reset(seed=0)  # red (the opponent) decides first


def test_truncation_at_decision_cap(ruleset):
    env = RiposteGymEnv(ruleset, seat=0, max_decisions=3)
    env.reset(seed=0)
    for _ in range(10):
        obs, r, term, trunc, info = env.step(first_legal(env.action_masks()))
        if term or trunc:
            break
    assert trunc and not term and r == 0.0
    assert info["decisions"] == 3  # the cap counts the decisions of both sides
    assert sum(1 for p, _ in env.state.history if p >= 0) == 3
    assert not env.action_masks().any()
    with pytest.raises(ParameterError, match="max_decisions"):
        RiposteGymEnv(ruleset, max_decisions=0)


def test_opponent_sampler_called_every_reset():
    calls = []

    class Pool:
        def sample_opponent(self, rng):
            assert isinstance(rng, np.random.Generator)
            calls.append(rng.integers(1 << 30))
            return lambda obs, mask: int(np.flatnonzero(mask)[-1])

    env = RiposteGymEnv("toy", opponent=Pool())
    assert calls == []
    for s in range(3):
        env.reset(seed=s)
    assert len(calls) == 3
    env.reset(seed=0)
    assert calls[3] == calls[0]  # drawn from the env's seeded stream


def test_set_opponent_and_policy_objects():
    seen = []

    class Policy:
        name = "last-legal"

        def act(self, obs, mask):
            seen.append(mask.copy())
            return int(np.flatnonzero(mask)[-1])

        def reset(self, seed=None):
            seeds.append(seed)

    seeds = []
    env = RiposteGymEnv("toy", seat=1)
    assert env.opponent is None  # built-in uniform random
    pol = Policy()
    env.set_opponent(pol)
    assert env.opponent is pol
    env.reset(seed=0)
    assert seen and all(m.dtype == bool for m in seen)
    env.reset()
    env.reset(seed=0)
    assert len(seeds) == 3 and all(isinstance(x, int) for x in seeds)
    assert seeds[0] == seeds[2] != seeds[1]  # drawn from the env's seeded stream
    with pytest.raises(ParameterError, match="opponent"):
        env.set_opponent(42)


def test_render_ansi(ruleset):
    env = RiposteGymEnv(ruleset, seat=0, render_mode="ansi")
    env.reset(seed=0)
    text = env.render()
    assert isinstance(text, str) and env.game.observation_string(env.state, 0) in text
    assert RiposteGymEnv(ruleset).render() is None
    with pytest.raises(ParameterError, match="render_mode"):
        RiposteGymEnv(ruleset, render_mode="human")


@pytest.mark.parametrize("ruleset", ["toy", "atomic_africa", "skirmish_alert"])
def test_shaped_reward_of_a_ruleset_without_one_is_named(ruleset):
    from envs.adapters.aec import RiposteAECEnv

    why = (rf"shaped_reward: the {ruleset} ruleset has no shaped reward \(its reward is the "
           rf"final result only; rulesets with one: .*acw_regimental")
    with pytest.raises(ParameterError, match=why):
        RiposteGymEnv(ruleset, shaped_reward=True)
    with pytest.raises(ParameterError, match=why):
        RiposteAECEnv(ruleset, shaped_reward=True)


def test_shaped_reward_acw_sums_to_the_final_return():
    require_ruleset("acw_regimental")
    env = RiposteGymEnv("acw_regimental", seat=0, shaped_reward=True)
    env.reset(seed=0)
    total = 0.0
    while True:
        _, r, term, trunc, info = env.step(first_legal(env.action_masks()))
        total += r
        if term or trunc:
            break
    assert total == pytest.approx(env.state.returns()[0])


def test_vec_env_action_masks():
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv
    from sb3_contrib.common.maskable.utils import get_action_masks

    fns = [lambda s=s: RiposteGymEnv("toy", seat=s) for s in (0, 1)]
    for vec_cls, kw in ((DummyVecEnv, {}), (SubprocVecEnv, {"start_method": "fork"})):
        venv = vec_cls(fns, **kw)
        venv.seed(0)
        venv.reset()
        masks = get_action_masks(venv)
        assert masks.shape == (2, 5) and masks.dtype == bool
        assert all(m.any() for m in masks)
        venv.close()


@pytest.mark.slow
def test_maskable_ppo_smoke():
    from sb3_contrib import MaskablePPO

    env = RiposteGymEnv("toy")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = MaskablePPO("MlpPolicy", env, n_steps=64, batch_size=32, seed=0, device="cpu")
        model.learn(128)
    assert model.num_timesteps >= 128
    obs, _ = env.reset(seed=1)
    a, _ = model.predict(obs, action_masks=env.action_masks(), deterministic=True)
    assert env.action_masks()[int(a)]


@pytest.mark.parametrize("seed,exc", [(-1, ValueError), ("abc", TypeError), (1.5, TypeError),
                                      (True, TypeError)])
def test_reset_refuses_a_bad_seed(seed, exc):
    """Same seed checks and messages as the AEC env."""
    env = RiposteGymEnv("acw_regimental")
    with pytest.raises(exc, match=r"seed must be a non-negative int or None, got .*"):
        env.reset(seed=seed)
    env.reset(seed=np.int64(3))


@pytest.mark.slow
def test_subproc_vec_env_get_attr_state_mid_game():
    """``SubprocVecEnv.get_attr("state")`` pickles the state in the worker: it must work in
    the middle of a game (it used to kill the worker: a local closure in the state)."""
    require_ruleset("acw_regimental")
    from stable_baselines3.common.vec_env import SubprocVecEnv

    def make():
        return RiposteGymEnv("acw_regimental", seat=0)

    venv = SubprocVecEnv([make], start_method="spawn")
    try:
        venv.seed(3)
        venv.reset()
        for _ in range(25):
            mask = venv.env_method("action_masks")[0]
            venv.step(np.array([first_legal(mask)]))
        (state,) = venv.get_attr("state")
        assert len(state.history) > 25 and not state.is_terminal()
        assert np.array_equal(state.legal_action_mask(), venv.env_method("action_masks")[0])
    finally:
        venv.close()
