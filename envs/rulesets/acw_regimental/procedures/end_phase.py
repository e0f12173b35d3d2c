"""Phase 5, End (ACW-PD-12, ACW-PD-27, ACW-PD-32): Morale Tests, then smoke expiry and the
per-turn flags."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import TYPE_CHECKING

from envs.core.frames import RollDice
from envs.core.geometry import distance_exceeds
from envs.core.procedure import Done, Frame, Push, Step, filled, register

from .. import combat, tables
from ..tables import Health
from ..units import EXPERIENCE_BY_VALUE
from ..units import clear_turn_flags
from .melee import retreat
from .. import effects

if TYPE_CHECKING:
    from ..state import ACWState

__all__ = ["EndPhase", "EndStep"]


class EndStep(str, enum.Enum):
    START = "start"  #: list the units that must take a Morale Test
    NEXT = "next"  #: roll the next test, or close the player-turn
    RESOLVE = "resolve"  #: the Morale Test die is back


@register
@dataclass(slots=True)
class EndPhase(Frame["ACWState"]):
    """Phase 5: Morale Tests of units that lost stands this turn (or, with the morale
    cascade, saw a friend break within 6"), active side first (ACW-PD-27), then smoke expiry and
    per-turn flags (ACW-PD-32). ``tests``: ``[side, slot]`` rows; ``index``: the test being
    taken; ``dice``: its die."""

    kind = "acw.end_phase"
    step: EndStep = EndStep.START
    tests: list[list[int]] | None = None
    index: int = 0
    dice: list[int] | None = None

    def run(self, state: ACWState) -> Step:
        active = state.active
        step = self.step
        if step is EndStep.START:
            tests = []
            for side in (active, 1 - active):
                for unit in state.units[side]:
                    if unit is None or not unit.alive or unit.is_screen or unit.fought:
                        continue
                    test = unit.lost_turn > 0
                    if not test and state.game.morale_cascade:
                        for broken_side, broken_slot in state.broken_this_player_turn:
                            broken = state.units[broken_side][broken_slot]
                            if broken_side == side and broken is not None and \
                                    not distance_exceeds(broken.fp, unit.fp, 6.0):
                                test = True
                    if test:
                        tests.append([side, unit.slot])
            self.tests, self.index, self.step = tests, 0, EndStep.NEXT
            return None
        if step is EndStep.NEXT:
            tests = filled(self.tests, "the Morale Tests")
            while self.index < len(tests):
                side, slot = tests[self.index]
                unit = state.units[side][slot]
                if unit is None or not unit.alive:
                    self.index += 1
                    continue
                self.step = EndStep.RESOLVE
                return Push(RollDice(1, f"{unit.label()} Morale Test", ("ACW-PD-27",), side))
            end_of_player_turn(state)
            return Done()
        side, slot = filled(self.tests, "the Morale Tests")[self.index]
        unit = state.unit_in(side, slot)
        roll = filled(self.dice, "the Morale Test roll")[0]
        target = tables.discipline_target(EXPERIENCE_BY_VALUE[unit.experience])
        health = unit.health
        modifier = tables.morale_modifier(health, state.game.terrain.heavy_cover(unit.fp))
        passed = combat.check_passes(roll, target, modifier)
        state.log("morale", ("ACW-PD-27",), f"{unit.label()} ({health.value}) Morale Test "
                  f"{roll}{modifier:+d} vs {target}+: {'passed' if passed else 'failed'}", side,
                  unit=slot, roll=roll, modifier=modifier, target=target, passed=passed)
        self.index += 1
        self.step = EndStep.NEXT
        if not passed:
            if health is Health.SPENT:
                effects.remove(state, unit, ("ACW-PD-27", "ACW-PD-28"),
                              "Spent unit failed its Morale Test")
            else:
                effects.disorder(state, unit, ("ACW-PD-27",), "failed Morale Test")
                retreat(state, unit, tables.MORALE_FALLBACK, unit, count_block=False)
        return None

    def on_child_done(self, state: ACWState, child: Frame) -> None:
        if isinstance(child, RollDice):
            self.dice = child.values


# ---------------------------------------------------------------------------------------------
# the close of a player-turn (ACW-PD-12, PD-32)
# ---------------------------------------------------------------------------------------------
def end_of_player_turn(state: ACWState) -> None:
    """Smoke expiry (ACW-PD-32) and per-turn flags (ACW-PD-12 step c)."""
    active = state.active
    own_blocks = state.game.own_fire_blocks_reactions
    for side in state.units:
        for unit in side:
            if unit is None or not unit.alive:
                continue
            if unit.smoke >= 0 and (unit.smoke < state.player_turn or
                                 (not own_blocks and unit.smoke_own and unit.side == active)):
                unit.smoke = -1
                unit.smoke_own = False
                state.log("smoke_expires", ("ACW-PD-32",),
                          f"Smoke Marker on {unit.label()} is removed", unit.side, unit=unit.slot)
            clear_turn_flags(unit)
