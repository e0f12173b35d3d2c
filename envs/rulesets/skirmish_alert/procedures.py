"""The frames of the skirmish alert game (on :mod:`envs.core.procedure`).

Stack, bottom to top, in the middle of a reaction::

    Match                 rounds (AL-PD-10)
      Activations         the initiative track's order (envs.core.activation.InitiativeTrack)
        Turn              one fighter's game turn: AP refilled, keep/drop alert, actions
          ActionFrame     one declared action: (movement first,) alert window, then effect
            AlertWindow   AL-4: the window of this declaration, slot by slot (AL-22, AL-23)
              AttemptWindow   a team's slot: which alert fighter attempts, or decline
              AptitudeTest    2d6 + REF vs the difficulty (AL-5, AL-8, AL-13)
                ReactWindow   the reactor's one action from the menu (AL-15..AL-17)
                RearmWindow   pay 1 AP to stay on alert (AL-19)
          RedirectWindow  after the window, the declared destination of a Move (or of a
                          Charge whose attack was lost) can no longer be reached: the actor
                          may pick another (AL-25, AL-PD-20)
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from envs.core.activation import ActivationLoop, Activator, InitiativeTrack
from envs.core.frames import RollDice
from envs.core.procedure import Done, Frame, Push, Step, Wait, register
from envs.core.protocol import Illegality
from envs.core.reactions import Cost, Reaction, ReactionContext, ReactionWindow

from .actions import AP_COST, Act, Decision
from .board import chebyshev, direction_towards, in_front
from .params import DIRECTIONS, MELEE_WEAPONS, RANGED_WEAPONS


@dataclass(frozen=True, slots=True)
class AlertContext(ReactionContext):
    """What any side may see of the waiting decision: ``fighter`` — the fighter who decides
    (global id; -1 when a team chooses among several), ``actor`` — the fighter whose turn it
    is, ``trigger_target`` — the target of the declared action (-1 when none),
    ``difficulty`` — the test's difficulty for the asked team (0 when no test), ``candidates``
    — the fighters the team may send (global ids)."""

    fighter: int = -1
    actor: int = -1
    trigger_target: int = -1
    difficulty: int = 0
    candidates: tuple[int, ...] = ()


def _ctx(frame: str, player: int, decision: str, *, trigger: str = "", fighter: int = -1,
         actor: int = -1, target: int = -1, difficulty: int = 0,
         candidates: tuple[int, ...] = (), offered: tuple[str, ...] = ()) -> AlertContext:
    return AlertContext(frame, player, decision, trigger, fighter, offered, fighter, actor,
                        target, difficulty, candidates)


# ---------------------------------------------------------------------------------------------
# dice-based resolutions
# ---------------------------------------------------------------------------------------------
@register
@dataclass(slots=True)
class Attack(Frame):
    """A melee blow or a shot (AL-PD-21 to AL-PD-25): 2d6 + MEL/SHO + modifiers against
    ``attack_base`` + the target's DEF (+ modifiers); damage ``max(1, dmg - ARM)``; knockdown
    on a margin of ``knockdown_margin`` or, in melee, an ``impact`` weapon."""

    kind = "alert.attack"
    attacker: int
    target: int
    ranged: bool
    charge: bool = False
    values: list[int] = field(default_factory=list)

    def run(self, state: Any) -> Step:
        a, t = state.fighters[self.attacker], state.fighters[self.target]
        if not self.values:
            return Push(RollDice(2, f"{a.name} {'shoots at' if self.ranged else 'strikes'} "
                                    f"{t.name}", ("AL-PD-1",), a.team))
        g = state.game
        bonus, tn = 0, g.attack_base + t.defence + (1 if "shield" in t.items else 0)
        rules = ["AL-PD-24" if self.ranged else "AL-PD-21"]
        if not in_front(t.facing, t.pos, a.pos):
            bonus += 1
        if self.ranged:
            if any(p in g.blocking for p in _cover_squares(state, a, t)):
                tn += 1
            if chebyshev(a.pos, t.pos) * 2 > RANGED_WEAPONS[a.ranged_weapon].range:
                tn += 1
        else:
            if self.charge:
                bonus += 1
            if t.knocked_down:
                bonus += 2
                rules.append("AL-PD-27")
        bonus = min(bonus, g.modifier_cap)
        roll = sum(self.values)
        total = roll + (a.sho if self.ranged else a.mel) + bonus
        hit = total >= tn
        state.log("attack", tuple(rules), f"{a.name} {'shot' if self.ranged else 'blow'} at "
                  f"{t.name}: {roll} + {total - roll} = {total} vs {tn}: "
                  f"{'hit' if hit else 'miss'}", a.team, attacker=a.gid, target=t.gid,
                  roll=roll, total=total, needed=tn, hit=hit, ranged=self.ranged,
                  charge=self.charge)
        if hit:
            if self.ranged:
                dmg, impact = RANGED_WEAPONS[a.ranged_weapon].dmg, False
            else:
                w = MELEE_WEAPONS[a.melee_weapon]
                dmg, impact = w.dmg, w.impact
            state.wound(t, max(1, dmg - t.arm), ("AL-PD-22",))
            if t.in_play and (total - tn >= g.knockdown_margin or impact):
                state.knock_down(t, ("AL-PD-23",))
        return Done()

    def on_child_done(self, state: Any, child: Frame) -> None:
        self.values = list(child.values)


def _cover_squares(state: Any, a: Any, t: Any) -> list[tuple[int, int]]:
    """AL-PD-24: squares on the line of sight that are adjacent to the target."""
    from .board import bresenham

    return [p for p in bresenham(a.pos, t.pos) if chebyshev(p, t.pos) == 1]


@register
@dataclass(slots=True)
class TechTest(Frame):
    """Repair or sabotage (AL-PD-30): 2d6 + TEC against the machine's difficulty; on a
    failure the AP is spent and nothing happens."""

    kind = "alert.tech_test"
    fighter: int
    element: int
    repair: bool
    values: list[int] = field(default_factory=list)

    def run(self, state: Any) -> Step:
        f = state.fighters[self.fighter]
        what = "repairs" if self.repair else "sabotages"
        if not self.values:
            return Push(RollDice(2, f"{f.name} {what} x{self.element}", ("AL-PD-30",), f.team))
        e = state.elements[self.element]
        roll = sum(self.values)
        ok = roll + f.tec >= e["difficulty"]
        if ok:
            e["state"] = "working" if self.repair else "broken"
            e["broken_by"] = None if self.repair else f.team
        state.log("tech_test", ("AL-PD-30",), f"{f.name} {what} x{self.element}: {roll} + "
                  f"{f.tec} vs {e['difficulty']}: {'success' if ok else 'failure'}", f.team,
                  fighter=f.gid, element=self.element, roll=roll, needed=e["difficulty"],
                  success=ok)
        return Done()

    def on_child_done(self, state: Any, child: Frame) -> None:
        self.values = list(child.values)


def effect(state: Any, f: Any, a: Act, rules: tuple[str, ...]) -> tuple[Frame, ...]:
    """Carry out action ``a`` of fighter ``f`` now (movement, pivot, elements, equipment,
    attacks); returns the frames that roll its dice. Used by a resumed own-turn action and by
    a reaction alike."""
    k = a.kind
    if k in ("move", "disengage"):
        state.move_line(f, a.direction, a.distance, rules)
        return ()
    if k in ("melee", "shoot"):
        t = state.fighters[state.enemy_gid(f.team, a.target)]
        return (Attack(f.gid, t.gid, k == "shoot"),)
    if k == "pivot":
        f.facing = a.direction
        state.log("pivot", rules, f"{f.name} turns to face {DIRECTIONS[a.direction]}", f.team,
                  fighter=f.gid, facing=a.direction)
        return ()
    if k == "stand_up":
        f.knocked_down = False
        state.log("stand_up", rules, f"{f.name} stands up", f.team, fighter=f.gid)
        return ()
    if k == "activate":
        e = state.elements[a.element]
        if e["kind"] == "objective":
            e["held_by"] = f.team
            what = "claims the objective"
        else:
            e["state"] = {"open": "closed", "closed": "open", "on": "off",
                          "off": "on"}[e["state"]]
            what = f"sets the {e['kind']} {e['state']}"
            if e["kind"] == "lever" and e["controls"] is not None:
                door = state.elements[e["controls"]]
                door["state"] = "open" if door["state"] == "closed" else "closed"
                what += f" (door x{e['controls']} {door['state']})"
        state.log("activate", rules + ("AL-PD-30",), f"{f.name} {what} x{a.element}", f.team,
                  fighter=f.gid, element=a.element)
        return ()
    if k in ("repair", "sabotage"):
        return (TechTest(f.gid, a.element, k == "repair"),)
    if k == "use":
        f.items[a.item] -= 1
        if a.item == "draught":
            f.wounds = min(f.w_max, f.wounds + 2)
        elif a.item == "smoke":
            for dx in (-1, 0, 1):
                for dy in (-1, 0, 1):
                    p = (f.x + dx, f.y + dy)
                    if state.on_board(*p) and p not in state.smoke:
                        state.smoke.append(p)
        elif a.item == "grapnel":
            f.grapnel = True
        state.log("use", rules + ("AL-PD-31",), f"{f.name} uses a {a.item}", f.team,
                  fighter=f.gid, item=a.item)
        return ()
    return ()


# ---------------------------------------------------------------------------------------------
# the alert window
# ---------------------------------------------------------------------------------------------
class AttemptReaction(Reaction):
    """``alert:attempt:f{i}``: own fighter slot ``i`` attempts the aptitude test (AL-5)."""

    rules = ("AL-5", "AL-21", "AL-22", "AL-23")

    def __init__(self, slot: int):
        self.slot = slot
        self.label = f"alert:attempt:f{slot}"

    def why_not(self, state: Any, window: ReactionWindow) -> Illegality | None:
        gid = window.side * state.game.F + self.slot
        return state_eligibility(state, gid, window)

    def resolve(self, state: Any, window: ReactionWindow) -> tuple[Frame, ...]:
        gid = window.side * state.game.F + self.slot
        r, actor = state.fighters[gid], state.fighters[window.subject]
        r.attempted_turn = state.turn_id  # AL-21: spent even if the test fails
        d = state.difficulty(r, actor)
        state.log("attempt", ("AL-5", "AL-8", "AL-10", "AL-21"), f"{r.name} (position "
                  f"{r.track_pos}) attempts to react to {actor.name} (position "
                  f"{actor.track_pos}): difficulty {d}", r.team, fighter=gid, actor=actor.gid,
                  difficulty=d, reactor_pos=r.track_pos, actor_pos=actor.track_pos)
        return (AptitudeTest(gid, actor.gid, d, window.trigger, window.trigger_target),)


def state_eligibility(state: Any, gid: int, window: Any) -> Illegality | None:
    """AL-PD-32 E1..E5 (AL-3, AL-7, AL-9, AL-21, AL-PD-29) for fighter ``gid`` in the window
    of ``window.subject``'s declaration made from ``window.decl_x, window.decl_y``."""
    r = state.fighters[gid]
    if r is None or not r.in_play:
        return Illegality(("AL-PD-32",), f"fighter {gid} is not in play")
    a = state.fighters[window.subject]
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


