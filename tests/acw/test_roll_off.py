"""The roll-off for the first move (scenario ``first_side = "roll_off"``, ACW-PD-11): 1D6 a side
before play, ties rolled again, the higher roller moves first. The default battle uses it;
``two_farms_union_first`` is the same battle with the Union always first."""

from __future__ import annotations

import itertools
import pickle
from pathlib import Path

import pytest

from envs import load_game
from envs.core.errors import ScenarioError

SCENARIOS = Path(__file__).resolve().parents[2] / "envs/rulesets/acw_regimental/scenarios"


def roll(state, *faces: int) -> None:
    """Apply die faces (1-6) at the chance nodes the state is waiting on."""
    for face in faces:
        assert state.is_chance_node()
        assert state.chance_outcomes() == [(i, pytest.approx(1 / 6)) for i in range(6)]
        state.apply_action(face - 1)


def roll_off_events(state) -> list:
    return [e for e in state.events if e.kind == "roll_off"]


def test_the_default_battle_rolls_off_and_union_first_keeps_the_old_start():
    default = load_game("acw_regimental")
    fixed = load_game("acw_regimental", "two_farms_union_first")
    assert default.first_side == "roll_off" and fixed.first_side == 0
    assert default.spec.model_dump(exclude={"name", "description", "first_side"}) == \
        fixed.spec.model_dump(exclude={"name", "description", "first_side"})
    assert default.new_initial_state().is_chance_node()
    s = fixed.new_initial_state()  # no roll-off: the first die is the Union's Staff Pips roll
    assert s.is_chance_node() and not roll_off_events(s)
    roll(s, 4)
    assert [e.text for e in s.events if e.kind == "die"] == ["Staff Pips roll: d6 = 4 (1/1)"]


@pytest.mark.parametrize("faces,first", [((4, 2), 0), ((2, 5), 1), ((6, 1), 0), ((1, 6), 1)])
def test_the_higher_roller_moves_first(faces, first):
    s = load_game("acw_regimental").new_initial_state()
    roll(s, *faces)
    (ev,) = roll_off_events(s)
    assert ev.rules == ("ACW-PD-11",) and ev.data["rolls"] == list(faces)
    assert ev.data["first"] == first and s.first == first and s.active == first and s.player_turn == 0
    assert s.turn == 1 and s.phase == 1
    # the next die is the first mover's Staff Pips roll (ACW-PD-13), then its first decision
    roll(s, 3)
    assert s.current_player() == first


def test_a_tie_rolls_again():
    s = load_game("acw_regimental").new_initial_state()
    roll(s, 3, 3)
    (tie,) = roll_off_events(s)
    assert tie.data["rolls"] == [3, 3] and "roll again" in tie.text and "first" not in tie.data
    assert s.is_chance_node() and s.first == 0  # still undecided: two more dice
    roll(s, 2, 5)
    assert roll_off_events(s)[-1].data["first"] == 1 and s.first == s.active == 1


def test_each_side_moves_first_with_probability_one_half():
    """Over the 36 equally likely first rolls: 15 Union, 15 Confederate, 6 ties (rolled again,
    so each side's chance is exactly 1/2)."""
    outcome = {0: 0, 1: 0, None: 0}
    for a, b in itertools.product(range(1, 7), repeat=2):
        s = load_game("acw_regimental").new_initial_state()
        roll(s, a, b)
        ev = roll_off_events(s)[-1]
        outcome[ev.data.get("first")] += 1
    assert outcome == {0: 15, 1: 15, None: 6}


def test_a_state_inside_the_roll_off_round_trips():
    g = load_game("acw_regimental")
    s = g.new_initial_state()
    roll(s, 5)  # between the two dice
    for copy in (pickle.loads(pickle.dumps(s)), type(s).from_json(s.to_json(), g), s.clone()):
        roll(copy, 2)
        assert copy.first == 0 and roll_off_events(copy)[-1].data["rolls"] == [5, 2]


def test_a_bad_first_side_names_the_file_and_key(tmp_path):
    text = (SCENARIOS / "default.toml").read_text().replace(
        'first_side = "roll_off"', 'first_side = "coin"')
    p = tmp_path / "coin.toml"
    p.write_text(text)
    with pytest.raises(ScenarioError) as ei:
        load_game("acw_regimental", str(p))
    assert str(p) in str(ei.value) and "first_side" in str(ei.value)
    # one line for the value that fits neither alternative, without pydantic's union tags
    assert str(ei.value) == (f"{p}: first_side: Input should be a valid integer, or Input "
                             f"should be 'roll_off'")
    p.write_text(text.replace('first_side = "coin"', "first_side = 5"))
    with pytest.raises(ScenarioError, match=r"first_side: Input should be less than or equal "
                                            r"to 1, or Input should be 'roll_off'$"):
        load_game("acw_regimental", str(p))
