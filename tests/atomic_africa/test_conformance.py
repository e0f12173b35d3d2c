"""The shared conformance suite (envs.core.testing) on Atomic Africa's scenarios."""

from __future__ import annotations

import pytest

from envs.core.testing import check_random_games, run_all

from .helpers import game


@pytest.mark.slow
@pytest.mark.parametrize("scenario,n", [("duel", 30), ("reaction", 6), ("cleanup_example", 20)])
def test_run_all_passes(scenario: str, n: int) -> None:
    out = run_all(lambda: game(scenario), n_games=n, seed=7)
    rg = out["random_games"]
    assert rg["games"] == n
    assert rg["decisions"] == sum(rg["decision_types"].values())
    assert out["json_round_trips"] > 5 and out["replayed_labels"] > 0
    if scenario != "cleanup_example":
        # the Reserve and the Declaration loop are reached in random play
        for d in ("orders", "activation", "maneuver", "fire", "reaction", "reserve_play"):
            assert rg["decision_types"].get(d, 0) > 0, d


def test_default_battle_random_games() -> None:
    """The platoon battle: random games end, every decision type occurs, results vary."""
    rg = check_random_games(game("default"), 4, seed=3, observe_every=5).to_dict()
    assert rg["games"] == 4
    assert set(rg["decision_types"]) >= {"orders", "activation", "maneuver", "fire",
                                         "reaction", "reserve_assign", "declaration",
                                         "reserve_play", "cleanup"}
    assert 100 < rg["mean_length"] < 1000
