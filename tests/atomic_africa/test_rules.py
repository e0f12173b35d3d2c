"""Golden replays: one per seed rule id AA-R1 … AA-R9 and AA-D1 … AA-D8 (positive and negative
cases), and the Clean-Up worked example of the series (Pt 9, C5). Chance outcomes are chosen
in the label lists (``card=…`` draws, ``d6=…`` contests, attack dice)."""

from __future__ import annotations

import numpy as np
import pytest

from envs.core.errors import IllegalActionError

from .helpers import duel_start, kinds, play

#: duel, turn 1: side 0 holds a 5 (Q in Reserve), side 1 keeps 3 and K in its Reserve; side 0
#: activates, holds and targets side 1's squad
DUEL_TARGETED = duel_start(("5", "Q"), "assign:5", ("3", "K"), "assign:none") + [
    "move:hold", "target:unit0"]
#: reaction scenario, turn 1: side 0 gives 5 and 7 (Q kept); side 1 gives its unit0 a 5 and
#: keeps two Jokers (not eligible from the Reserve, AA-G5) for its orderless unit1
REACTION_START = ["card=5", "card=7", "card=Q", "assign:5", "assign:7",
                  "card=5", "card=Joker", "card=Joker", "assign:5", "assign:none",
                  "d6=6", "d6=1"]


def test_aa_r1_only_one_voluntary_reactor() -> None:
    s = play("reaction", ["card=5", "card=7", "card=Q", "assign:5", "assign:7",
                          "card=5", "card=8", "card=9", "assign:5", "assign:8",
                          "d6=6", "d6=1", "activate:unit1", "move:hold", "target:none"])
    assert s.decision_name() == "reaction"
    assert s.legal_labels() == ["react:unit0", "react:unit1", "react:none"]
    s.apply_action(s.string_to_action("react:unit0"))
    # AA-R1: the next decision is that unit's In-transit figure, not a second reactor
    assert s.decision_name() == "maneuver" and s.current_player() == 1
    assert [r[:2] for r in s.phase.involved] == [[0, 1], [1, 0]]


def test_aa_r2_targeted_unit_must_react() -> None:
    s = play("duel", DUEL_TARGETED)
    ev = kinds(s, "reacts")
    assert ev[-1].rules == ("AA-R2",) and ev[-1].data["compulsory"] is True
    # no "react:none": the targeted unit reacts whatever side 1 wants
    assert s.decision_name() == "reserve_assign"
    assert "react:none" not in s.legal_labels()


def test_aa_r3_voluntary_reaction_needs_line_of_sight() -> None:
    s = play("reaction", ["card=5", "card=7", "card=Q", "assign:5", "assign:7",
                          "card=5", "card=8", "card=9", "assign:5", "assign:8",
                          "d6=6", "d6=1", "activate:unit0", "move:hold", "target:none"])
    # side 0's unit0 stands behind the wood from side 1's unit1 (B Section)
    assert s.legal_labels() == ["react:unit0", "react:none"]
    why = s.why_illegal(s.string_to_action("react:unit1"))
    assert why is not None and why.rules == ("AA-R3",)
    assert "line of sight" in why.reason
    # positive: the In-transit figure counts too — inside the wood it sees out (AA-G9)
    s2 = play("reaction", ["card=5", "card=7", "card=Q", "assign:5", "assign:7",
                           "card=5", "card=8", "card=9", "assign:5", "assign:8",
                           "d6=6", "d6=1", "activate:unit0", "move:forward:4", "target:none"])
    assert "react:unit1" in s2.legal_labels()


def test_aa_r4_orderless_reactor_takes_a_reserve_card() -> None:
    s = play("duel", DUEL_TARGETED)
    assert s.decision_name() == "reserve_assign" and s.current_player() == 1
    assert s.legal_labels() == ["reserve:play:3", "reserve:play:K"]
    s.apply_action(s.string_to_action("reserve:play:K"))
    assert s.zones["order:1:0"].cards == [12]  # the K
    assert s.zones["reserve:1"].cards == [2]  # the 3 is left
    assert kinds(s, "reserve_assign")[-1].rules == ("AA-R4",)


