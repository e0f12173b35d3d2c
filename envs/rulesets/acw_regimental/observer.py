"""Egocentric observations of the ACW regimental ruleset (no hidden information: all public).

The observing side's units come first, then the enemy's; side 1 sees the table rotated 180°
about its centre (x -> W - x, y -> D - y, heading + pi), so "forward" means the same for both
seats and the same position seen from the other seat gives the same vector.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from envs.core.geometry import footprint_distance
from envs.core.observer import ObservationLayout, Piece

from .actions import DECISION_TYPES
from .arcs import zone_of
from .procedures.context import ACWContext

if TYPE_CHECKING:
    from .state import ACWState
    from .units import Unit

KINDS = ("infantry", "cavalry", "artillery")
FORMS = ("line", "assault_column", "road_column", "mounted_line", "unlimbered", "limbered",
         "skirmish")
HEALTHS = ("fresh", "worn", "spent", "broken")
EXPS = ("veteran", "regular", "green")
WEAPONS = ("smoothbore", "rifled_musket", "napoleon", "rifle_3in", "carbine")
ZONES = ("front", "left", "right", "rear")
CTX_KINDS = ("rally", "reserve", "activation", "opp_medium", "opp_short", "evade", "refuse",
             "charge_b1", "charge_b2", "fire", "melee_advance")

UNIT_FEATURES = (
    ["present"] + [f"kind={k}" for k in KINDS] + [f"formation={f}" for f in FORMS]
    + ["x/W", "y/D", "cos(heading)", "sin(heading)", "stands/s0", "s0/8", "hit_counter",
       "disordered", "smoked", "engaged", "refused_left", "refused_right", "refused_n/2"]
    + [f"health={h}" for h in HEALTHS] + [f"experience={e}" for e in EXPS]
    + [f"weapon={w}" for w in WEAPONS]
    + ["activated", "moved", "charged", "fired", "is_screen", "rebel_yell"])
NF = len(UNIT_FEATURES)


def build_layout(game: Any) -> ObservationLayout:
    slots = game.max_units_per_side
    feats = ", ".join(UNIT_FEATURES)
    return ObservationLayout([
        Piece("own_units", (slots, NF), f"own unit slots, per slot: {feats}"),
        Piece("enemy_units", (slots, NF), "enemy unit slots, same features"),
        Piece("resources", (3,), "own pips/6, own reserved pips/2, enemy reserved pips/2"),
        Piece("phase", (5,), "one-hot phase 1..5 of the current player-turn (ACW-PD-12)"),
        Piece("turn", (1,), "game turn / turns"),
        Piece("active", (1,), "1 if the observing side is the active side"),
        Piece("decision", (len(DECISION_TYPES),), "one-hot decision type: "
              + ", ".join(DECISION_TYPES)),
        Piece("ctx_unit", (2 * slots,), "unit asked / acting now: own slots then enemy slots"),
        Piece("ctx_trigger", (2 * slots,), "unit that triggered the window: own then enemy slots"),
        Piece("ctx_distance", (1,), "distance between the two (inches / 12)"),
        Piece("ctx_zone", (4,), "zone of the asked unit holding the trigger unit's centre: "
              + ", ".join(ZONES)),
        Piece("ctx_kind", (len(CTX_KINDS),), "what is being decided: " + ", ".join(CTX_KINDS)),
    ])


def _context(state: ACWState
             ) -> tuple[tuple[int, int] | None, tuple[int, int] | None, str | None]:
    """(asked (side, slot) | None, trigger (side, slot) | None, kind | None)."""
    if not state.stack or state.done:
        return None, None, None
    ctx = state.stack[-1].context(state, state.current_player())
    if not isinstance(ctx, ACWContext):  # (None: a frame with nothing to show)
        return None, None, None
    return ctx.asked, ctx.trigger, ctx.what


def decision_units(state: ACWState
                   ) -> tuple[tuple[int, int] | None, tuple[int, int] | None, str | None]:
    """The waiting decision's context as the observer reads it, for views of the table
    (drawing, actions in words): ``(asked, trigger, what)`` with ``asked`` the ``(side, slot)``
    of the unit asked or acting, ``trigger`` the ``(side, slot)`` of the unit that triggered it
    (the mover of a Window A, the charger of Window B1/B2) and ``what`` one of
    :data:`CTX_KINDS` (a Window A gives its trigger: ``opp_medium``, ``opp_short``, ``evade``,
    ``refuse``); each ``None`` when it does not apply (chance nodes, the end)."""
    return _context(state)


_KIND = {k: i for i, k in enumerate(KINDS)}
_FORM = {f: i for i, f in enumerate(FORMS)}
_HEALTH = {h: i for i, h in enumerate(HEALTHS)}
_EXP = {e: i for i, e in enumerate(EXPS)}
_WEAPON = {w: i for i, w in enumerate(WEAPONS)}
_ZONE = {z: i for i, z in enumerate(ZONES)}
_CTX_KIND = {k: i for i, k in enumerate(CTX_KINDS)}
_DECISION = {d: i for i, d in enumerate(DECISION_TYPES)}
# offsets of the feature groups in a unit row, read off UNIT_FEATURES
_O_KIND = UNIT_FEATURES.index(f"kind={KINDS[0]}")
_O_FORM = UNIT_FEATURES.index(f"formation={FORMS[0]}")
_O_NUM = UNIT_FEATURES.index("x/W")  # x/W ... refused_n/2
_O_HEALTH = UNIT_FEATURES.index(f"health={HEALTHS[0]}")
_O_EXP = UNIT_FEATURES.index(f"experience={EXPS[0]}")
_O_WEAPON = UNIT_FEATURES.index(f"weapon={WEAPONS[0]}")
_O_FLAGS = UNIT_FEATURES.index("activated")  # activated ... rebel_yell


def unit_row(unit: Unit, side: int, table_width: float, table_depth: float) -> list[float]:
    """The features of ``unit`` seen by ``side`` (0 or 1), as a list of ``NF`` Python floats
    in :data:`UNIT_FEATURES` order (one row of the ``own_units`` / ``enemy_units`` pieces).

    Positions are fractions of ``table_width`` and ``table_depth`` (the table's size in
    inches); side 1's view is rotated 180° about the table's centre (``x -> table_width - x``,
    ``y -> table_depth - y``, heading + pi)."""
    fp = unit.fp
    x, y, h = fp.x, fp.y, fp.heading
    if side == 1:
        x, y, h = table_width - x, table_depth - y, h + math.pi
    row = [0.0] * NF
    row[0] = 1.0
    row[_O_KIND + _KIND[unit.kind]] = 1.0
    row[_O_FORM + _FORM[unit.formation]] = 1.0
    # refused flanks are in the unit's own frame: unchanged by the rotation
    row[_O_NUM:_O_HEALTH] = (
        x / table_width, y / table_depth, math.cos(h), math.sin(h),
        unit.stands / max(1, unit.starting_stands), unit.starting_stands / 8.0, float(unit.hits),
        float(unit.disordered), float(unit.smoke >= 0), float(bool(unit.engaged)),
        float(unit.refused == "left"), float(unit.refused == "right"), unit.refused_n / 2.0)
    row[_O_HEALTH + _HEALTH[unit.health.value]] = 1.0
    row[_O_EXP + _EXP[unit.experience]] = 1.0
    row[_O_WEAPON + _WEAPON[unit.weapon]] = 1.0
    row[_O_FLAGS:] = (float(unit.activated), float(unit.moved > 0), float(unit.charged),
                      float(unit.fired), float(unit.is_screen),
                      float("rebel_yell" in unit.traits))
    return row


#: unit rows already built, by everything a row is computed from (bounded: cleared when full):
#: ``key -> (footprint, row array, row bytes)``
_ROWS: dict[tuple, tuple] = {}
_ROWS_MAX = 4096


def cached_unit_row(unit: Unit, side: int, table_width: float, table_depth: float) -> np.ndarray:
    """``unit_row(unit, side, table_width, table_depth)`` (table size in inches) as a
    read-only float32 numpy array of shape ``(NF,)``, reused when nothing it reads has
    changed.

    Footprints are never modified in place (every move makes a new one), so the footprint
    object stands for the position and heading; the cache keeps it alive, so its ``id`` cannot
    be reused while the entry exists. The other inputs of the row (including what
    ``unit.health`` derives from) are in the key by value. The returned array is shared:
    callers copy it and never write to it."""
    return _cached_row(unit, side, table_width, table_depth)[1]


def _cached_row(unit: Unit, side: int, table_width: float, table_depth: float) -> tuple:
    """The cache entry of :func:`cached_unit_row`: ``(footprint, row array, row bytes)``."""
    fp = unit.fp
    key = (id(fp), side, table_width, table_depth, unit.kind, unit.formation, unit.stands,
           unit.starting_stands, unit.lost, unit.broken, unit.alive, unit.hits, unit.disordered,
           unit.smoke >= 0, not unit.engaged, unit.refused, unit.refused_n, unit.experience,
           unit.weapon, unit.activated, unit.moved > 0, unit.charged, unit.fired,
           unit.is_screen, unit.traits)
    hit = _ROWS.get(key)
    if hit is not None and hit[0] is fp:
        return hit
    row = np.array(unit_row(unit, side, table_width, table_depth), dtype=np.float32)
    row.flags.writeable = False
    if len(_ROWS) >= _ROWS_MAX:
        _ROWS.clear()
    entry = _ROWS[key] = (fp, row, row.tobytes())
    return entry


#: the bytes of ``n`` float32 zeros, by ``n`` (an empty unit slot, the pieces after the units)
_ZERO_BYTES: dict[int, bytes] = {}


def _zero_bytes(n: int) -> bytes:
    zeros = _ZERO_BYTES.get(n)
    if zeros is None:
        zeros = _ZERO_BYTES[n] = bytes(4 * n)
    return zeros


def observation(game: Any, state: ACWState, side: int) -> np.ndarray:
    """float32 vector of shape ``(game.observation_size,)`` for ``side`` (0 or 1).

    The unit pieces (the first ``2 * slots`` rows of :data:`NF` floats, own slots then enemy
    slots) are one byte string joined from each live unit's cached float32 row
    (:func:`cached_unit_row`) and zero rows for the empty slots, followed by the zeros of the
    other pieces, read into a writable float32 array; the few scalars are then stored one by
    one (each rounded from double to float32 as a conversion of the whole vector would). The
    pieces and their order are :func:`build_layout`'s."""
    lay = game.layout
    offsets = lay.offsets
    slots = game.max_units_per_side
    W, D = game.terrain.width, game.terrain.depth
    empty = _zero_bytes(NF)
    parts = []
    for s in (side, 1 - side):
        for unit in state.units[s]:
            parts.append(_cached_row(unit, side, W, D)[2]
                         if unit is not None and unit.alive else empty)
    parts.append(_zero_bytes(lay.size - 2 * slots * NF))
    vector = np.frombuffer(bytearray(b"".join(parts)), dtype=np.float32)
    offset = offsets["resources"]
    vector[offset:offset + 3] = (state.pips[side] / 6.0, state.reserved[side] / 2.0,
                  state.reserved[1 - side] / 2.0)
    vector[offsets["phase"] + state.phase - 1] = 1.0
    vector[offsets["turn"]] = min(state.turn, game.turns) / game.turns
    vector[offsets["active"]] = float(state.active == side)
    vector[offsets["decision"] + _DECISION[state.decision_type().value]] = 1.0
    asked, trig, kind = _context(state)
    if asked is not None:
        vector[offsets["ctx_unit"] + (0 if asked[0] == side else slots) + asked[1]] = 1.0
    if trig is not None:
        vector[offsets["ctx_trigger"] + (0 if trig[0] == side else slots) + trig[1]] = 1.0
    if asked is not None and trig is not None:
        asked_unit = state.units[asked[0]][asked[1]]
        t = state.units[trig[0]][trig[1]]
        if asked_unit is not None and t is not None and asked_unit.alive and t.alive:
            vector[offsets["ctx_distance"]] = footprint_distance(asked_unit.fp, t.fp) / 12.0
            vector[offsets["ctx_zone"] + _ZONE[zone_of(asked_unit.fp, t.fp.centre())]] = 1.0
    if kind is not None:
        vector[offsets["ctx_kind"] + _CTX_KIND[kind]] = 1.0
    return vector


