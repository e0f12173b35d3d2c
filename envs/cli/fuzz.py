"""``python -m envs fuzz``: random games of a ruleset with every conformance invariant checked
at every step (:func:`envs.core.testing.fuzz_game`).

Usage::

    python -m envs fuzz --ruleset acw_regimental [--scenario S] --games N --seed S \\
        [--start I] [--jobs J] [--extreme-share 0.25] [--json OUT] [--replay-dir DIR]

Game ``i`` (``start <= i < start + games``) is played from ``numpy.random.default_rng((seed,
i))`` — uniform legal decisions, chance outcomes sampled from their probabilities — except that
a share ``--extreme-share`` of the games (game 0, then every game where ``floor(i * share)``
steps up: every 4th with the default 0.25; :func:`extreme_game`) forces every chance outcome
to the lowest or highest id (the extremes of a die or table). ``--start`` splits one run over several processes by game
range (``--start 0 --games 50000`` and ``--start 50000 --games 50000`` are the games of one
100,000-game run). Prints games, decisions, chance nodes, seconds and every violation, each with
a replay script (``python -m envs replay FILE``) of the labels up to it and the command that
re-runs just that game; exit status 1 on any violation, 2 on bad input (one ``error:`` line).
Ctrl-C or SIGTERM stops after the current game and reports the games played so far (exit 130 /
143 when they had no violation); a second one aborts at once, writing nothing.

``--jobs J`` plays the range in ``J`` worker processes (chunks of :data:`CHUNK` games, at most
``2 J`` chunks in flight, results taken in order): the same games, counts and violations as one
process, whatever ``J``. Works for any registered ruleset (the workers are forked, so rulesets
registered at run time are there too; ``spawn`` where ``fork`` does not exist). With ``J > 1``
an interrupt stops at once and reports the games of the chunks finished in order, also when
the same signal killed the workers (``kill -- -PGID``, what ``timeout`` and batch schedulers
send): the games finished before it are reported and written, not lost.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path
from typing import Any

from envs.core.errors import RiposteError
from envs.core.files import atomic_write_text, blank_arguments, check_output_path
from envs.core.registry import scenario_files
from envs.core.workers import WorkerDiedError, result_of, submit, worker_pool


def add_parser(sub: Any) -> argparse.ArgumentParser:
    p = sub.add_parser("fuzz", help="play N random games checking every protocol invariant "
                                    "at every step")
    p.add_argument("--ruleset", required=True, help="ruleset id")
    p.add_argument("--scenario", default=None, help="scenario name or TOML path")
    p.add_argument("--games", type=int, required=True, help="number of games")
    p.add_argument("--seed", type=int, default=0, help="seed (game i plays from (seed, i))")
    p.add_argument("--start", type=int, default=0, help="index of the first game")
    p.add_argument("--jobs", type=int, default=1,
                   help="worker processes (same games and results whatever the number)")
    p.add_argument("--extreme-share", type=float, default=0.25,
                   help="share of games with every chance outcome forced to an extreme")
    p.add_argument("--json", default=None, help="write the summary as JSON here (atomically)")
    p.add_argument("--replay-dir", default="fuzz_failures",
                   help="where replay scripts of violations are written")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    return p


def _replay_toml(ruleset: str, scenario: str | None, params: dict[str, Any],
                 labels: list[str], description: str) -> str:
    lines = [f"description = {json.dumps(description)}", f"ruleset = {json.dumps(ruleset)}"]
    if scenario is not None:
        lines.append(f"scenario = {json.dumps(scenario)}")
    lines.append("actions = [" + ", ".join(json.dumps(x) for x in labels) + "]")
    simple = {k: v for k, v in params.items() if isinstance(v, (bool, int, float, str))}
    if simple:
        lines.append("\n[params]")
        lines += [f"{k} = {json.dumps(v)}" for k, v in sorted(simple.items())]
    return "\n".join(lines) + "\n"


def run(args: argparse.Namespace) -> int:
    from envs import load_game

    if blank := blank_arguments(args):
        return _fail(f"{', '.join(blank)} must not be empty or whitespace")
    from envs.core.limits import budget_problem, workers_problem

    if problem := (budget_problem("--games", args.games) or budget_problem("--start", args.start)
                   or workers_problem("--jobs", args.jobs)):
        return _fail(problem)
    if args.games < 1:
        return _fail(f"--games must be >= 1, got {args.games}")
    for flag, value in (("--seed", args.seed), ("--start", args.start)):
        if value < 0:
            return _fail(f"{flag} must be >= 0, got {value}")
    if args.jobs < 1:
        return _fail(f"--jobs must be >= 1, got {args.jobs}")
    if not 0.0 <= args.extreme_share <= 1.0:
        return _fail(f"--extreme-share must be in [0, 1], got {args.extreme_share}")
    try:
        if args.json is not None:
            check_output_path(args.json,
                              inputs=scenario_files(args.ruleset, args.scenario))
        game = load_game(args.ruleset, args.scenario)
        try:  # where a violation's replay would go (known only at the end of a long run)
            check_output_path(Path(args.replay_dir) / f"{game.ruleset_id}_seed0_game0.toml")
        except OSError as exc:
            raise OSError(f"--replay-dir {args.replay_dir!r} cannot take the replays of "
                          f"violations: {exc.strerror or exc}") from None
    except (RiposteError, OSError) as exc:
        return _fail(str(exc).splitlines()[0] if str(exc) else type(exc).__name__)
    bar = None
    if not args.no_progress:
        from tqdm import tqdm

        bar = tqdm(total=args.games, unit="game", file=sys.stderr, mininterval=2.0,
                   desc=f"fuzz {game.ruleset_id}/{game.scenario_name}")
    from agents.interrupts import SignalGuard

    guard = SignalGuard()
    t0 = time.perf_counter()
    violations: list[dict[str, Any]] = []
    play = _play if args.jobs == 1 else _play_parallel
    try:
        with guard, guard.deferred():  # Ctrl-C / SIGTERM: stop after the current game
            games, decisions, chance, round_trips, extreme = play(
                game, args, guard, bar, violations)
    except WorkerDiedError as exc:
        if bar is not None:
            bar.close()
        if guard.requested is not None:  # killed by the same signal before any result
            print(f"interrupted ({guard.requested_name}): a worker stopped with it, nothing "
                  f"was written", file=sys.stderr)
            return 128 + int(guard.requested)
        return _fail(str(exc), code=1)
    seconds = time.perf_counter() - t0
    if bar is not None:
        bar.close()
    return _report(game, args, violations, guard, seconds, games, decisions, chance,
                   round_trips, extreme)


#: games per chunk handed to a worker with --jobs > 1
CHUNK = 10


def extreme_game(i: int, share: float) -> bool:
    """Whether game ``i`` forces chance to extremes: games 0, and then every game where
    ``floor(i * share)`` steps up, so that games ``0..n-1`` hold ``floor((n - 1) * share) + 1``
    extreme games (a share of ``1 / k`` picks every ``k``-th game: 0, k, 2k, ...); none with a
    share of 0."""
    if share <= 0:
        return False
    return i == 0 or math.floor(i * share) > math.floor((i - 1) * share)


def _play_range(game: Any, seed: int, lo: int, hi: int, share: float
                ) -> tuple[int, int, int, int, int, list[dict[str, Any]]]:
    """Games ``lo..hi-1``: ``(games, decisions, chance nodes, round trips, extreme-chance
    games, violations)``."""
    from envs.core.testing import ConformanceError, fuzz_game

    decisions = chance = round_trips = extreme = 0
    violations: list[dict[str, Any]] = []
    for i in range(lo, hi):
        forced = extreme_game(i, share)
        try:
            r = fuzz_game(game, seed, i, extreme_chance=forced)
            decisions += r.decisions
            chance += r.chance_nodes
            round_trips += r.round_trips
        except ConformanceError as exc:
            violations.append({"game": i, "extreme_chance": forced, "step": exc.step,
                               "message": str(exc).splitlines()[0], "labels": exc.labels})
        extreme += forced
    return hi - lo, decisions, chance, round_trips, extreme, violations


def _play(game: Any, args: argparse.Namespace, guard: Any, bar: Any,
          violations: list[dict[str, Any]]) -> tuple[int, int, int, int, int]:
    totals = [0, 0, 0, 0, 0]
    for i in range(args.start, args.start + args.games):
        if guard.requested is not None:
            break
        *counts, found = _play_range(game, args.seed, i, i + 1, args.extreme_share)
        totals = [t + c for t, c in zip(totals, counts)]
        violations += found
        if bar is not None:
            bar.update(1)
    return tuple(totals)  # type: ignore[return-value]


_WORKER: dict[str, Any] = {}


def _init_worker(ruleset: str, scenario: str | None) -> None:
    if "game" not in _WORKER:  # spawned, not forked: build the game here
        from envs import load_game

        _WORKER["game"] = load_game(ruleset, scenario)


def _worker_range(seed: int, lo: int, hi: int, share: float):
    return _play_range(_WORKER["game"], seed, lo, hi, share)


def _play_parallel(game: Any, args: argparse.Namespace, guard: Any, bar: Any,
                   violations: list[dict[str, Any]]) -> tuple[int, int, int, int, int]:
    """Chunks of :data:`CHUNK` games in ``args.jobs`` worker processes, two chunks per worker
    in flight, counted in game order (so an interrupt reports a contiguous range).

    Raises:
        envs.core.workers.WorkerDiedError: a worker died; the message names its games.
    """
    from collections import deque
    from concurrent.futures import FIRST_COMPLETED, wait

    end = args.start + args.games
    starts = iter(range(args.start, end, CHUNK))
    totals = [0, 0, 0, 0, 0]
    pending: deque = deque()  # (first game, future), in game order
    with worker_pool(args.jobs, _init_worker, (args.ruleset, args.scenario)) as pool:

        def more() -> None:
            lo = next(starts, None)
            if lo is not None:
                last = min(lo + CHUNK, end) - 1
                what = f"one of games {pending[0][0] if pending else lo}..{last}"
                pending.append((lo, submit(pool, what, _worker_range, args.seed, lo, last + 1,
                                           args.extreme_share)))

        _WORKER["game"] = game  # inherited by forked workers (forked at the first submit)
        try:
            more()  # the first submit forks the workers
        finally:
            _WORKER.pop("game", None)
        for _ in range(2 * args.jobs - 1):
            more()
        while pending and guard.requested is None:
            lo, future = pending[0]
            while not future.done() and guard.requested is None:
                wait([future], timeout=0.2, return_when=FIRST_COMPLETED)
            if not future.done():
                break
            last = min(pending[-1][0] + CHUNK, end) - 1  # the games in flight: lo..last
            pending.popleft()
            try:
                *counts, found = result_of(future, f"one of games {lo}..{last}")
                totals = [t + c for t, c in zip(totals, counts)]
                violations += found
                if bar is not None:
                    bar.update(counts[0])
                more()
            except WorkerDiedError:
                if guard.requested is None:
                    raise
                break  # the signal that stops us killed the workers too: report what is done
    return tuple(totals)  # type: ignore[return-value]


def _report(game: Any, args: argparse.Namespace, violations: list[dict[str, Any]], guard: Any,
            seconds: float, games: int, decisions: int, chance: int, round_trips: int,
            extreme: int) -> int:
    replay_dir = Path(args.replay_dir)
    for v in violations:
        path = replay_dir / f"{game.ruleset_id}_seed{args.seed}_game{v['game']}.toml"
        try:  # checked at the start; a failure now still reports the violation and the rest
            atomic_write_text(path, _replay_toml(game.ruleset_id, args.scenario,
                                                 dict(game.params), v.pop("labels"),
                                                 v["message"]))
            v["replay"] = str(path)
        except OSError as exc:
            v["replay"] = None
            v["replay_error"] = f"cannot write {str(path)!r}: {exc.strerror or exc}"
        v["rerun"] = (f"python -m envs fuzz --ruleset {game.ruleset_id}"
                      + (f" --scenario {args.scenario}" if args.scenario else "")
                      + f" --games 1 --seed {args.seed} --start {v['game']}"
                      + f" --extreme-share {args.extreme_share}")
    summary = {"ruleset": game.ruleset_id, "scenario": game.scenario_name, "seed": args.seed,
               "start": args.start, "games": games, "extreme_chance_games": extreme,
               "decisions": decisions, "chance_nodes": chance, "round_trips": round_trips,
               "seconds": round(seconds, 3), "jobs": args.jobs,
               "games_per_second": round(games / seconds, 3) if seconds > 0 else 0.0,
               "interrupted": guard.requested_name,
               "violations": violations}
    if guard.requested is not None:
        print(f"interrupted ({guard.requested_name}) after {games} of {args.games} games "
              f"(games {args.start}..{args.start + games - 1}):")
    print(f"{games} games ({extreme} with extreme chance), {decisions} decisions, {chance} "
          f"chance nodes, {round_trips} clone/JSON/pickle round-trip points, {seconds:.1f} s "
          f"({games / seconds if seconds > 0 else 0.0:.2f} games/s, {args.jobs} "
          f"job{'s' if args.jobs > 1 else ''}), {len(violations)} violations")
    for v in violations:
        replay = (f"python -m envs replay {v['replay']}" if v["replay"] is not None
                  else v["replay_error"])
        print(f"violation in game {v['game']}: {v['message']}\n  replay: {replay}\n"
              f"  re-run: {v['rerun']}")
    if args.json is not None:
        atomic_write_text(args.json, json.dumps(summary, indent=2))
    if violations:
        return 1
    return 0 if guard.requested is None else 128 + int(guard.requested)


def _fail(message: str, code: int = 2) -> int:
    print(f"error: {message}", file=sys.stderr)
    return code
