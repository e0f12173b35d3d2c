"""``train.py --backend rllib``: multi-agent self-play with Ray RLlib's PPO (new API stack).

The game is the PettingZoo AEC env (:class:`envs.adapters.aec.RiposteAECEnv`, seats drawn at
every reset) seen through RLlib's ``PettingZooEnv`` wrapper. The wrapper takes the agent on move
from ``agent_selection``, so reaction windows and long runs of decisions by one side need nothing
special; each agent's reward is the one PettingZoo accumulated since it last acted.

Modules (one :class:`ray.rllib.core.rl_module.MultiRLModule`)::

    main            MaskedActorCritic, the only module trained (policies_to_train)
    snapshot_<k>    frozen copies of main (k < max_snapshots), refreshed round-robin every
                    snapshot_freq timesteps (all start as the initial weights)
    bot_<name>      the scripted bots (BotModule: agents.make_agent(name).act on the batch)

The policy mapping gives one seat of every episode (drawn from the episode id) to ``main`` and the
other to an opponent drawn with the pool weights: ``main`` itself (self-play, weight
``pool_latest_weight``), a snapshot (``pool_snapshot_weight``, uniform over the slots) or a bot
(``pool_bot_weight``, split by the ``NAME:WEIGHT`` weights of ``pool_bots``).

Action masking is done in the module: the network sees only ``obs["observation"]``; the logits
of the actions ``obs["action_mask"]`` forbids are set to the float32 minimum, so they get zero
probability (``exp`` underflows) and never reach the network as a feature.

``MaskedActorCritic`` is, layer for layer and name for name, sb3-contrib's
``MaskableActorCriticPolicy`` (separate policy / value MLPs, ``net_arch`` hidden sizes, Tanh,
orthogonal init): :func:`export_policy` writes its ``state_dict`` as ``policy.pth`` with our JSON
config (:mod:`agents.policies.checkpoint`), so the exported ``final_model.zip`` is loaded without
unpickling by ``evaluate.py --agents`` like any SB3-trained model.

Run directory (``--run-dir DIR``)::

    DIR/config.json                      Args + game config (backend "rllib")
    DIR/rllib_checkpoints/ckpt_<t>/      Algorithm.save_to_path (+ riposte_state.json); last 3
    DIR/tb/rllib/                        TensorBoard scalars per training iteration
    DIR/metrics.json                     throughput, env-runner nodes, final scores
    DIR/.lock                            held while a run trains here (agents/training/run_lock.py)
    DIR/final_model.zip                  the last weights of main, exported (riposte-policy/1)

Ray: without ``--address`` Ray starts in this process with ``num_cpus = max(2,
num_env_runners + 1)`` and a small object store; ``--address HOST:PORT`` joins a running
cluster (``ray start --head`` / ``ray start --address``) after checking within
:data:`CONNECT_TIMEOUT` seconds that something listens there.

Needs the ``rllib`` extra (``pip install -e ".[rllib]"``); imports ray lazily.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import io
import json
import math
import os
import shutil
import socket
import sys
import time
import zipfile
from pathlib import Path
from typing import Any

import numpy as np

from ..policies.base import AgentError

#: the training backends of train.py
BACKENDS = ("sb3", "rllib")
#: the command that installs this backend's dependencies
INSTALL_HINT = ('pip install torch==2.13.0 && pip install -e ".[rllib]" (or: make '
                'install-rllib)')
#: seconds to wait for a TCP connection to --address before giving up
CONNECT_TIMEOUT = 5.0
#: Ray object store of a local instance, bytes (Ray's minimum is 75 MiB)
OBJECT_STORE_BYTES = 80 * 1024 * 1024
KEEP_CHECKPOINTS = 3
CKPT_DIR = "rllib_checkpoints"
STATE_FILE = "riposte_state.json"
MAIN = "main"


class RllibBackendError(AgentError):
    """Bad input or an unusable environment for the RLlib backend (missing extra, unreachable
    cluster, bad run directory); one line, reported by train.py as ``error: ...``."""


def require_rllib() -> None:
    """Raises :class:`RllibBackendError` naming :data:`INSTALL_HINT` when Ray RLlib is not
    importable."""
    try:
        import ray  # noqa: F401
        import ray.rllib  # noqa: F401
    except ImportError as exc:
        raise RllibBackendError(f"--backend rllib needs Ray RLlib, which is not installed "
                                f"({exc}); install it with: {INSTALL_HINT}") from None


def check_address(address: str, timeout: float = CONNECT_TIMEOUT) -> None:
    """Check that a TCP connection to ``HOST:PORT`` opens within ``timeout`` seconds (``ray.init``
    itself retries for minutes). ``"auto"`` and ``ray://`` addresses are left to Ray.

    Raises:
        RllibBackendError: for a malformed address or nothing listening there in time.
    """
    if address == "auto" or address.startswith("ray://"):
        return
    host, sep, port = address.rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise RllibBackendError(f"--address {address!r} is not HOST:PORT (e.g. "
                                f"10.0.0.5:6379, the address `ray start --head` printed)")
    try:
        with socket.create_connection((host, int(port)), timeout=timeout):
            pass
    except OSError as exc:
        why = "timed out" if isinstance(exc, TimeoutError) else (exc.strerror or str(exc))
        raise RllibBackendError(f"--address {address!r}: no Ray cluster reachable there "
                                f"({why} within {timeout:g} s); start one with `ray start "
                                f"--head --port {port}` or check the host and port") from None


def _numpy(x: Any) -> np.ndarray:
    return x.detach().cpu().numpy() if hasattr(x, "detach") else np.asarray(x)


# -- env and policy mapping -----------------------------------------------------------------
def make_env(config: dict[str, Any]):
    """The RLlib multi-agent env: ``PettingZooEnv(RiposteAECEnv(...))`` with seats drawn at
    every reset. ``config``: ``ruleset``, ``scenario``, ``max_decisions``, ``shaped_reward``."""
    from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv

    from envs.adapters.aec import RiposteAECEnv

    return PettingZooEnv(RiposteAECEnv(config["ruleset"], config.get("scenario"),
                                       randomize_seats=True,
                                       max_decisions=config.get("max_decisions"),
                                       shaped_reward=bool(config.get("shaped_reward"))))


def episode_matchup(episode_id: str, agents: tuple[str, ...], opponents: tuple[str, ...],
                    weights: tuple[float, ...]) -> tuple[str, str]:
    """``(agent playing main, opponent module id)`` of an episode, a pure function of its id
    (so every call for the same episode agrees)."""
    digest = hashlib.blake2b(str(episode_id).encode(), digest_size=8).digest()
    rng = np.random.default_rng(int.from_bytes(digest, "little"))
    seat = agents[int(rng.integers(len(agents)))]
    p = np.asarray(weights, dtype=float)
    return seat, opponents[int(rng.choice(len(opponents), p=p / p.sum()))]


def map_agent(agent_id: str, episode: Any, agents: tuple[str, ...] = (),
              opponents: tuple[str, ...] = (), weights: tuple[float, ...] = (),
              **kwargs: Any) -> str:
    """RLlib's ``policy_mapping_fn``: ``main`` for the episode's main seat, else its
    opponent."""
    seat, opp = episode_matchup(episode.id_, agents, opponents, weights)
    return MAIN if agent_id == seat else opp


def opponent_table(args: Any) -> tuple[tuple[str, ...], tuple[float, ...], dict[str, str]]:
    """``(module ids, weights, {bot module id: bot name})`` of the opponents.

    Raises:
        RllibBackendError: for a bad ``NAME:WEIGHT`` or all weights zero.
    """
    from ..training.league.selfplay import parse_bot_spec

    ids, weights, bots = [MAIN], [float(args.pool_latest_weight)], {}
    for k in range(args.max_snapshots):
        ids.append(f"snapshot_{k}")
        weights.append(args.pool_snapshot_weight / args.max_snapshots)
    try:
        specs = [parse_bot_spec(s) for s in args.pool_bots]
    except AgentError as exc:
        raise RllibBackendError(str(exc).splitlines()[0]) from None
    total = sum(w for _, w in specs)
    for name, w in specs:
        mid = "bot_" + "".join(c if c.isalnum() or c in "-_" else "_" for c in name)
        if mid in bots:
            continue
        bots[mid] = name
        ids.append(mid)
        weights.append(args.pool_bot_weight * w / total if total > 0 else 0.0)
    if sum(weights) <= 0:
        raise RllibBackendError("--pool-*-weight: every opponent has weight 0")
    return tuple(ids), tuple(weights), bots


# -- export to the policy protocol -----------------------------------------------------------
def export_policy(state_dict: dict[str, Any], path: str | Path, game: Any,
                  net_arch: list[int], timesteps: int) -> Path:
    """Write ``main``'s weights as a ``riposte-policy/1`` checkpoint zip (``policy.pth`` of
    tensors + :data:`agents.policies.checkpoint.CONFIG_MEMBER`), atomically, and check it loads with
    :func:`agents.policies.checkpoint.load_policy_model` (no unpickling).

    Raises:
        AgentLoadError: when the weights do not fit the architecture (names the path).
    """
    import torch

    from ..policies.checkpoint import CONFIG_MEMBER, FORMAT, load_policy_model

    path = Path(path)
    n_obs, n_act = int(game.observation_size), int(game.num_distinct_actions)
    cfg = {"format": FORMAT, "policy_class": "MaskableActorCriticPolicy",
           "observation_space": {"type": "Box", "shape": [n_obs], "dtype": "float32",
                                 "low": "-inf", "high": "inf"},
           "action_space": {"type": "Discrete", "n": n_act, "start": 0},
           "net_arch": [int(v) for v in net_arch], "activation_fn": "Tanh",
           "share_features_extractor": True, "normalize_images": True,
           "num_timesteps": int(timesteps), "ruleset": game.ruleset_id,
           "scenario": game.scenario_name, "observation_size": n_obs,
           "num_distinct_actions": n_act, "trained_with": "rllib"}
    buf = io.BytesIO()
    torch.save({k: torch.as_tensor(_numpy(v)) for k, v in state_dict.items()}, buf)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.stem}.tmp{os.getpid()}.zip")
    try:
        with zipfile.ZipFile(tmp, "w") as zf:
            zf.writestr("policy.pth", buf.getvalue())
            zf.writestr(CONFIG_MEMBER, json.dumps(cfg, indent=2, sort_keys=True))
        load_policy_model(tmp)  # refuses weights that do not fit (strict load)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return path


# -- training ---------------------------------------------------------------------------------
def _checkpoints(run_dir: Path) -> list[tuple[int, Path]]:
    d = run_dir / CKPT_DIR
    if not d.is_dir():
        return []
    out = []
    for p in d.iterdir():
        if p.is_dir() and p.name.startswith("ckpt_") and p.name[5:].isdigit() \
                and (p / STATE_FILE).is_file():
            out.append((int(p.name[5:]), p))
    return sorted(out)


def build_config(args: Any, game: Any):
    """The ``PPOConfig`` of a run (new API stack, multi-agent, modules as in the module
    docstring)."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.tune.registry import register_env

    register_env("riposte_aec", make_env)
    ids, weights, bots = opponent_table(args)
    net = {"net_arch": list(args.net_arch), "activation_fn": "Tanh"}
    from .rllib_modules import BotModule, MaskedActorCritic

    specs = {MAIN: RLModuleSpec(module_class=MaskedActorCritic, model_config=net)}
    for mid in ids:
        if mid.startswith("snapshot_"):
            specs[mid] = RLModuleSpec(module_class=MaskedActorCritic, model_config=net)
    for k, (mid, name) in enumerate(sorted(bots.items())):
        specs[mid] = RLModuleSpec(module_class=BotModule, model_config={
            "agent": name, "ruleset": args.ruleset, "scenario": args.scenario,
            "seed": args.seed * 1000 + k, "trust_checkpoint": args.trust_checkpoint})
    agents = tuple(f"player_{i}" for i in range(game.num_players))
    rollout = args.n_steps * args.n_envs
    config = (
        PPOConfig()
        .environment("riposte_aec", env_config={
            "ruleset": args.ruleset, "scenario": args.scenario,
            "max_decisions": args.max_decisions, "shaped_reward": args.shaped_reward},
            disable_env_checking=True)  # its checker steps random (illegal) actions
        .framework("torch")
        .env_runners(num_env_runners=args.num_env_runners, num_envs_per_env_runner=1,
                     num_cpus_per_env_runner=1,
                     rollout_fragment_length=max(1, rollout // max(1, args.num_env_runners)),
                     sample_timeout_s=None)
        .learners(num_learners=0)
        .training(lr=args.learning_rate, gamma=args.gamma, lambda_=args.gae_lambda,
                  clip_param=args.clip_range, entropy_coeff=args.ent_coef,
                  vf_loss_coeff=args.vf_coef, grad_clip=args.max_grad_norm,
                  grad_clip_by="global_norm", use_kl_loss=False, vf_clip_param=1e6,
                  train_batch_size_per_learner=rollout, minibatch_size=args.batch_size,
                  num_epochs=args.n_epochs)
        .multi_agent(policies=set(specs),
                     policy_mapping_fn=functools.partial(map_agent, agents=agents,
                                                         opponents=ids, weights=weights),
                     policies_to_train=[MAIN])
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs=specs))
        .callbacks(on_episode_end=_on_episode_end)
        .debugging(seed=args.seed, log_level="ERROR")
        .reporting(metrics_num_episodes_for_smoothing=100)
    )
    return config


