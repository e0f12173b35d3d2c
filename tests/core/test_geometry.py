"""Tests of the envs/core/geometry package: the footprint frame, closest-point distances
(I-25), motion primitives (ACW-PD-21) and path-crossing detection (ACW-PD-24). ACW's arcs and
zones (ACW-PD-16, I-9) are tests/acw/test_arcs.py.

shapely is used here only as an independent oracle; the module itself never imports it.
"""

from __future__ import annotations

import math

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from shapely.geometry import LineString, Point, Polygon

from envs.core.errors import ParameterError
from envs.core.geometry import (
    EPS, Footprint, angle_diff, distance_exceeds, distance_to_front_edge, first_crossing,
    footprint_distance,
    footprint_polygon_distance, interiors_overlap, overlaps, point_segment_distance,
    polygon_contains, segment_crosses_polygon, segment_distance, segments_intersect)

SETTINGS = settings(max_examples=200, deadline=None)
BRUTE_SETTINGS = settings(max_examples=100, deadline=None)   # 0.001" brute-force scans are slow
POLY_SETTINGS = settings(max_examples=100, deadline=None)    # polygon generation is slow



def fl(lo: float, hi: float) -> st.SearchStrategy[float]:
    """Finite table-scale floats, rounded to 1e-6 inch: values like 1e-170 are meaningless on
    a table and make the shapely oracle report inf for near-degenerate segments."""
    return st.floats(lo, hi, allow_nan=False, allow_infinity=False).map(lambda v: round(v, 6))


coord = fl(-30.0, 30.0)
angle = fl(-2 * math.pi, 2 * math.pi)
size = fl(0.5, 10.0)
point = st.tuples(coord, coord)


@st.composite
def footprints(draw, lo: float = -30.0, hi: float = 30.0) -> Footprint:
    c = fl(lo, hi)
    return Footprint(draw(c), draw(c), draw(angle), draw(size), draw(fl(0.5, 4.0)))




def rect(fp: Footprint) -> Polygon:
    return Polygon(fp.corners())


def close_fp(a: Footprint, b: Footprint, tol: float = 1e-9) -> bool:
    return (abs(a.x - b.x) <= tol and abs(a.y - b.y) <= tol
            and abs(angle_diff(a.heading, b.heading)) <= tol
            and a.width == b.width and a.depth == b.depth)


# ---------------------------------------------------------------------------------------------
# The footprint's frame (ACW-PD-16)
# ---------------------------------------------------------------------------------------------
class TestFrame:
    def test_worked_frame_facing_north(self):
        """ACW-PD-16: a 4"x2" unit facing up the table; local +x is its right (east)."""
        fp = Footprint(0.0, 0.0, math.pi / 2, 4.0, 2.0)
        fl, fr, rr, rl = fp.corners()
        assert fl == pytest.approx((-2.0, 0.0), abs=1e-12)
        assert fr == pytest.approx((2.0, 0.0), abs=1e-12)
        assert rr == pytest.approx((2.0, -2.0), abs=1e-12)
        assert rl == pytest.approx((-2.0, -2.0), abs=1e-12)
        assert fp.centre() == pytest.approx((0.0, -1.0), abs=1e-12)
        assert fp.forward() == pytest.approx((0.0, 1.0), abs=1e-12)
        assert fp.right() == pytest.approx((1.0, 0.0), abs=1e-12)
        assert fp.to_local((3.0, 5.0)) == pytest.approx((3.0, 5.0), abs=1e-12)
        assert fp.front_edge() == (fl, fr)


    @SETTINGS
    @given(footprints(), point)
    def test_local_table_round_trip(self, fp, p):
        """ACW-PD-16 frame: to_table inverts to_local."""
        assert fp.to_table(fp.to_local(p)) == pytest.approx(p, abs=1e-9)


