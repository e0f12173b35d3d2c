"""Terrain and movement geometry of the ACW regimental ruleset (pure Python floats).

* :class:`Terrain`: woods/rough areas, crests, fences, walls and roads of a scenario
  (ACW-PD-20, RULINGS item 4), with cover, line of sight (ACW-PD-17), higher ground and road
  tests.
* :func:`plan_path`: how far a unit gets along a path for a given allowance, clipped (not
  refused) at the table edge, the 2" no-approach zone (ACW-PD-21.7), friendly units (ACW-PD-29)
  and impassable ground; woods halve the rate and a linear obstacle costs 3" (ACW-PD-20).

All distances in inches, angles in radians.
"""

from __future__ import annotations

import math
from typing import Callable, Sequence

from envs.core.geometry import (EPS, Footprint, point_segment_distance, polygon_contains,
                                segments_intersect)

from .tables import Cover

#: A unit up to this far inside woods sees and is seen from outside (ACW-PD-17), inches.
WOODS_SEE_OUT = 2.0

Vec = tuple[float, float]
_cos = math.cos
_sin = math.sin
Seg = tuple[Vec, Vec]


def _bbox(poly: Sequence[Vec]) -> tuple[float, float, float, float]:
    xs = [p[0] for p in poly]
    ys = [p[1] for p in poly]
    return min(xs), min(ys), max(xs), max(ys)


#: Entries a :class:`Terrain` memo holds before it is emptied (bounds its memory).
MEMO_CAP = 1 << 15


