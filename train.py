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

import dataclasses
import json
import multiprocessing
import os
import random
import re
import shlex
import shutil
import signal
import sys
import time
from pathlib import Path
from typing import Any


def _stopped_while_starting(signum: int, frame: Any) -> None:
    """SIGINT / SIGTERM before the script's own ``SignalGuard`` is up (torch and the rest are
    still loading): one line and the shell's status ``128 + signal``, not a traceback from
    inside an import. Nothing has been written yet. (The same in evaluate.py: a shared module
    could only be imported through the agents or envs package, which loads numpy first.)"""
    sys.stdout.flush()
    print(f"interrupted ({signal.Signals(signum).name}) while starting: nothing was written",
          file=sys.stderr, flush=True)
    os._exit(128 + signum)


_stopped_while_starting.ends_at_guard = True  # type: ignore[attr-defined]  # (SignalGuard)
if __name__ == "__main__":
    for _signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(_signum, _stopped_while_starting)

from agents.training.train_cli import (Args, UsageError, builtin_panel, parse_args, resume_config,
                                       saved_backend, with_ruleset_defaults)

KEEP_CHECKPOINTS = 3
#: the frozen warm start that --teacher-kl keeps the policy near, beside the checkpoints
TEACHER_FILE = "teacher_policy.pth"
CKPT_RE = re.compile(r"^ckpt_(\d+)\.zip$")


# -- run directory -----------------------------------------------------------------------------
#: the files and directories train.py writes in the run directory besides tb/ (--overwrite
#: deletes them and tb/, except config.json, which the new run rewrites)
RUN_FILES = ("config.json", "pool.json", "metrics.csv", "metrics.json", "final_model.zip",
             "best_model.zip", "last_model.zip", "learning_curves.png", TEACHER_FILE)
RUN_SUBDIRS = ("checkpoints", "snapshots", "candidates", ".kept", ".evaluations", "exploiters")


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
    if args.resume and "backend" not in given and (b := saved_backend(args.run_dir)):
        args = dataclasses.replace(args, backend=b)  # the run's own backend
    from agents.interrupts import SignalGuard, interrupted_in
    from envs.core.workers import WorkerDiedError

    # agents.training.pipelined.UPDATE_WORK (not imported: it loads sb3)
    UPDATE_WORK = "the PPO update"

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


