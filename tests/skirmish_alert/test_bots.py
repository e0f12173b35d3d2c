"""The skirmish alert bots: built by name, read only the observation and mask, and behave as
named (the heuristic beats random; never-alert never goes on alert or attempts; always-alert
always attempts and re-arms)."""

from __future__ import annotations

import numpy as np
import pytest

from agents import make_agent
from agents.policy import UnknownAgentError
from envs import load_game
from envs.core.chance import sample_chance_outcome


def _play(game, agents, seed: int, log: list | None = None) -> list[float]:
    s = game.new_initial_state()
    rng = np.random.default_rng(seed)
    while not s.is_terminal():
        p = s.current_player()
        if p < 0:
            s.apply_action(sample_chance_outcome(s, rng))
            continue
        a = agents[p].act(game.observation(s, p), s.legal_action_mask())
        if log is not None:
            log.append((p, s.decision_name(), game.actions.labels[a], s.legal_labels()))
        s.apply_action(a)
    return s.returns()


def test_heuristic_beats_random_two_and_four_teams() -> None:
    g = load_game("skirmish_alert", "default", {"rounds": 3})
    total = 0.0
    for i in range(4):
        h, r = make_agent("heuristic", g, i), make_agent("random", g, i)
        ret = _play(g, [h, r] if i % 2 == 0 else [r, h], i)
        total += ret[i % 2]
    assert total / 4 > 0.5
    g4 = load_game("skirmish_alert", "ffa4", {"rounds": 2})
    ret = _play(g4, [make_agent("heuristic", g4, 0)] + [make_agent("random", g4, k)
                                                       for k in (1, 2, 3)], 0)
    assert ret[0] > 0


def test_alert_baselines_do_what_their_names_say() -> None:
    g = load_game("skirmish_alert", "default", {"rounds": 3})
    log: list = []
    _play(g, [make_agent("never-alert", g, 0), make_agent("always-alert", g, 1)], 0, log)
    never = [x for x in log if x[0] == 0]
    always = [x for x in log if x[0] == 1]
    assert not any(lab in ("alert", "keep_alert", "rearm") or lab.startswith("alert:attempt")
                   for _, _, lab, _ in never)
    windows = [x for x in always if x[1] == "reaction"]
    assert windows and all(lab.startswith("alert:attempt") for _, _, lab, _ in windows)
    rearms = [x for x in always if x[1] == "rearm"]
    assert all(lab == "rearm" for _, _, lab, legal in rearms if "rearm" in legal)
    assert any(lab == "alert" for _, _, lab, _ in always)


def test_alert_baselines_refuse_other_rulesets() -> None:
    with pytest.raises(UnknownAgentError, match="skirmish_alert"):
        make_agent("never-alert", load_game("acw_regimental"))
