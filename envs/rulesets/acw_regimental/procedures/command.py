"""Phase 1, Command, of the active side (ACW-PD-12): Staff Pips (ACW-PD-13), Rally (ACW-PD-15)
and pips reserved for the enemy's turn (ACW-PD-14, RULE-04-1.3)."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import TYPE_CHECKING

from envs.core.frames import RollDice, rolled
from envs.core.procedure import Done, Frame, Push, Step, Wait, filled, register
from envs.core.protocol import Illegality

from .. import combat, tables
from ..actions import ACWDecision
from ..units import EXPERIENCE_BY_VALUE
from .context import SIDE_NAMES, ACWContext
from .. import queries

if TYPE_CHECKING:
    from ..state import ACWState

__all__ = ["CommandPhase", "CommandStep"]


class CommandStep(str, enum.Enum):
    START = "start"  #: log the phase, discard reserved pips, receive pips
    PIPS = "pips"  #: the Staff Pips die is back
    RALLY = "rally"  #: find the next Disordered unit; ask pay or roll
    RALLY_ROLL = "rally_roll"  #: the Rally Check die is back
    RESERVE = "reserve"  #: ask how many pips to reserve


@register
@dataclass(slots=True)
class CommandPhase(Frame["ACWState"]):
    """Phase 1 of the active side (ACW-PD-13..15). ``next_slot``: the first own slot not yet
    considered for Rally; ``unit``: the Disordered unit asked to rally; ``dice``: the die
    returned by the last roll."""

    kind = "acw.command_phase"
    auto_apply_forced = True
    step: CommandStep = CommandStep.START
    next_slot: int = 0
    unit: int = 0
    dice: list[int] | None = None

    def run(self, state: ACWState) -> Step:
        side = state.active
        step = self.step
        if step is CommandStep.START:
            state.log("phase", ("ACW-PD-12",), f"turn {state.turn}: {SIDE_NAMES[side]} Phase 1, "
                      f"Command", side, phase=1, turn=state.turn)
            if state.reserved[side]:
                state.log("reserve_discard", ("ACW-PD-14",), f"{SIDE_NAMES[side]} discards "
                          f"{state.reserved[side]} unused reserved pip(s)", side)
                state.reserved[side] = 0
            if state.game.pips_fixed:
                state.pips[side] = tables.PIPS_FIXED
                state.log("pips", ("ACW-PD-13",), f"{SIDE_NAMES[side]} receives "
                          f"{tables.PIPS_FIXED} Staff Pips (fixed)", side, pips=tables.PIPS_FIXED)
                self.step, self.next_slot = CommandStep.RALLY, 0
                return None
            self.step = CommandStep.PIPS
            return Push(RollDice(1, "Staff Pips roll", ("ACW-PD-13",), side))
        if step is CommandStep.PIPS:
            pips = tables.pips_from_roll(filled(self.dice, "the Staff Pips roll")[0])
            state.pips[side] = pips
            state.log("pips", ("ACW-PD-13",), f"{SIDE_NAMES[side]} receives {pips} Staff Pips",
                      side, pips=pips)
            self.step, self.next_slot = CommandStep.RALLY, 0
            return None
        if step is CommandStep.RALLY:
            for unit in state.units[side][self.next_slot:]:
                if unit is not None and unit.alive and unit.disordered and not unit.engaged:
                    self.unit = unit.slot
                    return Wait(side, ACWDecision.COMMAND)
            self.step = CommandStep.RESERVE
            return None
        if step is CommandStep.RALLY_ROLL:
            unit = state.unit_in(side, self.unit)
            roll = filled(self.dice, "the Rally Check roll")[0]
            threat = queries.rally_threat(state, unit)
            modifier = tables.rally_modifier(unit.health, threat)
            target = tables.discipline_target(EXPERIENCE_BY_VALUE[unit.experience])
            passed = combat.check_passes(roll, target, modifier)
            state.log("rally", ("ACW-PD-15",), f"{unit.label()} Rally Check {roll}{modifier:+d} "
                      f"vs {target}+: {'passed, Disorder removed' if passed else 'failed'}",
                      side, unit=unit.slot, roll=roll, modifier=modifier, target=target,
                      passed=passed)
            if passed:
                unit.disordered = False
            self.step, self.next_slot = CommandStep.RALLY, unit.slot + 1
            return None
        return Wait(side, ACWDecision.COMMAND)  # RESERVE

    def legal_actions(self, state: ACWState) -> list[int]:
        ids = state.game.ids
        if self.step is CommandStep.RALLY:
            pay = [ids.rally_pay] if state.pips[state.active] >= 1 else []
            return sorted(pay + [ids.rally_roll])
        most = min(tables.MAX_RESERVED, state.pips[state.active])
        return sorted(ids.reserve[: most + 1])

    def why_illegal(self, state: ACWState, action: int) -> Illegality | None:
        ids = state.game.ids
        if action == ids.rally_pay:
            return Illegality(("ACW-PD-15", "ACW-PD-14"),
                              "no Staff Pip left to pay for an automatic rally")
        if action in ids.reserve:
            return Illegality(("ACW-PD-14",), f"at most {tables.MAX_RESERVED} reserved and no "
                                              f"more than the pips held")
        return None

    def apply(self, state: ACWState, action: int) -> Step:
        ids = state.game.ids
        side = state.active
        if self.step is CommandStep.RALLY:
            unit = state.unit_in(side, self.unit)
            if action == ids.rally_pay:
                state.pips[side] -= 1
                unit.disordered = False
                state.log("rally", ("ACW-PD-15", "ACW-PD-14"),
                          f"{unit.label()} rallies for 1 pip (Disorder removed)", side,
                          unit=unit.slot)
                self.next_slot = unit.slot + 1
                return None
            self.step = CommandStep.RALLY_ROLL
            return Push(RollDice(1, f"{unit.label()} Rally Check", ("ACW-PD-15",), side))
        reserved = ids.reserve.index(action)
        state.reserved[side] = reserved
        state.pips[side] -= reserved
        state.log("reserve", ("ACW-PD-14", "RULE-04-1.3"),
                  f"{SIDE_NAMES[side]} reserves {reserved} Staff Pip(s) for the enemy's next "
                  f"turn ({state.pips[side]} left)", side, reserved=reserved,
                  pips=state.pips[side])
        return Done()

    def on_child_done(self, state: ACWState, child: Frame) -> None:
        self.dice = rolled(child)

    def context(self, state: ACWState, viewer: int) -> ACWContext:
        side = state.active
        if self.step is CommandStep.RALLY:
            return ACWContext(self.kind, side, ACWDecision.COMMAND, (side, self.unit), None,
                              "rally")
        return ACWContext(self.kind, side, ACWDecision.COMMAND, None, None, "reserve")
