"""Phase 3, Ranged Combat (ACW-PD-25b): each own unit that may fire chooses a target or holds its
fire."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from envs.core.geometry import footprint_distance
from envs.core.procedure import Done, Frame, Push, Step, Wait, filled, register
from envs.core.protocol import Illegality

from .. import tables
from ..actions import ACWDecision
from ..units import WEAPON_BY_VALUE
from .context import ACWContext
from .volley import FireMode, Volley
from .. import queries

if TYPE_CHECKING:
    from ..state import ACWState

__all__ = ["RangedCombatPhase"]


@register
@dataclass(slots=True)
class RangedCombatPhase(Frame["ACWState"]):
    """Phase 3 of the active side: each own unit, in slot order, that may fire and has a
    target chooses one or holds its fire (ACW-PD-25b). ``next_slot``: the first slot not yet
    asked; ``unit``/``targets``: the unit asked and its targets' enemy slots."""

    kind = "acw.ranged_combat_phase"
    next_slot: int = 0
    unit: int | None = None
    targets: list[int] | None = None

    def run(self, state: ACWState) -> Step:
        side = state.active
        for unit in state.units[side][self.next_slot:]:
            if unit is None or not unit.alive:
                continue
            if queries.can_fire_p3(state, unit) is None:
                targets = queries.fire_targets(state, unit)
                if targets:
                    self.unit = unit.slot
                    self.targets = [e.slot for e in targets]
                    return Wait(side, ACWDecision.FIRE)
        return Done()

    def legal_actions(self, state: ACWState) -> list[int]:
        ids = state.game.ids
        return sorted([ids.fire[k] for k in filled(self.targets, "the targets")] + [ids.hold_fire])

    def why_illegal(self, state: ACWState, action: int) -> Illegality | None:
        ids = state.game.ids
        if action not in ids.fire:
            return None
        unit = state.unit_in(state.active, filled(self.unit, "the firing unit"))
        enemy = state.units[1 - state.active][ids.fire.index(action)]
        if enemy is None or not enemy.alive:
            return Illegality(("ACW-PD-25b",), "no enemy unit in that slot")
        if enemy.engaged:
            return Illegality(("ACW-PD-25b", "ACW-PD-17"), "units in contact may not be fired at")
        if tables.range_band(WEAPON_BY_VALUE[unit.weapon],
                             footprint_distance(unit.fp, enemy.fp)) is None:
            return Illegality(("ACW-PD-25",), "out of range")
        if queries.firing_stands(state, unit, enemy.fp, 1) == 0:
            return Illegality(("ACW-PD-25b", "ACW-PD-16"), "not in the arc of any firing stand")
        return Illegality(("ACW-PD-17",), "no line of sight")

    def apply(self, state: ACWState, action: int) -> Step:
        ids = state.game.ids
        side = state.active
        unit = state.unit_in(side, filled(self.unit, "the firing unit"))
        self.next_slot = unit.slot + 1
        if action == ids.hold_fire:
            state.log("hold_fire", ("ACW-PD-25b", "ACW-PD-32"), f"{unit.label()} holds its fire",
                      side, unit=unit.slot)
            return None
        target = ids.fire.index(action)
        return Push(Volley(side, unit.slot, target, FireMode.PHASE3))

    def context(self, state: ACWState, viewer: int) -> ACWContext | None:
        if self.unit is None:
            return None
        side = state.active
        return ACWContext(self.kind, side, ACWDecision.FIRE, (side, self.unit), None, "fire")
