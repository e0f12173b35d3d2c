"""Relations between footprints: contact, overlap, closest-point distances, and the distance
from a footprint to a polygon. Lengths in inches; boundary tolerance :data:`~.rect.EPS`."""

from __future__ import annotations

import math
from typing import Sequence

from ..errors import ParameterError
from .rect import _BIG, EPS, Footprint, Vec, _cos, _FootprintFields, _sin, _sqrt
from .segments import _check_poly, point_segment_distance, polygon_contains, segments_intersect

__all__ = ["overlaps", "interiors_overlap", "distance_exceeds", "footprint_distance",
           "distance_to_front_edge", "footprint_polygon_distance"]


# -- footprints (I-25, ACW-PD-16) --------------------------------------------------------------
def _rect_point_dist(fp: Footprint, px: float, py: float) -> float:
    """Distance from table point to the filled rectangle of ``fp`` (0 inside)."""
    dx = px - fp.x
    dy = py - fp.y
    h = fp.heading
    c = _cos(h)
    s = _sin(h)
    lx = abs(dx * s - dy * c) - 0.5 * fp.width
    ly = dx * c + dy * s
    if ly > 0.0:
        ey = ly
    else:
        ey = -fp.depth - ly
        if ey < 0.0:
            ey = 0.0
    if lx < 0.0:
        return ey
    if ey == 0.0:
        return lx
    return _sqrt(lx * lx + ey * ey)


def _separated_on_axes_of(fp: Footprint, pts: Sequence[Vec]) -> bool:
    """SAT half-test: are all ``pts`` strictly beyond one side of ``fp`` (by more than EPS)?"""
    h = fp.heading
    c = _cos(h)
    s = _sin(h)
    x0 = fp.x
    y0 = fp.y
    minx = miny = math.inf
    maxx = maxy = -math.inf
    for px, py in pts:
        dx = px - x0
        dy = py - y0
        lx = dx * s - dy * c
        ly = dx * c + dy * s
        if lx < minx:
            minx = lx
        if lx > maxx:
            maxx = lx
        if ly < miny:
            miny = ly
        if ly > maxy:
            maxy = ly
    hw = 0.5 * fp.width + EPS
    return maxx < -hw or minx > hw or miny > EPS or maxy < -fp.depth - EPS


