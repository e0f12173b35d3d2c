"""After a reaction: pay 1 AP to stay on alert, or not (AL-19, AL-20)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from envs.core.procedure import Frame, register
from envs.core.protocol import Illegality
from envs.core.reactions import Cost, Reaction, ReactionWindow

from ..actions import REARM_DECLINE_LABEL, REARM_LABEL, Decision
from ..procedures.context import AlertContext, _ctx

if TYPE_CHECKING:
    from ..state import AlertState


class Rearm(Reaction):
    """``rearm``: pay 1 AP to stay on alert after the reaction (AL-19, AL-20)."""

    label = REARM_LABEL
    rules = ("AL-19", "AL-20")

    def why_not(self, state: AlertState, window: ReactionWindow) -> Illegality | None:
        return None

    def cost(self, state: AlertState, window: ReactionWindow) -> Cost:
        return Cost(f"ap:{window.subject}", 1, ("AL-19", "AL-20"))

    def resolve(self, state: AlertState, window: ReactionWindow) -> tuple[Frame, ...]:
        fighter = state.fighter(window.subject)
        fighter.on_alert = True
        state.log("rearm", self.rules, f"{fighter.name} pays 1 AP to stay on alert "
                  f"({fighter.ap} left)", fighter.team, fighter=fighter.gid, ap=fighter.ap)
        return ()


@register
@dataclass(slots=True)
class RearmWindow(ReactionWindow):
    """After a reaction: ``rearm`` (1 AP) or ``rearm:decline`` (AL-19)."""

    kind = "alert.rearm_window"
    decision = Decision.REARM
    decline_label = REARM_DECLINE_LABEL
    reactions = {REARM_LABEL: Rearm()}

    def on_open(self, state: AlertState) -> None:
        pass

    def on_decline(self, state: AlertState) -> None:
        pass

    def context(self, state: AlertState, viewer: int) -> AlertContext:
        return _ctx(self.kind, self.side, self.decision, trigger=self.trigger,
                    fighter=self.subject, offered=tuple(self.offered))
