"""The alert window (AL-4): a team's attempt, the aptitude test, the reactor's one action and
the re-arm (AL-5, AL-8, AL-13, AL-15..AL-19, AL-22, AL-23)."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from envs.core.errors import InvalidStateError
from envs.core.frames import RollDice
from envs.core.procedure import Done, Frame, Push, Step, register
from envs.core.protocol import Illegality
from envs.core.reactions import Cost, Reaction, ReactionWindow

from ..actions import (DECLINE_LABEL, REACT_NONE_LABEL, REARM_DECLINE_LABEL, REARM_LABEL,
                       Act, Decision, attempt_label)
from ..board import in_front
from ..legality import legal_react_ids, why_not
from .context import AlertContext, _ctx, catalogue_reactions
from .resolution import effect

if TYPE_CHECKING:
    from ..state import AlertState, Fighter


class AttemptReaction(Reaction):
    """``alert:attempt:f{i}``: own fighter slot ``i`` attempts the aptitude test (AL-5)."""

    rules = ("AL-5", "AL-21", "AL-22", "AL-23")

    def __init__(self, slot: int):
        self.slot = slot
        self.label = attempt_label(slot)

    def why_not(self, state: AlertState, window: ReactionWindow) -> Illegality | None:
        gid = window.side * state.game.F + self.slot
        return state_eligibility(state, gid, window)

    def resolve(self, state: AlertState, window: ReactionWindow) -> tuple[Frame, ...]:
        if not isinstance(window, AttemptWindow):
            raise InvalidStateError(f"an attempt is resolved in {window.kind!r}, not an attempt "
                                    f"window")
        gid = window.side * state.game.F + self.slot
        r, actor = state.fighter(gid), state.fighter(window.subject)
        r.attempted_turn = state.turn_id  # AL-21: spent even if the test fails
        d = state.difficulty(r, actor)
        state.log("attempt", ("AL-5", "AL-8", "AL-10", "AL-21"), f"{r.name} (position "
                  f"{r.track_pos}) attempts to react to {actor.name} (position "
                  f"{actor.track_pos}): difficulty {d}", r.team, fighter=gid, actor=actor.gid,
                  difficulty=d, reactor_pos=r.track_pos, actor_pos=actor.track_pos)
        return (AptitudeTest(gid, actor.gid, d, window.trigger, window.trigger_target),)


def state_eligibility(state: AlertState, gid: int, window: Any) -> Illegality | None:
    """AL-PD-32 E1..E5 (AL-3, AL-7, AL-9, AL-21, AL-PD-29) for fighter ``gid`` in the window
    of ``window.subject``'s declaration made from ``window.decl_x, window.decl_y``."""
    r = state.fighters[gid]
    if r is None or not r.in_play:
        return Illegality(("AL-PD-32",), f"fighter {gid} is not in play")
    a = state.fighter(window.subject)
    if r.team == a.team:
        return Illegality(("AL-PD-32",), f"{r.name} is on the acting fighter's team")
    if not r.on_alert:
        return Illegality(("AL-3", "AL-7"), f"{r.name} is not on alert")
    if r.knocked_down:
        return Illegality(("AL-PD-29",), f"{r.name} is knocked down")
    if r.attempted_turn == state.turn_id:
        return Illegality(("AL-21",), f"{r.name} has already attempted a reaction during "
                                      f"{a.name}'s turn")
    decl = (window.decl_x, window.decl_y)
    if not in_front(r.facing, r.pos, decl):
        return Illegality(("AL-9", "AL-PD-18"), f"{a.name} acts behind {r.name}'s back")
    if state.game.reaction_requires_los and not state.los(r.pos, decl):
        return Illegality(("AL-PD-32",), f"{r.name} cannot see {a.name}")
    return None


_ATTEMPTS = {attempt_label(i): AttemptReaction(i) for i in range(6)}


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
        F = state.game.F
        cands = tuple(self.side * F + int(lab.rsplit("f", 1)[1]) for lab in self.allowed)
        a = state.fighter(self.subject)
        d = state.difficulty(state.fighter(cands[0]), a) if cands else 0
        return _ctx(self.kind, self.side, self.decision, trigger=self.trigger, actor=self.subject,
                    target=self.trigger_target, difficulty=d, candidates=cands,
                    offered=tuple(self.offered), slot=self.slot, slots_left=self.slots_left)


