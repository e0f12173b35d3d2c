"""The README: short, its code runs, its rulesets table is the code's, its links resolve."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.docs.test_sphinx_build import _load

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
TEXT = README.read_text(encoding="utf-8")
MAX_LINES = 300


def _code_blocks(language: str) -> list[str]:
    return re.findall(rf"^```{language}\n(.*?)^```", TEXT, flags=re.S | re.M)


def _section(title: str) -> str:
    match = re.search(rf"^## {re.escape(title)}\n(.*?)(?=^## |\Z)", TEXT, flags=re.S | re.M)
    assert match, f"README has no section {title!r}"
    return match.group(1)


def test_readme_is_short():
    assert len(TEXT.splitlines()) <= MAX_LINES


def test_readme_has_two_python_examples():
    assert len(_code_blocks("python")) == 2


@pytest.mark.parametrize("index", range(2), ids=["engine_loop", "pettingzoo_loop"])
def test_readme_python_block_runs(index, capsys):
    code = _code_blocks("python")[index]
    namespace: dict = {"__name__": "readme"}
    exec(compile(code, f"README.md python block {index}", "exec"), namespace)
    if index == 0:
        assert namespace["state"].is_terminal()
        returns = namespace["state"].returns()
        assert sorted(returns) in ([-1.0, 1.0], [0.0, 0.0])
        assert capsys.readouterr().out.startswith(str(returns))
    else:
        env = namespace["env"]
        assert namespace["termination"] or namespace["truncation"]
        assert env.unwrapped.possible_agents == ["player_0", "player_1"]


def test_engine_loop_fits_in_ten_lines():
    code = _code_blocks("python")[0]
    body = [line for line in code.splitlines()
            if line.strip() and not line.startswith(("import ", "from "))]
    assert len(body) <= 10


def _table_rows(section: str) -> list[list[str]]:
    rows = [line for line in section.splitlines() if line.startswith("|")]
    return [[cell.strip() for cell in row.strip("|").split("|")] for row in rows[2:]]


def test_rulesets_table_matches_the_code():
    tables = _load("env_tables")
    facts = {f.ruleset: f for f in tables.rulesets()}
    rows = _table_rows(_section("Rulesets"))
    assert [row[0].strip("`") for row in rows] == sorted(facts)
    for ruleset, _rules, pettingzoo, gymnasium, version, scenarios in rows:
        f = facts[ruleset.strip("`")]
        module, _pz_id, gym_id = tables.ENV_IDS[f.ruleset]
        assert pettingzoo == f"`{module}`"
        assert gymnasium == f"`{gym_id}`"
        assert int(version) == f.version, f"{f.ruleset}: README says v{version}"
        assert re.findall(r"`([^`]+)`", scenarios) == list(f.scenarios)


def test_readme_links_resolve():
    targets = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", TEXT)
    local = [t for t in targets if "://" not in t]
    assert local, "README links into the docs"
    missing = [t for t in local if not (ROOT / t).exists()]
    assert not missing, f"README links to missing files: {missing}"


def test_headline_numbers_are_on_the_results_page():
    results = (ROOT / "docs" / "results.md").read_text(encoding="utf-8")
    for what, number in _table_rows(_section("Headline numbers")):
        for value in re.findall(r"\d[\d,.]*\d|\d", number):
            assert value in results, f"{what}: {value} is not on docs/results.md"
