"""The ACW bot panel: two scripted styles of play that any trained agent must beat.

Both read only the observation (decoded as :class:`~agents.heuristic.ACWHeuristic` decodes it:
``game.layout`` pieces, ``UNIT_FEATURES``, the table size and the scenario's public objective
points) and the mask's legal labels, never the State.

* :class:`StandAndFire` (``stand-and-fire``) — pure passivity. Never moves forward: ends
  Phase 2 at once (``end_phase``, or ``end_activation`` inside an activation; ``melee:hold``
  after a won melee); takes every free *shooting* reaction — Closing Volley (RULE-04-2),
  Opportunity Fire at the first chance (RULE-04-3, never ``react:wait_short``) — and declines
  every other reaction (no Evade, no commanded reaction); in Phase 3 fires whenever a target is
  offered (closest first, weak targets preferred, as the heuristic; ACW-PD-25b); rallies by roll
  (ACW-PD-15) and reserves no pips (ACW-PD-14).
* :class:`Rush` (``rush``) — pure aggression. Reserves no pips (they pay for charges, ACW-PD-23);
  activates the most forward unit first; charges whenever a charge is legal (the target the
  heuristic rates best, ties to the lowest slot); a unit standing on an objective (within 1.5")
  holds it; any other wheels toward and advances on the nearest objective that no other own
  unit holds (none within 3") or the nearest enemy, whichever is closer (straight line, as far
  as the allowance goes); batteries stay put and fire; takes every free
  reaction (Closing Volley, Opportunity Fire at the first chance, Evade as far as offered;
  RULE-04-1.3 with I-3) and declines the commanded ones; fires in Phase 3 whenever it can;
  after a won melee advances (ACW-PD-26); rallies a Disordered unit by paying a pip when it
  holds two or more (a Disordered unit may not charge, ACW-PD-23), else by roll (ACW-PD-15).

Both fall back to a uniform legal choice (their own generator) if a chosen label is not legal.
"""

from __future__ import annotations

import math
from collections.abc import Collection

from .heuristic import ACWHeuristic

#: labels that move a unit toward the enemy (stand-and-fire never picks one)
FORWARD_PREFIXES = ("advance:", "charge:", "wheel:", "sidestep:", "formation:", "face:",
                    "skirmish:", "melee:advance", "react:counter_charge")
FREE_SHOTS = ("react:closing_volley", "react:opportunity_fire")


class StandAndFire(ACWHeuristic):
    """``stand-and-fire``: never moves, shoots at every chance (module docstring).

    Args:
        game: an ``acw_regimental`` game.
        seed: seed of the fallback generator.

    Raises:
        UnknownAgentError: when ``game`` is not an ``acw_regimental`` game.
    """

    name = "stand-and-fire"

    def _react(self, p: dict, legal: Collection[str]) -> str:
        for lab in FREE_SHOTS:
            if lab in legal:
                return lab
        return "react:decline"

    def _rally(self, p: dict, legal: Collection[str]) -> str:
        return "rally:roll"

    def _reserve(self, p: dict, legal: Collection[str]) -> str:
        return "reserve:0"

    def _melee_advance(self, p: dict, legal: Collection[str]) -> str:
        return "melee:hold"

    def _pick_unit(self, p: dict, legal: Collection[str]) -> str:
        return "end_phase"

    def _activation(self, p: dict, legal: Collection[str]) -> str:
        if "end_activation" in legal:
            return "end_activation"
        if "end_phase" in legal:
            return "end_phase"
        # nothing passive is offered (not expected in this ruleset): anything not forward
        still = [lab for lab in legal if not lab.startswith(FORWARD_PREFIXES)]
        return still[0] if still else next(iter(legal))


class Rush(ACWHeuristic):
    """``rush``: straight at the nearest objective or enemy, charging whenever it can (module
    docstring).

    Args:
        game: an ``acw_regimental`` game.
        seed: seed of the fallback generator.

    Raises:
        UnknownAgentError: when ``game`` is not an ``acw_regimental`` game.
    """

    name = "rush"
    #: a unit this close (inches) to an objective stands on it
    REACHED = 1.5
    #: an objective with another own unit this close (inches) is already held (ACW-PD-36: 3")
    HELD = 3.0

    def _react(self, p: dict, legal: Collection[str]) -> str:
        for lab in FREE_SHOTS + ("react:evade_6", "react:evade_5", "react:evade_4"):
            if lab in legal:
                return lab
        return "react:decline"

    def _reserve(self, p: dict, legal: Collection[str]) -> str:
        return "reserve:0"

    def _melee_advance(self, p: dict, legal: Collection[str]) -> str:
        return "melee:advance"

    def _activation(self, p: dict, legal: Collection[str]) -> str:
        own, enemy = p["own_units"], p["enemy_units"]
        asked = self._ctx_slot(p["ctx_unit"])
        if asked is None or asked[0] != "own":
            return "end_activation"
        me = own[asked[1]]
        charges = [lab for lab in legal if lab.startswith("charge:e")]
        if charges:
            return max(charges, key=lambda lab: (self._charge_score(me, enemy[int(lab[8:])]),
                                                 -int(lab[8:])))
        if self._is(me, "kind=artillery"):
            return "end_activation"
        x, y = self._pos(me)
        if any(math.hypot(o[0] - x, o[1] - y) <= self.REACHED for o in self.objectives):
            return "end_activation"  # on an objective: hold it
        friends = [self._pos(own[k]) for k in self._units(own)
                   if k != asked[1] and not self._is(own[k], "is_screen")]
        points = [o for o in self.objectives
                  if all(math.hypot(o[0] - fx, o[1] - fy) > self.HELD for fx, fy in friends)]
        points += [self._pos(enemy[k]) for k in self._units(enemy)]
        if not points:
            return "end_activation"
        tx, ty = min(points, key=lambda q: math.hypot(q[0] - x, q[1] - y))
        return self._steer(me, tx, ty, legal, once=False)


def is_forward(label: str) -> bool:
    """True for a label that moves or turns a unit (what :class:`StandAndFire` never plays)."""
    return label.startswith(FORWARD_PREFIXES)


__all__ = ["FORWARD_PREFIXES", "Rush", "StandAndFire", "is_forward"]
