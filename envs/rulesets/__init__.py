"""Registry of rulesets: ruleset id -> Game class (imported lazily).

Rulesets never import each other; what two share lives in :mod:`envs.core`.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from envs.core.errors import UnknownRulesetError
from envs.core.protocol import Game

#: ruleset id -> "module:GameClass"
REGISTRY: dict[str, str] = {
    "acw_regimental": "envs.rulesets.acw_regimental.game:ACWGame",
}


def list_rulesets() -> list[str]:
    return sorted(REGISTRY)


def game_class(ruleset: str) -> type[Game]:
    """The Game class of ``ruleset``.

    Raises:
        UnknownRulesetError: naming the registered ids.
    """
    try:
        target = REGISTRY[ruleset]
    except KeyError:
        raise UnknownRulesetError(
            f"unknown ruleset {ruleset!r} (registered: {', '.join(list_rulesets())})") from None
    mod, cls = target.split(":")
    return getattr(importlib.import_module(mod), cls)


def load_game(ruleset: str, scenario: str | Path | None = None,
              params: Mapping[str, Any] | None = None) -> Game:
    """Build a Game from a ruleset id, a scenario (built-in name or TOML path; ``None`` for the
    ruleset's default battle) and parameters.

    Raises:
        UnknownRulesetError, ScenarioError, ParameterError: on bad input, with a clear message.
    """
    return game_class(ruleset)(scenario=scenario, params=params)
