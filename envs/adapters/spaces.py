"""Gymnasium spaces of a Riposte game, built once per env from the game's static facts.

* :func:`observation_box` — ``Box(-inf, inf, (observation_size,), float32)``: one side's
  egocentric vector (:meth:`envs.core.protocol.Game.observation`).
* :func:`mask_box` — ``Box(0, 1, (num_distinct_actions,), int8)``: the PettingZoo classic
  ``action_mask`` entry.
* :class:`LegalDiscrete` — ``Discrete(num_distinct_actions)`` whose argument-less ``sample()``
  draws uniformly from the env's *current* legal actions (the learner's mask), so random
  smoke-testing (``env.action_space.sample()``, Gymnasium's and SB3's ``check_env``) plays legal
  moves. It is a plain ``Discrete`` for everything else (``contains``, equality, SB3 policies);
  it never changes what the env accepts — an illegal id still raises in ``step``.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import Any

import numpy as np
from gymnasium import spaces

from envs.core.protocol import Game


def observation_box(game: Game) -> spaces.Box:
    """``Box(-inf, inf, shape=(game.observation_size,), dtype=float32)``."""
    n = int(game.observation_size)
    return spaces.Box(low=-np.inf, high=np.inf, shape=(n,), dtype=np.float32)


def mask_box(game: Game) -> spaces.Box:
    """``Box(0, 1, shape=(game.num_distinct_actions,), dtype=int8)`` (0/1 action mask)."""
    return spaces.Box(low=0, high=1, shape=(int(game.num_distinct_actions),), dtype=np.int8)


class LegalDiscrete(spaces.Discrete):
    """``Discrete(n)`` whose ``sample()`` without ``mask``/``probability`` samples the legal ids
    reported by a mask provider (a bound method of the env, held weakly).

    Args:
        n: number of distinct actions.
        mask_provider: bound method returning a bool array of shape ``(n,)`` (the learner's
            current mask), or ``None``. When it returns an all-false mask (the game has ended)
            or the provider is gone (after pickling/deepcopy), sampling is uniform over ``0..n-1``
            like a plain ``Discrete``.
        seed: seed of the space's own generator (``space.seed(...)``).
    """

    def __init__(self, n: int, mask_provider: Callable[[], np.ndarray] | None = None,
                 seed: int | np.random.Generator | None = None):
        super().__init__(n, seed=seed)
        self._mask_ref: weakref.WeakMethod | None = (
            weakref.WeakMethod(mask_provider) if mask_provider is not None else None)

    def sample(self, mask: Any = None, probability: Any = None) -> np.int64:
        if isinstance(mask, np.ndarray) and mask.dtype == bool:
            mask = mask.astype(np.int8)  # accept the bool masks of action_masks()/info
        if mask is None and probability is None and self._mask_ref is not None:
            provider = self._mask_ref()
            if provider is not None:
                legal = np.asarray(provider(), dtype=bool)
                if legal.any():
                    mask = legal.astype(np.int8)
        return super().sample(mask=mask, probability=probability)

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state["_mask_ref"] = None  # weak references do not pickle; copies sample uniformly
        return state

    def __repr__(self) -> str:
        return f"LegalDiscrete({self.n})"
