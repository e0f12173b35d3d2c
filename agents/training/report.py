"""The end of a ``train.py`` run: its summary (``metrics.json``) and the lines it prints.

Times are seconds: wall clock (``time.perf_counter``) and CPU time (``time.process_time`` of the
training process; the env worker processes and the update worker separately).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .league.pfsp import League


def run_summary(args: Any, model: Any, venv: Any, pool: Any, callback: Any, *, steps: int,
                wall: float, cpu: float, worker_cpu: float, learn_wall: float,
                scores: dict[str, float], bc_stats: dict[str, Any],
                selected: dict[str, Any] | None, exploiters: list[dict[str, Any]]
                ) -> dict[str, Any]:
    """The ``metrics.json`` document of a finished run: throughput, where the time went (envs,
    pipelined updates, periodic evaluations), the final scores, the opponents picked, the warm
    start, the selected policy, the league's win rates and the exploiters trained.

    Args:
        args: the run's ``Args``.
        model: the trained ``TeacherKLMaskablePPO`` (``update_worker``: its pipelined updates).
        venv: the run's ``TimedVecEnv``.
        pool: its ``OpponentPool`` (or ``League``).
        callback: its ``SelfPlayCallback``.
        steps: timesteps trained in this session.
        wall, cpu, worker_cpu, learn_wall: the session's wall seconds, this process's CPU
            seconds, the env workers' CPU seconds and the wall seconds of ``model.learn``.
        scores: the final evaluation, ``{opponent: score}``.
        bc_stats: the warm start's statistics (empty without one).
        selected: the kept-best record of checkpoint selection, when it chose the final model.
        exploiters: the history of the in-run exploiters.
    """
    updater = model.update_worker
    update_cpu = updater.cpu_seconds if updater is not None else 0.0
    return {
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
        "exploiters": exploiters,
    }


def print_report(summary: dict[str, Any], args: Any, model: Any, callback: Any,
                 run_dir: Path) -> None:
    """Print what the run did: throughput, the exploiters' share, the pipelined updates, the
    CPU time, the periodic evaluations, the final scores and the policy kept (from
    :func:`run_summary`'s ``summary``)."""
    steps, wall = summary["session_timesteps"], summary["wall_seconds"]
    cpu, worker_cpu = summary["cpu_seconds"], summary["env_worker_cpu_seconds"]
    learn_wall, selected = summary["learn_wall_seconds"], summary["selected"]
    updater = model.update_worker
    update_cpu = updater.cpu_seconds if updater is not None else 0.0
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
    print(f"CPU: {cpu + worker_cpu + update_cpu:.1f} s "
          f"({summary['timesteps_per_cpu_second']:.1f} timesteps "
          f"per CPU-second; env share of this process's CPU {summary['env_cpu_share']:.1%}"
          + (f"; env workers {worker_cpu:.1f} s" if worker_cpu else "")
          + (f"; update worker {update_cpu:.1f} s" if update_cpu else "")
          + ")")
    if callback.evaluator is not None:
        print(f"periodic evaluations beside training: {callback.eval_cpu_seconds:.1f} CPU-s "
              f"in their worker; training waited {callback.eval_seconds:.1f} s for them")
    else:
        print(f"periodic evaluations: {callback.eval_seconds:.1f} s of the wall time")
    for name, s in summary["final_scores"].items():
        print(f"final score vs {name}: {s:.3f}")
    if selected is not None:
        print(f"kept the policy of {selected['timesteps']} timesteps (worst-case score "
              f"{selected['worst']:.3f}; {args.eval_games} games per opponent, "
              f"{args.eval_games + args.eval_extra_games} against those below "
              f"{args.eval_extra_below}) as "
              f"final_model.zip; the last weights are last_model.zip")
    print(f"wrote {run_dir / 'final_model.zip'}")
