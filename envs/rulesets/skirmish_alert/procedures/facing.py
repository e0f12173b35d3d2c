"""The mover's free facing at the end of a Move or a Disengage (AL-PD-15; the same after a
reaction's move, AL-16(c), and after a new destination for a blocked move, AL-PD-20,
AL-PD-35)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from envs.core.procedure import Done, Frame, Step, Wait, register
from envs.core.protocol import Illegality

from ..actions import Decision
from ..params import DIRECTIONS
from .context import AlertContext, _ctx

if TYPE_CHECKING:
    from ..state import AlertState


@register
@dataclass(slots=True)
class Facing(Frame):
    """The fighter that just moved sets its facing (``face:D``, any of the eight, its
    current one included). ``trigger``: the label of the move or disengage."""

    kind = "alert.facing"
    fighter: int
    trigger: str = ""
    chosen: bool = False

    def run(self, state: AlertState) -> Step:
        if self.chosen:
            return Done()
        return Wait(state.fighter(self.fighter).team, Decision.FACING)

    def legal_actions(self, state: AlertState) -> list[int]:
        return list(state.game.face_ids)

    def why_illegal(self, state: AlertState, action: int) -> Illegality | None:
        return Illegality(("AL-PD-15",), "after its move the fighter sets its facing "
                                         "(face:D)")

    def apply(self, state: AlertState, action: int) -> None:
        fighter = state.fighter(self.fighter)
        fighter.facing = state.game.acts[action].direction
        self.chosen = True
        state.log("facing", ("AL-PD-15",), f"{fighter.name} faces {DIRECTIONS[fighter.facing]}",
                  fighter.team, fighter=fighter.gid, facing=fighter.facing)
        return None

    def context(self, state: AlertState, viewer: int) -> AlertContext:
        return _ctx(self.kind, state.fighter(self.fighter).team, Decision.FACING,
                    trigger=self.trigger, fighter=self.fighter, actor=state.active)