def train(args: Args, given: set[str], guard: Any = None) -> int:
    import numpy as np

    from agents import make_agent
    from agents.policies.base import AgentError
    from agents.training.league.pfsp import League
    from agents.training.run_lock import lock_run_dir
    from agents.training.league.selfplay import (OpponentPool, PoolWeights, atomic_save_model,
                                                 atomic_write_text)
    from envs.core.files import atomic_write_bytes, check_name_lengths
    from envs import load_game
    from envs.core.errors import RiposteError

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

    if args.ruleset != "acw_regimental":  # a ruleset's own bot panel replaces the default one
        from agents.builtin import panel_for

        panel = panel_for(args.ruleset)
        args = dataclasses.replace(
            args, pool_bots=panel if args.pool_bots == builtin_panel() else args.pool_bots,
            eval_agents=panel if args.eval_agents == builtin_panel() else args.eval_agents)
    args = with_ruleset_defaults(args, given)  # its own defaults of the flags not given
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
                       snapshots_weight=args.league_snapshots_weight,
                       exploiters_weight=args.league_exploiters_weight, **pool_kw)
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
        msg = _name_agent_flags(str(exc).splitlines()[0], args)
        if args.resume:  # the values come from the run's config.json, not the command line
            msg = f"--resume (flags from {str(run_dir / 'config.json')!r}): {msg}"
        raise UsageError(msg) from None
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
    from agents.training.teacher_kl import TeacherKLMaskablePPO
    from agents.training.callbacks import SelfPlayCallback
    from agents.training.vec_env import TimedVecEnv, make_vec_env

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
        from agents.policies.checkpoint import load_newest_checkpoint, purge_tensorboard_after
        from agents.training.resume import load_training_state, read_training_state

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
            "MlpPolicy", venv, teacher_kl_coef=args.teacher_kl, value_epochs=args.value_epochs,
            learning_rate=args.learning_rate, n_steps=args.n_steps,
            batch_size=args.batch_size, n_epochs=args.n_epochs, gamma=args.gamma,
            gae_lambda=args.gae_lambda, clip_range=args.clip_range, ent_coef=args.ent_coef,
            vf_coef=args.vf_coef, max_grad_norm=args.max_grad_norm, target_kl=args.target_kl,
            policy_kwargs={"net_arch": list(args.net_arch)}, tensorboard_log=tb,
            seed=args.seed, device="cpu", verbose=0)
    bc_stats: dict[str, Any] = {}
    if bc_agents:
        from agents.training.bc import collect_demonstrations, pretrain

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
    from agents.policies.fast_policy import install_fast_forward

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
    if args.resume and resume_state is not None:  # exact resume (agents/training/resume.py)
        from agents.training.resume import restore_training_state

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
    exploiter_cb: Any = None
    try:  # the background evaluation worker is stopped whatever happens
        if remaining > 0:
            from agents.interrupts import SignalGuard, exit_status
            from agents.training.finetune import CriticWarmupCallback
            from agents.training.callbacks import InterruptCallback

            guard = guard or SignalGuard()
            # the first Ctrl-C / SIGTERM stops at the next rollout boundary, checkpointed there
            stop = InterruptCallback(guard, at_stop=callback.save_checkpoint)
            if tb is None:  # sb3 would make an empty $TMPDIR/SB3-<date> folder per run
                from agents.policies.ppo import quiet_logger

                model.set_logger(quiet_logger())
            if args.league_exploiters > 0:  # (after the checkpoint of the same boundary)
                from agents.training.league.exploiters import ExploiterCallback, exploiter_schedule

                exploiter_cb = ExploiterCallback(
                    pool, game, args.ruleset, args.scenario, run_dir,
                    exploiter_schedule(args.total_timesteps, args.league_exploiters),
                    args.exploiter_timesteps, seed=args.seed,
                    max_decisions=args.max_decisions,
                    stop_requested=lambda: guard.requested is not None)
            with guard.deferred():
                model.learn(total_timesteps=remaining,
                            callback=[callback,
                                      *([] if exploiter_cb is None else [exploiter_cb]),
                                      CriticWarmupCallback(args.critic_warmup), stop],
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
            # pipelined updates (agents/training/pipelined.py): the update worker's time inside the
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
            # --league-exploiters: each exploiter trained in this session (its wall time is
            # part of wall_seconds above, and of what timesteps_per_second divides by)
            "exploiters": exploiter_cb.history if exploiter_cb is not None else [],
        }
        callback.write_metrics_row(model.num_timesteps, scores, wall, steps)
        if scores:
            from agents.evaluation.plots import plot_learning_curves

            plot_learning_curves(run_dir / "metrics.csv", run_dir / "learning_curves.png",
                                 title=f"{args.ruleset} / {game.scenario_name}, seed {args.seed}",
                                 selected=selected["timesteps"] if selected else None)
        atomic_write_text(run_dir / "metrics.json", json.dumps(summary, indent=2, sort_keys=True))
        venv.close()
        print(f"trained {steps} timesteps in {wall:.1f} s: {summary['timesteps_per_second']:.1f} "
              f"timesteps/s; env.step share of time {summary['env_time_share']:.1%}")
        exploiting = sum(e["train_seconds"] for e in summary["exploiters"])
        if summary["exploiters"]:  # (their own envs are not in the env.step share)
            print(f"league exploiters: {len(summary['exploiters'])} trained in "
                  f"{exploiting:.1f} s of that time")
        if updater is not None and summary["learner_wait_share"] is not None:
            print(f"pipelined PPO updates: the update worker ran {updater.updates} updates in "
                  f"{updater.busy_seconds:.1f} s of the {learn_wall:.1f} s of model.learn; "
                  f"it waited for the envs' rollouts {summary['learner_wait_share']:.1%} of "
                  f"that time (the env's share of the PPO wall time: env.step ran beside "
                  f"the updates"
                  + (f"; the league exploiters' {exploiting:.1f} s of training are in that "
                     f"wait too" if summary["exploiters"] else "")
                  + f"), and the envs waited for it {updater.wait_seconds:.1f} s")
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
