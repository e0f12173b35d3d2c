"""The search agent (agents/search): no simulations plays the network's arg-max; a small
search finds the reaction that wins where the prior prefers the one that loses; the same seed
gives the same choices; one legal action and chance nodes are not searched; three and four
teams are searched."""

from __future__ import annotations

import numpy as np
import pytest

from agents.policies.ppo import MaskablePPOPolicy
from agents.search import NetworkEvaluator, SearchAgent, SearchConfig
from envs import load_game
from envs.core.chance import sample_chance_outcome
from envs.core.errors import InvalidStateError
from envs.core.protocol import CHANCE, TERMINAL
from tests.search.conftest import biased_network, network


class _Model:  # what MaskablePPOPolicy needs of a model: the policy network
    def __init__(self, policy):
        self.policy = policy


def _decisions(game, seed: int, count: int):
    """Up to ``count`` decision states with 2+ legal actions from random play."""
    rng = np.random.default_rng(seed)
    st, out = game.new_initial_state(), []
    while len(out) < count and not st.is_terminal():
        if st.current_player() == CHANCE:
            st.apply_action(sample_chance_outcome(st, rng))
            continue
        legal = st.legal_actions()
        if len(legal) > 1:
            out.append(st.clone())
        st.apply_action(int(rng.choice(legal)))
    return out


def _react(game):
    st = game.new_initial_state()
    st.apply_action(game.actions.id("advance"))
    return st


def test_zero_simulations_play_the_networks_argmax():
    game = load_game("acw_regimental")
    policy = network(game, seed=3, net_arch=(32, 32))
    agent = SearchAgent(game, NetworkEvaluator(game, policy), SearchConfig(simulations=0),
                        seed=0)
    ppo = MaskablePPOPolicy(_Model(policy), deterministic=True)
    states = _decisions(game, 1, 12)
    assert len(states) == 12
    for st in states:
        p = st.current_player()
        want = ppo.act(game.observation(st, p), st.legal_action_mask())
        res = agent.analyse(st)
        assert res.action == want
        assert res.simulations == 0
        legal = st.legal_actions()
        assert res.improved_policy.dtype == np.float32
        assert res.improved_policy.shape == (game.num_distinct_actions,)
        np.testing.assert_allclose(res.improved_policy[legal], res.prior[legal], atol=1e-6)


def test_a_small_search_finds_the_winning_reaction_the_prior_does_not_prefer(ambush):
    policy = biased_network(ambush, {"react:decline": 1.0})
    st = _react(ambush)
    fire, decline = ambush.actions.id("react:fire"), ambush.actions.id("react:decline")
    raw = SearchAgent(ambush, NetworkEvaluator(ambush, policy), SearchConfig(simulations=0))
    assert raw.analyse(st).action == decline
    settings = [("gumbel", "open", 8), ("puct", "open", 8), ("gumbel", "sample", 16),
                ("gumbel", "expand", 24)]
    for select, chance, sims in settings:
        for seed in range(5):
            agent = SearchAgent(ambush, NetworkEvaluator(ambush, policy),
                                SearchConfig(simulations=sims, below_root=select,
                                             chance=chance), seed=seed)
            res = agent.analyse(st)
            assert res.action == fire, (select, seed, res)
            assert res.q_values[fire] > 0.0 >= res.q_values[decline]
            assert res.improved_policy[fire] > res.improved_policy[decline]
            assert res.visit_counts[[fire, decline]].sum() == res.simulations == sims


def test_the_attacker_side_maximises_its_own_value(ambush):
    policy = biased_network(ambush, {"halt": 3.0})
    st = _react(ambush)
    st.apply_action(ambush.actions.id("react:decline"))
    st.apply_action(0)  # the d6
    agent = SearchAgent(ambush, NetworkEvaluator(ambush, policy), SearchConfig(simulations=4),
                        seed=0)
    res = agent.analyse(st)
    assert res.player == 0
    assert res.action == ambush.actions.id("charge")
    assert res.root_value > 0.0


def test_the_same_seed_gives_the_same_search():
    game = load_game("acw_regimental")
    policy = network(game, seed=1, net_arch=(32, 32))
    st = _decisions(game, 4, 6)[-1]
    results = [SearchAgent(game, NetworkEvaluator(game, policy), SearchConfig(simulations=12),
                           seed=9).analyse(st) for _ in range(2)]
    assert results[0].action == results[1].action
    np.testing.assert_array_equal(results[0].improved_policy, results[1].improved_policy)
    np.testing.assert_array_equal(results[0].visit_counts, results[1].visit_counts)
    assert results[0].q_values == results[1].q_values


