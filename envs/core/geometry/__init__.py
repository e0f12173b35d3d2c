"""Plane geometry for unit footprints: oriented rectangles, distances, contact, polygons and
path crossings, for any ruleset that places units on a table measured in inches.

Coordinates are table coordinates: x to the right, y "up" the table, all lengths in inches
(the code itself is unit agnostic), angles in radians, counter-clockwise positive. Points are
plain ``(x, y)`` tuples of floats.

* :mod:`.rect` — :class:`Footprint`, the oriented rectangle of a unit, described from the
  centre of its front edge; its transforms (advance, side-step, wheel, face); ``angle_diff``.
* :mod:`.segments` — points, segments and simple polygons (terrain areas, lines of sight).
* :mod:`.contact` — footprint to footprint: overlap, base contact, closest-point distances,
  distance to a front edge or a polygon.
* :mod:`.paths` — :func:`first_crossing`: the first point of a path where a predicate holds.

A ruleset's own zones belong to the ruleset: ACW's forward arc and flank and rear zones
(ACW-PD-16, I-9) are :mod:`envs.rulesets.acw_regimental.arcs`.

Everything is pure Python floats and :mod:`math` (the hot path of the rules engine): no numpy,
no shapely. Boundary tolerance: inequalities that decide zones and contact accept an error of
:data:`EPS` (1e-9 inches) so that points on a boundary (two footprints placed flush by a
rotation, say) are not lost to rounding.
"""

from .contact import (distance_exceeds, distance_to_front_edge, footprint_distance,
                      footprint_polygon_distance, interiors_overlap, overlaps)
from .paths import first_crossing
from .rect import EPS, Footprint, Vec, angle_diff
from .segments import (point_segment_distance, polygon_contains, segment_crosses_polygon,
                       segment_distance, segments_intersect)

__all__ = [
    "EPS", "Vec", "Footprint", "angle_diff", "point_segment_distance", "segment_distance",
    "segments_intersect", "polygon_contains", "segment_crosses_polygon", "footprint_distance",
    "overlaps", "interiors_overlap", "distance_exceeds", "distance_to_front_edge",
    "footprint_polygon_distance", "first_crossing",
]