def overlaps(a: Footprint, b: Footprint) -> bool:
    """Whether two footprints share any point: interiors or edges intersect, so touching
    (base contact, within :data:`EPS`) counts (separating-axis test on the 4 edge normals).
    """
    # Inlined and unrolled (hot path): each footprint's cos/sin once, corners exactly as
    # Footprint.corners, projections exactly as the SAT half-test (same float operations).
    ha = a.heading
    ca = _cos(ha)
    sa = _sin(ha)
    hb = b.heading
    cb = _cos(hb)
    sb = _sin(hb)
    ax = a.x
    ay = a.y
    bx = b.x
    by = b.y
    da = a.depth
    db = b.depth
    # Exact shortcut: a rectangle lies in the circle about its centre of radius
    # hypot(W, D) / 2 <= (W + D) / 2. Centres further apart than the two radii + 1e-6" put the
    # rectangles more than 1e-6" apart, and for two rectangles the best of the four edge
    # normals then separates them by at least that distance / sqrt(2) (>> EPS + rounding),
    # so the full test below would also answer False.
    rr = 0.5 * (a.width + da + b.width + db) + 1e-6
    hda = 0.5 * da
    hdb = 0.5 * db
    ex = (ax - hda * ca) - (bx - hdb * cb)
    if ex > rr or ex < -rr:
        return False
    ey = (ay - hda * sa) - (by - hdb * sb)
    if ey > rr or ey < -rr or ex * ex + ey * ey > rr * rr:
        return False
    # a's corners (front_left, front_right, rear_right, rear_left) in b's frame
    hw = 0.5 * a.width
    rx = hw * sa
    ry = -hw * ca
    qx = -da * ca
    qy = -da * sa
    x0 = ax - rx
    y0 = ay - ry
    x1 = ax + rx
    y1 = ay + ry
    d0x = x0 - bx
    d0y = y0 - by
    d1x = x1 - bx
    d1y = y1 - by
    d2x = x1 + qx - bx
    d2y = y1 + qy - by
    d3x = x0 + qx - bx
    d3y = y0 + qy - by
    h = 0.5 * b.width + EPS
    l0 = d0x * sb - d0y * cb
    l1 = d1x * sb - d1y * cb
    l2 = d2x * sb - d2y * cb
    l3 = d3x * sb - d3y * cb
    if (l0 < -h and l1 < -h and l2 < -h and l3 < -h) or (l0 > h and l1 > h and l2 > h and l3 > h):
        return False
    l0 = d0x * cb + d0y * sb
    l1 = d1x * cb + d1y * sb
    l2 = d2x * cb + d2y * sb
    l3 = d3x * cb + d3y * sb
    lo = -db - EPS
    if (l0 > EPS and l1 > EPS and l2 > EPS and l3 > EPS) or \
            (l0 < lo and l1 < lo and l2 < lo and l3 < lo):
        return False
    # b's corners in a's frame
    hw = 0.5 * b.width
    rx = hw * sb
    ry = -hw * cb
    qx = -db * cb
    qy = -db * sb
    x0 = bx - rx
    y0 = by - ry
    x1 = bx + rx
    y1 = by + ry
    d0x = x0 - ax
    d0y = y0 - ay
    d1x = x1 - ax
    d1y = y1 - ay
    d2x = x1 + qx - ax
    d2y = y1 + qy - ay
    d3x = x0 + qx - ax
    d3y = y0 + qy - ay
    h = 0.5 * a.width + EPS
    l0 = d0x * sa - d0y * ca
    l1 = d1x * sa - d1y * ca
    l2 = d2x * sa - d2y * ca
    l3 = d3x * sa - d3y * ca
    if (l0 < -h and l1 < -h and l2 < -h and l3 < -h) or (l0 > h and l1 > h and l2 > h and l3 > h):
        return False
    l0 = d0x * ca + d0y * sa
    l1 = d1x * ca + d1y * sa
    l2 = d2x * ca + d2y * sa
    l3 = d3x * ca + d3y * sa
    lo = -da - EPS
    return not ((l0 > EPS and l1 > EPS and l2 > EPS and l3 > EPS) or
                (l0 < lo and l1 < lo and l2 < lo and l3 < lo))


def distance_exceeds(a: Footprint, b: Footprint, limit: float) -> bool:
    """``footprint_distance(a, b) > limit`` (inches), with exact bounding-circle shortcuts:
    the distance lies between the centres' distance less both half-diagonals and the centres'
    distance itself (each centre is inside its footprint), so the exact distance is only
    computed when ``limit`` is within 1e-6" of that interval."""
    ax, ay, ar = a.bounding_circle()
    bx, by, br = b.bounding_circle()
    cd = _sqrt((ax - bx) * (ax - bx) + (ay - by) * (ay - by))
    if cd - ar - br > limit + 1e-6:
        return True
    if cd <= limit - 1e-6:
        return False
    return footprint_distance(a, b) > limit


