"""Scripted Atomic Africa bots that read only their side's observation and the mask.

All three keep the same hidden **Reserve** in the Orders Phase and play the same movement and
fire; they differ only in the Reserve decisions (``reaction`` with an orderless unit,
``reserve_assign``, ``reserve_play``), so ``evaluate.py``'s ``decision_stats`` tells them apart.

* :class:`AAHeuristic` (``heuristic`` on ruleset ``atomic_africa``):

  - Orders (AA-G4): keeps back the Joker and its best face card (at most ``KEEP`` = 2 cards)
    as the Reserve for reactions and the change loop, and gives every other unit its best
    remaining card (face cards first); when only kept cards are left and no unit of the side
    holds an order yet, the last unit gets the lowest of them;
  - activates the unit with most enemies in sight; moves toward the nearest objective (holds
    within 0.8 x the objective radius of one, or when it sees an enemy within
    ``HOLD_RANGE_CM``; straight forward on a table without objectives); fires at the nearest
    enemy (a second target only with a Jack or Joker in hand);
  - reacts with a unit that holds an order, otherwise (AA-R3/R4) with an orderless unit only
    when the Reserve holds a number card to give it; an orderless reactor gets its lowest
    eligible card (``reserve_assign``);
  - announces Split Fire / Aimed Fire / Assault; in the change loop (AA-D4) replaces a low
    revealed order (A-5) with the Joker or a face card, else stands.

* :class:`NeverReserve` (``never-reserve``): the heuristic, but it never plays from the
  Reserve unless forced: no voluntary reaction with an orderless unit (AA-R3), stands in
  every change-loop round (AA-D4); a targeted orderless unit must still take a card (AA-R4).
* :class:`AlwaysReserve` (``always-reserve``): the heuristic, but it uses the Reserve whenever
  it can: reacts voluntarily with an orderless unit whenever the Reserve allows (AA-R4),
  gives a reactor its best eligible card, and replaces every revealed order it can with its
  best eligible card in every change-loop round (AA-D4).

Everything is read from the observation pieces of
:mod:`envs.rulesets.atomic_africa` (``own_units``, ``enemy_units``, ``los``, ``own_reserve``,
``objectives``, ``decision``, ``subject``) and the scenario's public table size; the state is
never touched.
"""

from __future__ import annotations

import math

import numpy as np

from envs.core.protocol import Game

from ..policies.base import BasePolicy, SeedLike, legal_ids

#: card preference, best first (Joker freezes, face cards announce specials)
CARD_PREFERENCE = ("Joker", "K", "Q", "J", "10", "9", "8", "7", "6", "5", "4", "3", "2", "A")
LOW_CARDS = ("A", "2", "3", "4", "5")
FACE_CARDS = ("Joker", "K", "Q", "J")
#: Orders Phase: at most this many cards are kept back as the Reserve
KEEP = 2
#: an enemy in sight within this range (cm) stops the advance (the 30 cm range band, AA-G14)
HOLD_RANGE_CM = 30.0


