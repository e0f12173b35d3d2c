"""A test-only ruleset ("ambush") with a reaction that decides the game, for the search tests.

Side 0 (``attacker``) chooses ``advance``; that opens a reaction window for side 1
(``defender``): ``react:fire`` or ``react:decline``. A d6 is rolled either way. After a fire
the attacker chooses ``press`` or ``withdraw`` and the defender wins both. After a decline the
attacker chooses ``charge`` (the attacker wins) or ``halt`` (a draw). So firing wins for the
defender and declining loses against an attacker who charges: only a look two decisions ahead
(through the chance node) sees it.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from envs.core import (CHANCE, TERMINAL, ActionCatalogue, Game, Illegality, ObservationLayout,
                       Piece, State)

ACTIONS = ActionCatalogue(["advance", "react:fire", "react:decline", "press", "withdraw",
                           "charge", "halt"])
CHANCE_CAT = ActionCatalogue([f"d6={i}" for i in range(1, 7)])
PHASES = ("advance", "react", "roll", "follow", "over")


class AmbushGame(Game):
    ruleset_id = "ambush"
    version = 0

    def __init__(self, scenario: Any = None, params: Any = None):
        self.params = {}
        self.scenario_name = "ambush"
        self.num_players = 2
        self.side_names = ("attacker", "defender")
        self.actions = ACTIONS
        self.chance = CHANCE_CAT
        self.decision_types = ("chance", "terminal", "maneuver", "reaction")
        self.max_game_length = 10
        self.layout = ObservationLayout([Piece("phase", (len(PHASES),), "one-hot phase"),
                                         Piece("fired", (1,), "1 after a fire"),
                                         Piece("side", (1,), "observing side")])

    def new_initial_state(self) -> "AmbushState":
        return AmbushState(self)

    def state_from_dict(self, data: dict[str, Any]) -> "AmbushState":
        s = AmbushState(self)
        s.phase, s.fired, s.result = data["phase"], data["fired"], data["result"]
        return s

    @property
    def observation_size(self) -> int:
        return self.layout.size

    def observation(self, state: "AmbushState", side: int) -> np.ndarray:
        v = self.layout.zeros()
        v[PHASES.index(state.phase)] = 1.0
        v[len(PHASES)] = float(state.fired)
        v[len(PHASES) + 1] = float(side)
        return v

    def observation_string(self, state: "AmbushState", side: int) -> str:
        return f"phase={state.phase} fired={state.fired}"


class AmbushState(State):
    def __init__(self, game: AmbushGame):
        super().__init__(game)
        self.phase = "advance"
        self.fired = False
        self.result = [0.0, 0.0]

    def current_player(self) -> int:
        return {"over": TERMINAL, "roll": CHANCE, "react": 1}.get(self.phase, 0)

    def decision_type(self) -> str:
        return {"over": "terminal", "roll": "chance", "react": "reaction"}.get(self.phase,
                                                                                "maneuver")

    def _legal_actions(self) -> list[int]:
        if self.phase == "advance":
            return [0]
        if self.phase == "react":
            return [1, 2]
        return [3, 4] if self.fired else [5, 6]

    def _chance_outcomes(self) -> list[tuple[int, float]]:
        return [(i, 1 / 6) for i in range(6)]

    def _why_illegal(self, action: int) -> Illegality:
        return Illegality(("AMBUSH-1",), "not offered now")

    def _apply_action(self, action: int) -> None:
        label = ACTIONS.labels[action] if self.phase != "roll" else "roll"
        if self.phase == "roll":
            self.phase = "follow"
        elif label == "advance":
            self.phase = "react"
        elif label.startswith("react:"):
            self.fired = label == "react:fire"
            self.phase = "roll"
        else:
            self.result = {"press": [-1.0, 1.0], "withdraw": [-1.0, 1.0],
                           "charge": [1.0, -1.0], "halt": [0.0, 0.0]}[label]
            self.phase = "over"

    def returns(self) -> list[float]:
        return list(self.result) if self.phase == "over" else [0.0, 0.0]

    def _to_dict(self) -> dict[str, Any]:
        return {"phase": self.phase, "fired": self.fired, "result": list(self.result)}

    def clone(self) -> "AmbushState":
        s = AmbushState.__new__(AmbushState)
        s.game = self.game
        self._copy_base_into(s)
        s.phase, s.fired, s.result = self.phase, self.fired, list(self.result)
        return s
