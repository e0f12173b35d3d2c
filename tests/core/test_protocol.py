"""The decision-point protocol's behaviour (envs.core.protocol) on the toy ruleset."""

from __future__ import annotations

import json

import numpy as np
import pytest

from envs.core import (CHANCE, TERMINAL, ActionCatalogue, DecisionType, Event, Illegality,
                       IllegalActionError, InvalidStateError, State)
from envs.core.replay import play_labels
from tests.toy_ruleset import ToyGame, ToyState


def at(labels: list[str], **params: int) -> ToyState:
    return play_labels(ToyGame(params=params or None).new_initial_state(), labels)


# -- refusals ------------------------------------------------------------------------------------
def test_masked_action_message_names_action_side_decision_legal_labels_and_rule() -> None:
    s = at([])
    with pytest.raises(IllegalActionError) as ei:
        s.apply_action(3)
    assert str(ei.value) == (
        "illegal action 'react:dodge' (id 3) [TOY-1: reactions are chosen by the non-active "
        "side] for side 0 (red) at decision maneuver; legal: ['attack', 'pass']")


def test_masked_reaction_window_message() -> None:
    s = at(["attack"])
    with pytest.raises(IllegalActionError) as ei:
        s.apply_action(s.string_to_action("pass"))
    msg = str(ei.value)
    assert "'pass' (id 2)" in msg and "TOY-2" in msg
    assert "for side 1 (blue) at decision reaction" in msg
    assert msg.endswith("legal: ['react:dodge', 'react:decline']")


@pytest.mark.parametrize("bad,what", [
    (-1, "action id -1 (out of range 0..4)"),
    (5, "action id 5 (out of range 0..4)"),
    (np.int64(99), "action id 99 (out of range 0..4)"),
    ("attack", "action 'attack' of type str (ids are ints 0..4)"),
    (0.0, "action 0.0 of type float"),
    (None, "action None of type NoneType"),
    (True, "action True of type bool"),
    (np.float32(2), "of type float32"),
])
def test_out_of_range_and_wrong_type_are_refused(bad: object, what: str) -> None:
    s = at([])
    before = s.to_json()
    with pytest.raises(IllegalActionError) as ei:
        s.apply_action(bad)  # type: ignore[arg-type]
    assert what in str(ei.value)
    assert "for side 0 (red) at decision maneuver; legal: ['attack', 'pass']" in str(ei.value)
    assert s.to_json() == before


def test_illegal_chance_outcome_message() -> None:
    s = at(["attack", "react:decline"])
    assert s.current_player() == CHANCE
    with pytest.raises(IllegalActionError) as ei:
        s.apply_action(6)
    assert str(ei.value) == ("illegal action id 6 (out of range 0..5) for chance at decision "
                             "chance; legal: ['d6=1', 'd6=2', 'd6=3', 'd6=4', 'd6=5', 'd6=6']")


def test_numpy_integer_is_accepted_and_stored_as_int() -> None:
    s = at([])
    s.apply_action(np.int32(0))
    assert s.history == [(0, 0)] and type(s.history[0][1]) is int
    assert s.decision_type() == "reaction"


def test_apply_at_terminal_raises_invalid_state() -> None:
    s = at(["pass", "pass"], turns=1)
    assert s.is_terminal() and s.current_player() == TERMINAL
    with pytest.raises(InvalidStateError, match=r"apply_action\(0\) after the game has ended"):
        s.apply_action(0)


# -- why_illegal ---------------------------------------------------------------------------------
def test_why_illegal() -> None:
    s = at([])
    assert s.why_illegal(0) is None and s.why_illegal(2) is None
    w = s.why_illegal(1)
    assert w == Illegality(("TOY-3",), "rest once a turn, and only when wounded")
    assert str(w) == "TOY-3: rest once a turn, and only when wounded"
    assert s.why_illegal(4).rules == ("TOY-1",)
    with pytest.raises(IllegalActionError, match="out of range 0..4"):
        s.why_illegal(7)


def test_why_illegal_at_chance_and_terminal() -> None:
    s = at(["attack", "react:dodge"])
    assert s.why_illegal(2) is None
    assert s.why_illegal(9) == Illegality((), "not a chance outcome here")
    t = at(["pass", "pass"], turns=1)
    assert t.why_illegal(0) == Illegality((), "the game has ended")
    assert str(Illegality((), "x")) == "-: x"


# -- masks and node kinds -----------------------------------------------------------------------
def test_masks() -> None:
    s = at([])
    m = s.legal_action_mask()
    assert m.dtype == np.bool_ and m.shape == (5,)
    assert m.tolist() == [True, False, True, False, False]
    s = at(["attack"])
    assert s.legal_action_mask().tolist() == [False, False, False, True, True]


def test_mask_at_chance_raises() -> None:
    s = at(["attack", "react:dodge"])
    assert s.is_chance_node()
    with pytest.raises(InvalidStateError, match="legal_action_mask\\(\\) at a chance node"):
        s.legal_action_mask()
    assert s.legal_actions() == [0, 1, 2, 3, 4, 5]
    assert s.chance_outcomes() == [(i, 1 / 6) for i in range(6)]


def test_chance_outcomes_at_decision_raises_naming_the_node() -> None:
    with pytest.raises(InvalidStateError,
                       match=r"chance_outcomes\(\) at a maneuver node \(current player 0\)"):
        at([]).chance_outcomes()


def test_mask_at_terminal_all_false() -> None:
    s = at(["pass", "pass"], turns=1)
    m = s.legal_action_mask()
    assert m.shape == (5,) and m.dtype == np.bool_ and not m.any()
    assert s.legal_actions() == [] and s.returns() == [0.0, 0.0]


