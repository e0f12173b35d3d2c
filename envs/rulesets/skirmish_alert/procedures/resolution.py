"""Dice-based resolutions of the skirmish game: attacks, tech tests and the effect of an
action (its frames and :func:`effect`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from envs.core.frames import RollDice, rolled
from envs.core.procedure import Done, Frame, Push, Step, filled, register

from ..actions import Act, move_label
from ..board import bresenham, chebyshev, in_front
from ..params import DIRECTIONS
from .facing import Facing
from ..effects import knock_down, move_to_square, wound
from ..queries import on_board

if TYPE_CHECKING:
    from ..state import AlertState, Fighter


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

    def run(self, state: AlertState) -> Step:
        attacker, target = state.fighter(self.attacker), state.fighter(self.target)
        if not self.values:
            return Push(RollDice(2, f"{attacker.name} {'shoots at' if self.ranged else 'strikes'} "
                                    f"{target.name}", ("AL-PD-1",), attacker.team))
        game = state.game
        bonus = 0
        needed = game.attack_base + target.defence + (1 if "shield" in target.items else 0)
        rules = ["AL-PD-24" if self.ranged else "AL-PD-21"]
        if not in_front(target.facing, target.pos, attacker.pos):
            bonus += 1
        if self.ranged:
            if any(square in game.blocking for square in _cover_squares(state, attacker, target)):
                needed += 1
            weapon_range = game.ranged_weapons[filled(attacker.ranged_weapon,
                                                      "the shooter's ranged weapon")].range
            if chebyshev(attacker.pos, target.pos) * 2 > weapon_range:
                needed += 1
        else:
            if self.charge:
                bonus += 1
            if target.knocked_down:
                bonus += 2
                rules.append("AL-PD-27")
        bonus = min(bonus, game.modifier_cap)
        roll = sum(self.values)
        total = roll + (attacker.sho if self.ranged else attacker.mel) + bonus
        hit = total >= needed
        state.log("attack", tuple(rules), f"{attacker.name} {'shot' if self.ranged else 'blow'} at "
                  f"{target.name}: {roll} + {total - roll} = {total} vs {needed}: "
                  f"{'hit' if hit else 'miss'}", attacker.team, attacker=attacker.gid,
                  target=target.gid, roll=roll, total=total, needed=needed, hit=hit,
                  ranged=self.ranged, charge=self.charge)
        if hit:
            if self.ranged:
                ranged = game.ranged_weapons[filled(attacker.ranged_weapon,
                                                    "the shooter's ranged weapon")]
                dmg, impact = ranged.dmg, False
            else:
                weapon = game.melee_weapons[attacker.melee_weapon]
                dmg, impact = weapon.dmg, weapon.impact
            wound(state, target, max(1, dmg - target.arm), ("AL-PD-22",))
            if target.in_play and (total - needed >= game.knockdown_margin or impact):
                knock_down(state, target, ("AL-PD-23",))
        return Done()

    def on_child_done(self, state: AlertState, child: Frame) -> None:
        self.values = list(rolled(child))


def _cover_squares(state: AlertState, attacker: Fighter, target: Fighter) -> list[tuple[int, int]]:
    """AL-PD-24: squares on the line of sight that are adjacent to the target."""
    return [square for square in bresenham(attacker.pos, target.pos)
            if chebyshev(square, target.pos) == 1]


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

    def run(self, state: AlertState) -> Step:
        fighter = state.fighter(self.fighter)
        what = "repairs" if self.repair else "sabotages"
        if not self.values:
            return Push(RollDice(2, f"{fighter.name} {what} x{self.element}", ("AL-PD-30",),
                                 fighter.team))
        element = state.elements[self.element]
        roll = sum(self.values)
        success = roll + fighter.tec >= element["difficulty"]
        if success:
            element["state"] = "working" if self.repair else "broken"
            element["broken_by"] = None if self.repair else fighter.team
        state.log("tech_test", ("AL-PD-30",), f"{fighter.name} {what} x{self.element}: {roll} + "
                  f"{fighter.tec} vs {element['difficulty']}: "
                  f"{'success' if success else 'failure'}",
                  fighter.team, fighter=fighter.gid, element=self.element, roll=roll,
                  needed=element["difficulty"], success=success)
        return Done()

    def on_child_done(self, state: AlertState, child: Frame) -> None:
        self.values = list(rolled(child))


def effect(state: AlertState, fighter: Fighter, act: Act,
           rules: tuple[str, ...]) -> tuple[Frame, ...]:
    """Carry out action ``act`` of ``fighter`` now (movement, pivot, elements, equipment,
    attacks); returns the frames that roll its dice. Used by a resumed own-turn action and by
    a reaction alike."""
    action_kind = act.kind
    if action_kind in ("move", "disengage"):  # AL-PD-15: any free path, then a free facing
        move_to_square(state, fighter, (fighter.x + act.dx, fighter.y + act.dy), rules)
        return (Facing(fighter.gid, move_label(action_kind, act.dx, act.dy, act.react)),)
    if action_kind in ("melee", "shoot"):
        target = state.fighter(state.enemy_gid(fighter.team, act.target))
        return (Attack(fighter.gid, target.gid, action_kind == "shoot"),)
    if action_kind == "pivot":
        fighter.facing = act.direction
        state.log("pivot", rules, f"{fighter.name} turns to face {DIRECTIONS[act.direction]}",
                  fighter.team, fighter=fighter.gid, facing=act.direction)
        return ()
    if action_kind == "stand_up":
        fighter.knocked_down = False
        state.log("stand_up", rules, f"{fighter.name} stands up", fighter.team,
                  fighter=fighter.gid)
        return ()
    if action_kind == "activate":
        element = state.elements[act.element]
        if element["kind"] == "objective":
            element["held_by"] = fighter.team
            what = "claims the objective"
        else:
            element["state"] = {"open": "closed", "closed": "open", "on": "off",
                                "off": "on"}[element["state"]]
            what = f"sets the {element['kind']} {element['state']}"
            if element["kind"] == "lever" and element["controls"] is not None:
                door = state.elements[element["controls"]]
                door["state"] = "open" if door["state"] == "closed" else "closed"
                what += f" (door x{element['controls']} {door['state']})"
        state.log("activate", rules + ("AL-PD-30",), f"{fighter.name} {what} x{act.element}",
                  fighter.team, fighter=fighter.gid, element=act.element)
        return ()
    if action_kind in ("repair", "sabotage"):
        return (TechTest(fighter.gid, act.element, action_kind == "repair"),)
    if action_kind == "use":
        fighter.items[act.item] -= 1
        if act.item == "draught":
            fighter.wounds = min(fighter.w_max, fighter.wounds + 2)
        elif act.item == "smoke":
            for dx in (-1, 0, 1):
                for dy in (-1, 0, 1):
                    square = (fighter.x + dx, fighter.y + dy)
                    if on_board(state, *square) and square not in state.smoke:
                        state.smoke.append(square)
        elif act.item == "grapnel":
            fighter.grapnel = True
        state.log("use", rules + ("AL-PD-31",), f"{fighter.name} uses a {act.item}", fighter.team,
                  fighter=fighter.gid, item=act.item)
        return ()
    return ()
