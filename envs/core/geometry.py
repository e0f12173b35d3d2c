"""Plane geometry for unit footprints: arcs, zones, distances, contact and path crossings.

Coordinates are table coordinates: x to the right, y "up" the table, all lengths in inches
(the module itself is unit agnostic), angles in radians, counter-clockwise positive.

A unit's footprint is an oriented rectangle described in the unit frame of ACW-PD-16: the
origin is the centre of its FRONT edge, local +y is its facing, local +x points to its RIGHT
(facing rotated by -90 degrees). In that frame the rectangle covers ``-W/2 <= lx <= W/2`` and
``-D <= ly <= 0`` where ``W`` is the frontage and ``D`` the depth.

Rule sources: ACW-PD-16 (unit frame, forward arc, flank and rear zones, closest-point
distances), I-9 (the forward arc is bounded by 45-degree rays from the two front corners),
I-25 (distances are closest point to closest point; the charge trigger uses the defender's
front edge), ACW-PD-21 (motion primitives: advance, side-step, wheel about a front corner,
face about the centre), ACW-PD-24 (Window A triggers found by stepping along the mover's path).

Everything is pure Python floats and :mod:`math` (hot path of the rules engine): no numpy,
no shapely. Points are plain ``(x, y)`` tuples of floats.

Boundary tolerance: inequalities that decide arcs, zones and contact accept an error of
:data:`EPS` (1e-9 inches) so that points on a boundary (e.g. on a 45-degree ray, or two
footprints placed flush by a rotation) are not lost to rounding.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Sequence

from .errors import ParameterError

__all__ = [
    "EPS", "Vec", "Footprint", "in_forward_arc", "zone_of", "point_segment_distance",
    "segment_distance", "segments_intersect", "polygon_contains", "footprint_distance",
    "overlaps", "interiors_overlap", "distance_exceeds", "distance_to_front_edge", "footprint_polygon_distance",
    "segment_crosses_polygon", "first_crossing", "angle_diff",
]

Vec = tuple[float, float]

#: Boundary tolerance in inches for arc, zone, contact and intersection tests.
EPS = 1e-9

_TWO_PI = 2.0 * math.pi
_sqrt = math.sqrt
_cos = math.cos
_sin = math.sin
_isfinite = math.isfinite
_INF = math.inf


def angle_diff(a: float, b: float) -> float:
    """Signed smallest difference ``a - b`` between two angles, wrapped into ``(-pi, pi]``.

    Args:
        a, b: angles in radians (any real values).

    Returns:
        float in ``(-pi, pi]``; positive when ``a`` is counter-clockwise of ``b``.
    """
    d = (a - b) % _TWO_PI
    if d > math.pi:
        d -= _TWO_PI
    return d


class _FootprintFields:
    """Plain (not frozen) twin of :class:`Footprint` with the same slots, hence the same memory
    layout. A new footprint is made as one of these, its fields are filled with ordinary
    attribute stores, and its class is then switched to :class:`Footprint` (``__class__``
    assignment is allowed between such layout-identical classes). This is about twice as fast
    as the frozen dataclass's ``object.__setattr__`` per field (hot path: every move, path
    sample and transform makes a footprint). The result is an ordinary Footprint."""

    __slots__ = ("x", "y", "heading", "width", "depth", "_circ")


@dataclass(frozen=True, init=False)
class Footprint:
    """An oriented rectangle: the footprint of a unit on the table (ACW-PD-16).

    Attributes:
        x, y: table coordinates (inches) of the centre of the FRONT edge.
        heading: direction of facing, radians, counter-clockwise from the table's +x axis.
        width: frontage ``W`` in inches, > 0.
        depth: depth ``D`` in inches, > 0.

    Only these five plain fields are stored (so ``dataclasses.asdict`` / ``Footprint(**d)``
    / ``dataclasses.replace`` round-trip; the constructor is a written-out ``__new__``, see
    :class:`_FootprintFields`, that validates like a ``__post_init__`` would); ``cos`` /
    ``sin`` of the heading are recomputed where needed, which is cheaper overall than caching
    them on each of the many short-lived footprints of a path scan.
    All transforms return new footprints.

    Raises:
        ParameterError: on a non-finite coordinate or heading, or a width/depth that is not
            a finite number > 0.
    """

    # five fields plus one private cache slot (``_circ``, see :meth:`bounding_circle`), not a
    # dataclass field, so asdict / equality / hashing see only the five
    __slots__ = ("x", "y", "heading", "width", "depth", "_circ")

    x: float
    y: float
    heading: float
    width: float
    depth: float

    def __reduce__(self):
        return (Footprint, (self.x, self.y, self.heading, self.width, self.depth))

    def __copy__(self) -> Footprint:
        return self  # immutable

    def __deepcopy__(self, memo) -> Footprint:
        return self

    def bounding_circle(self) -> tuple[float, float, float]:
        """``(cx, cy, r)``: the centre (exactly :meth:`centre`) and the half-diagonal
        ``0.5 * hypot(W, D)``, the radius of the circumscribed circle, in inches. Computed once
        per footprint (footprints are immutable) and kept in a private slot."""
        v = self._circ  # None until computed (every constructor sets it)
        if v is not None:
            return v
        hd = 0.5 * self.depth
        h = self.heading
        v = (self.x - hd * _cos(h), self.y - hd * _sin(h), 0.5 * math.hypot(self.width,
                                                                            self.depth))
        _set_circ(self, v)
        return v

    def __new__(cls, x: float, y: float, heading: float, width: float,
                depth: float) -> Footprint:
        if not (width > 0.0 and depth > 0.0 and width < _INF and depth < _INF):
            raise ParameterError(
                f"Footprint width and depth must be finite and > 0 (ACW-PD-16); "
                f"got width={width!r}, depth={depth!r}")
        if not (_isfinite(x) and _isfinite(y) and _isfinite(heading)):
            raise ParameterError(
                f"Footprint position and heading must be finite; got x={x!r}, "
                f"y={y!r}, heading={heading!r}")
        # fast field stores through the plain twin class (see _FootprintFields); no __init__
        # (object.__init__ accepts the arguments as __new__ is overridden)
        o = _FootprintFields()
        o.x = x
        o.y = y
        o.heading = heading
        o.width = width
        o.depth = depth
        o._circ = None
        o.__class__ = cls
        return o  # type: ignore[return-value]

    # -- frame -------------------------------------------------------------------------------
    def forward(self) -> Vec:
        """Unit facing vector ``(cos h, sin h)`` (local +y of ACW-PD-16)."""
        h = self.heading
        return (_cos(h), _sin(h))

    def right(self) -> Vec:
        """Unit vector to the unit's right ``(sin h, -cos h)`` (local +x of ACW-PD-16)."""
        h = self.heading
        return (_sin(h), -_cos(h))

    def corners(self) -> tuple[Vec, Vec, Vec, Vec]:
        """The four corners in table coordinates (inches).

        Returns:
            ``(front_left, front_right, rear_right, rear_left)``, each an ``(x, y)`` tuple.
        """
        h = self.heading
        c = _cos(h)
        s = _sin(h)
        hw = 0.5 * self.width
        rx = hw * s      # half-width along right
        ry = -hw * c
        bx = -self.depth * c  # full depth backwards
        by = -self.depth * s
        x = self.x
        y = self.y
        lx = x - rx
        ly = y - ry
        rx += x  # the front corners, reused for the rear ones (x + rx + bx == (x + rx) + bx)
        ry += y
        return ((lx, ly), (rx, ry), (rx + bx, ry + by), (lx + bx, ly + by))

    def centre(self) -> Vec:
        """Centre of the rectangle in table coordinates (half the depth behind the front)."""
        hd = 0.5 * self.depth
        h = self.heading
        return (self.x - hd * _cos(h), self.y - hd * _sin(h))

    def front_edge(self) -> tuple[Vec, Vec]:
        """The front edge as ``(front_left, front_right)`` in table coordinates."""
        hw = 0.5 * self.width
        h = self.heading
        rx = hw * _sin(h)
        ry = -hw * _cos(h)
        return ((self.x - rx, self.y - ry), (self.x + rx, self.y + ry))

    def to_local(self, p: Vec) -> Vec:
        """Table point ``p`` expressed in the ACW-PD-16 frame: ``(lx, ly)``, inches."""
        dx = p[0] - self.x
        dy = p[1] - self.y
        h = self.heading
        c = _cos(h)
        s = _sin(h)
        return (dx * s - dy * c, dx * c + dy * s)

    def to_table(self, lp: Vec) -> Vec:
        """Local ACW-PD-16 point ``lp = (lx, ly)`` expressed in table coordinates."""
        lx, ly = lp
        h = self.heading
        c = _cos(h)
        s = _sin(h)
        return (self.x + lx * s + ly * c, self.y - lx * c + ly * s)

    # -- motion (ACW-PD-21) -----------------------------------------------------------------
    def advanced(self, dist: float) -> Footprint:
        """Moved ``dist`` inches along its facing (negative = retire backwards), ACW-PD-21.1.

        Raises:
            ParameterError: if the new position is not finite.
        """
        h = self.heading
        x = self.x + dist * _cos(h)
        y = self.y + dist * _sin(h)
        # _moved inlined (hot path)
        if not (-_BIG < x < _BIG and -_BIG < y < _BIG):
            raise ParameterError(f"Footprint move gives a non-finite position ({x!r}, {y!r})")
        o = _FootprintFields()
        o.x = x
        o.y = y
        o.heading = h
        o.width = self.width
        o.depth = self.depth
        o._circ = None
        o.__class__ = Footprint
        return o

    def shifted(self, dx: float, dy: float) -> Footprint:
        """Translated by ``(dx, dy)`` inches in table coordinates; facing unchanged.

        Raises:
            ParameterError: if the new position is not finite.
        """
        return _moved(self, self.x + dx, self.y + dy)

    def sidestepped(self, dist: float) -> Footprint:
        """Moved ``dist`` inches to its right (negative = to its left), ACW-PD-21.1.

        Raises:
            ParameterError: if the new position is not finite.
        """
        h = self.heading
        return _moved(self, self.x + dist * _sin(h), self.y - dist * _cos(h))

    def rotated_about(self, p: Vec, angle: float) -> Footprint:
        """Rotated rigidly by ``angle`` radians (counter-clockwise positive) about table point
        ``p``. The heading is wrapped into ``(-pi, pi]``."""
        ca = _cos(angle)
        sa = _sin(angle)
        px, py = p
        dx = self.x - px
        dy = self.y - py
        nx = px + dx * ca - dy * sa
        ny = py + dx * sa + dy * ca
        nh = self.heading + angle
        if not (-_PI < nh <= _PI):  # _wrap inlined (hot path)
            nh = angle_diff(nh, 0.0)
        if not (-_BIG < nx < _BIG and -_BIG < ny < _BIG and -_BIG < nh < _BIG):
            # the validating constructor raises the usual ParameterError
            return Footprint(nx, ny, nh, self.width, self.depth)
        o = _FootprintFields()  # fast path: size copied from a valid footprint
        o.x = nx
        o.y = ny
        o.heading = nh
        o.width = self.width
        o.depth = self.depth
        o._circ = None
        o.__class__ = Footprint
        return o

    def wheeled(self, angle: float, pivot: str) -> Footprint:
        """Wheeled by ``angle`` radians (counter-clockwise positive) about a front corner,
        ACW-PD-21.2. The pivot corner stays fixed.

        Args:
            angle: rotation in radians. Pivoting on the left corner, a positive (CCW) angle
                swings the right end forward (a wheel to the left); pivoting on the right, a
                negative (CW) angle swings the left end forward (a wheel to the right). The
                cost, frontage x |angle| (ACW-PD-21.2), is the engine's concern.
            pivot: ``"left"`` (front-left corner) or ``"right"`` (front-right corner).

        Raises:
            ParameterError: if ``pivot`` is not ``"left"`` or ``"right"``.
        """
        hw = 0.5 * self.width
        c = _cos(self.heading)
        s = _sin(self.heading)
        if pivot == "left":
            p = (self.x - hw * s, self.y + hw * c)
        elif pivot == "right":
            p = (self.x + hw * s, self.y - hw * c)
        else:
            raise ParameterError(
                f"wheel pivot must be 'left' or 'right' (ACW-PD-21.2); got {pivot!r}")
        return self.rotated_about(p, angle)

    def faced(self, angle: float) -> Footprint:
        """Rotated by ``angle`` radians about the rectangle's centre (face about = ``pi``,
        face to a flank = ``+-pi/2``), ACW-PD-21.4."""
        hd = 0.5 * self.depth  # self.centre() inlined
        h = self.heading
        return self.rotated_about((self.x - hd * _cos(h), self.y - hd * _sin(h)), angle)

    def with_size(self, width: float, depth: float) -> Footprint:
        """Same front-edge centre and heading with a new frontage and depth (inches).

        Raises:
            ParameterError: if width or depth is not finite and > 0.
        """
        return Footprint(self.x, self.y, self.heading, width, depth)


