"""A charge (ACW-PD-23) with its two reaction windows: B1 at the declaration and B2 at the 4.0"
mark (RULE-04-1.2, I-10).

The flow of one :class:`Charge`, step by step (:class:`ChargeStep`):

1. ``DECLARED`` — the activation has declared it (:func:`declare_charge`: one Staff Pip, the
   contact zone, downhill). Window B1 (:class:`WindowB1`) asks the target about the
   declaration: Evade for a screen (:mod:`..reactions.evade`), Refuse the Flank
   (:mod:`..reactions.refuse_flank`) or Counter-Charge (:mod:`..reactions.counter_charge`)
   for a formed unit. The window closes unasked when none of them is allowed.
2. ``MOVE`` — the charger moves straight toward the contact spot on the contacted edge, at most
   its charge distance; skirmish screens in the way are overrun and a charged screen that did
   not evade is overrun too, the charge carrying on toward its parent (RULE-04-4.4, I-21).
   When the Closing Volley is possible (:func:`..reactions.closing_volley.volley_possible`)
   the charger halts at the 4.0" mark and Window B2 (:class:`WindowB2`) is asked.
3. ``VOLLEY_TAKEN`` — after a Closing Volley: a charger that lost a stand or was Disordered
   takes a Charge Discipline Check (``DISCIPLINE_CHECK``, RULE-04-2.4); failed, it stalls
   (RULE-04-2.5); else it charges home.
4. ``CONTACT`` — flush on the contacted edge, both units engaged until Phase 4 (ACW-PD-23 step
   7, I-14), or short when the charge distance ran out (I-21), or halted when the edge has no
   room left.
"""

from __future__ import annotations

import math
import enum
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from envs.core.errors import InvalidStateError
from envs.core.frames import RollDice
from envs.core.geometry import (Footprint, distance_to_front_edge, first_crossing,
                                footprint_distance, overlaps)
from envs.core.procedure import Done, Frame, Push, Step, filled, register
from envs.core.protocol import Illegality
from envs.core.reactions import Reaction, ReactionWindow

from .. import combat, effects, queries, tables
from ..actions import DECLINE_LABEL, ACWDecision
from ..arcs import zone_of
from ..paths import PathFn, _fp_list, path_fn
from ..reactions import B1Reaction, can_fire_reaction
from ..reactions.closing_volley import CLOSING_VOLLEY, volley_possible
from ..reactions.counter_charge import (COUNTER_CHARGE_LABELS, COUNTER_CHARGES,
                                        why_no_counter_charge)
from ..reactions.evade import CHARGE_EVADES
from ..reactions.refuse_flank import CHARGE_REFUSALS, EmergencyDrill
from ..reactions.refusals import why_reaction_illegal
from ..units import EXPERIENCE_BY_VALUE, Unit
from .context import ACWContext
from .volley import Volley

if TYPE_CHECKING:
    from ..state import ACWState

__all__ = ["Charge", "ChargeStep", "WindowB1", "WindowB2", "declare_charge"]

# contact beside a friend (ACW-PD-23 step 7, ACW-PD-26): a charger slid along the contacted edge
# still covers this much of it, is searched in these steps and stops this clear of its neighbour
CONTACT_MIN_OVERLAP = 0.1
SLIDE_STEP = 0.05
SLIDE_GAP = 0.01



class ChargeStep(str, enum.Enum):
    """Where a :class:`Charge` stands (see the module docstring)."""

    DECLARED = "declared"
    MOVE = "move"
    VOLLEY_TAKEN = "volley_taken"
    DISCIPLINE_CHECK = "discipline_check"
    CONTACT = "contact"
    END = "end"


def declare_charge(state: ACWState, charger: Unit, target: Unit) -> "Charge":
    """Declare ``charger``'s charge on ``target`` (ACW-PD-23 steps 1-3, RULE-04-1.2): spend one
    Staff Pip, note downhill, log ``charge``; return the :class:`Charge` to push."""
    side = state.active
    state.pips[side] -= 1
    charger.charged = True
    zone = queries.contact_zone(state, charger, target)
    terrain = state.game.terrain
    charger.downhill = terrain.on_crest(charger.fp.centre()) and \
        not terrain.on_crest(target.fp.centre())
    distance = footprint_distance(charger.fp, target.fp)
    state.log("charge", ("ACW-PD-23", "RULE-04-1.2"),
              f"{charger.label()} declares a charge on {target.label()} ({zone} contact; 1 "
              f"Staff Pip spent, {state.pips[side]} left; {distance:.2f}\" apart)",
              side, unit=charger.slot, target=target.slot, zone=zone, dist=round(distance, 3))
    fp = charger.fp
    return Charge(charger.slot, target.slot, zone, [fp.x, fp.y, fp.heading, fp.width, fp.depth])


