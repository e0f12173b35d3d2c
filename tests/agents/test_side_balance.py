"""``python -m envs.cli.side_balance``: side 0's score when one policy plays both seats."""

from __future__ import annotations

import json

import pytest

from agents import make_agent
from envs import load_game
from envs.cli.side_balance import main, side_balance


def test_side_balance_counts_add_up_and_are_reproducible():
    g = load_game("acw_regimental")
    a = [make_agent("stand-and-fire", g, 0), make_agent("stand-and-fire", g, 1)]
    r1 = side_balance(g, a, 4, seed=2)
    r2 = side_balance(g, a, 4, seed=2)
    assert r1 == r2
    assert r1["side0_wins"] + r1["draws"] + r1["side1_wins"] == 4
    assert r1["side0_score"] == pytest.approx((r1["side0_wins"] + 0.5 * r1["draws"]) / 4)
    lo, hi = r1["side0_score_ci95"]
    assert 0.0 <= lo <= r1["side0_score"] <= hi <= 1.0


def test_side_balance_two_agents_first_one_is_side_0(tmp_path, capsys):
    """Two agents: the first always sits side 0 (rush beats stand-and-fire on the default)."""
    out = tmp_path / "b.json"
    assert main(["--agents", "rush", "stand-and-fire", "--games", "2", "--json", str(out)]) == 0
    doc = json.loads(out.read_text())
    assert doc["agents"] == ["rush", "stand-and-fire"] and doc["games"] == 2
    assert doc["side0_wins"] == 2
    assert "side 0 score 1.000" in capsys.readouterr().out


@pytest.mark.parametrize("args, message", [
    (["--agents", "stand-and-fire", "--games", "0"], "--games must be >= 1, got 0"),
    (["--agents", "a", "b", "c"], "--agents takes one or two agents, got 3"),
    (["--agents", "stand_and_fire"], "expected one of random, heuristic, never-react, "
                                     "always-react, stand-and-fire, rush"),
    (["--agents", "rush", "--scenario", "nowhere"], "nowhere"),
    (["--ruleset", "skirmish_alert", "--scenario", "ffa3", "--agents", "heuristic"],
     "skirmish_alert/ffa3 has 3 sides: side balance compares the two sides of a two-sided"),
])
def test_side_balance_bad_input(args, message, capsys):
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and message in err and err.count("\n") == 1


@pytest.mark.slow
def test_side_balance_loads_a_plain_checkpoint_only_when_trusted(tmp_path, capsys):
    """A checkpoint without Riposte's config is unpickled (can run code): refused, naming
    the flag that this command has, and played with --trust-checkpoint."""
    from sb3_contrib import MaskablePPO

    from envs.adapters import RiposteGymEnv

    model = MaskablePPO("MlpPolicy", RiposteGymEnv("toy"), n_steps=32, batch_size=32,
                        policy_kwargs={"net_arch": [8]}, device="cpu")
    path = tmp_path / "plain.zip"
    model.save(path)
    args = ["--ruleset", "toy", "--agents", str(path), "random", "--games", "2"]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert str(path) in err and "--trust-checkpoint" in err and err.count("\n") == 1
    assert main([*args, "--trust-checkpoint"]) == 0
    assert "toy/" in capsys.readouterr().out