def test_one_legal_action_and_chance_are_not_searched(ambush):
    policy = biased_network(ambush, {})
    evaluator = NetworkEvaluator(ambush, policy)
    agent = SearchAgent(ambush, evaluator, SearchConfig(simulations=8), seed=0)
    res = agent.analyse(ambush.new_initial_state())  # "advance" only
    assert (res.searched, res.action, res.simulations) == (False, 0, 0)
    assert evaluator.calls == 0
    st = _react(ambush)
    st.apply_action(1)
    with pytest.raises(InvalidStateError, match="chance"):
        agent.analyse(st)


@pytest.mark.parametrize("chance", ["sample", "expand", "open"])
def test_a_whole_game_of_acw_with_search_on_both_sides(chance):
    from agents.evaluation.tournament import play_game

    game = load_game("acw_regimental")
    policy = network(game, seed=2, net_arch=(32, 32))
    agents = [SearchAgent(game, NetworkEvaluator(game, policy),
                          SearchConfig(simulations=4, chance=chance), seed=s) for s in (0, 1)]
    rec = play_game(game, agents, np.random.default_rng(0), max_decisions=60)
    assert len(rec.decisions) > 0
    again = [SearchAgent(game, NetworkEvaluator(game, policy),
                         SearchConfig(simulations=4, chance=chance), seed=s) for s in (0, 1)]
    assert play_game(game, again, np.random.default_rng(0), max_decisions=60).decisions \
        == rec.decisions


@pytest.mark.parametrize("scenario", ["ffa3", "ffa4"])
def test_three_and_four_teams_are_searched(scenario):
    game = load_game("skirmish_alert", scenario)
    assert game.num_players == int(scenario[-1])
    policy = network(game, seed=0, net_arch=(32, 32))
    agent = SearchAgent(game, NetworkEvaluator(game, policy), SearchConfig(simulations=6),
                        seed=0)
    by_side: dict[int, list] = {}
    for st in _decisions(game, 0, 200):
        by_side.setdefault(st.current_player(), []).append(st)
    states = [st for group in by_side.values() for st in group[:2]]
    players = set()
    for st in states:
        res = agent.analyse(st)
        assert res.action in st.legal_actions()
        assert res.searched and res.simulations == 6
        players.add(res.player)
    _, values = agent.evaluator.evaluate(states[:3])
    assert values.shape == (3, game.num_players)
    np.testing.assert_allclose(values.sum(axis=1), 0.0, atol=1e-9)
    assert len(players) >= 2


def test_a_state_of_another_game_is_refused(ambush):
    agent = SearchAgent(ambush, NetworkEvaluator(ambush, biased_network(ambush, {})))
    other = load_game("toy").new_initial_state()
    with pytest.raises(InvalidStateError, match="plays ambush/ambush"):
        agent.analyse(other)


def test_act_without_the_state_is_refused(ambush):
    from agents.policies.base import AgentError

    agent = SearchAgent(ambush, NetworkEvaluator(ambush, biased_network(ambush, {})),
                        name="s")
    with pytest.raises(AgentError, match="step\\(state\\)"):
        agent.act(np.zeros(ambush.observation_size, np.float32), np.ones(7, bool))


def test_terminal_is_refused(ambush):
    agent = SearchAgent(ambush, NetworkEvaluator(ambush, biased_network(ambush, {})))
    st = _react(ambush)
    for a in (1, 0, 3):
        st.apply_action(a)
    assert st.current_player() == TERMINAL
    with pytest.raises(InvalidStateError):
        agent.analyse(st)


def test_whatif_rollouts_ask_a_search_agent_with_the_state(ambush):
    from agents.policies.base import RandomPolicy
    from agents.research.whatif import rollout

    agent = SearchAgent(ambush, NetworkEvaluator(ambush, biased_network(
        ambush, {"react:decline": 1.0})), SearchConfig(simulations=8), seed=0)
    returns, decisions, truncated = rollout(_react(ambush), [RandomPolicy(0), agent],
                                            np.random.default_rng(0), 10)
    assert (returns, decisions, truncated) == ([-1.0, 1.0], 2, False)  # it fires, and wins
