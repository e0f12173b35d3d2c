"""Resolving chance nodes with a caller's seeded generator.

The state owns no random generator and never touches ``random`` or ``numpy.random``'s global
state: these helpers take an explicit ``numpy.random.Generator``.
"""

from __future__ import annotations

import numpy as np

from .errors import InvalidStateError
from .protocol import CHANCE, State


def sample_chance_outcome(state: State, rng: np.random.Generator) -> int:
    """Draw one outcome id at a chance node according to ``chance_outcomes()``.

    Raises:
        InvalidStateError: when ``state`` is not at a chance node.
    """
    outcomes = state.chance_outcomes()
    u = rng.random()
    acc = 0.0
    for oid, p in outcomes:
        acc += p
        if u < acc:
            return oid
    return outcomes[-1][0]


def resolve_chance(state: State, rng: np.random.Generator) -> int:
    """Apply sampled outcomes while the state is at a chance node; returns how many."""
    n = 0
    while state.current_player() == CHANCE:
        state.apply_action_unchecked(sample_chance_outcome(state, rng))
        n += 1
    return n


def random_decision(state: State, rng: np.random.Generator) -> int:
    """A uniformly random legal decision id (raises at chance / terminal nodes)."""
    legal = state.legal_actions()
    if not legal or state.current_player() < 0:
        raise InvalidStateError("random_decision() needs a decision node")
    return legal[int(rng.integers(len(legal)))]
