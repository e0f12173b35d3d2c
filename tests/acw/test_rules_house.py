"""Rule-by-rule tests of the ACW house rules (ACW-PD-n of ``acw_fillins.md`` Part 2) and the
I-n resolutions, plus the meta-test that every seed rule id is named by some test.

House rules left out on purpose (pure background, nothing to check in the engine):
* ACW-PD-1 (ground and time scale: 1" = 25 yd, 10-15 minute turns) - no mechanic;
* ACW-PD-38 (features left out of v1; the engine and RL notes) - nothing to play.
ACW-PD-2/3/4/5/6 (stand sizes, table, unit types, weapons, formations) are checked through
their effects (footprints, pools, firing stands, save modifiers) below and in test_rules.py.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from envs.core.geometry import distance_to_front_edge, overlaps
from envs.rulesets import load_game
from envs.rulesets.acw_regimental.observer import decision_units
from envs.rulesets.acw_regimental.probes import melee_terms
from envs.rulesets.acw_regimental.reactions import can_refuse

from .test_rules import (
    RY,
    by_name,
    charge_state,
    dice,
    events,
    legal,
    new_state,
    p2,
    play,
    reb_line,
    roll_while_chance,
    union_line,
    unit,
    why,
)
from envs.rulesets.acw_regimental import queries


def to_decision(s, kind: str, limit: int = 30):
    """Take the last legal option (end/decline/hold/reserve) until a ``kind`` decision."""
    for _ in range(limit):
        if s.decision_type() == kind:
            return s
        if s.is_chance_node():
            play(s, ["d6=4"])
            continue
        lg = legal(s)
        pick = "reserve:0" if "reserve:0" in lg else ("end_phase" if "end_phase" in lg
                                                     else lg[-1])
        play(s, [pick])
    raise AssertionError(f"no {kind} decision reached: {legal(s)}")


# -- PD-2/4/6: footprints, pools ----------------------------------------------------------------
@pytest.mark.rule("ACW-PD-2", "ACW-PD-4", "ACW-PD-6")
def test_footprints_from_stands_and_formation(tmp_path):
    """ACW-PD-2/6: a 5-stand Line is 5" x 0.75"; an Assault Column 2" x 2.25" (2-2-1); a Road
    Column 1" x 3.75"; a 2-section battery 2" x 1.5"; a 4-stand cavalry line 4" x 1"."""
    units = [unit(0, "L", 10, 5, 90), unit(0, "AC", 20, 5, 90, formation="assault_column"),
             unit(0, "RC", 30, 5, 90, formation="road_column"),
             unit(0, "Bat", 40, 5, 90, kind="artillery", formation="unlimbered", stands=2),
             unit(1, "Cav", 24, 30, 270, kind="cavalry", formation="mounted_line", stands=4)]
    s = new_state(tmp_path, units, p2(0))
    sizes = [(u.fp.width, u.fp.depth) for u in s.units[0][:4]]
    assert sizes == [(5.0, 0.75), (2.0, 2.25), (1.0, 3.75), (2.0, 1.5)]
    assert (s.units[1][0].fp.width, s.units[1][0].fp.depth) == (4.0, 1.0)


@pytest.mark.rule("ACW-PD-6", "ACW-PD-25")
def test_assault_column_fires_front_rank_only(tmp_path):
    """ACW-PD-6: an Assault Column fires with its front rank (2 stands = 2D6)."""
    units = [unit(0, "AC", 24, 10, 90, formation="assault_column"), reb_line(y=15.0)]
    s = new_state(tmp_path, units, p2(0))
    play(s, ["end_phase", "fire:e0"])
    assert events(s, "fire")[0].data["dice"] == 2


# -- PD-7 / PD-8: experience and traits in melee -------------------------------------------------
def _melee(tmp_path, attacker, defender, rolls=(3, 3), reserved=(0, 0), b1=None, name="m.toml"):
    s, m, _ = _melee_with_terms(tmp_path, attacker, defender, rolls, reserved, b1, name)
    return s, m


def _melee_with_terms(tmp_path, attacker, defender, rolls=(3, 3), reserved=(0, 0), b1=None,
                      name="m.toml"):
    """The state after the melee, its melee event and both sides' modifier terms
    (``probes.melee_terms``: ``({term: value} attacking, {term: value} defending)``)."""
    s = new_state(tmp_path, [attacker, defender], p2(0, 3, reserved), name=name)
    play(s, ["activate:u0", "charge:e0"])
    if b1:
        play(s, [b1])
    while not s.is_chance_node():
        play(s, ["react:decline"])
    terms = melee_terms(s)
    play(s, dice(*rolls))
    return s, events(s, "melee")[0], terms


@pytest.mark.rule("ACW-PD-7", "ACW-PD-26")
@pytest.mark.parametrize("exp,mod", [("veteran", 1), ("regular", 0), ("green", -1)])
def test_experience_melee_modifier(tmp_path, exp, mod):
    """ACW-PD-7: Veteran +1, Regular 0, Green -1 in the Opposed Melee Roll (the attacker also
    has +1 Charging Momentum)."""
    _, m = _melee(tmp_path, union_line(experience=exp), reb_line())
    assert m.data["totals"] == [3 + 1 + mod, 3]


@pytest.mark.rule("ACW-PD-8", "ACW-PD-26")
def test_rebel_yell_on_an_ordinary_charge(tmp_path):
    """ACW-PD-8: a Rebel Yell regiment that charged adds +1 (with its Charging Momentum)."""
    units = [unit(1, "RY", 24, 18, 270, traits=RY), unit(0, "Union", 24, 10, 90)]
    s = new_state(tmp_path, units, p2(1))
    play(s, ["activate:u0", "charge:e0", "react:decline"])
    attacking, _ = melee_terms(s)
    play(s, dice(3, 3))
    m = events(s, "melee")[0]
    assert attacking["rebel yell"] == 1 and m.data["totals"] == [3 + 2, 3]


@pytest.mark.rule("ACW-PD-8", "ACW-PD-26")
def test_cavalry_shock_not_against_infantry_behind_a_fence(tmp_path):
    """ACW-PD-8: Cavalry Shock +1 on a charge in the open; none against infantry behind a fence
    (who also get +1 for defending an obstacle, ACW-PD-26)."""
    cav = unit(0, "Cav", 24, 10, 90, kind="cavalry", formation="mounted_line", stands=5)
    _, m, (attacking, _) = _melee_with_terms(tmp_path, cav, reb_line())
    assert attacking["cavalry shock"] == 1
    fence = {"fences": [{"points": [[18.0, 17.5], [30.0, 17.5]]}]}
    s = new_state(tmp_path, [cav, reb_line()], p2(0), fence, name="f.toml")
    play(s, ["activate:u0", "charge:e0"])
    while not s.is_chance_node():
        play(s, ["react:decline"])
    attacking2, defending2 = melee_terms(s)
    play(s, dice(3, 3))
    assert "cavalry shock" not in attacking2 and "cavalry shock" not in defending2
    assert defending2["defending favourable ground"] == 1


# -- PD-9 / PD-10: health, good order ------------------------------------------------------------
@pytest.mark.rule("ACW-PD-9", "ACW-PD-10", "I-22")
def test_spent_unit_is_not_in_good_order_and_cannot_charge_or_refuse(tmp_path):
    """ACW-PD-9: a 5-stand regiment with 3 lost is Spent; Spent is not good order (PD-10), so it
    may not declare a charge and may not Refuse the Flank."""
    s = new_state(tmp_path, [union_line(stands=2), reb_line()], p2(0))
    u = s.units[0][0]
    u.starting_stands, u.lost = 5, 3
    assert u.health.value == "spent" and not u.good_order
    play(s, ["activate:u0"])
    assert "charge:e0" not in legal(s)
    w = why(s, "charge:e0")
    assert w is not None and ("ACW-PD-23" in w.rules or "ACW-PD-9" in w.rules)
    r = can_refuse(u)
    assert r is not None and "ACW-PD-33" in r[0]  # "not in good order"


@pytest.mark.rule("ACW-PD-9", "ACW-PD-27")
def test_worn_after_losing_two_of_five_and_morale_minus_one(tmp_path):
    """ACW-PD-9: losing 2 of 5 stands makes a regiment Worn; its End-phase Morale Test has -1
    (Regular needs 5+, ACW-PD-27)."""
    s = charge_state(tmp_path, defender=reb_line(weapon="smoothbore"))
    play(s, ["react:closing_volley", *dice(3, 3, 3, 3, 1), "d6=1"])  # 4 hits, check fails
    att = s.units[0][0]
    assert att.stands == 3 and att.health.value == "worn"
    play(s, ["d6=4"])  # morale 4 - 1 = 3 < 4: fails
    mo = events(s, "morale")[0]
    assert mo.data["modifier"] == -1 and mo.data["passed"] is False


# -- PD-11 / PD-12: sides and phases ------------------------------------------------------------
@pytest.mark.rule("ACW-PD-11", "ACW-PD-12")
def test_first_side_and_the_five_phase_player_turn(tmp_path):
    """ACW-PD-11: the scenario's first side moves first; ACW-PD-12: its player-turn runs Phases
    1-5, then the other side's Phase 1."""
    s = new_state(tmp_path, [union_line(), reb_line(y=30.0)], None, first_side=1)
    assert s.active == 1
    play(s, ["reserve:0"])
    to_decision(s, "command")
    ph = [(e.data["phase"], e.side) for e in events(s, "phase")]
    assert ph[:6] == [(1, 1), (2, 1), (3, 1), (4, 1), (5, 1), (1, 0)]


