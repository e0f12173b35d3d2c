"""How well a checkpoint's value head serves the search as its evaluator.

    python -m agents.search.diagnose MODEL [--ruleset R] [--scenario S] [--games G]
        [--every K] [--rollouts R] [--truncate N [N ...]] [--seed S]

The raw model plays ``G`` games against itself (arg-max moves, chance drawn by its
probabilities; game ``g`` from seed ``S + g``). Two measurements:

1. **State values.** At every decision with a choice, the search's leaf value of side 0
   (:class:`~agents.search.evaluator.NetworkEvaluator`) against side 0's final result: their
   correlation by thirds of the game, and the share of decisions of decided games at which the
   value has the result's sign.
2. **Action values.** At every ``K``-th decision with a choice, the prior's four most likely
   actions (those the default search considers) are valued three ways from the side to move's
   view: as a simulation of the search values them (the value head at the next decision after
   the action, the mean of 8 chance draws); after an arg-max continuation of ``N`` decisions
   and then the value head (the mean of 4, for each ``--truncate N``); and by Monte Carlo (the
   mean final result of ``R`` arg-max continuations to the end). For each estimate it prints
   the correlation of its differences ``Q(a) - Q(prior's arg-max)`` with the Monte-Carlo ones,
   how often its best action is the Monte-Carlo best one, and the Monte-Carlo result its best
   action gains over the prior's arg-max; then how far the Monte-Carlo differences are noise
   (the correlation of two halves of the continuations, and the highest correlation any
   estimate could reach with them). A value head the search can use has differences that
   follow the Monte-Carlo ones.

Bad input is one ``error:`` line and exit status 2.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .evaluator import NetworkEvaluator
from .tree import advance_to_choice

__all__ = ["ActionValues", "action_values", "main", "value_vs_result"]

#: actions valued at each sampled decision (the default search's ``k``)
TOP = 4


def _arg_max(game: Any, evaluator: NetworkEvaluator, state: Any) -> int:
    """The network's most likely legal action for the side to move."""
    p = state.current_player()
    logits, _ = evaluator.forward(game.observation(state, p)[None])
    legal = state.legal_actions()
    return int(legal[int(np.argmax(logits[0][legal]))])


def _continue(game: Any, evaluator: NetworkEvaluator, state: Any, rng: np.random.Generator,
              decisions: int | None) -> None:
    """Play arg-max moves on ``state`` for ``decisions`` decisions (None: to the end)."""
    from envs.core.protocol import TERMINAL

    made = 0
    for _ in range(game.max_game_length * 4):
        if advance_to_choice(state, rng) == TERMINAL or (decisions is not None and made >= decisions):
            return
        state.apply_action_unchecked(_arg_max(game, evaluator, state))
        made += 1


def _value(evaluator: NetworkEvaluator, state: Any, player: int) -> float:
    """``player``'s value of ``state``: its result at the end, else the search's leaf value."""
    from envs.core.protocol import TERMINAL

    if state.current_player() == TERMINAL:
        return float(state.returns()[player])
    return float(evaluator.evaluate([state])[1][0][player])


@dataclass
class ActionValues:
    """The values of the prior's top actions at one decision, the prior's arg-max first.

    Attributes:
        player: the side to move; ``actions``: its top :data:`TOP` actions by prior.
        one_step: the value head after each action (mean of 8 chance draws), in [-1, 1].
        truncated: ``N`` -> the value head after an ``N``-decision arg-max continuation.
        monte_carlo: the mean final result of arg-max continuations to the end;
        monte_carlo_runs: each continuation's result, per action.
    """

    player: int
    actions: list[int]
    one_step: list[float] = field(default_factory=list)
    truncated: dict[int, list[float]] = field(default_factory=dict)
    monte_carlo: list[float] = field(default_factory=list)
    monte_carlo_runs: list[list[float]] = field(default_factory=list)


