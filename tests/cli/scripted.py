"""A scripted opponent for the play tests: takes the first legal label of a preference list
(so the bot's charge in Worked Example A opens a reaction window for the person)."""

from __future__ import annotations

import numpy as np


class Scripted:
    name = "scripted"

    def __init__(self, game, prefer: list[str]):
        self.labels = game.actions.labels
        self.prefer = prefer

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        legal = [int(a) for a in np.flatnonzero(action_mask)]
        for want in self.prefer:
            for a in legal:
                if self.labels[a] == want:
                    return a
        return legal[0]


#: Union's plan in Worked Example A: activate the 14th Brooklyn and charge the 5th Virginia
CHARGER = ["activate:u0", "charge:e0", "end_activation", "end_phase", "hold_fire", "reserve:0",
           "rally:roll", "melee:hold", "react:decline"]