# -- PD-13 / PD-14: pips ------------------------------------------------------------------------
@pytest.mark.rule("ACW-PD-13")
@pytest.mark.parametrize("roll,pips", [(1, 2), (3, 3), (5, 4), (6, 4)])
def test_staff_pips_one_plus_half_a_die(tmp_path, roll, pips):
    """ACW-PD-13: 1 + ceil(1D6/2) Staff Pips (2-4) when pips are not fixed."""
    s = new_state(tmp_path, [union_line(), reb_line(y=30.0)], None,
                  params={"pips_fixed": False})
    assert s.is_chance_node()
    play(s, [f"d6={roll}"])
    assert s.pips[0] == pips and events(s, "pips")[0].data["pips"] == pips


@pytest.mark.rule("ACW-PD-14", "RULE-04-1.3")
def test_reserve_at_most_two_and_discarded_at_own_next_phase1(tmp_path):
    """ACW-PD-14: at most 2 pips reserved; unused reserved pips are discarded at the start of
    the owner's next Phase 1; a charge declaration costs 1 pip."""
    s = new_state(tmp_path, [union_line(), reb_line(y=30.0)], None)
    assert legal(s) == ["reserve:0", "reserve:1", "reserve:2"]
    play(s, ["reserve:2"])
    assert s.reserved[0] == 2 and s.pips[0] == 1
    to_decision(s, "command")  # Confederate Phase 1
    assert s.active == 1 and s.reserved[0] == 2  # usable in the enemy's turn
    play(s, ["reserve:0"])
    to_decision(s, "command")  # Union Phase 1 again
    assert s.active == 0 and s.reserved[0] == 0
    assert events(s, "reserve_discard")


@pytest.mark.rule("ACW-PD-14", "ACW-PD-23")
def test_charge_costs_a_pip_and_none_left_means_no_charge(tmp_path):
    """ACW-PD-14/23: declaring a charge spends 1 Staff Pip; with 0 pips it is masked."""
    s = new_state(tmp_path, [union_line(), reb_line()], p2(0, 0))
    play(s, ["activate:u0"])
    assert "charge:e0" not in legal(s)
    w = why(s, "charge:e0")
    assert w is not None and ("ACW-PD-23" in w.rules or "ACW-PD-14" in w.rules)
    s2 = charge_state(tmp_path)
    assert s2.pips[0] == 2


# -- PD-15: rally -------------------------------------------------------------------------------
@pytest.mark.rule("ACW-PD-15")
def test_rally_pay_a_pip_or_roll(tmp_path):
    """ACW-PD-15: a Disordered unit in Phase 1 pays 1 pip (Disorder removed) or rolls against
    its Discipline (-1 with a threatening enemy in good order within 6" in its arc)."""
    s = new_state(tmp_path, [union_line(disordered=True), reb_line(y=30.0)], None)
    assert legal(s) == ["rally:pay_pip", "rally:roll"]
    play(s, ["rally:pay_pip"])
    assert not s.units[0][0].disordered and s.pips[0] == 2
    s2 = new_state(tmp_path, [union_line(disordered=True), reb_line(y=15.0)], None,
                   name="r2.toml")
    play(s2, ["rally:roll", "d6=4"])
    r = events(s2, "rally")[0]
    assert r.data["modifier"] == -1 and r.data["passed"] is False
    assert s2.units[0][0].disordered


# -- PD-16 / PD-18: zones, enfilade --------------------------------------------------------------
@pytest.mark.rule("ACW-PD-16", "ACW-PD-18", "I-9")
def test_zones_decide_contact_and_enfilade(tmp_path):
    """ACW-PD-16 / I-9: a charger straight ahead contacts the front; from beside the line, the
    flank (zone by the charger's centre); ACW-PD-18: fire from a flank zone is enfilade."""
    s = new_state(tmp_path, [union_line(), reb_line(),
                             unit(0, "Side", 14, 18.4, 0.0)], p2(0))
    front, side, reb = s.units[0][0], s.units[0][1], s.units[1][0]
    assert queries.contact_zone(s, front, reb) == "front" and not queries.enfilade(s, front, reb)
    assert queries.contact_zone(s, side, reb) == "right" and queries.enfilade(s, side, reb)


# -- PD-17: LOS ---------------------------------------------------------------------------------
@pytest.mark.rule("ACW-PD-17")
def test_woods_and_units_block_line_of_sight(tmp_path):
    """ACW-PD-17: woods between the lines block LOS (no charge, no fire target); so does
    another unit's footprint."""
    woods = {"woods": [{"rect": [20.0, 13.0, 28.0, 15.0]}]}
    s = new_state(tmp_path, [union_line(), reb_line()], p2(0), woods)
    play(s, ["activate:u0"])
    assert "charge:e0" not in legal(s) and "ACW-PD-17" in why(s, "charge:e0").rules
    s2 = new_state(tmp_path, [union_line(), unit(0, "Mid", 24, 13, 90), reb_line()], p2(0),
                   name="b.toml")
    assert not queries.los(s2, s2.units[0][0].fp, s2.units[1][0].fp)


@pytest.mark.rule("ACW-PD-17")
@pytest.mark.parametrize("depth,visible", [(1.0, True), (4.0, False)])
def test_two_inches_inside_woods_sees_out(tmp_path, depth, visible):
    """ACW-PD-17: a line whose front edge is 1" inside a wood sees (and can fire at) an enemy
    in the open; 4" deep inside it neither sees nor is seen."""
    woods = {"woods": [{"rect": [18.0, 16.0, 30.0, 30.0]}]}
    s = new_state(tmp_path, [union_line(), reb_line(y=16.0 + depth)], p2(0), woods)
    u, r = s.units[0][0], s.units[1][0]
    assert queries.los(s, u.fp, r.fp) is visible and queries.los(s, r.fp, u.fp) is visible
    play(s, ["end_phase"])
    assert (s.decision_type() == "fire" and "fire:e0" in legal(s)) is visible


# -- PD-19 / PD-20 / PD-21: movement -------------------------------------------------------------
FAR_REB = unit(1, "Far", 4, 35, 270, stands=3)


def _advance_all(tmp_path, u, terrain=None, prim="advance:all", name="mv.toml"):
    s = new_state(tmp_path, [u, FAR_REB], p2(0), terrain, name=name)
    play(s, ["activate:u0", prim])
    return s, s.units[0][0]


