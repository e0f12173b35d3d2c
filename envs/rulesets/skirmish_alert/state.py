"""The state of a skirmish alert game: fighters, elements, the round, the frame stack and the
protocol hooks (costs, the decision cap, scoring, serialisation, clones). The rules live in
modules of their own: the board's queries in :mod:`.queries`, the effects on fighters in
:mod:`.effects`, legality in :mod:`.legality`, the flow in :mod:`.procedures` and the
reactions in :mod:`.reactions`."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal

import numpy as np

from envs.core.errors import InvalidStateError
from envs.core.observer import ObservationLayout
from envs.core.procedure import FrameStack, ProcedureState
from envs.core.protocol import Game
from envs.core.reactions import Cost

from .actions import Act, Decision
from .params import MeleeWeapon, RangedWeapon, Scoring, ScenarioSpec



@dataclass(slots=True)
class Fighter:
    """One fighter: its profile (AL-PD-4) and what changes. ``gid = team * F + slot``."""

    gid: int
    team: int
    slot: int
    name: str
    ap_max: int
    mov: int
    ini: int
    ref: int
    mel: int
    sho: int
    tec: int
    defence: int
    arm: int
    w_max: int
    melee_weapon: str
    ranged_weapon: str | None
    x: int
    y: int
    facing: int
    wounds: int
    items: dict[str, int] = field(default_factory=dict)  #: item -> uses left (-1: passive)
    ap: int = 0
    on_alert: bool = False
    knocked_down: bool = False
    knockdowns: int = 0  #: how many times knocked down (AL-26 compares counts)
    in_play: bool = True
    track_pos: int = 0  #: initiative position this round (1 = fastest), 0 off the track
    activated: bool = False  #: has had its game turn this round
    attempted_turn: int = -1  #: the game turn (``AlertState.turn_id``) of its last attempt
    grapnel: bool = False  #: moves ignore difficult terrain for the rest of this turn
    kept: bool = False  #: kept its alert at the round's start (``maintain_timing="round_start"``)

    @property
    def pos(self) -> tuple[int, int]:
        return (self.x, self.y)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def copy(self) -> "Fighter":
        fighter = Fighter(**{name: getattr(self, name) for name in self.__slots__})
        fighter.items = dict(self.items)
        return fighter


Square = tuple[int, int]


class AlertGameData(Game["AlertState"]):
    """The skirmish game as its state and rules read it: the parameters, board, catalogue ids
    and fighters that :class:`~.game.AlertGame` (its one subclass) sets up. Declared here,
    beside the state, because the game module imports the state."""

    params: dict[str, Any]
    spec: ScenarioSpec
    fighters_per_team: int
    max_elements: int
    max_board: int
    width: int
    height: int
    blocking: frozenset[Square]
    difficult: frozenset[Square]
    scoring: Scoring
    rounds: int
    track_size: int
    difficulty_mode: Literal["absolute", "relative"]
    reaction_timing: Literal["after_declaration", "before_effect"]
    non_triggering_actions: tuple[str, ...]
    reaction_action_costs_ap: bool
    rearm_after_failure: bool
    maintain_ends_turn: bool
    maintain_timing: Literal["own_activation", "round_start"]
    reaction_requires_los: bool
    natural_extremes: bool
    modifier_cap: int
    knockdown_margin: int
    attack_base: int
    allow_shoot_into_melee: bool
    equipment_blocked_when_engaged: bool
    acts: tuple[Act, ...]
    turn_ids: tuple[int, ...]
    keep_id: int
    drop_id: int
    face_ids: tuple[int, ...]
    n_enemy_slots: int
    move_ids: dict[tuple[int, int], int]
    react_move_ids: dict[tuple[int, int], int]
    disengage_ids: dict[tuple[int, int], int]
    react_disengage_ids: dict[tuple[int, int], int]
    charge_ids: dict[tuple[int, int], int]
    react_ids: tuple[int, ...]
    turn_ids_by_kind: tuple[tuple[str, tuple[int, ...]], ...]
    react_ids_by_kind: tuple[tuple[str, tuple[int, ...]], ...]
    melee_weapons: dict[str, MeleeWeapon]
    ranged_weapons: dict[str, RangedWeapon]
    initial_fighters: tuple[Fighter, ...]
    initial_elements: tuple[dict[str, Any], ...]
    element_squares: frozenset[Square]
    static_blocked: frozenset[Square]
    neighbours: dict[Square, frozenset[Square]]
    max_decisions: int | None
    layout: ObservationLayout
    feature_index: dict[str, int]
    static_terrain: np.ndarray


class AlertState(ProcedureState):
    """State of a skirmish alert game (see the package docstring for the rules model). The
    game pushes the first frame (:class:`.procedures.Match`) and starts the flow."""

    _transient_attrs = ("_scope", "_occupants", "_board_key", "_board_memo")
    #: while a legal list is computed: the board memo (:func:`.queries.board_memo`), read without
    #: checking its key again, and the fighters by square
    _scope: dict[str, Any] | None = None
    _occupants: dict[tuple[int, int], Fighter] | None = None
    #: the board memo and the key it was computed for (:func:`.queries.board_memo`)
    _board_key: tuple[Any, ...] | None = None
    _board_memo: dict[str, Any] | None = None
    #: ``(entries of history counted, decisions among them)``, for the decision cap
    _decision_count: tuple[int, int] = (0, 0)
    decision_enum = Decision
    terminal_decision = Decision.TERMINAL
    chance_decision = Decision.CHANCE

    game: AlertGameData

    def __init__(self, game: AlertGameData, init: bool = True):
        super().__init__(game)
        if not init:
            return
        self.fighters: list[Fighter | None] = [None] * (game.num_players
                                                        * game.fighters_per_team)
        for fighter in game.initial_fighters:
            self.fighters[fighter.gid] = fighter.copy()
        self.elements: list[dict[str, Any]] = [dict(element) for element in game.initial_elements]
        self.smoke: list[tuple[int, int]] = []
        self.round = 1
        self.turn_id = 0
        self.active = -1

    # -- lookup ----------------------------------------------------------------------------
    def fighter(self, gid: int) -> Fighter:
        """The fighter ``gid``, one that a frame or a decision names.

        Raises:
            InvalidStateError: when there is no fighter ``gid``.
        """
        fighter = self.fighters[gid]
        if fighter is None:
            raise InvalidStateError(f"there is no fighter {gid}")
        return fighter

    def live(self) -> list[Fighter]:
        return [f for f in self.fighters if f is not None and f.in_play]

    def enemy_gid(self, team: int, slot: int) -> int:
        """Global id of enemy slot ``j`` as team ``team`` sees it (egocentric: the teams after
        ``team`` in seat order, ``F`` slots each)."""
        per_team, team_count = self.game.fighters_per_team, self.game.num_players
        team_offset, index = divmod(slot, per_team)
        return ((team + 1 + team_offset) % team_count) * per_team + index

    def enemy_slot(self, team: int, gid: int) -> int:
        per_team, team_count = self.game.fighters_per_team, self.game.num_players
        team_of_gid, index = divmod(gid, per_team)
        return ((team_of_gid - team - 1) % team_count) * per_team + index

    def teams_alive(self) -> list[int]:
        return sorted({f.team for f in self.live()})

    def decided(self) -> bool:
        return len(self.teams_alive()) <= 1

    # -- costs (envs.core.reactions) -------------------------------------------------------
    def can_pay(self, side: int, cost: Cost) -> bool:
        gid = int(cost.resource.split(":")[1])
        fighter = self.fighters[gid]
        return fighter is not None and fighter.team == side and fighter.ap >= cost.amount

    def pay(self, side: int, cost: Cost) -> None:
        self.fighter(int(cost.resource.split(":")[1])).ap -= cost.amount

    def _apply_action(self, action: int) -> None:
        """The frames' flow, then the decision cap of ``params.max_decisions`` (when set):
        the decision that reaches it ends the game, scored as it stands (an engine cap, not a
        rule of the seed; the ACW ruleset's ends its games the same way)."""
        super()._apply_action(action)
        cap = self.game.max_decisions
        if cap is not None and self.stack.node is not None and self.decisions_made() >= cap:
            self.log("decision_cap", (), f"decision cap {cap} reached: the game ends, scored "
                     f"as it stands (VP {self.scores()})", None, scores=self.scores())
            self.stack = FrameStack()

    def decisions_made(self) -> int:
        """How many decisions (not chance outcomes) the history holds; counted on from the
        last call, so each call costs what the history grew by since."""
        seen, count = self._decision_count
        history = self.history
        count += sum(1 for player, _ in history[seen:] if player >= 0)
        self._decision_count = (len(history), count)
        return count

    # -- scoring --------------------------------------------------------------------------------
    def scores(self) -> list[int]:
        """Victory points per team (scenario ``[scoring]``): fighters still in play, objectives
        held, machines owned and working or broken by the team."""
        scoring = self.game.scoring
        out = [0] * self.game.num_players
        for fighter in self.live():
            out[fighter.team] += scoring.fighter_vp
        for element in self.elements:
            if element["kind"] == "objective" and element["held_by"] is not None:
                out[element["held_by"]] += scoring.objective_vp
            elif element["kind"] == "machine":
                if element["state"] == "working":
                    out[element["owner"]] += scoring.machine_vp
                elif element["broken_by"] is not None and element["broken_by"] != element["owner"]:
                    out[element["broken_by"]] += scoring.machine_vp
        return out

    def placements(self) -> list[int]:
        """Per team: 1 + the number of teams with more victory points (ties share a place).
        A team with no fighter left places after every team that still has one."""
        alive = set(self.teams_alive())
        key = [(team in alive, score) for team, score in enumerate(self.scores())]
        return [1 + sum(1 for other in key if other > own) for own in key]

    def returns(self) -> list[float]:
        """Zero-sum in [-1, 1] for any number of teams: (teams placed below - teams placed
        above) / (teams - 1); two teams give +1 / -1 / 0."""
        team_count = self.game.num_players
        if not self.is_terminal():
            return [0.0] * team_count
        places = self.placements()
        return [(sum(1 for other in places if other > place)
                 - sum(1 for other in places if other < place)) / (team_count - 1)
                for place in places]

    # -- serialisation --------------------------------------------------------------------------
    def _to_dict(self) -> dict[str, Any]:
        return {"fighters": [None if fighter is None else fighter.to_dict()
                             for fighter in self.fighters],
                "elements": [dict(element) for element in self.elements],
                "smoke": [list(square) for square in self.smoke], "round": self.round,
                "turn_id": self.turn_id, "active": self.active, "stack": self.stack.to_dict()}

    @classmethod
    def from_dict(cls, game: Any, data: dict[str, Any]) -> "AlertState":
        state = cls(game, init=False)
        state.fighters = [None if fields is None else Fighter(**fields)
                          for fields in data["fighters"]]
        state.elements = [dict(element) for element in data["elements"]]
        state.smoke = [tuple(square) for square in data["smoke"]]
        state.round = int(data["round"])
        state.turn_id = int(data["turn_id"])
        state.active = int(data["active"])
        state.stack = FrameStack.from_dict(data["stack"], Decision)
        return state

    def clone(self) -> "AlertState":
        state = AlertState(self.game, init=False)
        self._copy_base_into(state)
        state.fighters = [None if fighter is None else fighter.copy() for fighter in self.fighters]
        state.elements = [dict(element) for element in self.elements]
        state.smoke = list(self.smoke)
        state.round, state.turn_id, state.active = self.round, self.turn_id, self.active
        state.stack = self.stack.copy()
        state._decision_count = self._decision_count
        state._board_key, state._board_memo = self._board_key, self._board_memo
        return state


__all__ = ["AlertState", "Fighter"]
