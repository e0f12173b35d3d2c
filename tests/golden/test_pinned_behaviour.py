"""Every built-in scenario plays exactly as pinned (see :mod:`tests.golden.pinned_behaviour`)."""

from __future__ import annotations

import pytest

from tests.golden.pinned_behaviour import digest, pinned, scenarios


def test_every_built_in_scenario_is_pinned() -> None:
    pins = pinned()
    assert sorted((r, s) for r in pins for s in pins[r]) == sorted(scenarios())
    assert set(FAST_SCENARIOS.items()) <= set(scenarios())


#: the scenario of each ruleset the fast tier (``-m "not slow"``) plays: a whole battle that is
#: short to play; ``make test`` plays every one
FAST_SCENARIOS = {"acw_regimental": "crossroads", "atomic_africa": "duel", "skirmish_alert": "duel"}


def _scenario_params() -> list:
    """Every built-in scenario, those outside :data:`FAST_SCENARIOS` marked slow."""
    return [pytest.param(ruleset, scenario, id=f"{ruleset}-{scenario}",
                         marks=() if FAST_SCENARIOS.get(ruleset) == scenario else pytest.mark.slow)
            for ruleset, scenario in scenarios()]


@pytest.mark.parametrize(("ruleset", "scenario"), _scenario_params())
def test_behaviour_digest_is_unchanged(ruleset: str, scenario: str) -> None:
    assert digest(ruleset, scenario) == pinned()[ruleset][scenario], (
        f"{ruleset}/{scenario} plays differently: a change of form or speed must not move it; "
        f"a rules change regenerates it with `python -m tests.golden.pinned_behaviour --write`")