@pytest.mark.rule("ACW-PD-19", "ACW-PD-31")
@pytest.mark.parametrize("kw,dist", [
    (dict(), 6.0),
    (dict(formation="assault_column"), 8.0),
    (dict(formation="road_column"), 10.0),
    (dict(kind="cavalry", formation="mounted_line", stands=4), 12.0),
    (dict(kind="artillery", formation="limbered", stands=2), 8.0),
    (dict(disordered=True), 3.0),
    (dict(formation="assault_column", disordered=True), 4.0),
])
def test_movement_allowances(tmp_path, kw, dist):
    """ACW-PD-19: Line 6", Assault Column 8", Road Column 10", cavalry 12", limbered guns 8";
    a Disordered unit moves at half rate (ACW-PD-31)."""
    s, u = _advance_all(tmp_path, unit(0, "U", 24, 4, 90, **kw))
    assert u.fp.y == pytest.approx(4.0 + dist, abs=0.01)


@pytest.mark.rule("ACW-PD-19", "ACW-PD-20")
def test_road_column_on_a_road_moves_14(tmp_path):
    """ACW-PD-19: a Road Column whose entire move is on a road moves 14"."""
    road = {"roads": [{"points": [[24.0, 0.0], [24.0, 36.0]]}]}
    s, u = _advance_all(tmp_path, unit(0, "U", 24, 4, 90, formation="road_column"), road)
    assert u.fp.y == pytest.approx(18.0, abs=0.01)


@pytest.mark.rule("ACW-PD-19")
def test_road_rate_only_for_a_move_entirely_on_the_road(tmp_path):
    """ACW-PD-19: a Road Column whose road ends 4" ahead does not get the 14" road rate: its
    move leaves the road, so it moves the normal 10"; and after 14/3" on the road, a pivot off
    it (1") leaves 10 - 14/3 - 1 = 4.33" for the rest of the activation."""
    short = {"roads": [{"points": [[24.0, 0.0], [24.0, 8.0]]}]}
    _, u = _advance_all(tmp_path, unit(0, "U", 24, 4, 90, formation="road_column"), short)
    assert u.fp.y == pytest.approx(14.0, abs=0.01)
    long = {"roads": [{"points": [[24.0, 0.0], [24.0, 30.0]]}]}
    s, u2 = _advance_all(tmp_path, unit(0, "U", 24, 4, 90, formation="road_column"), long,
                         prim="advance:third", name="l.toml")
    assert u2.fp.y == pytest.approx(4.0 + 14.0 / 3, abs=0.01)
    play(s, ["wheel:left"])
    x0, y0 = u2.fp.x, u2.fp.y
    play(s, ["advance:all"])
    moved = ((u2.fp.x - x0) ** 2 + (u2.fp.y - y0) ** 2) ** 0.5
    assert moved == pytest.approx(10.0 - 14.0 / 3 - 1.0, abs=0.02)


@pytest.mark.rule("ACW-PD-20")
def test_woods_half_rate_and_fence_costs_3(tmp_path):
    """ACW-PD-20: a formed unit in woods moves at half rate (Line: 3" in 6" of allowance); a
    fence crossing costs 3" (the Line gets 3" of its 6")."""
    woods = {"woods": [{"rect": [10.0, 0.0, 38.0, 20.0]}]}
    _, u = _advance_all(tmp_path, unit(0, "U", 24, 4, 90), woods)
    assert u.fp.y == pytest.approx(7.0, abs=0.01)
    fence = {"fences": [{"points": [[10.0, 6.0], [38.0, 6.0]]}]}
    _, u2 = _advance_all(tmp_path, unit(0, "U", 24, 4, 90), fence, name="fe.toml")
    assert u2.fp.y == pytest.approx(7.0, abs=0.05)


@pytest.mark.rule("ACW-PD-21")
def test_retire_sidestep_and_wheel_costs(tmp_path):
    """ACW-PD-21: retire moves half the allowance back at double cost (3"); a side-step is 2"
    at double cost; a 22.5-degree wheel of a 5" Line costs 5 x pi/8 = 1.96"."""
    _, u = _advance_all(tmp_path, unit(0, "U", 24, 8, 90), prim="retire")
    assert u.fp.y == pytest.approx(5.0, abs=0.01) and u.moved == pytest.approx(6.0, abs=0.01)
    _, u2 = _advance_all(tmp_path, unit(0, "U", 24, 8, 90), prim="sidestep:left", name="b.toml")
    assert u2.fp.x == pytest.approx(22.0, abs=0.01) and u2.moved == pytest.approx(4.0, abs=0.01)
    s3, u3 = _advance_all(tmp_path, unit(0, "U", 24, 8, 90), prim="wheel:left_half",
                          name="c.toml")
    assert u3.moved == pytest.approx(1.963, abs=0.01)
    import math
    assert math.degrees(u3.fp.heading) == pytest.approx(112.5, abs=0.01)


@pytest.mark.rule("ACW-PD-21", "ACW-PD-7")
def test_formation_change_costs_half_or_all_for_green(tmp_path):
    """ACW-PD-21.5 / PD-7: a formation change costs half the allowance (whole move for Green):
    a Regular Line into Assault Column may still advance half of 8" = 4"; a Green one may not."""
    s, u = _advance_all(tmp_path, unit(0, "U", 24, 4, 90), prim="formation:assault_column")
    assert u.formation == "assault_column"
    y0 = u.fp.y  # re-formed on its centre: front edge at 3.625 + 1.125
    assert y0 == pytest.approx(4.75, abs=0.01)
    play(s, ["advance:all"])
    assert u.fp.y - y0 == pytest.approx(4.0, abs=0.05)
    s2, u2 = _advance_all(tmp_path, unit(0, "U", 24, 4, 90, experience="green"),
                          prim="formation:assault_column", name="g.toml")
    assert u2.formation == "assault_column" and u2.fp.y == pytest.approx(4.75, abs=0.01)
    # the whole allowance is spent: the activation ended by itself, nothing more to move
    assert s2.decision_type() != "maneuver" or "advance:all" not in legal(s2)


@pytest.mark.rule("ACW-PD-21", "ACW-PD-23")
def test_no_approach_within_2_inches_except_by_charge(tmp_path):
    """ACW-PD-21.7: a unit that is not charging stops 2" from an enemy."""
    s = new_state(tmp_path, [union_line(), reb_line(y=15.0)], p2(0))
    play(s, ["activate:u0", "advance:all"])
    while s.decision_type() == "reaction":
        play(s, ["react:decline"])
    assert distance_to_front_edge(s.units[1][0].fp, s.units[0][0].fp) == pytest.approx(2.0,
                                                                                       abs=0.05)


# -- PD-22 / PD-25 / PD-25b: fire ----------------------------------------------------------------
@pytest.mark.rule("ACW-PD-22", "ACW-PD-25")
def test_moving_then_firing(tmp_path):
    """ACW-PD-22: moving up to half the allowance allows Phase 3 fire at -1 (rifle Short 4+ ->
    5+); moving more than half forbids it (reason cites ACW-PD-22)."""
    s = new_state(tmp_path, [union_line(y=8.0), reb_line(y=16.0)], p2(0))
    s.units[1][0].smoke = 0  # no reaction fire from the target
    play(s, ["activate:u0", "advance:third", "end_activation"])
    to_decision(s, "fire")
    play(s, ["fire:e0"])
    f = events(s, "fire")[0]
    assert f.data["moved"] is True and f.data["needed"] == 5
    s2 = new_state(tmp_path, [union_line(y=4.0), reb_line(y=16.0)], p2(0), name="b.toml")
    s2.units[1][0].smoke = 0
    play(s2, ["activate:u0", "advance:two_thirds"])
    u = s2.units[0][0]
    assert u.moved == pytest.approx(4.0, abs=0.01)
    assert "ACW-PD-22" in queries.can_fire_p3(s2, u)[0]


@pytest.mark.rule("ACW-PD-25", "ACW-PD-31")
@pytest.mark.parametrize("y,band,disorders", [(15.0, "short", True), (19.0, "medium", False)])
def test_phase3_natural_six_disorders_only_at_short(tmp_path, y, band, disorders):
    """ACW-PD-25 step 5: in Phase 3 a natural 6 Disorders the target only at Short range."""
    s = new_state(tmp_path, [union_line(), reb_line(y=y)], p2(0))
    play(s, ["end_phase", "fire:e0", *dice(6, 1, 1, 1, 1)])
    f = events(s, "fire")[0]
    assert f.data["band"] == band
    assert s.units[1][0].disordered is disorders


