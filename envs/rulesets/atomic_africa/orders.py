"""Order cards of Atomic Africa: the card each unit holds face down, the side's Reserve and
deck, which of them a unit may use (AA-G5, AA-G7, AA-D4, AA-G13) and the moves of cards between
those zones (AA-G6, AA-D6). Zones are named ``order:<side>:<slot>``, ``reserve:<side>``,
``deck:<side>`` and ``discard:<side>`` (:class:`envs.core.zones.Zones`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from envs.core.zones import Visibility

from .cards import JOKER, MENU, VEHICLE_SPECIALS, is_face

if TYPE_CHECKING:
    from .state import AAState, Unit

__all__ = ["discard_order", "eligible_reserve", "eligible_to_activate", "order_card",
           "reserve_cards", "reshuffle_if_empty", "reveal"]


def order_card(state: AAState, side: int, slot: int) -> int | None:
    """The card id of the order unit ``slot`` of ``side`` holds, or ``None``."""
    cards = state.zones[f"order:{side}:{slot}"].cards
    return cards[0] if cards else None


def eligible_to_activate(state: AAState, unit: Unit | None) -> bool:
    """AA-G7: the unit is alive, has not activated or reacted this turn and holds an order."""
    return (unit is not None and unit.alive and not unit.acted
            and order_card(state, unit.side, unit.slot) is not None)


def eligible_reserve(state: AAState, side: int, unit: Unit) -> list[int]:
    """AA-G5: the distinct Reserve cards of ``side`` an orderless reactor ``unit`` may take
    (AA-R4, AA-R5): not a Joker unless ``joker_eligible_from_reserve``, not a face card whose
    special actions a vehicle may not use. The change loop is not filtered (AA-D4, AA-G13:
    :func:`reserve_cards`)."""
    out = []
    for card in sorted(set(state.zones[f"reserve:{side}"].cards)):
        if card == JOKER and not state.game.joker_eligible_from_reserve:
            continue
        if is_face(card) and unit.vehicle and not (set(MENU[card]) & VEHICLE_SPECIALS):
            continue
        out.append(card)
    return out


def reserve_cards(state: AAState, side: int) -> list[int]:
    """AA-D4, AA-G13: the distinct cards of ``side``'s Reserve, every one playable in the change
    loop (a Joker included; AA-G5 filters only :func:`eligible_reserve`)."""
    return sorted(set(state.zones[f"reserve:{side}"].cards))


def reshuffle_if_empty(state: AAState, side: int) -> None:
    """AA-G6: an empty deck takes back its discard pile (logged as ``reshuffle``)."""
    zones = state.zones
    if zones.size(f"deck:{side}") == 0 and zones.size(f"discard:{side}"):
        zones.move_all(f"discard:{side}", f"deck:{side}")
        state.log("reshuffle", ("AA-G6",), f"side {side} shuffles its discards into its deck",
                  side)


def discard_order(state: AAState, side: int, slot: int) -> None:
    """The order of unit ``slot`` goes to ``side``'s discard pile; the emptied order zone is
    face down again (AA-D6: a replaced order is discarded)."""
    zone = state.zones[f"order:{side}:{slot}"]
    for card in list(zone.cards):
        state.zones.move(card, zone.name, f"discard:{side}")
    zone.visibility = Visibility.OWNER


def reveal(state: AAState, side: int, slot: int) -> int | None:
    """Turn the order of unit ``slot`` face up (AA-D1); its card id, or ``None`` without
    one."""
    zone = state.zones[f"order:{side}:{slot}"]
    zone.visibility = Visibility.PUBLIC
    return zone.cards[0] if zone.cards else None
