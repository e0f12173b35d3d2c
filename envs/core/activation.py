"""Activation orders: who acts next, and the loop that activates them.

An :class:`ActivationOrder` is a small serialisable record that names the next
:class:`Activator` (a side, and a unit when the order fixes it):

* :class:`AlternatingTurns` — sides take whole player-turns in turn; a game turn is one
  player-turn of every side (ACW: the active side then chooses its units);
* :class:`InitiativeTrack` — units act one at a time in descending initiative, ties broken by
  side (starting from ``first``) and then by unit (the skirmish game);
* :class:`OrderCards` — an order card is drawn from a deck zone (a chance node over the cards
  left); the side named on the card acts (Atomic Africa).

:class:`ActivationLoop` is the frame that asks the order, runs a draw when the order needs one,
and pushes the ruleset's activation frame (:meth:`ActivationLoop.activation`) until the order
has nobody left this round.
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .errors import InvalidStateError
from .frames import DrawCard
from .procedure import Done, Frame, Push, Record, StateT, Step, register

__all__ = ["ActivationLoop", "ActivationOrder", "Activator", "AlternatingTurns",
           "InitiativeTrack", "LoopStep", "OrderCards"]

Eligible = Callable[["Activator"], bool]


@register
@dataclass(frozen=True, slots=True)
class Activator(Record):
    """Who acts: ``side``, and ``unit`` when the order names the unit (else ``None``)."""

    kind = "activator"
    side: int
    unit: int | None = None


class ActivationOrder(Record):
    """Base of the orders. ``next`` returns the next activator, or a frame to run first (a
    draw; its result is then read by ``after_draw``), or ``None`` when the round is over.
    ``new_round`` starts the next round. An order is a field of a ruleset's loop frame, so its
    ``state`` parameters are the ruleset's state, typed ``Any`` (:class:`OrderCards` uses its
    :class:`~envs.core.frames.ZonedState` part)."""

    __slots__ = ()

    def next(self, state: Any, eligible: Eligible) -> Activator | Frame[Any] | None:
        raise NotImplementedError

    def after_draw(self, state: Any, child: Frame[Any]) -> Activator | None:
        raise InvalidStateError(f"{self.kind}: draws nothing")

    def new_round(self, state: Any) -> None:
        """Start the next round (default: nothing to reset)."""


@register
@dataclass(slots=True)
class AlternatingTurns(ActivationOrder):
    """Player-turns in turn: ``first``, ``first + 1``, ... (mod ``sides``). ``active`` is the
    side whose player-turn it is, ``turn`` the game turn (from 1), ``player_turn`` the
    player-turns completed this game, ``taken`` the player-turns started this game turn."""

    kind = "alternating_turns"
    sides: int
    first: int
    active: int
    turn: int = 1
    player_turn: int = 0
    taken: int = 0

    def end_player_turn(self) -> bool:
        """Close the active side's player-turn and pass to the next side; ``True`` when that
        closed a game turn (every side has had its player-turn; ``turn`` is incremented)."""
        self.player_turn += 1
        closes = (self.active + 1) % self.sides == self.first
        self.active = (self.active + 1) % self.sides
        if closes:
            self.turn += 1
        return closes

    def next(self, state: Any, eligible: Eligible) -> Activator | None:
        while self.taken < self.sides:
            side = (self.first + self.taken) % self.sides
            self.taken += 1
            self.active = side
            if eligible(Activator(side)):
                return Activator(side)
        return None

    def new_round(self, state: Any) -> None:
        self.taken = 0
        self.turn += 1
        self.active = self.first


@register
@dataclass(slots=True)
class InitiativeTrack(ActivationOrder):
    """Units in descending initiative. ``entries``: ``[side, unit, initiative]`` rows;
    ``position``: how many rows of the sorted track have been passed this round; ``first``:
    the side that wins ties (then the others in side order), then the lower unit id."""

    kind = "initiative_track"
    entries: list[list[int]]
    sides: int = 2
    first: int = 0
    position: int = 0

    def track(self) -> list[Activator]:
        """The round's order of activation."""
        rows = sorted(self.entries,
                      key=lambda r: (-r[2], (r[0] - self.first) % self.sides, r[1]))
        return [Activator(r[0], r[1]) for r in rows]

    def set_initiative(self, side: int, unit: int, initiative: int) -> None:
        for r in self.entries:
            if r[0] == side and r[1] == unit:
                r[2] = initiative
                return
        raise InvalidStateError(f"initiative_track: no entry for side {side} unit {unit}")

    def next(self, state: Any, eligible: Eligible) -> Activator | None:
        track = self.track()
        while self.position < len(track):
            who = track[self.position]
            self.position += 1
            if eligible(who):
                return who
        return None

    def new_round(self, state: Any) -> None:
        self.position = 0


@register
@dataclass(slots=True)
class OrderCards(ActivationOrder):
    """Order cards drawn from zone ``deck`` into zone ``discard`` of ``state.zones``;
    ``card_side`` maps each card id to the side it orders. A new round shuffles the discard
    back (the deck is a multiset: drawing is a chance node over the cards left)."""

    kind = "order_cards"
    deck: str
    discard: str
    card_side: dict[int, int]
    rules: tuple[str, ...] = ()

    def next(self, state: Any, eligible: Eligible) -> DrawCard[Any] | None:
        if state.zones.size(self.deck) == 0:
            return None
        return DrawCard(self.deck, self.discard, None, self.rules)

    def after_draw(self, state: Any, child: Frame[Any]) -> Activator:
        if not isinstance(child, DrawCard) or child.card is None:
            raise InvalidStateError(f"order_cards: expected a finished draw, got {child!r}")
        return Activator(self.card_side[child.card])

    def new_round(self, state: Any) -> None:
        state.zones.move_all(self.discard, self.deck)


class LoopStep(str, enum.Enum):
    NEXT = "next"  #: ask the order
    DRAWING = "drawing"  #: the order's draw is running
    ACTIVATE = "activate"  #: activate ``pending``


@dataclass(slots=True)
class ActivationLoop(Frame[StateT]):
    """Activate whoever ``order`` names until it names nobody, then finish.

    Subclasses set ``kind`` (and are registered) and implement :meth:`activation` (the frame
    that runs one activation) and may override :meth:`eligible` (default: everybody).
    """

    order: ActivationOrder
    step: LoopStep = LoopStep.NEXT
    pending: Activator | None = None

    def activation(self, state: StateT, who: Activator) -> Frame[Any]:
        raise NotImplementedError(f"{type(self).__name__}.activation")

    def eligible(self, state: StateT, who: Activator) -> bool:
        return True

    def run(self, state: StateT) -> Step:
        step = self.step
        if step is LoopStep.NEXT:
            nxt = self.order.next(state, lambda who: self.eligible(state, who))
            if nxt is None:
                return Done()
            if isinstance(nxt, Activator):
                return Push(self.activation(state, nxt))
            self.step = LoopStep.DRAWING
            return Push(nxt)
        if step is LoopStep.ACTIVATE:
            who, self.pending = self.pending, None
            self.step = LoopStep.NEXT
            if who is not None and self.eligible(state, who):
                return Push(self.activation(state, who))
            return None
        raise InvalidStateError(f"{self.kind}: run while its draw is pending")

    def on_child_done(self, state: StateT, child: Frame[Any]) -> None:
        if self.step is LoopStep.DRAWING:
            self.pending = self.order.after_draw(state, child)
            self.step = LoopStep.ACTIVATE
