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
        a, t = state.fighter(self.attacker), state.fighter(self.target)
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
            if chebyshev(a.pos, t.pos) * 2 > g.ranged_weapons[filled(a.ranged_weapon, "the shooter's ranged weapon")].range:
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
                dmg, impact = g.ranged_weapons[filled(a.ranged_weapon, "the shooter's ranged weapon")].dmg, False
            else:
                w = g.melee_weapons[a.melee_weapon]
                dmg, impact = w.dmg, w.impact
            wound(state, t, max(1, dmg - t.arm), ("AL-PD-22",))
            if t.in_play and (total - tn >= g.knockdown_margin or impact):
                knock_down(state, t, ("AL-PD-23",))
        return Done()

    def on_child_done(self, state: AlertState, child: Frame) -> None:
        self.values = list(rolled(child))


def _cover_squares(state: AlertState, a: Fighter, t: Fighter) -> list[tuple[int, int]]:
    """AL-PD-24: squares on the line of sight that are adjacent to the target."""
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

    def run(self, state: AlertState) -> Step:
        f = state.fighter(self.fighter)
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

    def on_child_done(self, state: AlertState, child: Frame) -> None:
        self.values = list(rolled(child))


def effect(state: AlertState, f: Fighter, a: Act, rules: tuple[str, ...]) -> tuple[Frame, ...]:
    """Carry out action ``a`` of fighter ``f`` now (movement, pivot, elements, equipment,
    attacks); returns the frames that roll its dice. Used by a resumed own-turn action and by
    a reaction alike."""
    k = a.kind
    if k in ("move", "disengage"):  # AL-PD-15: any free path, then a free facing
        move_to_square(state, f, (f.x + a.dx, f.y + a.dy), rules)
        return (Facing(f.gid, move_label(k, a.dx, a.dy, a.react)),)
    if k in ("melee", "shoot"):
        t = state.fighter(state.enemy_gid(f.team, a.target))
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
                    if on_board(state, *p) and p not in state.smoke:
                        state.smoke.append(p)
        elif a.item == "grapnel":
            f.grapnel = True
        state.log("use", rules + ("AL-PD-31",), f"{f.name} uses a {a.item}", f.team,
                  fighter=f.gid, item=a.item)
        return ()
    return ()
