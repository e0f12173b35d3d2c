"""The procedure stack and the core frames (envs.core.procedure, frames, zones, reactions,
activation) on the toy skirmish ruleset (tests/toy_frames.py)."""

from __future__ import annotations

import json
from dataclasses import dataclass

import numpy as np
import pytest

from envs.core import CHANCE, TERMINAL, InvalidStateError
from envs.core.activation import Activator, AlternatingTurns, InitiativeTrack, OrderCards
from envs.core.frames import CommitContext, DrawCard, HiddenCommit, RollDice
from envs.core.procedure import (RECORD_KINDS, ChanceNode, Done, Frame, FrameStack, Push, Wait,
                                 record_from_dict, register)
from envs.core.reactions import ReactionContext
from envs.core.replay import play_labels
from envs.core.testing import run_all
from envs.core.zones import Visibility, Zones
from tests.toy_frames import (BLANK, ORDER_BLUE, ORDER_RED, SHIELD, Activation, Round,
                              SkirmishGame, SkirmishState, SkirmishWindow)


def at(labels: list[str], **params) -> SkirmishState:
    return play_labels(SkirmishGame(params=params or None).new_initial_state(), labels)


# -- the whole toy game passes the conformance suite, under each activation order -------------
@pytest.mark.slow
@pytest.mark.parametrize("order", ["alternating", "initiative", "cards"])
def test_conformance_suite_passes_on_the_frame_built_toy(order: str) -> None:
    out = run_all(lambda: SkirmishGame(params={"order": order}), n_games=40, seed=5)
    rg = out["random_games"]
    assert rg["games"] == 40
    assert set(rg["decision_types"]) == {"declaration", "maneuver", "reaction"}
    assert out["json_round_trips"] > 10 and out["clone_points"] > 0


# -- registry ----------------------------------------------------------------------------------
def test_registry_lists_the_frame_kinds_explicitly_and_refuses_duplicates() -> None:
    for kind, cls in [("roll_dice", RollDice), ("draw_card", DrawCard),
                      ("hidden_commit", HiddenCommit), ("skirmish.window", SkirmishWindow),
                      ("skirmish.activation", Activation), ("initiative_track", InitiativeTrack)]:
        assert RECORD_KINDS[kind] is cls
    with pytest.raises(ValueError, match="kind 'roll_dice' of Impostor is already taken by "
                                         "envs.core.frames.RollDice"):
        @register
        @dataclass(slots=True)
        class Impostor(Frame):
            kind = "roll_dice"
    with pytest.raises(ValueError, match="must set a non-empty class attribute 'kind'"):
        @register
        @dataclass(slots=True)
        class Nameless(Frame):
            pass


def test_record_from_dict_refuses_unknown_kind_and_missing_field() -> None:
    with pytest.raises(InvalidStateError, match="unknown kind 'nope'"):
        record_from_dict({"kind": "nope"})
    with pytest.raises(InvalidStateError, match="frame 'roll_dice': missing field 'what'"):
        record_from_dict({"kind": "roll_dice", "count": 2})
    with pytest.raises(InvalidStateError, match="field 'step': malformed"):
        record_from_dict({"kind": "skirmish.activation", "side": 0, "unit": 0,
                          "step": "dance", "target": -1, "parried": False, "roll": None})


def test_frames_round_trip_through_json_with_enums_and_nested_records() -> None:
    s = at(["bid:1", "bid:0", "card=shield"], order="initiative")
    # round -> activations(initiative track) -> activation waiting for red unit 0
    kinds = [f.kind for f in s.stack]
    assert kinds == ["skirmish.round", "skirmish.activations", "skirmish.activation"]
    data = json.loads(json.dumps(s.stack.to_dict()))
    assert data["frames"][1]["order"] == {"kind": "initiative_track", "entries": [
        [0, 0, 5], [0, 1, 2], [1, 0, 4], [1, 1, 3]], "sides": 2, "first": 0, "position": 1}
    assert data["frames"][0]["step"] == "end" and data["node"] == {"player": 0,
                                                                   "decision": "maneuver"}
    back = FrameStack.from_dict(data)
    assert [f.to_dict() for f in back] == [f.to_dict() for f in s.stack]
    assert back.frames[0].step.__class__.__name__ == "RoundStep"


