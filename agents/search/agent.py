"""The search agent: :class:`SearchAgent` and agent specs ``search:MODEL[:key=value...]``.

A search agent reads the game state, so it offers ``step(state) -> action`` (OpenSpiel's
``Bot.step``) and says so with ``reads_state = True``; the tournament, the single-agent env and
the play command call ``step`` for such agents. Its ``act(observation, action_mask)`` refuses:
an observation is not enough to search.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from envs.core.errors import InvalidStateError
from envs.core.protocol import State

from ..policies.base import AgentError, BasePolicy, SeedLike
from .config import SearchConfig, SearchSpecError, describe, parse_options
from .evaluator import Evaluator, NetworkEvaluator
from .search import GumbelSearch, SearchResult

__all__ = ["SPEC_PREFIX", "SearchAgent", "is_search_spec", "parse_search_spec"]

#: what an agent spec of a search agent starts with
SPEC_PREFIX = "search:"


def is_search_spec(name: str) -> bool:
    """True when ``name`` names a search agent (``search:MODEL...``)."""
    return str(name).startswith(SPEC_PREFIX)


def parse_search_spec(spec: str) -> tuple[str, SearchConfig]:
    """``(model path, config)`` of ``search:MODEL[:key=value...]``. The model path is
    everything up to the first ``:`` that is followed by ``key=value`` items only.

    Raises:
        SearchSpecError: for a spec without ``search:``, without a model path, or with a bad
            option (see :func:`~agents.search.config.parse_options`); names the spec.
    """
    if not is_search_spec(spec):
        raise SearchSpecError(f"agent spec {spec!r} does not start with {SPEC_PREFIX!r}")
    rest = spec[len(SPEC_PREFIX):]
    parts = rest.split(":")
    cut = len(parts)
    while cut > 1 and "=" in parts[cut - 1]:
        cut -= 1
    model, options = ":".join(parts[:cut]).strip(), parts[cut:]
    if not model or "=" in model:
        raise SearchSpecError(f"agent spec {spec!r}: expected search:MODEL[:key=value...] "
                              f"with MODEL a checkpoint path (.zip)")
    return model, parse_options(options, spec)


class SearchAgent(BasePolicy):
    """Gumbel search over the rules engine with a network's prior and value (see
    :mod:`agents.search`).

    Args:
        game: the game the agent plays.
        evaluator: prior and values (e.g. :class:`~agents.search.evaluator.NetworkEvaluator`).
        config: the search settings (default :class:`SearchConfig()`).
        seed: seed of the agent's generator (Gumbel noise, chance draws and hidden-card samples
            of the search); the tournament re-seeds it before every game, so one seed gives
            the same choices (with a ``simulations`` budget).
        name: display name.
        model: the checkpoint model the evaluator reads (``model.policy``), kept for callers
            that need the network (a best response initialised from it).
    """

    name = "search"
    #: this agent decides from the state: call :meth:`step`
    reads_state = True

    def __init__(self, game: Any, evaluator: Evaluator, config: SearchConfig | None = None,
                 seed: SeedLike = None, name: str | None = None, model: Any = None):
        super().__init__(seed, name)
        self.game = game
        self.config = config or SearchConfig()
        self.evaluator = evaluator
        self.model = model
        self.search = GumbelSearch(game, evaluator, self.config)

    @classmethod
    def load(cls, path: str | Path, game: Any, config: SearchConfig | None = None,
             seed: SeedLike = None, name: str | None = None,
             trust: bool = False) -> "SearchAgent":
        """A search agent over the MaskablePPO checkpoint at ``path``.

        Raises:
            AgentLoadError: for a missing, corrupt or foreign checkpoint (another ruleset, or
                sizes that do not fit ``game``; names the path).
            UnsafeCheckpointError: for one that would need unpickling, unless ``trust``.
        """
        from ..policies.ppo import MaskablePPOPolicy

        ppo = MaskablePPOPolicy.load(path, game, trust=trust)
        return cls(game, NetworkEvaluator(game, ppo.model.policy), config, seed,
                   name or f"search:{Path(path).stem}", model=ppo.model)

    @classmethod
    def from_spec(cls, spec: str, game: Any, seed: SeedLike = None,
                  trust: bool = False) -> "SearchAgent":
        """The agent of ``search:MODEL[:key=value...]`` (:func:`parse_search_spec`), named
        by the spec.

        Raises:
            SearchSpecError: for a spec that cannot be parsed or a bad option.
            AgentLoadError: for a missing, corrupt or foreign checkpoint (the message names
                the spec, then the checkpoint's problem).
        """
        path, config = parse_search_spec(spec)
        try:
            return cls.load(path, game, config, seed, name=spec, trust=trust)
        except AgentError as exc:  # the same error, naming the spec it came from
            raise type(exc)(f"agent spec {spec!r}: {exc}") from None

    def analyse(self, state: State, always: bool = False) -> SearchResult:
        """Search the decision at ``state`` (not modified) for its side to move; with
        ``always`` also where the prior is confident enough to be played unsearched
        (``config.confident``: what the play page's "what would the AI do" asks).

        Returns:
            A :class:`~agents.search.search.SearchResult`: the chosen action, the improved
            policy (float32 ``(num_distinct_actions,)``), the completed Q of each legal action,
            the root value and the visit counts.

        Raises:
            InvalidStateError: at a chance node or a terminal state, or for a state of another
                game than the agent's (by ruleset and scenario).
        """
        if state.game.config() != self.game.config() and state.game is not self.game:
            raise InvalidStateError(
                f"search agent {self.name!r} plays {self.game.ruleset_id}/"
                f"{self.game.scenario_name}, not {state.game.ruleset_id}/"
                f"{state.game.scenario_name}")
        return self.search.run(state, self.rng, always)

    def step(self, state: State) -> int:
        """The action the search chooses at ``state`` (see :meth:`analyse`)."""
        return self.analyse(state).action

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """Refused: a search needs the state.

        Raises:
            AgentError: always (names the agent and ``step(state)``).
        """
        raise AgentError(f"search agent {self.name!r} decides from the game state: call "
                         f"step(state); it cannot play from an observation alone here")

    def describe(self) -> str:
        """The search settings that differ from the defaults, as spec options."""
        return describe(self.config)

