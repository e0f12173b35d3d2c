"""Reaction eligibility and Window A trigger predicates (RULE-04-1.2 … RULE-04-6.5, ACW-PD-24).

Pure functions over the engine's units and terrain; the state machine in :mod:`..state` asks
them which reactions are legal and where on a mover's path a trigger point lies. The reactions
are written once each, as :class:`envs.core.reactions.Reaction` objects, in their own modules:
:mod:`.closing_volley` (RULE-04-2.x, Window B2), :mod:`.opportunity_fire` (RULE-04-3.x),
:mod:`.evade` (RULE-04-4.x, Windows A and B1), :mod:`.refuse_flank` (RULE-04-5.x, Windows A and
B1) and :mod:`.counter_charge` (RULE-04-6.x, Window B1).
"""

from __future__ import annotations

import enum
from math import cos as _cos
from math import inf as _INF
from math import sin as _sin
from math import sqrt as _sqrt
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from envs.core.errors import InvalidStateError
from envs.core.geometry import EPS, Footprint, footprint_distance

from ..arcs import zone_of
from ..movement import circ, partly_in_arc
from ..tables import (EVADE_TRIGGER, OPP_FIRE_RANGE, REFUSE_RANGE, SHORT_RANGE, Experience,
                     Health)
from ..units import Unit

if TYPE_CHECKING:
    from ..state import ACWState


class OfferingWindow(Protocol):
    """What a reaction reads of the window that offers it (Window A in
    :mod:`..procedures.window_a`, Windows B1 and B2 in :mod:`..procedures.charge`, which import
    this package): the side asked, the trigger, and the two units concerned."""

    side: int
    trigger: str

    def units(self, state: ACWState) -> tuple[Any, Any]:
        """``(defender, mover or charger)``; ``(None, None)`` when the window no longer applies."""
        ...


@runtime_checkable
class ChargeWindowView(OfferingWindow, Protocol):
    """A charge's window (B1, B2): also the charge it is about."""

    def charge(self, state: ACWState) -> Any:
        """The :class:`..procedures.charge.Charge` frame below the window."""
        ...


def charge_of(state: ACWState, window: OfferingWindow) -> Any:
    """The charge that ``window`` (a Window B1 or B2) is about, for the B1 variants of the
    reactions Window A also offers (Evade, Refuse the Flank).

    Raises:
        InvalidStateError: when ``window`` is not a charge's window.
    """
    if not isinstance(window, ChargeWindowView):
        raise InvalidStateError(f"{type(window).__name__} is not a charge's reaction window")
    return window.charge(state)


#: Window A trigger kinds (ACW-PD-24).
TRIGGERS = ("opp_medium", "opp_short", "evade", "refuse")


class B1Reaction(str, enum.Enum):
    """The Window B1 reaction that shapes the rest of a charge (RULE-04-1.2, I-10): none, an
    Evade (RULE-04-4.x), a refused flank (RULE-04-5.x) or a Counter-Charge (RULE-04-6.x)."""

    NONE = ""
    EVADE = "evade"
    REFUSE_FLANK = "refuse_flank"
    COUNTER_CHARGE = "counter_charge"


def can_fire_reaction(defender: Unit) -> tuple[tuple[str, ...], str] | None:
    """Why ``defender`` may not make reaction fire (Closing Volley / Opportunity Fire), or
    None.

    Formed infantry regiment (Line or Assault Column) or unlimbered battery; not engaged, not
    Disordered, no Smoke Marker (RULE-04-2.2, RULE-04-3.2, ACW-PD-6, ACW-PD-32)."""
    if defender.is_screen:
        return ("ACW-PD-30",), "a skirmish stand or screen may only evade"
    if defender.kind == "cavalry":
        return ("ACW-PD-25b",), "mounted cavalry does not fire in v1"
    if defender.formation not in ("line", "assault_column", "unlimbered"):
        return ("ACW-PD-6",), f"a unit in {defender.formation} cannot fire"
    if defender.engaged:
        return ("RULE-04-3.2",), "the unit is engaged in melee"
    if defender.disordered:
        return ("RULE-04-2.2", "RULE-04-3.2"), "a Disordered unit cannot make reaction fire"
    if defender.smoke >= 0:
        return ("RULE-04-2.2", "RULE-04-3.2", "ACW-PD-32"), "the unit has an active Smoke Marker"
    return None


