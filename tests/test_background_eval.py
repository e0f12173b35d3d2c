"""train.py's background evaluations (``--eval-background``, the default): the periodic
selection evaluations play in one worker process beside training and change nothing learnt or
chosen — the same metrics.csv scores, the same final_model.zip as ``--no-eval-background`` —
their candidate files are pruned, a resume plays the pending ones again (in either mode) and
ends as the run uninterrupted, a resume that needs a candidate that is gone says so, and a
SIGTERM to the whole process group checkpoints instead of failing on the worker's death."""

from __future__ import annotations

import csv
import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pytest

from agents.training.selection import PENDING_MEMBER, pending_in_checkpoint
from tests.test_scripts import LAUNCH, ROOT, TINY, run

RUN = ["--ruleset", "acw_regimental", "--seed", "3", "--total-timesteps", "640",
       "--critic-warmup", "64", "--eval-freq", "128", "--checkpoint-freq", "128",
       "--snapshot-freq", "128", *TINY, "--eval-games", "4",
       "--eval-extra-games", "2", "--eval-agents", "random", "heuristic", "--pool-bots",
       "random", "heuristic", "--bc-games", "0"]
#: metrics.csv columns that are not wall-clock measurements
SAME = ("timesteps", "snapshots", "score_vs_random", "score_vs_heuristic")


def _rows(run_dir: Path) -> list[tuple[str, ...]]:
    with open(run_dir / "metrics.csv", newline="") as fh:
        return [tuple(r[k] for k in SAME) for r in csv.DictReader(fh)]


def _policy_digest(path: Path) -> str:
    with zipfile.ZipFile(path) as zf:
        return hashlib.sha256(zf.read("policy.pth")).hexdigest()


@pytest.mark.slow
def test_background_and_blocking_evaluations_agree(tmp_path):
    bg, fg = tmp_path / "bg", tmp_path / "fg"
    r = run("train.py", *RUN, "--run-dir", str(bg))
    assert r.returncode == 0, r.stderr
    r = run("train.py", *RUN, "--run-dir", str(fg), "--no-eval-background", "--eval-jobs", "1")
    assert r.returncode == 0, r.stderr
    rows = _rows(bg)
    assert [int(r[0]) for r in rows] == [0, 128, 256, 384, 512, 640]
    assert rows == _rows(fg)
    assert len({r[2:] for r in rows}) > 1, rows  # scores that could differ
    for name in ("final_model.zip", "best_model.zip", "last_model.zip"):
        assert _policy_digest(bg / name) == _policy_digest(fg / name), name
    assert not (fg / ".evaluations").exists()
    # what is left of the candidates is what a kept checkpoint would play again on --resume
    left = sorted(int(p.stem.removeprefix("model_"))
                  for p in (bg / ".evaluations").glob("model_*.zip")) \
        if (bg / ".evaluations").exists() else []
    needed = sorted({t for ck in (bg / "checkpoints").glob("ckpt_*.zip")
                     for t in pending_in_checkpoint(ck)})
    assert left == needed
    final = bg / "checkpoints" / "ckpt_0000000640.zip"
    with zipfile.ZipFile(final) as zf:  # the run's end waited for every evaluation
        assert zf.read(PENDING_MEMBER) == b"[]"


def test_a_pending_evaluation_whose_candidate_is_gone_is_named(tmp_path):
    """What restore_training_state checks (train.py turns it into one ``error: --resume:``
    line, as for a snapshot that is gone)."""
    from types import SimpleNamespace

    from agents.policies.base import AgentError
    from agents.training.callbacks import SelfPlayCallback

    cb = SelfPlayCallback(run_dir=tmp_path, pool=SimpleNamespace(snapshots=[]), game=None,
                          eval_opponents={}, snapshot_freq=10**9, checkpoint_freq=10**9,
                          eval_freq=128, eval_games=4, eval_seed=1, background=True)
    (tmp_path / ".evaluations").mkdir()
    (tmp_path / ".evaluations" / "model_0000000128.zip").write_bytes(b"kept")
    cb.restored_pending = [{"timesteps": 128}]
    cb.check_restored_pending()  # its file is there
    cb.restored_pending.append({"timesteps": 256})
    with pytest.raises(AgentError, match=r"policy of 256 timesteps pending, but that policy's "
                                         r"file '.*model_0000000256\.zip' is gone"):
        cb.check_restored_pending()