# ---------------------------------------------------------------------------------------------
# Distances and contact: I-25, ACW-PD-16
# ---------------------------------------------------------------------------------------------
class TestDistances:
    def test_worked_distances(self):
        """I-25: two 5" lines facing each other 10" apart; a unit off the flank is further
        from the front edge than from the footprint."""
        a = Footprint(0.0, 0.0, math.pi / 2, 5.0, 1.0)      # front edge y=0, facing +y
        b = Footprint(0.0, 10.0, -math.pi / 2, 5.0, 1.0)    # front edge y=10, facing -y
        assert footprint_distance(a, b) == pytest.approx(10.0, abs=1e-12)
        assert distance_to_front_edge(a, b) == pytest.approx(10.0, abs=1e-12)
        side = Footprint(6.0, -0.5, math.pi, 2.0, 1.0)      # faces -x; covers x in [6, 7]
        assert footprint_distance(a, side) == pytest.approx(3.5, abs=1e-12)
        assert distance_to_front_edge(a, side) == pytest.approx(math.hypot(3.5, 0.0), abs=1e-12)
        rear = Footprint(3.5, -2.0, math.pi / 2, 1.0, 1.0)  # x 3..4, y -3..-2: behind, off right
        assert footprint_distance(a, rear) == pytest.approx(math.hypot(0.5, 1.0), abs=1e-12)
        assert distance_to_front_edge(a, rear) == pytest.approx(math.hypot(0.5, 2.0), abs=1e-12)
        # flush contact (PD-23 step 7) counts as touching
        flush = Footprint(0.0, 0.0, -math.pi / 2, 5.0, 1.0)
        assert overlaps(a, flush) and footprint_distance(a, flush) == 0.0
        assert distance_to_front_edge(a, flush) == 0.0

    @SETTINGS
    @given(footprints(-12, 12), footprints(-12, 12))
    def test_footprint_distance_matches_shapely(self, a, b):
        """I-25: closest point to closest point, as shapely's Polygon.distance."""
        oracle = rect(a).distance(rect(b))
        d = footprint_distance(a, b)
        assert d == pytest.approx(oracle, abs=1e-7)
        assert footprint_distance(b, a) == pytest.approx(d, abs=1e-12)

    @pytest.mark.slow
    @SETTINGS
    @given(footprints(-12, 12), footprints(-12, 12))
    def test_zero_iff_overlaps(self, a, b):
        """I-25 / contact: the distance is 0 exactly when the footprints overlap or touch,
        and overlap agrees with shapely away from the touching case."""
        d = footprint_distance(a, b)
        assert (d == 0.0) == overlaps(a, b)
        assert overlaps(a, b) == overlaps(b, a)
        oracle = rect(a).distance(rect(b))
        if oracle > 1e-7:
            assert not overlaps(a, b)
        if rect(a).intersection(rect(b)).area > 1e-9:
            assert overlaps(a, b)

    @SETTINGS
    @given(footprints(-12, 12), fl(0.5, 8.0), fl(0.5, 4.0), fl(-1.0, 1.0), point, angle)
    def test_flush_contact_survives_rigid_motion(self, d, w, depth, offset, pivot, ang):
        """ACW-PD-23 step 7 / I-25: a charger placed flush on the defender's front edge
        (facing it, slid sideways by up to its frontage) touches it: distance 0, overlap,
        distance to the front edge 0, also after moving both rigidly (rounding tolerated)."""
        shift = offset * (d.width + w) / 2
        front = d.to_table((shift, 0.0))
        charger = Footprint(front[0], front[1], d.heading + math.pi, w, depth)
        moved = (d.rotated_about(pivot, ang), charger.rotated_about(pivot, ang))
        for a, b in ((d, charger), moved):
            assert overlaps(a, b) and overlaps(b, a)
            assert footprint_distance(a, b) == 0.0
            assert distance_to_front_edge(a, b) == 0.0
            assert distance_to_front_edge(b, a) == 0.0
            # backed off by 0.01" they no longer touch, and the gap is measured exactly
            backed = b.advanced(-0.01)
            assert not overlaps(a, backed)
            assert footprint_distance(a, backed) == pytest.approx(0.01, abs=1e-9)

    @SETTINGS
    @given(footprints(-12, 12), footprints(-12, 12))
    def test_front_edge_distance(self, a, b):
        """I-25 (Window B2): distance to the front edge matches shapely and is never less
        than the footprint distance."""
        d = distance_to_front_edge(a, b)
        assert d == pytest.approx(LineString(a.front_edge()).distance(rect(b)), abs=1e-7)
        assert d >= footprint_distance(a, b) - 1e-12

    @SETTINGS
    @given(point, point, point, point)
    def test_segment_distance_matches_shapely(self, a1, a2, b1, b2):
        """I-25 building block: segment distance equals shapely's LineString distance."""
        assume(a1 != a2 and b1 != b2)
        la, lb = LineString([a1, a2]), LineString([b1, b2])
        oracle = la.distance(lb)
        assert segment_distance(a1, a2, b1, b2) == pytest.approx(oracle, abs=1e-7)
        assert segment_distance(b1, b2, a1, a2) == pytest.approx(oracle, abs=1e-7)
        if oracle > 1e-7:
            assert not segments_intersect(a1, a2, b1, b2)
        elif la.crosses(lb):
            assert segments_intersect(a1, a2, b1, b2)

    def test_segments_touching_and_collinear(self):
        """Closed segments: shared endpoints and collinear overlaps intersect."""
        assert segments_intersect((0, 0), (1, 1), (1, 1), (2, 0))
        assert segments_intersect((0, 0), (2, 0), (1, 0), (3, 0))
        assert not segments_intersect((0, 0), (1, 0), (1.5, 0), (3, 0))
        assert segment_distance((0, 0), (1, 0), (1.5, 0), (3, 0)) == pytest.approx(0.5)
        assert segments_intersect((0, 0), (2, 0), (1, 0), (1, 5))   # T-junction

    @SETTINGS
    @given(point, point, point)
    def test_point_segment_distance_matches_shapely(self, p, a, b):
        """Point-to-segment distance equals shapely (degenerate segment = point)."""
        oracle = Point(p).distance(LineString([a, b]) if a != b else Point(a))
        assert point_segment_distance(p, a, b) == pytest.approx(oracle, abs=1e-7)


