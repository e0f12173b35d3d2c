"""The turn, the Orders Phase (AA-G4) and the alternation of Activation Phases (AA-G7).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from envs.core.procedure import Done, Frame, Push, Step, Wait, register
from envs.core.protocol import Illegality

from .. import orders, scoring
from ..actions import Decision
from ..state import AAState
from .common import Contest, DeckDraw, UnitContext
from .activation import Activation
from .cleanup import CleanUp


class TurnStep(str, enum.Enum):
    """The stages of a game turn."""

    ORDERS = "orders"
    FIRST = "first"
    ACTIVATIONS = "activations"
    CLEANUP = "cleanup"
    END = "end"


@register
@dataclass(slots=True)
class Turn(Frame[AAState]):
    """One game turn: Orders Phase (both sides), the first-activation contest (AA-G7), the
    Activation Phases, the Clean-Up Phase; then the next turn or the end (AA-G23)."""

    kind = "aa.turn"
    step: TurnStep = TurnStep.ORDERS

    def run(self, state: AAState) -> Step:
        if self.step is TurnStep.ORDERS:
            self.step = TurnStep.FIRST
            state.log("turn", ("AA-G23",), f"turn {state.turn} begins", None, turn=state.turn)
            return Push(OrdersPhase(1), OrdersPhase(0))
        if self.step is TurnStep.FIRST:
            self.step = TurnStep.ACTIVATIONS
            return Push(Contest("who activates first", ("AA-G7",)))
        if self.step is TurnStep.ACTIVATIONS:
            self.step = TurnStep.CLEANUP
            return Push(ActivationPhases(state.first))
        if self.step is TurnStep.CLEANUP:
            self.step = TurnStep.END
            return Push(CleanUp())
        # end of turn
        if scoring.game_over(state) or state.turn >= state.game.turns:
            final_scores = scoring.scores(state)
            state.log("game_end", ("AA-G23",), f"the game ends after turn {state.turn}: "
                      f"scores {final_scores[0]}-{final_scores[1]}", None, scores=final_scores)
            return Done()
        state.turn += 1
        self.step = TurnStep.ORDERS
        return None

    def on_child_done(self, state: AAState, child: Frame) -> None:
        if isinstance(child, Contest):
            state.first = child.winner


class OrdersStep(str, enum.Enum):
    """The stages of one side's Orders Phase."""

    START = "start"
    DRAW = "draw"
    ASSIGN = "assign"


@register
@dataclass(slots=True)
class OrdersPhase(Frame[AAState]):
    """Orders Phase of one side: draw the cards (AA-G4) from its own deck (chance over the
    cards left, AA-G6 reshuffle), then give each unit a face-down card or none; the cards
    kept form the hidden Reserve."""

    kind = "aa.orders"
    side: int
    step: OrdersStep = OrdersStep.START
    to_draw: int = 0
    cursor: int = 0

    def run(self, state: AAState) -> Step:
        side = self.side
        if self.step is OrdersStep.START:
            game = state.game
            count = (sum(1 for unit in state.alive_units(side) if not unit.attached)
                     * game.cards_per_unit)
            if game.experience_draw_bonus:
                count += game.draw_bonus[side]
            self.to_draw = count
            self.step = OrdersStep.DRAW
            state.log("orders_phase", ("AA-G4",), f"side {side} draws {count} cards", side,
                      cards=count)
        if self.step is OrdersStep.DRAW:
            if self.to_draw > 0:
                orders.reshuffle_if_empty(state, side)
                if state.zones.size(f"deck:{side}") > 0:
                    self.to_draw -= 1
                    return Push(DeckDraw(f"deck:{side}", f"reserve:{side}", side, ("AA-G4",)))
                self.to_draw = 0
            self.step = OrdersStep.ASSIGN
        # assign: the next alive unit without an order, while the hand has cards
        if state.zones.size(f"reserve:{side}") == 0:
            return Done()
        while self.cursor < state.game.max_units_per_side:
            unit = state.units[side][self.cursor]
            if (unit is not None and unit.alive
                    and orders.order_card(state, side, unit.slot) is None):
                return Wait(side, Decision.ORDERS)
            self.cursor += 1
        return Done()

    def legal_actions(self, state: AAState) -> list[int]:
        ids = state.game.ids
        return ([ids.assign0 + card for card in orders.reserve_cards(state, self.side)]
                + [ids.assign_none])

    def why_illegal(self, state: AAState, action: int) -> Illegality | None:
        return Illegality(("AA-G4",), "only a card of the side's own hand can be given")

    def apply(self, state: AAState, action: int) -> None:
        ids = state.game.ids
        side, slot = self.side, self.cursor
        if action != ids.assign_none:
            state.zones.move(action - ids.assign0, f"reserve:{side}", f"order:{side}:{slot}")
            state.log("order_assigned", ("AA-G4",), f"side {side} gives unit{slot} a face-down "
                      f"order", side, unit=slot)
        self.cursor += 1
        return None

    def context(self, state: AAState, viewer: int) -> UnitContext:
        return UnitContext(self.kind, self.side, Decision.ORDERS,
                           self.cursor if viewer == self.side else -1)


@register
@dataclass(slots=True)
class ActivationPhases(Frame[AAState]):
    """AA-G7: the sides alternate Activation Phases until no unit is eligible; a side with no
    eligible unit passes and the other keeps activating."""

    kind = "aa.activations"
    next_side: int

    def run(self, state: AAState) -> Step:
        for side in (self.next_side, 1 - self.next_side):
            if any(orders.eligible_to_activate(state, unit) for unit in state.units[side]):
                self.next_side = 1 - side
                return Push(Activation(side))
        return Done()
