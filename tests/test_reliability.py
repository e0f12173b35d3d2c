"""Reliability guarantees of the scripts and their files (docs/reliability.md): no temporary
file left at a checkpoint boundary, a full disk or an unwritable file reported in one line,
inputs that are not regular files refused, budgets bounded."""

from __future__ import annotations

import os
from pathlib import Path

import pytest


def _leftovers(root: Path) -> list[str]:
    return sorted(p.name for p in root.rglob("*") if ".tmp" in p.name)


def test_link_or_copy_twice_at_one_checkpoint_leaves_no_temporary_link(tmp_path):
    """A second checkpoint at the same timesteps (an interrupt right after a scheduled one)
    links the kept policy again: ``os.replace`` between two links of one file does nothing, so
    the temporary link used to stay for good."""
    from agents.training.checkpoints import _link_or_copy

    src, dst = tmp_path / "best_model.zip", tmp_path / ".kept" / "ckpt_0000000256.zip"
    src.write_bytes(b"policy")
    _link_or_copy(src, dst)
    _link_or_copy(src, dst)
    assert dst.read_bytes() == b"policy" and os.path.samefile(src, dst)
    assert _leftovers(tmp_path) == []


def test_link_or_copy_interrupted_between_link_and_rename_leaves_nothing(tmp_path, monkeypatch):
    from agents.interrupts import Interrupted
    from agents.training import checkpoints

    src, dst = tmp_path / "best_model.zip", tmp_path / ".kept" / "ckpt_0000000256.zip"
    src.write_bytes(b"new")
    dst.parent.mkdir()
    dst.write_bytes(b"old")

    def interrupted(a, b):
        raise Interrupted(2)

    monkeypatch.setattr(checkpoints.os, "replace", interrupted)
    with pytest.raises(Interrupted):
        checkpoints._link_or_copy(src, dst)
    assert dst.read_bytes() == b"old" and _leftovers(tmp_path) == []


# -- inputs that are not regular files --------------------------------------------------------
def _fifo(tmp_path: Path) -> str:
    path = tmp_path / "pipe.toml"
    os.mkfifo(path)
    return str(path)


@pytest.mark.parametrize("special", ["/dev/zero", "fifo"])
@pytest.mark.parametrize("command", [
    ["replay", "{}"],
    ["replay", "{}", "--json"],
    ["view", "{}", "--out", "{tmp}/game.html"],
    ["fuzz", "--ruleset", "acw_regimental", "--scenario", "{}", "--games", "1"],
])
def test_envs_cli_refuses_an_input_that_is_not_a_regular_file(tmp_path, capsys, special,
                                                             command):
    """Reading /dev/zero never ends (it fills memory), a FIFO blocks: refused before opening."""
    from envs.__main__ import main

    path = "/dev/zero" if special == "/dev/zero" else _fifo(tmp_path)
    argv = [a.format(path, tmp=tmp_path) for a in command]
    assert main(argv) == 2
    assert capsys.readouterr().err == f"error: {path}: not a regular file\n"
    assert not (tmp_path / "game.html").exists()


def test_whatif_refuses_a_replay_that_is_not_a_regular_file(capsys):
    import evaluate

    argv = ["whatif", "/dev/zero", "--at", "3", "--agents", "random", "random", "--rollouts", "2"]
    assert evaluate.main(argv) == 2
    assert capsys.readouterr().err == "error: /dev/zero: not a regular file\n"


def test_a_checkpoint_that_is_not_a_regular_file_is_refused():
    from agents.policies.base import AgentLoadError
    from agents.policies.checkpoint import read_policy_config

    with pytest.raises(AgentLoadError, match=r"^checkpoint '/dev/zero': not a regular file$"):
        read_policy_config("/dev/zero")


def test_a_scenario_that_is_not_a_regular_file_is_named_so():
    from envs.core.errors import ScenarioError
    from envs.core.scenario import read_toml, resolve_scenario_path

    with pytest.raises(ScenarioError, match=r"^/dev/zero: not a regular file$"):
        resolve_scenario_path("/dev/zero", Path("."))
    with pytest.raises(ScenarioError, match=r"^/dev/zero: not a regular file$"):
        read_toml("/dev/zero")


def test_a_toml_file_with_a_byte_order_mark_gets_a_hint(tmp_path):
    from envs.core.errors import ScenarioError
    from envs.core.scenario import read_toml

    path = tmp_path / "bom.toml"
    path.write_bytes(b'\xef\xbb\xbfruleset = "acw_regimental"\n')
    with pytest.raises(ScenarioError, match="starts with a UTF-8 byte order mark; save it as UTF-8 without one"):
        read_toml(path)
    path.write_bytes(b'ruleset = "acw_regimental"\n')
    assert read_toml(path) == {"ruleset": "acw_regimental"}
