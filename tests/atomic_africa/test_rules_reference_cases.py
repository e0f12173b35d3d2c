"""Tests of the Atomic Africa rules that no test named before the rules reference was written
(docs/rules/atomic_africa.md): the gap defaults AA-G1 … AA-G25 the engine applies and the
Clean-Up rules C4 and C6. Each plays the game through the public protocol (labels, chance
outcomes, events, zones, ``why_illegal``) on a built-in scenario or a small one written here."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from envs.core.errors import ScenarioError
from envs.core.replay import play_labels
from envs.rulesets import load_game

from .helpers import duel_start, kinds, play

#: duel, turn 1, up to the first activation: side 0 holds a 5 and keeps a Q, side 1 holds a 3
#: and keeps a K; side 0 activates first
ORDERS_5_3 = duel_start(("5", "Q"), "assign:5", ("3", "K"), "assign:3")
#: the rest of turn 1 of duel when nobody fires: side 0 holds, skips Targeting, side 1 does not
#: react and nobody changes an order; then the same for side 1
QUIET_TURN = ORDERS_5_3 + ["move:hold", "target:none", "react:none", "reserve:stand",
                           "move:hold", "target:none", "reserve:stand"]


def _toml(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, dict):
        return "{" + ", ".join(f'"{key}" = {_toml(item)}' for key, item in value.items()) + "}"
    return repr(value)


def write_scenario(path: Path, units: list[dict[str, Any]], *, turns: int = 3,
                   sides: tuple[dict[str, Any], dict[str, Any]] = ({}, {}),
                   objectives: list[dict[str, Any]] = (), terrain: list[dict[str, Any]] = ()
                   ) -> Path:
    """A 60 x 60 cm scenario with ``units`` (TOML keys of ``[[units]]``)."""
    lines = ['name = "case"', f"turns = {turns}", "[table]", "width = 60.0", "depth = 60.0"]
    for index, side in enumerate(sides):
        lines += ["[[sides]]", f'name = "side {index}"']
        lines += [f"{key} = {_toml(value)}" for key, value in side.items()]
    for area in terrain:
        lines.append("[[terrain]]")
        lines += [f"{key} = {_toml(value)}" for key, value in area.items()]
    for objective in objectives:
        lines.append("[[objectives]]")
        lines += [f"{key} = {_toml(value)}" for key, value in objective.items()]
    for unit in units:
        lines.append("[[units]]")
        lines += [f"{key} = {_toml(value)}" for key, value in unit.items()]
    path.write_text("\n".join(lines) + "\n")
    return path


def squad(side: int, name: str, y: float, **keys: Any) -> dict[str, Any]:
    return {"side": side, "name": name, "figures": 10, "morale": 8, "equipment": 8,
            "x": 30.0, "y": y, **keys}


def start(path: Path, labels: list[str], **params: Any):
    state = load_game("atomic_africa", str(path), params or None).new_initial_state()
    return play_labels(state, labels)


def outcome_labels(state) -> list[str]:
    return [state.action_to_string(action) for action, _ in state.chance_outcomes()]


#: what a side that wants nothing to happen chooses, first match wins
QUIET = ("react:none", "target:none", "move:hold", "reserve:stand", "split:done",
         "assign:none")


def play_quietly_until(state, kind: str, limit: int = 200):
    """Play the quiet choice (``QUIET``, else the first legal label; the first chance
    outcome) until an event of ``kind`` is logged."""
    for _ in range(limit):
        if kinds(state, kind) or state.is_terminal():
            return state
        if state.is_chance_node():
            play_labels(state, [outcome_labels(state)[0]])
            continue
        legal = state.legal_labels()
        play_labels(state, [next((label for label in QUIET if label in legal), legal[0])])
    raise AssertionError(f"no {kind!r} event after {limit} steps")


# -- cards, orders and the Reserve -------------------------------------------------------------

@pytest.mark.rule("AA-G1")
def test_each_side_draws_from_its_own_54_card_deck():
    state = play("duel", [])
    odds = {state.action_to_string(action): p for action, p in state.chance_outcomes()}
    assert len(odds) == 14
    assert odds["card=5"] == pytest.approx(4 / 54) and odds["card=K"] == pytest.approx(4 / 54)
    assert odds["card=Joker"] == pytest.approx(2 / 54)
    play_labels(state, ["card=Joker"])
    odds = {state.action_to_string(action): p for action, p in state.chance_outcomes()}
    assert odds["card=Joker"] == pytest.approx(1 / 53)  # side 0's deck lost one Joker
    assert kinds(state, "draw")[-1].data["left"] == 53


@pytest.mark.rule("AA-G2", "AA-G8")
def test_a_number_card_is_a_basic_order_of_two_increments():
    state = play("duel", ORDERS_5_3 + ["move:forward:4", "target:none", "react:none",
                                       "reserve:stand"])
    assert not kinds(state, "special")  # a number card announces nothing
    move = kinds(state, "move")[-1]
    assert move.data["increments"] == 2 and "(basic)" in move.text
    assert (move.data["x"], move.data["y"]) == (30.0, 12.0 + 2 * 4.5)


@pytest.mark.rule("AA-G3")
def test_an_ace_is_a_basic_order():
    state = play("duel", duel_start(("A", "Q"), "assign:A", ("3", "K"), "assign:3")
                 + ["move:forward:4", "target:none", "react:none"])
    assert state.decision_name() == "reserve_play"  # no special action to announce
    play_labels(state, ["reserve:stand"])
    assert kinds(state, "reveal")[0].text.endswith("side 0 unit0 A")
    move = kinds(state, "move")[-1]
    assert move.data["increments"] == 2 and "(basic)" in move.text


@pytest.mark.rule("AA-G4")
def test_orders_phase_draws_a_card_per_unit_plus_the_experience_bonus(tmp_path):
    assert kinds(play("duel", ["card=5", "card=Q"]), "orders_phase")[0].data["cards"] == 2
    state = play("duel", ["card=5"], experience_draw_bonus=False)
    assert kinds(state, "orders_phase")[0].data["cards"] == 1
    assert state.decision_name() == "orders"
    state = play("duel", ["card=5", "card=Q", "card=3"], cards_per_unit=2)
    assert kinds(state, "orders_phase")[0].data["cards"] == 3
    # every unit gets one card face down or none; the rest is the hidden Reserve
    assert state.legal_labels() == ["assign:3", "assign:5", "assign:Q", "assign:none"]
    play_labels(state, ["assign:Q"])
    assert state.zones["order:0:0"].cards == [11]
    assert sorted(state.zones["reserve:0"].cards) == [2, 4]
    # an attached unit needs an order but adds no card to the draw
    path = write_scenario(tmp_path / "attached.toml", [
        squad(0, "squad", 10.0), squad(0, "mortar", 5.0, kind="support", attached=True,
                                       figures=3, x=20.0),
        squad(1, "enemy", 50.0)])
    state = start(path, ["card=5", "card=6"])
    assert kinds(state, "orders_phase")[0].data["cards"] == 2  # 1 unit + regular bonus 1
    assert state.decision_name() == "orders"


@pytest.mark.rule("AA-G6")
def test_used_orders_and_the_reserve_are_discarded_at_clean_up():
    state = play("duel", QUIET_TURN + ["split:done", "split:done"])
    assert kinds(state, "cleanup_end")[-1].rules == ("AA-G6",)
    # side 0 used its 5 and kept its Q, side 1 used its 3 and kept its K
    assert sorted(state.zones["discard:0"].cards) == [4, 11]
    assert sorted(state.zones["discard:1"].cards) == [2, 12]
    assert state.zones["reserve:0"].cards == [] and state.zones["order:0:0"].cards == []
    assert len(state.zones["deck:0"].cards) == 52


@pytest.mark.rule("AA-G6", "AA-G1")
def test_an_empty_deck_takes_back_its_discard_pile(tmp_path):
    path = write_scenario(tmp_path / "small_deck.toml", [squad(0, "a", 10.0),
                                                          squad(1, "b", 50.0)],
                          sides=({"deck": {"5": 2, "9": 1}}, {}))
    state = start(path, ["card=5", "card=9", "assign:5"]
                  + ["card=3", "card=K", "assign:3", "d6=6", "d6=1"]
                  + ["move:hold", "target:none", "react:none", "reserve:stand",
                     "move:hold", "target:none", "reserve:stand", "split:done", "split:done"])
    # turn 2: side 0's deck holds one 5; the second card comes from the reshuffled discards
    assert kinds(state, "turn")[-1].data["turn"] == 2
    assert outcome_labels(state) == ["card=5"]
    play_labels(state, ["card=5"])
    assert sorted(outcome_labels(state)) == ["card=5", "card=9"]
    assert state.zones["discard:0"].cards == []


# -- activation and movement -----------------------------------------------------------------

@pytest.mark.rule("AA-G8")
def test_a_rush_moves_four_increments_of_the_units_size():
    labels = duel_start(("J", "Q"), "assign:J", ("3", "K"), "assign:3") + [
        "move:forward:4", "target:none", "react:none", "special:rush", "reserve:stand"]
    move = kinds(play("duel", labels), "move")[-1]
    assert (move.data["increments"], move.data["y"]) == (4, 12.0 + 4 * 4.5)
    move = kinds(play("duel", labels, infantry_increment_cm=5.0), "move")[-1]
    assert (move.data["increments"], move.data["y"]) == (4, 12.0 + 4 * 5.0)
    # the In-transit figure is placed in whole increments, 1 to 4, or held
    state = play("duel", ORDERS_5_3)
    assert state.legal_labels()[:5] == ["move:hold", "move:forward:1", "move:forward:2",
                                        "move:forward:3", "move:forward:4"]


# -- the Declaration ---------------------------------------------------------------------------

@pytest.mark.rule("AA-G11", "AA-D7")
def test_the_change_loop_runs_until_both_stand_in_one_round():
    labels = duel_start(("5", "Q"), "assign:5", ("3", "K"), "assign:none") + [
        "move:hold", "target:unit0", "reserve:play:3", "move:hold"]
    state = play("duel", labels + ["reserve:play:Q", "reserve:stand", "special:aimed_fire"])
    # round 1: side 0 played, side 1 stood, so there is a round 2 (side 0 has nothing left)
    assert state.decision_name() == "reserve_play" and state.current_player() == 1
    assert not kinds(state, "declaration_end")
    play_labels(state, ["reserve:stand"])
    assert kinds(state, "declaration_end")[-1].rules == ("AA-D7",)
    assert state.is_chance_node()
    # both stand in round 1: the loop ends at once
    state = play("duel", labels + ["reserve:stand", "reserve:stand"])
    assert len(kinds(state, "declaration_end")) == 1 and state.is_chance_node()


@pytest.mark.rule("AA-G12", "AA-D2")
def test_each_face_card_offers_its_two_special_actions(tmp_path):
    jack = play("duel", duel_start(("J", "Q"), "assign:J", ("3", "K"), "assign:3")
                + ["move:hold", "target:none", "react:none"])
    assert jack.legal_labels() == ["special:split_fire", "special:rush"]
    king = play("duel", duel_start(("K", "Q"), "assign:K", ("3", "K"), "assign:3")
                + ["move:hold", "target:none", "react:none"])
    assert king.legal_labels() == ["special:assault", "special:rally"]
    # a vehicle announces only the actions of its list: a Queen leaves it Aimed Fire
    path = write_scenario(tmp_path / "vehicle.toml", [
        squad(0, "halftrack", 10.0, kind="vehicle", figures=1, defense=2),
        squad(1, "enemy", 50.0)])
    vehicle = start(path, duel_start(("Q", "5"), "assign:Q", ("3", "K"), "assign:3")
                    + ["move:hold", "target:none", "react:none"])
    # Go to Ground is not on the list: the one action left is announced without asking
    assert vehicle.decision_name() == "reserve_play"
    assert kinds(vehicle, "special")[-1].data == {"unit": 0, "special": "aimed_fire"}


@pytest.mark.rule("AA-G13", "AA-D8")
def test_a_joker_played_from_the_reserve_freezes_the_opponent():
    labels = duel_start(("5", "Joker"), "assign:5", ("3", "K"), "assign:none") + [
        "move:hold", "target:unit0", "reserve:play:3", "move:hold"]
    state = play("duel", labels + ["reserve:play:Joker", "reserve:stand"])
    assert kinds(state, "joker")[-1].data == {"unit": 0}
    assert kinds(state, "order_replaced")[-1].data == {"unit": 0, "card": 13}
    # the Joker names any order, then a posture; side 1 is not asked again (frozen)
    assert "special:basic" in state.legal_labels() and len(state.legal_labels()) == 7
    play_labels(state, ["special:rush", "posture:crouched"])
    assert kinds(state, "declaration_end")[-1].rules == ("AA-D7",)
    assert state.is_chance_node()
    assert state.zones["reserve:1"].cards == [12]  # the K was never played


# -- fire, suppression and morale --------------------------------------------------------------

def _duel_fire(die: str, **params: Any):
    """duel, turn 1: side 0 (10 figures, d8) fires at side 1's squad 36 cm away, which
    reacts with its 3 and fires back with d8=1."""
    labels = duel_start(("5", "Q"), "assign:5", ("3", "K"), "assign:none") + [
        "move:hold", "target:unit0", "reserve:play:3", "move:hold", "reserve:stand",
        "reserve:stand", die, "d8=1"]
    return play("duel", labels, **params)


@pytest.mark.rule("AA-G14")
@pytest.mark.parametrize("die, attack, markers, wounds", [
    ("d8=2", 5, 0, 0),   # 2 + 10 // 3 = 5 does not beat the range threshold 6
    ("d8=3", 6, 0, 0),   # equal is not beating
    ("d8=4", 7, 1, 1),   # beats both thresholds by 1: a marker and at least one wound
    ("d8=8", 11, 1, 2),  # 5 over the damage threshold: two full pairs
])
def test_attack_score_against_the_range_and_damage_thresholds(die, attack, markers, wounds):
    fire = [event for event in kinds(_duel_fire(die), "fire") if event.side == 0][0]
    assert fire.data == {"unit": 0, "target": 0, "attack": attack, "range_threshold": 6,
                         "damage_threshold": 6, "markers": markers, "wounds": wounds}


@pytest.mark.rule("AA-G14")
def test_range_thresholds_and_attack_points_are_parameters():
    state = _duel_fire("d8=4", range_thresholds=[2, 4, 5, 8], figures_per_attack_point=5)
    fire = [event for event in kinds(state, "fire") if event.side == 0][0]
    assert (fire.data["attack"], fire.data["range_threshold"]) == (4 + 10 // 5, 5)
    assert (fire.data["markers"], fire.data["wounds"]) == (1, 1)
    state = _duel_fire("d8=4", range_bands_cm=[15.0, 30.0, 35.0])  # 36 cm is beyond 35
    fire = [event for event in kinds(state, "fire") if event.side == 0][0]
    assert fire.data["range_threshold"] == 8 and fire.data["markers"] == 0


@pytest.mark.rule("AA-G15")
def test_suppression_lowers_the_attack_die_and_three_markers_pin(tmp_path):
    path = write_scenario(tmp_path / "suppressed.toml", [
        squad(0, "shaken", 12.0, suppression=1), squad(1, "enemy", 48.0)])
    state = start(path, duel_start(("5", "Q"), "assign:5", ("3", "K"), "assign:none") + [
        "move:hold", "target:unit0", "reserve:play:3", "move:hold", "reserve:stand",
        "reserve:stand"])
    assert outcome_labels(state) == [f"d6={n}" for n in range(1, 7)]  # d8 one type down
    # two markers: the In-transit figure may go out; three: only holding is left, so the
    # placement is not even asked and the unit is at Targeting
    for markers, decision in ((2, "maneuver"), (3, "fire")):
        path = write_scenario(tmp_path / f"pinned{markers}.toml", [
            squad(0, "pinned", 12.0, suppression=markers), squad(1, "enemy", 48.0)])
        state = start(path, ORDERS_5_3)
        assert state.decision_name() == decision
        assert len(kinds(state, "in_transit")) == (decision == "fire")
    assert kinds(state, "in_transit")[-1].data == {"unit": 0}  # held


def _clean_up_morale(tmp_path: Path, **unit_keys: Any):
    """A quiet first turn of a duel whose side-0 squad starts with ``unit_keys``; the state at
    the Morale Sub-phase."""
    path = write_scenario(tmp_path / "morale.toml", [squad(0, "a", 12.0, **unit_keys),
                                                     squad(1, "b", 48.0)])
    return start(path, QUIET_TURN + ["split:done", "split:done"], voluntary_splits=True)


@pytest.mark.rule("AA-G16", "C6")
@pytest.mark.parametrize("roll, removed", [("d10=3", 0), ("d10=4", 1), ("d10=7", 1),
                                           ("d10=8", 2), ("d10=10", 2)])
def test_morale_roll_removes_one_marker_on_4_and_two_on_8(tmp_path, roll, removed):
    state = _clean_up_morale(tmp_path, morale=10, suppression=2)
    assert outcome_labels(state) == [f"d10={n}" for n in range(1, 11)]
    play_labels(state, [roll])
    morale = kinds(state, "morale")[-1]
    assert morale.rules == ("C6", "AA-G16")
    assert (morale.data["roll"], morale.data["removed"]) == (int(roll.split("=")[1]), removed)


@pytest.mark.rule("C6")
def test_only_units_with_markers_roll_and_wounds_lower_the_morale_die(tmp_path):
    state = _clean_up_morale(tmp_path, morale=10, suppression=1, wounds=1)
    assert outcome_labels(state) == [f"d8={n}" for n in range(1, 9)]  # d10 one type down
    play_labels(state, ["d8=4"])
    assert kinds(state, "morale")[-1].data["removed"] == 1
    assert kinds(state, "cleanup_end")  # side 1's squad had no marker: no roll for it
    assert len(kinds(state, "morale")) == 1


@pytest.mark.rule("AA-G17")
def test_a_vehicle_whose_equipment_die_falls_below_d4_is_knocked_out(tmp_path):
    path = write_scenario(tmp_path / "vehicle.toml", [
        squad(0, "halftrack", 12.0, kind="vehicle", figures=1, equipment=4, wounds=1,
              defense=2),
        squad(0, "squad", 12.0, x=10.0), squad(1, "enemy", 48.0)])
    state = start(path, ["card=5", "card=6", "card=7", "assign:5", "assign:6"]
                  + ["card=3", "card=K", "assign:3", "d6=6", "d6=1"])
    play_quietly_until(state, "cleanup_end")
    destroyed = [event for event in kinds(state, "destroyed") if event.side == 0]
    assert [event.data["unit"] for event in destroyed] == [0]
    assert "AA-G17" in destroyed[0].rules


# -- experience, postures, victory, unit sizes ---------------------------------------------------

@pytest.mark.rule("AA-G19", "AA-G4")
@pytest.mark.parametrize("experience, cards", [("green", 1), ("regular", 2), ("veteran", 3),
                                               ("elite", 4)])
def test_four_experience_levels_set_the_draw(tmp_path, experience, cards):
    path = write_scenario(tmp_path / "levels.toml", [squad(0, "a", 10.0), squad(1, "b", 50.0)],
                          sides=({"experience": experience}, {}))
    state = start(path, [])
    play_labels(state, ["card=5"] * 1)
    assert kinds(state, "orders_phase")[0].data["cards"] == cards


@pytest.mark.rule("AA-G22", "AA-D8")
@pytest.mark.parametrize("posture, bonus, increments", [("prone", 2, 1), ("crouched", 1, 2),
                                                        ("standing", 0, 2)])
def test_posture_raises_the_damage_threshold_and_prone_halves_the_move(posture, bonus,
                                                                       increments):
    labels = duel_start(("5", "Joker"), "assign:5", ("3", "K"), "assign:none") + [
        "move:forward:2", "target:unit0", "reserve:play:3", "move:hold",
        "reserve:play:Joker", "reserve:stand", "special:basic", f"posture:{posture}",
        "d8=3", "d8=3"]
    state = play("duel", labels)
    assert kinds(state, "posture")[-1].data == {"unit": 0, "posture": posture}
    assert kinds(state, "move")[-1].data["increments"] == increments
    back = [event for event in kinds(state, "fire") if event.side == 1][0]
    assert back.data["damage_threshold"] == back.data["range_threshold"] + bonus


@pytest.mark.rule("AA-G23")
def test_the_game_ends_after_its_turns_and_objectives_score(tmp_path):
    state = play("duel", QUIET_TURN + ["split:done", "split:done"], turns=1)
    assert state.is_terminal()
    end = kinds(state, "game_end")[-1]
    assert end.rules == ("AA-G23",) and end.data["scores"] == [0, 0]
    assert list(state.returns()) == [0.0, 0.0]
    path = write_scenario(tmp_path / "objective.toml", [squad(0, "a", 12.0),
                                                        squad(1, "b", 48.0)],
                          objectives=[{"name": "well", "x": 30.0, "y": 16.0}], turns=1)
    state = start(path, QUIET_TURN + ["split:done", "split:done"])
    assert kinds(state, "game_end")[-1].data["scores"] == [1, 0]
    assert list(state.returns()) == [1.0, -1.0]
    state = start(path, QUIET_TURN + ["split:done", "split:done"], objective_radius_cm=3.0)
    assert kinds(state, "game_end")[-1].data["scores"] == [0, 0]


@pytest.mark.rule("AA-G24", "C3", "C4")
def test_only_units_of_twice_the_minimum_size_may_split(tmp_path):
    state = play("duel", QUIET_TURN)
    assert state.decision_name() == "cleanup"
    assert state.legal_labels() == ["split:unit0", "split:done"]
    state = play("duel", QUIET_TURN, min_unit_figures=6)  # 10 figures < 12: no split offered
    assert state.decision_name() != "cleanup"
    path = write_scenario(tmp_path / "five.toml", [squad(0, "a", 12.0, figures=5),
                                                   squad(1, "b", 48.0, figures=6)])
    state = start(path, QUIET_TURN)
    assert state.decision_name() == "cleanup" and state.current_player() == 1
    assert state.legal_labels() == ["split:unit0", "split:done"]


@pytest.mark.rule("C4", "C2")
def test_a_voluntary_split_halves_the_unit():
    state = play("duel", QUIET_TURN + ["split:unit0"])
    split = kinds(state, "split")[-1]
    assert split.rules == ("C4", "C2")
    assert split.data == {"unit": 0, "new": 1, "figures": [5, 5], "markers": [0, 0],
                          "wounds": [0, 0]}
    assert state.decision_name() == "cleanup" and state.current_player() == 1
    state = play("duel", QUIET_TURN, voluntary_splits=False)
    assert not any(event.kind == "split" for event in state.events)
    assert state.is_chance_node()  # straight on to turn 2's Orders Phase


@pytest.mark.rule("AA-G25")
def test_off_board_attached_units_are_not_part_of_the_game(tmp_path):
    path = write_scenario(tmp_path / "off_board.toml", [
        squad(0, "a", 12.0), squad(0, "battery", 0.0, kind="off_board", attached=True),
        squad(1, "b", 48.0)])
    with pytest.raises(ScenarioError, match="kind"):
        load_game("atomic_africa", str(path))
