"""The Declaration sub-phase: reveal, special actions, the change loop and the Joker
(AA-D1 … AA-D8).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

from envs.core.frames import HiddenCommit
from envs.core.errors import InvalidStateError
from envs.core.procedure import Done, Frame, Push, Step, Wait, register
from envs.core.protocol import Illegality

from .. import orders
from ..actions import Decision
from ..cards import (CARD_NAMES, EXPERIENCE, FACE_CARDS, JOKER, ORDER_KINDS, POSTURES, is_face,
                     special_menu)
from ..state import AAState, key
from .common import Contest, UnitContext


def _denomination_rank(card: int) -> int:
    """AA-D3: Jacks, then Queens, then Kings; Jokers after Kings (AA-G13)."""
    return {FACE_CARDS[0]: 0, FACE_CARDS[1]: 1, FACE_CARDS[2]: 2, JOKER: 3}[card]


@register
@dataclass(slots=True)
class ChangeCommit(HiddenCommit[AAState]):
    """AA-D4/AA-D5 (AA-G11): one round of the change loop as a hidden commitment: each side
    asked plays any card of its Reserve face down (``reserve:play:<card>``, a Joker included,
    AA-G13) or stands; a frozen side may only stand (AA-D8)."""

    kind = "aa.change_commit"

    def _asked_side(self) -> int:
        """The side whose commitment is asked now.

        Raises:
            InvalidStateError: when every side has committed.
        """
        index = self._next()
        if index is None:
            raise InvalidStateError("every side of the change loop has committed")
        return self.sides[index]

    def legal_actions(self, state: AAState) -> list[int]:
        ids = state.game.ids
        side = self._asked_side()
        if state.phase_in_play().frozen[side]:
            return [ids.stand]
        return [ids.play0 + card for card in orders.reserve_cards(state, side)] + [ids.stand]

    def why_illegal(self, state: AAState, action: int) -> Illegality | None:
        side = self._asked_side()
        if state.phase_in_play().frozen[side]:
            return Illegality(("AA-D8",), "a revealed Joker has frozen this side's orders for "
                              "the rest of the Activation Phase")
        return Illegality(("AA-D4",), "only a card of the side's own Reserve may be played")


def _principal(state: AAState, side: int) -> int:
    """The unit whose order a side may change in the loop: the activating unit, or the first
    (not Confused) reacting unit of the reacting side; -1 when none."""
    phase = state.phase_in_play()
    if side == phase.side:
        return phase.unit
    for owner, slot, role in phase.involved:
        if owner == side and role == 1 and not state.unit_in(owner, slot).confused:
            return slot
    return -1


class DeclarationStep(str, enum.Enum):
    """The stages of the Declaration sub-phase."""

    REVEAL = "reveal"
    ORDER = "order"
    CONTEST = "contest"
    ANNOUNCE = "announce"
    CHANGE = "change"
    DONE = "done"


@register
@dataclass(slots=True)
class Declaration(Frame[AAState]):
    """AA-D1 … AA-D8: reveal, announce special actions in order, then the change loop."""

    kind = "aa.declaration"
    auto_apply_forced = True
    step: DeclarationStep = DeclarationStep.REVEAL
    queue: list[list[int]] = field(default_factory=list)  # [side, unit, card]
    joker_posture: bool = False
    rounds: int = 0

    def run(self, state: AAState) -> Step:
        phase = state.phase_in_play()
        if self.step is DeclarationStep.REVEAL:
            shown = []
            for side, slot, _ in phase.involved:
                card = orders.reveal(state, side, slot)
                if card is not None:
                    shown.append(f"side {side} unit{slot} {CARD_NAMES[card]}")
                    self._revealed(state, side, slot, card)
            state.log("reveal", ("AA-D1",), "orders revealed: " + (", ".join(shown) or "none"),
                      None, cards=[[side, slot, orders.order_card(state, side, slot)]
                                   for side, slot, _ in phase.involved])
            self.step = DeclarationStep.ORDER
        if self.step is DeclarationStep.ORDER:
            return self._order(state)
        if self.step is DeclarationStep.ANNOUNCE:
            if self.queue:
                return Wait(self.queue[0][0], Decision.DECLARATION)
            self.step = DeclarationStep.CHANGE
        if self.step is DeclarationStep.CHANGE:
            sides = tuple(side for side in (phase.side, 1 - phase.side)
                          if _principal(state, side) >= 0
                          and orders.order_card(state, side, _principal(state, side)) is not None
                          and state.zones.size(f"reserve:{side}") > 0)
            if not sides or all(phase.frozen[side] for side in sides) and self.rounds > 0:
                state.log("declaration_end", ("AA-D7",), "the orders stand", None)
                return Done()
            self.rounds += 1
            return Push(ChangeCommit(sides, (), Decision.RESERVE_PLAY, ("AA-D4", "AA-D5")))
        return Done()

    def _revealed(self, state: AAState, side: int, slot: int, card: int) -> None:
        """A freshly revealed card: a face card or Joker announces (AA-D2), a Joker freezes
        the opponent (AA-D8, AA-G13). Confused units play any card as basic (AA-G18)."""
        phase = state.phase_in_play()
        unit = state.unit_in(side, slot)
        phase.special.pop(key(side, slot), None)
        phase.posture.pop(key(side, slot), None)
        if unit.confused:
            return
        if card == JOKER:
            phase.frozen[1 - side] = True
            state.log("joker", ("AA-D8",), f"side {side} reveals a Joker: side {1 - side}'s orders "
                      f"are frozen for this Activation Phase", side, unit=slot)
        if card == JOKER or is_face(card):
            self.queue.append([side, slot, card])

    def _order(self, state: AAState) -> Step:
        """AA-D3, AA-G10: sort the announcements; a cross-side tie of denomination and
        Experience is settled by a die-roll contest (the higher roller declares last)."""
        game = state.game
        queue = self.queue
        exp = [EXPERIENCE.index(game.experience[side]) for side in (0, 1)]
        ties = any(a[0] != b[0] and _denomination_rank(a[2]) == _denomination_rank(b[2])
                   and exp[a[0]] == exp[b[0]]
                   for index, a in enumerate(queue) for b in queue[index + 1:])
        if ties:
            self.step = DeclarationStep.CONTEST
            return Push(Contest("declaration order", ("AA-D3", "AA-G10")))
        self._sort(state, None)
        return None

    def _sort(self, state: AAState, winner: int | None) -> None:
        game = state.game
        exp = [EXPERIENCE.index(game.experience[side]) for side in (0, 1)]
        self.queue.sort(key=lambda row: (_denomination_rank(row[2]), exp[row[0]],
                                       0 if winner is None else int(row[0] == winner), row[0],
                                       row[1]))
        if len(self.queue) > 1:
            state.log("declaration_order", ("AA-D3",), "declaration order: " + ", ".join(
                f"side {side} unit{slot} {CARD_NAMES[card]}" for side, slot, card in self.queue),
                None)
        self.step = DeclarationStep.ANNOUNCE

    def on_child_done(self, state: AAState, child: Frame) -> None:
        if isinstance(child, Contest):
            self._sort(state, child.winner)
        elif isinstance(child, ChangeCommit):
            self._after_commit(state, child)

    def _after_commit(self, state: AAState, child: ChangeCommit) -> None:
        ids = state.game.ids
        phase = state.phase_in_play()
        played = False
        for side, choice in zip(child.sides, child.choices):
            if choice is None or choice == ids.stand:
                continue
            played = True
            slot = _principal(state, side)
            card = choice - ids.play0
            orders.discard_order(state, side, slot)  # AA-D6: the new card replaces the old
            state.zones.move(card, f"reserve:{side}", f"order:{side}:{slot}")
            orders.reveal(state, side, slot)
            state.log("order_replaced", ("AA-D5", "AA-D6"), f"side {side} replaces unit{slot}'s "
                      f"order with {CARD_NAMES[card]} from its Reserve", side, unit=slot, card=card)
        for side, choice in zip(child.sides, child.choices):  # reveal effects after both flips
            if choice is not None and choice != ids.stand:
                slot = _principal(state, side)
                self._revealed(state, side, slot, choice - ids.play0)
        if played:
            self.step = DeclarationStep.ORDER  # AA-D7: new face cards announce, then another round
        else:
            state.log("declaration_end", ("AA-D7",), "both sides stand", None)
            self.step = DeclarationStep.DONE

    def legal_actions(self, state: AAState) -> list[int]:
        ids = state.game.ids
        side, slot, card = self.queue[0]
        if self.joker_posture:
            return [ids.posture0 + index for index in range(len(POSTURES))]
        unit = state.unit_in(side, slot)
        return sorted(ids.special0 + ORDER_KINDS.index(kind)
                      for kind in special_menu(card, unit.vehicle))

    def why_illegal(self, state: AAState, action: int) -> Illegality | None:
        side, slot, card = self.queue[0]
        if self.joker_posture:
            return Illegality(("AA-D8", "AA-G22"), "the Joker's owner names a posture")
        if card != JOKER and action == state.game.ids.special0:  # special:basic
            return Illegality(("AA-D2",), "a revealed face card must announce a special action")
        return Illegality(("AA-D2", "AA-G12"), f"not a special action of the "
                          f"{CARD_NAMES[card]} (or not allowed to a vehicle)")

    def apply(self, state: AAState, action: int) -> None:
        ids = state.game.ids
        phase = state.phase_in_play()
        side, slot, card = self.queue[0]
        if self.joker_posture:
            posture = POSTURES[action - ids.posture0]
            phase.posture[key(side, slot)] = posture
            state.log("posture", ("AA-D8", "AA-G22"), f"side {side} unit{slot} takes the "
                      f"{posture} posture", side, unit=slot, posture=posture)
            self.joker_posture = False
            self.queue.pop(0)
            return None
        special = ORDER_KINDS[action - ids.special0]
        phase.special[key(side, slot)] = special
        state.log("special", ("AA-D8",) if card == JOKER else ("AA-D2",),
                  f"side {side} unit{slot} announces {special}"
                  + (" (Joker)" if card == JOKER else ""), side, unit=slot, special=special)
        if card == JOKER:
            self.joker_posture = True
        else:
            self.queue.pop(0)
        return None

    def context(self, state: AAState, viewer: int) -> UnitContext:
        side, slot, _ = self.queue[0]
        return UnitContext(self.kind, side, Decision.DECLARATION, slot)
