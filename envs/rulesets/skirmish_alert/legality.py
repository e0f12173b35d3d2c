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


def why_not(state: "AlertState", f: "Fighter", a: Act, paid: bool = False) -> Illegality | None:
    """Why fighter ``f`` may not take ``a`` now (``None``: allowed). Own-turn actions pay
    their AP (AL-PD-15); reaction-menu actions (``a.react``) follow AL-16 / AL-PD-35.
    ``paid``: an own-turn action whose AP was paid on declaration is checked again when it
    resolves after its window (AL-PD-20): every condition but the AP it already paid (an
    attack with the fighter's last AP is not lost for want of AP; AL-18, AL-24)."""
    k = a.kind
    if not a.react and not paid:
        cost = AP_COST.get(k, 0)
        if f.ap < cost:
            return Illegality(("AL-PD-15",), f"{k} costs {cost} AP, {f.name} has {f.ap}")
    if f.knocked_down and k not in KNOCKED_DOWN_KINDS:
        return Illegality(("AL-PD-11", "AL-PD-26"), f"{f.name} is knocked down and must "
                                                     f"stand up first")
    if k == "move":
        if engaged(state, f):
            return Illegality(("AL-16", "AL-PD-19"), f"{f.name} is engaged: disengage")
        if max(abs(a.dx), abs(a.dy)) > f.mov:
            return Illegality(("AL-PD-15",), f"{f.name} moves {f.mov} squares at most")
        dest = (f.x + a.dx, f.y + a.dy)
        if dest not in reach(state, f):
            return Illegality(("AL-PD-15", "AL-PD-16"), f"no free path within {f.name}'s "
                              f"MOV {f.mov} reaches {dest}")
        return None
    if k == "disengage":
        if not engaged(state, f):
            return Illegality(("AL-16", "AL-PD-15"), f"{f.name} is not engaged")
        dest = (f.x + a.dx, f.y + a.dy)
        if dest not in disengage_squares(state, f):
            return Illegality(("AL-PD-15", "AL-PD-16"), f"no free path of at most "
                              f"{DISENGAGE_MAX} squares reaches {dest}")
        if any(o.team != f.team and chebyshev(o.pos, dest) <= 1 for o in state.live()):
            return Illegality(("AL-PD-15",), "a disengage must end out of contact")
        return None
    if k in ("charge", "melee", "shoot"):
        gid = state.enemy_gid(f.team, a.target)
        t = state.fighters[gid]
        if t is None or not t.in_play:
            return Illegality(("AL-PD-22",), f"enemy slot e{a.target} is not in play")
        d = chebyshev(f.pos, t.pos)
        if k == "melee":
            if d != 1:
                return Illegality(("AL-16", "AL-PD-19"), f"{f.name} is not engaged with "
                                                         f"{t.name}")
            return None
        if engaged(state, f):
            return Illegality(("AL-16", "AL-PD-19"), f"{f.name} is engaged")
        if k == "charge":
            if not in_front(f.facing, f.pos, t.pos):
                return Illegality(("AL-PD-15",), f"{t.name} is not in the front arc")
            if not los(state, f.pos, t.pos):
                return Illegality(("AL-PD-15",), f"no line of sight to {t.name}")
            dest = charge_square(state, t, a.direction)
            if dest not in reach(state, f):
                return Illegality(("AL-PD-15", "AL-PD-20"), f"{dest}, next to {t.name}, is "
                                  f"not a free square {f.name} can reach")
            return None
        if f.ranged_weapon is None:
            return Illegality(("AL-PD-24",), f"{f.name} has no ranged weapon")
        if d > state.game.ranged_weapons[f.ranged_weapon].range:
            return Illegality(("AL-PD-24",), f"{t.name} is out of range")
        if not los(state, f.pos, t.pos):
            door = closed_door_on_line(state, f.pos, t.pos)
            if door is not None:
                return Illegality(("AL-PD-16", "AL-PD-30"), f"the closed door x{door} "
                                  f"blocks the line of sight to {t.name}")
            return Illegality(("AL-PD-16",), f"no line of sight to {t.name}")
        if not state.game.allow_shoot_into_melee and any(
                o.team == f.team for o in enemies_adjacent(state, t)):
            return Illegality(("AL-PD-25",), f"{t.name} is engaged with a friend")
        return None
    if k == "pivot":
        if a.direction == f.facing:
            return Illegality(("AL-PD-15",), f"{f.name} already faces {DIRECTIONS[f.facing]}")
        return None
    if k == "stand_up":
        if not f.knocked_down:
            return Illegality(("AL-PD-15",), f"{f.name} is not knocked down")
        return None
    if k in ("activate", "repair", "sabotage"):
        e = adjacent_element(state, f, a.element)
        if e is None:
            return Illegality(("AL-PD-15", "AL-PD-30"), f"not next to element x{a.element}")
        kind = e["kind"]
        if k == "activate":
            if kind == "machine":
                return Illegality(("AL-PD-30",), "a machine is repaired or sabotaged")
            if kind == "objective" and e["held_by"] == f.team:
                return Illegality(("AL-PD-30",), "the objective is already held")
            if kind == "door" and e["state"] == "open" and \
                    occupant(state, e["x"], e["y"]) is not None:
                return Illegality(("AL-PD-30",), "a fighter stands in the doorway")
            if kind == "lever" and e["controls"] is not None:
                door = state.elements[e["controls"]]
                if door["state"] == "open" and occupant(state, door["x"], door["y"]):
                    return Illegality(("AL-PD-30",), "a fighter stands in its doorway")
            return None
        if kind != "machine":
            return Illegality(("AL-PD-30",), f"a {kind} is activated, not {k}ed")
        want = "broken" if k == "repair" else "working"
        if e["state"] != want:
            return Illegality(("AL-PD-30",), f"the machine is {e['state']}")
        return None
    if k == "use":
        left = f.items.get(a.item, 0)
        if left <= 0:
            return Illegality(("AL-PD-31",), f"{f.name} has no {a.item} left")
        # AL-16f: never in a reaction while engaged; equipment_blocked_when_engaged
        # extends the ban to the fighter's own turn (AL-PD-15) and only there
        eng = engaged(state, f)
        if eng and a.react:
            return Illegality(("AL-16",), "no equipment in a reaction while engaged")
        if eng and state.game.equipment_blocked_when_engaged:
            return Illegality(("AL-16", "AL-PD-15"), "no equipment while engaged")
        if a.item == "draught" and f.wounds >= f.w_max:
            return Illegality(("AL-PD-31",), f"{f.name} is unhurt")
        if a.item == "grapnel" and f.grapnel:
            return Illegality(("AL-PD-31",), "the grapnel is already in use")
        return None
    if k in ("alert", "keep_alert"):
        return None  # AL-1, AL-27 (AP checked above; knocked down checked above)
    if k in ("pass", "none"):
        return None
    return Illegality((), f"{k} is not an action of this decision")


