"""Shared pieces of the conformance suite: :class:`ConformanceError`, the statistics of
random play, the suite's generators and :func:`play_random_game`.

Part of :mod:`envs.core.testing` (see its docstring).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from ..chance import sample_chance_outcome
from ..errors import RiposteError
from ..protocol import Game, State
from ..replay import transcript


#: tolerance on the sum of chance probabilities and on zero-sum returns
PROB_TOL = 1e-9

GameOrFactory = Game[Any] | Callable[[], Game[Any]]


class ConformanceError(RiposteError):
    """A ruleset broke the decision-point protocol.

    Attributes:
        seed: the suite seed of the failing check (``None`` for static checks).
        game_index: index of the failing random game (its generator is
            ``default_rng((seed, game_index))``).
        step: number of actions (decisions + chance outcomes) applied before the violation.
        labels: the transcript up to the violation (replayable with
            :func:`envs.core.replay.play_labels`).
    """

    def __init__(self, message: str, *, seed: int | None = None, game_index: int | None = None,
                 step: int | None = None, labels: Sequence[str] = ()):
        super().__init__(message)
        self.seed = seed
        self.game_index = game_index
        self.step = step
        self.labels = list(labels)


@dataclass(slots=True)
class RandomGamesStats:
    """What :func:`check_random_games` saw."""

    games: int = 0
    decisions: int = 0
    chance_nodes: int = 0
    events: int = 0
    max_decisions: int = 0
    #: returns vector (formatted ``"1,-1"``) -> number of games
    returns_histogram: dict[str, int] = field(default_factory=dict)
    #: decision type value -> number of decisions of that type
    decision_types: dict[str, int] = field(default_factory=dict)

    @property
    def mean_length(self) -> float:
        """Mean number of decisions per game."""
        return self.decisions / self.games if self.games else 0.0

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["mean_length"] = self.mean_length
        return d


# -- helpers ------------------------------------------------------------------------------------
def _as_game(game: GameOrFactory) -> Game[Any]:
    return game if isinstance(game, Game) else game()


def _value(x: Any) -> str:
    """The plain string value of a ``str`` enum member (``str()`` of a mixed-in enum would give
    ``Class.MEMBER`` on Python 3.11)."""
    v = getattr(x, "value", x)
    return v if isinstance(v, str) else str(v)


def game_rng(seed: int, game_index: int) -> np.random.Generator:
    """The generator the suite uses for random game ``game_index`` of a check run with ``seed``."""
    return np.random.default_rng((seed, game_index))


def _labels(state: State) -> list[str]:
    try:
        return transcript(state)
    except Exception:  # a broken history must not hide the original violation
        return [f"<history entry {p}:{a}>" for p, a in state.history]


class _Ctx:
    """Where a check is, for error messages."""

    __slots__ = ("check", "seed", "game_index")

    def __init__(self, check: str, seed: int | None, game_index: int | None = None):
        self.check, self.seed, self.game_index = check, seed, game_index

    def fail(self, state: State | None, msg: str) -> ConformanceError:
        labels = _labels(state) if state is not None else []
        where = f"{self.check}"
        if self.seed is not None:
            where += f" seed={self.seed}"
        if self.game_index is not None:
            where += f" game={self.game_index}"
        if state is not None:
            where += f" step={len(labels)}"
            try:
                where += f" node={_value(state.decision_type())}"
            except Exception:
                pass
            tail = labels[-12:]
            more = "… " if len(labels) > len(tail) else ""
            msg = f"{msg}\n  last labels: {more}{tail}"
        return ConformanceError(f"[{where}] {msg}", seed=self.seed, game_index=self.game_index,
                                step=len(labels) if state is not None else None, labels=labels)


def play_random_game(game: Game[Any], rng: np.random.Generator, max_steps: int | None = None,
                     state: State | None = None) -> State:
    """Play uniformly random legal decisions and sampled chance outcomes until the end (or
    ``max_steps`` actions), checked with ``apply_action``. Returns the final state.

    Raises:
        ConformanceError: when the game is not over after ``max_game_length`` decisions.
    """
    s = game.new_initial_state() if state is None else state
    decisions = 0
    steps = 0
    while not s.is_terminal() and (max_steps is None or steps < max_steps):
        if s.is_chance_node():
            s.apply_action(sample_chance_outcome(s, rng))
        else:
            legal = s.legal_actions()
            s.apply_action(legal[int(rng.integers(len(legal)))])
            decisions += 1
            if decisions > game.max_game_length:
                raise _Ctx("play_random_game", None).fail(
                    s, f"no end after max_game_length={game.max_game_length} decisions")
        steps += 1
    return s


def _random_step(s: State, rng: np.random.Generator) -> int:
    """One random legal action (decision or chance outcome), applied checked; returns its id."""
    if s.is_chance_node():
        a = sample_chance_outcome(s, rng)
    else:
        legal = s.legal_actions()
        a = legal[int(rng.integers(len(legal)))]
    s.apply_action(a)
    return a


def _is_shaped(game: Game[Any]) -> bool:
    """True when a parameter whose name mentions shaping is switched on."""
    return any("shap" in str(k).lower() and bool(v) for k, v in dict(game.params).items())