def action_values(game: Any, evaluator: NetworkEvaluator, state: Any, rng: np.random.Generator,
                  rollouts: int, truncate: list[int]) -> ActionValues:
    """Value the prior's top actions at ``state`` (a decision with a choice; not modified)
    three ways (see the module docstring)."""
    p = state.current_player()
    legal = state.legal_actions()
    logits, _ = evaluator.forward(game.observation(state, p)[None])
    order = np.argsort(-logits[0][legal], kind="stable")[:TOP]
    out = ActionValues(p, [int(legal[i]) for i in order], truncated={n: [] for n in truncate})

    def after(action: int, decisions: int | None) -> Any:
        world = state.clone()
        world.apply_action_unchecked(action)
        if decisions == 0:
            advance_to_choice(world, rng)
        else:
            _continue(game, evaluator, world, rng, decisions)
        return world

    for a in out.actions:
        out.one_step.append(float(np.mean([_value(evaluator, after(a, 0), p)
                                           for _ in range(8)])))
        for n in truncate:
            out.truncated[n].append(float(np.mean([_value(evaluator, after(a, n), p)
                                                   for _ in range(4)])))
        runs = [float(after(a, None).returns()[p]) for _ in range(rollouts)]
        out.monte_carlo_runs.append(runs)
        out.monte_carlo.append(float(np.mean(runs)))
    return out


def value_vs_result(game: Any, evaluator: NetworkEvaluator, games: int, seed: int,
                    every: int, rollouts: int, truncate: list[int]
                    ) -> tuple[np.ndarray, list[ActionValues]]:
    """Play the raw model against itself and measure (see the module docstring).

    Returns:
        ``(rows, positions)``: ``rows`` float64 ``(D, 3)``, one per decision with a choice:
        the game's progress in [0, 1), side 0's leaf value, side 0's final result;
        ``positions``: the :class:`ActionValues` of every ``every``-th decision (none when
        ``every`` is 0).
    """
    from envs.core.protocol import TERMINAL

    rows: list[tuple[float, float, float]] = []
    positions: list[ActionValues] = []
    for g in range(games):
        rng = np.random.default_rng(seed + g)
        state, seen = game.new_initial_state(), []
        for d in range(game.max_game_length * 4):
            if advance_to_choice(state, rng) == TERMINAL:
                break
            seen.append(state.clone())
            if every and d % every == every // 2:
                positions.append(action_values(game, evaluator, state, rng, rollouts,
                                               truncate))
            state.apply_action_unchecked(_arg_max(game, evaluator, state))
        result = float(state.returns()[0]) if state.current_player() == TERMINAL else 0.0
        if seen:
            values = evaluator.evaluate(seen)[1][:, 0]
            rows.extend((i / len(seen), float(v), result) for i, v in enumerate(values))
    return np.asarray(rows, dtype=np.float64).reshape(-1, 3), positions


