"""Shared pieces: the unit decision context, draws from a side's deck, the In-transit
placement and Targeting helpers the activating unit and the reactors share (AA-G8, AA-G9,
AA-R7), the d6 helper and the die-roll contest (AA-G7, AA-G10, AA-D3).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import cast

from envs.core.frames import DrawCard, RollDice
from envs.core.procedure import ChanceNode, DecisionContext, Done, Frame, Push, Step, register

from envs.core.protocol import Illegality

from .. import movement, sight
from ..cards import DIE_OFFSET
from ..state import AAState, Unit, key


@dataclass(frozen=True, slots=True)
class UnitContext(DecisionContext):
    """A decision about one unit of the deciding side (``subject``: its slot)."""

    subject: int = -1


@register
@dataclass(slots=True)
class DeckDraw(DrawCard[AAState]):
    """A card drawn from side ``side``'s own deck (AA-G1): the next card of the scenario's
    ``deck_order`` while one is left (a chance node with that single outcome), else any card
    left, with probability copies / cards left (:class:`envs.core.frames.DrawCard`)."""

    kind = "aa.deck_draw"

    def _stacked(self, state: AAState) -> list[int]:
        """The scenario's next cards of this deck, top first (empty once drawn)."""
        if self.side is None:
            return []
        return state.deck_order[self.side]

    def run(self, state: AAState) -> Step:
        stacked = self._stacked(state)
        if self.card is None and stacked:
            return ChanceNode(((stacked[0], 1.0),))
        return DrawCard.run(self, state)

    def legal_actions(self, state: AAState) -> list[int]:
        stacked = self._stacked(state)
        return [stacked[0]] if stacked else DrawCard.legal_actions(self, state)

    def apply(self, state: AAState, action: int) -> Done:
        stacked = self._stacked(state)
        if stacked:
            stacked.pop(0)
        return DrawCard.apply(self, state, action)


def legal_placements(state: AAState, unit: Unit) -> list[int]:
    """AA-G8 / AA-R7: hold, or an In-transit figure 1-4 increments in one of six
    directions, on the table; a unit with too many suppression markers holds (AA-G15)."""
    if unit.suppression >= state.game.suppressed_no_move or unit.confused:
        return [state.game.ids.hold]
    return movement.placements(state, unit)


def place_in_transit(state: AAState, unit: Unit, action: int, rules: tuple[str, ...]) -> None:
    """AA-G8 / AA-R7: put ``u``'s In-transit figure where ``action`` (``move:*``) says and
    record the move for the resolution."""
    ids = state.game.ids
    move = ids.move_of(action)
    phase = state.phase_in_play()
    if move is None:
        unit.tx, unit.ty = unit.x, unit.y
        phase.moves[key(unit.side, unit.slot)] = [0, 0]
        state.log("in_transit", rules, f"side {unit.side} unit{unit.slot} holds", unit.side,
                  unit=unit.slot)
        return
    direction, count = ids.dirs.index(move[0]), move[1]
    unit.tx, unit.ty = movement.destination(state, unit, direction, count)
    phase.moves[key(unit.side, unit.slot)] = [direction, count]
    state.log("in_transit", rules, f"side {unit.side} unit{unit.slot} places its In-transit "
              f"figure {move[0]} {count} increment(s)", unit.side, unit=unit.slot,
              direction=move[0], increments=count)


def legal_targets(state: AAState, unit: Unit, exclude: list[int]) -> list[int]:
    """AA-R2, AA-G9: ``target:unitK`` for every enemy unit ``u`` sees (not in ``exclude``),
    then ``target:none``."""
    ids = state.game.ids
    out = [ids.target0 + enemy.slot for enemy in state.alive_units(1 - unit.side)
           if enemy.slot not in exclude and sight.sees(state, unit, enemy)]
    return out + [ids.target_none]


def why_not_target(state: AAState, unit: Unit, action: int) -> Illegality:
    """Why ``action`` is not a target ``u`` may name (AA-G9, AA-R1)."""
    ids = state.game.ids
    slot = action - ids.target0
    if 0 <= slot < ids.max_units:
        enemy = state.units[1 - unit.side][slot]
        if enemy is None or not enemy.alive:
            return Illegality(("AA-G9",), f"there is no enemy unit{slot}")
        if not sight.sees(state, unit, enemy):
            return Illegality(("AA-G9",), f"enemy unit{slot} is out of line of sight")
        return Illegality(("AA-R1",), f"enemy unit{slot} is already a target")
    return Illegality(("AA-G21",), "not a target choice")


def _d6(what: str, rules: tuple[str, ...], count: int = 2) -> RollDice:
    return RollDice(count, what, rules, None, 6, DIE_OFFSET[6])


# ---------------------------------------------------------------------------------------------
# contest: a die-roll contest, rerolled on ties (AA-G7, AA-G10, AA-D3)
# ---------------------------------------------------------------------------------------------
@register
@dataclass(slots=True)
class Contest(Frame[AAState]):
    """Both sides roll a d6 until the rolls differ; ``winner`` is the higher roller."""

    kind = "aa.contest"
    what: str
    rules: tuple[str, ...] = ()
    winner: int = -1
    ties: int = 0

    #: engine cap: after this many tied rolls side 0 wins (so forced dice terminate)
    MAX_TIES = 3

    def run(self, state: AAState) -> Step:
        if self.winner >= 0:
            return Done()
        return Push(_d6(self.what, self.rules))

    def on_child_done(self, state: AAState, child: Frame) -> None:
        side0_roll, side1_roll = cast(RollDice, child).values
        if side0_roll == side1_roll:
            self.ties += 1
            if self.ties < self.MAX_TIES:
                return
        self.winner = 0 if side0_roll >= side1_roll else 1
        state.log("contest", self.rules, f"{self.what}: side {self.winner} wins "
                  f"({side0_roll} v {side1_roll})", self.winner, rolls=[side0_roll, side1_roll])