@st.composite
def star_polygons(draw):
    """Simple (possibly non-convex) polygons: vertices at sorted angles around a centre."""
    n = draw(st.integers(3, 8))
    cx, cy = draw(fl(-10, 10)), draw(fl(-10, 10))
    angs = sorted(draw(st.lists(fl(0, 2 * math.pi - 1e-3), min_size=n, max_size=n,
                                unique=True)))
    radii = draw(st.lists(fl(1.0, 8.0), min_size=n, max_size=n))
    poly = [(cx + r * math.cos(t), cy + r * math.sin(t)) for t, r in zip(angs, radii)]
    shp = Polygon(poly)
    assume(shp.is_valid and shp.area > 0.5)
    return poly


class TestPolygons:
    def test_worked_polygon(self):
        """polygon_contains on an L-shaped (non-convex) wood; boundary counts as inside."""
        wood = [(0, 0), (4, 0), (4, 1), (1, 1), (1, 4), (0, 4)]
        assert polygon_contains(wood, (0.5, 3.0))
        assert not polygon_contains(wood, (3.0, 3.0))
        assert polygon_contains(wood, (4.0, 0.5))
        assert segment_crosses_polygon((3.0, 3.0), (3.0, -1.0), wood)
        assert not segment_crosses_polygon((2.0, 2.0), (3.0, 3.0), wood)
        fp = Footprint(3.0, 4.0, math.pi / 2, 2.0, 1.0)     # covers x 2..4, y 3..4
        assert footprint_polygon_distance(fp, wood) == pytest.approx(1.0)
        with pytest.raises(ParameterError):
            polygon_contains([(0, 0), (1, 1)], (0, 0))

    @POLY_SETTINGS
    @given(star_polygons(), point)
    def test_polygon_contains_matches_shapely(self, poly, p):
        """Ray casting agrees with shapely's covers away from the boundary."""
        shp = Polygon(poly)
        assume(shp.exterior.distance(Point(p)) > 1e-6)
        assert polygon_contains(poly, p) == shp.covers(Point(p))

    @pytest.mark.slow
    @POLY_SETTINGS
    @given(star_polygons(), footprints(-15, 15))
    def test_footprint_polygon_distance_matches_shapely(self, poly, fp):
        """Footprint to terrain distance equals shapely's; 0 iff they meet."""
        oracle = rect(fp).distance(Polygon(poly))
        assert footprint_polygon_distance(fp, poly) == pytest.approx(oracle, abs=1e-7)

    @pytest.mark.slow
    @POLY_SETTINGS
    @given(star_polygons(), point, point)
    def test_segment_crosses_polygon_matches_shapely(self, poly, a, b):
        """ACW-PD-17 LOS building block: a sight line meets a polygon as in shapely."""
        assume(a != b)
        seg, shp = LineString([a, b]), Polygon(poly)
        d = seg.distance(shp)
        if d > 1e-7:
            assert not segment_crosses_polygon(a, b, poly)
        elif seg.intersection(shp).length > 1e-7:
            assert segment_crosses_polygon(a, b, poly)


