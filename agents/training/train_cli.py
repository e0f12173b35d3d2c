"""The command line of ``train.py``: :class:`Args` (every flag, with its default and the
docstring ``--help`` shows), each ruleset's own defaults, parsing, the checks a fresh run's
flags and a resumed run's ``config.json`` both pass (:func:`check_args`), and the
configuration ``--resume`` continues (:func:`resume_config`; both backends).

Bad input is one line naming the flag: :func:`parse_args` prints ``error: ...`` and exits
with status 2; :func:`resume_config` raises :class:`UsageError`, which ``train.py`` prints so.
"""

from __future__ import annotations

import argparse
import ast
import dataclasses
import inspect
import json
import math
import os
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

#: the first paragraph of ``python train.py --help``
DESCRIPTION = "MaskablePPO self-play on a Riposte ruleset."
#: the last paragraph of ``python train.py --help``
EPILOG = ("Each flag's value comes from, first to last: the flag given; the --preset or "
          "--config file; the ruleset's own preset (agents/training/presets/<ruleset>.toml; "
          "the values after the default in each flag's help above); the default.")

@dataclass
class Args:
    ruleset: str = "acw_regimental"
    """ruleset id to train on"""
    scenario: str | None = None
    """scenario name or TOML path (None: the ruleset's default battle)"""
    total_timesteps: int = 300_000
    """learner decisions (timesteps) to train for in total; a resumed run counts the earlier
    ones"""
    seed: int = 0
    """seed of everything: torch, numpy, python, the envs' streams and the opponent pool"""
    run_dir: str = "runs/default"
    """directory for checkpoints, logs, metrics and final_model.zip"""
    resume: bool = False
    """continue exactly from the last checkpoint in run_dir (not bit-exact when extending a
    finished --pipelined-updates run: docs/reliability.md); config.json supplies other flags"""
    overwrite: bool = False
    """allow starting a fresh run in a run_dir that already holds checkpoints"""
    n_envs: int = 8
    """environments stepped per PPO step, all in this process
    (agents.training.vec_env.RolloutVecEnv); the policy's forward pass is batched over them"""
    torch_threads: int = 1
    """threads of torch's CPU operations (torch.set_num_threads)"""
    vec_env: str = "dummy"
    """where the envs run: dummy (all in this process) or subproc (one process per env, for
    throughput tests only: the pools are copies without the live learner, no resume state)"""
    pipelined_updates: bool = False
    """run each PPO update in a worker process while the envs collect the next rollout (one
    update of policy lag); extending a finished run by --resume is then not bit-exact
    (docs/reliability.md)"""
    learning_rate: float = 5e-5
    """Adam learning rate of PPO (per gradient step)"""
    n_steps: int = 256
    """rollout length per env between PPO updates, in timesteps (a rollout is n_steps x
    n_envs timesteps)"""
    batch_size: int = 256
    """PPO minibatch size, in timesteps"""
    n_epochs: int = 5
    """PPO epochs (passes over the rollout) per update"""
    value_epochs: int = 0
    """critic-only epochs at the end of each update (the value loss alone, on the same
    rollout: Phasic Policy Gradient's auxiliary phase; agents/training/teacher_kl.py); 0: none"""
    gamma: float = 0.995
    """discount factor (games are long and the reward comes at the end)"""
    gae_lambda: float = 0.95
    """GAE lambda (0..1)"""
    clip_range: float = 0.2
    """PPO clipping range of the probability ratio"""
    ent_coef: float = 0.0
    """entropy bonus coefficient (weight in the loss; 0: no bonus)"""
    vf_coef: float = 0.5
    """value loss coefficient (weight in the loss)"""
    max_grad_norm: float = 0.5
    """gradient clipping: the largest L2 norm of a gradient step"""
    target_kl: float | None = 0.02
    """stop an update's epochs early once the approximate KL to the rollout's policy exceeds
    1.5 x this (MaskablePPO's target_kl; None: no limit)"""
    critic_warmup: int = 20_000
    """timesteps at the start of training during which only the critic learns (the
    warm-started actor is frozen; agents/training/finetune.py)"""
    teacher_kl: float = 0.1
    """weight of a KL term that keeps the policy near its behaviour-cloned warm start
    (agents/training/teacher_kl.py); 0, or no warm start (--bc-games 0): plain MaskablePPO"""
    expert_iteration_sims: int = 0
    """expert iteration: search a --search-fraction of the learner's decisions with this many
    simulations, play the search's move, learn its policy (docs/search.md); 0: off"""
    search_fraction: float = 0.1
    """expert iteration: probability that a learner decision (with a choice) is searched"""
    search_coef: float = 1.0
    """expert iteration: weight of the cross-entropy to the search's policy in PPO's loss"""
    net_arch: list[int] = field(default_factory=lambda: [256, 256])
    """hidden layer sizes of the policy and value MLPs"""
    shaped_reward: bool = False
    """pay the ruleset's shaped reward per step instead of only the final result"""
    max_decisions: int | None = None
    """decision cap per episode (None: the game's max_game_length); capped games are draws"""
    pool_bots: list[str] = field(default_factory=lambda: builtin_panel())
    """bots in the opponent pool, each NAME or NAME:WEIGHT (built-in names, checkpoint paths
    or search:MODEL[:sims=N...] search agents; default: the whole bot panel)"""
    pfsp: bool = True
    """league self-play: sample snapshots and bots by prioritized fictitious self-play, weight
    (1 - p)^2 for the learner's recent score p (league/pfsp.py); off: the fixed
    --pool-NAME-weight ones"""
    pool_latest_weight: float = 0.0
    """sampling weight of the latest policy as opponent (with --pfsp: the probability, 0..1,
    of plain self-play against the live learner)"""
    pool_snapshot_weight: float = 0.1
    """with --no-pfsp: sampling weight of past snapshots (uniform over the window); PFSP
    weighs the window by --league-snapshots-weight instead"""
    pool_bot_weight: float = 0.8
    """with --no-pfsp: sampling weight of the scripted bots (split by their NAME:WEIGHT
    weights); PFSP weighs each bot by its NAME:WEIGHT"""
    league_snapshots_weight: float = 4.0
    """with --pfsp: the base weight of the whole snapshot window, split evenly between its
    snapshots (1: the window counts as one bot of weight 1; agents/training/league/pfsp.py)"""
    league_exploiters: int = 0
    """with --pfsp: number N of best responses to the frozen learner trained during the run,
    the k-th after k * total / (N + 1) timesteps, that join the league (0: none)"""
    exploiter_timesteps: int = 60_000
    """training timesteps of each --league-exploiters exploiter (on top of the learner's)"""
    league_exploiters_weight: float = 1.0
    """with --pfsp: the base weight of each exploiter in the league"""
    max_snapshots: int = 10
    """number of recent snapshots in the window that is sampled"""
    snapshot_freq: int = 20_000
    """timesteps between opponent snapshots"""
    checkpoint_freq: int = 20_000
    """timesteps between checkpoints, each taken at the next rollout boundary once that many
    have passed (the last 3 are kept)"""
    eval_freq: int = 40_960
    """timesteps between evaluations at rollout boundaries (0: only at the end; none during
    --critic-warmup); each evaluated policy is a candidate for final_model.zip"""
    eval_games: int = 60
    """games per evaluation opponent (both seatings, common random numbers); also the
    checkpoint selection's evaluation (0: no evaluation and no selection: final_model.zip is
    the last weights)"""
    eval_jobs: int = 2
    """worker processes playing the final evaluation's games, and the periodic ones' with
    --no-eval-background (forked; the same scores whatever the number)"""
    eval_agents: list[str] = field(default_factory=lambda: builtin_panel())
    """opponents of the periodic evaluation (default: the whole bot panel)"""
    eval_extra_games: int = 60
    """more games per evaluation (a second tournament seed) against each opponent the first
    eval_games scored below --eval-extra-below against (0: none)"""
    eval_extra_below: float = 0.9
    """score (0..1) of the first eval_games below which an opponent gets the
    eval_extra_games"""
    eval_background: bool = True
    """play the periodic evaluations in one worker process beside training (the same scores
    either way); off: pause training and play them in --eval-jobs processes"""
    keep_candidates: bool = False
    """also keep every evaluated policy as run_dir/candidates/model_<timesteps>.zip"""
    select_best: bool = True
    """final_model.zip is the evaluated policy with the best worst-case score over eval_agents
    (ties: the better mean, then the later); the last weights are DIR/last_model.zip"""
    bc_games: int = 150
    """behaviour-cloning warm start: games of bc_teacher whose decisions pre-train the fresh
    policy and value net before PPO (0 disables; ignored on --resume; see agents/training/bc.py)"""
    bc_teacher: str = "heuristic"
    """the teacher of the warm start (an agent name, a checkpoint or a search agent
    search:MODEL[:sims=N...]: cloning the search's choices)"""
    bc_opponents: list[str] = field(
        default_factory=lambda: ["heuristic", "random", "always-react", "never-react"])
    """opponents of the teacher's games (cycled; "heuristic" plays the teacher itself, so both
    sides are recorded)"""
    bc_epochs: int = 15
    """epochs (passes) over the teacher's decisions"""
    bc_lr: float = 1e-3
    """Adam learning rate of the warm start (per gradient step)"""
    progress_bar: bool = True
    """show a progress bar (tqdm/rich)"""
    tensorboard: bool = True
    """write TensorBoard logs under run_dir/tb"""
    backend: str = "sb3"
    """training backend: sb3 (MaskablePPO in this process) or rllib (Ray RLlib PPO, multi-agent
    self-play on a local Ray instance or a cluster; needs the rllib extra, see
    agents/backends/rllib.py)"""
    num_env_runners: int = 2
    """--backend rllib: number of Ray env runners (rollout worker processes; 0 samples in the
    driver)"""
    address: str | None = None
    """--backend rllib: HOST:PORT of a running Ray cluster to join (None: start Ray locally)"""
    trust_checkpoint: bool = False
    """let checkpoint paths among the pool bots and evaluation agents be loaded by unpickling
    (only needed for zips not saved by train.py; see agents/policies/checkpoint.py)"""


