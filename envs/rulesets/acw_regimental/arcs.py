"""Forward arc and zones of a unit (ACW-PD-16, I-9): which of a footprint's front, flank and
rear zones holds a table point. ACW's own rulings (the forward arc bounded by 45-degree rays
from the two front corners is I-9), so they live here, not in :mod:`envs.core.geometry`."""

from __future__ import annotations

import math

from envs.core.geometry import EPS, Footprint, Vec

__all__ = ["in_forward_arc", "zone_of"]

_cos = math.cos
_sin = math.sin


def in_forward_arc(fp: Footprint, point: Vec) -> bool:
    """Whether table point ``p`` lies in ``fp``'s forward arc (ACW-PD-16, I-9).

    In the unit frame: ``ly >= 0`` and ``|lx| <= W/2 + ly``, i.e. the region ahead of the
    front edge bounded by the 45-degree rays from the two front corners. Closed region
    (boundary points count, within :data:`EPS`).
    """
    dx = point[0] - fp.x
    dy = point[1] - fp.y
    h = fp.heading
    c = _cos(h)
    s = _sin(h)
    ly = dx * c + dy * s
    if ly < -EPS:
        return False
    lx = dx * s - dy * c
    return abs(lx) <= 0.5 * fp.width + ly + EPS


def zone_of(fp: Footprint, point: Vec) -> str:
    """Which of ``fp``'s zones holds table point ``p`` (ACW-PD-16).

    Returns:
        ``"front"`` if in the forward arc; otherwise ``"rear"`` if ``ly <= -D``; otherwise
        ``"left"`` (``lx < 0``) or ``"right"`` (``lx >= 0``) for the flank zones. The four
        values partition the plane. Pass a unit's centre to classify the whole unit.
    """
    dx = point[0] - fp.x
    dy = point[1] - fp.y
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