def first_within_front_edge(target_fp: Footprint, path: PathFn, start: float, span: float,
                            mark: float) -> float | None:
    """First distance ``t`` in ``[0, span]`` past ``start`` along the charge ``path`` at which
    the charger comes within ``mark`` inches of the target's front edge (I-25), refined by
    bisection to the first point at or inside the mark; ``None`` if it never does
    (RULE-04-2.1, 2.5)."""
    crossing = first_crossing(lambda x: distance_to_front_edge(target_fp, path(start + x)) <= mark,
                              span, 0.1, 0.002)
    if crossing is None:
        return None
    low, high = max(0.0, crossing - 0.002), crossing
    for _ in range(30):
        mid = 0.5 * (low + high)
        if distance_to_front_edge(target_fp, path(start + mid)) <= mark:
            high = mid
        else:
            low = mid
    return high


@register
@dataclass(slots=True)
class Charge(Frame["ACWState"]):
    """One charge of the active side's unit ``charger`` on the enemy unit ``target``.

    Fields: ``zone`` — the target's edge to contact (``front``/``left``/``right``/``rear``);
    ``origin`` — the charger's footprint ``[x, y, heading, width, depth]`` at declaration (the
    contact spot is searched from it); ``step``; ``b1_reaction`` — the Window B1 reaction that
    shapes the rest of the charge (a :class:`..reactions.B1Reaction`); ``path`` / ``path_length`` / ``moved`` — the straight path spec of
    :func:`..paths.path_fn`, its usable length and how far along it the charger is (inches);
    ``reaches`` — whether the path ends in contact within the charge distance; ``redirected``
    — the charge now goes for a screen's parent (RULE-04-4.4); ``started_inside_mark`` — the
    charger began within 4.0" (I-11); ``window_b2_done``; ``volley_lost`` /
    ``volley_disordered`` — the Closing Volley's result; ``check_roll`` — the Charge Discipline
    Check die.
    """

    kind = "acw.charge"
    charger: int
    target: int
    zone: str
    origin: list[float]
    step: ChargeStep = ChargeStep.DECLARED
    b1_reaction: B1Reaction = B1Reaction.NONE
    path: list | None = None
    path_length: float = 0.0
    moved: float = 0.0
    reaches: bool = True
    redirected: bool = False
    started_inside_mark: bool = False
    window_b2_done: bool = False
    volley_lost: int = 0
    volley_disordered: bool = False
    check_roll: int | None = None

    def halt(self) -> None:
        """End the charge where the charger stands."""
        self.step = ChargeStep.END

    def units(self, state: ACWState) -> tuple[Any, Any]:
        """``(charger, target)``; the target is ``None`` once the charge has lost it."""
        side = state.active
        target = state.units[1 - side][self.target] if self.target >= 0 else None
        return state.units[side][self.charger], target

    # -- the frame ------------------------------------------------------------------------
    def run(self, state: ACWState) -> Step:
        charger, target = self.units(state)
        if charger is None or not charger.alive:
            return Done()
        step = self.step
        if step is ChargeStep.DECLARED:
            if target is None or not target.alive:
                self.step = ChargeStep.END
                return None
            self.step = ChargeStep.MOVE
            offered = CHARGE_EVADES if target.is_screen else CHARGE_REFUSALS + COUNTER_CHARGES
            return Push(WindowB1(target.side, "charge", target.slot,
                                 tuple(r.label for r in offered), charger=charger.slot))
        if step is ChargeStep.MOVE:
            return self._move(state, charger, target)
        if step is ChargeStep.CONTACT:
            return self._contact(state, charger, target)
        if step is ChargeStep.VOLLEY_TAKEN:
            return self._after_volley(state, charger, target)
        if step is ChargeStep.DISCIPLINE_CHECK:
            return self._discipline_check(state, charger, target)
        return Done()

    def on_child_done(self, state: ACWState, child: Frame) -> None:
        if type(child) is WindowB2:
            if child.took(CLOSING_VOLLEY):
                self.step = ChargeStep.VOLLEY_TAKEN
                self.volley_lost, self.volley_disordered = 0, False
        elif type(child) is EmergencyDrill:  # a Window B1 refusal without a reserved pip
            if child.passed:
                charger, target = self.units(state)
                self.zone = queries.contact_zone(state, charger, target)  # RULE-04-5.4
        elif type(child) is RollDice:
            self.check_roll = child.values[0]
        elif type(child) is Volley:  # the Closing Volley (RULE-04-2.4 reads its result)
            self.volley_lost, self.volley_disordered = child.lost, child.disordered

    # -- the steps ------------------------------------------------------------------------
    def _move(self, state: ACWState, charger: Unit, target: Unit) -> Step:
        """Move toward contact; overrun screens in the way; Window B2 at the 4.0" mark
        (ACW-PD-23 steps 4-5, RULE-04-4.4, I-11, I-21)."""
        side = state.active
        if target is None or not target.alive:
            self.step = ChargeStep.END
            return None
        if self.b1_reaction is B1Reaction.COUNTER_CHARGE:
            return self._contact(state, charger, target)
        if self.path is None:
            dest = charge_destination(state, charger, target, self.zone, self._origin())
            if dest is None:
                return self._no_room(state, charger, target)
            path, length = charge_path(state, charger, dest)
            charger.fp = path_fn(path)(0.0)
            self.path, self.path_length, self.moved = path, length, 0.0
            if self.redirected:
                self.path_length = min(length, tables.CHARGE_DISTANCE)
                self.reaches = length <= tables.CHARGE_DISTANCE + 1e-9
            else:
                # ACW-PD-23 / RULE-04-6.1: the charger moves at most its charge distance; a
                # longer path to the flush contact position falls short (as I-21). Not capped
                # against a refused flank: the angled stands stand at that flank, though the
                # contact is drawn on the front edge (RULE-04-5.4, RULINGS item 5).
                reach = 12.0 if (state.game.cavalry_charge_12 and charger.kind == "cavalry") \
                    else tables.CHARGE_DISTANCE
                if target.refused and zone_of(target.fp, charger.fp.centre()) == target.refused:
                    reach = length
                self.path_length = min(length, reach)
                self.reaches = length <= reach + 1e-9
            self.started_inside_mark = \
                distance_to_front_edge(target.fp, charger.fp) <= tables.VOLLEY_MARK + 1e-9
        along = path_fn(filled(self.path, "the charge path"))
        start, length = self.moved, self.path_length
        # screens in the way are overrun (RULE-04-4.4)
        for other in state.alive(1 - side):
            if other is target or not other.is_screen:
                continue
            crossing = first_crossing(lambda x: overlaps(along(start + x), other.fp),
                                      max(0.0, length - start), 0.25, 0.01) \
                if length > start else None
            if crossing is not None:
                _overrun(state, charger, other)
        if target.is_screen:
            # a target screen that did not evade is overrun on contact; the charge carries on
            _overrun(state, charger, target)
            parent = state.units[1 - side][target.parent] if target.parent >= 0 else None
            charger.fp = along(length)
            if parent is None or not parent.alive:
                self.step = ChargeStep.END
                return None
            self.target = parent.slot
            self.zone = queries.contact_zone(state, charger, parent)
            self.redirected = True
            fp = charger.fp
            self.origin = [fp.x, fp.y, fp.heading, fp.width, fp.depth]
            left = max(0.0, tables.CHARGE_DISTANCE - length)
            dest = charge_destination(state, charger, parent, self.zone)
            if dest is None:
                return self._no_room(state, charger, parent)
            path, parent_length = charge_path(state, charger, dest)
            self.path, self.moved = path, 0.0
            self.path_length = min(parent_length, left)
            self.reaches = parent_length <= left + 1e-9
            self.started_inside_mark = \
                distance_to_front_edge(parent.fp, charger.fp) <= tables.VOLLEY_MARK + 1e-9
            state.log("redirect", ("RULE-04-4.4", "I-21"),
                      f"{charger.label()} carries on toward {parent.label()} ({left:.2f}\" of "
                      f"charge left)", side, unit=charger.slot, target=parent.slot)
            return None
        # Window B2 (RULE-04-2.1, I-11)
        if volley_possible(state, self, charger, target) and not self.window_b2_done:
            to_mark: float | None
            if self.started_inside_mark:
                to_mark = 0.0
            else:
                to_mark = first_within_front_edge(target.fp, along, start,
                                                  max(0.0, length - start), tables.VOLLEY_MARK)
            if to_mark is not None:
                self.window_b2_done = True
                charger.fp = along(start + to_mark)
                self.moved = start + to_mark
                self.step = ChargeStep.CONTACT  # unless the Closing Volley is fired
                return Push(WindowB2(target.side, "charge", target.slot,
                                     (CLOSING_VOLLEY.label,), charger=charger.slot,
                                     started_inside_mark=self.started_inside_mark))
        return self._contact(state, charger, target)

    def _after_volley(self, state: ACWState, charger: Unit, target: Unit) -> Step:
        """RULE-04-2.4 / 2.5: a shaken charger checks its discipline, else it charges home."""
        if not charger.alive:
            self.step = ChargeStep.END
            return None
        side = state.active
        if combat.charge_check_needed(self.volley_lost, self.volley_disordered):
            self.step = ChargeStep.DISCIPLINE_CHECK
            return Push(RollDice(1, f"{charger.label()} Charge Discipline Check",
                                 ("RULE-04-2.4",), side))
        state.log("charge_on", ("RULE-04-2.5",), f"{charger.label()} is unshaken and charges "
                  f"home", side, unit=charger.slot)
        return self._contact(state, charger, target)

    def _discipline_check(self, state: ACWState, charger: Unit, target: Unit) -> Step:
        side = state.active
        roll = filled(self.check_roll, "the discipline check roll")
        needed = tables.discipline_target(EXPERIENCE_BY_VALUE[charger.experience])
        passed = combat.check_passes(roll, needed)
        state.log("charge_check", ("RULE-04-2.4", "I-19"),
                  f"{charger.label()} Charge Discipline Check {roll} vs {needed}+ "
                  f"({charger.experience}): {'passed' if passed else 'failed'}", side,
                  unit=charger.slot, roll=roll, target=needed, passed=passed)
        if passed:
            state.log("charge_on", ("RULE-04-2.5",), f"{charger.label()} closes into contact",
                      side, unit=charger.slot)
            return self._contact(state, charger, target)
        self._stall(state, charger, target)
        self.step = ChargeStep.END
        return None

    def _stall(self, state: ACWState, charger: Unit, target: Unit) -> None:
        """Failed Charge Discipline Check: halt 2.0" from the defender (or stay, I-11),
        Disordered, no more this turn (RULE-04-2.5)."""
        side = charger.side
        if not self.started_inside_mark and target is not None and target.alive:
            along = path_fn(filled(self.path, "the charge path"))
            start = self.moved
            span = self.path_length - start
            if distance_to_front_edge(target.fp, charger.fp) > tables.STALL_DISTANCE and span > 0:
                # land on the 2.0" mark
                to_mark = first_within_front_edge(target.fp, along, start, span,
                                                  tables.STALL_DISTANCE)
                if to_mark is not None:
                    charger.fp = along(start + to_mark)
                    self.moved = start + to_mark
        effects.disorder(state, charger, ("RULE-04-2.5",), "the charge stalls")
        dist = distance_to_front_edge(target.fp, charger.fp) \
            if target is not None and target.alive else 0.0
        state.log("charge_stalls", ("RULE-04-2.5",) + (("I-11",) if self.started_inside_mark
                                                       else ()),
                  f"{charger.label()}'s charge stalls {dist:.2f}\" from "
                  f"{target.label() if target else 'the enemy'} with {charger.stands} stands; it "
                  f"can do nothing more this turn", side, unit=charger.slot, dist=round(dist, 3),
                  stands=charger.stands)

    def _no_room(self, state: ACWState, charger: Unit, target: Unit) -> Step:
        """The contacted edge filled up after declaration (a reaction moved or turned the
        target): the charger halts where it stands, not in contact (ACW-PD-23 step 7)."""
        self.step = ChargeStep.END
        state.log("charge_no_room", ("ACW-PD-23", "ACW-PD-26"),
                  f"{charger.label()} finds no room on {target.label()}'s {self.zone} edge and "
                  f"halts", charger.side, unit=charger.slot, target=target.slot, zone=self.zone)
        return None

    def _contact(self, state: ACWState, charger: Unit, target: Unit) -> Step:
        """Contact (ACW-PD-23 step 7): flush on the contacted edge, both engaged."""
        side = state.active
        self.step = ChargeStep.END
        if target is None or not target.alive or not charger.alive:
            return None
        if not self.reaches:
            charger.fp = path_fn(filled(self.path, "the charge path"))(self.path_length)
            state.log("charge_short", ("I-21",), f"{charger.label()} runs out of charge "
                      f"distance short of {target.label()}", side, unit=charger.slot)
            return None
        dest = charge_destination(state, charger, target, self.zone, self._origin())
        if dest is None:
            return self._no_room(state, charger, target)
        start = charger.fp.centre()
        terrain = state.game.terrain
        if terrain.obstacles_crossed(start, dest.centre()) or (terrain.areas and (
                terrain.in_woods(dest.centre()) or terrain.in_woods(start))):
            if not charger.momentum_lost:
                charger.momentum_lost = True
                state.log("momentum_lost", ("ACW-PD-26",), f"{charger.label()} crosses an "
                          f"obstacle or woods: no Charging Momentum", side, unit=charger.slot)
        charger.fp = dest
        charger.zone = self.zone
        if target.slot not in charger.engaged:
            charger.engaged.append(target.slot)
        if charger.slot not in target.engaged:
            target.engaged.append(charger.slot)
        counter = ("RULE-04-6.5",) if self.b1_reaction is B1Reaction.COUNTER_CHARGE else ()
        state.log("contact", ("ACW-PD-23", "I-14") + counter,
                  f"{charger.label()} contacts {target.label()} ({self.zone}); engaged until "
                  f"Phase 4", side, unit=charger.slot, target=target.slot, zone=self.zone)
        return None

    def _origin(self) -> Footprint:
        x, y, heading, width, depth = self.origin
        return Footprint(x, y, heading, width, depth)