def test_legal_cache_is_refreshed_after_each_action() -> None:
    s = at([])
    assert s.legal_actions() == [0, 2]
    s.apply_action(0)
    assert s.legal_actions() == [3, 4]
    s.apply_action(4)
    assert s.legal_actions() == list(range(6))
    s.apply_action(5)  # d6=6 hits
    assert s.hp == [5, 4]
    assert s.history == [(0, 0), (1, 4), (CHANCE, 5)]


# -- labels --------------------------------------------------------------------------------------
def test_action_labels() -> None:
    s = at(["attack", "react:dodge"])
    assert s.action_to_string(2) == "d6=3"  # chance node: chance catalogue
    assert s.action_to_string(2, player=0) == "pass"
    assert s.string_to_action("d6=4") == 3
    assert s.legal_labels() == [f"d6={i}" for i in range(1, 7)]
    with pytest.raises(IllegalActionError, match="unknown action label 'attack'"):
        s.string_to_action("attack")
    d = at([])
    assert d.action_to_string(3) == "react:dodge"
    assert d.action_to_string(3, player=CHANCE) == "d6=4"
    assert d.legal_labels() == ["attack", "pass"]
    with pytest.raises(IllegalActionError, match="out of range 0..4"):
        d.action_to_string(5)


def test_action_catalogue() -> None:
    cat = ActionCatalogue(["a", "b", "c"])
    assert len(cat) == 3 and list(cat) == ["a", "b", "c"] and "b" in cat and "z" not in cat
    assert cat.mask([0, 2]).tolist() == [True, False, True]
    assert cat.mask([]).tolist() == [False] * 3
    assert cat.table().splitlines()[2] == "| 0 | `a` |"
    with pytest.raises(ValueError, match="duplicate or empty label 'a' at id 1"):
        ActionCatalogue(["a", "a"])
    with pytest.raises(ValueError, match="duplicate or empty label '' at id 0"):
        ActionCatalogue([""])


def test_str_enum_decision_types_print_their_value() -> None:
    class EnumState(ToyState):
        def decision_type(self) -> str:
            return DecisionType.REACTION if self.phase == "react" else super().decision_type()

    s = EnumState(ToyGame())
    s.apply_action(0)
    assert s.decision_type() == "reaction" and s.decision_name() == "reaction"
    with pytest.raises(IllegalActionError) as ei:
        s.apply_action(0)
    assert "at decision reaction;" in str(ei.value)
    assert "DecisionType" not in str(ei.value)
    assert str(s) == "<EnumState player=1 decision=reaction>"


# -- events and JSON -----------------------------------------------------------------------------
def test_events_and_json() -> None:
    s = at(["attack", "react:decline", "d6=4", "attack", "react:dodge", "d6=4"])
    assert [e.format() for e in s.events] == ["[TOY-4] d6=4 hits", "[TOY-4] d6=4 misses"]
    ev = s.events[0]
    assert ev == Event("hit", ("TOY-4",), "d6=4 hits", 0, {"roll": 4})
    assert Event.from_dict(json.loads(json.dumps(ev.to_dict()))) == ev
    doc = json.loads(s.to_json())
    assert doc["game"] == {"ruleset": "toy", "version": 0, "scenario": "duel",
                           "params": {"turns": 6, "hp": 5}}
    assert doc["state"] == {"hp": [5, 4], "turn": 0, "active": 0, "phase": "act",
                            "rested": False, "dodged": True}
    assert doc["history"] == [[0, 0], [1, 4], [-1, 3], [0, 0], [1, 3], [-1, 3]]
    assert doc["events"][1] == {"kind": "miss", "rules": ["TOY-4"], "text": "d6=4 misses",
                                "side": 0, "data": {"roll": 4}}
    assert Event("x", (), "t").format() == "[-] t"


def test_from_json_without_game_uses_the_registry() -> None:
    s = at(["attack", "react:decline", "d6=6"], turns=3, hp=2)
    r = State.from_json(s.to_json())
    assert r.to_json() == s.to_json()
    assert r.game.turns == 3 and r.game.hp == 2 and r.hp == [2, 1]
    assert json.loads(s.to_json(indent=2)) == json.loads(s.to_json())


@pytest.mark.parametrize("entry, problem", [
    ([0, 999], r"history\[1\]: action 999 is not an id in 0\.\.\d+$"),
    ([0, -1], r"history\[1\]: action -1 is not an id in 0\.\.\d+$"),
    ([-1, 99], r"history\[1\]: chance outcome 99 is not an id in 0\.\.5$"),
    ([7, 0], r"history\[1\]: player 7 is not a side \(0\.\.1\) nor chance \(-1\)$"),
])
def test_from_json_refuses_a_history_entry_out_of_range(entry, problem) -> None:
    """A record's history is read back as labels (viewers, transcripts): an id out of range
    is named, not an IndexError later (and not a negative index wrapping round)."""
    doc = json.loads(at(["attack", "react:decline", "d6=6"]).to_json())
    doc["history"][1] = entry
    with pytest.raises(InvalidStateError, match=problem):
        State.from_json(json.dumps(doc))


def test_returns_at_end() -> None:
    labels = []
    for _ in range(5):
        labels += ["attack", "react:decline", "d6=6"]
    s = at(labels)
    assert s.is_terminal() and s.hp == [5, 0]
    assert s.returns() == [1.0, -1.0]
    assert str(s) == "<ToyState player=-4 decision=terminal>"
