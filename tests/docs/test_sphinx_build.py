"""The documentation site builds with warnings as errors, and its generated tables are right.

``make docs`` and this test run the same ``sphinx-build -W``: a broken link, a page left out of
every toctree, a missing page or a docstring that does not parse fails it.
"""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"


def _load(name: str):
    """A module of ``docs/_ext`` (Sphinx puts that folder on ``sys.path``; tests do not)."""
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, DOCS / "_ext" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow
def test_sphinx_build_has_no_warnings(tmp_path):
    pytest.importorskip("sphinx")
    pytest.importorskip("myst_parser")
    result = subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html",
         "-d", str(tmp_path / "doctrees"), str(DOCS), str(tmp_path / "html")],
        capture_output=True, text=True, cwd=ROOT)
    assert result.returncode == 0, result.stderr[-4000:]
    html = tmp_path / "html"
    for page in ["index", "getting_started", "environments", "rules/acw_regimental", "api"]:
        assert (html / f"{page}.html").is_file(), page
    envs_page = (html / "environments.html").read_text(encoding="utf-8")
    assert "riposte/ACWRegimental-v0" in envs_page and "Discrete(65)" in envs_page


def test_environment_table_matches_the_games():
    from envs import load_game

    tables = _load("env_tables")
    facts = {f.ruleset: f for f in tables.rulesets()}
    assert sorted(facts) == ["acw_regimental", "atomic_africa", "skirmish_alert"]
    acw = facts["acw_regimental"]
    game = load_game("acw_regimental")
    assert acw.version == game.version
    assert (2, len(game.actions), game.layout.size) in [s[:3] for s in acw.sizes]
    assert "default" in acw.scenarios and "crossroads" in acw.scenarios
    skirmish = {n: (a, o) for n, a, o, _ in facts["skirmish_alert"].sizes}
    assert set(skirmish) == {2, 3, 4}
    text = tables.environments_table()
    assert "`Discrete(65)`" in text and "`Box(float32, (736,))`" in text
    assert "reaction" in facts["acw_regimental"].decision_types
    assert tables.observation_table("acw_regimental").startswith("| piece | indices |")
    assert "`react:closing_volley`" in tables.actions_table("acw_regimental")


def test_markdown_docstrings_become_rst():
    convert = _load("markdown_docstrings").convert
    lines = ["Intro.", "", "## Action Space", "",
             "| ids | labels |", "|---|---|", "| 0–1 | `advance:third|all` |", "", "End."]
    out = convert(lines)
    assert ".. rubric:: Action Space" in out
    assert ".. list-table::" in out
    assert "   * - ids" in out and "     - labels" in out
    assert "     - ``advance:third|all``" in out
    assert out[-1] == "End."
    assert convert(["a :class:`X` b"]) == ["a :class:`X` b"]


def test_every_page_is_in_a_toctree():
    """The fast twin of the build's "document isn't included in any toctree" warning: a new
    page must be linked from a toctree of docs/index.md (or its folder's index.md), or carry
    ``orphan: true`` front matter until it is."""
    fence = re.compile(r"```\{toctree\}\n(.*?)```", re.S)
    linked: set[str] = set()
    for index in DOCS.rglob("index.md"):
        folder = index.parent.relative_to(DOCS)
        for block in fence.findall(index.read_text(encoding="utf-8")):
            for line in block.splitlines():
                entry = line.strip()
                if entry and not entry.startswith(":"):
                    linked.add((folder / entry).as_posix())
    missing = []
    for page in sorted(DOCS.rglob("*.md")):
        rel = page.relative_to(DOCS).with_suffix("").as_posix()
        if rel == "index" or rel.startswith(("_build", "api/generated")):
            continue
        if page.read_text(encoding="utf-8").startswith("---\norphan: true"):
            continue
        if rel not in linked:
            missing.append(rel)
    assert missing == [], f"pages in no toctree of docs/index.md: {missing}"