def _on_episode_end(*, episode, metrics_logger=None, **kwargs) -> None:
    """Log main's score (1 win, 0.5 draw, 0 loss) against the episode's opponent."""
    if metrics_logger is None:
        return
    seat = next((a for a in episode.agent_ids if episode.module_for(a) == MAIN), None)
    if seat is None:
        return
    other = [a for a in episode.agent_ids if a != seat]
    opp = episode.module_for(other[0]) if other else MAIN
    ret = float(sum(episode.get_rewards().get(seat, [0.0])))
    score = 1.0 if ret > 0 else (0.5 if ret == 0 else 0.0)
    metrics_logger.log_value(("score_vs", opp), score, reduce="mean", window=100)
    metrics_logger.log_value(("games_vs", opp), 1, reduce="sum")
    metrics_logger.log_value(("score_sum_vs", opp), score, reduce="sum")


def tally_training_games(result: dict[str, Any], games: dict[str, int],
                         score_sums: dict[str, float]) -> None:
    """Add one training iteration's finished games per opponent (``games_vs``) to ``games``
    and the sum of main's scores in them (``score_sum_vs``) to ``score_sums``; values that are
    not finite numbers are skipped."""
    runners = result.get("env_runners", {})
    tallies: tuple[tuple[str, dict[str, Any]], ...] = (("games_vs", games),
                                                       ("score_sum_vs", score_sums))
    for key, into in tallies:
        for k, v in (runners.get(key) or {}).items():
            if isinstance(v, (int, float)) and math.isfinite(v):
                into[k] = into.get(k, 0) + (int(v) if into is games else float(v))


