"""Scores, intervals and ratings from game results.

* :func:`game_scores` — one game's result from a seat's returns: win 1, draw 1/2, loss 0 (a pure
  function, unit-tested on draws; see aesthetics.md §4 pitfall 12).
* :func:`wilson_interval` — the Wilson score interval (Wilson 1927) for a score ``s`` over ``n``
  games, with draws counted as half a win (so ``s`` may be fractional). At ``z = 1.96`` it is the
  usual 95% interval; unlike the normal approximation it stays inside ``[0, 1]`` and is sensible
  at ``s = 0`` or ``s = n``.
* :func:`plackett_luce_ratings` — openskill's Plackett–Luce model (Weng & Lin 2011, "A Bayesian
  approximation method for online ranking"), updated once per game in the order given, a draw as
  a tie. ``rating`` is the posterior mean ``mu`` and ``ci95`` is ``mu ± 1.96 sigma``.
* :func:`mean_ci95` and :func:`proportion_ci95` — a sample mean with Student's t 95% interval
  and a proportion with its Wilson 95% interval, as ``(value, low, high)`` (the reaction
  analytics and the research tools).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

import numpy as np

#: two-sided 95% quantile of the normal distribution (intervals are normal approximations)
Z95 = 1.959963984540054


def game_scores(returns_a: float) -> tuple[float, float]:
    """``(a_score, b_score)`` of one two-sided zero-sum game from side ``a``'s return:
    ``(1, 0)`` for a positive return, ``(0, 1)`` for a negative one, ``(0.5, 0.5)`` for 0."""
    if returns_a > 0:
        return 1.0, 0.0
    if returns_a < 0:
        return 0.0, 1.0
    return 0.5, 0.5


def wilson_interval(score: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson score interval of a proportion ``score / n``.

    Args:
        score: wins plus half the draws (``0 <= score <= n``).
        n: number of games (``0`` gives ``(0.0, 1.0)``).
        z: normal quantile (1.96 for 95%).

    Raises:
        ValueError: when ``score`` is outside ``[0, n]`` or ``n < 0``.
    """
    if n < 0 or not 0 <= score <= n:
        raise ValueError(f"wilson_interval: need 0 <= score <= n, got score={score}, n={n}")
    if n == 0:
        return 0.0, 1.0
    p = score / n
    z2 = z * z
    denom = 1 + z2 / n
    centre = (p + z2 / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def plackett_luce_ratings(names: Sequence[str],
                          games: Iterable[tuple[str, str, float]]) -> dict[str, dict]:
    """Plackett–Luce ratings (openskill) of ``names`` from two-player results.

    Args:
        names: every agent (agents without games keep the prior mu=25, sigma=25/3).
        games: ``(a, b, a_score)`` in the order to apply them; ``a_score`` is 1, 0.5 or 0.

    Returns:
        ``{name: {"rating": mu, "sigma": sigma, "ci95": [mu - 1.96 sigma, mu + 1.96 sigma]}}``.

    Raises:
        ValueError: for a game naming an agent not in ``names`` or a score not in {0, 0.5, 1}.
    """
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    ratings = {n: model.rating(name=n) for n in names}
    for a, b, s in games:
        if a not in ratings or b not in ratings:
            raise ValueError(f"plackett_luce_ratings: game between unknown agents {a!r}, {b!r}")
        if s not in (0.0, 0.5, 1.0):
            raise ValueError(f"plackett_luce_ratings: a_score must be 0, 0.5 or 1, got {s}")
        ranks = [0.0, 0.0] if s == 0.5 else ([0.0, 1.0] if s == 1.0 else [1.0, 0.0])
        [[ra], [rb]] = model.rate([[ratings[a]], [ratings[b]]], ranks=ranks)
        ratings[a], ratings[b] = ra, rb
    out = {}
    for n, r in ratings.items():
        out[n] = {"rating": float(r.mu), "sigma": float(r.sigma),
                  "ci95": [float(r.mu - 1.96 * r.sigma), float(r.mu + 1.96 * r.sigma)]}
    return out


def mean_ci95(x: Sequence[float] | np.ndarray) -> tuple[float, float, float]:
    """``(mean, low, high)``: the sample mean with Student's t 95% interval (mean ± t(0.975,
    n − 1) · sd / sqrt(n), sample sd with ``ddof=1``; ``scipy.stats.t``), which a few seeds
    need (3 seeds: t = 4.30, where the normal approximation's 1.96 gave intervals 2.2 times too
    narrow); NaN bounds for n < 2 (one value has no interval)."""
    from scipy import stats

    a = np.asarray(x, dtype=float)
    if a.size == 0:
        return (math.nan, math.nan, math.nan)
    m = float(a.mean())
    if a.size < 2:
        return (m, math.nan, math.nan)
    h = float(stats.t.ppf(0.975, a.size - 1)) * float(a.std(ddof=1)) / math.sqrt(a.size)
    return (m, m - h, m + h)


def proportion_ci95(k: float, n: int) -> tuple[float, float, float]:
    """``(p, low, high)`` for ``k`` successes in ``n`` trials (Wilson 95% interval);
    NaNs for ``n == 0``."""
    if n <= 0:
        return (math.nan, math.nan, math.nan)
    p = k / n
    z2 = Z95 * Z95
    den = 1 + z2 / n
    c = (p + z2 / (2 * n)) / den
    h = Z95 * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / den
    return (p, max(0.0, c - h), min(1.0, c + h))
