"""MaskablePPO self-play on a Riposte ruleset (CleanRL-style: one readable script; the heavy
lifting lives in :mod:`agents` and :mod:`envs`).

Usage::

    python train.py                                   # default ACW battle into runs/default/
    python train.py --ruleset acw_regimental --scenario NAME --total-timesteps N --seed S \
        --run-dir DIR                                 # writes DIR/final_model.zip
    python train.py --run-dir DIR --resume            # continue from DIR's last checkpoint

The learner plays one seat of ``RiposteGymEnv`` (seat drawn every episode, ``--n-envs`` of them
in one VecEnv in this process) against an :class:`agents.OpponentPool` — the latest policy, past
snapshots and the scripted bots — sampled at every reset. A fresh run first warm-starts the policy and value
net by behaviour cloning of the scripted heuristic (``--bc-games``, see :mod:`agents.bc`);
MaskablePPO self-play then improves on it. Run directory::

    DIR/config.json            the full configuration (Args + game config)
    DIR/checkpoints/ckpt_<timesteps>.zip   + DIR/pool.json (opponent pool state)
    DIR/.kept/ckpt_<timesteps>.zip   best_model.zip as it was at that checkpoint (--resume)
    DIR/.lock                  held while a run trains here (a second run is refused)
    DIR/snapshots/snapshot_<timesteps>.zip  frozen opponents
    DIR/tb/                    TensorBoard logs
    DIR/metrics.csv            periodic evaluation scores and throughput
    DIR/metrics.json           final summary (timesteps/s, share of time in env.step, scores)
    DIR/final_model.zip

Every file under DIR is written atomically (temporary file + ``os.replace``). Bad input exits
with status 2 and one ``error: ...`` line on stderr.
"""

from __future__ import annotations

import argparse
import ast
import dataclasses
import inspect
import json
import math
import multiprocessing
import os
import random
import re
import shlex
import shutil
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