def builtin_panel() -> list[str]:
    """The built-in bot panel (every built-in agent name)."""
    from agents.builtin import BUILTIN_AGENTS

    return list(BUILTIN_AGENTS)


#: flags that may differ from the run's config.json on --resume (budget, logging, evaluation,
#: checkpoint cadence); every other flag is the run's own
RESUMABLE = {"total_timesteps", "torch_threads", "progress_bar", "tensorboard", "eval_freq",
             "eval_games", "eval_jobs", "eval_background", "eval_agents", "eval_extra_games",
             "eval_extra_below", "keep_candidates", "checkpoint_freq", "snapshot_freq", "run_dir",
             "resume", "overwrite", "trust_checkpoint", "num_env_runners", "address",
             "pipelined_updates"}  # (a dead update worker: --resume --no-pipelined-updates)
#: what a run whose config.json lacks the key trained with (the default changed since): a resumed
#: run continues with it instead of today's default
LEGACY_VALUES: dict[str, Any] = {"league_snapshots_weight": 1.0, "league_exploiters": 0,
                                 "value_epochs": 0}
BACKENDS = ("sb3", "rllib")
VEC_ENVS = ("dummy", "subproc")  # agents.training.vec_env.VEC_ENVS (not imported: it loads sb3)


def _norm(v: Any, key: str = "", ruleset: str = "") -> Any:
    """A flag's value as config.json holds it, for comparing a flag given on --resume with
    the run's (``--scenario default`` is no scenario given; a scenario is the TOML file it
    names, see :func:`_scenario_file`)."""
    if key == "scenario":
        return _scenario_file(ruleset, v) or (None if v == "default" else v)
    return list(v) if isinstance(v, tuple) else v


