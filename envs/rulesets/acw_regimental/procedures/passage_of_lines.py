"""Passage of Lines tests (ACW-PD-29): each friendly unit a retreating unit passed through takes
a discipline test (the unit's experience target on one d6); a failure Disorders it. A unit that
moved through friends on purpose takes the test itself after its move, and a failure then
Disorders it and every friend it passed through."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from envs.core.frames import RollDice, rolled
from envs.core.procedure import Done, Frame, Push, Step, register

from .. import combat, tables
from ..units import EXPERIENCE_BY_VALUE
from .. import effects

if TYPE_CHECKING:
    from ..state import ACWState
    from ..units import Unit

__all__ = ["PassageOfLinesTests"]

RULES = ("ACW-PD-29",)


@register
@dataclass(slots=True)
class PassageOfLinesTests(Frame["ACWState"]):
    """Test the units ``testers`` (slots of ``side``) in order, one d6 each. ``by``: the unit
    that passed through them; ``passed_through``: for a voluntary passage, the friends the
    tester (then the mover itself) passed through, Disordered with it on a failure; ``index``:
    the next tester; ``roll``: its die once rolled."""

    kind = "acw.passage_of_lines"
    side: int
    testers: list[int]
    by: int
    passed_through: list[int] = field(default_factory=list)
    index: int = 0
    roll: int | None = None

    def run(self, state: ACWState) -> Step:
        units = state.units[self.side]
        if self.roll is not None:
            self._resolve(state, state.unit_in(self.side, self.testers[self.index]), self.roll)
            self.roll = None
            self.index += 1
        while self.index < len(self.testers):
            tester = units[self.testers[self.index]]
            if tester is None or not tester.alive:
                self.index += 1
                continue
            return Push(RollDice(1, f"{tester.label()} Passage of Lines test", RULES,
                                 tester.side))
        return Done()

    def on_child_done(self, state: ACWState, child: Frame) -> None:
        self.roll = rolled(child)[0]

    def _resolve(self, state: ACWState, tester: Unit, roll: int) -> None:
        needed = tables.discipline_target(EXPERIENCE_BY_VALUE[tester.experience])
        passed = combat.check_passes(roll, needed)
        state.log("passage_test", RULES, f"{tester.label()} Passage of Lines test {roll} vs "
                  f"{needed}+: {'passed' if passed else 'failed'}", tester.side,
                  unit=tester.slot, roll=roll, passed=passed)
        if passed:
            return
        if self.passed_through:
            effects.disorder(state, tester, RULES, "failed its Passage of Lines test")
            for slot in self.passed_through:
                friend = state.units[self.side][slot]
                if friend is not None:
                    effects.disorder(state, friend, RULES, "a friendly unit passed through it")
        else:
            effects.disorder(state, tester, RULES, "a retreating unit passed through it")
