"""The skirmish alert :class:`~envs.core.protocol.Game` (seed 001; see the package docstring)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from envs.core.scenario import validate_params

from .actions import CHANCE_CATALOGUE, DECISION_TYPES, Act, build_catalogue
from .observer import FIGHTER_FEATURES, build_layout, observation, observation_string
from .params import (DIRECTIONS, EQUIPMENT_USES, MELEE_WEAPONS, RANGED_WEAPONS, SCENARIO_DIR,
                     VECTORS, AlertParams, MeleeWeapon, RangedWeapon, load_scenario)
from .actions import AP_COST
from .procedures.turn import Match
from .state import AlertGameData, AlertState, Fighter


def _by_kind(acts: tuple[Act, ...], ids: tuple[int, ...],
             skip: tuple[str, ...]) -> tuple[tuple[str, tuple[int, ...]], ...]:
    """``ids`` (but those of the kinds in ``skip``) as ``(kind, ids)`` pairs, kinds in order of
    first appearance."""
    groups: dict[str, list[int]] = {}
    for action_id in ids:
        if acts[action_id].kind not in skip:
            groups.setdefault(acts[action_id].kind, []).append(action_id)
    return tuple((kind, tuple(group)) for kind, group in groups.items())


class AlertGame(AlertGameData):
    """A skirmish with On Alert reactions for 2, 3 or 4 teams (seed 001, AL-1 … AL-28).

    Args:
        scenario: a built-in scenario name (``default``, ``ffa4``, ``three_teams``,
            ``worked_example``, ...), a TOML path, or None for ``default``.
        params: mapping of :class:`~.params.AlertParams` fields.

    Raises:
        ScenarioError: bad scenario file (names the file, the key and the problem).
        ParameterError: bad parameter (names the parameter and the problem).
    """

    ruleset_id = "skirmish_alert"
    scenario_dir = SCENARIO_DIR
    version = 3

    def __init__(self, scenario: str | Path | None = None,
                 params: Mapping[str, Any] | None = None):
        alert_params = validate_params(AlertParams, params)
        self.params = alert_params.model_dump(mode="json")
        name, spec = load_scenario(scenario, alert_params)
        self.scenario_name = name
        self.spec = spec
        team_count = len(spec.teams)
        self.num_players = team_count
        self.side_names = tuple(spec.teams)
        self.fighters_per_team = alert_params.max_fighters_per_team
        self.max_elements = alert_params.max_elements
        self.max_board = alert_params.max_board
        self.width, self.height = spec.board.width, spec.board.height
        self.blocking = frozenset((x, y) for x, y in spec.blocking)
        self.difficult = frozenset((x, y) for x, y in spec.difficult)
        self.scoring = spec.scoring
        self.rounds = alert_params.rounds if alert_params.rounds is not None else spec.rounds
        for option in ("track_size", "difficulty_mode", "reaction_timing",
                       "non_triggering_actions", "reaction_action_costs_ap",
                       "rearm_after_failure", "maintain_ends_turn", "maintain_timing",
                       "reaction_requires_los", "natural_extremes", "modifier_cap",
                       "knockdown_margin", "attack_base", "allow_shoot_into_melee",
                       "equipment_blocked_when_engaged"):
            setattr(self, option, getattr(alert_params, option))
        self.actions, self.acts = build_catalogue(team_count, self.fighters_per_team,
                                                  self.max_elements)
        self.chance = CHANCE_CATALOGUE
        self.decision_types = DECISION_TYPES
        acts = self.acts
        self.turn_ids = tuple(i for i, a in enumerate(acts)
                              if not a.react and a.kind in AP_COST and a.kind != "keep_alert")
        self.keep_id = self.actions.id("keep_alert")
        self.drop_id = self.actions.id("drop_alert")
        self.face_ids = tuple(i for i, a in enumerate(acts) if a.kind == "face")
        # the ids of the moves, disengages and charges by destination, for the legal lists
        # built from the squares a fighter can reach (.legality)
        self.n_enemy_slots = (team_count - 1) * self.fighters_per_team
        self.move_ids = {(a.dx, a.dy): i for i, a in enumerate(acts)
                         if a.kind == "move" and not a.react}
        self.react_move_ids = {(a.dx, a.dy): i for i, a in enumerate(acts)
                               if a.kind == "move" and a.react}
        self.disengage_ids = {(a.dx, a.dy): i for i, a in enumerate(acts)
                              if a.kind == "disengage" and not a.react}
        self.react_disengage_ids = {(a.dx, a.dy): i for i, a in enumerate(acts)
                                    if a.kind == "disengage" and a.react}
        self.charge_ids = {(a.target, a.direction): i for i, a in enumerate(acts)
                           if a.kind == "charge"}
        reach_kinds = ("move", "disengage", "charge")
        self.react_ids = tuple(i for i, a in enumerate(acts) if a.react and a.kind != "none")
        #: the other ids of an own turn and of a reaction menu, grouped by kind (in catalogue
        #: order), so that a legal list can skip a kind the fighter cannot take at all
        self.turn_ids_by_kind = _by_kind(acts, self.turn_ids, reach_kinds)
        self.react_ids_by_kind = _by_kind(acts, self.react_ids, reach_kinds)
        slots = [0] * team_count
        fighters = []
        #: the weapons this game's fighters carry, by name: the built-in ones and any a
        #: scenario gives by its numbers (AL-PD-22 .. AL-PD-24)
        self.melee_weapons: dict[str, MeleeWeapon] = dict(MELEE_WEAPONS)
        self.ranged_weapons: dict[str, RangedWeapon] = dict(RANGED_WEAPONS)
        for fighter_spec in spec.fighters:
            slot = slots[fighter_spec.team]
            slots[fighter_spec.team] += 1
            items = {item: (-1 if (uses := EQUIPMENT_USES[item]) is None else uses)
                     for item in fighter_spec.equipment}
            melee_name, melee = fighter_spec.melee()
            self.melee_weapons[melee_name] = melee
            ranged = fighter_spec.ranged()
            if ranged is not None:
                self.ranged_weapons[ranged[0]] = ranged[1]
            fighters.append(Fighter(
                fighter_spec.team * self.fighters_per_team + slot, fighter_spec.team, slot,
                fighter_spec.name, fighter_spec.ap, fighter_spec.mov, fighter_spec.ini,
                fighter_spec.ref, fighter_spec.mel, fighter_spec.sho, fighter_spec.tec,
                fighter_spec.defence, fighter_spec.arm, fighter_spec.w, melee_name,
                None if ranged is None else ranged[0], fighter_spec.x, fighter_spec.y,
                DIRECTIONS.index(fighter_spec.facing),
                fighter_spec.w - fighter_spec.wounds_taken, items,
                ap=fighter_spec.ap_left, on_alert=fighter_spec.on_alert,
                knocked_down=fighter_spec.knocked_down))
        self.initial_fighters = tuple(fighters)
        self.initial_elements = tuple(
            {"kind": e.kind, "x": e.x, "y": e.y, "state": e.state, "controls": e.controls,
             "owner": e.owner, "difficulty": e.difficulty, "held_by": None, "broken_by": None}
            for e in spec.elements)
        self.element_squares = frozenset((e.x, e.y) for e in spec.elements)
        #: squares that always block movement: blocking terrain, levers, machines (AL-PD-30)
        self.static_blocked = self.blocking | frozenset(
            (e.x, e.y) for e in spec.elements if e.kind in ("lever", "machine"))
        #: per square of the board, the neighbouring squares on the board that terrain, levers
        #: and machines do not block (AL-PD-16: the steps a move may take from it)
        self.neighbours = {
            (x, y): frozenset((x + dx, y + dy) for dx, dy in VECTORS
                              if 0 <= x + dx < self.width and 0 <= y + dy < self.height
                              and (x + dx, y + dy) not in self.static_blocked)
            for x in range(self.width) for y in range(self.height)}
        fighter_count = len(fighters)
        ap = max(f.ap_max for f in fighters)
        # per action: its declaration and its facing, 4 per reactor (attempt, react, facing,
        # re-arm), a new destination when its way is blocked (AL-PD-20) or its charge's square
        per_turn = 1 + (ap + 1) * (4 + 4 * fighter_count)
        #: the decision cap of params (None: none; AlertState._apply_action)
        self.max_decisions = alert_params.max_decisions
        self.max_game_length = alert_params.max_decisions or self.rounds * fighter_count * per_turn
        self.layout = build_layout(team_count, self.fighters_per_team, self.max_elements,
                                   self.max_board)
        self.feature_index = {k: i for i, k in enumerate(FIGHTER_FEATURES)}
        self.feature_index["defence"] = self.feature_index["def"]
        board_size = self.max_board
        terrain = np.zeros((4, board_size, board_size), dtype=np.float32)
        terrain[0, :, :] = 1.0
        terrain[0, :self.height, :self.width] = 0.0
        for x, y in self.blocking:
            terrain[1, y, x] = 1.0
        for x, y in self.difficult:
            terrain[2, y, x] = 1.0
        self.static_terrain = terrain

    def new_initial_state(self) -> AlertState:
        state = AlertState(self)
        state.stack.push(Match())
        state.start()
        return state

    def state_from_dict(self, data: Mapping[str, Any]) -> AlertState:
        return AlertState.from_dict(self, dict(data))

    @property
    def observation_size(self) -> int:
        return self.layout.size

    def observation(self, state: AlertState, side: int) -> np.ndarray:
        return observation(self, state, side)

    def observation_string(self, state: AlertState, side: int) -> str:
        return observation_string(self, state, side)
