"""The fast tier (``make test-fast``: ``pytest -m "not slow"``) keeps at least one test of every
test module, so each module's subject is exercised by it, but for the few named in
:data:`SLOW_ONLY` with the fast tests that cover their subject; ``make test`` runs everything."""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parent
#: the test modules whose every test is slow, and where the fast tier covers their subject
SLOW_ONLY = {
    "cli/test_browser.py": "a person's game driven through Chromium; the fast tier serves and "
                           "plays the page in process (tests/cli/test_play.py)",
    "rllib/test_rllib_train.py": "train.py --backend rllib end to end on real Ray instances; the "
                                 "fast tier checks the RLlib glue in process "
                                 "(tests/rllib/test_rllib_units.py)",
    "test_resume.py": "exact resumption of real training runs; the fast tier checks the resumed "
                      "configuration (tests/cli/test_train_presets.py) and the checkpoint "
                      "files (tests/agents/test_checkpoint.py)",
    "test_train_subproc.py": "one training run with environment processes; the fast tier steps "
                             "the vectorised envs in process (tests/agents/test_rollout_vec_env.py)",
}


def _is_slow_mark(node: ast.expr) -> bool:
    """``pytest.mark.slow`` (also inside a list of marks, or called with arguments)."""
    if isinstance(node, (ast.List, ast.Tuple)):
        return any(_is_slow_mark(e) for e in node.elts)
    if isinstance(node, ast.Call):
        return _is_slow_mark(node.func)
    return isinstance(node, ast.Attribute) and node.attr == "slow" \
        and isinstance(node.value, ast.Attribute) and node.value.attr == "mark"


def fast_tests(source: str) -> tuple[list[str], list[str]]:
    """``(fast, slow)``: the names of a test module's test functions (module level and in
    ``Test*`` classes) without and with a ``slow`` mark (on the function, its class or the
    module's ``pytestmark``)."""
    tree = ast.parse(source)
    module_slow = any(isinstance(n, ast.Assign) and any(
        isinstance(t, ast.Name) and t.id == "pytestmark" for t in n.targets)
        and _is_slow_mark(n.value) for n in tree.body)
    fast: list[str] = []
    slow: list[str] = []

    def visit(body: list[ast.stmt], inherited: bool) -> None:
        for node in body:
            if isinstance(node, ast.ClassDef) and node.name.startswith("Test"):
                visit(node.body, inherited or any(map(_is_slow_mark, node.decorator_list)))
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) \
                    and node.name.startswith("test"):
                marked = inherited or any(map(_is_slow_mark, node.decorator_list))
                (slow if marked else fast).append(node.name)

    visit(tree.body, module_slow)
    return fast, slow


def test_every_test_module_keeps_a_fast_test():
    modules = sorted(TESTS.rglob("test_*.py"))
    assert len(modules) > 80
    without = [str(p.relative_to(TESTS)) for p in modules
               if not fast_tests(p.read_text(encoding="utf-8"))[0]]
    assert without == sorted(SLOW_ONLY)
    for covered_by in SLOW_ONLY.values():
        for path in covered_by.split("(")[1:]:
            assert (TESTS.parent / path.split(")")[0]).is_file(), path


def test_slow_marks_are_read_where_pytest_reads_them():
    source = '''
import pytest
pytestmark = [pytest.mark.skipif(False, reason="")]

@pytest.mark.slow
def test_a(): ...

@pytest.mark.parametrize("x", [1])
def test_b(x): ...

@pytest.mark.slow
class TestC:
    def test_c(self): ...

class TestD:
    @pytest.mark.slow()
    def test_d(self): ...
    def test_e(self): ...
'''
    assert fast_tests(source) == (["test_b", "test_e"], ["test_a", "test_c", "test_d"])
    assert fast_tests("import pytest\npytestmark = pytest.mark.slow\ndef test_x(): ...\n") == (
        [], ["test_x"])
