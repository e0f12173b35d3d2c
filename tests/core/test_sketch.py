"""envs.core.sketch: the character grid under the rulesets' table sketches."""

from __future__ import annotations

import math

import pytest

from envs.core.errors import ParameterError
from envs.core.sketch import TextGrid, heading_arrow


def test_grid_draws_far_edge_on_top_with_inch_marks() -> None:
    g = TextGrid(0, 0, 8, 6, cell_width=1, cell_depth=2)
    assert (g.columns, g.rows) == (8, 3)
    assert g.fill_polygon([(1, 1), (4, 1), (4, 2), (1, 2)], "A") == 3  # thinner than a row
    g.segment((0, 5), (7.9, 5), "~")
    assert g.put((6, 3), "*") and not g.put((6, 3), "x", over=False)
    assert not g.put((9, 1), "x")  # off the grid
    assert g.render(marks_every=4) == "\n".join([
        "  +--------+",
        "4 |~~~~~~~~|",
        "  |      * |",
        "0 | AAA    |",
        "  +--------+",
        "   0   4"])


def test_cells_and_edges_on_boundaries() -> None:
    g = TextGrid(10, 20, 14, 24, cell_width=1, cell_depth=1)
    assert g.cell_of((10, 20)) == (0, 0) and g.cell_of((14, 24)) == (3, 3)  # far edges clamp
    assert g.cell_of((9.99, 21)) is None
    assert g.cell_centre(1, 2) == (12.5, 21.5)
    # a rectangle whose edges lie on cell boundaries fills exactly the cells inside it
    assert g.fill_polygon([(11, 21), (13, 21), (13, 23), (11, 23)], "#") == 4
    assert [row.count("#") for row in g.cells] == [0, 2, 2, 0]
    g.polyline([(10, 20), (13.9, 20)], "-")
    assert "".join(g.cells[0]) == "----"


def test_heading_arrows() -> None:
    assert [heading_arrow(math.radians(d)) for d in (0, 45, 90, 135, 180, 225, 270, 315, 359)] \
        == list("→↗↑↖←↙↓↘→")


@pytest.mark.parametrize("args", [(0, 0, 0, 5), (0, 0, 5, -1), (0, 0, 5, 5, 0, 1),
                                  (0, 0, 5, 5, 1, -2)])
def test_bad_grids_are_refused(args: tuple) -> None:
    with pytest.raises(ParameterError, match="TextGrid"):
        TextGrid(*args)