_ATTEMPTS = {f"alert:attempt:f{i}": AttemptReaction(i) for i in range(6)}


@register
@dataclass(slots=True)
class AttemptWindow(ReactionWindow):
    """One team's slot of an alert window (AL-22, AL-23): which of its alert fighters
    attempts (``alert:attempt:f{i}``), or ``alert:decline`` (the slot is not used)."""

    kind = "alert.attempt_window"
    decision = Decision.REACTION
    decline_label = "alert:decline"
    reactions = _ATTEMPTS
    decl_x: int = 0
    decl_y: int = 0
    trigger_target: int = -1

    def on_open(self, state: Any) -> None:
        pass  # the AlertWindow logs the window once

    def on_decline(self, state: Any) -> None:
        state.log("declined", ("AL-22",), f"team {self.side} does not use its slot against "
                  f"{self.trigger}", self.side, actor=self.subject)

    def context(self, state: Any, viewer: int) -> AlertContext:
        F = state.game.F
        cands = tuple(self.side * F + int(lab.rsplit("f", 1)[1]) for lab in self.allowed)
        a = state.fighters[self.subject]
        d = state.difficulty(state.fighters[cands[0]], a) if cands else 0
        return _ctx(self.kind, self.side, self.decision, trigger=self.trigger, actor=self.subject,
                    target=self.trigger_target, difficulty=d, candidates=cands,
                    offered=tuple(self.offered))


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

    def _eligible(self, state: Any, gid: int) -> bool:
        return state_eligibility(state, gid, self) is None

    def run(self, state: Any) -> Step:
        if not self.opened:
            self.opened = True
            el = [f for f in state.live() if self._eligible(state, f.gid)]
            el.sort(key=lambda f: f.track_pos)
            self.slots = [[f.track_pos, f.team] for f in el]
            a = state.fighters[self.subject]
            state.log("window_opened", ("AL-4", "AL-23"), f"{a.name} declares {self.trigger}: "
                      f"{len(el)} fighter(s) on alert may react", a.team, actor=self.subject,
                      trigger=self.trigger, eligible=[f.gid for f in el],
                      slots=[list(s) for s in self.slots])
        while self.index < len(self.slots):
            if not state.fighters[self.subject].in_play:
                return Done()
            team = self.slots[self.index][1]
            self.index += 1
            F = state.game.F
            offered = tuple(f"alert:attempt:f{i}" for i in range(F)
                            if self._eligible(state, team * F + i))
            if offered:
                return Push(AttemptWindow(team, self.trigger, self.subject, offered,
                                          decl_x=self.decl_x, decl_y=self.decl_y,
                                          trigger_target=self.trigger_target))
        return Done()


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
    step: str = "roll"

    def run(self, state: Any) -> Step:
        r = state.fighters[self.reactor]
        if self.step == "roll":
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
                    self.step = "done"
                    return Push(RearmWindow(r.team, self.trigger, r.gid, ("rearm",)))
                return Done()
            self.step = "react"
            return Push(ReactWindow(r.team, self.trigger, r.gid, react_menu(state, r),
                                    actor=self.actor, trigger_target=self.trigger_target))
        if self.step == "react":
            self.step = "done"
            if r.in_play and r.on_alert:
                r.on_alert = False  # AL-19: the reaction ends the alert ...
                state.log("alert_ends", ("AL-19",), f"{r.name}'s alert ends with its reaction",
                          r.team, fighter=r.gid)
            if r.in_play and not r.knocked_down and r.ap >= 1:  # ... unless it re-arms
                return Push(RearmWindow(r.team, self.trigger, r.gid, ("rearm",)))
        return Done()

    def on_child_done(self, state: Any, child: Frame) -> None:
        if isinstance(child, RollDice):
            self.values = list(child.values)


