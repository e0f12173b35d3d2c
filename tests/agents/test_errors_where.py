"""Errors that say where: no mask / all-false mask messages, the all-false mask at a decision
named by side, decision type and step, info["opponent"], per-opponent win rates logged."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from agents import RandomPolicy, make_agent
from agents.evaluation.tournament import play_game
from envs import load_game
from envs.core.errors import InvalidStateError
from tests.toy_ruleset import ToyGame, ToyState


def test_act_without_mask_says_no_mask_was_given():
    g = load_game("toy")
    obs = np.zeros(g.observation_size, dtype=np.float32)
    for name in ("random", "never-react", "always-react"):
        with pytest.raises(InvalidStateError, match=r"without an action mask \(None\)"):
            make_agent(name, g, 0).act(obs, None)
        with pytest.raises(InvalidStateError, match="all-false action mask: no action is legal"):
            make_agent(name, g, 0).act(obs, np.zeros(g.num_distinct_actions, dtype=bool))


class _NoLegalReaction(ToyState):
    def _legal_actions(self) -> list[int]:
        return [] if self.phase == "react" else super()._legal_actions()


class _NoLegalGame(ToyGame):
    def new_initial_state(self) -> ToyState:
        return _NoLegalReaction(self)


def test_all_false_mask_at_a_decision_names_side_decision_and_step():
    g = _NoLegalGame()
    with pytest.raises(InvalidStateError) as ei:
        play_game(g, [RandomPolicy(0), RandomPolicy(1)], np.random.default_rng(0))
    import re

    msg = str(ei.value)
    m = re.fullmatch(r"all-false action mask at a decision: side (\d) \((\w+)\), decision "
                     r"'reaction', step (\d+) \(the ruleset offers no action\)", msg)
    assert m, msg
    assert m.group(2) == g.side_names[int(m.group(1))] and int(m.group(3)) >= 1

    from envs.adapters.single_agent import RiposteGymEnv

    env = RiposteGymEnv("toy", seat=0)
    env.game = g  # the learner attacks, the opponent's reaction window offers nothing
    env.reset(seed=0)
    with pytest.raises(InvalidStateError, match=r"all-false action mask at a decision: side 1 "
                                                r"\(\w+\), decision 'reaction', step \d+"):
        for _ in range(50):
            env.step(int(np.flatnonzero(env.action_masks())[0]))


def test_info_names_the_opponent():
    from envs.adapters.single_agent import RiposteGymEnv

    env = RiposteGymEnv("toy", seat=0)
    _, info = env.reset(seed=1)
    assert info["opponent"] == "random"
    env = RiposteGymEnv("toy", seat=0, opponent=RandomPolicy(0, name="bob"))
    _, info = env.reset(seed=1)
    assert info["opponent"] == "bob"
    done = False
    while not done:
        _, _, term, trunc, info = env.step(int(np.flatnonzero(env.action_masks())[0]))
        assert info["opponent"] == "bob"
        done = term or trunc


@pytest.mark.slow
def test_win_rate_per_opponent_is_logged_at_rollout_end(tmp_path):
    from agents.training.callbacks import SelfPlayCallback

    logged: dict[str, float] = {}
    cb = SelfPlayCallback(run_dir=tmp_path, pool=None, game=None, eval_opponents={},
                          snapshot_freq=10**9, checkpoint_freq=10**9, eval_freq=0,
                          eval_games=0, eval_seed=0)
    cb.model = SimpleNamespace(logger=SimpleNamespace(
        record=lambda k, v: logged.__setitem__(k, v)))
    ends = [({"opponent": "heuristic", "side": 0, "returns": [1, -1], "winner": 0}, True),
            ({"opponent": "heuristic", "side": 1, "returns": [1, -1], "winner": 0}, True),
            ({"opponent": "snapshot:snapshot_0000000128", "side": 1, "returns": [0, 0],
              "winner": None}, True),
            ({"opponent": "random", "side": 0}, False)]  # still running: not counted
    for info, done in ends:
        cb.locals = {"infos": [info], "dones": np.array([done])}
        cb._tally_episodes()
    cb._on_rollout_end()
    assert logged == {"selfplay/win_rate_vs_heuristic": 0.5,
                      "selfplay/episodes_vs_heuristic": 2,
                      "selfplay/win_rate_vs_snapshot": 0.5,
                      "selfplay/episodes_vs_snapshot": 1}
    logged.clear()
    cb._on_rollout_end()
    assert logged == {}
