"""The clipping predicate of a normal move (ACW-PD-21.7, PD-29): whether a footprint is off the
table, inside an enemy's no-approach zone, on a friendly formed unit, or (limbered artillery)
in woods off-road. Built once per unit position and reused through two transient caches of the
state (``_handoff``: the predicate the current activation decision's legal list was built with;
``_bcache``: the latest one built), which are never copied nor serialised."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Protocol

from envs.core.geometry import Footprint, footprint_distance, interiors_overlap, overlaps

from . import tables
from .units import Unit

if TYPE_CHECKING:
    from .state import ACWState

__all__ = ["Blocked", "blocked_fn", "make_blocked_fn"]

class Blocked(Protocol):
    """A clipping predicate: whether a footprint is blocked. ``free_r``: a footprint of the
    mover's size whose centre is within this distance of its start is not blocked (-1 when
    that shortcut does not apply; see :func:`make_blocked_fn`)."""

    free_r: float

    def __call__(self, fp: Footprint, /) -> bool: ...


def blocked_fn(state: ACWState, unit: Unit, fp0: Footprint, ignore_enemy: tuple = (),
               friends_block: bool = True) -> Blocked:
    """The clipping predicate of :func:`make_blocked_fn`, reused when nothing it reads
    has changed: the one the current activation decision's legal list was built with
    (``_handoff``, while that decision is applied), else the latest one built here."""
    handoff = state._handoff
    if handoff is not None and handoff[0] is unit and handoff[1] is fp0 and friends_block and \
            not ignore_enemy:
        return handoff[2]
    # the key holds everything the predicate reads: the mover, fp0, and every live unit's
    # footprint object (immutable; replaced when a unit moves or re-forms; a unit in a
    # re-used slot is a new unit with a new footprint, and a unit's kind and screen status
    # never change), so a hit is always the predicate a fresh build would give
    u0, u1 = state.units
    sig = tuple([o.fp if o is not None and o.alive else None for o in u0] +
                [o.fp if o is not None and o.alive else None for o in u1])
    key = (unit, fp0, ignore_enemy, friends_block, sig)
    cached = state._bcache
    if cached is not None and cached[0] == key:
        return cached[1]
    fn = make_blocked_fn(state, unit, fp0, ignore_enemy, friends_block)
    state._bcache = (key, fn)
    return fn


def make_blocked_fn(state: ACWState, unit: Unit, fp0: Footprint, ignore_enemy: tuple = (),
                    friends_block: bool = True) -> Blocked:
    """Clipping predicate for a normal move (ACW-PD-21.7, PD-29): table edge, within the
    no-approach zone of an enemy (2", 1" for skirmishers; never closer than at the start),
    overlapping a friendly formed unit; limbered artillery may not enter woods off-road.
    Far units are skipped with bounding-circle tests; the predicate accepts footprints of
    any size (a re-formed unit), the shortcuts using the tested footprint's own radius."""
    terr = state.game.terrain
    bcirc = Footprint.bounding_circle
    cx0, cy0, r0 = bcirc(fp0)
    # ``clear``: how far a footprint of fp0's size may have its centre from fp0's centre
    # with every listed unit still outside its bounding-circle test below (a pure
    # shortcut: the skipped per-unit tests would all skip too; 1e-6" margin absorbs
    # rounding); a footprint of radius r gets ``clear + r0 - r``
    clear = math.inf
    enemies = []
    sqrt = math.sqrt
    u_screen = unit.is_screen
    na_s, na_f = tables.SKIRMISH_NO_APPROACH, tables.NO_APPROACH
    for e in state.units[1 - unit.side]:
        if e is None or not e.alive or e.slot in ignore_enemy:
            continue
        na = na_s if (u_screen or e.is_screen) else na_f
        efp = e.fp
        ex, ey, er = efp._circ or bcirc(efp)  # the cached circle, else computed
        rr = er + r0 + na
        dx, dy = cx0 - ex, cy0 - ey
        d2 = dx * dx + dy * dy
        if d2 > rr * rr:
            lim = na - 1e-6
        else:  # never closer than at the start
            d0 = footprint_distance(fp0, efp)
            lim = (d0 if d0 < na else na) - 1e-6
        enemies.append((efp, lim, ex, ey, er + na))
        c = sqrt(d2) - rr
        if c < clear:
            clear = c
    friends = []
    touching: list[Footprint] = []
    if not u_screen and friends_block:
        for f in state.units[unit.side]:
            if f is None or not f.alive or f is unit or f.is_screen:
                continue
            ffp = f.fp
            fx, fy, fr_ = ffp._circ or bcirc(ffp)
            rr = fr_ + r0
            dx, dy = cx0 - fx, cy0 - fy
            d2 = dx * dx + dy * dy
            if d2 > rr * rr or not overlaps(fp0, ffp):
                friends.append((ffp, fx, fy, fr_))
            elif not interiors_overlap(fp0, ffp):
                # in base contact at the start: blocks moving into it, not sliding along
                # or away from it (ACW-PD-21.8)
                touching.append(ffp)
            else:
                continue  # already overlapping: free to move out of it
            c = sqrt(d2) - rr
            if c < clear:
                clear = c
    clear2 = (clear - 1e-6) ** 2 if clear > 1e-6 else -1.0
    art = unit.kind == "artillery" and bool(terr.areas)
    W, D = terr.width + 1e-6, terr.depth + 1e-6
    cos, sin = math.cos, math.sin
    w0, d0_ = fp0.width, fp0.depth
    hypot = math.hypot

    def blocked(fp: Footprint) -> bool:
        h = fp.heading
        hd = 0.5 * fp.depth
        cx = fp.x - hd * cos(h)
        cy = fp.y - hd * sin(h)
        if fp.width == w0 and fp.depth == d0_:
            r = r0
            cl2 = clear2
        else:  # another size: its own radius (the shortcuts stay exact)
            r = 0.5 * hypot(fp.width, fp.depth)
            cl = clear + r0 - r
            cl2 = (cl - 1e-6) ** 2 if cl > 1e-6 else -1.0
        if cx < r or cy < r or cx > W - r or cy > D - r:
            for x, y in fp.corners():
                if x < -1e-6 or y < -1e-6 or x > W or y > D:
                    return True
        dx = cx - cx0
        dy = cy - cy0
        if dx * dx + dy * dy < cl2:
            if art and terr.in_woods((cx, cy)) and not terr.on_road((cx, cy)):
                return True
            return False
        for efp, lim, ex, ey, ern in enemies:
            dx, dy = cx - ex, cy - ey
            rr = ern + r
            if dx * dx + dy * dy > rr * rr:
                continue
            if footprint_distance(fp, efp) < lim:
                return True
        for ffp, fx, fy, fr_ in friends:
            dx, dy = cx - fx, cy - fy
            rr = fr_ + r
            if dx * dx + dy * dy > rr * rr:
                continue
            if overlaps(fp, ffp):
                return True
        for ffp in touching:
            if interiors_overlap(fp, ffp):
                return True
        if art:
            if terr.in_woods((cx, cy)) and not terr.on_road((cx, cy)):
                return True
        return False

    # ``free_r``: any footprint of fp0's size whose centre is within this distance of
    # fp0's centre is not blocked (it passes the edge box and the ``clear2`` test above);
    # -1 when that shortcut does not apply (artillery's woods test, or a unit already
    # close)
    box = min(cx0 - r0, cy0 - r0, (W - r0) - cx0, (D - r0) - cy0)
    # a function attribute (the Blocked protocol's free_r), which mypy does not model on a def
    blocked.free_r = (  # type: ignore[attr-defined]
        min(box, clear - 1e-6) - 1e-7 if (clear2 > 0.0 and not art) else -1.0)
    return blocked  # type: ignore[return-value]  # (a Blocked: its free_r is set above)
