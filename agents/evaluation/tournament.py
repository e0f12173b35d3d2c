"""Round-robin tournaments with swapped seats and common random numbers.

Games are played directly on the decision-point protocol (``game.new_initial_state()``, chance
resolved with the tournament's generator, each side's decision asked of its agent with
``game.observation(state, side)`` and ``state.legal_action_mask()``), so any two policies can
meet, and chance is under the tournament's control.

Seeding (one ``numpy.random.SeedSequence(seed)``, spawned per purpose):

* chance: game ``i`` of every pair uses the generator of ``SeedSequence(seed).spawn(2)[0]``'s
  child ``i // 2`` (computed directly as ``SeedSequence(seed, spawn_key=(0, i // 2))``). Games
  ``2k`` (``a`` as side 0) and ``2k + 1`` (``b`` as side 0) thus see the same chance stream —
  common random numbers, which cancel much of the luck when comparing the two seatings.
* agents: before each game each agent's ``reset(seed)`` gets a seed from the separate branch
  ``SeedSequence(seed, spawn_key=(1, pair, i, seat))``, so an agent's own randomness never
  shifts the dice.

Every game is thus a function of its :class:`ScheduledGame` (seats, agent seeds, chance seed)
alone, which is what lets :func:`play_schedule` play a tournament in ``jobs`` forked worker
processes with the same games, results and statistics as in one process.

A game that reaches ``max_decisions`` decisions without ending counts as a draw.
"""

from __future__ import annotations

import itertools
import sys
from collections import defaultdict, deque
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from envs.core.chance import sample_chance_outcome
from envs.core.errors import IllegalActionError, InvalidStateError
from envs.core.protocol import CHANCE, TERMINAL, Game, State
from envs.core.workers import result_of, submit, worker_pool

from ..policies.base import decider, decision_context, reset_policy
from .analytics import GameTracker, ReactionAnalytics
from .ratings import game_scores, plackett_luce_ratings, wilson_interval

REACT_PREFIX = "react:"


def chance_seed(seed: int, k: int) -> np.random.SeedSequence:
    """The chance seed of game pair ``k`` (games ``2k`` and ``2k+1`` of every pairing)."""
    return np.random.SeedSequence(seed, spawn_key=(0, k))


def agent_seed(seed: int, pair: int, game_index: int, seat: int) -> np.random.SeedSequence:
    """The seed of the agent in ``seat`` of game ``game_index`` of pairing ``pair``."""
    return np.random.SeedSequence(seed, spawn_key=(1, pair, game_index, seat))


def decision_name(state: State) -> str:
    """``state.decision_type()`` as a plain string (the enum value, e.g. ``"reaction"``)."""
    d = state.decision_type()
    return str(getattr(d, "value", d))


@dataclass(slots=True)
class GameRecord:
    """One finished (or truncated) game.

    Attributes:
        returns: per-side returns (zeros when truncated).
        decisions: ``(side, decision_type, action_label)`` of every decision, in order.
        chance: the chance outcome ids drawn, in order.
        truncated: the game hit the decision cap.
        final_state: the state the game ended in (its ``events`` log; reaction analytics);
            ``None`` for a game played in a worker process of :func:`play_schedule`.
    """

    returns: list[float]
    decisions: list[tuple[int, str, str]]
    chance: list[int]
    truncated: bool
    final_state: Any = None


