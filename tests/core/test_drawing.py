"""envs.core.drawing: shape validation, drawing order and the SVG renderer."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from envs.core.drawing import (ROLES, Circle, Drawing, Polygon, Polyline, Text, text_drawing,
                               to_svg)
from envs.core.errors import ParameterError

NS = "{http://www.w3.org/2000/svg}"


def test_svg_flips_y_and_keeps_titles_and_roles():
    d = Drawing(10.0, 5.0, (
        Text(5.0, 1.0, "label <&>", role="label"),
        Polygon(((0.0, 0.0), (2.0, 0.0), (2.0, 1.0)), fill="#ff0000", title="a stand"),
        Polyline(((0.0, 5.0), (10.0, 5.0)), role="terrain", dash=True, arrow=True),
        Circle(1.0, 4.0, 0.5, role="objective", title="objective: farm"),
    ), caption="turn 1")
    root = ET.fromstring(to_svg(d, scale=10, element_id="table"))
    assert root.get("viewBox") == "0 0 10 5" and root.get("width") == "100"
    assert root.get("id") == "table"
    kids = [el for el in root if el.tag != NS + "defs"]
    # drawing order by role: table rect, terrain, objective, unit, label
    assert [el.get("class") for el in kids] == ["table", "terrain", "objective", "unit", "label"]
    poly = root.find(NS + "polygon")
    assert poly.get("points") == "0,5 2,5 2,4"  # y flipped: table y=0 is the bottom edge
    assert poly.find(NS + "title").text == "a stand"
    circle = root.find(NS + "circle")
    assert (circle.get("cx"), circle.get("cy")) == ("1", "1")
    line = root.find(NS + "polyline")
    assert line.get("stroke-dasharray") and line.get("marker-end") == "url(#arrowhead)"
    assert root.find(NS + "text").text == "label <&>"  # escaped in markup, intact once parsed


def test_drawing_order_follows_roles():
    shapes = (Text(0, 0, "t", role="text"), Circle(1, 1, 1, role="table"),
              Polygon(((0, 0), (1, 0), (0, 1)), role="trigger"))
    assert [s.role for s in Drawing(2, 2, shapes).ordered()] == ["table", "trigger", "text"]
    assert ROLES.index("trigger") < ROLES.index("unit") < ROLES.index("label")


@pytest.mark.parametrize("make", [
    lambda: Polygon(((0, 0), (1, 1))),
    lambda: Polyline(((0, 0),)),
    lambda: Circle(0, 0, 0),
    lambda: Text(0, 0, "x", role="nonsense"),
    lambda: Text(0, 0, "x", anchor="left"),
    lambda: Drawing(0, 3),
])
def test_bad_shapes_are_refused(make):
    with pytest.raises(ParameterError):
        make()


def test_text_drawing_and_the_default_game_drawing():
    d = text_drawing(["one", "two"], caption="c")
    assert [s.text for s in d.shapes] == ["one", "two"] and d.caption == "c"
    from tests.toy_ruleset import ToyGame  # a ruleset without a drawing of its own
    g = ToyGame()
    st = g.new_initial_state()
    texts = [s.text for s in g.drawing(st).shapes]
    assert texts == g.observation_string(st, 0).splitlines()
