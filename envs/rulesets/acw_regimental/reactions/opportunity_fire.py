"""Opportunity Fire in Window A (RULE-04-3.1 .. 3.3, RULE-04-1.3, I-3, I-18, ACW-PD-24).

A formed, steady defender that the mover enters the Medium or Short band of (the ``opp_medium``
/ ``opp_short`` trigger points) may fire one volley at it now (:class:`OpportunityFire`), or, at
the Medium point and beyond Short range, hold its fire for the Short-range point
(:class:`WaitShort`, I-18). Either way it may react to this mover once (RULE-04-1.4). The
Medium point is 8" by the seed; the game's ``opportunity_fire_trigger`` parameter moves it (6"
to 12", :func:`..reactions.trigger_range`); the volley still needs the mover in range.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from envs.core.geometry import footprint_distance
from envs.core.protocol import Illegality
from envs.core.reactions import Reaction

from .. import tables
from ..actions import reaction_label
from ..units import WEAPON_BY_VALUE
from . import can_fire_reaction, OfferingWindow
from .. import queries

if TYPE_CHECKING:
    from ..state import ACWState

__all__ = ["OpportunityFire", "WaitShort"]


def _why_no_opportunity_fire(state: ACWState, window: OfferingWindow) -> Illegality | None:
    defender, mover = window.units(state)
    if defender is None:
        return Illegality(("RULE-04-1.2",), "no defending unit is asked")
    why = can_fire_reaction(defender)
    if why is not None:
        return Illegality(*why)
    if queries.firing_stands(state, defender, mover.fp, 1) == 0:
        return Illegality(("RULE-04-3.1", "ACW-PD-16"), "the mover is not in the arc of any "
                                                       "firing stand")
    if tables.range_band(WEAPON_BY_VALUE[defender.weapon], footprint_distance(defender.fp, mover.fp)) \
            is None:
        return Illegality(("RULE-04-3.1", "ACW-PD-25"), "the mover is out of range")
    return None


class OpportunityFire(Reaction["ACWState", "OfferingWindow"]):
    """Fire one volley at the mover now (RULE-04-3.3: the seed's bracket numbers, no
    Enfilade); the mover then carries on along its path."""

    label = reaction_label("opportunity_fire")
    rules = ("RULE-04-3.1", "RULE-04-3.3", "RULE-04-1.3", "I-3")

    def why_not(self, state: ACWState, window: OfferingWindow) -> Illegality | None:
        return _why_no_opportunity_fire(state, window)

    def resolve(self, state: ACWState, window: OfferingWindow) -> tuple:
        defender, mover = window.units(state)
        state.reacted.append(defender.slot)
        state.log("react", self.rules, f"{defender.label()} declares Opportunity Fire at "
                  f"{mover.label()}", defender.side, unit=defender.slot,
                  reaction="opportunity_fire")
        from ..procedures.volley import FireMode, Volley  # (procedures imports this module)
        return (Volley(defender.side, defender.slot, mover.slot, FireMode.OPPORTUNITY),)


class WaitShort(Reaction["ACWState", "OfferingWindow"]):
    """Hold the fire for the Short-range trigger point (I-18): only at the Medium point, with
    the mover still beyond Short range; the Medium trigger is spent, the Short one is not."""

    label = reaction_label("wait_short")
    rules = ("I-18", "ACW-PD-24")

    def why_not(self, state: ACWState, window: OfferingWindow) -> Illegality | None:
        why = _why_no_opportunity_fire(state, window)
        if why is not None:
            return why
        defender, mover = window.units(state)
        if window.trigger != "opp_medium" or \
                footprint_distance(defender.fp, mover.fp) <= tables.SHORT_RANGE + 1e-6:
            return Illegality(("I-18",), "only at the Medium trigger point and beyond 6\"")
        return None

    def resolve(self, state: ACWState, window: OfferingWindow) -> tuple:
        defender, _ = window.units(state)
        state.spent_triggers.append((defender.slot, "opp_medium"))
        state.log("react_wait", self.rules, f"{defender.label()} holds its fire for the "
                  f"Short-range point", defender.side, unit=defender.slot)
        return ()
