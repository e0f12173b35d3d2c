"""The Atomic Africa rulings added after independent hand-computed cases (RULINGS): a Joker of
the Reserve in the change loop (AA-D4, AA-D8, AA-G13), the owner's odd counters when a unit
splits (C2), an extra target only with a Split Fire card (AA-R8), and ``why_illegal`` for a
label of another decision. Each starts from the reproduction the case gave."""

from __future__ import annotations

from pathlib import Path

import pytest

from envs.core.errors import IllegalActionError
from envs.core.replay import play_labels

from .helpers import kinds, play
from .test_rules_reference_cases import squad, start, write_scenario

#: duel, turn 1: side 0 holds a 5 (Q kept), side 1 holds a 3 and keeps a Joker; side 0
#: activates, holds and targets side 1's squad, which holds; side 0 stands in the change loop
JOKER_IN_RESERVE = ["card=5", "card=Q", "assign:5", "card=3", "card=Joker", "assign:3",
                    "d6=6", "d6=1", "move:hold", "target:unit0", "move:hold", "reserve:stand"]


@pytest.mark.rule("AA-D4", "AA-D8", "AA-G13")
def test_a_joker_kept_in_the_reserve_is_offered_in_the_change_loop() -> None:
    state = play("duel", JOKER_IN_RESERVE)
    assert state.current_player() == 1 and state.decision_name() == "reserve_play"
    assert state.legal_labels() == ["reserve:play:Joker", "reserve:stand"]
    play_labels(state, ["reserve:play:Joker"])
    # revealed together with side 0's stand: the Joker replaces the 3 and freezes side 0
    assert kinds(state, "order_replaced")[-1].data == {"unit": 0, "card": 13}
    assert kinds(state, "joker")[-1].rules == ("AA-D8",)
    assert state.phase.frozen == [True, False]
    assert state.decision_name() == "declaration" and len(state.legal_labels()) == 7
    play_labels(state, ["special:aimed_fire", "posture:prone"])
    # side 0 still holds its Q but is frozen (AA-D8) and side 1's Reserve is empty: the
    # loop ends and the fire is rolled
    assert kinds(state, "declaration_end")[-1].rules == ("AA-D7",)
    assert state.is_chance_node() and state.zones["reserve:0"].cards == [11]


@pytest.mark.rule("AA-G5", "AA-R4", "AA-R5")
def test_aa_g5_still_keeps_a_joker_from_an_orderless_reactor() -> None:
    # side 1 keeps two Jokers for its orderless unit1: not eligible (AA-G5), so no voluntary
    # reaction by unit1 (AA-R5) unless the parameter allows Jokers
    labels = ["card=5", "card=7", "card=Q", "assign:5", "assign:7", "card=5", "card=Joker",
              "card=Joker", "assign:5", "assign:none", "d6=6", "d6=1", "activate:unit1",
              "move:hold", "target:none"]
    state = play("reaction", labels)
    assert "react:unit1" not in state.legal_labels()
    state = play("reaction", labels, joker_eligible_from_reserve=True)
    assert "react:unit1" in state.legal_labels()
    play_labels(state, ["react:unit1"])  # the only eligible card is given without asking
    assert kinds(state, "reserve_assign")[-1].data == {"unit": 1}
    assert state.zones["order:1:1"].cards == [13]


#: cleanup_example, turn 1: no orders given, side 0 wins the contest; nobody activates, so the
#: turn goes straight to Clean-Up, where side 0 splits its 11-figure squad (2 wounds, 3 markers)
CLEANUP_SPLIT = ["card=5", "card=6", "assign:none", "card=7", "card=8", "assign:none",
                 "d6=6", "d6=1", "split:unit0"]


@pytest.mark.rule("C2", "C4")
def test_c2_the_owner_places_the_odd_marker_of_a_split() -> None:
    state = play("cleanup_example", CLEANUP_SPLIT)
    # 2 wounds divide evenly: only the odd (third) marker is asked about
    assert state.current_player() == 0 and state.decision_name() == "cleanup"
    assert state.legal_labels() == ["odd_marker:larger", "odd_marker:smaller"]
    assert state.decision_context(0).subject == 0
    play_labels(state, ["odd_marker:smaller"])
    split = kinds(state, "split")[-1]
    assert split.rules == ("C4", "C2")
    assert split.data == {"unit": 0, "new": 1, "figures": [6, 5], "markers": [1, 2],
                          "wounds": [1, 1]}