def test_aa_r5_no_voluntary_reaction_without_an_eligible_reserve_card() -> None:
    s = play("reaction", REACTION_START + ["activate:unit1", "move:hold", "target:none"])
    # side 1's unit1 has no order and its Reserve holds only Jokers (AA-G5): not offered
    assert s.decision_name() == "reaction"
    assert s.legal_labels() == ["react:unit0", "react:none"]
    why = s.why_illegal(s.string_to_action("react:unit1"))
    assert why is not None and why.rules == ("AA-R5",)
    with pytest.raises(IllegalActionError, match="AA-R5"):
        s.apply_action(s.string_to_action("react:unit1"))
    # duel: the only unit is orderless with only Jokers -> no reaction decision at all
    d = play("duel", duel_start(("5", "Q"), "assign:5", ("Joker", "Joker"), "assign:none")
             + ["move:hold", "target:none"])
    assert kinds(d, "no_reaction")[-1].rules == ("AA-R3", "AA-R5")
    assert d.decision_name() == "reserve_play" and d.current_player() == 0


def test_aa_r6_compulsory_reaction_without_reserve_is_confused() -> None:
    s = play("duel", duel_start(("5", "Q"), "assign:5", ("Joker", "Joker"), "assign:none")
             + ["move:hold", "target:unit0"])
    assert s.is_chance_node()  # the top card of side 1's deck
    outcomes = dict(s.chance_outcomes())
    assert s.game.chance.id("card=Joker") not in outcomes  # both Jokers are in the Reserve
    assert outcomes[s.game.chance.id("card=K")] == pytest.approx(4 / 52)
    s.apply_action(s.game.chance.id("card=K"))
    assert s.units[1][0].confused
    assert kinds(s, "confused")[-1].rules == ("AA-R6", "AA-G18")
    # AA-G18: no move decision, no special action for the K; only side 0 may change (Q)
    assert s.decision_name() == "reserve_play" and s.current_player() == 0
    s.apply_action(s.string_to_action("reserve:stand"))
    assert s.is_chance_node()
    s.apply_action(s.game.chance.id("d8=1"))
    # the Confused unit's Attack die is one type lower: d6
    assert s.legal_labels()[0] == "d6=1"


def test_aa_r7_reactor_places_its_in_transit_figure() -> None:
    s = play("duel", DUEL_TARGETED + ["reserve:play:3"])
    assert s.decision_name() == "maneuver" and s.current_player() == 1
    s.apply_action(s.string_to_action("move:forward:2"))
    u = s.units[1][0]
    assert (u.tx, u.ty) == pytest.approx((30.0, 48.0 - 9.0))  # side 1's forward is -y
    assert kinds(s, "in_transit")[-1].rules == ("AA-R7",)


def test_aa_r8_reactor_returns_fire_at_the_activating_unit() -> None:
    s = play("duel", DUEL_TARGETED + ["reserve:play:3", "move:hold", "reserve:stand",
                                      "reserve:stand", "d8=2", "d8=8"])
    fire = {(e.side, e.data["unit"]): e for e in kinds(s, "fire")}
    assert set(fire) == {(0, 0), (1, 0)}
    ret = fire[(1, 0)]
    assert ret.data["target"] == 0 and ret.data["attack"] == 8 + 10 // 3
    assert s.units[0][0].wounds == (11 - 6) // 2 and s.units[0][0].suppression == 1


def test_aa_r9_split_fire_cascade_and_its_bound() -> None:
    labels = ["card=5", "card=7", "card=Q", "assign:5", "assign:7",
              "card=J", "card=8", "card=9", "assign:J", "assign:8",
              "d6=6", "d6=1", "activate:unit1", "move:hold", "target:unit0", "target:none",
              "move:hold", "target:unit0"]
    s = play("reaction", labels)
    # side 1's reactor named side 0's unit0 as a Split Fire target: that unit reacts (AA-R9)
    cascade = kinds(s, "reacts")[-1]
    assert (cascade.side, cascade.data["unit"], cascade.data["cascaded"]) == (0, 0, True)
    assert [r[2] for r in s.phase.involved] == [0, 1, 2]
    # the cascaded reactor places its figure and may only return fire (AA-G20): no target
    assert s.decision_name() == "maneuver" and s.current_player() == 0
    s.apply_action(s.string_to_action("move:hold"))
    assert s.decision_name() == "declaration"  # side 1's J announces
    assert s.legal_labels() == ["special:split_fire", "special:rush"]
    s.apply_action(s.string_to_action("special:split_fire"))
    assert s.decision_name() == "reserve_play"
    # negative: without Split Fire the extra target is cancelled (AA-G21)
    t = play("reaction", labels + ["move:hold", "special:rush"])
    assert t.decision_name() == "reserve_play"


