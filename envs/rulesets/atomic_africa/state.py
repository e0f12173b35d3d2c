"""The dynamic state of Atomic Africa: units, card zones, the Activation Phase's record, and the
rule helpers the procedures (:mod:`.procedures`) call. Positions are in centimetres."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from envs.core.geometry import polygon_contains, segments_intersect
from envs.core.procedure import FrameStack, ProcedureState, Record, register
from envs.core.protocol import Illegality
from envs.core.reactions import Cost
from envs.core.zones import Visibility, Zone, Zones

from .actions import DECISION_ASKS, DECISION_LABELS, MAX_INCREMENTS, Decision
from .cards import (CARD_ID, JOKER, MENU, VEHICLE_SPECIALS, is_face, shifted)


class CardZones(Zones):
    """The card zones of one state (:class:`envs.core.zones.Zones`) with a copy that builds
    each zone directly (its fields are a name, an owner, a visibility and a list of ints)."""

    __slots__ = ()

    def copy(self) -> "CardZones":
        out = CardZones()
        out._zones = {name: Zone(zone.name, zone.owner, zone.visibility, list(zone.cards))
                      for name, zone in self._zones.items()}
        return out


def segment_meets_edges(a: tuple[float, float], b: tuple[float, float],
                        poly: list[tuple[float, float]]) -> bool:
    """Whether segment ``a``-``b`` meets an edge of polygon ``poly`` (closed segments)."""
    prev = poly[-1]
    for cur in poly:
        if segments_intersect(a, b, prev, cur):
            return True
        prev = cur
    return False


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
    return f"{side}:{unit}"


class AAState(ProcedureState):
    """State of one Atomic Africa game (see the package docstring for the rules model).
    :meth:`AAGame.new_initial_state` pushes the first turn's frame and starts the flow (the
    frames import this module, not the other way round)."""

    decision_enum = Decision
    terminal_decision = Decision.TERMINAL
    chance_decision = Decision.CHANCE

    def __init__(self, game: Any, init: bool = True):
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
        self.zones = CardZones()
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
            rules = getattr(frame, "asked_rules", lambda d: rules)(decision)
            return Illegality(rules, f"{label!r} is not a choice of this "
                              f"{decision.value} decision: it asks {asks}")
        return super()._why_illegal(action)

    # -- units ----------------------------------------------------------------------------------
    def unit(self, side: int, slot: int) -> Unit:
        return self.units[side][slot]

    def alive_units(self, side: int) -> list[Unit]:
        return [unit for unit in self.units[side] if unit is not None and unit.alive]

    def has_units(self, side: int) -> bool:
        return any(unit is not None and unit.alive for unit in self.units[side])

    def order_card(self, side: int, slot: int) -> int | None:
        cards = self.zones[f"order:{side}:{slot}"].cards
        return cards[0] if cards else None

    def revealed(self, side: int, slot: int) -> bool:
        return self.zones[f"order:{side}:{slot}"].visibility is Visibility.PUBLIC

    def eligible_to_activate(self, unit: Unit | None) -> bool:
        """AA-G7: alive, has not activated or reacted this turn, holds an order."""
        return (unit is not None and unit.alive and not unit.acted
                and self.order_card(unit.side, unit.slot) is not None)

    def eligible_reserve(self, side: int, unit: Unit) -> list[int]:
        """AA-G5: the distinct Reserve cards an orderless reactor ``u`` may take (AA-R4, AA-R5;
        not Jokers unless ``joker_eligible_from_reserve``; not face cards whose special
        actions a vehicle may not use). The change loop is not filtered (AA-D4, AA-G13)."""
        out = []
        for card in sorted(set(self.zones[f"reserve:{side}"].cards)):
            if card == JOKER and not self.game.joker_eligible_from_reserve:
                continue
            if is_face(card) and unit.vehicle and not (set(MENU[card]) & VEHICLE_SPECIALS):
                continue
            out.append(card)
        return out

    def reserve_cards(self, side: int) -> list[int]:
        """AA-D4, AA-G13: the distinct cards of the side's Reserve, every one playable in the
        change loop (a Joker included; AA-G5 filters only :meth:`eligible_reserve`)."""
        return sorted(set(self.zones[f"reserve:{side}"].cards))

    # -- geometry (AA-G9) -------------------------------------------------------------------------
    def los(self, a: tuple[float, float], b: tuple[float, float]) -> bool:
        """AA-G9: a straight line not crossing a sight-blocking area, except an area that
        holds either end (a unit inside woods sees out and is seen). Memoised on the game
        (a pure function of the two points and the terrain)."""
        cache = self.game.los_cache
        slot = (a, b)
        hit = cache.get(slot)
        if hit is not None:
            return hit
        game = self.game
        inside_a = self.inside_blocking(a)
        inside_b = self.inside_blocking(b)
        out = True
        for index, (poly, (x0, y0, x1, y1)) in enumerate(zip(game.blocking,
                                                             game.blocking_boxes)):
            if (max(a[0], b[0]) < x0 or min(a[0], b[0]) > x1 or max(a[1], b[1]) < y0
                    or min(a[1], b[1]) > y1):
                continue
            # an area holding either end does not block; otherwise the line is blocked when
            # it meets one of the area's edges (it cannot lie inside without holding an end)
            if inside_a[index] or inside_b[index]:
                continue
            if segment_meets_edges(a, b, poly):
                out = False
                break
        if len(cache) > 200_000:
            cache.clear()
        cache[slot] = out
        return out

    def inside_blocking(self, point: tuple[float, float]) -> tuple[bool, ...]:
        """Whether ``point`` lies in (or on the edge of) each sight-blocking area, in
        ``game.blocking`` order (memoised on the game)."""
        cache = self.game.inside_cache
        inside = cache.get(point)
        if inside is None:
            inside = tuple(polygon_contains(poly, point) for poly in self.game.blocking)
            if len(cache) > 200_000:
                cache.clear()
            cache[point] = inside
        return inside

    @staticmethod
    def points(unit: Unit) -> list[tuple[float, float]]:
        """The Start Group and, when placed, the In-transit figure."""
        pts = [(unit.x, unit.y)]
        if unit.tx is not None:
            pts.append((unit.tx, unit.ty))
        return pts

    def sees(self, a: Unit, b: Unit) -> bool:
        """Any of ``a``'s points to any of ``b``'s points (AA-R3, AA-G9). Memoised on the game
        by the two units' points."""
        cache = self.game.sees_cache
        cache_key = (a.x, a.y, a.tx, a.ty, b.x, b.y, b.tx, b.ty)
        seen = cache.get(cache_key)
        if seen is None:
            seen = any(self.los(p, queue) for p in self.points(a) for queue in self.points(b))
            if len(cache) > 200_000:
                cache.clear()
            cache[cache_key] = seen
        return seen

    def cover(self, x: float, y: float) -> int:
        """AA-G14: cover of a point (the best of the terrain areas holding it)."""
        best = 0
        for poly, kind in self.game.cover_areas:
            if polygon_contains(poly, (x, y)):
                best = max(best, self.game.cover_hard if kind == "hard" else
                           self.game.cover_soft)
        return best

    def destination(self, unit: Unit, direction: int, count: int) -> tuple[float, float]:
        """AA-G8: the point ``n`` increments from ``u``'s Start Group in ``direction`` (an
        index of :data:`.actions.DIRECTIONS`, in the side's own frame)."""
        offsets = self.game.move_offsets[unit.side, unit.vehicle]
        dx, dy = offsets[direction * MAX_INCREMENTS + count - 1][1:]
        return unit.x + dx, unit.y + dy

    def on_table(self, x: float, y: float) -> bool:
        return 0.0 <= x <= self.game.width and 0.0 <= y <= self.game.depth

    def placements(self, unit: Unit) -> list[int]:
        """AA-G8: ``move:hold`` and every ``move:<dir>:<n>`` whose In-transit figure stays on
        the table, sorted (memoised on the game by side, unit type and position)."""
        game = self.game
        cache_key = (unit.side, unit.vehicle, unit.x, unit.y)
        legal = game.placements_cache.get(cache_key)
        if legal is None:
            width, depth, x, y = game.width, game.depth, unit.x, unit.y
            legal = [game.ids.hold] + [
                action for action, dx, dy in game.move_offsets[unit.side, unit.vehicle]
                if 0.0 <= x + dx <= width and 0.0 <= y + dy <= depth]
            if len(game.placements_cache) > 100_000:
                game.placements_cache.clear()
            game.placements_cache[cache_key] = legal
        return list(legal)

    def range_threshold(self, distance: float) -> int:
        """AA-G14: the range threshold of a shot over ``distance`` cm."""
        game = self.game
        for edge, threshold in zip(game.range_bands_cm, game.range_thresholds):
            if distance <= edge:
                return threshold
        return game.range_thresholds[-1]

    @staticmethod
    def distance(a: Unit, b: Unit) -> float:
        return math.hypot(a.x - b.x, a.y - b.y)

    # -- cards ------------------------------------------------------------------------------------
    def reshuffle_if_empty(self, side: int) -> None:
        """AA-G6: an empty deck takes back its discard pile."""
        if self.zones.size(f"deck:{side}") == 0 and self.zones.size(f"discard:{side}"):
            self.zones.move_all(f"discard:{side}", f"deck:{side}")
            self.log("reshuffle", ("AA-G6",), f"side {side} shuffles its discards into its "
                     f"deck", side)

    def discard_order(self, side: int, slot: int) -> None:
        z = self.zones[f"order:{side}:{slot}"]
        for card in list(z.cards):
            self.zones.move(card, z.name, f"discard:{side}")
        z.visibility = Visibility.OWNER

    def reveal(self, side: int, slot: int) -> int | None:
        z = self.zones[f"order:{side}:{slot}"]
        z.visibility = Visibility.PUBLIC
        return z.cards[0] if z.cards else None

    # -- costs (envs.core.reactions interface) -----------------------------------------------------
    def can_pay(self, side: int, cost: Cost) -> bool:
        return self.zones.count(f"reserve:{side}", CARD_ID[cost.resource]) >= cost.amount

    def pay(self, side: int, cost: Cost) -> None:
        for _ in range(cost.amount):
            self.zones.move(CARD_ID[cost.resource], f"reserve:{side}", f"discard:{side}")

    # -- scoring (AA-G23) --------------------------------------------------------------------------
    def objective_holder(self, x: float, y: float) -> int | None:
        """AA-G23: the side with a unit within the objective radius of ``(x, y)`` while the
        other has none there (``None``: nobody, or both)."""
        row = self.game.objective_radius_cm
        near = [any(math.hypot(unit.x - x, unit.y - y) <= row for unit in self.alive_units(side))
                for side in (0, 1)]
        if near[0] and not near[1]:
            return 0
        if near[1] and not near[0]:
            return 1
        return None

    def objective_holders(self) -> list[int | None]:
        """:meth:`objective_holder` of every objective of the scenario, in order."""
        return [self.objective_holder(x, y) for (x, y) in self.game.objectives]

    def scores(self, holders: list[int | None] | None = None) -> list[int]:
        """AA-G23: points per destroyed enemy unit plus objectives held (``holders``: the
        :meth:`objective_holders` when already known)."""
        game = self.game
        points = [self.destroyed[1] * game.destroyed_points,
                  self.destroyed[0] * game.destroyed_points]
        for holder in self.objective_holders() if holders is None else holders:
            if holder is not None:
                points[holder] += game.objective_points
        return points

    def game_over(self) -> bool:
        return not self.has_units(0) or not self.has_units(1)

    def returns(self) -> list[float]:
        if not self.is_terminal():
            return [0.0, 0.0]
        alive = [self.has_units(0), self.has_units(1)]
        if alive[0] != alive[1]:
            return [1.0, -1.0] if alive[0] else [-1.0, 1.0]
        a, b = self.scores()
        if a == b:
            return [0.0, 0.0]
        return [1.0, -1.0] if a > b else [-1.0, 1.0]

    # -- serialisation ----------------------------------------------------------------------------
    def _to_dict(self) -> dict[str, Any]:
        return {"units": [[None if unit is None else unit.to_dict() for unit in row]
                          for row in self.units],
                "turn": self.turn, "destroyed": list(self.destroyed), "first": self.first,
                "phase": None if self.phase is None else self.phase.to_dict(),
                "zones": self.zones.to_list(), "deck_order": [list(o) for o in self.deck_order],
                "stack": self.stack.to_dict()}

    @classmethod
    def from_dict(cls, game: Any, data: dict[str, Any]) -> "AAState":
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

    def resample_from_infostate(self, player: int, rng: Any) -> "AAState":
        """What ``player`` cannot see redrawn with ``rng`` (:mod:`.infostate`). A scenario's
        ``deck_order`` is no side's information either: the sample draws at random."""
        from .infostate import resample_from_infostate

        sample = resample_from_infostate(self, player, rng)
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


_ = shifted
