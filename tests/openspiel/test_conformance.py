"""OpenSpiel's own checks on every ruleset's default battle and on each small built-in scenario:
``pyspiel.random_sim_test`` with serialisation, tensors of the declared shapes at every state,
and ``evaluate_bots`` playing Riposte's bots against OpenSpiel's."""

from __future__ import annotations

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

from open_spiel.python.algorithms import evaluate_bots  # noqa: E402
from open_spiel.python.bots import uniform_random  # noqa: E402

from agents.builtin import make_agent  # noqa: E402
from envs.adapters import openspiel as osa  # noqa: E402
from envs.core.protocol import State  # noqa: E402

#: the built-in scenarios whose random games take a fraction of a second (many simulations)
SMALL = [("acw_regimental", "example_a_closing_volley"),
         ("acw_regimental", "example_b_refuse_flank"),
         ("acw_regimental", "example_c_opportunity_fire"),
         ("atomic_africa", "activation"), ("atomic_africa", "cleanup_example"),
         ("atomic_africa", "duel"),
         ("atomic_africa", "reaction"),
         ("skirmish_alert", "dodge"), ("skirmish_alert", "duel"),
         ("skirmish_alert", "knockdown"), ("skirmish_alert", "three_teams"),
         ("skirmish_alert", "worked_example")]
DEFAULTS = [(rs, "default") for rs in osa.SHORT_NAMES]
#: the remaining built-in scenarios (larger battles)
LARGE = [("acw_regimental", "crossroads"), ("acw_regimental", "two_farms_each_turn"),
         ("acw_regimental", "two_farms_union_first"), ("skirmish_alert", "ffa3"),
         ("skirmish_alert", "ffa4")]


def test_the_lists_cover_every_builtin_scenario():
    every = {(rs, sc) for rs in osa.SHORT_NAMES for sc in osa.builtin_scenarios(rs)}
    assert set(SMALL) | set(DEFAULTS) | set(LARGE) == every


@pytest.mark.parametrize("ruleset,scenario", SMALL)
def test_random_sim_test_with_serialization_small_scenarios(ruleset, scenario):
    pyspiel.random_sim_test(osa.load(ruleset, scenario), num_sims=10, serialize=True,
                            verbose=False)


@pytest.mark.parametrize("ruleset,scenario", DEFAULTS)
def test_random_sim_test_with_serialization_default_battles(ruleset, scenario):
    pyspiel.random_sim_test(osa.load(ruleset, scenario), num_sims=2, serialize=True,
                            verbose=False)


@pytest.mark.slow
@pytest.mark.parametrize("ruleset,scenario", DEFAULTS + LARGE)
def test_random_sim_test_many_simulations(ruleset, scenario):
    pyspiel.random_sim_test(osa.load(ruleset, scenario), num_sims=4, serialize=True,
                            verbose=False)


def _random_states(game, n_games: int, seed: int):
    rng = np.random.default_rng(seed)
    for _ in range(n_games):
        s = game.new_initial_state()
        while True:
            yield s
            if s.is_terminal():
                break
            if s.is_chance_node():
                outcomes, probs = zip(*s.chance_outcomes())
                s.apply_action(int(rng.choice(outcomes, p=probs)))
            else:
                s.apply_action(int(rng.choice(s.legal_actions())))


@pytest.mark.parametrize("ruleset,scenario", DEFAULTS + [("skirmish_alert", "three_teams"),
                                                         ("atomic_africa", "reaction")])
def test_tensors_have_the_declared_shapes_at_every_state(ruleset, scenario):
    g = osa.load(ruleset, scenario)
    r = g.riposte
    obs_size = g.observation_tensor_size()
    info = g.get_type().provides_information_state_tensor
    info_size = g.information_state_tensor_size() if info else None
    count = 0
    for s in _random_states(g, 1, seed=1):
        for p in range(g.num_players()):
            t = np.asarray(s.observation_tensor(p), np.float32)
            assert t.shape == (obs_size,) and np.isfinite(t).all()
            np.testing.assert_array_equal(t, r.observation(s.riposte, p))
            assert s.observation_string(p) == r.observation_string(s.riposte, p)
            if info:
                assert len(s.information_state_tensor(p)) == info_size
        count += 1
    assert count > 20