def test_pending_in_checkpoint_reads_nothing_from_a_bad_file(tmp_path):
    bad = tmp_path / "ckpt_0000000001.zip"
    bad.write_bytes(b"not a zip")
    assert pending_in_checkpoint(bad) == []
    assert pending_in_checkpoint(tmp_path / "missing.zip") == []


@pytest.fixture(scope="module")
def whole(tmp_path_factory) -> Path:
    """The uninterrupted background run the resumed ones are compared with."""
    run_dir = tmp_path_factory.mktemp("bg") / "whole"
    r = run("train.py", *RUN, "--run-dir", str(run_dir), "--keep-candidates")
    assert r.returncode == 0, r.stderr
    return run_dir


def _same_run(a: Path, b: Path) -> None:
    assert _rows(b) == _rows(a)
    for name in ("final_model.zip", "last_model.zip"):
        assert _policy_digest(b / name) == _policy_digest(a / name), name


def _copy_back_to_pending_checkpoint(whole: Path, dest: Path) -> int:
    """Copy the run, keeping checkpoints up to the first that left evaluations pending (the
    newest left); its timestep."""
    shutil.copytree(whole, dest)
    cks = sorted((dest / "checkpoints").glob("ckpt_*.zip"))
    # the run keeps the last three checkpoints: find one of them with pending evaluations
    with_pending = [ck for ck in cks[:-1] if pending_in_checkpoint(ck)]
    assert with_pending, [(ck.name, pending_in_checkpoint(ck)) for ck in cks]
    keep = with_pending[0]
    for ck in cks:
        if ck.name > keep.name:
            ck.unlink()
    for name in ("final_model.zip", "last_model.zip", "metrics.json"):
        (dest / name).unlink()
    return int(keep.stem.removeprefix("ckpt_"))


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["--eval-background", "--no-eval-background"])
def test_resume_plays_the_pending_evaluations_again_in_either_mode(whole, tmp_path, mode):
    """A checkpoint that left evaluations pending, resumed in either mode, ends as the run
    uninterrupted (the replay in the training process keeps the global generators)."""
    copy = tmp_path / "copy"
    at = _copy_back_to_pending_checkpoint(whole, copy)
    r = run("train.py", *RUN, "--run-dir", str(copy), "--resume", mode)
    assert r.returncode == 0, r.stderr
    assert f"at {at} timesteps" in r.stdout, r.stdout
    _same_run(whole, copy)


@pytest.mark.slow
def test_resume_without_evaluations_ignores_the_pending_ones(whole, tmp_path):
    """... and drops what the stopped run wrote after the checkpoint: its later metrics.csv
    rows and a later best_model.zip (the kept policy is the checkpoint's choice)."""
    copy = tmp_path / "copy"
    at = _copy_back_to_pending_checkpoint(whole, copy)
    shutil.rmtree(copy / ".evaluations", ignore_errors=True)  # not needed: nothing evaluated
    r = run("train.py", *RUN, "--run-dir", str(copy), "--resume", "--eval-games", "0")
    assert r.returncode == 0, r.stderr
    assert _policy_digest(copy / "last_model.zip") == _policy_digest(whole / "last_model.zip")
    # the kept policy is the checkpoint's own choice, not one the interrupted run evaluated
    # after it (whose best_model.zip the copy still held)
    kept = json.loads((copy / "metrics.json").read_text())["selected"]["timesteps"]
    later = json.loads((whole / "metrics.json").read_text())["selected"]["timesteps"]
    assert kept < later, (kept, later)  # the copy's best_model.zip was a later policy's
    assert _policy_digest(copy / "final_model.zip") == \
        _policy_digest(whole / "candidates" / f"model_{kept:010d}.zip")
    assert _policy_digest(copy / "best_model.zip") == _policy_digest(copy / "final_model.zip")
    steps = [int(r[0]) for r in _rows(copy)]
    assert steps == [int(r[0]) for r in _rows(whole) if int(r[0]) <= at] + [640], (at, steps)