def observation_string(game: Any, state: ACWState, side: int) -> str:
    """Human-readable twin of :func:`observation` (everything is public in this ruleset)."""
    lines = [f"turn {state.turn}/{game.turns} phase {state.phase} active "
             f"{game.side_names[state.active]} decision {state.decision_type().value} "
             f"(seen by {game.side_names[side]})",
             f"pips {state.pips}, reserved {state.reserved}"]
    for s in (side, 1 - side):
        for unit in state.units[s]:
            if unit is None or not unit.alive:
                continue
            flags = [f for f, on in (("Disordered", unit.disordered), ("Smoke", unit.smoke >= 0),
                                     ("engaged", bool(unit.engaged)), ("activated", unit.activated))
                     if on]
            if unit.refused:
                flags.append(f"refused {unit.refused} x{unit.refused_n}")
            lines.append(f"{'own' if s == side else 'enemy'} {unit.label()}: {unit.kind} "
                         f"{unit.formation} {unit.stands}/{unit.starting_stands} stands "
                         f"{unit.health.value} hits {unit.hits} "
                         f"at ({unit.fp.x:.1f}, {unit.fp.y:.1f}) facing "
                         f"{math.degrees(unit.fp.heading):.0f}° {' '.join(flags)}")
    asked, trig, kind = _context(state)
    if kind:
        lines.append(f"context: {kind} asked={asked} trigger={trig}")
    return "\n".join(lines)
