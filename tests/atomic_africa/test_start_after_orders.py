"""Scenarios that start after the Orders Phase (scenario ``[start]``): each unit's face-down
order, each side's Reserve, discard pile and deck order written down, validated with errors
that name the file and the key (AA-G4, AA-G6, AA-G7, AA-R6)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from envs.core.errors import ScenarioError
from envs.core.replay import play_labels
from envs.rulesets import load_game

from .helpers import kinds

DUEL = (Path(__file__).parents[2] / "envs" / "rulesets" / "atomic_africa" / "scenarios"
        / "duel.toml").read_text()
#: duel after turn 1's Orders Phase: side 0's squad holds a 5 and keeps a Q and a Joker; side
#: 1's squad has no order and side 1 keeps nothing; side 1's deck gives a 7 next
STARTED = (DUEL.replace('turns = 3', 'turns = 3\n\n[start]\nturn = 2\nfirst_side = 0')
           .replace('name = "Rifles"', 'name = "Rifles"\nreserve = ["Q", "Joker"]\n'
                    'discard = ["2"]')
           .replace('name = "Legion"', 'name = "Legion"\ndeck_order = ["7", "K"]')
           .replace('y = 12.0', 'y = 12.0\norder = "5"'))


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "start.toml"
    path.write_text(text)
    return path


@pytest.mark.rule("AA-G4", "AA-G7")
def test_a_scenario_starts_after_the_orders_phase_with_its_cards(tmp_path: Path) -> None:
    state = load_game("atomic_africa", _write(tmp_path, STARTED)).new_initial_state()
    # no draw and no contest: side 0 activates its only unit, so the first decision is the
    # placement of its In-transit figure
    assert state.turn == 2 and state.first == 0
    assert state.current_player() == 0 and state.decision_name() == "maneuver"
    assert kinds(state, "turn")[0].data == {"turn": 2}
    assert not kinds(state, "draw") and not kinds(state, "contest")
    zones = state.zones
    assert zones["order:0:0"].cards == [4] and zones["order:1:0"].cards == []
    assert zones["reserve:0"].cards == [11, 13] and zones["reserve:1"].cards == []
    assert zones["discard:0"].cards == [1]
    # the deck is the standard deck less the cards dealt: 54 - 4 for side 0, 54 for side 1
    assert zones.size("deck:0") == 50 and zones.size("deck:1") == 54
    assert zones.count("deck:0", 13) == 1 and zones.count("deck:0", 4) == 3
    # hidden information stays hidden: side 1 sees that side 0 has an order, not which
    game = state.game
    assert "order face-down" in game.observation_string(state, 1)
    other = load_game("atomic_africa", _write(tmp_path, STARTED.replace('order = "5"',
                                                                        'order = "9"')))
    assert np.array_equal(game.observation(state, 1),
                          other.observation(other.new_initial_state(), 1))


@pytest.mark.rule("AA-R6", "AA-G1")
def test_the_deck_order_gives_the_next_draws(tmp_path: Path) -> None:
    state = load_game("atomic_africa", _write(tmp_path, STARTED)).new_initial_state()
    # side 0 fires at side 1's orderless squad with an empty Reserve: it reacts Confused with
    # the top card of its deck, which the scenario says is a 7 (one outcome, certain)
    play_labels(state, ["move:hold", "target:unit0"])
    assert state.is_chance_node() and state.chance_outcomes() == [(6, 1.0)]
    play_labels(state, ["card=7"])
    assert kinds(state, "confused") and state.zones["order:1:0"].cards == [6]
    assert state.deck_order == [[], [12]]
    # round trips keep the deck order
    again = type(state).from_json(state.to_json())
    assert again.deck_order == [[], [12]]
    clone = state.clone()
    clone.deck_order[1].pop()
    assert state.deck_order == [[], [12]]


@pytest.mark.rule("AA-G7")
def test_without_a_first_side_the_contest_is_rolled(tmp_path: Path) -> None:
    text = STARTED.replace("first_side = 0\n", "")
    state = load_game("atomic_africa", _write(tmp_path, text)).new_initial_state()
    assert state.is_chance_node() and state.action_to_string(
        state.chance_outcomes()[0][0]) == "d6=1"
    play_labels(state, ["d6=2", "d6=5"])
    assert state.first == 1
    # side 1 has no unit with an order: side 0 activates anyway (AA-G7)
    assert state.current_player() == 0 and state.decision_name() == "maneuver"


@pytest.mark.parametrize("edit, message", [
    ((STARTED, "[start]\nturn = 2\nfirst_side = 0", ""),
     r"start\.toml: units\[0\] \(1st Squad\)\.order: given without a \[start\] table"),
    ((DUEL, 'name = "Rifles"', 'name = "Rifles"\nreserve = ["Q"]'),
     r"start\.toml: sides\[0\]\.reserve: given without a \[start\] table"),
    ((STARTED, 'reserve = ["Q", "Joker"]', 'reserve = ["Q", "Queen"]'),
     r"start\.toml: sides\[0\]\.reserve\[1\]: unknown card name 'Queen'"),
    ((STARTED, 'order = "5"', 'order = "11"'),
     r"start\.toml: units\[0\] \(1st Squad\)\.order\[0\]: unknown card name '11'"),
    ((STARTED, 'reserve = ["Q", "Joker"]', 'reserve = ["Joker", "Joker", "Joker"]'),
     r"start\.toml: sides\[0\]: the orders, reserve and discard use 3 Joker card\(s\) but the "
     r"deck has 2"),
    ((STARTED, 'deck_order = ["7", "K"]', 'deck_order = ["7", "7", "7", "7", "7"]'),
     r"start\.toml: sides\[1\]\.deck_order: 5 7 card\(s\) but only 4 are left in the deck"),
    ((STARTED, "turn = 2\n", "turn = 4\n"),
     r"start\.toml: start\.turn: 4 is after the scenario's last turn \(3\)"),
    ((STARTED, "first_side = 0", "first_side = 2"), r"start\.toml: start\.first_side"),
    ((STARTED, "turn = 2\n", "turn = 2\nphase = \"orders\"\n"), r"start\.toml: start\.phase"),
])
def test_bad_start_names_the_file_and_the_key(tmp_path: Path, edit, message) -> None:
    text, old, new = edit
    assert old in text
    with pytest.raises(ScenarioError, match=message):
        load_game("atomic_africa", _write(tmp_path, text.replace(old, new, 1)))


@pytest.mark.rule("AA-G1")
def test_a_deck_order_without_a_start_orders_the_first_draws(tmp_path: Path) -> None:
    text = DUEL.replace('name = "Rifles"', 'name = "Rifles"\ndeck_order = ["K", "2"]')
    state = load_game("atomic_africa", _write(tmp_path, text)).new_initial_state()
    assert state.chance_outcomes() == [(12, 1.0)]
    play_labels(state, ["card=K"])
    assert state.chance_outcomes() == [(1, 1.0)]
    play_labels(state, ["card=2"])
    assert state.decision_name() == "orders" and state.legal_labels() == [
        "assign:2", "assign:K", "assign:none"]
