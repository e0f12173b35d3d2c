"""The action catalogue, chance catalogue and decision types of Atomic Africa.

Ids depend only on ``max_units_per_side`` (U), so every scenario shares one action space.
"""

from __future__ import annotations

import enum
import math

from envs.core.actions import ActionCatalogue

from .cards import CARD_NAMES, DIE_LADDER, ORDER_KINDS, POSTURES, SPECIALS

#: In-transit directions (egocentric: ``forward`` is toward the enemy's table edge), as unit
#: vectors in the side's own frame (x right, y forward)
DIRECTIONS: dict[str, tuple[float, float]] = {
    "forward": (0.0, 1.0),
    "forward_left": (-math.sqrt(0.5), math.sqrt(0.5)),
    "forward_right": (math.sqrt(0.5), math.sqrt(0.5)),
    "left": (-1.0, 0.0),
    "right": (1.0, 0.0),
    "back": (0.0, -1.0),
}
MAX_INCREMENTS = 4


class SplitCounter(str, enum.Enum):
    """C2: the counters whose odd one the owner places when a unit splits (the labels
    ``odd_wound:*`` and ``odd_marker:*``)."""

    WOUND = "wound"
    MARKER = "marker"


#: C2: the two groups of a split (``larger``: the group that keeps the unit's slot and name,
#: the larger one when the figures do not divide evenly; ``smaller``: the new unit)
SPLIT_GROUPS: tuple[str, ...] = ("larger", "smaller")


class Decision(str, enum.Enum):
    """What is being decided (values shared with :class:`envs.core.protocol.DecisionType`
    where they mean the same)."""

    CHANCE = "chance"
    TERMINAL = "terminal"
    ORDERS = "orders"  #: Orders Phase: a face-down card (or none) for one unit
    ACTIVATION = "activation"  #: which unit activates
    MANEUVER = "maneuver"  #: where the In-transit figure goes (AA-R7 for reactors)
    FIRE = "fire"  #: Targeting (and a reactor's extra Split Fire target, AA-R8)
    REACTION = "reaction"  #: which unit reacts voluntarily, or none (AA-R3)
    RESERVE_ASSIGN = "reserve_assign"  #: an orderless reactor's order from the Reserve (AA-R4)
    DECLARATION = "declaration"  #: special action / Joker order / posture (AA-D2, AA-D8)
    RESERVE_PLAY = "reserve_play"  #: the change loop: play a Reserve card or stand (AA-D4)
    CLEANUP = "cleanup"  #: a voluntary split (C4); where a split's odd counter goes (C2)


DECISION_TYPES: tuple[str, ...] = tuple(d.value for d in Decision)

#: the label families each decision type chooses among (a label of another family is a choice
#: of another decision)
DECISION_LABELS: dict[str, tuple[str, ...]] = {
    Decision.ORDERS: ("assign:",),
    Decision.ACTIVATION: ("activate:",),
    Decision.MANEUVER: ("move:",),
    Decision.FIRE: ("target:",),
    Decision.REACTION: ("react:",),
    Decision.RESERVE_ASSIGN: ("reserve:play:",),
    Decision.DECLARATION: ("special:", "posture:"),
    Decision.RESERVE_PLAY: ("reserve:",),
    Decision.CLEANUP: ("split:", "odd_wound:", "odd_marker:"),
}
#: what each decision type asks, and the rules it applies (cited when a label of another
#: decision is tried; a reactor's placement and extra target cite AA-R7 / AA-R8 instead)
DECISION_ASKS: dict[str, tuple[tuple[str, ...], str]] = {
    Decision.ORDERS: (("AA-G4",), "a face-down order for one unit (assign:<card> or "
                      "assign:none)"),
    Decision.ACTIVATION: (("AA-G7",), "which unit activates (activate:unitK)"),
    Decision.MANEUVER: (("AA-G8",), "where the In-transit figure goes (move:<dir>:<n> or "
                        "move:hold)"),
    Decision.FIRE: (("AA-R2", "AA-R9"), "a target (target:unitK or target:none)"),
    Decision.REACTION: (("AA-R1", "AA-R3"), "which unit reacts (react:unitK or react:none)"),
    Decision.RESERVE_ASSIGN: (("AA-R4",), "the reactor's order from the Reserve "
                              "(reserve:play:<card>)"),
    Decision.DECLARATION: (("AA-D2", "AA-D8"), "a special action (special:<name>) or a "
                           "Joker's posture (posture:<name>)"),
    Decision.RESERVE_PLAY: (("AA-D4",), "a Reserve card to play (reserve:play:<card>) or "
                            "reserve:stand"),
    Decision.CLEANUP: (("C4",), "a voluntary split (split:unitK, split:done) or where a "
                       "split's odd counter goes (odd_wound:*, odd_marker:*)"),
}


