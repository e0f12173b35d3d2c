"""The shared conformance suite: protocol checks every ruleset must pass.

In the spirit of OpenSpiel's ``random_sim_test`` and ``pettingzoo.test.api_test``: each check
takes a :class:`~envs.core.protocol.Game` (or a zero-argument factory returning one) and a seed,
plays random legal games and raises :class:`ConformanceError` with a precise message — game
index, seed, step, decision and the labels played so far — at the first violation. A ruleset's
test module runs :func:`run_all` on its default scenario; unit tests of a new ruleset can run the
single checks while the ruleset is being written.

Randomness: every check draws from ``numpy.random.default_rng((seed, game_index))`` (decisions
uniform over the legal list, chance outcomes with
:func:`envs.core.chance.sample_chance_outcome`), so a failure is reproduced by
:func:`play_random_game` with the seed named in the message. :func:`check_determinism`
deliberately disturbs the *global* ``random`` and ``numpy.random`` generators to prove the engine
never reads them; it restores both afterwards.

Imports only the standard library, numpy and :mod:`envs.core`.
"""

from __future__ import annotations

import json
from typing import Any

from .common import (_as_game, ConformanceError, _Ctx, game_rng, GameOrFactory, play_random_game,
                     RandomGamesStats)
from .random_play import check_game_static, check_random_games
from .fuzz import COUNTER_KEYS, fuzz_game, FuzzGameResult
from .round_trips import (check_clone_independence, check_json_round_trip, check_pickle_round_trip,
                          check_replay)
from .determinism import check_cross_process_determinism, check_determinism
from .actions import check_every_legal_action_applies, check_illegal_action_raises
from .aliasing import check_no_aliased_repeats

__all__ = [
    "COUNTER_KEYS", "ConformanceError", "FuzzGameResult", "RandomGamesStats",
    "check_clone_independence",
    "check_cross_process_determinism", "check_determinism", "check_every_legal_action_applies",
    "check_game_static", "check_illegal_action_raises", "check_json_round_trip", "check_no_aliased_repeats",
    "check_pickle_round_trip", "check_random_games", "check_replay", "game_rng",
    "fuzz_game", "play_random_game", "run_all",
]


# -- everything ---------------------------------------------------------------------------------
def run_all(game_factory: GameOrFactory, n_games: int, seed: int, *,
            json_games: int = 1, json_every_step: bool = True, clone_games: int = 2,
            replay_games: int = 3, illegal_games: int = 2, apply_games: int = 1,
            why_illegal_samples: int = 3,
            observe_every: int = 1, pickle_games: int = 1,
            alias_games: int = 2) -> dict[str, Any]:
    """Run every check of this module; the game must not change while they run.

    Args:
        game_factory: a game or a zero-argument factory (determinism then builds two games).
        n_games: random games for :func:`check_random_games`.
        seed: suite seed (each check derives its generators from it).

    Returns:
        a dict with the keys ``random_games`` (``RandomGamesStats.to_dict()``),
        ``clone_points``, ``json_round_trips``, ``replayed_labels``,
        ``legal_actions_applied``, ``refusals``, ``pickle_points`` and
        ``same_side_repeats`` (counts; the last: consecutive decisions of one side compared
        by :func:`check_no_aliased_repeats` in ``alias_games`` games).

    Raises:
        ConformanceError: at the first violation.
    """
    g = _as_game(game_factory)
    config = json.dumps(g.config(), sort_keys=True)
    check_game_static(g)
    out: dict[str, Any] = {}
    out["random_games"] = check_random_games(
        g, n_games, seed, why_illegal_samples=why_illegal_samples,
        observe_every=observe_every).to_dict()
    out["clone_points"] = check_clone_independence(g, seed, n_games=clone_games)
    out["json_round_trips"] = check_json_round_trip(g, seed, every_step=json_every_step,
                                                    n_games=json_games)
    out["replayed_labels"] = check_replay(g, seed, n_games=replay_games)
    check_determinism(game_factory, seed)
    out["legal_actions_applied"] = check_every_legal_action_applies(g, seed, n_games=apply_games)
    out["refusals"] = check_illegal_action_raises(g, seed, n_games=illegal_games)
    out["pickle_points"] = check_pickle_round_trip(g, seed, n_games=pickle_games)
    out["same_side_repeats"] = check_no_aliased_repeats(g, seed, n_games=alias_games)
    if json.dumps(g.config(), sort_keys=True) != config:
        raise _Ctx("run_all", seed).fail(None, f"game.config() changed while the suite ran: "
                                               f"{config} -> {json.dumps(g.config())}")
    return out