def training_scores(games: dict[str, int], score_sums: dict[str, float]) -> dict[str, float]:
    """Main's mean score (1 win, 0.5 draw, 0 loss) per opponent over every training game
    counted (:func:`tally_training_games`), for the opponents it met at least once."""
    return {k: score_sums.get(k, 0.0) / n for k, n in games.items() if n > 0}


def _scalars(result: dict[str, Any], prefix: str = "") -> dict[str, float]:
    out = {}
    for k, v in result.items():
        key = f"{prefix}{k}"
        if isinstance(v, dict):
            out.update(_scalars(v, key + "/"))
        elif isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool) \
                and math.isfinite(float(v)):
            out[key] = float(v)
    return out


def _main_steps(result: dict[str, Any]) -> int:
    from ray.rllib.utils.metrics import ENV_RUNNER_RESULTS, NUM_MODULE_STEPS_SAMPLED

    return int((result.get(ENV_RUNNER_RESULTS, {}).get(NUM_MODULE_STEPS_SAMPLED) or {})
               .get(MAIN, 0))


def _env_steps(result: dict[str, Any]) -> int:
    from ray.rllib.utils.metrics import ENV_RUNNER_RESULTS, NUM_ENV_STEPS_SAMPLED

    return int(result.get(ENV_RUNNER_RESULTS, {}).get(NUM_ENV_STEPS_SAMPLED, 0) or 0)


