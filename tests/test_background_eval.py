"""train.py's background evaluations (``--eval-background``, the default): the periodic
selection evaluations play in one worker process beside training and change nothing learnt or
chosen — the same metrics.csv scores, the same final_model.zip as ``--no-eval-background`` —
their candidate files are pruned, and a resume that needs a candidate that is gone says so."""

from __future__ import annotations

import csv
import hashlib
import zipfile
from pathlib import Path

from agents.training import PENDING_MEMBER, pending_in_checkpoint
from tests.test_scripts import TINY, run

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

    import pytest

    from agents.policy import AgentError
    from agents.training import SelfPlayCallback

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
