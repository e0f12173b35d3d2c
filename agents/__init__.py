"""Riposte agents: policies, scripted bots, MaskablePPO training and its league, tournaments and
ratings, research tools.

A policy is anything with ``act(observation, action_mask) -> int`` (see
:mod:`agents.policies.base`). The package is grouped by concern; a subpackage imports only
those above it in this list (``tests/core/test_layering.py`` checks):

* :mod:`agents.interrupts` — Ctrl-C and SIGTERM for the scripts (standard library and
  :mod:`envs.core.files` only, so every subpackage and the ``envs`` command line may use it).
* :mod:`agents.policies` — the policy protocol, :class:`BasePolicy`, :class:`RandomPolicy` and
  the agent errors (``base``); MaskablePPO checkpoints as policies (``ppo``), their safe loading
  and saving (``checkpoint``) and a faster rollout forward pass (``fast_policy``).
* :mod:`agents.bots` — the scripted bots: the never / always react baselines (``baselines``)
  and one module per ruleset (``acw_regimental``: the heuristic and the bot panel
  ``stand-and-fire`` / ``rush``; ``atomic_africa``; ``skirmish_alert``).
* :mod:`agents.builtin` — the built-in agents by name and :func:`make_agent`.
* :mod:`agents.evaluation` — what ``evaluate.py`` plays and reports: round robins with common
  random numbers (``tournament``), games of more than two sides (``free_for_all``), scores,
  intervals and ratings (``ratings``), the reaction analytics (``analytics``) and figures
  (``plots``).
* :mod:`agents.training` — what ``train.py`` runs: its flags (``train_cli``), the run
  directory (``run_dir``), the pool and model built from the flags (``build``), the vec env
  (``vec_env``), the training callback and its duties (``callbacks``, ``snapshots``,
  ``checkpoints``, ``evaluations``), the evaluation games of checkpoint selection
  (``selection``), exact resume (``resume``), the run lock (``run_lock``), the PPO variants
  (``bc``, ``finetune``, ``teacher_kl``, ``pipelined``), the run's summary (``report``) and the
  league (:mod:`agents.training.league`: the opponent pool, PFSP, in-run exploiters and
  best-response exploitability).
* :mod:`agents.research` — the research tools of ``evaluate.py whatif / ablate / masking``.
* :mod:`agents.backends` — the RLlib backend of ``train.py --backend rllib``.

:func:`make_agent` builds one from a built-in name or a checkpoint path::

    from agents import make_agent
    bot = make_agent("heuristic", game, seed=0)
    ppo = make_agent("runs/default/final_model.zip", game, seed=0)
"""

from __future__ import annotations

from .bots.baselines import AlwaysReact, NeverReact
from .bots.acw_regimental import ACWHeuristic, Rush, StandAndFire
from .policies.base import (AgentError, AgentLoadError, BasePolicy, Policy, RandomPolicy,
                            SeedLike, UnknownAgentError)
from .policies.checkpoint import UnsafeCheckpointError
from .policies.ppo import MaskablePPOPolicy

from .builtin import BUILTIN_AGENTS, PANEL_BOTS, heuristic_for, looks_like_path, make_agent
from .training.league.selfplay import OpponentPool, PoolWeights

__all__ = [
    "ACWHeuristic", "AgentError", "AgentLoadError", "AlwaysReact", "BUILTIN_AGENTS",
    "BasePolicy", "MaskablePPOPolicy", "NeverReact", "OpponentPool", "Policy", "PoolWeights",
    "PANEL_BOTS", "RandomPolicy", "Rush", "StandAndFire", "UnknownAgentError",
    "UnsafeCheckpointError", "heuristic_for", "make_agent",
]