@pytest.mark.rule("ACW-PD-25")
def test_phase3_six_variant_disorders_at_all_ranges(tmp_path):
    """ACW-PD-25 variant ``phase3_six_disorders_all_ranges``: a Medium-range 6 Disorders."""
    s = new_state(tmp_path, [union_line(), reb_line(y=19.0)], p2(0),
                  params={"phase3_six_disorders_all_ranges": True})
    play(s, ["end_phase", "fire:e0", *dice(6, 1, 1, 1, 1)])
    assert s.units[1][0].disordered


@pytest.mark.rule("ACW-PD-25", "I-8")
@pytest.mark.parametrize("y,band,needed", [(16.0, "short", 3), (19.0, "medium", 6),
                                           (20.0, None, None)])
def test_smoothbore_bands(tmp_path, y, band, needed):
    """ACW-PD-25 / I-8: smoothbore 3+ to 6.0" (inclusive), 6+ to 9", nothing beyond 9"."""
    s = new_state(tmp_path, [union_line(weapon="smoothbore"), reb_line(y=y)], p2(0))
    play(s, ["end_phase"])
    if band is None:  # out of range: no fire decision at all, Phase 3 passes
        assert s.decision_type() != "fire" and not events(s, "fire")
        return
    play(s, ["fire:e0"])
    f = events(s, "fire")[0]
    assert (f.data["band"], f.data["needed"]) == (band, needed)


@pytest.mark.rule("ACW-PD-25b")
@pytest.mark.parametrize("kw", [dict(formation="road_column"),
                                dict(kind="cavalry", formation="mounted_line", stands=4)])
def test_road_columns_and_cavalry_do_not_fire(tmp_path, kw):
    """ACW-PD-25b: a unit in Road Column or mounted cavalry has no Phase 3 fire decision."""
    s = new_state(tmp_path, [union_line(**kw), reb_line(y=15.0)], p2(0))
    play(s, ["end_phase"])
    assert s.decision_type() != "fire" and not events(s, "fire")
    assert "ACW-PD-25b" in queries.can_fire_p3(s, s.units[0][0])[0] or \
        "ACW-PD-22" in queries.can_fire_p3(s, s.units[0][0])[0]


@pytest.mark.rule("ACW-PD-25b", "ACW-PD-14")
def test_hold_fire_keeps_the_unit_free_to_react(tmp_path):
    """ACW-PD-25b: holding fire in Phase 3 leaves no Smoke Marker, so the unit can still make
    reaction fire in the enemy's turn."""
    s = new_state(tmp_path, [union_line(), reb_line(y=15.0)], p2(0))
    play(s, ["end_phase", "hold_fire"])
    assert s.units[0][0].smoke == -1 and events(s, "hold_fire")


# -- PD-23: charges ------------------------------------------------------------------------------
@pytest.mark.rule("ACW-PD-23", "ACW-PD-31")
def test_charge_eligibility(tmp_path):
    """ACW-PD-23: no charge from beyond 9", none by a Disordered unit (ACW-PD-31), none after
    moving; a charge turns the charger flush onto the contacted edge (step 7)."""
    s = new_state(tmp_path, [union_line(), reb_line(y=19.5)], p2(0))
    play(s, ["activate:u0"])
    assert "charge:e0" not in legal(s) and "ACW-PD-23" in why(s, "charge:e0").rules
    s2 = new_state(tmp_path, [union_line(disordered=True), reb_line()], p2(0), name="d.toml")
    play(s2, ["activate:u0"])
    assert "charge:e0" not in legal(s2)
    s3 = new_state(tmp_path, [union_line(y=6.0), reb_line()], p2(0), name="m.toml")
    play(s3, ["activate:u0", "advance:third"])
    assert "charge:e0" not in legal(s3)
    s4 = charge_state(tmp_path)
    play(s4, ["react:decline"])
    a, d = s4.units[0][0], s4.units[1][0]
    assert distance_to_front_edge(d.fp, a.fp) == pytest.approx(0.0, abs=0.01)
    assert a.fp.x == pytest.approx(24.0, abs=0.01)


@pytest.mark.rule("ACW-PD-23", "RULE-04-6.1", "I-21")
def test_charge_path_is_capped_at_9_inches(tmp_path):
    """ACW-PD-23 / RULE-04-6.1: a charge declared at 8.3" (closest points) whose path to the
    flush contact position is 11.34" moves only 9" along it and falls short (as I-21): no
    contact, no melee."""
    s = new_state(tmp_path, [unit(0, "A", 32.5, 10.5, 90), reb_line()], p2(0))
    s.units[1][0].smoke = 0  # no Closing Volley
    play(s, ["activate:u0", "charge:e0"])
    a = s.units[0][0]
    assert events(s, "charge")[0].data["dist"] <= 9.0
    L = ((32.5 - 24.0) ** 2 + (18.0 - 10.5) ** 2) ** 0.5
    assert a.fp.x == pytest.approx(32.5 - 8.5 * 9.0 / L, abs=0.01)
    assert a.fp.y == pytest.approx(10.5 + 7.5 * 9.0 / L, abs=0.01)
    assert events(s, "charge_short") and not events(s, "contact") and not a.engaged


# -- PD-26: melee outcomes -----------------------------------------------------------------------
@pytest.mark.rule("ACW-PD-26", "ACW-PD-28")
@pytest.mark.parametrize("rolls,lost,retreat", [((3, 2), 1, 3.0), ((5, 2), 2, 6.0),
                                                 ((6, 1), 5, None)])
def test_melee_margin_bands(tmp_path, rolls, lost, retreat):
    """ACW-PD-26: margin 1-2: loser loses 1 stand, Disordered, retreats 3"; 3-4: 2 stands, 6";
    5+: Broken and removed (ACW-PD-28). The charger has +1 momentum."""
    s, m = _melee(tmp_path, union_line(), reb_line(), rolls=rolls)
    reb = s.units[1][0]
    if retreat is None:
        assert not reb.alive and events(s, "broken")
        return
    assert reb.stands == 5 - lost and reb.disordered
    assert reb.fp.y == pytest.approx(18.0 + retreat, abs=0.01)


@pytest.mark.rule("ACW-PD-26")
def test_melee_tie_both_hit_and_disordered_charger_recoils(tmp_path):
    """ACW-PD-26 tie: both take 1 hit and are Disordered; the charger recoils 2" back."""
    s, m = _melee(tmp_path, union_line(), reb_line(), rolls=(2, 3))
    a, d = s.units[0][0], s.units[1][0]
    assert m.data["margin"] == 0
    assert a.hits == 1 and d.hits == 1 and a.disordered and d.disordered
    assert a.fp.y == pytest.approx(18.0 - 2.0, abs=0.01) and d.fp.y == pytest.approx(18.0)


@pytest.mark.rule("ACW-PD-26")
def test_battery_losing_a_melee_is_captured(tmp_path):
    """ACW-PD-26: a battery that loses any melee is captured (removed, counts as Broken);
    the battery also fights at -2."""
    bat = unit(1, "Bat", 24, 18, 270, kind="artillery", formation="unlimbered", stands=2,
               weapon="rifle_3in")
    s, m = _melee(tmp_path, union_line(), bat, rolls=(2, 3))
    assert m.data["winner"] == 0 and not s.units[1][0].alive
    assert queries.victory_points(s)[0] >= 2


@pytest.mark.rule("ACW-PD-26")
@pytest.mark.parametrize("choice", ["melee:advance", "melee:hold"])
def test_melee_winner_may_advance_2_inches(tmp_path, choice):
    """ACW-PD-26: a winning charger may advance up to 2" into the ground the loser gave up: a
    maneuver decision of the charger's side (``melee:advance`` / ``melee:hold``)."""
    s, m = _melee(tmp_path, union_line(), reb_line(), rolls=(4, 2))
    assert m.data["winner"] == 0
    assert s.current_player() == 0 and s.decision_type() == "maneuver"
    assert s.legal_labels() == ["melee:advance", "melee:hold"]
    y0 = s.units[0][0].fp.y
    play(s, [choice])
    if choice == "melee:advance":
        adv = events(s, "melee_advance")[0]
        assert "ACW-PD-26" in adv.rules
        assert 0.05 < adv.data["dist"] <= 2.0
        assert s.units[0][0].fp.y == pytest.approx(y0 + adv.data["dist"], abs=0.01)
    else:
        assert events(s, "melee_hold") and s.units[0][0].fp.y == pytest.approx(y0)