def play_game(game: Game, agents: Sequence[Any], chance_rng: np.random.Generator,
              max_decisions: int | None = None,
              on_decision: Callable[[Any, int, np.ndarray, int], None] | None = None
              ) -> GameRecord:
    """Play one game, ``agents[side]`` deciding for ``side``.

    Args:
        game: the game.
        agents: one policy (``act(obs, mask) -> int`` or a bare callable, or an agent that
            reads the state, ``step(state) -> int``: :func:`~agents.policies.base.reads_state`)
            per side.
        chance_rng: the generator that resolves every chance node.
        max_decisions: decision cap (default ``game.max_game_length``); reaching it is a draw.
        on_decision: called as ``(state, side, mask, action)`` before each decision is applied.

    Raises:
        IllegalActionError: when an agent returns an action the mask does not allow (the
            message names the agent and the legal labels).
    """
    if len(agents) != game.num_players:
        raise ValueError(f"play_game: {len(agents)} agents for {game.num_players} sides")
    acts = [decider(a) for a in agents]
    cap = game.max_game_length if max_decisions is None else max_decisions
    state = game.new_initial_state()
    decisions: list[tuple[int, str, str]] = []
    chance: list[int] = []
    labels = game.actions.labels
    while True:
        p = state.current_player()
        if p == TERMINAL:
            return GameRecord([float(r) for r in state.returns()], decisions, chance, False,
                              state)
        if p == CHANCE:
            o = sample_chance_outcome(state, chance_rng)
            chance.append(o)
            state.apply_action_unchecked(o)
            continue
        if len(decisions) >= cap:
            return GameRecord([0.0] * game.num_players, decisions, chance, True, state)
        mask = state.legal_action_mask()
        if not mask.any():
            raise InvalidStateError(f"all-false action mask at a decision: "
                                    f"{decision_context(state)} (the ruleset offers no action)")
        a = acts[p](state, p, mask)
        if not (isinstance(a, (int, np.integer)) and 0 <= int(a) < mask.size and mask[int(a)]):
            raise IllegalActionError(
                f"agent {getattr(agents[p], 'name', agents[p])!r} (side {p}) chose illegal "
                f"action {a!r} at decision {state.decision_type()!s}; legal: "
                f"{state.legal_labels()}")
        a = int(a)
        if on_decision is not None:
            on_decision(state, p, mask, a)
        decisions.append((p, decision_name(state), labels[a]))
        state.apply_action_unchecked(a)


@dataclass(frozen=True)
class ScheduledGame:
    """One game of a tournament, everything that decides it but the agents themselves.

    Attributes:
        seats: the agent name of each side (``seats[side]``).
        agent_seeds: the seed each side's agent is ``reset`` with before the game.
        chance: the seed of the generator that resolves every chance node.
        track: record the reaction decisions (a :class:`~agents.evaluation.analytics.GameTracker`).
    """

    seats: tuple[str, ...]
    agent_seeds: tuple[np.random.SeedSequence, ...]
    chance: np.random.SeedSequence
    track: bool = False


class Schedule(Sequence):
    """A tournament's :class:`ScheduledGame` list, built game by game when asked for
    (``make(index)``) instead of all at once: a 10,000,000-game request built 13 GB of them
    before the first game.

    Args:
        length: the number of games.
        make: the game at an index ``0 <= index < length``.
    """

    def __init__(self, length: int, make: Callable[[int], ScheduledGame]):
        self._length = length
        self._make = make

    def __len__(self) -> int:
        return self._length

    def __getitem__(self, index):  # type: ignore[override]
        if isinstance(index, slice):
            return [self._make(k) for k in range(*index.indices(self._length))]
        k = index + self._length if index < 0 else index
        if not 0 <= k < self._length:
            raise IndexError(f"game {index} of a {self._length}-game schedule")
        return self._make(k)


#: what a forked worker of :func:`play_schedule` plays with (inherited, never pickled)
_WORKER: dict[str, Any] = {}


def _play_scheduled(game: Game, agents: Mapping[str, Any], g: ScheduledGame,
                    max_decisions: int | None) -> tuple[GameRecord, GameTracker | None]:
    for seat, name in enumerate(g.seats):
        reset_policy(agents[name], g.agent_seeds[seat])
    tracker = GameTracker(list(g.seats)) if g.track else None
    rec = play_game(game, [agents[n] for n in g.seats], np.random.default_rng(g.chance),
                    max_decisions, on_decision=None if tracker is None else tracker.on_decision)
    return rec, tracker


def _init_worker() -> None:
    if "torch" in sys.modules:  # one thread per process: two processes share two cores
        sys.modules["torch"].set_num_threads(1)


def _worker_play(games: list[ScheduledGame]) -> list[tuple[GameRecord, GameTracker | None]]:
    out = []
    for g in games:
        rec, tracker = _play_scheduled(_WORKER["game"], _WORKER["agents"], g,
                                       _WORKER["max_decisions"])
        if tracker is not None:
            tracker.resolve(rec.final_state.events)
        rec.final_state = None  # pickling it back would cost more than the analytics need
        out.append((rec, tracker))
    return out


