"""A team's slot of an alert window: which of its alert fighters attempts the aptitude test,
or decline (AL-5, AL-21, AL-22, AL-23)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from envs.core.errors import InvalidStateError
from envs.core.procedure import Frame, register
from envs.core.protocol import Illegality
from envs.core.reactions import Reaction, ReactionWindow

from ..actions import DECLINE_LABEL, Decision, attempt_label
from ..procedures.context import AlertContext, _ctx
from .aptitude import AptitudeTest, reaction_difficulty
from .eligibility import why_not_eligible

if TYPE_CHECKING:
    from ..state import AlertState


class AttemptReaction(Reaction):
    """``alert:attempt:f{i}``: own fighter slot ``i`` attempts the aptitude test (AL-5); the
    attempt is spent even if the test fails (AL-21)."""

    rules = ("AL-5", "AL-21", "AL-22", "AL-23")

    def __init__(self, slot: int):
        self.slot = slot
        self.label = attempt_label(slot)

    def why_not(self, state: AlertState, window: ReactionWindow) -> Illegality | None:
        gid = window.side * state.game.fighters_per_team + self.slot
        return why_not_eligible(state, gid, _attempt_window(window))

    def resolve(self, state: AlertState, window: ReactionWindow) -> tuple[Frame, ...]:
        window = _attempt_window(window)
        gid = window.side * state.game.fighters_per_team + self.slot
        reactor, actor = state.fighter(gid), state.fighter(window.subject)
        reactor.attempted_turn = state.turn_id  # AL-21: spent even if the test fails
        difficulty = reaction_difficulty(state, reactor, actor)
        state.log("attempt", ("AL-5", "AL-8", "AL-10", "AL-21"), f"{reactor.name} (position "
                  f"{reactor.track_pos}) attempts to react to {actor.name} (position "
                  f"{actor.track_pos}): difficulty {difficulty}", reactor.team, fighter=gid,
                  actor=actor.gid, difficulty=difficulty, reactor_pos=reactor.track_pos,
                  actor_pos=actor.track_pos)
        return (AptitudeTest(gid, actor.gid, difficulty, window.trigger,
                             window.trigger_target),)


def _attempt_window(window: ReactionWindow) -> AttemptWindow:
    """``window`` as the :class:`AttemptWindow` an attempt is offered in.

    Raises:
        InvalidStateError: for any other window.
    """
    if not isinstance(window, AttemptWindow):
        raise InvalidStateError(f"an attempt is resolved in {window.kind!r}, not an attempt "
                                f"window")
    return window


#: one attempt per own fighter slot (6: the most fighters a team may have)
_ATTEMPTS = {attempt_label(slot): AttemptReaction(slot) for slot in range(6)}


@register
@dataclass(slots=True)
class AttemptWindow(ReactionWindow):
    """One team's slot of an alert window (AL-22, AL-23): which of its alert fighters
    attempts (``alert:attempt:f{i}``), or ``alert:decline`` (the slot is not used)."""

    kind = "alert.attempt_window"
    decision = Decision.REACTION
    decline_label = DECLINE_LABEL
    reactions = _ATTEMPTS
    decl_x: int = 0
    decl_y: int = 0
    trigger_target: int = -1
    slot: int = 0  #: this slot's place in the window (1 = first)
    slots_left: int = 0  #: the window's slots this team still owns, this one included

    def on_open(self, state: AlertState) -> None:
        pass  # the AlertWindow logs the window once

    def on_decline(self, state: AlertState) -> None:
        state.log("declined", ("AL-22",), f"team {self.side} does not use its slot against "
                  f"{self.trigger}", self.side, actor=self.subject)

    def context(self, state: AlertState, viewer: int) -> AlertContext:
        per_team = state.game.fighters_per_team
        candidates = tuple(self.side * per_team + int(label.rsplit("f", 1)[1])
                           for label in self.allowed)
        actor = state.fighter(self.subject)
        difficulty = (reaction_difficulty(state, state.fighter(candidates[0]), actor)
                      if candidates else 0)
        return _ctx(self.kind, self.side, self.decision, trigger=self.trigger, actor=self.subject,
                    target=self.trigger_target, difficulty=difficulty, candidates=candidates,
                    offered=tuple(self.offered), slot=self.slot, slots_left=self.slots_left)
