"""Square-grid geometry of the skirmish alert ruleset (AL-PD-16 to AL-PD-18).

Squares are ``(x, y)`` integer pairs, ``y`` growing northwards; distance is Chebyshev (a
diagonal step costs 1); line of sight runs centre to centre along Bresenham's line.
"""

from __future__ import annotations

from .params import VECTORS


def chebyshev(first: tuple[int, int], second: tuple[int, int]) -> int:
    return max(abs(first[0] - second[0]), abs(first[1] - second[1]))


def bresenham(start: tuple[int, int], end: tuple[int, int]) -> list[tuple[int, int]]:
    """The squares strictly between ``start`` and ``end`` on Bresenham's line (endpoints
    excluded)."""
    x0, y0 = start
    x1, y1 = end
    dx, dy = abs(x1 - x0), -abs(y1 - y0)
    step_x = 1 if x0 < x1 else -1
    step_y = 1 if y0 < y1 else -1
    err = dx + dy
    out = []
    x, y = x0, y0
    while (x, y) != (x1, y1):
        doubled_error = 2 * err
        if doubled_error >= dy:
            err += dy
            x += step_x
        if doubled_error <= dx:
            err += dx
            y += step_y
        if (x, y) != (x1, y1):
            out.append((x, y))
    return out


def in_front(facing: int, own: tuple[int, int], other: tuple[int, int]) -> bool:
    """AL-PD-18: ``other`` is in the 180-degree front arc of a fighter at ``own`` facing
    ``facing`` (sides included); otherwise it is behind the fighter's back (AL-9)."""
    face_x, face_y = VECTORS[facing]
    return face_x * (other[0] - own[0]) + face_y * (other[1] - own[1]) >= 0


def direction_towards(own: tuple[int, int], other: tuple[int, int]) -> int:
    """The facing (0..7) that points most nearly from ``own`` towards ``other``."""
    dx, dy = other[0] - own[0], other[1] - own[1]
    step_x = (dx > 0) - (dx < 0)
    step_y = (dy > 0) - (dy < 0)
    if abs(dx) > 2 * abs(dy):
        step_y = 0
    elif abs(dy) > 2 * abs(dx):
        step_x = 0
    if (step_x, step_y) == (0, 0):
        return 0
    return VECTORS.index((step_x, step_y))
