"""Tests of the ACW resolutions that only the package docstring's range ``I-1 … I-28`` cited
and no test named (see docs/rules/acw_regimental.md): I-6 (a regiment is five stands), I-7
(a refused flank bends back) and I-24 (the rebuilt summary matrix: which window offers which
reaction, and which reactions are free)."""

from __future__ import annotations

from pathlib import Path

import pytest

from envs.core.reactions import Reaction
from envs.core.replay import ReplayScript, play_labels
from envs.rulesets import load_game
from envs.rulesets.acw_regimental import tables
from envs.rulesets.acw_regimental.params import SCENARIO_DIR
from envs.rulesets.acw_regimental.procedures.charge import WindowB1, WindowB2
from envs.rulesets.acw_regimental.procedures.window_a import WindowA
from envs.rulesets.acw_regimental.reactions.counter_charge import counter_charge_cost

GOLDEN = Path(__file__).parent / "golden"
SCENARIOS = sorted(path.stem for path in SCENARIO_DIR.glob("*.toml"))


@pytest.mark.rule("I-6", "ACW-PD-4")
@pytest.mark.parametrize("scenario", SCENARIOS)
def test_every_built_in_infantry_regiment_has_five_stands(scenario):
    """I-6: an infantry regiment starts with five stands; a detached skirmish stand is one of
    them."""
    state = load_game("acw_regimental", scenario).new_initial_state()
    regiments = [unit for side in state.units for unit in side
                 if unit is not None and unit.kind == "infantry" and not unit.is_screen]
    assert regiments
    sizes = {unit.name: unit.stands + (1 if unit.screen >= 0 else 0) for unit in regiments}
    assert sizes == {unit.name: 5 for unit in regiments}


@pytest.mark.rule("I-7", "RULE-04-5.3")
def test_refused_stands_wheel_back_and_the_line_stays_put():
    """I-7: the refused stands swing back by 45° (not forward or outward): the regiment's line
    does not move, and the refusal is logged as wheeling back."""
    script = ReplayScript.load(GOLDEN / "example_b.toml")
    state = script.new_state()
    before = None
    for label in script.actions:
        if label == "react:refuse_2":
            before = state.units[0][0].fp
        play_labels(state, [label])
        if label == "react:refuse_2":
            break
    indiana = state.units[0][0]
    assert before is not None
    assert (indiana.fp.x, indiana.fp.y, indiana.fp.heading) == (before.x, before.y,
                                                                 before.heading)
    refuse = [event for event in state.events if event.kind == "refuse"]
    assert len(refuse) == 1
    assert "wheel back 45°" in refuse[0].text
    assert (indiana.refused, indiana.refused_n) == ("right", 2)
    assert tables.REFUSE_ANGLE == pytest.approx(0.7853981633974483)


@pytest.mark.rule("I-24", "RULE-04-1.2", "RULE-04-1.3", "I-10")
def test_windows_offer_the_reactions_of_the_rebuilt_matrix():
    """I-24: Window A offers Opportunity Fire (or waiting for Short), Evade and Refuse the
    Flank; Window B1 Evade, Refuse the Flank and Counter-Charge; Window B2 the Closing Volley
    alone."""
    assert sorted(WindowA.reactions) == [
        "react:evade_4", "react:evade_5", "react:evade_6", "react:opportunity_fire",
        "react:refuse_1", "react:refuse_2", "react:wait_short"]
    assert sorted(WindowB1.reactions) == [
        "react:counter_charge_2", "react:counter_charge_3", "react:evade_4", "react:evade_5",
        "react:evade_6", "react:refuse_1", "react:refuse_2"]
    assert sorted(WindowB2.reactions) == ["react:closing_volley"]


@pytest.mark.rule("I-24", "I-2", "I-3")
def test_only_the_counter_charge_has_a_price_to_be_offered():
    """I-24 with I-2 and I-3: Closing Volley, Opportunity Fire and Evade are free; Refuse the
    Flank is not withheld for want of a pip (the Emergency Drill Check stands in for it);
    Counter-Charge is offered only to a side holding a reserved pip."""
    reactions = {**WindowA.reactions, **WindowB1.reactions, **WindowB2.reactions}
    priced = sorted(label for label, reaction in reactions.items()
                    if type(reaction).cost is not Reaction.cost)
    assert priced == ["react:counter_charge_2", "react:counter_charge_3"]
    cost = counter_charge_cost(load_game("acw_regimental", "example_b_refuse_flank"))
    assert (cost.resource, cost.amount) == ("reserved_pip", 1)
