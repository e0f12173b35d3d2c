"""The observer of Atomic Africa: one egocentric ``float32`` vector per side, and its text twin
(the table of pieces is in the package docstring and :attr:`AAObserver.layout`).

Nothing hidden from the viewing side enters: a zone's cards are read only where
:meth:`envs.core.zones.Zone.visible_to` allows (the side's own hand, Reserve and face-down
orders; revealed orders and the public discard piles), every other zone by its size only, and
the decision context as :meth:`envs.core.procedure.ProcedureState.decision_context` gives it to
that side (a hidden commitment never shows the other side's choice).

The vector is written piece by piece into one buffer: a unit row as one slice assignment, the
line-of-sight matrix from :func:`.sight.sight_matrix`, memoised by the units' points (it changes
only when a unit moves, places its In-transit figure, splits or is removed).
"""

from __future__ import annotations

from typing import cast

import numpy as np

from envs.core.frames import CommitContext, HiddenCommit
from envs.core.observer import ObservationLayout, Piece

from . import scoring, sight
from .actions import DECISION_TYPES
from .cards import CARD_NAMES, DIE_LADDER, N_CARDS, ORDER_KINDS, POSTURES
from .state import AAGameData, AAState, Unit, key

#: features of one unit row of the observation
UNIT_FEATURES: tuple[str, ...] = (
    "present", "x", "y", "figures", "wounds", "suppression", "morale_die", "equipment_die",
    "vehicle", "attached", "has_order", "acted", "confused", "in_transit", "transit_x",
    "transit_y", "activating", "reacting", "targeted", "revealed",
) + tuple(f"card_{c}" for c in CARD_NAMES) + tuple(f"order_{o}" for o in ORDER_KINDS) + tuple(
    f"posture_{p}" for p in POSTURES)
#: index of each feature in a unit row
FEATURE_INDEX: dict[str, int] = {name: i for i, name in enumerate(UNIT_FEATURES)}
#: the scalar features written as one slice at the start of a row
_SCALARS = FEATURE_INDEX["revealed"] + 1
_CARD0 = FEATURE_INDEX[f"card_{CARD_NAMES[0]}"]
_ORDER0 = FEATURE_INDEX[f"order_{ORDER_KINDS[0]}"]
_POSTURE0 = FEATURE_INDEX[f"posture_{POSTURES[0]}"]
_ORDER_INDEX = {kind: i for i, kind in enumerate(ORDER_KINDS)}
_POSTURE_INDEX = {posture: i for i, posture in enumerate(POSTURES)}
_DIE_INDEX = {sides: i for i, sides in enumerate(DIE_LADDER)}
_TOP_DIE = len(DIE_LADDER) - 1
_DECISION_INDEX = {name: i for i, name in enumerate(DECISION_TYPES)}
#: objective holders kept per game (a bounded memo: cleared when it grows past this)
_HOLDERS_CACHE_SIZE = 4096
#: unit rows kept per game (bounded memo: cleared when it grows past this)
_ROW_CACHE_SIZE = 65536


def _die_feature(sides: int, steps: int) -> float:
    """A die shifted ``steps`` types lower as (ladder index + 1) / 5; 0 below d4."""
    index = _DIE_INDEX[sides] - steps
    if index < 0:
        return 0.0
    return (min(index, _TOP_DIE) + 1) / 5.0


