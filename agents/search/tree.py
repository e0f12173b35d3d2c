"""The search tree: one :class:`Node` per decision, chance or end reached, its statistics, and
how a simulation steps through chance nodes and forced decisions.

Every node keeps one value per player (``value_sum``, summed over the simulations through it):
a decision node's side chooses by its own component (max^n), which for two sides is minimax
and for three or four teams lets each team pursue its own result (the value head predicts each
team's own return, so there is a component for each; see :mod:`agents.search`).

Children are keyed by action (decision nodes) or outcome (chance nodes). Under hidden
information the states that reach one node can differ in what the searching side cannot see
(each simulation searches another sample), so a node keeps the unmasked prior logits and masks
them with the legal actions of the state at hand at every visit.
"""

from __future__ import annotations

import math

import numpy as np

from envs.core.chance import sample_chance_outcome
from envs.core.protocol import CHANCE, TERMINAL, State

__all__ = ["Node", "advance_forced", "advance_to_choice", "new_node", "select_outcome"]


class Node:
    """One node of the tree.

    Attributes:
        player: the side to move, :data:`~envs.core.protocol.CHANCE` or
            :data:`~envs.core.protocol.TERMINAL`.
        visits: simulations that passed through the node.
        value_sum: float64 ``(num_players,)``, the sum of their values.
        children: ``{action or outcome id: Node}``.
        logits: float32 ``(num_distinct_actions,)`` prior logits of a decision node (unmasked;
            ``None`` before the node is evaluated and at chance and terminal nodes).
        value: float64 ``(num_players,)``: the evaluator's value of a decision node, the
            returns of a terminal node.
    """

    __slots__ = ("player", "visits", "value_sum", "children", "logits", "value")

    def __init__(self, player: int, num_players: int):
        self.player = player
        self.visits = 0
        self.value_sum = np.zeros(num_players)
        self.children: dict[int, Node] = {}
        self.logits: np.ndarray | None = None
        self.value: np.ndarray | None = None

    @property
    def expanded(self) -> bool:
        """True once the node has its value (decision: evaluated; terminal: returns)."""
        return self.value is not None

    def q(self, player: int) -> float:
        """Mean value of ``player`` over the simulations through the node."""
        return float(self.value_sum[player]) / self.visits

    def child_stats(self, actions: list[int], player: int) -> tuple[np.ndarray, np.ndarray]:
        """``(visits int64 (len(actions),), q float64 (len(actions),))`` of the children of
        ``actions`` from ``player``'s view (q is 0 where unvisited)."""
        n = np.zeros(len(actions), dtype=np.int64)
        q = np.zeros(len(actions))
        for i, a in enumerate(actions):
            c = self.children.get(a)
            if c is not None and c.visits:
                n[i] = c.visits
                q[i] = c.value_sum[player] / c.visits
        return n, q


def advance_forced(state: State) -> None:
    """Apply the only legal action while ``state`` is at a decision with one legal action
    (forced decisions are not searched: they add no node)."""
    while True:
        p = state.current_player()
        if p < 0:
            return
        legal = state.legal_actions()
        if len(legal) != 1:
            return
        state.apply_action_unchecked(legal[0])


def advance_to_choice(state: State, rng: np.random.Generator) -> int:
    """Apply forced decisions and chance outcomes drawn by their probabilities with ``rng``
    until a decision with more than one legal action or the end; returns the player then to
    move (a side, or :data:`~envs.core.protocol.TERMINAL`)."""
    while True:
        advance_forced(state)
        p = state.current_player()
        if p != CHANCE:
            return p
        state.apply_action_unchecked(sample_chance_outcome(state, rng))


def new_node(state: State) -> Node:
    """The node for ``state`` (not yet evaluated; a terminal node gets its returns)."""
    n = state.game.num_players
    node = Node(state.current_player(), n)
    if node.player == TERMINAL:
        node.value = np.asarray(state.returns(), dtype=np.float64)
    return node


def select_outcome(node: Node, state: State, rng: np.random.Generator, expand: bool,
                   expand_max: int) -> int:
    """The outcome a simulation takes at the chance node ``node`` (``state`` at it):
    drawn by its probability, or, with ``expand`` and at most ``expand_max`` outcomes, the one
    whose share of the node's visits lags its probability most (ties to the lower id)."""
    outcomes = state.chance_outcomes()
    if expand and len(outcomes) <= expand_max:
        total = node.visits + 1
        best, best_gap = outcomes[0][0], -math.inf
        for o, p in outcomes:
            c = node.children.get(o)
            gap = p - (c.visits if c is not None else 0) / total
            if gap > best_gap + 1e-12:
                best, best_gap = o, gap
        return best
    probs = np.fromiter((p for _, p in outcomes), dtype=np.float64, count=len(outcomes))
    u = rng.random() * probs.sum()
    k = int(np.searchsorted(np.cumsum(probs), u, side="right"))
    return outcomes[min(k, len(outcomes) - 1)][0]