@pytest.mark.rule("C2", "C4")
def test_c2_the_odd_wound_and_the_odd_marker_may_go_to_different_groups(tmp_path: Path) -> None:
    path = write_scenario(tmp_path / "odd.toml", [
        squad(0, "a", 12.0, figures=11, morale=10, wounds=3, suppression=3), squad(1, "b", 48.0)], turns=1)
    state = start(path, CLEANUP_SPLIT)
    assert state.legal_labels() == ["odd_wound:larger", "odd_wound:smaller"]
    play_labels(state, ["odd_wound:larger"])
    assert state.legal_labels() == ["odd_marker:larger", "odd_marker:smaller"]
    why = state.why_illegal(state.string_to_action("odd_wound:smaller"))
    assert why.rules == ("C2",) and "suppression marker" in why.reason
    play_labels(state, ["odd_marker:smaller"])
    assert kinds(state, "split")[-1].data["wounds"] == [2, 1]
    assert kinds(state, "split")[-1].data["markers"] == [1, 2]
    a, b = state.units[0][0], state.units[0][1]
    assert (a.figures, a.wounds, a.suppression) == (6, 2, 1)
    assert (b.figures, b.wounds, b.suppression) == (5, 1, 2)


@pytest.mark.rule("C1", "C2")
def test_c2_a_forced_split_asks_its_owner_too() -> None:
    # the Pt 9 example (C5): 5 wounds, 4 markers; the owner gives the odd wound to the
    # smaller fireteam this time
    state = play("cleanup_example", ["card=5", "card=6", "assign:5", "card=7", "card=8",
                                     "assign:7", "d6=1", "d6=6", "move:hold", "target:unit0",
                                     "reserve:stand", "reserve:stand", "d12=5", "d4=1"])
    assert state.current_player() == 0 and state.legal_labels() == ["odd_wound:larger",
                                                                     "odd_wound:smaller"]
    play_labels(state, ["odd_wound:smaller"])
    split = kinds(state, "split")[-1]
    assert split.rules == ("C1", "C2")
    assert split.data["wounds"] == [2, 3] and split.data["markers"] == [2, 2]


#: reaction scenario, turn 1: side 0 gives 5 and 7; side 1 gives its unit0 ``card`` and its unit1
#: an 8; side 0's unit1 activates, holds and fires at side 1's unit0, which reacts and holds
def _reactor_with(card: str) -> list[str]:
    return ["card=5", "card=7", "card=Q", "assign:5", "assign:7", f"card={card}", "card=8",
            "card=9", f"assign:{card}", "assign:8", "d6=6", "d6=1", "activate:unit1",
            "move:hold", "target:unit0", "target:none", "move:hold"]


@pytest.mark.rule("AA-R8", "AA-R9")
@pytest.mark.parametrize("card, offered", [("J", True), ("Joker", True), ("5", False),
                                           ("Q", False), ("K", False)])
def test_aa_r8_an_extra_target_only_with_a_split_fire_card(card: str, offered: bool) -> None:
    state = play("reaction", _reactor_with(card))
    if offered:
        assert state.current_player() == 1 and state.decision_name() == "fire"
        assert state.legal_labels() == ["target:unit0", "target:none"]
        return
    # no extra target asked: nobody else is drawn in and the orders are revealed
    assert state.decision_name() != "fire"
    assert [row[:3] for row in state.phase.involved] == [[0, 1, 0], [1, 0, 1]]
    assert kinds(state, "reveal")
    with pytest.raises(IllegalActionError):
        state.apply_action(state.string_to_action("target:unit0"))


@pytest.mark.rule("AA-R7", "AA-G8", "AA-G7", "AA-R4")
def test_why_illegal_for_a_label_of_another_decision_cites_the_current_decision() -> None:
    # a reactor's In-transit placement (AA-R7): react:unit0 belongs to another decision
    state = play("reaction", _reactor_with("5")[:-1])
    assert state.decision_name() == "maneuver" and state.current_player() == 1
    why = state.why_illegal(state.string_to_action("react:unit0"))
    assert why.rules == ("AA-R7", "AA-G8")
    assert "react:unit0" in why.reason and "maneuver" in why.reason
    # the activating unit's placement cites AA-G8 only
    state = play("reaction", _reactor_with("5")[:13])
    assert state.decision_name() == "maneuver" and state.current_player() == 0
    assert state.why_illegal(state.string_to_action("split:done")).rules == ("AA-G8",)
    # choosing the unit to activate (AA-G7)
    state = play("reaction", _reactor_with("5")[:12])
    assert state.decision_name() == "activation"
    assert state.why_illegal(state.string_to_action("target:none")).rules == ("AA-G7",)
    # a label of the same decision keeps its own reason
    assert state.why_illegal(state.string_to_action("activate:unit5")).rules == ("AA-G7",)
