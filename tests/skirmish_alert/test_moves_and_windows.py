"""Moves by any path with a free facing (AL-PD-15, AL-16(c), AL-PD-35), the charger's choice
of square (Q1, AL-PD-20), the facing after a Disengage, and what window and attack events say
(AL-9, AL-21, AL-PD-29, AL-18, AL-PD-30). Each case is a small board written here and played
through the public protocol with the dice chosen by the test."""

from __future__ import annotations

import pytest

from envs.core.replay import play_labels
from envs.rulesets.skirmish_alert.params import DIRECTIONS

from .test_rules_reference_cases import INI_FIRST, board, events, fighter, named, start


def sideways(tmp_path):
    """The issue's case: 8 x 8, a1 (team 0) at (1, 3) facing E, b1 (team 1) at (5, 3) facing
    W and on alert; a1 wins the track."""
    return board(tmp_path / "sideways.toml", [
        fighter(0, "a1", 1, 3, "E", ini=3), fighter(1, "b1", 5, 3, "W", on_alert=True)])


@pytest.mark.rule("AL-PD-15", "AL-PD-16")
def test_a_move_goes_by_any_path_and_then_sets_its_facing(tmp_path):
    state = start(sideways(tmp_path), INI_FIRST)
    legal = state.legal_labels()
    # any square within MOV 4 by a free path: off the straight lines too, and never b1's
    assert {"move:+0:+1", "move:+1:+2", "move:+3:-1"} <= set(legal)
    assert "move:+4:+0" not in legal  # b1 stands on (5, 3)
    play_labels(state, ["move:+0:+1", "alert:decline"])
    a1 = named(state, "a1")
    assert a1.pos == (1, 4) and state.decision_name() == "facing"
    assert state.current_player() == 0 and state.legal_labels() == [
        f"face:{d}" for d in DIRECTIONS]
    assert state.decision_context(0).trigger == "move:+0:+1"
    play_labels(state, ["face:E"])
    assert a1.pos == (1, 4) and DIRECTIONS[a1.facing] == "E"
    assert events(state, "facing")[-1].data == {"fighter": a1.gid, "facing": 2}
    assert state.decision_name() == "action"
    state = start(sideways(tmp_path), INI_FIRST + ["move:+1:+2", "alert:decline", "face:SE"])
    assert named(state, "a1").pos == (2, 5) and DIRECTIONS[named(state, "a1").facing] == "SE"


@pytest.mark.rule("AL-16", "AL-PD-15")
def test_a_reactor_steps_sideways_and_keeps_its_face_to_the_enemy(tmp_path):
    # AL-16(c): the reaction's move also goes by any path and ends with a free facing, so b1
    # steps north and keeps facing a1 (it used to turn its back, facing N)
    state = start(sideways(tmp_path), INI_FIRST + ["move:+0:+1", "alert:attempt:f0",
                                                   "d6=6", "d6=6", "react:move:-1:+1"])
    b1 = named(state, "b1")
    assert b1.pos == (4, 4) and state.decision_name() == "facing"
    assert state.current_player() == 1
    play_labels(state, ["face:W"])  # no AP to re-arm: a1's move then resolves (AL-24)
    assert DIRECTIONS[b1.facing] == "W" and named(state, "a1").pos == (1, 4)
    assert state.decision_name() == "facing" and state.current_player() == 0


@pytest.mark.rule("AL-PD-15", "AL-PD-35")
def test_a_disengage_goes_up_to_two_squares_by_any_path_then_sets_its_facing(tmp_path):
    path = board(tmp_path / "contact.toml", [
        fighter(0, "a1", 3, 3, "N", ini=3), fighter(1, "b1", 3, 4, "S")])
    state = start(path, INI_FIRST)
    legal = state.legal_labels()
    assert "disengage:+2:-1" in legal and "disengage:+0:-2" in legal
    assert "disengage:+1:+0" not in legal  # still in contact with b1 at (3, 4)
    assert not any(lab.startswith("move:") for lab in legal)  # engaged (AL-PD-19)
    play_labels(state, ["disengage:+2:-1"])
    a1 = named(state, "a1")
    assert a1.pos == (5, 2) and state.decision_name() == "facing"
    play_labels(state, ["face:NW"])  # free facing after a Disengage (RULINGS, AL-PD-15)
    assert DIRECTIONS[a1.facing] == "NW" and state.decision_name() == "action"


