"""The value-head diagnostics (agents/search/diagnose.py) and the search's leaf values read
after arg-max decisions (``rollout=N``): on the ambush game, whose outcome a reaction decides
two decisions later, the value head after one step sees nothing (a zero value network), while
a truncated continuation and Monte Carlo see which reaction wins."""

from __future__ import annotations

import numpy as np
import pytest

from agents.search import NetworkEvaluator
from agents.search.diagnose import action_values, value_vs_result
from tests.search.conftest import biased_network


def test_action_values_tell_the_winning_reaction_where_a_zero_value_head_cannot(ambush):
    # the prior prefers decline; after it the attacker's arg-max is charge (the attacker wins),
    # after a fire the defender wins whatever the attacker does
    policy = biased_network(ambush, {"react:decline": 1.0, "charge": 2.0})
    evaluator = NetworkEvaluator(ambush, policy)
    st = ambush.new_initial_state()
    st.apply_action(ambush.actions.id("advance"))
    before = st.clone()
    got = action_values(ambush, evaluator, st, np.random.default_rng(0), rollouts=3,
                        truncate=[1])
    fire, decline = ambush.actions.id("react:fire"), ambush.actions.id("react:decline")
    assert got.player == 1
    assert got.actions == [decline, fire]  # the prior's arg-max first
    assert got.one_step == [0.0, 0.0]
    assert got.truncated == {1: [-1.0, 1.0]}
    assert got.monte_carlo == [-1.0, 1.0]
    assert st.to_dict() == before.to_dict()  # the state is not modified


def test_state_values_cover_every_decision_with_a_choice(ambush):
    evaluator = NetworkEvaluator(ambush, biased_network(ambush, {"halt": 1.0}))
    rows, positions = value_vs_result(ambush, evaluator, games=2, seed=0, every=2,
                                      rollouts=1, truncate=[])
    # each game: advance (forced: one legal action), the reaction, then the attacker's choice;
    # the defender's tied logits pick the first legal reaction, fire, so the attacker loses
    assert rows.shape == (4, 3)
    np.testing.assert_array_equal(rows[:, 0], [0.0, 0.5, 0.0, 0.5])
    np.testing.assert_array_equal(rows[:, 1], 0.0)  # a zero value head
    np.testing.assert_array_equal(rows[:, 2], -1.0)
    # every 2nd decision from the 2nd: the attacker's press or withdraw, both lost
    assert [p.player for p in positions] == [0, 0]
    assert all(p.monte_carlo == [-1.0, -1.0] for p in positions)


def test_rollout_values_read_the_value_after_arg_max_decisions(ambush):
    from agents.search.search import rollout_values

    # at the defender's reaction the prior prefers decline, then the attacker's charge wins
    policy = biased_network(ambush, {"react:decline": 1.0, "charge": 2.0})
    evaluator = NetworkEvaluator(ambush, policy)
    st = ambush.new_initial_state()
    st.apply_action(ambush.actions.id("advance"))
    logits, values = evaluator.evaluate([st])
    np.testing.assert_array_equal(values, [[0.0, 0.0]])  # a zero value head sees nothing
    rng = np.random.default_rng(0)
    # one decision (decline), the die, then the attacker's decision: valued by the head
    np.testing.assert_array_equal(rollout_values(evaluator, [st], logits, 1, rng), [[0, 0]])
    # two decisions: decline, then charge ends the game: the attacker's win
    np.testing.assert_array_equal(rollout_values(evaluator, [st, st], np.repeat(logits, 2, 0),
                                                 2, rng), [[1.0, -1.0], [1.0, -1.0]])
    assert st.current_player() == 1  # the states are not modified


def _reaction_window(ambush):
    """The defender's reaction to the advance, under a network that prefers decline (logit 1
    against fire's 0) and then the attacker's charge (logit 2), with a zero value head:
    ``(evaluator, state, fire, decline)``."""
    policy = biased_network(ambush, {"react:decline": 1.0, "charge": 2.0})
    st = ambush.new_initial_state()
    st.apply_action(ambush.actions.id("advance"))
    return (NetworkEvaluator(ambush, policy), st, ambush.actions.id("react:fire"),
            ambush.actions.id("react:decline"))


def test_a_search_with_rollouts_sees_what_the_value_head_does_not(ambush):
    from agents.search import SearchAgent, SearchConfig

    # the defender's reaction: the prior prefers decline, after which the attacker's arg-max
    # charges and wins; after a fire the defender wins. One simulation per action reaches the
    # attacker's decision, where a zero value head sees nothing: the prior's decline stays.
    # With rollout=1 the leaf is valued after the attacker's arg-max move: fire wins.
    evaluator, st, fire, decline = _reaction_window(ambush)
    for rollout, want in ((0, decline), (1, fire)):
        agent = SearchAgent(ambush, evaluator, SearchConfig(simulations=2, rollout=rollout),
                            seed=0)
        res = agent.analyse(st)
        assert res.action == want, rollout
    assert res.q_values[fire] == 1.0 and res.q_values[decline] == -1.0


def test_policy_logits_are_the_movers_logits_of_evaluate():
    # a rollout's steps between its first and last decision read the policy head only: the
    # same logits as evaluate's, from the mover's observation alone
    from envs import load_game
    from tests.search.test_search_agent import _decisions
    from tests.search.conftest import network

    game = load_game("acw_regimental")
    evaluator = NetworkEvaluator(game, network(game, net_arch=(32, 32)))
    states = _decisions(game, seed=1, count=6)  # sides 1, 1, 1, 0, 0, 0 to move
    assert [st.current_player() for st in states] == [1, 1, 1, 0, 0, 0]
    logits, _ = evaluator.evaluate(states)
    calls, rows = evaluator.calls, evaluator.rows
    np.testing.assert_allclose(evaluator.policy_logits(states), logits, rtol=1e-5, atol=1e-6)
    assert (evaluator.calls, evaluator.rows) == (calls + 1, rows + 6)  # one row per state


def test_a_confident_prior_is_played_unsearched(ambush):
    from agents.search import SearchAgent, SearchConfig

    # the defender's two reactions, decline (logit 1) and fire (0): the prior gives decline
    # e / (e + 1) = 0.731; a search with rollout=1 finds that fire wins
    evaluator, st, fire, decline = _reaction_window(ambush)
    for confident, want, sims in ((0.7, decline, 0), (0.75, fire, 2), (1.0, fire, 2)):
        agent = SearchAgent(ambush, evaluator,
                            SearchConfig(simulations=2, rollout=1, confident=confident), seed=0)
        res = agent.analyse(st)
        assert (res.action, res.simulations, res.searched) == (want, sims, True), confident
        assert res.prior[decline] == pytest.approx(np.e / (np.e + 1), rel=1e-6)
