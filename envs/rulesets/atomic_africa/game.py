"""The Atomic Africa :class:`~envs.core.protocol.Game` and its observer (see the package
docstring for the tables)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from envs.core.frames import CommitContext
from envs.core.observer import ObservationLayout, Piece
from envs.core.protocol import Game
from envs.core.scenario import validate_params

from .actions import CHANCE_CATALOGUE, DECISION_TYPES, Ids
from .cards import (CARD_NAMES, DIE_LADDER, EXPERIENCE_BONUS, N_CARDS, ORDER_KINDS,
                    POSTURES, die_index, shifted)
from .params import SCENARIO_DIR, AAParams, load_scenario
from .procedures import Turn
from .state import AAState, Unit, key

#: features of one unit row of the observation
UNIT_FEATURES: tuple[str, ...] = (
    "present", "x", "y", "figures", "wounds", "suppression", "morale_die", "equipment_die",
    "vehicle", "attached", "has_order", "acted", "confused", "in_transit", "transit_x",
    "transit_y", "activating", "reacting", "targeted", "revealed",
) + tuple(f"card_{c}" for c in CARD_NAMES) + tuple(f"order_{o}" for o in ORDER_KINDS) + tuple(
    f"posture_{p}" for p in POSTURES)
NF = len(UNIT_FEATURES)
FI = {n: i for i, n in enumerate(UNIT_FEATURES)}


class AAGame(Game):
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
    _cache_attrs = ("los_cache",)
    version = 2

    def __init__(self, scenario: str | Path | None = None,
                 params: Mapping[str, Any] | None = None):
        p = validate_params(AAParams, params)
        self.params = p.model_dump()
        for name, value in self.params.items():
            setattr(self, name, value)
        U = p.max_units_per_side
        spec, decks = load_scenario(scenario, U)
        self.spec = spec
        self.scenario_name = spec.name
        self.turns = p.turns if p.turns is not None else spec.turns
        self.width, self.depth = spec.table.width, spec.table.depth
        self.blocking = [[tuple(pt) for pt in t.points] for t in spec.terrain if t.blocks_los]
        self.blocking_boxes = [(min(x for x, _ in q), min(y for _, y in q), max(x for x, _ in q),
                                max(y for _, y in q)) for q in self.blocking]
        #: memo of line-of-sight answers (point pair -> bool): a pure function of the terrain
        self.los_cache: dict = {}
        self.cover_areas = [([tuple(pt) for pt in t.points], t.cover) for t in spec.terrain]
        self.objectives = [(o.x, o.y) for o in spec.objectives]
        self.experience = tuple(sd.experience for sd in spec.sides)
        self.draw_bonus = tuple(EXPERIENCE_BONUS[e] for e in self.experience)
        #: each side's cards at the start (the deck left to draw, its order, and with a
        #: ``[start]`` table the Reserve, discard pile and face-down orders)
        self.cards = decks
        self.deck_cards = decks.deck
        self.num_players = 2
        self.side_names = tuple(sd.name for sd in spec.sides)
        self.ids = Ids(U)
        self.actions = self.ids.cat
        self.chance = CHANCE_CATALOGUE
        self.decision_types = DECISION_TYPES
        self.max_game_length = p.max_decisions
        slots = [0, 0]
        units = []
        #: (side, slot) -> face-down order card at the start (scenario ``[start]``)
        self.start_orders: dict[tuple[int, int], int] = {}
        for index, us in enumerate(spec.units):
            units.append(Unit(us.side, slots[us.side], us.name, us.kind, us.attached,
                              us.figures, us.morale, us.equipment, us.defense, us.x, us.y,
                              us.wounds, us.suppression))
            if index in decks.orders:
                self.start_orders[us.side, slots[us.side]] = decks.orders[index]
            slots[us.side] += 1
        self.initial_units = units
        self.layout = ObservationLayout([
            Piece("own_units", (U, NF), "own units by slot (features: UNIT_FEATURES)"),
            Piece("enemy_units", (U, NF), "enemy units by slot; card only once revealed"),
            Piece("los", (U, U), "1 where own unit i and enemy unit j see each other"),
            Piece("own_reserve", (N_CARDS,), "own Reserve / hand: copies of each card / 4"),
            Piece("counts", (5,), "enemy Reserve size, own deck, enemy deck (/ 54), own and "
                  "enemy discard size (/ 54)"),
            Piece("own_discard", (N_CARDS,), "own discard pile by card / 4"),
            Piece("enemy_discard", (N_CARDS,), "enemy discard pile by card / 4"),
            Piece("turn", (2,), "turn / turns, 1 if the observer activated first"),
            Piece("decision", (len(DECISION_TYPES),), "one-hot decision type"),
            Piece("subject", (U,), "one-hot own unit the decision is about"),
            Piece("commit", (3 + N_CARDS,), "change loop: own committed, enemy committed, own "
                  "stand, own card played (one-hot)"),
            Piece("frozen", (2,), "own, enemy orders frozen by a Joker (AA-D8)"),
            Piece("objectives", (3, 4), "x, y, held by own, held by enemy"),
            Piece("score", (2,), "own, enemy score / 10"),
        ])

    def new_initial_state(self) -> AAState:
        s = AAState(self)
        start = self.spec.start
        if start is None:
            s.stack.push(Turn())
        else:  # the scenario starts after an Orders Phase (orders and Reserves are dealt)
            s.turn = start.turn
            s.log("turn", ("AA-G23", "AA-G4"), f"turn {s.turn} begins after its Orders Phase "
                  f"(scenario start)", None, turn=s.turn)
            if start.first_side is None:
                s.stack.push(Turn(step="first"))
            else:
                s.first = start.first_side
                s.stack.push(Turn(step="activations"))
        s.start()
        return s

    def state_from_dict(self, data: Mapping[str, Any]) -> AAState:
        return AAState.from_dict(self, dict(data))

    @property
    def observation_size(self) -> int:
        return self.layout.size

    # -- observer ---------------------------------------------------------------------------
    def _xy(self, side: int, x: float, y: float) -> tuple[float, float]:
        """Egocentric table coordinates in [0, 1] (side 1 sees the table turned round)."""
        if side == 1:
            x, y = self.width - x, self.depth - y
        return x / self.width, y / self.depth

    def observation(self, state: AAState, side: int) -> np.ndarray:
        """Built only from ``state.zones.public_view(side)``, the public units and
        ``state.decision_context(side)``: nothing hidden from ``side`` enters it."""
        v = self.layout.zeros()
        P = self.layout.split(v)
        view = state.zones.public_view(side)
        ap = state.ap
        for rel, s in ((0, side), (1, 1 - side)):
            rows = P["own_units" if rel == 0 else "enemy_units"]
            for u in state.units[s]:
                if u is None or not u.alive:
                    continue
                r = rows[u.slot]
                r[FI["present"]] = 1.0
                r[FI["x"]], r[FI["y"]] = self._xy(side, u.x, u.y)
                r[FI["figures"]] = u.figures / 12.0
                r[FI["wounds"]] = u.wounds / 6.0
                r[FI["suppression"]] = u.suppression / 6.0
                md = shifted(u.morale, 0 if u.vehicle else u.wounds)
                ed = shifted(u.equipment, u.suppression + (u.wounds if u.vehicle else 0))
                r[FI["morale_die"]] = (die_index(md) + 1) / 5.0 if md else 0.0
                r[FI["equipment_die"]] = (die_index(ed) + 1) / 5.0 if ed else 0.0
                r[FI["vehicle"]] = float(u.vehicle)
                r[FI["attached"]] = float(u.attached)
                oz = view[f"order:{s}:{u.slot}"]
                r[FI["has_order"]] = float(oz.size > 0)
                r[FI["acted"]] = float(u.acted)
                r[FI["confused"]] = float(u.confused)
                if u.tx is not None:
                    r[FI["in_transit"]] = 1.0
                    r[FI["transit_x"]], r[FI["transit_y"]] = self._xy(side, u.tx, u.ty)
                if oz.cards:  # own card, or a revealed enemy card
                    r[FI[f"card_{CARD_NAMES[oz.cards[0]]}"]] = 1.0
                r[FI["revealed"]] = float(state.revealed(s, u.slot))
                if ap is not None:
                    role = ap.role(s, u.slot)
                    r[FI["activating"]] = float(role == 0)
                    r[FI["reacting"]] = float(role > 0)
                    r[FI["targeted"]] = float(any(f[2] == s and f[3] == u.slot
                                                  for f in ap.fire))
                    k = key(s, u.slot)
                    if k in ap.special:
                        r[FI[f"order_{ap.special[k]}"]] = 1.0
                    if k in ap.posture:
                        r[FI[f"posture_{ap.posture[k]}"]] = 1.0
        los = P["los"]
        for a in state.alive_units(side):
            for b in state.alive_units(1 - side):
                los[a.slot, b.slot] = float(state.sees(a, b))
        for c in view[f"reserve:{side}"].cards:
            P["own_reserve"][c] += 0.25
        P["counts"][:] = (view[f"reserve:{1 - side}"].size / 10.0,
                          view[f"deck:{side}"].size / 54.0, view[f"deck:{1 - side}"].size / 54.0,
                          view[f"discard:{side}"].size / 54.0,
                          view[f"discard:{1 - side}"].size / 54.0)
        for c in view[f"discard:{side}"].cards:
            P["own_discard"][c] += 0.25
        for c in view[f"discard:{1 - side}"].cards:
            P["enemy_discard"][c] += 0.25
        P["turn"][:] = (state.turn / self.turns, float(state.first == side))
        dt = state.decision_type()
        P["decision"][DECISION_TYPES.index(str(getattr(dt, "value", dt)))] = 1.0
        ctx = state.decision_context(side)
        if isinstance(ctx, CommitContext):
            i = ctx.player
            sides = state.stack.top.sides
            own = [c for s_, c in zip(sides, ctx.committed) if s_ == side]
            other = [c for s_, c in zip(sides, ctx.committed) if s_ != side]
            P["commit"][0] = float(bool(own and own[0]))
            P["commit"][1] = float(bool(other and other[0]))
            if ctx.own_choice is not None:
                ids = self.ids
                if ctx.own_choice == ids.stand:
                    P["commit"][2] = 1.0
                else:
                    P["commit"][3 + ctx.own_choice - ids.play0] = 1.0
            _ = i
        elif ctx is not None and getattr(ctx, "subject", -1) >= 0 and ctx.player == side:
            P["subject"][ctx.subject] = 1.0
        if ap is not None:
            P["frozen"][:] = (float(ap.frozen[side]), float(ap.frozen[1 - side]))
        for j, (x, y) in enumerate(self.objectives[:3]):
            h = state.objective_holder(x, y)
            P["objectives"][j] = (*self._xy(side, x, y), float(h == side),
                                  float(h == 1 - side))
        sc = state.scores()
        P["score"][:] = (sc[side] / 10.0, sc[1 - side] / 10.0)
        return v

    def observation_string(self, state: AAState, side: int) -> str:
        """Text twin of :meth:`observation` (own cards named; enemy cards only when revealed)."""
        view = state.zones.public_view(side)
        lines = [f"turn {state.turn}/{self.turns}; you are {self.side_names[side]}; scores "
                 f"{state.scores()}"]
        for s in (side, 1 - side):
            who = "own" if s == side else "enemy"
            for u in state.alive_units(s):
                oz = view[f"order:{s}:{u.slot}"]
                order = ("-" if oz.size == 0 else CARD_NAMES[oz.cards[0]] if oz.cards
                         else "face-down")
                lines.append(f"  {who} unit{u.slot} {u.name}: {u.figures} fig at "
                             f"({u.x:.1f}, {u.y:.1f}) cm, {u.wounds} wounds, {u.suppression} "
                             f"markers, order {order}{', acted' if u.acted else ''}")
        res = view[f"reserve:{side}"].cards
        lines.append(f"  own Reserve: {[CARD_NAMES[c] for c in res]}; enemy Reserve: "
                     f"{view[f'reserve:{1 - side}'].size} cards; decks "
                     f"{view[f'deck:{side}'].size}/{view[f'deck:{1 - side}'].size}")
        return "\n".join(lines)


_ = DIE_LADDER
