"""MaskablePPO glue: a trained sb3-contrib model as a :class:`~agents.policies.base.Policy`.

The forward pass is done directly on the policy network (features -> actor MLP -> logits), the
masked-out logits are set to ``-inf`` and the action is the arg-max (``deterministic=True``, the
same choice as ``model.predict(obs, action_masks=mask, deterministic=True)``) or a sample drawn
with the policy's own ``numpy.random.Generator`` (``deterministic=False``, used for self-play
opponents), so the tournament's seeding controls it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from .base import AgentLoadError, BasePolicy, SeedLike, legal_ids


def _torch():
    import torch  # local import: loading the agents package must not require torch

    return torch


def quiet_logger() -> Any:
    """A stable-baselines3 ``Logger`` that records values (``model.logger.record``) and writes
    nowhere. ``configure(None, [])`` — and ``learn()`` without a TensorBoard folder at
    ``verbose=0`` — would make an empty ``$TMPDIR/SB3-<date>`` directory on every call."""
    from stable_baselines3.common.logger import Logger

    return Logger(folder=None, output_formats=[])


class MaskablePPOPolicy(BasePolicy):
    """A MaskablePPO model playing through ``act(observation, action_mask)``.

    Args:
        model: a ``sb3_contrib.MaskablePPO`` (live or loaded).
        deterministic: arg-max of the masked logits (default) or a sample from them.
        seed: seed of the generator used when sampling.
        name: display name (default ``"ppo"``).
    """

    name = "ppo"
    #: the actor's weights as numpy arrays, and the model update they were read at
    _np_params: list[tuple[str, Any, Any]] | None
    _np_key: Any

    def __init__(self, model: Any, deterministic: bool = True, seed: SeedLike = None,
                 name: str | None = None):
        super().__init__(seed, name)
        self.model = model
        self.deterministic = deterministic

    @classmethod
    def load(cls, path: str | Path, game: Any | None = None, deterministic: bool = True,
             seed: SeedLike = None, name: str | None = None,
             trust: bool = False) -> "MaskablePPOPolicy":
        """Load a checkpoint saved by ``train.py`` (a ``.zip``) without unpickling anything
        (see :mod:`agents.policies.checkpoint`).

        Args:
            path: the checkpoint file.
            game: when given, the model's observation / action sizes (and the ruleset its
                config names) are checked against ``game``.
            trust: also load a checkpoint without Riposte's config, with SB3's full loader
                (which unpickles objects from the file: ``--trust-checkpoint``).

        Raises:
            UnsafeCheckpointError: for a checkpoint that would need unpickling, unless
                ``trust``.
            AgentLoadError: naming ``path`` when the file is missing, is not a readable
                MaskablePPO zip, or does not fit ``game``.
        """
        from .checkpoint import load_policy_model

        model = load_policy_model(path, trust=trust)
        if game is not None:
            obs_shape = tuple(model.observation_space.shape or ())
            n_act = int(getattr(model.action_space, "n", -1))
            cfg = getattr(model, "config", None) or {}
            if obs_shape != (game.observation_size,) or n_act != game.num_distinct_actions:
                origin = (f" (trained on {cfg['ruleset']}/{cfg.get('scenario')})"
                          if cfg.get("ruleset") else "")
                raise AgentLoadError(
                    f"checkpoint {str(path)!r} expects observations {obs_shape} and {n_act} "
                    f"actions{origin}, but {game.ruleset_id}/{game.scenario_name} has "
                    f"({game.observation_size},) and {game.num_distinct_actions}")
            ruleset = cfg.get("ruleset")
            if ruleset is not None and ruleset != game.ruleset_id:
                raise AgentLoadError(f"checkpoint {str(path)!r} was trained on ruleset "
                                     f"{ruleset!r}, not {game.ruleset_id!r}")
        return cls(model, deterministic=deterministic, seed=seed, name=name or Path(path).stem)

    def logits(self, observation: np.ndarray) -> np.ndarray:
        """Unmasked action logits, float32 array of shape ``(num_distinct_actions,)``.

        For the standard architecture (flattened Box observation, MLP actor of Linear layers
        with Tanh/ReLU, linear action head) the forward pass runs in numpy on a copy of the
        weights, refreshed whenever the model has been updated (``model._n_updates`` changes);
        other architectures go through torch.
        """
        params = self._numpy_params()
        if params is None:
            return self._torch_logits(observation)
        h = np.asarray(observation, dtype=np.float32).reshape(-1)
        for kind, w, b in params:
            if kind == "linear":
                h = w @ h + b
            elif kind == "tanh":
                h = np.tanh(h)
            else:
                h = np.maximum(h, 0.0)
        return h

    def _numpy_params(self) -> list[tuple[str, Any, Any]] | None:
        key = getattr(self.model, "_n_updates", None)
        if getattr(self, "_np_key", object()) == key:
            return self._np_params
        self._np_key = key
        self._np_params = _numpy_actor(self.model.policy)
        return self._np_params

    def _torch_logits(self, observation: np.ndarray) -> np.ndarray:
        torch = _torch()
        from stable_baselines3.common.preprocessing import preprocess_obs

        policy = self.model.policy
        with torch.no_grad():
            obs_t = torch.as_tensor(np.asarray(observation, dtype=np.float32)).reshape(1, -1)
            obs_t = preprocess_obs(obs_t, policy.observation_space)
            features = policy.pi_features_extractor(obs_t)
            latent = policy.mlp_extractor.forward_actor(features)
            return policy.action_net(latent)[0].numpy()

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        legal = legal_ids(action_mask)
        if legal.size == 1:
            return int(legal[0])
        logits = self.logits(observation).astype(np.float64)[legal]
        if self.deterministic:
            return int(legal[int(np.argmax(logits))])
        z = np.exp(logits - logits.max())
        return int(legal[int(self.rng.choice(legal.size, p=z / z.sum()))])


def _numpy_actor(policy: Any) -> list[tuple[str, Any, Any]] | None:
    """The actor of an sb3 ``MlpPolicy`` as numpy ``(kind, weight, bias)`` layers, or ``None``
    when the architecture is not the plain flatten -> MLP -> linear head one."""
    torch = _torch()
    from gymnasium import spaces
    from stable_baselines3.common.preprocessing import is_image_space
    from stable_baselines3.common.torch_layers import FlattenExtractor

    space = policy.observation_space
    if not isinstance(space, spaces.Box) or is_image_space(space):
        return None
    if not isinstance(policy.pi_features_extractor, FlattenExtractor):
        return None
    layers: list[tuple[str, Any, Any]] = []
    modules = list(policy.mlp_extractor.policy_net) + [policy.action_net]
    with torch.no_grad():
        for mod in modules:
            if isinstance(mod, torch.nn.Linear):
                layers.append(("linear", mod.weight.detach().cpu().numpy().astype(np.float32),
                               mod.bias.detach().cpu().numpy().astype(np.float32)))
            elif isinstance(mod, torch.nn.Tanh):
                layers.append(("tanh", None, None))
            elif isinstance(mod, torch.nn.ReLU):
                layers.append(("relu", None, None))
            else:
                return None
    return layers
