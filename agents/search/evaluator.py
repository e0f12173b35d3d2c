"""Prior and leaf value of the search: the :class:`Evaluator` interface (OpenSpiel's MCTS
evaluator: a prior and a value per player) and :class:`NetworkEvaluator`, the policy and value
heads of a trained MaskablePPO checkpoint.

The value a checkpoint's head predicts is the expected return of the side whose (egocentric)
observation it reads. At a leaf the network reads every side's observation in one batch; the
per-player value is each side's prediction minus the mean over the sides, so the vector sums to
zero like the final returns (for two sides: ``v0 = (V(obs_0) - V(obs_1)) / 2``). The prior is
the logits of the side to move, read from its own observation.

Forward passes run in torch on the network's own modules (no ``predict`` and no
distribution objects), under ``torch.inference_mode``, with one thread per process.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

import numpy as np

__all__ = ["Evaluator", "NetworkEvaluator"]


class Evaluator(Protocol):
    """What the search asks at a new decision node."""

    def evaluate(self, states: Sequence[Any]) -> tuple[np.ndarray, np.ndarray]:
        """Prior logits and values of decision states.

        Args:
            states: ``B`` states, each at a decision (``current_player() >= 0``).

        Returns:
            ``(logits, values)``: ``logits`` float32 ``(B, num_distinct_actions)``, unmasked,
            for each state's side to move; ``values`` float64 ``(B, num_players)``, each
            side's value in [-1, 1] summing to zero.
        """

    def policy_logits(self, states: Sequence[Any]) -> np.ndarray:
        """The prior logits alone (what a rollout's arg-max reads between its first and last
        decision): float32 ``(B, num_distinct_actions)``, unmasked, as in :meth:`evaluate`."""


class NetworkEvaluator:
    """The policy and value heads of a MaskablePPO policy network.

    Args:
        game: the game (observations and sizes).
        policy: an sb3-contrib ``MaskableActorCriticPolicy`` (e.g.
            :attr:`agents.policies.ppo.MaskablePPOPolicy.model` ``.policy``) with a flattening
            features extractor.

    Attributes:
        calls: forward passes made; ``rows``: observations evaluated.
    """

    def __init__(self, game: Any, policy: Any):
        import torch

        torch.set_num_threads(1)
        self._torch = torch
        self.game = game
        self.policy = policy
        mlp = policy.mlp_extractor
        self._pi = torch.nn.Sequential(mlp.policy_net, policy.action_net).eval()
        self._vf = torch.nn.Sequential(mlp.value_net, policy.value_net).eval()
        self.calls = 0
        self.rows = 0

    def forward(self, observations: np.ndarray,
                policy_rows: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """``(logits float32 (R, A), values float32 (B,))`` of observations float32
        ``(B, observation_size)``, each value from its observer's point of view; the logits
        of the rows ``policy_rows`` (int64 indices; None: all B rows)."""
        torch = self._torch
        self.calls += 1
        self.rows += len(observations)
        with torch.inference_mode():
            x = torch.from_numpy(np.ascontiguousarray(observations, dtype=np.float32))
            px = x if policy_rows is None else x[torch.from_numpy(policy_rows)]
            return self._pi(px).numpy(), self._vf(x).numpy()[:, 0]

    def evaluate(self, states: Sequence[Any]) -> tuple[np.ndarray, np.ndarray]:
        """See :meth:`Evaluator.evaluate`."""
        g = self.game
        n = g.num_players
        obs = np.empty((len(states) * n, g.observation_size), dtype=np.float32)
        for i, st in enumerate(states):
            for side in range(n):
                obs[i * n + side] = g.observation(st, side)
        movers = np.array([i * n + st.current_player() for i, st in enumerate(states)])
        logits, values = self.forward(obs, movers)  # every side's value, the mover's policy
        v = np.clip(values.astype(np.float64).reshape(len(states), n), -1.0, 1.0)
        return logits, v - v.mean(axis=1, keepdims=True)

    def policy_logits(self, states: Sequence[Any]) -> np.ndarray:
        """See :meth:`Evaluator.policy_logits`: one observation per state (the side to move's)
        and the policy head only, about ``1 / num_players`` of :meth:`evaluate`'s cost."""
        g = self.game
        obs = np.empty((len(states), g.observation_size), dtype=np.float32)
        for i, st in enumerate(states):
            obs[i] = g.observation(st, st.current_player())
        return self.policy_forward(obs)

    def policy_forward(self, observations: np.ndarray) -> np.ndarray:
        """The policy head alone: logits float32 ``(B, A)`` of observations float32
        ``(B, observation_size)``."""
        torch = self._torch
        self.calls += 1
        self.rows += len(observations)
        with torch.inference_mode():
            x = torch.from_numpy(np.ascontiguousarray(observations, dtype=np.float32))
            return self._pi(x).numpy()
