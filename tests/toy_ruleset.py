"""A tiny ruleset used only by tests of the core and adapters ("duel").

Two sides with 5 hit points each take turns. The active side chooses ``attack``, ``rest`` or
``pass`` (``pass`` ends its turn). An attack opens a reaction window for the *other* side
(``react:dodge`` or ``react:decline``), then one d6 is rolled: 4+ hits (5+ if dodged). ``rest``
heals 1 (max 5) and may be taken once a turn. The game ends when a side reaches 0 hit points or
after ``turns`` turns (more hit points wins; equal is a draw). A side may act several times in a
row (attack, attack, pass), and the non-active side decides inside the active side's turn.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from envs.core import (CHANCE, TERMINAL, ActionCatalogue, Game, Illegality, ObservationLayout,
                       Piece, State)
from envs.core.scenario import validate_params

import pydantic

ACTIONS = ActionCatalogue(["attack", "rest", "pass", "react:dodge", "react:decline"])
CHANCE_CAT = ActionCatalogue([f"d6={i}" for i in range(1, 7)])
DECISIONS = ("chance", "terminal", "maneuver", "reaction")


class ToyParams(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(extra="forbid", strict=True)
    turns: int = pydantic.Field(6, ge=1, le=100)
    hp: int = pydantic.Field(5, ge=1, le=20)


class ToyGame(Game):
    ruleset_id = "toy"
    version = 0

    def __init__(self, scenario: Any = None, params: Any = None):
        p = validate_params(ToyParams, params)
        self.params = p.model_dump()
        self.turns = p.turns
        self.hp = p.hp
        self.scenario_name = "duel"
        self.num_players = 2
        self.side_names = ("red", "blue")
        self.actions = ACTIONS
        self.chance = CHANCE_CAT
        self.decision_types = DECISIONS
        self.max_game_length = self.turns * 2 * 30
        self.layout = ObservationLayout([
            Piece("hp", (2,), "own, enemy hit points / hp"),
            Piece("turn", (1,), "turn / turns"),
            Piece("active", (1,), "1 if the observing side is the active side"),
            Piece("decision", (len(DECISIONS),), "one-hot decision type"),
        ])

    def new_initial_state(self) -> "ToyState":
        return ToyState(self)

    def state_from_dict(self, data: dict[str, Any]) -> "ToyState":
        s = ToyState(self)
        s.hp = list(data["hp"])
        s.turn, s.active, s.phase = data["turn"], data["active"], data["phase"]
        s.rested, s.dodged = data["rested"], data["dodged"]
        return s

    @property
    def observation_size(self) -> int:
        return self.layout.size

    def observation(self, state: "ToyState", side: int) -> np.ndarray:
        v = self.layout.zeros()
        v[0] = state.hp[side] / self.hp
        v[1] = state.hp[1 - side] / self.hp
        v[2] = state.turn / self.turns
        v[3] = 1.0 if state.active == side else 0.0
        v[4 + DECISIONS.index(str(state.decision_type()))] = 1.0
        return v

    def observation_string(self, state: "ToyState", side: int) -> str:
        return f"hp own={state.hp[side]} enemy={state.hp[1 - side]} turn={state.turn}"


class ToyState(State):
    def __init__(self, game: ToyGame):
        super().__init__(game)
        self.hp = [game.hp, game.hp]
        self.turn = 0
        self.active = 0
        self.phase = "act"  # act | react | roll | over
        self.rested = False
        self.dodged = False

    def current_player(self) -> int:
        if self.phase == "over":
            return TERMINAL
        if self.phase == "roll":
            return CHANCE
        if self.phase == "react":
            return 1 - self.active
        return self.active

    def decision_type(self) -> str:
        return {"over": "terminal", "roll": "chance", "react": "reaction"}.get(self.phase, "maneuver")

    def _legal_actions(self) -> list[int]:
        if self.phase == "react":
            return [3, 4]
        return [0, 2] if self.rested or self.hp[self.active] >= self.game.hp else [0, 1, 2]

    def _chance_outcomes(self) -> list[tuple[int, float]]:
        return [(i, 1 / 6) for i in range(6)]

    def _why_illegal(self, action: int) -> Illegality:
        if self.phase == "react":
            return Illegality(("TOY-2",), "only a reaction may be chosen in the reaction window")
        if action == 1:
            return Illegality(("TOY-3",), "rest once a turn, and only when wounded")
        return Illegality(("TOY-1",), "reactions are chosen by the non-active side")

    def _apply_action(self, action: int) -> None:
        g = self.game
        if self.phase == "roll":
            roll = action + 1
            need = 5 if self.dodged else 4
            if roll >= need:
                self.hp[1 - self.active] -= 1
                self.log("hit", ("TOY-4",), f"d6={roll} hits", self.active, roll=roll)
            else:
                self.log("miss", ("TOY-4",), f"d6={roll} misses", self.active, roll=roll)
            self.phase = "act"
            if self.hp[1 - self.active] <= 0:
                self.phase = "over"
            return
        if self.phase == "react":
            self.dodged = action == 3
            self.phase = "roll"
            return
        if action == 0:
            self.phase = "react"
        elif action == 1:
            self.hp[self.active] += 1
            self.rested = True
        else:
            self.rested = False
            self.active = 1 - self.active
            if self.active == 0:
                self.turn += 1
                if self.turn >= g.turns:
                    self.phase = "over"

    def returns(self) -> list[float]:
        if self.phase != "over" or self.hp[0] == self.hp[1]:
            return [0.0, 0.0]
        return [1.0, -1.0] if self.hp[0] > self.hp[1] else [-1.0, 1.0]

    def _to_dict(self) -> dict[str, Any]:
        return {"hp": list(self.hp), "turn": self.turn, "active": self.active,
                "phase": self.phase, "rested": self.rested, "dodged": self.dodged}

    def clone(self) -> "ToyState":
        s = ToyState.__new__(ToyState)
        s.game = self.game
        self._copy_base_into(s)
        s.hp = list(self.hp)
        s.turn, s.active, s.phase = self.turn, self.active, self.phase
        s.rested, s.dodged = self.rested, self.dodged
        return s