# ---------------------------------------------------------------------------------------------
# Path crossing: ACW-PD-24
# ---------------------------------------------------------------------------------------------
def brute_first_true(f, length: float, h: float = 0.001):
    n = int(length / h)
    for i in range(n + 1):
        t = i * h
        if f(t):
            return t
    return length if f(length) else None


def samples(length: float, step: float):
    ts, i = [], 0
    while i * step < length:
        ts.append(i * step)
        i += 1
    ts.append(length)
    return ts


def check_crossing(f, length: float, step: float, tol: float) -> None:
    """Shared assertions for predicates whose True set along the path is one interval."""
    t = first_crossing(f, length, step, tol)
    sampled_any = any(f(s) for s in samples(length, step))
    assert (t is None) == (not sampled_any)
    brute = brute_first_true(f, length)
    if t is None:
        # the brute scan can only find a window narrower than one step, between samples
        if brute is not None:
            ts = samples(length, step)
            k = max(i for i, s in enumerate(ts) if s <= brute)
            assert k + 1 < len(ts) and not f(ts[k + 1])
        return
    assert 0.0 <= t <= length
    assert f(t)
    if t > tol:
        assert not f(t - tol)
    assert brute is not None
    assert brute - 0.001 - 1e-9 <= t <= brute + tol + 1e-9


class TestFirstCrossing:
    def test_worked_threshold(self):
        """ACW-PD-24: a 6" approach trigger along a straight 10" move."""
        t = first_crossing(lambda s: s >= 3.37, 10.0, step=0.25, tol=0.01)
        assert t is not None and 3.37 <= t <= 3.38
        assert first_crossing(lambda s: True, 10.0) == 0.0
        assert first_crossing(lambda s: False, 10.0) is None
        assert first_crossing(lambda s: s >= 10.0, 10.0) == 10.0    # only at the end point
        assert first_crossing(lambda s: s >= 0.1, 0.1) == pytest.approx(0.1)
        assert first_crossing(lambda s: False, 0.0) is None
        with pytest.raises(ParameterError):
            first_crossing(lambda s: True, 1.0, step=0.0)
        with pytest.raises(ParameterError):
            first_crossing(lambda s: True, -1.0)
        with pytest.raises(ParameterError):
            first_crossing(lambda s: True, 1.0, tol=0.0)

    @SETTINGS
    @given(fl(0.0, 20.0), fl(0.0, 25.0), fl(0.01, 1.0),
           fl(0.001, 0.1))
    def test_monotone_threshold(self, c, length, step, tol):
        """ACW-PD-24: for a monotone predicate the crossing is found within tol of the
        exact point, and None exactly when it lies beyond the path."""
        t = first_crossing(lambda s: s >= c, length, step, tol)
        if c > length:
            assert t is None
        else:
            assert t is not None and c <= t <= c + tol + 1e-12

    @SETTINGS
    @given(footprints(-10, 10), footprints(-10, 10), fl(0.5, 8.0),
           fl(0.0, 16.0), fl(0.05, 0.5), fl(0.002, 0.05))
    def test_clear_for_shortcut_gives_the_same_answer_with_fewer_calls(
            self, mover, target, r, length, step, tol):
        """ACW-PD-24: the ``clear_for`` shortcut (a lower bound on the distance still to
        travel before the predicate can hold) never changes the result; it only skips samples.
        """
        calls = {"plain": 0, "fast": 0}

        def pred(key):
            def f(s: float) -> bool:
                calls[key] += 1
                return footprint_distance(mover.advanced(s), target) <= r
            return f

        def clear_for(s: float) -> float:
            cx, cy, cr = mover.advanced(s).bounding_circle()
            tx, ty, tr = target.bounding_circle()
            return max(0.0, math.hypot(cx - tx, cy - ty) - cr - tr - r - 1e-6)

        plain = first_crossing(pred("plain"), length, step, tol)
        fast = first_crossing(pred("fast"), length, step, tol, clear_for)
        assert fast == plain
        assert calls["fast"] <= calls["plain"]

    def test_clear_for_skips_far_samples(self):
        """A target 10" ahead of a 3" trigger: 7" of the path are known clear at once, so the
        predicate is called only from there on (28 samples of 0.25" are skipped)."""
        seen: list[float] = []

        def f(s: float) -> bool:
            seen.append(s)
            return s >= 7.0

        t = first_crossing(f, 12.0, 0.25, 0.01, clear_for=lambda s: max(0.0, 7.0 - s - 1e-6))
        assert t == 7.0
        # f(0); samples 0.25 .. 6.75 skipped; 7.0 True; then bisection inside (6.75, 7.0)
        assert seen[:2] == [0.0, 7.0]
        assert all(6.75 < s < 7.0 for s in seen[2:]) and len(seen) == 2 + 5

    @pytest.mark.slow
    @BRUTE_SETTINGS
    @given(footprints(-10, 10), footprints(-10, 10), fl(0.5, 8.0),
           fl(0.0, 16.0), fl(0.05, 0.5), fl(0.002, 0.05))
    def test_within_range_trigger_matches_brute_force(self, mover, target, r, length, step, tol):
        """ACW-PD-24 / I-25: 'mover's footprint comes within R of a fixed unit' along a
        straight advance; distance is convex along the path so the True set is an interval."""
        def f(s: float) -> bool:
            return footprint_distance(mover.advanced(s), target) <= r
        check_crossing(f, length, step, tol)

