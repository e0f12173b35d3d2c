"""Scenario loading: every built-in scenario loads; bad input names the file, the key and the
problem."""

from __future__ import annotations

from pathlib import Path

import pytest

from envs import load_game
from envs.core.errors import ParameterError, ScenarioError
from envs.rulesets.skirmish_alert.params import SCENARIO_DIR

BUILTIN = sorted(p.stem for p in SCENARIO_DIR.glob("*.toml"))


@pytest.mark.parametrize("name", BUILTIN)
def test_builtin_scenarios_load(name: str) -> None:
    g = load_game("skirmish_alert", name)
    assert 2 <= g.num_players <= 4
    assert g.num_distinct_actions == {2: 515, 3: 563, 4: 611}[g.num_players]


def test_one_action_space_and_observation_shape_per_team_count() -> None:
    a, b = load_game("skirmish_alert", "default"), load_game("skirmish_alert", "duel")
    assert a.actions.labels == b.actions.labels and a.observation_size == b.observation_size
    c, d = load_game("skirmish_alert", "ffa4"), load_game("skirmish_alert", "ffa3")
    assert c.observation_size != d.observation_size


DUEL = (SCENARIO_DIR / "duel.toml").read_text()


def _write(tmp_path: Path, text: str) -> Path:
    p = tmp_path / "bad.toml"
    p.write_text(text)
    return p


@pytest.mark.parametrize("edit,key,problem", [
    (lambda t: t.replace("x = 3\ny = 6", "x = 3\ny = 1"), "fighters[1]", "same square"),
    (lambda t: t.replace('board = {', 'blocking = [[3, 1]]\nboard = {'), "fighters[0]",
     "blocking square"),
    (lambda t: t.replace('teams = ["Red", "Blue"]', 'teams = ["Red"]'), "teams", "2 to 4"),
    (lambda t: t.replace('teams = ["Red", "Blue"]', 'teams = ["A", "B", "C", "D", "E"]'),
     "teams", "2 to 4"),
    (lambda t: t.replace('ranged_weapon = "crossbow"\nequipment', 'ranged_weapon = "bazooka"'
                                                                     '\nequipment'),
     "fighters[0].ranged_weapon", "unknown ranged weapon"),
    (lambda t: t.replace("ref = 2\nsho = 2\nranged_weapon", "ref = 7\nsho = 2\nranged_weapon",
                         1), "fighters[0].ref", "less than or equal to 4"),
    (lambda t: t.replace("x = 3\ny = 6", "x = 30\ny = 6"), "fighters[1]", "off the"),
    (lambda t: t.replace("team = 1", "team = 2"), "fighters[1].team", "does not exist"),
])
def test_bad_scenarios_name_file_key_and_problem(tmp_path: Path, edit, key: str,
                                                 problem: str) -> None:
    text = edit(DUEL)
    assert text != DUEL
    p = _write(tmp_path, text)
    with pytest.raises(ScenarioError) as e:
        load_game("skirmish_alert", str(p))
    msg = str(e.value)
    assert str(p) in msg and key in msg and problem in msg


def test_bad_parameters() -> None:
    with pytest.raises(ParameterError, match="difficulty_mode"):
        load_game("skirmish_alert", "duel", {"difficulty_mode": "fancy"})
    with pytest.raises(ParameterError, match="unknown action kind"):
        load_game("skirmish_alert", "duel", {"non_triggering_actions": ["dance"]})
    with pytest.raises(ScenarioError, match="unknown scenario"):
        load_game("skirmish_alert", "nowhere")
