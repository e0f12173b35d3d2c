"""The legal lists built from the squares a fighter can reach (.legality.legal_turn_ids,
legal_react_ids) equal the label-by-label answer of why_not (AL-PD-15, AL-PD-16, AL-16) at
every own-turn and reaction-menu decision of seeded random games on every built-in
scenario."""

from __future__ import annotations

import numpy as np
import pytest

from envs import load_game
from envs.core.chance import sample_chance_outcome
from envs.rulesets.skirmish_alert.legality import legal_react_ids, legal_turn_ids, why_not
from envs.rulesets.skirmish_alert.queries import legal_scope

SCENARIOS = ["default", "duel", "ffa3", "ffa4", "three_teams", "dodge", "knockdown"]


@pytest.mark.rule("AL-PD-15", "AL-PD-16", "AL-16")
@pytest.mark.parametrize("scenario", SCENARIOS)
def test_reach_built_legal_lists_equal_why_not(scenario: str) -> None:
    game = load_game("skirmish_alert", scenario)
    rng = np.random.default_rng(3)
    compared = 0
    for _ in range(2):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(sample_chance_outcome(state, rng))
                continue
            for f in state.live():
                with legal_scope(state):
                    fast = (legal_turn_ids(state, f), legal_react_ids(state, f))
                    slow = ([i for i in game.turn_ids if why_not(state, f, game.acts[i]) is None],
                            [i for i in game.react_ids
                             if why_not(state, f, game.acts[i]) is None])
                assert fast == slow, (f.name, state.round)
                compared += 1
            legal = state.legal_actions()
            state.apply_action(legal[int(rng.integers(len(legal)))])
    assert compared > 20
