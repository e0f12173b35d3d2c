"""Reliability guarantees of the scripts and their files (docs/reliability.md): no temporary
file left at a checkpoint boundary, a full disk or an unwritable file reported in one line,
inputs that are not regular files refused, budgets bounded."""

from __future__ import annotations

import os
from pathlib import Path

import pytest


def _leftovers(root: Path) -> list[str]:
    return sorted(p.name for p in root.rglob("*") if ".tmp" in p.name)


def test_link_or_copy_twice_at_one_checkpoint_leaves_no_temporary_link(tmp_path):
    """A second checkpoint at the same timesteps (an interrupt right after a scheduled one)
    links the kept policy again: ``os.replace`` between two links of one file does nothing, so
    the temporary link used to stay for good."""
    from agents.training.checkpoints import _link_or_copy

    src, dst = tmp_path / "best_model.zip", tmp_path / ".kept" / "ckpt_0000000256.zip"
    src.write_bytes(b"policy")
    _link_or_copy(src, dst)
    _link_or_copy(src, dst)
    assert dst.read_bytes() == b"policy" and os.path.samefile(src, dst)
    assert _leftovers(tmp_path) == []


def test_link_or_copy_interrupted_between_link_and_rename_leaves_nothing(tmp_path, monkeypatch):
    from agents.interrupts import Interrupted
    from agents.training import checkpoints

    src, dst = tmp_path / "best_model.zip", tmp_path / ".kept" / "ckpt_0000000256.zip"
    src.write_bytes(b"new")
    dst.parent.mkdir()
    dst.write_bytes(b"old")

    def interrupted(a, b):
        raise Interrupted(2)

    monkeypatch.setattr(checkpoints.os, "replace", interrupted)
    with pytest.raises(Interrupted):
        checkpoints._link_or_copy(src, dst)
    assert dst.read_bytes() == b"old" and _leftovers(tmp_path) == []
