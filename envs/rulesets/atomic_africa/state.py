"""The dynamic state of Atomic Africa: units, card zones, the Activation Phase's record and the
protocol hooks. Positions are in centimetres. The rules live in the procedures
(:mod:`.procedures`, one module per procedure) and in the rule modules they call: line of sight
(:mod:`.sight`), movement (:mod:`.movement`), the fire tables (:mod:`.combat`), order cards
(:mod:`.orders`) and scoring (:mod:`.scoring`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from envs.core.errors import InvalidStateError
from envs.core.procedure import FrameStack, ProcedureState, Record, register
from envs.core.protocol import Game, Illegality
from envs.core.reactions import Cost
from envs.core.zones import Visibility, Zone, Zones

from .actions import DECISION_ASKS, DECISION_LABELS, Decision, Ids
from .cards import CARD_ID
from .params import Decks, ScenarioSpec


class CardZones(Zones):
    """The card zones of one state (:class:`envs.core.zones.Zones`) with a copy that builds
    each zone directly (its fields are a name, an owner, a visibility and a list of ints)."""

    __slots__ = ()

    def copy(self) -> "CardZones":
        out = CardZones()
        out._zones = {name: Zone(zone.name, zone.owner, zone.visibility, list(zone.cards))
                      for name, zone in self._zones.items()}
        return out


@register
@dataclass(slots=True)
class Unit(Record):
    """One unit (a squad, an attached support team or a vehicle). ``x, y``: its Start Group
    (cm); ``tx, ty``: its In-transit figure while it acts (``None`` otherwise)."""

    kind = "aa.unit"
    side: int
    slot: int
    name: str
    utype: str  # infantry | support | vehicle
    attached: bool
    figures: int
    morale: int
    equipment: int
    defense: int
    x: float
    y: float
    wounds: int = 0
    suppression: int = 0
    alive: bool = True
    acted: bool = False
    confused: bool = False
    tx: float | None = None
    ty: float | None = None
    vehicle_marked: bool = False

    @property
    def vehicle(self) -> bool:
        return self.utype == "vehicle"

    def copy(self) -> "Unit":
        """An independent copy (every field is an immutable value, so a field-by-field copy
        is a deep one)."""
        return Unit(self.side, self.slot, self.name, self.utype, self.attached, self.figures,
                    self.morale, self.equipment, self.defense, self.x, self.y, self.wounds,
                    self.suppression, self.alive, self.acted, self.confused, self.tx, self.ty,
                    self.vehicle_marked)


@register
@dataclass(slots=True)
class PhaseData(Record):
    """The Activation Phase being played: the activating ``side``/``unit``; ``involved`` rows
    ``[side, unit, role]`` (role 0 activating, 1 reacting, 2 cascaded reactor, AA-R9);
    ``fire`` rows ``[side, unit, target side, target unit, extra]`` (``extra`` = 1 for a Split
    Fire target, AA-R8/AA-R9); ``moves`` ``"s:u" -> [direction index, increments]``;
    ``special`` / ``posture`` announced by unit; ``frozen`` by side (AA-D8)."""

    kind = "aa.phase"
    side: int
    unit: int
    involved: list[list[int]] = field(default_factory=list)
    fire: list[list[int]] = field(default_factory=list)
    moves: dict[str, list[int]] = field(default_factory=dict)
    special: dict[str, str] = field(default_factory=dict)
    posture: dict[str, str] = field(default_factory=dict)
    frozen: list[bool] = field(default_factory=lambda: [False, False])
    targets: list[int] = field(default_factory=list)

    def is_involved(self, side: int, unit: int) -> bool:
        return any(row[0] == side and row[1] == unit for row in self.involved)

    def role(self, side: int, unit: int) -> int:
        for row in self.involved:
            if row[0] == side and row[1] == unit:
                return row[2]
        return -1


def key(side: int, unit: int) -> str:
    """The key of a unit in :class:`PhaseData`'s per-unit tables: ``"<side>:<slot>"``."""
    return f"{side}:{unit}"


