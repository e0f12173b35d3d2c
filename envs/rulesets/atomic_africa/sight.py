"""Line of sight of Atomic Africa (AA-G9) and unit-to-unit sight (AA-R3).

A straight line between two points is clear unless it crosses a sight-blocking terrain area
that holds neither end (a unit inside woods sees out and is seen). A unit sees another when any
of its points (its Start Group and, while it acts, its In-transit figure) has a clear line to
any of the other's points.

Every answer is a pure function of the points and the scenario's terrain, so each is memoised
on the game (bounded memos, cleared when they grow past :data:`MEMO_SIZE`): point pairs, which
areas hold a point, unit pairs by their points, and the observer's whole sight matrix by every
unit's points. The matrix fills only the pairs it has not seen: a unit that moves costs one row
or column of new answers, not the whole matrix.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from envs.core.geometry import polygon_contains, segments_intersect

if TYPE_CHECKING:
    from .state import AAState, Unit

__all__ = ["MEMO_SIZE", "blocking_areas_holding", "line_of_sight", "sight_matrix",
           "place_points", "segment_meets_edges", "sees"]

#: entries a memo keeps before it is cleared
MEMO_SIZE = 200_000
#: sight matrices kept per game (the key is every unit's points, so few repeat)
MATRIX_MEMO_SIZE = 4096

Point = tuple[float, float]


def segment_meets_edges(start: Point, end: Point, polygon: list[Point]) -> bool:
    """Whether segment ``start``-``end`` meets an edge of ``polygon`` (closed segments)."""
    previous = polygon[-1]
    for vertex in polygon:
        if segments_intersect(start, end, previous, vertex):
            return True
        previous = vertex
    return False


def blocking_areas_holding(state: AAState, point: Point) -> tuple[bool, ...]:
    """Whether ``point`` lies in (or on the edge of) each sight-blocking area, in
    ``game.blocking`` order (memoised on the game)."""
    game = state.game
    memo = game.inside_cache
    inside = memo.get(point)
    if inside is None:
        inside = tuple(polygon_contains(area, point) for area in game.blocking)
        if len(memo) > MEMO_SIZE:
            memo.clear()
        memo[point] = inside
    return inside


def line_of_sight(state: AAState, start: Point, end: Point) -> bool:
    """AA-G9: whether the straight line ``start``-``end`` (cm) crosses no sight-blocking area,
    an area that holds either end excepted. Memoised on the game."""
    game = state.game
    memo = game.los_cache
    pair = (start, end)
    clear = memo.get(pair)
    if clear is not None:
        return clear
    inside_start = blocking_areas_holding(state, start)
    inside_end = blocking_areas_holding(state, end)
    clear = True
    low_x, high_x = min(start[0], end[0]), max(start[0], end[0])
    low_y, high_y = min(start[1], end[1]), max(start[1], end[1])
    for index, (area, (x0, y0, x1, y1)) in enumerate(zip(game.blocking, game.blocking_boxes)):
        if high_x < x0 or low_x > x1 or high_y < y0 or low_y > y1:
            continue
        # an area holding either end does not block; otherwise the line is blocked when it
        # meets one of the area's edges (it cannot lie inside without holding an end)
        if inside_start[index] or inside_end[index]:
            continue
        if segment_meets_edges(start, end, area):
            clear = False
            break
    if len(memo) > MEMO_SIZE:
        memo.clear()
    memo[pair] = clear
    return clear


#: a unit's points as one tuple: ``(x, y, transit x, transit y)``, the transit pair ``None``
#: when it is not placed
UnitPlace = tuple[float, float, float | None, float | None]


def place_points(place: UnitPlace) -> list[Point]:
    """The Start Group and, when placed, the In-transit figure of a unit at ``place`` (cm)."""
    x, y, transit_x, transit_y = place
    if transit_x is None or transit_y is None:
        return [(x, y)]
    return [(x, y), (transit_x, transit_y)]


def _places_see(state: AAState, viewer: UnitPlace, seen: UnitPlace) -> bool:
    """Whether a point of ``viewer`` has a line of sight to a point of ``seen`` (Start Group
    first, then the In-transit figure, as :func:`place_points` lists them), memoised on the
    game by the two places."""
    memo = state.game.sees_cache
    pair = viewer + seen
    seen_now = memo.get(pair)
    if seen_now is None:
        ends = place_points(seen)
        seen_now = any(line_of_sight(state, start, end) for start in place_points(viewer)
                       for end in ends)
        if len(memo) > MEMO_SIZE:
            memo.clear()
        memo[pair] = seen_now
    return seen_now


def sees(state: AAState, viewer: Unit, seen: Unit) -> bool:
    """AA-R3, AA-G9: whether any of ``viewer``'s points has a line of sight to any of
    ``seen``'s points. Memoised on the game by the two units' points."""
    return _places_see(state, (viewer.x, viewer.y, viewer.tx, viewer.ty),
                       (seen.x, seen.y, seen.tx, seen.ty))


def sight_matrix(state: AAState, side: int, points: tuple) -> np.ndarray:
    """``(slots, slots)`` float32: 1 where own unit i of ``side`` sees enemy unit j (AA-R3,
    AA-G9), 0 elsewhere and for empty slots. ``points``: every slot's place
    ``(x, y, transit x, transit y)`` or ``None``, side 0's slots first (the key of the memo;
    :meth:`.observer.AAObserver.unit_points`). The returned array is shared: do not write
    to it."""
    game = state.game
    memo = game.los_matrix_cache
    memo_key = (side, points)
    matrix = memo.get(memo_key)
    if matrix is None:
        slots = game.max_units_per_side
        matrix = np.zeros((slots, slots), dtype=np.float32)
        own_places = points[side * slots:(side + 1) * slots]
        enemies = [(slot, place) for slot, place in
                   enumerate(points[(1 - side) * slots:(2 - side) * slots]) if place is not None]
        pairs = game.sees_cache
        for own_slot, own in enumerate(own_places):
            if own is None:
                continue
            row = matrix[own_slot]
            for enemy_slot, enemy in enemies:
                seen_now = pairs.get(own + enemy)
                if seen_now is None:
                    seen_now = _places_see(state, own, enemy)
                if seen_now:
                    row[enemy_slot] = 1.0
        if len(memo) >= MATRIX_MEMO_SIZE:
            memo.clear()
        memo[memo_key] = matrix
    return matrix
