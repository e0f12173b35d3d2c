"""Effects on an ACW state that log what they do with their rule ids: Disorder, stand losses and
removal (ACW-PD-9, PD-25, PD-28), skirmish stands re-joining (ACW-PD-30), Smoke Markers
(ACW-PD-32), placing a unit, and the reaction effects of Evade (RULE-04-4.3), Refuse the Flank
and the Emergency Drill Check (RULE-04-5.2, 5.3), and melee disengagement (ACW-PD-26)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from envs.core.geometry import Footprint, first_crossing, footprint_distance, overlaps

from . import combat
from .units import Unit

if TYPE_CHECKING:
    from .state import ACWState

__all__ = ["apply_refuse", "disengage", "disorder", "drill_check", "evade", "lose_stands",
           "place", "rejoin", "remove", "smoke"]


def place(unit: Unit, fp: Footprint) -> None:
    """Put ``unit`` at ``fp`` keeping its current frontage/depth (stands may have been lost
    while the move was paused)."""
    if fp.width != unit.fp.width or fp.depth != unit.fp.depth:
        fp = fp.with_size(unit.fp.width, unit.fp.depth)
    unit.fp = fp


def disorder(state: ACWState, unit: Unit, rules: tuple[str, ...], why: str) -> bool:
    if not unit.alive or unit.disordered:
        return False
    unit.disordered = True
    state.log("disorder", rules, f"{unit.label()} is Disordered ({why})", unit.side,
              unit=unit.slot, why=why)
    return True


def lose_stands(state: ACWState, unit: Unit, count: int, rules: tuple[str, ...], why: str) -> int:
    """Remove ``count`` stands from ``unit`` (ACW-PD-25 step 4, PD-9); breaks it when none are left.
    Returns the number actually removed."""
    if count <= 0 or not unit.alive:
        return 0
    count = min(count, unit.stands)
    unit.stands -= count
    unit.lost += count
    unit.lost_turn += count
    if unit.is_screen and unit.parent >= 0:
        parent = state.units[unit.side][unit.parent]
        if parent is not None and parent.alive:
            parent.lost += count
            parent.lost_turn += count
    state.log("stand_lost", rules, f"{unit.label()} loses {count} stand(s) ({why}); "
              f"{unit.stands} left", unit.side, unit=unit.slot, n=count, left=unit.stands)
    if unit.stands <= 0:
        remove(state, unit, rules + ("ACW-PD-9",), "no stands left")
    else:
        unit.resize()
        if not unit.is_screen:
            h = unit.health
            state.log("health", ("ACW-PD-9",), f"{unit.label()} is {h.value}", unit.side,
                      unit=unit.slot, health=h.value)
    return count


def remove(state: ACWState, unit: Unit, rules: tuple[str, ...], why: str) -> None:
    """A unit is Broken / destroyed and removed from play (ACW-PD-28)."""
    if not unit.alive:
        return
    unit.alive = False
    unit.broken = True
    unit.engaged = []
    state.log("broken", rules, f"{unit.label()} is removed ({why})", unit.side, unit=unit.slot)
    if not unit.is_screen:
        state.broken_this_player_turn.append([unit.side, unit.slot])
    for enemy in state.units[1 - unit.side]:
        if enemy is not None and unit.slot in enemy.engaged:
            enemy.engaged.remove(unit.slot)
    if unit.screen >= 0:
        screen = state.units[unit.side][unit.screen]
        if screen is not None and screen.alive:
            remove(state, screen, ("ACW-PD-30",), "its parent is gone")
    if unit.is_screen and unit.parent >= 0:
        parent = state.units[unit.side][unit.parent]
        if parent is not None:
            parent.screen = -1


def rejoin(state: ACWState, stand: Unit, rules: tuple[str, ...], why: str) -> None:
    """A detached stand rejoins its parent (ACW-PD-30, RULE-04-4.3)."""
    parent = state.units[stand.side][stand.parent]
    stand.alive = False
    state.units[stand.side][stand.slot] = None
    if parent is not None and parent.alive:
        parent.stands += 1
        parent.screen = -1
        parent.resize()
        state.log("rejoin", rules, f"{stand.label()} rejoins {parent.label()} ({why}); "
                  f"{parent.stands} stands", stand.side, unit=stand.slot, parent=parent.slot)


def smoke(state: ACWState, unit: Unit, own: bool) -> None:
    unit.smoke = state.player_turn
    unit.smoke_own = own
    state.log("smoke", ("RULE-04-2.6", "RULE-04-3.4", "ACW-PD-32", "I-15"),
              f"Smoke Marker placed on {unit.label()} (counts as fired)", unit.side, unit=unit.slot)


def drill_check(state: ACWState, defender: Unit, flank: str, stands: int, roll: int) -> bool:
    """Emergency Drill Check ``roll`` of ``defender`` refusing ``stands`` stands of its
    ``flank`` (RULE-04-5.2, I-19): 4+ refuses it, else the defender is Disordered and
    frozen."""
    passed = combat.emergency_drill_passes(roll)
    state.log("drill_check", ("RULE-04-5.2", "I-19"),
               f"{defender.label()} Emergency Drill Check {roll} vs 4+: "
              f"{'passed' if passed else 'failed'}",
              defender.side, unit=defender.slot, roll=roll, passed=passed)
    if passed:
        apply_refuse(state, defender, flank, stands, pip=False)
    else:
        disorder(state, defender, ("RULE-04-5.2",), "failed Emergency Drill Check, frozen in place")
    return passed


def apply_refuse(state: ACWState, defender: Unit, side: str, stands: int, pip: bool) -> None:
    defender.refused, defender.refused_n = side, stands
    state.log("refuse", ("RULE-04-5.2", "RULE-04-5.3", "ACW-PD-33"),
              f"{defender.label()} refuses its {side} flank: outer {stands} stand(s) wheel "
              f"back 45°{' (reserved pip spent)' if pip else ''}", defender.side,
              unit=defender.slot, flank=side, stands=stands, pip=pip)


def evade(state: ACWState, defender: Unit, dist: float) -> None:
    """Screen Evade: withdraw straight back 4-6", through friends, rejoin the parent if
    reached (RULE-04-4.3, I-20, ACW-PD-30)."""
    side = defender.side
    state.log("react", ("RULE-04-4.1", "RULE-04-4.3", "RULE-04-1.3"),
              f"{defender.label()} evades {dist:.0f}\" to the rear", side, unit=defender.slot,
              reaction="evade", dist=dist)
    parent = state.units[side][defender.parent] if defender.parent >= 0 else None
    terr = state.game.terrain
    enemies = [e.fp for e in state.alive(1 - side)]
    fp0 = defender.fp

    def bad(distance: float) -> bool:
        fp = fp0.advanced(-distance)
        if not terr.on_table(fp):
            return True
        return any(overlaps(fp, e) for e in enemies)

    t_block = first_crossing(bad, dist, 0.25, 0.01)
    withdrawn = dist if t_block is None else max(0.0, t_block - 0.02)
    if parent is not None and parent.alive:
        at_parent = first_crossing(
            lambda s: footprint_distance(fp0.advanced(-s), parent.fp) <= 0.05, withdrawn, 0.25,
            0.01)
        if at_parent is not None:
            defender.fp = fp0.advanced(-at_parent)
            rejoin(state, defender, ("RULE-04-4.3", "I-20"), "evaded into its parent")
            return
    defender.fp = fp0.advanced(-withdrawn)
    state.log("move", ("RULE-04-4.3",), f"{defender.label()} withdraws {withdrawn:.2f}\"", side,
              unit=defender.slot, dist=round(withdrawn, 3))


def disengage(state: ACWState, attackers: list[Unit], defender: Unit) -> None:
    for unit in attackers:
        if defender.slot in unit.engaged:
            unit.engaged.remove(defender.slot)
        if unit.slot in defender.engaged:
            defender.engaged.remove(unit.slot)