class MenuReaction(Reaction):
    """One action of the reaction menu (AL-15, AL-16), e.g. ``react:shoot:e2``; free unless
    ``reaction_action_costs_ap`` (Q4). Need not concern the trigger (AL-17)."""

    rules = ("AL-15", "AL-16", "AL-17")

    def __init__(self, label: str, act: Act):
        self.label = label
        self.act = act

    def why_not(self, state: Any, window: ReactionWindow) -> Illegality | None:
        return state.why_not(state.fighters[window.subject], self.act)

    def cost(self, state: Any, window: ReactionWindow) -> Cost:
        if state.game.reaction_action_costs_ap:
            return Cost(f"ap:{window.subject}", 1, ("AL-PD-14", "AL-20"))
        return Cost("", 0)

    def resolve(self, state: Any, window: ReactionWindow) -> tuple[Frame, ...]:
        f = state.fighters[window.subject]
        state.log("reaction", self.rules, f"{f.name} reacts: {self.label}", f.team,
                  fighter=f.gid, action=self.label)
        return effect(state, f, self.act, self.rules)


def react_menu(state: Any, r: Any) -> tuple[str, ...]:
    """The labels of ``r``'s reaction menu that are allowed now (AL-16 / AL-PD-35: melee only
    against an engaged enemy, move only when not engaged and disengage only when engaged,
    shooting and equipment only when not engaged)."""
    g = state.game
    with state.legal_scope():
        return tuple(g.actions.labels[i] for i in g.react_ids
                     if state.why_not(r, g.acts[i]) is None)


