"""Square-grid geometry of the skirmish alert ruleset (AL-PD-16 to AL-PD-18).

Squares are ``(x, y)`` integer pairs, ``y`` growing northwards; distance is Chebyshev (a
diagonal step costs 1); line of sight runs centre to centre along Bresenham's line.
"""

from __future__ import annotations

from .params import VECTORS


def chebyshev(a: tuple[int, int], b: tuple[int, int]) -> int:
    return max(abs(a[0] - b[0]), abs(a[1] - b[1]))


def bresenham(a: tuple[int, int], b: tuple[int, int]) -> list[tuple[int, int]]:
    """The squares strictly between ``a`` and ``b`` on Bresenham's line (endpoints excluded)."""
    x0, y0 = a
    x1, y1 = b
    dx, dy = abs(x1 - x0), -abs(y1 - y0)
    sx = 1 if x0 < x1 else -1
    sy = 1 if y0 < y1 else -1
    err = dx + dy
    out = []
    x, y = x0, y0
    while (x, y) != (x1, y1):
        e2 = 2 * err
        if e2 >= dy:
            err += dy
            x += sx
        if e2 <= dx:
            err += dx
            y += sy
        if (x, y) != (x1, y1):
            out.append((x, y))
    return out


def in_front(facing: int, own: tuple[int, int], other: tuple[int, int]) -> bool:
    """AL-PD-18: ``other`` is in the 180-degree front arc of a fighter at ``own`` facing
    ``facing`` (sides included); otherwise it is behind the fighter's back (AL-9)."""
    fx, fy = VECTORS[facing]
    return fx * (other[0] - own[0]) + fy * (other[1] - own[1]) >= 0


def direction_towards(own: tuple[int, int], other: tuple[int, int]) -> int:
    """The facing (0..7) that points most nearly from ``own`` towards ``other``."""
    dx, dy = other[0] - own[0], other[1] - own[1]
    sx = (dx > 0) - (dx < 0)
    sy = (dy > 0) - (dy < 0)
    if abs(dx) > 2 * abs(dy):
        sy = 0
    elif abs(dy) > 2 * abs(dx):
        sx = 0
    if (sx, sy) == (0, 0):
        return 0
    return VECTORS.index((sx, sy))
