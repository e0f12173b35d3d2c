"""The fixed action catalogue and decision types of the ACW regimental ruleset.

One catalogue per ``max_units_per_side`` (default 8): the same ids for every scenario. Unit
slots ``u{k}`` are the deciding side's own slots, ``e{k}`` the enemy's (RULINGS item 6, 7).
"""

from __future__ import annotations

import enum
from typing import NamedTuple

from envs.core.actions import ActionCatalogue


class ACWDecision(str, enum.Enum):
    """Decision types (values shared with :class:`envs.core.protocol.DecisionType`).

    * ``command``: Phase 1 rally (pay a pip or roll) and pips to reserve (ACW-PD-13..15);
    * ``maneuver``: Phase 2 choice of unit to activate and the primitives of its activation
      (ACW-PD-21, PD-23);
    * ``reaction``: any reaction window of the non-active side (Window A, B1, B2; RULE-04-1.2);
    * ``fire``: Phase 3 target choice of one unit (ACW-PD-25b).
    """

    CHANCE = "chance"
    TERMINAL = "terminal"
    COMMAND = "command"
    MANEUVER = "maneuver"
    REACTION = "reaction"
    FIRE = "fire"


DECISION_TYPES = tuple(d.value for d in ACWDecision)

PRIMITIVES = (
    "advance:third", "advance:two_thirds", "advance:all", "retire",
    "sidestep:left", "sidestep:right",
    "wheel:left", "wheel:right", "wheel:left_half", "wheel:right_half",
    "face:left", "face:right", "face:about",
    "formation:line", "formation:assault_column", "formation:road_column",
    "formation:limber", "formation:unlimber",
    "skirmish:detach", "skirmish:rejoin",
)

def reaction_label(name: str) -> str:
    """The decision label of the reaction ``name`` (``"closing_volley"`` ->
    ``"react:closing_volley"``): every ``react:*`` label is built here."""
    return f"react:{name}"


#: the label that declines a reaction window (always legal there, RULE-04-1.2)
DECLINE_LABEL = reaction_label("decline")

REACTIONS = tuple(reaction_label(name) for name in (
    "opportunity_fire", "wait_short", "evade_4", "evade_5", "evade_6", "refuse_1", "refuse_2",
    "counter_charge_2", "counter_charge_3", "closing_volley", "decline"))


class Verb(str, enum.Enum):
    """What a movement primitive does (ACW-PD-21; the part of its label before the colon)."""

    ADVANCE = "advance"
    RETIRE = "retire"
    SIDESTEP = "sidestep"
    WHEEL = "wheel"
    FACE = "face"
    FORMATION = "formation"
    SKIRMISH = "skirmish"


class Primitive(NamedTuple):
    """A movement primitive as a typed action: its :class:`Verb` and its argument (the part of
    the label after the colon: ``"third"``, ``"left_half"``, ``"assault_column"``,
    ``"detach"`` ...; ``""`` for ``retire``)."""

    verb: Verb
    argument: str

    @classmethod
    def from_label(cls, label: str) -> "Primitive":
        """The primitive of a label of :data:`PRIMITIVES` (``"wheel:left"``)."""
        verb, _, argument = label.partition(":")
        return cls(Verb(verb), argument)


#: the winning charger's choice after a won melee (ACW-PD-26: it may advance up to 2" into the
#: ground given up)
MELEE_ADVANCE = ("melee:advance", "melee:hold")


def build_labels(max_units: int) -> list[str]:
    """Labels in id order for ``max_units`` unit slots per side."""
    labels = ["rally:pay_pip", "rally:roll", "reserve:0", "reserve:1", "reserve:2"]
    labels += [f"activate:u{k}" for k in range(max_units)] + ["end_phase"]
    labels += list(PRIMITIVES)
    labels += [f"charge:e{k}" for k in range(max_units)] + ["end_activation"]
    labels += list(REACTIONS)
    labels += [f"fire:e{k}" for k in range(max_units)] + ["hold_fire"]
    labels += list(MELEE_ADVANCE)
    return labels


class Ids:
    """Integer ids of the catalogue for ``max_units`` slots per side (attribute per label,
    ``activate[k]`` …)."""

    def __init__(self, max_units: int):
        self.labels = build_labels(max_units)
        self.cat = ActionCatalogue(self.labels)
        label_id = self.cat.id
        self.rally_pay = label_id("rally:pay_pip")
        self.rally_roll = label_id("rally:roll")
        self.reserve = [label_id(f"reserve:{i}") for i in range(3)]
        self.activate = [label_id(f"activate:u{k}") for k in range(max_units)]
        self.end_phase = label_id("end_phase")
        self.prim = {p: label_id(p) for p in PRIMITIVES}
        #: the typed primitive of each primitive id
        self.primitive = {label_id(p): Primitive.from_label(p) for p in PRIMITIVES}
        #: primitive ids by verb and argument (``primitive_ids[Verb.WHEEL]["left"]``)
        self.primitive_ids: dict[Verb, dict[str, int]] = {verb: {} for verb in Verb}
        for action, (verb, argument) in self.primitive.items():
            self.primitive_ids[verb][argument] = action
        self.charge = [label_id(f"charge:e{k}") for k in range(max_units)]
        self.end_activation = label_id("end_activation")
        self.react = {r.split(":")[1]: label_id(r) for r in REACTIONS}
        self.fire = [label_id(f"fire:e{k}") for k in range(max_units)]
        self.hold_fire = label_id("hold_fire")
        self.melee_advance = label_id("melee:advance")
        self.melee_hold = label_id("melee:hold")


CHANCE_CATALOGUE = ActionCatalogue([f"d6={i}" for i in range(1, 7)])
