"""Tournaments of games with more than two sides (free-for-all): every game seats one agent per
side, placements feed openskill's Plackett–Luce ratings.

Seating: the agent list, padded with its last agent to the number of sides when shorter, is
rotated one seat per game, so ``[model, heuristic]`` on four sides plays the model against three
heuristics with the model in every seat in turn. Game ``i`` resolves chance with
:func:`agents.evaluation.tournament.chance_seed` ``(seed, i)`` and seeds the agent of seat ``s``
with ``agent_seed(seed, 0, i, s)``. A game's placements are 1 + the number of sides with a higher
return (ties share a place); an agent seated twice counts its best place. The result is a
:class:`agents.evaluation.tournament.TournamentResult` (pairs from the games in which both agents
sat, a pair won when its ``a`` placed better) with the per-game seats, placements and returns in
``placements`` and each agent's wins and places in ``places`` (:func:`place_summary`).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from itertools import combinations
from typing import Any

from envs.core.protocol import Game

from .tournament import (PairResult, Schedule, ScheduledGame, TournamentResult, agent_seed,
                         chance_seed, play_schedule)


def placements_of(returns: list[float]) -> list[int]:
    """1 + the number of sides with a strictly higher return, per side."""
    return [1 + sum(1 for o in returns if o > r) for r in returns]


def place_summary(per_game: list[dict[str, Any]], names: list[str]) -> dict[str, dict[str, Any]]:
    """Per agent, how it placed over the games it sat in (its best seat when it sat twice):
    ``games``, ``wins`` (placed first alone: the other seats all below), ``wins_share`` and its
    Wilson 95% interval ``wins_ci95``, ``first`` (first place, ties included) and
    ``place_counts`` (games per place ``"1"``, ``"2"``, …), ``mean_place``.

    With ``[model, heuristic]`` on four sides the model's ``wins_share`` is the share of games
    it won against three heuristics (an equal of them wins about a quarter when nobody ties).
    """
    from .ratings import wilson_interval

    out: dict[str, dict[str, Any]] = {}
    for n in names:
        wins = first = 0
        counts: dict[str, int] = defaultdict(int)
        placed: list[int] = []
        for g in per_game:
            mine = [p for seat, p in zip(g["seats"], g["placements"]) if seat == n]
            if not mine:
                continue
            best = min(mine)
            placed.append(best)
            counts[str(best)] += 1
            first += best == 1
            wins += best == 1 and g["placements"].count(1) == 1
        games = len(placed)
        lo, hi = wilson_interval(wins, games)
        out[n] = {"games": games, "wins": wins,
                  "wins_share": wins / games if games else 0.0, "wins_ci95": [lo, hi],
                  "first": first, "place_counts": dict(sorted(counts.items())),
                  "mean_place": sum(placed) / games if games else 0.0}
    return out


def seating(names: list[str], sides: int, game_index: int) -> list[str]:
    """The agent of each side in game ``game_index`` (see the module docstring)."""
    base = list(names) + [names[-1]] * max(0, sides - len(names))
    m = len(base)
    return [base[(s - game_index) % m] for s in range(sides)]


def free_for_all(game: Game, agents: Mapping[str, Any], games: int, seed: int = 0,
                 max_decisions: int | None = None, jobs: int = 1) -> TournamentResult:
    """Play ``games`` games of ``game`` (any number of sides) with ``agents`` seated in rotation,
    in ``jobs`` worker processes (:func:`agents.evaluation.tournament.play_schedule`: the same
    result whatever the number).

    Raises:
        ValueError: for fewer than two agents, ``games`` < 1 or ``jobs`` < 1.
    """
    from openskill.models import PlackettLuce

    names = list(agents)
    if len(names) < 2 or games < 1:
        raise ValueError("free_for_all: need at least two agents and one game")
    model = PlackettLuce()
    ratings = {n: model.rating(name=n) for n in names}
    pairs = {(a, b): PairResult(a, b) for a, b in combinations(names, 2)}
    stats: dict[str, dict[str, dict[str, int]]] = {n: defaultdict(lambda: defaultdict(int))
                                                   for n in names}
    per_game: list[dict[str, Any]] = []
    rated: list[tuple[str, str, float]] = []
    truncated = 0
    def scheduled(i: int) -> ScheduledGame:
        seats = seating(names, game.num_players, i)
        return ScheduledGame(tuple(seats), tuple(agent_seed(seed, 0, i, s)
                                                 for s in range(len(seats))),
                             chance_seed(seed, i))

    schedule = Schedule(games, scheduled)
    for i, (rec, _) in enumerate(play_schedule(game, agents, schedule, max_decisions, jobs)):
        seats = list(seating(names, game.num_players, i))
        truncated += rec.truncated
        places = placements_of(rec.returns)
        per_game.append({"seats": seats, "placements": places, "returns": rec.returns,
                         "truncated": rec.truncated})
        best: dict[str, int] = {}
        for n, p in zip(seats, places):
            best[n] = min(best.get(n, p), p)
        present = list(best)
        if len(present) > 1:
            new = model.rate([[ratings[n]] for n in present],
                             ranks=[best[n] for n in present])
            for n, [r] in zip(present, new):
                ratings[n] = r
        for a, b in combinations(names, 2):
            if a in best and b in best:
                pr = pairs[(a, b)]
                pr.games += 1
                if best[a] < best[b]:
                    pr.a_wins += 1
                    rated.append((a, b, 1.0))
                elif best[a] > best[b]:
                    pr.b_wins += 1
                    rated.append((a, b, 0.0))
                else:
                    pr.draws += 1
                    rated.append((a, b, 0.5))
        for side, dtype, label in rec.decisions:
            stats[seats[side]][dtype][label] += 1
    out_ratings = {n: {"rating": float(r.mu), "sigma": float(r.sigma),
                       "ci95": [float(r.mu - 1.96 * r.sigma), float(r.mu + 1.96 * r.sigma)]}
                   for n, r in ratings.items()}
    result = TournamentResult(
        agents=names, pairs=list(pairs.values()), games=rated, ratings=out_ratings,
        decision_stats={n: {d: dict(sorted(c.items())) for d, c in sorted(s.items())}
                        for n, s in stats.items()},
        reaction_outcomes={}, truncated=truncated)
    result.placements = per_game  # type: ignore[attr-defined]
    result.places = place_summary(per_game, names)  # type: ignore[attr-defined]
    return result
