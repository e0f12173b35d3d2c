"""Actions in words (envs/rulesets/acw_regimental/words.py) name the units of the waiting
decision's typed context: the unit acting or asked, and the mover or charger that triggered a
reaction window."""

from __future__ import annotations

import pytest

from envs import load_game
from envs.core.replay import ReplayScript

GOLDEN = "tests/acw/golden/"


def words_along(name: str) -> dict[str, str]:
    """label -> words at every decision of the golden replay ``name`` (the last one wins)."""
    st = ReplayScript.load(GOLDEN + f"{name}.toml")
    g = load_game(st.ruleset, st.scenario, st.params)
    s = g.new_initial_state()
    out = {}
    for lab in st.actions:
        a = s.string_to_action(lab)
        if s.current_player() >= 0:
            out[lab] = g.action_words(s, a)
        s.apply_action(a)
    return out


@pytest.mark.parametrize("name, label, words", [
    ("example_a", "react:closing_volley", "Fire a Closing Volley at 14th Brooklyn"),
    ("example_b", "react:refuse_2", "19th Indiana: Refuse the Flank with 2 stands"),
    ("example_b", "advance:all", "28th North Carolina: advance the whole remaining allowance"),
    ("example_b", "fire:e0", "28th North Carolina fires at 19th Indiana"),
    ("example_b", "hold_fire", "19th Indiana holds its fire"),
    ("example_c", "react:wait_short", "2nd Wisconsin: hold fire for the Short-range point"),
    ("example_c", "react:opportunity_fire", "2nd Wisconsin: Opportunity Fire at 8th Georgia"),
])
def test_golden_decisions_in_words(name, label, words):
    assert words_along(name)[label] == words

