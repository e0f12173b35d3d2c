"""Helpers of the skirmish alert tests: build a game, play labels, and look at events."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from envs import load_game
from envs.core.replay import ReplayScript, play_labels

GOLDEN = Path(__file__).parent / "golden"


def game(scenario: str = "duel", **params: Any):
    return load_game("skirmish_alert", scenario, params or None)


def play(scenario: str, labels: list[str], **params: Any):
    """A new state of ``scenario`` with ``labels`` applied (checked)."""
    s = game(scenario, **params).new_initial_state()
    return play_labels(s, labels)


def replay(name: str, upto: int | None = None):
    return ReplayScript.load(GOLDEN / f"{name}.toml").play(upto)


def kinds(state, kind: str) -> list[dict]:
    return [e.data for e in state.events if e.kind == kind]


def fighter(state, name: str):
    return next(f for f in state.fighters if f is not None and f.name == name)


def tweak(state) -> None:
    """Call after editing fighters by hand: the memoised legal list is stale."""
    state._legal_cache = None


#: duel initiative rolls: Rell 6+6+3 = 15 (position 1), Blix 1+1 = 2 (position 2)
DUEL_START = ["d6=6", "d6=6", "d6=1", "d6=1"]