@register
@dataclass(slots=True)
class ReactWindow(ReactionWindow):
    """A successful reactor's one action (AL-15); ``react:none`` declines after succeeding
    (alert is still consumed, AL-PD-35)."""

    kind = "alert.react_window"
    decision = Decision.REACT
    decline_label = "react:none"
    actor: int = -1
    trigger_target: int = -1

    def on_open(self, state: Any) -> None:
        pass

    def on_decline(self, state: Any) -> None:
        f = state.fighters[self.subject]
        state.log("reaction", ("AL-15", "AL-PD-35"), f"{f.name} takes no action", f.team,
                  fighter=f.gid, action="react:none")

    def context(self, state: Any, viewer: int) -> AlertContext:
        return _ctx(self.kind, self.side, self.decision, trigger=self.trigger,
                    fighter=self.subject, actor=self.actor, target=self.trigger_target,
                    offered=tuple(self.offered))


class Rearm(Reaction):
    """``rearm``: pay 1 AP to stay on alert after the reaction (AL-19, AL-20)."""

    label = "rearm"
    rules = ("AL-19", "AL-20")

    def why_not(self, state: Any, window: ReactionWindow) -> Illegality | None:
        return None

    def cost(self, state: Any, window: ReactionWindow) -> Cost:
        return Cost(f"ap:{window.subject}", 1, ("AL-19", "AL-20"))

    def resolve(self, state: Any, window: ReactionWindow) -> tuple[Frame, ...]:
        f = state.fighters[window.subject]
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
    decline_label = "rearm:decline"
    reactions = {"rearm": Rearm()}

    def on_open(self, state: Any) -> None:
        pass

    def on_decline(self, state: Any) -> None:
        pass

    def context(self, state: Any, viewer: int) -> AlertContext:
        return _ctx(self.kind, self.side, self.decision, trigger=self.trigger,
                    fighter=self.subject, offered=tuple(self.offered))