@pytest.mark.rule("Q1", "AL-PD-20")
def test_the_charger_chooses_its_square_next_to_the_target(tmp_path):
    path = board(tmp_path / "charge.toml", [
        fighter(0, "a1", 3, 1, "N", ini=3, mel=2), fighter(1, "b1", 3, 4, "S")],
        blocking=[(2, 3)])
    state = start(path, INI_FIRST)
    charges = [lab for lab in state.legal_labels() if lab.startswith("charge:")]
    # every free square next to b1 within MOV 4 but (2, 3), a wall (b1's SW side)
    assert charges == [f"charge:e0:{d}" for d in ("N", "NE", "E", "SE", "S", "W", "NW")]
    why = state.why_illegal(state.string_to_action("charge:e0:SW"))
    assert why is not None and "AL-PD-15" in why.rules and "(2, 3)" in why.reason
    play_labels(state, ["charge:e0:E"])
    a1, b1 = named(state, "a1"), named(state, "b1")
    assert a1.pos == (4, 4) and DIRECTIONS[a1.facing] == "W"  # facing the target
    assert events(state, "charge_move")[-1].data == {"fighter": a1.gid, "target": b1.gid,
                                                     "to": [4, 4], "attack": True}
    assert state.is_chance_node()  # the blow at +1 (AL-PD-21)


@pytest.mark.rule("AL-9", "AL-PD-18", "AL-4")
def test_the_window_says_who_is_on_alert_but_not_eligible_and_why(tmp_path):
    path = board(tmp_path / "backs.toml", [
        fighter(0, "a1", 3, 1, "N", ini=3),
        fighter(1, "b1", 3, 6, "N", on_alert=True),   # a1 is behind its back
        fighter(1, "b2", 6, 6, "S", on_alert=True)])  # a1 in front: eligible
    state = start(path, INI_FIRST + ["d6=2", "d6=1", "move:+0:+1"])
    window = events(state, "window_opened")[0]
    b1, b2 = named(state, "b1"), named(state, "b2")
    assert window.data["eligible"] == [b2.gid]
    assert window.data["ineligible"] == [{"fighter": b1.gid, "rules": ["AL-9", "AL-PD-18"],
                                          "reason": "a1 acts behind b1's back"}]
    assert "AL-9" in window.rules and "not eligible: a1 acts behind b1's back" in window.text


@pytest.mark.rule("AL-18", "AL-PD-30")
def test_a_shot_lost_to_a_closed_door_says_so(tmp_path):
    # a1 shoots b1 through the open door x0 at (3, 4); b1 reacts by closing it
    path = board(tmp_path / "door.toml", [
        fighter(0, "a1", 3, 1, "N", ini=3, sho=2, ranged_weapon="crossbow"),
        fighter(1, "b1", 3, 5, "S", on_alert=True)],
        elements=[{"kind": "door", "x": 3, "y": 4, "state": "open"}])
    state = start(path, INI_FIRST + ["shoot:e0", "alert:attempt:f0", "d6=6", "d6=6",
                                     "react:activate:x0"])
    lost = events(state, "attack_lost")
    assert len(lost) == 1 and not state.is_chance_node()
    assert lost[0].data["reason"] == "the closed door x0 blocks the line of sight to b1"
    assert "AL-PD-30" in lost[0].rules and "AL-18" in lost[0].rules
    assert "out of reach" not in lost[0].text
