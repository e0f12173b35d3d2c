"""Exact answers on games small enough to solve, from OpenSpiel's algorithms, to check Riposte's
estimates against (needs the ``openspiel`` extra).

A small game is an OpenSpiel game string of a Riposte ruleset whose ``prefix`` parameter roots
it at a late decision point (:mod:`envs.adapters.openspiel`); :data:`SMALL_GAMES` names one per
ruleset. On such a game:

* :func:`game_value` — the value of the game for side 0 under optimal play:
  ``minimax.expectiminimax`` (perfect information; chance nodes averaged), or the value of
  CFR's average policy (``cfr.CFRSolver``) under hidden information, where its NashConv bounds
  the error;
* :func:`bot_exploitability` — ``exploitability.nash_conv`` of Riposte bots (one per side; see
  :class:`~envs.adapters.openspiel.SidePolicies`): how much a best response gains against them;
* :func:`option_values` — the exact expected return of each legal option at the root for the
  deciding side when every side then follows the given Riposte bots
  (``expected_game_score.policy_value``): what ``evaluate.py whatif`` estimates by rollouts.

Command line (prints the three and the ``whatif`` estimates beside the exact option values)::

    python -m agents.research.exact [GAME_STRING] [--rollouts N] [--seed S]
        [--cfr-iterations N] [--agents NAME_OR_CHECKPOINT ...]
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from typing import Any

import numpy as np

import pyspiel
from open_spiel.python.algorithms import cfr, expected_game_score, exploitability, minimax

from envs.adapters import openspiel as osa
from envs.core.errors import RiposteError

from ..builtin import make_agent
from ..policies.base import RandomPolicy
from .cli import fail

#: one small game per ruleset: a late decision point of a worked example, a duel and an
#: activation, rooted there by ``prefix`` (found by playing a seeded random game and taking the
#: earliest decision whose whole subtree has a few thousand nodes at most)
SMALL_GAMES: dict[str, str] = {
    "acw_regimental": "riposte_acw_regimental(scenario=example_c_opportunity_fire,turns=1,"
                      "prefix=5;23;26;42;0;4;13)",
    "skirmish_alert": "riposte_skirmish_alert(scenario=knockdown,"
                      "prefix=3;5;0;5;174;272;2;4;455;510;122;511;35;507;197;3;1)",
    "atomic_africa": "riposte_atomic_africa(scenario=activation,prefix=38;56;57;41)",
}


def game_value(game: Any, cfr_iterations: int = 200) -> tuple[float, float]:
    """``(value for side 0, error bound)`` of a two-sided zero-sum game: exact (bound 0) by
    expectiminimax under perfect information; the value of CFR's average policy after
    ``cfr_iterations`` under hidden information, with its NashConv as the bound."""
    info = game.get_type().information
    root = game.new_initial_state()
    if info == pyspiel.GameType.Information.PERFECT_INFORMATION:
        depth = game.max_game_length() + 1
        value, _ = minimax.expectiminimax(root, depth, None, 0)
        return float(value), 0.0
    solver = cfr.CFRSolver(game)
    for _ in range(cfr_iterations):
        solver.evaluate_and_update_policy()
    avg = solver.average_policy()
    value = expected_game_score.policy_value(root, [avg] * game.num_players())[0]
    return float(value), float(exploitability.nash_conv(game, avg))


def bot_exploitability(game: Any, policies: list[Any]) -> float:
    """NashConv of Riposte ``policies`` (one per side) in ``game``: the sum over sides of what
    a best response to the others gains over the policy's own value (0 for an equilibrium;
    returns are in [-1, 1], so at most 4 for two sides)."""
    return float(exploitability.nash_conv(game, osa.SidePolicies(game, policies)))


def option_values(game: Any, policies: list[Any],
                  state: Any | None = None) -> dict[str, float]:
    """Exact expected return of the deciding side for each legal option at ``state`` (default
    the root, which must be a decision), every side following ``policies`` afterwards; keyed by
    Riposte's label."""
    state = game.new_initial_state() if state is None else state
    side = state.current_player()
    if side < 0:
        raise ValueError("option_values needs a decision node")
    sp = osa.SidePolicies(game, policies)
    out = {}
    for a in state.legal_actions():
        child = state.child(a)
        out[state.action_to_string(a)] = float(
            expected_game_score.policy_value(child, [sp] * game.num_players())[side])
    return out


