"""The fire tables of Atomic Africa (AA-G14): the range threshold of a shot by its length and
the cover of the point the target stands on (the Attack roll and its effects are resolved in
:mod:`.procedures.resolution`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from envs.core.geometry import polygon_contains

if TYPE_CHECKING:
    from .state import AAState

__all__ = ["cover", "range_threshold"]


def range_threshold(state: AAState, length: float) -> int:
    """AA-G14: the range threshold of a shot over ``length`` cm (the band it falls in; the
    last band's threshold beyond the last edge)."""
    game = state.game
    for edge, threshold in zip(game.range_bands_cm, game.range_thresholds):
        if length <= edge:
            return threshold
    return game.range_thresholds[-1]


def cover(state: AAState, x: float, y: float) -> int:
    """AA-G14: the cover of point ``(x, y)`` (cm): the best of the terrain areas holding it,
    ``cover_hard`` or ``cover_soft``; 0 in the open."""
    game = state.game
    best = 0
    for area, kind in game.cover_areas:
        if polygon_contains(area, (x, y)):
            best = max(best, game.cover_hard if kind == "hard" else game.cover_soft)
    return best