class AAHeuristic(BasePolicy):
    """The scripted Atomic Africa heuristic (see the module docstring).

    Args:
        game: an ``atomic_africa`` game (labels and observation layout only).
        seed: seed of the policy's own generator (ties are broken by slot, not at random).
    """

    name = "heuristic"

    def __init__(self, game: Game, seed: SeedLike = None, name: str | None = None):
        super().__init__(seed, name)
        from envs.rulesets.atomic_africa.observer import FEATURE_INDEX, UNIT_FEATURES

        self.labels = tuple(game.actions.labels)
        self.id = {lab: i for i, lab in enumerate(self.labels)}
        self.layout = game.layout
        self.fi = FEATURE_INDEX
        self.nf = len(UNIT_FEATURES)
        self.decisions = tuple(game.decision_types)
        self.cards = [f.removeprefix("card_") for f in UNIT_FEATURES if f.startswith("card_")]
        self.U = game.max_units_per_side
        self.width, self.depth = float(game.width), float(game.depth)
        self.radius = float(game.objective_radius_cm)
        self.inc = (float(game.infantry_increment_cm), float(game.vehicle_increment_cm))
        from envs.rulesets.atomic_africa.actions import DIRECTIONS, MAX_INCREMENTS

        self.dirs, self.max_inc = DIRECTIONS, MAX_INCREMENTS

    # -- reading the observation ------------------------------------------------------------
    def _parts(self, obs: np.ndarray) -> dict[str, np.ndarray]:
        return self.layout.split(np.asarray(obs, dtype=np.float32))

    def _card(self, row: np.ndarray) -> str | None:
        i0 = self.fi[f"card_{self.cards[0]}"]
        hot = np.flatnonzero(row[i0:i0 + len(self.cards)] > 0.5)
        return self.cards[int(hot[0])] if hot.size else None

    def _legal(self, mask: np.ndarray) -> list[str]:
        return [self.labels[i] for i in legal_ids(mask)]

    def _pick(self, legal: list[str], *prefs: str) -> int | None:
        for p in prefs:
            if p in legal:
                return self.id[p]
        return None

    # -- the policy --------------------------------------------------------------------------
    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        legal = self._legal(action_mask)
        P = self._parts(observation)
        d = self.decisions[int(np.argmax(P["decision"]))]
        own, enemy, los = P["own_units"], P["enemy_units"], P["los"]
        sub = int(np.argmax(P["subject"])) if P["subject"].any() else -1
        f = self.fi
        choice: int | None = None
        if d == "orders":
            choice = self._orders(P, legal, sub)
        elif d == "activation":
            best = max((lab for lab in legal if lab.startswith("activate:")),
                       key=lambda lab: (los[int(lab.removeprefix("activate:unit"))].sum(),
                                        -int(lab.removeprefix("activate:unit"))))
            choice = self.id[best]
        elif d == "maneuver":
            choice = self._maneuver(P, legal, sub)
        elif d == "fire":
            choice = self._fire(own, enemy, legal, sub)
        elif d == "reaction":
            choice = self._reaction(P, legal)
        elif d == "reserve_assign":
            choice = self._reserve_assign(legal)
        elif d == "declaration":
            choice = self._pick(legal, "special:split_fire", "special:aimed_fire",
                                "special:assault", "posture:crouched")
        elif d == "reserve_play":
            choice = self._reserve_play(own, legal)
        elif d == "cleanup":
            choice = self._pick(legal, "split:done")
        if choice is None:
            choice = int(legal_ids(action_mask)[0])
        return choice

    def _hand(self, P: dict[str, np.ndarray]) -> list[str]:
        """Own Reserve cards, best first (one entry per copy)."""
        counts = np.rint(P["own_reserve"] * 4).astype(int)
        names = [c for c in self.cards]
        return [c for c in CARD_PREFERENCE for _ in range(int(counts[names.index(c)]))]

    def keep(self, hand: list[str]) -> list[str]:
        """The cards kept back as the Reserve: the Joker and the best face card (at most
        ``KEEP``); giving out the other cards best first leaves these the same."""
        kept = [c for c in hand if c == "Joker"][:1]
        kept += [c for c in hand if c in FACE_CARDS and c != "Joker"][:1]
        return kept[:KEEP]

    def _orders(self, P: dict[str, np.ndarray], legal: list[str], sub: int) -> int | None:
        hand = self._hand(P)
        rest = list(hand)
        for c in self.keep(hand):
            rest.remove(c)
        if not rest:
            own, f = P["own_units"], self.fi
            ordered = (own[:, f["present"]] > 0.5) & (own[:, f["has_order"]] > 0.5)
            later = [k for k in range(sub + 1, self.U) if own[k, f["present"]] > 0.5
                     and own[k, f["has_order"]] < 0.5]
            if hand and not ordered.any() and not later:  # the side's only chance of an order
                return self._pick(legal, f"assign:{hand[-1]}", "assign:none")
            return self._pick(legal, "assign:none")
        return self._pick(legal, f"assign:{rest[0]}", "assign:none")

    def _maneuver(self, P: dict[str, np.ndarray], legal: list[str], sub: int) -> int | None:
        if sub < 0:
            return self._pick(legal, "move:hold")
        f = self.fi
        me = P["own_units"][sub]
        ux, uy = me[f["x"]] * self.width, me[f["y"]] * self.depth
        # an enemy in sight within the hold range: stay and fire
        for j in np.flatnonzero(P["los"][sub] > 0.5):
            e = P["enemy_units"][j]
            ex, ey = e[f["x"]] * self.width, e[f["y"]] * self.depth  # same frame
            if math.hypot(ex - ux, ey - uy) <= HOLD_RANGE_CM:
                return self._pick(legal, "move:hold")
        goals = [(o[0] * self.width, o[1] * self.depth) for o in P["objectives"]
                 if o[0] > 0 or o[1] > 0]
        if not goals:
            return self._pick(legal, "move:forward:2", "move:forward:1", "move:hold")
        dist = [math.hypot(gx - ux, gy - uy) for gx, gy in goals]
        if min(dist) <= self.radius * 0.8:
            return self._pick(legal, "move:hold")
        gx, gy = goals[int(np.argmin(dist))]
        dx, dy, dd = gx - ux, gy - uy, min(dist)
        inc = self.inc[1] if me[f["vehicle"]] > 0.5 else self.inc[0]
        n = max(1, min(self.max_inc, int(math.ceil((dd - self.radius * 0.5) / inc))))
        order = sorted(self.dirs, key=lambda d: -(self.dirs[d][0] * dx + self.dirs[d][1] * dy))
        return self._pick(legal, *[f"move:{d}:{k}" for d in order[:2]
                                   for k in range(n, 0, -1)], "move:hold")

    def _reaction(self, P: dict[str, np.ndarray], legal: list[str]) -> int | None:
        f = self.fi
        own = P["own_units"]
        ready = [lab for lab in legal if lab.startswith("react:unit")
                 and own[int(lab.removeprefix("react:unit")), f["has_order"]] > 0.5]
        if ready:
            return self.id[ready[0]]
        orderless = [lab for lab in legal if lab.startswith("react:unit")]
        if orderless and self.react_from_reserve(self._hand(P)):
            return self.id[orderless[0]]
        return self._pick(legal, "react:none")

    def react_from_reserve(self, hand: list[str]) -> bool:
        """Whether an orderless unit reacts voluntarily, taking a Reserve card (AA-R3/R4):
        only with a number card to give it."""
        return any(c not in FACE_CARDS and c != "A" for c in hand)

    def _reserve_assign(self, legal: list[str]) -> int | None:
        """AA-R4: the lowest eligible card (the face cards stay for the change loop)."""
        return self._pick(legal, *[f"reserve:play:{c}" for c in reversed(CARD_PREFERENCE)])

    def _fire(self, own: np.ndarray, enemy: np.ndarray, legal: list[str], sub: int) -> int | None:
        f = self.fi
        targets = [lab for lab in legal if lab.startswith("target:unit")]
        if not targets:
            return self._pick(legal, "target:none")
        already = enemy[:, f["targeted"]].sum() > 0 and own[sub, f["activating"]] > 0.5 \
            if sub >= 0 else False
        card = self._card(own[sub]) if sub >= 0 else None
        if (already or (sub >= 0 and own[sub, f["reacting"]] > 0.5)) and card not in ("J", "Joker"):
            return self._pick(legal, "target:none")
        me = own[sub] if sub >= 0 else own[0]
        def dist(lab: str) -> float:
            e = enemy[int(lab.removeprefix("target:unit"))]
            return math.hypot((e[f["x"]] - me[f["x"]]) * self.width,
                              (e[f["y"]] - me[f["y"]]) * self.depth)  # one egocentric frame
        return self.id[min(targets, key=dist)]

    def _reserve_play(self, own: np.ndarray, legal: list[str]) -> int | None:
        f = self.fi
        mine = [r for r in own if r[f["activating"]] > 0.5 or r[f["reacting"]] > 0.5]
        low = any(self._card(r) in LOW_CARDS for r in mine)
        if low:
            pick = self._pick(legal, *[f"reserve:play:{c}" for c in FACE_CARDS])
            if pick is not None:
                return pick
        return self._pick(legal, "reserve:stand")


