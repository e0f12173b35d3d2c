"""Reaction baselines: never react, always react when free.

Both read only the mask and the action labels of ``game.actions`` (never the State). A reaction
window is recognised by its labels: a mask whose legal ids include ``react:*`` labels is a
reaction decision. Outside reaction windows both play uniformly at random.

Reaction economy used here (ACW, RULE-04-1.3 with I-3): *free* reactions are Closing Volley,
Opportunity Fire and Skirmish Evade; *commanded* ones (Refuse the Flank, Counter-Charge) cost a
reserved Staff Pip (I-2). ``react:wait_*`` postpones opportunity fire to a shorter range
(acw_fillins "reaction prompts"), so "react at the first chance" means not waiting. Any other
``react:*`` label of another ruleset that is neither ``decline``, a wait nor a commanded one
counts as free (e.g. the toy ruleset's ``react:dodge``).
"""

from __future__ import annotations

import numpy as np

from envs.core.protocol import Game

from ..policies.base import BasePolicy, SeedLike, legal_ids

REACT_PREFIX = "react:"
DECLINE = "react:decline"
#: preference order of free reactions for AlwaysReact (label prefixes)
FREE_PREFERENCE = ("react:closing_volley", "react:opportunity_fire", "react:evade")
COMMANDED_PREFIXES = ("react:refuse", "react:counter_charge")
WAIT_PREFIX = "react:wait"


class _LabelPolicy(BasePolicy):
    """A policy that classifies action ids by their catalogue labels once, at construction."""

    def __init__(self, game: Game, seed: SeedLike = None, name: str | None = None):
        super().__init__(seed, name)
        self.labels: tuple[str, ...] = tuple(game.actions.labels)
        n = len(self.labels)
        self.is_react = np.array([lab.startswith(REACT_PREFIX) for lab in self.labels], bool)
        self.decline_id: int | None = (self.labels.index(DECLINE) if DECLINE in self.labels
                                       else None)
        # free reactions, grouped by preference rank (0 = most preferred)
        self.free_rank = np.full(n, -1, dtype=np.int64)
        for i, lab in enumerate(self.labels):
            if not lab.startswith(REACT_PREFIX) or lab == DECLINE:
                continue
            if lab.startswith(COMMANDED_PREFIXES) or lab.startswith(WAIT_PREFIX):
                continue
            rank = next((r for r, p in enumerate(FREE_PREFERENCE) if lab.startswith(p)),
                        len(FREE_PREFERENCE))
            self.free_rank[i] = rank

    def reaction_ids(self, legal: np.ndarray) -> np.ndarray:
        """The legal ids that are reactions (``react:*`` labels, decline included)."""
        return legal[self.is_react[legal]]


class NeverReact(_LabelPolicy):
    """Declines every reaction window (``react:decline``); uniformly random elsewhere.

    If a window offers no decline (a compulsory reaction), it picks uniformly among the offered
    reactions.

    Args:
        game: the game whose action labels are read.
        seed: seed of the policy's own generator.
    """

    name = "never-react"

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        legal = legal_ids(action_mask)
        react = self.reaction_ids(legal)
        if react.size:
            if self.decline_id is not None and self.decline_id in react:
                return self.decline_id
            return self._uniform(react)
        return self._uniform(legal)


class AlwaysReact(_LabelPolicy):
    """"Always react when free": in a reaction window takes a free reaction whenever one is
    legal — Closing Volley first, then Opportunity Fire at the first chance (never
    ``react:wait_*``), then Evade (uniform among the offered distances) — and declines the
    commanded reactions that cost a reserved pip (RULE-04-1.3, I-2, I-3). Uniformly random
    outside reaction windows.

    Args:
        game: the game whose action labels are read.
        seed: seed of the policy's own generator.
    """

    name = "always-react"

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        legal = legal_ids(action_mask)
        react = self.reaction_ids(legal)
        if not react.size:
            return self._uniform(legal)
        ranks = self.free_rank[react]
        free = react[ranks >= 0]
        if free.size:
            best = free[ranks[ranks >= 0] == ranks[ranks >= 0].min()]
            return self._uniform(best)
        if self.decline_id is not None and self.decline_id in react:
            return self.decline_id
        # only commanded / waiting reactions are offered and declining is not: pick among them
        return self._uniform(react)