# ---------------------------------------------------------------------------------------------
# a blocked movement: another destination (AL-25, AL-PD-20)
# ---------------------------------------------------------------------------------------------
class RedirectMove(Reaction):
    """``move:D:k`` offered again after a window, when the declared destination of the
    actor's Move (or of its Charge whose attack was lost) can no longer be reached: any legal
    destination within its MOV (AL-25, AL-PD-20). Free: the AP was paid on declaration."""

    rules = ("AL-25", "AL-PD-20")

    def __init__(self, label: str, act: Act):
        self.label = label
        self.act = act

    def why_not(self, state: Any, window: ReactionWindow) -> Illegality | None:
        return state.why_not(state.fighters[window.subject], self.act, paid=True)

    def resolve(self, state: Any, window: ReactionWindow) -> tuple[Frame, ...]:
        f = state.fighters[window.subject]
        state.move_line(f, self.act.direction, self.act.distance, self.rules)
        return ()


@register
@dataclass(slots=True)
class RedirectWindow(ReactionWindow):
    """The actor's choice of another destination (AL-25, AL-PD-20): after the window of its
    Move (``trigger``: the declared ``move:D:k``) or of its Charge whose attack was lost
    (``charge:e{j}``), the declared destination can no longer be reached. The legal actions
    are the own-turn ``move:D:k`` labels that are legal now (AP not asked again) and ``pass``,
    which here keeps the square the actor stands on and does not end its turn (AL-24: the
    turn then goes on). The decision type is ``action`` (the active fighter decides in its
    own turn; the context's ``trigger`` names the blocked action), so the action space and
    the observation keep their size. Not asked when no move is legal (the actor stays)."""

    kind = "alert.redirect"
    decision = Decision.ACTION
    decline_label = "pass"
    skip_when_only_decline = True

    def on_open(self, state: Any) -> None:
        f = state.fighters[self.subject]
        state.log("move_blocked", ("AL-25", "AL-PD-20"), f"{f.name} cannot reach the "
                  f"destination of {self.trigger}: it may pick another within its MOV",
                  f.team, fighter=f.gid, action=self.trigger, options=list(self.allowed))

    def _stays(self, state: Any, asked: bool) -> None:
        f = state.fighters[self.subject]
        state.log("move_stopped", ("AL-25", "AL-PD-20"), f"{f.name} stays at ({f.x}, {f.y})",
                  f.team, fighter=f.gid, action=self.trigger, at=[f.x, f.y], asked=asked)

    def on_skip(self, state: Any) -> None:
        self._stays(state, False)

    def on_decline(self, state: Any) -> None:
        self._stays(state, True)

    def context(self, state: Any, viewer: int) -> AlertContext:
        return _ctx(self.kind, self.side, self.decision, trigger=self.trigger,
                    fighter=self.subject, actor=self.subject, offered=tuple(self.allowed))


# ---------------------------------------------------------------------------------------------
# one declared action
# ---------------------------------------------------------------------------------------------
class Phase(str, enum.Enum):
    PRE = "pre"
    WINDOW = "window"
    RESOLVE = "resolve"
    DONE = "done"


