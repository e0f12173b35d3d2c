"""Riposte agents: policies, reaction baselines, scripted heuristics, MaskablePPO glue, the
self-play opponent pool, tournaments and ratings.

A policy is anything with ``act(observation, action_mask) -> int`` (see :mod:`agents.policy`).
Modules: :mod:`~agents.policy` (protocol, random), :mod:`~agents.baselines` (never / always
react), :mod:`~agents.heuristic` (scripted ACW bot), :mod:`~agents.panel` (the ACW bots
``stand-and-fire`` and ``rush``), :mod:`~agents.ppo` (MaskablePPO checkpoints
as policies), :mod:`~agents.selfplay` (opponent pool), :mod:`~agents.bc` (behaviour-cloning warm
start), :mod:`~agents.training` (vec env, timing, callback for ``train.py``),
:mod:`~agents.tournament` and :mod:`~agents.ratings` (``evaluate.py``).
:func:`make_agent` builds one from a built-in name or a checkpoint path::

    from agents import make_agent
    bot = make_agent("heuristic", game, seed=0)
    ppo = make_agent("runs/default/final_model.zip", game, seed=0)
"""

from __future__ import annotations

from .baselines import AlwaysReact, NeverReact
from .heuristic import ACWHeuristic, heuristic_for
from .panel import Rush, StandAndFire
from .policy import (AgentError, AgentLoadError, BasePolicy, Policy, RandomPolicy, SeedLike,
                     UnknownAgentError)
from .checkpoint import UnsafeCheckpointError
from .ppo import MaskablePPOPolicy

from .builtin import BUILTIN_AGENTS, PANEL_BOTS, looks_like_path, make_agent
from .selfplay import OpponentPool, PoolWeights

__all__ = [
    "ACWHeuristic", "AgentError", "AgentLoadError", "AlwaysReact", "BUILTIN_AGENTS",
    "BasePolicy", "MaskablePPOPolicy", "NeverReact", "OpponentPool", "Policy", "PoolWeights",
    "PANEL_BOTS", "RandomPolicy", "Rush", "StandAndFire", "UnknownAgentError",
    "UnsafeCheckpointError", "heuristic_for", "make_agent",
]