def interiors_overlap(a: Footprint, b: Footprint, margin: float = 0.01) -> bool:
    """Whether ``a`` overlaps ``b`` by more than base contact: ``a`` shrunk by ``margin``
    inches on every side (same heading and centre) still :func:`overlaps` ``b``. Footprints
    that only touch, edge to edge, give False (ACW-PD-21.8: friends in base contact).

    Raises:
        ParameterError: if ``margin`` is negative or not finite.
    """
    if not (0.0 <= margin < math.inf):
        raise ParameterError(f"interiors_overlap: margin must be finite and >= 0, got "
                             f"{margin!r}")
    # exact shortcut: bounding circles (cached) more than 1e-6" apart put the rectangles more
    # than 1e-6" apart, so some edge normal separates them far beyond EPS and rounding
    ax, ay, ar = a.bounding_circle()
    bx, by, br = b.bounding_circle()
    rr = ar + br + 1e-6
    if (ax - bx) * (ax - bx) + (ay - by) * (ay - by) > rr * rr:
        return False
    h = a.heading
    x = a.x - margin * _cos(h)
    y = a.y - margin * _sin(h)
    w = max(a.width - 2.0 * margin, 1e-6)
    d = max(a.depth - 2.0 * margin, 1e-6)
    if not (-_BIG < x < _BIG and -_BIG < y < _BIG):
        return overlaps(Footprint(x, y, h, w, d), b)  # raises the usual ParameterError
    # built without the validating constructor: the position is finite, the heading and the
    # sizes (finite, >= 1e-6) come from a valid footprint, so it would accept them unchanged
    ins = _FootprintFields()
    ins.x = x
    ins.y = y
    ins.heading = h
    ins.width = w
    ins.depth = d
    ins._circ = None
    ins.__class__ = Footprint  # type: ignore[assignment]  # the layout twin becomes a Footprint
    return overlaps(ins, b)  # type: ignore[arg-type]  # (its class was switched above)


#: Entries the :func:`footprint_distance` memo holds before it is emptied (bounds its memory).
DISTANCE_MEMO_CAP = 1 << 15
_distance_memo: dict[tuple[float, ...], float] = {}


def footprint_distance(a: Footprint, b: Footprint) -> float:
    """Closest-point-to-closest-point distance (inches) between two footprints (I-25,
    ACW-PD-16). ``0.0`` exactly when :func:`overlaps` is True (touching or overlapping).

    Symmetric in ``a`` and ``b``. Memoised by the two footprints' fields (a pure function of
    them; a search measures the same pairs again and again: over 90% repeats).
    """
    key = (a.x, a.y, a.heading, a.width, a.depth, b.x, b.y, b.heading, b.width, b.depth)
    memo = _distance_memo
    d = memo.get(key)
    if d is None:
        d = _footprint_distance(a, b)
        if len(memo) >= DISTANCE_MEMO_CAP:
            memo.clear()
        memo[key] = d
    return d


