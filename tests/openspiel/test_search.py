"""OpenSpiel's search on Riposte: MCTSBot (random-rollout evaluator, chance sampled) plays ACW
and the skirmish game; IS-MCTS, with Riposte's determinisation as its resampler, plays Atomic
Africa. The documented command is ``python examples/openspiel_search.py``."""

from __future__ import annotations

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

from open_spiel.python.algorithms import evaluate_bots, ismcts, mcts  # noqa: E402
from open_spiel.python.bots import uniform_random  # noqa: E402

from envs.adapters import openspiel as osa  # noqa: E402


def _mcts(game, sims, seed):
    rng = np.random.RandomState(seed)
    return mcts.MCTSBot(game, uct_c=2.0, max_simulations=sims,
                        evaluator=mcts.RandomRolloutEvaluator(1, rng), random_state=rng)


@pytest.mark.parametrize("ruleset,scenario,params", [
    ("acw_regimental", "example_a_closing_volley", {"turns": 1}),
    ("skirmish_alert", "dodge", {}),
])
def test_mcts_bot_plays_ruleset_to_the_end(ruleset, scenario, params):
    g = osa.load(ruleset, scenario, **params)
    rng = np.random.RandomState(1)
    for seat in (0, 1):
        bots = [uniform_random.UniformRandomBot(p, rng) for p in range(2)]
        bots[seat] = _mcts(g, 8, seat)
        returns = evaluate_bots.evaluate_bots(g.new_initial_state(), bots, rng)
        assert sum(returns) == 0 and returns[seat] in (-1.0, 0.0, 1.0)


def test_mcts_chooses_only_legal_actions_and_samples_chance():
    g = osa.load("skirmish_alert", "dodge")
    bot = _mcts(g, 10, 0)
    s = g.new_initial_state()
    rng = np.random.default_rng(0)
    decisions = 0
    while not s.is_terminal():
        if s.is_chance_node():
            o, p = zip(*s.chance_outcomes())
            s.apply_action(int(rng.choice(o, p=p)))
            continue
        a = bot.step(s)
        assert a in s.legal_actions()
        s.apply_action(a)
        decisions += 1
    assert decisions > 1


class _ISMCTS(ismcts.ISMCTSBot):
    """ISMCTSBot searches afresh at every step: nothing to restart or to be told."""

    def restart_at(self, state):
        self.reset()

    def inform_action(self, state, player_id, action):
        return None


def test_ismcts_plays_atomic_africa_with_the_determinisation():
    g = osa.load("atomic_africa", "duel")
    rng = np.random.RandomState(2)
    gen = np.random.default_rng(2)
    for seat in (0, 1):
        bot = _ISMCTS(g, mcts.RandomRolloutEvaluator(1, rng), uct_c=2.0,
                               max_simulations=6, random_state=rng,
                               allow_inconsistent_action_sets=True)
        bot.set_resampler(lambda state, player: osa.resample_from_infostate(state, player, gen))
        bots = [uniform_random.UniformRandomBot(p, rng) for p in range(2)]
        bots[seat] = bot
        returns = evaluate_bots.evaluate_bots(g.new_initial_state(), bots, rng)
        assert sum(returns) == 0 and returns[seat] in (-1.0, 0.0, 1.0)


def test_determinisation_keeps_what_the_side_sees_and_changes_what_it_does_not():
    g = osa.load("atomic_africa", "duel")
    rng = np.random.default_rng(0)
    s = g.new_initial_state()
    changed = checked = 0
    while not s.is_terminal() and checked < 60:
        if s.is_chance_node():
            o, p = zip(*s.chance_outcomes())
            s.apply_action(int(rng.choice(o, p=p)))
            continue
        me = s.current_player()
        for _ in range(3):
            r = osa.resample_from_infostate(s, me, rng)
            assert r.information_state_string(me) == s.information_state_string(me)
            assert r.observation_tensor(me) == s.observation_tensor(me)
            assert r.legal_actions() == s.legal_actions()
            changed += str(r) != str(s)
        checked += 1
        s.apply_action(int(rng.choice(s.legal_actions())))
    assert changed > 0


def test_determinisation_of_perfect_information_is_a_clone():
    g = osa.load("skirmish_alert", "duel")
    s = g.new_initial_state()
    s.apply_action(s.legal_actions()[0])
    r = osa.resample_from_infostate(s, 0, np.random.default_rng(0))
    assert str(r) == str(s) and r.history() == s.history()


def _script(*args):
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    return subprocess.run([sys.executable, str(root / "examples" / "openspiel_search.py"),
                           *args], capture_output=True, text=True, timeout=300, cwd=root)


def test_documented_command_plays_and_reports():
    r = _script("riposte_acw_regimental(scenario=example_a_closing_volley,turns=1)",
                "--games", "2", "--simulations", "3")
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("MCTSBot vs random on riposte_acw_regimental")
    assert "in 2 games" in r.stdout


@pytest.mark.parametrize("args,needle", [
    (["riposte_acw_regimental(scenario=nope)"], "parameter scenario"),
    (["riposte_acw_regimental", "--games", "0"], "--games"),
    (["riposte_acw_regimental", "--opponent", "rush"], "--opponent"),
    (["tic_tac_toe"], "not a two-sided Riposte game"),
])
def test_documented_command_refuses_bad_input_in_one_line(args, needle):
    r = _script(*args)
    assert r.returncode == 2 and r.stdout == ""
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and needle in lines[0]
