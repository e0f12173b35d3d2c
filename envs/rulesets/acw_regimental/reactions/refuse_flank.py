"""Refuse the Flank in Window A (RULE-04-5.1 .. 5.3, RULE-04-1.3, I-19, ACW-PD-33).

A formed regiment whose flank zone an enemy enters may wheel back its outer 1 or 2 stands
(one :class:`RefuseFlank` per number) on the side the mover comes from. A reserved Staff Pip
pays for it at once (RULE-04-5.2); without one the regiment takes an Emergency Drill Check
(:class:`EmergencyDrill`, 4+): passed, the flank is refused; failed, it is Disordered and frozen.
Against a charge declaration (Window B1, I-10, :class:`ChargeRefusal`) the same, offered when
the charger is in a flank zone not yet refused and within 12"; a refused flank is then
contacted as front (RULE-04-5.4).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from envs.core.frames import RollDice, rolled
from envs.core.geometry import footprint_distance
from envs.core.procedure import Done, Frame, Push, Step, register
from envs.core.protocol import Illegality
from envs.core.reactions import Reaction

from .. import tables
from ..arcs import zone_of
from ..actions import reaction_label
from . import B1Reaction, can_refuse, OfferingWindow, charge_of
from .. import effects, queries

if TYPE_CHECKING:
    from ..state import ACWState

__all__ = ["CHARGE_REFUSALS", "ChargeRefusal", "EmergencyDrill", "REFUSALS", "RefuseFlank"]

DRILL_RULES = ("RULE-04-5.2", "I-19")


class RefuseFlank(Reaction["ACWState", "OfferingWindow"]):
    """Refuse ``stands`` outer stands of the flank facing the mover."""

    rules: ClassVar[tuple[str, ...]] = ("RULE-04-5.1", "RULE-04-1.3")

    def __init__(self, stands: int):
        self.stands = stands
        self.label = reaction_label(f"refuse_{stands}")

    def why_not(self, state: ACWState, window: OfferingWindow) -> Illegality | None:
        defender, _ = window.units(state)
        if defender is None:
            return Illegality(("RULE-04-1.2",), "no defending unit is asked")
        why = can_refuse(defender)
        return Illegality(*why) if why is not None else None

    def resolve(self, state: ACWState, window: OfferingWindow) -> tuple:
        defender, mover = window.units(state)
        side = defender.side
        state.reacted.append(defender.slot)
        flank = zone_of(defender.fp, mover.fp.centre())
        flank = flank if flank in ("left", "right") else "right"
        state.log("react", self.rules, f"{defender.label()} declares Refuse the Flank "
                  f"({flank}, {self.stands} stand(s))", side, unit=defender.slot,
                  reaction="refuse_flank")
        if state.reserved[side] > 0:  # a reserved pip pays for it (RULE-04-5.2)
            state.reserved[side] -= 1
            effects.apply_refuse(state, defender, flank, self.stands, pip=True)
            return ()
        return (EmergencyDrill(side, defender.slot, flank, self.stands),)


@register
@dataclass(slots=True)
class EmergencyDrill(Frame["ACWState"]):
    """The Emergency Drill Check of a refusal without a reserved pip (RULE-04-5.2, I-19):
    one d6, 4+ refuses ``stands`` stands of the ``flank``."""

    kind = "acw.emergency_drill"
    side: int
    unit: int
    flank: str
    stands: int
    roll: int | None = None
    passed: bool | None = None

    def run(self, state: ACWState) -> Step:
        unit = state.unit_in(self.side, self.unit)
        if self.roll is None:
            return Push(RollDice(1, f"{unit.label()} Emergency Drill Check", DRILL_RULES,
                                 self.side))
        self.passed = effects.drill_check(state, unit, self.flank, self.stands, self.roll)
        return Done()

    def on_child_done(self, state: ACWState, child: Frame) -> None:
        self.roll = rolled(child)[0]


REFUSALS = (RefuseFlank(1), RefuseFlank(2))


class ChargeRefusal(RefuseFlank):
    """Refuse ``stands`` outer stands of the flank the charger is in (Window B1, I-10)."""

    rules = ("RULE-04-5.1", "RULE-04-1.3", "I-10")

    def why_not(self, state: ACWState, window: OfferingWindow) -> Illegality | None:
        defender, charger = window.units(state)
        flank = zone_of(defender.fp, charger.fp.centre())
        if flank not in ("left", "right"):
            return Illegality(("RULE-04-5.1",), "the charger is not in a flank zone")
        if defender.refused == flank:
            return Illegality(("RULE-04-5.1",), "that flank is already refused")
        why = can_refuse(defender)
        if why is not None:
            return Illegality(*why)
        if footprint_distance(defender.fp, charger.fp) > tables.REFUSE_RANGE + 1e-9:
            return Illegality(("RULE-04-5.1", "I-23"), "the charger is beyond 12\"")
        return None

    def resolve(self, state: ACWState, window: OfferingWindow) -> tuple:
        defender, charger = window.units(state)
        side = defender.side
        charge = charge_of(state, window)
        state.reacted.append(defender.slot)
        charge.b1_reaction = B1Reaction.REFUSE_FLANK
        flank = zone_of(defender.fp, charger.fp.centre())
        state.log("react", self.rules, f"{defender.label()} declares Refuse the Flank ({flank}, "
                  f"{self.stands} stand(s)) against the charge", side, unit=defender.slot,
                  reaction="refuse_flank")
        if state.reserved[side] > 0:  # a reserved pip pays for it (RULE-04-5.2)
            state.reserved[side] -= 1
            effects.apply_refuse(state, defender, flank, self.stands, pip=True)
            charge.zone = queries.contact_zone(state, charger, defender)  # RULE-04-5.4
            return ()
        # the charge reads the check's outcome (Charge.on_child_done)
        return (EmergencyDrill(side, defender.slot, flank, self.stands),)


CHARGE_REFUSALS = (ChargeRefusal(1), ChargeRefusal(2))