def test_losing_charger_gets_no_advance_decision(tmp_path):
    """ACW-PD-26: only a WINNING charger may advance: a charger that lost is not asked."""
    s, m = _melee(tmp_path, union_line(), reb_line(), rolls=(1, 6))
    assert m.data["winner"] == 1
    assert "melee:advance" not in s.legal_labels() if s.current_player() >= 0 else True
    assert not events(s, "melee_advance") and not events(s, "melee_hold")


def _second_charge(tmp_path, units, pips=4):
    """Union u0 charges Confederate e0 (declining every reaction), then u1 is activated."""
    s = new_state(tmp_path, units, p2(0, pips))
    play(s, ["activate:u0", "charge:e0"])
    while s.decision_type() == "reaction":
        play(s, ["react:decline"])
    assert s.units[1][0].engaged == [0]
    play(s, ["activate:u1"])
    return s


def _to_melee(s, *rolls):
    return _to_melee_with_terms(s, *rolls)[0]


def _to_melee_with_terms(s, *rolls):
    """On to the melee roll, play ``rolls``; the melee event and both sides' modifier terms
    (``probes.melee_terms``)."""
    while not s.is_chance_node():
        play(s, ["react:decline"] if s.decision_type() == "reaction" else [legal(s)[-1]])
    terms = melee_terms(s)
    play(s, dice(*rolls))
    return events(s, "melee")[0], terms


@pytest.mark.rule("ACW-PD-26", "ACW-PD-23")
def test_two_attackers_fight_as_one_side_with_support(tmp_path):
    """ACW-PD-26: a second unit may charge an enemy already engaged by a friend; the two fight
    as one side with +1 support (3+3 stands against 5 also gives "more stands")."""
    units = [unit(0, "A", 21.5, 10, 90, stands=3), unit(0, "B", 26.5, 10, 90, stands=3),
             reb_line()]
    s = new_state(tmp_path, units, p2(0, 4))
    play(s, ["activate:u0", "charge:e0"])
    while s.decision_type() == "reaction":
        play(s, ["react:decline"])
    play(s, ["activate:u1", "charge:e0"])
    while not s.is_chance_node():
        play(s, ["react:decline"] if s.decision_type() == "reaction" else [legal(s)[-1]])
    attacking, _ = melee_terms(s)
    play(s, dice(3, 3))
    m = events(s, "melee")[0]
    assert sorted(m.data["attackers"]) == [0, 1] and attacking["support"] == 1
    assert m.data["support"] == [True, False] and m.data["mods"] == [1 + 1 + 1, 0]
    assert m.data["totals"] == [3 + 3, 3] and m.data["winner"] == 0
    # each winning charger is offered its 2" advance in turn (u0, then u1)
    asked = []
    while s.current_player() == 0 and "melee:advance" in legal(s):
        asked_unit, enemy, what = decision_units(s)
        assert what == "melee_advance" and enemy == (1, 0)
        asked.append(asked_unit[1])
        play(s, ["melee:hold"])
    assert asked == [0, 1] and len(events(s, "melee_hold")) == 2


@pytest.mark.rule("ACW-PD-26", "ACW-PD-23")
@pytest.mark.parametrize("bx,side", [(26.5, 1.0), (21.5, -1.0)])
def test_second_charger_placed_beside_the_first(tmp_path, bx, side):
    """ACW-PD-23 step 7 / ACW-PD-26: the first charger lands centred on the front edge as
    always; the second, whose centred spot is taken, slides along the edge toward its own side
    to the nearest spot clear of the first (and reached by a clear straight path), flush and
    still touching the enemy. The engaged target has no B1/B2 window: contact is immediate."""
    ax = 21.5 if bx > 24 else 26.5
    units = [unit(0, "A", ax, 10, 90, stands=3), unit(0, "B", bx, 10, 90, stands=3),
             reb_line()]
    s = _second_charge(tmp_path, units)
    assert "charge:e0" in legal(s) and why(s, "charge:e0") is None
    n0 = len(s.events)
    play(s, ["charge:e0"])
    kinds = [e.kind for e in s.events[n0:]]
    assert kinds[:2] == ["charge", "contact"] and "window_b1" not in kinds \
        and "window_b2" not in kinds
    a, b, reb = s.units[0][0], s.units[0][1], s.units[1][0]
    assert (a.fp.x, a.fp.y) == (pytest.approx(24.0), pytest.approx(18.0))  # centred
    assert b.fp.y == pytest.approx(18.0) and b.fp.heading == pytest.approx(a.fp.heading)
    assert not overlaps(a.fp, b.fp)
    gap = side * (b.fp.x - a.fp.x) - 3.0  # between the two 3" fronts
    assert 0.0 < gap <= 0.1
    assert abs(b.fp.x - 24.0) < 2.5 + 1.5  # still covers part of the Reb's 5" front edge
    assert distance_to_front_edge(reb.fp, b.fp) == pytest.approx(0.0, abs=1e-6)
    assert reb.engaged == [0, 1] and a.engaged == [0] and b.engaged == [0]
    assert b.zone == "front" and events(s, "contact")[-1].data["zone"] == "front"


@pytest.mark.rule("ACW-PD-26", "ACW-PD-23")
def test_charge_refused_when_the_contacted_edge_is_full(tmp_path):
    """ACW-PD-23: a 5-stand Line already fills the Reb's 5" front edge; another 5" Line in
    front of it finds no spot on that edge beside it, so its charge is illegal and
    ``why_illegal`` says so (ACW-PD-23)."""
    units = [union_line(), unit(0, "B", 30, 10, 90), reb_line()]
    free = new_state(tmp_path, units, p2(0, 4), name="free.toml")
    play(free, ["activate:u1"])  # free edge: B may charge
    assert "charge:e0" in legal(free) and why(free, "charge:e0") is None
    s = _second_charge(tmp_path, units)
    assert "charge:e0" not in legal(s)
    w = why(s, "charge:e0")
    assert "ACW-PD-23" in w.rules and "no room" in w.reason and "front edge" in w.reason
    assert "Reb (C0)" in w.reason


@pytest.mark.rule("ACW-PD-26")
def test_support_adds_exactly_one_to_the_side(tmp_path):
    """ACW-PD-26: with the same dice, the pair A+B totals exactly 1 more than A alone (the
    best unit's modifiers plus +1 support; 3 or 3+3 stands against the Reb's 8 keeps "more
    stands" on the Reb's side in both). The Reb, beaten by 1, retreats 3" straight back off A
    and B's fronts: B, still touching its front edge, does not block it (no extra stand)."""
    a, b = unit(0, "A", 24, 10, 90, stands=3), unit(0, "B", 27.5, 10, 90, stands=3)
    s1 = new_state(tmp_path, [a, reb_line(stands=8)], p2(0, 4), name="one.toml")
    play(s1, ["activate:u0", "charge:e0"])
    m1, (terms1, _) = _to_melee_with_terms(s1, 3, 3)
    s2 = _second_charge(tmp_path, [a, b, reb_line(stands=8)])
    play(s2, ["charge:e0"])
    m2, (terms2, _) = _to_melee_with_terms(s2, 3, 3)
    assert m1.data["attackers"] == [0] and m2.data["attackers"] == [0, 1]
    assert m2.data["totals"][0] == m1.data["totals"][0] + 1
    assert m2.data["mods"][0] - m1.data["mods"][0] == 1
    assert m2.data["totals"][1] == m1.data["totals"][1] == 3 + 1
    assert terms2["support"] == 1 and "support" not in terms1
    assert m1.data["support"] == [False, False] and m2.data["support"] == [True, False]
    assert m2.data["totals"] == [3 + 1 + 1, 3 + 1] and m2.data["margin"] == 1
    reb = s2.units[1][0]
    assert reb.stands == 7 and reb.fp.y == pytest.approx(18.0 + 3.0, abs=0.01)
    assert [e.data["unit"] for e in events(s2, "stand_lost")] == [0]  # no blocked-retreat loss