def _scenario_file(ruleset: str, scenario: str | None) -> str | None:
    """The real path of the TOML file a ``--scenario`` value names for ``ruleset`` (a built-in
    name, None for the default battle, or a path), resolved as the ruleset resolves it
    (:func:`envs.core.scenario.resolve_scenario_path` with the game's ``scenario_dir``), so
    that a built-in battle given by name and by the path of its file are the same; None when
    it cannot be told (no such file, a ruleset without a scenario directory: then only the
    values are compared)."""
    from envs.core.errors import RiposteError
    from envs.core.scenario import resolve_scenario_path
    from envs.rulesets import game_class

    name = "default" if scenario is None else str(scenario)
    try:
        builtin = game_class(ruleset).scenario_dir  # (Game.scenario_dir)
    except RiposteError:
        builtin = None
    if builtin is None and not name.endswith(".toml") and not Path(name).exists():
        return None  # a name, and no directory of built-in names to look it up in
    try:
        return os.path.realpath(resolve_scenario_path(name, Path(builtin or ".")))
    except RiposteError:
        return None


# -- command line ----------------------------------------------------------------------------
class _ArgumentParser(argparse.ArgumentParser):
    def error(self, message: str):  # type: ignore[override]
        print(f"error: {message}", file=sys.stderr)
        raise SystemExit(2)


def field_docs(cls: type) -> dict[str, str]:
    """The docstring under each dataclass field (CleanRL/tyro convention), for ``--help``."""
    tree = ast.parse(inspect.getsource(cls))
    body = tree.body[0].body  # type: ignore[attr-defined]
    docs = {}
    for node, nxt in zip(body, body[1:]):
        if isinstance(node, ast.AnnAssign) and isinstance(nxt, ast.Expr) \
                and isinstance(getattr(nxt, "value", None), ast.Constant):
            docs[node.target.id] = str(nxt.value.value)  # type: ignore[union-attr]
    return docs