_set_circ = Footprint._circ.__set__  # type: ignore[attr-defined]
_BIG = math.inf
_PI = math.pi


def _moved(fp: Footprint, x: float, y: float) -> Footprint:
    """Fast copy of ``fp`` at a new front-edge centre (same heading and size).

    Skips the validating constructor (fields filled through :class:`_FootprintFields`);
    only the new position needs checking.
    """
    if not (-_BIG < x < _BIG and -_BIG < y < _BIG):
        raise ParameterError(f"Footprint move gives a non-finite position ({x!r}, {y!r})")
    o = _FootprintFields()
    o.x = x
    o.y = y
    o.heading = fp.heading
    o.width = fp.width
    o.depth = fp.depth
    o._circ = None
    o.__class__ = Footprint
    return o


# -- arcs and zones (ACW-PD-16, I-9) -----------------------------------------------------------
def in_forward_arc(fp: Footprint, p: Vec) -> bool:
    """Whether table point ``p`` lies in ``fp``'s forward arc (ACW-PD-16, I-9).

    In the unit frame: ``ly >= 0`` and ``|lx| <= W/2 + ly``, i.e. the region ahead of the
    front edge bounded by the 45-degree rays from the two front corners. Closed region
    (boundary points count, within :data:`EPS`).
    """
    dx = p[0] - fp.x
    dy = p[1] - fp.y
    h = fp.heading
    c = _cos(h)
    s = _sin(h)
    ly = dx * c + dy * s
    if ly < -EPS:
        return False
    lx = dx * s - dy * c
    return abs(lx) <= 0.5 * fp.width + ly + EPS


