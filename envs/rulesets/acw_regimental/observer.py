"""Egocentric observations of the ACW regimental ruleset (no hidden information: all public).

The observing side's units come first, then the enemy's; side 1 sees the table rotated 180°
about its centre (x -> W - x, y -> D - y, heading + pi), so "forward" means the same for both
seats and the same position seen from the other seat gives the same vector.
"""

from __future__ import annotations

import math

import numpy as np

from envs.core.geometry import footprint_distance, zone_of
from envs.core.observer import ObservationLayout, Piece

from .actions import DECISION_TYPES

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


def build_layout(game) -> ObservationLayout:
    m = game.max_units_per_side
    feats = ", ".join(UNIT_FEATURES)
    return ObservationLayout([
        Piece("own_units", (m, NF), f"own unit slots, per slot: {feats}"),
        Piece("enemy_units", (m, NF), "enemy unit slots, same features"),
        Piece("resources", (3,), "own pips/6, own reserved pips/2, enemy reserved pips/2"),
        Piece("phase", (5,), "one-hot phase 1..5 of the current player-turn (ACW-PD-12)"),
        Piece("turn", (1,), "game turn / turns"),
        Piece("active", (1,), "1 if the observing side is the active side"),
        Piece("decision", (len(DECISION_TYPES),), "one-hot decision type: "
              + ", ".join(DECISION_TYPES)),
        Piece("ctx_unit", (2 * m,), "unit asked / acting now: own slots then enemy slots"),
        Piece("ctx_trigger", (2 * m,), "unit that triggered the window: own then enemy slots"),
        Piece("ctx_distance", (1,), "distance between the two (inches / 12)"),
        Piece("ctx_zone", (4,), "zone of the asked unit holding the trigger unit's centre: "
              + ", ".join(ZONES)),
        Piece("ctx_kind", (len(CTX_KINDS),), "what is being decided: " + ", ".join(CTX_KINDS)),
    ])


def _context(state):
    """(asked (side, slot) | None, trigger (side, slot) | None, kind | None)."""
    if not state.stack or state.done:
        return None, None, None
    fr = state.stack[-1]
    k = fr["k"]
    a = state.active
    if k == "ask":
        return (1 - a, fr["d"]), (a, fr["m"]), fr["trig"]
    if k == "charge":
        kind = "charge_b1" if fr["st"] == "b1_wait" else "charge_b2"
        return (1 - a, fr["t"]), (a, fr["u"]), kind
    if k == "act":
        return (a, fr["u"]), None, "activation"
    if k == "madv":
        return (a, fr["u"]), (1 - a, fr["e"]), "melee_advance"
    if k == "p3" and "u" in fr:
        return (a, fr["u"]), None, "fire"
    if k == "p1":
        if fr["st"] == "rally":
            return (a, fr.get("u", 0)), None, "rally"
        return None, None, "reserve"
    return None, None, None


def _unit_row(u, side: int, W: float, D: float, row: np.ndarray, allowance: float) -> None:
    fp = u.fp
    x, y, h = fp.x, fp.y, fp.heading
    if side == 1:
        x, y, h = W - x, D - y, h + math.pi
    row[0] = 1.0
    row[1 + KINDS.index(u.kind)] = 1.0
    row[4 + FORMS.index(u.formation)] = 1.0
    i = 11
    row[i] = x / W
    row[i + 1] = y / D
    row[i + 2] = math.cos(h)
    row[i + 3] = math.sin(h)
    row[i + 4] = u.stands / max(1, u.s0)
    row[i + 5] = u.s0 / 8.0
    row[i + 6] = float(u.hits)
    row[i + 7] = float(u.disordered)
    row[i + 8] = float(u.smoke >= 0)
    row[i + 9] = float(bool(u.engaged))
    # refused flanks are in the unit's own frame: unchanged by the rotation
    row[i + 10] = float(u.refused == "left")
    row[i + 11] = float(u.refused == "right")
    row[i + 12] = u.refused_n / 2.0
    i += 13
    row[i + HEALTHS.index(u.health.value)] = 1.0
    i += 4
    row[i + EXPS.index(u.experience)] = 1.0
    i += 3
    row[i + WEAPONS.index(u.weapon)] = 1.0
    i += 5
    row[i] = float(u.activated)
    row[i + 1] = float(u.moved > 0)
    row[i + 2] = float(u.charged)
    row[i + 3] = float(u.fired)
    row[i + 4] = float(u.is_screen)
    row[i + 5] = float("rebel_yell" in u.traits)
    del allowance