def test_aa_d1_orders_are_revealed_together() -> None:
    s = play("duel", DUEL_TARGETED + ["reserve:play:3"])
    ob = s.game.observation
    from envs.rulesets.atomic_africa.observer import FEATURE_INDEX as FI
    L = s.game.layout
    enemy = L.view(ob(s, 1), "enemy_units")
    assert enemy[0, FI["has_order"]] == 1.0 and enemy[0, FI["card_5"]] == 0.0  # face down
    s.apply_action(s.string_to_action("move:hold"))
    rev = kinds(s, "reveal")[-1]
    assert rev.rules == ("AA-D1",) and rev.data["cards"] == [[0, 0, 4], [1, 0, 2]]
    enemy = L.view(ob(s, 1), "enemy_units")
    assert enemy[0, FI["card_5"]] == 1.0 and enemy[0, FI["revealed"]] == 1.0


def test_aa_d2_face_card_announces_a_special_action() -> None:
    s = play("duel", duel_start(("Q", "5"), "assign:Q", ("3", "K"), "assign:none")
             + ["move:hold", "target:unit0", "reserve:play:3", "move:hold"])
    assert s.decision_name() == "declaration" and s.current_player() == 0
    assert s.legal_labels() == ["special:aimed_fire", "special:go_to_ground"]
    why = s.why_illegal(s.string_to_action("special:basic"))
    assert why is not None and why.rules == ("AA-D2",)
    s.apply_action(s.string_to_action("special:aimed_fire"))
    assert kinds(s, "special")[-1].data["special"] == "aimed_fire"


def test_aa_d3_declaration_order_jacks_then_queens_then_contest() -> None:
    # side 0 reveals a Q, side 1 a J: the Jack declares first
    s = play("duel", duel_start(("Q", "5"), "assign:Q", ("J", "3"), "assign:J")
             + ["move:hold", "target:unit0", "move:hold"])
    assert s.decision_name() == "declaration" and s.current_player() == 1
    assert kinds(s, "declaration_order")[-1].rules == ("AA-D3",)
    # two Queens, same Experience: a die-roll contest (higher declares last, AA-G10)
    t = play("duel", duel_start(("Q", "5"), "assign:Q", ("Q", "3"), "assign:Q")
             + ["move:hold", "target:unit0", "move:hold"])
    assert t.is_chance_node()
    from envs.core.replay import play_labels
    play_labels(t, ["d6=2", "d6=2", "d6=5", "d6=1"])  # a tie is rolled again
    assert kinds(t, "contest")[-1].data["rolls"] == [5, 1]
    assert t.decision_name() == "declaration" and t.current_player() == 1


def test_aa_d4_d6_change_replaces_the_revealed_order() -> None:
    s = play("duel", DUEL_TARGETED + ["reserve:play:3", "move:hold", "reserve:play:Q",
                                      "reserve:stand"])
    # AA-D6: the Q totally replaces the 5 (to the discard pile); it must announce (AA-D2)
    assert s.zones["order:0:0"].cards == [11] and s.zones["discard:0"].cards == [4]
    assert kinds(s, "order_replaced")[-1].rules == ("AA-D5", "AA-D6")
    assert s.decision_name() == "declaration"
    s.apply_action(s.string_to_action("special:go_to_ground"))
    assert s.phase.special["0:0"] == "go_to_ground"


def test_aa_d5_second_commitment_does_not_see_the_first() -> None:
    base = DUEL_TARGETED + ["reserve:play:3", "move:hold"]
    a = play("duel", base + ["reserve:play:Q"])
    b = play("duel", base + ["reserve:stand"])
    assert a.current_player() == b.current_player() == 1
    assert a.decision_name() == "reserve_play"
    g = a.game
    assert np.array_equal(g.observation(a, 1), g.observation(b, 1))
    assert np.array_equal(a.legal_action_mask(), b.legal_action_mask())
    assert g.observation_string(a, 1) == g.observation_string(b, 1)
    assert [e.format() for e in a.events] == [e.format() for e in b.events]


