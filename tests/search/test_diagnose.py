"""The value-head diagnostics (agents/search/diagnose.py): on the ambush game, whose outcome a
reaction decides two decisions later, the value head after one step sees nothing (a zero value
network), while a truncated continuation and Monte Carlo see which reaction wins."""

from __future__ import annotations

import numpy as np

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