class AAGameData(Game["AAState"]):
    """The Atomic Africa game as its state and rules read it: the parameters
    (:class:`~.params.AAParams`), the table, terrain, units, cards and memos that
    :class:`~.game.AAGame` (its one subclass) sets up, and the one call the state makes of it.
    Declared here, beside the state, because the game module imports the state."""

    # parameters (AAParams fields)
    max_units_per_side: int
    turns: int
    cards_per_unit: int
    experience_draw_bonus: bool
    joker_eligible_from_reserve: bool
    infantry_increment_cm: float
    vehicle_increment_cm: float
    range_bands_cm: list[float]
    range_thresholds: list[int]
    figures_per_attack_point: int
    cover_soft: int
    cover_hard: int
    suppressed_no_move: int
    rally_one: int
    rally_two: int
    crouched_bonus: int
    prone_bonus: int
    min_unit_figures: int
    voluntary_splits: bool
    destroyed_points: int
    objective_points: int
    objective_radius_cm: float
    max_decisions: int
    # the scenario
    spec: ScenarioSpec
    width: float
    depth: float
    blocking: list[list[tuple[float, float]]]
    blocking_boxes: list[tuple[float, float, float, float]]
    cover_areas: list[tuple[list[tuple[float, float]], str]]
    objectives: list[tuple[float, float]]
    experience: tuple[str, ...]
    draw_bonus: tuple[int, ...]
    cards: Decks
    deck_cards: list[list[int]]
    start_orders: dict[tuple[int, int], int]
    initial_units: list[Unit]
    order_zone_names: list[list[str]]
    ids: Ids
    move_offsets: dict[tuple[int, bool], list[tuple[int, float, float]]]
    # memos (pure functions of the facts above; :attr:`_cache_attrs`)
    los_cache: dict[tuple[tuple[float, float], tuple[float, float]], bool]
    inside_cache: dict[tuple[float, float], tuple[bool, ...]]
    sees_cache: dict[tuple[float | None, ...], bool]
    los_matrix_cache: dict[tuple[int, tuple[Any, ...]], np.ndarray]
    holders_cache: dict[tuple[Any, ...], list[int | None]]
    unit_rows_cache: dict[tuple[Any, ...], bytes]
    placements_cache: dict[tuple[int, bool, float, float], list[int]]

    def final_returns(self, state: AAState) -> list[float]:
        """AA-G23: the returns of a finished game."""
        raise NotImplementedError

    def resample_hidden(self, state: AAState, player: int, rng: np.random.Generator) -> AAState:
        """``state`` with what ``player`` cannot see redrawn (:mod:`.infostate`)."""
        raise NotImplementedError