def _overrun(state: ACWState, charger: Unit, screen: Unit) -> None:
    """A screen in the charger's way is destroyed (RULE-04-4.4, I-21, ACW-PD-30)."""
    state.log("overrun", ("RULE-04-4.4", "I-21", "ACW-PD-30"),
              f"{screen.label()} is overrun by {charger.label()} and destroyed", screen.side,
              unit=screen.slot)
    effects.lose_stands(state, screen, screen.stands, ("RULE-04-4.4",), "overrun")


# ---------------------------------------------------------------------------------------------
# the windows
# ---------------------------------------------------------------------------------------------
@dataclass(slots=True)
class _ChargeWindow(ReactionWindow["ACWState"]):
    """A reaction window about a charge: the target ``subject`` (of side ``side``) is asked
    about the active side's ``charger``. The :class:`Charge` that opened it is the frame just
    below it on the stack (:meth:`charge`), which its reactions reshape."""

    decision: ClassVar[str] = ACWDecision.REACTION
    decline_label: ClassVar[str] = DECLINE_LABEL
    what: ClassVar[str] = ""

    charger: int = -1

    def units(self, state: ACWState) -> tuple[Any, Any]:
        """``(defender, charger)``."""
        return state.units[self.side][self.subject], state.units[1 - self.side][self.charger]

    def took(self, reaction: Reaction[Any, Any]) -> bool:
        """Whether the defender chose ``reaction`` in this window (``False`` while it is open or
        after a decline)."""
        return self.chosen == reaction.label

    def charge(self, state: ACWState) -> Charge:
        """The charge this window is about (the frame below it while it is open).

        Raises:
            InvalidStateError: when the frame below is not a charge.
        """
        below = state.stack[-2]
        if not isinstance(below, Charge):
            raise InvalidStateError(f"{self.kind}: the frame below is {below.kind!r}, not a charge")
        return below

    def context(self, state: ACWState, viewer: int) -> ACWContext:
        return ACWContext(self.kind, self.side, self.decision, (self.side, self.subject),
                          (1 - self.side, self.charger), self.what)


