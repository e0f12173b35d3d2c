"""Registry of rulesets: ruleset id -> Game class (imported lazily).

Rulesets never import each other; what two share lives in :mod:`envs.core`.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from envs.core.errors import ParameterError, ScenarioError, UnknownRulesetError
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
        UnknownRulesetError, ScenarioError, ParameterError: on bad input, with a clear message
            (``params`` that is not a mapping of name -> value, a ``[start] turn`` after the
            game's last turn, ...).
    """
    if not isinstance(ruleset, str):
        raise UnknownRulesetError(f"ruleset must be a ruleset id string, got {ruleset!r} "
                                  f"(registered: {', '.join(list_rulesets())})")
    if scenario is not None and not isinstance(scenario, (str, Path)):
        raise ScenarioError(f"scenario must be a built-in scenario name, a path to a TOML file "
                            f"or None, got {type(scenario).__name__} {scenario!r}")
    if params is not None:
        if not isinstance(params, Mapping):
            raise ParameterError(f"params must be a mapping of name -> value (or None), got "
                                 f"{type(params).__name__} {params!r}")
        bad = [k for k in params if not isinstance(k, str)]
        if bad:
            raise ParameterError(f"params must be a mapping of name -> value with string "
                                 f"names; got the key(s) {bad!r}")
    return game_class(ruleset)(scenario=scenario, params=params)

