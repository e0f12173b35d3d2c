"""Evade in Window A (RULE-04-4.1 .. 4.3, RULE-04-1.3, I-20, ACW-PD-30).

A skirmish screen that a formed enemy comes within the evade trigger distance of may withdraw
straight back 4", 5" or 6" (one :class:`Evade` per distance), through friends, and rejoins its
parent if it reaches it (:meth:`ACWState._evade`).
"""

from __future__ import annotations

from typing import Any

from envs.core.protocol import Illegality
from envs.core.reactions import Reaction

from . import can_evade

__all__ = ["EVADES", "Evade"]


class Evade(Reaction):
    """Withdraw ``inches`` straight back (RULE-04-4.3)."""

    rules = ("RULE-04-4.1", "RULE-04-4.3", "RULE-04-1.3")

    def __init__(self, inches: int):
        self.inches = float(inches)
        self.label = f"react:evade_{inches}"

    def why_not(self, state: Any, window: Any) -> Illegality | None:
        defender, _ = window.units(state)
        if defender is None:
            return Illegality(("RULE-04-1.2",), "no defending unit is asked")
        why = can_evade(defender)
        return Illegality(*why) if why is not None else None

    def resolve(self, state: Any, window: Any) -> tuple:
        defender, _ = window.units(state)
        state.reacted.append(defender.slot)
        state._evade(defender, self.inches)
        return ()


EVADES = (Evade(4), Evade(5), Evade(6))
