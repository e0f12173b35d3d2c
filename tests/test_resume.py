"""Resuming a run: the newest checkpoint that loads is used (the skipped ones are named), the
TensorBoard log has no step twice, metrics.csv has each timestep once, and a run killed (or
interrupted) and resumed ends exactly as the same run uninterrupted."""

from __future__ import annotations

import csv
import json
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.test_scripts import LAUNCH, ROOT, TOY_POOL

TINY_TB = ["--n-envs", "1", "--n-steps", "64", "--batch-size", "32", "--n-epochs", "2", "--net-arch", "32",
           "--eval-games", "2", "--eval-extra-games", "2", "--no-progress-bar", "--tensorboard"]


def _train(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", LAUNCH, "train.py", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=600)


def _tb_steps(tb: Path) -> dict[str, list[int]]:
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    (run,) = [p for p in tb.iterdir() if p.is_dir()]
    acc = EventAccumulator(str(run))
    acc.Reload()
    return {tag: [e.step for e in acc.Scalars(tag)] for tag in acc.Tags()["scalars"]}


@pytest.mark.slow
def test_resume_falls_back_and_logs_each_step_once(tmp_path):
    run_dir = tmp_path / "run"
    common = ["--ruleset", "toy", "--seed", "5", "--run-dir", str(run_dir),
              "--checkpoint-freq", "128", "--snapshot-freq", "128", "--eval-freq", "128",
              "--critic-warmup", "64", *TINY_TB, *TOY_POOL]
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


@pytest.mark.slow
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


EXACT = ["--ruleset", "toy", "--seed", "4", "--n-envs", "2", "--n-steps", "64", "--batch-size",
         "64", "--n-epochs", "2", "--net-arch", "32", "--eval-games", "4", "--eval-extra-games",
         "4", "--critic-warmup", "256", "--eval-freq", "256",
         "--checkpoint-freq", "256", "--snapshot-freq", "128", "--total-timesteps", "1280",
         "--torch-threads", "1", "--no-progress-bar", "--no-tensorboard", *TOY_POOL]
#: metrics.csv columns that are not wall-clock measurements
DETERMINISTIC = ("timesteps", "snapshots", "score_vs_random", "score_vs_always-react")


def _weights(path: Path) -> dict:
    import io
    import zipfile

    import torch

    with zipfile.ZipFile(path) as zf:
        return torch.load(io.BytesIO(zf.read("policy.pth")), weights_only=True)


def _metrics(run_dir: Path) -> list[tuple[str, ...]]:
    with open(run_dir / "metrics.csv", newline="") as fh:
        return [tuple(row[k] for k in DETERMINISTIC) for row in csv.DictReader(fh)]


@pytest.fixture(scope="module")
def whole(tmp_path_factory) -> Path:
    """The uninterrupted run the interrupted ones are compared with."""
    run_dir = tmp_path_factory.mktemp("exact") / "whole"
    r = _train(*EXACT, "--run-dir", str(run_dir))
    assert r.returncode == 0, r.stderr
    return run_dir


@pytest.fixture(scope="module")
def whole_pipelined(tmp_path_factory) -> Path:
    """The uninterrupted run with pipelined updates (agents/training/pipelined.py)."""
    run_dir = tmp_path_factory.mktemp("exact") / "whole_pipelined"
    r = _train(*EXACT, "--pipelined-updates", "--run-dir", str(run_dir))
    assert r.returncode == 0, r.stderr
    assert "pipelined PPO updates" in r.stdout
    return run_dir


@pytest.mark.slow
@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGINT])
def test_run_stopped_after_a_checkpoint_resumes_exactly(whole, tmp_path, sig):
    """SIGKILL right after the first checkpoint is written (or Ctrl-C, which checkpoints at
    the next rollout boundary and exits 130), then --resume: the same weights (policy, value
    net and Adam state, to float tolerance) and the same metrics.csv (its non-timing columns)
    as the same run uninterrupted; the league state and the snapshots too."""
    _resumes_exactly(whole, *_stopped_run(tmp_path, sig, []))


@pytest.mark.slow
def test_pipelined_run_stopped_resumes_exactly(whole_pipelined, tmp_path):
    """The same with pipelined updates: the checkpoint keeps the update in flight, which
    --resume submits again."""
    _resumes_exactly(whole_pipelined,
                     *_stopped_run(tmp_path, signal.SIGINT, ["--pipelined-updates"]))


