"""Cards, dice and orders of Atomic Africa (seed 000; AA-G1, AA-G2, AA-G3, AA-G12).

Card ids are chance-outcome ids ``0..13``: ``A, 2, ..., 10, J, Q, K, Joker`` (suits carry no
rule, so a card is its rank). Dice outcomes follow the cards in the chance catalogue: one block
per die type of the ladder d4 < d6 < d8 < d10 < d12 (AA-G14, AA-G16).
"""

from __future__ import annotations

#: card names by id (chance labels are ``card=<name>``)
CARD_NAMES: tuple[str, ...] = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q",
                               "K", "Joker")
N_CARDS = len(CARD_NAMES)
CARD_ID = {n: i for i, n in enumerate(CARD_NAMES)}
JACK, QUEEN, KING, JOKER = CARD_ID["J"], CARD_ID["Q"], CARD_ID["K"], CARD_ID["Joker"]
FACE_CARDS = (JACK, QUEEN, KING)
#: AA-G1: a standard 54-card deck per player (52 + 2 Jokers)
STANDARD_DECK: dict[str, int] = {**{n: 4 for n in CARD_NAMES[:-1]}, "Joker": 2}

#: the die ladder of Attribute Dice (die shifting moves one step along it)
DIE_LADDER: tuple[int, ...] = (4, 6, 8, 10, 12)
#: first chance-outcome id of each die type (after the 14 cards)
DIE_OFFSET: dict[int, int] = {}
_next_offset = N_CARDS
for _sides in DIE_LADDER:
    DIE_OFFSET[_sides] = _next_offset
    _next_offset += _sides
N_CHANCE = _next_offset

#: order kinds a final order can have (``basic`` = number card / Ace / confused, AA-G2, AA-G3)
SPECIALS: tuple[str, ...] = ("split_fire", "rush", "aimed_fire", "go_to_ground", "assault",
                             "rally")
ORDER_KINDS: tuple[str, ...] = ("basic",) + SPECIALS
#: AA-G12: the special actions each face card offers when announced
MENU: dict[int, tuple[str, ...]] = {JACK: ("split_fire", "rush"),
                                   QUEEN: ("aimed_fire", "go_to_ground"),
                                   KING: ("assault", "rally")}
#: AA-G12 (Table 5 placeholder): special actions a vehicle may announce
VEHICLE_SPECIALS: frozenset[str] = frozenset({"split_fire", "rush", "aimed_fire", "assault"})
POSTURES: tuple[str, ...] = ("standing", "crouched", "prone")
#: AA-G8: movement allowance in increments by order kind (AA-G22: prone halves it)
ALLOWANCE: dict[str, int] = {"basic": 2, "split_fire": 2, "rush": 4, "aimed_fire": 1,
                             "go_to_ground": 1, "assault": 3, "rally": 2}
#: order kinds that do not fire (AA-G21: targets are kept, the unit simply does not fire)
NO_FIRE: frozenset[str] = frozenset({"rush"})
EXPERIENCE: tuple[str, ...] = ("green", "regular", "veteran", "elite")
#: AA-G4: extra cards drawn by Experience Level
EXPERIENCE_BONUS: dict[str, int] = {"green": 0, "regular": 1, "veteran": 2, "elite": 3}


def die_index(sides: int) -> int:
    """Position of a die type on :data:`DIE_LADDER` (d4 = 0)."""
    return DIE_LADDER.index(sides)


def shifted(sides: int, steps: int) -> int | None:
    """Die ``sides`` shifted ``steps`` types lower (negative: higher, capped at d12); ``None``
    when it falls below d4."""
    index = die_index(sides) - steps
    if index < 0:
        return None
    return DIE_LADDER[min(index, len(DIE_LADDER) - 1)]


def is_face(card: int) -> bool:
    return card in FACE_CARDS


def special_menu(card: int, vehicle: bool) -> list[str]:
    """The order kinds ``card`` lets its unit announce (AA-D2, AA-G12): a face card's menu, or
    every order kind for a Joker (AA-D8); a vehicle keeps only ``basic`` and the specials of
    :data:`VEHICLE_SPECIALS`. Empty for a number card or an Ace (a basic order, AA-G2, AA-G3)."""
    if card == JOKER:
        options = list(ORDER_KINDS)
    elif card in MENU:
        options = list(MENU[card])
    else:
        return []
    if vehicle:
        options = [o for o in options if o == "basic" or o in VEHICLE_SPECIALS]
    return options


def carries_split_fire(card: int | None, vehicle: bool) -> bool:
    """Whether an order card lets its unit announce Split Fire (a Jack or a Joker, AA-R8,
    AA-G12); its owner knows the card, so a reactor's extra target may depend on it."""
    return card is not None and "split_fire" in special_menu(card, vehicle)
