"""The pieces of a ``train.py`` run built from its ``Args``: the opponent pool, the warm start's
teacher and opponents, and a fresh model.

Imports stable-baselines3 and sb3-contrib only to build the model.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from envs.core.protocol import Game

from ..builtin import make_agent
from .league.pfsp import League
from .league.selfplay import OpponentPool, PoolWeights

if TYPE_CHECKING:
    from .teacher_kl import TeacherKLMaskablePPO


def make_pool(args: Any, game: Game, run_dir: Path,
              seed: np.random.SeedSequence) -> OpponentPool:
    """The learner's opponent pool: ``--pool-bots`` and the snapshots (kept in
    ``run_dir/snapshots``), sampled by PFSP as a :class:`~agents.training.league.pfsp.League`
    with ``--pfsp`` (its self-play share ``--pool-latest-weight``, at most 1), else by the fixed
    ``--pool-*-weight`` categories; seeded from ``seed``.

    Raises:
        AgentError: for a bot that cannot be built or a weight the pool refuses.
    """
    pool_kw = dict(bots=tuple(args.pool_bots),
                   weights=PoolWeights(args.pool_latest_weight, args.pool_snapshot_weight,
                                       args.pool_bot_weight),
                   max_snapshots=args.max_snapshots, snapshot_dir=run_dir / "snapshots",
                   seed=seed, trust_checkpoints=args.trust_checkpoint)
    return (League(game, self_play=min(args.pool_latest_weight, 1.0),
                   snapshots_weight=args.league_snapshots_weight,
                   exploiters_weight=args.league_exploiters_weight, **pool_kw)
            if args.pfsp else OpponentPool(game, **pool_kw))


def warm_start_agents(args: Any, game: Game) -> dict[str, Any]:
    """The behaviour-cloning teacher (key ``"teacher"``, ``--bc-teacher``) and the opponents it
    plays (``--bc-opponents``, by name; the teacher's own name is the teacher itself), seeded
    from ``SeedSequence([seed, 7])``: opponent ``k`` from its child ``k``, the teacher from the
    last.

    Raises:
        AgentError: for an agent that cannot be built.
    """
    bc_seeds = np.random.SeedSequence([args.seed, 7]).spawn(len(args.bc_opponents) + 1)
    agents = {"teacher": make_agent(args.bc_teacher, game, bc_seeds[-1], args.trust_checkpoint)}
    for name, s in zip(args.bc_opponents, bc_seeds):
        agents[name] = (agents["teacher"] if name == args.bc_teacher
                        else make_agent(name, game, s, args.trust_checkpoint))
    return agents


def model_class(args: Any) -> tuple[type[TeacherKLMaskablePPO], dict[str, Any]]:
    """The learner's class for ``args`` and its own settings:
    :class:`~agents.training.expert_iteration.ExpertIterationMaskablePPO` with
    ``--expert-iteration-sims`` > 0, else :class:`~agents.training.teacher_kl.TeacherKLMaskablePPO`
    (and no settings)."""
    if args.expert_iteration_sims > 0:
        from .expert_iteration import ExpertIterationMaskablePPO

        return ExpertIterationMaskablePPO, dict(search_simulations=args.expert_iteration_sims,
                                                search_fraction=args.search_fraction,
                                                search_coef=args.search_coef)
    from .teacher_kl import TeacherKLMaskablePPO

    return TeacherKLMaskablePPO, {}


def new_model(args: Any, venv: Any, tensorboard_log: str | None) -> TeacherKLMaskablePPO:
    """A fresh MaskablePPO learner on ``venv`` (with the teacher-KL term and the value epochs,
    see :mod:`agents.training.teacher_kl`; with expert iteration, see
    :mod:`agents.training.expert_iteration`) configured by ``args``, on the CPU."""
    cls, extra = model_class(args)
    return cls(
        "MlpPolicy", venv, teacher_kl_coef=args.teacher_kl, value_epochs=args.value_epochs,
        **extra,
        learning_rate=args.learning_rate, n_steps=args.n_steps,
        batch_size=args.batch_size, n_epochs=args.n_epochs, gamma=args.gamma,
        gae_lambda=args.gae_lambda, clip_range=args.clip_range, ent_coef=args.ent_coef,
        vf_coef=args.vf_coef, max_grad_norm=args.max_grad_norm, target_kl=args.target_kl,
        policy_kwargs={"net_arch": list(args.net_arch)}, tensorboard_log=tensorboard_log,
        seed=args.seed, device="cpu", verbose=0)
