"""Movement of Atomic Africa (AA-G8): where an In-transit figure may go and the point it
reaches. A move is 1 to :data:`.actions.MAX_INCREMENTS` increments in one of the six egocentric
directions of :data:`.actions.DIRECTIONS` (side 1's forward is toward low ``y``), or a hold; the
offsets in cm are precomputed by the game (``game.move_offsets``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .actions import MAX_INCREMENTS

if TYPE_CHECKING:
    from .state import AAState, Unit

__all__ = ["destination", "placements"]

#: placement lists kept per game before the memo is cleared
MEMO_SIZE = 100_000


def destination(state: AAState, unit: Unit, direction: int, count: int) -> tuple[float, float]:
    """AA-G8: the point (cm) ``count`` increments from ``unit``'s Start Group in ``direction``
    (an index of :data:`.actions.DIRECTIONS`, in the side's own frame)."""
    offsets = state.game.move_offsets[unit.side, unit.vehicle]
    step_x, step_y = offsets[direction * MAX_INCREMENTS + count - 1][1:]
    return unit.x + step_x, unit.y + step_y


def placements(state: AAState, unit: Unit) -> list[int]:
    """AA-G8: the action ids of ``move:hold`` and of every ``move:<dir>:<n>`` whose In-transit
    figure stays on the table, sorted (memoised on the game by side, unit type and
    position)."""
    game = state.game
    memo_key = (unit.side, unit.vehicle, unit.x, unit.y)
    legal = game.placements_cache.get(memo_key)
    if legal is None:
        width, depth, x, y = game.width, game.depth, unit.x, unit.y
        legal = [game.ids.hold] + [
            action for action, step_x, step_y in game.move_offsets[unit.side, unit.vehicle]
            if 0.0 <= x + step_x <= width and 0.0 <= y + step_y <= depth]
        if len(game.placements_cache) > MEMO_SIZE:
            game.placements_cache.clear()
        game.placements_cache[memo_key] = legal
    return list(legal)
