"""The ACW observation vectors are pinned: a SHA-256 over both sides' vectors at every decision
of a fixed set of seeded games. A speed change of the observer or of the envs (caching, reuse
of unit rows, vectorised envs) must leave the digest unchanged; a deliberate, documented change
of the observation updates the pinned value.

The games: random play on the Crossroads battle and on each worked-example scenario (decisions
and dice from ``numpy.random.default_rng([seed, i])``), plus "aggressive" random games on
Crossroads (activations, advances, charges, fire and reactions preferred), which reach fights,
charges and losses that uniform play rarely does. The policies are written out here, not taken
from :mod:`agents`, so improving a bot does not move the digest.
"""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

from envs.core.chance import sample_chance_outcome
from envs.core.protocol import CHANCE, TERMINAL

from . import require_ruleset

#: (scenario, policy, games): the fixed set of games the digest covers
GAMES = (("crossroads", "random", 8), ("crossroads", "aggressive", 4),
         ("example_a_closing_volley", "random", 3), ("example_b_refuse_flank", "random", 3),
         ("example_c_opportunity_fire", "random", 3))
#: label prefixes the aggressive games prefer
AGGRESSIVE = ("activate:", "advance:all", "charge:", "fire:", "react:closing_volley",
              "react:opportunity_fire", "react:counter_charge", "melee:advance")
#: the digest of those games' observation vectors (taken on main before the throughput work
#: of issue 10, i.e. before the observer reused unit rows)
PINNED = "caf5c204754cb5b3d76c0279f692a4e89ce1783ce7608b19f4801cca2c3ca9e8"


def observation_digest(games=GAMES, seed: int = 11) -> tuple[str, int]:
    """``(sha256 hex, decisions)`` over ``side | decision | obs(side 0) | obs(side 1)`` at every
    decision of ``games``."""
    from envs import load_game

    h = hashlib.sha256()
    decisions = 0
    for scenario, policy, n in games:
        game = load_game("acw_regimental", scenario)
        for i in range(n):
            rng = np.random.default_rng([seed, i])
            labels = game.actions.labels
            state = game.new_initial_state()
            while (p := state.current_player()) != TERMINAL:
                if p == CHANCE:
                    state.apply_action(sample_chance_outcome(state, rng))
                    continue
                obs = [game.observation(state, s) for s in (0, 1)]
                assert all(o.dtype == np.float32 and o.shape == (game.observation_size,)
                           for o in obs)
                h.update(f"{p}|{state.decision_name()}|".encode())
                h.update(obs[0].tobytes())
                h.update(obs[1].tobytes())
                decisions += 1
                legal = state.legal_actions()
                if policy == "aggressive" and rng.random() < 0.8:
                    keen = [a for a in legal if labels[a].startswith(AGGRESSIVE)]
                    legal = keen or legal
                state.apply_action(legal[int(rng.integers(len(legal)))])
    return h.hexdigest(), decisions


@pytest.mark.slow
def test_observation_vectors_are_pinned():
    require_ruleset("acw_regimental")
    digest, decisions = observation_digest()
    assert decisions > 3000  # the games reach well into the battle
    assert digest == PINNED


def test_gym_env_hands_out_the_observers_vectors():
    """What the single-agent env returns to the learner and passes to its opponent is exactly
    ``game.observation`` of the state at that moment (whatever the env caches or reuses)."""
    require_ruleset("acw_regimental")
    from agents import make_agent
    from envs.adapters import RiposteGymEnv

    env = RiposteGymEnv("acw_regimental", seat="random")
    game = env.game
    bot = make_agent("heuristic", game, seed=3)
    seen = {"opponent": 0, "learner": 0}

    def opponent(obs, mask):
        p = env.state.current_player()
        np.testing.assert_array_equal(obs, game.observation(env.state, p))
        np.testing.assert_array_equal(mask, env.state.legal_action_mask())
        seen["opponent"] += 1
        return bot.act(obs, mask)

    env.set_opponent(opponent)
    for seed in range(3):
        obs, info = env.reset(seed=seed)
        done = False
        while not done:
            np.testing.assert_array_equal(obs, game.observation(env.state, env.learner))
            np.testing.assert_array_equal(info["action_mask"], env.action_masks())
            seen["learner"] += 1
            obs, _, term, trunc, info = env.step(bot.act(obs, env.action_masks()))
            done = term or trunc
        np.testing.assert_array_equal(obs, game.observation(env.state, env.learner))
    assert seen["opponent"] > 100 and seen["learner"] > 100


def test_reused_unit_rows_equal_fresh_ones():
    """The observer's row cache returns, for every live unit at every decision of seeded random
    games, exactly the row built afresh (both views)."""
    require_ruleset("acw_regimental")
    from envs import load_game
    from envs.rulesets.acw_regimental import observer

    game = load_game("acw_regimental")
    W, D = game.terrain.width, game.terrain.depth
    checked = 0
    for i in range(3):
        rng = np.random.default_rng([5, i])
        state = game.new_initial_state()
        while (p := state.current_player()) != TERMINAL:
            if p == CHANCE:
                state.apply_action(sample_chance_outcome(state, rng))
                continue
            for side in (0, 1):
                for u in (u for s in (0, 1) for u in state.units[s] if u is not None and u.alive):
                    fresh = observer.unit_row(u, side, W, D)
                    got = observer.cached_unit_row(u, side, W, D)
                    assert np.array(got, np.float32).tobytes() == \
                        np.array(fresh, np.float32).tobytes()
                    checked += 1
            legal = state.legal_actions()
            state.apply_action(legal[int(rng.integers(len(legal)))])
    assert checked > 10_000
