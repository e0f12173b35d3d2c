"""A movement primitive under way (ACW-PD-21, ACW-PD-24): the mover goes along its path and stops
at each Window A trigger point (RULE-04-1.2), where one :class:`.window_a.WindowA` per
(defender, trigger) found there is asked before it carries on.

The flow of one :class:`Move`, step by step (:class:`MoveStep`):

1. ``MOVING`` — find the earliest trigger point on the rest of the path
   (:func:`next_trigger`: Opportunity Fire at Medium and Short range, Evade, Refuse the Flank,
   each spent once per defender and mover). None: the mover ends the move (its allowance is
   charged by the :class:`.activation.Activation` below, and a voluntary Passage of Lines is
   tested, ACW-PD-29). Else it is placed at that point and the windows are pushed.
2. ``AT_TRIGGER_POINT`` — the windows are closed: a mover Disordered by the reactions goes the
   rest of the move at half rate (RULE-04-3.5, I-16, ACW-PD-31); back to ``MOVING``.

A static re-orientation or re-formation (``static``) is checked once at its new footprint.
"""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass, field
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from envs.core.geometry import Footprint, first_crossing, footprint_distance, interiors_overlap
from envs.core.procedure import Done, Frame, Push, Step, register

from .. import tables
from ..movement import circ, plan_path
from ..paths import PathFn, path_fn, path_speed
from ..reactions import (can_evade, can_fire_reaction, can_refuse, trigger_clearance,
                         trigger_pred, trigger_range, trigger_zone_clearance)
from .passage_of_lines import PassageOfLinesTests
from .window_a import OFFERS, WindowA
from .. import blocking, effects, queries
from ..blocking import Blocked

if TYPE_CHECKING:
    from ..state import ACWState
    from ..units import Unit

__all__ = ["Move", "MoveStep", "next_trigger", "passage_of_lines"]


class MoveStep(str, enum.Enum):
    """Where a :class:`Move` stands (see the module docstring)."""

    MOVING = "moving"
    AT_TRIGGER_POINT = "at_trigger_point"


@register
@dataclass(slots=True)
class Move(Frame["ACWState"]):
    """The active side's unit ``unit`` moving along ``path`` (a path spec of
    :func:`..paths.path_fn`).

    Fields: ``path_length`` — how far it goes (inches of path; halved past a Disorder);
    ``cost_per_inch`` — inches of allowance per inch of path; ``allowance`` — the allowance the
    cost is a share of; ``was_disordered`` — the mover's Disorder when last checked;
    ``description`` — what the primitive is (for the log); ``static`` — an instantaneous
    re-orientation or re-formation; ``passed_through`` — friends a voluntary Passage of Lines
    goes through (ACW-PD-29); ``step``; ``moved`` — how far along the path the mover is;
    ``static_checked`` — the static move's one trigger check is done; ``half_rate_from`` —
    where the Disordered half rate began, or ``None``; ``cost`` — the allowance spent, once
    finished; ``unit_lost`` — the mover was lost on the way.
    """

    kind = "acw.move"

    unit: int
    path: list
    path_length: float
    cost_per_inch: float
    allowance: float
    was_disordered: bool
    description: str
    static: bool = False
    passed_through: list[int] = field(default_factory=list)
    step: MoveStep = MoveStep.MOVING
    moved: float = 0.0
    static_checked: bool = False
    half_rate_from: float | None = None
    cost: float = 0.0
    unit_lost: bool = False

    def run(self, state: ACWState) -> Step:
        side = state.active
        unit = state.units[side][self.unit]
        if unit is None or not unit.alive:
            self.unit_lost = True
            return Done()
        along = path_fn(self.path)
        if self.step is MoveStep.AT_TRIGGER_POINT:
            self.step = MoveStep.MOVING
            if unit.disordered and not self.was_disordered and self.path_length > self.moved:
                remaining = self.path_length - self.moved
                self.path_length = self.moved + remaining / 2
                # the rest of the move is at the Disordered half rate: each inch after this
                # point costs two inches of the unit's allowance (RULE-04-3.5, ACW-PD-31)
                self.half_rate_from = self.moved
                state.log("move_halved", ("RULE-04-3.5", "I-16", "ACW-PD-31"),
                          f"{unit.label()} was Disordered mid-move: remaining {remaining:.2f}\" "
                          f"halved to {remaining / 2:.2f}\"", side, unit=unit.slot,
                          remaining=round(remaining / 2, 3))
            self.was_disordered = unit.disordered
        hit = next_trigger(state, unit, along, self.moved, self.path_length, self.static,
                           self.static_checked, self.path)
        if self.static:
            self.static_checked = True
        if hit is not None:
            point, pairs = hit
            effects.place(unit, along(point))
            self.moved = point
            self.step = MoveStep.AT_TRIGGER_POINT
            return Push(*(WindowA(1 - side, trigger, defender, OFFERS[trigger], mover=unit.slot,
                                  at_path_start=at_start)
                          for defender, trigger, at_start in sorted(pairs, reverse=True)))
        # finish the move
        length = self.path_length
        effects.place(unit, along(length))
        cost = self.cost_per_inch * length
        if self.half_rate_from is not None:
            cost += self.cost_per_inch * (length - self.half_rate_from)
        self.cost = cost
        if not self.static:
            unit.moved += cost
            state.log("move", ("ACW-PD-21",), f"{unit.label()} {self.description} "
                      f"{length:.2f}\" to ({unit.fp.x:.2f}, {unit.fp.y:.2f})", side,
                      unit=unit.slot, dist=round(length, 3), x=round(unit.fp.x, 3),
                      y=round(unit.fp.y, 3))
        if self.passed_through and not self.static:
            # the mover takes the Passage of Lines test after the move (ACW-PD-29)
            return Done(PassageOfLinesTests(side, [unit.slot], unit.slot,
                                            list(self.passed_through)))
        return Done()


