"""A charge whose target moved in the window but is still within reach: the charger picks its
square next to the target again (Q1, AL-18, AL-PD-20)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from envs.core.procedure import Done, Frame, Step, Wait, register
from envs.core.protocol import Illegality

from ..actions import Decision
from ..board import direction_towards
from .context import AlertContext, _ctx
from .resolution import Attack
from ..effects import move_to
from ..queries import charge_square

if TYPE_CHECKING:
    from ..state import AlertState


@register
@dataclass(slots=True)
class ChargeSquare(Frame):
    """After the window of ``trigger`` (a ``charge:e{j}:D``), the square chosen on
    declaration is no longer next to the target, which is still within reach (AL-18: the
    attack is lost only out of reach): the charger chooses among ``options``, the
    ``charge:e{j}:D`` labels of the free squares next to the target it can reach now, then
    strikes at +1 (AL-PD-21). Decision type ``action`` (the active fighter, in its own turn);
    free, the AP was paid on declaration."""

    kind = "alert.charge_square"
    fighter: int
    target: int
    trigger: str
    options: tuple[str, ...]
    chosen: str = ""

    def run(self, state: AlertState) -> Step:
        if self.chosen:
            return Done(Attack(self.fighter, self.target, False, True))
        return Wait(state.fighter(self.fighter).team, Decision.ACTION)

    def legal_actions(self, state: AlertState) -> list[int]:
        return sorted(state.game.actions.id(label) for label in self.options)

    def why_illegal(self, state: AlertState, action: int) -> Illegality | None:
        return Illegality(("AL-PD-20", "AL-PD-15"), f"the charge of {self.trigger} ends on a "
                          f"free square next to its target that the charger can reach now")

    def apply(self, state: AlertState, action: int) -> None:
        fighter, target = state.fighter(self.fighter), state.fighter(self.target)
        self.chosen = state.game.actions.labels[action]
        dest = charge_square(state, target, state.game.acts[action].direction)
        move_to(fighter, dest[0], dest[1], direction_towards(dest, target.pos))
        state.log("charge_move", ("AL-PD-15", "AL-PD-20"), f"{fighter.name} charges into contact "
                  f"with {target.name} at ({fighter.x}, {fighter.y})", fighter.team,
                  fighter=fighter.gid, target=target.gid, to=[fighter.x, fighter.y], attack=True)
        return None

    def context(self, state: AlertState, viewer: int) -> AlertContext:
        return _ctx(self.kind, state.fighter(self.fighter).team, Decision.ACTION,
                    trigger=self.trigger, fighter=self.fighter, actor=self.fighter,
                    target=self.target, offered=self.options)