class AAObserver:
    """Builds observations of one :class:`~.game.AAGame` (see the module docstring).

    Args:
        game: the game (its table, unit slots, turns and objectives; typed with
            :class:`~.state.AAGameData` because the game module imports this one).
    """

    def __init__(self, game: AAGameData):
        self.game = game
        slots = game.max_units_per_side
        self.layout = ObservationLayout([
            Piece("own_units", (slots, len(UNIT_FEATURES)),
                  "own units by slot (features: UNIT_FEATURES)"),
            Piece("enemy_units", (slots, len(UNIT_FEATURES)),
                  "enemy units by slot; card only once revealed"),
            Piece("los", (slots, slots), "1 where own unit i and enemy unit j see each other"),
            Piece("own_reserve", (N_CARDS,), "own Reserve / hand: copies of each card / 4"),
            Piece("counts", (5,), "enemy Reserve size, own deck, enemy deck (/ 54), own and "
                  "enemy discard size (/ 54)"),
            Piece("own_discard", (N_CARDS,), "own discard pile by card / 4"),
            Piece("enemy_discard", (N_CARDS,), "enemy discard pile by card / 4"),
            Piece("turn", (2,), "turn / turns, 1 if the observer activated first"),
            Piece("decision", (len(DECISION_TYPES),), "one-hot decision type"),
            Piece("subject", (slots,), "one-hot own unit the decision is about"),
            Piece("commit", (3 + N_CARDS,), "change loop: own committed, enemy committed, own "
                  "stand, own card played (one-hot)"),
            Piece("frozen", (2,), "own, enemy orders frozen by a Joker (AA-D8)"),
            Piece("objectives", (3, 4), "x, y, held by own, held by enemy"),
            Piece("score", (2,), "own, enemy score / 10"),
        ])
        self.offsets = self.layout.offsets
        self.slices = self.layout.slices
        #: the own and enemy unit blocks are the first two pieces, one after the other
        self._units_end = self.layout.slices["enemy_units"].stop
        self._zero_row = bytes(4 * len(UNIT_FEATURES))
        #: per viewing side: its Reserve, its discard pile, the enemy's discard pile, the
        #: enemy's Reserve, its deck, the enemy's deck (zone names)
        self._zone_names = tuple((f"reserve:{side}", f"discard:{side}", f"discard:{1 - side}",
                                  f"reserve:{1 - side}", f"deck:{side}", f"deck:{1 - side}")
                                 for side in (0, 1))

    # -- helpers -----------------------------------------------------------------------------
    def table_xy(self, side: int, x: float, y: float) -> tuple[float, float]:
        """Egocentric table coordinates in [0, 1] (side 1 sees the table turned round)."""
        game = self.game
        if side == 1:
            x, y = game.width - x, game.depth - y
        return x / game.width, y / game.depth

    @staticmethod
    def unit_points(state: AAState) -> tuple:
        """Every slot's ``(x, y, transit x, transit y)``, ``None`` for an empty slot or a unit
        gone: what sight and objectives depend on (the key of their memos)."""
        return tuple(None if unit is None or not unit.alive else
                     (unit.x, unit.y, unit.tx, unit.ty)
                     for row in state.units for unit in row)

    def los_matrix(self, state: AAState, side: int, points: tuple | None = None) -> np.ndarray:
        """``(slots, slots)`` float32: 1 where own unit i and enemy unit j see each other
        (AA-G9, :func:`.sight.sight_matrix`), memoised by :meth:`unit_points` (``points``,
        when already known)."""
        return sight.sight_matrix(state, side, self.unit_points(state) if points is None
                                  else points)

    def _unit_rows(self, state: AAState, side: int) -> bytes:
        """The two unit blocks as ``side`` sees them (``2 * slots`` rows of float32
        :data:`UNIT_FEATURES`: the viewing side's slots, then the enemy's; an empty slot or a
        unit gone is a zero row), as the bytes of the flat vector's start. A row's bytes are
        memoised on the game by everything the row reads (the unit's fields, its order zone as
        ``side`` sees it, its role in the phase)."""
        game = self.game
        width, depth = game.width, game.depth
        flip = side == 1
        zones = state.zones
        order_zones = game.order_zone_names
        phase = state.phase
        roles: dict[tuple[int, int], int] = {}
        targeted: set[tuple[int, int]] = set()
        specials: dict[str, str] = {}
        postures: dict[str, str] = {}
        if phase is not None:
            for owner, slot, role in reversed(phase.involved):  # the first row wins
                roles[owner, slot] = role
            targeted = {(line[2], line[3]) for line in phase.fire}
            specials, postures = phase.special, phase.posture
        slots = game.max_units_per_side
        memo = game.unit_rows_cache
        rows = [self._zero_row] * (2 * slots)
        for base, owner in ((0, side), (slots, 1 - side)):
            for unit in state.units[owner]:
                if unit is None or not unit.alive:
                    continue
                slot = unit.slot
                zone = zones[order_zones[owner][slot]]
                cards = zone.cards
                shown = cards[0] if cards and zone.visible_to(side) else -1
                role = roles.get((owner, slot), -1) if roles else -1
                special = posture = None
                if specials or postures:
                    unit_key = key(owner, slot)
                    special = specials.get(unit_key)
                    posture = postures.get(unit_key)
                # everything the row reads: a row seen before is copied from the memo
                signature = (side, owner, slot, unit.x, unit.y, unit.tx, unit.ty, unit.figures,
                             unit.wounds, unit.suppression, unit.morale, unit.equipment,
                             unit.utype, unit.attached, unit.acted, unit.confused, len(cards),
                             shown, zone.visibility, role, (owner, slot) in targeted, special,
                             posture)
                known = memo.get(signature)
                if known is not None:
                    rows[base + slot] = known
                    continue
                vehicle = unit.utype == "vehicle"
                x, y, transit_x, transit_y = unit.x, unit.y, unit.tx, unit.ty
                in_transit = transit_x is not None
                if flip:
                    x, y = width - x, depth - y
                    if transit_x is not None and transit_y is not None:
                        transit_x, transit_y = width - transit_x, depth - transit_y
                wounds, suppression = unit.wounds, unit.suppression
                row = np.zeros(len(UNIT_FEATURES), dtype=np.float32)
                row[:_SCALARS] = (
                    1.0, x / width, y / depth, unit.figures / 12.0, wounds / 6.0,
                    suppression / 6.0, _die_feature(unit.morale, 0 if vehicle else wounds),
                    _die_feature(unit.equipment, suppression + (wounds if vehicle else 0)),
                    float(vehicle), float(unit.attached), float(len(cards) > 0),
                    float(unit.acted), float(unit.confused), float(in_transit),
                    transit_x / width if transit_x is not None else 0.0,
                    transit_y / depth if transit_y is not None else 0.0, float(role == 0),
                    float(role > 0), float((owner, slot) in targeted),
                    float(zone.visibility == "public"))
                if shown >= 0:  # own card, or a revealed enemy card
                    row[_CARD0 + shown] = 1.0
                if special is not None:
                    row[_ORDER0 + _ORDER_INDEX[special]] = 1.0
                if posture is not None:
                    row[_POSTURE0 + _POSTURE_INDEX[posture]] = 1.0
                if len(memo) >= _ROW_CACHE_SIZE:
                    memo.clear()
                rows[base + slot] = memo[signature] = row.tobytes()
        return b"".join(rows)

    # -- the observation ---------------------------------------------------------------------
    def observation(self, state: AAState, side: int) -> np.ndarray:
        """float32 vector of shape ``(observation_size,)`` for ``side`` (0 or 1), egocentric;
        nothing hidden from ``side`` enters it (module docstring). Pieces are written through
        their slices of the flat vector (:attr:`layout`)."""
        slices = self.slices
        vector = self.layout.zeros()
        zones = state.zones
        enemy = 1 - side
        game = self.game
        vector[:self._units_end] = np.frombuffer(self._unit_rows(state, side), dtype=np.float32)
        points = self.unit_points(state)
        vector[slices["los"]] = self.los_matrix(state, side, points).ravel()
        reserve, discard, enemy_discard_name, enemy_reserve, deck, enemy_deck = \
            self._zone_names[side]
        own_reserve = zones[reserve].cards
        if own_reserve:
            vector[slices["own_reserve"]] = np.bincount(own_reserve, minlength=N_CARDS) * 0.25
        own_discard = zones[discard].cards
        enemy_discard = zones[enemy_discard_name].cards
        vector[slices["counts"]] = (len(zones[enemy_reserve].cards) / 10.0,
                                    len(zones[deck].cards) / 54.0,
                                    len(zones[enemy_deck].cards) / 54.0,
                                    len(own_discard) / 54.0, len(enemy_discard) / 54.0)
        if own_discard:
            vector[slices["own_discard"]] = np.bincount(own_discard, minlength=N_CARDS) * 0.25
        if enemy_discard:
            vector[slices["enemy_discard"]] = np.bincount(enemy_discard, minlength=N_CARDS) * 0.25
        vector[slices["turn"]] = (state.turn / game.turns, float(state.first == side))
        decision = state.decision_type()
        vector[self.offsets["decision"]
               + _DECISION_INDEX[str(getattr(decision, "value", decision))]] = 1.0
        self._context(state, side, vector)
        phase = state.phase
        if phase is not None:
            vector[slices["frozen"]] = (float(phase.frozen[side]), float(phase.frozen[enemy]))
        holders = game.holders_cache.get(points)
        if holders is None:
            holders = scoring.objective_holders(state)
            if len(game.holders_cache) >= _HOLDERS_CACHE_SIZE:
                game.holders_cache.clear()
            game.holders_cache[points] = holders
        start = self.offsets["objectives"]
        for index, (x, y) in enumerate(game.objectives[:3]):
            holder = holders[index]
            vector[start + 4 * index:start + 4 * index + 4] = (
                *self.table_xy(side, x, y), float(holder == side), float(holder == enemy))
        scores = scoring.scores(state, holders)
        vector[slices["score"]] = (scores[side] / 10.0, scores[enemy] / 10.0)
        return vector

    def _context(self, state: AAState, side: int, vector: np.ndarray) -> None:
        """The ``commit`` (change loop) or ``subject`` piece, from the decision context, into
        the flat ``vector``."""
        context = state.decision_context(side)
        if isinstance(context, CommitContext):
            sides = cast(HiddenCommit, state.stack.top).sides
            own = [done for who, done in zip(sides, context.committed) if who == side]
            other = [done for who, done in zip(sides, context.committed) if who != side]
            commit = vector[self.slices["commit"]]
            commit[0] = float(bool(own and own[0]))
            commit[1] = float(bool(other and other[0]))
            if context.own_choice is not None:
                ids = self.game.ids
                if context.own_choice == ids.stand:
                    commit[2] = 1.0
                else:
                    commit[3 + context.own_choice - ids.play0] = 1.0
        else:
            subject = getattr(context, "subject", -1)
            if context is not None and subject >= 0 and context.player == side:
                vector[self.offsets["subject"] + subject] = 1.0

    def observation_string(self, state: AAState, side: int) -> str:
        """Text twin of :meth:`observation` (own cards named; enemy cards only when revealed)."""
        game = self.game
        view = state.zones.public_view(side)
        lines = [f"turn {state.turn}/{game.turns}; you are {game.side_names[side]}; scores "
                 f"{scoring.scores(state)}"]
        for owner in (side, 1 - side):
            who = "own" if owner == side else "enemy"
            for unit in state.alive_units(owner):
                zone = view[f"order:{owner}:{unit.slot}"]
                order = ("-" if zone.size == 0 else CARD_NAMES[zone.cards[0]] if zone.cards
                         else "face-down")
                lines.append(f"  {who} unit{unit.slot} {unit.name}: {unit.figures} fig at "
                             f"({unit.x:.1f}, {unit.y:.1f}) cm, {unit.wounds} wounds, "
                             f"{unit.suppression} markers, order {order}"
                             f"{', acted' if unit.acted else ''}")
        reserve = view[f"reserve:{side}"].cards or ()
        lines.append(f"  own Reserve: {[CARD_NAMES[c] for c in reserve]}; enemy Reserve: "
                     f"{view[f'reserve:{1 - side}'].size} cards; decks "
                     f"{view[f'deck:{side}'].size}/{view[f'deck:{1 - side}'].size}")
        return "\n".join(lines)
