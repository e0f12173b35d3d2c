"""The Atomic Africa :class:`~envs.core.protocol.Game`: the static facts of one scenario and
parameter set (see the package docstring for the tables; the observer is :mod:`.observer`)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from envs.core.scenario import validate_params

from .actions import CHANCE_CATALOGUE, DECISION_TYPES, DIRECTIONS, MAX_INCREMENTS, Ids
from .cards import EXPERIENCE_BONUS
from .observer import AAObserver
from .params import SCENARIO_DIR, AAParams, load_scenario
from .procedures import Turn
from .procedures.turn import TurnStep
from .infostate import resample_from_infostate
from .scoring import final_returns
from .state import AAGameData, AAState, Unit


class AAGame(AAGameData):
    """Atomic Africa: two platoons with playing-card orders, a hidden Reserve and the Reaction
    and Declaration sub-phases (seed 000).

    Args:
        scenario: a built-in scenario name (``default``, ``duel``, ``reaction_compulsory``,
            ``reaction_voluntary``, ``declaration``, ``cleanup_example``), a TOML path, or
            ``None`` (``default``).
        params: mapping of :class:`~.params.AAParams` fields.

    Raises:
        ScenarioError: bad scenario file (names file, key, problem).
        ParameterError: bad parameter (names the parameter and the problem).
    """

    ruleset_id = "atomic_africa"
    scenario_dir = SCENARIO_DIR
    _cache_attrs = ("los_cache", "inside_cache", "sees_cache", "los_matrix_cache",
                    "holders_cache", "unit_rows_cache", "placements_cache")
    version = 2

    def __init__(self, scenario: str | Path | None = None,
                 params: Mapping[str, Any] | None = None):
        checked = validate_params(AAParams, params)
        self.params = checked.model_dump()
        for name, value in self.params.items():
            setattr(self, name, value)
        slots = checked.max_units_per_side
        spec, decks = load_scenario(scenario, slots)
        self.spec = spec
        self.scenario_name = spec.name
        self.turns = checked.turns if checked.turns is not None else spec.turns
        self.width, self.depth = spec.table.width, spec.table.depth
        self.blocking = [[(pt[0], pt[1]) for pt in t.points] for t in spec.terrain if t.blocks_los]
        self.blocking_boxes = [(min(x for x, _ in q), min(y for _, y in q), max(x for x, _ in q),
                                max(y for _, y in q)) for q in self.blocking]
        #: memo of line-of-sight answers (point pair -> bool): a pure function of the terrain
        self.los_cache: dict = {}
        #: memo of the observer's line-of-sight matrices ((side, units' points) -> matrix)
        self.los_matrix_cache: dict = {}
        #: memo of the objectives' holders (the units' points -> holders)
        self.holders_cache: dict = {}
        #: memo of the observer's unit rows (everything a row reads -> the row's float32 bytes)
        self.unit_rows_cache: dict = {}
        #: memo of unit-to-unit sight (the two units' points -> bool)
        self.sees_cache: dict = {}
        #: memo of which sight-blocking areas hold a point (point -> tuple of bools)
        self.inside_cache: dict = {}
        #: memo of the legal In-transit placements ((side, vehicle, x, y) -> action ids)
        self.placements_cache: dict = {}
        self.cover_areas = [([(pt[0], pt[1]) for pt in t.points], t.cover) for t in spec.terrain]
        self.objectives = [(o.x, o.y) for o in spec.objectives]
        self.experience = tuple(sd.experience for sd in spec.sides)
        self.draw_bonus = tuple(EXPERIENCE_BONUS[e] for e in self.experience)
        #: each side's cards at the start (the deck left to draw, its order, and with a
        #: ``[start]`` table the Reserve, discard pile and face-down orders)
        self.cards = decks
        self.deck_cards = decks.deck
        self.num_players = 2
        self.side_names = tuple(sd.name for sd in spec.sides)
        self.ids = Ids(slots)
        #: AA-G8: (side, vehicle) -> [(action id, dx, dy)] of every ``move:<dir>:<n>`` in id
        #: order, the offset in cm on the table (side 1's forward is -y)
        self.move_offsets: dict[tuple[int, bool], list[tuple[int, float, float]]] = {}
        for side in (0, 1):
            for vehicle in (False, True):
                increment = (checked.vehicle_increment_cm if vehicle
                             else checked.infantry_increment_cm)
                rows = []
                for direction, (dx, dy) in enumerate(DIRECTIONS.values()):
                    if side == 1:
                        dx, dy = -dx, -dy
                    for count in range(1, MAX_INCREMENTS + 1):
                        step = increment * count
                        rows.append((self.ids.move(self.ids.dirs[direction], count), dx * step,
                                     dy * step))
                self.move_offsets[side, vehicle] = rows
        self.actions = self.ids.cat
        self.chance = CHANCE_CATALOGUE
        self.decision_types = DECISION_TYPES
        self.max_game_length = checked.max_decisions
        next_slot = [0, 0]
        units = []
        #: (side, slot) -> face-down order card at the start (scenario ``[start]``)
        self.start_orders: dict[tuple[int, int], int] = {}
        for index, unit_spec in enumerate(spec.units):
            units.append(Unit(unit_spec.side, next_slot[unit_spec.side], unit_spec.name,
                              unit_spec.kind, unit_spec.attached, unit_spec.figures,
                              unit_spec.morale, unit_spec.equipment, unit_spec.defense,
                              unit_spec.x, unit_spec.y, unit_spec.wounds, unit_spec.suppression))
            if index in decks.orders:
                self.start_orders[unit_spec.side, next_slot[unit_spec.side]] = decks.orders[index]
            next_slot[unit_spec.side] += 1
        self.initial_units = units
        #: zone names of the face-down orders, by side and slot
        self.order_zone_names = [[f"order:{side}:{slot}" for slot in range(slots)]
                                 for side in (0, 1)]
        self.observer = AAObserver(self)
        self.layout = self.observer.layout

    def new_initial_state(self) -> AAState:
        state = AAState(self)
        start = self.spec.start
        if start is None:
            state.stack.push(Turn())
        else:  # the scenario starts after an Orders Phase (orders and Reserves are dealt)
            state.turn = start.turn
            state.log("turn", ("AA-G23", "AA-G4"), f"turn {state.turn} begins after its Orders "
                      f"Phase (scenario start)", None, turn=state.turn)
            if start.first_side is None:
                state.stack.push(Turn(step=TurnStep.FIRST))
            else:
                state.first = start.first_side
                state.stack.push(Turn(step=TurnStep.ACTIVATIONS))
        state.start()
        return state

    def final_returns(self, state: AAState) -> list[float]:
        """AA-G23: the returns of a finished game (:func:`.scoring.final_returns`)."""
        return final_returns(state)

    def resample_hidden(self, state: AAState, player: int, rng: np.random.Generator) -> AAState:
        """``state`` with what ``player`` cannot see redrawn
        (:func:`.infostate.resample_from_infostate`)."""
        return resample_from_infostate(state, player, rng)

    def state_from_dict(self, data: Mapping[str, Any]) -> AAState:
        return AAState.from_dict(self, dict(data))

    @property
    def observation_size(self) -> int:
        return self.layout.size

    def observation(self, state: AAState, side: int) -> np.ndarray:
        """float32 ``(observation_size,)`` for ``side`` (:meth:`.AAObserver.observation`)."""
        return self.observer.observation(state, side)

    def observation_string(self, state: AAState, side: int) -> str:
        """Text twin of :meth:`observation` (:meth:`.observer.AAObserver.observation_string`)."""
        return self.observer.observation_string(state, side)
