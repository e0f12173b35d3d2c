"""The Clean-Up Phase: forced and voluntary splits, Morale sub-phase (C1 … C6, AA-G16,
AA-G17).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

from envs.core.frames import RollDice
from envs.core.procedure import DecisionContext, Done, Frame, Push, Step, Wait, register
from envs.core.protocol import Illegality

from .. import orders
from ..actions import Decision, SplitCounter
from ..cards import DIE_OFFSET, shifted
from ..state import AAState, Unit
from .common import UnitContext


def needs_split(unit: Unit) -> bool:
    """C1: infantry whose wounds would shift the Morale die below d4; a vehicle whose
    Equipment die would go below d4 (AA-G17)."""
    if unit.vehicle:
        return shifted(unit.equipment, unit.wounds) is None
    return shifted(unit.morale, unit.wounds) is None


def free_slot(state: AAState, side: int) -> int | None:
    """A unit slot of ``side`` a split can fill: empty, or a destroyed unit's with no card."""
    for slot in range(state.game.max_units_per_side):
        unit = state.units[side][slot]
        if unit is None or (not unit.alive and state.zones.size(f"order:{side}:{slot}") == 0):
            return slot
    return None


def split_unit(state: AAState, unit: Unit, rules: tuple[str, ...], odd_wound_to_larger: bool,
               odd_marker_to_larger: bool) -> Unit | None:
    """C2: split ``unit`` into two groups as equal as possible (it keeps its slot and the
    larger half; the new unit takes the next free slot), sharing wounds and markers, the odd
    wound and the odd marker each to the group its owner chose; ``None`` when no unit slot is
    free."""
    game = state.game
    free = free_slot(state, unit.side)
    if free is None:
        return None
    larger, smaller = (unit.figures + 1) // 2, unit.figures // 2

    def share(count: int, odd_to_larger: bool) -> tuple[int, int]:
        high, low = (count + 1) // 2, count // 2
        return (high, low) if odd_to_larger else (low, high)

    wounds_larger, wounds_smaller = share(unit.wounds, odd_wound_to_larger)
    markers_larger, markers_smaller = share(unit.suppression, odd_marker_to_larger)
    new_x = min(max(unit.x + 2.0, 0.0), game.width)
    new = Unit(unit.side, free, f"{unit.name}/b", unit.utype, unit.attached, smaller,
               unit.morale, unit.equipment, unit.defense, new_x, unit.y, wounds_smaller,
               markers_smaller, True, unit.acted)
    unit.figures, unit.wounds, unit.suppression = larger, wounds_larger, markers_larger
    state.units[unit.side][free] = new
    state.log("split", rules, f"side {unit.side} unit{unit.slot} splits into {larger} and "
              f"{smaller} figures (unit{unit.slot}: {markers_larger} markers, {wounds_larger} "
              f"wounds; unit{free}: {markers_smaller} markers, {wounds_smaller} wounds)",
              unit.side, unit=unit.slot, new=free, figures=[larger, smaller],
              markers=[markers_larger, markers_smaller], wounds=[wounds_larger, wounds_smaller])
    return new


@register
@dataclass(slots=True)
class SplitUnit(Frame[AAState]):
    """C2: one unit splits. When its wound counters, or its suppression markers, do not
    divide evenly, its owner says which group takes the odd one (``odd_wound:larger`` /
    ``odd_wound:smaller``, then ``odd_marker:*``; decision type ``cleanup``), then the unit
    splits (:func:`split_unit`). The caller has checked that a unit slot is free."""

    kind = "aa.split_unit"
    side: int
    slot: int
    rules: tuple[str, ...] = ()
    odd_wound_to_larger: bool | None = None
    odd_marker_to_larger: bool | None = None

    def _asking(self, state: AAState) -> SplitCounter | None:
        """The counter whose odd one is asked about now, or ``None``."""
        unit = state.unit_in(self.side, self.slot)
        if unit.wounds % 2 and self.odd_wound_to_larger is None:
            return SplitCounter.WOUND
        if unit.suppression % 2 and self.odd_marker_to_larger is None:
            return SplitCounter.MARKER
        return None

    def run(self, state: AAState) -> Step:
        if self._asking(state) is not None:
            return Wait(self.side, Decision.CLEANUP)
        split_unit(state, state.unit_in(self.side, self.slot), self.rules,
                   self.odd_wound_to_larger is not False, self.odd_marker_to_larger is not False)
        return Done()

    @staticmethod
    def asked_rules(decision: Decision) -> tuple[str, ...]:
        """The rule a split's decision applies (C2)."""
        return ("C2",)

    def legal_actions(self, state: AAState) -> list[int]:
        ids = state.game.ids
        first = (ids.odd_wound_larger if self._asking(state) is SplitCounter.WOUND
                 else ids.odd_marker_larger)
        return [first, first + 1]

    def why_illegal(self, state: AAState, action: int) -> Illegality | None:
        counter = ("wound counter" if self._asking(state) is SplitCounter.WOUND
                   else "suppression marker")
        return Illegality(("C2",), f"unit{self.slot} splits: its owner gives the odd {counter} "
                          f"to the larger or the smaller group")

    def apply(self, state: AAState, action: int) -> None:
        ids = state.game.ids
        if self._asking(state) is SplitCounter.WOUND:
            self.odd_wound_to_larger = action == ids.odd_wound_larger
        else:
            self.odd_marker_to_larger = action == ids.odd_marker_larger
        return None

    def context(self, state: AAState, viewer: int) -> UnitContext:
        return UnitContext(self.kind, self.side, Decision.CLEANUP,
                           self.slot if viewer == self.side else -1)