@register
@dataclass(slots=True)
class ActionFrame(Frame):
    """One declared action of the active fighter (AL-PD-20): its AP is paid on declaration;
    with ``reaction_timing = "before_effect"`` a Move or Charge makes its movement first;
    then the window opens (AL-4) unless the action is in ``non_triggering_actions`` (Q8);
    then the action resumes (AL-24): a Move reaches its declared destination, or, when that
    can no longer be reached, the actor may pick another (:class:`RedirectWindow`; AL-25);
    an attack whose target is out of reach, range or sight is lost (AL-18), and a Charge whose
    attack is lost still makes its movement to the destination fixed on declaration
    (``dest_x, dest_y``; AL-25, AL-PD-20); a fighter knocked down by a reaction loses the
    action (AL-26)."""

    kind = "alert.action"
    fighter: int
    action: int
    decl_x: int
    decl_y: int
    knockdowns: int
    target: int = -1
    phase: Phase = Phase.PRE
    moved: bool = False
    dest_x: int = -1  #: a Charge's destination, fixed on declaration (research Q1)
    dest_y: int = -1

    def run(self, state: Any) -> Step:
        g = state.game
        f = state.fighters[self.fighter]
        a = g.acts[self.action]
        label = g.actions.labels[self.action]
        if self.phase is Phase.PRE:
            self.phase = Phase.WINDOW
            if a.kind == "charge":  # Q1: the charge commits to its destination now
                dest = state.charge_destination(f, state.fighters[self.target])
                if dest is not None:
                    self.dest_x, self.dest_y = dest
            if g.reaction_timing == "before_effect" and a.kind in ("move", "charge"):
                self.moved = True
                if a.kind == "move":
                    state.move_line(f, a.direction, a.distance, ("AL-PD-20",))
                else:
                    self._charge_move(state, f)
            return None
        if self.phase is Phase.WINDOW:
            self.phase = Phase.RESOLVE
            kind = a.kind if a.kind != "drop_alert" else "pass"
            if kind not in g.non_triggering_actions and any(
                    o.on_alert and o.team != f.team for o in state.live()):
                return Push(AlertWindow(f.gid, label, self.decl_x, self.decl_y, self.target))
            return None
        if self.phase is Phase.RESOLVE:
            self.phase = Phase.DONE
            return self._resolve(state, f, a, label)
        return Done()

    def _charge_move(self, state: Any, f: Any) -> bool:
        t = state.fighters[self.target]
        if not t.in_play:
            return False
        dest = state.charge_destination(f, t) if chebyshev(f.pos, t.pos) > 1 else f.pos
        if dest is None:
            return False
        state.move_to(f, dest[0], dest[1], direction_towards(dest, t.pos))
        state.log("charge_move", ("AL-PD-15",), f"{f.name} charges into contact with {t.name}"
                  f" at ({f.x}, {f.y})", f.team, fighter=f.gid, target=t.gid, to=[f.x, f.y],
                  attack=True)
        return True

    def _charge_move_without_attack(self, state: Any, f: Any, t: Any, label: str) -> Step:
        """AL-25, AL-PD-20: the Charge's attack is lost but its movement part is still made,
        to the destination fixed on declaration, facing the target (or, out of play, the way
        it moved); when that square can no longer be reached, the actor may pick another
        destination within its MOV (:class:`RedirectWindow`)."""
        dest = (self.dest_x, self.dest_y)
        if self.dest_x < 0 or dest == f.pos:
            return Done()
        if dest not in state._reach(f):
            return Done(RedirectWindow(f.team, label, f.gid, _MOVE_LABELS))
        start = f.pos
        ahead = t.pos if t.in_play else (2 * dest[0] - start[0], 2 * dest[1] - start[1])
        state.move_to(f, dest[0], dest[1], direction_towards(dest, ahead))
        state.log("charge_move", ("AL-25", "AL-PD-20"), f"{f.name} makes the charge's move "
                  f"to ({f.x}, {f.y}) without its attack", f.team, fighter=f.gid,
                  target=t.gid, to=[f.x, f.y], attack=False)
        return Done()

    def _resolve(self, state: Any, f: Any, a: Act, label: str) -> Step:
        if not f.in_play:
            return Done()
        if f.knockdowns > self.knockdowns:
            state.log("action_lost", ("AL-26", "AL-PD-28"), f"{f.name} was knocked down and "
                      f"loses {label}", f.team, fighter=f.gid, action=label)
            return Done()
        k = a.kind
        if k == "move":
            if self.moved:
                return Done()
            if state.line_path(f, a.direction, a.distance) == a.distance:
                state.move_line(f, a.direction, a.distance, ("AL-25", "AL-PD-20"))
                return Done()
            return Done(RedirectWindow(f.team, label, f.gid, _MOVE_LABELS))  # AL-25
        if k == "charge":
            t = state.fighters[self.target]
            if self.moved:
                ok = t.in_play and chebyshev(f.pos, t.pos) == 1
            else:
                ok = t.in_play and self._charge_move(state, f)
            if not ok:
                state.log("attack_lost", ("AL-18", "AL-PD-20"), f"{t.name} is out of reach: "
                          f"{f.name} loses the charge's attack", f.team, fighter=f.gid,
                          target=t.gid, action=label)
                if self.moved:
                    return Done()
                return self._charge_move_without_attack(state, f, t, label)
            return Done(Attack(f.gid, t.gid, False, True))
        if k in ("melee", "shoot"):
            t = state.fighters[self.target]
            # AL-18: lost only when the target is now out of reach, range or sight; the AP
            # was paid on declaration and is not asked for again (AL-24, AL-PD-20)
            why = state.why_not(f, a, paid=True) if t.in_play else "out of play"
            if why is not None:
                state.log("attack_lost", ("AL-18", "AL-PD-20"), f"{t.name} is out of reach: "
                          f"{f.name} loses the attack ({why})", f.team, fighter=f.gid,
                          target=t.gid, action=label)
                return Done()
            return Done(*effect(state, f, a, ("AL-24",)))
        if k == "alert":
            f.on_alert = True  # AL-1, AL-2
            state.log("alert", ("AL-1", "AL-2"), f"{f.name} goes on alert and ends its turn "
                      f"({f.ap} AP left)", f.team, fighter=f.gid, ap=f.ap)
            return Done()
        if k == "keep_alert":
            state.log("keep_alert", ("AL-7", "AL-27"), f"{f.name} pays 1 AP to keep its alert",
                      f.team, fighter=f.gid, ap=f.ap)
            return Done()
        if k == "pass":
            state.log("pass", ("AL-PD-12",), f"{f.name} ends its turn", f.team, fighter=f.gid)
            return Done()
        if k in ("disengage", "pivot", "stand_up", "activate", "repair", "sabotage", "use"):
            if k not in ("disengage",) and state.why_not(f, a, paid=True) is not None:
                state.log("action_lost", ("AL-PD-20",), f"{label} is no longer possible",
                          f.team, fighter=f.gid, action=label)
                return Done()
            return Done(*effect(state, f, a, ("AL-24",)))
        return Done()