@register
@dataclass(slots=True)
class WindowB1(_ChargeWindow):
    """Window B1 (RULE-04-1.2, I-10): the target of a charge declaration may Evade (a screen),
    Refuse the Flank or Counter-Charge (a formed unit), or decline."""

    kind = "acw.window_b1"
    what = "charge_b1"
    skip_when_only_decline = True
    reactions = {r.label: r for r in CHARGE_EVADES + CHARGE_REFUSALS + COUNTER_CHARGES}

    def on_open(self, state: ACWState) -> None:
        defender, charger = self.units(state)
        state.log("window_b1", ("RULE-04-1.2", "I-10", "ACW-PD-23"),
                  f"Window B1: {defender.label()} may react to the charge declaration",
                  defender.side, defender=defender.slot, charger=charger.slot)

    def on_decline(self, state: ACWState) -> None:
        defender, _ = self.units(state)
        state.log("react_decline", ("RULE-04-1.2",), f"{defender.label()} does not react in B1",
                  defender.side, unit=defender.slot)

    def why_illegal(self, state: ACWState, action: int) -> Illegality | None:
        defender, charger = self.units(state)
        label = state.game.actions.labels[action]
        why: tuple[tuple[str, ...], str] | None
        if label in COUNTER_CHARGE_LABELS:
            why = why_no_counter_charge(state, charger, defender) or (("I-10",), "not available")
        elif label == CLOSING_VOLLEY.label:
            why = can_fire_reaction(defender) or \
                (("I-10", "RULE-04-2.1"), "the Closing Volley comes at the 4.0\" mark (B2)")
        else:
            why = why_reaction_illegal(state, defender, action)
        return Illegality(tuple(why[0]), why[1]) if why is not None else None