# -- the driver ---------------------------------------------------------------------------------
def test_run_returns_typed_steps_not_flags() -> None:
    s = at([])
    assert isinstance(s.stack.node, Wait) and s.stack.node == Wait(0, "declaration")
    s = at(["bid:1", "bid:0"])
    assert isinstance(s.stack.node, ChanceNode) and s.current_player() == CHANCE
    assert s.stack.node.outcomes == ((SHIELD, 0.5), (BLANK, 0.5))
    dice = RollDice(2, "test", ("R-1",), 0)
    assert dice.run(s) is not None and isinstance(dice.run(s), ChanceNode)
    dice.values = [3, 4]
    assert dice.run(s) == Done()
    assert Push(dice).frames == (dice,)


def test_why_illegal_comes_from_the_waiting_frame() -> None:
    s = at(["bid:0", "bid:0"])  # no draw; red unit 0 activates
    assert s.legal_labels() == ["attack:0", "attack:1", "pass"]
    why = s.why_illegal(s.string_to_action("react:parry"))
    assert why is not None and why.rules == ("TOY-S-5",)
    assert why.reason == "an activated unit attacks or passes"


# -- dice ----------------------------------------------------------------------------------------
def test_dice_of_any_size_are_one_chance_node_per_die() -> None:
    class Log:
        def __init__(self) -> None:
            self.events: list = []

        def log(self, kind, rules, text, side, **data):
            self.events.append((kind, rules, text, side, data))

    st = Log()
    d = RollDice(2, "ten-sided", ("R-9",), 1, sides=10, first_outcome=6)
    node = d.run(st)
    assert node.outcomes == tuple((6 + i, 0.1) for i in range(10))
    assert d.legal_actions(st) == list(range(6, 16))
    assert d.apply(st, 15) is None  # face 10, one die left
    assert d.apply(st, 6) == Done()  # face 1
    assert d.values == [10, 1]
    assert st.events[0] == ("die", ("R-9",), "ten-sided: d10 = 10 (1/2)", 1,
                            {"value": 10, "index": 0, "of": 2, "what": "ten-sided"})
    with pytest.raises(InvalidStateError, match="sides >= 2"):
        RollDice(1, "coin?", sides=1)


# -- cards ----------------------------------------------------------------------------------------
def test_card_draw_probabilities_follow_the_remaining_deck() -> None:
    s = at(["bid:2", "bid:0"])
    assert s.chance_outcomes() == [(SHIELD, 0.5), (BLANK, 0.5)]
    s = at(["bid:2", "bid:0", "card=shield"])
    assert s.zones["hand:0"].cards == [SHIELD] and s.zones.size("deck") == 5
    # next round: red bids higher again; 2 shields and 3 blanks are left
    s2 = play_labels(s, ["attack:0", "react:decline", "d6=1", "pass", "bid:2", "bid:1"])
    assert s2.current_player() == CHANCE
    assert s2.chance_outcomes() == [(SHIELD, pytest.approx(2 / 5)), (BLANK, pytest.approx(3 / 5))]
    zones = Zones()
    zones.add("deck", None, Visibility.NOBODY, [1])
    zones.add("hand", 0, Visibility.OWNER)
    zones.move(1, "deck", "hand")
    with pytest.raises(InvalidStateError, match="cannot draw from the empty zone 'deck'"):
        zones.distribution("deck")
    with pytest.raises(InvalidStateError, match="card 1 is not in zone 'deck'"):
        zones.move(1, "deck", "hand")


def test_a_draw_into_a_hidden_hand_is_not_announced() -> None:
    s = at(["bid:2", "bid:0", "card=shield"])
    draw = [e for e in s.events if e.kind == "draw"][-1]
    assert draw.data == {"deck": "deck", "dest": "hand:0", "left": 5}
    assert "shield" not in draw.text


