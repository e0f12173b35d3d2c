"""Resolution of movement and fire (AA-G8, AA-G14, AA-G15, AA-G17, AA-G21).
"""

from __future__ import annotations

import enum
import math
from typing import cast
from dataclasses import dataclass, field

from envs.core.frames import RollDice
from envs.core.procedure import Done, Frame, Push, Step, register

from .. import combat, movement, orders, sight
from ..cards import ALLOWANCE, DIE_OFFSET, NO_FIRE, shifted
from ..state import AAState, Unit, key


def final_order(state: AAState, unit: Unit) -> str:
    """The order kind that resolves: basic for number cards, Aces (AA-G2, AA-G3) and Confused
    units (AA-G18), else the announced special action."""
    if unit.confused:
        return "basic"
    card = orders.order_card(state, unit.side, unit.slot)
    if card is None:
        return "basic"
    return state.phase_in_play().special.get(key(unit.side, unit.slot), "basic")


def posture_of(state: AAState, unit: Unit) -> str:
    """AA-G22: Standing, except Go to ground (Prone) and a Joker's named posture."""
    phase = state.phase_in_play()
    unit_key = key(unit.side, unit.slot)
    if unit_key in phase.posture:
        return phase.posture[unit_key]
    if phase.special.get(unit_key) == "go_to_ground" and not unit.confused:
        return "prone"
    return "standing"


class ResolutionStep(str, enum.Enum):
    """The stages of the resolution."""

    MOVE = "move"
    ROLL = "roll"


@register
@dataclass(slots=True)
class Resolution(Frame[AAState]):
    """Movement (AA-G8, AA-G15, AA-G22), then fire of every declared line at once (AA-G14,
    AA-G21): all attack dice are rolled, then markers and wounds are applied together."""

    kind = "aa.resolution"
    step: ResolutionStep = ResolutionStep.MOVE
    rolls: list[int] = field(default_factory=list)
    lines: list[list[int]] = field(default_factory=list)  # fire rows that fire, with die
    next_line: int = 0  # the index in lines of the next attack roll

    def run(self, state: AAState) -> Step:
        phase = state.phase_in_play()
        if self.step is ResolutionStep.MOVE:
            for side, slot, _ in phase.involved:
                self._move(state, state.unit_in(side, slot))
            for side, slot, _ in phase.involved:
                unit = state.unit_in(side, slot)
                if final_order(state, unit) == "rally" and unit.suppression:
                    unit.suppression -= 1
                    state.log("rally", ("AA-G12",), f"side {side} unit{slot} rallies: 1 "
                              f"suppression marker removed", side, unit=slot)
            for row in phase.fire:
                die = self._fire_die(state, row)
                if die:
                    self.lines.append(row + [die])
            self.step = ResolutionStep.ROLL
        if self.step is ResolutionStep.ROLL:
            if self.next_line < len(self.lines):
                row = self.lines[self.next_line]
                self.next_line += 1
                return Push(RollDice(1, f"side {row[0]} unit{row[1]} attack", ("AA-G14",),
                                     row[0], row[5], DIE_OFFSET[row[5]]))
            self._apply(state)
            return Done()
        return Done()

    def on_child_done(self, state: AAState, child: Frame) -> None:
        self.rolls.append(cast(RollDice, child).values[0])

    def _move(self, state: AAState, unit: Unit) -> None:
        game = state.game
        move = state.phase_in_play().moves.get(key(unit.side, unit.slot), [0, 0])
        kind = final_order(state, unit)
        allow = ALLOWANCE[kind]
        if posture_of(state, unit) == "prone" and kind != "go_to_ground":
            allow //= 2
        if unit.confused or unit.suppression >= game.suppressed_no_move:
            allow = 0
        increments = min(move[1], allow)
        if increments > 0:
            unit.x, unit.y = movement.destination(state, unit, move[0], increments)
            state.log("move", ("AA-G8",), f"side {unit.side} unit{unit.slot} moves "
                      f"{increments} increment(s) ({kind})", unit.side, unit=unit.slot,
                      increments=increments, x=round(unit.x, 3), y=round(unit.y, 3))
        elif move[1] > 0:
            state.log("move", ("AA-G8", "AA-G15", "AA-G18"), f"side {unit.side} unit{unit.slot} "
                      f"does not move", unit.side, unit=unit.slot, increments=0)

    def _fire_die(self, state: AAState, row: list[int]) -> int:
        """The firer's Attack die for ``row``, or 0 when the line does not fire (AA-G21: the
        final order does not fire, a Split Fire target without Split Fire, no LOS)."""
        firer_side, firer_slot, target_side, target_slot, extra = row
        unit = state.unit_in(firer_side, firer_slot)
        target = state.unit_in(target_side, target_slot)
        kind = final_order(state, unit)
        why = None
        if not unit.alive or not target.alive:
            why = "a unit is gone"
        elif kind in NO_FIRE:
            why = f"its order ({kind}) does not fire"
        elif extra and kind != "split_fire":
            why = "the extra target needs Split Fire"
        elif not sight.line_of_sight(state, (unit.x, unit.y), (target.x, target.y)):
            why = "no line of sight after movement"
        if why is not None:
            state.log("no_fire", ("AA-G21",), f"side {firer_side} unit{firer_slot} does not fire "
                      f"at unit{target_slot}: {why}", firer_side, unit=firer_slot,
                      target=target_slot)
            return 0
        steps = unit.suppression + (unit.wounds if unit.vehicle else 0)
        steps += (1 if unit.confused else 0) - (1 if kind == "aimed_fire" else 0)
        return shifted(unit.equipment, steps) or 4

    def _apply(self, state: AAState) -> None:
        game = state.game
        for row, roll in zip(self.lines, self.rolls):
            firer_side, firer_slot, target_side, target_slot, extra, die = row
            unit = state.unit_in(firer_side, firer_slot)
            target = state.unit_in(target_side, target_slot)
            attack = roll + unit.figures // game.figures_per_attack_point
            distance = math.hypot(unit.x - target.x, unit.y - target.y)
            range_threshold = combat.range_threshold(state, distance)
            if target.vehicle:
                damage_threshold = range_threshold + target.defense
            else:
                involved = state.phase_in_play().is_involved(target_side, target_slot)
                posture = posture_of(state, target) if involved else "standing"
                bonus = {"standing": 0, "crouched": game.crouched_bonus,
                         "prone": game.prone_bonus}[posture]
                damage_threshold = range_threshold + combat.cover(state, target.x, target.y) + bonus
            markers = wounds = 0
            if attack > damage_threshold:
                wounds = max(1, (attack - damage_threshold) // 2)
            if target.vehicle:
                if attack > damage_threshold and not target.vehicle_marked:
                    markers = 1
                    target.vehicle_marked = True
            elif attack > range_threshold:
                markers = 1
            target.suppression += markers
            target.wounds += wounds
            state.log("fire", ("AA-G14",), f"side {firer_side} unit{firer_slot} fires at "
                      f"unit{target_slot}: attack {attack} (d{die}={roll}) vs range "
                      f"{range_threshold} / damage {damage_threshold} at {distance:.1f} cm: "
                      f"{markers} marker(s), {wounds} wound(s)", firer_side, unit=firer_slot,
                      target=target_slot, attack=attack, range_threshold=range_threshold,
                      damage_threshold=damage_threshold,
                      markers=markers, wounds=wounds)