def _footprint_distance(a: Footprint, b: Footprint) -> float:
    """:func:`footprint_distance` computed (never ``-0.0``: a sum of squares' root, or the
    literal ``0.0``, so equal fields always give the same bits)."""
    # Inlined and unrolled (hot path): the same float operations as the two-pass reference
    # form (each footprint's corners projected into the other's frame: SAT separation beyond
    # EPS, and the least vertex-to-rectangle distance; kept in tests/core/test_geometry.py
    # and checked equal there), with each footprint's cos/sin computed once; the distances
    # are only worked out when separated.
    ha = a.heading
    ca = _cos(ha)
    sa = _sin(ha)
    hb = b.heading
    cb = _cos(hb)
    sb = _sin(hb)
    ax = a.x
    ay = a.y
    bx = b.x
    by = b.y
    nda = -a.depth  # negated depths, used throughout (the same values as -da, -db)
    ndb = -b.depth
    # a's corners (front_left, front_right, rear_right, rear_left) in b's frame
    hw = 0.5 * a.width
    rx = hw * sa
    ry = -hw * ca
    qx = nda * ca
    qy = nda * sa
    x0 = ax - rx
    y0 = ay - ry
    x1 = ax + rx
    y1 = ay + ry
    d0x = x0 - bx
    d0y = y0 - by
    d1x = x1 - bx
    d1y = y1 - by
    d2x = x1 + qx - bx
    d2y = y1 + qy - by
    d3x = x0 + qx - bx
    d3y = y0 + qy - by
    a0 = d0x * sb - d0y * cb
    a1 = d1x * sb - d1y * cb
    a2 = d2x * sb - d2y * cb
    a3 = d3x * sb - d3y * cb
    b0 = d0x * cb + d0y * sb
    b1 = d1x * cb + d1y * sb
    b2 = d2x * cb + d2y * sb
    b3 = d3x * cb + d3y * sb
    hwb = 0.5 * b.width
    # b's corners in a's frame
    rx = hwb * sb
    ry = -hwb * cb
    qx = ndb * cb
    qy = ndb * sb
    x0 = bx - rx
    y0 = by - ry
    x1 = bx + rx
    y1 = by + ry
    d0x = x0 - ax
    d0y = y0 - ay
    d1x = x1 - ax
    d1y = y1 - ay
    d2x = x1 + qx - ax
    d2y = y1 + qy - ay
    d3x = x0 + qx - ax
    d3y = y0 + qy - ay
    c0 = d0x * sa - d0y * ca
    c1 = d1x * sa - d1y * ca
    c2 = d2x * sa - d2y * ca
    c3 = d3x * sa - d3y * ca
    e0 = d0x * ca + d0y * sa
    e1 = d1x * ca + d1y * sa
    e2 = d2x * ca + d2y * sa
    e3 = d3x * ca + d3y * sa
    # separating-axis tests (as in the reference form: all four projections beyond one side)
    lo = -hwb - EPS
    hi = hwb + EPS
    lo2 = ndb - EPS
    if not ((a0 < lo and a1 < lo and a2 < lo and a3 < lo) or
            (a0 > hi and a1 > hi and a2 > hi and a3 > hi) or
            (b0 > EPS and b1 > EPS and b2 > EPS and b3 > EPS) or
            (b0 < lo2 and b1 < lo2 and b2 < lo2 and b3 < lo2)):
        lo = -hw - EPS
        hi = hw + EPS
        lo2 = nda - EPS
        if not ((c0 < lo and c1 < lo and c2 < lo and c3 < lo) or
                (c0 > hi and c1 > hi and c2 > hi and c3 > hi) or
                (e0 > EPS and e1 > EPS and e2 > EPS and e3 > EPS) or
                (e0 < lo2 and e1 < lo2 and e2 < lo2 and e3 < lo2)):
            return 0.0
    # disjoint convex polygons: the closest pair involves a vertex of one of them; squared
    # distance from each vertex to the other's filled rectangle, as in the reference form
    ex = (a0 if a0 > 0.0 else -a0) - hwb
    if b0 > 0.0:
        ey = b0
    else:
        ey = ndb - b0
        if ey < 0.0:
            ey = 0.0
    d2 = ey * ey if ex < 0.0 else ex * ex + ey * ey
    best = d2
    ex = (a1 if a1 > 0.0 else -a1) - hwb
    if b1 > 0.0:
        ey = b1
    else:
        ey = ndb - b1
        if ey < 0.0:
            ey = 0.0
    d2 = ey * ey if ex < 0.0 else ex * ex + ey * ey
    if d2 < best:
        best = d2
    ex = (a2 if a2 > 0.0 else -a2) - hwb
    if b2 > 0.0:
        ey = b2
    else:
        ey = ndb - b2
        if ey < 0.0:
            ey = 0.0
    d2 = ey * ey if ex < 0.0 else ex * ex + ey * ey
    if d2 < best:
        best = d2
    ex = (a3 if a3 > 0.0 else -a3) - hwb
    if b3 > 0.0:
        ey = b3
    else:
        ey = ndb - b3
        if ey < 0.0:
            ey = 0.0
    d2 = ey * ey if ex < 0.0 else ex * ex + ey * ey
    if d2 < best:
        best = d2
    ex = (c0 if c0 > 0.0 else -c0) - hw
    if e0 > 0.0:
        ey = e0
    else:
        ey = nda - e0
        if ey < 0.0:
            ey = 0.0
    d2 = ey * ey if ex < 0.0 else ex * ex + ey * ey
    if d2 < best:
        best = d2
    ex = (c1 if c1 > 0.0 else -c1) - hw
    if e1 > 0.0:
        ey = e1
    else:
        ey = nda - e1
        if ey < 0.0:
            ey = 0.0
    d2 = ey * ey if ex < 0.0 else ex * ex + ey * ey
    if d2 < best:
        best = d2
    ex = (c2 if c2 > 0.0 else -c2) - hw
    if e2 > 0.0:
        ey = e2
    else:
        ey = nda - e2
        if ey < 0.0:
            ey = 0.0
    d2 = ey * ey if ex < 0.0 else ex * ex + ey * ey
    if d2 < best:
        best = d2
    ex = (c3 if c3 > 0.0 else -c3) - hw
    if e3 > 0.0:
        ey = e3
    else:
        ey = nda - e3
        if ey < 0.0:
            ey = 0.0
    d2 = ey * ey if ex < 0.0 else ex * ex + ey * ey
    if d2 < best:
        best = d2
    return _sqrt(best)