# ---------------------------------------------------------------------------------------------
# Motion primitives: ACW-PD-21
# ---------------------------------------------------------------------------------------------
class TestMotion:
    def test_worked_wheel(self):
        """ACW-PD-21.2: a 5" line facing +y wheels 45 degrees CCW on its left corner."""
        fp = Footprint(0.0, 0.0, math.pi / 2, 5.0, 1.0)
        w = fp.wheeled(math.pi / 4, "left")
        assert w.corners()[0] == pytest.approx((-2.5, 0.0), abs=1e-12)
        assert w.heading == pytest.approx(3 * math.pi / 4)
        # the outer (right) corner swings through 45 degrees on a 5" radius
        assert w.corners()[1] == pytest.approx(
            (-2.5 + 5 * math.cos(math.pi / 4), 5 * math.sin(math.pi / 4)), abs=1e-12)
        # pivoting on the right corner, a clockwise (negative) wheel swings the left end forward
        w2 = fp.wheeled(-math.pi / 4, "right")
        assert w2.corners()[1] == pytest.approx((2.5, 0.0), abs=1e-12)
        assert w2.corners()[0] == pytest.approx(
            (2.5 - 5 * math.cos(math.pi / 4), 5 * math.sin(math.pi / 4)), abs=1e-12)
        # face about: same centre, reversed facing
        f = fp.faced(math.pi)
        assert f.centre() == pytest.approx(fp.centre(), abs=1e-12)
        assert f.forward() == pytest.approx((0.0, -1.0), abs=1e-12)
        assert (f.x, f.y) == pytest.approx((0.0, -1.0), abs=1e-12)
        with pytest.raises(ParameterError):
            fp.wheeled(0.1, "centre")
        with pytest.raises(ParameterError):
            Footprint(0.0, 0.0, 0.0, 0.0, 1.0)
        with pytest.raises(ParameterError):
            Footprint(0.0, 0.0, 0.0, 1.0, -1.0)
        with pytest.raises(ParameterError):
            Footprint(math.nan, 0.0, 0.0, 1.0, 1.0)
        with pytest.raises(ParameterError):
            fp.advanced(math.inf)

    @SETTINGS
    @given(footprints(), fl(-20, 20), fl(-5, 5))
    def test_advance_and_sidestep_round_trip(self, fp, d, s):
        """ACW-PD-21.1: advancing d then -d (and side-stepping s then -s) returns home; the
        advance moves the front centre exactly d along the facing."""
        assert close_fp(fp.advanced(d).advanced(-d), fp, 1e-9)
        assert close_fp(fp.sidestepped(s).sidestepped(-s), fp, 1e-9)
        a = fp.advanced(d)
        assert a.to_local((fp.x, fp.y)) == pytest.approx((0.0, -d), abs=1e-9)
        sd = fp.sidestepped(s)
        assert fp.to_local((sd.x, sd.y)) == pytest.approx((s, 0.0), abs=1e-9)

    @SETTINGS
    @given(footprints(), angle, st.sampled_from(["left", "right"]))
    def test_wheel_keeps_pivot_fixed(self, fp, ang, pivot):
        """ACW-PD-21.2: a wheel pivots on a front corner, which stays fixed; the heading turns
        by the wheel angle; the outer corner travels W * |angle| of arc (chord checked)."""
        w = fp.wheeled(ang, pivot)
        k = 0 if pivot == "left" else 1
        assert w.corners()[k] == pytest.approx(fp.corners()[k], abs=1e-9)
        assert angle_diff(w.heading, fp.heading) == pytest.approx(angle_diff(ang, 0.0), abs=1e-9)
        outer_old, outer_new = fp.corners()[1 - k], w.corners()[1 - k]
        chord = math.dist(outer_old, outer_new)
        assert chord == pytest.approx(2 * fp.width * abs(math.sin(ang / 2)), abs=1e-9)

    @SETTINGS
    @given(footprints(), angle)
    def test_face_round_trips(self, fp, ang):
        """ACW-PD-21.4: facing about twice restores the unit; any facing keeps the centre."""
        assert close_fp(fp.faced(math.pi).faced(math.pi), fp, 1e-9)
        assert close_fp(fp.faced(ang).faced(-ang), fp, 1e-9)
        assert fp.faced(ang).centre() == pytest.approx(fp.centre(), abs=1e-9)

    @SETTINGS
    @given(footprints(), point, angle)
    def test_corners_keep_shape(self, fp, pivot, ang):
        """ACW-PD-16: corners form a W x D rectangle (also after rigid moves)."""
        for g in (fp, fp.rotated_about(pivot, ang)):
            fl, fr, rr, rl = g.corners()
            assert math.dist(fl, fr) == pytest.approx(g.width, abs=1e-9)
            assert math.dist(rl, rr) == pytest.approx(g.width, abs=1e-9)
            assert math.dist(fl, rl) == pytest.approx(g.depth, abs=1e-9)
            assert math.dist(fr, rr) == pytest.approx(g.depth, abs=1e-9)
            assert math.dist(fl, rr) == pytest.approx(math.hypot(g.width, g.depth), abs=1e-9)
            assert rect(g).area == pytest.approx(g.width * g.depth, rel=1e-9)
            assert rect(g).exterior.is_ccw is False   # FL, FR, RR, RL runs clockwise
            assert (g.x, g.y) == pytest.approx(
                ((fl[0] + fr[0]) / 2, (fl[1] + fr[1]) / 2), abs=1e-9)

    @SETTINGS
    @given(footprints(), size, size)
    def test_with_size_keeps_front_centre(self, fp, w, d):
        """ACW-PD-21.5 helper: resizing keeps the front-edge centre and heading."""
        g = fp.with_size(w, d)
        assert (g.x, g.y, g.heading, g.width, g.depth) == (fp.x, fp.y, fp.heading, w, d)
        assert g.to_local(g.centre()) == pytest.approx((0.0, -d / 2), abs=1e-9)

    @SETTINGS
    @given(angle, angle)
    def test_angle_diff(self, a, b):
        """Signed smallest angle difference lies in (-pi, pi] and differs from a-b by 2*pi*k."""
        d = angle_diff(a, b)
        assert -math.pi < d <= math.pi
        k = (a - b - d) / (2 * math.pi)
        assert k == pytest.approx(round(k), abs=1e-9)
        assert angle_diff(math.pi, 0.0) == math.pi
        assert angle_diff(-math.pi, 0.0) == math.pi
        assert angle_diff(0.1, 2 * math.pi) == pytest.approx(0.1)


