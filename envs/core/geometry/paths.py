"""Where along a path a predicate first turns true (:func:`first_crossing`): reaction
triggers found by stepping along a mover's path, with bisection and an exact skip-ahead."""

from __future__ import annotations

import math
from typing import Callable

from ..errors import ParameterError

__all__ = ["first_crossing"]


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
