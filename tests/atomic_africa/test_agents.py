"""The Atomic Africa bots: usable by name, reading only their side's observation, with the
Reserve policies their names promise."""

from __future__ import annotations

import numpy as np
import pytest

from agents import make_agent
from agents.builtin import panel_for
from agents.policy import UnknownAgentError
from envs.core.chance import resolve_chance
from envs.core.replay import play_labels
from envs.rulesets import load_game

from .helpers import duel_start, game


def _play(g, bots, seed: int) -> list[float]:
    s = g.new_initial_state()
    rng = np.random.default_rng(seed)
    while not s.is_terminal():
        resolve_chance(s, rng)
        if s.is_terminal():
            break
        p = s.current_player()
        s.apply_action(bots[p].act(g.observation(s, p), s.legal_action_mask()))
    return s.returns()


def test_bots_by_name_and_panel() -> None:
    g = game("duel")
    for name in ("heuristic", "never-reserve", "always-reserve"):
        assert make_agent(name, g, seed=0).name == name
    assert panel_for("atomic_africa") == ["random", "heuristic", "never-reserve",
                                          "always-reserve"]
    with pytest.raises(UnknownAgentError, match="atomic_africa"):
        make_agent("never-reserve", load_game("acw_regimental"), seed=0)


def test_heuristic_reads_only_its_observation() -> None:
    g = game("duel")
    h = make_agent("heuristic", g, seed=0)
    a = play_labels(g.new_initial_state(), duel_start(("5", "Q"), "assign:5", ("3", "K"),
                                                      "assign:none") + ["move:hold", "target:unit0"])
    b = play_labels(g.new_initial_state(), duel_start(("9", "K"), "assign:9", ("3", "K"),
                                                      "assign:none") + ["move:hold", "target:unit0"])
    assert a.current_player() == 1
    assert h.act(g.observation(a, 1), a.legal_action_mask()) == \
        h.act(g.observation(b, 1), b.legal_action_mask())


def test_reserve_baselines_in_the_change_loop() -> None:
    g = game("duel")
    s = play_labels(g.new_initial_state(), duel_start(("5", "Q"), "assign:5", ("3", "K"),
                                                      "assign:none")
                    + ["move:hold", "target:unit0", "reserve:play:3", "move:hold"])
    assert s.decision_name() == "reserve_play" and s.current_player() == 0
    obs, mask = g.observation(s, 0), s.legal_action_mask()
    lab = g.actions.labels
    assert lab[make_agent("never-reserve", g, 0).act(obs, mask)] == "reserve:stand"
    assert lab[make_agent("always-reserve", g, 0).act(obs, mask)] == "reserve:play:Q"
    # the heuristic replaces a low revealed card (the 5) with a face card
    assert lab[make_agent("heuristic", g, 0).act(obs, mask)] == "reserve:play:Q"


def test_heuristic_beats_random_in_the_duel() -> None:
    g = game("duel")
    score = 0.0
    n = 16
    for k in range(n):
        h, r = make_agent("heuristic", g, k), make_agent("random", g, k)
        bots = [h, r] if k % 2 == 0 else [r, h]
        ret = _play(g, bots, seed=k)
        me = ret[k % 2]
        score += 1.0 if me > 0 else 0.5 if me == 0 else 0.0
    assert score / n > 0.6