@pytest.mark.slow
@pytest.mark.parametrize("how", ["moved", "copied"])
def test_a_moved_or_copied_run_resumes_exactly_from_its_own_files(whole, tmp_path, how):
    """A run killed after its first checkpoint, its directory then moved (or copied, and the
    original's snapshots then spoilt), resumes from the new directory exactly as the run
    uninterrupted: the pool state and the checkpoint's opponents name the old paths, and the
    run's own files are the ones read."""
    import shutil

    killed, at = _stopped_run(tmp_path, signal.SIGKILL, [])
    there = tmp_path / "elsewhere"
    if how == "moved":
        shutil.move(killed, there)
    else:
        shutil.copytree(killed, there)
        for snap in _snapshots(killed):  # reading any of the original's snapshots now fails
            snap.write_bytes(b"not a checkpoint")
    _resumes_exactly(whole, there, at)


@pytest.mark.slow
def test_a_copy_missing_its_snapshots_is_refused_without_reading_the_original(tmp_path):
    """A copy of a killed run without its snapshots is refused, naming the missing file in
    the copy, even though the original's are still there (they must not stand in)."""
    import shutil

    killed, _ = _stopped_run(tmp_path, signal.SIGKILL, [])
    there = tmp_path / "elsewhere"
    shutil.copytree(killed, there)
    for snap in _snapshots(killed):
        (there / "snapshots" / snap.name).unlink()
    r = _train(*EXACT, "--run-dir", str(there), "--resume")
    assert r.returncode == 2, r.stdout + r.stderr
    assert "the run was playing is gone" in r.stderr, r.stderr
    assert str(there / "snapshots" / "snapshot_") in r.stderr, r.stderr
    assert str(killed) + "/" not in r.stderr, r.stderr


def _snapshots(run_dir: Path) -> list[Path]:
    snaps = sorted((run_dir / "snapshots").iterdir())
    assert snaps, "the run made no snapshot before its checkpoint"
    return snaps


def _stopped_run(tmp_path: Path, sig: int, extra: list[str]) -> tuple[Path, int]:
    """``EXACT`` (plus ``extra``) in ``tmp_path/killed``, stopped by ``sig`` once its first
    checkpoint is written: ``(run_dir, timesteps of the checkpoint it resumes from)``."""
    import os
    import time

    killed = tmp_path / "killed"
    proc = subprocess.Popen([sys.executable, "-c", LAUNCH, "train.py", *EXACT, *extra,
                             "--run-dir", str(killed)], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    ckdir, deadline = killed / "checkpoints", time.monotonic() + 300
    try:
        while not (ckdir.is_dir() and any(p.name.startswith("ckpt_") for p in ckdir.iterdir())):
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < deadline, "no checkpoint within the deadline"
            time.sleep(0.005)
    finally:
        os.kill(proc.pid, sig)
        out, err = proc.communicate(timeout=120)
    assert not (killed / "final_model.zip").exists()  # stopped before the end
    if sig == signal.SIGKILL:
        assert proc.returncode == -signal.SIGKILL
        (first,) = [p.name for p in ckdir.iterdir() if p.name.startswith("ckpt_")]
        assert first == "ckpt_0000000256.zip"
        return killed, 256
    assert proc.returncode == 130, err
    at = int(out.strip().splitlines()[-1].split(" at ")[1].split()[0])
    assert at % 128 == 0 and 256 <= at < 1280, out  # a rollout boundary (64 x 2 envs)
    return killed, at


def _resumes_exactly(whole: Path, killed: Path, at: int) -> None:
    """``--resume`` of the stopped run ``killed`` (its config.json gives the flags) ends as
    the uninterrupted run ``whole``."""
    import torch

    ckdir = killed / "checkpoints"
    r = _train(*EXACT, "--run-dir", str(killed), "--resume")
    assert r.returncode == 0, r.stderr
    assert (f"resuming from {ckdir / f'ckpt_{at:010d}.zip'} at {at} timesteps") in r.stdout, \
        r.stdout
    assert "every generator and env state restored" in r.stdout
    a, b = _weights(whole / "last_model.zip"), _weights(killed / "last_model.zip")
    assert set(a) == set(b)
    for k in a:
        torch.testing.assert_close(b[k], a[k], rtol=0, atol=1e-6, msg=k)
    # the run moved its weights (the comparison is not of two untrained nets)
    before = _weights(ckdir / "ckpt_0000001024.zip")
    assert any(not torch.equal(before[k], a[k]) for k in a)
    assert _metrics(killed) == _metrics(whole)
    assert [m[0] for m in _metrics(whole)] == ["0", "256", "512", "768", "1024", "1280"]
    pa = json.loads((whole / "pool.json").read_text())
    pb = json.loads((killed / "pool.json").read_text())
    assert pa["picks"] == pb["picks"] and pa["pfsp"] == pb["pfsp"]
    assert [Path(s).name for s in pa["snapshots"]] == [Path(s).name for s in pb["snapshots"]]