def can_evade(defender: Unit) -> tuple[tuple[str, ...], str] | None:
    """Why ``defender`` may not Evade, or None: a detached skirmish stand or cavalry screen,
    not Disordered, not pinned (engaged) (RULE-04-4.2, I-22)."""
    if not defender.is_screen:
        return ("RULE-04-4.1",), "only a skirmish stand or cavalry screen may evade"
    if defender.disordered:
        return ("RULE-04-4.2",), "a Disordered screen cannot evade"
    if defender.engaged:
        return ("RULE-04-4.2", "I-22"), "a pinned screen cannot evade"
    return None


def can_refuse(defender: Unit) -> tuple[tuple[str, ...], str] | None:
    """Why ``defender`` may not Refuse the Flank, or None: an infantry regiment in Line of
    Battle in good order, not engaged (RULE-04-5.1, ACW-PD-33)."""
    if defender.is_screen or defender.kind != "infantry" or defender.formation != "line":
        return ("RULE-04-5.1",), "only a regiment in Line of Battle may refuse a flank"
    if not defender.good_order:
        return ("ACW-PD-33",), "the regiment is not in good order"
    if defender.engaged:
        return ("ACW-PD-33",), "the regiment is engaged"
    if defender.stands < 3:
        return ("RULE-04-5.3",), "too few stands to refuse a flank and keep the Color Stand"
    return None


def counter_charge_eligible(defender: Unit) -> tuple[tuple[str, ...], str] | None:
    """Why ``defender`` is not eligible to Counter-Charge by RULE-04-6.2 / ACW-PD-34 (the pip
    and the geometry are checked by the caller), or None."""
    if defender.is_screen:
        return ("RULE-04-6.2",), "a screen cannot counter-charge"
    if defender.engaged:
        return ("ACW-PD-34",), "the unit is engaged"
    if not defender.good_order:
        return ("ACW-PD-34", "ACW-PD-31"), "the unit is not in good order"
    if defender.kind == "infantry" and defender.formation in ("line", "assault_column"):
        if "rebel_yell" in defender.traits:
            return None
        if (defender.experience == Experience.VETERAN.value
                and defender.health is Health.FRESH):
            return None
        return ("RULE-04-6.2",), "infantry needs Rebel Yell, or to be Veteran and Fresh"
    if defender.kind == "cavalry" and defender.formation == "mounted_line":
        return None
    return ("RULE-04-6.2",), "not infantry in Line/Assault Column or formed mounted cavalry"


def trigger_pred(trig: str, defender: Unit, mover_fp: Footprint,
                 los: Callable[[Footprint, Footprint], bool],
                 lim: float | None = None) -> bool:
    """Whether the mover at ``mover_fp`` is past the ``trig`` point of ``defender``
    (ACW-PD-24): in ``defender``'s forward arc within 8" / 6" (Opportunity Fire, I-18), within
    6" of a screen (Evade, RULE-04-4.1), centre in a flank zone of a Line within 12" (I-23).
    ``lim``: the trigger's range in inches (:func:`trigger_range` of the game; default the
    seed's)."""
    # shortcut (exact): the footprints' distance is at least their centres' distance less
    # both half-diagonals, so a mover whose bounding circle is clear of the trigger range
    # cannot trigger (1e-6" margin over the 1e-9" tolerance below)
    if trig not in _RANGE:
        return False
    if lim is None:
        lim = _RANGE[trig]
    dx, dy, dr = circ(defender.fp)
    # the mover's centre and half-diagonal, cached on its footprint (the same float
    # operations as ``x - 0.5 * D * cos(h)`` and ``0.5 * hypot(W, D)``)
    mcx, mcy, mr = circ(mover_fp)
    mx = mcx - dx
    my = mcy - dy
    cd = _sqrt(mx * mx + my * my)
    if cd - dr - mr > lim + 1e-6:
        return False
    # exact shortcut the other way: the footprints' distance is at most their centres'
    # distance (each centre lies in its footprint), so within range when that is
    # (1e-6" margin); ``lim`` is the range of ``trig`` below
    near = cd <= lim - 1e-6 or footprint_distance(defender.fp, mover_fp) <= lim + 1e-9
    if trig == "opp_medium" or trig == "opp_short":  # lim: OPP_FIRE_RANGE / SHORT_RANGE
        return near and partly_in_arc(defender.fp, mover_fp) and los(defender.fp, mover_fp)
    if trig == "evade":  # lim: EVADE_TRIGGER
        return near
    if trig == "refuse":  # lim: REFUSE_RANGE
        if not near:
            return False
        z = zone_of(defender.fp, mover_fp.centre())
        return (z == "left" or z == "right") and defender.refused != z
    return False


