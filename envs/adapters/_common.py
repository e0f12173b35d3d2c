"""Helpers shared by the PettingZoo AEC env (:mod:`envs.adapters.aec`), the Gymnasium env
(:mod:`envs.adapters.single_agent`) and the wrappers (:mod:`envs.adapters.wrappers`): seed and
action checks, illegal-action messages, decision names, winners and the text view. Kept here so
that no adapter imports another one sideways (tests/core/test_layering.py)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from envs.core.errors import ParameterError, ResetNeededError
from envs.core.protocol import CHANCE, TERMINAL, Game, State
from envs.core.registry import game_class, list_rulesets

#: name of the game parameter that switches the ruleset's shaped reward on (RULINGS 9)
SHAPED_REWARD_PARAM = "shaped_reward"


def game_params(ruleset: str, params: Any, shaped_reward: bool) -> dict[str, Any]:
    """The ``params`` of an env's game (a copy; ``None``: none), with the ruleset's shaped
    reward switched on when ``shaped_reward``.

    Raises:
        ParameterError: when ``shaped_reward`` and the ruleset has no shaped reward
            (:attr:`~envs.core.protocol.Game.has_shaped_reward`).
        UnknownRulesetError: for an unknown ruleset (only looked up when ``shaped_reward``).
    """
    params = dict(params or {})
    if shaped_reward:
        if not game_class(ruleset).has_shaped_reward:
            have = [r for r in list_rulesets() if game_class(r).has_shaped_reward]
            raise ParameterError(f"shaped_reward: the {ruleset} ruleset has no shaped reward "
                                 f"(its reward is the final result only; rulesets with one: "
                                 f"{', '.join(have) or 'none'})")
        params[SHAPED_REWARD_PARAM] = True
    return params


def reset_needed(call: str) -> ResetNeededError:
    """The error for ``call`` (``"step"``, ``"observe"``, ...) made before an env's ``reset()``
    or after its ``close()``: one message for every adapter."""
    return ResetNeededError(f"{call}() before reset(): call reset() first (there is no game "
                            f"until reset(), nor after close())")


#: ``reset(options=...)`` keys that would change the game itself, refused by every env: the
#: game is fixed when the env is made
GAME_OPTIONS = ("ruleset", "scenario", "params")


def check_reset_options(options: Any, known: tuple[str, ...], env: str,
                        strict: bool = True) -> dict[str, Any]:
    """A ``reset(options=...)`` argument as a dict (``{}`` for None). A key naming the game
    (:data:`GAME_OPTIONS`) is refused, never ignored: a caller that passes
    ``{"scenario": ...}`` expecting another battle must not silently play the same one. With
    ``strict`` every key not in ``known`` is refused too; without it other keys pass (the AEC
    env: PettingZoo's ``api_test`` resets with ``options={"options": 1}``).

    Raises:
        TypeError: for options that are not a mapping.
        ParameterError: naming the refused keys and the known ones; the scenario and the
            parameters are fixed when the env is made (``env(scenario=..., params=...)``).
    """
    if options is None:
        return {}
    if not isinstance(options, Mapping):
        raise TypeError(f"{env}.reset(options=...) takes a dict, not "
                        f"{type(options).__name__}")
    refused = sorted(str(k) for k in options
                     if k in GAME_OPTIONS or (strict and k not in known))
    if refused:
        fixed = (" (the ruleset, scenario and parameters are fixed when the env is made: make "
                 "another env with scenario=... / params=...)"
                 if set(GAME_OPTIONS) & set(refused) else "")
        raise ParameterError(f"{env}.reset(options=...): unknown option(s) "
                             f"{', '.join(map(repr, refused))}; known: "
                             f"{', '.join(map(repr, known)) or 'none'}{fixed}")
    return dict(options)


#: how many recent events ``render()`` shows
RENDER_EVENTS = 8


def check_seed(seed: Any) -> int | None:
    """A ``reset(seed=...)`` argument as a plain int (or None), checked like Gymnasium does.

    Raises:
        TypeError: for a seed that is not an int (a bool, float or string is refused).
        ValueError: for a negative seed.
    """
    if seed is None:
        return None
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise TypeError(f"seed must be a non-negative int or None, got "
                        f"{type(seed).__name__} {seed!r}")
    if seed < 0:
        raise ValueError(f"seed must be a non-negative int or None, got {seed!r}")
    return int(seed)


def as_action_id(action: Any) -> int | None:
    """``action`` as a Python int when it is an integer scalar (int, numpy integer, or a
    one-element integer array), else ``None``."""
    if isinstance(action, (bool, np.bool_)):
        return None
    if isinstance(action, (int, np.integer)):
        return int(action)
    if isinstance(action, np.ndarray) and action.size == 1 and np.issubdtype(action.dtype, np.integer):
        return int(action.reshape(()).item())
    return None


def illegal_message(state: State, action: Any, who: str) -> str:
    """Message for an illegal decision: who chose it, what it was, why it is masked, and the
    legal labels at this node."""
    game = state.game
    p = state.current_player()
    aid = as_action_id(action)
    if aid is not None and 0 <= aid < game.num_distinct_actions:
        what = f"action {game.actions.labels[aid]!r} (id {aid})"
        why = state.why_illegal(aid)
        if why is not None:
            what += f" [{why}]"
    else:
        what = f"action {action!r} (not an id in 0..{game.num_distinct_actions - 1})"
    side = f"side {p} ({game.side_names[p]})" if p >= 0 else f"player {p}"
    return (f"{who} chose illegal {what} for {side} at decision {decision_name(state)}; "
            f"legal: {state.legal_labels()}")


def decision_name(state: State) -> str:
    """``state.decision_type()`` as a plain string (the enum value, e.g. ``"reaction"``)."""
    d = state.decision_type()
    return str(getattr(d, "value", d))


def winner_of(returns: list[float]) -> int | None:
    """Index of the side with the strictly highest return, ``None`` for a draw."""
    best = max(returns)
    top = [i for i, r in enumerate(returns) if r == best]
    return top[0] if len(top) == 1 else None


def render_text(game: Game, state: State | None, side: int) -> str:
    """Text view for ``render_mode="ansi"``: ``observation_string`` of ``side`` and the last
    :data:`RENDER_EVENTS` events of the log."""
    if state is None:
        return "(no game: call reset())"
    p = state.current_player()
    who = ("chance" if p == CHANCE else "game over" if p == TERMINAL
           else f"{game.side_names[p]} to decide ({decision_name(state)})")
    lines = [f"[{game.ruleset_id}/{game.scenario_name}] {who}; view of {game.side_names[side]}",
             game.observation_string(state, side)]
    recent = state.events[-RENDER_EVENTS:]
    if recent:
        lines.append("recent events:")
        lines.extend("  " + e.format() for e in recent)
    if state.is_terminal():
        lines.append(f"returns: {list(state.returns())}")
    return "\n".join(lines) + "\n"


def render_rgb(game: Game, state: State | None) -> np.ndarray:
    """Image for ``render_mode="rgb_array"``: ``game.drawing(state)`` rasterised, ``(H, W, 3)``
    uint8 (the initial table when ``state`` is None)."""
    from .rendering import drawing_to_rgb  # matplotlib is imported only when rendering

    return drawing_to_rgb(game.drawing(state if state is not None else game.new_initial_state()))