def zone_of(fp: Footprint, p: Vec) -> str:
    """Which of ``fp``'s zones holds table point ``p`` (ACW-PD-16).

    Returns:
        ``"front"`` if in the forward arc; otherwise ``"rear"`` if ``ly <= -D``; otherwise
        ``"left"`` (``lx < 0``) or ``"right"`` (``lx >= 0``) for the flank zones. The four
        values partition the plane. Pass a unit's centre to classify the whole unit.
    """
    dx = p[0] - fp.x
    dy = p[1] - fp.y
    h = fp.heading
    c = _cos(h)
    s = _sin(h)
    ly = dx * c + dy * s
    lx = dx * s - dy * c
    if ly >= -EPS and abs(lx) <= 0.5 * fp.width + ly + EPS:
        return "front"
    if ly <= -fp.depth + EPS:
        return "rear"
    return "left" if lx < 0.0 else "right"


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
    ins.__class__ = Footprint
    return overlaps(ins, b)


def footprint_distance(a: Footprint, b: Footprint) -> float:
    """Closest-point-to-closest-point distance (inches) between two footprints (I-25,
    ACW-PD-16). ``0.0`` exactly when :func:`overlaps` is True (touching or overlapping).

    Symmetric in ``a`` and ``b``.
    """
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


# -- path crossing (ACW-PD-24) -----------------------------------------------------------------
def first_crossing(f: Callable[[float], bool], length: float, step: float = 0.25,
                   tol: float = 0.01,
                   clear_for: Callable[[float], float] | None = None) -> float | None:
    """Smallest travelled distance ``t`` in ``[0, length]`` at which ``f(t)`` becomes True
    (ACW-PD-24 Window A triggers: enters the arc within 8", comes within 6", ...).

    ``f(t)`` is evaluated on the mover's position after travelling ``t`` inches. The path is
    sampled at ``0, step, 2*step, ...`` and at ``length``; the first True sample is refined by
    bisection against the previous (False) sample until the bracket is ``<= tol``, and the
    True end of the bracket is returned, so ``f(result)`` is always True. For a predicate
    that is False then True along the path, the result is within ``tol`` after the exact
    crossing. A predicate that turns True and back False strictly between two samples is
    missed (choose ``step`` smaller than the narrowest such window).

    Args:
        f: predicate of the distance travelled (inches).
        length: path length in inches, ``>= 0``.
        step: sampling interval in inches, ``> 0``.
        tol: bisection tolerance in inches, ``> 0``.
        clear_for: optional exact shortcut: ``clear_for(t)`` (called only where ``f(t)`` is
            False) returns a distance ``g >= 0`` such that ``f`` is certainly False on all of
            ``[t, t + g]``; samples inside that stretch are then taken as False without
            calling ``f``. The result is identical to the one without the shortcut as long
            as the promise holds (e.g. a lower bound on a distance that shrinks at most one
            inch per inch travelled).

    Returns:
        ``0.0`` if ``f(0)`` is True; the crossing distance; or ``None`` if ``f`` is False at
        every sample and at ``length``.

    Raises:
        ParameterError: if ``length < 0``, ``step <= 0`` or ``tol <= 0`` (or any is not finite).
    """
    if not (0.0 <= length < math.inf):
        raise ParameterError(f"first_crossing: length must be finite and >= 0, got {length!r}")
    if not (0.0 < step < math.inf):
        raise ParameterError(f"first_crossing: step must be finite and > 0, got {step!r}")
    if not (0.0 < tol < math.inf):
        raise ParameterError(f"first_crossing: tol must be finite and > 0, got {tol!r}")
    if f(0.0):
        return 0.0
    lo = 0.0
    i = 1
    known = clear_for(0.0) if clear_for is not None else -1.0  # f is False on [0, known]
    while True:
        t = i * step
        if t >= length:
            t = length
        if t <= known:
            pass  # False by the clear_for promise
        elif t > lo and f(t):
            hi = t
            while hi - lo > tol:
                mid = 0.5 * (lo + hi)
                if mid <= lo or mid >= hi:
                    break
                if f(mid):
                    hi = mid
                else:
                    lo = mid
            return hi
        elif clear_for is not None:
            known = t + clear_for(t)
        if t >= length:
            return None
        lo = t
        i += 1
