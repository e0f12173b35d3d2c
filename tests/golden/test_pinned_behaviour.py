"""Every built-in scenario plays exactly as pinned (see :mod:`tests.golden.pinned_behaviour`)."""

from __future__ import annotations

import pytest

from tests.golden.pinned_behaviour import digest, pinned, scenarios


def test_every_built_in_scenario_is_pinned() -> None:
    pins = pinned()
    assert sorted((r, s) for r in pins for s in pins[r]) == sorted(scenarios())


def _scenario_params() -> list:
    """Every built-in scenario; the fast tier (``-m "not slow"``) plays the first of each
    ruleset."""
    first: set[str] = set()
    params = []
    for ruleset, scenario in scenarios():
        params.append(pytest.param(ruleset, scenario, id=f"{ruleset}-{scenario}",
                                   marks=pytest.mark.slow if ruleset in first else ()))
        first.add(ruleset)
    return params


@pytest.mark.parametrize(("ruleset", "scenario"), _scenario_params())
def test_behaviour_digest_is_unchanged(ruleset: str, scenario: str) -> None:
    assert digest(ruleset, scenario) == pinned()[ruleset][scenario], (
        f"{ruleset}/{scenario} plays differently: a change of form or speed must not move it; "
        f"a rules change regenerates it with `python -m tests.golden.pinned_behaviour --write`")
