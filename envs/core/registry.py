"""The registry of rulesets: ruleset id -> Game class, and :func:`load_game`.

The core imports no ruleset. A ruleset registers itself with :func:`register_ruleset`, giving
either its Game class or a lazy ``"module:Class"`` entry point (imported on first use, as
Gymnasium's ``register(id=..., entry_point="module:Class")``). The built-in rulesets register in
``envs/rulesets/__init__.py``, which the package facade ``envs/__init__.py`` imports, so
``import envs.<anything>`` makes them known; a test or a plug-in ruleset calls
:func:`register_ruleset` itself (``tests/conftest.py`` registers the test-only ``toy``).

Used by :meth:`envs.core.protocol.State.from_json` and :class:`envs.core.replay.ReplayScript`
to rebuild a game from its config; re-exported as ``envs.load_game`` and
``envs.rulesets.load_game``.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Protocol

from .errors import ParameterError, ScenarioError, UnknownRulesetError

# Game classes are typed by :class:`GameClass` here: this module imports nothing of
# :mod:`envs.core.protocol`, which imports it (no import cycle, tests/core/test_layering.py).


class GameClass(Protocol):
    """What this module and the state reader use of a Game class (a subclass of
    :class:`envs.core.protocol.Game`): its class attributes, and the call that builds a game."""

    @property
    def ruleset_id(self) -> str: ...

    @property
    def version(self) -> int: ...

    @property
    def scenario_dir(self) -> Path | None: ...

    def __call__(self, scenario: str | Path | None = None,
                 params: Mapping[str, Any] | None = None) -> Any: ...


#: ruleset id -> Game class (a subclass of :class:`envs.core.protocol.Game`) or lazy
#: ``"module:GameClass"`` entry point (one shared dict: ``envs.rulesets.REGISTRY`` is this object)
REGISTRY: dict[str, str | GameClass] = {}


def register_ruleset(ruleset: str, entry_point: str | GameClass, *,
                     replace: bool = False) -> None:
    """Make ``ruleset`` loadable by :func:`load_game`.

    Args:
        ruleset: the ruleset id (the Game class's ``ruleset_id``), a non-empty string.
        entry_point: the Game class, or ``"package.module:ClassName"`` imported on first use.
        replace: allow re-registering an id with another entry point (registering the same
            entry point again is always allowed).

    Raises:
        ValueError: for an empty id, a malformed entry point, or an id already registered with
            another entry point (without ``replace``).
    """
    if not isinstance(ruleset, str) or not ruleset:
        raise ValueError(f"ruleset id must be a non-empty string, got {ruleset!r}")
    if isinstance(entry_point, str):
        module, sep, name = entry_point.partition(":")
        if not (module and sep and name):
            raise ValueError(f"entry point of ruleset {ruleset!r} must be 'module:Class', "
                             f"got {entry_point!r}")
    elif not isinstance(entry_point, type):
        raise ValueError(f"entry point of ruleset {ruleset!r} must be a Game class or "
                         f"'module:Class', got {type(entry_point).__name__}")
    old = REGISTRY.get(ruleset)
    if old is not None and old != entry_point and not replace:
        raise ValueError(f"ruleset {ruleset!r} is already registered ({old!r}); pass "
                         f"replace=True to change it")
    REGISTRY[ruleset] = entry_point


def list_rulesets() -> list[str]:
    """The registered ruleset ids, sorted."""
    return sorted(REGISTRY)


def game_class(ruleset: str) -> GameClass:
    """The Game class of ``ruleset`` (importing its module on first use).

    Raises:
        UnknownRulesetError: naming the registered ids.
    """
    try:
        target = REGISTRY[ruleset]
    except (KeyError, TypeError):
        raise UnknownRulesetError(
            f"unknown ruleset {ruleset!r} (registered: {', '.join(list_rulesets())})") from None
    if isinstance(target, str):
        module, _, name = target.partition(":")
        loaded: GameClass = getattr(importlib.import_module(module), name)
        return loaded
    return target


def scenario_files(ruleset: str, scenario: str | Path | None) -> list[Path]:
    """The scenario file that ``scenario`` of ``ruleset`` is read from: a built-in name
    (``None``: ``default``) resolves to the ruleset's ``scenario_dir/NAME.toml``, a path to
    itself. For the ``inputs`` of :func:`envs.core.files.check_output_path`, so that an output
    is never written over the scenario a command reads, whether it was given by path or by
    name. An empty list for an unknown ruleset or scenario (loading the game reports those).
    """
    from .scenario import resolve_scenario_path

    try:
        folder = game_class(ruleset).scenario_dir
    except UnknownRulesetError:
        return []
    if folder is None:
        return [Path(scenario)] if scenario is not None else []
    try:
        return [resolve_scenario_path("default" if scenario is None else scenario, folder)]
    except ScenarioError:
        return []


def load_game(ruleset: str, scenario: str | Path | None = None,
              params: Mapping[str, Any] | None = None) -> Any:
    """Build a Game (an :class:`envs.core.protocol.Game`) from a ruleset id, a scenario
    (built-in name or TOML path; ``None`` for the ruleset's default battle) and parameters.

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