def next_trigger(state: ACWState, unit: Unit, along: PathFn, start: float, length: float,
                 static: bool, checked: bool, path: list[Any]
                 ) -> tuple[float, list[tuple[int, str, bool]]] | None:
    """Earliest Window A trigger point on the rest of the path (ACW-PD-24): ``(t, [(defender
    slot, trigger, at_path_start), ...])`` or ``None``. ``along``: the path function,
    ``start`` / ``length``: the mover's position and the path's end (inches).
    ``at_path_start``: the trigger already holds at the first point of the path (``start``
    and the crossing both 0.0): the move began inside the trigger's zone, which triggers there
    (RULINGS-10). A static re-orientation or re-formation is tested once at its new footprint;
    a move that does not move triggers nothing."""
    if static:
        if checked:
            return None
    elif length - start <= 1e-9:
        return None
    best = None
    pairs: list[tuple[int, str, bool]] = []
    current = unit.fp
    span = length - start
    speed = path_speed(path) * (1.0 + 1e-9)
    cx, cy, cr = circ(current)
    reach = cr + span + tables.REFUSE_RANGE + 0.1
    # the mover's footprint at each sampled distance, shared by every (defender,
    # trigger) scan and by ``pred``/``clear_for`` at one point (``along`` is pure, and the
    # scans sample the same distances); the footprints cache their bounding circles
    sampled: dict[float, Footprint] = {}

    def at(distance: float) -> Footprint:
        fp = sampled.get(distance)
        if fp is None:
            fp = sampled[distance] = along(start + distance)
        return fp
    for defender in state.alive(1 - unit.side):
        if defender.slot in state.reacted:
            continue
        dx, dy, dr = circ(defender.fp)
        limit = reach + dr
        d2 = (cx - dx) ** 2 + (cy - dy) ** 2
        if d2 > limit * limit:
            continue
        # lower bound of the footprints' distance (centres less both half-diagonals,
        # 1e-6" margin): a trigger beyond it is skipped without the exact distance
        lower_bound = math.sqrt(d2) - cr - dr - 1e-6
        distance0 = None
        for trigger in triggers_for(defender, unit):
            if (defender.slot, trigger) in state.spent_triggers:
                continue
            lim = trigger_range(trigger, state.game)
            if lower_bound - span > lim + 0.01:
                continue
            if distance0 is None:
                distance0 = footprint_distance(defender.fp, current)
            if distance0 - span > lim + 0.01:
                continue
            los = (lambda a, b, d=defender: queries.los(state, a, b, (unit, d)))

            def pred(distance: float, defender: Unit = defender, trig: str = trigger,
                     los: Callable[[Footprint, Footprint], bool] = los,
                     lim: float = lim) -> bool:
                return trigger_pred(trig, defender, at(distance), los, lim)
            if span <= 1e-9:
                crossing = 0.0 if pred(0.0) else None
            else:

                def clear_for(distance: float, defender: Unit = defender, lim: float = lim,
                              trig: str = trigger) -> float:
                    # exact: no trigger while the bounding circles stay beyond the range,
                    # or while the mover's circle / centre stays out of the trigger's zone
                    fp = at(distance)
                    margin = trigger_clearance(defender, fp, lim)
                    if margin <= 0.0:
                        margin = trigger_zone_clearance(trig, defender, fp)
                    return margin / speed if margin > 0.0 else 0.0
                crossing = first_crossing(pred, span, 0.25, 0.01,
                                          clear_for if speed > 0.0 else None)
            if crossing is None:
                continue
            point = start + crossing
            # a path that begins inside the zone triggers at its first point (RULINGS-10)
            at_path_start = not static and point == 0.0
            if best is None or point < best - 0.02:
                best = point
                pairs = [(defender.slot, trigger, at_path_start)]
            elif abs(point - best) <= 0.02:
                pairs.append((defender.slot, trigger, at_path_start))
    if best is None:
        return None
    # opp_medium and opp_short of one defender at the same point: ask once (Medium)
    seen = set()
    out = []
    for slot, trigger, at_path_start in sorted(pairs):
        key = (slot, trigger.startswith("opp"))
        if key in seen:
            continue
        seen.add(key)
        out.append((slot, trigger, at_path_start))
    return best, out


