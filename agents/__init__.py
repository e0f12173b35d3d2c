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

import os
from pathlib import Path

from envs.core.protocol import Game

from .baselines import AlwaysReact, NeverReact
from .heuristic import ACWHeuristic, heuristic_for
from .panel import Rush, StandAndFire
from .policy import (AgentError, AgentLoadError, BasePolicy, Policy, RandomPolicy, SeedLike,
                     UnknownAgentError)
from .ppo import MaskablePPOPolicy

#: built-in agent names accepted by :func:`make_agent`
BUILTIN_AGENTS: tuple[str, ...] = ("random", "heuristic", "never-react", "always-react",
                                   "stand-and-fire", "rush")
#: the scripted ACW bots of the panel (see :mod:`agents.panel`), by name
PANEL_BOTS = {"stand-and-fire": StandAndFire, "rush": Rush}


def looks_like_path(name: str) -> bool:
    """True when ``name`` should be read as a checkpoint path rather than a built-in name."""
    return name.endswith(".zip") or os.sep in name or "/" in name or Path(name).exists()


def make_agent(name_or_path: str, game: Game, seed: SeedLike = None) -> BasePolicy:
    """Build an agent from a built-in name or a MaskablePPO checkpoint path.

    Args:
        name_or_path: ``random``, ``heuristic``, ``never-react``, ``always-react``,
            ``stand-and-fire``, ``rush`` (:mod:`agents.panel`), or a path to a ``.zip`` saved
            by ``MaskablePPO.save`` / ``train.py``.
        game: the game the agent will play (labels, observation layout, sizes).
        seed: seed of the agent's own generator.

    Raises:
        UnknownAgentError: for a name that is neither built in nor a path (lists the names), or
            ``heuristic``, ``stand-and-fire`` or ``rush`` on a ruleset other than
            ``acw_regimental``.
        AgentLoadError: for a missing, corrupt or mismatched checkpoint (names the path).
    """
    name = str(name_or_path)
    if name == "random":
        return RandomPolicy(seed)
    if name == "never-react":
        return NeverReact(game, seed)
    if name == "always-react":
        return AlwaysReact(game, seed)
    if name == "heuristic":
        return heuristic_for(game, seed)
    if name in PANEL_BOTS:
        return PANEL_BOTS[name](game, seed)
    if looks_like_path(name):
        return MaskablePPOPolicy.load(name, game, deterministic=True, seed=seed, name=name)
    raise UnknownAgentError(
        f"unknown agent {name!r}: expected one of {', '.join(BUILTIN_AGENTS)} "
        f"or a path to a MaskablePPO checkpoint (.zip)")


from .selfplay import OpponentPool, PoolWeights  # noqa: E402  (needs make_agent defined)

__all__ = [
    "ACWHeuristic", "AgentError", "AgentLoadError", "AlwaysReact", "BUILTIN_AGENTS",
    "BasePolicy", "MaskablePPOPolicy", "NeverReact", "OpponentPool", "Policy", "PoolWeights",
    "PANEL_BOTS", "RandomPolicy", "Rush", "StandAndFire", "UnknownAgentError", "heuristic_for",
    "make_agent",
]
