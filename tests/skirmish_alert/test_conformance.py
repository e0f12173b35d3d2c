"""The core conformance suite (envs.core.testing.run_all) on 2, 3 and 4 teams, with few games
(the 1,000-game runs per team count are ``python -m envs.cli.fuzz``-style benchmark runs, see the
README); and the rule-id coverage: every seed rule AL-1 … AL-27 is named by a test."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from envs import load_game
from envs.core.testing import run_all


@pytest.mark.slow
@pytest.mark.parametrize("scenario,teams,params", [
    ("duel", 2, {}), ("default", 2, {"rounds": 2}), ("ffa3", 3, {"rounds": 1}),
    ("ffa4", 4, {"rounds": 1}), ("three_teams", 3, {"reaction_timing": "before_effect"}),
    ("duel", 2, {"maintain_timing": "round_start"}), ("duel", 2, {"max_decisions": 12}),
])
def test_conformance(scenario: str, teams: int, params: dict) -> None:
    g = load_game("skirmish_alert", scenario, params)
    assert g.num_players == teams
    out = run_all(lambda: load_game("skirmish_alert", scenario, params), n_games=6, seed=1,
                  json_every_step=False, clone_games=1, replay_games=1, illegal_games=1)
    assert out["random_games"]["games"] == 6


def test_every_seed_rule_id_is_named_by_a_test() -> None:
    text = "".join(p.read_text() for p in Path(__file__).parent.glob("test_*.py"))
    named = {int(m) for m in re.findall(r"al(\d+)", text.lower().replace("-", ""))}
    assert set(range(1, 28)) - named == set()


@pytest.mark.parametrize("cap", [10, 60])
def test_the_decision_cap_ends_the_game_scored_as_it_stands(cap: int) -> None:
    """params.max_decisions: the decision that reaches it ends the game (chance outcomes are
    not counted), with the returns of the VP as they stand; without it the game goes on."""
    import numpy as np

    from envs.core.testing import play_random_game

    def play(params):
        return play_random_game(load_game("skirmish_alert", "default", params),
                                np.random.default_rng(4))

    free = play({})
    decisions = sum(1 for p, _ in free.history if p >= 0)
    assert decisions > 60  # the uncapped game is longer than either cap
    capped = play({"max_decisions": cap})
    assert sum(1 for p, _ in capped.history if p >= 0) == cap
    assert capped.history == free.history[:len(capped.history)]  # the same game, cut short
    last = capped.events[-1]
    assert last.kind == "decision_cap" and last.data["scores"] == capped.scores()
    pl = capped.placements()
    assert capped.returns() == [1.0 if pl[0] < pl[1] else -1.0 if pl[0] > pl[1] else 0.0,
                                1.0 if pl[1] < pl[0] else -1.0 if pl[1] > pl[0] else 0.0]
    from envs.core.protocol import State

    again = State.from_json(capped.to_json())  # the ended game reads back ended
    assert again.is_terminal() and again.returns() == capped.returns()