class Terrain:
    """Static terrain of a scenario (immutable after construction; the woods point test and
    the terrain sight-line test are pure functions of their points, memoised per terrain:
    searches ask the same ones again and again).

    Args:
        width, depth: table size in inches (ACW-PD-3).
        areas: woods / rough polygons (light cover, half rate for formed units, ACW-PD-20).
        crests, fences, walls, roads: lists of segments ``((x0, y0), (x1, y1))``.
    """

    def __init__(self, width: float, depth: float, areas: list[list[Vec]], crests: list[Seg],
                 fences: list[Seg], walls: list[Seg], roads: list[Seg]):
        self.width = width
        self.depth = depth
        self.areas = [list(a) for a in areas]
        self.area_boxes = [_bbox(a) for a in self.areas]
        self.crests = list(crests)
        self.fences = list(fences)
        self.walls = list(walls)
        self.obstacles = [(s, "fence") for s in fences] + [(s, "wall") for s in walls]
        self.roads = list(roads)
        self._boxes = self.area_boxes + [_bbox(seg) for seg, _ in self.obstacles]
        # (x0, y0, x1, y1, polygon) per woods area, for the point test (hot path)
        self._woods = tuple((*box, poly) for poly, box in zip(self.areas, self.area_boxes))
        self._woods_memo: dict[Vec, bool] = {}
        self._los_memo: dict[tuple[float, float, float, float], bool] = {}

    def __getstate__(self) -> dict[str, object]:
        # the memos are caches: a copy or a pickle starts with empty ones
        return {k: ({} if k in ("_woods_memo", "_los_memo") else v)
                for k, v in self.__dict__.items()}

    # -- point tests ------------------------------------------------------------------------
    def in_woods(self, point: Vec) -> bool:
        """Whether ``point`` lies in (or on the edge of) a woods/rough area (ACW-PD-20)."""
        x, y = point
        key = (x, y)
        memo = self._woods_memo
        hit = memo.get(key)
        if hit is not None:
            return hit
        inside = False
        for x0, y0, x1, y1, poly in self._woods:
            if x0 <= x <= x1 and y0 <= y <= y1 and polygon_contains(poly, key):
                inside = True
                break
        if len(memo) >= MEMO_CAP:
            memo.clear()
        memo[key] = inside
        return inside

    def on_road(self, point: Vec, tol: float = 1.0) -> bool:
        """Whether ``point`` is within ``tol`` inches of a road (ACW-PD-19 road rate)."""
        for a, b in self.roads:
            if point_segment_distance(point, a, b) <= tol:
                return True
        return False

    def on_crest(self, point: Vec, tol: float = 1.5) -> bool:
        """Higher ground: ``point`` within ``tol`` inches of a crest line (ACW-PD-20, PD-26)."""
        for a, b in self.crests:
            if point_segment_distance(point, a, b) <= tol:
                return True
        return False

    def on_table(self, fp: Footprint) -> bool:
        """Whether all four corners of ``fp`` are on the table (1e-6" tolerance, ACW-PD-3)."""
        w, d = self.width + 1e-6, self.depth + 1e-6
        # fp.corners() inlined (the same float operations; hot path)
        h = fp.heading
        c = _cos(h)
        s = _sin(h)
        hw = 0.5 * fp.width
        rx = hw * s
        ry = -hw * c
        bx = -fp.depth * c
        by = -fp.depth * s
        x = fp.x
        y = fp.y
        lx = x - rx
        ly = y - ry
        rx += x
        ry += y
        for px, py in ((lx, ly), (rx, ry), (rx + bx, ry + by), (lx + bx, ly + by)):
            if px < -1e-6 or py < -1e-6 or px > w or py > d:
                return False
        return True

    def disc_clear(self, centre: Vec, radius: float) -> bool:
        """Whether the disc of ``radius`` (inches) about ``centre`` keeps more than 1e-6" clear
        of the bounding box of every woods area and linear obstacle, so no point in it is in
        woods and no segment inside it crosses an obstacle (an exact shortcut for path scans)."""
        x, y = centre
        radius += 1e-6
        for x0, y0, x1, y1 in self._boxes:
            dx = x0 - x if x < x0 else (x - x1 if x > x1 else 0.0)
            dy = y0 - y if y < y0 else (y - y1 if y > y1 else 0.0)
            if dx * dx + dy * dy <= radius * radius:
                return False
        return True

    def obstacles_crossed(self, start: Vec, end: Vec) -> int:
        """Linear obstacles crossed by the segment ``start``-``end`` (ACW-PD-20: 3" each)."""
        n = 0
        for (p, q), _ in self.obstacles:
            if segments_intersect(start, end, p, q):
                n += 1
        return n

    # -- fire --------------------------------------------------------------------------------
    def blocks_los(self, start: Vec, end: Vec) -> bool:
        """Terrain LOS between two unit centres ``start`` and ``end`` (ACW-PD-17): woods block,
        except that a unit whose centre is up to 2" inside a wood (measured along the sight
        line) sees and is seen from outside it (both ends in the same wood: visible); a crest
        blocks unless one end is on it."""
        key = (start[0], start[1], end[0], end[1])
        memo = self._los_memo
        hit = memo.get(key)
        if hit is not None:
            return hit
        blocked = self._blocks_los(start, end)
        if len(memo) >= MEMO_CAP:
            memo.clear()
        memo[key] = blocked
        return blocked

    def _blocks_los(self, start: Vec, end: Vec) -> bool:
        # the sight line's bounding box (min/max written out: the same comparisons)
        xlo, xhi = (start[0], end[0]) if start[0] < end[0] else (end[0], start[0])
        ylo, yhi = (start[1], end[1]) if start[1] < end[1] else (end[1], start[1])
        for x0, y0, x1, y1, poly in self._woods:
            if xhi < x0 or xlo > x1 or yhi < y0 or ylo > y1:
                continue
            ina, inb = polygon_contains(poly, start), polygon_contains(poly, end)
            if ina or inb:
                if ina != inb:  # ACW-PD-17: more than 2" inside the wood blocks
                    p, q = (start, end) if ina else (end, start)
                    L = math.hypot(q[0] - p[0], q[1] - p[1])
                    if L > WOODS_SEE_OUT and polygon_contains(
                            poly, (p[0] + (q[0] - p[0]) * WOODS_SEE_OUT / L,
                                   p[1] + (q[1] - p[1]) * WOODS_SEE_OUT / L)):
                        return True
                continue
            n = len(poly)
            for i in range(n):
                if segments_intersect(start, end, poly[i], poly[(i + 1) % n]):
                    return True
        for p, q in self.crests:
            if segments_intersect(start, end, p, q):
                if (point_segment_distance(start, p, q) > 1.0
                        and point_segment_distance(end, p, q) > 1.0):
                    return True
        return False

    def cover(self, target: Footprint, firer_centre: Vec) -> Cover:
        """Cover of ``target`` against fire from ``firer_centre`` (ACW-PD-20): woods/rough
        light; a fence (light) or wall (heavy) within 1" of the target between it and the
        firer; a crest within 1" of its front edge between it and the firer (light)."""
        c = target.centre()
        best = Cover.NONE
        if self.in_woods(c):
            best = Cover.LIGHT
        for (p, q), kind in self.obstacles:
            if segments_intersect(c, firer_centre, p, q):
                fl, fr = target.front_edge()
                d = min(point_segment_distance(fl, p, q), point_segment_distance(fr, p, q),
                        point_segment_distance(c, p, q))
                if d <= 1.0 + 0.5 * target.depth:
                    if kind == "wall":
                        return Cover.HEAVY
                    best = Cover.LIGHT
        if best is Cover.NONE:
            for p, q in self.crests:
                if segments_intersect(c, firer_centre, p, q):
                    fl, fr = target.front_edge()
                    if min(point_segment_distance(fl, p, q),
                           point_segment_distance(fr, p, q)) <= 1.0:
                        best = Cover.LIGHT
        return best

    def heavy_cover(self, fp: Footprint) -> bool:
        """In heavy cover for the Morale Test (ACW-PD-27): a wall within 1" of its front edge."""
        fl, fr = fp.front_edge()
        for p, q in self.walls:
            if min(point_segment_distance(fl, p, q), point_segment_distance(fr, p, q)) <= 1.0:
                return True
        return False

    def behind_obstacle(self, fp: Footprint, enemy: Vec) -> bool:
        """A fence or wall within 1" of the unit, between it and ``enemy`` (PD-26 defender)."""
        c = fp.centre()
        for (p, q), _ in self.obstacles:
            if segments_intersect(c, enemy, p, q):
                fl, fr = fp.front_edge()
                if min(point_segment_distance(fl, p, q), point_segment_distance(fr, p, q),
                       point_segment_distance(c, p, q)) <= 1.0 + 0.5 * fp.depth:
                    return True
        return False

    def open_between(self, start: Vec, end: Vec) -> bool:
        """Open ground between the points ``start`` and ``end`` (ACW-PD-34): no woods/rough, no
        linear obstacle."""
        if self.obstacles_crossed(start, end):
            return False
        for poly in self.areas:
            if polygon_contains(poly, start) or polygon_contains(poly, end):
                return False
            n = len(poly)
            for i in range(n):
                if segments_intersect(start, end, poly[i], poly[(i + 1) % n]):
                    return False
        return True


