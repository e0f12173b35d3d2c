"""Scenario and parameter validation: errors name the file, the key and the problem."""

from __future__ import annotations

from pathlib import Path

import pytest

from envs.core.errors import ParameterError, ScenarioError
from envs.rulesets import load_game

DUEL = (Path(__file__).parents[2] / "envs" / "rulesets" / "atomic_africa" / "scenarios"
        / "duel.toml").read_text()


def _write(tmp_path: Path, text: str) -> Path:
    p = tmp_path / "s.toml"
    p.write_text(text)
    return p


@pytest.mark.parametrize("name", ["default", "duel", "reaction", "cleanup_example"])
def test_builtin_scenarios_load_with_one_action_space(name: str) -> None:
    g = load_game("atomic_africa", name)
    assert g.num_distinct_actions == 104 and g.observation_size == 869
    assert g.scenario_name == name


def test_default_battle_shape() -> None:
    g = load_game("atomic_africa")
    for s in (0, 1):
        units = [u for u in g.initial_units if u.side == s]
        assert sum(not u.attached for u in units) == 4
        assert sum(u.attached for u in units) == 1
    assert len(g.objectives) == 2 and g.blocking and g.turns == 6
    assert len(g.deck_cards[0]) == 54


def test_unknown_card_name(tmp_path: Path) -> None:
    p = _write(tmp_path, DUEL.replace('name = "Rifles"', 'name = "Rifles"\ndeck = {A = 4, '
                                      'Ace = 2}'))
    with pytest.raises(ScenarioError, match=r"s\.toml: sides\[0\]\.deck: unknown card name "
                                            r"'Ace'"):
        load_game("atomic_africa", p)


def test_deck_with_wrong_count(tmp_path: Path) -> None:
    p = _write(tmp_path, DUEL.replace('name = "Legion"', 'name = "Legion"\ndeck = {A = 4, '
                                      'K = 4}\ndeck_size = 10'))
    with pytest.raises(ScenarioError, match=r"sides\[1\]\.deck: the counts add up to 8 cards "
                                            r"but deck_size is 10"):
        load_game("atomic_africa", p)


def test_unit_off_the_table(tmp_path: Path) -> None:
    p = _write(tmp_path, DUEL.replace("y = 48.0", "y = 75.0"))
    with pytest.raises(ScenarioError, match=r"units\[1\] \(A Section\): position \(30\.0, "
                                            r"75\.0\) cm is off the 60\.0 x 60\.0 cm table"):
        load_game("atomic_africa", p)


def test_two_units_on_one_point(tmp_path: Path) -> None:
    p = _write(tmp_path, DUEL.replace("y = 48.0", "y = 12.0"))
    with pytest.raises(ScenarioError) as e:
        load_game("atomic_africa", p)
    assert str(e.value) == (f"{p}: units[1] (A Section): position (30.0, 12.0) cm is already "
                            f"units[0] (1st Squad)'s; two units may not stand on one point")


SECOND_SQUAD = """
[[units]]
side = {side}
name = "1st Squad"
figures = 10
morale = 8
equipment = 8
x = 40.0
y = 12.0
"""


def test_two_units_with_one_name_on_a_side(tmp_path: Path) -> None:
    p = _write(tmp_path, DUEL + SECOND_SQUAD.format(side=0))
    with pytest.raises(ScenarioError) as e:
        load_game("atomic_africa", p)
    assert str(e.value) == (f"{p}: units[2] (1st Squad).name: side 0 already has a unit named "
                            f"'1st Squad' (units[0]); names must differ within a side")


def test_one_name_on_both_sides_is_allowed(tmp_path: Path) -> None:
    g = load_game("atomic_africa", _write(tmp_path, DUEL + SECOND_SQUAD.format(side=1)))
    assert [(u.side, u.name) for u in g.initial_units] == [
        (0, "1st Squad"), (1, "A Section"), (1, "1st Squad")]


def test_units_a_millimetre_apart_are_two_points(tmp_path: Path) -> None:
    g = load_game("atomic_africa", _write(tmp_path, DUEL.replace("y = 48.0", "y = 12.1")))
    assert [(u.x, u.y) for u in g.initial_units] == [(30.0, 12.0), (30.0, 12.1)]


def test_table_is_at_most_4_metres_a_side(tmp_path: Path) -> None:
    p = _write(tmp_path, DUEL.replace("width = 60.0", "width = 1e300"))
    with pytest.raises(ScenarioError, match=r"s\.toml: table\.width: .*less than or equal "
                                            r"to 400"):
        load_game("atomic_africa", p)


def test_wrong_type_in_file(tmp_path: Path) -> None:
    p = _write(tmp_path, DUEL.replace("figures = 10", 'figures = "ten"', 1))
    with pytest.raises(ScenarioError, match=r"s\.toml: units\[0\]\.figures"):
        load_game("atomic_africa", p)


def test_parameter_of_the_wrong_type() -> None:
    with pytest.raises(ParameterError, match="joker_eligible_from_reserve"):
        load_game("atomic_africa", "duel", {"joker_eligible_from_reserve": "yes"})
    with pytest.raises(ParameterError, match="no_such_rule"):
        load_game("atomic_africa", "duel", {"no_such_rule": 1})


def test_parameters_change_the_game() -> None:
    g = load_game("atomic_africa", "duel", {"turns": 1, "joker_eligible_from_reserve": True})
    assert g.turns == 1 and g.config()["params"]["joker_eligible_from_reserve"] is True