@register
@dataclass(slots=True)
class AlertWindow(Frame):
    """The one window a declared action opens (AL-4), slot by slot (AL-PD-33): the track
    positions of the fighters eligible when it opens, ascending (AL-23); each slot is used by
    the team that owns it, which sends any of its eligible fighters it likes (AL-22).
    Eligibility is checked again at every slot (Q10). Stops when the actor is out of action
    (AL-PD-34)."""

    kind = "alert.window"
    subject: int
    trigger: str
    decl_x: int
    decl_y: int
    trigger_target: int = -1
    slots: list[list[int]] = field(default_factory=list)
    index: int = 0
    opened: bool = False

    def _eligible(self, state: AlertState, gid: int) -> bool:
        return state_eligibility(state, gid, self) is None

    def run(self, state: AlertState) -> Step:
        if not self.opened:
            self.opened = True
            a = state.fighter(self.subject)
            barred: list[dict[str, Any]] = []
            el, rules = [], ["AL-4", "AL-23"]
            for f in state.live():
                why = state_eligibility(state, f.gid, self)
                if why is None:
                    el.append(f)
                elif f.on_alert and f.team != a.team:  # on alert, but not eligible: why
                    barred.append({"fighter": f.gid, "rules": list(why.rules),
                                   "reason": why.reason})
                    rules += [r for r in why.rules if r not in rules]
            el.sort(key=lambda f: f.track_pos)
            self.slots = [[f.track_pos, f.team] for f in el]
            text = f"{a.name} declares {self.trigger}: {len(el)} fighter(s) on alert may react"
            if barred:
                text += "; not eligible: " + "; ".join(b["reason"] for b in barred)
            state.log("window_opened", tuple(rules), text, a.team, actor=self.subject,
                      trigger=self.trigger, eligible=[f.gid for f in el],
                      slots=[list(s) for s in self.slots], ineligible=barred)
        while self.index < len(self.slots):
            if not state.fighter(self.subject).in_play:
                return Done()
            team = self.slots[self.index][1]
            self.index += 1
            F = state.game.F
            offered = tuple(attempt_label(i) for i in range(F)
                            if self._eligible(state, team * F + i))
            if offered:
                left = sum(1 for _, owner in self.slots[self.index - 1:] if owner == team)
                return Push(AttemptWindow(team, self.trigger, self.subject, offered,
                                          decl_x=self.decl_x, decl_y=self.decl_y,
                                          trigger_target=self.trigger_target, slot=self.index,
                                          slots_left=left))
        return Done()


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

    def run(self, state: AlertState) -> Step:
        r = state.fighter(self.reactor)
        if self.step is AptitudeStep.ROLL:
            if not self.values:
                return Push(RollDice(2, f"{r.name}'s aptitude test", ("AL-5", "AL-PD-1"),
                                     r.team))
            roll = sum(self.values)
            total = roll + r.ref
            ok = total >= self.difficulty
            if state.game.natural_extremes and roll in (2, 12):
                ok = roll == 12
            state.log("aptitude_test", ("AL-5", "AL-13", "AL-PD-2"), f"{r.name} tests {roll} + "
                      f"{r.ref} = {total} vs {self.difficulty}: "
                      f"{'success' if ok else 'failure'}", r.team, fighter=r.gid, roll=roll,
                      total=total, difficulty=self.difficulty, success=ok)
            if not ok:
                r.on_alert = False  # AL-13
                state.log("alert_lost", ("AL-13",), f"{r.name} loses its alert", r.team,
                          fighter=r.gid)
                if state.game.rearm_after_failure and r.ap >= 1:
                    self.step = AptitudeStep.DONE
                    return Push(RearmWindow(r.team, self.trigger, r.gid, (REARM_LABEL,)))
                return Done()
            self.step = AptitudeStep.REACT
            return Push(ReactWindow(r.team, self.trigger, r.gid, react_menu(state, r),
                                    actor=self.actor, trigger_target=self.trigger_target))
        if self.step is AptitudeStep.REACT:
            self.step = AptitudeStep.DONE
            if r.in_play and r.on_alert:
                r.on_alert = False  # AL-19: the reaction ends the alert ...
                state.log("alert_ends", ("AL-19",), f"{r.name}'s alert ends with its reaction",
                          r.team, fighter=r.gid)
            if r.in_play and not r.knocked_down and r.ap >= 1:  # ... unless it re-arms
                return Push(RearmWindow(r.team, self.trigger, r.gid, (REARM_LABEL,)))
        return Done()

    def on_child_done(self, state: AlertState, child: Frame) -> None:
        if isinstance(child, RollDice):
            self.values = list(child.values)