def play_schedule(game: Game, agents: Mapping[str, Any], schedule: Sequence[ScheduledGame],
                  max_decisions: int | None = None, jobs: int = 1
                  ) -> Iterator[tuple[GameRecord, GameTracker | None]]:
    """Play ``schedule``'s games, yielding ``(record, tracker)`` per game in schedule order.

    With ``jobs > 1`` (and the ``fork`` start method, i.e. not on Windows) the games are played
    in ``jobs`` forked worker processes (:func:`envs.core.workers.worker_pool`), each with its
    own copy of ``game`` and ``agents`` taken when the workers start; since every agent is reset
    from its scheduled seed before each game, the records are the same as with ``jobs=1``
    except that a worker's record has ``final_state=None`` (its tracker has measured the
    reaction outcomes on the state's events already:
    :meth:`~agents.evaluation.analytics.GameTracker.resolve`). Workers ignore SIGINT; closing the
    iterator (or an exception in the caller) terminates them.

    Raises:
        ValueError: for ``jobs < 1``.
        IllegalActionError, InvalidStateError: from :func:`play_game`, re-raised from a worker.
        envs.core.workers.WorkerDiedError: a worker process died (killed, out of memory).
    """
    if jobs < 1:
        raise ValueError(f"jobs must be >= 1, got {jobs}")
    import multiprocessing as mp

    if jobs == 1 or len(schedule) < 2 or "fork" not in mp.get_all_start_methods() \
            or _WORKER:  # inside a worker already (a nested tournament): play here
        for g in schedule:
            yield _play_scheduled(game, agents, g, max_decisions)
        return
    chunk = max(1, min(4, len(schedule) // (8 * jobs)))
    starts = iter(range(0, len(schedule), chunk))
    pending: deque = deque()  # (first game, future) in schedule order, 4 chunks per worker

    def in_flight(last_start: int) -> str:  # the games of the pending chunks
        first = pending[0][0] if pending else last_start
        return f"one of games {first}..{min(last_start + chunk, len(schedule)) - 1}"

    def more() -> None:
        i = next(starts, None)
        if i is not None:
            pending.append((i, submit(pool, in_flight(i), _worker_play,
                                      list(schedule[i:i + chunk]))))

    with worker_pool(min(jobs, len(schedule)), _init_worker) as pool:
        _WORKER.update(game=game, agents=agents, max_decisions=max_decisions)
        try:  # the workers are forked at the first submit, inheriting _WORKER
            more()
        finally:
            _WORKER.clear()  # the workers have their copies: the parent keeps no references
        for _ in range(4 * jobs - 1):
            more()
        while pending:
            what = in_flight(pending[-1][0])
            future = pending.popleft()[1]
            more()
            yield from result_of(future, what)


@dataclass
class PairResult:
    """Results of one pairing, from ``a``'s point of view."""

    a: str
    b: str
    games: int = 0
    a_wins: int = 0
    b_wins: int = 0
    draws: int = 0

    @property
    def a_score(self) -> float:
        """``(a_wins + draws / 2) / games`` (0.5 before any game)."""
        return (self.a_wins + 0.5 * self.draws) / self.games if self.games else 0.5

    @property
    def a_score_ci95(self) -> tuple[float, float]:
        """Wilson 95% interval of :attr:`a_score` (draws count half)."""
        return wilson_interval(self.a_wins + 0.5 * self.draws, self.games)

    def to_dict(self) -> dict[str, Any]:
        lo, hi = self.a_score_ci95
        return {"a": self.a, "b": self.b, "games": self.games, "a_wins": self.a_wins,
                "b_wins": self.b_wins, "draws": self.draws, "a_score": self.a_score,
                "a_score_ci95": [lo, hi]}


@dataclass
class TournamentResult:
    """Everything a round robin produced.

    Attributes:
        agents: agent names in the given order.
        pairs: one :class:`PairResult` per unordered pair.
        games: ``(a, b, a_score)`` per game, in rating order (game index outer, pair inner).
        ratings: Plackett–Luce ratings (see
            :func:`agents.evaluation.ratings.plackett_luce_ratings`).
        decision_stats: ``{agent: {decision_type: {action_label: count}}}``.
        reaction_outcomes: ``{agent: {reaction_label: {"games": n, "score": mean score}}}`` over
            the games in which the agent took that reaction at least once.
        chance_keys: ``(a, b, game_index, a_seat, chance_pair_index)`` per game played.
        truncated: number of games that hit the decision cap.
        reaction_analytics: per agent and reaction label: offered, taken, outcomes and scores
            (:meth:`agents.evaluation.analytics.ReactionAnalytics.to_dict`).
    """

    agents: list[str]
    pairs: list[PairResult]
    games: list[tuple[str, str, float]]
    ratings: dict[str, dict]
    decision_stats: dict[str, dict[str, dict[str, int]]]
    reaction_outcomes: dict[str, dict[str, dict[str, float]]]
    chance_keys: list[tuple[str, str, int, int, int]] = field(default_factory=list)
    truncated: int = 0
    reaction_analytics: dict[str, Any] = field(default_factory=dict)


def round_robin(game: Game, agents: Mapping[str, Any], games_per_pair: int, seed: int = 0,
                max_decisions: int | None = None,
                on_game: Callable[[str, str, int, GameRecord], None] | None = None,
                jobs: int = 1) -> TournamentResult:
    """Every pair of ``agents`` plays ``games_per_pair`` games, alternating seats (even game
    indices: ``a`` is side 0), on common chance seeds (see the module docstring).

    Args:
        game: a two-sided game.
        agents: name -> policy, at least two.
        games_per_pair: games per pair (even numbers give each seating the same count).
        seed: the tournament seed.
        max_decisions: per-game decision cap (default ``game.max_game_length``).
        on_game: called after every game with ``(a, b, game_index, record)`` (progress bars).
        jobs: worker processes playing the games (:func:`play_schedule`: the same result
            whatever the number).

    Raises:
        ValueError: fewer than two agents, a non-two-sided game, ``games_per_pair < 1`` or
            ``jobs < 1``.
    """
    names = list(agents)
    if len(names) < 2:
        raise ValueError("round_robin needs at least two agents")
    if game.num_players != 2:
        raise ValueError(f"round_robin supports two-sided games, not {game.num_players}")
    if games_per_pair < 1:
        raise ValueError(f"games_per_pair must be >= 1, got {games_per_pair}")
    pairs = [PairResult(a, b) for a, b in itertools.combinations(names, 2)]
    per_game: dict[tuple[int, int], tuple[str, str, float]] = {}
    stats: dict[str, dict[str, dict[str, int]]] = {
        n: defaultdict(lambda: defaultdict(int)) for n in names}
    outcome_sum: dict[str, dict[str, list[float]]] = {n: defaultdict(lambda: [0, 0.0])
                                                      for n in names}
    chance_keys = []
    truncated = 0
    analytics = ReactionAnalytics()
    def scheduled(k: int) -> ScheduledGame:  # game k: game i of pair pi
        pi, i = divmod(k, games_per_pair)
        return ScheduledGame((pairs[pi].a, pairs[pi].b) if i % 2 == 0 else
                             (pairs[pi].b, pairs[pi].a),
                             (agent_seed(seed, pi, i, 0), agent_seed(seed, pi, i, 1)),
                             chance_seed(seed, i // 2), track=True)

    schedule = Schedule(len(pairs) * games_per_pair, scheduled)
    played = play_schedule(game, agents, schedule, max_decisions, jobs)
    for k, (rec, tracker) in enumerate(played):
        pi, i = divmod(k, games_per_pair)
        pr, a_seat = pairs[pi], i % 2
        seats = [pr.a, pr.b] if a_seat == 0 else [pr.b, pr.a]
        chance_keys.append((pr.a, pr.b, i, a_seat, i // 2))
        truncated += rec.truncated
        a_score, b_score = game_scores(rec.returns[a_seat])
        pr.games += 1
        if a_score == 1.0:
            pr.a_wins += 1
        elif b_score == 1.0:
            pr.b_wins += 1
        else:
            pr.draws += 1
        per_game[(i, pi)] = (pr.a, pr.b, a_score)
        if tracker is None:  # (every game of the round robin is scheduled with track=True)
            raise InvalidStateError(f"round robin: game {k} came back without its tracker")
        analytics.add_game(tracker, rec.final_state,
                           [a_score, b_score] if a_seat == 0 else [b_score, a_score])
        taken: dict[int, set[str]] = {0: set(), 1: set()}
        for side, dtype, label in rec.decisions:
            stats[seats[side]][dtype][label] += 1
            if label.startswith(REACT_PREFIX):
                taken[side].add(label)
        for side in (0, 1):
            score = a_score if seats[side] == pr.a else b_score
            for label in taken[side]:
                acc = outcome_sum[seats[side]][label]
                acc[0] += 1
                acc[1] += score
        if on_game is not None:
            on_game(pr.a, pr.b, i, rec)
    ordered = [per_game[k] for k in sorted(per_game)]
    return TournamentResult(
        agents=names, pairs=pairs, games=ordered,
        ratings=plackett_luce_ratings(names, ordered),
        decision_stats={n: {d: dict(sorted(c.items())) for d, c in sorted(s.items())}
                        for n, s in stats.items()},
        reaction_outcomes={n: {lab: {"games": int(v[0]), "score": v[1] / v[0]}
                               for lab, v in sorted(o.items())} for n, o in outcome_sum.items()},
        chance_keys=chance_keys, truncated=truncated,
        reaction_analytics=analytics.to_dict(names))
