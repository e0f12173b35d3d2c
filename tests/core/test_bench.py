"""envs.bench: the record's keys and the consistency of its counts (never its timings)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from envs.bench import main, run_benchmark
from tests.toy_ruleset import ToyGame

KEYS = {"decisions_per_s", "chance_nodes_per_s", "games_per_s", "mean_decisions_per_game",
        "ruleset", "scenario", "seconds", "games", "decisions", "chance_nodes", "python",
        "machine", "seed"}


def test_run_benchmark_record_is_consistent() -> None:
    r = run_benchmark(ToyGame(), 0.3, seed=1)
    assert set(r) == KEYS
    assert (r["ruleset"], r["scenario"], r["seed"]) == ("toy", "duel", 1)
    assert r["games"] > 0
    assert r["seconds"] >= 0.3
    # a finished toy game has at least 10 decisions (five attacks, five reactions) and at most
    # the cap
    assert 10 <= r["mean_decisions_per_game"] <= ToyGame().max_game_length
    # the unfinished last game may add decisions but fewer than one game's cap (the mean is
    # rounded to 2 decimals)
    finished = r["mean_decisions_per_game"] * r["games"]
    slack = 0.005 * r["games"] + 1e-6
    assert finished - slack <= r["decisions"] < finished + slack + ToyGame().max_game_length
    # one d6 per attack, one reaction per attack: chance nodes never exceed decisions / 2
    assert 0 < r["chance_nodes"] <= r["decisions"] / 2
    assert r["decisions_per_s"] == pytest.approx(r["decisions"] / r["seconds"], rel=1e-3)
    assert r["chance_nodes_per_s"] == pytest.approx(r["chance_nodes"] / r["seconds"], rel=1e-3)
    assert r["games_per_s"] == pytest.approx(r["games"] / r["seconds"], rel=1e-2)
    json.dumps(r)


def test_run_benchmark_rejects_non_positive_budget() -> None:
    with pytest.raises(ValueError, match="seconds must be > 0"):
        run_benchmark(ToyGame(), 0)


def test_cli_writes_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "bench.json"
    assert main(["--ruleset", "toy", "--seconds", "0.2", "--seed", "4", "--json", str(out)]) == 0
    printed = json.loads(capsys.readouterr().out)
    written = json.loads(out.read_text())
    assert printed == written
    assert set(written) == KEYS and written["seed"] == 4 and written["ruleset"] == "toy"


@pytest.mark.parametrize("argv,needle", [
    (["--ruleset", "toy", "--seconds", "-1"], "must be > 0"),
    (["--ruleset", "toy", "--seconds", "abc"], "not a number"),
    (["--ruleset", "toy", "--frobnicate"], "unrecognized arguments: --frobnicate"),
    ([], "the following arguments are required: --ruleset"),
])
def test_cli_bad_flags_exit_2(argv: list[str], needle: str,
                              capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as ei:
        main(argv)
    assert ei.value.code == 2
    assert needle in capsys.readouterr().err


def test_cli_unknown_ruleset_is_one_line_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--ruleset", "chess", "--seconds", "0.1"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: unknown ruleset 'chess'") and err.count("\n") == 1