def _pair_vs_reb(tmp_path, rolls):
    units = [unit(0, "A", 21.5, 10, 90, stands=3),
             unit(0, "B", 26.5, 10, 90, stands=3, experience="veteran"), reb_line()]
    s = _second_charge(tmp_path, units)
    play(s, ["charge:e0"])
    m, terms = _to_melee_with_terms(s, *rolls)
    return s, m, terms


@pytest.mark.rule("ACW-PD-26")
def test_losing_pair_best_unit_takes_the_stand_loss_all_retreat(tmp_path):
    """ACW-PD-26 engine ruling: the side's result falls once, on its best unit (the Veteran
    B, whose modifiers were used): B loses the stand; A and B are both Disordered and both
    retreat 3" straight back from the Reb. Attackers +4 (momentum, more stands, Veteran,
    support): 1+4 against 6 loses by 1."""
    s, m, (attacking, _) = _pair_vs_reb(tmp_path, (1, 6))
    a, b, reb = s.units[0][0], s.units[0][1], s.units[1][0]
    assert m.data["best"] == 1 and m.data["totals"] == [1 + 4, 6] and m.data["winner"] == 1
    assert attacking["veteran"] == 1 and attacking["support"] == 1
    lost = [e for e in events(s, "stand_lost") if e.side == 0]
    assert [(e.data["unit"], e.data["n"]) for e in lost] == [(1, 1)]
    assert a.stands == 3 and b.stands == 2 and reb.stands == 5
    assert a.disordered and b.disordered and not reb.disordered
    ret = {e.data["unit"]: e.data["dist"] for e in events(s, "retreat") if e.side == 0}
    assert ret == {0: 3.0, 1: 3.0}
    # each straight back off the Reb's front edge (B does not slide across the Reb's front)
    assert a.fp.y == pytest.approx(15.0, abs=0.01) and b.fp.y == pytest.approx(15.0, abs=0.01)
    assert a.fp.x == pytest.approx(24.0) and b.fp.x > 24.0 + 3.0
    assert not a.engaged and not b.engaged and not reb.engaged


@pytest.mark.rule("ACW-PD-26")
def test_tied_pair_one_hit_on_the_best_unit_every_attacker_recoils(tmp_path):
    """ACW-PD-26 tie with two attackers: one hit per side (on the best unit, B, and on the
    Reb), everyone Disordered, and every attacker recoils 2" straight back."""
    s, m, _ = _pair_vs_reb(tmp_path, (2, 6))
    a, b, reb = s.units[0][0], s.units[0][1], s.units[1][0]
    assert m.data["margin"] == 0 and m.data["totals"] == [6, 6]
    assert (a.hits, b.hits, reb.hits) == (0, 1, 1)
    assert a.disordered and b.disordered and reb.disordered
    assert a.fp.y == pytest.approx(16.0, abs=0.01) and b.fp.y == pytest.approx(16.0, abs=0.01)
    assert reb.fp.y == pytest.approx(18.0)


@pytest.mark.rule("ACW-PD-26", "RULE-04-5.4")
def test_flank_second_charger_gives_the_side_plus_2(tmp_path):
    """ACW-PD-26 / RULE-04-5.4: A charges the Reb's front, B its left flank (another edge,
    centred there); the side fights with the flank +2 as well as support +1. The Reb loses by 2
    and retreats 3" straight away from A, sliding along B's front unblocked."""
    units = [unit(0, "A", 24, 10, 90, stands=3), unit(0, "B", 30, 18.375, 180, stands=3),
             reb_line()]
    s = _second_charge(tmp_path, units)
    play(s, ["charge:e0"])
    b = s.units[0][1]
    assert events(s, "contact")[-1].data == {"unit": 1, "target": 0, "zone": "left"}
    assert (b.fp.x, b.fp.y) == (pytest.approx(26.5), pytest.approx(18.375))
    m, (attacking, _) = _to_melee_with_terms(s, 1, 4)
    assert attacking["flank or rear contact"] == 2 and attacking["support"] == 1
    assert m.data["mods"] == [1 + 2 + 1 + 1, 0] and m.data["totals"] == [6, 4]
    assert "RULE-04-5.4" in m.rules
    reb = s.units[1][0]
    assert reb.stands == 4 and reb.fp.y == pytest.approx(21.0, abs=0.01)


@pytest.mark.rule("ACW-PD-21")
def test_reforming_into_line_inside_the_no_approach_zone_is_masked(tmp_path):
    """ACW-PD-21.5/21.7: a column re-forms on its centre; when the wider Line would end 1.5"
    from an enemy (inside the 2" zone) the change is not offered, although the narrower
    column itself is 3" away (the clipping test uses the re-formed footprint's own size)."""
    col = unit(0, "Col", 24, 10, 90, formation="assault_column")
    enemy = unit(1, "E", 28, 8.875, 180, formation="assault_column")
    s = new_state(tmp_path, [col, enemy], p2(0))
    play(s, ["activate:u0"])
    assert "formation:line" not in legal(s) and "formation:road_column" in legal(s)
    w = why(s, "formation:line")
    assert "ACW-PD-21" in w.rules and "no room" in w.reason
    far = unit(1, "E", 29, 8.875, 180, formation="assault_column")  # Line would be 2.5" off
    s2 = new_state(tmp_path, [col, far], p2(0), name="far.toml")
    play(s2, ["activate:u0"])
    assert "formation:line" in legal(s2)


# -- PD-27 / PD-28 / PD-29: morale, rout, passage of lines --------------------------------------
@pytest.mark.rule("ACW-PD-27", "ACW-PD-31")
def test_morale_fail_disorders_and_falls_back_3(tmp_path):
    """ACW-PD-27: a unit that lost a stand this player-turn (and fought no melee) tests in
    Phase 5; on a fail it is Disordered and falls back 3" to its rear."""
    s = new_state(tmp_path, [union_line(), reb_line(y=15.0)], p2(0))
    play(s, ["end_phase", "fire:e0", *dice(4, 4, 1, 1, 1)])  # 2 hits: 1 stand
    reb = s.units[1][0]
    assert reb.stands == 4
    play(s, ["d6=2"])
    mo = events(s, "morale")[0]
    assert mo.data["passed"] is False and reb.disordered
    assert reb.fp.y == pytest.approx(18.0, abs=0.01)


@pytest.mark.rule("ACW-PD-27", "ACW-PD-28", "ACW-PD-9")
def test_spent_unit_failing_morale_is_broken(tmp_path):
    """ACW-PD-27/28: a Spent unit that fails its Morale Test is Broken and removed."""
    s = new_state(tmp_path, [union_line(), reb_line(y=15.0, stands=3)], p2(0))
    r = s.units[1][0]
    r.starting_stands, r.lost = 5, 2
    play(s, ["end_phase", "fire:e0", *dice(4, 4, 1, 1, 1), "d6=3"])
    assert not s.units[1][0].alive and events(s, "broken")


@pytest.mark.rule("ACW-PD-29", "ACW-PD-26")
def test_retreat_through_friends_tests_the_friends(tmp_path):
    """ACW-PD-29: a unit retreating through a friendly unit does not test itself; the friend
    passed through takes the Passage of Lines test and is Disordered on a fail."""
    units = [union_line(), reb_line(), unit(1, "Friend", 24, 21, 270)]
    s = new_state(tmp_path, units, p2(0))
    play(s, ["activate:u0", "charge:e0"])
    while not s.is_chance_node():
        play(s, ["react:decline"])
    play(s, dice(5, 2))  # margin 4: loser retreats 6" through the Friend
    roll_while_chance(s, 1)
    pt = events(s, "passage_test")
    assert pt and pt[0].data["unit"] == 1 and pt[0].data["passed"] is False
    assert by_name(s, 1, "Friend").disordered


