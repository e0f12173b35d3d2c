"""The ACW regimental :class:`~envs.core.protocol.Game` (seed 003; see the package docstring)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from envs.core.drawing import Drawing
from envs.core.procedure import Frame
from envs.core.scenario import validate_params

from .actions import CHANCE_CATALOGUE, DECISION_TYPES, Ids
from .drawing import drawing as draw_table
from .movement import Terrain
from .observer import build_layout, observation, observation_string
from .params import SCENARIO_DIR, ACWParams, load_scenario, scenario_unit_weapon
from .procedures import PlayerTurnCycle, TurnStep
from .procedures.turn import end_game
from .state import ACWGameData, ACWState
from .units import Unit, new_unit
from .words import describe_action


def _segments(points: Sequence[Sequence[float]]
              ) -> list[tuple[tuple[float, float], tuple[float, float]]]:
    pts = [(float(x), float(y)) for x, y in points]
    return [(pts[i], pts[i + 1]) for i in range(len(pts) - 1)]


class ACWGame(ACWGameData):
    """ACW regimental game: two sides (0 Union, 1 Confederate), five reactions (RULE-04-1.1).

    Args:
        scenario: a built-in scenario name (``default``, ``crossroads``,
            ``example_a_closing_volley``, ``example_b_refuse_flank``,
            ``example_c_opportunity_fire``), a TOML path, or None for ``default``.
        params: mapping of :class:`~.params.ACWParams` fields.

    Raises:
        ScenarioError: bad scenario file (names file, key, problem).
        ParameterError: bad parameter (names the parameter and the problem).
    """

    ruleset_id = "acw_regimental"
    scenario_dir = SCENARIO_DIR
    version = 6
    has_shaped_reward = True

    def __init__(self, scenario: str | Path | None = None,
                 params: Mapping[str, Any] | None = None):
        parameters = validate_params(ACWParams, params)
        self.params = parameters.model_dump()
        self.max_units_per_side = parameters.max_units_per_side
        self.pips_fixed = parameters.pips_fixed
        self.turns = parameters.turns
        self.own_fire_blocks_reactions = parameters.own_fire_blocks_reactions
        self.phase3_six_all = parameters.phase3_six_disorders_all_ranges
        self.cavalry_charge_12 = parameters.cavalry_charge_12
        self.morale_cascade = parameters.morale_cascade
        self.shaped_reward = parameters.shaped_reward
        self.max_decisions = parameters.max_decisions
        self.counter_charge_cost = parameters.counter_charge_cost
        self.opportunity_fire_trigger = parameters.opportunity_fire_trigger
        self.max_game_length = parameters.max_decisions
        name, spec = load_scenario(scenario, parameters.max_units_per_side, turns=parameters.turns)
        self.scenario_name = name
        self.spec = spec
        self.first_side = spec.first_side
        self.num_players = 2
        self.side_names = ("Union", "Confederate")
        self.ids = Ids(parameters.max_units_per_side)
        self.actions = self.ids.cat
        self.chance = CHANCE_CATALOGUE
        self.decision_types = DECISION_TYPES
        terrain = spec.terrain
        self.terrain = Terrain(
            spec.table.width, spec.table.depth,
            [a.points() for a in terrain.woods] + [a.points() for a in terrain.rough],
            [s for ln in terrain.crests for s in _segments(ln.points)],
            [s for ln in terrain.fences for s in _segments(ln.points)],
            [s for ln in terrain.walls for s in _segments(ln.points)],
            [s for ln in terrain.roads for s in _segments(ln.points)])
        self.objectives = [(o.x, o.y) for o in spec.objectives]
        self.objective_vp = spec.scoring.objective_vp
        self.objectives_score = spec.scoring.objectives_score
        # units: regiments first in file order, then detached stands (ACW-PD-30)
        units: list[Unit] = []
        slots = [0, 0]
        by_name: dict[tuple[int, str], Unit] = {}
        for entry in spec.units:
            if entry.detached_from is not None:
                continue
            unit = new_unit(entry.side, slots[entry.side], entry.name, entry.kind,
                            scenario_unit_weapon(entry), entry.experience, entry.stands,
                            entry.formation, entry.x, entry.y, entry.facing_deg,
                            tuple(entry.traits))
            unit.disordered = entry.disordered
            unit.hits = entry.hits
            slots[entry.side] += 1
            units.append(unit)
            by_name[(entry.side, entry.name)] = unit
        for entry in spec.units:
            if entry.detached_from is None:
                continue
            parent = by_name[(entry.side, entry.detached_from)]
            unit = new_unit(entry.side, slots[entry.side], entry.name, entry.kind,
                            scenario_unit_weapon(entry), entry.experience, 1, "skirmish",
                            entry.x, entry.y, entry.facing_deg, (), is_screen=True)
            unit.parent = parent.slot
            unit.disordered = entry.disordered  # a scenario may start a screen Disordered
            parent.screen = unit.slot
            parent.starting_stands += 1  # the detached stand counts in the parent's S0 (ACW-PD-30)
            slots[entry.side] += 1
            units.append(unit)
        self.initial_units = units
        self.units_at_start = [sum(1 for unit in units if unit.side == s and not unit.is_screen)
                               for s in (0, 1)]
        self.layout = build_layout(self)

    def new_initial_state(self) -> ACWState:
        return ACWState(self)

    def opening_frames(self, roll_off: bool) -> list[Frame[Any]]:
        """The stack a new game starts with: the player-turn cycle (ACW-PD-12) at the roll-off
        for the first move (ACW-PD-11) when ``roll_off``, at Phase 2 for a scenario that starts
        there, else at Phase 1."""
        if self.spec.start.phase == 2:
            return [PlayerTurnCycle(TurnStep.PHASE_2)]
        if roll_off:
            return [PlayerTurnCycle(TurnStep.ROLL_OFF)]
        return [PlayerTurnCycle()]

    def end_game(self, state: ACWState, why: str, winner: int | None = None) -> None:
        """End ``state``'s game now, scored on victory points (ACW-PD-36; the decision cap of
        the driver in :mod:`.state` ends games through it)."""
        end_game(state, why, winner)

    def state_from_dict(self, data: Mapping[str, Any]) -> ACWState:
        return ACWState.from_dict(self, dict(data))

    @property
    def observation_size(self) -> int:
        return self.layout.size

    def observation(self, state: ACWState, side: int) -> np.ndarray:
        return observation(self, state, side)

    def observation_string(self, state: ACWState, side: int) -> str:
        return observation_string(self, state, side)

    def drawing(self, state: ACWState) -> Drawing:
        """The table as shapes (stands, terrain, objectives, markers, an open charge window's
        4.0" mark and path; see :mod:`.drawing`), in inches."""
        return draw_table(state)

    def action_words(self, state: ACWState, action: int) -> str:
        """``action`` in words, naming the units concerned (see :mod:`.words`)."""
        return describe_action(state, action)

