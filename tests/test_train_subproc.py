"""train.py --vec-env subproc (throughput measurements): the envs run in sb3's SubprocVecEnv,
the env processes' CPU time is reported, and checkpoints are written without resume state
(on ACW: the test-only toy ruleset is not registered in the env processes)."""

from __future__ import annotations

import json
import zipfile

import pytest

from agents.training.resume import RESUME_MEMBER

from .test_scripts import TINY, TOY_POOL, run


@pytest.mark.slow
def test_train_with_env_processes(tmp_path):
    run_dir = tmp_path / "run"
    r = run("train.py", "--total-timesteps", "128", "--seed", "2",
            "--run-dir", str(run_dir), "--vec-env", "subproc", *TINY, "--n-envs", "2",
            *TOY_POOL, "--eval-games", "0")
    assert r.returncode == 0, r.stderr
    assert "env workers" in r.stdout
    metrics = json.loads((run_dir / "metrics.json").read_text())
    assert metrics["timesteps"] == 128
    assert metrics["env_worker_cpu_seconds"] > 0  # the two env processes' own CPU time
    assert 0 < metrics["timesteps_per_cpu_second"]
    # ACW's preset runs the updates in their own worker: its CPU counts too
    assert metrics["pipelined_updates"] is True and metrics["update_cpu_seconds"] > 0
    assert metrics["timesteps_per_cpu_second"] * (
        metrics["cpu_seconds"] + metrics["env_worker_cpu_seconds"]
        + metrics["update_cpu_seconds"]) == pytest.approx(128)
    ckpts = sorted((run_dir / "checkpoints").glob("ckpt_*.zip"))
    assert [p.name for p in ckpts] == ["ckpt_0000000128.zip"]
    with zipfile.ZipFile(ckpts[0]) as zf:
        assert RESUME_MEMBER not in zf.namelist()  # no exact resume from env processes