def _corr(x: np.ndarray, y: np.ndarray) -> float:
    return float(np.corrcoef(x, y)[0, 1]) if len(x) > 2 and x.std() > 0 and y.std() > 0 \
        else float("nan")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m agents.search.diagnose",
                                description=__doc__.split("\n\n")[0])
    p.add_argument("model", help="MaskablePPO checkpoint (.zip)")
    p.add_argument("--ruleset", default="acw_regimental", help="ruleset id")
    p.add_argument("--scenario", default=None, help="scenario name or TOML path")
    p.add_argument("--games", type=int, default=12, help="self-play games (default 12)")
    p.add_argument("--every", type=int, default=25, help="value the top actions at every "
                   "K-th decision (default 25; 0: state values only)")
    p.add_argument("--rollouts", type=int, default=8, help="Monte-Carlo continuations per "
                   "action (default 8)")
    p.add_argument("--truncate", type=int, nargs="*", default=[10, 30], metavar="N",
                   help="arg-max decisions before the value head (default 10 30)")
    p.add_argument("--seed", type=int, default=1000, help="seed of game 0 (default 1000)")
    ns = p.parse_args(argv)
    import torch

    from envs import load_game
    from envs.core.errors import RiposteError

    from ..policies.ppo import MaskablePPOPolicy

    torch.set_num_threads(1)
    try:
        if ns.games < 1 or ns.every < 0 or ns.rollouts < 1 or any(n < 1 for n in ns.truncate):
            raise RiposteError("--games, --rollouts and --truncate must be >= 1, --every >= 0")
        game = load_game(ns.ruleset, ns.scenario)
        evaluator = NetworkEvaluator(game, MaskablePPOPolicy.load(ns.model, game).model.policy)
    except RiposteError as exc:
        print(f"error: {str(exc).splitlines()[0]}", file=sys.stderr)
        return 2
    t0 = time.perf_counter()
    rows, positions = value_vs_result(game, evaluator, ns.games, ns.seed, ns.every,
                                      ns.rollouts, ns.truncate)
    print(f"{ns.games} self-play game(s) of {game.ruleset_id}/{game.scenario_name}, "
          f"{len(rows)} decisions with a choice, {len(positions)} valued positions, "
          f"{time.perf_counter() - t0:.0f} s")
    print("state values: side 0's leaf value against its final result")
    progress, value, result = rows.T if len(rows) else (np.zeros(0),) * 3
    for lo, hi, label in ((0, 1 / 3, "first third"), (1 / 3, 2 / 3, "middle third"),
                          (2 / 3, 1.01, "last third"), (0, 1.01, "all")):
        m = (progress >= lo) & (progress < hi)
        decided = m & (result != 0)
        sign = float(np.mean(np.sign(value[decided]) == result[decided])) if decided.any() \
            else float("nan")
        print(f"  {label:13s} correlation {_corr(value[m], result[m]):+.3f}, sign right at "
              f"{sign:.3f} of {int(decided.sum())} decisions of decided games")
    if not positions:
        return 0
    print(f"action values: the prior's top {TOP} actions at {len(positions)} decisions, "
          f"Monte Carlo = {ns.rollouts} arg-max continuations to the end")
    mc = [np.asarray(v.monte_carlo) for v in positions]
    best = [int(np.argmax(q)) for q in mc]
    print(f"  {'prior':34s} arg-max = Monte-Carlo best at "
          f"{np.mean([b == 0 for b in best]):.3f}")
    estimates = {"value head after the action": [np.asarray(v.one_step) for v in positions]}
    for n in ns.truncate:
        estimates[f"{n} arg-max decisions, then value"] = [np.asarray(v.truncated[n])
                                                          for v in positions]
    diff_mc = np.concatenate([q - q[0] for q in mc])
    for label, qs in estimates.items():
        picks = [int(np.argmax(q)) for q in qs]
        same = np.mean([a == b for a, b in zip(picks, best)])
        gain = np.mean([q[a] - q[0] for a, q in zip(picks, mc)])
        corr = _corr(np.concatenate([q - q[0] for q in qs]), diff_mc)
        spread = np.mean([np.ptp(q) for q in qs])
        print(f"  {label:34s} correlation with Monte Carlo {corr:+.3f}; best = Monte-Carlo "
              f"best at {same:.3f}; gain {gain:+.3f}; spread {spread:.3f}")
    print(f"  {'Monte Carlo':34s} spread {np.mean([np.ptp(q) for q in mc]):.3f}")
    if ns.rollouts >= 2:  # how much of the Monte-Carlo differences is noise: split halves
        half = ns.rollouts // 2
        first, second = ([np.mean(np.asarray(v.monte_carlo_runs)[:, part], axis=1)
                          for v in positions] for part in (slice(0, half), slice(half, None)))
        r = _corr(np.concatenate([q - q[0] for q in first]),
                  np.concatenate([q - q[0] for q in second]))
        full = 2 * r / (1 + r) if r > 0 else float("nan")
        print(f"  Monte-Carlo halves correlate {r:+.3f}: the reliability of {ns.rollouts} "
              f"continuations is {full:.3f} (Spearman-Brown), so no estimate can correlate "
              f"above about {np.sqrt(full):.3f} with them")
    return 0


if __name__ == "__main__":
    sys.exit(main())
