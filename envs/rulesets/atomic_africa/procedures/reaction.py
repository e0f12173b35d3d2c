"""The Reaction sub-phase (AA-R1 … AA-R9): the compulsory reactors, the voluntary choice (a
core :class:`~envs.core.reactions.ReactionWindow`, :mod:`..reactions`), and per reactor its
order (AA-R4, AA-R6), its In-transit figure (AA-R7) and an extra target (AA-R8, AA-R9).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

from envs.core.procedure import Done, Frame, Push, Step, Wait, register
from envs.core.protocol import Illegality

from .. import orders
from ..actions import Decision, react_label
from ..cards import carries_split_fire
from ..state import AAState, Unit
from ..reactions import ReactionChoice
from .common import (DeckDraw, UnitContext, legal_placements, legal_targets, place_in_transit,
                     why_not_target)


class ReactionStep(str, enum.Enum):
    """The stages of the Reaction sub-phase (per reactor: order, move, extra)."""

    START = "start"
    VOLUNTARY = "voluntary"
    NEXT = "next"
    ORDER = "order"
    MOVE = "move"
    EXTRA = "extra"
    DONE = "done"


@register
@dataclass(slots=True)
class ReactionSubPhase(Frame[AAState]):
    """AA-R1 … AA-R9. Targeted units are queued as compulsory reactors (AA-R2); otherwise the
    reacting side's voluntary choice is a :class:`~..reactions.ReactionChoice` window (AA-R1,
    AA-R3). Each queued reactor then takes an order if it has none (AA-R4, or Confused,
    AA-R6), places its In-transit figure (AA-R7) and, with a Split Fire card, may name an extra
    target whose unit reacts in turn (AA-R8, AA-R9). ``queue`` rows ``[side, unit, fired-on-by
    side, fired-on-by unit, compulsory, cascaded]``; ``cur`` the row being played, ``step``
    its stage."""

    kind = "aa.reaction"
    auto_apply_forced = True
    queue: list[list[int]] = field(default_factory=list)
    step: ReactionStep = ReactionStep.START
    cur: int = 0

    # the reacting side of the phase
    def _reacting_side(self, state: AAState) -> int:
        return 1 - state.phase_in_play().side

    def _row_unit(self, state: AAState) -> Unit:
        row = self.queue[self.cur]
        return state.unit_in(row[0], row[1])

    def run(self, state: AAState) -> Step:
        phase = state.phase_in_play()
        if self.step is ReactionStep.DONE:
            return Done()
        if self.step is ReactionStep.START:
            if not phase.targets:  # AA-R3: a voluntary reaction, through the reaction window
                self.step = ReactionStep.VOLUNTARY
                slots = state.game.max_units_per_side
                return Push(ReactionChoice(
                    self._reacting_side(state), f"side {phase.side} unit{phase.unit}'s activation",
                    -1, tuple(react_label(slot) for slot in range(slots))))
            for target in phase.targets:  # AA-R2: targeted units must react
                self._enqueue(state, self._reacting_side(state), target, phase.side, phase.unit,
                              True, False)
            self.step = ReactionStep.NEXT
        if self.step is ReactionStep.NEXT:
            if self.cur >= len(self.queue):
                return Done()
            self.step = ReactionStep.ORDER
        unit = self._row_unit(state)
        row = self.queue[self.cur]
        if self.step is ReactionStep.ORDER:
            if orders.order_card(state, unit.side, unit.slot) is not None:
                self.step = ReactionStep.MOVE
            elif orders.eligible_reserve(state, unit.side, unit):
                return Wait(unit.side, Decision.RESERVE_ASSIGN)  # AA-R4
            else:  # AA-R6: compulsory reaction, no eligible Reserve card: Confused
                unit.confused = True
                self.step = ReactionStep.MOVE
                state.log("confused", ("AA-R6", "AA-G18"), f"side {unit.side} unit{unit.slot} has "
                          f"no eligible Reserve card and reacts Confused with the top card of "
                          f"its deck", unit.side, unit=unit.slot)
                orders.reshuffle_if_empty(state, unit.side)
                if state.zones.size(f"deck:{unit.side}"):
                    return Push(DeckDraw(f"deck:{unit.side}", f"order:{unit.side}:{unit.slot}",
                                         unit.side, ("AA-R6",)))
        if self.step is ReactionStep.MOVE:
            return Wait(unit.side, Decision.MANEUVER)  # AA-R7 (auto when only hold)
        if self.step is ReactionStep.EXTRA:
            # AA-G20 cascaded, AA-G18 confused: return fire only; AA-R8: an extra target only
            # with an order card that carries Split Fire (its owner knows the card)
            card = orders.order_card(state, unit.side, unit.slot)
            if row[5] or unit.confused or not carries_split_fire(card, unit.vehicle):
                self.step = ReactionStep.NEXT
                self.cur += 1
                return None
            return Wait(unit.side, Decision.FIRE)
        return None

    def _enqueue(self, state: AAState, side: int, slot: int, by_side: int, by_unit: int,
                 compulsory: bool, cascaded: bool) -> None:
        phase = state.phase_in_play()
        reactor = state.unit_in(side, slot)
        # AA-R8: the reactor always returns fire at the unit that fired on it
        if reactor.acted or phase.is_involved(side, slot):
            # AA-G20: each unit acts once per turn; the cascade stops here
            state.log("no_reaction", ("AA-G20",), f"side {side} unit{slot} has already acted "
                      f"this turn and does not react", side, unit=slot)
            return
        self.queue.append([side, slot, by_side, by_unit, int(compulsory), int(cascaded)])
        phase.involved.append([side, slot, 2 if cascaded else 1])
        phase.fire.append([side, slot, by_side, by_unit, 0])
        state.log("reacts", ("AA-R2",) if compulsory else ("AA-R3",),
                  f"side {side} unit{slot} reacts" + (" (compulsory)" if compulsory else ""),
                  side, unit=slot, compulsory=compulsory, cascaded=cascaded)

    def on_child_done(self, state: AAState, child: Frame) -> None:
        if isinstance(child, ReactionChoice):  # AA-R1, AA-R3: one unit by choice, or none
            slot = child.reactor()
            if slot is None:
                self.step = ReactionStep.DONE
                return
            phase = state.phase_in_play()
            self._enqueue(state, self._reacting_side(state), slot, phase.side, phase.unit, False,
                          False)
            self.step = ReactionStep.NEXT

    def legal_actions(self, state: AAState) -> list[int]:
        ids = state.game.ids
        unit = self._row_unit(state)
        if self.step is ReactionStep.ORDER:
            return [ids.play0 + card for card in orders.eligible_reserve(state, unit.side, unit)]
        if self.step is ReactionStep.MOVE:
            return legal_placements(state, unit)
        phase = state.phase_in_play()
        return legal_targets(state, unit, [phase.unit] if unit.side != phase.side else [])

    def why_illegal(self, state: AAState, action: int) -> Illegality | None:
        if self.step is ReactionStep.ORDER:
            return Illegality(("AA-R4", "AA-G5"), "the reactor takes an eligible card of its "
                              "own Reserve")
        unit = self._row_unit(state)
        if self.step is ReactionStep.MOVE:
            return Illegality(("AA-R7", "AA-G8"), "the In-transit figure must stay on the "
                              "table")
        return why_not_target(state, unit, action)

    def apply(self, state: AAState, action: int) -> None:
        ids = state.game.ids
        phase = state.phase_in_play()
        unit = self._row_unit(state)
        if self.step is ReactionStep.ORDER:
            card = action - ids.play0
            state.zones.move(card, f"reserve:{unit.side}", f"order:{unit.side}:{unit.slot}")
            state.log("reserve_assign", ("AA-R4",), f"side {unit.side} gives reacting unit"
                      f"{unit.slot} an order from its Reserve", unit.side, unit=unit.slot)
            self.step = ReactionStep.MOVE
            return None
        if self.step is ReactionStep.MOVE:
            place_in_transit(state, unit, action, ("AA-R7",))
            self.step = ReactionStep.EXTRA
            return None
        # extra target (Split Fire, AA-R8), whose unit reacts in turn (AA-R9)
        if action != ids.target_none:
            target = action - ids.target0
            phase.fire.append([unit.side, unit.slot, 1 - unit.side, target, 1])
            state.log("target", ("AA-R8", "AA-R9"), f"side {unit.side} unit{unit.slot} also "
                      f"targets enemy unit{target} (Split Fire)", unit.side, target=target)
            self._enqueue(state, 1 - unit.side, target, unit.side, unit.slot, True, True)
        self.step = ReactionStep.NEXT
        self.cur += 1
        return None

    @staticmethod
    def asked_rules(decision: Decision) -> tuple[str, ...]:
        """The rules a reactor's decision applies (AA-R4, AA-R7, AA-R8)."""
        return {Decision.RESERVE_ASSIGN: ("AA-R4",), Decision.MANEUVER: ("AA-R7", "AA-G8"),
                Decision.FIRE: ("AA-R8", "AA-R9")}[decision]

    def run_decision(self) -> str:
        return {ReactionStep.ORDER: Decision.RESERVE_ASSIGN,
                ReactionStep.MOVE: Decision.MANEUVER}.get(self.step, Decision.FIRE)

    def context(self, state: AAState, viewer: int) -> UnitContext:
        unit = self._row_unit(state)
        return UnitContext(self.kind, unit.side, self.run_decision(),
                           unit.slot if viewer == unit.side else -1)