class NeverReserve(AAHeuristic):
    """The heuristic that never plays from the Reserve unless forced: no voluntary reaction
    with an orderless unit (AA-R3), stands in every change-loop round (AA-D4); a targeted
    orderless unit still takes its lowest eligible card (AA-R4)."""

    name = "never-reserve"

    def react_from_reserve(self, hand: list[str]) -> bool:
        return False

    def _reserve_play(self, own: np.ndarray, legal: list[str]) -> int | None:
        return self._pick(legal, "reserve:stand")


class AlwaysReserve(AAHeuristic):
    """The heuristic that uses the Reserve whenever it can: reacts voluntarily with an
    orderless unit whenever a Reserve card is eligible (AA-R4), gives a reactor its best
    eligible card, and replaces every revealed order it can with its best eligible card in
    every change-loop round (AA-D4)."""

    name = "always-reserve"

    def react_from_reserve(self, hand: list[str]) -> bool:
        return True

    def _reserve_assign(self, legal: list[str]) -> int | None:
        return self._pick(legal, *[f"reserve:play:{c}" for c in CARD_PREFERENCE])

    def _reserve_play(self, own: np.ndarray, legal: list[str]) -> int | None:
        return self._pick(legal, *[f"reserve:play:{c}" for c in CARD_PREFERENCE],
                          "reserve:stand")