class TestFootprintCache:
    def test_bounding_circle_is_the_centre_and_half_diagonal(self):
        fp = Footprint(10.0, 5.0, math.pi / 2, 6.0, 2.0)
        cx, cy, r = fp.bounding_circle()
        assert (cx, cy) == fp.centre()
        assert cy == pytest.approx(4.0) and r == pytest.approx(math.hypot(6.0, 2.0) / 2)
        assert fp.bounding_circle() is fp.bounding_circle()  # computed once

    def test_copies_and_fields_ignore_the_cache(self):
        import copy
        import dataclasses
        import pickle
        fp = Footprint(1.0, 2.0, 0.5, 3.0, 1.0)
        fp.bounding_circle()
        assert dataclasses.asdict(fp) == {"x": 1.0, "y": 2.0, "heading": 0.5, "width": 3.0,
                                          "depth": 1.0}
        assert copy.deepcopy(fp) is fp
        back = pickle.loads(pickle.dumps(fp))
        assert back == fp and hash(back) == hash(fp)
        with pytest.raises(dataclasses.FrozenInstanceError):
            fp.x = 3.0  # type: ignore[misc]


class TestInteriorsOverlap:
    def test_base_contact_is_not_an_interior_overlap(self):
        """ACW-PD-21.8: edge-to-edge contact overlaps() but is not an interior overlap; moving
        0.05" into the other footprint is."""
        a = Footprint(0.0, 0.0, math.pi / 2, 5.0, 1.0)      # covers y in [-1, 0]
        b = Footprint(0.0, 1.0, math.pi / 2, 5.0, 1.0)      # covers y in [0, 1]: touching
        side = Footprint(5.0, 0.0, math.pi / 2, 5.0, 1.0)   # flank to flank
        assert overlaps(a, b) and not interiors_overlap(a, b)
        assert overlaps(a, side) and not interiors_overlap(a, side)
        assert interiors_overlap(a.advanced(0.05), b)
        assert not interiors_overlap(a.advanced(-0.05), b)
        assert not interiors_overlap(a.advanced(3.0), side)  # sliding along the flank
        assert interiors_overlap(a, a)
        with pytest.raises(ParameterError):
            interiors_overlap(a, b, margin=-1.0)


