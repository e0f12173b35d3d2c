"""Legality of the skirmish alert ruleset: why a fighter may not take an action now
(:func:`why_not`, rule ids and a reason), and the legal ids of an own turn and of a reaction
menu (:func:`legal_turn_ids`, :func:`legal_react_ids`), which list the squares a Move,
Disengage or Charge can reach (AL-PD-15, AL-PD-16) instead of asking :func:`why_not` label by
label; both give the same legal set (the conformance suite checks every legal id against
``why_illegal``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from envs.core.protocol import Illegality

from .actions import AP_COST, DISENGAGE_MAX, Act
from .board import chebyshev, in_front
from .params import DIRECTIONS
from .queries import (adjacent_element, board_memo, charge_square, closed_door_on_line,
                      disengage_squares, enemies_adjacent, engaged, los, occupant, reach)

if TYPE_CHECKING:
    from .state import AlertState, Fighter


#: the kinds of action a knocked-down fighter may still take (AL-PD-11, AL-PD-26)
KNOCKED_DOWN_KINDS = ("stand_up", "pass", "none")
#: the kinds of action on an element next to the fighter (AL-PD-30)
ELEMENT_KINDS = ("activate", "repair", "sabotage")


def why_not(state: "AlertState", fighter: "Fighter", act: Act,
            paid: bool = False) -> Illegality | None:
    """Why fighter ``fighter`` may not take ``act`` now (``None``: allowed). Own-turn actions pay
    their AP (AL-PD-15); reaction-menu actions (``act.react``) follow AL-16 / AL-PD-35.
    ``paid``: an own-turn action whose AP was paid on declaration is checked again when it
    resolves after its window (AL-PD-20): every condition but the AP it already paid (an
    attack with the fighter's last AP is not lost for want of AP; AL-18, AL-24)."""
    kind = act.kind
    if not act.react and not paid:
        cost = AP_COST.get(kind, 0)
        if fighter.ap < cost:
            return Illegality(("AL-PD-15",), f"{kind} costs {cost} AP, {fighter.name} has "
                                             f"{fighter.ap}")
    if fighter.knocked_down and kind not in KNOCKED_DOWN_KINDS:
        return Illegality(("AL-PD-11", "AL-PD-26"), f"{fighter.name} is knocked down and must "
                                                     f"stand up first")
    if kind == "move":
        if engaged(state, fighter):
            return Illegality(("AL-16", "AL-PD-19"), f"{fighter.name} is engaged: disengage")
        if max(abs(act.dx), abs(act.dy)) > fighter.mov:
            return Illegality(("AL-PD-15",), f"{fighter.name} moves {fighter.mov} squares at most")
        dest = (fighter.x + act.dx, fighter.y + act.dy)
        if dest not in reach(state, fighter):
            return Illegality(("AL-PD-15", "AL-PD-16"), f"no free path within {fighter.name}'s "
                              f"MOV {fighter.mov} reaches {dest}")
        return None
    if kind == "disengage":
        if not engaged(state, fighter):
            return Illegality(("AL-16", "AL-PD-15"), f"{fighter.name} is not engaged")
        dest = (fighter.x + act.dx, fighter.y + act.dy)
        if dest not in disengage_squares(state, fighter):
            return Illegality(("AL-PD-15", "AL-PD-16"), f"no free path of at most "
                              f"{DISENGAGE_MAX} squares reaches {dest}")
        if any(o.team != fighter.team and chebyshev(o.pos, dest) <= 1 for o in state.live()):
            return Illegality(("AL-PD-15",), "a disengage must end out of contact")
        return None
    if kind in ("charge", "melee", "shoot"):
        gid = state.enemy_gid(fighter.team, act.target)
        target = state.fighters[gid]
        if target is None or not target.in_play:
            return Illegality(("AL-PD-22",), f"enemy slot e{act.target} is not in play")
        distance = chebyshev(fighter.pos, target.pos)
        if kind == "melee":
            if distance != 1:
                return Illegality(("AL-16", "AL-PD-19"), f"{fighter.name} is not engaged with "
                                                         f"{target.name}")
            return None
        if engaged(state, fighter):
            return Illegality(("AL-16", "AL-PD-19"), f"{fighter.name} is engaged")
        if kind == "charge":
            if not in_front(fighter.facing, fighter.pos, target.pos):
                return Illegality(("AL-PD-15",), f"{target.name} is not in the front arc")
            if not los(state, fighter.pos, target.pos):
                return Illegality(("AL-PD-15",), f"no line of sight to {target.name}")
            dest = charge_square(state, target, act.direction)
            if dest not in reach(state, fighter):
                return Illegality(("AL-PD-15", "AL-PD-20"), f"{dest}, next to {target.name}, is "
                                  f"not a free square {fighter.name} can reach")
            return None
        if fighter.ranged_weapon is None:
            return Illegality(("AL-PD-24",), f"{fighter.name} has no ranged weapon")
        if distance > state.game.ranged_weapons[fighter.ranged_weapon].range:
            return Illegality(("AL-PD-24",), f"{target.name} is out of range")
        if not los(state, fighter.pos, target.pos):
            door = closed_door_on_line(state, fighter.pos, target.pos)
            if door is not None:
                return Illegality(("AL-PD-16", "AL-PD-30"), f"the closed door x{door} "
                                  f"blocks the line of sight to {target.name}")
            return Illegality(("AL-PD-16",), f"no line of sight to {target.name}")
        if not state.game.allow_shoot_into_melee and any(
                o.team == fighter.team for o in enemies_adjacent(state, target)):
            return Illegality(("AL-PD-25",), f"{target.name} is engaged with a friend")
        return None
    if kind == "pivot":
        if act.direction == fighter.facing:
            return Illegality(("AL-PD-15",), f"{fighter.name} already faces "
                                             f"{DIRECTIONS[fighter.facing]}")
        return None
    if kind == "stand_up":
        if not fighter.knocked_down:
            return Illegality(("AL-PD-15",), f"{fighter.name} is not knocked down")
        return None
    if kind in ("activate", "repair", "sabotage"):
        element = adjacent_element(state, fighter, act.element)
        if element is None:
            return Illegality(("AL-PD-15", "AL-PD-30"), f"not next to element x{act.element}")
        element_kind = element["kind"]
        if kind == "activate":
            if element_kind == "machine":
                return Illegality(("AL-PD-30",), "a machine is repaired or sabotaged")
            if element_kind == "objective" and element["held_by"] == fighter.team:
                return Illegality(("AL-PD-30",), "the objective is already held")
            if element_kind == "door" and element["state"] == "open" and \
                    occupant(state, element["x"], element["y"]) is not None:
                return Illegality(("AL-PD-30",), "a fighter stands in the doorway")
            if element_kind == "lever" and element["controls"] is not None:
                door = state.elements[element["controls"]]
                if door["state"] == "open" and occupant(state, door["x"], door["y"]):
                    return Illegality(("AL-PD-30",), "a fighter stands in its doorway")
            return None
        if element_kind != "machine":
            return Illegality(("AL-PD-30",), f"a {element_kind} is activated, not {kind}ed")
        want = "broken" if kind == "repair" else "working"
        if element["state"] != want:
            return Illegality(("AL-PD-30",), f"the machine is {element['state']}")
        return None
    if kind == "use":
        left = fighter.items.get(act.item, 0)
        if left <= 0:
            return Illegality(("AL-PD-31",), f"{fighter.name} has no {act.item} left")
        # AL-16f: never in a reaction while engaged; equipment_blocked_when_engaged
        # extends the ban to the fighter's own turn (AL-PD-15) and only there
        eng = engaged(state, fighter)
        if eng and act.react:
            return Illegality(("AL-16",), "no equipment in a reaction while engaged")
        if eng and state.game.equipment_blocked_when_engaged:
            return Illegality(("AL-16", "AL-PD-15"), "no equipment while engaged")
        if act.item == "draught" and fighter.wounds >= fighter.w_max:
            return Illegality(("AL-PD-31",), f"{fighter.name} is unhurt")
        if act.item == "grapnel" and fighter.grapnel:
            return Illegality(("AL-PD-31",), "the grapnel is already in use")
        return None
    if kind in ("alert", "keep_alert"):
        return None  # AL-1, AL-27 (AP checked above; knocked down checked above)
    if kind in ("pass", "none"):
        return None
    return Illegality((), f"{kind} is not an action of this decision")


def _squares_out_of_contact(state: "AlertState", fighter: "Fighter",
                            squares: set[tuple[int, int]]) -> list[tuple[int, int]]:
    enemies = [o.pos for o in state.live() if o.team != fighter.team]
    return [sq for sq in squares
            if not any(max(abs(ex - sq[0]), abs(ey - sq[1])) <= 1 for ex, ey in enemies)]


def _move_family_ids(state: "AlertState", fighter: "Fighter", react: bool,
                     with_charges: bool) -> list[int]:
    """The legal move, disengage (and own-turn charge) ids of ``fighter``, from the squares it can
    reach: exactly those :func:`why_not` allows (its other conditions checked by the caller:
    not knocked down, and the AP). The move and disengage ids are kept in the board memo
    (:meth:`.AlertState.board_memo`: they depend only on the board and ``fighter``'s grapnel)."""
    game = state.game
    here = fighter.pos
    memo = board_memo(state) if state._scope is None else state._scope
    key = (fighter.gid, fighter.grapnel, react)
    moves = memo["move_ids"].get(key)
    if moves is None:
        if engaged(state, fighter):
            ids = game.react_disengage_ids if react else game.disengage_ids
            moves = [ids[(x - here[0], y - here[1])] for x, y in
                     _squares_out_of_contact(state, fighter, disengage_squares(state, fighter))]
        else:
            ids = game.react_move_ids if react else game.move_ids
            moves = [ids[(x - here[0], y - here[1])] for x, y in reach(state, fighter)
                     if (x, y) != here]
        memo["move_ids"][key] = moves
    out = list(moves)
    if with_charges and not engaged(state, fighter):
        reachable = reach(state, fighter)
        for slot in range(game.n_enemy_slots):
            target = state.fighters[state.enemy_gid(fighter.team, slot)]
            if target is None or not target.in_play \
                    or not in_front(fighter.facing, here, target.pos) \
                    or not los(state, here, target.pos):
                continue
            for side in range(8):
                if charge_square(state, target, side) in reachable:
                    out.append(game.charge_ids[(slot, side)])
    return out


def _candidate_ids(state: "AlertState", fighter: "Fighter",
                   groups: tuple[tuple[str, tuple[int, ...]], ...], react: bool) -> list[int]:
    """The ids of ``groups`` (``(kind, ids)`` pairs) that :func:`why_not` has to be asked
    about: it leaves out only ids :func:`why_not` refuses anyway (an own-turn kind whose AP
    ``fighter`` lacks, any kind but those of :data:`KNOCKED_DOWN_KINDS` while knocked down, an
    action on an element not next to ``fighter``), so that it is not asked label by label."""
    acts = state.game.acts
    near: set[int] | None = None
    out: list[int] = []
    for kind, ids in groups:
        if fighter.knocked_down and kind not in KNOCKED_DOWN_KINDS:
            continue
        if not react and fighter.ap < AP_COST.get(kind, 0):
            continue
        if kind in ELEMENT_KINDS:
            if near is None:
                near = {index for index, element in enumerate(state.elements)
                        if chebyshev(fighter.pos, (element["x"], element["y"])) <= 1}
            out += [i for i in ids if acts[i].element in near]
        else:
            out += ids
    return out


def legal_turn_ids(state: "AlertState", fighter: "Fighter") -> list[int]:
    """The sorted legal ids of ``fighter``'s own turn (``action`` decision): the same set as
    ``[i for i in game.turn_ids if why_not(state, f, game.acts[i]) is None]``."""
    game = state.game
    out = [i for i in _candidate_ids(state, fighter, game.turn_ids_by_kind, False)
           if why_not(state, fighter, game.acts[i]) is None]
    if not fighter.knocked_down and fighter.ap >= AP_COST["move"]:
        out += _move_family_ids(state, fighter, False, fighter.ap >= AP_COST["charge"])
    out.sort()
    return out


def legal_react_ids(state: "AlertState", fighter: "Fighter") -> list[int]:
    """The sorted legal ids of ``fighter``'s reaction menu (AL-16, AL-PD-35): the same set as
    ``[i for i in game.react_ids if why_not(state, f, game.acts[i]) is None]``."""
    game = state.game
    out = [i for i in _candidate_ids(state, fighter, game.react_ids_by_kind, True)
           if why_not(state, fighter, game.acts[i]) is None]
    if not fighter.knocked_down:
        out += _move_family_ids(state, fighter, True, False)
    out.sort()
    return out
