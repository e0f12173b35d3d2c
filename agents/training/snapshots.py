"""The snapshot duty of the training callback
(:class:`~agents.training.callbacks.SelfPlayCallback`): the learner's policy joins the opponent pool
as a frozen snapshot every ``snapshot_freq`` timesteps; every finished training episode is recorded
in the pool when it keeps results (a :class:`~agents.training.league.pfsp.League`: the PFSP win
rates) and tallied per opponent for TensorBoard's ``selfplay/`` win rates.
"""

from __future__ import annotations

from typing import Any

import numpy as np


class SnapshotDuty:
    """Snapshots and self-play results, a part of
    :class:`~agents.training.callbacks.SelfPlayCallback` (which holds ``pool`` and the
    per-opponent tallies ``_scores``; ``model``, ``locals`` and ``logger`` are SB3's)."""

    pool: Any
    _scores: dict[str, list[float]]

    def _record_episodes(self) -> None:
        """Record every episode that ended this step in the pool (when it keeps results) and
        tally it (:meth:`_tally_episodes`)."""
        record = getattr(self.pool, "record_episode", None)
        if record is not None:
            for done, info in zip(self.locals.get("dones", ()), self.locals.get("infos", ())):
                if done:
                    record(info)
        self._tally_episodes()

    def _tally_episodes(self) -> None:
        """Score (win 1, draw or cap 0.5, loss 0) of every episode that ended this step, kept
        per opponent (``info["opponent"]``; all snapshots count as ``snapshot``)."""
        for done, info in zip(self.locals.get("dones", ()), self.locals.get("infos", ())):
            if not done or "opponent" not in info:
                continue
            winner = info.get("winner") if "returns" in info else None
            score = 0.5 if winner is None else float(winner == info.get("side"))
            key = str(info["opponent"]).split(":")[0]
            self._scores.setdefault(key, []).append(score)

    def _take_snapshot(self, steps: int) -> None:
        """Add the current policy to the pool as the snapshot of ``steps`` timesteps."""
        self.pool.add_snapshot(self.model, steps)
        self.logger.record("selfplay/snapshots", len(self.pool.snapshots))

    def _log_win_rates(self) -> None:
        """TensorBoard ``selfplay/win_rate_vs_<opponent>`` (draws count half) over the
        episodes that ended in this rollout, and ``selfplay/episodes_vs_<opponent>``."""
        for key, scores in sorted(self._scores.items()):
            self.logger.record(f"selfplay/win_rate_vs_{key}", float(np.mean(scores)))
            self.logger.record(f"selfplay/episodes_vs_{key}", len(scores))
        self._scores = {}