def init_ray(args: Any) -> None:
    """``ray.init``: join ``args.address`` (checked first, see :func:`check_address`) or start
    a small local instance.

    Raises:
        RllibBackendError: when the cluster cannot be joined."""
    import ray

    os.environ.setdefault("RAY_DEDUP_LOGS", "0")
    kw: dict[str, Any] = dict(include_dashboard=False, log_to_driver=False,
                              logging_level="ERROR", configure_logging=True)
    if args.address:
        check_address(args.address)
        try:
            ray.init(address=args.address, **kw)
        except Exception as exc:  # noqa: BLE001 - ConnectionError, RuntimeError, ...
            first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            raise RllibBackendError(f"--address {args.address!r}: cannot join the Ray "
                                    f"cluster: {first} (is the head's auth token in "
                                    f"~/.ray/auth_token or RAY_AUTH_TOKEN here?)") from None
    else:
        ray.init(address="local", num_cpus=max(2, args.num_env_runners + 1),
                 object_store_memory=OBJECT_STORE_BYTES, **kw)


def env_runner_nodes(algo: Any) -> list[str]:
    """Ray node id of each remote env runner (the local one when there are none)."""
    def node(_runner):
        import ray

        return ray.get_runtime_context().get_node_id()
    return sorted(algo.env_runner_group.foreach_env_runner(node, local_env_runner=(
        algo.env_runner_group.num_remote_env_runners() == 0)))


