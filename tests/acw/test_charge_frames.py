"""The charge as typed frames (ACW-PD-23, ACW-PD-25): Windows B1 and B2 are core reaction windows above a
:class:`Charge` frame, they serialise, and the observer reads their typed context."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from envs.core.protocol import State
from envs.core.replay import ReplayScript, play_labels
from envs.rulesets.acw_regimental.procedures.charge import (Charge, ChargeStep, WindowB1,
                                                            WindowB2)
from envs.rulesets.acw_regimental.procedures.volley import FireMode, Volley
from envs.rulesets.acw_regimental.observer import decision_units
from tests.acw.test_rules import charge_state, reb_line

GOLDEN = Path(__file__).parent / "golden"


def _until_window(name: str, window: type):
    script = ReplayScript.load(GOLDEN / f"{name}.toml")
    state = script.new_state()
    for label in script.actions:
        if type(state.stack[-1]) is window:
            return state
        play_labels(state, [label])
    raise AssertionError(f"{name}: no {window.__name__} opened")


@pytest.mark.rule("RULE-04-2.1", "I-10", "ACW-PD-23")
def test_window_b2_is_a_reaction_window_above_the_charge_and_round_trips():
    """Example A: at the 4.0" mark the Virginians (Confederate slot 0) are asked about the
    Union charger (slot 0) in Window B2; the state saved there reads back and plays on alike."""
    s = _until_window("example_a", WindowB2)
    window, charge = s.stack[-1], s.stack[-2]
    assert type(charge) is Charge and charge.step is ChargeStep.CONTACT
    assert (window.side, window.subject, window.charger) == (1, 0, 0)
    labels = [s.game.actions.labels[a] for a in s.legal_actions()]
    assert labels == ["react:closing_volley", "react:decline"]
    assert decision_units(s) == ((1, 0), (0, 0), "charge_b2")
    back = State.from_json(s.to_json())
    assert type(back.stack[-1]) is WindowB2 and back.legal_actions() == s.legal_actions()
    assert json.loads(back.to_json()) == json.loads(s.to_json())
    for state in (s, back):
        play_labels(state, ["react:closing_volley"])
    assert back.to_json() == s.to_json()
    assert s.current_player() == -1  # the volley's dice (RULE-04-2.3)
    volley = s.stack[-2]
    assert type(volley) is Volley and volley.mode is FireMode.CLOSING
    assert (volley.firer_side, volley.firer, volley.target) == (1, 0, 0)
    assert type(s.stack[-3]) is Charge and s.stack[-3].step is ChargeStep.VOLLEY_TAKEN
    play_labels(s, ["d6=3", "d6=3", "d6=5", "d6=2", "d6=6"])  # Example A's dice: 4 hits
    charge = s.stack[-2]  # waiting for the Charge Discipline Check die (RULE-04-2.4)
    assert type(charge) is Charge and charge.step is ChargeStep.DISCIPLINE_CHECK
    assert (charge.volley_lost, charge.volley_disordered) == (2, True)
    assert s.units[0][0].stands == 3


@pytest.mark.rule("RULE-04-2.2", "RULE-04-6.4", "I-10")
def test_window_b2_refusals_name_the_window_rules():
    s = _until_window("example_a", WindowB2)
    ids = s.game.actions
    why = s.why_illegal(ids.id("react:counter_charge_2"))
    assert why.rules == ("RULE-04-6.4", "I-10")
    why = s.why_illegal(ids.id("react:evade_4"))
    assert why.rules == ("RULE-04-1.4", "I-10")


@pytest.mark.rule("RULE-04-1.2", "I-10", "RULE-04-6.3", "RULE-04-6.4")
def test_window_b1_counter_charge_pays_the_reserved_pip_and_reshapes_the_charge(tmp_path):
    """A Rebel Yell line with a reserved pip charged from 8" is asked in Window B1 (context
    names it and the charger); the state saved there reads back; Counter-Charge spends the pip
    and sends the charge straight to front contact (no Window B2)."""
    s = charge_state(tmp_path, defender=reb_line(traits=["rebel_yell"]), reserved=(0, 1))
    window, charge = s.stack[-1], s.stack[-2]
    assert type(window) is WindowB1 and type(charge) is Charge
    assert charge.step is ChargeStep.MOVE and charge.b1_reaction == ""
    assert decision_units(s) == ((1, 0), (0, 0), "charge_b1")
    back = State.from_json(s.to_json())
    assert type(back.stack[-1]) is WindowB1 and back.legal_actions() == s.legal_actions()
    play_labels(s, ["react:counter_charge_3"])
    assert s.reserved[1] == 0 and s.units[1][0].counter_charged and s.units[0][0].momentum_lost
    kinds = [e.kind for e in s.events]
    assert "window_b2" not in kinds
    contact = [e for e in s.events if e.kind == "contact"][0]
    assert contact.data["zone"] == "front" and "RULE-04-6.5" in contact.rules
    play_labels(back, ["react:counter_charge_3"])
    assert back.to_json() == s.to_json()
