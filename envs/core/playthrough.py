"""Playthroughs and perft counts: two ruleset-agnostic regression views of a game.

A *playthrough* (after OpenSpiel's ``playthroughs/*.txt``) is the text of one seeded random
game, node by node: who is to move, what is legal (or the chance outcomes and their
probabilities), what every side observes, and the action taken. Stored as a golden file, any
change of rules, labels, observations or chance probabilities shows up as a readable diff.

A *perft count* (after chess engines' ``perft``) is the number of leaf nodes of the full game
tree a fixed number of plies below a state, every decision and every chance outcome expanded:
one integer that moves when the set of legal actions or chance outcomes moves anywhere in
that tree.

Both work on any :class:`~envs.core.protocol.Game` / :class:`~envs.core.protocol.State`; this
module imports no ruleset.
"""

from __future__ import annotations

import json
import textwrap
from typing import Any

import numpy as np

from .chance import random_decision, sample_chance_outcome
from .errors import ParameterError
from .protocol import CHANCE, TERMINAL, Game, State

__all__ = ["playthrough", "perft"]

#: width to which lists of action ids are wrapped
_WIDTH = 96
_IND = "  "


def _player_name(game: Game[Any], player: int) -> str:
    if player == CHANCE:
        return "chance"
    if player == TERMINAL:
        return "terminal"
    return game.side_names[player]


def _check_count(name: str, value: object, allow_none: bool = False) -> None:
    if allow_none and value is None:
        return
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 0:
        raise ParameterError(f"{name} must be an int >= 0{' or None' if allow_none else ''}, "
                             f"got {value!r}")


def _ids(name: str, ids: list[int], indent: str) -> list[str]:
    """``name: [1, 2, ...]`` wrapped at :data:`_WIDTH` columns."""
    text = f"{name}: [" + ", ".join(str(a) for a in ids) + "]"
    return textwrap.wrap(text, _WIDTH, initial_indent=indent,
                         subsequent_indent=indent + " " * (len(name) + 3),
                         break_on_hyphens=False)


def _observations(game: Game[Any], state: State, indent: str) -> list[str]:
    lines = []
    for p in range(game.num_players):
        lines.append(f"{indent}observation_string[{p}] ({game.side_names[p]}):")
        lines += [f"{indent}{_IND}{row}".rstrip()
                  for row in game.observation_string(state, p).splitlines()]
    return lines


def _header(game: Game[Any], seed: int, max_nodes: int | None) -> list[str]:
    config = game.config()
    lines = ["# Riposte playthrough: one seeded random game, node by node",
             f"ruleset: {config.get('ruleset', game.ruleset_id)}",
             f"scenario: {config.get('scenario', game.scenario_name)}"]
    if config.get("version") is not None:
        lines.append(f"version: {config['version']}")
    lines.append("params:")
    lines += [f"{_IND}{k} = {json.dumps(v, sort_keys=True)}"
              for k, v in sorted(dict(config.get("params", {})).items())]
    lines += [f"num_players: {game.num_players}",
              "side_names: " + ", ".join(f"{i}={n}" for i, n in enumerate(game.side_names)),
              f"seed: {seed}",
              f"max_nodes: {max_nodes}"]
    return lines