def train(args: Any, given: set[str], guard: Any = None) -> int:
    """Run ``train.py --backend rllib`` (see the module docstring); returns the exit status.
    With ``--resume`` the run's configuration is :func:`agents.training.train_cli.resume_config`'s
    (config.json merged with the flags given, checked like fresh flags), as for SB3.

    Raises:
        RllibBackendError: for bad input (one line; train.py prints it as ``error: ...``).
        agents.training.train_cli.UsageError: a config.json that ``--resume`` cannot continue.
    """
    if args.address:  # read by ray at import time
        # `ray start --head` turns token authentication on (Ray >= 2.5x); a client must ask for
        # it too (the token is read from RAY_AUTH_TOKEN or ~/.ray/auth_token)
        os.environ.setdefault("RAY_AUTH_MODE", "token")
    require_rllib()
    if args.num_env_runners < 0:
        raise RllibBackendError("--num-env-runners must be >= 0")
    run_dir = Path(args.run_dir)
    ckpts = _checkpoints(run_dir)
    if args.resume:
        if not ckpts:
            raise RllibBackendError(f"--resume: no RLlib checkpoint in "
                                    f"{str(run_dir / CKPT_DIR)!r}")
        from agents.training.train_cli import resume_config

        args = resume_config(args, given)
    elif ckpts and not args.overwrite:
        raise RllibBackendError(f"{str(run_dir)!r} already holds checkpoints: pass --resume "
                                f"to continue or --overwrite to start afresh")

    from envs import load_game
    from envs.core.errors import RiposteError
    from envs.core.files import atomic_write_text

    from ..builtin import make_agent
    from ..training.run_lock import lock_run_dir

    try:
        game = load_game(args.ruleset, args.scenario)
        eval_seed = np.random.SeedSequence(args.seed).spawn(3)[2]
        eval_opponents = {n: make_agent(n, game, s, args.trust_checkpoint) for n, s in
                          zip(args.eval_agents, eval_seed.spawn(len(args.eval_agents)))}
        opponent_table(args)
    except (RiposteError, AgentError) as exc:
        raise RllibBackendError(str(exc).splitlines()[0]) from None

    import torch

    torch.set_num_threads(args.torch_threads)
    import ray

    # one run at a time in a directory, as with the SB3 backend: one in use is refused before
    # Ray starts; a new one is locked once created, after Ray started
    locked = run_dir.is_dir()
    if locked:
        lock_run_dir(run_dir)
    init_ray(args)  # a cluster that cannot be joined fails here, before anything is written
    try:
        try:
            run_dir.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise RllibBackendError(f"--run-dir {str(run_dir)!r}: cannot create the directory "
                                    f"({exc.strerror})") from None
        if not locked:
            lock_run_dir(run_dir)
        if args.overwrite and not args.resume:  # start afresh, every flag now known good
            shutil.rmtree(run_dir / CKPT_DIR, ignore_errors=True)
            shutil.rmtree(run_dir / "tb" / "rllib", ignore_errors=True)
            for name in ("metrics.json", "final_model.zip"):
                (run_dir / name).unlink(missing_ok=True)
        return _train(args, game, run_dir, ckpts, eval_opponents, guard, atomic_write_text)
    finally:
        ray.shutdown()