# ---------------------------------------------------------------------------------------------
# a fighter's game turn, the round, the game
# ---------------------------------------------------------------------------------------------
@register
@dataclass(slots=True)
class Turn(Frame):
    """One fighter's game turn (AL-PD-11, AL-PD-12): AP refilled; an alert fighter first keeps
    its alert for 1 AP (AL-27; ends the turn, Q6) or drops it; then actions until it passes,
    has no AP, goes on alert (AL-2) or is out of action."""

    kind = "alert.turn"
    fighter: int
    step: str = "start"

    def run(self, state: Any) -> Step:
        f = state.fighters[self.fighter]
        if self.step == "start":
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
                self.step = "act"
                if kept and f.on_alert and state.game.maintain_ends_turn:
                    self.step = "end"  # Q6: the kept alert is the whole turn
                    state.log("alert_kept", ("AL-27",), f"{f.name} stays on alert: its turn "
                              f"ends", f.team, fighter=f.gid)
            else:
                self.step = "maintain" if f.on_alert else "act"
            return None
        if self.step == "end" or not f.in_play or state.decided():
            state.active = -1
            return Done()
        if self.step == "maintain":
            return Wait(f.team, Decision.MAINTAIN)
        if f.ap <= 0:
            state.active = -1
            return Done()
        return Wait(f.team, Decision.ACTION)

    def legal_actions(self, state: Any) -> list[int]:
        g = state.game
        f = state.fighters[self.fighter]
        if self.step == "maintain":
            return [g.keep_id, g.drop_id]
        with state.legal_scope():
            return [i for i in g.turn_ids if state.why_not(f, g.acts[i]) is None]

    def why_illegal(self, state: Any, action: int) -> Illegality | None:
        g = state.game
        f = state.fighters[self.fighter]
        if self.step == "maintain":
            return Illegality(("AL-27",), "at the start of its turn an alert fighter keeps "
                                          "(keep_alert) or drops (drop_alert) its alert")
        if action in g.turn_ids:
            return state.why_not(f, g.acts[action])
        return Illegality(("AL-PD-12",), f"{g.actions.labels[action]} is not an action of "
                                         f"{f.name}'s turn")

    def apply(self, state: Any, action: int) -> Push | None:
        g = state.game
        f = state.fighters[self.fighter]
        a = g.acts[action]
        label = g.actions.labels[action]
        if a.kind == "drop_alert":
            f.on_alert = False
            state.log("drop_alert", ("AL-27", "AL-PD-11"), f"{f.name} drops its alert", f.team,
                      fighter=f.gid)
            self.step = "act"
            return None
        cost = AP_COST[a.kind]
        f.ap -= cost
        target = state.enemy_gid(f.team, a.target) if a.target >= 0 else -1
        state.log("declare", ("AL-4", "AL-PD-15", "AL-PD-20"), f"{f.name} declares {label} "
                  f"({cost} AP, {f.ap} left)", f.team, fighter=f.gid, action=label, ap=cost,
                  target=target)
        if a.kind == "alert" or a.kind == "pass" or (a.kind == "keep_alert"
                                                     and g.maintain_ends_turn):
            self.step = "end"
        elif self.step == "maintain":
            self.step = "act"
        return Push(ActionFrame(f.gid, action, f.x, f.y, f.knockdowns, target))

    def context(self, state: Any, viewer: int) -> AlertContext:
        return _ctx(self.kind, state.fighters[self.fighter].team,
                    Decision.MAINTAIN if self.step == "maintain" else Decision.ACTION,
                    fighter=self.fighter, actor=self.fighter)


