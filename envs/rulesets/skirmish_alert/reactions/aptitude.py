"""The aptitude test of an attempted reaction (AL-5, AL-13, AL-PD-2) and its difficulty (AL-8,
AL-10, AL-11, AL-12, AL-PD-8, research Q2)."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from envs.core.frames import RollDice
from envs.core.procedure import Done, Frame, Push, Step, register

from ..actions import REARM_LABEL
from .menu import ReactWindow, react_menu
from .rearm import RearmWindow

if TYPE_CHECKING:
    from ..state import AlertState, Fighter


def difficulty(mode: str, track_size: int, actor_pos: int, reactor_pos: int) -> int:
    """The reaction test's difficulty (AL-8, AL-10, AL-11, AL-12, AL-PD-8, research Q2).

    ``"absolute"``: ``12 - 2 * ((min(actor_pos, track_size) - 1) // 2)``, the reactor's own
    position plays no part. ``"relative"``: ``10 + 2 * sign(reactor_pos - actor_pos)`` when the
    two positions are 3 or more apart, else 10."""
    if mode == "absolute":
        return 12 - 2 * ((min(max(actor_pos, 1), track_size) - 1) // 2)
    gap = reactor_pos - actor_pos
    return 10 + 2 * ((gap > 0) - (gap < 0)) if abs(gap) >= 3 else 10


def reaction_difficulty(state: AlertState, reactor: Fighter, actor: Fighter) -> int:
    """The difficulty of ``reactor``'s test against ``actor`` with the game's
    ``difficulty_mode`` and ``track_size`` (AL-8, AL-10; AL-11: position 1 gives 12; AL-12:
    position 6 gives 8; see :func:`difficulty`)."""
    return difficulty(state.game.difficulty_mode, state.game.track_size, actor.track_pos,
                      reactor.track_pos)


class AptitudeStep(str, enum.Enum):
    """Where an :class:`AptitudeTest` is: the roll, the reaction, done."""

    ROLL = "roll"
    REACT = "react"
    DONE = "done"


@register
@dataclass(slots=True)
class AptitudeTest(Frame):
    """AL-5, AL-13, AL-PD-2: 2d6 + REF (+ modifiers, capped) against ``difficulty``. Failure:
    alert is lost (AL-13; no re-arm unless ``rearm_after_failure``, Q5). Success: the actor's
    turn is paused while the reactor takes one action (AL-14, AL-15), then alert ends unless
    it re-arms for 1 AP (AL-19)."""

    kind = "alert.aptitude_test"
    reactor: int
    actor: int
    difficulty: int
    trigger: str
    trigger_target: int = -1
    values: list[int] = field(default_factory=list)
    step: AptitudeStep = AptitudeStep.ROLL

    def _roll(self, state: AlertState, reactor: Fighter) -> Step:
        """The test (AL-5, AL-13): roll, then the reaction menu on a success."""
        if not self.values:
            return Push(RollDice(2, f"{reactor.name}'s aptitude test", ("AL-5", "AL-PD-1"),
                                 reactor.team))
        roll = sum(self.values)
        total = roll + reactor.ref
        success = total >= self.difficulty
        if state.game.natural_extremes and roll in (2, 12):
            success = roll == 12
        state.log("aptitude_test", ("AL-5", "AL-13", "AL-PD-2"), f"{reactor.name} tests "
                  f"{roll} + {reactor.ref} = {total} vs {self.difficulty}: "
                  f"{'success' if success else 'failure'}", reactor.team, fighter=reactor.gid,
                  roll=roll, total=total, difficulty=self.difficulty, success=success)
        if not success:
            reactor.on_alert = False  # AL-13
            state.log("alert_lost", ("AL-13",), f"{reactor.name} loses its alert",
                      reactor.team, fighter=reactor.gid)
            if state.game.rearm_after_failure and reactor.ap >= 1:
                self.step = AptitudeStep.DONE
                return Push(RearmWindow(reactor.team, self.trigger, reactor.gid,
                                        (REARM_LABEL,)))
            return Done()
        self.step = AptitudeStep.REACT
        return Push(ReactWindow(reactor.team, self.trigger, reactor.gid,
                                react_menu(state, reactor), actor=self.actor,
                                trigger_target=self.trigger_target))

    def run(self, state: AlertState) -> Step:
        reactor = state.fighter(self.reactor)
        if self.step is AptitudeStep.ROLL:
            return self._roll(state, reactor)
        if self.step is AptitudeStep.REACT:
            self.step = AptitudeStep.DONE
            if reactor.in_play and reactor.on_alert:
                reactor.on_alert = False  # AL-19: the reaction ends the alert ...
                state.log("alert_ends", ("AL-19",), f"{reactor.name}'s alert ends with its "
                          f"reaction", reactor.team, fighter=reactor.gid)
            if reactor.in_play and not reactor.knocked_down and reactor.ap >= 1:  # ... unless
                return Push(RearmWindow(reactor.team, self.trigger, reactor.gid,  # it re-arms
                                        (REARM_LABEL,)))
        return Done()

    def on_child_done(self, state: AlertState, child: Frame) -> None:
        if isinstance(child, RollDice):
            self.values = list(child.values)