#: the label that lets nobody react voluntarily (AA-R3)
REACT_NONE = "react:none"


def react_label(slot: int) -> str:
    """The label choosing own unit ``slot`` as the voluntary reactor (AA-R1, AA-R3)."""
    return f"react:unit{slot}"


def labels(max_units: int) -> list[str]:
    """Every decision label in id order (the action catalogue; the table of the package
    docstring)."""
    out = [f"assign:{c}" for c in CARD_NAMES] + ["assign:none"]
    out += [f"activate:unit{k}" for k in range(max_units)]
    out += ["move:hold"] + [f"move:{d}:{n}" for d in DIRECTIONS
                            for n in range(1, MAX_INCREMENTS + 1)]
    out += [f"target:unit{k}" for k in range(max_units)] + ["target:none"]
    out += [react_label(k) for k in range(max_units)] + [REACT_NONE]
    out += [f"reserve:play:{c}" for c in CARD_NAMES] + ["reserve:stand"]
    out += [f"special:{s}" for s in ORDER_KINDS]
    out += [f"posture:{p}" for p in POSTURES]
    out += [f"split:unit{k}" for k in range(max_units)] + ["split:done"]
    out += [f"odd_{counter.value}:{group}" for counter in SplitCounter for group in SPLIT_GROUPS]
    return out


class Ids:
    """Decision ids by family for ``max_units`` unit slots (``unit`` indices are own slots for
    ``activate``/``react``/``split``, enemy slots for ``target``)."""

    def __init__(self, max_units: int):
        self.max_units = max_units
        self.cat = ActionCatalogue(labels(max_units))
        label_id = self.cat.id
        self.assign0 = label_id("assign:A")
        self.assign_none = label_id("assign:none")
        self.activate0 = label_id("activate:unit0")
        self.hold = label_id("move:hold")
        self.move0 = self.hold + 1
        self.target0 = label_id("target:unit0")
        self.target_none = label_id("target:none")
        self.react0 = label_id("react:unit0")
        self.react_none = label_id("react:none")
        self.play0 = label_id("reserve:play:A")
        self.stand = label_id("reserve:stand")
        self.special0 = label_id("special:basic")
        self.posture0 = label_id("posture:standing")
        self.split0 = label_id("split:unit0")
        self.split_done = label_id("split:done")
        self.odd_wound_larger = label_id("odd_wound:larger")
        self.odd_marker_larger = label_id("odd_marker:larger")
        self.dirs = list(DIRECTIONS)

    def move(self, direction: str, increments: int) -> int:
        """The id of ``move:<direction>:<increments>`` (AA-G8)."""
        return self.move0 + self.dirs.index(direction) * MAX_INCREMENTS + (increments - 1)

    def move_of(self, action: int) -> tuple[str, int] | None:
        if action == self.hold:
            return None
        index = action - self.move0
        return self.dirs[index // MAX_INCREMENTS], index % MAX_INCREMENTS + 1


def chance_labels() -> list[str]:
    out = [f"card={c}" for c in CARD_NAMES]
    for sides in DIE_LADDER:
        out += [f"d{sides}={value}" for value in range(1, sides + 1)]
    return out


CHANCE_CATALOGUE = ActionCatalogue(chance_labels())
_ = SPECIALS
