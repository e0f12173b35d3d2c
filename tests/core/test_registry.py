"""envs.core.registry: rulesets register themselves; the core imports none of them."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import envs
import envs.rulesets
from envs.core import registry
from envs.core.errors import UnknownRulesetError
from envs.core.protocol import State
from tests.toy_ruleset import ToyGame

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def clean_registry() -> Iterator[dict]:
    """The shared registry, its entries restored after the test."""
    saved = dict(registry.REGISTRY)
    yield registry.REGISTRY
    registry.REGISTRY.clear()
    registry.REGISTRY.update(saved)


def test_one_registry_behind_every_public_path() -> None:
    assert envs.rulesets.REGISTRY is registry.REGISTRY
    assert envs.load_game is envs.rulesets.load_game is registry.load_game
    assert envs.list_rulesets is registry.list_rulesets
    assert registry.REGISTRY["acw_regimental"] == "envs.rulesets.acw_regimental.game:ACWGame"
    assert "acw_regimental" in registry.list_rulesets()


def test_register_a_class_and_a_lazy_entry_point(clean_registry: dict) -> None:
    registry.register_ruleset("duel_by_class", ToyGame)
    registry.register_ruleset("duel_by_name", "tests.toy_ruleset:ToyGame")
    registry.register_ruleset("duel_by_name", "tests.toy_ruleset:ToyGame")  # same: allowed
    assert registry.game_class("duel_by_class") is ToyGame
    assert registry.game_class("duel_by_name") is ToyGame
    game = registry.load_game("duel_by_class", params={"hp": 3})
    assert isinstance(game, ToyGame) and game.hp == 3
    assert {"duel_by_class", "duel_by_name"} <= set(registry.list_rulesets())


def test_register_refuses_a_clash_and_bad_entry_points(clean_registry: dict) -> None:
    registry.register_ruleset("duel", ToyGame)
    with pytest.raises(ValueError, match="already registered"):
        registry.register_ruleset("duel", "tests.toy_ruleset:ToyState")
    registry.register_ruleset("duel", "tests.toy_ruleset:ToyGame", replace=True)
    assert registry.REGISTRY["duel"] == "tests.toy_ruleset:ToyGame"
    with pytest.raises(ValueError, match="must be 'module:Class'"):
        registry.register_ruleset("x", "tests.toy_ruleset.ToyGame")
    with pytest.raises(ValueError, match="non-empty string"):
        registry.register_ruleset("", ToyGame)
    with pytest.raises(ValueError, match="must be a Game class"):
        registry.register_ruleset("x", 3)  # type: ignore[arg-type]


def test_unknown_ruleset_names_the_registered_ones() -> None:
    with pytest.raises(UnknownRulesetError, match=r"unknown ruleset 'chess' \(registered: "
                                                  r".*acw_regimental"):
        registry.load_game("chess")
    with pytest.raises(UnknownRulesetError, match="unknown ruleset"):
        registry.game_class(["not", "hashable"])  # type: ignore[arg-type]


def test_from_json_rebuilds_a_game_registered_by_class(clean_registry: dict) -> None:
    registry.register_ruleset("toy", ToyGame, replace=True)
    s = ToyGame(params={"turns": 2}).new_initial_state()
    s.apply_action(0)
    back = State.from_json(s.to_json())
    assert type(back.game) is ToyGame and back.game.turns == 2
    assert back.to_json() == s.to_json()


@pytest.mark.slow
def test_the_core_loads_no_ruleset_module() -> None:
    """Importing the core (and its registry) imports the built-in registrations, not a
    ruleset's modules: they load on the first load_game."""
    code = ("import sys, envs.core.registry as r, envs.core.replay, envs.core.protocol\n"
            "print(sorted(m for m in sys.modules if m.startswith('envs.rulesets.')))\n"
            "r.load_game('acw_regimental')\n"
            "print('envs.rulesets.acw_regimental.game' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                         text=True, timeout=120, check=True).stdout.split("\n")
    assert out[:2] == ["[]", "True"]