# The two-pass form footprint_distance was written from (its inlined hot-path twin must give
# the very same floats).
def _corner_pass(fp: Footprint, pts) -> tuple[bool, float]:
    """One half of the rectangle-rectangle test, in ``fp``'s frame: whether ``pts`` (the
    other rectangle's corners) are separated from ``fp`` on one of its axes (SAT, beyond
    EPS), and the smallest distance from those points to ``fp``'s filled rectangle."""
    h = fp.heading
    c = math.cos(h)
    s = math.sin(h)
    x0 = fp.x
    y0 = fp.y
    hw = 0.5 * fp.width
    d = fp.depth
    minx = miny = math.inf
    maxx = maxy = -math.inf
    best2 = math.inf
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
        ex = (lx if lx > 0.0 else -lx) - hw
        if ly > 0.0:
            ey = ly
        else:
            ey = -d - ly
            if ey < 0.0:
                ey = 0.0
        if ex < 0.0:
            d2 = ey * ey
        else:
            d2 = ex * ex + ey * ey
        if d2 < best2:
            best2 = d2
    sep = (maxx < -hw - EPS or minx > hw + EPS or miny > EPS or maxy < -d - EPS)
    return sep, best2



def reference_footprint_distance(a: Footprint, b: Footprint) -> float:
    sep_b, d2_b = _corner_pass(b, a.corners())
    sep_a, d2_a = _corner_pass(a, b.corners())
    if not (sep_a or sep_b):
        return 0.0
    return math.sqrt(d2_a if d2_a < d2_b else d2_b)


@pytest.mark.slow
@SETTINGS
@given(footprints(-10, 10), footprints(-10, 10))
def test_footprint_distance_equals_the_two_pass_reference_exactly(a, b):
    """I-25 / ACW-PD-16: the unrolled footprint_distance returns bit-identical floats."""
    assert footprint_distance(a, b) == reference_footprint_distance(a, b)
    assert footprint_distance(b, a) == reference_footprint_distance(b, a)
    assert (footprint_distance(a, b) == 0.0) == overlaps(a, b)


@pytest.mark.slow
@SETTINGS
@given(footprints(-10, 10), footprints(-10, 10), fl(0.0, 20.0))
def test_distance_exceeds_agrees_with_footprint_distance(a, b, limit):
    """I-25: the bounding-circle shortcuts of distance_exceeds never change the answer."""
    assert distance_exceeds(a, b, limit) == (footprint_distance(a, b) > limit)
    d = footprint_distance(a, b)
    assert distance_exceeds(a, b, d - 1e-3) and not distance_exceeds(a, b, d)