def _squares_out_of_contact(state: "AlertState", f: "Fighter",
                            squares: set[tuple[int, int]]) -> list[tuple[int, int]]:
    enemies = [o.pos for o in state.live() if o.team != f.team]
    return [sq for sq in squares
            if not any(max(abs(ex - sq[0]), abs(ey - sq[1])) <= 1 for ex, ey in enemies)]


def _move_family_ids(state: "AlertState", f: "Fighter", react: bool,
                     with_charges: bool) -> list[int]:
    """The legal move, disengage (and own-turn charge) ids of ``f``, from the squares it can
    reach: exactly those :func:`why_not` allows (its other conditions checked by the caller:
    not knocked down, and the AP). The move and disengage ids are kept in the board memo
    (:meth:`.AlertState.board_memo`: they depend only on the board and ``f``'s grapnel)."""
    g = state.game
    here = f.pos
    memo = board_memo(state) if state._scope is None else state._scope
    key = (f.gid, f.grapnel, react)
    moves = memo["move_ids"].get(key)
    if moves is None:
        if engaged(state, f):
            ids = g.react_disengage_ids if react else g.disengage_ids
            moves = [ids[(x - here[0], y - here[1])] for x, y in
                     _squares_out_of_contact(state, f, disengage_squares(state, f))]
        else:
            ids = g.react_move_ids if react else g.move_ids
            moves = [ids[(x - here[0], y - here[1])] for x, y in reach(state, f)
                     if (x, y) != here]
        memo["move_ids"][key] = moves
    out = list(moves)
    if with_charges and not engaged(state, f):
        reachable = reach(state, f)
        for j in range(g.n_enemy_slots):
            t = state.fighters[state.enemy_gid(f.team, j)]
            if t is None or not t.in_play or not in_front(f.facing, here, t.pos) \
                    or not los(state, here, t.pos):
                continue
            for side in range(8):
                if charge_square(state, t, side) in reachable:
                    out.append(g.charge_ids[(j, side)])
    return out


def _candidate_ids(state: "AlertState", f: "Fighter",
                   groups: tuple[tuple[str, tuple[int, ...]], ...], react: bool) -> list[int]:
    """The ids of ``groups`` (``(kind, ids)`` pairs) that :func:`why_not` has to be asked
    about: it leaves out only ids :func:`why_not` refuses anyway (an own-turn kind whose AP
    ``f`` lacks, any kind but those of :data:`KNOCKED_DOWN_KINDS` while knocked down, an
    action on an element not next to ``f``), so that it is not asked label by label."""
    acts = state.game.acts
    near: set[int] | None = None
    out: list[int] = []
    for kind, ids in groups:
        if f.knocked_down and kind not in KNOCKED_DOWN_KINDS:
            continue
        if not react and f.ap < AP_COST.get(kind, 0):
            continue
        if kind in ELEMENT_KINDS:
            if near is None:
                near = {index for index, element in enumerate(state.elements)
                        if chebyshev(f.pos, (element["x"], element["y"])) <= 1}
            out += [i for i in ids if acts[i].element in near]
        else:
            out += ids
    return out


def legal_turn_ids(state: "AlertState", f: "Fighter") -> list[int]:
    """The sorted legal ids of ``f``'s own turn (``action`` decision): the same set as
    ``[i for i in game.turn_ids if why_not(state, f, game.acts[i]) is None]``."""
    g = state.game
    out = [i for i in _candidate_ids(state, f, g.turn_ids_by_kind, False)
           if why_not(state, f, g.acts[i]) is None]
    if not f.knocked_down and f.ap >= AP_COST["move"]:
        out += _move_family_ids(state, f, False, f.ap >= AP_COST["charge"])
    out.sort()
    return out


def legal_react_ids(state: "AlertState", f: "Fighter") -> list[int]:
    """The sorted legal ids of ``f``'s reaction menu (AL-16, AL-PD-35): the same set as
    ``[i for i in game.react_ids if why_not(state, f, game.acts[i]) is None]``."""
    g = state.game
    out = [i for i in _candidate_ids(state, f, g.react_ids_by_kind, True)
           if why_not(state, f, g.acts[i]) is None]
    if not f.knocked_down:
        out += _move_family_ids(state, f, True, False)
    out.sort()
    return out
