"""OpenSpiel's search bots against Riposte's bots, on a Riposte game loaded through OpenSpiel.

MCTSBot (random-rollout evaluator; chance nodes sampled) plays the perfect-information rulesets;
IS-MCTS plays Atomic Africa, sampling the hidden cards with
:func:`envs.adapters.openspiel.resample_from_infostate`. Seats alternate; game ``i`` uses chance
seed ``i``. Prints the searcher's wins, draws and losses and its mean return.

    python examples/openspiel_search.py GAME_STRING [--opponent NAME] [--games N]
        [--simulations N]

e.g. ``python examples/openspiel_search.py "riposte_skirmish_alert(scenario=dodge)"`` or
``python examples/openspiel_search.py "riposte_atomic_africa(scenario=duel)" --games 4``.
"""

from __future__ import annotations

import argparse
import sys

import numpy as np

from agents import make_agent
from agents.research.cli import fail
from envs.adapters import openspiel as osa

import pyspiel
from open_spiel.python.algorithms import evaluate_bots, ismcts, mcts


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # type: ignore[override]
        raise SystemExit(fail(f"{self.prog}: {message}"))


class ISMCTS(ismcts.ISMCTSBot):
    """ISMCTSBot searches afresh at every step: nothing to restart or to be told."""

    def restart_at(self, state):
        self.reset()

    def inform_action(self, state, player_id, action):
        return None


def searcher(game, simulations: int, seed: int):
    """MCTSBot under perfect information, IS-MCTS with Riposte's determinisation otherwise."""
    rng = np.random.RandomState(seed)
    evaluator = mcts.RandomRolloutEvaluator(1, rng)
    if game.get_type().information == pyspiel.GameType.Information.PERFECT_INFORMATION:
        return mcts.MCTSBot(game, uct_c=2.0, max_simulations=simulations, evaluator=evaluator,
                            random_state=rng)
    gen = np.random.default_rng(seed)
    bot = ISMCTS(game, evaluator, uct_c=2.0, max_simulations=simulations, random_state=rng,
                 allow_inconsistent_action_sets=True)
    bot.set_resampler(lambda state, player: osa.resample_from_infostate(state, player, gen))
    return bot


def main(argv: list[str] | None = None) -> int:
    ap = _Parser(description=__doc__.splitlines()[0])
    ap.add_argument("game", help='an OpenSpiel game string, e.g. "riposte_skirmish_alert('
                                 'scenario=dodge)"')
    ap.add_argument("--opponent", default="random",
                    help="the Riposte bot it plays: random (default) or heuristic")
    ap.add_argument("--games", type=int, default=6, help="games to play (default 6)")
    ap.add_argument("--simulations", type=int, default=20,
                    help="search simulations per decision (default 20)")
    args = ap.parse_args(argv)
    if args.opponent not in ("random", "heuristic"):
        ap.error(f"--opponent: expected random or heuristic, got {args.opponent!r}")
    if args.games < 1 or args.simulations < 1:
        ap.error("--games and --simulations must be at least 1")
    try:
        game = pyspiel.load_game(args.game)
    except pyspiel.SpielError as e:
        ap.error(str(e).splitlines()[0])
    if not isinstance(game, osa.RiposteOpenSpielGame) or game.num_players() != 2:
        ap.error(f"{args.game!r} is not a two-sided Riposte game")
    results = []
    for i in range(args.games):
        seat = i % 2
        bots = [None, None]
        bots[seat] = searcher(game, args.simulations, i)
        bots[1 - seat] = osa.RiposteBot(make_agent(args.opponent, game.riposte, seed=i),
                                        1 - seat, seed=i)
        returns = evaluate_bots.evaluate_bots(game.new_initial_state(), bots,
                                              np.random.RandomState(i))
        results.append(returns[seat])
    r = np.array(results)
    print(f"{type(bots[seat]).__name__} vs {args.opponent} on {args.game}: "
          f"{int((r > 0).sum())} wins, {int((r == 0).sum())} draws, {int((r < 0).sum())} "
          f"losses in {len(r)} games; mean return {r.mean():+.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
