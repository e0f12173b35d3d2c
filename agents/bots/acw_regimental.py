"""The scripted bots of ``acw_regimental``: the heuristic (:class:`ACWHeuristic`, ``heuristic``)
and the two styles of the bot panel (:class:`StandAndFire`, ``stand-and-fire``, and
:class:`Rush`, ``rush``). They read only the observation, the mask and the action labels
(never the State).

:class:`ACWHeuristic` reads the ACW observation through ``game.layout`` piece names and the
per-unit feature names of the ruleset's observation schema (``UNIT_FEATURES``, ``CTX_KINDS``,
``ZONES`` of ``envs.rulesets.acw_regimental.observer``). Static, public facts of the scenario are
also used: the table size (to turn the observation's ``x/W``, ``y/D`` back into inches) and the
objective points. The observation is egocentric (side 1 sees the table rotated 180°) and the
bot cannot tell its seat from it, so the objectives it aims at are the scenario's objectives
together with their rotated images (for the symmetric default battle the two sets coincide).

Its doctrine, decision by decision:

* **reaction** — Closing Volley whenever offered (RULE-04-2); Opportunity Fire at the first
  chance (RULE-04-3); a screen evades as far as it can (RULE-04-4); Counter-Charge (reserved pip,
  I-2) when the asked unit is fresh, in good order and at least as strong as the charger;
  Refuse the Flank only with a reserved pip and only against a flank threat (RULE-04-5); else
  decline (a declined charge still leaves the B2 volley, I-10).
* **command** — rally by paying a pip when at least two are left, else roll (ACW-PD-15);
  reserve one pip (ACW-PD-14).
* **maneuver** — activate the most forward unit first; charge when the odds favour it (charger
  Fresh and in good order; target Disordered, Worn or worse, smaller, artillery or a screen);
  batteries stay put. Objectives are held, not passed: each objective of our half of the
  table (the centre line included; the enemy's farm is not sought) gets the nearest free
  regiment that can hold it (not Spent, greedily by distance, one regiment per objective),
  which turns toward it and advances on it — wheel and advance in the same activation while
  it is more than 8" away (objectives count after the enemy's move, so arriving a move
  earlier is a count more), one step per activation closer in — and then stays on it (within
  1.5"); a regiment without an objective moves (wheel and advance) to within 3" of the
  nearest objective with an enemy within 12" (to help hold ours, to contest theirs); the
  others hold their ground and fire. A screen advances on the nearest enemy until it is
  within 14" of one. (On a scenario without objectives every unit advances on the nearest
  enemy until within 12" of one.)
* **fire** — fire at the best target in range: the closest, with a bonus for weak ones
  (Disordered, Worn or worse, few stands left); never hold fire when a target is offered.

If a chosen label is ever not legal, the bot falls back to a uniform choice among the legal
actions with its own generator.

The bot panel: two scripted styles of play that any trained agent must beat.

Both read only the observation (decoded as :class:`ACWHeuristic` decodes it:
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
from typing import Any

import numpy as np

from envs.core.protocol import Game

from ..policies.base import BasePolicy, SeedLike, UnknownAgentError, legal_ids

HOLD_RANGE = 12.0       # inches: a unit this close to an enemy stands and fires
OBJECTIVE_REACHED = 1.5  # inches: a regiment this close to its objective holds it
OBJECTIVE_RADIUS = 3.0   # inches: holding distance of an objective (ACW-PD-36)
SUPPORT_RANGE = 12.0     # inches: a spare regiment supports an objective with an enemy this close
OBJECTIVE_DANGER = 0.0   # inches: an objective this close to a formed enemy is not sought
SCREEN_HOLD_RANGE = 14.0
FAR_FROM_GOAL = 8.0      # inches: farther than this from its objective a regiment wheels and
                         # advances in the same activation (closer, one primitive per activation)
TURN_THRESHOLD = math.radians(35)
HALF_TURN_THRESHOLD = math.radians(15)


def _wrap(a: float) -> float:
    return (a + math.pi) % (2 * math.pi) - math.pi


class ACWHeuristic(BasePolicy):
    """Scripted ACW regimental bot (see the module docstring for its doctrine).

    Args:
        game: an ``acw_regimental`` game (its layout, action labels, table size, objectives).
        seed: seed of the fallback generator.

    Raises:
        UnknownAgentError: when ``game`` is not an ``acw_regimental`` game.
    """

    name = "heuristic"

    def __init__(self, game: Game[Any], seed: SeedLike = None):
        super().__init__(seed)
        from envs.rulesets.acw_regimental.state import ACWGameData

        if game.ruleset_id != "acw_regimental" or not isinstance(game, ACWGameData):
            raise UnknownAgentError(
                f"{self.name!r} plays acw_regimental only, not {game.ruleset_id!r}")
        from envs.rulesets.acw_regimental.observer import CTX_KINDS, UNIT_FEATURES, ZONES

        self.layout = game.layout
        self.f = {n: i for i, n in enumerate(UNIT_FEATURES)}
        self.ctx_kinds = CTX_KINDS
        self.zones = ZONES
        self.m = int(self.layout.view(self.layout.zeros(), "own_units").shape[0])
        self.labels = tuple(game.actions.labels)
        self.ids = {lab: i for i, lab in enumerate(self.labels)}
        self.W = float(game.terrain.width)
        self.D = float(game.terrain.depth)
        objs = [(float(x), float(y)) for x, y in game.objectives]
        mirrored = [(self.W - x, self.D - y) for x, y in objs]
        self.objectives = list(dict.fromkeys(objs + mirrored))
        # the objectives of our half of the (egocentric) table, the centre line included: the
        # ones a regiment is sent to hold (all of them if none lies there)
        self.home = [o for o in self.objectives if o[1] <= self.D / 2 + 1e-6] or self.objectives

    # -- observation helpers ------------------------------------------------------------------
    def _units(self, rows: np.ndarray) -> list[int]:
        return [k for k in range(rows.shape[0]) if rows[k, self.f["present"]] > 0.5]

    def _pos(self, row: np.ndarray) -> tuple[float, float]:
        return float(row[self.f["x/W"]]) * self.W, float(row[self.f["y/D"]]) * self.D

    def _heading(self, row: np.ndarray) -> float:
        return math.atan2(float(row[self.f["sin(heading)"]]), float(row[self.f["cos(heading)"]]))

    def _dist(self, a: np.ndarray, b: np.ndarray) -> float:
        (ax, ay), (bx, by) = self._pos(a), self._pos(b)
        return math.hypot(ax - bx, ay - by)

    def _is(self, row: np.ndarray, feature: str) -> bool:
        return bool(row[self.f[feature]] > 0.5)

    def _weakness(self, row: np.ndarray) -> float:
        """0 for a fresh, full-strength, formed unit; larger for weaker ones."""
        w = 1.0 - float(row[self.f["stands/s0"]])
        w += 1.0 * self._is(row, "disordered")
        w += 0.5 * self._is(row, "health=worn") + 1.0 * self._is(row, "health=spent")
        w += 2.0 * self._is(row, "health=broken")
        return w

    def _ctx_slot(self, vec: np.ndarray) -> tuple[str, int] | None:
        if vec.max() <= 0.5:
            return None
        k = int(np.argmax(vec))
        return ("own", k) if k < self.m else ("enemy", k - self.m)

    # -- policy -----------------------------------------------------------------------------
    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        legal = legal_ids(action_mask)
        # in action-id order (a dict, not a set): ties between equally good choices go to the
        # lowest id, the same in every process (a set of strings iterates in an order that
        # changes with PYTHONHASHSEED)
        legal_labels = dict.fromkeys(self.labels[i] for i in legal)
        p = self.layout.split(np.asarray(observation, dtype=np.float32))
        choice = self._choose(p, legal_labels)
        if choice in legal_labels:
            return self.ids[choice]
        return self._uniform(legal)

    def _choose(self, p: dict, legal_labels: Collection[str]) -> str:
        """The label to play (the caller falls back to a uniform legal id if it is illegal)."""
        if any(lab.startswith("react:") for lab in legal_labels):
            return self._react(p, legal_labels)
        if any(lab.startswith("rally:") for lab in legal_labels):
            return self._rally(p, legal_labels)
        if any(lab.startswith("reserve:") for lab in legal_labels):
            return self._reserve(p, legal_labels)
        if "hold_fire" in legal_labels or any(lab.startswith("fire:") for lab in legal_labels):
            return self._fire(p, legal_labels)
        if "melee:advance" in legal_labels or "melee:hold" in legal_labels:
            return self._melee_advance(p, legal_labels)
        if any(lab.startswith("activate:") for lab in legal_labels):
            return self._pick_unit(p, legal_labels)
        return self._activation(p, legal_labels)

    # -- phase 1 ------------------------------------------------------------------------------
    def _rally(self, p: dict, legal: Collection[str]) -> str:
        pips = float(p["resources"][0]) * 6.0
        return "rally:pay_pip" if pips >= 1.5 else "rally:roll"

    def _reserve(self, p: dict, legal: Collection[str]) -> str:
        return "reserve:1" if "reserve:1" in legal else min(
            lab for lab in legal if lab.startswith("reserve:"))

    def _melee_advance(self, p: dict, legal: Collection[str]) -> str:
        return "melee:advance"

    # -- reactions ----------------------------------------------------------------------------
    def _react(self, p: dict, legal: Collection[str]) -> str:
        if "react:closing_volley" in legal:
            return "react:closing_volley"
        if "react:opportunity_fire" in legal:
            return "react:opportunity_fire"
        for lab in ("react:evade_6", "react:evade_5", "react:evade_4"):
            if lab in legal:
                return lab
        asked = self._ctx_slot(p["ctx_unit"])
        trig = self._ctx_slot(p["ctx_trigger"])
        me = p["own_units"][asked[1]] if asked and asked[0] == "own" else None
        them = p["enemy_units"][trig[1]] if trig and trig[0] == "enemy" else None
        cc = [lab for lab in ("react:counter_charge_3", "react:counter_charge_2") if lab in legal]
        if cc and me is not None and them is not None:
            if (self._is(me, "health=fresh") and not self._is(me, "disordered")
                    and self._weakness(me) <= self._weakness(them)):
                return cc[0]
        refuse = [lab for lab in ("react:refuse_2", "react:refuse_1") if lab in legal]
        reserved = float(p["resources"][1]) * 2.0
        zone = p["ctx_zone"]
        flank = zone.max() > 0.5 and self.zones[int(np.argmax(zone))] in ("left", "right")
        if refuse and reserved >= 0.5 and flank:
            return refuse[0]
        if "react:decline" in legal:
            return "react:decline"
        return sorted(legal)[0]

    # -- phase 3 fire ----------------------------------------------------------------------------
    def _fire(self, p: dict, legal: Collection[str]) -> str:
        targets = [lab for lab in legal if lab.startswith("fire:e")]
        if not targets:
            return "hold_fire"
        asked = self._ctx_slot(p["ctx_unit"])
        me = p["own_units"][asked[1]] if asked and asked[0] == "own" else None

        def score(lab: str) -> float:
            row = p["enemy_units"][int(lab[len("fire:e"):])]
            d = self._dist(me, row) if me is not None else 0.0
            return d - 4.0 * self._weakness(row)

        return min(targets, key=score)

    # -- phase 2 ------------------------------------------------------------------------------
    def _pick_unit(self, p: dict, legal: Collection[str]) -> str:
        own = p["own_units"]
        cands = [lab for lab in legal if lab.startswith("activate:u")]
        return max(cands, key=lambda lab: (self._pos(own[int(lab[len("activate:u"):])])[1],
                                           -int(lab[len("activate:u"):])))

    def _charge_score(self, me: np.ndarray, them: np.ndarray) -> float:
        """Positive when a charge of ``me`` on ``them`` looks favourable."""
        if self._is(me, "disordered") or not self._is(me, "health=fresh"):
            return -1.0
        if self._is(me, "kind=artillery") or self._is(me, "is_screen"):
            return -1.0
        score = 0.0
        score += 2.0 * self._is(them, "disordered")
        score += 1.5 * (self._is(them, "health=worn") or self._is(them, "health=spent")
                        or self._is(them, "health=broken"))
        score += 1.5 * (self._is(them, "kind=artillery") or self._is(them, "is_screen"))
        mine = float(me[self.f["stands/s0"]]) * float(me[self.f["s0/8"]])
        theirs = float(them[self.f["stands/s0"]]) * float(them[self.f["s0/8"]])
        score += 1.0 if mine > theirs + 1e-6 else 0.0
        score += 0.5 * self._is(me, "rebel_yell")
        return score - 1.5

    def _activation(self, p: dict, legal: Collection[str]) -> str:
        own, enemy = p["own_units"], p["enemy_units"]
        asked = self._ctx_slot(p["ctx_unit"])
        if asked is None or asked[0] != "own":
            return "end_activation"
        me = own[asked[1]]
        charges = [lab for lab in legal if lab.startswith("charge:e")]
        if charges:
            best = max(charges, key=lambda lab: self._charge_score(me, enemy[int(lab[8:])]))
            if self._charge_score(me, enemy[int(best[8:])]) > 0:
                return best
        if self._is(me, "kind=artillery"):
            if self._is(me, "formation=limbered") and "formation:unlimber" in legal:
                return "formation:unlimber"
            return "end_activation"
        if self._is(me, "disordered") or self._is(me, "engaged"):
            return "end_activation"
        enemies = self._units(enemy)
        if not enemies:
            return "end_activation"
        x, y = self._pos(me)
        if not self._is(me, "is_screen"):
            goal = self._objective_goals(own, enemy).get(asked[1])
            if goal is not None:
                if math.hypot(goal[0] - x, goal[1] - y) <= OBJECTIVE_REACHED:
                    return "end_activation"   # on its objective: hold it
                far = math.hypot(goal[0] - x, goal[1] - y) > FAR_FROM_GOAL
                return self._steer(me, goal[0], goal[1], legal, once=not far)
            contested = [o for o in self.objectives
                         if any(math.hypot(o[0] - ex, o[1] - ey) <= SUPPORT_RANGE
                                for ex, ey in (self._pos(enemy[k]) for k in enemies))]
            if contested:                     # no objective of its own: help contest one
                tx, ty = min(contested, key=lambda o: math.hypot(o[0] - x, o[1] - y))
                if math.hypot(tx - x, ty - y) > OBJECTIVE_RADIUS:
                    return self._steer(me, tx, ty, legal, once=False)
                return "end_activation"
            if self.objectives:
                return "end_activation"       # nothing to contest: hold the line
        d_en = min(self._dist(me, enemy[k]) for k in enemies)
        hold = SCREEN_HOLD_RANGE if self._is(me, "is_screen") else HOLD_RANGE
        if d_en <= hold:
            return "end_activation"
        tx, ty = self._pos(min((enemy[k] for k in enemies),
                               key=lambda row: self._dist(me, row)))
        return self._steer(me, tx, ty, legal)

    def _objective_goals(self, own: np.ndarray, enemy: np.ndarray) -> dict[int, tuple]:
        """Own slot -> the objective it goes for or holds: each objective of our half of the
        table (``self.home``) not under the enemy's guns (no formed enemy regiment within
        ``OBJECTIVE_DANGER`` inches of it) gets the nearest free own regiment that can hold it
        (batteries, screens, Spent and Broken units excluded), greedily by distance (ties to
        the lowest slot, then the first objective), at most one regiment per objective."""
        movers = [k for k in self._units(own)
                  if not (self._is(own[k], "kind=artillery") or self._is(own[k], "is_screen")
                          or self._is(own[k], "health=broken")
                          or self._is(own[k], "health=spent"))]
        formed = [self._pos(enemy[k]) for k in self._units(enemy)
                  if not (self._is(enemy[k], "is_screen")
                          or self._is(enemy[k], "health=broken"))]
        safe = [o for o in self.home
                if all(math.hypot(o[0] - ex, o[1] - ey) > OBJECTIVE_DANGER for ex, ey in formed)]
        pairs = sorted((math.hypot(o[0] - self._pos(own[k])[0], o[1] - self._pos(own[k])[1]),
                        k, i) for k in movers for i, o in enumerate(safe))
        goals: dict[int, tuple] = {}
        taken: set[int] = set()
        for _, k, i in pairs:
            if k in goals or i in taken:
                continue
            goals[k] = safe[i]
            taken.add(i)
        return goals

    def _steer(self, me: np.ndarray, tx: float, ty: float, legal: Collection[str],
               once: bool = True) -> str:
        """Wheel toward the point ``(tx, ty)`` (inches, egocentric table) when it lies more than
        15° off the unit's heading, else advance on it (all of the allowance from 5" away, two
        thirds from 3", a third from 1"); ``end_activation`` when it is reached or, with
        ``once``, when the unit has already moved this activation."""
        x, y = self._pos(me)
        diff = _wrap(math.atan2(ty - y, tx - x) - self._heading(me))
        side = "left" if diff > 0 else "right"
        if abs(diff) > TURN_THRESHOLD and f"wheel:{side}" in legal:
            return f"wheel:{side}"
        if abs(diff) > HALF_TURN_THRESHOLD and f"wheel:{side}_half" in legal:
            return f"wheel:{side}_half"
        if once and self._is(me, "moved"):
            return "end_activation"
        dist = math.hypot(tx - x, ty - y)
        for need, lab in ((5.0, "advance:all"), (3.0, "advance:two_thirds"),
                          (1.0, "advance:third")):
            if dist >= need and lab in legal:
                return lab
        return "end_activation"


# -- the bot panel ---------------------------------------------------------------------------------
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
