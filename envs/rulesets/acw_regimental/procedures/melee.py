"""Phase 4, Melee (ACW-PD-26): one Opposed Melee Roll per enemy unit in contact."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any

from envs.core.frames import RollDice
from envs.core.procedure import Done, Frame, Push, Step, register

__all__ = ["MeleePhase", "MeleeStep"]


class MeleeStep(str, enum.Enum):
    BUILD = "build"  #: list the defenders in contact and their attackers
    NEXT = "next"  #: roll the next melee still in contact
    RESOLVE = "resolve"  #: the Opposed Melee Roll is back


@register
@dataclass(slots=True)
class MeleePhase(Frame):
    """Phase 4: one Opposed Melee Roll per enemy unit in contact, in slot order (ACW-PD-26).
    ``melees``: ``[defender slot, [attacker slots]]`` rows; ``index``: the melee being fought;
    ``dice``: the (attacker, defender) roll."""

    kind = "acw.melee_phase"
    step: MeleeStep = MeleeStep.BUILD
    melees: list[list] | None = None
    index: int = 0
    dice: list[int] | None = None

    def run(self, state: Any) -> Step:
        side = state.active
        step = self.step
        if step is MeleeStep.BUILD:
            melees = []
            for defender in state.units[1 - side]:
                if defender is not None and defender.alive and defender.engaged:
                    melees.append([defender.slot, sorted(defender.engaged)])
            self.melees, self.index, self.step = melees, 0, MeleeStep.NEXT
            if not melees:
                state.log("no_melee", ("ACW-PD-26",), "no contacts: no melee", side)
            return None
        if step is MeleeStep.NEXT:
            own = state.units[side]
            while self.index < len(self.melees):
                defender_slot, attackers = self.melees[self.index]
                defender = state.units[1 - side][defender_slot]
                attackers = [k for k in attackers if own[k] is not None and own[k].alive
                             and defender_slot in own[k].engaged]
                if defender is None or not defender.alive or not attackers:
                    self.index += 1
                    continue
                self.melees[self.index][1] = attackers
                self.step = MeleeStep.RESOLVE
                return Push(RollDice(2, "Opposed Melee Roll (attacker, defender)",
                                     ("ACW-PD-26",), None))
            for units in state.units:  # clear any leftover contacts
                for unit in units:
                    if unit is not None:
                        unit.engaged = []
            return Done()
        defender_slot, attackers = self.melees[self.index]
        state._resolve_melee(defender_slot, attackers, self.dice)
        self.index += 1
        self.step = MeleeStep.NEXT
        return None

    def on_child_done(self, state: Any, child: Frame) -> None:
        if isinstance(child, RollDice):
            self.dice = child.values
