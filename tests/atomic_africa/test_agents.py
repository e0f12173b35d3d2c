"""The Atomic Africa bots: usable by name, reading only their side's observation, with the
Reserve policies their names promise."""

from __future__ import annotations

import numpy as np
import pytest

from agents import make_agent
from agents.builtin import panel_for
from agents.policies.base import UnknownAgentError
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


def _reserve_plays(g, bots, seed: int) -> dict[int, list[str]]:
    """The labels each side chose at its ``reserve_play`` decisions in one game."""
    s = g.new_initial_state()
    rng = np.random.default_rng(seed)
    out: dict[int, list[str]] = {0: [], 1: []}
    while not s.is_terminal():
        resolve_chance(s, rng)
        if s.is_terminal():
            break
        p = s.current_player()
        a = bots[p].act(g.observation(s, p), s.legal_action_mask())
        if s.decision_name() == "reserve_play":
            out[p].append(g.actions.labels[a])
        s.apply_action(a)
    return out


def test_heuristic_beats_random_on_the_platoon_battle() -> None:
    g = game("default")
    wins = 0
    for k in range(4):
        h, r = make_agent("heuristic", g, k), make_agent("random", g, k)
        bots = [h, r] if k % 2 == 0 else [r, h]
        wins += _play(g, bots, seed=k)[k % 2] > 0
    assert wins >= 3


def test_reserve_policies_differ_on_the_platoon_battle() -> None:
    """All three bots keep a Reserve on the default battle, so each reaches the change loop
    with cards in hand and plays it its own way (AA-D4)."""
    g = game("default")
    plays = {}
    for name in ("heuristic", "never-reserve", "always-reserve"):
        got: list[str] = []
        for k in range(2):
            by_side = _reserve_plays(g, [make_agent(name, g, k), make_agent(name, g, k)], k)
            got += by_side[0] + by_side[1]
        plays[name] = got
    never, always, heur = plays["never-reserve"], plays["always-reserve"], plays["heuristic"]
    assert len(never) >= 4 and set(never) == {"reserve:stand"}
    assert len(always) >= 4 and all(lab.startswith("reserve:play:") for lab in always)
    assert "reserve:stand" in heur and any(lab.startswith("reserve:play:") for lab in heur)
