"""Scripted Atomic Africa bots that read only their side's observation and the mask.

* :class:`AAHeuristic` (``heuristic`` on ruleset ``atomic_africa``): gives orders to the units
  that see an enemy (keeping a card back when it can), activates the unit with most targets,
  fires at the nearest enemy (a second target only with a Jack or Joker in hand), reacts only
  with units that already hold an order, gives a reactor its lowest card, announces Split
  Fire / Aimed Fire / Assault, and in the change loop replaces a low revealed card (2-5) with
  a face card.
* :class:`NeverReserve` (``never-reserve``): the heuristic, but it never plays from the
  Reserve unless forced (it always stands in the change loop, AA-D4; an orderless reactor must
  still take a card, AA-R4).
* :class:`AlwaysReserve` (``always-reserve``): the heuristic, but it replaces every revealed
  order it can (plays its best eligible Reserve card in every change-loop round).

Everything is read from the observation pieces of
:mod:`envs.rulesets.atomic_africa` (``own_units``, ``enemy_units``, ``los``, ``own_reserve``,
``decision``, ``subject``); the state is never touched.
"""

from __future__ import annotations

import math

import numpy as np

from envs.core.protocol import Game

from .policy import BasePolicy, SeedLike, legal_ids

#: card preference, best first (Joker freezes, face cards announce specials)
CARD_PREFERENCE = ("Joker", "K", "Q", "J", "10", "9", "8", "7", "6", "5", "4", "3", "2", "A")
LOW_CARDS = ("A", "2", "3", "4", "5")


class AAHeuristic(BasePolicy):
    """The scripted Atomic Africa heuristic (see the module docstring).

    Args:
        game: an ``atomic_africa`` game (labels and observation layout only).
        seed: seed of the policy's own generator (ties are broken by slot, not at random).
    """

    name = "heuristic"

    def __init__(self, game: Game, seed: SeedLike = None, name: str | None = None):
        super().__init__(seed, name)
        from envs.rulesets.atomic_africa.game import FI, UNIT_FEATURES

        self.labels = tuple(game.actions.labels)
        self.id = {lab: i for i, lab in enumerate(self.labels)}
        self.layout = game.layout
        self.fi = FI
        self.nf = len(UNIT_FEATURES)
        self.decisions = tuple(game.decision_types)
        self.cards = [f.removeprefix("card_") for f in UNIT_FEATURES if f.startswith("card_")]
        self.U = game.max_units_per_side

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
            sees = sub >= 0 and los[sub].sum() > 0
            choice = self._pick(legal, "move:hold" if sees else "move:forward:2",
                                "move:forward:1", "move:hold")
        elif d == "fire":
            choice = self._fire(own, enemy, legal, sub)
        elif d == "reaction":
            ready = [lab for lab in legal if lab.startswith("react:unit")
                     and own[int(lab.removeprefix("react:unit")), f["has_order"]] > 0.5]
            choice = self.id[ready[0]] if ready else self._pick(legal, "react:none")
        elif d == "reserve_assign":
            choice = self._pick(legal, *[f"reserve:play:{c}" for c in reversed(CARD_PREFERENCE)])
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

    def _orders(self, P: dict[str, np.ndarray], legal: list[str], sub: int) -> int | None:
        hand = P["own_reserve"]
        held = int(round(hand.sum() * 4))
        sees = sub >= 0 and P["los"][sub].sum() > 0
        if held >= 2 and not sees and "assign:none" in legal and hand[-1] == 0:
            return self.id["assign:none"]  # keep a card back for reactions
        return self._pick(legal, *[f"assign:{c}" for c in CARD_PREFERENCE if c != "Joker"],
                          "assign:Joker")

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
            return math.hypot(e[f["x"]] - (1 - me[f["x"]]), e[f["y"]] - (1 - me[f["y"]]))
        return self.id[min(targets, key=dist)]

    def _reserve_play(self, own: np.ndarray, legal: list[str]) -> int | None:
        f = self.fi
        mine = [r for r in own if r[f["activating"]] > 0.5 or r[f["reacting"]] > 0.5]
        low = any(self._card(r) in LOW_CARDS for r in mine)
        if low:
            pick = self._pick(legal, *[f"reserve:play:{c}" for c in ("K", "Q", "J")])
            if pick is not None:
                return pick
        return self._pick(legal, "reserve:stand")


class NeverReserve(AAHeuristic):
    """The heuristic that never plays from the Reserve unless forced (stands in every
    change-loop round)."""

    name = "never-reserve"

    def _reserve_play(self, own: np.ndarray, legal: list[str]) -> int | None:
        return self._pick(legal, "reserve:stand")


class AlwaysReserve(AAHeuristic):
    """The heuristic that replaces every revealed order it can (its best eligible Reserve
    card, every change-loop round)."""

    name = "always-reserve"

    def _reserve_play(self, own: np.ndarray, legal: list[str]) -> int | None:
        return self._pick(legal, *[f"reserve:play:{c}" for c in CARD_PREFERENCE],
                          "reserve:stand")
