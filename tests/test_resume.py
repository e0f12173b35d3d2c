"""Resuming a run: the newest checkpoint that loads is used (the skipped ones are named), the
TensorBoard log has no step twice and metrics.csv has each timestep once."""

from __future__ import annotations

import csv
import subprocess
import sys
from pathlib import Path

from tests.test_scripts import LAUNCH, ROOT, TOY_POOL

TINY_TB = ["--n-envs", "1", "--n-steps", "64", "--batch-size", "32", "--n-epochs", "2", "--net-arch", "32",
           "--eval-games", "2", "--no-progress-bar", "--tensorboard"]


def _train(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", LAUNCH, "train.py", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=600)


def _tb_steps(tb: Path) -> dict[str, list[int]]:
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    (run,) = [p for p in tb.iterdir() if p.is_dir()]
    acc = EventAccumulator(str(run))
    acc.Reload()
    return {tag: [e.step for e in acc.Scalars(tag)] for tag in acc.Tags()["scalars"]}


def test_resume_falls_back_and_logs_each_step_once(tmp_path):
    run_dir = tmp_path / "run"
    common = ["--ruleset", "toy", "--seed", "5", "--run-dir", str(run_dir),
              "--checkpoint-freq", "128", "--snapshot-freq", "128", "--eval-freq", "128",
              *TINY_TB, *TOY_POOL]
    r = _train("--total-timesteps", "256", *common)
    assert r.returncode == 0, r.stderr
    ck = run_dir / "checkpoints"
    assert sorted(p.name for p in ck.iterdir()) == ["ckpt_0000000128.zip",
                                                    "ckpt_0000000256.zip"]
    with open(run_dir / "metrics.csv", newline="") as fh:
        assert [int(row["timesteps"]) for row in csv.DictReader(fh)] == [0, 128, 256]
    # the newest checkpoint is cut short (a crash while the disk was full, say)
    newest = ck / "ckpt_0000000256.zip"
    newest.write_bytes(newest.read_bytes()[:200])
    r = _train("--total-timesteps", "384", "--resume", *common)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0].startswith(f"skipped checkpoint {str(newest)!r}: "), r.stdout
    assert lines[1].startswith(f"resuming from {ck / 'ckpt_0000000128.zip'} at 128 timesteps")
    with open(run_dir / "metrics.csv", newline="") as fh:
        assert [int(row["timesteps"]) for row in csv.DictReader(fh)] == [0, 128, 256, 384]
    steps = _tb_steps(run_dir / "tb")
    assert "time/fps" in steps and "selfplay/win_rate_vs_random" in steps, sorted(steps)
    for tag, s in steps.items():
        assert len(s) == len(set(s)), (tag, s)  # no step twice (the first run's 192, 256 purged)
    assert max(max(s) for s in steps.values()) >= 384 - 64


def test_resume_when_no_checkpoint_loads_is_one_line(tmp_path):
    run_dir = tmp_path / "run"
    common = ["--ruleset", "toy", "--seed", "5", "--run-dir", str(run_dir),
              "--checkpoint-freq", "128", "--snapshot-freq", "128", "--eval-freq", "0",
              *TINY_TB[:-1], "--no-tensorboard", *TOY_POOL]
    r = _train("--total-timesteps", "128", *common)
    assert r.returncode == 0, r.stderr
    (ckpt,) = (run_dir / "checkpoints").iterdir()
    ckpt.write_bytes(b"PK\x03\x04 cut short")
    r = _train("--total-timesteps", "256", "--resume", *common)
    assert r.returncode == 2
    assert r.stderr.strip().splitlines() == [
        f"error: --resume: no checkpoint loads: checkpoint {str(ckpt)!r}: "
        + r.stderr.split(f"checkpoint {str(ckpt)!r}: ", 1)[1].strip()]
