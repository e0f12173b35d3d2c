"""OpenSpiel's solvers on the small games of ``agents.research.exact.SMALL_GAMES`` (one per
ruleset): exact values (expectiminimax; CFR under hidden information), the exact NashConv of
Riposte's bots, and ``whatif``'s estimates inside their intervals around the exact values."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pyspiel = pytest.importorskip("pyspiel")

from agents.builtin import make_agent  # noqa: E402
from agents.research import exact  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


def _game(ruleset):
    return pyspiel.load_game(exact.SMALL_GAMES[ruleset])


def _bots(game, name):
    return [make_agent(name, game.riposte, seed=0) for _ in range(game.num_players())]


def test_acw_small_game_exact_values():
    g = _game("acw_regimental")
    root = g.new_initial_state()
    assert root.riposte.decision_name() == "fire" and root.current_player() == 0
    assert exact.game_value(g) == pytest.approx((0.5, 0.0), abs=1e-12)
    assert exact.option_values(g, _bots(g, "random")) == pytest.approx(
        {"fire:e0": 0.5, "hold_fire": 0.0}, abs=1e-12)
    assert exact.bot_exploitability(g, _bots(g, "heuristic")) == pytest.approx(0.0, abs=1e-12)
    assert exact.bot_exploitability(g, _bots(g, "random")) == pytest.approx(0.25, abs=1e-12)


def test_skirmish_small_game_exact_values():
    g = _game("skirmish_alert")
    assert exact.game_value(g) == pytest.approx((1.0, 0.0), abs=1e-12)
    values = exact.option_values(g, _bots(g, "random"))
    assert values["melee:e0"] == pytest.approx(1.0, abs=1e-12)
    assert all(v == pytest.approx(0.0, abs=1e-12) for k, v in values.items() if k != "melee:e0")
    assert exact.bot_exploitability(g, _bots(g, "heuristic")) == pytest.approx(0.0, abs=1e-12)
    assert exact.bot_exploitability(g, _bots(g, "random")) == pytest.approx(25 / 26, abs=1e-9)


@pytest.mark.slow
def test_atomic_africa_small_game_cfr_and_exploitability():
    g = _game("atomic_africa")
    assert g.get_type().information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    root = g.new_initial_state()
    assert root.riposte.decision_name() == "reserve_play"
    value, bound = exact.game_value(g, cfr_iterations=20)
    assert 0 < bound <= 0.01 and abs(value) <= bound
    assert exact.option_values(g, _bots(g, "random")) == pytest.approx(
        {"reserve:play:Q": -0.125, "reserve:stand": -0.21875}, abs=1e-12)
    assert exact.bot_exploitability(g, _bots(g, "heuristic")) == pytest.approx(0.25, abs=1e-12)
    assert exact.bot_exploitability(g, _bots(g, "random")) == pytest.approx(0.1875, abs=1e-12)


@pytest.mark.parametrize("ruleset", ["acw_regimental", "atomic_africa"])
def test_whatif_agrees_with_the_exact_option_values(ruleset):
    comparisons = exact.compare_whatif(_game(ruleset), rollouts=100, seed=0)
    assert len(comparisons) == 2
    for c in comparisons:
        assert c.inside, c
    assert len({round(c.exact, 9) for c in comparisons}) == 2  # the options differ


@pytest.mark.slow
def test_whatif_agrees_with_the_exact_option_values_skirmish():
    comparisons = exact.compare_whatif(_game("skirmish_alert"), rollouts=40, seed=0)
    assert all(c.inside for c in comparisons)


def _cli(*args):
    return subprocess.run([sys.executable, "-m", "agents.research.exact", *args],
                          capture_output=True, text=True, timeout=300, cwd=ROOT)


def test_documented_command_prints_the_comparison():
    r = _cli("--rollouts", "40")
    assert r.returncode == 0, r.stderr
    assert "value for side 0 under optimal play: +0.5000 (expectiminimax, exact)" in r.stdout
    assert "NashConv of random on both sides: 0.2500" in r.stdout
    assert "fire:e0" in r.stdout and "OUTSIDE" not in r.stdout


@pytest.mark.parametrize("args,needle", [
    (["riposte_acw_regimental(scenario=nope)"], "parameter scenario"),
    (["--rollouts", "1"], "--rollouts"),
    (["--agents", "nobody"], "unknown agent"),
    (["riposte_skirmish_alert(scenario=three_teams)"], "two-sided"),
])
def test_documented_command_refuses_bad_input_in_one_line(args, needle):
    r = _cli(*args)
    assert r.returncode == 2 and r.stdout == ""
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and needle in lines[0]
