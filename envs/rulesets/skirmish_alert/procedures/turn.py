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
        f = state.fighter(self.fighter)
        if self.step is TurnStep.START:
            state.turn_id += 1
            state.active = f.gid
            kept, f.kept = f.kept, False
            f.ap = f.ap_max - (1 if kept else 0)  # round_start: the keep was paid from these
            f.grapnel = False
            f.activated = True
            state.log("turn", ("AL-PD-11",), f"{f.name} (team {f.team}, position "
                      f"{f.track_pos}) starts its turn with {f.ap} AP", f.team, fighter=f.gid,
                      position=f.track_pos, turn=state.turn_id)
            if state.game.maintain_timing == "round_start":
                self.step = TurnStep.ACT
                if kept and f.on_alert and state.game.maintain_ends_turn:
                    self.step = TurnStep.END  # Q6: the kept alert is the whole turn
                    state.log("alert_kept", ("AL-27",), f"{f.name} stays on alert: its turn "
                              f"ends", f.team, fighter=f.gid)
            else:
                self.step = TurnStep.MAINTAIN if f.on_alert else TurnStep.ACT
            return None
        if self.step is TurnStep.END or not f.in_play or state.decided():
            state.active = -1
            return Done()
        if self.step is TurnStep.MAINTAIN:
            return Wait(f.team, Decision.MAINTAIN)
        if f.ap <= 0:
            state.active = -1
            return Done()
        return Wait(f.team, Decision.ACTION)

    def legal_actions(self, state: AlertState) -> list[int]:
        g = state.game
        f = state.fighter(self.fighter)
        if self.step is TurnStep.MAINTAIN:
            return [g.keep_id, g.drop_id]
        with legal_scope(state):
            return legal_turn_ids(state, f)

    def why_illegal(self, state: AlertState, action: int) -> Illegality | None:
        g = state.game
        f = state.fighter(self.fighter)
        if self.step is TurnStep.MAINTAIN:
            return Illegality(("AL-27",), "at the start of its turn an alert fighter keeps "
                                          "(keep_alert) or drops (drop_alert) its alert")
        if action in g.turn_ids:
            return why_not(state, f, g.acts[action])
        return Illegality(("AL-PD-12",), f"{g.actions.labels[action]} is not an action of "
                                         f"{f.name}'s turn")

    def apply(self, state: AlertState, action: int) -> Push | None:
        g = state.game
        f = state.fighter(self.fighter)
        a = g.acts[action]
        label = g.actions.labels[action]
        if a.kind == "drop_alert":
            f.on_alert = False
            state.log("drop_alert", ("AL-27", "AL-PD-11"), f"{f.name} drops its alert", f.team,
                      fighter=f.gid)
            self.step = TurnStep.ACT
            return None
        cost = AP_COST[a.kind]
        f.ap -= cost
        target = state.enemy_gid(f.team, a.target) if a.target >= 0 else -1
        state.log("declare", ("AL-4", "AL-PD-15", "AL-PD-20"), f"{f.name} declares {label} "
                  f"({cost} AP, {f.ap} left)", f.team, fighter=f.gid, action=label, ap=cost,
                  target=target)
        if a.kind == "alert" or a.kind == "pass" or (a.kind == "keep_alert"
                                                     and g.maintain_ends_turn):
            self.step = TurnStep.END
        elif self.step is TurnStep.MAINTAIN:
            self.step = TurnStep.ACT
        return Push(ActionFrame(f.gid, action, f.x, f.y, f.knockdowns, target))

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
        f = state.fighters[filled(who.unit, "the activated fighter")]
        return f is not None and f.in_play and not state.decided()

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
        live = [f.gid for f in state.live()]
        if not self.order:
            self.order = live
        if len(self.totals) < len(self.order):
            f = state.fighter(self.order[len(self.totals)])
            return Push(RollDice(2, f"{f.name}'s initiative", ("AL-PD-6",), f.team))
        groups = self._ties(state)
        if groups:
            self.pending = groups[0]
            return Push(RollDice(len(self.pending), "initiative roll-off", ("AL-PD-6",)))
        ranked = sorted(self.order, key=lambda g: self._key(state, g))
        for pos, gid in enumerate(ranked, 1):
            state.fighter(gid).track_pos = pos
        state.log("initiative", ("AL-PD-5", "AL-PD-6"), "initiative track: " + ", ".join(
            f"{p}. {state.fighter(g).name}" for p, g in enumerate(ranked, 1)), None,
            track=ranked, round=state.round)
        return Done()

    def _key(self, state: AlertState, gid: int) -> tuple:
        f = state.fighter(gid)
        on_track = sum(1 for g in self.order if state.fighter(g).team == f.team)
        total = self.totals[self.order.index(gid)]
        offs = self.rolloff.get(gid, [])
        # after three tied roll-offs (dice forced to one face) the lower fighter id goes first
        last = gid if len(offs) >= 3 else 0
        return (-total, -f.ini, on_track, tuple(-v for v in offs), last)

    def _ties(self, state: AlertState) -> list[list[int]]:
        seen: dict[tuple, list[int]] = {}
        for gid in self.order:
            seen.setdefault(self._key(state, gid), []).append(gid)
        return [g for g in seen.values() if len(g) > 1]

    def on_child_done(self, state: AlertState, child: Frame) -> None:
        if self.pending:
            for gid, v in zip(self.pending, rolled(child)):
                self.rolloff.setdefault(gid, []).append(v)
            self.pending = []
        else:
            f = state.fighter(self.order[len(self.totals)])
            self.totals.append(sum(rolled(child)) + f.ini)


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
            self.pending = [f.gid for f in sorted(state.live(), key=lambda f: f.track_pos)
                            if f.on_alert]
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
        f = state.fighter(self.pending.pop(0))
        if action == state.game.drop_id:
            f.on_alert = False
            state.log("drop_alert", ("AL-27", "AL-7"), f"{f.name} drops its alert at the "
                      f"start of the round", f.team, fighter=f.gid)
        else:
            f.kept = True
            state.log("declare", ("AL-27",), f"{f.name} declares keep_alert at the start of "
                      f"the round (1 AP of its coming turn)", f.team, fighter=f.gid,
                      action="keep_alert", ap=1, target=-1)
        return None

    def context(self, state: AlertState, viewer: int) -> AlertContext:
        f = state.fighter(self.pending[0])
        return _ctx(self.kind, f.team, Decision.MAINTAIN, fighter=f.gid, actor=-1)


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
            for f in state.fighters:
                if f is not None:
                    f.track_pos = 0
                    f.activated = False
            return Push(Initiative())
        if self.step is MatchStep.ACTIVATE and state.game.maintain_timing == "round_start":
            self.step = MatchStep.ACTIVATIONS
            return Push(RoundMaintain())
        if self.step in (MatchStep.ACTIVATE, MatchStep.ACTIVATIONS):
            self.step = MatchStep.END
            entries = [[f.team, f.gid, 1000 - f.track_pos] for f in state.live()]
            return Push(Activations(InitiativeTrack(entries, state.game.num_players)))
        state.smoke = []
        state.log("round_end", ("AL-PD-10",), f"round {state.round} ends; VP "
                  f"{state.scores()}", None, round=state.round, scores=state.scores())
        if state.round >= state.game.rounds or state.decided():
            return Done()
        state.round += 1
        self.step = MatchStep.INITIATIVE
        return None
