"""Evade in Window A and Window B1 (RULE-04-4.1 .. 4.4, RULE-04-1.3, I-20, I-21, ACW-PD-30).

A skirmish screen that a formed enemy comes within the evade trigger distance of (Window A), or
that is charged (Window B1), may withdraw straight back 4", 5" or 6" (one :class:`Evade` /
:class:`ChargeEvade` per distance), through friends, and rejoins its parent if it reaches it
(:func:`..effects.evade`). A charge on an evading screen carries on toward the screen's parent
line, or halts when there is none (RULE-04-4.4, I-21).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from envs.core.protocol import Illegality
from envs.core.reactions import Reaction

from ..actions import reaction_label
from . import B1Reaction, can_evade, OfferingWindow, charge_of
from .. import effects, queries

if TYPE_CHECKING:
    from ..state import ACWState

__all__ = ["CHARGE_EVADES", "ChargeEvade", "EVADES", "Evade"]


class Evade(Reaction["ACWState", "OfferingWindow"]):
    """Withdraw ``inches`` straight back (RULE-04-4.3)."""

    rules = ("RULE-04-4.1", "RULE-04-4.3", "RULE-04-1.3")

    def __init__(self, inches: int):
        self.inches = float(inches)
        self.label = reaction_label(f"evade_{inches}")

    def why_not(self, state: ACWState, window: OfferingWindow) -> Illegality | None:
        defender, _ = window.units(state)
        if defender is None:
            return Illegality(("RULE-04-1.2",), "no defending unit is asked")
        why = can_evade(defender)
        return Illegality(*why) if why is not None else None

    def resolve(self, state: ACWState, window: OfferingWindow) -> tuple:
        defender, _ = window.units(state)
        state.reacted.append(defender.slot)
        effects.evade(state, defender, self.inches)
        return ()


EVADES = (Evade(4), Evade(5), Evade(6))


class ChargeEvade(Evade):
    """Evade a charge declared against the screen (Window B1, RULE-04-4.4, I-21): the charge
    is redirected to the screen's parent, or finds no target and halts."""

    def resolve(self, state: ACWState, window: OfferingWindow) -> tuple:
        screen, charger = window.units(state)
        side = screen.side
        charge = charge_of(state, window)
        state.reacted.append(screen.slot)
        charge.b1_reaction = B1Reaction.EVADE
        parent_slot = screen.parent
        effects.evade(state, screen, self.inches)
        parent = state.units[side][parent_slot] if parent_slot >= 0 else None
        if parent is not None and parent.alive:
            charge.target = parent.slot
            charge.zone = queries.contact_zone(state, charger, parent)
            charge.b1_reaction = B1Reaction.NONE
            charge.redirected = True
            state.log("redirect", ("RULE-04-4.4", "I-21"),
                      f"{charger.label()}'s charge carries on toward {parent.label()}",
                      charger.side, unit=charger.slot, target=parent.slot)
        else:
            charge.target = -1
            charge.halt()
            state.log("charge_void", ("RULE-04-4.4", "I-21"),
                      f"{charger.label()}'s charge finds no target and halts", charger.side,
                      unit=charger.slot)
        return ()


CHARGE_EVADES = (ChargeEvade(4), ChargeEvade(5), ChargeEvade(6))