def trigger_clearance(defender: Unit, mover_fp: Footprint, lim: float) -> float:
    """How far (inches) the mover's centre must still travel before a trigger of range ``lim``
    of ``defender`` could hold: centre distance less both half-diagonals less ``lim`` (and
    the 1e-6" margin of :func:`trigger_pred`'s shortcut); <= 0 when it already could. A lower
    bound, so skipping path samples with it is exact (ACW-PD-24)."""
    dx, dy, dr = circ(defender.fp)
    mcx, mcy, mr = circ(mover_fp)  # as in trigger_pred (same float operations, cached)
    mx = mcx - dx
    my = mcy - dy
    return _sqrt(mx * mx + my * my) - dr - mr - lim - 2e-6


_SQRT1_2 = _sqrt(0.5)


def trigger_zone_clearance(trig: str, defender: Unit, mover_fp: Footprint) -> float:
    """How far (inches) the mover's centre must still travel before the zone part of a Window
    A trigger of ``defender`` could hold (ACW-PD-24, ACW-PD-16): some point of the mover in
    ``defender``'s forward arc (Opportunity Fire), the mover's centre in a flank zone (Refuse the
    Flank); ``-inf`` for a trigger with no zone part (Evade). A lower bound, with a 1e-6"
    margin over the 1e-9" boundary tolerance of the arc and zone tests, so skipping path
    samples with it is exact; <= 0 when the zone part may already hold.

    The bounds are distances to convex regions in ``defender``'s frame (``lx`` to its right,
    ``ly`` forward of its front edge, inches): the forward arc is ``ly >= 0`` and ``|lx| - ly <=
    W/2``, and a point's distance to it is at least its distance to each of those half-planes;
    the flank zones are everything outside the arc and forward of the rear line ``ly = -D``.
    """
    dfp = defender.fp
    mcx, mcy, mr = circ(mover_fp)  # the centre is exactly mover_fp.centre()
    dx = mcx - dfp.x
    dy = mcy - dfp.y
    h = dfp.heading
    c = _cos(h)
    s = _sin(h)
    ly = dx * c + dy * s
    lx = dx * s - dy * c
    if lx < 0.0:
        lx = -lx
    hw = 0.5 * dfp.width
    if trig == "opp_medium" or trig == "opp_short":
        # every sample point of the mover (partly_in_arc) is within mr of its centre
        g = -EPS - ly
        g2 = (lx - ly - hw - EPS) * _SQRT1_2
        return (g if g > g2 else g2) - mr - 1e-6
    if trig == "refuse":
        if ly >= -EPS and lx <= hw + ly + EPS:  # in the forward arc: leave it first
            g = ly + EPS
            g2 = (hw + ly + EPS - lx) * _SQRT1_2
            return (g if g < g2 else g2) - 1e-6
        return (-dfp.depth + EPS - ly) - 1e-6  # in the rear zone: cross its line (else <= 0)
    return -_INF


_RANGE = {"opp_medium": OPP_FIRE_RANGE, "opp_short": SHORT_RANGE, "evade": EVADE_TRIGGER,
          "refuse": REFUSE_RANGE}


def trigger_range(trig: str, game: Any = None) -> float:
    """Range (inches) of a Window A trigger kind (ACW-PD-24) in ``game``: the Medium
    Opportunity Fire point is the game's ``opportunity_fire_trigger`` parameter (RULE-04-3.1,
    I-18; 8" by the seed), the others are fixed. KeyError for an unknown kind."""
    if trig == "opp_medium" and game is not None:
        return game.opportunity_fire_trigger
    return _RANGE[trig]
