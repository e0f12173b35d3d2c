"""The type check's configuration: ``make test`` (and ``make test-fast``) run ``make typecheck``
before pytest, which runs mypy over ``envs/`` and ``agents/`` with the ``[tool.mypy]`` table of
``pyproject.toml``, strict for ``envs/core``."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

#: the flags ``mypy --strict`` enables that are per-module options
STRICT_FLAGS = {
    "disallow_any_generics": True, "disallow_subclassing_any": True,
    "disallow_untyped_calls": True, "disallow_untyped_defs": True,
    "disallow_incomplete_defs": True, "check_untyped_defs": True,
    "disallow_untyped_decorators": True, "warn_unused_ignores": True, "warn_return_any": True,
    "implicit_reexport": False, "strict_equality": True, "extra_checks": True,
}


def _mypy_config() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["mypy"]


def _override(config: dict, module: str) -> dict:
    found = [o for o in config["overrides"] if module in o["module"]]
    assert len(found) == 1, f"{module}: {len(found)} override tables"
    return found[0]


def test_mypy_checks_envs_and_agents_on_python_311() -> None:
    config = _mypy_config()
    assert config["files"] == ["envs", "agents"]
    assert config["python_version"] == "3.11"
    assert config["cache_dir"] == ".mypy_cache"


def test_the_core_is_checked_with_every_strict_flag_and_no_disabled_code() -> None:
    core = _override(_mypy_config(), "envs.core.*")
    assert {k: core.get(k) for k in STRICT_FLAGS} == STRICT_FLAGS
    assert "disable_error_code" not in core and "ignore_errors" not in core


def test_missing_imports_are_ignored_per_package_not_globally() -> None:
    config = _mypy_config()
    assert "ignore_missing_imports" not in config
    for o in config["overrides"]:
        if o.get("ignore_missing_imports"):
            assert not any(m.startswith(("envs", "agents")) for m in o["module"]), o


def test_make_test_runs_the_type_check_before_pytest() -> None:
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert re.search(r"^typecheck: .*\n\t\$\(PY\) -m mypy$", makefile, re.M)
    for target in ("test", "test-fast"):
        rule = re.search(rf"^{target}: (.*)$", makefile, re.M)
        assert rule is not None and "typecheck" in rule.group(1).split(), target
    assert ".mypy_cache/" in (ROOT / ".gitignore").read_text(encoding="utf-8").split()