def test_hidden_cards_do_not_reach_the_other_sides_information_state():
    g = osa.load("atomic_africa", "duel")
    for s in _random_states(g, 1, seed=3):
        if s.is_terminal():
            break
        if s.is_chance_node() and s.riposte.decision_name() == "chance":
            # two chance outcomes the other side cannot tell apart leave its view unchanged
            other = {}
            for a, _ in s.chance_outcomes()[:6]:
                c = s.child(a)
                for side in range(2):
                    other.setdefault(side, set()).add(c.information_state_string(side))
            if len(other[0]) > 1 and len(other[1]) == 1:
                return
            if len(other[1]) > 1 and len(other[0]) == 1:
                return
    pytest.fail("no private card draw seen in a game of the duel")


@pytest.mark.parametrize("ruleset,scenario", SMALL[:1] + SMALL[3:4] + SMALL[6:7] + DEFAULTS)
def test_serialize_deserialize_round_trip(ruleset, scenario):
    g = osa.load(ruleset, scenario)
    for i, s in enumerate(_random_states(g, 1, seed=5)):
        if i % 7:
            continue
        back = g.deserialize_state(s.serialize())
        assert str(back) == str(s) and back.history() == s.history()
        assert back.riposte.to_json() == s.riposte.to_json()
        for p in range(g.num_players()):
            assert back.information_state_string(p) == s.information_state_string(p)
        again = pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(g, s))
        assert str(again[1]) == str(s)


def test_chance_outcomes_and_labels_are_ripostes():
    g = osa.load("acw_regimental", "example_a_closing_volley")
    s = g.new_initial_state()
    seen = 0
    for s in _random_states(g, 1, seed=2):
        if s.is_terminal():
            break
        r = s.riposte
        if s.is_chance_node():
            assert s.chance_outcomes() == r.chance_outcomes()
            for a, _ in s.chance_outcomes():
                assert s.action_to_string(pyspiel.PlayerId.CHANCE, a) == \
                    r.action_to_string(a)
            assert s.action_to_string(pyspiel.PlayerId.CHANCE,
                                      s.chance_outcomes()[0][0]).startswith("d6=")
            seen += 1
        else:
            assert s.legal_actions() == r.legal_actions()
            assert [s.action_to_string(a) for a in s.legal_actions()] == r.legal_labels()
    assert seen > 0


def test_state_from_riposte_continues_a_riposte_game():
    g = osa.load("skirmish_alert", "duel")
    rs = g.riposte.new_initial_state()
    rng = np.random.default_rng(0)
    for _ in range(15):
        if rs.is_chance_node():
            o, p = zip(*rs.chance_outcomes())
            rs.apply_action(int(rng.choice(o, p=p)))
        else:
            rs.apply_action(int(rng.choice(rs.legal_actions())))
    s = g.state_from_riposte(rs)
    assert s.history() == [a for _, a in rs.history]
    assert State.to_json(s.riposte) == rs.to_json()


@pytest.mark.parametrize("ruleset,scenario", [("acw_regimental", "example_a_closing_volley"),
                                              ("atomic_africa", "duel"),
                                              ("skirmish_alert", "duel")])
def test_evaluate_bots_riposte_bots_against_openspiels(ruleset, scenario):
    g = osa.load(ruleset, scenario)
    rng = np.random.RandomState(0)
    totals = np.zeros(2)
    for game_no in range(6):
        heur = osa.RiposteBot(make_agent("heuristic", g.riposte, seed=game_no), game_no % 2)
        other = uniform_random.UniformRandomBot(1 - game_no % 2, rng)
        bots = [heur, other] if game_no % 2 == 0 else [other, heur]
        returns = evaluate_bots.evaluate_bots(g.new_initial_state(), bots, rng)
        assert sum(returns) == 0 and all(r in (-1.0, 0.0, 1.0) for r in returns)
        totals[game_no % 2] += returns[game_no % 2]
    # the C++ random bot plays the Python game too
    cpp = [pyspiel.make_uniform_random_bot(p, 7) for p in range(2)]
    returns = evaluate_bots.evaluate_bots(g.new_initial_state(), cpp, rng)
    assert sum(returns) == 0