@pytest.mark.rule("ACW-PD-29")
@pytest.mark.parametrize("roll,fails", [(4, False), (3, True)])
def test_voluntary_passage_of_lines_costs_3_and_tests_the_mover(tmp_path, roll, fails):
    """ACW-PD-29: an Assault Column advancing through a friendly Line pays 3" (8" -> 5") and
    must end clear; it then takes a Discipline Check (Regular 4+): on a fail both units are
    Disordered but the move stands."""
    units = [unit(0, "Col", 24, 4, 90, formation="assault_column"),
             unit(0, "Line", 24, 5.5, 90), FAR_REB]
    s = new_state(tmp_path, units, p2(0))
    play(s, ["activate:u0", "advance:all"])
    col, line = s.units[0][0], s.units[0][1]
    assert events(s, "passage_of_lines")[0].data["through"] == [1]
    assert col.fp.y == pytest.approx(9.0, abs=0.01)
    assert s.is_chance_node()
    play(s, [f"d6={roll}"])
    assert col.disordered is fails and line.disordered is fails


@pytest.mark.rule("ACW-PD-29", "ACW-PD-21")
def test_passage_of_lines_on_a_partial_advance_only_when_it_ends_clear(tmp_path):
    """ACW-PD-29: an advance blocked at once by a friend is offered for each distance that
    can pass through and end clear: a third (2.67") would end inside the Line, two thirds
    (5.33", cut to 5" by the 3" passage cost) ends clear on the far side."""
    units = [unit(0, "Col", 24, 4.72, 90, formation="assault_column"),  # 0.03" behind
             unit(0, "Line", 24, 5.5, 90), FAR_REB]
    s = new_state(tmp_path, units, p2(0))
    play(s, ["activate:u0"])
    assert "advance:third" not in legal(s)
    assert {"advance:two_thirds", "advance:all"} <= set(legal(s))
    assert "ACW-PD-29" in why(s, "advance:third").rules
    play(s, ["advance:two_thirds"])
    assert events(s, "passage_of_lines")[0].data["through"] == [1]
    assert s.units[0][0].fp.y == pytest.approx(9.72, abs=0.01)


@pytest.mark.rule("ACW-PD-21", "ACW-PD-29")
def test_friend_in_base_contact_ahead_needs_a_passage_of_lines(tmp_path):
    """ACW-PD-21.8 / PD-29: a Line in base contact behind a friendly Line may only move through
    it by a Passage of Lines (3" of its 6", then ends clear and tests), not walk through it."""
    units = [unit(0, "Front", 24, 10, 90), unit(0, "Back", 24, 9.25, 90), FAR_REB]
    s = new_state(tmp_path, units, p2(0))
    play(s, ["activate:u1", "advance:all"])
    assert events(s, "passage_of_lines")[0].data["through"] == [0]
    assert s.units[0][1].fp.y == pytest.approx(12.25, abs=0.02)  # 6" - 3" passage cost
    assert s.is_chance_node()  # the mover's Discipline Check


@pytest.mark.rule("ACW-PD-21")
def test_lines_flank_to_flank_advance_side_by_side(tmp_path):
    """ACW-PD-21.8: a friend touching the mover's flank does not stop it advancing along it."""
    units = [unit(0, "Left", 24, 10, 90), unit(0, "Right", 29, 10, 90), FAR_REB]
    s = new_state(tmp_path, units, p2(0))
    play(s, ["activate:u0"])
    assert {"advance:third", "advance:all", "retire"} <= set(legal(s))
    play(s, ["advance:all"])
    assert s.units[0][0].fp.y == pytest.approx(16.0, abs=0.01)
    assert not events(s, "passage_of_lines")


# -- PD-30 / PD-31: skirmishers, Disorder -------------------------------------------------------
@pytest.mark.rule("ACW-PD-30")
def test_detach_and_rejoin_a_skirmish_stand(tmp_path):
    """ACW-PD-30: a Line in good order detaches 1 stand (parent body 5 -> 4, S0 unchanged) in
    front of it; the stand is a separate unit that may later rejoin (body back to 5)."""
    s = new_state(tmp_path, [union_line(), reb_line(y=34.0)], p2(0))
    play(s, ["activate:u0", "skirmish:detach"])
    par = s.units[0][0]
    sk = s.units[0][par.screen]
    assert par.stands == 4 and par.starting_stands == 5 and sk.is_screen and sk.parent == 0
    gap = distance_to_front_edge(par.fp, sk.fp)
    assert 0.0 < gap <= 4.0 + 0.76
    play(s, ["end_activation"])
    to_decision(s, "command")  # Confederate Phase 1
    play(s, ["reserve:0"])
    to_decision(s, "command")  # Union Phase 1
    play(s, ["reserve:0", f"activate:u{sk.slot}"])
    assert "skirmish:rejoin" in legal(s)
    play(s, ["skirmish:rejoin"])
    assert par.stands == 5 and par.screen == -1


@pytest.mark.rule("ACW-PD-30", "ACW-PD-23")
def test_skirmish_stand_may_not_charge_or_volley(tmp_path):
    """ACW-PD-30: a skirmish stand never charges, and its only reaction is Evade."""
    units = [unit(0, "Union", 24, 4, 90, stands=4),
             unit(0, "USkir", 24, 12, 90, formation="skirmish", stands=1,
                  detached_from="Union"), reb_line()]
    s = new_state(tmp_path, units, p2(0))
    play(s, ["activate:u1"])
    assert not [x for x in legal(s) if x.startswith("charge:")]
    from envs.rulesets.acw_regimental.reactions import can_fire_reaction
    assert "ACW-PD-30" in can_fire_reaction(by_name(s, 0, "USkir"))[0]


@pytest.mark.rule("ACW-PD-31")
def test_disordered_unit_cannot_change_formation_or_detach(tmp_path):
    """ACW-PD-31: a Disordered unit may not change formation or detach skirmishers."""
    s = new_state(tmp_path, [union_line(disordered=True), reb_line(y=34.0)], p2(0))
    play(s, ["activate:u0"])
    lg = legal(s)
    assert not [x for x in lg if x.startswith("formation:") or x == "skirmish:detach"]
    assert "advance:all" in lg


@pytest.mark.rule("I-5", "RULE-04-2.3")
def test_hit_counter_carries_over(tmp_path):
    """I-5: a unit starting with 1 carried hit loses a stand to a single new hit (counter 0)."""
    s = new_state(tmp_path, [union_line(), reb_line(y=19.0, hits=1)], p2(0))
    play(s, ["end_phase", "fire:e0", *dice(5, 1, 1, 1, 1)])
    r = s.units[1][0]
    assert r.stands == 4 and r.hits == 0


# -- PD-32: smoke expiry -------------------------------------------------------------------------
@pytest.mark.rule("ACW-PD-32", "RULE-04-2.2", "I-15")
def test_own_phase3_smoke_blocks_reactions_in_the_enemy_turn_then_expires(tmp_path):
    """ACW-PD-32: smoke from a unit's own Phase 3 fire lasts through the enemy's next turn (no
    Closing Volley then) and is removed in that turn's End phase."""
    s = new_state(tmp_path, [union_line(), reb_line(y=18.0)], p2(0))
    play(s, ["end_phase", "fire:e0", *dice(1, 1, 1, 1, 1)])
    to_decision(s, "command")  # Confederate Phase 1 (no morale: no loss)
    assert s.active == 1 and s.units[0][0].smoke >= 0
    play(s, ["reserve:0", "activate:u0", "charge:e0"])
    assert not events(s, "window_b2")  # the smoked Union line cannot volley
    roll_while_chance(s, 3)
    s2 = new_state(tmp_path, [union_line(), reb_line(y=30.0)], p2(0), name="b.toml")
    s2.units[0][0].smoke = 0
    s2.units[0][0].smoke_own = True
    to_decision(s2, "command")
    assert s2.active == 1 and s2.units[0][0].smoke == 0
    play(s2, ["reserve:0"])
    to_decision(s2, "command")  # back to the Union: expired at the end of the Reb turn
    assert s2.active == 0 and s2.units[0][0].smoke == -1 and events(s2, "smoke_expires")


@pytest.mark.rule("ACW-PD-32")
def test_smoke_variant_own_fire_does_not_block_reactions(tmp_path):
    """ACW-PD-32 variant ``own_fire_blocks_reactions = false``: own Phase 3 smoke is removed at
    the end of the firer's own turn, so it can volley in the enemy's turn."""
    s = new_state(tmp_path, [union_line(), reb_line(y=18.0)], p2(0),
                  params={"own_fire_blocks_reactions": False})
    play(s, ["end_phase", "fire:e0", *dice(1, 1, 1, 1, 1)])
    to_decision(s, "command")
    assert s.active == 1 and s.units[0][0].smoke == -1
    play(s, ["reserve:0", "activate:u0", "charge:e0"])
    assert legal(s) == ["react:closing_volley", "react:decline"]