@dataclass
class Args:
    ruleset: str = "acw_regimental"
    """ruleset id to train on"""
    scenario: str | None = None
    """scenario name or TOML path (None: the ruleset's default battle)"""
    total_timesteps: int = 300_000
    """learner decisions to train for in total (a resumed run counts the earlier ones;
    atomic_africa: 100,000 unless given, see RULESET_DEFAULTS; on
    ACW 300k raised the three seeds' mean worst panel score from 0.594 at 150k to 0.662 and
    runs in about 6 minutes on the idle 2-core machine, README, Measured numbers)"""
    seed: int = 0
    """seed of everything: torch, numpy, python, the envs' streams and the opponent pool"""
    run_dir: str = "runs/default"
    """directory for checkpoints, logs, metrics and final_model.zip"""
    resume: bool = False
    """continue from the last checkpoint in run_dir, exactly (every generator, env and pool
    state restored: agents/resume.py); the run's config.json supplies every flag not given
    again, and the PPO hyperparameters are the checkpoint's own"""
    overwrite: bool = False
    """allow starting a fresh run in a run_dir that already holds checkpoints"""
    n_envs: int = 8
    """environments stepped per PPO step, all in this process (agents.training.RolloutVecEnv):
    the policy's forward pass is batched over them; 8 ran 2x the timesteps/s of 1 (README,
    Training throughput)"""
    torch_threads: int = 1
    """torch.set_num_threads (1 is fastest for these small networks on a shared 2-core box)"""
    vec_env: str = "dummy"
    """where the envs run: dummy (all in this process) or subproc (one process per env, sb3's
    SubprocVecEnv; for measuring throughput only: each process's opponent pool is a copy taken
    at the start, without the live learner, and checkpoints carry no resume state)"""
    pipelined_updates: bool = False
    """run each PPO update in a worker process while the envs collect the next rollout (one
    update of policy lag; agents/pipelined.py): 1.4x the timesteps/s without periodic
    evaluations, but on 2 cores with the evaluations beside training no faster (README,
    Session 13); off: collect, then update, in this process (sb3-contrib's own loop)"""
    learning_rate: float = 5e-5
    """Adam learning rate (PPO fine-tunes the warm-started policy: 2e-4 with an entropy bonus
    and no critic warm-up lost the warm start's play against rush within 50k timesteps; README,
    Fine-tuning the warm start; skirmish_alert: 2e-4 unless given, see RULESET_DEFAULTS)"""
    n_steps: int = 256
    """rollout length per env between PPO updates (n_steps x n_envs = 2048 timesteps)"""
    batch_size: int = 256
    """PPO minibatch size"""
    n_epochs: int = 5
    """PPO epochs per update"""
    gamma: float = 0.995
    """discount factor (games are long and the reward comes at the end)"""
    gae_lambda: float = 0.95
    """GAE lambda"""
    clip_range: float = 0.2
    """PPO clipping range"""
    ent_coef: float = 0.0
    """entropy bonus coefficient (0: the bonus only flattens the imitation policy)"""
    vf_coef: float = 0.5
    """value loss coefficient"""
    max_grad_norm: float = 0.5
    """gradient clipping norm"""
    target_kl: float | None = 0.02
    """stop an update's epochs early once the approximate KL to the rollout's policy exceeds
    1.5 x this (MaskablePPO's target_kl; None: no limit)"""
    critic_warmup: int = 20_000
    """the first timesteps of training during which only the critic learns (the warm-started
    actor is frozen; agents/finetune.py)"""
    teacher_kl: float = 0.1
    """weight of a KL term that keeps the policy near its warm start (the behaviour-cloned
    policy, frozen when PPO begins; agents/teacher_kl.py); 0, or no warm start (--bc-games 0):
    plain MaskablePPO (1.0 held the policy at the heuristic's level; 0 let one seed of three
    lose to rush; README, Measured numbers)"""
    net_arch: list[int] = field(default_factory=lambda: [256, 256])
    """hidden layer sizes of the policy and value MLPs"""
    shaped_reward: bool = False
    """pay the ruleset's shaped reward per step instead of only the final result"""
    max_decisions: int | None = None
    """decision cap per episode (None: the game's max_game_length); capped games are draws"""
    pool_bots: list[str] = field(default_factory=lambda: _panel())
    """scripted bots in the opponent pool, each NAME or NAME:WEIGHT (built-in names or
    checkpoint paths; default: the whole bot panel)"""
    pfsp: bool = True
    """league self-play: sample past snapshots and pool bots by prioritized fictitious
    self-play, weight (1 - p)^2 on the learner's recent score p against each (agents/league.py);
    --no-pfsp samples by the fixed --pool-*-weight categories instead"""
    pool_latest_weight: float = 0.0
    """sampling weight of the latest policy as opponent (with --pfsp: the probability of plain
    self-play against the live learner; 0.2 pulled the ACW policy below the warm start against
    rush, README, Measured numbers: past snapshots stay in the league)"""
    pool_snapshot_weight: float = 0.1
    """with --no-pfsp: sampling weight of past snapshots (uniform over the window); PFSP
    weighs the window by --league-snapshots-weight instead"""
    pool_bot_weight: float = 0.8
    """with --no-pfsp: sampling weight of the scripted bots (split by their NAME:WEIGHT
    weights); PFSP weighs each bot by its NAME:WEIGHT"""
    league_snapshots_weight: float = 1.0
    """with --pfsp: the base weight of the whole snapshot window, split evenly between its
    snapshots (1: the window counts as one bot of weight 1; agents/league.py)"""
    max_snapshots: int = 10
    """window of recent snapshots that are sampled"""
    snapshot_freq: int = 20_000
    """timesteps between opponent snapshots"""
    checkpoint_freq: int = 20_000
    """timesteps between checkpoints, each taken at the next rollout boundary once that many
    have passed (the last 3 are kept)"""
    eval_freq: int = 40_960
    """timesteps between evaluations (0: only at the end), each at the first rollout boundary
    after a multiple of it, none while the actor is frozen (--critic-warmup); each evaluated
    policy (also the warm start at 0 timesteps, and the last) is a candidate for
    final_model.zip"""
    eval_games: int = 60
    """games per evaluation opponent (both seatings, common random numbers); also the
    checkpoint selection's evaluation (0: no evaluation and no selection: final_model.zip is
    the last weights)"""
    eval_jobs: int = 2
    """worker processes playing the final evaluation's games, and the periodic ones' with
    --no-eval-background (forked; the same scores whatever the number; 2 played the default
    run's evaluations 1.9x faster than 1 on this 2-core machine, README, Measured numbers)"""
    eval_agents: list[str] = field(default_factory=lambda: _panel())
    """opponents of the periodic evaluation (default: the whole bot panel)"""
    eval_extra_games: int = 60
    """more games (a second tournament seed) at every evaluation against each opponent the
    first eval_games scored below eval_extra_below against, so that the bots that decide the
    checkpoint selection are measured over eval_games + eval_extra_games games (0: none)"""
    eval_extra_below: float = 0.9
    """score of the first eval_games below which an opponent gets the eval_extra_games"""
    eval_background: bool = True
    """play the periodic evaluations in one worker process beside training instead of
    pausing it (the same scores and the same final_model.zip either way: the evaluations
    never feed back into training; where processes cannot be forked they pause it);
    --no-eval-background pauses training and plays them in --eval-jobs processes"""
    keep_candidates: bool = False
    """also keep every evaluated policy as run_dir/candidates/model_<timesteps>.zip"""
    select_best: bool = True
    """final_model.zip is the evaluated policy with the best worst-case score over eval_agents
    (ties: the better mean, then the later); the last weights are DIR/last_model.zip"""
    bc_games: int = 150
    """behaviour-cloning warm start: games of bc_teacher whose decisions pre-train the fresh
    policy and value net before PPO (0 disables; ignored on --resume; see agents/bc.py)"""
    bc_teacher: str = "heuristic"
    """the teacher of the warm start"""
    bc_opponents: list[str] = field(
        default_factory=lambda: ["heuristic", "random", "always-react", "never-react"])
    """opponents of the teacher's games (cycled; "heuristic" plays the teacher itself, so both
    sides are recorded; atomic_africa and skirmish_alert: their own bots unless given, see
    RULESET_DEFAULTS)"""
    bc_epochs: int = 15
    """epochs over the teacher's decisions"""
    bc_lr: float = 1e-3
    """Adam learning rate of the warm start"""
    progress_bar: bool = True
    """show a progress bar (tqdm/rich)"""
    tensorboard: bool = True
    """write TensorBoard logs under run_dir/tb"""
    backend: str = "sb3"
    """training backend: sb3 (MaskablePPO in this process) or rllib (Ray RLlib PPO, multi-agent
    self-play on a local Ray instance or a cluster; needs the rllib extra, see
    agents/rllib_backend.py)"""
    num_env_runners: int = 2
    """--backend rllib: Ray env runners (rollout workers; 0 samples in the driver)"""
    address: str | None = None
    """--backend rllib: HOST:PORT of a running Ray cluster to join (None: start Ray locally)"""
    trust_checkpoint: bool = False
    """let checkpoint paths among the pool bots and evaluation agents be loaded by unpickling
    (only needed for zips not saved by train.py; see agents/checkpoint.py)"""


