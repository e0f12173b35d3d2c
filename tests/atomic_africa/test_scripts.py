"""train.py and evaluate.py on ``--ruleset atomic_africa`` (tiny budgets, subprocesses)."""

from __future__ import annotations

import pytest
import json
from pathlib import Path

from tests.test_scripts import TINY, run


@pytest.mark.slow
def test_train_and_evaluate_atomic_africa(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    p = run("train.py", "--ruleset", "atomic_africa", "--scenario", "duel",
            "--total-timesteps", "128", "--bc-games", "2", "--eval-freq", "128",
            "--run-dir", str(run_dir), *TINY)
    assert p.returncode == 0, p.stderr[-2000:]
    # the ruleset's own bot panel is the default pool and evaluation panel
    for bot in ("heuristic", "never-reserve", "always-reserve"):
        assert f"final score vs {bot}" in p.stdout
    assert "stand-and-fire" not in p.stdout
    model = run_dir / "final_model.zip"
    assert model.is_file()
    # the ruleset's preset (agents/training/presets/atomic_africa.toml): its own warm-start
    # opponents; the budget given wins
    saved = json.loads((run_dir / "config.json").read_text())["args"]
    assert saved["bc_opponents"] == ["heuristic", "random", "never-reserve", "always-reserve"]
    assert saved["total_timesteps"] == 128
    assert (saved["pool_latest_weight"], saved["teacher_kl"],
            saved["league_snapshots_weight"]) == (0.2, 0.0, 1.0)
    out = tmp_path / "eval.json"
    q = run("evaluate.py", "--ruleset", "atomic_africa", "--scenario", "duel", "--agents",
            str(model), "never-reserve", "always-reserve", "--games", "2", "--seed", "0",
            "--json", str(out), "--quiet")
    assert q.returncode == 0, q.stderr[-2000:]
    doc = json.loads(out.read_text())
    assert doc["ruleset"] == "atomic_africa" and len(doc["pairs"]) == 3
    stats = doc["decision_stats"]
    # Reserve plays are reported by decision type: the change loop and the reactor's order
    assert stats["never-reserve"].get("reserve_play", {}).keys() <= {"reserve:stand"}
    plays = stats["always-reserve"].get("reserve_play", {})
    assert all(k.startswith("reserve:") for k in plays)


def test_evaluate_unknown_agent_for_atomic_africa_is_one_line_error(tmp_path: Path) -> None:
    q = run("evaluate.py", "--ruleset", "atomic_africa", "--scenario", "duel", "--agents",
            "rush", "random", "--games", "2")
    assert q.returncode == 2
    assert q.stderr.strip().startswith("error:") and "rush" in q.stderr
    assert len(q.stderr.strip().splitlines()) == 1