class MenuReaction(Reaction):
    """One action of the reaction menu (AL-15, AL-16), e.g. ``react:shoot:e2``; free unless
    ``reaction_action_costs_ap`` (Q4). Need not concern the trigger (AL-17)."""

    rules = ("AL-15", "AL-16", "AL-17")

    def __init__(self, label: str, act: Act):
        self.label = label
        self.act = act

    def why_not(self, state: AlertState, window: ReactionWindow) -> Illegality | None:
        return why_not(state, state.fighter(window.subject), self.act)

    def cost(self, state: AlertState, window: ReactionWindow) -> Cost:
        if state.game.reaction_action_costs_ap:
            return Cost(f"ap:{window.subject}", 1, ("AL-PD-14", "AL-20"))
        return Cost("", 0)

    def resolve(self, state: AlertState, window: ReactionWindow) -> tuple[Frame, ...]:
        f = state.fighter(window.subject)
        state.log("reaction", self.rules, f"{f.name} reacts: {self.label}", f.team,
                  fighter=f.gid, action=self.label)
        return effect(state, f, self.act, self.rules)


def react_menu(state: AlertState, r: Fighter) -> tuple[str, ...]:
    """The labels of ``r``'s reaction menu that are allowed now (AL-16 / AL-PD-35: melee only
    against an engaged enemy, move only when not engaged and disengage only when engaged,
    shooting and equipment only when not engaged)."""
    g = state.game
    with state.legal_scope():
        return tuple(g.actions.labels[i] for i in legal_react_ids(state, r))


@register
@dataclass(slots=True)
class ReactWindow(ReactionWindow):
    """A successful reactor's one action (AL-15); ``react:none`` declines after succeeding
    (alert is still consumed, AL-PD-35)."""

    kind = "alert.react_window"
    decision = Decision.REACT
    decline_label = REACT_NONE_LABEL
    actor: int = -1
    trigger_target: int = -1

    def on_open(self, state: AlertState) -> None:
        pass

    def on_decline(self, state: AlertState) -> None:
        f = state.fighter(self.subject)
        state.log("reaction", ("AL-15", "AL-PD-35"), f"{f.name} takes no action", f.team,
                  fighter=f.gid, action="react:none")

    def context(self, state: AlertState, viewer: int) -> AlertContext:
        return _ctx(self.kind, self.side, self.decision, trigger=self.trigger,
                    fighter=self.subject, actor=self.actor, target=self.trigger_target,
                    offered=tuple(self.offered))


class Rearm(Reaction):
    """``rearm``: pay 1 AP to stay on alert after the reaction (AL-19, AL-20)."""

    label = REARM_LABEL
    rules = ("AL-19", "AL-20")

    def why_not(self, state: AlertState, window: ReactionWindow) -> Illegality | None:
        return None

    def cost(self, state: AlertState, window: ReactionWindow) -> Cost:
        return Cost(f"ap:{window.subject}", 1, ("AL-19", "AL-20"))

    def resolve(self, state: AlertState, window: ReactionWindow) -> tuple[Frame, ...]:
        f = state.fighter(window.subject)
        f.on_alert = True
        state.log("rearm", self.rules, f"{f.name} pays 1 AP to stay on alert ({f.ap} left)",
                  f.team, fighter=f.gid, ap=f.ap)
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


ReactWindow.reactions = catalogue_reactions(MenuReaction,
                                            lambda a: a.react and a.kind != "none")