@register
@dataclass(slots=True)
class WindowB2(_ChargeWindow):
    """Window B2 (RULE-04-2.1, I-10, I-11, I-25): the charger has halted at the 4.0" mark; the
    target may fire a Closing Volley or hold its fire. Opened only when the volley is possible
    (:func:`..reactions.closing_volley.volley_possible`)."""

    kind = "acw.window_b2"
    what = "charge_b2"
    reactions = {CLOSING_VOLLEY.label: CLOSING_VOLLEY}

    started_inside_mark: bool = False

    def on_open(self, state: ACWState) -> None:
        defender, charger = self.units(state)
        state.log("window_b2", ("RULE-04-1.2", "RULE-04-2.1", "RULE-04-2.3", "I-10",
                                "I-11" if self.started_inside_mark else "I-25"),
                  f"Window B2: {charger.label()} halts at "
                  f"{distance_to_front_edge(defender.fp, charger.fp):.2f}\""
                  f" from {defender.label()}'s front edge", defender.side, charger=charger.slot,
                  defender=defender.slot)

    def on_decline(self, state: ACWState) -> None:
        defender, _ = self.units(state)
        state.log("react_decline", ("RULE-04-2.1",), f"{defender.label()} holds its fire",
                  defender.side, unit=defender.slot)

    def why_illegal(self, state: ACWState, action: int) -> Illegality | None:
        label = state.game.actions.labels[action]
        if label == CLOSING_VOLLEY.label:
            return None
        if label in COUNTER_CHARGE_LABELS:
            return Illegality(("RULE-04-6.4", "I-10"),
                              "Counter-Charge is declared at the charge declaration")
        return Illegality(("RULE-04-1.4", "I-10"),
                          "only the Closing Volley (or decline) at the 4.0\" mark")


