"""Shared pieces: the unit decision context, the d6 helper and the die-roll contest
(AA-G7, AA-G10, AA-D3).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from envs.core.frames import DrawCard, RollDice
from envs.core.procedure import ChanceNode, DecisionContext, Done, Frame, Push, Step, register

from ..cards import DIE_OFFSET


@dataclass(frozen=True, slots=True)
class UnitContext(DecisionContext):
    """A decision about one unit of the deciding side (``subject``: its slot)."""

    subject: int = -1


@register
@dataclass(slots=True)
class DeckDraw(DrawCard):
    """A card drawn from side ``side``'s own deck (AA-G1): the next card of the scenario's
    ``deck_order`` while one is left (a chance node with that single outcome), else any card
    left, with probability copies / cards left (:class:`envs.core.frames.DrawCard`)."""

    kind = "aa.deck_draw"

    def run(self, state: Any) -> Step:
        stacked = state.deck_order[self.side]
        if self.card is None and stacked:
            return ChanceNode(((stacked[0], 1.0),))
        return DrawCard.run(self, state)

    def legal_actions(self, state: Any) -> list[int]:
        stacked = state.deck_order[self.side]
        return [stacked[0]] if stacked else DrawCard.legal_actions(self, state)

    def apply(self, state: Any, action: int) -> Done:
        stacked = state.deck_order[self.side]
        if stacked:
            stacked.pop(0)
        return DrawCard.apply(self, state, action)


def _d6(what: str, rules: tuple[str, ...], count: int = 2) -> RollDice:
    return RollDice(count, what, rules, None, 6, DIE_OFFSET[6])


# ---------------------------------------------------------------------------------------------
# contest: a die-roll contest, rerolled on ties (AA-G7, AA-G10, AA-D3)
# ---------------------------------------------------------------------------------------------
@register
@dataclass(slots=True)
class Contest(Frame):
    """Both sides roll a d6 until the rolls differ; ``winner`` is the higher roller."""

    kind = "aa.contest"
    what: str
    rules: tuple[str, ...] = ()
    winner: int = -1
    ties: int = 0

    #: engine cap: after this many tied rolls side 0 wins (so forced dice terminate)
    MAX_TIES = 3

    def run(self, state: Any) -> Step:
        if self.winner >= 0:
            return Done()
        return Push(_d6(self.what, self.rules))

    def on_child_done(self, state: Any, child: Frame) -> None:
        a, b = child.values
        if a == b:
            self.ties += 1
            if self.ties < self.MAX_TIES:
                return
        self.winner = 0 if a >= b else 1
        state.log("contest", self.rules, f"{self.what}: side {self.winner} wins "
                  f"({a} v {b})", self.winner, rolls=[a, b])
