"""One search at a decision: :class:`GumbelSearch` and what it returns, :class:`SearchResult`.

A simulation starts from a sample of the world (:mod:`.determinize`), takes a root action
chosen by sequential halving, then descends: at chance nodes it draws an outcome by its
probability (:func:`.tree.select_outcome`; ``chance="expand"`` spreads the visits of a small
chance node in proportion instead, ``chance="open"`` lets the outcomes after which the same
side decides share one subtree: open-loop search); forced decisions are applied on
the way (:func:`.tree.advance_forced`); at decision nodes it selects by Gumbel's deterministic
rule or PUCT (:mod:`.gumbel`), until it reaches a terminal node (its ``returns()``) or a
decision node not evaluated yet. Every simulation of one round of sequential halving goes down
another root action, so the round's new nodes are evaluated together in one batched forward
pass; then each simulation's value vector is added to every node on its path. With
``config.rollout`` ``N > 0`` a new node keeps the network's prior at its own state, but its
value is read after ``N`` more decisions played by the network's arg-max on a copy
(:func:`rollout_values`; the copies advance together, one batched pass per decision).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from envs.core.errors import InvalidStateError
from envs.core.protocol import CHANCE, TERMINAL, State

from .config import SearchConfig
from .determinize import sample_world
from .evaluator import Evaluator
from .gumbel import (completed_q, halving_rounds, improved_policy, select_gumbel, select_puct,
                     sigma, softmax)
from .tree import Node, advance_forced, advance_to_choice, new_node, select_outcome

__all__ = ["GumbelSearch", "SearchResult", "rollout_values"]

#: with ``chance="open"`` the child of a chance node is keyed ``OPEN_LOOP - side to move next``
#: (below every outcome id), so outcomes after which the same side decides share one subtree
OPEN_LOOP = -100


@dataclass
class SearchResult:
    """What one search found at a decision of ``player``.

    Attributes:
        action: the action the search chose (legal).
        player: the searching side.
        legal_actions: the legal action ids, sorted.
        improved_policy: float32 ``(num_distinct_actions,)``, ``softmax(logits + sigma(completed
            Q))`` over the legal actions, zero elsewhere (the training target of Gumbel
            search).
        prior: float32 ``(num_distinct_actions,)``, the network's masked softmax.
        q_values: ``{action: completed Q}`` for each legal action, from ``player``'s view in
            [-1, 1] (unvisited actions hold the mixed value estimate).
        visit_counts: int64 ``(num_distinct_actions,)``, simulations through each root action.
        root_value: the mean value of the simulations from ``player``'s view (the network's
            value with no simulation; NaN when not searched).
        simulations: simulations run.
        searched: False when the decision had one legal action (then no network call is made:
            ``q_values`` is empty, ``prior`` and ``improved_policy`` are one-hot).
        seconds: wall time of the search.
    """

    action: int
    player: int
    legal_actions: list[int]
    improved_policy: np.ndarray
    prior: np.ndarray
    q_values: dict[int, float]
    visit_counts: np.ndarray
    root_value: float
    simulations: int
    searched: bool
    seconds: float = 0.0
    considered: list[int] = field(default_factory=list)


@dataclass(slots=True)
class _Pending:
    """One simulation of a wave: its path, the state it stopped at and the node to evaluate
    (``None``: its value is known)."""

    path: list[Node]
    state: Any
    expand: Node | None
    value: np.ndarray | None


class GumbelSearch:
    """Gumbel search over the decision-point protocol with an :class:`Evaluator`.

    Args:
        game: the game searched.
        evaluator: prior and leaf values.
        config: the settings.

    Attributes:
        seconds_per_simulation: running estimate used by the ``milliseconds`` budget.
    """

    def __init__(self, game: Any, evaluator: Evaluator, config: SearchConfig):
        self.game = game
        self.evaluator = evaluator
        self.config = config
        self.seconds_per_simulation: float | None = None

    def budget(self) -> int:
        """Simulations for the next search: ``config.simulations``, or with a time budget the
        simulations that fit in it at the running estimate (at least 1)."""
        cfg = self.config
        if cfg.milliseconds is None:
            return cfg.simulations
        est = self.seconds_per_simulation
        if est is None:
            return 4
        return max(1, int(cfg.milliseconds / 1000.0 / est))

    def run(self, state: State, rng: np.random.Generator, always: bool = False) -> SearchResult:
        """Search the decision at ``state`` (not modified) for its side to move; with
        ``always`` also where ``config.confident`` would play the prior unsearched.

        Raises:
            InvalidStateError: at a chance node or a terminal state (nothing to decide).
        """
        t0 = time.perf_counter()
        p = state.current_player()
        if p == CHANCE or p == TERMINAL:
            raise InvalidStateError(f"search at a {state.decision_name()} node: only "
                                    f"decisions are searched")
        A = self.game.num_distinct_actions
        legal = list(state.legal_actions())
        if len(legal) == 1:
            one = np.zeros(A, dtype=np.float32)
            one[legal[0]] = 1.0
            return SearchResult(legal[0], p, legal, one, one.copy(), {},
                                np.zeros(A, dtype=np.int64), math.nan, 0, False,
                                time.perf_counter() - t0, [legal[0]])
        cfg = self.config
        root = new_node(state)
        logits, values = self.evaluator.evaluate([sample_world(state, p, rng)])
        root.logits, root.value = logits[0], values[0]
        lg = root.logits[legal].astype(np.float64)
        prior = softmax(lg)
        sims = self.budget()
        if not always and prior.max() > cfg.confident:
            sims = 0  # the network is sure: its arg-max, unsearched
        noise = (cfg.gumbel_scale * rng.gumbel(size=len(legal)) if cfg.gumbel_scale > 0
                 else np.zeros(len(legal)))
        m = min(cfg.max_considered, len(legal))
        considered = [int(i) for i in np.argsort(-(noise + lg), kind="stable")[:m]]
        remaining = list(considered)
        used = 0
        if sims > 0:
            plan = halving_rounds(m, sims)
            for r, per in enumerate(plan):
                for _ in range(per):
                    if used >= sims:
                        break
                    batch = remaining[:sims - used]
                    self._wave(state, root, p, [legal[i] for i in batch], rng)
                    used += len(batch)
                if r < len(plan) - 1:
                    score = noise + lg + self._root_sigma(root, legal, lg, p)
                    keep = max(1, math.ceil(len(remaining) / 2))
                    remaining = sorted(remaining, key=lambda i: -score[i])[:keep]
            while used < sims:
                batch = remaining[:sims - used]
                self._wave(state, root, p, [legal[i] for i in batch], rng)
                used += len(batch)
        visits, q = root.child_stats(legal, p)
        cq = completed_q(prior, visits, q, float(root.value[p]))
        if sims > 0:
            score = noise + lg + sigma(cq, visits, cfg)
            choice = max(remaining, key=lambda i: (score[i], -i))
        else:
            choice = int(np.argmax(lg))
        pi = improved_policy(lg, cq, visits, cfg)
        seconds = time.perf_counter() - t0
        if used:
            per_sim = seconds / used
            self.seconds_per_simulation = (per_sim if self.seconds_per_simulation is None
                                           else 0.7 * self.seconds_per_simulation
                                           + 0.3 * per_sim)
        out_pi = np.zeros(A, dtype=np.float32)
        out_pi[legal] = pi
        out_prior = np.zeros(A, dtype=np.float32)
        out_prior[legal] = prior
        counts = np.zeros(A, dtype=np.int64)
        counts[legal] = visits
        root_value = root.q(p) if root.visits else float(root.value[p])
        return SearchResult(legal[choice], p, legal, out_pi, out_prior,
                            {a: float(v) for a, v in zip(legal, cq)}, counts, root_value,
                            used, True, seconds, [legal[i] for i in considered])

    def _root_sigma(self, root: Node, legal: list[int], lg: np.ndarray, p: int) -> np.ndarray:
        visits, q = root.child_stats(legal, p)
        cq = completed_q(softmax(lg), visits, q, float(root.value[p]))
        return sigma(cq, visits, self.config)

    # -- simulations ------------------------------------------------------------------------
    def _wave(self, state: State, root: Node, p: int, actions: list[int],
              rng: np.random.Generator) -> None:
        """One simulation down each of ``actions`` (distinct root actions), their new nodes
        evaluated in one batch, then the backups."""
        pending = [self._descend(sample_world(state, p, rng), root, a, rng) for a in actions]
        todo = [s for s in pending if s.value is None]
        if todo:
            logits, values = self.evaluator.evaluate([s.state for s in todo])
            if self.config.rollout:
                values = rollout_values(self.evaluator, [s.state for s in todo], logits,
                                        self.config.rollout, rng)
            for s, lo, v in zip(todo, logits, values):
                if s.expand is not None:
                    s.expand.logits, s.expand.value = lo, v
                s.value = v
        for s in pending:
            for node in s.path:
                node.visits += 1
                node.value_sum += s.value

    def _descend(self, world: Any, root: Node, action: int,
                 rng: np.random.Generator) -> _Pending:
        cfg = self.config
        expand = cfg.chance == "expand"
        shared = cfg.chance == "open"
        path = [root]
        node, key, apply = root, action, action
        while True:
            world.apply_action_unchecked(apply)
            advance_forced(world)
            if shared and node.player == CHANCE:  # one child per side to move next
                key = OPEN_LOOP - world.current_player()
            child = node.children.get(key)
            if child is None:
                child = node.children[key] = new_node(world)
            node = child
            path.append(node)
            player = world.current_player()
            if node.player != player:  # another sample reached this node at another kind of
                # node (hidden information): evaluate this state, expand nothing
                while world.current_player() == CHANCE:
                    world.apply_action_unchecked(select_outcome(node, world, rng, False, 0))
                    advance_forced(world)
                if world.current_player() == TERMINAL:
                    return _Pending(path, world, None, np.asarray(world.returns(), float))
                return _Pending(path, world, None, None)
            if player == TERMINAL:
                return _Pending(path, world, None, node.value)
            if player == CHANCE:
                key = apply = select_outcome(node, world, rng, expand, cfg.expand_max_outcomes)
                continue
            if not node.expanded:
                return _Pending(path, world, node, None)
            legal = world.legal_actions()
            lg = node.logits[legal].astype(np.float64)
            visits, q = node.child_stats(legal, player)
            prior = softmax(lg)
            cq = completed_q(prior, visits, q, float(node.value[player]))
            i = (select_gumbel(lg, cq, visits, cfg) if cfg.below_root == "gumbel"
                 else select_puct(prior, cq, visits, cfg))
            key = apply = legal[i]


def rollout_values(evaluator: Evaluator, states: list[Any], logits: np.ndarray,
                   decisions: int, rng: np.random.Generator) -> np.ndarray:
    """Leaf values read ``decisions`` decisions later: each state (not modified) is copied and
    played on by the arg-max of the evaluator's prior, chance outcomes drawn by their
    probabilities with ``rng`` and forced decisions applied, then valued by the evaluator (or
    by ``returns()`` if the game ends first). The copies advance together: one batched
    forward pass per decision, of the movers' policy head only (:meth:`Evaluator.policy_logits`)
    until the last, which reads every side's value (:meth:`Evaluator.evaluate`).

    Args:
        evaluator: prior and values.
        states: ``B`` decision states (samples the search owns).
        logits: float32 ``(B, num_distinct_actions)``, the evaluator's logits at ``states``.
        decisions: arg-max decisions to play before reading the value (>= 1).
        rng: draws the chance outcomes.

    Returns:
        float64 ``(B, num_players)``: each side's value in [-1, 1].
    """
    worlds = [st.clone() for st in states]
    out = np.zeros((len(worlds), worlds[0].game.num_players)) if worlds else np.zeros((0, 0))
    active, lg = list(range(len(worlds))), logits
    for step in range(decisions):
        moving = []
        for j, i in enumerate(active):
            w = worlds[i]
            legal = w.legal_actions()
            w.apply_action_unchecked(int(legal[int(np.argmax(lg[j][legal]))]))
            if advance_to_choice(w, rng) == TERMINAL:
                out[i] = w.returns()
            else:
                moving.append(i)
        active = moving
        if not active:
            break
        if step + 1 < decisions:  # only the mover's logits until the last decision
            lg = evaluator.policy_logits([worlds[i] for i in active])
        else:
            out[active] = evaluator.evaluate([worlds[i] for i in active])[1]
    return out
