"""Helpers of the Atomic Africa tests: build a game and play labelled actions."""

from __future__ import annotations

from typing import Any

from envs.core.replay import play_labels
from envs.rulesets import load_game


def game(scenario: str = "duel", **params: Any):
    return load_game("atomic_africa", scenario, params or None)


def play(scenario: str, labels: list[str], **params: Any):
    """A fresh state of ``scenario`` after ``labels`` (decisions and chance outcomes)."""
    s = game(scenario, **params).new_initial_state()
    return play_labels(s, labels)


def kinds(state, kind: str) -> list:
    return [e for e in state.events if e.kind == kind]


def duel_start(side0: tuple[str, str], assign0: str, side1: tuple[str, str], assign1: str,
               first: str = "d6=6,d6=1") -> list[str]:
    """Turn 1 of ``duel`` up to the first activation: side 0 draws two cards and assigns one
    (or none), then side 1; the first-activation contest (side 0 wins by default)."""
    return ([f"card={c}" for c in side0] + [assign0] + [f"card={c}" for c in side1]
            + [assign1] + first.split(","))