# ---------------------------------------------------------------------------------------------
# where a charge makes contact, and its path (ACW-PD-23 steps 1, 4, 7)
# ---------------------------------------------------------------------------------------------
def contact_footprint(state: ACWState, charger: Unit, target: Unit, zone: str) -> Footprint:
    """Charger footprint flush and centred on the contacted edge (ACW-PD-23 step 7)."""
    t = target.fp
    fx, fy = t.forward()
    rx, ry = t.right()
    W, D = t.width, t.depth
    if zone == "front":
        px, py, h = t.x, t.y, t.heading + math.pi
    elif zone == "rear":
        px, py, h = t.x - fx * D, t.y - fy * D, t.heading
    elif zone == "left":
        px, py = t.x - rx * W / 2 - fx * D / 2, t.y - ry * W / 2 - fy * D / 2
        h = math.atan2(ry, rx)
    else:
        px, py = t.x + rx * W / 2 - fx * D / 2, t.y + ry * W / 2 - fy * D / 2
        h = math.atan2(-ry, -rx)
    h = math.atan2(math.sin(h), math.cos(h))
    return Footprint(px, py, h, charger.fp.width, charger.fp.depth)


def charge_others(state: ACWState, charger: Unit, target: Unit) -> list[Unit]:
    """Units a charge may neither pass through nor end on: every live formed unit but the
    charger and its target (screens are overrun, RULE-04-4.4)."""
    return [other for side in state.units for other in side if other is not None and other.alive
            and other is not charger and other is not target and not other.is_screen]


