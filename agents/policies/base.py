"""The policy protocol and the uniform random policy.

A policy is anything with ``act(observation, action_mask) -> int``: ``observation`` is the
acting side's egocentric float32 vector of shape ``(game.observation_size,)`` and ``action_mask``
a bool (or 0/1 int8) array of shape ``(game.num_distinct_actions,)``; the returned id is always
one the mask allows. Policies also carry a ``name``, are callable (``__call__ = act``, so they
plug straight into ``RiposteGymEnv(opponent=...)``) and may offer ``reset(seed=None)``, which
the tournament calls before every game with a seed from its own stream.
"""

from __future__ import annotations

import abc
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Protocol, runtime_checkable

import numpy as np

from envs.core.errors import InvalidStateError, RiposteError
from envs.core.protocol import State

SeedLike = int | np.random.SeedSequence | None


class AgentError(RiposteError):
    """Base class of the errors raised by :mod:`agents` on bad input."""


class AgentLoadError(AgentError):
    """A checkpoint that cannot be used: missing file, corrupt zip, or a model whose spaces do
    not fit the game. The message names the path."""


class UnknownAgentError(AgentError):
    """An agent name that is neither a built-in name nor a checkpoint path."""


def looks_like_path(name: str) -> bool:
    """True when ``name`` should be read as a checkpoint path rather than a built-in name."""
    return name.endswith(".zip") or os.sep in name or "/" in name or Path(name).exists()


def first_repeated(names: Sequence[str],
                   key: Callable[[str], str] | None = None) -> str | None:
    """The first of ``names`` given more than once, with how often (``"'rush' is given
    twice"``, ``"'rush' is given 3 times"``), or ``None`` when all differ: the tail of the
    scripts' "names must be distinct" errors. With ``key`` (e.g.
    :func:`agents.builtin.agent_identity`) names are compared by what ``key`` makes of them,
    and two spellings of one are reported as such (``"'a.zip' and './a.zip' are the same
    checkpoint"``)."""
    keys = [name if key is None else key(name) for name in names]
    for k in keys:
        same = [name for name, other in zip(names, keys) if other == k]
        if len(same) > 1:
            spellings = list(dict.fromkeys(same))
            if len(spellings) > 1:
                return f"{' and '.join(map(repr, spellings))} are the same checkpoint"
            n = len(same)
            return f"{same[0]!r} is given {'twice' if n == 2 else f'{n} times'}"
    return None


@runtime_checkable
class Policy(Protocol):
    """What the tournament, the opponent pool and the single-agent env accept."""

    name: str

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int: ...


def legal_ids(action_mask: np.ndarray) -> np.ndarray:
    """Sorted legal ids of a mask (bool or 0/1 ints), as an int64 array.

    Raises:
        InvalidStateError: when no mask was given (``None``), or the mask allows nothing (a
            policy asked to act off-turn or after the end; callers that hold the state —
            the tournament, the envs — name the side, decision type and step, see
            :func:`decision_context`).
    """
    if action_mask is None:
        raise InvalidStateError("policy asked to act without an action mask (None): "
                                "act(observation, action_mask) needs the bool mask of the legal "
                                "actions, shape (num_distinct_actions,)")
    legal = np.flatnonzero(np.asarray(action_mask))
    if legal.size == 0:
        raise InvalidStateError("policy asked to act with an all-false action mask: no action "
                                "is legal (the game is over, or it is not this side's turn)")
    return legal


def decision_context(state: State) -> str:
    """``"side 0 (Union), decision 'maneuver', step 37"`` for messages about the decision a
    state is at (``step`` = actions applied so far, chance outcomes included)."""
    p = state.current_player()
    names = getattr(getattr(state, "game", None), "side_names", ())
    side = f"side {p} ({names[p]})" if 0 <= p < len(names) else f"player {p}"
    dt = state.decision_type()
    return (f"{side}, decision {str(getattr(dt, 'value', dt))!r}, "
            f"step {len(getattr(state, 'history', ()))}")


class BasePolicy(abc.ABC):
    """Base class of the built-in policies: a name, an own ``numpy.random.Generator`` and the
    protocol glue (``__call__ = act``, ``reset(seed)``)."""

    name: str = "policy"

    def __init__(self, seed: SeedLike = None, name: str | None = None):
        self.rng = np.random.default_rng(seed)
        if name is not None:
            self.name = name

    @abc.abstractmethod
    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """Id of the chosen action; always allowed by ``action_mask``."""

    def __call__(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        return self.act(observation, action_mask)

    def reset(self, seed: SeedLike = None) -> None:
        """Start of a game: re-seed the policy's own generator when ``seed`` is given."""
        if seed is not None:
            self.rng = np.random.default_rng(seed)

    def _uniform(self, ids: np.ndarray | list[int]) -> int:
        return int(ids[int(self.rng.integers(len(ids)))])

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r})"


class RandomPolicy(BasePolicy):
    """Uniformly random over the legal actions of the mask.

    Args:
        seed: seed of the policy's own generator (never the global one).
    """

    name = "random"

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        return self._uniform(legal_ids(action_mask))


def reset_policy(policy: object, seed: SeedLike) -> None:
    """Call ``policy.reset`` if it has one: with ``seed`` for :class:`BasePolicy` subclasses,
    without arguments for other objects."""
    if isinstance(policy, BasePolicy):
        policy.reset(seed)
        return
    reset = getattr(policy, "reset", None)
    if callable(reset):
        reset()


def reads_state(policy: object) -> bool:
    """True for an agent that decides from the game state rather than from its observation:
    one with ``reads_state = True`` and ``step(state) -> action`` (OpenSpiel's ``Bot.step``),
    such as :class:`agents.search.SearchAgent`. Whoever holds the state (the tournament, the
    single-agent env, the play command) calls ``step(state)`` for it."""
    return bool(getattr(policy, "reads_state", False)) and callable(getattr(policy, "step", None))


def decider(policy: object) -> Callable[[State, int, np.ndarray], int]:
    """``(state, side, action_mask) -> action`` for ``policy``, as whoever holds the state
    asks it: ``step(state)`` for an agent that reads the state (:func:`reads_state`), else
    ``act(observation of side, action_mask)`` (:func:`as_callable`).

    Raises:
        AgentError: when ``policy`` is neither (see :func:`as_callable`).
    """
    if reads_state(policy):
        step = policy.step  # type: ignore[attr-defined]
        return lambda state, side, action_mask: step(state)
    act = as_callable(policy)
    return lambda state, side, action_mask: act(
        state.game.observation(state, side), action_mask)


def policy_name(policy: object, default: str = "policy") -> str:
    """The ``name`` of a policy, or ``default`` for a bare callable."""
    return str(getattr(policy, "name", None) or getattr(policy, "__name__", None) or default)


def as_callable(policy: object):
    """``policy.act`` for an object with ``act``, else the callable itself.

    Raises:
        AgentError: when ``policy`` has neither ``act`` nor ``__call__``.
    """
    act = getattr(policy, "act", None)
    if callable(act):
        return act
    if callable(policy):
        return policy
    raise AgentError(f"{policy!r} is not a policy: it needs act(observation, action_mask) -> int")
