"""One Activation Phase: activation, In-transit figure and Targeting (AA-G7, AA-G8), then
the Reaction sub-phase (:mod:`.reaction`), the Declaration (:mod:`.declaration`) and the
resolution (:mod:`.resolution`).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from envs.core.procedure import Done, Frame, Push, Step, Wait, register
from envs.core.protocol import Illegality

from .. import orders
from ..actions import Decision
from ..state import AAState, PhaseData, Unit
from .common import (UnitContext, legal_placements, legal_targets, place_in_transit,
                     why_not_target)
from .declaration import Declaration
from .reaction import ReactionSubPhase
from .resolution import Resolution


class ActivationStep(str, enum.Enum):
    """The stages of an Activation Phase."""

    CHOOSE = "choose"
    MOVE = "move"
    FIRST_TARGET = "target1"
    SECOND_TARGET = "target2"
    REACT = "react"
    DECLARE = "declare"
    RESOLVE = "resolve"
    END = "end"


#: the decision each waiting stage of an Activation Phase asks
_ACTIVATION_DECISIONS: dict[ActivationStep, Decision] = {
    ActivationStep.CHOOSE: Decision.ACTIVATION, ActivationStep.MOVE: Decision.MANEUVER,
    ActivationStep.FIRST_TARGET: Decision.FIRE, ActivationStep.SECOND_TARGET: Decision.FIRE}


@register
@dataclass(slots=True)
class Activation(Frame[AAState]):
    """One Activation Phase: choose the unit, place its In-transit figure, Targeting (none,
    one, or a second as Split Fire), then Reaction, Declaration and resolution."""

    kind = "aa.activation"
    auto_apply_forced = True
    side: int
    step: ActivationStep = ActivationStep.CHOOSE

    def run(self, state: AAState) -> Step:
        step = self.step
        if step in _ACTIVATION_DECISIONS:
            return Wait(self.side, _ACTIVATION_DECISIONS[step])
        if step is ActivationStep.REACT:
            self.step = ActivationStep.DECLARE
            return Push(ReactionSubPhase())
        if step is ActivationStep.DECLARE:
            self.step = ActivationStep.RESOLVE
            return Push(Declaration())
        if step is ActivationStep.RESOLVE:
            self.step = ActivationStep.END
            return Push(Resolution())
        # end: units have acted; their orders are discarded (AA-G6, AA-G20)
        phase = state.phase_in_play()
        for side, slot, _ in phase.involved:
            unit = state.unit_in(side, slot)
            unit.acted = True
            unit.confused = False
            unit.tx = unit.ty = None
            orders.discard_order(state, side, slot)
        state.phase = None
        return Done()

    def _unit(self, state: AAState) -> Unit:
        return state.unit_in(self.side, state.phase_in_play().unit)

    def legal_actions(self, state: AAState) -> list[int]:
        ids = state.game.ids
        if self.step is ActivationStep.CHOOSE:
            return [ids.activate0 + slot for slot, unit in enumerate(state.units[self.side])
                    if orders.eligible_to_activate(state, unit)]
        unit = self._unit(state)
        if self.step is ActivationStep.MOVE:
            return legal_placements(state, unit)
        return legal_targets(state, unit, state.phase_in_play().targets)

    def why_illegal(self, state: AAState, action: int) -> Illegality | None:
        ids = state.game.ids
        if self.step is ActivationStep.CHOOSE:
            slot = action - ids.activate0
            if 0 <= slot < ids.max_units:
                return Illegality(("AA-G7",), f"unit{slot} is not eligible to activate (it has "
                                  f"acted, has no order or is gone)")
            return Illegality(("AA-G7",), "choose the unit to activate")
        unit = self._unit(state)
        if self.step is ActivationStep.MOVE:
            if unit.suppression >= state.game.suppressed_no_move:
                return Illegality(("AA-G15",), "a unit with 3+ suppression markers may not move")
            return Illegality(("AA-G8",), "the In-transit figure must stay on the table")
        return why_not_target(state, unit, action)

    def apply(self, state: AAState, action: int) -> None:
        ids = state.game.ids
        if self.step is ActivationStep.CHOOSE:
            slot = action - ids.activate0
            state.phase = PhaseData(self.side, slot, involved=[[self.side, slot, 0]])
            state.log("activate", ("AA-G7",), f"side {self.side} activates unit{slot}", self.side,
                      unit=slot)
            self.step = ActivationStep.MOVE
            return None
        unit = self._unit(state)
        if self.step is ActivationStep.MOVE:
            place_in_transit(state, unit, action, ("AA-G8",))
            self.step = ActivationStep.FIRST_TARGET
            return None
        phase = state.phase_in_play()
        if action == ids.target_none:
            if self.step is ActivationStep.FIRST_TARGET:
                state.log("targeting_skipped", ("AA-R3",), f"side {self.side} skips "
                          f"Targeting", self.side)
            self.step = ActivationStep.REACT
            return None
        target = action - ids.target0
        phase.targets.append(target)
        first = self.step is ActivationStep.FIRST_TARGET
        phase.fire.append([self.side, unit.slot, 1 - self.side, target, 0 if first else 1])
        state.log("target", ("AA-R2",) if first else ("AA-R2", "AA-R9"),
                  f"side {self.side} unit{unit.slot} targets enemy unit{target}"
                  + ("" if first else " (Split Fire)"), self.side, target=target)
        self.step = ActivationStep.SECOND_TARGET if first else ActivationStep.REACT
        return None

    def context(self, state: AAState, viewer: int) -> UnitContext:
        subject = (state.phase_in_play().unit if state.phase is not None and viewer == self.side
                   else -1)
        return UnitContext(self.kind, self.side, self.run_decision(), subject)

    def run_decision(self) -> str:
        return _ACTIVATION_DECISIONS.get(self.step, Decision.FIRE)