def observation(game, state, side: int) -> np.ndarray:
    """float32 vector of shape ``(game.observation_size,)`` for ``side`` (0 or 1)."""
    lay = game.layout
    v = lay.zeros()
    m = game.max_units_per_side
    W, D = game.terrain.width, game.terrain.depth
    own = lay.view(v, "own_units")
    en = lay.view(v, "enemy_units")
    for s, block in ((side, own), (1 - side, en)):
        for u in state.units[s]:
            if u is not None and u.alive:
                _unit_row(u, side, W, D, block[u.slot], 0.0)
    res = lay.view(v, "resources")
    res[0] = state.pips[side] / 6.0
    res[1] = state.reserved[side] / 2.0
    res[2] = state.reserved[1 - side] / 2.0
    lay.view(v, "phase")[state.phase - 1] = 1.0
    lay.view(v, "turn")[0] = min(state.turn, game.turns) / game.turns
    lay.view(v, "active")[0] = float(state.active == side)
    lay.view(v, "decision")[DECISION_TYPES.index(state.decision_type().value)] = 1.0
    asked, trig, kind = _context(state)
    if asked is not None:
        lay.view(v, "ctx_unit")[(0 if asked[0] == side else m) + asked[1]] = 1.0
    if trig is not None:
        lay.view(v, "ctx_trigger")[(0 if trig[0] == side else m) + trig[1]] = 1.0
    if asked is not None and trig is not None:
        a = state.units[asked[0]][asked[1]]
        t = state.units[trig[0]][trig[1]]
        if a is not None and t is not None and a.alive and t.alive:
            lay.view(v, "ctx_distance")[0] = footprint_distance(a.fp, t.fp) / 12.0
            lay.view(v, "ctx_zone")[ZONES.index(zone_of(a.fp, t.fp.centre()))] = 1.0
    if kind is not None:
        lay.view(v, "ctx_kind")[CTX_KINDS.index(kind)] = 1.0
    return v


def observation_string(game, state, side: int) -> str:
    """Human-readable twin of :func:`observation` (everything is public in this ruleset)."""
    lines = [f"turn {state.turn}/{game.turns} phase {state.phase} active "
             f"{game.side_names[state.active]} decision {state.decision_type().value} "
             f"(seen by {game.side_names[side]})",
             f"pips {state.pips}, reserved {state.reserved}"]
    for s in (side, 1 - side):
        for u in state.units[s]:
            if u is None or not u.alive:
                continue
            flags = [f for f, on in (("Disordered", u.disordered), ("Smoke", u.smoke >= 0),
                                     ("engaged", bool(u.engaged)), ("activated", u.activated))
                     if on]
            if u.refused:
                flags.append(f"refused {u.refused} x{u.refused_n}")
            lines.append(f"{'own' if s == side else 'enemy'} {u.label()}: {u.kind} "
                         f"{u.formation} {u.stands}/{u.s0} stands {u.health.value} hits {u.hits} "
                         f"at ({u.fp.x:.1f}, {u.fp.y:.1f}) facing "
                         f"{math.degrees(u.fp.heading):.0f}° {' '.join(flags)}")
    asked, trig, kind = _context(state)
    if kind:
        lines.append(f"context: {kind} asked={asked} trigger={trig}")
    return "\n".join(lines)