#: ``circ(fp)`` -> ``(cx, cy, r)``: centre of ``fp`` (inches, exactly ``fp.centre()``) and its
#: half-diagonal ``0.5 * hypot(W, D)`` (bounding-circle radius), cached on the footprint. The
#: method itself (not a wrapper function): the same call, one Python frame fewer (hot path).
circ = Footprint.bounding_circle


def footprint_points(fp: Footprint) -> tuple[Vec, ...]:
    """Sample points of a footprint for arc tests: four corners, centre, edge midpoints."""
    # inlined fp.corners() and fp.centre() (same float operations, cos/sin computed once)
    h = fp.heading
    c = _cos(h)
    s = _sin(h)
    x = fp.x
    y = fp.y
    d = fp.depth
    hw = 0.5 * fp.width
    rx = hw * s
    ry = -hw * c
    bx = -d * c
    by = -d * s
    hd = 0.5 * d
    x0 = x - rx
    y0 = y - ry
    x1 = x + rx
    y1 = y + ry
    rrx = x1 + bx
    rry = y1 + by
    rlx = x0 + bx
    rly = y0 + by
    return ((x0, y0), (x1, y1), (rrx, rry), (rlx, rly), (x - hd * c, y - hd * s), (x, y),
            (0.5 * (rrx + rlx), 0.5 * (rry + rly)))


def points_in_arc(x: float, y: float, cos_heading: float, sin_heading: float, hw: float,
                  pts: Sequence[Vec]) -> bool:
    """Whether some point of ``pts`` lies in the forward arc (ACW-PD-16, I-9) of a footprint
    with front-edge centre ``(x, y)``, ``cos_heading``/``sin_heading`` the cos/sin of its
    heading and ``hw`` half its frontage: exactly :func:`~envs.rulesets.acw_regimental.arcs.in_forward_arc`
    on each point (same float operations), without building the footprint or recomputing
    cos/sin per point."""
    for px, py in pts:
        dx = px - x
        dy = py - y
        ly = dx * cos_heading + dy * sin_heading
        if ly < -EPS:
            continue
        lx = dx * sin_heading - dy * cos_heading
        if (lx if lx >= 0.0 else -lx) <= hw + ly + EPS:
            return True
    return False


def partly_in_arc(arc_of: Footprint, other: Footprint) -> bool:
    """Whether some part of ``other`` lies in ``arc_of``'s forward arc (ACW-PD-16)."""
    h = arc_of.heading
    return points_in_arc(arc_of.x, arc_of.y, _cos(h), _sin(h), 0.5 * arc_of.width,
                         footprint_points(other))