def remove_unit(state: AAState, unit: Unit, rules: tuple[str, ...], why: str) -> None:
    unit.alive = False
    state.destroyed[unit.side] += 1
    orders.discard_order(state, unit.side, unit.slot)
    state.log("destroyed", rules, f"side {unit.side} unit{unit.slot} ({unit.name}) is "
              f"removed: {why}", unit.side, unit=unit.slot)


class CleanUpStep(str, enum.Enum):
    """The stages of the Clean-Up Phase."""

    FORCED = "forced"
    VOLUNTARY = "voluntary"
    MORALE = "morale"


@register
@dataclass(slots=True)
class CleanUp(Frame[AAState]):
    """Clean-Up Phase: forced splits and removals (C1-C3, AA-G17), voluntary splits (C4),
    the Morale Sub-phase (C6, AA-G16), discards (AA-G6)."""

    kind = "aa.cleanup"
    step: CleanUpStep = CleanUpStep.FORCED
    side: int = 0
    queue: list[list[int]] = field(default_factory=list)

    def run(self, state: AAState) -> Step:
        game = state.game
        if self.step is CleanUpStep.FORCED:
            step = self._forced(state)
            if step is not None:
                return step
            self.step = CleanUpStep.VOLUNTARY
        if self.step is CleanUpStep.VOLUNTARY:
            while self.side < 2:
                if game.voluntary_splits and self._splittable(state, self.side):
                    return Wait(self.side, Decision.CLEANUP)
                self.side += 1
            self.step = CleanUpStep.MORALE
            self.queue = [[unit.side, unit.slot] for side in (0, 1)
                          for unit in state.alive_units(side) if unit.suppression > 0]
        if self.step is CleanUpStep.MORALE:
            if self.queue:
                side, slot = self.queue[0]
                unit = state.unit_in(side, slot)
                die = unit.morale if unit.vehicle else (shifted(unit.morale, unit.wounds) or 4)
                return Push(RollDice(1, f"side {side} unit{slot} morale", ("C6", "AA-G16"),
                                     side, die, DIE_OFFSET[die]))
            # AA-G6: unused orders and the Reserve are discarded; a new turn begins
            for side in (0, 1):
                for slot in range(game.max_units_per_side):
                    orders.discard_order(state, side, slot)
                    occupant = state.units[side][slot]
                    if occupant is not None:
                        occupant.acted = False
                        occupant.vehicle_marked = False
                state.zones.move_all(f"reserve:{side}", f"discard:{side}")
            state.log("cleanup_end", ("AA-G6",), "orders and Reserves are discarded", None)
            return Done()
        return Done()

    def _forced(self, state: AAState) -> Step:
        """C1-C3, AA-G17: pass after pass over the units below d4 (side 0's by slot, then side
        1's), until a pass finds none; a split is a :class:`SplitUnit` frame."""
        game = state.game
        while True:
            if not self.queue:
                self.queue = [[unit.side, unit.slot] for side in (0, 1)
                              for unit in state.alive_units(side) if needs_split(unit)]
                if not self.queue:
                    return None
            side, slot = self.queue.pop(0)
            unit = state.unit_in(side, slot)
            if unit.vehicle:
                remove_unit(state, unit, ("AA-G17",), "Equipment shifted below d4")
            elif unit.figures < 2 * game.min_unit_figures:
                remove_unit(state, unit, ("C1", "C3"), f"Morale below d4 and fewer than "
                            f"{2 * game.min_unit_figures} figures")
            elif free_slot(state, side) is None:
                remove_unit(state, unit, ("C1",), "Morale below d4 and no free unit slot")
            else:
                return Push(SplitUnit(side, slot, ("C1", "C2")))

    def _splittable(self, state: AAState, side: int) -> list[Unit]:
        game = state.game
        if free_slot(state, side) is None:
            return []
        return [unit for unit in state.alive_units(side) if not unit.vehicle
                and unit.figures >= 2 * game.min_unit_figures]

    def legal_actions(self, state: AAState) -> list[int]:
        ids = state.game.ids
        return [ids.split0 + unit.slot for unit in self._splittable(state, self.side)] + [
            ids.split_done]

    def why_illegal(self, state: AAState, action: int) -> Illegality | None:
        return Illegality(("C3", "C4"), "only a unit of six or more figures may split, into a "
                          "free unit slot")

    def apply(self, state: AAState, action: int) -> Step:
        ids = state.game.ids
        if action == ids.split_done:
            self.side += 1
            return None
        return Push(SplitUnit(self.side, action - ids.split0, ("C4", "C2")))

    def on_child_done(self, state: AAState, child: Frame) -> None:
        if not isinstance(child, RollDice):
            return
        game = state.game
        side, slot = self.queue.pop(0)
        unit = state.unit_in(side, slot)
        roll = child.values[0]
        count = 2 if roll >= game.rally_two else 1 if roll >= game.rally_one else 0
        count = min(count, unit.suppression)
        unit.suppression -= count
        state.log("morale", ("C6", "AA-G16"), f"side {side} unit{slot} Morale roll {roll}: {count} "
                  f"marker(s) removed", side, unit=slot, roll=roll, removed=count)

    def context(self, state: AAState, viewer: int) -> DecisionContext:
        return DecisionContext(self.kind, self.side, Decision.CLEANUP)
