"""The oriented rectangle of a unit's footprint (:class:`Footprint`), its transforms, and
angles.

A footprint is described in its unit frame: the origin is the centre of its FRONT edge, local
+y is its facing, local +x points to its RIGHT (the facing rotated by -90 degrees). In that
frame the rectangle covers ``-W/2 <= lx <= W/2`` and ``-D <= ly <= 0`` where ``W`` is the
frontage and ``D`` the depth (the unit frame of ACW-PD-16; the transforms are the motion
primitives of ACW-PD-21: advance, side-step, wheel about a front corner, face about the
centre). Lengths in inches, angles in radians, counter-clockwise positive.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..errors import ParameterError

__all__ = ["EPS", "Vec", "Footprint", "angle_diff"]

Vec = tuple[float, float]

#: Boundary tolerance in inches for zone, contact and intersection tests.
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

    x: float
    y: float
    heading: float
    width: float
    depth: float
    _circ: tuple[float, float, float] | None


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
    if TYPE_CHECKING:  # the cache slot, declared for the type checker only (not a field)
        _circ: tuple[float, float, float] | None

    def __reduce__(self) -> tuple[type[Footprint], tuple[float, float, float, float, float]]:
        return (Footprint, (self.x, self.y, self.heading, self.width, self.depth))

    def __copy__(self) -> Footprint:
        return self  # immutable

    def __deepcopy__(self, memo: dict[int, object]) -> Footprint:
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
        o.__class__ = cls  # type: ignore[assignment]  # the layout twin becomes a Footprint
        return o  # type: ignore[return-value]  # (its class was switched above)

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
        o.__class__ = Footprint  # type: ignore[assignment]  # the layout twin becomes a Footprint
        return o  # type: ignore[return-value]  # (its class was switched above)

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
        o.__class__ = Footprint  # type: ignore[assignment]  # the layout twin becomes a Footprint
        return o  # type: ignore[return-value]  # (its class was switched above)

    def wheeled(self, angle: float, pivot: str) -> Footprint:
        """Wheeled by ``angle`` radians (counter-clockwise positive) about a front corner,
        ACW-PD-21.2. The pivot corner stays fixed.

        Args:
            angle: rotation in radians. Pivoting on the left corner, a positive (CCW) angle
                swings the right end forward (a wheel to the left); pivoting on the right, a
                negative (CW) angle swings the left end forward (a wheel to the right). The
                cost, frontage x abs(angle) (ACW-PD-21.2), is the engine's concern.
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


_set_circ = vars(Footprint)["_circ"].__set__  # the slot's descriptor (mypy types Footprint._circ as the value)
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
    o.__class__ = Footprint  # type: ignore[assignment]  # the layout twin becomes a Footprint
    return o  # type: ignore[return-value]  # (its class was switched above)
