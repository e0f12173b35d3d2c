"""Speed of a ruleset's engine under random play: ``python -m envs.bench``.

Plays random legal games — decisions uniform over ``legal_actions()``, chance outcomes drawn
from a seeded ``numpy.random.Generator`` — on one core for a wall-clock budget and prints (and
optionally writes) a JSON record::

    python -m envs.bench --ruleset acw_regimental --seconds 5 --json bench.json
    python -m envs.bench --ruleset acw_regimental --scenario example_a_closing_volley --seed 3

Keys: ``decisions_per_s``, ``chance_nodes_per_s``, ``games_per_s``, ``mean_decisions_per_game``
(rates per wall-clock second; games counted when finished), and ``ruleset``, ``scenario``,
``seconds`` (measured), ``games``, ``decisions``, ``chance_nodes``, ``python``, ``machine``.
The hot loop uses ``apply_action_unchecked`` (legality is guaranteed by construction), calls
``legal_actions()`` once per decision and samples chance outcomes without building lists.
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from envs.core.errors import RiposteError
from envs.core.files import atomic_write_text, check_output_path
from envs.core.protocol import CHANCE, TERMINAL, Game


def run_benchmark(game: Game, seconds: float, seed: int = 0) -> dict[str, Any]:
    """Play random games of ``game`` for about ``seconds`` of wall-clock time.

    The clock is checked between games and every 256 actions inside a game, so the run stops
    within one such slice of the budget; an unfinished last game adds its decisions and chance
    nodes to the counts but not to ``games``.

    Args:
        game: the game to play.
        seconds: wall-clock budget (> 0).
        seed: seed of the ``numpy.random.default_rng`` drawing decisions and chance outcomes.

    Returns:
        The JSON-serialisable record described in the module docstring.

    Raises:
        ValueError: when ``seconds`` is not positive.
    """
    if not seconds > 0:
        raise ValueError(f"seconds must be > 0, got {seconds!r}")
    rng = np.random.default_rng(seed)
    random = rng.random
    integers = rng.integers
    clock = time.perf_counter
    games = decisions = chance_nodes = 0
    finished_decisions = 0
    t0 = clock()
    deadline = t0 + seconds
    done = False
    while not done:
        state = game.new_initial_state()
        current = state.current_player
        apply = state.apply_action_unchecked
        legal_actions = state.legal_actions
        chance_outcomes = state.chance_outcomes
        game_decisions = 0
        k = 0
        while True:
            p = current()
            if p == TERMINAL:
                games += 1
                finished_decisions += game_decisions
                break
            if p == CHANCE:
                u = random()
                acc = 0.0
                outcome = -1
                for outcome, prob in chance_outcomes():
                    acc += prob
                    if u < acc:
                        break
                apply(outcome)
                chance_nodes += 1
            else:
                legal = legal_actions()
                apply(legal[int(integers(len(legal)))])
                game_decisions += 1
            k += 1
            if k & 255 == 0 and clock() >= deadline:
                done = True
                break
        decisions += game_decisions
        if clock() >= deadline:
            done = True
    elapsed = clock() - t0
    return {
        "ruleset": game.ruleset_id,
        "scenario": game.scenario_name,
        "seed": seed,
        "seconds": round(elapsed, 4),
        "games": games,
        "decisions": decisions,
        "chance_nodes": chance_nodes,
        "decisions_per_s": round(decisions / elapsed, 1),
        "chance_nodes_per_s": round(chance_nodes / elapsed, 1),
        "games_per_s": round(games / elapsed, 3),
        "mean_decisions_per_game": round(finished_decisions / games, 2) if games else None,
        "python": platform.python_version(),
        "machine": f"{platform.machine()} {platform.processor() or platform.system()}".strip(),
    }


def _positive_float(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not v > 0:
        raise argparse.ArgumentTypeError(f"must be > 0, got {text!r}")
    return v


def main(argv: list[str] | None = None) -> int:
    """Command line entry point; returns the exit status (2 on bad input)."""
    from envs.rulesets import list_rulesets, load_game

    parser = argparse.ArgumentParser(prog="python -m envs.bench",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--ruleset", required=True,
                        help=f"ruleset id (registered: {', '.join(list_rulesets())})")
    parser.add_argument("--scenario", default=None,
                        help="built-in scenario name or TOML path (default: the ruleset's default)")
    parser.add_argument("--seconds", type=_positive_float, default=5.0,
                        help="wall-clock budget in seconds (default 5)")
    parser.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    parser.add_argument("--json", metavar="OUT", type=Path, default=None,
                        help="also write the JSON record to OUT")
    args = parser.parse_args(argv)
    if args.seed < 0:
        parser.error(f"--seed must be >= 0, got {args.seed}")
    try:
        if args.json is not None:  # before the run, not after it
            check_output_path(args.json)
        game = load_game(args.ruleset, args.scenario)
    except (RiposteError, ImportError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except OSError as e:
        print(f"error: cannot write {args.json}: {e}", file=sys.stderr)
        return 2
    result = run_benchmark(game, args.seconds, args.seed)
    text = json.dumps(result, indent=2)
    print(text)
    if args.json is not None:
        try:
            atomic_write_text(args.json, text + "\n")
        except OSError as e:
            print(f"error: cannot write {args.json}: {e.strerror}", file=sys.stderr)
            return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
