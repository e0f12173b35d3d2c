"""train.py on the skirmish alert ruleset, two and four teams, with a tiny budget: the default
panel is the ruleset's (random, heuristic, never-alert, always-alert), opponent seats come from
the pool, and the run writes its model."""

from __future__ import annotations

import json
import zipfile

import pytest

from tests.test_scripts import TINY, run


@pytest.mark.slow
@pytest.mark.parametrize("scenario,teams", [("duel", 2), ("ffa4", 4)])
def test_train_skirmish_alert(tmp_path, scenario: str, teams: int) -> None:
    run_dir = tmp_path / "run"
    r = run("train.py", "--ruleset", "skirmish_alert", "--scenario", scenario,
            "--total-timesteps", "64", "--seed", "0", "--run-dir", str(run_dir),
            "--eval-freq", "0", "--bc-games", "2", "--bc-epochs", "1", *TINY, timeout=600)
    assert r.returncode == 0, r.stderr
    assert zipfile.is_zipfile(run_dir / "final_model.zip")
    cfg = json.loads((run_dir / "config.json").read_text())
    assert cfg["game"]["ruleset"] == "skirmish_alert"
    assert cfg["args"]["pool_bots"] == ["random", "heuristic", "never-alert", "always-alert"]
    # the warm start's teacher plays the ruleset's own bots, not the ACW reaction baselines
    assert cfg["args"]["bc_opponents"] == ["heuristic", "never-alert", "always-alert", "random"]
    # its preset's fine-tuning values (agents/training/presets/skirmish_alert.toml); the budget
    # given wins
    assert (cfg["args"]["pool_latest_weight"], cfg["args"]["teacher_kl"],
            cfg["args"]["learning_rate"], cfg["args"]["total_timesteps"],
            cfg["args"]["league_snapshots_weight"]) == (0.0, 0.0, 2e-4, 64, 1.0)
    metrics = json.loads((run_dir / "metrics.json").read_text())
    assert set(metrics["final_scores"]) == {"random", "heuristic", "never-alert", "always-alert"}


@pytest.mark.slow
def test_evaluate_free_for_all_four_teams(tmp_path) -> None:
    out = tmp_path / "ev.json"
    r = run("evaluate.py", "--ruleset", "skirmish_alert", "--scenario", "ffa4", "--agents",
            "heuristic", "random", "--games", "4", "--seed", "0", "--json", str(out),
            "--quiet", timeout=600)
    assert r.returncode == 0, r.stderr
    doc = json.loads(out.read_text())
    assert list(doc)[:11] == ["ruleset", "scenario", "games_per_pair", "seed", "agents",
                              "pairs", "ratings", "decision_stats", "reaction_analytics",
                              "params", "commit"]
    games = doc["placements"]
    assert len(games) == 4
    # the heuristic sits in every seat in turn, the three others are random
    assert [g["seats"].index("heuristic") for g in games] == [0, 1, 2, 3]
    for g in games:
        assert sorted(g["placements"])[0] == 1 and abs(sum(g["returns"])) < 1e-9
    pair = doc["pairs"][0]
    assert pair["games"] == 4 and pair["a_wins"] + pair["b_wins"] + pair["draws"] == 4
    assert set(doc["ratings"]) == {"heuristic", "random"}
    # the places summary counts the same games: the heuristic's first places alone
    alone = sum(1 for g in games if g["placements"][g["seats"].index("heuristic")] == 1
                and g["placements"].count(1) == 1)
    places = doc["places"]["heuristic"]
    assert (places["games"], places["wins"]) == (4, alone)
    assert sum(places["place_counts"].values()) == 4


def test_place_summary_counts_wins_alone_and_best_seats() -> None:
    from agents.evaluation.free_for_all import place_summary

    games = [  # m wins alone; m shares first; m is last; h sits three times (its best counts)
        {"seats": ["m", "h", "h", "h"], "placements": [1, 2, 2, 2]},
        {"seats": ["h", "m", "h", "h"], "placements": [1, 1, 3, 4]},
        {"seats": ["h", "h", "m", "h"], "placements": [2, 1, 4, 3]},
    ]
    s = place_summary(games, ["m", "h"])
    assert s["m"] | {"wins_ci95": None} == {
        "games": 3, "wins": 1, "wins_share": 1 / 3, "wins_ci95": None, "first": 2,
        "place_counts": {"1": 2, "4": 1}, "mean_place": 2.0}
    assert s["m"]["wins_ci95"] == pytest.approx([0.0615, 0.7923], abs=1e-4)
    assert (s["h"]["wins"], s["h"]["first"], s["h"]["place_counts"]) == (1, 2, {"1": 2, "2": 1})


def test_free_for_all_seating_and_placements() -> None:
    from agents.evaluation.free_for_all import placements_of, seating

    assert seating(["m", "h"], 4, 0) == ["m", "h", "h", "h"]
    assert seating(["m", "h"], 4, 1) == ["h", "m", "h", "h"]
    assert placements_of([1.0, -1 / 3, -1 / 3, -1 / 3]) == [1, 2, 2, 2]


@pytest.mark.slow
def test_train_four_teams_checkpoints_and_resumes(tmp_path) -> None:
    """The resume state of an env with 3 opponent seats (each a pool member) is written with
    every checkpoint and put back on --resume (it used to fail pickling the extra seats)."""
    run_dir = tmp_path / "run"
    common = ["--ruleset", "skirmish_alert", "--scenario", "ffa4", "--seed", "0", "--run-dir",
              str(run_dir), "--eval-freq", "0", "--bc-games", "0", "--critic-warmup", "0",
              "--checkpoint-freq", "64", *TINY]
    r = run("train.py", *common, "--total-timesteps", "128", timeout=600)
    assert r.returncode == 0, r.stderr
    ckpts = sorted(p.name for p in (run_dir / "checkpoints").iterdir())
    assert ckpts and ckpts[-1] == "ckpt_0000000128.zip"
    with zipfile.ZipFile(run_dir / "checkpoints" / ckpts[-1]) as zf:
        assert "riposte_resume.pkl" in zf.namelist()  # agents.training.resume.RESUME_MEMBER
    r = run("train.py", *common, "--total-timesteps", "192", "--resume", timeout=600)
    assert r.returncode == 0, r.stderr
    assert "every generator and env state restored" in r.stdout, r.stdout
    assert "ckpt_0000000192.zip" in {p.name for p in (run_dir / "checkpoints").iterdir()}
