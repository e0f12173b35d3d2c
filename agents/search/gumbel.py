"""The Gumbel search's arithmetic (Danihelka et al., "Policy improvement by planning with
Gumbel", ICLR 2022): completed Q values, the ``sigma`` transform, the improved policy,
sequential halving's schedule at the root and the selection rules below it (Gumbel's
deterministic selection, or AlphaZero's PUCT).

All arrays here are over one node's legal actions, in the order of ``legal``.
"""

from __future__ import annotations

import math

import numpy as np

from .config import SearchConfig

__all__ = ["completed_q", "halving_rounds", "improved_policy", "select_gumbel",
           "select_puct", "sigma", "softmax"]


def softmax(x: np.ndarray) -> np.ndarray:
    """Softmax of a float array (float64)."""
    z = np.asarray(x, dtype=np.float64)
    z = np.exp(z - z.max())
    return z / z.sum()


def completed_q(prior: np.ndarray, visits: np.ndarray, q: np.ndarray,
                value: float) -> np.ndarray:
    """Q of the visited actions; the unvisited ones get the mixed value estimate
    ``(value + sum N * sum_visited(prior * q) / sum_visited(prior)) / (1 + sum N)`` (the
    paper's ``v_mix``).

    Args:
        prior: float64 (L,) prior probabilities; visits: int (L,); q: float64 (L,) mean values
            of the visited actions from the node's side; value: the evaluator's value there.
    """
    seen = visits > 0
    total = int(visits.sum())
    if not seen.any():
        return np.full(len(prior), value)
    p = prior[seen]
    weighted = float((p * q[seen]).sum() / max(p.sum(), 1e-12))
    mix = (value + total * weighted) / (1 + total)
    return np.where(seen, q, mix)


def sigma(cq: np.ndarray, visits: np.ndarray, config: SearchConfig) -> np.ndarray:
    """``(c_visit + max N) * c_scale * q'``: ``q'`` is the completed Q, or with
    ``config.rescale`` the completed Q rescaled to [0, 1] by its minimum and maximum at the node
    (all zeros when they are equal)."""
    scaled = cq
    if config.rescale:
        lo, hi = float(cq.min()), float(cq.max())
        scaled = (cq - lo) / (hi - lo) if hi - lo > 1e-12 else np.zeros_like(cq)
    return (config.c_visit + float(visits.max(initial=0))) * config.c_scale * scaled


def improved_policy(logits: np.ndarray, cq: np.ndarray, visits: np.ndarray,
                    config: SearchConfig) -> np.ndarray:
    """``softmax(logits + sigma(completed Q))`` over the legal actions (float64 (L,))."""
    return softmax(logits + sigma(cq, visits, config))


def select_gumbel(logits: np.ndarray, cq: np.ndarray, visits: np.ndarray,
                  config: SearchConfig) -> int:
    """Index of the action Gumbel's deterministic selection visits next:
    ``argmax(pi'(a) - N(a) / (1 + sum N))`` (visits follow the improved policy ``pi'``)."""
    pi = improved_policy(logits, cq, visits, config)
    return int(np.argmax(pi - visits / (1.0 + visits.sum())))


def select_puct(prior: np.ndarray, cq: np.ndarray, visits: np.ndarray,
                config: SearchConfig) -> int:
    """Index of the action PUCT visits next: ``argmax(Q + c_puct * P * sqrt(sum N) /
    (1 + N))``, unvisited actions valued by the completed Q."""
    total = float(visits.sum())
    u = config.c_puct * prior * math.sqrt(max(total, 1.0)) / (1.0 + visits)
    return int(np.argmax(cq + u))


def halving_rounds(considered: int, simulations: int) -> list[int]:
    """Sequential halving's plan: for each round, the simulations each remaining action gets
    (``max(1, simulations // (rounds * remaining))``), halving the remaining actions (rounded
    up) between rounds, ``rounds = ceil(log2(considered))`` (one round for one action)."""
    rounds = max(1, math.ceil(math.log2(considered))) if considered > 1 else 1
    plan, remaining = [], considered
    for _ in range(rounds):
        plan.append(max(1, simulations // (rounds * remaining)))
        remaining = max(1, math.ceil(remaining / 2))
    return plan
