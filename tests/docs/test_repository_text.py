"""What a reader meets in the repository: current truth, not a diary.

* no tracked file (its path or its text) refers to a development session or to the date of a
  work round, nor points into README sections that no longer exist;
* ``examples/results/`` holds exactly the files ``docs/results.md`` lists (its Files table), so
  every kept result is quoted and produced by a named command.
"""

from __future__ import annotations

import fnmatch
import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

#: a numbered development round ("sess" + "ion 12"), a work-round date in 2026, a pointer into
#: the README's former measurement diary; written so that this file does not match itself
DIARY = re.compile(r"(?<![a-z])sess(?:ion)s? ?\d|\b2026-[01]\d-[0-3]\d\b|README, Measured[ ]numbers",
                   re.IGNORECASE)


def _tracked() -> list[str]:
    try:
        out = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True,
                             check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout")
    return [p for p in out.decode().split("\0") if p]


def test_no_tracked_file_refers_to_work_sessions_or_their_dates():
    hits = []
    for path in _tracked():
        if DIARY.search(path):
            hits.append(f"{path}: its name")
        file = ROOT / path
        if not file.is_file():
            continue
        data = file.read_bytes()
        if b"\0" in data[:4096]:
            continue  # binary (images, checkpoints)
        for number, line in enumerate(data.decode("utf-8", "replace").splitlines(), 1):
            if DIARY.search(line):
                hits.append(f"{path}:{number}: {line.strip()[:120]}")
    assert hits == [], "\n".join(hits)


def test_the_pattern_finds_diary_text():
    for text in ("see sess" "ion 14", "Sess" "ions 16 and 18", "measured 2026-" "12-03",
                 "(README, Measured " "numbers, Sess" "ion 7)", "x_sess" "ion21.json"):
        assert DIARY.search(text), text
    for text in ("a session of play", "version 2", "2026 rules", "obsession"):
        assert not DIARY.search(text), text


def _listed_patterns() -> list[str]:
    text = (ROOT / "docs" / "results.md").read_text(encoding="utf-8")
    section = text.split("## Files", 1)[1].split("\n## ", 1)[0]
    patterns = []
    for row in section.splitlines():
        if row.startswith("| `"):
            for name in re.findall(r"`([^`]+)`", row.split("|")[1]):
                patterns.append(re.sub(r"\{[^}]+\}", "*", name))
    return patterns


def test_results_folder_holds_exactly_the_listed_files():
    files = [p[len("examples/results/"):] for p in _tracked()
             if p.startswith("examples/results/")]
    patterns = _listed_patterns()
    assert patterns, "docs/results.md lists the result files"
    unlisted = [f for f in files if not any(fnmatch.fnmatch(f, p) for p in patterns)]
    assert unlisted == [], f"files in examples/results/ that docs/results.md does not list: {unlisted}"
    empty = [p for p in patterns if not any(fnmatch.fnmatch(f, p) for f in files)]
    assert empty == [], f"docs/results.md lists files that do not exist: {empty}"


def test_paths_the_docs_name_exist():
    """Every repository path the README or a docs page quotes in backticks exists."""
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
    quoted = re.compile(r"`((?:envs|agents|tests|examples|docs)/(?!_build)[A-Za-z0-9_/.-]+)`")
    missing = sorted({f"{page.relative_to(ROOT)}: {path}" for page in pages
                      for path in quoted.findall(page.read_text(encoding="utf-8"))
                      if not (ROOT / path).exists()})
    assert missing == [], "\n".join(missing)
