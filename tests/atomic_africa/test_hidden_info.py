"""Hidden information cannot leak: two games that differ only in side 0's hidden cards (its
draws, hence its deck, its Reserve and its face-down orders) give side 1 the same observation,
action mask, info and rendered view — also in the change loop, where side 1 commits after side
0 (AA-D5: hidden sequential commitment)."""

from __future__ import annotations

import numpy as np
import pytest

from envs.core.errors import IllegalActionError
from envs.core.replay import play_labels

from .helpers import duel_start, game


def _env_with(state):
    from envs.adapters.aec import RiposteAECEnv

    env = RiposteAECEnv(ruleset="atomic_africa", scenario="duel", render_mode="ansi")
    env.reset(seed=0)
    env.game_state = state
    env._after_transition()  # recompute agent_selection and infos for the injected state
    return env


def _views(state, side: int):
    env = _env_with(state)
    agent = env.agent_of(side)
    obs = env.observe(agent)
    info = {k: (v.tolist() if isinstance(v, np.ndarray) else v)
            for k, v in env.infos[agent].items()}
    from envs.adapters._common import render_text

    # the env renders the view of the side on move; the per-side text view otherwise
    view = env.render() if state.current_player() == side else render_text(env.game, state, side)
    return obs["observation"], obs["action_mask"], info, view


#: side 0's hidden cards differ (5 + Q vs 9 + K; the order given is the 5 / the 9); side 1 and
#: every public fact are the same
A = duel_start(("5", "Q"), "assign:5", ("3", "K"), "assign:none")
B = duel_start(("9", "K"), "assign:9", ("3", "K"), "assign:none")


@pytest.mark.parametrize("extra", [
    [],  # side 0 activates (auto) and places its figure: side 1 watches
    ["move:hold", "target:unit0"],  # side 1's Reserve assignment (AA-R4)
    ["move:hold", "target:unit0", "reserve:play:3"],  # side 1's In-transit figure
])
def test_side1_view_ignores_side0_hidden_cards(extra: list[str]) -> None:
    g = game("duel")
    a = play_labels(g.new_initial_state(), A + extra)
    b = play_labels(g.new_initial_state(), B + extra)
    assert a.zones["reserve:0"].cards != b.zones["reserve:0"].cards
    assert a.zones["order:0:0"].cards != b.zones["order:0:0"].cards
    assert a.zones["deck:0"].cards != b.zones["deck:0"].cards
    assert a.current_player() == b.current_player()
    oa, ma, ia, ra = _views(a, 1)
    ob, mb, ib, rb = _views(b, 1)
    assert np.array_equal(oa, ob)
    assert np.array_equal(ma, mb)
    assert ia == ib
    assert ra == rb
    assert g.observation_string(a, 1) == g.observation_string(b, 1)
    # and side 0 does see the difference
    assert not np.array_equal(g.observation(a, 0), g.observation(b, 0))


def test_second_commitment_view_is_the_same_whatever_the_first_committed() -> None:
    g = game("duel")
    base = A + ["move:hold", "target:unit0", "reserve:play:3", "move:hold"]
    a = play_labels(g.new_initial_state(), base + ["reserve:play:Q"])
    b = play_labels(g.new_initial_state(), base + ["reserve:stand"])
    assert a.current_player() == 1 and a.decision_name() == "reserve_play"
    va, vb = _views(a, 1), _views(b, 1)
    assert np.array_equal(va[0], vb[0]) and np.array_equal(va[1], vb[1])
    assert va[2] == vb[2] and va[3] == vb[3]


def test_illegal_action_message_never_names_the_opponents_hidden_cards() -> None:
    g = game("duel")
    s = play_labels(g.new_initial_state(), A + ["move:hold", "target:unit0"])
    assert s.current_player() == 1
    with pytest.raises(IllegalActionError) as e:
        s.apply_action(s.string_to_action("reserve:play:Q"))  # side 0 holds the Q
    msg = str(e.value)
    assert "legal: ['reserve:play:3', 'reserve:play:K']" in msg
    assert "Q" not in msg.replace("reserve:play:Q", "")


def test_full_state_json_keeps_everything_for_saving() -> None:
    g = game("duel")
    s = play_labels(g.new_initial_state(), A)
    t = type(s).from_json(s.to_json())
    assert t.zones["reserve:0"].cards == s.zones["reserve:0"].cards == [11]
    assert t.to_json() == s.to_json()
