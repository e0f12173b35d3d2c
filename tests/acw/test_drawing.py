"""The ACW table drawing (envs.rulesets.acw_regimental.drawing): stands with facing marks and
labels, terrain, objectives, markers, and the trigger geometry of open reaction windows."""

from __future__ import annotations

import math

import pytest

from envs import load_game
from envs.core.drawing import Circle, Polygon, Polyline, Text, to_svg
from envs.core.replay import ReplayScript
from envs.rulesets.acw_regimental.drawing import stand_polygons

GOLDEN = "tests/acw/golden/"


def play(scenario: str, labels: list[str], **params):
    g = load_game("acw_regimental", scenario, {"pips_fixed": True, **params})
    s = g.new_initial_state()
    for lab in labels:
        s.apply_action(s.string_to_action(lab))
    return g, s


def test_default_table_has_every_stand_terrain_and_objective():
    g = load_game("acw_regimental")
    s = g.new_initial_state()
    d = g.drawing(s)
    assert (d.width, d.height) == (48.0, 36.0)
    units = [u for side in s.units for u in side if u is not None and u.alive]
    stands = [sh for sh in d.shapes if isinstance(sh, Polygon) and sh.role == "unit"]
    assert len(stands) == sum(u.stands for u in units)
    assert sum(1 for sh in d.shapes if sh.role == "facing") == len(units)
    labels = {sh.text for sh in d.shapes if isinstance(sh, Text)}
    assert {f"{u.name} ({u.stands})" for u in units} <= labels
    spec = g.spec
    assert {o.name for o in spec.objectives} <= labels
    assert sum(1 for sh in d.shapes if sh.role == "objective") == len(spec.objectives) > 0
    terrain = [sh.title for sh in d.shapes if sh.role == "terrain"]
    assert f"{spec.terrain.woods[0].name} (woods)" in terrain and "pike (road)" in terrain
    assert not [sh for sh in d.shapes if sh.role == "trigger"]  # no window open
    assert d.caption.startswith("Turn 1/10 · Union player-turn · phase 1") and d.caption.endswith("dice")
    assert "<svg" in to_svg(d)


def test_stands_tile_the_footprint():
    g = load_game("acw_regimental")
    u = g.new_initial_state().units[0][0]  # 1st Minnesota, 5 stands in Line
    polys = stand_polygons(u)
    assert len(polys) == u.stands
    area = sum(0.5 * abs(sum(p[i][0] * p[(i + 1) % 4][1] - p[(i + 1) % 4][0] * p[i][1]
                             for i in range(4))) for p in polys)
    assert area == pytest.approx(u.fp.width * u.fp.depth)
    fx, fy = u.fp.x, u.fp.y
    # every stand lies behind the front edge (the unit faces +y, heading 90°)
    assert math.isclose(u.fp.heading, math.pi / 2)
    assert max(p[1] for poly in polys for p in poly) == pytest.approx(fy)
    assert min(p[0] for poly in polys for p in poly) == pytest.approx(fx - u.fp.width / 2)


def test_window_b2_shows_the_4_inch_mark_and_the_charge_path():
    g, s = play("example_a_closing_volley", ["activate:u0", "charge:e0"])
    assert s.legal_labels() == ["react:closing_volley", "react:decline"]
    d = g.drawing(s)
    trig = [sh for sh in d.shapes if sh.role == "trigger"]
    mark = [sh for sh in trig if isinstance(sh, Polyline) and "4.0\" mark" in sh.title]
    assert len(mark) == 1
    (x0, y0), (x1, y1) = mark[0].points
    # the 5th Virginia faces down the table from y=18: the mark is 4.0" in front, at y=14
    assert y0 == pytest.approx(14.0) and y1 == pytest.approx(14.0)
    assert any(isinstance(sh, Text) and sh.text == '4.0"' for sh in d.shapes)
    paths = [sh for sh in d.shapes if sh.role == "path"]
    assert len(paths) == 1 and paths[0].arrow and "charges" in paths[0].title
    hl = {sh.stroke for sh in d.shapes if sh.role == "unit"}
    assert "#d62728" in hl  # defender and charger outlined


def test_window_a_opportunity_fire_shows_arc_bands_and_the_rest_of_the_move():
    g, s = play("example_c_opportunity_fire", ["activate:u0", "advance:all"])
    assert "react:wait_short" in s.legal_labels()
    d = g.drawing(s)
    bands = [sh for sh in d.shapes if sh.role == "trigger" and isinstance(sh, Polygon)]
    assert len(bands) == 2 and any("Medium" in b.title for b in bands)
    assert any("Short" in b.title for b in bands)
    path = [sh for sh in d.shapes if sh.role == "path"]
    assert len(path) == 1 and "rest of" in path[0].title


def test_disorder_and_smoke_markers():
    # after the Short-range shot the Georgians are Disordered and the Wisconsin has smoke
    st = ReplayScript.load(GOLDEN + "example_c.toml").play()
    d2 = st.game.drawing(st)
    titles = [sh.title for sh in d2.shapes if isinstance(sh, Circle)]
    assert "Disorder marker (ACW-PD-31)" in titles and "Smoke Marker (ACW-PD-32)" in titles


def test_window_refuse_the_flank_shows_the_flank_zones():
    st = ReplayScript.load(GOLDEN + "example_b.toml")
    g = load_game(st.ruleset, st.scenario, st.params)
    s = g.new_initial_state()
    for lab in st.actions:
        if s.decision_name() == "reaction" and any(l.startswith("react:refuse")
                                                     for l in s.legal_labels()):
            break
        s.apply_action(s.string_to_action(lab))
    else:
        pytest.fail("example B never asks for Refuse the Flank")
    zones = [sh for sh in g.drawing(s).shapes if sh.role == "trigger" and isinstance(sh, Polygon)]
    assert len(zones) == 2 and all("Refuse the Flank" in z.title for z in zones)


def test_caption_at_the_end_names_the_last_turn():
    """A game that ends on time has moved its turn counter past the last turn."""
    import numpy as np

    from envs.core.testing import play_random_game

    g = load_game("acw_regimental", None, {"turns": 1})
    state = play_random_game(g, np.random.default_rng(0))
    caption = g.drawing(state).caption
    assert caption.startswith("Turn 1/1 · ") and caption.endswith(" · game over"), caption
