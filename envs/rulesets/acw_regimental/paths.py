"""Movement paths as JSON specs (ACW-PD-21, ACW-PD-23): a path spec is a list
``[kind, footprint, ...]`` — ``["adv", fp, sign]`` (advance/retire), ``["side", fp, sign]``
(sidestep), ``["wheel", fp, radians_per_inch, pivot]``, ``["line", fp, ux, uy]`` (a straight
line keeping the heading: charges) or ``["static", fp]`` — with ``fp`` the start footprint
``[x, y, heading, width, depth]``; :func:`path_fn` turns it into the footprint at path
parameter ``t`` (inches)."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from envs.core.geometry import Footprint

__all__ = ["PathFn", "path_fn", "path_speed"]

#: a movement path: the footprint after ``t`` inches along it
PathFn = Callable[[float], Footprint]


def _fp_list(fp: Footprint) -> list[float]:
    return [fp.x, fp.y, fp.heading, fp.width, fp.depth]


def _fp(fields: list[float]) -> Footprint:
    return Footprint(fields[0], fields[1], fields[2], fields[3], fields[4])


_PATH_MEMO: list[Any] = [None, None]  # [spec, path_fn(spec)] of the latest call


def path_fn(spec: list[Any], fp0: Footprint | None = None) -> PathFn:
    """Footprint along a movement path spec (see ``procedures.activation``). ``fp0``: the
    footprint whose fields ``spec[1]`` lists, when the caller holds it (saves rebuilding an
    equal one)."""
    # memo (exact): a move frame's spec is built once and never mutated (a new path replaces
    # the list; copies of a state copy the list), and the path function is a pure function
    # of it, so the same list object gives the same function (the move frame asks for it
    # again at every Window A stop; the memo holds the list, so its id cannot be reused)
    memo = _PATH_MEMO
    if memo[0] is spec:
        return memo[1]
    function = _path_fn(spec, fp0)
    memo[0] = spec
    memo[1] = function
    return function


def _same_fp(fields: list[float], fp: Footprint) -> bool:
    """Whether ``fields`` lists exactly the fields of ``fp`` (``_fp(fields)`` would equal
    ``fp``)."""
    return (fields[0] == fp.x and fields[1] == fp.y and fields[2] == fp.heading
            and fields[3] == fp.width and fields[4] == fp.depth)


def _path_fn(spec: list[Any], fp0: Footprint | None = None) -> PathFn:
    kind = spec[0]
    if fp0 is None or not _same_fp(spec[1], fp0):
        fp0 = _fp(spec[1])
    if kind == "adv":
        sgn = spec[2]
        return lambda t: fp0.advanced(sgn * t)
    if kind == "side":
        sgn = spec[2]
        return lambda t: fp0.sidestepped(sgn * t)
    if kind == "wheel":
        per_t, pivot = spec[2], spec[3]
        return lambda t: fp0.wheeled(per_t * t, pivot)
    if kind == "line":  # straight line to a point with a fixed heading (charges)
        ux, uy = spec[2], spec[3]
        return lambda t: Footprint(fp0.x + ux * t, fp0.y + uy * t, fp0.heading, fp0.width,
                                   fp0.depth)
    return lambda t: fp0  # static


def path_speed(spec: list) -> float:
    """Upper bound on how far a footprint's centre moves per unit of path parameter ``t`` of
    ``spec`` (inches per inch): 1 for straight moves, ``R / W`` for a wheel about a front
    corner (``R`` the half-diagonal, the path parameter being the outer corner's arc), 0 when
    static. Used by exact shortcuts that skip path samples which cannot trigger."""
    kind = spec[0]
    if kind in ("adv", "side", "line"):
        return 1.0
    if kind == "wheel":
        fields = spec[1]
        return 0.5 * math.hypot(fields[3], fields[4]) * abs(spec[2])
    return 0.0
