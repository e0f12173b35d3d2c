"""Closing Volley in Window B2 (RULE-04-2.1 .. 2.5, RULE-04-1.3, I-10, I-11, I-25).

How it works, top to bottom:

* **When** (RULE-04-2.1, I-10, I-25): a charger that met no Window B1 reaction halts at the
  4.0" mark from the target's front edge (or where it stands when it starts inside the mark,
  I-11) and the target is asked (:class:`..procedures.charge.WindowB2`).
* **Who** (RULE-04-2.2; :func:`volley_possible`): a formed, steady unit that may make reaction
  fire (:func:`..reactions.can_fire_reaction`), has not reacted to this charge, and has the
  charger partly in its forward arc and in the arc of at least one firing stand.
* **Effect** (RULE-04-2.3): one volley at the charger (:class:`..procedures.volley.Volley`,
  mode ``cv``: Short range, no Enfilade).
* **Then** (RULE-04-2.4, 2.5; :class:`..procedures.charge.Charge`): a charger that lost a stand
  or was Disordered takes a Charge Discipline Check; failed, it stalls 2.0" short, Disordered;
  passed or unshaken, it charges home.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from envs.core.protocol import Illegality
from envs.core.reactions import Reaction

from ..actions import reaction_label
from ..movement import partly_in_arc
from . import B1Reaction, can_fire_reaction, ChargeWindowView
from .. import queries

if TYPE_CHECKING:
    from ..state import ACWState
    from ..units import Unit

__all__ = ["CLOSING_VOLLEY", "ClosingVolley", "volley_possible"]


def volley_possible(state: ACWState, charge: Any, charger: Unit, defender: Unit) -> bool:
    """Whether Window B2 opens for ``defender`` against ``charger`` (RULE-04-2.1, 2.2, I-10):
    no Window B1 reaction shaped the charge, the defender has not reacted, may make reaction
    fire, and has the charger (where it stands as it starts toward the mark) partly in its
    forward arc and in the arc of a firing stand."""
    if charge.b1_reaction is not B1Reaction.NONE:
        return False
    if defender.slot in state.reacted:
        return False
    if can_fire_reaction(defender) is not None:
        return False
    if not partly_in_arc(defender.fp, charger.fp):
        return False
    return queries.firing_stands(state, defender, charger.fp, 1) > 0


class ClosingVolley(Reaction["ACWState", "ChargeWindowView"]):
    """Fire one volley at the charger halted at the mark (RULE-04-2.3)."""

    label = reaction_label("closing_volley")
    rules = ("RULE-04-2.1", "RULE-04-2.2", "RULE-04-1.3")

    def why_not(self, state: ACWState, window: ChargeWindowView) -> Illegality | None:
        # the window opens only when the volley is possible (volley_possible); these checks
        # do not depend on where the charger halted
        defender, _ = window.units(state)
        if defender.slot in state.reacted:
            return Illegality(("RULE-04-1.4",), "this unit has already reacted to this enemy "
                                               "action")
        why = can_fire_reaction(defender)
        return Illegality(*why) if why is not None else None

    def resolve(self, state: ACWState, window: ChargeWindowView) -> tuple:
        defender, charger = window.units(state)
        state.reacted.append(defender.slot)
        state.log("react", self.rules, f"{defender.label()} fires a Closing Volley at "
                  f"{charger.label()}", defender.side, unit=defender.slot,
                  reaction="closing_volley")
        # its result reaches the charge through Charge.on_child_done; imported here because
        # the procedures package imports this module
        from ..procedures.volley import FireMode, Volley
        return (Volley(defender.side, defender.slot, charger.slot, FireMode.CLOSING),)


CLOSING_VOLLEY = ClosingVolley()
