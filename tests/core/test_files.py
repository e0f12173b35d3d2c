"""Atomic output files of the command-line tools (envs/core/files.py)."""

from __future__ import annotations

import os

import pytest

from envs.core.files import atomic_write_text, check_output_path


def test_atomic_write_creates_parents_and_replaces(tmp_path):
    out = tmp_path / "a" / "b" / "r.json"
    atomic_write_text(out, "one")
    atomic_write_text(out, "two")
    assert out.read_text(encoding="utf-8") == "two"
    assert sorted(os.listdir(out.parent)) == ["r.json"]  # no temporary file left


def test_failed_replace_leaves_no_temporary_file_and_the_old_content(tmp_path, monkeypatch):
    out = tmp_path / "r.json"
    out.write_text("old", encoding="utf-8")

    def fail(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", fail)
    with pytest.raises(OSError, match="No space left"):
        atomic_write_text(out, "new")
    assert out.read_text(encoding="utf-8") == "old"
    assert sorted(os.listdir(tmp_path)) == ["r.json"]


def test_a_directory_is_refused_before_any_work(tmp_path):
    with pytest.raises(IsADirectoryError, match="is a directory"):
        check_output_path(tmp_path)
    with pytest.raises(IsADirectoryError):
        atomic_write_text(tmp_path, "x")
    assert check_output_path(tmp_path / "new" / "r.json") == tmp_path / "new" / "r.json"


def test_bench_refuses_a_directory_for_json_before_running(tmp_path, capsys):
    from envs.bench import main
    assert main(["--ruleset", "acw_regimental", "--seconds", "30", "--json",
                 str(tmp_path)]) == 2
    assert "is a directory" in capsys.readouterr().err
