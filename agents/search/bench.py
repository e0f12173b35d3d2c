"""Speed of the search agent: milliseconds per searched decision and where they go.

    python -m agents.search.bench MODEL [--ruleset R] [--scenario S] [--sims N]
        [--options KEY=V[:KEY=V...]] [--games G]

plays ``G`` games (seed ``0..G-1``) of the search agent over ``MODEL`` against the raw model
(the search agent takes side ``g % 2`` in game ``g``) under cProfile and prints the games'
wall time, the searched decisions, the milliseconds per searched decision and the share of the
search's time spent in the costs that dominate it: the rules engine (``apply_action``), the
network's forward passes, observations, and ``clone`` (through ``resample_from_infostate``).
It also prints how often the search overrules its network (the searched decisions at which
the chosen action is not the prior's arg-max) and the prior's mean probability of its arg-max:
a search that rarely overrules plays about as its raw network does. ``--options`` takes the
options of an agent spec (``c_scale=1:rescale=1``, as in ``search:MODEL:c_scale=1:rescale=1``).
The profiler adds its own overhead to every number (about a fifth); the shares are what it is
for. Bad input is one ``error:`` line and exit status 2.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import sys
import time

import numpy as np

def _cumulative(stats: pstats.Stats, name: str, path_part: str = "") -> float:
    """The largest cumulative time of a function ``name`` whose file path holds
    ``path_part`` (the largest: a function of that name that calls another of the same name,
    as a ruleset's hook its helper, is not counted twice)."""
    best = 0.0
    for (path, _, func), (_, _, _, cum, _) in stats.stats.items():  # type: ignore[attr-defined]
        if func == name and path_part in path:
            best = max(best, cum)
    return best


def costs(stats: pstats.Stats) -> dict[str, float]:
    """Seconds of the search's costs in a profile of searches: the whole search, the rules
    engine, the network's forward passes, the observations the evaluator builds, clones."""
    here = "agents/search/evaluator.py"
    forward = _cumulative(stats, "forward", here)
    policy_forward = _cumulative(stats, "policy_forward", here)
    return {"search": _cumulative(stats, "run", "agents/search/search.py"),
            "apply_action (rules engine)": _cumulative(stats, "apply_action_unchecked"),
            "network forward": forward + policy_forward,
            "observations": _cumulative(stats, "evaluate", here) - forward
            + _cumulative(stats, "policy_logits", here) - policy_forward,
            "clone (resample_from_infostate)": _cumulative(stats, "resample_from_infostate")}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m agents.search.bench",
                                description=__doc__.split("\n\n")[0])
    p.add_argument("model", help="MaskablePPO checkpoint (.zip) the search agent reads")
    p.add_argument("--ruleset", default="acw_regimental", help="ruleset id")
    p.add_argument("--scenario", default=None, help="scenario name or TOML path")
    p.add_argument("--sims", type=int, default=None, help="simulations per decision "
                   "(default: the search agent's default)")
    p.add_argument("--options", default="", metavar="KEY=V[:KEY=V...]",
                   help="search options as in an agent spec search:MODEL:KEY=V... (e.g. "
                   "c_scale=1:rescale=1; docs/search.md)")
    p.add_argument("--games", type=int, default=2, help="games to play (default 2)")
    ns = p.parse_args(argv)
    import torch

    from envs import load_game
    from envs.core.chance import sample_chance_outcome
    from envs.core.errors import RiposteError
    from envs.core.protocol import CHANCE, TERMINAL

    from ..policies.ppo import MaskablePPOPolicy
    from .agent import SearchAgent
    from .config import describe, parse_options

    torch.set_num_threads(1)
    try:
        if ns.games < 1 or (ns.sims is not None and ns.sims < 1):
            raise RiposteError("--games and --sims must be >= 1")
        game = load_game(ns.ruleset, ns.scenario)
        items = [item for item in ns.options.split(":") if item]
        if ns.sims is not None:
            items.append(f"sims={ns.sims}")
        cfg = parse_options(items, f"search:{ns.model}" + "".join(f":{i}" for i in items))
        agent = SearchAgent.load(ns.model, game, cfg, seed=0)
        raw = MaskablePPOPolicy.load(ns.model, game, seed=1)
    except RiposteError as exc:
        print(f"error: {str(exc).splitlines()[0]}", file=sys.stderr)
        return 2
    searched, overruled, search_seconds, top_prior = 0, 0, 0.0, 0.0
    prof = cProfile.Profile()
    t0 = time.perf_counter()
    for g in range(ns.games):
        state, rng = game.new_initial_state(), np.random.default_rng(g)
        agent.reset(g)
        for _ in range(game.max_game_length * 4):
            p_ = state.current_player()
            if p_ == TERMINAL:
                break
            if p_ == CHANCE:
                state.apply_action_unchecked(sample_chance_outcome(state, rng))
            elif p_ == g % 2:
                prof.enable()
                res = agent.analyse(state)
                prof.disable()
                searched += res.searched
                search_seconds += res.seconds
                if res.searched:
                    overruled += int(np.argmax(res.prior)) != res.action
                    top_prior += float(res.prior.max())
                state.apply_action_unchecked(res.action)
            else:
                state.apply_action_unchecked(raw.act(game.observation(state, p_),
                                                     state.legal_action_mask()))
    wall = time.perf_counter() - t0
    stats = pstats.Stats(prof)
    spent = costs(stats)
    total = spent.pop("search") or 1e-9
    others = [o for o in describe(agent.config).split(":") if o and o.split("=")[0] not in
              ("sims", "k")]
    print(f"{ns.games} game(s) of {game.ruleset_id}/{game.scenario_name}, search:"
          f"{ns.model} sims={agent.config.simulations} k={agent.config.max_considered}"
          f"{''.join(' ' + o for o in others)}: "
          f"{wall:.1f} s wall, {searched} searched decisions, "
          f"{1000 * search_seconds / max(searched, 1):.1f} ms per searched decision (profiled)")
    for label, seconds in spent.items():
        print(f"  {label:34s} {100 * seconds / total:5.1f}% of the search's time")
    print(f"  overruled the network's arg-max at {overruled} of {searched} searched decisions "
          f"({100 * overruled / max(searched, 1):.1f}%); the prior's arg-max held "
          f"{top_prior / max(searched, 1):.3f} of its probability on average")
    return 0


if __name__ == "__main__":
    sys.exit(main())
