"""The conformance suite's random-game check on one scenario, for long runs.

Plays GAMES random games of RULESET/SCENARIO to the end with
:func:`envs.core.testing.check_random_games` (every protocol property at every node: masks,
legal lists, chance probabilities, observations, zero-sum returns, history and events) and
prints its counts, wall and CPU seconds. Stops at the first violation with a
:class:`~envs.core.testing.ConformanceError` naming the game and step. ``python -m envs fuzz``
adds clone / JSON / pickle round trips and forced extreme dice at several times the cost.

    python examples/conformance_random_games.py RULESET SCENARIO [GAMES] [SEED]
    python examples/conformance_random_games.py skirmish_alert ffa4 1000 0
"""

from __future__ import annotations

import resource
import sys
import time

from envs import load_game
from envs.core.testing import check_random_games


def main(argv: list[str]) -> int:
    import argparse

    from envs.core.errors import RiposteError

    ap = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0])
    ap.add_argument("ruleset")
    ap.add_argument("scenario")
    ap.add_argument("games", nargs="?", type=int, default=1000, help="games (>= 1)")
    ap.add_argument("seed", nargs="?", type=int, default=0, help="seed (>= 0)")
    ns = ap.parse_args(argv)
    if ns.games < 1 or ns.seed < 0:
        ap.error(f"GAMES must be >= 1 and SEED >= 0, got {ns.games} and {ns.seed}")
    ruleset, scenario, games, seed = ns.ruleset, ns.scenario, ns.games, ns.seed
    try:
        load_game(ruleset, scenario)
    except RiposteError as exc:
        print(f"error: {str(exc).splitlines()[0]}", file=sys.stderr)
        return 2
    t0 = time.time()
    stats = check_random_games(lambda: load_game(ruleset, scenario), games, seed)
    ru = resource.getrusage(resource.RUSAGE_SELF)
    print(f"{ruleset}/{scenario}: {stats.games} games, {stats.decisions} decisions, "
          f"{stats.chance_nodes} chance nodes, 0 violations; {time.time() - t0:.0f} s wall, "
          f"{ru.ru_utime + ru.ru_stime:.0f} s CPU")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
