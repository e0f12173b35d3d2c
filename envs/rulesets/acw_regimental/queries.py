"""Read-only questions about an ACW state (no state is changed): movement allowance (ACW-PD-19,
PD-31), line of sight (ACW-PD-17), firing stands and arcs (ACW-PD-16, PD-6, PD-33), contact
zones and enfilade (ACW-PD-18, PD-23, RULE-04-5.4), who may fire in Phase 3 and at whom
(ACW-PD-22, PD-25), the Rally Check threat (ACW-PD-15), victory points (ACW-PD-36) and one side
of an Opposed Melee Roll (ACW-PD-26). Each takes the state first."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from envs.core.geometry import Footprint, distance_exceeds, footprint_distance, polygon_contains
from envs.core.geometry import point_segment_distance as psd

from . import combat, tables
from .arcs import zone_of
from .movement import circ, footprint_points, partly_in_arc, points_in_arc, segment_hits_footprint
from .tables import Cover, Health, Refusal
from .units import (EXPERIENCE_BY_VALUE, FORMATION_BY_VALUE, UNIT_KIND_BY_VALUE, WEAPON_BY_VALUE,
                    Unit, footprint_size)

if TYPE_CHECKING:
    from .state import ACWState

__all__ = ["allowance", "can_fire_p3", "contact_zone", "enfilade", "fire_targets",
           "firing_stands", "los", "melee_best", "melee_side", "objective_vp", "rally_threat",
           "victory_points"]

_ALW_MEMO: dict[tuple, float] = {}  # allowance by (kind, formation, screen, road, disordered)


def allowance(state: ACWState, unit: Unit, road: bool = False) -> float:
    """Movement allowance in inches now (ACW-PD-19, PD-31)."""
    # memo (exact): the allowance is a pure function of these fields and the static
    # ACW-PD-19 table; an invalid pair is not stored, so it raises every time
    key = (unit.kind, unit.formation, unit.is_screen, road, unit.disordered)
    value = _ALW_MEMO.get(key)
    if value is None:
        value = _ALW_MEMO[key] = _allowance_uncached(state, unit, road)
    return value


def _allowance_uncached(state: ACWState, unit: Unit, road: bool) -> float:
    if unit.is_screen:
        return tables.movement_allowance(UNIT_KIND_BY_VALUE[unit.kind], tables.Formation.SKIRMISH,
                                    skirmish=unit.kind == "infantry",
                                    cavalry_screen=unit.kind == "cavalry",
                                    disordered=unit.disordered)
    form = unit.formation
    if unit.kind == "cavalry" and form == "line":
        form = "mounted_line"
    return tables.movement_allowance(UNIT_KIND_BY_VALUE[unit.kind], FORMATION_BY_VALUE[form],
                                     on_road=road, disordered=unit.disordered)


def los(state: ACWState, first: Footprint, second: Footprint, skip: tuple = ()) -> bool:
    """Line of sight between two footprints' centres (ACW-PD-17): terrain, and any other
    formed unit's footprint in between (``skip``: units not to count, e.g. a mover at its
    old position)."""
    ca, cb = first.centre(), second.centre()
    if state.game.terrain.blocks_los(ca, cb):
        return False
    # the sight line for point_segment_distance, inlined below (same float operations)
    ax, ay = ca
    vx = cb[0] - ax
    vy = cb[1] - ay
    vv = vx * vx + vy * vy
    for side in state.units:
        for u in side:
            if u is None or not u.alive or u.is_screen or u in skip:
                continue
            ufp = u.fp
            if ufp is first or ufp is second:
                continue
            # exact shortcut: sight line clear of its circle, psd((ux, uy), ca, cb) > ur
            ux, uy, ur = circ(ufp)
            wx = ux - ax
            wy = uy - ay
            if vv > 0.0:
                t = (wx * vx + wy * vy) / vv
                if t > 0.0:
                    if t >= 1.0:
                        wx = ux - cb[0]
                        wy = uy - cb[1]
                    else:
                        wx -= t * vx
                        wy -= t * vy
            if math.sqrt(wx * wx + wy * wy) > ur + 1e-6:
                continue
            if segment_hits_footprint(ca, cb, ufp):
                return False
    return True


def firing_stands(state: ACWState, unit: Unit, target: Footprint, limit: int = 1 << 30) -> int:
    """Stands of ``unit`` with some part of ``target`` in their own forward arc (ACW-PD-16,
    PD-6); refused stands use their rotated arcs (ACW-PD-33). The count stops at
    ``limit`` (``limit=1``: whether any stand can fire)."""
    if unit.is_screen:
        return 1 if (unit.kind == "infantry" and partly_in_arc(unit.fp, target)) else 0
    if unit.kind == "cavalry" or unit.formation not in ("line", "assault_column", "unlimbered"):
        return 0
    fp = unit.fp
    sw, sd = footprint_size(unit.kind, "line", 1)
    front_stands = unit.stands if unit.formation != "assault_column" else min(2, unit.stands)
    W = sw * front_stands
    h = fp.heading
    c = math.cos(h)
    s = math.sin(h)
    rx, ry = s, -c  # fp.right()
    x0 = fp.x
    y0 = fp.y
    hsw = 0.5 * sw
    # the target's sample points once for all stands (partly_in_arc = points_in_arc on
    # footprint_points, the same float operations)
    pts = footprint_points(target)
    ref = unit.refused if unit.formation == "line" else ""
    refused = unit.refused_n
    count = 0
    for index in range(front_stands):
        lx = -W / 2 + (index + 0.5) * sw
        sx = x0 + rx * lx
        sy = y0 + ry * lx
        if ref == "right" and index >= front_stands - refused:
            px = W / 2 - refused * sw
            sfp = Footprint(sx, sy, h, sw, sd).rotated_about((x0 + rx * px, y0 + ry * px),
                                                           -tables.REFUSE_ANGLE)
        elif ref == "left" and index < refused:
            px = -W / 2 + refused * sw
            sfp = Footprint(sx, sy, h, sw, sd).rotated_about((x0 + rx * px, y0 + ry * px),
                                                           tables.REFUSE_ANGLE)
        else:
            # an unrotated stand: its footprint has fp's heading, so the same cos/sin
            if points_in_arc(sx, sy, c, s, hsw, pts):
                count += 1
                if count >= limit:
                    break
            continue
        sh = sfp.heading
        if points_in_arc(sfp.x, sfp.y, math.cos(sh), math.sin(sh), hsw, pts):
            count += 1
            if count >= limit:
                break
    return count


def contact_zone(state: ACWState, charger: Unit, target: Unit) -> str:
    """Zone of ``target`` holding the charger's centre; a refused flank counts as front
    (ACW-PD-23 step 2, RULE-04-5.4)."""
    zone = zone_of(target.fp, charger.fp.centre())
    if zone in ("left", "right") and target.refused == zone:
        return "front"
    return zone


def enfilade(state: ACWState, firer: Unit, target: Unit) -> bool:
    """Fire from the target's flank or rear zone, not a refused flank (ACW-PD-18,
    RULE-04-5.4)."""
    zone = zone_of(target.fp, firer.fp.centre())
    if zone == "front":
        return False
    if zone in ("left", "right") and target.refused == zone:
        return False
    return True


def victory_points(state: ACWState) -> list[int]:
    """VP per side (ACW-PD-36): 1 per enemy stand lost, +2 per enemy unit Broken, and the
    objectives: the scenario's ``objective_vp`` (3 by default) per objective held (good
    order within 3", no enemy in good order within 3") at the end, or, with scoring
    ``each_turn``, the VP banked at the end of every game turn."""
    points = [0, 0]
    for side in (0, 1):
        for unit in state.units[side]:
            if unit is None or unit.is_screen:
                continue
            points[1 - side] += tables.VP_STAND * min(unit.lost, unit.starting_stands)
            if unit.broken:
                points[1 - side] += tables.VP_BROKEN
    obj = (state.objective_vp_banked if state.game.objectives_score != "end"
           else objective_vp(state))
    return [points[0] + obj[0], points[1] + obj[1]]


def objective_vp(state: ACWState) -> list[int]:
    """VP of the objectives each side holds now (ACW-PD-36)."""
    points = [0, 0]
    for objective in state.game.objectives:
        near = [False, False]
        for side in (0, 1):
            for unit in state.units[side]:
                if unit is None or not unit.alive or unit.is_screen:
                    continue
                # exact shortcut: the objective point is outside the footprint's bounding
                # circle by more than the radius (+1e-6" for rounding), so neither test
                # below can pass (tested before the unit's order, a pure test)
                cx, cy, r = circ(unit.fp)
                dx = objective[0] - cx
                dy = objective[1] - cy
                if math.sqrt(dx * dx + dy * dy) - r > tables.OBJECTIVE_RADIUS + 1e-6 or \
                        not unit.good_order:
                    continue
                fl, fr, rr, rl = unit.fp.corners()
                d = min(psd(objective, fl, fr), psd(objective, fr, rr), psd(objective, rr, rl),
                        psd(objective, rl, fl))
                if d <= tables.OBJECTIVE_RADIUS or polygon_contains([fl, fr, rr, rl], objective):
                    near[side] = True
                    break  # one unit is enough
        for side in (0, 1):
            if near[side] and not near[1 - side]:
                points[side] += state.game.objective_vp
    return points


def rally_threat(state: ACWState, unit: Unit) -> bool:
    """A good-order formed enemy within 6" with ``unit`` partly in its forward arc
    (ACW-PD-15 Rally Check modifier)."""
    ufp = unit.fp
    for enemy in state.alive(1 - unit.side):
        if not enemy.good_order or enemy.is_screen:
            continue
        efp = enemy.fp
        if distance_exceeds(efp, ufp, 6.0):
            continue
        if partly_in_arc(efp, ufp):
            return True
    return False


def can_fire_p3(state: ACWState, unit: Unit) -> Refusal | None:
    """Why ``unit`` may not fire in its Phase 3, or None (ACW-PD-25b, PD-22, RULE-04-3.4)."""
    if unit.engaged:
        return ("ACW-PD-25b",), "the unit is engaged"
    if unit.smoke >= 0:
        return ("RULE-04-3.4", "ACW-PD-32", "ACW-PD-25b"),\
            "the unit has a Smoke Marker (counts as fired) and did not move out of it"
    if unit.charged:
        return ("ACW-PD-22",), "a unit that charged may not fire"
    if unit.kind == "cavalry":
        return ("ACW-PD-25b",), "mounted cavalry does not fire in v1"
    if unit.road_used or unit.formation in ("road_column", "limbered"):
        return ("ACW-PD-22",), "in Road Column (or limbered) this phase"
    if unit.kind == "artillery":
        if unit.limbered_now or not unit.pivot_only:
            return ("ACW-PD-22",), "a battery that did more than pivot may not fire"
    elif unit.moved > 0.5 * allowance(state, unit) + 1e-9:
        return ("ACW-PD-22",), "moved more than half its allowance"
    return None


def fire_targets(state: ACWState, unit: Unit) -> list[Unit]:
    """Enemy units ``unit`` may fire at: not engaged, in range of its weapon, in the arc of
    at least one firing stand and in sight (ACW-PD-25, ACW-PD-16, ACW-PD-17)."""
    out = []
    weapon = WEAPON_BY_VALUE[unit.weapon]
    ufp = unit.fp
    # exact shortcut: beyond the longest band even by bounding circles -> no band
    ux, uy, ur = circ(ufp)
    mr = tables.max_range(weapon)
    reach = mr + tables.BAND_EPS + 1e-6 + ur
    for enemy in state.alive(1 - unit.side):
        if enemy.engaged:
            continue
        efp = enemy.fp
        ex, ey, er = circ(efp)
        # (products rather than ** 2: the bounds below carry >= 1e-6" of slack, so a last
        # bit of rounding in cd cannot change what they decide)
        ex -= ux
        ey -= uy
        cd = math.sqrt(ex * ex + ey * ey)
        if cd - er > reach:
            continue
        # exact shortcut the other way: each centre lies in its footprint, so the
        # closest-point distance is at most the centre distance; centres within the
        # longest band's edge are in range (BAND_EPS covers rounding many times over)
        if cd > mr and tables.range_band(weapon, footprint_distance(ufp, efp)) is None:
            continue
        if firing_stands(state, unit, efp, 1) == 0:
            continue
        if not los(state, ufp, efp):
            continue
        out.append(enemy)
    return out


def melee_best(units: list[Unit]) -> Unit:
    """The unit whose modifiers a side of several friends uses (ACW-PD-26): Veteran first,
    then not Disordered, fewest stands lost, most stands; the first listed on a tie."""
    return max(units, key=lambda unit: (unit.experience == "veteran", -int(unit.disordered),
                                        -unit.lost, unit.stands))


def melee_side(state: ACWState, units: list[Unit], enemies: list[Unit],
               is_def: bool) -> combat.MeleeSide:
    """One side of the Opposed Melee Roll (ACW-PD-26). Several friends against one enemy
    fight as one side: the best unit's own modifiers (experience, health, Disorder, traits,
    :func:`melee_best`), the side's situation (charged with momentum kept by any charger,
    downhill, flank or rear contact by any of them), the stands of all of them, and +1
    support (at most +1)."""
    best = melee_best(units)
    stands = sum(unit.stands for unit in units)
    terr = state.game.terrain
    charged = any(unit.charged and not is_def for unit in units)
    counter_charged = any(unit.counter_charged for unit in units)
    flank = (not is_def) and any(unit.zone in ("left", "right", "rear") for unit in units)
    mom_lost = all(unit.momentum_lost for unit in units if unit.charged) if charged else False
    favourable = False
    if is_def and not counter_charged:
        first_enemy = enemies[0]
        favourable = (terr.on_crest(best.fp.centre())
                      and not terr.on_crest(first_enemy.fp.centre()))\
            or terr.behind_obstacle(best.fp, first_enemy.fp.centre())\
            or terr.cover(best.fp, first_enemy.fp.centre()) is Cover.HEAVY
    enemy_inf_cover = any(e.kind == "infantry" and (
        terr.cover(e.fp, best.fp.centre()) is not Cover.NONE or
        terr.behind_obstacle(e.fp, best.fp.centre())) for e in enemies)
    shock = best.kind == "cavalry" and (charged or counter_charged) and not enemy_inf_cover
    health = best.health
    if health is Health.BROKEN:
        health = Health.SPENT
    return combat.MeleeSide(
        experience=EXPERIENCE_BY_VALUE[best.experience], health=health, disordered=best.disordered,
        stands=stands, is_artillery=any(unit.kind == "artillery" for unit in units),
        charged=charged, momentum_lost=mom_lost,
        downhill=charged and any(unit.downhill and not unit.momentum_lost for unit in units),
        defends_favourable=favourable, flank_or_rear=flank,
        rebel_yell="rebel_yell" in best.traits and (charged or counter_charged),
        cavalry_shock=shock, support=len(units) > 1)
