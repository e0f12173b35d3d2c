"""The action catalogue of the skirmish alert ruleset and the typed action records.

One catalogue per team count (enemy slots ``e0 .. e{(n-1)*F-1}`` are egocentric: the teams
after the decider's own in seat order, ``F`` slots each), the same for every scenario with that
many teams. Labels are parsed once into :class:`Act` records (``kind``, ``direction``,
``distance``, ``target`` slot, ``element``, ``item``).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from envs.core.actions import ActionCatalogue
from envs.core.frames import dice_labels

from .params import DIRECTIONS, USABLE_ITEMS

#: AP cost of each own-turn action (AL-PD-15; AL-1 alert, AL-27 keep alert)
AP_COST = {"move": 1, "charge": 2, "melee": 1, "shoot": 1, "disengage": 1, "pivot": 1,
           "stand_up": 1, "activate": 1, "repair": 1, "sabotage": 1, "use": 1, "alert": 1,
           "keep_alert": 1, "pass": 0}
MAX_MOVE = 6  #: the largest MOV of a profile (a move label's largest offset)
DISENGAGE_MAX = 2  #: disengage moves up to 2 squares (AL-PD-15)


def offset_label(dx: int, dy: int) -> str:
    """``"+dx:+dy"``: the signed offset of a destination square from the mover's square (``y``
    grows northwards), as move and disengage labels write it (``move:+1:-2``)."""
    return f"{dx:+d}:{dy:+d}"


def attempt_label(slot: int) -> str:
    """``alert:attempt:f{slot}``: own fighter slot ``slot`` attempts in a window (AL-5)."""
    return f"alert:attempt:f{slot}"


def charge_label(enemy_slot: int, side: int) -> str:
    """``charge:e{j}:D``: a charge at egocentric enemy slot ``j`` ending on its side ``D``."""
    return f"charge:e{enemy_slot}:{DIRECTIONS[side]}"


#: the labels the windows decline with, and the re-arm (AL-19, AL-22, AL-PD-35)
DECLINE_LABEL = "alert:decline"
REACT_NONE_LABEL = "react:none"
REARM_LABEL = "rearm"
REARM_DECLINE_LABEL = "rearm:decline"
PASS_LABEL = "pass"


def move_label(kind: str, dx: int, dy: int, react: bool = False) -> str:
    """The label of a ``move`` or ``disengage`` (``react:`` copy when ``react``) to the square
    at offset ``(dx, dy)``."""
    return f"{'react:' if react else ''}{kind}:{offset_label(dx, dy)}"


class Decision(str, enum.Enum):
    """Decision types (``decision_type()`` values)."""

    CHANCE = "chance"
    TERMINAL = "terminal"
    ACTION = "action"  #: the active fighter's next action (AP spent)
    MAINTAIN = "maintain_alert"  #: start of an alert fighter's turn: keep or drop (AL-27)
    REACTION = "reaction"  #: a team's slot in an alert window: who attempts, or decline
    REACT = "react"  #: a successful reactor's one action from the menu (AL-15, AL-16)
    REARM = "rearm"  #: after a reaction: pay 1 AP to stay on alert (AL-19)
    FACING = "facing"  #: the mover's free facing at the end of a Move or Disengage (AL-PD-15)


DECISION_TYPES: tuple[str, ...] = tuple(d.value for d in Decision)


@dataclass(frozen=True, slots=True)
class Act:
    """A parsed action label. ``react`` marks the reaction menu's copy (``react:...``).
    ``dx, dy``: a move's or disengage's destination offset; ``direction``: a pivot's or a
    facing's direction, or the side of the target a charge ends on (AL-PD-15, Q1)."""

    kind: str
    react: bool = False
    direction: int = -1
    dx: int = 0
    dy: int = 0
    target: int = -1  #: egocentric enemy slot
    element: int = -1
    item: str = ""
    fighter: int = -1  #: own fighter slot (``alert:attempt:f{i}``)


def _menu(n_enemy: int, n_elements: int, react: bool) -> list[tuple[str, Act]]:
    prefix = "react:" if react else ""
    out: list[tuple[str, Act]] = []
    for kind, reach in (("move", MAX_MOVE), ("disengage", DISENGAGE_MAX)):
        for dy in range(reach, -reach - 1, -1):
            for dx in range(-reach, reach + 1):
                if (dx, dy) != (0, 0):
                    out.append((move_label(kind, dx, dy, react),
                                Act(kind, react, dx=dx, dy=dy)))
    if not react:
        for slot in range(n_enemy):
            for direction, name in enumerate(DIRECTIONS):
                out.append((charge_label(slot, direction),
                            Act("charge", False, direction, target=slot)))
    for slot in range(n_enemy):
        out.append((f"{prefix}melee:e{slot}", Act("melee", react, target=slot)))
    for slot in range(n_enemy):
        out.append((f"{prefix}shoot:e{slot}", Act("shoot", react, target=slot)))
    if not react:
        for direction, name in enumerate(DIRECTIONS):
            out.append((f"pivot:{name}", Act("pivot", False, direction)))
        out.append(("stand_up", Act("stand_up")))
    for kind in ("activate", "repair", "sabotage"):
        for element in range(n_elements):
            out.append((f"{prefix}{kind}:x{element}", Act(kind, react, element=element)))
    for item in USABLE_ITEMS:
        out.append((f"{prefix}use:{item}", Act("use", react, item=item)))
    return out


def build_catalogue(n_teams: int, fighters_per_team: int,
                    n_elements: int) -> tuple[ActionCatalogue, tuple[Act, ...]]:
    """The decision catalogue and the parsed record of each id, for ``n_teams`` teams of
    ``fighters_per_team`` slots and ``n_elements`` element slots."""
    n_enemy = (n_teams - 1) * fighters_per_team
    rows: list[tuple[str, Act]] = []
    rows += _menu(n_enemy, n_elements, react=False)
    rows += [("alert", Act("alert")), (PASS_LABEL, Act("pass")),
             ("keep_alert", Act("keep_alert")), ("drop_alert", Act("drop_alert"))]
    rows += [(attempt_label(i), Act("attempt", fighter=i)) for i in range(fighters_per_team)]
    rows += [(DECLINE_LABEL, Act("decline"))]
    rows += _menu(n_enemy, n_elements, react=True)
    rows += [(REACT_NONE_LABEL, Act("none", True)), (REARM_LABEL, Act("rearm")),
             (REARM_DECLINE_LABEL, Act("rearm_decline"))]
    rows += [(f"face:{name}", Act("face", direction=d)) for d, name in enumerate(DIRECTIONS)]
    return ActionCatalogue(lab for lab, _ in rows), tuple(a for _, a in rows)


#: chance outcomes: one six-sided die (every roll of the game is made of d6 chance nodes)
CHANCE_CATALOGUE = ActionCatalogue(dice_labels(6))