# -- hidden zones -------------------------------------------------------------------------------
def test_public_view_shows_sizes_but_hides_other_sides_hands_and_the_deck() -> None:
    s = at(["bid:2", "bid:0", "card=shield"])
    red, blue = s.zones.public_view(0), s.zones.public_view(1)
    assert red["hand:0"].cards == (SHIELD,) and blue["hand:0"].cards is None
    assert blue["hand:0"].size == 1
    assert red["deck"].cards is None and red["deck"].size == 5
    assert red["discard"].cards == () and blue["discard"].cards == ()


def test_observation_of_a_side_does_not_depend_on_what_it_may_not_see() -> None:
    shield = at(["bid:2", "bid:0", "card=shield"])
    blank = at(["bid:2", "bid:0", "card=blank"])
    assert np.array_equal(shield.game.observation(shield, 1), blank.game.observation(blank, 1))
    assert shield.game.observation_string(shield, 1) == blank.game.observation_string(blank, 1)
    assert not np.array_equal(shield.game.observation(shield, 0),
                              blank.game.observation(blank, 0))


# -- hidden simultaneous commitment --------------------------------------------------------------
def test_the_second_side_does_not_see_the_first_sides_bid_until_both_committed() -> None:
    obs_blue = []
    for bid in ("bid:0", "bid:1", "bid:2"):
        s = at([bid])
        assert s.current_player() == 1 and s.decision_type() == "declaration"
        ctx = s.decision_context(1)
        assert ctx == CommitContext("hidden_commit", 1, "declaration", (True, False), None)
        assert s.decision_context(0).own_choice == s.string_to_action(bid)
        obs_blue.append(s.game.observation(s, 1))
        assert [e.kind for e in s.events] == ["commit"] and s.events[0].data == {}
    assert all(np.array_equal(obs_blue[0], o) for o in obs_blue[1:])
    s = at(["bid:2", "bid:1"])
    reveal = [e for e in s.events if e.kind == "reveal"]
    assert reveal[0].data == {"choices": [2, 1]}
    assert s.stack.frames[0].bids == [2, 1]


# -- reaction window -------------------------------------------------------------------------------
def test_reaction_window_asks_the_defender_and_always_offers_decline() -> None:
    s = at(["bid:0", "bid:0", "attack:1"])
    assert s.current_player() == 1 and s.decision_type() == "reaction"
    # no shield in hand: parry masked by its cost; counter allowed (3 hp)
    assert s.legal_labels() == ["react:counter", "react:decline"]
    why = s.why_illegal(s.string_to_action("react:parry"))
    assert why.rules == ("TOY-S-7",) and why.reason == "cannot pay 1 shield"
    assert s.decision_context(0) == ReactionContext("skirmish.window", 1, "reaction", "attack",
                                                    1, ("react:parry", "react:counter"))
    opened = [e for e in s.events if e.kind == "window_opened"]
    assert opened[-1].data == {"trigger": "attack", "subject": 1}


def test_reaction_cost_is_paid_and_resolution_frames_run_in_the_windows_place() -> None:
    # blue wins the bid and draws a shield, then red attacks blue's unit 0
    s = at(["bid:0", "bid:2", "card=shield", "attack:0"])
    assert s.legal_labels() == ["react:parry", "react:counter", "react:decline"]
    p = play_labels(s.clone(), ["react:parry"])
    assert p.zones["hand:1"].cards == [] and p.zones["discard"].cards == [SHIELD]
    p = play_labels(p, ["d6=4"])  # parried: 4 misses
    assert [e.kind for e in p.events][-2:] == ["die", "miss"]
    # counter: the counter blow (5+) is rolled before the attack
    c = play_labels(s.clone(), ["react:counter"])
    assert c.stack.top.kind == "roll_dice" and c.stack.frames[-2].kind == "skirmish.counter_blow"
    c = play_labels(c, ["d6=5", "d6=4"])
    assert [(e.kind, e.data.get("unit")) for e in c.events if e.kind == "damage"] == \
        [("damage", 0), ("damage", 0)]
    assert c.hp == [[2, 3], [2, 3]]


def test_counter_is_refused_with_its_rule_at_one_hit_point() -> None:
    s = at(["bid:0", "bid:0", "attack:0"], hp=1)
    assert s.legal_labels() == ["react:decline"]
    why = s.why_illegal(s.string_to_action("react:counter"))
    assert why.rules == ("TOY-S-8",) and "1 hit point" in why.reason


