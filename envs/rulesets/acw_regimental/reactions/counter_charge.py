"""Counter-Charge in Window B1 (RULE-04-6.1 .. 6.5, ACW-PD-34, I-1, I-2, I-10, I-14).

How it works, top to bottom:

* **When** (RULE-04-6.4, I-10): only in Window B1, when a charge is declared against the unit
  (:class:`..procedures.charge.WindowB1` offers it); never at the 4" mark (Window B2).
* **Who** (RULE-04-6.2, ACW-PD-34; :func:`..reactions.counter_charge_eligible`): formed
  infantry in Line or Assault Column with Rebel Yell, or Veteran and Fresh; or formed mounted
  cavalry; not engaged, in good order.
* **Against what** (RULE-04-6.1; :func:`why_no_counter_charge`): an infantry or cavalry charge
  declared from within 9" across open ground, the charger in front of the unit.
* **Cost** (RULE-04-6.3, I-2): one reserved Staff Pip (:meth:`CounterCharge.cost`), or the
  game's ``counter_charge_cost`` parameter (0 to 2; :func:`counter_charge_cost`).
* **Effect** (RULE-04-6.4, 6.5; :meth:`CounterCharge.resolve`): the unit surges 2" or 3"
  straight ahead (stopping at the charger or the table edge), the charger loses its Charging
  Momentum and its downhill bonus, and the charge goes straight to front contact (no Window B2).
* **In the melee** (RULE-04-6.5, ACW-PD-26): the unit is marked ``Unit.counter_charged``; its side fights as
  one that charged for Rebel Yell and cavalry shock, and it does not get the defender's
  favourable-ground modifier (:func:`..queries.melee_side`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from envs.core.geometry import distance_exceeds, first_crossing, footprint_distance
from envs.core.protocol import Illegality
from envs.core.reactions import Cost, Reaction

from .. import tables
from ..arcs import zone_of
from ..actions import reaction_label
from . import B1Reaction, counter_charge_eligible, ChargeWindowView

if TYPE_CHECKING:
    from ..state import ACWState
    from ..units import Unit

__all__ = ["COUNTER_CHARGES", "COUNTER_CHARGE_LABELS", "CounterCharge", "RESERVED_PIP", "counter_charge_cost",
           "why_no_counter_charge"]

#: what a Counter-Charge spends by the seed (RULE-04-6.3, I-2)
RESERVED_PIP = Cost("reserved_pip", 1, ("RULE-04-6.3", "I-2"))
_COSTS = {1: RESERVED_PIP}


def counter_charge_cost(game: Any) -> Cost:
    """What a Counter-Charge spends in ``game``: ``game.counter_charge_cost`` reserved Staff
    Pips (the ``counter_charge_cost`` parameter, default 1; RULE-04-6.3, I-2)."""
    pips = getattr(game, "counter_charge_cost", 1)
    c = _COSTS.get(pips)
    if c is None:
        c = _COSTS[pips] = Cost("reserved_pip", pips, ("RULE-04-6.3", "I-2"))
    return c


def why_no_pip(state: ACWState, side: int) -> tuple | None:
    """Why ``side`` cannot pay for a Counter-Charge now (``(rule ids, reason)``), or None."""
    pips = counter_charge_cost(state.game).amount
    if state.reserved[side] < pips:
        return (("RULE-04-6.3", "I-2"), "Counter-Charge needs a reserved Staff Pip" if pips == 1
                else f"Counter-Charge needs {pips} reserved Staff Pips")
    return None


def why_no_counter_charge(state: ACWState, charger: Unit, defender: Unit
                          ) -> tuple[tuple[str, ...], str] | None:
    """Why ``defender`` may not Counter-Charge ``charger`` (``(rule ids, reason)``), or None
    (RULE-04-6.1 .. 6.3, ACW-PD-34, I-2)."""
    why = counter_charge_eligible(defender)
    if why:
        return why
    if charger.kind not in ("infantry", "cavalry"):
        return ("RULE-04-6.1",), "only an infantry or cavalry charge can be counter-charged"
    why = why_no_pip(state, defender.side)
    if why is not None:
        return why
    if zone_of(defender.fp, charger.fp.centre()) != "front":
        return ("ACW-PD-34",), "the charger is not in front of the unit"
    if distance_exceeds(charger.fp, defender.fp, tables.CHARGE_DISTANCE + 1e-9):
        return ("RULE-04-6.1",), "the charge was declared from beyond 9\""
    if not state.game.terrain.open_between(charger.fp.centre(), defender.fp.centre()):
        return ("RULE-04-6.1", "ACW-PD-34"), "not across open ground"
    return None


class CounterCharge(Reaction["ACWState", "ChargeWindowView"]):
    """Surge ``inches`` (2 or 3) into the charger (RULE-04-6.4)."""

    rules = ("RULE-04-6.1", "RULE-04-6.3", "RULE-04-6.4", "I-2")

    def __init__(self, inches: int):
        self.inches = float(inches)
        self.label = reaction_label(f"counter_charge_{inches}")

    def why_not(self, state: ACWState, window: ChargeWindowView) -> Illegality | None:
        defender, charger = window.units(state)
        why = why_no_counter_charge(state, charger, defender)
        return Illegality(*why) if why is not None else None

    def cost(self, state: ACWState, window: ChargeWindowView) -> Cost:
        return counter_charge_cost(state.game)

    def resolve(self, state: ACWState, window: ChargeWindowView) -> tuple:
        defender, charger = window.units(state)
        side = defender.side
        state.reacted.append(defender.slot)
        pips = counter_charge_cost(state.game).amount
        paid = "reserved pip spent" if pips == 1 else f"{pips} reserved pips spent"
        state.log("react", self.rules, f"{defender.label()} counter-charges ({paid}), surging "
                  f"up to {self.inches:.0f}\"", side, unit=defender.slot,
                  reaction="counter_charge", surge=self.inches)
        start = defender.fp
        terrain = state.game.terrain
        stop = first_crossing(lambda x: footprint_distance(start.advanced(x), charger.fp) <= 1e-6
                              or not terrain.on_table(start.advanced(x)), self.inches, 0.1,
                              0.005)
        surge = self.inches if stop is None else max(0.0, stop - 0.005)
        defender.fp = start.advanced(surge)
        defender.counter_charged = True
        charger.momentum_lost = True
        charger.downhill = False
        state.log("move", ("RULE-04-6.4",), f"{defender.label()} surges {surge:.2f}\"", side,
                  unit=defender.slot, dist=round(surge, 3))
        charge = window.charge(state)
        # straight to contact, no Window B2 (RULE-04-6.5)
        charge.b1_reaction = B1Reaction.COUNTER_CHARGE
        charge.zone = "front"
        return ()


COUNTER_CHARGES = (CounterCharge(2), CounterCharge(3))
#: the labels of the Counter-Charge surges (2 or 3 inches, RULE-04-6.4)
COUNTER_CHARGE_LABELS = frozenset(reaction.label for reaction in COUNTER_CHARGES)