def triggers_for(defender: Unit, mover: Unit) -> list[str]:
    """The Window A triggers ``defender`` may hold against ``mover`` (ACW-PD-24)."""
    out = []
    if can_fire_reaction(defender) is None and defender.kind != "cavalry" and \
            not defender.is_screen:
        out.append("opp_medium")
        out.append("opp_short")
    if mover.formed and can_evade(defender) is None:
        out.append("evade")
    if mover.formed and can_refuse(defender) is None:
        out.append("refuse")
    return out


def passage_of_lines(state: ACWState, unit: Unit, along: PathFn, max_length: float, budget: float,
                     rate: float, length: float, cost: float, dry: bool = False,
                     blocked_by_enemies: Blocked | None = None
                     ) -> tuple[float, float, list[int]]:
    """Voluntary Passage of Lines (ACW-PD-29): an advance stopped by a friendly formed unit
    may pass through it if, after paying 3", it ends entirely clear on the far side.
    Returns the (possibly longer) move, its cost and the friends passed through.
    ``along`` is a straight advance (one inch of centre travel per inch of path). ``dry``: no
    log and no charge, and only whether some friend is passed matters (the list stops at
    the first one). ``blocked_by_enemies``: the caller's
    ``make_blocked_fn(state, unit, unit.fp, (), friends_block=False)``, if it has it."""
    # friends in base contact count (overlap beyond contact is what passing means); a
    # friend the mover already overlaps at the start is not passed through
    ufp = unit.fp
    candidates = [g for g in state.alive(unit.side) if g is not unit and not g.is_screen]
    ahead = along(length + 0.05)
    # the same test as ``any(overlap(ahead, g) for g in friends)``, the two pure
    # conditions of a friend swapped: usually nothing is ahead and one test per unit does
    if not any(interiors_overlap(ahead, g.fp) and not interiors_overlap(ufp, g.fp)
               for g in candidates):
        return length, cost, []
    friends = [g for g in candidates if not interiors_overlap(ufp, g.fp)]
    if blocked_by_enemies is None:
        blocked_by_enemies = blocking.make_blocked_fn(state, unit, ufp, (), friends_block=False)
    # speed 1.0: the exact sample-skipping shortcuts of a straight advance
    length2, cost2, _, _ = plan_path(along, max_length, budget - tables.PASSAGE_OF_LINES_COST,
                                     rate, blocked_by_enemies, state.game.terrain, True,
                                     speed=1.0)
    if length2 <= length + 0.05 or any(interiors_overlap(along(length2), g.fp)
                                       for g in friends):
        return length, cost, []
    passed = []
    count = int(length2 / 0.25) + 1
    # the path samples once for all friends (``along`` is pure)
    samples = [along(min(length2, i * 0.25)) for i in range(count + 1)]
    for friend in friends:
        ffp = friend.fp
        if any(interiors_overlap(p, ffp) for p in samples):
            passed.append(friend.slot)
            if dry:
                break
    if dry:
        return length2, cost2, passed
    state.log("passage_of_lines", ("ACW-PD-29",),
              f"{unit.label()} passes through "
              f"{', '.join(state.unit_in(unit.side, k).label() for k in passed)} (costs 3\")",
              unit.side, unit=unit.slot, through=passed)
    return length2, cost2 + tables.PASSAGE_OF_LINES_COST, passed
