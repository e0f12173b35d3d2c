"""Why a reaction a window did not offer is refused (RULE-04-1.2, RULE-04-1.4 and each
reaction's own rules): the refusal texts that Window A and Window B1 give for a masked
``react:*`` action."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..units import Unit
from . import can_evade, can_fire_reaction, can_refuse, counter_charge_eligible
from .counter_charge import why_no_pip

if TYPE_CHECKING:
    from ..state import ACWState

__all__ = ["why_reaction_illegal"]


def why_reaction_illegal(state: ACWState, defender: Unit | None, action: int
                         ) -> tuple[tuple[str, ...], str] | None:
    """Why ``defender`` may not take the reaction ``action`` (a ``react:*`` id) in the window
    now asking it, as ``(rule ids, reason)``, or ``None`` when there is nothing against it
    here (or ``action`` is no reaction)."""
    name = {v: k for k, v in state.game.ids.react.items()}.get(action)
    if name is None:
        return None
    if defender is None or not defender.alive:
        return ("RULE-04-1.2",), "no defending unit is asked"
    if defender.slot in state.reacted:
        return ("RULE-04-1.4",), "this unit has already reacted to this enemy action"
    if name in ("opportunity_fire", "wait_short", "closing_volley"):
        why = can_fire_reaction(defender)
        if why:
            return why
        if name == "closing_volley":
            return ("RULE-04-2.1", "I-10"), "a Closing Volley is only declared in Window B2"
        if name == "wait_short":
            return ("I-18",), "only at the Medium trigger point and beyond 6\""
        return ("RULE-04-3.1", "RULE-04-1.2"), "no Opportunity Fire trigger here"
    if name.startswith("evade"):
        return can_evade(defender) or (("RULE-04-4.1",), "no evade trigger here")
    if name.startswith("refuse"):
        return can_refuse(defender) or \
            (("RULE-04-5.1",), "the enemy is not entering a flank zone")
    if name.startswith("counter_charge"):
        why = counter_charge_eligible(defender)
        if why:
            return why
        why = why_no_pip(state, defender.side)
        if why:
            return why
        return ("RULE-04-6.1", "I-10"), "Counter-Charge only answers a charge declaration (B1)"
    return None
