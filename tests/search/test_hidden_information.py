"""Hidden information: the search reads only what its side sees. Atomic Africa's
``resample_from_infostate`` keeps the viewer's observation and redraws the rest; two states that
differ only in the opponent's hidden cards give the search agent the same result for the same
seed; rulesets without hidden information resample as a clone."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from agents.search import NetworkEvaluator, SearchAgent, SearchConfig
from envs import load_game
from envs.core.chance import sample_chance_outcome
from envs.core.errors import InvalidStateError
from envs.core.frames import HiddenCommit
from envs.core.protocol import CHANCE
from tests.search.conftest import network


def _hidden(state, viewer):
    """``{zone name: cards}`` of the zones ``viewer`` may not look into, other sides' only."""
    return {z.name: list(z.cards) for z in state.zones
            if z.owner != viewer and not z.visible_to(viewer)}


def _aa_decisions(seed: int, viewer: int, count: int, scenario: str = "default"):
    """Decisions of ``viewer`` (2+ legal actions) at which another side holds hidden cards
    outside its deck, from random play."""
    game = load_game("atomic_africa", scenario)
    rng = np.random.default_rng(seed)
    st, out = game.new_initial_state(), []
    while len(out) < count and not st.is_terminal():
        p = st.current_player()
        if p == CHANCE:
            st.apply_action(sample_chance_outcome(st, rng))
            continue
        legal = st.legal_actions()
        hidden = {k: v for k, v in _hidden(st, viewer).items() if not k.startswith("deck:")}
        if p == viewer and len(legal) > 1 and any(hidden.values()):
            out.append(st.clone())
        st.apply_action(int(rng.choice(legal)))
    return game, out


def _other_hidden_cards(state, viewer, seed):
    """A state that differs from ``state`` only in the cards ``viewer`` cannot see (another
    sample of its information state whose hidden zones differ)."""
    for k in range(50):
        other = state.resample_from_infostate(viewer, np.random.default_rng([seed, k]))
        if _hidden(other, viewer) != _hidden(state, viewer):
            return other
    raise AssertionError("no other deal of the hidden cards found")


def test_a_sample_keeps_what_the_viewer_sees_and_redraws_the_rest():
    game, states = _aa_decisions(0, 0, 6)
    assert len(states) == 6
    for i, st in enumerate(states):
        before = st.to_json()
        sample = st.resample_from_infostate(0, np.random.default_rng(i))
        assert st.to_json() == before  # the original is untouched
        np.testing.assert_array_equal(game.observation(sample, 0), game.observation(st, 0))
        assert sample.legal_actions() == st.legal_actions()
        hid, hid_sample = _hidden(st, 0), _hidden(sample, 0)
        assert {k: len(v) for k, v in hid.items()} == {k: len(v) for k, v in hid_sample.items()}
        assert Counter(c for v in hid.values() for c in v) == \
            Counter(c for v in hid_sample.values() for c in v)
        # the viewer's own zones are as they were
        own = {z.name: z.cards for z in st.zones if z.owner == 0}
        assert own == {z.name: z.cards for z in sample.zones if z.owner == 0}
    samples = [_hidden(states[-1].resample_from_infostate(0, np.random.default_rng(s)), 0)
               for s in range(12)]
    assert len({repr(s) for s in samples}) > 1  # the hidden cards really are redrawn


def test_a_sample_plays_on_to_the_end():
    _, states = _aa_decisions(1, 1, 3)
    for k, st in enumerate(states):
        sample = st.resample_from_infostate(1, np.random.default_rng(k))
        rng = np.random.default_rng(k)
        while not sample.is_terminal():
            if sample.current_player() == CHANCE:
                sample.apply_action(sample_chance_outcome(sample, rng))
            else:
                sample.apply_action(int(rng.choice(sample.legal_actions())))
        assert sum(sample.returns()) == 0


@pytest.mark.slow
def test_the_same_information_gives_the_same_search():
    game, states = _aa_decisions(2, 0, 4)
    policy = network(game, seed=5, net_arch=(32, 32))
    for i, st in enumerate(states):
        twin = _other_hidden_cards(st, 0, i)
        np.testing.assert_array_equal(game.observation(twin, 0), game.observation(st, 0))
        assert _hidden(twin, 0) != _hidden(st, 0)
        results = [SearchAgent(game, NetworkEvaluator(game, policy),
                               SearchConfig(simulations=12), seed=7).analyse(s)
                   for s in (st, twin)]
        assert results[0].action == results[1].action
        np.testing.assert_array_equal(results[0].improved_policy, results[1].improved_policy)
        np.testing.assert_array_equal(results[0].visit_counts, results[1].visit_counts)
        assert results[0].q_values == results[1].q_values


def test_an_opponents_hidden_commitment_is_redrawn_among_its_choices():
    game = load_game("atomic_africa", "reaction")
    rng = np.random.default_rng(0)
    found = 0
    for seed in range(10):
        rng = np.random.default_rng(seed)
        st = game.new_initial_state()
        while not st.is_terminal() and found < 3:
            p = st.current_player()
            if p == CHANCE:
                st.apply_action(sample_chance_outcome(st, rng))
                continue
            commit = [f for f in st.stack if isinstance(f, HiddenCommit)]
            if commit and commit[-1].choices[0] is not None and commit[-1].sides[0] != p:
                found += 1
                i = len(st.stack.frames) - 1 - st.stack.frames[::-1].index(commit[-1])
                seen = set()
                for k in range(20):
                    sample = st.resample_from_infostate(p, np.random.default_rng(k))
                    choice = sample.stack.frames[i].choices[0]
                    assert choice is not None
                    seen.add(choice)
                    np.testing.assert_array_equal(game.observation(sample, p),
                                                  game.observation(st, p))
                assert seen  # every sample holds a commitment legal in its deal
            st.apply_action(int(rng.choice(st.legal_actions())))
        if found >= 3:
            break
    if not found:
        pytest.skip("no hidden commitment reached by random play")


def test_without_hidden_information_a_sample_is_a_clone():
    game = load_game("acw_regimental")
    st, rng = game.new_initial_state(), np.random.default_rng(0)
    while st.current_player() == CHANCE:
        st.apply_action(sample_chance_outcome(st, rng))
    sample = st.resample_from_infostate(0, np.random.default_rng(0))
    assert sample is not st and sample.to_json() == st.to_json()
    with pytest.raises(InvalidStateError, match="player 5"):
        st.resample_from_infostate(5, np.random.default_rng(0))
