"""Points, segments and simple polygons: distances, intersection and containment (the
terrain side of line of sight and table areas). Points are plain ``(x, y)`` tuples of floats,
lengths in inches."""

from __future__ import annotations

from typing import Sequence

from ..errors import ParameterError
from .rect import EPS, Vec, _sqrt

__all__ = ["point_segment_distance", "segments_intersect", "segment_distance",
           "polygon_contains", "segment_crosses_polygon"]


# -- points and segments ---------------------------------------------------------------------
def point_segment_distance(p: Vec, a: Vec, b: Vec) -> float:
    """Euclidean distance (inches) from point ``p`` to the closed segment ``a``-``b``.

    A degenerate segment (``a == b``) is treated as a point.
    """
    ax, ay = a
    vx = b[0] - ax
    vy = b[1] - ay
    wx = p[0] - ax
    wy = p[1] - ay
    vv = vx * vx + vy * vy
    if vv > 0.0:
        t = (wx * vx + wy * vy) / vv
        if t > 0.0:
            if t >= 1.0:
                wx = p[0] - b[0]
                wy = p[1] - b[1]
            else:
                wx -= t * vx
                wy -= t * vy
    return _sqrt(wx * wx + wy * wy)


def segments_intersect(a1: Vec, a2: Vec, b1: Vec, b2: Vec) -> bool:
    """Whether closed segments ``a1``-``a2`` and ``b1``-``b2`` share at least one point
    (touching endpoints and collinear overlaps count)."""
    ax, ay = a1
    bx, by = a2
    cx, cy = b1
    dx, dy = b2
    # quick reject on bounding boxes (min/max written out: the same comparisons, no calls)
    if ax < bx:
        x1lo, x1hi = ax, bx
    else:
        x1lo, x1hi = bx, ax
    if cx < dx:
        x2lo, x2hi = cx, dx
    else:
        x2lo, x2hi = dx, cx
    if x1hi < x2lo or x2hi < x1lo:
        return False
    if ay < by:
        y1lo, y1hi = ay, by
    else:
        y1lo, y1hi = by, ay
    if cy < dy:
        y2lo, y2hi = cy, dy
    else:
        y2lo, y2hi = dy, cy
    if y1hi < y2lo or y2hi < y1lo:
        return False
    # orientations (p, q, r) -> (qx - px) * (ry - py) - (qy - py) * (rx - px), inlined
    ex = dx - cx
    ey = dy - cy
    d1 = ex * (ay - cy) - ey * (ax - cx)
    d2 = ex * (by - cy) - ey * (bx - cx)
    ex = bx - ax
    ey = by - ay
    d3 = ex * (cy - ay) - ey * (cx - ax)
    d4 = ex * (dy - ay) - ey * (dx - ax)
    if ((d1 > 0.0 and d2 < 0.0) or (d1 < 0.0 and d2 > 0.0)) and \
            ((d3 > 0.0 and d4 < 0.0) or (d3 < 0.0 and d4 > 0.0)):
        return True
    # touching or collinear cases: an endpoint on the other segment (bounding boxes overlap)
    if d1 == 0.0 and x2lo <= ax <= x2hi and y2lo <= ay <= y2hi:
        return True
    if d2 == 0.0 and x2lo <= bx <= x2hi and y2lo <= by <= y2hi:
        return True
    if d3 == 0.0 and x1lo <= cx <= x1hi and y1lo <= cy <= y1hi:
        return True
    if d4 == 0.0 and x1lo <= dx <= x1hi and y1lo <= dy <= y1hi:
        return True
    return False


def segment_distance(a1: Vec, a2: Vec, b1: Vec, b2: Vec) -> float:
    """Closest distance (inches) between closed segments ``a1``-``a2`` and ``b1``-``b2``;
    ``0.0`` if they intersect."""
    if segments_intersect(a1, a2, b1, b2):
        return 0.0
    return min(point_segment_distance(a1, b1, b2), point_segment_distance(a2, b1, b2),
               point_segment_distance(b1, a1, a2), point_segment_distance(b2, a1, a2))


def _check_poly(poly: Sequence[Vec], where: str) -> None:
    if len(poly) < 3:
        raise ParameterError(f"{where}: a polygon needs at least 3 vertices, got {len(poly)}")


def polygon_contains(poly: Sequence[Vec], p: Vec) -> bool:
    """Whether point ``p`` lies inside or on the boundary of simple polygon ``poly``.

    Args:
        poly: sequence of >= 3 ``(x, y)`` vertices in order (either winding, convex or not;
            the closing edge from the last vertex back to the first is implied).
        p: the point.

    Uses ray casting (even-odd rule); points within :data:`EPS` of an edge count as inside.

    Raises:
        ParameterError: if ``poly`` has fewer than 3 vertices.
    """
    _check_poly(poly, "polygon_contains")
    px, py = p
    inside = False
    n = len(poly)
    jx, jy = poly[n - 1]
    for i in range(n):
        ix, iy = poly[i]
        # point_segment_distance(p, (jx, jy), (ix, iy)) <= EPS, inlined (same float operations)
        vx = ix - jx
        vy = iy - jy
        wx = px - jx
        wy = py - jy
        vv = vx * vx + vy * vy
        if vv > 0.0:
            t = (wx * vx + wy * vy) / vv
            if t > 0.0:
                if t >= 1.0:
                    wx = px - ix
                    wy = py - iy
                else:
                    wx -= t * vx
                    wy -= t * vy
        if _sqrt(wx * wx + wy * wy) <= EPS:
            return True
        if (iy > py) != (jy > py):
            xcross = ix + (py - iy) * (jx - ix) / (jy - iy)
            if px < xcross:
                inside = not inside
        jx, jy = ix, iy
    return inside


def segment_crosses_polygon(a: Vec, b: Vec, poly: Sequence[Vec]) -> bool:
    """Whether the closed segment ``a``-``b`` meets the closed polygon ``poly`` (crosses an
    edge, touches it, or lies inside it). Used for LOS through woods or over crests (ACW-PD-17).

    Raises:
        ParameterError: if ``poly`` has fewer than 3 vertices.
    """
    _check_poly(poly, "segment_crosses_polygon")
    n = len(poly)
    prev = poly[n - 1]
    for i in range(n):
        cur = poly[i]
        if segments_intersect(a, b, prev, cur):
            return True
        prev = cur
    return polygon_contains(poly, a)