@dataclass
class Comparison:
    """One option: the exact value, whatif's mean and 95% interval, and whether it holds."""

    label: str
    exact: float
    mean: float
    low: float
    high: float

    @property
    def inside(self) -> bool:
        """The exact value lies in the interval (to 1e-9: sums of probabilities round)."""
        return self.low - 1e-9 <= self.exact <= self.high + 1e-9


def compare_whatif(game: Any, rollouts: int, seed: int = 0) -> list[Comparison]:
    """``evaluate.py whatif``'s estimate (random play after the option, ``rollouts`` rollouts on
    common random numbers) beside the exact value of every option at the root decision."""
    from ..evaluation.ratings import mean_ci95
    from .whatif import evaluate_options

    agents = [RandomPolicy(seed) for _ in range(game.num_players())]
    exact = option_values(game, agents)
    result = evaluate_options(game.new_initial_state().riposte, agents, rollouts, seed=seed)
    out = []
    for o in result.options:
        m, lo, hi = mean_ci95(o.returns)
        out.append(Comparison(o.label, exact[o.label], m, lo, hi))
    return out


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # type: ignore[override]
        raise SystemExit(fail(f"{self.prog}: {message}"))


def main(argv: list[str] | None = None) -> int:
    ap = _Parser(prog="python -m agents.research.exact",
                 description="Exact values and exploitabilities on a small Riposte game.")
    ap.add_argument("game", nargs="?", default=SMALL_GAMES["acw_regimental"],
                    help="an OpenSpiel game string of a small two-sided Riposte game (default: "
                         "the ACW one of SMALL_GAMES)")
    ap.add_argument("--rollouts", type=int, default=400,
                    help="whatif rollouts per option (default 400)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--agents", nargs="+", default=["heuristic", "random"],
                    help="Riposte agents whose NashConv is computed, each playing both sides: "
                         "built-in names or MaskablePPO checkpoints (default heuristic random)")
    ap.add_argument("--cfr-iterations", type=int, default=200,
                    help="CFR iterations under hidden information (default 200)")
    args = ap.parse_args(argv)
    if args.cfr_iterations < 1:
        ap.error("--cfr-iterations must be at least 1")
    if args.rollouts < 2:
        ap.error("--rollouts must be at least 2 (an interval needs two rollouts)")
    try:
        game = pyspiel.load_game(args.game)
    except pyspiel.SpielError as e:
        return fail(str(e))
    if not isinstance(game, osa.RiposteOpenSpielGame) or game.num_players() != 2:
        return fail(f"{args.game!r} is not a two-sided Riposte game")
    root = game.new_initial_state()
    if root.current_player() < 0:
        return fail(f"{args.game!r}: the root is not a decision (extend its prefix)")
    try:
        panel = {name: [make_agent(name, game.riposte, seed=0) for _ in range(2)]
                 for name in args.agents}
    except RiposteError as e:
        return fail(str(e))
    value, bound = game_value(game, args.cfr_iterations)
    print(f"game: {args.game}")
    print(f"value for side 0 under optimal play: {value:+.4f}"
          + (f" (CFR, NashConv {bound:.4f})" if bound else " (expectiminimax, exact)"))
    for name, bots in panel.items():
        print(f"NashConv of {name} on both sides: {bot_exploitability(game, bots):.4f}")
    print(f"options of side {root.current_player()} at the root, random play after them: "
          f"exact value vs whatif ({args.rollouts} rollouts, 95% interval)")
    for c in compare_whatif(game, args.rollouts, args.seed):
        print(f"  {c.label:24s} exact {c.exact:+.4f}  whatif {c.mean:+.4f} "
              f"[{c.low:+.4f}, {c.high:+.4f}]  {'inside' if c.inside else 'OUTSIDE'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
