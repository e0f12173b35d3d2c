"""Scenario and parameter loading (envs.core.scenario): errors name the file, the key and the
problem, and never leak a pydantic or tomllib traceback."""

from __future__ import annotations

from pathlib import Path

import pydantic
import pytest

from envs.core.errors import ParameterError, ScenarioError
from envs.core.scenario import (read_toml, resolve_scenario_path, validate_params,
                                validate_scenario)


class Unit(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(extra="forbid")
    name: str
    x: float = pydantic.Field(ge=0, le=48, description="inches from the left table edge")
    stands: int = pydantic.Field(ge=1, le=8)


class Scenario(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(extra="forbid")
    name: str
    turns: int = pydantic.Field(ge=1)
    units: list[Unit]


class Params(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(extra="forbid", strict=True)
    turns: int = pydantic.Field(10, ge=1, le=50)
    shaped_reward: bool = False


GOOD = """
name = "ridge"
turns = 8

[[units]]
name = "1st Minnesota"
x = 12.5
stands = 5

[[units]]
name = "Battery A"
x = 30
stands = 2
"""


def write(tmp_path: Path, text: str, name: str = "scen.toml") -> Path:
    p = tmp_path / name
    p.write_text(text)
    return p


def test_read_and_validate_good_file(tmp_path: Path) -> None:
    p = write(tmp_path, GOOD)
    s = validate_scenario(Scenario, read_toml(p), str(p))
    assert s.turns == 8 and [u.name for u in s.units] == ["1st Minnesota", "Battery A"]
    assert s.units[1].x == 30.0


def test_read_toml_missing_file(tmp_path: Path) -> None:
    p = tmp_path / "nope.toml"
    with pytest.raises(ScenarioError) as ei:
        read_toml(p)
    assert str(ei.value) == f"{p}: file not found"


def test_read_toml_bad_syntax_names_file_and_line(tmp_path: Path) -> None:
    p = write(tmp_path, 'name = "ridge"\nturns = = 3\n')
    with pytest.raises(ScenarioError) as ei:
        read_toml(p)
    msg = str(ei.value)
    assert msg.startswith(f"{p}: not valid TOML: ") and "line 2" in msg
    assert "\n" not in msg


def test_read_toml_directory_is_unreadable(tmp_path: Path) -> None:
    with pytest.raises(ScenarioError, match=f"^{tmp_path}: cannot read"):
        read_toml(tmp_path)


@pytest.mark.parametrize("edit,line", [
    (("x = 30", "x = 60"), "units[1].x: Input should be less than or equal to 48"),
    (("stands = 5", "stands = 0"), "units[0].stands: Input should be greater than or equal to 1"),
    (("stands = 2", 'stands = "two"'),
     "units[1].stands: Input should be a valid integer, unable to parse string as an integer"),
    (("turns = 8", "turns = 8\nweather = \"rain\""), "weather: Extra inputs are not permitted"),
    (('name = "Battery A"\n', ""), "units[1].name: Field required"),
    (("x = 12.5", "x = 12.5\nfacing = 90"), "units[0].facing: Extra inputs are not permitted"),
])
def test_validate_scenario_names_file_key_and_problem(tmp_path: Path, edit: tuple[str, str],
                                                      line: str) -> None:
    p = write(tmp_path, GOOD.replace(*edit))
    with pytest.raises(ScenarioError) as ei:
        validate_scenario(Scenario, read_toml(p), str(p))
    assert str(ei.value) == f"{p}: {line}"


def test_several_problems_one_line_each(tmp_path: Path) -> None:
    p = write(tmp_path, GOOD.replace("turns = 8", "turns = 0").replace("x = 30", "x = -1"))
    with pytest.raises(ScenarioError) as ei:
        validate_scenario(Scenario, read_toml(p), str(p))
    assert str(ei.value).splitlines() == [
        f"{p}: turns: Input should be greater than or equal to 1",
        f"{p}: units[1].x: Input should be greater than or equal to 0",
    ]


def test_top_level_problem_is_named(tmp_path: Path) -> None:
    with pytest.raises(ScenarioError) as ei:
        validate_scenario(Scenario, [], "list.toml")  # type: ignore[arg-type]
    assert str(ei.value).startswith("list.toml: <top level>: ")


def test_validate_params() -> None:
    assert validate_params(Params, None) == Params()
    assert validate_params(Params, {"turns": 3}).turns == 3
    with pytest.raises(ParameterError) as ei:
        validate_params(Params, {"turns": "3"})
    assert str(ei.value) == "params: turns: Input should be a valid integer"
    with pytest.raises(ParameterError) as ei:
        validate_params(Params, {"turns": 99, "colour": "blue"}, source="run.toml [params]")
    assert str(ei.value).splitlines() == [
        "run.toml [params]: turns: Input should be less than or equal to 50",
        "run.toml [params]: colour: Extra inputs are not permitted",
    ]
    with pytest.raises(ParameterError, match="shaped_reward: Input should be a valid boolean"):
        validate_params(Params, {"shaped_reward": 1})


def test_resolve_scenario_path(tmp_path: Path) -> None:
    builtin = tmp_path / "scenarios"
    builtin.mkdir()
    write(builtin, GOOD, "ridge.toml")
    write(builtin, GOOD, "ford.toml")
    assert resolve_scenario_path("ridge", builtin) == builtin / "ridge.toml"
    own = write(tmp_path, GOOD, "mine.toml")
    assert resolve_scenario_path(own, builtin) == own
    assert resolve_scenario_path(str(own), builtin) == own
    with pytest.raises(ScenarioError) as ei:
        resolve_scenario_path("bridge", builtin)
    assert str(ei.value) == ("unknown scenario 'bridge': not a file and not a built-in scenario "
                             "(built-in: ford, ridge)")
    with pytest.raises(ScenarioError, match="missing.toml: scenario file not found"):
        resolve_scenario_path(tmp_path / "missing.toml", builtin)
    with pytest.raises(ScenarioError, match="is a directory, not a scenario file"):
        resolve_scenario_path(builtin, builtin)


# -- input-validation fixes ----------------------------------------------------------------------
def test_read_toml_not_utf8_is_a_scenario_error(tmp_path: Path) -> None:
    """Bytes that are not UTF-8 give a ScenarioError naming the file, not UnicodeDecodeError."""
    p = tmp_path / "b.toml"
    p.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(ScenarioError) as ei:
        read_toml(p)
    msg = str(ei.value)
    assert msg.startswith(f"{p}: not valid TOML (not UTF-8 text: ") and "\n" not in msg


def test_replay_cli_not_utf8_exits_2(tmp_path: Path) -> None:
    """``python -m envs replay b.toml`` on a non-UTF-8 file: one ``error:`` line, exit 2."""
    import subprocess
    import sys

    p = tmp_path / "b.toml"
    p.write_bytes(b"\xff\xfe\x00garbage")
    r = subprocess.run([sys.executable, "-m", "envs", "replay", str(p)], capture_output=True,
                       text=True, cwd=Path(__file__).resolve().parents[2])
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr.startswith(f"error: {p}: not valid TOML (not UTF-8 text: ")
    assert "Traceback" not in r.stderr and r.stderr.count("\n") == 1