def _train(args, game, run_dir, ckpts, eval_opponents, guard, atomic_write_text) -> int:
    from torch.utils.tensorboard import SummaryWriter

    config = build_config(args, game)
    algo = config.build_algo()
    try:
        timesteps, snapshots_taken = 0, 0
        if args.resume:
            _, path = ckpts[-1]
            algo.restore_from_path(str(path))
            state = json.loads((path / STATE_FILE).read_text(encoding="utf-8"))
            timesteps, snapshots_taken = int(state["timesteps"]), int(state["snapshots_taken"])
            if timesteps >= args.total_timesteps:
                print(f"{str(run_dir)!r} is already at {timesteps} timesteps (>= "
                      f"--total-timesteps {args.total_timesteps}): nothing to train; pass a "
                      f"larger --total-timesteps to continue")
                return 0
            print(f"resuming from {path} at {timesteps} timesteps")
        else:
            _set_snapshots(algo, [f"snapshot_{k}" for k in range(args.max_snapshots)])
        cfg = {"args": dataclasses.asdict(args), "game": game.config(), "backend": "rllib",
               "observation_size": game.observation_size,
               "num_distinct_actions": game.num_distinct_actions}
        atomic_write_text(run_dir / "config.json", json.dumps(cfg, indent=2, sort_keys=True))
        nodes = env_runner_nodes(algo)
        print(f"rllib: {args.num_env_runners} env runner(s) on {len(set(nodes))} Ray node(s)")
        tb = SummaryWriter(str(run_dir / "tb" / "rllib"), purge_step=timesteps + 1) \
            if args.tensorboard else None
        if timesteps < args.total_timesteps:  # (SB3's note on whole rollouts, train.py)
            print(f"note: RLlib trains in whole iterations of {args.n_steps * args.n_envs} "
                  f"decisions of both sides (n_steps x n_envs): it stops at the end of the "
                  f"first one that brings the learner to {args.total_timesteps} timesteps or "
                  f"more")
        t0, steps0, env_steps, last_ckpt = time.perf_counter(), timesteps, 0, timesteps
        next_snapshot = (timesteps // args.snapshot_freq + 1) * args.snapshot_freq
        result: dict[str, Any] = {}
        games: dict[str, int] = {}
        score_sums: dict[str, float] = {}
        interrupted = None
        while timesteps < args.total_timesteps:
            result = algo.train()
            timesteps += _main_steps(result)
            env_steps += _env_steps(result)
            tally_training_games(result, games, score_sums)
            if tb is not None:
                for k, v in _scalars(result).items():
                    tb.add_scalar(k, v, timesteps)
            if timesteps >= next_snapshot:
                slot = f"snapshot_{snapshots_taken % args.max_snapshots}"
                _set_snapshots(algo, [slot])
                snapshots_taken += 1
                next_snapshot = (timesteps // args.snapshot_freq + 1) * args.snapshot_freq
            if timesteps - last_ckpt >= args.checkpoint_freq:
                _save_checkpoint(algo, run_dir, timesteps, snapshots_taken, atomic_write_text)
                last_ckpt = timesteps
            if guard is not None and getattr(guard, "requested", None) is not None:
                interrupted = guard.requested
                break
        wall = time.perf_counter() - t0
        path = _save_checkpoint(algo, run_dir, timesteps, snapshots_taken, atomic_write_text)
        if tb is not None:
            tb.close()
        if interrupted is not None:
            from ..interrupts import exit_status

            print(f"interrupted at {timesteps} timesteps: saved {str(path)!r}; resume with: "
                  f"python train.py --backend rllib --run-dir {run_dir} --resume")
            return exit_status(interrupted)
        weights = algo.learner_group.get_weights(module_ids=[MAIN])[MAIN]
        final = export_policy(weights, run_dir / "final_model.zip", game, args.net_arch,
                              timesteps)
    finally:
        algo.stop()

    from ..policies.checkpoint import load_policy_model
    from ..training.selection import evaluate_model

    scores = evaluate_model(load_policy_model(final), game, eval_opponents, args.eval_games,
                            args.seed + 1, args.max_decisions,
                            jobs=args.eval_jobs) if args.eval_games else {}
    steps = timesteps - steps0
    summary = {
        "backend": "rllib", "timesteps": timesteps, "session_timesteps": steps,
        "session_env_steps": env_steps, "wall_seconds": wall,
        "timesteps_per_second": steps / wall if wall > 0 else 0.0,
        "env_steps_per_second": env_steps / wall if wall > 0 else 0.0,
        "num_env_runners": args.num_env_runners, "env_runner_nodes": nodes,
        "snapshots_taken": snapshots_taken, "eval_games": args.eval_games,
        "final_scores": scores,
        "training_score_vs": training_scores(games, score_sums),
        "training_games_vs": games,
    }
    atomic_write_text(run_dir / "metrics.json", json.dumps(summary, indent=2, sort_keys=True))
    print(f"trained {steps} timesteps ({env_steps} decisions of both sides) in {wall:.1f} s: "
          f"{summary['timesteps_per_second']:.1f} timesteps/s")
    for name, s in scores.items():
        print(f"final score vs {name}: {s:.3f} over {args.eval_games} games")
    print(f"wrote {final}")
    sys.stdout.flush()
    return 0


def _set_snapshots(algo: Any, slots: list[str]) -> None:
    """Copy main's current weights into the frozen ``slots`` (learner and env runners)."""
    lg = algo.learner_group
    w = lg.get_weights(module_ids=[MAIN])[MAIN]
    lg.set_weights({slot: w for slot in slots})
    algo.env_runner_group.sync_weights(from_worker_or_learner_group=lg, policies=slots,
                                       inference_only=True, timeout_seconds=60.0)


def _save_checkpoint(algo: Any, run_dir: Path, timesteps: int, snapshots_taken: int,
                     atomic_write_text: Any) -> Path:
    """``run_dir/rllib_checkpoints/ckpt_<timesteps>`` (written under a temporary name, then
    renamed; a directory without :data:`STATE_FILE` is never taken for a checkpoint); keeps
    the newest :data:`KEEP_CHECKPOINTS`."""
    root = run_dir / CKPT_DIR
    root.mkdir(parents=True, exist_ok=True)
    final = root / f"ckpt_{timesteps}"
    tmp = root / f".ckpt_{timesteps}.tmp{os.getpid()}"
    shutil.rmtree(tmp, ignore_errors=True)
    try:
        algo.save_to_path(str(tmp.resolve()))
        atomic_write_text(tmp / STATE_FILE, json.dumps(
            {"timesteps": timesteps, "snapshots_taken": snapshots_taken}))
        if final.exists():
            shutil.rmtree(final)
        os.replace(tmp, final)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    for _, old in _checkpoints(run_dir)[:-KEEP_CHECKPOINTS]:
        shutil.rmtree(old, ignore_errors=True)
    return final
