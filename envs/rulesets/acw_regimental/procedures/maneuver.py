"""Phase 2, Active Maneuver & Assault (ACW-PD-12, ACW-PD-21): the active side activates its units
one at a time, or ends the phase."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from envs.core.procedure import Done, Frame, Push, Step, Wait, register
from envs.core.protocol import Illegality

from ..actions import ACWDecision
from .activation import Activation
from .context import SIDE_NAMES

if TYPE_CHECKING:
    from ..state import ACWState

__all__ = ["ManeuverPhase"]


@register
@dataclass(slots=True)
class ManeuverPhase(Frame["ACWState"]):
    """Phase 2 of the active side: activate units one at a time, or end the phase
    (ACW-PD-12). Each activation runs in an :class:`.activation.Activation` pushed on top of
    this one."""

    kind = "acw.maneuver_phase"
    auto_apply_forced = True

    def run(self, state: ACWState) -> Step:
        return Wait(state.active, ACWDecision.MANEUVER)

    def legal_actions(self, state: ACWState) -> list[int]:
        ids = state.game.ids
        out = [ids.activate[unit.slot] for unit in state.alive(state.active)
               if not unit.activated and not unit.engaged]
        out.append(ids.end_phase)
        return sorted(out)

    def why_illegal(self, state: ACWState, action: int) -> Illegality | None:
        ids = state.game.ids
        if action in ids.activate:
            slot = ids.activate.index(action)
            unit = state.units[state.active][slot]
            if unit is None or not unit.alive:
                return Illegality(("ACW-PD-12",), f"no unit of yours in slot {slot}")
            if unit.activated:
                return Illegality(("ACW-PD-12",),
                                  f"{unit.label()} has already been activated this phase")
            if unit.engaged:
                return Illegality(("ACW-PD-23",), f"{unit.label()} is engaged until Phase 4")
        return None

    def apply(self, state: ACWState, action: int) -> Step:
        ids = state.game.ids
        side = state.active
        if action == ids.end_phase:
            state.log("end_phase", ("ACW-PD-12",), f"{SIDE_NAMES[side]} ends Phase 2", side)
            return Done()
        slot = ids.activate.index(action)
        unit = state.unit_in(side, slot)
        unit.activated = True
        state.reacted = []
        state.spent_triggers = []
        road = (unit.formation in ("road_column", "limbered") or unit.is_screen) and \
            state.game.terrain.on_road(unit.fp.centre())
        state.log("activate", ("ACW-PD-12",), f"{unit.label()} is activated", side, unit=slot)
        return Push(Activation(slot, on_road=bool(road)))

    def context(self, state: ACWState, viewer: int) -> None:
        return None