def build_parser(suppress_defaults: bool = False) -> argparse.ArgumentParser:
    """argparse built from :class:`Args` (flags are the field names with dashes)."""
    from agents.training.presets import preset_names, preset_path, read_preset

    p = _ArgumentParser(description=DESCRIPTION, epilog=EPILOG,
                        argument_default=argparse.SUPPRESS if suppress_defaults else None)
    which = p.add_mutually_exclusive_group()
    which.add_argument("--preset", metavar="NAME", help=f"start from the shipped preset NAME "
                       f"({', '.join(preset_names())}) instead of the ruleset's own")
    which.add_argument("--config", metavar="FILE", help="start from the preset file FILE "
                       "(TOML, keys are these flags with underscores) instead of the ruleset's "
                       "own preset")
    p.add_argument("--print-config", action="store_true", help="print the resolved "
                   "configuration as a preset file (TOML) and exit without training")
    docs = field_docs(Args)
    defaults = Args()
    presets = [read_preset(preset_path(name), Args) for name in preset_names()]
    for f in dataclasses.fields(Args):
        flag = "--" + f.name.replace("_", "-")
        default = getattr(defaults, f.name)
        own = "".join(f"; {ps.path.stem}: {ps.for_backend('sb3')[f.name]}" for ps in presets
                      if ps.for_backend("sb3").get(f.name, default) != default)
        # (argparse formats help with %: a literal one in a docstring must be doubled)
        text = f"{docs.get(f.name, '')} (default: {default}{own})".replace("%", "%%")
        kw: dict[str, Any] = {"help": text}
        if not suppress_defaults:
            kw["default"] = default
        ann = str(f.type)
        if ann == "bool":
            kw["action"] = argparse.BooleanOptionalAction
        elif ann.startswith("list[int]"):
            kw.update(nargs="+", type=int)
        elif ann.startswith("list[str]"):
            kw.update(nargs="*", type=str)
        elif ann.startswith("int"):
            kw["type"] = _optional(int) if "None" in ann else int
        elif ann.startswith("float"):
            kw["type"] = _optional(float) if "None" in ann else float
        else:
            kw["type"] = _optional(str) if "None" in ann else str
        p.add_argument(flag, **kw)
    return p


def _optional(conv):
    def parse(text: str):
        return None if text.lower() == "none" else conv(text)
    parse.__name__ = conv.__name__
    return parse


def _repeated(specs: list[str], names: bool = False) -> str | None:
    """The first entry of ``specs`` given more than once, with how often (``"'rush' is given
    twice"``); ``names``: compare the NAME of ``NAME:WEIGHT`` specs (a spec whose weight is
    bad is left to the opponent pool's own error)."""
    from agents.builtin import agent_identity
    from agents.policies.base import AgentError, first_repeated
    from agents.training.league.selfplay import parse_bot_spec

    seen: list[str] = []
    for spec in specs:
        try:
            seen.append(parse_bot_spec(spec)[0] if names else spec)
        except AgentError:
            continue
    return first_repeated(seen, key=agent_identity)


