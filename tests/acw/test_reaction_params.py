"""The reaction parameters of the ACW ruleset (``envs/rulesets/acw_regimental/params.py``):
``counter_charge_cost`` (RULE-04-6.3, I-2) and ``opportunity_fire_trigger`` (RULE-04-3.1,
I-18). Defaults are the seed's (1 reserved pip, 8"); a variant changes what is offered and
where; bad values are refused with one line naming the parameter."""

from __future__ import annotations

import pytest

from envs.core.errors import ParameterError
from envs.core.geometry import footprint_distance
from envs.rulesets import load_game
from envs.rulesets.acw_regimental.probes import why_no_counter_charge

from .test_rules import (RY, charge_state, events, legal, new_state, p2, play, reb_line, unit,
                         union_line, why)


def _opp_state(tmp_path, params=None):
    """Example C shape (as ``test_rules._opp_fire_state``) under ``params``."""
    units = [unit(0, "Wisconsin", 24, 10, 90),
             unit(1, "Georgia", 16, 17, 0, formation="assault_column")]
    s = new_state(tmp_path, units, p2(1), params=params)
    play(s, ["activate:u0", "advance:all"])
    return s


def test_defaults_are_the_seeds():
    g = load_game("acw_regimental")
    assert g.counter_charge_cost == 1 and g.params["counter_charge_cost"] == 1
    assert g.opportunity_fire_trigger == 8.0 and g.params["opportunity_fire_trigger"] == 8.0


@pytest.mark.rule("RULE-04-3.1", "I-18", "ACW-PD-24")
@pytest.mark.parametrize("trigger", [8.0, 7.0])
def test_opportunity_fire_trigger_distance_moves_the_medium_point(tmp_path, trigger):
    """RULE-04-3.1 / I-18: the column is stopped where it first enters the forward arc within
    ``opportunity_fire_trigger`` inches; the Short point (6") is where it was."""
    s = _opp_state(tmp_path, {"opportunity_fire_trigger": trigger})
    w = events(s, "window_a")[0]
    assert w.data["trigger"] == "opp_medium"
    wis, ga = s.units[0][0], s.units[1][0]
    assert footprint_distance(wis.fp, ga.fp) == pytest.approx(trigger, abs=0.01)
    assert legal(s) == ["react:opportunity_fire", "react:wait_short", "react:decline"]
    play(s, ["react:wait_short"])
    w2 = events(s, "window_a")[1]
    assert w2.data["trigger"] == "opp_short"
    assert footprint_distance(wis.fp, ga.fp) == pytest.approx(6.0, abs=0.01)


@pytest.mark.rule("RULE-04-3.1", "I-18")
def test_opportunity_fire_trigger_at_the_short_point_offers_no_wait(tmp_path):
    """With the Medium point at 6" it coincides with the Short one: asked once, no waiting
    (I-18: waiting needs the mover beyond 6")."""
    s = _opp_state(tmp_path, {"opportunity_fire_trigger": 6.0})
    wis, ga = s.units[0][0], s.units[1][0]
    assert footprint_distance(wis.fp, ga.fp) == pytest.approx(6.0, abs=0.01)
    assert legal(s) == ["react:opportunity_fire", "react:decline"]
    assert "I-18" in why(s, "react:wait_short").rules


@pytest.mark.rule("RULE-04-6.3", "I-2")
def test_counter_charge_cost_two_pips(tmp_path):
    """RULE-04-6.3 variant: at 2 pips one reserved pip no longer pays (masked, the reason says
    2), two do, and both are spent."""
    s = charge_state(tmp_path, defender=reb_line(traits=RY), reserved=(0, 2),
                     params={"counter_charge_cost": 2})
    assert "react:counter_charge_2" in legal(s)
    play(s, ["react:counter_charge_2"])
    assert s.reserved[1] == 0
    assert "2 reserved pips spent" in events(s, "react")[0].text
    s1 = charge_state(tmp_path, defender=reb_line(traits=RY, y=18.0), reserved=(0, 1),
                      params={"counter_charge_cost": 2})
    assert not events(s1, "window_b1") and events(s1, "window_b2") and s1.reserved[1] == 1
    w = why_no_counter_charge(s1, s1.units[0][0], s1.units[1][0])
    assert "RULE-04-6.3" in w.rules and "2 reserved Staff Pips" in w.reason


@pytest.mark.rule("RULE-04-6.3", "I-2")
def test_counter_charge_cost_zero_is_free(tmp_path):
    """RULE-04-6.3 variant: a free Counter-Charge is offered with no reserved pip and spends
    none."""
    s = charge_state(tmp_path, defender=reb_line(traits=RY), reserved=(0, 0),
                     params={"counter_charge_cost": 0})
    assert "react:counter_charge_3" in legal(s)
    play(s, ["react:counter_charge_3"])
    assert s.reserved[1] == 0 and s.units[1][0].counter_charged
    # the seed's cost: no pip, no B1 window (the charge runs on to the Closing Volley)
    s2 = new_state(tmp_path, [union_line(), reb_line(traits=RY)], p2(0), name="seed.toml")
    play(s2, ["activate:u0", "charge:e0"])
    assert not events(s2, "window_b1") and events(s2, "window_b2")


@pytest.mark.parametrize("params,needle", [
    ({"counter_charge_cost": -1}, "counter_charge_cost: Input should be greater than or equal"),
    ({"counter_charge_cost": 3}, "counter_charge_cost: Input should be less than or equal"),
    ({"counter_charge_cost": "1"}, "counter_charge_cost: Input should be a valid integer"),
    ({"counter_charge_cost": 1.5}, "counter_charge_cost: Input should be a valid integer"),
    ({"opportunity_fire_trigger": -8.0}, "opportunity_fire_trigger: Input should be greater"),
    ({"opportunity_fire_trigger": 12.5}, "opportunity_fire_trigger: Input should be less"),
    ({"opportunity_fire_trigger": "8"}, "opportunity_fire_trigger: Input should be a valid"),
    ({"opportunity_fire_trigger": True}, "opportunity_fire_trigger: Input should be a valid"),
    ({"opportunity_fire_trigger": float("nan")}, "opportunity_fire_trigger: Input should be a "
                                                 "finite number"),
])
def test_bad_reaction_parameters_are_refused(params, needle):
    with pytest.raises(ParameterError) as e:
        load_game("acw_regimental", params=params)
    assert needle in str(e.value) and "\n" not in str(e.value)
