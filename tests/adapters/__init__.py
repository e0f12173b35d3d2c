"""Tests of the PettingZoo / Gymnasium adapters, parametrised over the test-only ``toy`` ruleset
and ``acw_regimental`` (skipped, with the reason, only while the ACW ruleset cannot be imported).
"""

from __future__ import annotations

import pytest

from envs.rulesets import load_game

RULESETS = ["toy", "acw_regimental"]


def require_ruleset(ruleset: str) -> None:
    """Skip the calling test when ``ruleset`` cannot be imported yet (ACW is being written)."""
    try:
        load_game(ruleset)
    except (ImportError, AttributeError) as exc:  # module or Game class not there yet
        pytest.skip(f"ruleset {ruleset!r} cannot be imported yet: {type(exc).__name__}: {exc}")
