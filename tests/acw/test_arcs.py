"""ACW's forward arc and zones (ACW-PD-16, I-9): :mod:`envs.rulesets.acw_regimental.arcs`,
against an independent transcription of the PD-16 inequalities, and the Window A trigger
'enters the forward arc within 8"' found along a path (ACW-PD-24)."""

from __future__ import annotations

import math

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from envs.core.geometry import Footprint, footprint_distance
from envs.rulesets.acw_regimental.arcs import in_forward_arc, zone_of
from tests.core.test_geometry import (BRUTE_SETTINGS, SETTINGS, angle, check_crossing, fl,
                                      footprints, point)


def pd16_local(fp: Footprint, p) -> tuple[float, float]:
    """Independent PD-16 frame: +y = facing, +x = facing rotated by -90 degrees."""
    h = fp.heading
    dx, dy = p[0] - fp.x, p[1] - fp.y
    fx, fy = math.cos(h), math.sin(h)
    rx, ry = math.cos(h - math.pi / 2), math.sin(h - math.pi / 2)
    return dx * rx + dy * ry, dx * fx + dy * fy


def pd16_zone(fp: Footprint, p) -> str:
    lx, ly = pd16_local(fp, p)
    if ly >= 0 and abs(lx) <= fp.width / 2 + ly:
        return "front"
    if ly <= -fp.depth:
        return "rear"
    return "left" if lx < 0 else "right"


def boundary_margin(fp: Footprint, p) -> float:
    """Distance-like margin of p from every PD-16 zone boundary (for robust comparisons)."""
    lx, ly = pd16_local(fp, p)
    hw = fp.width / 2
    margins = [abs(ly + fp.depth), abs(abs(lx) - hw - ly) / math.sqrt(2), abs(lx)]
    if abs(lx) <= hw:
        margins.append(abs(ly))
    return min(margins)


class TestZones:
    def test_worked_zones(self):
        """ACW-PD-16, I-9: ahead = front, behind beyond depth = rear, beside = left/right."""
        fp = Footprint(10.0, 5.0, math.pi / 2, 4.0, 2.0)   # facing +y, right is +x
        assert zone_of(fp, (10.0, 12.0)) == "front"
        assert zone_of(fp, (10.0, 2.5)) == "rear"          # ly = -2.5 <= -D
        assert zone_of(fp, (5.0, 4.0)) == "left"
        assert zone_of(fp, (15.0, 4.0)) == "right"
        # the arc widens at 45 degrees: 3" ahead it reaches 2 + 3 = 5" either side of centre
        assert in_forward_arc(fp, (14.9, 8.0)) and in_forward_arc(fp, (5.1, 8.0))
        assert not in_forward_arc(fp, (15.1, 8.0)) and not in_forward_arc(fp, (4.9, 8.0))
        assert zone_of(fp, (15.1, 8.0)) == "right"
        assert zone_of(fp, (4.9, 8.0)) == "left"
        # the strip beside the unit, down to the rear edge, is flank (PD-16)
        assert zone_of(fp, (12.5, 3.1)) == "right"
        assert zone_of(fp, (12.5, 3.0)) == "rear"

    @pytest.mark.slow
    @SETTINGS
    @given(footprints(), point)
    def test_zone_matches_pd16_inequalities(self, fp, p):
        """ACW-PD-16, I-9: zone_of / in_forward_arc follow the PD-16 inequalities and
        partition the plane."""
        assume(boundary_margin(fp, p) > 1e-6)
        z = zone_of(fp, p)
        assert z in ("front", "rear", "left", "right")
        assert z == pd16_zone(fp, p)
        assert in_forward_arc(fp, p) == (z == "front")

    @pytest.mark.slow
    @SETTINGS
    @given(footprints(-10, 10), st.tuples(fl(-10, 10), fl(-10, 10)),
           point, angle, fl(-20, 20), fl(-20, 20))
    def test_zone_invariant_under_rigid_motion(self, fp, p, pivot, ang, dx, dy):
        """ACW-PD-16: zones depend only on the relative placement of unit and point."""
        assume(boundary_margin(fp, p) > 1e-6)
        moved = fp.rotated_about(pivot, ang).shifted(dx, dy)
        c, s = math.cos(ang), math.sin(ang)
        rx, ry = p[0] - pivot[0], p[1] - pivot[1]
        q = (pivot[0] + rx * c - ry * s + dx, pivot[1] + rx * s + ry * c + dy)
        assert zone_of(moved, q) == zone_of(fp, p)
        assert moved.to_local(q) == pytest.approx(fp.to_local(p), abs=1e-9)

    @pytest.mark.slow
    @SETTINGS
    @given(footprints(), fl(0.0, 40.0), st.sampled_from([-1, 1]),
           fl(1e-4, 5.0))
    def test_45_degree_rays_from_front_corners(self, fp, t, side, off):
        """I-9, ACW-PD-16: points on the 45-degree rays from the front corners are in the
        forward arc; points just outside them (further out sideways) are not."""
        hw = fp.width / 2
        on_ray = fp.to_table((side * (hw + t), t))
        assert in_forward_arc(fp, on_ray)
        assert zone_of(fp, on_ray) == "front"
        outside = fp.to_table((side * (hw + t + off), t))
        assert not in_forward_arc(fp, outside)
        assert zone_of(fp, outside) == ("right" if side > 0 else "left")

    @pytest.mark.slow
    @SETTINGS
    @given(footprints(), footprints(), fl(0.0, 20.0), fl(-3.0, 3.0))
    def test_unit_centres_ahead_behind_beside(self, fp, other, gap, lateral):
        """ACW-PD-16 (zone of a unit = zone of its centre point): a unit directly ahead is
        'front', directly behind beyond the depth is 'rear', beside is left/right with the
        sign of local x."""
        hw = fp.width / 2
        ahead = other.shifted(*(a - b for a, b in zip(fp.to_table((lateral * hw / 3, gap)),
                                                       other.centre())))
        assert zone_of(fp, ahead.centre()) == "front"
        behind = fp.to_table((lateral * hw / 3, -fp.depth - gap - 1e-6))
        assert zone_of(fp, behind) == "rear"
        for sgn, name in ((-1, "left"), (1, "right")):
            beside = fp.to_table((sgn * (hw + gap + 0.01), -fp.depth / 2))
            assert zone_of(fp, beside) == name

    @pytest.mark.slow
    @BRUTE_SETTINGS
    @given(footprints(-10, 10), footprints(-10, 10), fl(0.0, 16.0),
           fl(0.05, 0.5), fl(0.002, 0.05))
    def test_enters_arc_within_8_matches_brute_force(self, mover, defender, length, step, tol):
        """ACW-PD-24 / ACW-PD-16: 'mover's centre enters the defender's forward arc within
        8"' (both sets convex, so the trigger set along a straight path is an interval)."""
        def f(s: float) -> bool:
            m = mover.advanced(s)
            return in_forward_arc(defender, m.centre()) and footprint_distance(m, defender) <= 8.0
        check_crossing(f, length, step, tol)
