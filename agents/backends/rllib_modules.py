"""The RLlib modules of :mod:`agents.backends.rllib` (imports ray and torch at import time, so
only that backend imports this module; RLlib ships the classes to the env runners by name).

* :class:`MaskedActorCritic` — PPO actor-critic with the action mask applied to the logits,
  parameter for parameter sb3-contrib's ``MaskableActorCriticPolicy``.
* :class:`BotModule` — a scripted bot of :mod:`agents.builtin` as a frozen module.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import torch
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.apis.value_function_api import ValueFunctionAPI
from ray.rllib.core.rl_module.rl_module import RLModule
from ray.rllib.core.rl_module.torch.torch_rl_module import TorchRLModule
from torch import nn

__all__ = ["BotModule", "MaskedActorCritic", "masked_logits"]


def masked_logits(logits: torch.Tensor, action_mask: torch.Tensor) -> torch.Tensor:
    """``logits`` (float, (B, A)) with the entries ``action_mask`` (0/1, (B, A)) forbids set to
    the dtype's minimum: their probability under ``softmax`` is exactly 0 (for a row with at
    least one legal action). A row with no legal action (a terminal observation, used only for
    the value bootstrap) becomes uniform, never NaN."""
    return torch.where(action_mask > 0, logits, torch.finfo(logits.dtype).min)


class MaskedActorCritic(TorchRLModule, ValueFunctionAPI):
    """PPO actor-critic with the action mask applied to the logits.

    Observations: ``{"observation": float32 (B, observation_size), "action_mask": 0/1 (B,
    num_distinct_actions)}``; only ``"observation"`` enters the network. Output
    ``ACTION_DIST_INPUTS``: float32 (B, num_distinct_actions), see :func:`masked_logits`.
    ``model_config``: ``net_arch`` (hidden sizes, default ``[256, 256]``), ``activation_fn`` (a
    ``torch.nn`` class name, default ``"Tanh"``). The parameters are named as in
    ``MaskableActorCriticPolicy`` (``mlp_extractor.policy_net.0.weight``, ...,
    ``action_net.*``, ``value_net.*``) and initialised as SB3 does (orthogonal; gains sqrt(2),
    0.01, 1; zero biases)."""

    def setup(self):
        cfg = dict(self.model_config or {})
        arch = [int(v) for v in cfg.get("net_arch", [256, 256])]
        act = getattr(nn, str(cfg.get("activation_fn", "Tanh")))
        n_obs = int(self.observation_space["observation"].shape[0])
        n_act = int(self.action_space.n)

        def mlp() -> nn.Sequential:
            layers: list[nn.Module] = []
            last = n_obs
            for h in arch:
                layers += [nn.Linear(last, h), act()]
                last = h
            return nn.Sequential(*layers)

        self.mlp_extractor = nn.Module()
        self.mlp_extractor.policy_net = mlp()
        self.mlp_extractor.value_net = mlp()
        last = arch[-1] if arch else n_obs
        self.action_net = nn.Linear(last, n_act)
        self.value_net = nn.Linear(last, 1)
        for module, gain in ((self.mlp_extractor, math.sqrt(2)), (self.action_net, 0.01),
                             (self.value_net, 1.0)):
            for m in module.modules():
                if isinstance(m, nn.Linear):
                    nn.init.orthogonal_(m.weight, gain=gain)
                    nn.init.zeros_(m.bias)

    def _forward(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        obs = batch[Columns.OBS]
        logits = self.action_net(self.mlp_extractor.policy_net(obs["observation"]))
        return {Columns.ACTION_DIST_INPUTS: masked_logits(logits, obs["action_mask"])}

    def compute_values(self, batch: dict[str, Any], embeddings: Any = None) -> torch.Tensor:
        obs = batch[Columns.OBS]["observation"]
        return self.value_net(self.mlp_extractor.value_net(obs)).squeeze(-1)


def _numpy(x: Any) -> np.ndarray:
    return x.detach().cpu().numpy() if hasattr(x, "detach") else np.asarray(x)


class BotModule(RLModule):
    """A scripted bot as a frozen module: ``ACTIONS`` int64 (B,) from ``bot.act(observation,
    action_mask)`` row by row. ``model_config``: ``agent`` (a name or checkpoint path for
    :func:`agents.make_agent`), ``ruleset``, ``scenario``, ``seed``, ``trust_checkpoint``.
    Not trainable (keep it out of ``policies_to_train``)."""

    def setup(self):
        from envs import load_game

        from ..builtin import make_agent

        cfg = dict(self.model_config or {})
        game = load_game(cfg["ruleset"], cfg.get("scenario"))
        self.bot = make_agent(cfg["agent"], game, cfg.get("seed"),
                              bool(cfg.get("trust_checkpoint", False)))

    def _forward(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        obs = batch[Columns.OBS]
        x, mask = _numpy(obs["observation"]), _numpy(obs["action_mask"])
        return {Columns.ACTIONS: np.array([self.bot.act(o, m) for o, m in zip(x, mask)],
                                          dtype=np.int64)}

    def _forward_train(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        raise NotImplementedError(f"{self.bot.name} is a scripted bot: not trainable")

    def get_state(self, *args: Any, **kwargs: Any) -> dict[str, Any]:
        return {}

    def set_state(self, state: Any) -> None:
        return None