def max_exploiters(args: Args) -> int:
    """The most ``--league-exploiters`` a run can train: one per rollout boundary strictly
    inside it (``total_timesteps // (n_steps * n_envs) - 1``, at least 0)."""
    return max(0, args.total_timesteps // max(1, args.n_steps * args.n_envs) - 1)


#: one check of :func:`check_args`: whether it passes, and the problem when it does not
Check = tuple[bool, str]


def _run_checks(args: Args) -> list[Check]:
    """The backend, the process counts and the run's timestep, rollout and evaluation sizes."""
    return [(args.vec_env in VEC_ENVS, f"--vec-env {args.vec_env!r} is not one of "
             f"{', '.join(VEC_ENVS)}"),
            (args.backend in BACKENDS, f"--backend {args.backend!r} is not one of "
             f"{', '.join(BACKENDS)}"),
            (args.num_env_runners >= 0, "--num-env-runners must be >= 0"),
            (args.address is None or args.backend == "rllib",
             f"--address {args.address!r} is the Ray cluster of --backend rllib; the "
             f"{args.backend} backend trains in this process (add --backend rllib, or drop "
             f"--address)"),
            (args.total_timesteps >= 1, "--total-timesteps must be >= 1"),
            (args.n_envs >= 1, "--n-envs must be >= 1"),
            (args.n_steps >= 2, "--n-steps must be >= 2"),
            (args.batch_size >= 2, "--batch-size must be >= 2"),
            (args.eval_games >= 0, "--eval-games must be >= 0"),
            (args.eval_extra_games >= 0, "--eval-extra-games must be >= 0"),
            (args.eval_jobs >= 1, "--eval-jobs must be >= 1")]


def _league_checks(args: Args) -> list[Check]:
    """The league: its category weights and its exploiters."""
    return [(math.isfinite(args.league_snapshots_weight) and args.league_snapshots_weight >= 0,
             "--league-snapshots-weight must be a finite number >= 0"),
            (math.isfinite(args.league_exploiters_weight)
             and args.league_exploiters_weight >= 0,
             "--league-exploiters-weight must be a finite number >= 0"),
            (args.league_exploiters >= 0, "--league-exploiters must be >= 0"),
            (args.exploiter_timesteps >= 1, "--exploiter-timesteps must be >= 1"),
            (args.league_exploiters == 0 or args.pfsp,
             "--league-exploiters needs the league (--pfsp): --no-pfsp samples fixed "
             "categories, without exploiters"),
            (args.league_exploiters <= max_exploiters(args),
             f"--league-exploiters must be at most {max_exploiters(args)}: one per rollout "
             f"boundary inside the run ({args.total_timesteps} timesteps in rollouts of "
             f"--n-steps x --n-envs = {args.n_steps * args.n_envs})"),
            (args.league_exploiters == 0 or args.league_exploiters_weight > 0,
             "--league-exploiters-weight 0 would never play the exploiters: give a weight "
             "> 0, or --league-exploiters 0"),
            (args.league_exploiters == 0 or args.vec_env != "subproc",
             "--league-exploiters needs --vec-env dummy: each --vec-env subproc process "
             "plays a copy of the pool taken at the start, without the exploiters")]


def _schedule_checks(args: Args) -> list[Check]:
    """The evaluation, snapshot and checkpoint schedule, the torch threads and the seed."""
    return [(0.0 <= args.eval_extra_below <= 1.0, "--eval-extra-below must be in [0, 1]"),
            (min(args.snapshot_freq, args.checkpoint_freq) >= 1,
             "--snapshot-freq and --checkpoint-freq must be >= 1"),
            (args.eval_freq >= 0, "--eval-freq must be >= 0"),
            (args.torch_threads >= 1, "--torch-threads must be >= 1"),
            (0 <= args.seed < 2**32,
             "--seed must be >= 0 and < 2**32 (numpy's and torch's seed range)")]


def _ppo_checks(args: Args) -> list[Check]:
    """PPO's hyperparameters and the sb3 backend's update options."""
    return [(args.batch_size <= args.n_steps * args.n_envs,
             "--batch-size must be <= --n-steps x --n-envs (the rollout size)"),
            (0.0 < args.learning_rate < math.inf, "--learning-rate must be finite and > 0"),
            (0.0 < args.gamma <= 1.0, "--gamma must be in (0, 1]"),
            (0.0 <= args.gae_lambda <= 1.0, "--gae-lambda must be in [0, 1]"),
            (0.0 < args.clip_range < math.inf, "--clip-range must be finite and > 0"),
            (0.0 <= args.ent_coef < math.inf and 0.0 <= args.vf_coef < math.inf,
             "--ent-coef and --vf-coef must be finite and >= 0"),
            (0.0 < args.max_grad_norm < math.inf, "--max-grad-norm must be finite and > 0"),
            (len(args.net_arch) >= 1 and min(args.net_arch) >= 1,
             "--net-arch needs one or more layer sizes >= 1"),
            (args.n_epochs >= 1, "--n-epochs must be >= 1"),
            (args.value_epochs >= 0, "--value-epochs must be >= 0"),
            (args.value_epochs == 0 or args.backend == "sb3",
             "--value-epochs is an option of the sb3 backend's update (RLlib's PPO has its "
             "own loss): drop it with --backend rllib"),
            (not args.pipelined_updates or args.backend == "sb3",
             "--pipelined-updates is an option of the sb3 backend (RLlib's env runners "
             "already sample beside the learner): drop it with --backend rllib")]


def _expert_iteration_checks(args: Args) -> list[Check]:
    """Expert iteration: the search's simulations, fraction and coefficient."""
    return [(args.expert_iteration_sims >= 0, "--expert-iteration-sims must be >= 0"),
            (0.0 <= args.search_fraction <= 1.0, "--search-fraction must be in [0, 1]"),
            (math.isfinite(args.search_coef) and args.search_coef >= 0,
             "--search-coef must be a finite number >= 0"),
            (args.expert_iteration_sims == 0 or args.backend == "sb3",
             "--expert-iteration-sims is an option of the sb3 backend (its rollouts search "
             "the envs' game states in the learner's process): drop it with --backend rllib"),
            (args.expert_iteration_sims == 0 or args.vec_env == "dummy",
             "--expert-iteration-sims needs --vec-env dummy: the search reads each env's "
             "game state, which --vec-env subproc keeps in other processes")]


def _limit_checks(args: Args) -> list[Check]:
    """The KL target, the critic warm-up, the teacher's KL term and the decision cap."""
    return [(args.target_kl is None or 0.0 < args.target_kl < math.inf,
             "--target-kl must be finite and > 0 (or none)"),
            (args.critic_warmup >= 0, "--critic-warmup must be >= 0"),
            (math.isfinite(args.teacher_kl) and args.teacher_kl >= 0,
             "--teacher-kl must be a finite number >= 0"),
            (args.max_decisions is None or args.max_decisions >= 1,
             "--max-decisions must be >= 1 (or none)")]


def _bc_and_pool_checks(args: Args) -> list[Check]:
    """Behaviour cloning, the snapshot count and the opponent pool."""
    return [(args.bc_games >= 0, "--bc-games must be >= 0"),
            (args.bc_epochs >= 1, "--bc-epochs must be >= 1"),
            (0.0 < args.bc_lr < math.inf, "--bc-lr must be finite and > 0"),
            (args.max_snapshots >= 1, "--max-snapshots must be >= 1"),
            (all(0.0 <= w < math.inf for w in (args.pool_latest_weight,
                                               args.pool_snapshot_weight,
                                               args.pool_bot_weight)),
             "--pool-latest-weight, --pool-snapshot-weight and --pool-bot-weight must be "
             "finite and >= 0"),
            (args.bc_games == 0 or len(args.bc_opponents) > 0,
             "--bc-opponents needs at least one opponent when --bc-games > 0"),
            (args.pfsp or args.pool_latest_weight > 0 or (len(args.pool_bots) > 0
                                                          and args.pool_bot_weight > 0),
             "with --no-pfsp the opponent pool would be empty when training starts (no "
             "snapshot yet): give --pool-bots with --pool-bot-weight > 0, or "
             "--pool-latest-weight > 0"),
            (not args.pfsp or args.pool_latest_weight <= 1.0,
             f"--pool-latest-weight is the probability of self-play with --pfsp: at most 1, "
             f"got {args.pool_latest_weight}")]


def check_args(args: Args) -> str | None:
    """What is wrong with ``args`` (the first problem, as one line naming the flag), or None.
    Checked for the flags given (:func:`parse_args`) and for a resumed run's config.json
    (:func:`resume_config`)."""
    from envs.core.limits import budget_problem, in_process_envs_problem, workers_problem

    for problem in (budget_problem("--total-timesteps", args.total_timesteps),
                    budget_problem("--exploiter-timesteps", args.exploiter_timesteps),
                    budget_problem("--eval-games", args.eval_games),
                    budget_problem("--eval-extra-games", args.eval_extra_games),
                    budget_problem("--bc-games", args.bc_games),
                    workers_problem("--eval-jobs", args.eval_jobs),
                    workers_problem("--num-env-runners", args.num_env_runners),
                    (workers_problem("--n-envs", args.n_envs, "environment processes")
                     if args.vec_env == "subproc"
                     else in_process_envs_problem("--n-envs", args.n_envs))):
        if problem is not None:  # (before the rest: nothing starts)
            return problem
    checks = [*_run_checks(args), *_league_checks(args), *_schedule_checks(args),
              *_ppo_checks(args), *_expert_iteration_checks(args), *_limit_checks(args),
              *_bc_and_pool_checks(args)]
    for flag, specs, names in (("--eval-agents", args.eval_agents, False),
                               ("--pool-bots", args.pool_bots, True)):
        if (twice := _repeated(list(specs), names)) is not None:  # (a dict would keep one)
            checks.append((False, f"{flag} names must be distinct: {twice}"))
    for ok, msg in checks:
        if not ok:
            return msg
    return None


def saved_backend(run_dir: str | Path) -> str | None:
    """The ``backend`` recorded in ``run_dir/config.json``, or None when it cannot be read
    (then :func:`resume_config` says what is wrong): a bare ``--resume`` continues a run on
    the backend it trained with."""
    try:
        value = json.loads((Path(run_dir) / "config.json").read_text(encoding="utf-8"))[
            "args"]["backend"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return value if value in BACKENDS else None


#: the flags of the command line that are not :class:`Args` fields (which preset, and
#: --print-config)
PRESET_FLAGS = ("preset", "config", "print_config")


def parse_args(argv: list[str] | None = None) -> tuple[Args, set[str]]:
    """``(args, names of the flags given)``: the flags given, over the ``--preset`` or
    ``--config`` file, over the ruleset's own preset (not on ``--resume``: the run's
    config.json decides), over the :class:`Args` defaults. A preset file's keys count as
    given. ``--print-config`` prints the resolved configuration (on ``--resume``: the run's,
    :func:`resume_config`) and exits with status 0.

    Bad flags or files print one ``error: ...`` line (naming the file and key for a file's
    value) and exit with status 2 (``SystemExit``).
    """
    from agents.training.presets import PresetError, to_toml

    ns = build_parser().parse_args(argv)
    from envs.core.files import blank_arguments

    if blank := blank_arguments(ns):
        _usage_exit(f"{', '.join(blank)} must not be empty or whitespace")
    flags = vars(build_parser(suppress_defaults=True).parse_args(argv))
    chosen = {k: flags.pop(k) for k in PRESET_FLAGS if k in flags}
    try:
        args, given, sources = resolve_args(flags, chosen.get("preset"), chosen.get("config"))
    except PresetError as exc:
        _usage_exit(str(exc))
    if (msg := check_args(args)) is not None:
        keys = [k for k in _flag_keys(msg) if k in sources]
        _usage_exit(f"{sources[keys[0]]}: {keys[0]}: {msg}" if keys else msg)
    if chosen.get("print_config"):
        if args.resume:
            try:
                args = resume_config(args, given)
            except UsageError as exc:
                _usage_exit(str(exc))
        values = {k: v for k, v in dataclasses.asdict(args).items()
                  if k not in ("resume", "overwrite")}
        print(to_toml(values), end="")
        raise SystemExit(0)
    return args, given


def resolve_args(flags: dict[str, Any], preset: str | None = None,
                 config: str | None = None) -> tuple[Args, set[str], dict[str, str]]:
    """The configuration of a run: ``flags`` (the :class:`Args` fields given on the command
    line) over the ``preset`` (a shipped preset's name) or ``config`` (a preset file's path),
    over the ruleset's own preset (unless ``flags`` has ``resume``), over the :class:`Args`
    defaults. Each preset's ``[sb3]`` table applies when the resolved backend is sb3.

    Returns:
        ``(args, given, sources)``: ``given`` is the flags' names and the chosen file's keys;
        ``sources`` maps each key a preset file set (and no flag overrode) to that file.

    Raises:
        PresetError: a preset that does not exist or is not valid (one line naming the file
            and key).
    """
    from agents.training.presets import preset_path, read_preset, ruleset_preset

    path = preset_path(preset) if preset is not None else config
    own = read_preset(path, Args) if path is not None else None
    defaults = Args()
    chose = own.values if own is not None else {}
    ruleset = flags.get("ruleset", chose.get("ruleset", defaults.ruleset))
    backend = flags.get("backend", chose.get("backend"))
    if backend is None and flags.get("resume"):
        backend = saved_backend(flags.get("run_dir", defaults.run_dir))
    backend = backend or defaults.backend
    layers = []
    if not flags.get("resume") and (base := ruleset_preset(ruleset, Args)) is not None:
        layers.append(base)
    if own is not None:
        layers.append(own)
    values: dict[str, Any] = {}
    sources: dict[str, str] = {}
    for layer in layers:
        for k, v in layer.for_backend(backend).items():
            values[k], sources[k] = v, str(layer.path)
    values.update(flags)
    for k in flags:
        sources.pop(k, None)
    given = set(flags) | set(own.for_backend(backend) if own is not None else ())
    return Args(**values), given, sources


def _usage_exit(message: str) -> None:
    """Print ``error: message`` and exit with status 2."""
    print(f"error: {message}", file=sys.stderr)
    raise SystemExit(2)


class UsageError(Exception):
    """Bad input detected after parsing (reported as one ``error:`` line, exit status 2)."""


def _config_type_error(key: str, value: Any) -> str | None:
    """Why ``value`` (read from config.json) cannot be the field ``key`` of :class:`Args`, or
    None (the types argparse gives the flag: a JSON integer is also a float)."""
    ann = str(next(f.type for f in dataclasses.fields(Args) if f.name == key))
    if value is None and "None" in ann:
        return None
    kind, _, _ = ann.partition(" |")

    def is_int(v: Any) -> bool:
        return isinstance(v, int) and not isinstance(v, bool)

    ok = {"bool": lambda v: isinstance(v, bool), "int": is_int,
          "float": lambda v: is_int(v) or isinstance(v, float),
          "str": lambda v: isinstance(v, str),
          "list[int]": lambda v: isinstance(v, list) and all(map(is_int, v)),
          "list[str]": lambda v: isinstance(v, list) and all(isinstance(x, str) for x in v),
          }[kind](value)
    what = {"bool": "true or false", "int": "an integer", "float": "a number",
            "str": "a string", "list[int]": "a list of integers",
            "list[str]": "a list of strings"}[kind]
    return None if ok else f"is not {what}"


def resume_config(args: Args, given: set[str]) -> Args:
    """The configuration of the run ``--resume`` continues: ``run_dir/config.json``'s flags,
    except those given now (which may differ only for :data:`RESUMABLE` flags), checked as
    the flags of a fresh run are (:func:`check_args`). Both backends.

    Raises:
        UsageError: naming config.json (and the key, for a value that is refused) or the
            flags that differ.
    """
    run_dir = Path(args.run_dir)
    cfg_path = run_dir / "config.json"
    where = f"{str(cfg_path)!r} (the run's configuration)"
    if not cfg_path.is_file():
        raise UsageError(f"--resume: {where} is missing, so the run's flags are unknown: put "
                         f"it back, or start afresh with --overwrite")
    try:
        saved = json.loads(cfg_path.read_text(encoding="utf-8"))["args"]
        if not isinstance(saved, dict):
            raise TypeError(f"'args' is a {type(saved).__name__}, not an object")
    except (OSError, ValueError, KeyError, TypeError) as exc:  # ValueError: bad JSON
        what = f"no key {exc}" if isinstance(exc, KeyError) else str(exc)
        raise UsageError(f"--resume: cannot read {where}: {what}") from None
    names = {f.name for f in dataclasses.fields(Args)}
    merged = {k: v for k, v in saved.items() if k in names}
    for k, v in LEGACY_VALUES.items():  # a run from before the default changed
        merged.setdefault(k, v)
    for k, v in merged.items():  # (those given now and allowed to change replace them)
        if k in given and k in RESUMABLE:
            continue
        if why := _config_type_error(k, v):
            raise UsageError(f"--resume: {where}: {json.dumps(k)}: {json.dumps(v)} {why}")
        if any(isinstance(x, str) and not x.strip() for x in (v if isinstance(v, list) else [v])):
            raise UsageError(f"--resume: {where}: {json.dumps(k)}: {json.dumps(v)} must not be "
                             f"empty or whitespace")
    # the run continues as configured: only these may change on --resume
    ruleset = merged.get("ruleset", args.ruleset)
    changed = sorted(k for k in given - RESUMABLE if k in merged
                     and _norm(getattr(args, k), k, ruleset) != _norm(merged[k], k, ruleset))
    if changed:
        flags = ", ".join(f"--{k.replace('_', '-')} (run: {merged[k]!r}, given: "
                          f"{getattr(args, k)!r})" for k in changed)
        raise UsageError(f"--resume continues {str(run_dir)!r} as configured in its "
                         f"config.json; these flags differ: {flags}. Start a new "
                         f"--run-dir (or --overwrite) to change them")
    # the run's own values, but for the flags that may change (or that it does not record)
    merged.update({k: getattr(args, k) for k in given if k in RESUMABLE or k not in merged})
    merged["resume"], merged["run_dir"] = True, args.run_dir
    resumed = Args(**merged)
    if (msg := check_args(resumed)) is not None:  # a hand-edited config.json
        keys = [k for k in dict.fromkeys(_flag_keys(msg)) if k in saved and k not in given]
        values = ", ".join(f"{json.dumps(k)}: {json.dumps(saved[k])}" for k in keys)
        raise UsageError(f"--resume: {where}" + (f" has {values}" if values else "")
                         + f": {msg}")
    return resumed


def _flag_keys(message: str) -> list[str]:
    """The :class:`Args` fields of the flags a message names (``--no-pfsp``: ``pfsp``)."""
    names = {f.name for f in dataclasses.fields(Args)}
    keys = []
    for flag in re.findall(r"--([a-z][a-z-]*)", message):
        key = flag.replace("-", "_")
        if key not in names and key.startswith("no_"):
            key = key[3:]
        if key in names:
            keys.append(key)
    return keys