def charge_blocker(state: ACWState, charger: Unit, target: Unit, dest: Footprint,
                    origin: Footprint | None = None,
                    others: list[Unit] | None = None) -> Unit | None:
    """The first unit the straight charge path from ``origin`` (default: where the charger
    stands) to ``dest`` overlaps, sampled every 0.5", or None (ACW-PD-23 step 1).
    ``others``: :func:`charge_others` when the caller has it."""
    if others is None:
        others = charge_others(state, charger, target)
    spec, length = charge_path(state, charger, dest, origin)
    along = path_fn(spec)
    t = 0.0
    while others and t < length:
        t = min(length, t + 0.5)
        fp = along(t)
        for other in others:
            if overlaps(fp, other.fp):
                return other
    return None


def charge_destination(state: ACWState, charger: Unit, target: Unit, zone: str,
                 origin: Footprint | None = None) -> Footprint | None:
    """Where the charger ends its charge: flush on the ``zone`` edge of ``target`` (ACW-PD-23
    step 7), or None when that edge has no room. The one helper of legality
    (:func:`.activation.why_no_charge`) and execution (:class:`Charge`).

    Centred on the edge (:func:`contact_footprint`) when that spot overlaps no other formed unit.
    Otherwise - a friend is already in contact there (several friends against one enemy,
    ACW-PD-26), or any other unit stands in the way - the charger slides along the edge,
    first toward the side of the edge nearer its own centre at ``origin`` (its position at
    declaration), then toward the other side, to the nearest spot that overlaps no other
    unit, stays on the table and still covers at least ``CONTACT_MIN_OVERLAP`` of the edge;
    among those the nearest one reached by a clear straight path (else the nearest one, and
    the path check names the blocker)."""
    c0 = contact_footprint(state, charger, target, zone)
    others = charge_others(state, charger, target)

    def free(fp: Footprint) -> bool:
        return not any(overlaps(fp, start.fp) for start in others)

    if free(c0):
        return c0
    start = origin if origin is not None else charger.fp
    terr = state.game.terrain
    edge = target.fp.width if zone in ("front", "rear") else target.fp.depth
    lim = 0.5 * (edge + c0.width) - CONTACT_MIN_OVERLAP
    rx, ry = c0.right()
    (ox, oy), (cx, cy) = start.centre(), c0.centre()
    first = 1.0 if (ox - cx) * rx + (oy - cy) * ry >= 0.0 else -1.0
    fallback = None
    for sign in (first, -first):
        s, clear_before = 0.0, False
        while s + SLIDE_STEP <= lim + 1e-9:
            s += SLIDE_STEP
            fp = c0.sidestepped(sign * s)
            if not free(fp):
                clear_before = False
                continue
            if not clear_before:
                # first free step past a blocker: pull back to just clear of it
                low, high = s - SLIDE_STEP, s
                for _ in range(12):
                    mid = 0.5 * (low + high)
                    if free(c0.sidestepped(sign * mid)):
                        high = mid
                    else:
                        low = mid
                t = min(s, high + SLIDE_GAP)
                if free(c0.sidestepped(sign * t)):
                    s, fp = t, c0.sidestepped(sign * t)
                clear_before = True
            if not terr.on_table(fp):
                continue
            if charge_blocker(state, charger, target, fp, start, others) is None:
                return fp
            if fallback is None:
                fallback = fp
    return fallback


def charge_path(state: ACWState, charger: Unit, dest: Footprint,
                 origin: Footprint | None = None) -> tuple[list, float]:
    """A straight path to ``dest`` keeping ``dest``'s heading (the charger turns to face the
    contacted edge at declaration, then moves straight, ACW-PD-23 step 4); it starts where
    the charger stands, or at ``origin``."""
    fp = charger.fp if origin is None else origin
    dx, dy = dest.x - fp.x, dest.y - fp.y
    length = math.hypot(dx, dy)
    ux, uy = (dx / length, dy / length) if length > 1e-9 else (0.0, 0.0)
    start = Footprint(fp.x, fp.y, dest.heading, fp.width, fp.depth)
    return ["line", _fp_list(start), ux, uy], length