def distance_to_front_edge(fp: Footprint, other: Footprint) -> float:
    """Closest distance (inches) from ``other``'s rectangle to ``fp``'s front-edge segment
    (I-25: the Window B2 4.0" mark and the 2.1 trigger use the defender's front edge).

    Always ``>= footprint_distance(fp, other)``; ``0.0`` if ``other`` touches the front edge.
    """
    fl, fr = fp.front_edge()
    # SAT: segment vs rectangle. Axes: other's two edge normals, and the segment normal
    # (= fp's facing; the segment lies on ly = 0 of fp's frame).
    if not _separated_on_axes_of(other, (fl, fr)):
        h = fp.heading
        c = _cos(h)
        s = _sin(h)
        lo = math.inf
        hi = -math.inf
        for px, py in other.corners():
            ly = (px - fp.x) * c + (py - fp.y) * s
            if ly < lo:
                lo = ly
            if ly > hi:
                hi = ly
        if lo <= EPS and hi >= -EPS:
            return 0.0
    best = min(_rect_point_dist(other, fl[0], fl[1]), _rect_point_dist(other, fr[0], fr[1]))
    h = fp.heading
    c = _cos(h)
    s = _sin(h)
    hw = 0.5 * fp.width
    for px, py in other.corners():
        dx = px - fp.x
        dy = py - fp.y
        lx = abs(dx * s - dy * c) - hw
        ly = dx * c + dy * s
        d = _sqrt(lx * lx + ly * ly) if lx > 0.0 else abs(ly)
        if d < best:
            best = d
    return best


def footprint_polygon_distance(fp: Footprint, poly: Sequence[Vec]) -> float:
    """Closest distance (inches) between a footprint and a simple polygon (terrain feature);
    ``0.0`` if they touch or overlap (either may contain the other).

    Raises:
        ParameterError: if ``poly`` has fewer than 3 vertices.
    """
    _check_poly(poly, "footprint_polygon_distance")
    cs = fp.corners()
    n = len(poly)
    # any edge crossing, or one inside the other -> 0
    for i in range(4):
        a1 = cs[i - 1]
        a2 = cs[i]
        prev = poly[n - 1]
        for j in range(n):
            cur = poly[j]
            if segments_intersect(a1, a2, prev, cur):
                return 0.0
            prev = cur
    if polygon_contains(poly, cs[0]):
        return 0.0
    px, py = poly[0]
    if _rect_point_dist(fp, px, py) <= EPS:
        return 0.0
    best = math.inf
    for vx, vy in poly:
        d = _rect_point_dist(fp, vx, vy)
        if d < best:
            best = d
    prev = poly[n - 1]
    for j in range(n):
        cur = poly[j]
        for c in cs:
            d = point_segment_distance(c, prev, cur)
            if d < best:
                best = d
        prev = cur
    return best