# -- PD-33: refuse implementation (I-27) ---------------------------------------------------------
@pytest.mark.rule("ACW-PD-33", "I-27")
def test_refusal_lasts_until_the_unit_next_moves(tmp_path):
    """I-27 / ACW-PD-33: the refused shoulder stays through the enemy turn and ends (re-forms
    for free) when the regiment next moves in its own Phase 2."""
    from .test_rules import _refuse_window_state
    s = _refuse_window_state(tmp_path)
    play(s, ["react:refuse_1", "end_activation"])
    to_decision(s, "command")  # Union Phase 1
    ind = s.units[0][0]
    assert s.active == 0 and ind.refused == "right"
    play(s, ["reserve:0", "activate:u0", "face:about"])
    assert ind.refused == "" and events(s, "refuse_end")


@pytest.mark.rule("ACW-PD-33", "RULE-04-5.3")
def test_refused_stands_fire_along_their_rotated_arcs(tmp_path):
    """ACW-PD-33: after refusing, the angled right-flank stands bring the North Carolinians
    (in the old right flank zone) into their own arcs; before it no stand could fire."""
    from .test_rules import _refuse_window_state
    s = _refuse_window_state(tmp_path)
    ind, nc = s.units[0][0], s.units[1][0]
    assert queries.firing_stands(s, ind, nc.fp) == 0
    play(s, ["react:refuse_2"])
    assert queries.firing_stands(s, ind, nc.fp) == 2


@pytest.mark.rule("RULE-04-4.2", "I-20", "ACW-PD-30")
def test_cavalry_screen_evades_too(tmp_path):
    """RULE-04-4.2 / I-20: a mounted cavalry screen (a stand detached from a cavalry regiment)
    is offered Evade when a formed enemy closes within 6"."""
    units = [unit(0, "Union", 24, 8, 90),
             unit(1, "Cav", 24, 22, 270, kind="cavalry", formation="mounted_line", stands=3),
             unit(1, "Scr", 24, 15, 270, kind="cavalry", formation="skirmish", stands=1,
                  detached_from="Cav")]
    s = new_state(tmp_path, units, p2(0))
    play(s, ["activate:u0", "advance:all"])
    assert legal(s) == ["react:evade_4", "react:evade_5", "react:evade_6", "react:decline"]
    play(s, ["react:evade_6"])  # its rear is 6" from the parent: it rejoins (3 -> 4 stands)
    assert by_name(s, 1, "Cav").stands == 4 and events(s, "rejoin")


# -- PD-35 / PD-36 / PD-37: game end, victory, default scenario ---------------------------------
def _pass_to_the_end(s, limit: int = 20) -> None:
    """Both sides reserve nothing and end their phases; every die shows 4."""
    for _ in range(limit):
        if s.is_terminal():
            break
        if s.is_chance_node():
            play(s, ["d6=4"])
        else:
            lg = legal(s)
            play(s, ["reserve:0" if "reserve:0" in lg else "end_phase" if "end_phase" in lg
                     else lg[-1]])


@pytest.mark.rule("ACW-PD-35", "ACW-PD-36")
def test_game_ends_after_the_turn_limit_as_a_draw_on_equal_vp(tmp_path):
    """ACW-PD-35: with ``turns = 1`` the game ends after one game turn; equal VP is a draw."""
    s = new_state(tmp_path, [union_line(y=2.0), reb_line(y=34.0)], None, params={"turns": 1})
    _pass_to_the_end(s)
    assert s.is_terminal()
    end = events(s, "game_end")[0]
    assert end.data["winner"] == -1 and s.returns() == [0.0, 0.0]
    assert end.data["why"] != "army break"


@pytest.mark.rule("ACW-PD-36", "ACW-PD-28")
def test_army_break_and_victory_points(tmp_path):
    """ACW-PD-36: a melee loss by 5+ breaks the only Confederate regiment (+2 VP for the Broken
    unit; the engine scores 1 VP per stand *lost*, and a routed unit's remaining stands are
    not counted as lost); at the end of the game turn the Confederates have lost half their
    units: army break, Union win (+1/-1)."""
    s, m = _melee(tmp_path, union_line(), reb_line(), rolls=(6, 1))
    assert not s.units[1][0].alive and s.units[1][0].broken
    assert queries.victory_points(s) == [2, 0]
    _pass_to_the_end(s)
    end = events(s, "game_end")[0]
    assert end.data["why"] == "army break" and end.data["winner"] == 0
    assert s.returns() == [1.0, -1.0]


@pytest.mark.rule("ACW-PD-37", "ACW-PD-3", "ACW-PD-5")
def test_crossroads_scenario():
    """ACW-PD-37 (RULINGS item 8): 48" x 36" table, 3 objectives on the centre line, each side
    regiments of 5 stands and a 2-section battery; Confederate Napoleons and 2 Rebel Yell
    regiments; Union 3-inch rifles. (The v0 default battle, now named ``crossroads``.)"""
    g = load_game("acw_regimental", "crossroads")
    assert (g.spec.table.width, g.spec.table.depth) == (48.0, 36.0)
    assert sorted(g.objectives) == [(12.0, 18.0), (24.0, 18.0), (36.0, 18.0)]
    us = g.initial_units
    for side, gun in ((0, "rifle_3in"), (1, "napoleon")):
        inf = [u for u in us if u.side == side and u.kind == "infantry" and not u.is_screen]
        bat = [u for u in us if u.side == side and u.kind == "artillery"]
        assert inf and all(u.starting_stands == 5 for u in inf)
        assert [(u.starting_stands, u.weapon) for u in bat] == [(2, gun)]
    assert sum("rebel_yell" in u.traits for u in us) == 2
    assert all(u.side == 1 for u in us if "rebel_yell" in u.traits)


# -- meta-test -------------------------------------------------------------------------------
SEED_IDS = [
    "RULE-04-1.1", "RULE-04-1.2", "RULE-04-1.3", "RULE-04-1.4",
    "RULE-04-2.1", "RULE-04-2.2", "RULE-04-2.3", "RULE-04-2.4", "RULE-04-2.5", "RULE-04-2.6",
    "RULE-04-3.1", "RULE-04-3.2", "RULE-04-3.3", "RULE-04-3.4", "RULE-04-3.5",
    "RULE-04-4.1", "RULE-04-4.2", "RULE-04-4.3", "RULE-04-4.4",
    "RULE-04-5.1", "RULE-04-5.2", "RULE-04-5.3", "RULE-04-5.4",
    "RULE-04-6.1", "RULE-04-6.2", "RULE-04-6.3", "RULE-04-6.4", "RULE-04-6.5",
]
HOUSE_IDS = [f"ACW-PD-{n}" for n in range(2, 38)] + ["ACW-PD-25b"]
I_IDS = [f"I-{n}" for n in (2, 5, 8, 10, 11, 12, 16, 17, 18, 19, 21, 23, 26, 27)]


def _named_ids() -> set[str]:
    """Ids named by ``@pytest.mark.rule(...)`` in tests/acw/test_rules*.py (parsed source)."""
    out: set[str] = set()
    for p in Path(__file__).parent.glob("test_rules*.py"):
        for args in re.findall(r"@pytest\.mark\.rule\(([^)]*)\)", p.read_text()):
            out |= set(re.findall(r"\"([A-Z][A-Za-z0-9.\-]+)\"", args))
    return out


@pytest.mark.rule(*SEED_IDS)
def test_every_seed_rule_id_is_named():
    """Meta-test: each of the 28 seed rule ids, each house rule that changes play (PD-2 ...
    PD-37 and PD-25b; PD-1 and PD-38 are background, see the module docstring) and each listed
    I-n resolution is named by at least one ``@pytest.mark.rule`` in these files."""
    assert len(SEED_IDS) == 28
    named = _named_ids()
    assert [i for i in SEED_IDS if i not in named] == []
    assert [i for i in HOUSE_IDS if i not in named] == []
    assert [i for i in I_IDS if i not in named] == []
