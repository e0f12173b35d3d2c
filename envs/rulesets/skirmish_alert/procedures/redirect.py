"""A blocked movement: after the alert window the actor may pick another destination
(AL-25, AL-PD-20)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from envs.core.procedure import Frame, register
from envs.core.protocol import Illegality
from envs.core.reactions import Reaction, ReactionWindow

from ..actions import PASS_LABEL, Act, Decision
from ..legality import why_not
from .context import AlertContext, _ctx, catalogue_reactions
from .facing import Facing
from ..effects import move_to_square

if TYPE_CHECKING:
    from ..state import AlertState


class RedirectMove(Reaction):
    """``move:+dx:+dy`` (or ``disengage:+dx:+dy``) offered again after a window, when the
    declared destination of the actor's Move (or of its Charge whose attack was lost) can no
    longer be reached: any legal destination within its MOV (AL-25, AL-PD-20). Free: the AP
    was paid on declaration."""

    rules = ("AL-25", "AL-PD-20", "AL-PD-35")

    def __init__(self, label: str, act: Act):
        self.label = label
        self.act = act

    def why_not(self, state: AlertState, window: ReactionWindow) -> Illegality | None:
        return why_not(state, state.fighter(window.subject), self.act, paid=True)

    def resolve(self, state: AlertState, window: ReactionWindow) -> tuple[Frame, ...]:
        fighter = state.fighter(window.subject)
        move_to_square(state, fighter, (fighter.x + self.act.dx, fighter.y + self.act.dy),
                       self.rules)
        return (Facing(fighter.gid, self.label),)


@register
@dataclass(slots=True)
class RedirectWindow(ReactionWindow):
    """The actor's choice of another destination (AL-25, AL-PD-20, AL-PD-35): after the window
    of its Move (``trigger``: the declared ``move:+dx:+dy``), of its Disengage, or of its
    Charge whose attack was lost (``charge:e{j}:D``), the declared destination can no longer
    be reached. The legal actions are the own-turn ``move:+dx:+dy`` labels (after a
    Disengage: ``disengage:+dx:+dy``) that are legal now (AP not asked again; a facing
    decision follows, AL-PD-15) and ``pass``,
    which here keeps the square the actor stands on and does not end its turn (AL-24: the
    turn then goes on). The decision type is ``action`` (the active fighter decides in its
    own turn; the context's ``trigger`` names the blocked action), so the action space and
    the observation keep their size. Not asked when no move is legal (the actor stays)."""

    kind = "alert.redirect"
    decision = Decision.ACTION
    decline_label = PASS_LABEL
    skip_when_only_decline = True

    def on_open(self, state: AlertState) -> None:
        fighter = state.fighter(self.subject)
        state.log("move_blocked", ("AL-25", "AL-PD-20"), f"{fighter.name} cannot reach the "
                  f"destination of {self.trigger}: it may pick another within its MOV",
                  fighter.team, fighter=fighter.gid, action=self.trigger,
                  options=list(self.allowed))

    def _stays(self, state: AlertState, asked: bool) -> None:
        fighter = state.fighter(self.subject)
        state.log("move_stopped", ("AL-25", "AL-PD-20"), f"{fighter.name} stays at "
                  f"({fighter.x}, {fighter.y})", fighter.team, fighter=fighter.gid,
                  action=self.trigger, at=[fighter.x, fighter.y], asked=asked)

    def on_skip(self, state: AlertState) -> None:
        self._stays(state, False)

    def on_decline(self, state: AlertState) -> None:
        self._stays(state, True)

    def context(self, state: AlertState, viewer: int) -> AlertContext:
        return _ctx(self.kind, self.side, self.decision, trigger=self.trigger,
                    fighter=self.subject, actor=self.subject, offered=tuple(self.allowed))


RedirectWindow.reactions = catalogue_reactions(
    RedirectMove, lambda act: not act.react and act.kind in ("move", "disengage"))
#: the own-turn move labels a RedirectWindow offers after a blocked Move (AL-25, AL-PD-20)
MOVE_LABELS = tuple(lab for lab in RedirectWindow.reactions if lab.startswith("move:"))
#: ... and after a blocked Disengage
DISENGAGE_LABELS = tuple(lab for lab in RedirectWindow.reactions
                         if lab.startswith("disengage:"))
