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
net by behaviour cloning of the scripted heuristic (``--bc-games``, see :mod:`agents.training.bc`);
MaskablePPO self-play then improves on it.

:func:`train` runs one training in stages, top to bottom: :func:`prepare_run_dir` (checks and
the run's flags), :func:`build_league` (game, opponent pool, evaluation and warm-start agents),
``claim_run_dir`` (create, lock, ``--overwrite``), :func:`build_model` (seeding, envs, a fresh
model or :func:`resume_model`), :func:`warm_start` (behaviour cloning, the KL term's teacher),
:func:`prepare_learning` (config.json, the training callback), :func:`learn` and
:func:`finish` (final evaluation, selection, final_model.zip, metrics.json). The pieces they
build live in :mod:`agents.training`. Run directory::

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

import contextlib
import dataclasses
import json
import multiprocessing
import random
import shlex
import sys
import time
from pathlib import Path
from collections.abc import Iterator
from typing import Any


if __name__ == "__main__":  # Ctrl-C while the libraries load: one line (script_start.py)
    import script_start

    script_start.install()

from agents.training.run_dir import (TEACHER_FILE, check_run_dir, checkpoints, claim_run_dir,
                                     discard_empty_run_dirs)
from agents.training.train_cli import (Args, UsageError, parse_args, resume_config,
                                       saved_backend)

KEEP_CHECKPOINTS = 3


# -- training ----------------------------------------------------------------------------------
def main(argv: list[str] | None = None) -> int:
    try:
        args, given = parse_args(argv)
    except SystemExit as exc:
        return int(exc.code or 0)
    if args.resume and "backend" not in given and (b := saved_backend(args.run_dir)):
        args = dataclasses.replace(args, backend=b)  # the run's own backend
    from agents.interrupts import SignalGuard, interrupted_in
    from envs.core.files import quiet_unwritable_stdout, write_failure_line
    from envs.core.workers import WorkerDiedError

    # agents.training.pipelined.UPDATE_WORK (not imported: it loads sb3)
    UPDATE_WORK = "the PPO update"

    with SignalGuard() as guard, _no_empty_run_dir():
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
            if (line := write_failure_line(exc)) is not None:  # a full disk: no traceback
                quiet_unwritable_stdout()
                print(f"error: {line}; complete checkpoints (if any) are in {ckdir!r}",
                      file=sys.stderr)
                return 1
            raise


@contextlib.contextmanager
def _no_empty_run_dir() -> Iterator[None]:
    """On the way out, remove a run directory this run created and left without a file (an
    interrupt or an error during start-up; :func:`agents.training.run_dir.
    discard_empty_run_dirs`)."""
    try:
        yield
    finally:
        discard_empty_run_dirs()


def _train_rllib(args: Args, given: set[str], guard: Any) -> int:
    from agents.policies.base import AgentError
    from agents.backends.rllib import train as train_rllib

    try:
        with guard.deferred():
            return train_rllib(args, given, guard)
    except AgentError as exc:
        raise UsageError(str(exc).splitlines()[0]) from None


def _name_agent_flags(message: str, args: Args) -> str:
    """``message`` about an agent, prefixed with the flags that name it (``--pool-bots:
    unknown agent 'bogus': ...``) when the message quotes one of their agents."""
    from agents.policies.base import AgentError
    from agents.training.league.selfplay import parse_bot_spec

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


# -- the stages of a run, top to bottom ------------------------------------------------------
@dataclasses.dataclass
class Run:
    """What each stage of :func:`train` hands on: the configuration and run directory, then the
    game and its opponents, the envs and the model, the training callback and the clock."""

    args: Args
    run_dir: Path
    checkpoints: list[tuple[int, Path]]
    game: Any = None
    pool: Any = None
    eval_opponents: dict[str, Any] = dataclasses.field(default_factory=dict)
    #: the warm start's teacher (``"teacher"``) and opponents by name (empty: no warm start)
    bc_agents: dict[str, Any] = dataclasses.field(default_factory=dict)
    env_seed: Any = None
    venv: Any = None
    model: Any = None
    tb: str | None = None
    #: a resumed run's checkpoint and its training state (None: an older checkpoint, reseeded)
    checkpoint: Path | None = None
    resume_state: Any = None
    callback: Any = None
    exploiter_cb: Any = None
    #: when model.learn began: wall and CPU seconds, env workers' CPU seconds, timesteps
    t0: float = 0.0
    cpu0: float = 0.0
    worker_cpu0: float = 0.0
    steps0: int = 0
    learn_wall: float = 0.0


def train(args: Args, given: set[str], guard: Any = None) -> int:
    """One MaskablePPO self-play run, stage by stage; the exit status (``128 + signal`` when a
    Ctrl-C or SIGTERM stopped it at a checkpoint).

    Raises:
        UsageError: for a bad flag, run directory or checkpoint, before the run directory is
            written to wherever it can be checked first.
    """
    run = prepare_run_dir(args, given)
    build_league(run)
    claim_run_dir(run.run_dir, start_afresh=run.args.overwrite and not run.args.resume)
    if not build_model(run):
        return 0  # a resumed run that is complete already
    bc_stats = warm_start(run)
    prepare_learning(run)
    try:  # the background evaluation worker is stopped whatever happens
        stopped = learn(run, guard)
        if stopped is not None:  # a Ctrl-C / SIGTERM, checkpointed at a rollout boundary
            return stopped
        return finish(run, bc_stats)
    finally:
        run.callback.close()
        run.model.stop_pipelined_updates()


def prepare_run_dir(args: Args, given: set[str]) -> Run:
    """Check the run directory and settle the run's flags, before any work: ``--resume`` reads
    them from the run's config.json, a fresh run refuses a directory that holds checkpoints
    unless ``--overwrite`` (a fresh run's flags were resolved over the ruleset's preset by
    :func:`agents.training.train_cli.parse_args`)."""
    from envs.core.files import check_name_lengths

    run_dir = Path(args.run_dir)
    try:  # (a name too long for the file system: the first listing raised a bare Errno 36)
        check_name_lengths(run_dir / "checkpoints" / "ckpt_0000000000.zip")
    except OSError as exc:
        raise UsageError(f"--run-dir: {exc}") from None
    ckpts = checkpoints(run_dir)
    if args.resume:
        if not ckpts:
            raise UsageError(f"--resume: no checkpoint in {str(run_dir / 'checkpoints')!r}")
        args = resume_config(args, given)
    elif ckpts and not args.overwrite:
        raise UsageError(f"{str(run_dir)!r} already holds checkpoints: pass --resume to continue "
                         "or --overwrite to start afresh")
    check_run_dir(run_dir)
    return Run(args, run_dir, ckpts)


def build_league(run: Run) -> None:
    """The game, the learner's opponent pool (a PFSP league with --pfsp), the evaluation
    opponents and the warm start's teacher and opponents. A bad name or checkpoint among them
    is a UsageError that names its flag, before anything is written."""
    import numpy as np

    from agents import make_agent
    from agents.policies.base import AgentError
    from agents.training.build import make_pool, warm_start_agents
    from envs import load_game
    from envs.core.errors import RiposteError

    args = run.args
    pool_seed, run.env_seed, eval_seed = np.random.SeedSequence(args.seed).spawn(3)
    try:
        run.game = game = load_game(args.ruleset, args.scenario)
        if args.shaped_reward and not type(game).has_shaped_reward:
            raise UsageError(f"--shaped-reward: the {args.ruleset} ruleset has no shaped reward "
                             f"(its reward is the final result only)")
        run.pool = make_pool(args, game, run.run_dir, pool_seed)
        run.eval_opponents = {n: make_agent(n, game, s, args.trust_checkpoint) for n, s in
                              zip(args.eval_agents, eval_seed.spawn(len(args.eval_agents)))}
        if args.bc_games > 0 and not args.resume:
            run.bc_agents = warm_start_agents(args, game)
    except (RiposteError, AgentError) as exc:
        msg = _name_agent_flags(str(exc).splitlines()[0], args)
        if args.resume:  # the values come from the run's config.json, not the command line
            msg = f"--resume (flags from {str(run.run_dir / 'config.json')!r}): {msg}"
        raise UsageError(msg) from None


def build_model(run: Run) -> bool:
    """Seed the global generators, build the envs (``--n-envs`` of them in one VecEnv, timed)
    and the model: a fresh MaskablePPO learner, or with --resume the newest checkpoint that
    loads (:func:`resume_model`). False when a resumed run has nothing left to do."""
    import numpy as np
    import torch

    from agents.training.build import new_model
    from agents.training.vec_env import TimedVecEnv, make_vec_env

    # -- seeding (one block; the pool, envs and evaluations use their own SeedSequence streams)
    args = run.args
    random.seed(args.seed)
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.torch_threads)
    # sb3-contrib's masked Categorical re-validates its logits at every construction (three a
    # rollout step); the checks never fire for a policy's own logits and cost as much as the
    # forward pass itself
    torch.distributions.Distribution.set_default_validate_args(False)

    run.venv = TimedVecEnv(make_vec_env(args.ruleset, args.scenario, run.pool, args.n_envs,
                                        args.max_decisions, args.shaped_reward,
                                        vec_env=args.vec_env))
    run.tb = str(run.run_dir / "tb") if args.tensorboard else None
    if args.resume:
        return resume_model(run)
    run.model = new_model(args, run.venv, run.tb)
    return True


def resume_model(run: Run) -> bool:
    """``--resume``: the newest checkpoint that loads (one cut short by a crash is skipped)
    and its training state, TensorBoard's later events dropped, the pool's state from
    pool.json for a checkpoint without a training state (and the envs reseeded). False, after
    saying so, when the run is complete already."""
    from agents.policies.base import AgentError
    from agents.policies.checkpoint import load_newest_checkpoint, purge_tensorboard_after
    from agents.training.build import model_class
    from agents.training.resume import load_training_state, read_training_state

    args, run_dir, venv = run.args, run.run_dir, run.venv
    cls, _ = model_class(args)  # (an expert-iteration run continues as one)

    def load(p: Path) -> tuple[Any, Any]:  # the model and its resume state (None: a
        m = cls.load(str(p), env=venv, device="cpu", tensorboard_log=run.tb)
        blob = read_training_state(p)  # checkpoint of an older Riposte: reseeded)
        return m, None if blob is None else load_training_state(blob, venv, str(p))

    try:  # the newest checkpoint that loads (one cut short by a crash is skipped)
        (model, run.resume_state), run.checkpoint, skipped = load_newest_checkpoint(
            run.checkpoints, load)
    except AgentError as exc:
        venv.close()
        raise UsageError(f"--resume: {exc}") from None
    run.model = model
    for line in skipped:
        print(line)
    if run.tb is not None:
        purge_tensorboard_after(run.tb, "ppo", model.num_timesteps)
    if run.resume_state is None and (run_dir / "pool.json").is_file():
        try:
            run.pool.load_state(run_dir / "pool.json")
        except AgentError as exc:
            venv.close()
            raise UsageError(f"--resume: {exc}") from None
    if model.num_timesteps >= args.total_timesteps:
        if (run_dir / "final_model.zip").is_file():
            venv.close()
            print(f"{str(run_dir)!r} is already at {model.num_timesteps} timesteps (>= "
                  f"--total-timesteps {args.total_timesteps}): nothing to train; pass a "
                  f"larger --total-timesteps to continue")
            return False
        # stopped after its last rollout (while it waited for its last evaluations, or
        # played the final one): finish it — evaluations, selection, final_model.zip
        print(f"{str(run_dir)!r} is at {model.num_timesteps} timesteps (>= "
              f"--total-timesteps {args.total_timesteps}) but has no final_model.zip: "
              f"finishing the run")
    if run.resume_state is None:
        venv.seed(int(run.env_seed.generate_state(1)[0]) + model.num_timesteps)
    return True


def warm_start(run: Run) -> dict[str, Any]:
    """A fresh run's warm start: behaviour cloning of --bc-teacher's play (--bc-games games
    against --bc-opponents) into the policy and value net; with --teacher-kl the cloned policy,
    frozen, is the KL term's teacher (teacher_policy.pth, which a resumed run loads back).
    Returns the cloning's statistics (empty without a warm start)."""
    import torch

    from envs.core.files import atomic_write_bytes

    args, model = run.args, run.model
    bc_stats: dict[str, Any] = {}
    if run.bc_agents:
        from agents.training.bc import collect_demonstrations, pretrain

        t_bc = time.perf_counter()
        data = collect_demonstrations(run.game, run.bc_agents["teacher"],
                                      [run.bc_agents[n] for n in args.bc_opponents],
                                      args.bc_games, seed=args.seed, gamma=args.gamma,
                                      max_decisions=args.max_decisions)
        t_collect = time.perf_counter() - t_bc
        bc_stats = pretrain(model, data, epochs=args.bc_epochs, batch_size=args.batch_size,
                            lr=args.bc_lr, vf_coef=args.vf_coef, seed=args.seed)
        bc_stats.update(games=args.bc_games, collect_seconds=t_collect,
                        seconds=time.perf_counter() - t_bc)
        print(f"warm start: {len(data)} decisions of {args.bc_teacher!r} from {args.bc_games} "
              f"games, accuracy {bc_stats['accuracy']:.3f} ({bc_stats['seconds']:.1f} s)")
    teacher_file = run.run_dir / TEACHER_FILE
    if args.teacher_kl > 0:  # the warm-started policy, frozen, is the KL term's teacher
        if args.resume:  # (a run without a warm start has no teacher file: none then either)
            if teacher_file.is_file():
                try:
                    model.load_teacher_state_dict(torch.load(teacher_file, map_location="cpu",
                                                             weights_only=True))
                except Exception as exc:  # noqa: BLE001 - torch raises many kinds
                    run.venv.close()
                    raise UsageError(f"--resume: cannot read {str(teacher_file)!r}: "
                                     f"{str(exc).splitlines()[0] if str(exc) else exc}") \
                        from None
        elif run.bc_agents:
            import io

            model.set_teacher()
            buffer = io.BytesIO()
            torch.save(model.teacher_state_dict(), buffer)
            atomic_write_bytes(teacher_file, buffer.getvalue())
    return bc_stats


def prepare_learning(run: Run) -> None:
    """What model.learn needs: the fast rollout forward pass, the learner as the pool's live
    policy, the update worker (--pipelined-updates), config.json and the training callback
    (snapshots, checkpoints, evaluations); a resumed run's training state is restored into
    them."""
    from agents.policies.base import AgentError
    from agents.policies.fast_policy import install_fast_forward
    from agents.training.callbacks import SelfPlayCallback
    from agents.training.league.selfplay import atomic_write_text

    args, model, run_dir, game = run.args, run.model, run.run_dir, run.game
    install_fast_forward(model.policy)  # rollout forward pass, bitwise the same numbers
    run.pool.set_latest(model)
    if args.pipelined_updates:  # (before the resume state: it may hold an update in flight)
        model.start_pipelined_updates()
    config = {"args": dataclasses.asdict(args), "game": game.config(),
              "observation_size": game.observation_size,
              "num_distinct_actions": game.num_distinct_actions}
    atomic_write_text(run_dir / "config.json", json.dumps(config, indent=2, sort_keys=True))

    run.callback = callback = SelfPlayCallback(
        run_dir=run_dir, pool=run.pool, game=game, eval_opponents=run.eval_opponents,
        snapshot_freq=args.snapshot_freq, checkpoint_freq=args.checkpoint_freq,
        eval_freq=args.eval_freq, eval_games=args.eval_games, eval_seed=args.seed + 1,
        keep_checkpoints=KEEP_CHECKPOINTS, max_decisions=args.max_decisions, timed_env=run.venv,
        eval_after=args.critic_warmup, extra_games=args.eval_extra_games,
        extra_below=args.eval_extra_below,
        candidates_dir=run_dir / "candidates" if args.keep_candidates else None,
        eval_jobs=args.eval_jobs,
        background=args.eval_background and "fork" in multiprocessing.get_all_start_methods())
    if args.resume and run.resume_state is not None:  # exact resume (agents/training/resume.py)
        from agents.training.resume import restore_training_state

        try:
            restore_training_state(run.resume_state, model, run.venv, run.pool, callback,
                                   where=str(run.checkpoint))
            callback.discard_after(model.num_timesteps)  # what the stopped run wrote later
        except AgentError as exc:
            run.venv.close()
            raise UsageError(f"--resume: {exc}") from None
    if args.resume:
        how = ("every generator and env state restored" if run.resume_state is not None
               else "an older checkpoint: generators reseeded, not restored")
        print(f"resuming from {run.checkpoint} at {model.num_timesteps} timesteps "
              f"({len(run.pool.snapshots)} snapshots in the pool; {how})")
    remaining = args.total_timesteps - model.num_timesteps
    rollout = args.n_steps * args.n_envs
    if remaining > 0 and remaining % rollout:
        total = model.num_timesteps + -(-remaining // rollout) * rollout
        print(f"note: PPO trains in whole rollouts of {rollout} timesteps (n_steps x n_envs): "
              f"{total} timesteps in all, not {args.total_timesteps}")


def learn(run: Run, guard: Any) -> int | None:
    """model.learn for the timesteps left (a resumed run may have none), with the training
    callback, the in-run exploiters (--league-exploiters), the critic warm-up and a callback
    that stops at the next rollout boundary on the first Ctrl-C / SIGTERM (a checkpoint is
    saved there). Returns the exit status when a signal stopped the run, else None."""
    args, model, callback, run_dir = run.args, run.model, run.callback, run.run_dir
    run.t0, run.cpu0 = time.perf_counter(), time.process_time()
    run.worker_cpu0 = run.venv.worker_cpu_seconds()  # env processes (--vec-env subproc), else 0
    run.steps0 = model.num_timesteps
    remaining = args.total_timesteps - model.num_timesteps
    if remaining <= 0:  # a resumed run that only finishes (the callback never saw model.learn)
        callback.init_callback(model)
        run.learn_wall = 0.0
        return None
    from agents.interrupts import SignalGuard, exit_status
    from agents.training.callbacks import InterruptCallback
    from agents.training.finetune import CriticWarmupCallback

    guard = guard or SignalGuard()
    # the first Ctrl-C / SIGTERM stops at the next rollout boundary, checkpointed there
    stop = InterruptCallback(guard, at_stop=callback.save_checkpoint)
    if run.tb is None:  # sb3 would make an empty $TMPDIR/SB3-<date> folder per run
        from agents.policies.ppo import quiet_logger

        model.set_logger(quiet_logger())
    if args.league_exploiters > 0:  # (after the checkpoint of the same boundary)
        from agents.training.league.exploiters import ExploiterCallback, exploiter_schedule

        run.exploiter_cb = ExploiterCallback(
            run.pool, run.game, args.ruleset, args.scenario, run_dir,
            exploiter_schedule(args.total_timesteps, args.league_exploiters),
            args.exploiter_timesteps, seed=args.seed, max_decisions=args.max_decisions,
            stop_requested=lambda: guard.requested is not None)
    with guard.deferred():
        model.learn(total_timesteps=remaining,
                    callback=[callback, *([] if run.exploiter_cb is None else [run.exploiter_cb]),
                              CriticWarmupCallback(args.critic_warmup), stop],
                    progress_bar=args.progress_bar, reset_num_timesteps=not args.resume,
                    tb_log_name="ppo")
    run.learn_wall = time.perf_counter() - run.t0
    if guard.requested is not None:
        at = stop.stopped_at if stop.stopped_at is not None else model.num_timesteps
        path = stop.saved if stop.saved is not None else callback.save_checkpoint(at)
        run.venv.close()
        print(f"interrupted ({guard.requested_name}) at {at} timesteps: "
              f"saved {str(path)!r}; resume with: python train.py --run-dir "
              f"{shlex.quote(str(run_dir))} --resume")
        return exit_status(guard.requested)
    return None


def finish(run: Run, bc_stats: dict[str, Any]) -> int:
    """The end of a run: the last update and the evaluations still playing waited for, a last
    checkpoint, the final evaluation (one more candidate of checkpoint selection),
    last_model.zip and final_model.zip (the selected policy with --select-best, else the last
    weights), the last metrics.csv row, learning_curves.png, metrics.json and the report."""
    from agents.training.league.selfplay import atomic_save_model, atomic_write_text
    from agents.training.report import print_report, run_summary
    from envs.core.files import atomic_write_bytes

    args, model, venv, callback, run_dir = run.args, run.model, run.venv, run.callback, run.run_dir
    model.finish_updates()  # (learn waits for the last one; this one is for a resume
    #                          that had nothing left to learn)
    if callback.pending_evaluations():  # a checkpoint to --resume from while waiting
        callback.save_checkpoint(model.num_timesteps)
    callback.drain()  # the background evaluations still playing (their wait is timed)
    wall, cpu = time.perf_counter() - run.t0, time.process_time() - run.cpu0
    steps = model.num_timesteps - run.steps0
    worker_cpu = venv.worker_cpu_seconds() - run.worker_cpu0

    # -- final artefacts -----------------------------------------------------------------------
    callback.save_checkpoint(model.num_timesteps)
    scores = callback.scores(model) if args.eval_games else {}
    atomic_save_model(model, run_dir / "last_model.zip", run.game)
    callback.consider(model.num_timesteps, scores)  # the last weights are a candidate too
    selected = callback.best if args.select_best and callback.best else None
    if selected is not None:
        atomic_write_bytes(run_dir / "final_model.zip", (run_dir / "best_model.zip").read_bytes())
    else:
        atomic_save_model(model, run_dir / "final_model.zip", run.game)
    summary = run_summary(
        args, model, venv, run.pool, callback, steps=steps, wall=wall, cpu=cpu,
        worker_cpu=worker_cpu, learn_wall=run.learn_wall, scores=scores, bc_stats=bc_stats,
        selected=selected, exploiters=[] if run.exploiter_cb is None else run.exploiter_cb.history)
    callback.write_metrics_row(model.num_timesteps, scores, wall, steps)
    if scores:
        from agents.evaluation.plots import plot_learning_curves

        plot_learning_curves(run_dir / "metrics.csv", run_dir / "learning_curves.png",
                             title=f"{args.ruleset} / {run.game.scenario_name}, seed {args.seed}",
                             selected=selected["timesteps"] if selected else None)
    atomic_write_text(run_dir / "metrics.json", json.dumps(summary, indent=2, sort_keys=True))
    venv.close()
    print_report(summary, args, model, callback, run_dir)
    return 0


if __name__ == "__main__":
    sys.exit(main())