@register
@dataclass(slots=True)
class Activations(ActivationLoop):
    """The round's activations in track order (AL-PD-7) on the core's ``InitiativeTrack``."""

    kind = "alert.activations"

    def eligible(self, state: Any, who: Activator) -> bool:
        f = state.fighters[who.unit]
        return f is not None and f.in_play and not state.decided()

    def activation(self, state: Any, who: Activator) -> Frame:
        return Turn(who.unit)


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

    def run(self, state: Any) -> Step:
        live = [f.gid for f in state.live()]
        if not self.order:
            self.order = live
        if len(self.totals) < len(self.order):
            f = state.fighters[self.order[len(self.totals)]]
            return Push(RollDice(2, f"{f.name}'s initiative", ("AL-PD-6",), f.team))
        groups = self._ties(state)
        if groups:
            self.pending = groups[0]
            return Push(RollDice(len(self.pending), "initiative roll-off", ("AL-PD-6",)))
        ranked = sorted(self.order, key=lambda g: self._key(state, g))
        for pos, gid in enumerate(ranked, 1):
            state.fighters[gid].track_pos = pos
        state.log("initiative", ("AL-PD-5", "AL-PD-6"), "initiative track: " + ", ".join(
            f"{p}. {state.fighters[g].name}" for p, g in enumerate(ranked, 1)), None,
            track=ranked, round=state.round)
        return Done()

    def _key(self, state: Any, gid: int) -> tuple:
        f = state.fighters[gid]
        on_track = sum(1 for g in self.order if state.fighters[g].team == f.team)
        total = self.totals[self.order.index(gid)]
        offs = self.rolloff.get(gid, [])
        # after three tied roll-offs (dice forced to one face) the lower fighter id goes first
        last = gid if len(offs) >= 3 else 0
        return (-total, -f.ini, on_track, tuple(-v for v in offs), last)

    def _ties(self, state: Any) -> list[list[int]]:
        seen: dict[tuple, list[int]] = {}
        for gid in self.order:
            seen.setdefault(self._key(state, gid), []).append(gid)
        return [g for g in seen.values() if len(g) > 1]

    def on_child_done(self, state: Any, child: Frame) -> None:
        if self.pending:
            for gid, v in zip(self.pending, child.values):
                self.rolloff.setdefault(gid, []).append(v)
            self.pending = []
        else:
            f = state.fighters[self.order[len(self.totals)]]
            self.totals.append(sum(child.values) + f.ini)


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

    def run(self, state: Any) -> Step:
        if not self.started:
            self.started = True
            self.pending = [f.gid for f in sorted(state.live(), key=lambda f: f.track_pos)
                            if f.on_alert]
        while self.pending and not (state.fighters[self.pending[0]].in_play
                                    and state.fighters[self.pending[0]].on_alert):
            self.pending.pop(0)
        if not self.pending:
            return Done()
        return Wait(state.fighters[self.pending[0]].team, Decision.MAINTAIN)

    def legal_actions(self, state: Any) -> list[int]:
        return [state.game.keep_id, state.game.drop_id]

    def why_illegal(self, state: Any, action: int) -> Illegality | None:
        return Illegality(("AL-27",), "at the start of the round an alert fighter keeps "
                                      "(keep_alert) or drops (drop_alert) its alert")

    def apply(self, state: Any, action: int) -> None:
        f = state.fighters[self.pending.pop(0)]
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

    def context(self, state: Any, viewer: int) -> AlertContext:
        f = state.fighters[self.pending[0]]
        return _ctx(self.kind, f.team, Decision.MAINTAIN, fighter=f.gid, actor=-1)


@register
@dataclass(slots=True)
class Match(Frame):
    """The rounds (AL-PD-10): initiative, activations in track order, end of round (smoke
    clears); the game ends after the last round or when at most one team has fighters."""

    kind = "alert.match"
    step: str = "initiative"

    def run(self, state: Any) -> Step:
        if self.step == "initiative":
            self.step = "activate"
            for f in state.fighters:
                if f is not None:
                    f.track_pos = 0
                    f.activated = False
            return Push(Initiative())
        if self.step == "activate" and state.game.maintain_timing == "round_start":
            self.step = "activations"
            return Push(RoundMaintain())
        if self.step in ("activate", "activations"):
            self.step = "end"
            entries = [[f.team, f.gid, 1000 - f.track_pos] for f in state.live()]
            return Push(Activations(InitiativeTrack(entries, state.game.num_players)))
        state.smoke = []
        state.log("round_end", ("AL-PD-10",), f"round {state.round} ends; VP "
                  f"{state.scores()}", None, round=state.round, scores=state.scores())
        if state.round >= state.game.rounds or state.decided():
            return Done()
        state.round += 1
        self.step = "initiative"
        return None


def _catalogue_reactions(make: Callable[[str, Act], Reaction],
                         keep: Callable[[Act], bool]) -> dict[str, Reaction]:
    """``{label: make(label, act)}`` for the acts of the largest catalogue (4 teams of 6, 16
    elements: every label any scenario has) that ``keep`` selects."""
    from .actions import build_catalogue

    cat, acts = build_catalogue(4, 6, 16)
    return {lab: make(lab, a) for lab, a in zip(cat.labels, acts) if keep(a)}


ReactWindow.reactions = _catalogue_reactions(MenuReaction,
                                             lambda a: a.react and a.kind != "none")
RedirectWindow.reactions = _catalogue_reactions(RedirectMove,
                                                lambda a: not a.react and a.kind == "move")
#: the own-turn move labels a RedirectWindow offers (AL-25, AL-PD-20)
_MOVE_LABELS = tuple(RedirectWindow.reactions)
