"""Scoring and the end of an Atomic Africa game (AA-G23): points for each enemy unit destroyed
and for each objective a side holds alone; a side with no unit left loses."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .state import AAState

__all__ = ["final_returns", "game_over", "objective_holder", "objective_holders", "scores"]


def objective_holder(state: AAState, x: float, y: float) -> int | None:
    """AA-G23: the side with a unit within the objective radius of ``(x, y)`` (cm) while the
    other has none there (``None``: nobody, or both)."""
    radius = state.game.objective_radius_cm
    near = [any(math.hypot(unit.x - x, unit.y - y) <= radius
                for unit in state.alive_units(side)) for side in (0, 1)]
    if near[0] and not near[1]:
        return 0
    if near[1] and not near[0]:
        return 1
    return None


def objective_holders(state: AAState) -> list[int | None]:
    """:func:`objective_holder` of every objective of the scenario, in order."""
    return [objective_holder(state, x, y) for (x, y) in state.game.objectives]


def scores(state: AAState, holders: list[int | None] | None = None) -> list[int]:
    """AA-G23: each side's points, ``destroyed_points`` per destroyed enemy unit plus
    ``objective_points`` per objective held (``holders``: the :func:`objective_holders` when
    already known)."""
    game = state.game
    points = [state.destroyed[1] * game.destroyed_points,
              state.destroyed[0] * game.destroyed_points]
    for holder in objective_holders(state) if holders is None else holders:
        if holder is not None:
            points[holder] += game.objective_points
    return points


def game_over(state: AAState) -> bool:
    """AA-G23: a side has no unit left."""
    return not state.has_units(0) or not state.has_units(1)


def final_returns(state: AAState) -> list[float]:
    """AA-G23: the returns of a finished game: +1 / -1 to the side with units left when the
    other has none, else to the higher score; 0 each for equal scores."""
    alive = [state.has_units(0), state.has_units(1)]
    if alive[0] != alive[1]:
        return [1.0, -1.0] if alive[0] else [-1.0, 1.0]
    side0_points, side1_points = scores(state)
    if side0_points == side1_points:
        return [0.0, 0.0]
    return [1.0, -1.0] if side0_points > side1_points else [-1.0, 1.0]