class AAState(ProcedureState):
    """State of one Atomic Africa game (see the package docstring for the rules model).
    :meth:`AAGame.new_initial_state` pushes the first turn's frame and starts the flow (the
    frames import this module, not the other way round)."""

    decision_enum = Decision
    terminal_decision = Decision.TERMINAL
    chance_decision = Decision.CHANCE
    game: AAGameData

    def __init__(self, game: AAGameData, init: bool = True):
        super().__init__(game)
        if not init:
            return
        slots = game.max_units_per_side
        self.units: list[list[Unit | None]] = [[None] * slots for _ in (0, 1)]
        for unit in game.initial_units:
            self.units[unit.side][unit.slot] = unit.copy()
        self.turn = 1
        self.destroyed = [0, 0]  # units of each side destroyed
        self.first = 0
        self.phase: PhaseData | None = None
        self.zones: Zones = CardZones()
        cards = game.cards
        for side in (0, 1):
            self.zones.add(f"deck:{side}", side, Visibility.NOBODY, cards.deck[side])
            self.zones.add(f"reserve:{side}", side, Visibility.OWNER, cards.reserve[side])
            self.zones.add(f"discard:{side}", side, Visibility.PUBLIC, cards.discard[side])
            for slot in range(slots):
                order = game.start_orders.get((side, slot))
                self.zones.add(f"order:{side}:{slot}", side, Visibility.OWNER,
                               () if order is None else (order,))
        #: per side, the next cards its deck gives, top first (scenario ``deck_order``)
        self.deck_order: list[list[int]] = [list(cards.deck_order[side]) for side in (0, 1)]

    def _why_illegal(self, action: int) -> Illegality:
        """A label of another decision cites the rules of the decision being taken (what it
        asks); otherwise the waiting frame explains."""
        decision = self.decision_type()
        label = self.game.actions.labels[action]
        families = DECISION_LABELS.get(decision)
        if families is not None and not label.startswith(families):
            rules, asks = DECISION_ASKS[decision]
            frame = self.stack.top
            rules = getattr(frame, "asked_rules", lambda asked: rules)(decision)
            return Illegality(rules, f"{label!r} is not a choice of this "
                              f"{self.decision_name()} decision: it asks {asks}")
        return super()._why_illegal(action)

    # -- units ----------------------------------------------------------------------------------
    def unit_in(self, side: int, slot: int) -> Unit:
        """The unit of ``side`` in ``slot``, a slot that a frame or a decision names (a unit
        once there stays in its slot, removed units included).

        Raises:
            InvalidStateError: when the slot is empty.
        """
        unit = self.units[side][slot]
        if unit is None:
            raise InvalidStateError(f"side {side} has no unit in slot {slot}")
        return unit

    def phase_in_play(self) -> PhaseData:
        """The record of the Activation Phase being played (what the frames of an activation
        read and write).

        Raises:
            InvalidStateError: outside an Activation Phase.
        """
        phase = self.phase
        if phase is None:
            raise InvalidStateError("no Activation Phase is being played")
        return phase

    def alive_units(self, side: int) -> list[Unit]:
        return [unit for unit in self.units[side] if unit is not None and unit.alive]

    def has_units(self, side: int) -> bool:
        return any(unit is not None and unit.alive for unit in self.units[side])

    # -- costs (envs.core.reactions interface) -----------------------------------------------------
    def can_pay(self, side: int, cost: Cost) -> bool:
        return self.zones.count(f"reserve:{side}", CARD_ID[cost.resource]) >= cost.amount

    def pay(self, side: int, cost: Cost) -> None:
        for _ in range(cost.amount):
            self.zones.move(CARD_ID[cost.resource], f"reserve:{side}", f"discard:{side}")

    def returns(self) -> list[float]:
        """AA-G23 at the end (:func:`.scoring.final_returns`, through the game: the rule
        modules import this one); 0 each while the game runs."""
        if not self.is_terminal():
            return [0.0, 0.0]
        return self.game.final_returns(self)

    # -- serialisation ----------------------------------------------------------------------------
    def _to_dict(self) -> dict[str, Any]:
        return {"units": [[None if unit is None else unit.to_dict() for unit in row]
                          for row in self.units],
                "turn": self.turn, "destroyed": list(self.destroyed), "first": self.first,
                "phase": None if self.phase is None else self.phase.to_dict(),
                "zones": self.zones.to_list(), "deck_order": [list(o) for o in self.deck_order],
                "stack": self.stack.to_dict()}

    @classmethod
    def from_dict(cls, game: AAGameData, data: dict[str, Any]) -> AAState:
        state = cls(game, init=False)
        state.units = [[None if unit is None else Unit.from_dict(unit) for unit in row]
                   for row in data["units"]]
        state.turn = int(data["turn"])
        state.destroyed = [int(x) for x in data["destroyed"]]
        state.first = int(data["first"])
        state.phase = None if data["phase"] is None else PhaseData.from_dict(data["phase"])
        state.zones = CardZones.from_list(data["zones"])
        state.deck_order = [[int(card) for card in o] for o in data["deck_order"]]
        state.stack = FrameStack.from_dict(data["stack"], Decision)
        return state

    def resample_from_infostate(self, player: int, rng: np.random.Generator) -> AAState:
        """What ``player`` cannot see redrawn with ``rng`` (:mod:`.infostate`, through the game:
        that module imports this one). A scenario's
        ``deck_order`` is no side's information either: the sample draws at random."""
        sample = self.game.resample_hidden(self, player, rng)
        sample.deck_order = [[] for _ in self.deck_order]
        return sample

    def clone(self) -> "AAState":
        copy = AAState(self.game, init=False)
        self._copy_base_into(copy)
        copy.units = [[None if unit is None else unit.copy() for unit in row] for row in self.units]
        copy.turn = self.turn
        copy.destroyed = list(self.destroyed)
        copy.first = self.first
        copy.phase = None if self.phase is None else self.phase.copy()
        copy.zones = self.zones.copy()
        copy.deck_order = [list(o) for o in self.deck_order]
        copy.stack = self.stack.copy()
        return copy