def _panel() -> list[str]:
    """The built-in bot panel (every built-in agent name)."""
    from agents import BUILTIN_AGENTS

    return list(BUILTIN_AGENTS)


KEEP_CHECKPOINTS = 3
#: the frozen warm start that --teacher-kl keeps the policy near, beside the checkpoints
TEACHER_FILE = "teacher_policy.pth"

#: Atomic Africa's own defaults of the flags not given (README, Atomic Africa): twice the
#: budget (PPO was still gaining at 50k; 100k stays inside 15 minutes idle), the warm
#: start's games against its own bots, and the live self-play share its numbers were measured
#: with
AA_DEFAULTS: dict[str, Any] = {
    "total_timesteps": 100_000, "pool_latest_weight": 0.2, "teacher_kl": 0.0,
    "bc_opponents": ["heuristic", "random", "never-reserve", "always-reserve"]}
#: skirmish alert's own defaults of the flags not given: 300k timesteps at learning rate 2e-4
#: without live self-play or teacher KL (session 8: 0.635 / 0.680 against the heuristic and
#: never-alert over 200 games, where 50k at 5e-5 gave 0.497 / 0.555 and 150k at 5e-5 did not
#: gain; README, Skirmish alert) and the warm start's games against its own panel
SK_DEFAULTS: dict[str, Any] = {
    "total_timesteps": 300_000, "learning_rate": 2e-4, "teacher_kl": 0.0,
    "bc_opponents": ["heuristic", "never-alert", "always-alert", "random"]}
#: a ruleset's own defaults, applied to the flags not given (never on --resume)
RULESET_DEFAULTS: dict[str, dict[str, Any]] = {"atomic_africa": AA_DEFAULTS,
                                               "skirmish_alert": SK_DEFAULTS}
#: flags that may differ from the run's config.json on --resume (budget, logging, evaluation,
#: checkpoint cadence); every other flag is the run's own
RESUMABLE = {"total_timesteps", "torch_threads", "progress_bar", "tensorboard", "eval_freq",
             "eval_games", "eval_jobs", "eval_background", "eval_agents", "eval_extra_games",
             "eval_extra_below", "keep_candidates", "checkpoint_freq", "snapshot_freq", "run_dir",
             "resume", "overwrite", "trust_checkpoint", "num_env_runners", "address",
             "pipelined_updates"}  # (a dead update worker: --resume --no-pipelined-updates)
BACKENDS = ("sb3", "rllib")
VEC_ENVS = ("dummy", "subproc")  # agents.training.VEC_ENVS (not imported: it loads sb3)


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


CKPT_RE = re.compile(r"^ckpt_(\d+)\.zip$")


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
    p = _ArgumentParser(description=__doc__.split("\n\n")[0],
                        argument_default=argparse.SUPPRESS if suppress_defaults else None)
    docs = field_docs(Args)
    defaults = Args()
    for f in dataclasses.fields(Args):
        flag = "--" + f.name.replace("_", "-")
        default = getattr(defaults, f.name)
        kw: dict[str, Any] = {"help": f"{docs.get(f.name, '')} (default: {default})"}
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
    from agents.policy import AgentError, first_repeated
    from agents.selfplay import parse_bot_spec

    seen: list[str] = []
    for spec in specs:
        try:
            seen.append(parse_bot_spec(spec)[0] if names else spec)
        except AgentError:
            continue
    return first_repeated(seen)


