"""A character grid over a tabletop, for text sketches of a position (tests, debugging).

:class:`TextGrid` maps table coordinates (inches; ``x`` to the right, ``y`` up the table) onto
cells of ``cell_width`` x ``cell_depth`` inches and draws points, segments, filled polygons and
arrows into them; :meth:`TextGrid.render` prints the grid with the far edge (largest ``y``) on
top, framed, with inch marks along both axes. A ruleset builds its own sketch on it (what a unit
looks like, which terrain there is): e.g. ``envs.rulesets.acw_regimental.sketch.render_sketch``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

from .errors import ParameterError
from .geometry import polygon_contains

Vec = tuple[float, float]

#: arrows for 8 headings, counter-clockwise from +x (east) in 45-degree steps
ARROWS = "→↗↑↖←↙↓↘"


def heading_arrow(heading: float) -> str:
    """The arrow of :data:`ARROWS` nearest to ``heading`` (radians, counter-clockwise from +x)."""
    return ARROWS[round(heading / (math.pi / 4)) % 8]


class TextGrid:
    """A grid of characters covering the rectangle ``[x0, x1] x [y0, y1]`` inches.

    Args:
        x0, y0, x1, y1: the covered rectangle (inches), ``x0 < x1`` and ``y0 < y1``.
        cell_width, cell_depth: inches per column and per row (> 0); the default 1" x 2" keeps
            the sketch roughly to scale in a terminal font, whose cells are about twice as high
            as wide.

    Raises:
        ParameterError: for an empty rectangle or a cell size that is not > 0.
    """

    def __init__(self, x0: float, y0: float, x1: float, y1: float,
                 cell_width: float = 1.0, cell_depth: float = 2.0):
        if not (x1 > x0 and y1 > y0):
            raise ParameterError(f"TextGrid: empty rectangle x {x0}..{x1}, y {y0}..{y1}")
        if not (cell_width > 0 and cell_depth > 0):
            raise ParameterError(f"TextGrid: cell size must be > 0, got {cell_width} x "
                                 f"{cell_depth}")
        self.x0, self.y0, self.x1, self.y1 = x0, y0, x1, y1
        self.cell_width, self.cell_depth = cell_width, cell_depth
        self.columns = max(1, math.ceil((x1 - x0) / cell_width - 1e-9))
        self.rows = max(1, math.ceil((y1 - y0) / cell_depth - 1e-9))
        #: ``cells[row][column]``; row 0 is the bottom (smallest ``y``)
        self.cells = [[" "] * self.columns for _ in range(self.rows)]

    # -- coordinates ------------------------------------------------------------------------
    def cell_of(self, point: Vec) -> tuple[int, int] | None:
        """``(row, column)`` of the cell holding ``point``, or ``None`` outside the grid."""
        x, y = point
        if not (self.x0 <= x <= self.x1 and self.y0 <= y <= self.y1):
            return None
        col = min(int((x - self.x0) / self.cell_width), self.columns - 1)
        row = min(int((y - self.y0) / self.cell_depth), self.rows - 1)
        return row, col

    def cell_centre(self, row: int, column: int) -> Vec:
        """Table coordinates (inches) of the centre of cell ``(row, column)``."""
        return (self.x0 + (column + 0.5) * self.cell_width,
                self.y0 + (row + 0.5) * self.cell_depth)

    # -- drawing ----------------------------------------------------------------------------
    def get(self, point: Vec) -> str | None:
        """The character at ``point`` (``None`` outside the grid)."""
        rc = self.cell_of(point)
        return None if rc is None else self.cells[rc[0]][rc[1]]

    def put(self, point: Vec, char: str, *, over: bool = True) -> bool:
        """Write ``char`` (one character) at ``point``; with ``over=False`` only into a blank
        cell. Returns whether it was written."""
        rc = self.cell_of(point)
        if rc is None or (not over and self.cells[rc[0]][rc[1]] != " "):
            return False
        self.cells[rc[0]][rc[1]] = char
        return True

    def segment(self, a: Vec, b: Vec, char: str, *, over: bool = True) -> None:
        """Draw the segment ``a``-``b`` (sampled every quarter of the smaller cell side)."""
        step = min(self.cell_width, self.cell_depth) / 4
        n = max(1, math.ceil(math.dist(a, b) / step))
        for i in range(n + 1):
            t = i / n
            self.put((a[0] + t * (b[0] - a[0]), a[1] + t * (b[1] - a[1])), char, over=over)

    def polyline(self, points: Sequence[Vec], char: str, *, closed: bool = False,
                 over: bool = True) -> None:
        """Draw consecutive segments through ``points`` (and back to the first if ``closed``)."""
        pts = list(points) + ([points[0]] if closed and points else [])
        for a, b in zip(pts, pts[1:]):
            self.segment(a, b, char, over=over)

    def fill_polygon(self, polygon: Sequence[Vec], char: str, *, over: bool = True) -> int:
        """Write ``char`` into every cell the polygon covers: cells holding a point of the
        polygon sampled every quarter cell (interior and edges), so a unit thinner than a row
        still shows. Returns the number of cells written."""
        xs = [p[0] for p in polygon]
        ys = [p[1] for p in polygon]
        dx, dy = self.cell_width / 4, self.cell_depth / 4
        touched: set[tuple[int, int]] = set()
        nx = max(1, math.ceil((max(xs) - min(xs)) / dx))
        ny = max(1, math.ceil((max(ys) - min(ys)) / dy))
        for i in range(nx):
            for j in range(ny):
                point = (min(xs) + (max(xs) - min(xs)) * (i + 0.5) / nx,
                         min(ys) + (max(ys) - min(ys)) * (j + 0.5) / ny)
                if polygon_contains(polygon, point):
                    rc = self.cell_of(point)
                    if rc is not None:
                        touched.add(rc)
        # edges, pulled 0.001" toward the centroid so that an edge lying on a cell boundary
        # marks the cell inside the polygon only
        cx, cy = sum(xs) / len(xs), sum(ys) / len(ys)
        for a, b in zip(polygon, list(polygon[1:]) + [polygon[0]]):
            n = max(1, math.ceil(math.dist(a, b) / min(dx, dy)))
            for k in range(n + 1):
                px, py = a[0] + (b[0] - a[0]) * k / n, a[1] + (b[1] - a[1]) * k / n
                gap = math.hypot(cx - px, cy - py)
                if gap > 1e-3:
                    px, py = px + (cx - px) * 1e-3 / gap, py + (cy - py) * 1e-3 / gap
                rc = self.cell_of((px, py))
                if rc is not None:
                    touched.add(rc)
        written = 0
        for row, col in touched:
            if over or self.cells[row][col] == " ":
                self.cells[row][col] = char
                written += 1
        return written

    # -- output -----------------------------------------------------------------------------
    def render(self, *, marks_every: float = 6.0) -> str:
        """The grid, far edge on top, framed, with a ``y`` mark (inches) every ``marks_every``
        inches on the left and ``x`` marks below."""
        def row_of(y: float) -> int:
            return min(int((y - self.y0) / self.cell_depth), self.rows - 1)

        def col_of(x: float) -> int:
            return min(int((x - self.x0) / self.cell_width), self.columns - 1)

        y_marks = {row_of(y): y for y in _marks(self.y0, self.y1, marks_every)}
        x_marks = {col_of(x): x for x in _marks(self.x0, self.x1, marks_every)}
        width = max([len(f"{y:g}") for y in y_marks.values()] + [1])
        lines = [" " * width + " +" + "-" * self.columns + "+"]
        for row in range(self.rows - 1, -1, -1):
            label = f"{y_marks[row]:g}" if row in y_marks else ""
            lines.append(f"{label:>{width}} |" + "".join(self.cells[row]) + "|")
        lines.append(" " * width + " +" + "-" * self.columns + "+")
        axis = [" "] * (self.columns + 8)
        for col, x in sorted(x_marks.items()):
            text = f"{x:g}"
            if all(c == " " for c in axis[col:col + len(text) + 1]):
                axis[col:col + len(text)] = text
        lines.append(" " * (width + 2) + "".join(axis).rstrip())
        return "\n".join(lines)


def _marks(lo: float, hi: float, every: float) -> Iterable[float]:
    """Multiples of ``every`` in ``[lo, hi)``."""
    k = math.ceil(lo / every - 1e-9)
    while k * every < hi - 1e-9:
        yield k * every
        k += 1