# -- activation orders -----------------------------------------------------------------------------
def _actors(order, eligible=lambda who: True) -> list[tuple[int, int | None]]:
    out = []
    while True:
        who = order.next(None, eligible)
        if who is None:
            return out
        out.append((who.side, who.unit))


def test_alternating_turns() -> None:
    order = AlternatingTurns(2, first=1, active=1)
    assert _actors(order) == [(1, None), (0, None)]
    order.new_round(None)
    assert order.turn == 2 and _actors(order, lambda w: w.side == 0) == [(0, None)]
    acw = AlternatingTurns(2, first=0, active=0)
    assert acw.end_player_turn() is False and acw.active == 1 and acw.turn == 1
    assert acw.end_player_turn() is True and acw.active == 0 and acw.turn == 2
    assert acw.player_turn == 2


def test_initiative_track_orders_by_initiative_then_side_then_unit() -> None:
    track = InitiativeTrack([[0, 0, 3], [0, 1, 5], [1, 0, 3], [1, 1, 1]], first=1)
    assert _actors(track) == [(0, 1), (1, 0), (0, 0), (1, 1)]
    track.new_round(None)
    assert _actors(track, lambda w: w.unit == 0) == [(1, 0), (0, 0)]
    track.set_initiative(1, 1, 9)
    track.new_round(None)
    assert _actors(track)[0] == (1, 1)
    with pytest.raises(InvalidStateError, match="no entry for side 2 unit 0"):
        track.set_initiative(2, 0, 1)


def test_order_cards_draw_a_chance_node_over_the_cards_left() -> None:
    s = at(["bid:0", "bid:0"], order="cards")
    assert s.current_player() == CHANCE
    assert s.chance_outcomes() == [(ORDER_RED, 0.5), (ORDER_BLUE, 0.5)]
    s = play_labels(s, ["order=blue"])
    assert s.current_player() == 1 and s.stack.top.kind == "skirmish.activation"
    s = play_labels(s, ["pass"])
    assert s.chance_outcomes() == [(ORDER_RED, pytest.approx(2 / 3)),
                                   (ORDER_BLUE, pytest.approx(1 / 3))]
    s = play_labels(s, ["order=blue", "pass", "order=red", "pass", "order=red", "pass"])
    # all four order cards drawn: the round ends, the cards go back for the next bid
    assert s.decision_type() == "declaration" and s.round == 1
    s = play_labels(s, ["bid:0", "bid:0"])
    assert s.zones.size("orders") == 4 and s.chance_outcomes()[0] == (ORDER_RED, 0.5)
    oc = OrderCards("orders", "orders_done", {ORDER_RED: 0})
    assert oc.after_draw(None, DrawCard("orders", "orders_done", card=ORDER_RED)) == \
        Activator(0)


def test_initiative_order_in_play_skips_units_that_are_out() -> None:
    s = at(["bid:0", "bid:0"], order="initiative", hp=1)
    # red 0 (5) attacks blue 1 (3) and fells it: blue 1 does not activate this round
    s = play_labels(s, ["attack:1", "react:decline", "d6=6"])
    assert (s.current_player(), s.stack.top.unit) == (1, 0)  # blue 0 (4)
    s = play_labels(s, ["pass"])
    assert (s.current_player(), s.stack.top.unit) == (0, 1)  # red 1 (2); blue 1 skipped
    assert s.terminal_decision == "terminal" and TERMINAL == -4


def test_copy_is_deep_for_nested_lists_of_any_shape() -> None:
    track = InitiativeTrack([[0, 0, 5], [1, 0, 4]])
    other = track.copy()
    other.entries[1][2] = 9
    assert track.entries == [[0, 0, 5], [1, 0, 4]]

    @register
    @dataclass(slots=True)
    class Mixed(Frame):
        kind = "test.mixed"
        groups: list[list] = None  # type: ignore[assignment]

    m = Mixed([[3, [1, 2]], [4, [5]]])
    c = m.copy()
    c.groups[0][1].append(9)
    assert m.groups == [[3, [1, 2]], [4, [5]]]
    assert record_from_dict(m.to_dict()).groups == m.groups