def playthrough(game: Game[Any], seed: int, max_nodes: int | None = None) -> str:
    """The text of one random game of ``game``, deterministic in ``seed``.

    The game starts from ``game.new_initial_state()``; one ``numpy.random.default_rng(seed)``
    samples every chance outcome from its probabilities
    (:func:`~envs.core.chance.sample_chance_outcome`) and picks every decision uniformly among
    ``legal_actions()`` (:func:`~envs.core.chance.random_decision`), in the order the nodes
    come. It stops at a terminal state or after ``max_nodes`` nodes (``None``: no cap).

    Layout (one block per node, blocks separated by a blank line): a header (ruleset,
    scenario, version, parameters one per line, sides, seed, max_nodes); per node ``node i``,
    ``current_player`` (id and name), ``decision``, then at a chance node ``chance_outcomes``
    one ``label: probability`` per line (6 significant digits), at a decision
    ``legal_actions`` (ids, wrapped) and ``string_legal_actions`` (one label per line), the
    ``observation_string`` of every side (indented), and ``action: id (label)``; at the end a
    ``final`` block with the state's player, observations, ``terminal``, ``returns`` and
    ``nodes`` (how many nodes were played). Trailing spaces of observation lines are dropped
    (editors strip them from golden files). Ends with a newline.

    Args:
        game: any :class:`~envs.core.protocol.Game`.
        seed: the generator's seed, an int >= 0.
        max_nodes: the most nodes (decisions and chance nodes) to play, an int >= 0 or None.

    Raises:
        ParameterError: for a seed or ``max_nodes`` that is not an int >= 0 (or None).
    """
    _check_count("seed", seed)
    _check_count("max_nodes", max_nodes, allow_none=True)
    rng = np.random.default_rng(int(seed))
    state: State = game.new_initial_state()
    lines = _header(game, int(seed), max_nodes)
    n = 0
    while not state.is_terminal() and (max_nodes is None or n < max_nodes):
        player = state.current_player()
        lines += ["", f"node {n}",
                  f"{_IND}current_player: {player} ({_player_name(game, player)})",
                  f"{_IND}decision: {state.decision_name()}"]
        if player == CHANCE:
            lines.append(f"{_IND}chance_outcomes:")
            lines += [f"{_IND * 2}{state.action_to_string(o, CHANCE)}: {p:.6g}"
                      for o, p in state.chance_outcomes()]
            action = sample_chance_outcome(state, rng)
        else:
            legal = state.legal_actions()
            lines += _ids("legal_actions", legal, _IND)
            lines.append(f"{_IND}string_legal_actions:")
            lines += [f"{_IND * 2}{state.action_to_string(a, player)}" for a in legal]
            action = random_decision(state, rng)
        lines += _observations(game, state, _IND)
        lines.append(f"{_IND}action: {action} ({state.action_to_string(action, player)})")
        state.apply_action(action)
        n += 1
    player = state.current_player()
    lines += ["", "final",
              f"{_IND}current_player: {player} ({_player_name(game, player)})"]
    lines += _observations(game, state, _IND)
    lines += [f"{_IND}terminal: {state.is_terminal()}",
              f"{_IND}returns: [" + ", ".join(f"{r:.6g}" for r in state.returns()) + "]",
              f"{_IND}nodes: {n}"]
    return "\n".join(lines) + "\n"


def perft(state: State, depth: int) -> int:
    """The number of leaf nodes exactly ``depth`` plies below ``state`` (chess ``perft``).

    Every legal action of a decision node and every outcome of a chance node (each listed
    ``(outcome, probability)`` pair, whatever its probability) is expanded; a terminal node
    reached before ``depth`` counts as one leaf. ``perft(state, 0) == 1``; ``perft(state, 1)``
    is ``len(state.legal_actions())`` at a decision and ``len(state.chance_outcomes())`` at a
    chance node. ``state`` is not modified (children are clones). The cost grows as the
    branching factor to the power ``depth``.

    Args:
        state: any :class:`~envs.core.protocol.State`.
        depth: plies to expand, an int >= 0.

    Returns:
        The leaf count, an int >= 1.

    Raises:
        ParameterError: for a depth that is not an int >= 0.
    """
    _check_count("depth", depth)
    return _perft(state, int(depth))


def _perft(state: State, depth: int) -> int:
    if depth == 0 or state.is_terminal():
        return 1
    if state.is_chance_node():
        children = [o for o, _ in state.chance_outcomes()]
    else:
        children = list(state.legal_actions())
    if depth == 1:  # every child is a leaf: count them without building them
        return len(children)
    total = 0
    for a in children:
        child = state.clone()
        child.apply_action(a)
        total += _perft(child, depth - 1)
    return total
