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
from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

from ..policies.base import BasePolicy, SeedLike, legal_ids

if TYPE_CHECKING:
    from envs.rulesets.atomic_africa.state import AAGameData

#: card preference, best first (Joker freezes, face cards announce specials)
CARD_PREFERENCE = ("Joker", "K", "Q", "J", "10", "9", "8", "7", "6", "5", "4", "3", "2", "A")
LOW_CARDS = ("A", "2", "3", "4", "5")
FACE_CARDS = ("Joker", "K", "Q", "J")
#: Orders Phase: at most this many cards are kept back as the Reserve
KEEP = 2
#: an enemy in sight within this range (cm) stops the advance (the 30 cm range band, AA-G14)
HOLD_RANGE_CM = 30.0
#: a decision's chooser: (observation pieces, legal labels, subject slot or -1) -> action id or
#: None (then the first legal action)
Chooser = Callable[[dict[str, np.ndarray], list[str], int], int | None]


class AAHeuristic(BasePolicy):
    """The scripted Atomic Africa heuristic (see the module docstring).

    Args:
        game: an ``atomic_africa`` game (labels and observation layout only).
        seed: seed of the policy's own generator (ties are broken by slot, not at random).
    """

    name = "heuristic"

    def __init__(self, game: AAGameData, seed: SeedLike = None, name: str | None = None):
        super().__init__(seed, name)
        from envs.rulesets.atomic_africa.actions import DIRECTIONS, MAX_INCREMENTS, Decision
        from envs.rulesets.atomic_africa.observer import FEATURE_INDEX

        self.labels = tuple(game.actions.labels)
        self.label_id = {label: index for index, label in enumerate(self.labels)}
        self.layout = game.layout
        self.feature = FEATURE_INDEX
        self.decisions = tuple(game.decision_types)
        self.cards = [name.removeprefix("card_") for name in FEATURE_INDEX
                      if name.startswith("card_")]
        self.slots = game.max_units_per_side
        self.width, self.depth = float(game.width), float(game.depth)
        self.radius = float(game.objective_radius_cm)
        #: cm per increment of infantry and of vehicles (AA-G8)
        self.increment_cm = (float(game.infantry_increment_cm), float(game.vehicle_increment_cm))
        self.directions, self.max_increments = DIRECTIONS, MAX_INCREMENTS
        #: the chooser of each decision type (a decision it does not know takes the first label)
        self.choosers: dict[str, Chooser] = {Decision.ORDERS: self._orders, Decision.ACTIVATION: self._activation,
                         Decision.MANEUVER: self._maneuver, Decision.FIRE: self._fire,
                         Decision.REACTION: self._reaction,
                         Decision.RESERVE_ASSIGN: self._reserve_assign_choice,
                         Decision.DECLARATION: self._declaration,
                         Decision.RESERVE_PLAY: self._reserve_play_choice,
                         Decision.CLEANUP: self._cleanup}

    # -- reading the observation ------------------------------------------------------------
    def _parts(self, observation: np.ndarray) -> dict[str, np.ndarray]:
        return self.layout.split(np.asarray(observation, dtype=np.float32))

    def _card(self, row: np.ndarray) -> str | None:
        first = self.feature[f"card_{self.cards[0]}"]
        hot = np.flatnonzero(row[first:first + len(self.cards)] > 0.5)
        return self.cards[int(hot[0])] if hot.size else None

    def _legal(self, mask: np.ndarray) -> list[str]:
        return [self.labels[action] for action in legal_ids(mask)]

    def _pick(self, legal: list[str], *preferences: str) -> int | None:
        for label in preferences:
            if label in legal:
                return self.label_id[label]
        return None

    # -- the policy --------------------------------------------------------------------------
    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        legal = self._legal(action_mask)
        parts = self._parts(observation)
        decision = self.decisions[int(np.argmax(parts["decision"]))]
        subject = int(np.argmax(parts["subject"])) if parts["subject"].any() else -1
        chooser = self.choosers.get(decision)
        choice = None if chooser is None else chooser(parts, legal, subject)
        if choice is None:
            choice = int(legal_ids(action_mask)[0])
        return choice

    def _activation(self, parts: dict[str, np.ndarray], legal: list[str],
                    subject: int) -> int | None:
        """The unit with most enemies in sight (the lowest slot on a tie)."""
        sight = parts["los"]
        best = max((label for label in legal if label.startswith("activate:")),
                   key=lambda label: (sight[int(label.removeprefix("activate:unit"))].sum(),
                                      -int(label.removeprefix("activate:unit"))))
        return self.label_id[best]

    def _declaration(self, parts: dict[str, np.ndarray], legal: list[str],
                     subject: int) -> int | None:
        return self._pick(legal, "special:split_fire", "special:aimed_fire", "special:assault",
                          "posture:crouched")

    def _cleanup(self, parts: dict[str, np.ndarray], legal: list[str],
                 subject: int) -> int | None:
        return self._pick(legal, "split:done")

    def _reserve_assign_choice(self, parts: dict[str, np.ndarray], legal: list[str],
                               subject: int) -> int | None:
        return self._reserve_assign(legal)

    def _reserve_play_choice(self, parts: dict[str, np.ndarray], legal: list[str],
                             subject: int) -> int | None:
        return self._reserve_play(parts["own_units"], legal)

    def _hand(self, parts: dict[str, np.ndarray]) -> list[str]:
        """Own Reserve cards, best first (one entry per copy)."""
        counts = np.rint(parts["own_reserve"] * 4).astype(int)
        return [card for card in CARD_PREFERENCE
                for _ in range(int(counts[self.cards.index(card)]))]

    def keep(self, hand: list[str]) -> list[str]:
        """The cards kept back as the Reserve: the Joker and the best face card (at most
        ``KEEP``); giving out the other cards best first leaves these the same."""
        kept = [card for card in hand if card == "Joker"][:1]
        kept += [card for card in hand if card in FACE_CARDS and card != "Joker"][:1]
        return kept[:KEEP]

    def _orders(self, parts: dict[str, np.ndarray], legal: list[str],
                subject: int) -> int | None:
        hand = self._hand(parts)
        rest = list(hand)
        for card in self.keep(hand):
            rest.remove(card)
        if not rest:
            own, feature = parts["own_units"], self.feature
            ordered = (own[:, feature["present"]] > 0.5) & (own[:, feature["has_order"]] > 0.5)
            later = [slot for slot in range(subject + 1, self.slots)
                     if own[slot, feature["present"]] > 0.5
                     and own[slot, feature["has_order"]] < 0.5]
            if hand and not ordered.any() and not later:  # the side's only chance of an order
                return self._pick(legal, f"assign:{hand[-1]}", "assign:none")
            return self._pick(legal, "assign:none")
        return self._pick(legal, f"assign:{rest[0]}", "assign:none")

    def _maneuver(self, parts: dict[str, np.ndarray], legal: list[str],
                  subject: int) -> int | None:
        if subject < 0:
            return self._pick(legal, "move:hold")
        feature = self.feature
        unit = parts["own_units"][subject]
        unit_x, unit_y = unit[feature["x"]] * self.width, unit[feature["y"]] * self.depth
        # an enemy in sight within the hold range: stay and fire
        for enemy_slot in np.flatnonzero(parts["los"][subject] > 0.5):
            enemy = parts["enemy_units"][enemy_slot]
            enemy_x = enemy[feature["x"]] * self.width  # the same egocentric frame
            enemy_y = enemy[feature["y"]] * self.depth
            if math.hypot(enemy_x - unit_x, enemy_y - unit_y) <= HOLD_RANGE_CM:
                return self._pick(legal, "move:hold")
        goals = [(objective[0] * self.width, objective[1] * self.depth)
                 for objective in parts["objectives"] if objective[0] > 0 or objective[1] > 0]
        if not goals:
            return self._pick(legal, "move:forward:2", "move:forward:1", "move:hold")
        distances = [math.hypot(goal_x - unit_x, goal_y - unit_y) for goal_x, goal_y in goals]
        if min(distances) <= self.radius * 0.8:
            return self._pick(legal, "move:hold")
        goal_x, goal_y = goals[int(np.argmin(distances))]
        to_x, to_y, nearest = goal_x - unit_x, goal_y - unit_y, min(distances)
        increment = self.increment_cm[1] if unit[feature["vehicle"]] > 0.5 else self.increment_cm[0]
        count = max(1, min(self.max_increments,
                           int(math.ceil((nearest - self.radius * 0.5) / increment))))
        order = sorted(self.directions, key=lambda direction: -(
            self.directions[direction][0] * to_x + self.directions[direction][1] * to_y))
        return self._pick(legal, *[f"move:{direction}:{steps}" for direction in order[:2]
                                   for steps in range(count, 0, -1)], "move:hold")

    def _reaction(self, parts: dict[str, np.ndarray], legal: list[str],
                  subject: int) -> int | None:
        feature = self.feature
        own = parts["own_units"]
        ready = [label for label in legal if label.startswith("react:unit")
                 and own[int(label.removeprefix("react:unit")), feature["has_order"]] > 0.5]
        if ready:
            return self.label_id[ready[0]]
        orderless = [label for label in legal if label.startswith("react:unit")]
        if orderless and self.react_from_reserve(self._hand(parts)):
            return self.label_id[orderless[0]]
        return self._pick(legal, "react:none")

    def react_from_reserve(self, hand: list[str]) -> bool:
        """Whether an orderless unit reacts voluntarily, taking a Reserve card (AA-R3/R4):
        only with a number card to give it."""
        return any(card not in FACE_CARDS and card != "A" for card in hand)

    def _reserve_assign(self, legal: list[str]) -> int | None:
        """AA-R4: the lowest eligible card (the face cards stay for the change loop)."""
        return self._pick(legal, *[f"reserve:play:{card}" for card in reversed(CARD_PREFERENCE)])

    def _fire(self, parts: dict[str, np.ndarray], legal: list[str], subject: int) -> int | None:
        feature = self.feature
        own, enemies = parts["own_units"], parts["enemy_units"]
        targets = [label for label in legal if label.startswith("target:unit")]
        if not targets:
            return self._pick(legal, "target:none")
        already = (enemies[:, feature["targeted"]].sum() > 0
                   and own[subject, feature["activating"]] > 0.5) if subject >= 0 else False
        card = self._card(own[subject]) if subject >= 0 else None
        reacting = subject >= 0 and own[subject, feature["reacting"]] > 0.5
        if (already or reacting) and card not in ("J", "Joker"):
            return self._pick(legal, "target:none")
        firer = own[subject] if subject >= 0 else own[0]

        def distance(label: str) -> float:
            enemy = enemies[int(label.removeprefix("target:unit"))]
            return math.hypot((enemy[feature["x"]] - firer[feature["x"]]) * self.width,
                              (enemy[feature["y"]] - firer[feature["y"]]) * self.depth)

        return self.label_id[min(targets, key=distance)]

    def _reserve_play(self, own: np.ndarray, legal: list[str]) -> int | None:
        feature = self.feature
        playing = [row for row in own
                   if row[feature["activating"]] > 0.5 or row[feature["reacting"]] > 0.5]
        if any(self._card(row) in LOW_CARDS for row in playing):
            pick = self._pick(legal, *[f"reserve:play:{card}" for card in FACE_CARDS])
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
        return self._pick(legal, *[f"reserve:play:{card}" for card in CARD_PREFERENCE])

    def _reserve_play(self, own: np.ndarray, legal: list[str]) -> int | None:
        return self._pick(legal, *[f"reserve:play:{card}" for card in CARD_PREFERENCE],
                          "reserve:stand")