def check_args(args: Args) -> str | None:
    """What is wrong with ``args`` (the first problem, as one line naming the flag), or None.
    Checked for the flags given (:func:`parse_args`) and for a resumed run's config.json
    (:func:`resume_config`)."""
    checks = [(args.vec_env in VEC_ENVS, f"--vec-env {args.vec_env!r} is not one of "
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
              (args.eval_jobs >= 1, "--eval-jobs must be >= 1"),
              (math.isfinite(args.league_snapshots_weight) and args.league_snapshots_weight >= 0,
               "--league-snapshots-weight must be a finite number >= 0"),
              (0.0 <= args.eval_extra_below <= 1.0, "--eval-extra-below must be in [0, 1]"),
              (min(args.snapshot_freq, args.checkpoint_freq) >= 1,
               "--snapshot-freq and --checkpoint-freq must be >= 1"),
              (args.eval_freq >= 0, "--eval-freq must be >= 0"),
              (args.torch_threads >= 1, "--torch-threads must be >= 1"),
              (args.seed >= 0, "--seed must be >= 0"),
              (args.batch_size <= args.n_steps * args.n_envs,
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
              (args.target_kl is None or 0.0 < args.target_kl < math.inf,
               "--target-kl must be finite and > 0 (or none)"),
              (args.critic_warmup >= 0, "--critic-warmup must be >= 0"),
              (math.isfinite(args.teacher_kl) and args.teacher_kl >= 0,
               "--teacher-kl must be a finite number >= 0"),
              (args.max_decisions is None or args.max_decisions >= 1,
               "--max-decisions must be >= 1 (or none)"),
              (args.bc_games >= 0, "--bc-games must be >= 0"),
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
    for flag, specs, names in (("--eval-agents", args.eval_agents, False),
                               ("--pool-bots", args.pool_bots, True)):
        if (twice := _repeated(list(specs), names)) is not None:  # (a dict would keep one)
            checks.append((False, f"{flag} names must be distinct: {twice}"))
    for ok, msg in checks:
        if not ok:
            return msg
    return None


def parse_args(argv: list[str] | None = None) -> tuple[Args, set[str]]:
    """``(args, names of the flags given explicitly)``."""
    ns = build_parser().parse_args(argv)
    from envs.core.files import blank_arguments

    if blank := blank_arguments(ns):
        print(f"error: {', '.join(blank)} must not be empty or whitespace", file=sys.stderr)
        raise SystemExit(2)
    args = Args(**vars(ns))
    given = set(vars(build_parser(suppress_defaults=True).parse_args(argv)))
    if (msg := check_args(args)) is not None:
        print(f"error: {msg}", file=sys.stderr)
        raise SystemExit(2)
    return args, given


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
    for k, v in merged.items():  # (those given now and allowed to change replace them)
        if not (k in given and k in RESUMABLE) and (why := _config_type_error(k, v)):
            raise UsageError(f"--resume: {where}: {json.dumps(k)}: {json.dumps(v)} {why}")
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


# -- run directory -----------------------------------------------------------------------------
#: the files and directories train.py writes in the run directory besides tb/ (--overwrite
#: deletes them and tb/, except config.json, which the new run rewrites)
RUN_FILES = ("config.json", "pool.json", "metrics.csv", "metrics.json", "final_model.zip",
             "best_model.zip", "last_model.zip", "learning_curves.png", TEACHER_FILE)
RUN_SUBDIRS = ("checkpoints", "snapshots", "candidates", ".kept", ".evaluations")


def check_run_dir(run_dir: Path) -> None:
    """Refuse, before any work, a run directory where a file train.py writes is a directory
    (or not a regular file), or where one of its subdirectories is a file.

    Raises:
        UsageError: naming the path.
    """
    from envs.core.files import check_output_path

    if not run_dir.is_dir():  # nothing of a run in it yet (mkdir names a file in the way)
        return
    for name in RUN_FILES:
        try:
            check_output_path(run_dir / name)
        except OSError as exc:
            raise UsageError(f"--run-dir {str(run_dir)!r}: {exc}") from None
    for sub in (*RUN_SUBDIRS, "tb"):
        if (run_dir / sub).exists() and not (run_dir / sub).is_dir():
            raise UsageError(f"--run-dir {str(run_dir)!r}: {str(run_dir / sub)!r} is in the "
                             f"way (a file where the run keeps a directory)")


def checkpoints(run_dir: Path) -> list[tuple[int, Path]]:
    """``(timesteps, path)`` of the complete checkpoints in ``run_dir/checkpoints``, sorted."""
    d = run_dir / "checkpoints"
    if not d.is_dir():
        return []
    found = [(int(m.group(1)), d / n) for n in os.listdir(d) if (m := CKPT_RE.match(n))]
    return sorted(found)


# -- training ----------------------------------------------------------------------------------
def main(argv: list[str] | None = None) -> int:
    try:
        args, given = parse_args(argv)
    except SystemExit as exc:
        return int(exc.code or 0)
    from agents.interrupts import SignalGuard, interrupted_in
    from envs.core.workers import WorkerDiedError

    UPDATE_WORK = "the PPO update"  # agents.pipelined.UPDATE_WORK (not imported: it loads sb3)

    with SignalGuard() as guard:
        try:
            if args.backend == "rllib":
                return _train_rllib(args, given, guard)
            return train(args, given, guard)
        except UsageError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
        except BaseException as exc:
            ckdir = str(Path(args.run_dir) / "checkpoints")
            # outside the training loop or a second Ctrl-C, also when a library's clean-up
            # replaced it by its own error, or a worker died of the same signal
            if (intr := interrupted_in(exc)) is not None:
                print(f"interrupted ({intr.name}): aborted, no partial file left; complete "
                      f"checkpoints (if any) are in {ckdir!r}", file=sys.stderr)
                return intr.exit_status
            if isinstance(exc, WorkerDiedError) and exc.what == UPDATE_WORK:
                print(f"error: the PPO update worker process died (killed by a signal or out "
                      f"of memory?); run the updates in this process (--no-pipelined-updates) "
                      f"to see what happens; complete checkpoints (if any) are in {ckdir!r}: "
                      f"continue with --resume", file=sys.stderr)
                return 1
            if isinstance(exc, WorkerDiedError):  # an evaluation's worker process was killed
                what = exc.what or "evaluation games"
                print(f"error: a worker process died while playing {what} "
                      f"(killed by a signal or out of memory?); play the evaluations in this "
                      f"process (--eval-jobs 1 --no-eval-background) to see what happens; "
                      f"complete checkpoints (if any) are in {ckdir!r}: continue with --resume",
                      file=sys.stderr)
                return 1
            raise


def _train_rllib(args: Args, given: set[str], guard: Any) -> int:
    from agents.policy import AgentError
    from agents.rllib_backend import train as train_rllib

    try:
        with guard.deferred():
            return train_rllib(args, given, guard, resume_config)
    except AgentError as exc:
        raise UsageError(str(exc).splitlines()[0]) from None


def _name_agent_flags(message: str, args: Args) -> str:
    """``message`` about an agent, prefixed with the flags that name it (``--pool-bots:
    unknown agent 'bogus': ...``) when the message quotes one of their agents."""
    from agents.policy import AgentError
    from agents.selfplay import parse_bot_spec

    if message.startswith("opponent pool"):  # the pool's own checks: its bots and weights
        return f"--pool-bots: {message}" if message.startswith("opponent pool bot") else message

    def name(spec: str) -> str:
        try:
            return parse_bot_spec(spec)[0]
        except AgentError:
            return spec

    holders = (("--pool-bots", args.pool_bots), ("--eval-agents", args.eval_agents),
               ("--bc-teacher", [args.bc_teacher] if args.bc_games > 0 else []),
               ("--bc-opponents", args.bc_opponents if args.bc_games > 0 else []))
    flags = [flag for flag, specs in holders
             if any(repr(name(spec)) in message for spec in specs)]
    return f"{', '.join(flags)}: {message}" if flags else message


def train(args: Args, given: set[str], guard: Any = None) -> int:
    import numpy as np

    from agents import make_agent
    from agents.policy import AgentError
    from agents.league import League
    from agents.run_lock import lock_run_dir
    from agents.selfplay import OpponentPool, PoolWeights, atomic_save_model, atomic_write_text
    from envs.core.files import atomic_write_bytes
    from envs import load_game
    from envs.core.errors import RiposteError

    run_dir = Path(args.run_dir)
    ckpts = checkpoints(run_dir)
    if args.resume:
        if not ckpts:
            raise UsageError(f"--resume: no checkpoint in {str(run_dir / 'checkpoints')!r}")
        args = resume_config(args, given)
    elif ckpts and not args.overwrite:
        raise UsageError(f"{str(run_dir)!r} already holds checkpoints: pass --resume to continue "
                         "or --overwrite to start afresh")
    check_run_dir(run_dir)

    if args.ruleset != "acw_regimental":  # a ruleset's own bot panel replaces the default one
        from agents.builtin import panel_for

        panel = panel_for(args.ruleset)
        args = dataclasses.replace(
            args, pool_bots=panel if args.pool_bots == _panel() else args.pool_bots,
            eval_agents=panel if args.eval_agents == _panel() else args.eval_agents)
    if args.ruleset in RULESET_DEFAULTS and not args.resume:  # its own defaults
        args = dataclasses.replace(args, **{k: v for k, v in RULESET_DEFAULTS[args.ruleset].items()
                                            if k not in given})
    pool_seed, env_seed, eval_seed = np.random.SeedSequence(args.seed).spawn(3)
    try:
        game = load_game(args.ruleset, args.scenario)
        if args.shaped_reward and not type(game).has_shaped_reward:
            raise UsageError(f"--shaped-reward: the {args.ruleset} ruleset has no shaped reward "
                             f"(its reward is the final result only)")
        pool_kw = dict(bots=tuple(args.pool_bots),
                       weights=PoolWeights(args.pool_latest_weight, args.pool_snapshot_weight,
                                           args.pool_bot_weight),
                       max_snapshots=args.max_snapshots, snapshot_dir=run_dir / "snapshots",
                       seed=pool_seed, trust_checkpoints=args.trust_checkpoint)
        pool = (League(game, self_play=min(args.pool_latest_weight, 1.0),
                       snapshots_weight=args.league_snapshots_weight, **pool_kw)
                if args.pfsp else OpponentPool(game, **pool_kw))
        eval_opponents = {n: make_agent(n, game, s, args.trust_checkpoint) for n, s in
                          zip(args.eval_agents, eval_seed.spawn(len(args.eval_agents)))}
        bc_agents = {}
        if args.bc_games > 0 and not args.resume:
            bc_seeds = np.random.SeedSequence([args.seed, 7]).spawn(len(args.bc_opponents) + 1)
            bc_agents["teacher"] = make_agent(args.bc_teacher, game, bc_seeds[-1],
                                              args.trust_checkpoint)
            for name, s in zip(args.bc_opponents, bc_seeds):
                bc_agents[name] = (bc_agents["teacher"] if name == args.bc_teacher
                                   else make_agent(name, game, s, args.trust_checkpoint))
    except (RiposteError, AgentError) as exc:
        raise UsageError(_name_agent_flags(str(exc).splitlines()[0], args)) from None
    try:
        run_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        why = ("a file of that name is in the way" if isinstance(exc, FileExistsError)
               else exc.strerror)
        raise UsageError(f"--run-dir {str(run_dir)!r}: cannot create the directory "
                         f"({why})") from None
    try:  # one run at a time in a directory, held until this process ends
        lock_run_dir(run_dir)
    except AgentError as exc:
        raise UsageError(str(exc)) from None
    if args.overwrite and not args.resume:  # start afresh, now that every flag is known good
        for sub in (*RUN_SUBDIRS, "tb"):  # (the old run's TensorBoard curves too)
            shutil.rmtree(run_dir / sub, ignore_errors=True)
        for name in RUN_FILES:
            if name != "config.json":
                (run_dir / name).unlink(missing_ok=True)

    # -- seeding (one block; the pool, envs and evaluations use their own SeedSequence streams)
    import torch
    from agents.teacher_kl import TeacherKLMaskablePPO
    from agents.training import SelfPlayCallback, TimedVecEnv, make_vec_env

    random.seed(args.seed)
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.torch_threads)
    # sb3-contrib's masked Categorical re-validates its logits at every construction (three a
    # rollout step); the checks never fire for a policy's own logits and cost as much as the
    # forward pass itself
    torch.distributions.Distribution.set_default_validate_args(False)

    venv = TimedVecEnv(make_vec_env(args.ruleset, args.scenario, pool, args.n_envs,
                                    args.max_decisions, args.shaped_reward,
                                    vec_env=args.vec_env))
    tb = str(run_dir / "tb") if args.tensorboard else None
    if args.resume:
        from agents.checkpoint import load_newest_checkpoint, purge_tensorboard_after
        from agents.resume import load_training_state, read_training_state

        def load(p: Path) -> tuple[Any, Any]:  # the model and its resume state (None: a
            m = TeacherKLMaskablePPO.load(str(p), env=venv, device="cpu", tensorboard_log=tb)
            blob = read_training_state(p)  # checkpoint of an older Riposte: reseeded)
            return m, None if blob is None else load_training_state(blob, venv, str(p))

        try:  # the newest checkpoint that loads (one cut short by a crash is skipped)
            (model, resume_state), ckpt, skipped = load_newest_checkpoint(ckpts, load)
        except AgentError as exc:
            venv.close()
            raise UsageError(f"--resume: {exc}") from None
        for line in skipped:
            print(line)
        if tb is not None:
            purge_tensorboard_after(tb, "ppo", model.num_timesteps)
        if resume_state is None and (run_dir / "pool.json").is_file():
            try:
                pool.load_state(run_dir / "pool.json")
            except AgentError as exc:
                venv.close()
                raise UsageError(f"--resume: {exc}") from None
        if model.num_timesteps >= args.total_timesteps:
            if (run_dir / "final_model.zip").is_file():
                venv.close()
                print(f"{str(run_dir)!r} is already at {model.num_timesteps} timesteps (>= "
                      f"--total-timesteps {args.total_timesteps}): nothing to train; pass a "
                      f"larger --total-timesteps to continue")
                return 0
            # stopped after its last rollout (while it waited for its last evaluations, or
            # played the final one): finish it — evaluations, selection, final_model.zip
            print(f"{str(run_dir)!r} is at {model.num_timesteps} timesteps (>= "
                  f"--total-timesteps {args.total_timesteps}) but has no final_model.zip: "
                  f"finishing the run")
        if resume_state is None:
            venv.seed(int(env_seed.generate_state(1)[0]) + model.num_timesteps)
    else:
        model = TeacherKLMaskablePPO(
            "MlpPolicy", venv, teacher_kl_coef=args.teacher_kl,
            learning_rate=args.learning_rate, n_steps=args.n_steps,
            batch_size=args.batch_size, n_epochs=args.n_epochs, gamma=args.gamma,
            gae_lambda=args.gae_lambda, clip_range=args.clip_range, ent_coef=args.ent_coef,
            vf_coef=args.vf_coef, max_grad_norm=args.max_grad_norm, target_kl=args.target_kl,
            policy_kwargs={"net_arch": list(args.net_arch)}, tensorboard_log=tb,
            seed=args.seed, device="cpu", verbose=0)
    bc_stats: dict[str, Any] = {}
    if bc_agents:
        from agents.bc import collect_demonstrations, pretrain

        t_bc = time.perf_counter()
        data = collect_demonstrations(game, bc_agents["teacher"],
                                      [bc_agents[n] for n in args.bc_opponents], args.bc_games,
                                      seed=args.seed, gamma=args.gamma,
                                      max_decisions=args.max_decisions)
        t_collect = time.perf_counter() - t_bc
        bc_stats = pretrain(model, data, epochs=args.bc_epochs, batch_size=args.batch_size,
                            lr=args.bc_lr, vf_coef=args.vf_coef, seed=args.seed)
        bc_stats.update(games=args.bc_games, collect_seconds=t_collect,
                        seconds=time.perf_counter() - t_bc)
        print(f"warm start: {len(data)} decisions of {args.bc_teacher!r} from {args.bc_games} "
              f"games, accuracy {bc_stats['accuracy']:.3f} ({bc_stats['seconds']:.1f} s)")
    teacher_file = run_dir / TEACHER_FILE
    if args.teacher_kl > 0:  # the warm-started policy, frozen, is the KL term's teacher
        if args.resume:  # (a run without a warm start has no teacher file: none then either)
            if teacher_file.is_file():
                try:
                    model.load_teacher_state_dict(torch.load(teacher_file, map_location="cpu",
                                                             weights_only=True))
                except Exception as exc:  # noqa: BLE001 - torch raises many kinds
                    venv.close()
                    raise UsageError(f"--resume: cannot read {str(teacher_file)!r}: "
                                     f"{str(exc).splitlines()[0] if str(exc) else exc}") \
                        from None
        elif bc_agents:
            import io

            model.set_teacher()
            buffer = io.BytesIO()
            torch.save(model.teacher_state_dict(), buffer)
            atomic_write_bytes(teacher_file, buffer.getvalue())
    from agents.fast_policy import install_fast_forward

    install_fast_forward(model.policy)  # rollout forward pass, bitwise the same numbers
    pool.set_latest(model)
    if args.pipelined_updates:  # (before the resume state: it may hold an update in flight)
        model.start_pipelined_updates()
    config = {"args": dataclasses.asdict(args), "game": game.config(),
              "observation_size": game.observation_size,
              "num_distinct_actions": game.num_distinct_actions}
    atomic_write_text(run_dir / "config.json", json.dumps(config, indent=2, sort_keys=True))

    callback = SelfPlayCallback(
        run_dir=run_dir, pool=pool, game=game, eval_opponents=eval_opponents,
        snapshot_freq=args.snapshot_freq, checkpoint_freq=args.checkpoint_freq,
        eval_freq=args.eval_freq, eval_games=args.eval_games, eval_seed=args.seed + 1,
        keep_checkpoints=KEEP_CHECKPOINTS, max_decisions=args.max_decisions, timed_env=venv,
        eval_after=args.critic_warmup, extra_games=args.eval_extra_games,
        extra_below=args.eval_extra_below,
        candidates_dir=run_dir / "candidates" if args.keep_candidates else None,
        eval_jobs=args.eval_jobs,
        background=args.eval_background and "fork" in multiprocessing.get_all_start_methods())
    if args.resume and resume_state is not None:  # exact resume (agents/resume.py)
        from agents.resume import restore_training_state

        try:
            restore_training_state(resume_state, model, venv, pool, callback, where=str(ckpt))
            callback.discard_after(model.num_timesteps)  # what the stopped run wrote later
        except AgentError as exc:
            venv.close()
            raise UsageError(f"--resume: {exc}") from None
    if args.resume:
        how = ("every generator and env state restored" if resume_state is not None
               else "an older checkpoint: generators reseeded, not restored")
        print(f"resuming from {ckpt} at {model.num_timesteps} timesteps "
              f"({len(pool.snapshots)} snapshots in the pool; {how})")
    remaining = args.total_timesteps - model.num_timesteps
    rollout = args.n_steps * args.n_envs
    if remaining > 0 and remaining % rollout:
        total = model.num_timesteps + -(-remaining // rollout) * rollout
        print(f"note: PPO trains in whole rollouts of {rollout} timesteps (n_steps x n_envs): "
              f"{total} timesteps in all, not {args.total_timesteps}")
    t0, cpu0 = time.perf_counter(), time.process_time()
    worker_cpu0 = venv.worker_cpu_seconds()  # env processes (--vec-env subproc), else 0
    steps0 = model.num_timesteps
    try:  # the background evaluation worker is stopped whatever happens
        if remaining > 0:
            from agents.interrupts import SignalGuard, exit_status
            from agents.finetune import CriticWarmupCallback
            from agents.training import InterruptCallback

            guard = guard or SignalGuard()
            # the first Ctrl-C / SIGTERM stops at the next rollout boundary, checkpointed there
            stop = InterruptCallback(guard, at_stop=callback.save_checkpoint)
            with guard.deferred():
                model.learn(total_timesteps=remaining,
                            callback=[callback, CriticWarmupCallback(args.critic_warmup), stop],
                            progress_bar=args.progress_bar, reset_num_timesteps=not args.resume,
                            tb_log_name="ppo")
            learn_wall = time.perf_counter() - t0
            if guard.requested is not None:
                at = stop.stopped_at if stop.stopped_at is not None else model.num_timesteps
                path = stop.saved if stop.saved is not None else callback.save_checkpoint(at)
                venv.close()
                print(f"interrupted ({guard.requested_name}) at {at} timesteps: "
                      f"saved {str(path)!r}; resume with: python train.py --run-dir "
                      f"{shlex.quote(str(run_dir))} --resume")
                return exit_status(guard.requested)
        else:  # a resumed run that only finishes (the callback never saw model.learn)
            callback.init_callback(model)
            learn_wall = 0.0
        model.finish_updates()  # (learn waits for the last one; this one is for a resume
        #                          that had nothing left to learn)
        if callback.pending_evaluations():  # a checkpoint to --resume from while waiting
            callback.save_checkpoint(model.num_timesteps)
        callback.drain()  # the background evaluations still playing (their wait is timed)
        wall, cpu = time.perf_counter() - t0, time.process_time() - cpu0
        steps = model.num_timesteps - steps0
        worker_cpu = venv.worker_cpu_seconds() - worker_cpu0
        updater = model.update_worker
        update_cpu = updater.cpu_seconds if updater is not None else 0.0

        # -- final artefacts -------------------------------------------------------------------
        callback.save_checkpoint(model.num_timesteps)
        scores = callback.scores(model) if args.eval_games else {}
        atomic_save_model(model, run_dir / "last_model.zip", game)
        callback.consider(model.num_timesteps, scores)  # the last weights are a candidate too
        selected = callback.best if args.select_best and callback.best else None
        if selected is not None:
            atomic_write_bytes(run_dir / "final_model.zip",
                               (run_dir / "best_model.zip").read_bytes())
        else:
            atomic_save_model(model, run_dir / "final_model.zip", game)
        summary = {
            "timesteps": int(model.num_timesteps),
            "session_timesteps": int(steps),
            "wall_seconds": wall,
            "timesteps_per_second": steps / wall if wall > 0 else 0.0,
            "env_step_seconds": venv.env_seconds,
            "env_time_share": venv.env_seconds / wall if wall > 0 else 0.0,
            # CPU time (time.process_time of this process; env workers' own CPU separately):
            # on a shared machine the wall-clock numbers above depend on the other jobs' load
            "cpu_seconds": cpu,
            "env_cpu_seconds": venv.env_cpu_seconds,
            "env_worker_cpu_seconds": worker_cpu,
            "timesteps_per_cpu_second": (steps / (cpu + worker_cpu + update_cpu)
                                         if cpu > 0 else 0.0),
            "env_cpu_share": venv.env_cpu_seconds / cpu if cpu > 0 else 0.0,
            # pipelined updates (agents/pipelined.py): the update worker's time inside the
            # updates, and the share of model.learn's wall time the learner had no update to
            # run, waiting for the envs' next rollout (the env's share of the PPO wall time)
            "pipelined_updates": updater is not None,
            "update_seconds": updater.busy_seconds if updater else None,
            "update_cpu_seconds": updater.cpu_seconds if updater else None,
            "update_wait_seconds": updater.wait_seconds if updater else None,
            "learn_wall_seconds": learn_wall,
            "learner_wait_share": (1.0 - updater.busy_seconds / learn_wall
                                   if updater and learn_wall > 0 else None),
            # the periodic evaluations: the wall time training paused for them (in the
            # background: waited for them), and their CPU time (in the background: the
            # worker's; pausing: this process's, not that of its --eval-jobs workers)
            "eval_seconds": callback.eval_seconds,
            "eval_cpu_seconds": callback.eval_cpu_seconds,
            "eval_background": callback.evaluator is not None,
            "eval_games": args.eval_games,
            "final_scores": scores,
            "opponent_picks": dict(pool.picks),
            "warm_start": bc_stats,
            "selected": selected,
            "league_win_rates": ({n: pool.win_rate(n) for n in pool.results}
                                 if isinstance(pool, League) else {}),
        }
        callback.write_metrics_row(model.num_timesteps, scores, wall, steps)
        if scores:
            from agents.plots import plot_learning_curves

            plot_learning_curves(run_dir / "metrics.csv", run_dir / "learning_curves.png",
                                 title=f"{args.ruleset} / {game.scenario_name}, seed {args.seed}",
                                 selected=selected["timesteps"] if selected else None)
        atomic_write_text(run_dir / "metrics.json", json.dumps(summary, indent=2, sort_keys=True))
        venv.close()
        print(f"trained {steps} timesteps in {wall:.1f} s: {summary['timesteps_per_second']:.1f} "
              f"timesteps/s; env.step share of time {summary['env_time_share']:.1%}")
        if updater is not None:
            print(f"pipelined PPO updates: the update worker ran {updater.updates} updates in "
                  f"{updater.busy_seconds:.1f} s of the {learn_wall:.1f} s of model.learn; "
                  f"it waited for the envs' rollouts {summary['learner_wait_share']:.1%} of "
                  f"that time, and the envs waited for it {updater.wait_seconds:.1f} s")
        print(f"CPU: {cpu + worker_cpu + update_cpu:.1f} s ({summary['timesteps_per_cpu_second']:.1f} timesteps "
              f"per CPU-second; env share of this process's CPU {summary['env_cpu_share']:.1%}"
              + (f"; env workers {worker_cpu:.1f} s" if worker_cpu else "")
              + (f"; update worker {update_cpu:.1f} s" if update_cpu else "")
              + ")")
        if callback.evaluator is not None:
            print(f"periodic evaluations beside training: {callback.eval_cpu_seconds:.1f} CPU-s "
                  f"in their worker; training waited {callback.eval_seconds:.1f} s for them")
        else:
            print(f"periodic evaluations: {callback.eval_seconds:.1f} s of the wall time")
        for name, s in scores.items():
            print(f"final score vs {name}: {s:.3f}")
        if selected is not None:
            print(f"kept the policy of {selected['timesteps']} timesteps (worst-case score "
                  f"{selected['worst']:.3f}; {args.eval_games} games per opponent, "
                  f"{args.eval_games + args.eval_extra_games} against those below "
                  f"{args.eval_extra_below}) as "
                  f"final_model.zip; the last weights are last_model.zip")
        print(f"wrote {run_dir / 'final_model.zip'}")
        return 0
    finally:
        callback.close()
        model.stop_pipelined_updates()


if __name__ == "__main__":
    sys.exit(main())