def segment_hits_footprint(start: Vec, end: Vec, fp: Footprint) -> bool:
    cs = fp.corners()
    for i in range(4):
        if segments_intersect(start, end, cs[i], cs[(i + 1) % 4]):
            return True
    return False


def plan_path(path: Callable[[float], Footprint], max_t: float, budget: float, rate: float,
              blocked: Callable[[Footprint], bool], terrain: Terrain, formed: bool,
              step: float = 0.25, speed: float | None = None) -> tuple[float, float, int, bool]:
    """How far along ``path`` a unit gets (ACW-PD-19..21).

    Args:
        path: footprint after travelling parameter ``t`` (inches of travel).
        max_t: path parameter limit (e.g. 2" for a side-step, 45 degrees of arc for a wheel).
        budget: allowance inches available.
        rate: allowance inches per unit of ``t`` (2 for backward moves, ACW-PD-21.1).
        blocked: predicate on a footprint: table edge, no-approach zone, friends (clipping).
        terrain: woods double the cost for formed units; each linear obstacle crossed costs 3".
        formed: whether woods slow the unit (skirmishers move normally, ACW-PD-20).
        speed: optional bound on how far the footprint's centre moves per unit of ``t``. With
            it, samples are skipped where the answer is known (an exact shortcut, the result
            is the same): ``blocked`` is not called while the centre stays inside the
            predicate's ``free_r`` radius (see ``blocking.make_blocked_fn``), and terrain is
            not sampled when the whole path stays clear of woods and obstacles.

    Returns:
        (t reached, allowance inches spent, obstacles crossed, passed through woods).
    """
    t = 0.0
    cost = 0.0
    obst = 0
    woods = False
    prev = path(0.0)
    start_centre = prev.centre()
    pc: tuple[float, float] | None = start_centre
    wood_test = formed and bool(terrain.areas)
    in_woods = terrain.in_woods
    wp = None  # in_woods(pc) once known (a pure test, carried over from the last step)
    free_t = -1.0  # samples up to this t are known not blocked
    terr_free = False  # no woods or obstacle anywhere near the path
    if speed is not None:
        free_r = getattr(blocked, "free_r", -1.0)
        if free_r > 0.0:
            free_t = free_r / (speed * (1.0 + 1e-9)) if speed > 0.0 else math.inf
        terr_free = terrain.disc_clear(start_centre, max_t * speed * (1.0 + 1e-9))
    while t < max_t - 1e-9:
        nt = min(max_t, t + step)
        if terr_free and nt <= free_t:
            # fast path (exact): nothing to sample here; same arithmetic as below
            dc = (nt - t) * rate
            if cost + dc > budget + 1e-9:
                frac = (budget - cost) / rate
                if frac > 0:
                    t += frac
                    cost = budget
                break
            cost += dc
            t = nt
            pc = None
            wp = False
            continue
        fp = path(nt)
        mult = rate
        if terr_free:
            # exact: the whole path stays clear of woods and obstacles (``disc_clear`` above),
            # so ``in_woods`` is False at both ends and no obstacle is crossed: the terrain
            # terms below would be ``mult = rate`` and ``+ 3.0 * 0``; only ``blocked`` is left
            dc = (nt - t) * mult
            n_ob = 0
            c = None
            wc = False
        else:
            if pc is None:
                pc = path(t).centre()
            c = fp.centre()
            wc = None
            if wood_test:
                wc = in_woods(c)
                if not wc and wp is None:
                    wp = in_woods(pc)
                if wc or wp:
                    mult *= 2.0
                    woods = True
            dc = (nt - t) * mult
            n_ob = terrain.obstacles_crossed(pc, c) if terrain.obstacles else 0
            dc += 3.0 * n_ob
        if nt > free_t and blocked(fp):
            # bisect the boundary between t (free) and nt (blocked)
            lo, hi = t, nt
            while hi - lo > 0.01:
                mid = 0.5 * (lo + hi)
                if blocked(path(mid)):
                    hi = mid
                else:
                    lo = mid
            if lo > t:
                cost += (lo - t) * mult
                t = lo
            break
        if cost + dc > budget + 1e-9:
            if n_ob:
                break  # cannot afford to cross the obstacle
            frac = (budget - cost) / mult
            if frac > 0:
                t += frac
                cost = budget
            break
        cost += dc
        obst += n_ob
        t = nt
        pc = c
        wp = wc
    return t, cost, obst, woods
