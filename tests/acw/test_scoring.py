"""Scenario scoring parameters (``[scoring]``: objective VP, objectives scoring at the end or every
game turn; ACW-PD-36) and the default battle "Two Farms" built on them."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from envs import load_game
from envs.core.errors import ScenarioError
from envs.rulesets.acw_regimental.state import ACWState
from envs.rulesets.acw_regimental import queries

HOLDER = """
[[objectives]]
name = "farm"
x = 10.0
y = 6.0

[[units]]
side = 0
name = "A"
kind = "infantry"
stands = 5
formation = "line"
x = 10.0
y = 5.0
facing_deg = 90.0

[[units]]
side = 1
name = "B"
kind = "infantry"
stands = 5
formation = "line"
x = 38.0
y = 34.0
facing_deg = 270.0
"""


def _scenario(tmp_path: Path, scoring: str) -> str:
    p = tmp_path / "s.toml"
    p.write_text(scoring + HOLDER)
    return str(p)


def _pass_to_the_end(s, limit: int = 200) -> None:
    """Both sides reserve nothing and end their phases; every die shows 4."""
    for _ in range(limit):
        if s.is_terminal():
            return
        lg = s.legal_labels() if not s.is_chance_node() else ["d6=4"]
        pick = ("d6=4" if "d6=4" in lg else "reserve:0" if "reserve:0" in lg
                else "end_phase" if "end_phase" in lg else lg[-1])
        s.apply_action(s.string_to_action(pick))
    raise AssertionError("game did not end")


@pytest.mark.parametrize("scoring, vp", [
    ("", [3, 0]),                                                 # ACW-PD-36 defaults
    ("[scoring]\nobjective_vp = 2\n", [2, 0]),                   # held at the end only
    ("[scoring]\nobjective_vp = 2\nobjectives_score = \"each_turn\"\n", [6, 0]),   # 3 turns
    ("[scoring]\nobjectives_score = \"each_turn\"\n", [9, 0]),
    ("[scoring]\nobjectives_score = \"after_enemy_turn\"\n", [9, 0]),
])
def test_objectives_score_at_the_end_or_every_turn(tmp_path, scoring, vp):
    g = load_game("acw_regimental", _scenario(tmp_path, scoring), {"turns": 3})
    s = g.new_initial_state()
    _pass_to_the_end(s)
    assert queries.victory_points(s) == vp
    end = [e for e in s.events if e.kind == "game_end"][0]
    assert end.data["vp"] == vp and end.data["winner"] == 0 and s.returns() == [1.0, -1.0]
    banks = [e for e in s.events if e.kind == "objectives_score"]
    if "after_enemy_turn" in scoring:
        # every player-turn ends with a count for the side that did not move: the Confederate
        # side (holding nothing) after each Union player-turn, the Union after each
        # Confederate one
        assert [e.side for e in banks] == [1, 0] * 3
        assert [e.data["vp"] for e in banks] == [[0, 0], [3, 0]] * 3
        assert [e.data["banked"] for e in banks] == [[0, 0], [3, 0], [3, 0], [6, 0], [6, 0],
                                                     [9, 0]]
    elif "each_turn" in scoring:
        per = vp[0] // 3
        assert [e.data["banked"] for e in banks] == [[per, 0], [2 * per, 0], [3 * per, 0]]
    else:
        assert banks == []


def test_banked_vp_survive_clone_and_json(tmp_path):
    g = load_game("acw_regimental", _scenario(
        tmp_path, "[scoring]\nobjectives_score = \"each_turn\"\n"), {"turns": 3})
    s = g.new_initial_state()
    for _ in range(400):  # play into turn 2
        if s.turn >= 2:
            break
        lg = s.legal_labels() if not s.is_chance_node() else ["d6=4"]
        pick = ("d6=4" if "d6=4" in lg else "reserve:0" if "reserve:0" in lg
                else "end_phase" if "end_phase" in lg else lg[-1])
        s.apply_action(s.string_to_action(pick))
    assert s.turn == 2 and s.objective_vp_banked == [3, 0]
    assert s.clone().objective_vp_banked == [3, 0]
    back = ACWState.from_json(s.to_json(), g)
    assert back.objective_vp_banked == [3, 0]
    assert queries.victory_points(back) == queries.victory_points(s)


@pytest.mark.parametrize("scoring, key, problem", [
    ("objectives_score = \"sometimes\"", "scoring.objectives_score",
     "'end', 'each_turn' or 'after_enemy_turn'"),
    ("objective_vp = -1", "scoring.objective_vp", "greater than or equal to 0"),
    ("objective_vp = 2.5", "scoring.objective_vp", "integer"),
    ("objective_points = 2", "scoring.objective_points", "xtra"),
])
def test_bad_scoring_is_refused_with_file_and_key(tmp_path, scoring, key, problem):
    p = _scenario(tmp_path, f"[scoring]\n{scoring}\n")
    with pytest.raises(ScenarioError) as ei:
        load_game("acw_regimental", p)
    msg = str(ei.value)
    assert p in msg and key in msg and problem in msg, msg


def test_default_battle_is_the_same_for_both_seats():
    """Two Farms: every unit, terrain piece and objective has its image under the half turn of
    the table about its centre, and objectives score after every enemy player-turn."""
    g = load_game("acw_regimental")
    W, D = g.spec.table.width, g.spec.table.depth

    def rot(x, y):
        return (round(W - x, 6), round(D - y, 6))

    assert g.objectives_score == "after_enemy_turn" and g.objective_vp == 1
    objs = {(round(x, 6), round(y, 6)) for x, y in g.objectives}
    assert {rot(x, y) for x, y in objs} == objs and len(objs) == 3

    def sig(u, turn):
        x, y = (W - u.fp.centre()[0], D - u.fp.centre()[1]) if turn else u.fp.centre()
        h = (u.fp.heading + (math.pi if turn else 0.0)) % (2 * math.pi)
        return (u.kind, u.weapon, u.experience, u.starting_stands, u.formation, u.is_screen,
                round(x, 6), round(y, 6), round(h, 6))

    union = sorted(sig(u, False) for u in g.initial_units if u.side == 0)
    rebel = sorted(sig(u, True) for u in g.initial_units if u.side == 1)
    assert union == rebel and g.units_at_start[0] == g.units_at_start[1]
    woods = [tuple(map(tuple, a.points())) for a in g.spec.terrain.woods]
    for w in woods:
        assert any({rot(*p) for p in w} == {tuple(map(float, q)) for q in v} for v in woods)


def test_crossroads_still_scores_at_the_end():
    g = load_game("acw_regimental", "crossroads")
    assert g.objectives_score == "end" and g.objective_vp == 3


def test_two_farms_each_turn_keeps_the_first_count():
    """The Two Farms battle as first measured: the same forces and terrain as the default, its
    objectives banked at the end of every game turn."""
    first = load_game("acw_regimental", "two_farms_each_turn")
    default = load_game("acw_regimental")
    assert first.objectives_score == "each_turn" and default.objectives_score == "after_enemy_turn"
    assert first.objective_vp == default.objective_vp == 1
    assert first.objectives == default.objectives
    assert first.spec.model_dump(exclude={"name", "description", "scoring", "first_side"}) == \
        default.spec.model_dump(exclude={"name", "description", "scoring", "first_side"})
    assert first.first_side == 0 and default.first_side == "roll_off"
