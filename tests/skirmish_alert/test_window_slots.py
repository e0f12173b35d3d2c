"""A team asked twice in one window sees which time it is (AL-22, AL-23, AL-PD-33): the
decision context and the observation carry the slot's place in the window and the team's
slots left, so the two decisions are not aliased (the conformance check
``check_no_aliased_repeats`` fails on them otherwise)."""

from __future__ import annotations

import numpy as np
import pytest

from envs import load_game
from envs.core.testing import ConformanceError, check_no_aliased_repeats

from .test_rules_reference_cases import board, fighter


def twins(tmp_path):
    """8 x 8: Rell (team 0) at (3, 1) facing N with a crossbow; Blix and Bram (team 1) at
    (3, 6) and (5, 6) facing S, crossbows, on alert."""
    keys = {"ref": 2, "sho": 2, "ranged_weapon": "crossbow"}
    return board(tmp_path / "twins.toml", [
        fighter(0, "Rell", 3, 1, "N", ini=3, **keys),
        fighter(1, "Blix", 3, 6, "S", on_alert=True, **keys),
        fighter(1, "Bram", 5, 6, "S", on_alert=True, **keys)])


@pytest.mark.rule("AL-22", "AL-PD-33")
def test_a_team_asked_twice_in_one_window_sees_the_second_time(tmp_path):
    game = load_game("skirmish_alert", str(twins(tmp_path)))
    state = game.new_initial_state()
    while state.is_chance_node():  # every initiative die takes its last outcome
        state.apply_action(state.chance_outcomes()[-1][0])
    state.apply_action(state.string_to_action("move:+0:+1"))
    first = (state.current_player(), state.legal_labels(), state.decision_context(1),
             game.observation(state, 1))
    state.apply_action(state.string_to_action("alert:decline"))
    second = (state.current_player(), state.legal_labels(), state.decision_context(1),
              game.observation(state, 1))
    # the same team, the same choices ...
    assert first[0] == second[0] == 1
    assert first[1] == second[1] == ["alert:attempt:f0", "alert:attempt:f1", "alert:decline"]
    # ... but the first of its two slots, then its last one
    assert (first[2].slot, first[2].slots_left) == (1, 2)
    assert (second[2].slot, second[2].slots_left) == (2, 1)
    assert not np.array_equal(first[3], second[3])
    window = (game.layout.split(first[3])["window"], game.layout.split(second[3])["window"])
    assert window[0].tolist() == [1.0, 0.5, 1 / 8, 0.5]  # n F = 2 x 4 slots, F = 4
    assert window[1].tolist() == [1.0, 0.5, 2 / 8, 0.25]


def test_the_conformance_check_finds_no_aliased_window_and_fails_without_the_slot(
        tmp_path, monkeypatch):
    path = str(twins(tmp_path))
    assert check_no_aliased_repeats(lambda: load_game("skirmish_alert", path), 0,
                                    n_games=8) > 0
    game = load_game("skirmish_alert", path)
    observe = type(game).observation

    def without_slot(self, state, side):  # the observation as it was before the fix
        obs = observe(self, state, side)
        self.layout.split(obs)["window"][2:] = 0.0
        return obs

    monkeypatch.setattr(type(game), "observation", without_slot)
    with pytest.raises(ConformanceError, match="alert:decline"):
        check_no_aliased_repeats(game, 0, n_games=8)
