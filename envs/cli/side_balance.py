"""Side balance of a battle: how often side 0 wins when the same policy plays both seats.

Usage::

    python -m envs.cli.side_balance --agents stand-and-fire --games 200 --seed 0
    python -m envs.cli.side_balance --agents heuristic --scenario crossroads --games 200
    python -m envs.cli.side_balance --agents runs/default/final_model.zip --games 200 --json b.json

``--agents A`` plays A against an independent copy of itself (its own generator per seat);
``--agents A B`` seats A as side 0 and B as side 1 in every game. Game ``i`` resolves its dice
with ``numpy.random.default_rng(SeedSequence(seed, spawn_key=(0, i)))`` and reseeds each seat's
agent from ``SeedSequence(seed, spawn_key=(1, 0, i, seat))`` (the tournament's streams). It
prints side 0's wins, draws and losses and its score ``(wins + draws/2) / games`` with a Wilson
95% interval; ``--json`` writes the same (atomically). Bad input exits with status 2 and one
``error: ...`` line on stderr.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


class _ArgumentParser(argparse.ArgumentParser):
    def error(self, message: str):  # type: ignore[override]
        raise SystemExit(_fail(message))


def _fail(message: str) -> int:
    print(f"error: {message}", file=sys.stderr)
    return 2


def side_balance(game, agents, games: int, seed: int = 0) -> dict:
    """Play ``games`` games with ``agents[0]`` as side 0 and ``agents[1]`` as side 1.

    Returns:
        ``{"games", "side0_wins", "draws", "side1_wins", "side0_score", "side0_score_ci95",
        "truncated"}`` (score in [0, 1], draws count half).
    """
    import numpy as np

    from agents.policies.base import reset_policy
    from agents.evaluation.ratings import wilson_interval
    from agents.evaluation.tournament import agent_seed, chance_seed, game_scores, play_game

    w = d = l = trunc = 0
    for i in range(games):
        for seat in (0, 1):
            reset_policy(agents[seat], agent_seed(seed, 0, i, seat))
        rec = play_game(game, agents, np.random.default_rng(chance_seed(seed, i)))
        trunc += rec.truncated
        s0, s1 = game_scores(rec.returns[0])
        if s0 == 1.0:
            w += 1
        elif s1 == 1.0:
            l += 1
        else:
            d += 1
    score = (w + 0.5 * d) / games
    lo, hi = wilson_interval(w + 0.5 * d, games)
    return {"games": games, "side0_wins": w, "draws": d, "side1_wins": l,
            "side0_score": score, "side0_score_ci95": [lo, hi], "truncated": trunc}


def main(argv: list[str] | None = None) -> int:
    p = _ArgumentParser(prog="python -m envs.cli.side_balance",
                        description=__doc__.split("\n\n")[0])
    p.add_argument("--ruleset", default="acw_regimental", help="ruleset id")
    p.add_argument("--scenario", default=None, help="scenario name or TOML path")
    p.add_argument("--agents", nargs="+", required=True, metavar="AGENT",
                   help="one agent (plays both seats) or two (side 0, side 1): built-in names "
                        "or MaskablePPO checkpoint paths")
    p.add_argument("--games", type=int, default=200, help="games (default 200)")
    p.add_argument("--seed", type=int, default=0, help="seed of dice and agents")
    p.add_argument("--json", default=None, help="write the result as JSON here (atomically)")
    p.add_argument("--trust-checkpoint", action="store_true",
                   help="load agent checkpoints without Riposte's config by unpickling (can "
                        "run code: only for files you trust)")
    try:
        args = p.parse_args(argv)
    except SystemExit as exc:
        return int(exc.code or 0)
    if len(args.agents) > 2:
        return _fail(f"--agents takes one or two agents, got {len(args.agents)}")
    if args.games < 1:
        return _fail(f"--games must be >= 1, got {args.games}")
    if args.seed < 0:
        return _fail(f"--seed must be >= 0, got {args.seed}")

    import numpy as np

    from agents import make_agent
    from agents.policies.base import AgentError
    from envs import load_game
    from envs.core.errors import RiposteError
    from envs.core.files import atomic_write_text, check_output_path
    from envs.core.protocol import require_two_sides
    from envs.core.registry import scenario_files

    names = args.agents if len(args.agents) == 2 else args.agents * 2
    try:
        if args.json:
            check_output_path(args.json, inputs=[
                *args.agents, *scenario_files(args.ruleset, args.scenario)])
        game = load_game(args.ruleset, args.scenario)
        require_two_sides(game, "side balance compares the two sides of a two-sided battle")
        seeds = np.random.SeedSequence(args.seed).spawn(2)
        agents = [make_agent(n, game, s, trust_checkpoint=args.trust_checkpoint)
                  for n, s in zip(names, seeds)]
    except (RiposteError, AgentError, OSError) as exc:
        return _fail(str(exc).splitlines()[0] if str(exc) else type(exc).__name__)
    res = side_balance(game, agents, args.games, args.seed)
    doc = {"ruleset": game.ruleset_id, "scenario": game.scenario_name, "seed": args.seed,
           "agents": names, **res}
    lo, hi = res["side0_score_ci95"]
    print(f"{game.ruleset_id}/{game.scenario_name}: {names[0]} (side 0) vs {names[1]} "
          f"(side 1), {args.games} games, seed {args.seed}: side 0 wins {res['side0_wins']}, "
          f"draws {res['draws']}, side 1 wins {res['side1_wins']}; side 0 score "
          f"{res['side0_score']:.3f} [{lo:.3f}, {hi:.3f}]")
    if res["truncated"]:
        print(f"note: {res['truncated']} games hit the decision cap (draws)")
    if args.json:
        try:
            atomic_write_text(Path(args.json), json.dumps(doc, indent=2))
        except OSError as exc:
            return _fail(f"cannot write {args.json!r}: {exc.strerror or exc}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
