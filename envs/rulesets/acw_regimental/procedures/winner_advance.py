"""The winner's advance after a melee (ACW-PD-26): a charger that won may advance up to 2"
straight ahead into the ground given up, or hold."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from envs.core.geometry import first_crossing
from envs.core.procedure import Done, Frame, Step, Wait, register

from .. import tables
from ..actions import ACWDecision
from .context import ACWContext
from .. import blocking, effects

if TYPE_CHECKING:
    from ..state import ACWState

__all__ = ["WinnerAdvance"]


@register
@dataclass(slots=True)
class WinnerAdvance(Frame["ACWState"]):
    """Ask the active side whether its winning charger ``unit`` advances into the ground the
    loser ``enemy`` (an enemy slot) gave up. ``inches``: how far it can go, up to
    ``tables.WINNER_ADVANCE``, stopping 0.02" short of anything in the way; the question is
    skipped when that is under 0.05"."""

    kind = "acw.winner_advance"
    unit: int
    enemy: int
    inches: float = 0.0

    def run(self, state: ACWState) -> Step:
        unit = state.units[state.active][self.unit]
        if unit is None or not unit.alive:
            return Done()
        start = unit.fp
        blocked = blocking.blocked_fn(state, unit, start)
        stop = first_crossing(lambda x: blocked(start.advanced(x)), tables.WINNER_ADVANCE,
                              0.25, 0.01)
        inches = tables.WINNER_ADVANCE if stop is None else max(0.0, stop - 0.02)
        if inches < 0.05:
            return Done()
        self.inches = inches
        return Wait(state.active, ACWDecision.MANEUVER)

    def legal_actions(self, state: ACWState) -> list[int]:
        ids = state.game.ids
        return sorted([ids.melee_advance, ids.melee_hold])

    def apply(self, state: ACWState, action: int) -> Done:
        unit = state.unit_in(state.active, self.unit)
        if action == state.game.ids.melee_advance:
            effects.place(unit, unit.fp.advanced(self.inches))
            state.log("melee_advance", ("ACW-PD-26",), f"{unit.label()} advances "
                      f"{self.inches:.2f}\" into the ground given up", unit.side, unit=unit.slot,
                      dist=round(self.inches, 3), x=round(unit.fp.x, 3), y=round(unit.fp.y, 3))
        else:
            state.log("melee_hold", ("ACW-PD-26",), f"{unit.label()} holds its ground after the "
                      f"melee", unit.side, unit=unit.slot)
        return Done()

    def context(self, state: ACWState, viewer: int) -> ACWContext:
        side = state.active
        return ACWContext(self.kind, side, ACWDecision.MANEUVER, (side, self.unit),
                          (1 - side, self.enemy), "melee_advance")
