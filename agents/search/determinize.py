"""Hidden information: the search plays out samples of the world drawn from the searching
side's information state, never the true state.

Each simulation starts from a fresh sample, :meth:`envs.core.protocol.State.
resample_from_infostate` (for rulesets without hidden information, a clone), and all
simulations share one tree keyed by the actions taken, as single-observer information-set MCTS
does (Cowling, Powley and Whitehouse 2012): the root statistics combine every sample, and a
node masks its prior with the legal actions of the sample at hand. Everything the network reads
during the search — every side's observation, at the root too — comes from a sample.
"""

from __future__ import annotations

import numpy as np

from envs.core.protocol import State

__all__ = ["sample_world"]


def sample_world(state: State, player: int, rng: np.random.Generator) -> State:
    """A state drawn from ``player``'s information state at ``state`` (a clone when the
    ruleset hides nothing). The searching code reads only such samples.

    Raises:
        InvalidStateError: for a ``player`` that is not a side of the game (from the ruleset).
    """
    return state.resample_from_infostate(player, rng)
