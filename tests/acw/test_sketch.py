"""render_sketch: the text picture of an ACW table, and its use in failing tests."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from envs.core.replay import play_labels
from envs.rulesets import load_game
from envs.rulesets.acw_regimental.sketch import render_sketch, unit_letter

ROOT = Path(__file__).resolve().parents[2]

EXAMPLE_B = """\
example_b_refuse_flank: turn 1, phase 2, Confederate active; Confederate to decide (maneuver)
   +--------------------------+
   |                          |
   |                     aa   |
12 |      ↑              aa   |
   |   AAAAAA           ←aa   |
   |      ↑              aa   |
 6 |     BB                   |
   |                          |
   |                          |
   +--------------------------+
    18    24    30    36    42
key: ':' woods, '.' road, '~' crest, '+' fence, '#' wall, '*' objective, letters = units \
(Union upper case), arrows = facing
A = 19th Indiana (U0): infantry line, 5 stands, fresh; front edge (24.00, 12.00) facing 90 deg
B = Battery B (U1): artillery unlimbered, 2 stands, fresh; front edge (24.00, 8.00) facing 90 deg
a = 28th North Carolina (C0): infantry line, 5 stands, fresh; front edge (39.50, 11.62) facing \
180 deg"""


def test_example_b_as_a_picture() -> None:
    """Example B's start (RULE-04-5.1): the North Carolinians (a, facing west) 15" off the
    Indiana line's right end (A, facing up the table), the battery (B) behind it."""
    s = load_game("acw_regimental", "example_b_refuse_flank").new_initial_state()
    assert render_sketch(s) == EXAMPLE_B


def test_the_sketch_follows_the_game() -> None:
    s = load_game("acw_regimental", "example_a_closing_volley").new_initial_state()
    before = render_sketch(s)
    play_labels(s, ["activate:u0", "charge:e0"])  # the Brooklyn line halts at the 4" mark
    after = render_sketch(s)
    assert "Union to decide (maneuver)" in before and "Confederate to decide (reaction)" in after
    assert "front edge (24.00, 10.00)" in before and "front edge (24.00, 14.00)" in after
    assert after.count("AAAAAA") == 1 and after.count("aaaaaa") == 1


def test_whole_table_terrain_and_objectives() -> None:
    s = load_game("acw_regimental", "crossroads").new_initial_state()
    full = render_sketch(s, crop=False)
    grid = full.split("\n")[1:20]  # 36" in 2" rows, plus the two frame lines
    assert len(grid) == 20 - 1 and all(len(line) == len(grid[0]) for line in grid)
    assert grid[0].endswith("+" + "-" * 48 + "+")
    assert full.count("*") >= len(s.game.objectives) and ":" in full and "~" in full
    letters = {unit_letter(u) for side in s.units for u in side if u is not None}
    assert {"A", "a"} <= letters
    assert all(letter in full for letter in letters)


FAILING_TEST = """
from envs.rulesets import load_game
from tests.events import assert_event

def test_wrong_stands():
    s = load_game("acw_regimental", "example_a_closing_volley").new_initial_state()
    assert s.units[0][0].stands == 4

def test_wrong_event():
    s = load_game("acw_regimental", "example_a_closing_volley").new_initial_state()
    assert_event(s, "setup", scenario="crossroads")
"""


@pytest.mark.slow
def test_failing_tests_show_the_table(tmp_path: Path) -> None:
    (tmp_path / "test_fails.py").write_text(FAILING_TEST)
    r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                        "-p", "tests.acw.conftest", "--rootdir", str(tmp_path),
                        str(tmp_path / "test_fails.py")],
                       cwd=ROOT, capture_output=True, text=True, timeout=300)
    out = r.stdout
    assert r.returncode == 1 and "2 failed" in out, out
    # a plain assert: the sketch of the local state is appended to the report
    plain, event = out.split(" test_wrong_event ", 1)
    assert "table sketch: s" in plain and "A = 14th Brooklyn (U0)" in plain
    # assert_event: the mismatch, the event's text and the sketch are in the message
    assert "data['scenario'] = 'example_a_closing_volley', expected 'crossroads'" in event
    assert "[ACW-PD-37, ACW-PD-11] scenario example_a_closing_volley" in event
    assert "table:" in event and "aaaaaa" in event and "table sketch: s" not in event
