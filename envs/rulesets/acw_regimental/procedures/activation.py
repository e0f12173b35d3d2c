"""One unit's activation in Phase 2 (ACW-PD-12, ACW-PD-21): it takes movement primitives one at
a time (advance, retire, side-step, wheel, face, formation change, detach or re-join a skirmish
stand) until it ends its activation, declares a charge (ACW-PD-23) as its first primitive, or
is lost.

Each primitive that moves the unit pushes a :class:`.move.Move` (the path, stopped at every
Window A trigger point, ACW-PD-24); a charge pushes a :class:`.charge.Charge`. The legal list is
built by :func:`legal_primitives`, a fast twin of :func:`reference_legal_primitives` (which asks
:func:`why_primitive_illegal` label by label; the tests check the two agree).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from envs.core.errors import InvalidStateError
from envs.core.geometry import Footprint, distance_exceeds, footprint_distance
from envs.core.procedure import Done, Frame, Push, Step, Wait, register
from envs.core.protocol import Illegality

from .. import tables
from ..blocking import Blocked
from ..tables import Refusal
from ..actions import ACWDecision, Verb
from ..movement import circ, partly_in_arc, plan_path
from ..paths import _fp_list, path_fn, path_speed
from ..units import FORMATION_BY_VALUE, UNIT_KIND_BY_VALUE, footprint_size, new_unit
from .charge import declare_charge
from .context import ACWContext
from .move import Move, passage_of_lines
from .. import blocking, effects, queries
from .charge import charge_blocker, charge_destination

if TYPE_CHECKING:
    from ..state import ACWState
    from ..units import Unit

__all__ = ["MAX_PRIMITIVES", "Activation", "legal_primitives", "reference_legal_primitives",
           "why_no_charge", "why_primitive_illegal"]

MAX_PRIMITIVES = 8  # engine cap on primitives per activation (keeps episodes finite)
WHEEL_ANGLE = math.pi / 4
HALF_WHEEL_ANGLE = math.pi / 8
#: the share of the remaining allowance each advance primitive uses (ACW-PD-21)
ADVANCE_FRACTION = {"third": 1 / 3, "two_thirds": 2 / 3, "all": 1.0}
FACING_TURN = {"face_left": math.pi / 2, "face_right": -math.pi / 2, "face_about": math.pi}
FORMATION_ARGS = {"infantry": ("line", "assault_column", "road_column"),
                  "cavalry": ("line", "road_column"), "artillery": ("limber", "unlimber")}
WHEEL_ARGS = ("left", "right", "left_half", "right_half")
COLUMNS = ("assault_column", "road_column", "limbered")


@register
@dataclass(slots=True)
class Activation(Frame["ACWState"]):
    """The activation of the active side's unit ``unit`` (ACW-PD-12, ACW-PD-21).

    Fields: ``allowance_left`` — the share (0..1) of the movement allowance still unused;
    ``primitives`` — primitives taken so far (a charge only as the first, ACW-PD-23);
    ``pivots`` — column pivots / battery pivots taken (ACW-PD-19, PD-21); ``skirmish_done`` —
    a stand was detached or re-joined (once per activation, ACW-PD-30); ``on_road`` — still
    moving at the road rate (ACW-PD-19); ``distance`` — inches moved (leaving smoke,
    ACW-PD-22); ``ended`` — the activation is over (a charge was declared, the screen
    re-joined, or the unit was lost while moving).
    """

    kind = "acw.activation"
    auto_apply_forced = True

    unit: int
    allowance_left: float = 1.0
    primitives: int = 0
    pivots: int = 0
    skirmish_done: bool = False
    on_road: bool = False
    distance: float = 0.0
    ended: bool = False

    def run(self, state: ACWState) -> Step:
        unit = state.units[state.active][self.unit]
        if unit is None or not unit.alive or unit.engaged or self.ended:
            return Done()
        return Wait(state.active, ACWDecision.MANEUVER)

    def legal_actions(self, state: ACWState) -> list[int]:
        return sorted(legal_primitives(state, self))

    def why_illegal(self, state: ACWState, action: int) -> Illegality | None:
        why = _why_activation_illegal(state, self, action)
        return Illegality(tuple(why[0]), why[1]) if why is not None else None

    def apply(self, state: ACWState, action: int) -> Step:
        return _apply(state, self, action)

    def on_child_done(self, state: ACWState, child: Frame) -> None:
        if type(child) is not Move:
            return
        if child.unit_lost:
            self.ended = True
            return
        unit = state.unit_in(state.active, child.unit)
        if not child.static:
            self.allowance_left = max(0.0, self.allowance_left - child.cost / child.allowance) \
                if child.allowance > 0 else 0.0
            self.distance += child.path_length
        if unit.smoke >= 0 and self.distance >= tables.MOVE_OUT_OF_SMOKE - 1e-9:
            unit.smoke = -1
            unit.out_of_smoke = True
            state.log("smoke_left", ("RULE-04-3.4", "ACW-PD-22"),
                      f"{unit.label()} moves out of its smoke (may fire at -1)", state.active,
                      unit=unit.slot)

    def context(self, state: ACWState, viewer: int) -> ACWContext:
        return ACWContext(self.kind, state.active, ACWDecision.MANEUVER,
                          (state.active, self.unit), None, "activation")

    def budget(self, state: ACWState, unit: Unit) -> float:
        """Inches of movement left (the unused share of the allowance, ACW-PD-19)."""
        return self.allowance_left * queries.allowance(state, unit, self.on_road)


# ---------------------------------------------------------------------------------------------
# the legal list
# ---------------------------------------------------------------------------------------------
def legal_primitives(state: ACWState, act: Activation) -> list[int]:
    """Legal primitive and charge ids of the activating unit, unsorted (the exact shortcuts
    below give the same list as :func:`reference_legal_primitives`)."""
    ids = state.game.ids
    by_verb = ids.primitive_ids
    wheel_ids = by_verb[Verb.WHEEL]
    unit = state.unit_in(state.active, act.unit)
    out = [ids.end_activation]
    if act.primitives >= MAX_PRIMITIVES:
        return out
    allowance = queries.allowance(state, unit, act.on_road)
    budget = act.allowance_left * allowance
    fp = unit.fp
    form = unit.formation
    # built afresh (the unit has just moved, so no earlier predicate fits) and handed to
    # the handler of the decision taken from this list (see ACWState._apply_action)
    blocked = blocking.make_blocked_fn(state, unit, fp)
    state._lact_pred = (unit, fp, blocked)
    # exact shortcut: a test footprint whose centre moves less than ``free`` from the
    # current one is unblocked (see _make_blocked_fn), so it need not be built
    free = blocked.free_r
    screen = unit.is_screen
    column = form in COLUMNS
    # formation changes (ACW-PD-21.5)
    if not screen and not unit.disordered and \
            act.allowance_left >= formation_change_share(unit) - 1e-9:
        for arg in FORMATION_ARGS[unit.kind]:
            target = formation_target(unit, arg)
            if target is not None and target != form and \
                    reformed_footprint(state, unit, target, blocked) is not None:
                out.append(by_verb[Verb.FORMATION][arg])
    if not act.skirmish_done:
        # exact shortcut: why_skirmish_illegal refuses at once a detach by a screen, a unit not
        # in Line, one with a stand out or fewer than 3 stands, and a rejoin with nothing
        # to re-join
        if not screen and unit.screen < 0 and unit.stands >= 3 and \
                form in ("line", "mounted_line") and \
                why_skirmish_illegal(state, act, unit, "detach") is None:
            out.append(by_verb[Verb.SKIRMISH]["detach"])
        if (screen or unit.screen >= 0) and \
                why_skirmish_illegal(state, act, unit, "rejoin") is None:
            out.append(by_verb[Verb.SKIRMISH]["rejoin"])
    if form == "unlimbered":
        if act.pivots < 1:
            for arg in WHEEL_ARGS:
                if free > 1e-6 or not blocked(turned_footprint(unit, arg, "centre")):
                    out.append(wheel_ids[arg])
        return out
    if budget > 0.05:
        step_free = free > 0.05 + 1e-6
        if step_free or not blocked(fp.advanced(0.05)):
            out += by_verb[Verb.ADVANCE].values()  # third, two_thirds, all
        else:
            for arg in passable_advances(state, unit, budget):
                out.append(by_verb[Verb.ADVANCE][arg])
        if step_free or not blocked(fp.advanced(-0.05)):
            out.append(by_verb[Verb.RETIRE][""])
        if form == "line" and unit.kind == "infantry" and not screen and budget >= 0.1:
            if step_free or not blocked(fp.sidestepped(0.05)):
                out.append(by_verb[Verb.SIDESTEP]["right"])
            if step_free or not blocked(fp.sidestepped(-0.05)):
                out.append(by_verb[Verb.SIDESTEP]["left"])
    if screen:
        for arg in WHEEL_ARGS:
            if free > 1e-6 or not blocked(turned_footprint(unit, arg, "centre")):
                out.append(wheel_ids[arg])
    elif column:
        if act.pivots < tables.MAX_COLUMN_PIVOTS and \
                budget >= tables.COLUMN_PIVOT_COST - 1e-9:
            for arg in WHEEL_ARGS:
                # the centre swings at most angle x depth/2 about the front-edge centre
                angle = HALF_WHEEL_ANGLE if arg.endswith("_half") else WHEEL_ANGLE
                if free > angle * 0.5 * fp.depth + 1e-6 or \
                        not blocked(turned_footprint(unit, arg, "head")):
                    out.append(wheel_ids[arg])
    elif form in ("line", "mounted_line") and budget > 0.05:
        corner_radius = circ(fp)[2]  # a front corner is this far from the centre
        for arg in WHEEL_ARGS:
            angle = HALF_WHEEL_ANGLE if arg.endswith("_half") else WHEEL_ANGLE
            pivot = "left" if arg.startswith("left") else "right"
            sign = 1.0 if pivot == "left" else -1.0
            first_step = min(angle, 0.05 / fp.width)
            if free > first_step * corner_radius + 1e-6 or \
                    not blocked(fp.wheeled(sign * first_step, pivot)):
                out.append(wheel_ids[arg])
    cost = 0.0 if screen else (tables.COLUMN_PIVOT_COST if column else 0.5 * allowance)
    if cost <= budget + 1e-9:
        for arg in ("left", "right", "about"):
            if free > 1e-6 or not blocked(turned_footprint(unit, "face_" + arg, "centre")):
                out.append(by_verb[Verb.FACE][arg])
    if act.primitives == 0 and not screen and not unit.disordered and unit.moved <= 0 and \
            not unit.charged and state.pips[unit.side] >= 1 and \
            tables.can_charge(UNIT_KIND_BY_VALUE[unit.kind], FORMATION_BY_VALUE[unit.formation]):
        reach = charge_reach(state, unit)
        cx, cy = fp.centre()
        near = 0.5 * math.hypot(fp.width, fp.depth) + reach
        for enemy in state.alive(1 - state.active):
            ex, ey = enemy.fp.centre()
            limit = near + 0.5 * math.hypot(enemy.fp.width, enemy.fp.depth)
            if (cx - ex) ** 2 + (cy - ey) ** 2 > limit * limit:
                continue
            if why_no_charge(state, unit, enemy) is None:
                out.append(ids.charge[enemy.slot])
    return out


def reference_legal_primitives(state: ACWState, act: Activation) -> list[int]:
    """The legal list the slow way: every primitive label through
    :func:`why_primitive_illegal`, every enemy through :func:`why_no_charge` (unsorted)."""
    ids = state.game.ids
    unit = state.unit_in(state.active, act.unit)
    out = [ids.end_activation]
    if act.primitives >= MAX_PRIMITIVES:
        return out
    memo = {"budget": act.budget(state, unit)}
    for label, action in ids.prim.items():
        if why_primitive_illegal(state, act, unit, label, memo) is None:
            out.append(action)
    if act.primitives == 0:
        for enemy in state.alive(1 - state.active):
            if why_no_charge(state, unit, enemy) is None:
                out.append(ids.charge[enemy.slot])
    return out


def _why_activation_illegal(state: ACWState, act: Activation, action: int) -> Refusal | None:
    ids = state.game.ids
    unit = state.unit_in(state.active, act.unit)
    if act.primitives >= MAX_PRIMITIVES:
        return ("ACW-PD-21",), \
            f"engine cap of {MAX_PRIMITIVES} primitives per activation reached"
    label = state.game.actions.labels[action]
    if label in ids.prim:
        return why_primitive_illegal(state, act, unit, label)
    if action in ids.charge:
        if act.primitives > 0:
            return ("ACW-PD-23",), "a unit that has already moved this phase cannot charge"
        enemy = state.units[1 - state.active][ids.charge.index(action)]
        if enemy is None or not enemy.alive:
            return ("ACW-PD-23",), "no enemy unit in that slot"
        return why_no_charge(state, unit, enemy)
    return None


def why_primitive_illegal(state: ACWState, act: Activation, unit: Unit, label: str,
                          memo: dict[str, Any] | None = None) -> Refusal | None:
    """``None`` if the primitive ``label`` (``"advance:third"``, ``"wheel:left"``, ...) is
    legal for ``unit`` now, else ``(rule ids, reason)`` (ACW-PD-19, PD-21, PD-29, PD-30).
    ``memo``: shared by the calls of one :func:`reference_legal_primitives`."""
    kind, _, arg = label.partition(":")
    form = unit.formation
    budget = memo["budget"] if memo else act.budget(state, unit)
    line_like = form in ("line", "mounted_line") and not unit.is_screen
    column = form in COLUMNS
    if kind == "formation":
        if unit.is_screen:
            return ("ACW-PD-30",), "a skirmish stand has no formations"
        if unit.disordered:
            return ("ACW-PD-21", "ACW-PD-31"), "a Disordered unit may not change formation"
        target = formation_target(unit, arg)
        if target is None or target == form:
            return ("ACW-PD-21",), f"{arg} is not a new formation for this {unit.kind}"
        if act.allowance_left < formation_change_share(unit) - 1e-9:
            return ("ACW-PD-21", "ACW-PD-7"), "not enough allowance left to change formation"
        if reformed_footprint(state, unit, target) is None:
            return ("ACW-PD-21",), "no room to re-form here"
        return None
    if kind == "skirmish":
        return why_skirmish_illegal(state, act, unit, arg)
    if form == "unlimbered":
        if kind == "wheel" and arg in WHEEL_ARGS:
            if act.pivots >= 1:
                return ("ACW-PD-19",), "an unlimbered battery pivots at most once (45°)"
            return None if _turn_is_clear(state, unit, arg, "centre") else \
                (("ACW-PD-21",), "no room to pivot")
        return ("ACW-PD-19",), "an unlimbered battery may only pivot in place"
    if kind in ("advance", "retire", "sidestep"):
        if budget <= 0.05:
            return ("ACW-PD-19",), "no movement allowance left"
        if kind == "sidestep" and not (unit.formation == "line" and unit.kind == "infantry"
                                       and not unit.is_screen):
            return ("ACW-PD-21",), "only a Line may side-step"
        if kind == "sidestep" and budget < 0.1:
            return ("ACW-PD-21",), "no allowance for a side-step at double cost"
        fp0 = unit.fp
        memo_key = kind + arg if kind == "sidestep" else kind
        if memo is not None and memo_key in memo:
            return memo[memo_key]
        if kind == "advance":
            test = fp0.advanced(0.05)
        elif kind == "retire":
            test = fp0.advanced(-0.05)
        else:
            test = fp0.sidestepped(0.05 if arg == "right" else -0.05)
        result = None
        if kind == "advance" and blocking.blocked_fn(state, unit, fp0)(test):
            if arg in passable_advances(state, unit, budget):
                return None
            return ("ACW-PD-21", "ACW-PD-29"), "blocked at once (table edge, 2\" " \
                "no-approach zone or a friendly unit it cannot pass through)"
        if blocking.blocked_fn(state, unit, fp0)(test):
            result = ("ACW-PD-21",), "the move would not move the unit (blocked: table " \
                                     "edge, 2\" no-approach zone or a friendly unit)"
        if memo is not None:
            memo[memo_key] = result
        return result
    if kind == "wheel":
        half = arg.endswith("_half")
        if unit.is_screen:
            return None if _turn_is_clear(state, unit, arg, "centre") else \
                (("ACW-PD-21",), "no room")
        if column:
            if act.pivots >= tables.MAX_COLUMN_PIVOTS:
                return ("ACW-PD-21",), "a column may pivot at most twice per activation"
            if budget < tables.COLUMN_PIVOT_COST - 1e-9:
                return ("ACW-PD-21",), "a column pivot costs 1\""
            return None if _turn_is_clear(state, unit, arg, "head") else \
                (("ACW-PD-21",), "no room")
        if line_like:
            angle = HALF_WHEEL_ANGLE if half else WHEEL_ANGLE
            if budget <= 0.05:
                return ("ACW-PD-21",), "no movement allowance left"
            pivot = "left" if arg.startswith("left") else "right"
            sign = 1.0 if pivot == "left" else -1.0
            test = unit.fp.wheeled(sign * min(angle, 0.05 / unit.fp.width), pivot)
            if blocking.blocked_fn(state, unit, unit.fp)(test):
                return ("ACW-PD-21",), "the wheel is blocked"
            return None
        return ("ACW-PD-21",), "this formation cannot wheel"
    if kind == "face":
        cost = facing_cost(state, act, unit)
        if cost > budget + 1e-9:
            return ("ACW-PD-21",), \
                f"facing costs {cost:.1f}\" of allowance ({budget:.1f}\" left)"
        return None if _turn_is_clear(state, unit, "face_" + arg, "centre") else \
            (("ACW-PD-21",), "no room to face")
    return ("ACW-PD-21",), "unknown primitive"


def why_skirmish_illegal(state: ACWState, act: Activation, unit: Unit, arg: str
                         ) -> Refusal | None:
    """``None`` if ``unit`` may ``detach`` a skirmish stand or ``rejoin`` one now, else
    ``(rule ids, reason)`` (ACW-PD-30)."""
    if act.skirmish_done:
        return ("ACW-PD-21", "ACW-PD-30"), "detach/re-join once per activation"
    if arg == "detach":
        if unit.is_screen:
            return ("ACW-PD-30",), "a skirmish stand cannot detach"
        if unit.formation not in ("line", "mounted_line"):
            return ("ACW-PD-30",), "only a Line (or mounted cavalry line) may detach a stand"
        if not unit.good_order:
            return ("ACW-PD-30", "ACW-PD-31"), "the unit is not in good order"
        if unit.screen >= 0:
            return ("ACW-PD-30",), "at most one detached stand per regiment"
        if unit.stands < 3:
            return ("ACW-PD-30",), "too few stands to detach one"
        if free_slot(state, unit.side) < 0:
            return ("ACW-PD-30",), "no free unit slot for the stand (max_units_per_side)"
        if detached_footprint(state, unit) is None:
            return ("ACW-PD-30",), "no room in front to place the stand"
        return None
    # rejoin
    if unit.is_screen:
        parent = state.units[unit.side][unit.parent] if unit.parent >= 0 else None
        if parent is None or not parent.alive:
            return ("ACW-PD-30",), "the parent regiment is gone"
        if distance_exceeds(unit.fp, parent.fp, act.budget(state, unit) + 1e-6):
            return ("ACW-PD-30",), "the parent is beyond this stand's remaining move"
    else:
        if unit.screen < 0:
            return ("ACW-PD-30",), "no detached stand to re-join"
        stand = state.units[unit.side][unit.screen]
        parent = unit
        if stand is None or not stand.alive or \
                distance_exceeds(stand.fp, unit.fp, tables.SKIRMISH_LEASH):
            return ("ACW-PD-30",), "the detached stand is more than 6\" away"
    if parent.formation not in ("line", "mounted_line"):
        return ("ACW-PD-30",), "the parent must be in Line to receive the stand"
    if parent.engaged:
        return ("ACW-PD-30",), "the parent is engaged"
    return None


def charge_reach(state: ACWState, unit: Unit) -> float:
    """The charge distance of ``unit`` (ACW-PD-23; 12" for cavalry with the game option)."""
    return 12.0 if (state.game.cavalry_charge_12 and unit.kind == "cavalry") \
        else tables.CHARGE_DISTANCE


def why_no_charge(state: ACWState, unit: Unit, enemy: Unit) -> Refusal | None:
    """``None`` if ``unit`` may declare a charge on ``enemy`` (ACW-PD-23 step 1), else
    ``(rule ids, reason)``."""
    if not tables.can_charge(UNIT_KIND_BY_VALUE[unit.kind],
                             FORMATION_BY_VALUE[unit.formation]) or unit.is_screen:
        return ("ACW-PD-23", "ACW-PD-19"), \
            f"a {unit.kind} unit in {unit.formation} cannot charge"
    if unit.disordered:
        return ("ACW-PD-23", "ACW-PD-31", "I-26"), "a Disordered unit may not declare a charge"
    if unit.health is tables.Health.SPENT:
        return ("ACW-PD-23", "ACW-PD-9"), "a Spent unit cannot charge"
    if unit.moved > 0 or unit.charged:
        return ("ACW-PD-23",), "the unit has already moved this phase"
    if state.pips[unit.side] < 1:
        return ("ACW-PD-23", "ACW-PD-14"), "declaring a charge costs 1 Staff Pip; none left"
    reach = charge_reach(state, unit)
    distance = footprint_distance(unit.fp, enemy.fp)
    if distance > reach + 1e-9:
        return ("RULE-04-6.1", "ACW-PD-23"), \
            f"the target is {distance:.1f}\" away (max {reach:.0f}\")"
    if not partly_in_arc(unit.fp, enemy.fp):
        return ("ACW-PD-23", "ACW-PD-16"), "the target is not in the charger's forward arc"
    # an engaged target may be charged again: friends fight it as one side (ACW-PD-26)
    # when the contacted edge still has room beside them (ACW-PD-23 step 7); the friends in
    # contact with it do not hide it (engine ruling)
    skip = tuple(other for other in state.alive(unit.side) if other.slot in enemy.engaged)
    if not queries.los(state, unit.fp, enemy.fp, skip):
        return ("ACW-PD-23", "ACW-PD-17"), "the target is not visible"
    zone = queries.contact_zone(state, unit, enemy)
    dest = charge_destination(state, unit, enemy, zone)
    if dest is None:
        return ("ACW-PD-23", "ACW-PD-26"), \
            f"no room on {enemy.label()}'s {zone} edge for the charger to make contact"
    blocker = charge_blocker(state, unit, enemy, dest)
    if blocker is not None:
        return ("ACW-PD-23",), f"the charge path is blocked by {blocker.label()}"
    return None


# ---------------------------------------------------------------------------------------------
# footprints the primitives would give
# ---------------------------------------------------------------------------------------------
def turned_footprint(unit: Unit, arg: str, about: str) -> Footprint:
    """``unit``'s footprint after the wheel ``arg`` (about its ``centre`` or its column
    ``head``) or the facing ``face_left`` / ``face_right`` / ``face_about``."""
    fp = unit.fp
    if arg.startswith("face_"):
        return fp.faced(FACING_TURN[arg])
    angle = HALF_WHEEL_ANGLE if arg.endswith("_half") else WHEEL_ANGLE
    if arg.startswith("right"):
        angle = -angle
    if about == "head":
        return fp.rotated_about((fp.x, fp.y), angle)
    return fp.faced(angle)


def _turn_is_clear(state: ACWState, unit: Unit, arg: str, about: str) -> bool:
    return not blocking.blocked_fn(state, unit, unit.fp)(turned_footprint(unit, arg, about))


def formation_target(unit: Unit, arg: str) -> str | None:
    """The formation the primitive ``formation:<arg>`` gives ``unit``, or ``None``."""
    return _FORMATION_TARGETS[unit.kind].get(arg)


#: ``formation:<arg>`` -> the formation it gives, by unit kind (ACW-PD-21.5)
_FORMATION_TARGETS = {
    "infantry": {"line": "line", "assault_column": "assault_column",
                 "road_column": "road_column"},
    "cavalry": {"line": "mounted_line", "road_column": "road_column"},
    "artillery": {"limber": "limbered", "unlimber": "unlimbered"}}


def formation_change_share(unit: Unit) -> float:
    """Formation change costs half the allowance, the whole for Green (ACW-PD-21.5)."""
    return 1.0 if unit.experience == "green" else 0.5


def facing_cost(state: ACWState, act: Activation, unit: Unit) -> float:
    """Inches of allowance a facing change costs (ACW-PD-21)."""
    if unit.is_screen:
        return 0.0
    if unit.formation in COLUMNS:
        return tables.COLUMN_PIVOT_COST
    return 0.5 * queries.allowance(state, unit, act.on_road)


def reformed_footprint(state: ACWState, unit: Unit, target: str,
                       blocked: Blocked | None = None) -> Footprint | None:
    """Footprint after re-forming on the centre, keeping the facing (ACW-PD-21.5), or
    ``None`` when blocked. ``blocked``: the caller's clipping predicate, if it has it."""
    width, depth = footprint_size(unit.kind, target, unit.stands)
    cx, cy = unit.fp.centre()
    fx, fy = unit.fp.forward()
    new_fp = Footprint(cx + fx * depth / 2, cy + fy * depth / 2, unit.fp.heading, width, depth)
    if (blocked or blocking.blocked_fn(state, unit, unit.fp))(new_fp):
        return None
    return new_fp


def free_slot(state: ACWState, side: int) -> int:
    """The first empty unit slot of ``side``, or -1."""
    for slot, occupant in enumerate(state.units[side]):
        if occupant is None:
            return slot
    return -1


def detached_footprint(state: ACWState, unit: Unit) -> Footprint | None:
    """Where a stand detached by ``unit`` is placed (ACW-PD-30): facing as ``unit``, 2", 1" or
    1/4" ahead of its front edge, the first of these spots that is on the table and not
    within 1" (the skirmishers' no-approach distance, ACW-PD-21.7) of an enemy; ``None``
    when none is."""
    width, depth = footprint_size(unit.kind, "skirmish", 1)
    ufp = unit.fp
    base = Footprint(ufp.x, ufp.y, ufp.heading, width, depth)
    on_table = state.game.terrain.on_table
    enemies = [e.fp for e in state.units[1 - unit.side] if e is not None and e.alive]
    near = tables.SKIRMISH_NO_APPROACH
    for gap in (2.0, 1.0, 0.25):
        fp = base.advanced(gap + depth)
        if not on_table(fp):
            continue
        cx, cy = fp.centre()
        for efp in enemies:
            # bounding-circle rejection first (a stand's half-diagonal is under 1")
            ex, ey, er = circ(efp)
            reach = er + 2.0
            if (cx - ex) ** 2 + (cy - ey) ** 2 <= reach * reach and \
                    footprint_distance(fp, efp) < near:
                break
        else:
            return fp
    return None


def passable_advances(state: ACWState, unit: Unit, budget: float) -> list[str]:
    """The advance distances (``third``, ``two_thirds``, ``all`` of ``budget``) that stay
    legal for a unit blocked at once by a friend: a Passage of Lines within that distance
    ends entirely clear on the far side after paying 3" (ACW-PD-29)."""
    if unit.is_screen or budget <= tables.PASSAGE_OF_LINES_COST:
        return []
    fp0 = unit.fp
    blocked_by_enemies = blocking.make_blocked_fn(state, unit, fp0, (), friends_block=False)
    if blocked_by_enemies(fp0.advanced(0.05)):
        return []
    return [arg for arg, share in ADVANCE_FRACTION.items()
            if passage_of_lines(state, unit, lambda t: fp0.advanced(t), budget * share, budget,
                                1.0, 0.0, 0.0, dry=True,
                                blocked_by_enemies=blocked_by_enemies)[2]]


# ---------------------------------------------------------------------------------------------
# applying a primitive
# ---------------------------------------------------------------------------------------------
def _apply(state: ACWState, act: Activation, action: int) -> Step:
    ids = state.game.ids
    side = state.active
    unit = state.unit_in(side, act.unit)
    if action == ids.end_activation:
        return _finish(state, unit)
    act.primitives += 1
    if action in ids.charge:
        enemy = state.unit_in(1 - side, ids.charge.index(action))
        charge = declare_charge(state, unit, enemy)
        act.ended = True
        return Push(charge)
    verb, arg = ids.primitive[action]
    if verb is not Verb.SKIRMISH and unit.refused:
        state.log("refuse_end", ("I-27", "ACW-PD-33"),
                  f"{unit.label()} moves: its refused {unit.refused} flank re-forms", side,
                  unit=unit.slot)
        unit.refused, unit.refused_n = "", 0
    if verb is Verb.ADVANCE or verb is Verb.RETIRE or verb is Verb.SIDESTEP:
        return Push(_start_linear(state, act, unit, verb.value, arg))
    if verb is Verb.WHEEL:
        return Push(_start_wheel(state, act, unit, arg))
    if verb is Verb.FACE:
        cost = facing_cost(state, act, unit)
        new_fp = turned_footprint(unit, "face_" + arg, "centre")
        return Push(_start_static(state, act, unit, new_fp, cost,
                                  queries.allowance(state, unit, act.on_road), f"face {arg}",
                                  ("ACW-PD-21",)))
    if verb is Verb.FORMATION:
        return Push(_start_formation(state, act, unit, arg))
    # skirmish
    act.skirmish_done = True
    if arg == "detach":
        _detach(state, unit)
    else:
        stand = unit if unit.is_screen else state.unit_in(side, unit.screen)
        if unit.is_screen:
            act.ended = True
        effects.rejoin(state, stand, ("ACW-PD-30",), "re-joined in Phase 2")
    return None


def _finish(state: ACWState, unit: Unit) -> Done:
    side = state.active
    if unit is not None and unit.alive and unit.is_screen and unit.parent >= 0:
        parent = state.units[side][unit.parent]
        if parent is not None and parent.alive and \
                distance_exceeds(unit.fp, parent.fp, tables.SKIRMISH_LEASH):
            effects.rejoin(state, unit, ("ACW-PD-30",), "ended more than 6\" from its parent")
    state.log("end_activation", ("ACW-PD-12",), f"{unit.label() if unit else 'unit'} ends its "
              f"activation", side)
    return Done()


def _start_linear(state: ACWState, act: Activation, unit: Unit, kind: str, arg: str) -> Move:
    if act.on_road and not _stays_on_road(state, act, unit, kind, arg):
        # ACW-PD-19: the road rate needs the entire move on the road; a path leaving it
        # ends the road rate for the activation (inches used so far re-priced)
        road_rate = queries.allowance(state, unit, True)
        normal_rate = queries.allowance(state, unit, False)
        act.on_road = False
        act.allowance_left = max(0.0, 1.0 - (1.0 - act.allowance_left) * road_rate /
                                 max(normal_rate, 1e-9))
    budget = act.budget(state, unit)
    allowance = queries.allowance(state, unit, act.on_road)
    if kind == "advance":
        path = ["adv", _fp_list(unit.fp), 1.0]
        max_length, rate = budget * ADVANCE_FRACTION[arg], 1.0
    elif kind == "retire":
        rate = tables.BACKWARD_COST_FACTOR if not unit.is_screen else 1.0
        path = ["adv", _fp_list(unit.fp), -1.0]
        max_length = min(budget / rate, allowance / 2 if not unit.is_screen else budget)
    else:
        rate = tables.BACKWARD_COST_FACTOR
        path = ["side", _fp_list(unit.fp), 1.0 if arg == "right" else -1.0]
        max_length = min(tables.SIDE_STEP_MAX, budget / rate)
    return _start_move(state, unit, path, max_length, budget, rate, allowance,
                       kind + ":" + arg if arg else kind, ("ACW-PD-21",))


def _stays_on_road(state: ACWState, act: Activation, unit: Unit, kind: str, arg: str) -> bool:
    """Whether the centre stays on a road along the longest path this primitive could
    take at the road rate (ACW-PD-19), sampled every 0.5"."""
    budget = act.budget(state, unit)
    if kind == "advance":
        (dx, dy), dist = unit.fp.forward(), budget
    elif kind == "retire":
        (fx, fy), dist = unit.fp.forward(), budget / 2
        dx, dy = -fx, -fy
    else:
        (rx, ry), dist = unit.fp.right(), tables.SIDE_STEP_MAX
        dx, dy = (rx, ry) if arg == "right" else (-rx, -ry)
    cx, cy = unit.fp.centre()
    samples = max(1, int(math.ceil(dist / 0.5)))
    terrain = state.game.terrain
    return all(terrain.on_road((cx + dx * dist * i / samples, cy + dy * dist * i / samples))
               for i in range(samples + 1))


def _start_wheel(state: ACWState, act: Activation, unit: Unit, arg: str) -> Move:
    form = unit.formation
    allowance = queries.allowance(state, unit, act.on_road)
    if unit.is_screen or form == "unlimbered":
        new_fp = turned_footprint(unit, arg, "centre")
        act.pivots += 1
        if form == "unlimbered":
            unit.moved = max(unit.moved, 0.01)
        return _start_static(state, act, unit, new_fp, 0.0, allowance, f"pivot {arg}",
                             ("ACW-PD-21",))
    if form in COLUMNS:
        new_fp = turned_footprint(unit, arg, "head")
        act.pivots += 1
        return _start_static(state, act, unit, new_fp, tables.COLUMN_PIVOT_COST, allowance,
                             f"column pivot {arg}", ("ACW-PD-21",))
    angle = HALF_WHEEL_ANGLE if arg.endswith("_half") else WHEEL_ANGLE
    pivot = "left" if arg.startswith("left") else "right"
    sign = 1.0 if pivot == "left" else -1.0
    width = unit.fp.width
    budget = act.budget(state, unit)
    path = ["wheel", _fp_list(unit.fp), sign / width, pivot]
    return _start_move(state, unit, path, min(width * angle, budget), budget, 1.0, allowance,
                       f"wheel {arg}", ("ACW-PD-21",))


def _start_formation(state: ACWState, act: Activation, unit: Unit, arg: str) -> Move:
    target = formation_target(unit, arg)
    if target is None:
        raise InvalidStateError(f"{unit.label()} has no formation {arg!r} (ACW-PD-21.5)")
    new_fp = reformed_footprint(state, unit, target)
    if new_fp is None:
        raise InvalidStateError(f"{unit.label()} cannot re-form to {target}: blocked")
    old = unit.formation
    share = formation_change_share(unit)
    act.allowance_left = max(0.0, act.allowance_left - share)
    unit.formation = target
    unit.moved += share * max(queries.allowance(state, unit, act.on_road), 1e-9)
    if unit.kind == "artillery":
        unit.limbered_now = True
        unit.pivot_only = False
    if target in ("road_column", "limbered"):
        unit.road_used = True
        act.on_road = state.game.terrain.on_road(new_fp.centre())
    state.log("formation", ("ACW-PD-21", "ACW-PD-7"),
              f"{unit.label()} changes formation {old} -> {target} (costs "
              f"{'all' if share >= 1 else 'half'} its allowance)", unit.side, unit=unit.slot,
              old=old, new=target)
    # formation changes count as moves for Window A (ACW-PD-24)
    return _start_static(state, act, unit, new_fp, 0.0, 1.0, "re-form",
                         ("ACW-PD-21", "ACW-PD-24"))


def _detach(state: ACWState, unit: Unit) -> None:
    """Detach one stand of ``unit`` as a skirmish screen ahead of it (ACW-PD-30)."""
    slot = free_slot(state, unit.side)
    fp = detached_footprint(state, unit)
    if fp is None:
        raise InvalidStateError(f"{unit.label()} has no room to detach a stand (ACW-PD-30)")
    stand = new_unit(unit.side, slot, f"{unit.name} skirmishers", unit.kind, unit.weapon,
                     unit.experience, 1, "skirmish", 0.0, 0.0, 0.0, (), is_screen=True)
    stand.fp = fp
    stand.starting_stands = 1
    stand.parent = unit.slot
    stand.activated = True
    unit.screen = slot
    unit.stands -= 1
    unit.resize()
    state.units[unit.side][slot] = stand
    state.log("detach", ("ACW-PD-30",), f"{unit.label()} detaches a stand as {stand.label()}",
              unit.side, unit=unit.slot, screen=slot)


def _start_static(state: ACWState, act: Activation, unit: Unit, new_fp: Footprint, cost: float,
                  allowance: float, what: str, rules: tuple[str, ...]) -> Move:
    """An instantaneous re-orientation / re-formation, then the Window A check at the new
    footprint (ACW-PD-24)."""
    if allowance > 0 and cost > 0:
        act.allowance_left = max(0.0, act.allowance_left - cost / allowance)
        unit.moved += cost
    if unit.kind == "artillery" and not what.startswith("pivot"):
        unit.pivot_only = False
    if unit.formation == "road_column":
        unit.road_used = True
    unit.fp = new_fp
    state.log("move", rules, f"{unit.label()} {what}", unit.side, unit=unit.slot, what=what,
              x=round(new_fp.x, 3), y=round(new_fp.y, 3),
              heading=round(math.degrees(new_fp.heading), 1))
    path = ["static", _fp_list(new_fp)]
    path_fn(path, new_fp)  # primes the memo the move frame reads (no rebuilt footprint)
    return Move(unit.slot, path, 0.0, 0.0, 1.0, unit.disordered, what, static=True)


def _start_move(state: ACWState, unit: Unit, path: list[Any], max_length: float, budget: float,
                rate: float, allowance: float, what: str, rules: tuple[str, ...]) -> Move:
    along = path_fn(path, unit.fp)  # the callers build path[1] from unit.fp
    blocked = blocking.blocked_fn(state, unit, unit.fp)
    length, cost, obstacle, woods = plan_path(along, max_length, budget, rate, blocked,
                                              state.game.terrain, not unit.is_screen,
                                              speed=path_speed(path))
    passed: list[int] = []
    if path[0] == "adv" and path[2] > 0 and not unit.is_screen and length < max_length - 0.05:
        length, cost, passed = passage_of_lines(state, unit, along, max_length, budget, rate,
                                                length, cost)
    cost_per_inch = cost / length if length > 1e-9 else 0.0
    if unit.kind == "artillery":
        unit.pivot_only = False
    if unit.formation == "road_column":
        unit.road_used = True
    state.log("move_start", rules, f"{unit.label()} {what}: up to {length:.2f}\" "
              f"(allowance cost {cost:.2f}\"{', crosses an obstacle' if obstacle else ''}"
              f"{', through woods' if woods else ''})", unit.side, unit=unit.slot, what=what,
              length=round(length, 3), cost=round(cost, 3))
    return Move(unit.slot, path, length, cost_per_inch, allowance, unit.disordered, what,
                passed_through=passed)
