"""The PettingZoo AEC env: PettingZoo's api_test and seed_test, turn order from the engine,
seats, masks, rewards, truncation, illegal actions, wrappers, registration and rendering."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test
from pettingzoo.utils import OrderEnforcingWrapper

from envs.adapters.aec import RiposteAECEnv
from envs.adapters.registration import PZ_ACW_ID, register_envs
from envs.adapters.wrappers import IllegalActionLoss
from envs.core.errors import IllegalActionError, ParameterError
from envs.core.protocol import TERMINAL

from . import RULESETS, require_ruleset


@pytest.fixture(params=RULESETS)
def ruleset(request) -> str:
    require_ruleset(request.param)
    return request.param


def wrapped(ruleset: str, **kw) -> OrderEnforcingWrapper:
    return OrderEnforcingWrapper(RiposteAECEnv(ruleset, **kw))


def run(env, seed: int, pick=lambda mask: int(np.flatnonzero(mask)[-1])) -> list:
    """Play one game with a deterministic policy; returns (agent, action, reward) tuples."""
    env.reset(seed=seed)
    out = []
    for agent in env.agent_iter():
        obs, r, term, trunc, info = env.last()
        a = None if term or trunc else pick(obs["action_mask"])
        out.append((agent, a, r, term, trunc))
        env.step(a)
    return out


def test_pettingzoo_api_test(ruleset):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # api_test warns about all-zero off-turn masks by design
        api_test(wrapped(ruleset, render_mode="ansi"), num_cycles=100 if ruleset == "toy" else 20)
        api_test(wrapped(ruleset, randomize_seats=True), num_cycles=20)


def test_pettingzoo_seed_test(ruleset):
    seed_test(lambda: wrapped(ruleset, randomize_seats=True),
              num_cycles=100 if ruleset == "toy" else 20)


@pytest.mark.slow
def test_same_seed_same_game(ruleset):
    env = wrapped(ruleset, randomize_seats=True)
    pick = lambda m: int(np.flatnonzero(m)[0])  # noqa: E731
    a = run(env, 3, pick)
    assert a == run(env, 3, pick)
    histories = {tuple(run(env, s, pick)) for s in range(6)}
    assert len(histories) > 1  # dice and seats do depend on the seed


def test_agent_on_move_comes_from_the_engine_not_a_cycle():
    env = RiposteAECEnv("toy")
    env.reset(seed=0)
    assert env.agent_selection == "player_0"
    env.step(env.game.actions.id("attack"))        # red attacks: blue's reaction window
    assert env.agent_selection == "player_1"
    assert env.infos["player_1"]["decision_type"] == "reaction"
    assert env.infos["player_1"]["legal_action_labels"] == ["react:dodge", "react:decline"]
    assert not env.observe("player_0")["action_mask"].any()       # off-turn mask is all zero
    assert not env.infos["player_0"]["action_mask"].any()
    env.step(env.game.actions.id("react:decline"))  # die rolled by the env; red acts again
    assert env.game_state.current_player() == 0 and env.agent_selection == "player_0"
    assert env.infos["player_0"]["decision_type"] == "maneuver"
    env.step(env.game.actions.id("attack"))          # red decides twice in a row around
    assert env.agent_selection == "player_1"        # blue's reaction


def test_masks_and_infos_track_the_state(ruleset):
    env = RiposteAECEnv(ruleset, randomize_seats=True)
    env.reset(seed=11)
    for _ in range(60):
        st = env.game_state
        if st.current_player() == TERMINAL:
            break
        agent = env.agent_selection
        side = env.side_of(agent)
        assert st.current_player() == side
        for other in env.agents:
            obs = env.observe(other)
            s = env.side_of(other)
            assert obs["observation"].dtype == np.float32
            assert np.array_equal(obs["observation"], env.game.observation(st, s))
            assert obs["action_mask"].dtype == np.int8
            expected = st.legal_action_mask() if other == agent else np.zeros_like(obs["action_mask"])
            assert np.array_equal(obs["action_mask"], expected.astype(np.int8))
            assert np.array_equal(env.infos[other]["action_mask"], obs["action_mask"])
            assert env.infos[other]["side"] == s
            assert env.infos[other]["side_name"] == env.game.side_names[s]
        env.step(int(np.flatnonzero(st.legal_action_mask())[0]))


def test_terminal_rewards_follow_the_seats():
    for perm in ([0, 1], [1, 0]):
        env = wrapped("toy", seat_permutation=perm)
        # first legal id: red attacks forever (never passes), blue dodges: red wins in the end
        def pick(mask):
            return int(np.flatnonzero(mask)[0])
        totals = {a: 0.0 for a in env.possible_agents}
        env.reset(seed=2)
        for agent in env.agent_iter():
            obs, r, term, trunc, info = env.last()
            totals[agent] += r
            if term or trunc:
                assert info["returns"] == list(env.unwrapped.game_state.returns())
                env.step(None)
                continue
            env.step(pick(obs["action_mask"]))
        returns = env.unwrapped.game_state.returns()
        assert returns == [1.0, -1.0]
        for i, agent in enumerate(env.possible_agents):
            assert totals[agent] == returns[perm[i]]
        assert env.unwrapped.side_of("player_0") == perm[0]


def test_random_seats_swap_between_episodes():
    env = RiposteAECEnv("toy", randomize_seats=True)
    seen = set()
    for s in range(20):
        env.reset(seed=s)
        seen.add(tuple(env.seats))
        assert env.infos["player_0"]["side"] == env.seats[0]
    assert seen == {(0, 1), (1, 0)}
    with pytest.raises(ParameterError, match="permutation"):
        RiposteAECEnv("toy", seat_permutation=[0, 0])


def test_truncation_at_decision_cap(ruleset):
    env = RiposteAECEnv(ruleset, max_decisions=4)
    env.reset(seed=0)
    steps = 0
    while not any(env.truncations.values()) and not any(env.terminations.values()):
        env.step(int(np.flatnonzero(env.game_state.legal_action_mask())[0]))
        steps += 1
    assert steps == 4 and all(env.truncations.values()) and not any(env.terminations.values())
    assert env.decisions == 4
    assert all(not env.observe(a)["action_mask"].any() for a in env.agents)
    for _ in list(env.agents):
        env.step(None)
    assert env.agents == []


def test_illegal_action_raises_and_nothing_is_applied():
    env = wrapped("toy")
    env.reset(seed=0)
    before = env.unwrapped.game_state.to_json()
    with pytest.raises(IllegalActionError, match=r"agent player_0 chose illegal action 'rest'.*TOY-3"):
        env.step(1)
    with pytest.raises(IllegalActionError, match="not an id"):
        env.step(None)
    assert env.unwrapped.game_state.to_json() == before


def test_illegal_action_loss_wrapper():
    env = IllegalActionLoss(wrapped("toy"))
    env.reset(seed=0)
    env.step(env.unwrapped.game.actions.id("attack"))   # player_0 attacks
    env.step(0)                                          # player_1 answers 'attack': illegal
    base = env.unwrapped
    assert all(base.terminations.values())
    assert base._cumulative_rewards == {"player_0": 1.0, "player_1": -1.0}
    obs, r, term, trunc, info = env.last()
    assert term and "illegal action" in info["termination_cause"]
    assert "TOY-2" in info["termination_cause"]
    assert info["returns"] == [1.0, -1.0] and info["winner"] == 0
    # legal actions pass through unchanged
    env.reset(seed=0)
    env.step(0)
    assert env.unwrapped.agent_selection == "player_1"
    with pytest.raises(ParameterError):
        IllegalActionLoss(_NotRiposte())


class _NotRiposte:
    unwrapped = None

    def __init__(self):
        self.unwrapped = self


def test_render_metadata_and_state(ruleset):
    env = RiposteAECEnv(ruleset, render_mode="ansi")
    assert env.metadata["name"] == f"{ruleset}_v0"
    assert env.metadata["is_parallelizable"] is False and env.metadata["render_modes"] == ["ansi", "rgb_array", "human"]
    env.reset(seed=0)
    side = env.game_state.current_player()
    assert env.game.observation_string(env.game_state, side) in env.render()
    assert env.state().shape == env.state_space.shape
    assert env.observation_space("player_0") is env.observation_space("player_1")
    assert RiposteAECEnv(ruleset).render() is None


def test_pettingzoo_registry_entry():
    import pettingzoo

    register_envs()
    assert PZ_ACW_ID in pettingzoo.aec_registry
    assert pettingzoo.aec_registry[PZ_ACW_ID].entry_point == "envs.acw_regimental_v0:env"


def test_acw_module_env_and_registry_make():
    require_ruleset("acw_regimental")
    import pettingzoo

    from envs import acw_regimental_v0

    env = acw_regimental_v0.env()
    assert isinstance(env, OrderEnforcingWrapper)
    assert isinstance(env.env, RiposteAECEnv)  # only OrderEnforcingWrapper on top
    raw = acw_regimental_v0.raw_env()
    assert isinstance(raw, RiposteAECEnv) and raw.game.ruleset_id == "acw_regimental"
    made = pettingzoo.make("aec", PZ_ACW_ID)
    made.reset(seed=0)
    assert made.unwrapped.game.ruleset_id == "acw_regimental"


@pytest.mark.parametrize("seed,exc", [(-1, ValueError), ("abc", TypeError), (1.5, TypeError),
                                      (True, TypeError)])
def test_reset_refuses_a_bad_seed(seed, exc):
    """``reset(seed=...)`` checks the seed like Gymnasium: a clear TypeError/ValueError, not a
    numpy error from deep inside."""
    env = RiposteAECEnv("acw_regimental")
    with pytest.raises(exc, match=r"seed must be a non-negative int or None, got .*"):
        env.reset(seed=seed)
    env.reset(seed=np.int64(3))  # numpy integers are fine
    env.reset(seed=None)


RESET_FIRST = r"^{call}\(\) before reset\(\): call reset\(\) first \(there is no game until reset\(\), nor after close\(\)\)$"


@pytest.mark.parametrize("module", ["acw_regimental_v0", "atomic_africa_v0", "skirmish_alert_v0"])
@pytest.mark.parametrize("make", ["raw_env", "env"])
def test_calls_before_reset_say_call_reset_first(module, make):
    import importlib

    from envs.core.errors import InvalidStateError, ResetNeededError

    env = getattr(importlib.import_module(f"envs.{module}"), make)()
    calls = {"step": lambda: env.step(0), "observe": lambda: env.observe("player_0"),
             "last": lambda: env.last(), "state": lambda: env.state(),
             "agent_iter": lambda: env.agent_iter()}
    for call, f in calls.items():
        with pytest.raises(ResetNeededError, match=RESET_FIRST.format(call=call)) as e:
            f()
        # the project's error for a call out of order, and what Python raises for one
        assert isinstance(e.value, InvalidStateError) and isinstance(e.value, RuntimeError)
    # PettingZoo's per-episode attributes: still AttributeError (hasattr is False), saying why
    with pytest.raises(AttributeError, match="reset"):
        env.agent_selection  # noqa: B018
    assert not hasattr(env, "infos")
    env.reset(seed=0)
    obs, _, term, trunc, info = env.last()
    assert obs["action_mask"].any() and not (term or trunc)
    np.testing.assert_array_equal(info["action_mask"], obs["action_mask"])


def test_raw_env_after_close_and_illegal_action_loss_before_reset():
    from envs.core.errors import ResetNeededError

    env = RiposteAECEnv("toy")
    env.reset(seed=0)
    env.close()
    with pytest.raises(ResetNeededError, match=RESET_FIRST.format(call="step")):
        env.step(0)
    with pytest.raises(ResetNeededError, match=RESET_FIRST.format(call="step")):
        IllegalActionLoss(RiposteAECEnv("toy")).step(0)
    with pytest.raises(ResetNeededError, match=RESET_FIRST.format(call="end_game")):
        RiposteAECEnv("toy").end_game([1.0, -1.0], "test")