def test_aa_d7_loop_repeats_until_both_stand() -> None:
    s = play("duel", DUEL_TARGETED + ["reserve:play:3", "move:hold", "reserve:stand",
                                      "reserve:play:K", "special:rally"])
    # a second round: side 0 may still play its Q; side 1's Reserve is empty, so only side 0
    assert s.decision_name() == "reserve_play" and s.current_player() == 0
    s.apply_action(s.string_to_action("reserve:stand"))
    assert kinds(s, "declaration_end")[-1].rules == ("AA-D7",)
    assert s.is_chance_node()


def test_aa_d8_joker_freezes_the_opponent() -> None:
    s = play("duel", duel_start(("Joker", "Q"), "assign:Joker", ("3", "K"), "assign:none")
             + ["move:hold", "target:unit0", "reserve:play:3", "move:hold"])
    assert kinds(s, "joker")[-1].rules == ("AA-D8",)
    # the Joker names any order (basic included) and a posture
    assert "special:basic" in s.legal_labels() and len(s.legal_labels()) == 7
    from envs.core.replay import play_labels
    play_labels(s, ["special:rush", "posture:prone", "reserve:stand"])
    assert s.current_player() == 1 and s.decision_name() == "reserve_play"
    assert s.legal_labels() == ["reserve:stand"]
    why = s.why_illegal(s.string_to_action("reserve:play:K"))
    assert why is not None and why.rules == ("AA-D8",)
    with pytest.raises(IllegalActionError) as e:
        s.apply_action(s.string_to_action("reserve:play:K"))
    assert "AA-D8" in str(e.value)


def test_cleanup_worked_example_pt9() -> None:
    """C5: an 11-figure squad, base Morale d10, 2 wounds, takes 3 more and carries 4 markers:
    it must split into 6 and 5 figures with 2 markers each and 3 and 2 wounds."""
    s = play("cleanup_example", ["card=5", "card=6", "assign:5", "card=7", "card=8",
                                 "assign:7", "d6=1", "d6=6", "move:hold", "target:unit0",
                                 "reserve:stand", "reserve:stand", "d12=5", "d4=1",
                                 "odd_wound:larger"])
    hit = [e for e in kinds(s, "fire") if e.side == 1][0]
    assert hit.data["wounds"] == 3 and hit.data["markers"] == 1
    split = kinds(s, "split")[-1]
    assert split.rules == ("C1", "C2")
    assert split.data["figures"] == [6, 5]
    assert split.data["markers"] == [2, 2]
    assert split.data["wounds"] == [3, 2]
    a, b = s.units[0][0], s.units[0][1]
    assert (a.figures, a.wounds, a.suppression) == (6, 3, 2)
    assert (b.figures, b.wounds, b.suppression) == (5, 2, 2)


def test_cleanup_small_unit_below_d4_is_destroyed() -> None:
    s = play("cleanup_example", ["card=5", "card=6", "assign:5", "card=7", "card=8",
                                 "assign:7", "d6=1", "d6=6", "move:hold", "target:unit0",
                                 "reserve:stand", "reserve:stand", "d12=12", "d4=1",
                                 "odd_wound:larger", "odd_wound:larger"])
    # 16 - 2 = 14 over: 7 wounds -> 9 in all; the 6-figure half (4 wounds+) still falls below
    # d4 and, under six figures after its own split, is removed (C3)
    assert any(e.rules[0] in ("C1", "C3") for e in kinds(s, "destroyed"))


def test_contest_ends_after_three_ties() -> None:
    """AA-G7 with the engine cap: three tied rolls in a row go to side 0 (forced dice end)."""
    s = play("duel", ["card=5", "card=Q", "assign:5", "card=3", "card=K", "assign:none",
                      "d6=2", "d6=2", "d6=4", "d6=4", "d6=1", "d6=1"])
    assert kinds(s, "contest")[-1].data["rolls"] == [1, 1]
    assert s.first == 0 and s.current_player() == 0