@pytest.mark.slow
def test_resume_names_a_kept_policy_that_is_gone(whole, tmp_path):
    copy = tmp_path / "copy"
    at = _copy_back_to_pending_checkpoint(whole, copy)
    (copy / ".kept" / f"ckpt_{at:010d}.zip").unlink()
    r = run("train.py", *RUN, "--run-dir", str(copy), "--resume", "--eval-games", "0")
    assert r.returncode == 2, r.stderr
    assert r.stderr.startswith("error: --resume: the checkpoint kept the policy of "), r.stderr
    assert f".kept/ckpt_{at:010d}.zip' is gone" in r.stderr, r.stderr
    assert len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert not (copy / "final_model.zip").exists()


@pytest.mark.slow
@pytest.mark.skipif(not hasattr(os, "killpg"), reason="needs process groups")
def test_sigterm_to_the_process_group_checkpoints_and_resumes_exactly(whole, tmp_path):
    """systemd and Slurm stop a job with SIGTERM to its whole process group: the background
    worker ignores it, the run checkpoints at its next rollout boundary and exits 143, and
    --resume ends as the run uninterrupted; no worker is left."""
    run_dir = tmp_path / "run"
    env = dict(os.environ, PYTHONHASHSEED="0")
    proc = subprocess.Popen([sys.executable, "-c", LAUNCH, "train.py", *RUN, "--run-dir",
                             str(run_dir)], cwd=ROOT, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)
    deadline = time.monotonic() + 300
    try:  # the first checkpoint is written after the first evaluation was submitted
        while not list((run_dir / "checkpoints").glob("ckpt_*.zip")) \
                if (run_dir / "checkpoints").is_dir() else True:
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < deadline, "no checkpoint within the deadline"
            time.sleep(0.01)
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        out, err = proc.communicate(timeout=120)
    assert proc.returncode == 143, err
    assert "interrupted (SIGTERM) at " in out, (out, err)
    time.sleep(0.5)
    left = subprocess.run(["pgrep", "-g", str(proc.pid)], capture_output=True, text=True)
    assert left.stdout.strip() == "", left.stdout  # the worker went with the run
    r = run("train.py", *RUN, "--run-dir", str(run_dir), "--resume")
    assert r.returncode == 0, r.stderr
    _same_run(whole, run_dir)


#: train.py with SelfPlayCallback.drain interrupted as by a Ctrl-C during the run's final wait
LAUNCH_CTRL_C_IN_DRAIN = (
    "import os, runpy, signal, sys, time, tests.conftest, agents.training.callbacks as t\n"
    "def drain(self):\n"
    "    os.kill(os.getpid(), signal.SIGINT)\n"
    "    time.sleep(60)\n"
    "t.SelfPlayCallback.drain = drain\n"
    "script = sys.argv.pop(1); sys.argv[0] = script; runpy.run_path(script, run_name='__main__')")


@pytest.mark.slow
def test_a_run_stopped_while_waiting_for_its_last_evaluations_is_finished_by_resume(
        whole, tmp_path):
    """The checkpoint written before the final wait lists the evaluations still playing;
    --resume from it (no timesteps left) plays them, selects and writes final_model.zip, as
    the run uninterrupted."""
    run_dir = tmp_path / "run"
    env = dict(os.environ, PYTHONHASHSEED="0")
    r = subprocess.run([sys.executable, "-c", LAUNCH_CTRL_C_IN_DRAIN, "train.py", *RUN,
                        "--run-dir", str(run_dir)], cwd=ROOT, env=env, capture_output=True,
                       text=True, timeout=300)
    assert r.returncode == 130, r.stderr
    assert not (run_dir / "final_model.zip").exists()
    final = run_dir / "checkpoints" / "ckpt_0000000640.zip"
    assert pending_in_checkpoint(final), "no evaluation was pending at the end"
    r = run("train.py", *RUN, "--run-dir", str(run_dir), "--resume")
    assert r.returncode == 0, r.stderr
    assert "but has no final_model.zip: finishing the run" in r.stdout, r.stdout
    _same_run(whole, run_dir)
    assert _policy_digest(run_dir / "best_model.zip") == _policy_digest(whole / "best_model.zip")
