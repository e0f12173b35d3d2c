"""One declared action: movement first where it has one, the alert window, then the
effect."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import TYPE_CHECKING

from envs.core.procedure import Done, Frame, Push, Step, register
from envs.core.protocol import Illegality

from ..actions import Act, charge_label
from ..board import chebyshev, direction_towards
from ..legality import why_not
from ..reactions.window import AlertWindow
from .charge import ChargeSquare
from .facing import Facing
from .redirect import DISENGAGE_LABELS, MOVE_LABELS, RedirectWindow
from .resolution import Attack, effect
from ..effects import move_to, move_to_square
from ..queries import charge_square, passable, reach, reach_through_doors

if TYPE_CHECKING:
    from ..state import AlertState, Fighter


class Phase(str, enum.Enum):
    """Where an :class:`ActionFrame` is: before its window, its window, its resolution, done."""

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

    def run(self, state: AlertState) -> Step:
        game = state.game
        fighter = state.fighter(self.fighter)
        act = game.acts[self.action]
        label = game.actions.labels[self.action]
        if self.phase is Phase.PRE:
            self.phase = Phase.WINDOW
            if act.kind == "charge":  # Q1: the charger's chosen square, fixed on declaration
                self.dest_x, self.dest_y = charge_square(state, state.fighter(self.target),
                                                               act.direction)
            if game.reaction_timing == "before_effect" and act.kind in ("move", "charge"):
                self.moved = True
                if act.kind == "move":
                    move_to_square(state, fighter, (fighter.x + act.dx, fighter.y + act.dy),
                                   ("AL-PD-20",))
                    return Push(Facing(fighter.gid, label))
                self._charge_move(state, fighter, (self.dest_x, self.dest_y), ("AL-PD-15",))
            return None
        if self.phase is Phase.WINDOW:
            self.phase = Phase.RESOLVE
            kind = act.kind if act.kind != "drop_alert" else "pass"
            if kind not in game.non_triggering_actions and any(
                    o.on_alert and o.team != fighter.team for o in state.live()):
                return Push(AlertWindow(fighter.gid, label, self.decl_x, self.decl_y, self.target))
            return None
        if self.phase is Phase.RESOLVE:
            self.phase = Phase.DONE
            return self._resolve(state, fighter, act, label)
        return Done()

    def _charge_move(self, state: AlertState, fighter: Fighter, dest: tuple[int, int],
                     rules: tuple[str, ...]) -> None:
        """Move the charger to ``dest`` next to its target, facing it (AL-PD-15, Q1)."""
        target = state.fighter(self.target)
        move_to(fighter, dest[0], dest[1], direction_towards(dest, target.pos))
        state.log("charge_move", rules, f"{fighter.name} charges into contact with {target.name}"
                  f" at ({fighter.x}, {fighter.y})", fighter.team, fighter=fighter.gid,
                  target=target.gid, to=[fighter.x, fighter.y], attack=True)

    def _charge_move_without_attack(self, state: AlertState, fighter: Fighter, target: Fighter,
                                    label: str) -> Step:
        """AL-25, AL-PD-20: the Charge's attack is lost but its movement part is still made,
        to the destination fixed on declaration, facing the target (or, out of play, the way
        it moved); when that square can no longer be reached, the actor may pick another
        destination within its MOV (:class:`RedirectWindow`)."""
        dest = (self.dest_x, self.dest_y)
        if self.dest_x < 0 or dest == fighter.pos:
            return Done()
        if dest not in reach(state, fighter):
            return Done(RedirectWindow(fighter.team, label, fighter.gid, MOVE_LABELS))
        start = fighter.pos
        ahead = target.pos if target.in_play else (2 * dest[0] - start[0], 2 * dest[1] - start[1])
        move_to(fighter, dest[0], dest[1], direction_towards(dest, ahead))
        state.log("charge_move", ("AL-25", "AL-PD-20"), f"{fighter.name} makes the charge's move "
                  f"to ({fighter.x}, {fighter.y}) without its attack", fighter.team,
                  fighter=fighter.gid, target=target.gid, to=[fighter.x, fighter.y], attack=False)
        return Done()

    def _charge_lost_reason(self, state: AlertState, fighter: Fighter,
                            target: Fighter) -> Illegality:
        """Why a charge's attack is lost after the window (AL-18): the target is out of play,
        a closed door now bars every way to it (AL-PD-30), or no free square next to it is
        within the charger's reach."""
        if not target.in_play:
            return Illegality(("AL-18", "AL-PD-22"), f"{target.name} is out of play")
        beside = {charge_square(state, target, d) for d in range(8)}
        if any(sq in beside and passable(state, *sq)
               for sq in reach_through_doors(state, fighter)):
            return Illegality(("AL-18", "AL-PD-30"),
                              f"a closed door bars the way to {target.name}")
        return Illegality(("AL-18", "AL-PD-15"), f"{target.name} is out of reach")

    def _lose_attack(self, state: AlertState, fighter: Fighter, target: Fighter, label: str,
                     why: Illegality) -> None:
        state.log("attack_lost", ("AL-18", "AL-PD-20") + tuple(
            r for r in why.rules if r not in ("AL-18", "AL-PD-20")),
            f"{fighter.name} loses the attack of {label}: {why.reason}", fighter.team,
            fighter=fighter.gid, target=target.gid, action=label, reason=why.reason)

    def _resolve(self, state: AlertState, fighter: Fighter, act: Act, label: str) -> Step:
        if not fighter.in_play:
            return Done()
        if fighter.knockdowns > self.knockdowns:
            state.log("action_lost", ("AL-26", "AL-PD-28"), f"{fighter.name} was knocked down and "
                      f"loses {label}", fighter.team, fighter=fighter.gid, action=label)
            return Done()
        action_kind = act.kind
        if action_kind == "move":
            if self.moved:
                return Done()
            dest = (fighter.x + act.dx, fighter.y + act.dy)
            # AL-25: a free path still reaches it
            if why_not(state, fighter, act, paid=True) is None:
                move_to_square(state, fighter, dest, ("AL-25", "AL-PD-20"))
                return Done(Facing(fighter.gid, label))
            return Done(RedirectWindow(fighter.team, label, fighter.gid, MOVE_LABELS))  # AL-25
        if action_kind == "charge":
            target = state.fighter(self.target)
            if self.moved:
                if target.in_play and chebyshev(fighter.pos, target.pos) == 1:
                    return Done(Attack(fighter.gid, target.gid, False, True))
                self._lose_attack(state, fighter, target, label,
                                  self._charge_lost_reason(state, fighter, target))
                return Done()
            if target.in_play:
                reachable = reach(state, fighter)
                dest = (self.dest_x, self.dest_y)
                if chebyshev(dest, target.pos) == 1 and dest in reachable:
                    self._charge_move(state, fighter, dest, ("AL-PD-15",))
                    return Done(Attack(fighter.gid, target.gid, False, True))
                slot = state.enemy_slot(fighter.team, target.gid)
                options = tuple(charge_label(slot, d) for d in range(8)
                                if charge_square(state, target, d) in reachable)
                if options:  # Q1: the target moved but is still in reach: the charger picks
                    return Done(ChargeSquare(fighter.gid, target.gid, label, options))
            self._lose_attack(state, fighter, target, label,
                              self._charge_lost_reason(state, fighter, target))
            return self._charge_move_without_attack(state, fighter, target, label)
        if action_kind in ("melee", "shoot"):
            target = state.fighter(self.target)
            # AL-18: lost only when the target is now out of reach, range or sight; the AP
            # was paid on declaration and is not asked for again (AL-24, AL-PD-20)
            why = (why_not(state, fighter, act, paid=True) if target.in_play
                   else Illegality(("AL-PD-22",), f"{target.name} is out of play"))
            if why is not None:
                self._lose_attack(state, fighter, target, label, why)
                return Done()
            return Done(*effect(state, fighter, act, ("AL-24",)))
        if action_kind == "alert":
            fighter.on_alert = True  # AL-1, AL-2
            state.log("alert", ("AL-1", "AL-2"), f"{fighter.name} goes on alert and ends its turn "
                      f"({fighter.ap} AP left)", fighter.team, fighter=fighter.gid, ap=fighter.ap)
            return Done()
        if action_kind == "keep_alert":
            state.log("keep_alert", ("AL-7", "AL-27"), f"{fighter.name} pays 1 AP to keep its "
                      f"alert", fighter.team, fighter=fighter.gid, ap=fighter.ap)
            return Done()
        if action_kind == "pass":
            state.log("pass", ("AL-PD-12",), f"{fighter.name} ends its turn", fighter.team,
                      fighter=fighter.gid)
            return Done()
        if action_kind == "disengage" and why_not(state, fighter, act, paid=True) is not None:
            # AL-25: another destination
            return Done(RedirectWindow(fighter.team, label, fighter.gid, DISENGAGE_LABELS))
        if action_kind in ("disengage", "pivot", "stand_up", "activate", "repair", "sabotage",
                           "use"):
            if action_kind != "disengage" and why_not(state, fighter, act, paid=True) is not None:
                state.log("action_lost", ("AL-PD-20",), f"{label} is no longer possible",
                          fighter.team, fighter=fighter.gid, action=label)
                return Done()
            return Done(*effect(state, fighter, act, ("AL-24",)))
        return Done()
