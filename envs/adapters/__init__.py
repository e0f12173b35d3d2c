"""PettingZoo and Gymnasium adapters over any Riposte ruleset.

* :class:`~envs.adapters.single_agent.RiposteGymEnv` — Gymnasium single-agent env (one learner
  seat + an opponent policy), registered as ``riposte/ACWRegimental-v0``.
* :class:`~envs.adapters.aec.RiposteAECEnv` — PettingZoo AEC env (``envs.acw_regimental_v0``).

Importing this package registers the env ids (:func:`~envs.adapters.registration.register_envs`).
``envs/__init__.py``, ``envs.core`` and ``envs.rulesets`` never import this package.
"""

from __future__ import annotations

from .aec import RiposteAECEnv
from .registration import register_envs
from .single_agent import OpponentSampler, RiposteGymEnv
from .wrappers import IllegalActionLoss, OrderEnforcing

register_envs()

__all__ = ["IllegalActionLoss", "OpponentSampler", "OrderEnforcing", "RiposteAECEnv",
           "RiposteGymEnv", "register_envs"]
