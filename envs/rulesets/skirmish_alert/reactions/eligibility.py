"""Who may attempt a reaction in an alert window (AL-PD-32 E1..E5: AL-3, AL-7, AL-9, AL-21,
AL-PD-29)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from envs.core.protocol import Illegality

from ..board import in_front
from ..queries import los

if TYPE_CHECKING:
    from ..state import AlertState


class Declaration(Protocol):
    """What eligibility reads of a window: the acting fighter and the square it declared
    from."""

    subject: int
    decl_x: int
    decl_y: int


def why_not_eligible(state: AlertState, gid: int, window: Declaration) -> Illegality | None:
    """Why fighter ``gid`` may not attempt a reaction in the window of ``window.subject``'s
    declaration made from ``(window.decl_x, window.decl_y)`` (``None``: it may), AL-PD-32:
    in play, an opponent of the actor, on alert (AL-3, AL-7), standing (AL-PD-29), no attempt
    yet in this game turn (AL-21), the declaration in its front arc (AL-9, AL-PD-18) and, with
    ``reaction_requires_los``, in its sight."""
    reactor = state.fighters[gid]
    if reactor is None or not reactor.in_play:
        return Illegality(("AL-PD-32",), f"fighter {gid} is not in play")
    actor = state.fighter(window.subject)
    if reactor.team == actor.team:
        return Illegality(("AL-PD-32",), f"{reactor.name} is on the acting fighter's team")
    if not reactor.on_alert:
        return Illegality(("AL-3", "AL-7"), f"{reactor.name} is not on alert")
    if reactor.knocked_down:
        return Illegality(("AL-PD-29",), f"{reactor.name} is knocked down")
    if reactor.attempted_turn == state.turn_id:
        return Illegality(("AL-21",), f"{reactor.name} has already attempted a reaction during "
                                      f"{actor.name}'s turn")
    declared_at = (window.decl_x, window.decl_y)
    if not in_front(reactor.facing, reactor.pos, declared_at):
        return Illegality(("AL-9", "AL-PD-18"), f"{actor.name} acts behind {reactor.name}'s "
                                                f"back")
    if state.game.reaction_requires_los and not los(state, reactor.pos, declared_at):
        return Illegality(("AL-PD-32",), f"{reactor.name} cannot see {actor.name}")
    return None
