"""A fighter's game turn, the initiative track's activations, the round and the game
(AL-PD-10)."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from envs.core.activation import ActivationLoop, Activator, InitiativeTrack
from envs.core.frames import RollDice, rolled
from envs.core.procedure import Done, Frame, Push, Step, Wait, filled, register
from envs.core.protocol import Illegality

from ..actions import AP_COST, Decision
from ..legality import legal_turn_ids, why_not
from .action import ActionFrame
from .context import AlertContext, _ctx
from ..queries import legal_scope

if TYPE_CHECKING:
    from ..state import AlertState


class TurnStep(str, enum.Enum):
    """Where a :class:`Turn` is: its start, the keep-or-drop of AL-27, its actions, its end."""

    START = "start"
    MAINTAIN = "maintain"
    ACT = "act"
    END = "end"


class MatchStep(str, enum.Enum):
    """Where a round of the :class:`Match` is (AL-PD-10)."""

    INITIATIVE = "initiative"
    ACTIVATE = "activate"
    ACTIVATIONS = "activations"
    END = "end"


@register
@dataclass(slots=True)
class Turn(Frame):
    """One fighter's game turn (AL-PD-11, AL-PD-12): AP refilled; an alert fighter first keeps
    its alert for 1 AP (AL-27; ends the turn, Q6) or drops it; then actions until it passes,
    has no AP, goes on alert (AL-2) or is out of action."""

    kind = "alert.turn"
    fighter: int
    step: TurnStep = TurnStep.START

    def run(self, state: AlertState) -> Step:
        fighter = state.fighter(self.fighter)
        if self.step is TurnStep.START:
            state.turn_id += 1
            state.active = fighter.gid
            kept, fighter.kept = fighter.kept, False
            # round_start: the keep was paid from these AP
            fighter.ap = fighter.ap_max - (1 if kept else 0)
            fighter.grapnel = False
            fighter.activated = True
            state.log("turn", ("AL-PD-11",), f"{fighter.name} (team {fighter.team}, position "
                      f"{fighter.track_pos}) starts its turn with {fighter.ap} AP", fighter.team,
                      fighter=fighter.gid, position=fighter.track_pos, turn=state.turn_id)
            if state.game.maintain_timing == "round_start":
                self.step = TurnStep.ACT
                if kept and fighter.on_alert and state.game.maintain_ends_turn:
                    self.step = TurnStep.END  # Q6: the kept alert is the whole turn
                    state.log("alert_kept", ("AL-27",), f"{fighter.name} stays on alert: its turn "
                              f"ends", fighter.team, fighter=fighter.gid)
            else:
                self.step = TurnStep.MAINTAIN if fighter.on_alert else TurnStep.ACT
            return None
        if self.step is TurnStep.END or not fighter.in_play or state.decided():
            state.active = -1
            return Done()
        if self.step is TurnStep.MAINTAIN:
            return Wait(fighter.team, Decision.MAINTAIN)
        if fighter.ap <= 0:
            state.active = -1
            return Done()
        return Wait(fighter.team, Decision.ACTION)

    def legal_actions(self, state: AlertState) -> list[int]:
        game = state.game
        fighter = state.fighter(self.fighter)
        if self.step is TurnStep.MAINTAIN:
            return [game.keep_id, game.drop_id]
        with legal_scope(state):
            return legal_turn_ids(state, fighter)

    def why_illegal(self, state: AlertState, action: int) -> Illegality | None:
        game = state.game
        fighter = state.fighter(self.fighter)
        if self.step is TurnStep.MAINTAIN:
            return Illegality(("AL-27",), "at the start of its turn an alert fighter keeps "
                                          "(keep_alert) or drops (drop_alert) its alert")
        if action in game.turn_ids:
            return why_not(state, fighter, game.acts[action])
        return Illegality(("AL-PD-12",), f"{game.actions.labels[action]} is not an action of "
                                         f"{fighter.name}'s turn")

    def apply(self, state: AlertState, action: int) -> Push | None:
        game = state.game
        fighter = state.fighter(self.fighter)
        act = game.acts[action]
        label = game.actions.labels[action]
        if act.kind == "drop_alert":
            fighter.on_alert = False
            state.log("drop_alert", ("AL-27", "AL-PD-11"), f"{fighter.name} drops its alert",
                      fighter.team, fighter=fighter.gid)
            self.step = TurnStep.ACT
            return None
        cost = AP_COST[act.kind]
        fighter.ap -= cost
        target = state.enemy_gid(fighter.team, act.target) if act.target >= 0 else -1
        state.log("declare", ("AL-4", "AL-PD-15", "AL-PD-20"), f"{fighter.name} declares {label} "
                  f"({cost} AP, {fighter.ap} left)", fighter.team, fighter=fighter.gid,
                  action=label, ap=cost, target=target)
        if act.kind == "alert" or act.kind == "pass" or (act.kind == "keep_alert"
                                                         and game.maintain_ends_turn):
            self.step = TurnStep.END
        elif self.step is TurnStep.MAINTAIN:
            self.step = TurnStep.ACT
        return Push(ActionFrame(fighter.gid, action, fighter.x, fighter.y, fighter.knockdowns,
                                target))

    def context(self, state: AlertState, viewer: int) -> AlertContext:
        return _ctx(self.kind, state.fighter(self.fighter).team,
                    Decision.MAINTAIN if self.step is TurnStep.MAINTAIN else Decision.ACTION,
                    fighter=self.fighter, actor=self.fighter)


@register
@dataclass(slots=True)
class Activations(ActivationLoop):
    """The round's activations in track order (AL-PD-7) on the core's ``InitiativeTrack``."""

    kind = "alert.activations"

    def eligible(self, state: AlertState, who: Activator) -> bool:
        fighter = state.fighters[filled(who.unit, "the activated fighter")]
        return fighter is not None and fighter.in_play and not state.decided()

    def activation(self, state: AlertState, who: Activator) -> Frame:
        return Turn(filled(who.unit, "the activated fighter"))


@register
@dataclass(slots=True)
class Initiative(Frame):
    """AL-PD-6: every fighter in play rolls 2d6 + INI; positions 1..k by descending total,
    ties by higher INI, then the team with fewer fighters on the track, then roll-offs (a d6
    each, repeated while tied; after three tied roll-offs, the lower fighter id)."""

    kind = "alert.initiative"
    order: list[int] = field(default_factory=list)
    totals: list[int] = field(default_factory=list)
    rolloff: dict[int, list[int]] = field(default_factory=dict)
    pending: list[int] = field(default_factory=list)

    def run(self, state: AlertState) -> Step:
        live = [fighter.gid for fighter in state.live()]
        if not self.order:
            self.order = live
        if len(self.totals) < len(self.order):
            fighter = state.fighter(self.order[len(self.totals)])
            return Push(RollDice(2, f"{fighter.name}'s initiative", ("AL-PD-6",), fighter.team))
        groups = self._ties(state)
        if groups:
            self.pending = groups[0]
            return Push(RollDice(len(self.pending), "initiative roll-off", ("AL-PD-6",)))
        ranked = sorted(self.order, key=lambda fighter_id: self._key(state, fighter_id))
        for pos, gid in enumerate(ranked, 1):
            state.fighter(gid).track_pos = pos
        state.log("initiative", ("AL-PD-5", "AL-PD-6"), "initiative track: " + ", ".join(
            f"{place}. {state.fighter(ranked_gid).name}"
            for place, ranked_gid in enumerate(ranked, 1)), None,
            track=ranked, round=state.round)
        return Done()

    def _key(self, state: AlertState, gid: int) -> tuple:
        fighter = state.fighter(gid)
        on_track = sum(1 for other in self.order if state.fighter(other).team == fighter.team)
        total = self.totals[self.order.index(gid)]
        offs = self.rolloff.get(gid, [])
        # after three tied roll-offs (dice forced to one face) the lower fighter id goes first
        last = gid if len(offs) >= 3 else 0
        return (-total, -fighter.ini, on_track, tuple(-roll for roll in offs), last)

    def _ties(self, state: AlertState) -> list[list[int]]:
        seen: dict[tuple, list[int]] = {}
        for gid in self.order:
            seen.setdefault(self._key(state, gid), []).append(gid)
        return [group for group in seen.values() if len(group) > 1]

    def on_child_done(self, state: AlertState, child: Frame) -> None:
        if self.pending:
            for gid, roll in zip(self.pending, rolled(child)):
                self.rolloff.setdefault(gid, []).append(roll)
            self.pending = []
        else:
            fighter = state.fighter(self.order[len(self.totals)])
            self.totals.append(sum(rolled(child)) + fighter.ini)


@register
@dataclass(slots=True)
class RoundMaintain(Frame):
    """``maintain_timing = "round_start"`` (AL-27, research Q7): once the initiative track is
    placed, every fighter on alert, in track order, keeps its alert (``keep_alert``: 1 AP taken
    from the AP of its coming turn; no window, Q8) or drops it (``drop_alert``). An alert that
    is not kept ends here (AL-7)."""

    kind = "alert.round_maintain"
    pending: list[int] = field(default_factory=list)
    started: bool = False

    def run(self, state: AlertState) -> Step:
        if not self.started:
            self.started = True
            track = sorted(state.live(), key=lambda fighter: fighter.track_pos)
            self.pending = [fighter.gid for fighter in track if fighter.on_alert]
        while self.pending and not (state.fighter(self.pending[0]).in_play
                                    and state.fighter(self.pending[0]).on_alert):
            self.pending.pop(0)
        if not self.pending:
            return Done()
        return Wait(state.fighter(self.pending[0]).team, Decision.MAINTAIN)

    def legal_actions(self, state: AlertState) -> list[int]:
        return [state.game.keep_id, state.game.drop_id]

    def why_illegal(self, state: AlertState, action: int) -> Illegality | None:
        return Illegality(("AL-27",), "at the start of the round an alert fighter keeps "
                                      "(keep_alert) or drops (drop_alert) its alert")

    def apply(self, state: AlertState, action: int) -> None:
        fighter = state.fighter(self.pending.pop(0))
        if action == state.game.drop_id:
            fighter.on_alert = False
            state.log("drop_alert", ("AL-27", "AL-7"), f"{fighter.name} drops its alert at the "
                      f"start of the round", fighter.team, fighter=fighter.gid)
        else:
            fighter.kept = True
            state.log("declare", ("AL-27",), f"{fighter.name} declares keep_alert at the start of "
                      f"the round (1 AP of its coming turn)", fighter.team, fighter=fighter.gid,
                      action="keep_alert", ap=1, target=-1)
        return None

    def context(self, state: AlertState, viewer: int) -> AlertContext:
        fighter = state.fighter(self.pending[0])
        return _ctx(self.kind, fighter.team, Decision.MAINTAIN, fighter=fighter.gid, actor=-1)


@register
@dataclass(slots=True)
class Match(Frame):
    """The rounds (AL-PD-10): initiative, activations in track order, end of round (smoke
    clears); the game ends after the last round or when at most one team has fighters."""

    kind = "alert.match"
    step: MatchStep = MatchStep.INITIATIVE

    def run(self, state: AlertState) -> Step:
        if self.step is MatchStep.INITIATIVE:
            self.step = MatchStep.ACTIVATE
            for fighter in state.fighters:
                if fighter is not None:
                    fighter.track_pos = 0
                    fighter.activated = False
            return Push(Initiative())
        if self.step is MatchStep.ACTIVATE and state.game.maintain_timing == "round_start":
            self.step = MatchStep.ACTIVATIONS
            return Push(RoundMaintain())
        if self.step in (MatchStep.ACTIVATE, MatchStep.ACTIVATIONS):
            self.step = MatchStep.END
            entries = [[fighter.team, fighter.gid, 1000 - fighter.track_pos]
                       for fighter in state.live()]
            return Push(Activations(InitiativeTrack(entries, state.game.num_players)))
        state.smoke = []
        state.log("round_end", ("AL-PD-10",), f"round {state.round} ends; VP "
                  f"{state.scores()}", None, round=state.round, scores=state.scores())
        if state.round >= state.game.rounds or state.decided():
            return Done()
        state.round += 1
        self.step = MatchStep.INITIATIVE
        return None
