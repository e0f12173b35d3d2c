"""The voluntary reaction goes through the core reaction window (envs.core.reactions): AA-R1,
AA-R3, AA-R5, AA-G20."""

from __future__ import annotations

import pytest

from envs.core.reactions import ReactionContext, ReactionWindow
from envs.core.replay import play_labels
from envs.rulesets.atomic_africa.reactions import ReactionChoice

from .helpers import kinds, play

#: reaction scenario, turn 1: side 0 gives 5 and 7; side 1 gives its unit0 a 5 and keeps two
#: Jokers; side 0's unit1 activates, holds and skips Targeting
SKIPPED = ["card=5", "card=7", "card=Q", "assign:5", "assign:7", "card=5", "card=Joker",
           "card=Joker", "assign:5", "assign:none", "d6=6", "d6=1", "activate:unit1",
           "move:hold", "target:none"]


@pytest.mark.rule("AA-R1", "AA-R3", "AA-R5")
def test_the_voluntary_choice_is_a_core_reaction_window() -> None:
    state = play("reaction", SKIPPED)
    window = state.stack.top
    assert isinstance(window, ReactionChoice) and isinstance(window, ReactionWindow)
    assert window.side == 1 and window.allowed == ("react:unit0",)
    assert state.decision_name() == "reaction" and state.current_player() == 1
    assert state.legal_labels() == ["react:unit0", "react:none"]
    context = state.decision_context(0)
    assert isinstance(context, ReactionContext) and context.subject == -1
    # unit1 has no order and only Jokers in the Reserve (AA-G5): refused with AA-R5
    assert state.why_illegal(state.string_to_action("react:unit1")).rules == ("AA-R5",)
    assert state.why_illegal(state.string_to_action("react:unit5")).rules == ("AA-R3",)
    # JSON keeps the open window
    again = type(state).from_json(state.to_json())
    assert again.legal_labels() == state.legal_labels()
    play_labels(state, ["react:unit0"])
    assert kinds(state, "reacts")[-1].data == {"unit": 0, "compulsory": False,
                                               "cascaded": False}
    assert state.decision_name() == "maneuver" and state.current_player() == 1


@pytest.mark.rule("AA-R3")
def test_declining_and_skipping_the_window_log_no_reaction() -> None:
    state = play("reaction", SKIPPED + ["react:none"])
    assert kinds(state, "no_reaction")[-1].rules == ("AA-R3",)
    assert not any(event.kind == "window_opened" for event in state.events)
