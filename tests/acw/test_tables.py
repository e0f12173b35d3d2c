"""Tests of the ACW tables and combat arithmetic against the values of acw_fillins.md.

Each test names the rule id it checks (seed ``RULE-04-x.y``, house rule ``ACW-PD-n``, resolution
``I-n``) in its marker and docstring.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import pytest

from envs.core.errors import ParameterError
from envs.rulesets.acw_regimental import combat as C
from envs.rulesets.acw_regimental import tables as T
from envs.rulesets.acw_regimental.combat import (
    MeleeSide,
    apply_hits,
    charge_check_needed,
    check_passes,
    count_hits,
    count_saves,
    emergency_drill_passes,
    melee_modifier,
    melee_modifier_breakdown,
    melee_result,
    naturals_six,
    volley_disorders,
)
from envs.rulesets.acw_regimental.tables import (
    Band,
    Cover,
    Experience,
    Formation,
    Health,
    UnitKind,
    Weapon,
)

SB, RM, NAP, R3 = Weapon.SMOOTHBORE, Weapon.RIFLED_MUSKET, Weapon.NAPOLEON, Weapon.RIFLE_3IN
S, M, L, X = Band.SHORT, Band.MEDIUM, Band.LONG, Band.EXTREME


# ---------------------------------------------------------------------------------------------
# Units, experience, checks
# ---------------------------------------------------------------------------------------------


@pytest.mark.rule("ACW-PD-2")
def test_stand_sizes():
    """ACW-PD-2: infantry 1.0x0.75, cavalry 1.0x1.0, artillery section 1.0x1.5 inches."""
    assert T.stand_size(UnitKind.INFANTRY) == (1.0, 0.75)
    assert T.stand_size(UnitKind.CAVALRY) == (1.0, 1.0)
    assert T.stand_size(UnitKind.ARTILLERY) == (1.0, 1.5)
    assert T.stand_size("infantry") == (1.0, 0.75)  # str enums accept their values
    with pytest.raises(ParameterError, match="kind"):
        T.stand_size("dragoon")


@pytest.mark.rule("RULE-04-2.4")
@pytest.mark.rule("ACW-PD-7")
def test_discipline_targets():
    """RULE-04-2.4 / ACW-PD-7: Veteran 3+, Regular 4+, Green 5+."""
    assert T.discipline_target(Experience.VETERAN) == 3
    assert T.discipline_target(Experience.REGULAR) == 4
    assert T.discipline_target(Experience.GREEN) == 5
    with pytest.raises(ParameterError, match="experience"):
        T.discipline_target("elite")


@pytest.mark.rule("ACW-PD-15")
def test_check_passes_naturals_and_modifiers():
    """ACW-PD-15: natural 6 always passes, natural 1 always fails, else roll + mod >= target."""
    for target in range(1, 9):
        for mod in range(-4, 5):
            assert check_passes(6, target, mod) is True
            assert check_passes(1, target, mod) is False
            for roll in (2, 3, 4, 5):
                assert check_passes(roll, target, mod) is (roll + mod >= target)
    # A Green unit (5+) needs a natural 6 when Spent (-2): 5 - 2 = 3 < 5, 6 still passes.
    assert check_passes(5, 5, -2) is False
    assert check_passes(6, 5, -2) is True
    # A Veteran (3+) with +1 would pass on a 2, but never on a natural 1.
    assert check_passes(2, 3, 1) is True
    assert check_passes(1, 3, 5) is False
    for bad in (0, 7, -1):
        with pytest.raises(ParameterError, match="roll"):
            check_passes(bad, 4)


@pytest.mark.rule("RULE-04-5.2")
@pytest.mark.rule("I-19")
def test_emergency_drill_flat_4():
    """RULE-04-5.2 / I-19: the Emergency Drill Check is a flat 4+, no modifiers."""
    assert [emergency_drill_passes(r) for r in range(1, 7)] == [False] * 3 + [True] * 3


@pytest.mark.rule("ACW-PD-13")
@pytest.mark.rule("ACW-PD-14")
def test_pips():
    """ACW-PD-13: 1 + ceil(d6/2) = 2..4 pips, mean 3; fixed variant 3. ACW-PD-14: at most 2
    reserved."""
    assert [T.pips_from_roll(r) for r in range(1, 7)] == [2, 2, 3, 3, 4, 4]
    assert [T.pips_from_roll(r) for r in range(1, 7)] == [1 + math.ceil(r / 2) for r in range(1, 7)]
    assert Fraction(sum(T.pips_from_roll(r) for r in range(1, 7)), 6) == 3
    assert T.PIPS_FIXED == 3
    assert T.MAX_RESERVED == 2
    with pytest.raises(ParameterError):
        T.pips_from_roll(0)


# ---------------------------------------------------------------------------------------------
# Health (ACW-PD-9)
# ---------------------------------------------------------------------------------------------

# S0 -> (Worn when stands left <=, Spent when stands left <=), the PD-9 table.
PD9_TABLE = {3: (2, 1), 4: (2, 1), 5: (3, 2), 6: (4, 2), 8: (5, 3)}


@pytest.mark.rule("ACW-PD-9")
@pytest.mark.parametrize("starting", sorted(PD9_TABLE))
def test_health_thresholds_reproduce_pd9_table(starting):
    """ACW-PD-9: the integer formulas reproduce the 'stands left' table for S0 = 3,4,5,6,8."""
    worn_left, spent_left = PD9_TABLE[starting]
    assert T.worn_at(starting) == starting - worn_left == (starting + 2) // 3 == math.ceil(starting / 3)
    assert T.spent_at(starting) == starting - spent_left == (3 * starting + 4) // 5 == math.ceil(3 * starting / 5)
    for left in range(starting, -1, -1):
        state = T.health_state(starting, starting - left)
        if left == 0:
            expected = Health.BROKEN
        elif left <= spent_left:
            expected = Health.SPENT
        elif left <= worn_left:
            expected = Health.WORN
        else:
            expected = Health.FRESH
        assert state is expected, (starting, left)


@pytest.mark.rule("ACW-PD-9")
def test_health_two_section_battery_and_example_a():
    """ACW-PD-9: a 2-section battery is Worn after 1 loss, gone after 2; Example A's charger
    (5 stands, 2 lost) is Worn."""
    assert (T.worn_at(2), T.spent_at(2)) == (1, 2)
    assert T.health_state(2, 0) is Health.FRESH
    assert T.health_state(2, 1) is Health.WORN
    assert T.health_state(2, 2) is Health.BROKEN
    assert T.health_state(5, 2) is Health.WORN
    assert T.health_state(5, 5) is Health.BROKEN
    assert T.health_state(5, 7) is Health.BROKEN
    # The formulas equal ceil(S0/3) and ceil(3*S0/5) for every allowed size, and health_state
    # agrees with worn_at/spent_at everywhere.
    for starting in range(1, 9):
        assert T.worn_at(starting) == math.ceil(starting / 3)
        assert T.spent_at(starting) == math.ceil(3 * starting / 5)
        for lost in range(starting + 1):
            expected = (Health.BROKEN if lost >= starting else Health.SPENT if lost >= T.spent_at(starting)
                        else Health.WORN if lost >= T.worn_at(starting) else Health.FRESH)
            assert T.health_state(starting, lost) is expected, (starting, lost)
    with pytest.raises(ParameterError, match="lost"):
        T.health_state(5, -1)
    with pytest.raises(ParameterError, match="starting"):
        T.health_state(0, 0)


# ---------------------------------------------------------------------------------------------
# Fire: bands, to-hit, modifiers, saves (ACW-PD-25, I-8)
# ---------------------------------------------------------------------------------------------

BAND_CASES = [
    # weapon, distance, band ; inclusive upper edges (I-8)
    (SB, 0.0, S), (SB, 6.0, S), (SB, 6.01, M), (SB, 9.0, M), (SB, 9.01, None),
    (RM, 6.0, S), (RM, 6.001, M), (RM, 12.0, M), (RM, 12.01, L), (RM, 18.0, L), (RM, 18.01, None),
    (NAP, 6.0, S), (NAP, 12.0, M), (NAP, 12.5, L), (NAP, 24.0, L), (NAP, 24.01, X),
    (NAP, 48.0, X), (NAP, 48.01, None),
    (R3, 4.0, S), (R3, 6.5, M), (R3, 20.0, L), (R3, 30.0, X), (R3, 48.0, X), (R3, 49.0, None),
    (Weapon.CARBINE, 1.0, None),
]


@pytest.mark.rule("I-8")
@pytest.mark.rule("ACW-PD-25")
@pytest.mark.parametrize("weapon,distance,band", BAND_CASES)
def test_range_band_inclusive_edges(weapon, distance, band):
    """I-8 / ACW-PD-25: bands are inclusive at the top (Short d <= 6.0, ...)."""
    assert T.range_band(weapon, distance) is band


@pytest.mark.rule("I-8")
def test_range_band_float_roundoff_and_errors():
    """I-8: geometric round-off just above an edge stays on the edge; negative distances raise."""
    assert T.range_band(RM, 6.0 + 1e-12) is S
    assert T.range_band(SB, 9.0 + 1e-9) is M
    with pytest.raises(ParameterError, match="distance"):
        T.range_band(RM, -0.5)


TO_HIT_TABLE = {
    SB: {S: 3, M: 6, L: None, X: None},
    RM: {S: 4, M: 5, L: 6, X: None},
    NAP: {S: 2, M: 4, L: 5, X: 6},
    R3: {S: 3, M: 5, L: 5, X: 5},
    Weapon.CARBINE: {S: None, M: None, L: None, X: None},
}


@pytest.mark.rule("ACW-PD-25")
@pytest.mark.rule("RULE-04-2.3")
@pytest.mark.parametrize("weapon", list(TO_HIT_TABLE))
def test_base_to_hit_table(weapon):
    """ACW-PD-25 to-hit table; Short values are the seed's (RULE-04-2.3: 3+/4+/2+/3+)."""
    for band, needed in TO_HIT_TABLE[weapon].items():
        assert T.base_to_hit(weapon, band) == needed, (weapon, band)
    assert T.base_to_hit(weapon, None) is None


@pytest.mark.rule("ACW-PD-25")
@pytest.mark.rule("ACW-PD-18")
def test_to_hit_modifiers_and_clamping():
    """ACW-PD-25 step 2: enfilade -1 (easier), disordered/moved/screen +1 each, clamped 2..6."""
    assert T.to_hit_needed(RM, 6.0) == 4  # Example C: rifles at exactly 6.0" hit on 4+
    assert T.to_hit_needed(SB, 4.0) == 3  # Example A: buck & ball at Short, 3+
    assert T.to_hit_needed(RM, 5.0, enfilade=True) == 3
    assert T.to_hit_needed(RM, 5.0, firer_disordered=True) == 5
    assert T.to_hit_needed(RM, 5.0, firer_moved=True) == 5
    assert T.to_hit_needed(RM, 5.0, target_is_screen=True) == 5
    assert T.to_hit_needed(RM, 10.0, firer_moved=True, enfilade=True) == 5
    assert T.to_hit_needed(RM, 5.0, firer_disordered=True, firer_moved=True,
                           target_is_screen=True) == 6  # 4+3 = 7 clamped to 6
    assert T.to_hit_needed(RM, 15.0, firer_disordered=True, firer_moved=True) == 6  # 8 -> 6
    assert T.to_hit_needed(NAP, 3.0, enfilade=True) == 2  # 1 clamped to 2
    assert T.to_hit_needed(NAP, 3.0) == 2
    assert T.to_hit_needed(R3, 30.0, enfilade=True) == 4
    assert T.to_hit_needed(SB, 9.5, enfilade=True) is None  # out of range
    assert T.to_hit_needed(Weapon.CARBINE, 2.0) is None


@pytest.mark.rule("ACW-PD-25")
@pytest.mark.rule("I-8")
def test_to_hit_needed_agrees_with_band_table():
    """ACW-PD-25 / I-8: unmodified to_hit_needed equals base_to_hit(range_band) on a 0.25" grid
    from 0 to 50" and at every band edge, for every weapon."""
    grid = [i / 4 for i in range(201)] + [6.0, 9.0, 12.0, 18.0, 24.0, 48.0, 6.0001, 18.0001]
    for weapon in Weapon:
        for d in grid:
            assert T.to_hit_needed(weapon, d) == T.base_to_hit(weapon, T.range_band(weapon, d)), (
                weapon, d)
    with pytest.raises(ParameterError, match="distance"):
        T.to_hit_needed(RM, -1.0)


@pytest.mark.rule("RULE-04-2.3")
@pytest.mark.rule("I-13")
def test_dice_per_stand():
    """RULE-04-2.3 / I-13: 1D6 per stand, 2D6 per artillery section; cavalry does not fire."""
    assert T.dice_per_stand(UnitKind.INFANTRY) == 1
    assert T.dice_per_stand(UnitKind.ARTILLERY) == 2
    assert T.dice_per_stand(UnitKind.CAVALRY) == 0
    assert T.dice_per_stand("artillery") == 2


@pytest.mark.rule("ACW-PD-25")
def test_count_hits_examples_and_naturals():
    """ACW-PD-25 / RULE-04-2.3: natural 1 always misses, natural 6 always hits; Examples A, C."""
    assert count_hits([3, 3, 5, 2, 6], 3) == 4  # Example A
    assert count_hits([1, 4, 4, 6, 2], 4) == 3  # Example C
    assert count_hits([1, 1, 1], 2) == 0  # natural 1 misses even at 2+
    assert count_hits([6, 6, 5], 7) == 2  # natural 6 hits even if the number were unreachable
    assert count_hits([2, 3, 4, 5, 6], 2) == 5
    assert count_hits([], 4) == 0
    assert naturals_six([3, 3, 5, 2, 6]) == 1
    assert naturals_six([6, 6, 1]) == 2
    with pytest.raises(ParameterError, match="dice"):
        count_hits([3, 0], 4)
    with pytest.raises(ParameterError, match="dice"):
        naturals_six([7])


SAVE_TABLE = [
    # cover, formation, artillery_short, needed
    (Cover.NONE, Formation.LINE, False, None),
    (Cover.NONE, Formation.ROAD_COLUMN, True, None),
    (Cover.LIGHT, Formation.LINE, False, 5),
    (Cover.LIGHT, Formation.ASSAULT_COLUMN, False, 6),
    (Cover.LIGHT, Formation.ROAD_COLUMN, False, None),
    (Cover.LIGHT, Formation.LIMBERED, False, None),
    (Cover.LIGHT, Formation.LINE, True, 6),
    (Cover.LIGHT, Formation.ASSAULT_COLUMN, True, None),
    (Cover.HEAVY, Formation.LINE, False, 4),
    (Cover.HEAVY, Formation.UNLIMBERED, False, 4),
    (Cover.HEAVY, Formation.ASSAULT_COLUMN, False, 5),
    (Cover.HEAVY, Formation.ROAD_COLUMN, False, 6),
    (Cover.HEAVY, Formation.LIMBERED, False, 6),
    (Cover.HEAVY, Formation.LINE, True, 5),
    (Cover.HEAVY, Formation.ASSAULT_COLUMN, True, 6),
    (Cover.HEAVY, Formation.ROAD_COLUMN, True, None),
]


@pytest.mark.rule("ACW-PD-25")
@pytest.mark.rule("I-4")
@pytest.mark.rule("RULE-04-3.3")
@pytest.mark.parametrize("cover,formation,art_short,needed", SAVE_TABLE)
def test_save_needed(cover, formation, art_short, needed):
    """ACW-PD-25 / I-4 / RULE-04-3.3: light 5+, heavy 4+; Assault Column -1, Road Column or
    limbered -2, artillery at Short -1; worse than 6+ = no save."""
    assert T.save_needed(cover, formation, artillery_short=art_short) == needed


@pytest.mark.rule("ACW-PD-25")
def test_count_saves():
    """ACW-PD-25 step 3: one die per hit, success on die >= needed; None means no save."""
    assert count_saves([5, 4, 6, 1], 5) == 2
    assert count_saves([6, 6], None) == 0
    assert count_saves([4, 3], 4) == 1


@pytest.mark.rule("RULE-04-2.3")
@pytest.mark.rule("I-5")
def test_apply_hits_counter():
    """RULE-04-2.3 / I-5: 2 hits = 1 stand, odd hit carried on the persistent counter."""
    assert apply_hits(0, 3) == (1, 1)  # Example C
    assert apply_hits(0, 4) == (2, 0)  # Example A
    assert apply_hits(1, 1) == (1, 0)  # the carried hit completes a pair later
    assert apply_hits(1, 0) == (0, 1)
    assert apply_hits(0, 1) == (0, 1)
    assert apply_hits(1, 4) == (2, 1)
    with pytest.raises(ParameterError, match="unsaved"):
        apply_hits(0, -1)
    with pytest.raises(ParameterError, match="hit_counter"):
        apply_hits(-1, 2)


@pytest.mark.rule("RULE-04-2.3")
@pytest.mark.rule("I-12")
@pytest.mark.rule("ACW-PD-25")
def test_volley_disorders():
    """RULE-04-2.3 / I-12 / ACW-PD-25 step 5: a 6 in reaction fire always Disorders; in Phase 3
    only at Short (unless the flag); Napoleon at Short always."""
    a = [3, 3, 5, 2, 6]
    no6 = [3, 3, 5, 2, 1]
    assert volley_disorders(a, reaction=True, band=S, weapon=SB) is True  # Example A
    assert volley_disorders([1, 4, 4, 6, 2], reaction=True, band=S, weapon=RM) is True  # Ex. C
    assert volley_disorders(a, reaction=True, band=M, weapon=RM) is True  # opp. fire at Medium
    assert volley_disorders(no6, reaction=True, band=S, weapon=SB) is False
    assert volley_disorders(a, reaction=False, band=S, weapon=RM) is True
    assert volley_disorders(a, reaction=False, band=M, weapon=RM) is False
    assert volley_disorders(a, reaction=False, band=L, weapon=RM,
                            phase3_six_all_ranges=True) is True
    # I-12: Napoleon canister at Short disorders without any 6, reaction or Phase 3.
    assert volley_disorders([1, 1, 1, 1], reaction=True, band=S, weapon=NAP) is True
    assert volley_disorders([2, 3, 4, 5], reaction=False, band=S, weapon=NAP) is True
    assert volley_disorders([2, 3, 4, 5], reaction=False, band=M, weapon=NAP) is False
    assert volley_disorders([2, 3, 4, 5], reaction=True, band=S, weapon=R3) is False
    assert volley_disorders([], reaction=True, band=S, weapon=NAP) is False


@pytest.mark.rule("RULE-04-2.4")
def test_charge_check_trigger():
    """RULE-04-2.4: the check is taken if the volley removed >= 1 stand OR Disordered."""
    assert charge_check_needed(0, False) is False
    assert charge_check_needed(1, False) is True
    assert charge_check_needed(0, True) is True
    assert charge_check_needed(2, True) is True  # Example A


# ---------------------------------------------------------------------------------------------
# Movement (ACW-PD-19 .. PD-21)
# ---------------------------------------------------------------------------------------------

MOVE_TABLE = [
    # kind, formation, kwargs, normal, on_road
    (UnitKind.INFANTRY, Formation.LINE, {}, 6.0, 6.0),
    (UnitKind.INFANTRY, Formation.ASSAULT_COLUMN, {}, 8.0, 8.0),
    (UnitKind.INFANTRY, Formation.ROAD_COLUMN, {}, 10.0, 14.0),
    (UnitKind.INFANTRY, Formation.SKIRMISH, {}, 9.0, 9.0),
    (UnitKind.INFANTRY, Formation.LINE, {"skirmish": True}, 9.0, 9.0),
    (UnitKind.CAVALRY, Formation.MOUNTED_LINE, {}, 12.0, 12.0),
    (UnitKind.CAVALRY, Formation.ROAD_COLUMN, {}, 12.0, 16.0),
    (UnitKind.CAVALRY, Formation.MOUNTED_LINE, {"cavalry_screen": True}, 12.0, 16.0),
    (UnitKind.ARTILLERY, Formation.LIMBERED, {}, 8.0, 12.0),
    (UnitKind.ARTILLERY, Formation.UNLIMBERED, {}, 0.0, 0.0),
]


@pytest.mark.rule("ACW-PD-19")
@pytest.mark.rule("ACW-PD-31")
@pytest.mark.parametrize("kind,formation,kw,normal,road", MOVE_TABLE)
def test_movement_allowances(kind, formation, kw, normal, road):
    """ACW-PD-19 table; Disordered moves at half rate (ACW-PD-31, RULE-04-3.5)."""
    assert T.movement_allowance(kind, formation, **kw) == normal
    assert T.movement_allowance(kind, formation, on_road=True, **kw) == road
    assert T.movement_allowance(kind, formation, disordered=True, **kw) == normal / 2
    assert T.movement_allowance(kind, formation, on_road=True, disordered=True, **kw) == road / 2


@pytest.mark.rule("ACW-PD-19")
def test_movement_illegal_pairs_raise():
    """ACW-PD-19: pairs with no row (unlimbered infantry, artillery in Line) are errors."""
    with pytest.raises(ParameterError, match="formation"):
        T.movement_allowance(UnitKind.INFANTRY, Formation.UNLIMBERED)
    with pytest.raises(ParameterError, match="formation"):
        T.movement_allowance(UnitKind.ARTILLERY, Formation.LINE)


@pytest.mark.rule("ACW-PD-19")
@pytest.mark.rule("ACW-PD-23")
@pytest.mark.rule("RULE-04-6.1")
def test_can_charge_and_charge_distance():
    """ACW-PD-19 / ACW-PD-23: infantry Line or Assault Column and mounted cavalry charge; 9.0"
    (RULE-04-6.1)."""
    allowed = {(UnitKind.INFANTRY, Formation.LINE), (UnitKind.INFANTRY, Formation.ASSAULT_COLUMN),
               (UnitKind.CAVALRY, Formation.MOUNTED_LINE)}
    for kind in UnitKind:
        for formation in (Formation.LINE, Formation.ASSAULT_COLUMN, Formation.ROAD_COLUMN,
                          Formation.MOUNTED_LINE, Formation.UNLIMBERED, Formation.LIMBERED,
                          Formation.SKIRMISH):
            expected = (kind, formation) in allowed or (
                kind is UnitKind.CAVALRY and formation is Formation.LINE)
            assert T.can_charge(kind, formation) is expected, (kind, formation)
    assert T.CHARGE_DISTANCE == 9.0


@pytest.mark.rule("ACW-PD-21")
@pytest.mark.rule("ACW-PD-7")
def test_wheel_and_formation_change_costs():
    """ACW-PD-21.2: wheel = frontage x |angle|, 5" line 45 deg = 3.93"; ACW-PD-21.5 / PD-7:
    formation change costs half, Green the whole allowance."""
    assert round(T.wheel_cost(5.0, math.pi / 4), 2) == 3.93
    assert T.wheel_cost(5.0, -math.pi / 4) == T.wheel_cost(5.0, math.pi / 4)
    assert T.wheel_cost(2.0, math.pi / 8) == pytest.approx(0.7853981634)
    assert T.formation_change_cost(Experience.VETERAN, 6.0) == 3.0
    assert T.formation_change_cost(Experience.REGULAR, 8.0) == 4.0
    assert T.formation_change_cost(Experience.GREEN, 6.0) == 6.0


@pytest.mark.rule("ACW-PD-20")
@pytest.mark.rule("ACW-PD-29")
@pytest.mark.rule("ACW-PD-21")
@pytest.mark.rule("ACW-PD-36")
@pytest.mark.rule("I-23")
def test_distances_and_victory_constants():
    """ACW-PD-20/29 costs 3", ACW-PD-21.7 no-approach 2" (skirmish 1"), I-23 refuse range 12",
    seed distances 8/6/4/2/6, evade 4-6, surge 2-3; ACW-PD-36 VP 1/2/3 and 3" objectives."""
    assert (T.OBSTACLE_CROSSING_COST, T.PASSAGE_OF_LINES_COST) == (3.0, 3.0)
    assert (T.NO_APPROACH, T.SKIRMISH_NO_APPROACH) == (2.0, 1.0)
    assert T.REFUSE_RANGE == 12.0
    assert (T.OPP_FIRE_RANGE, T.SHORT_RANGE, T.VOLLEY_MARK, T.STALL_DISTANCE) == (8.0, 6.0, 4.0, 2.0)
    assert T.EVADE_TRIGGER == 6.0
    assert T.EVADE_DISTANCES == (4.0, 5.0, 6.0)
    assert T.SURGE_DISTANCES == (2.0, 3.0)
    assert (T.VP_STAND, T.VP_BROKEN, T.VP_OBJECTIVE, T.OBJECTIVE_RADIUS) == (1, 2, 3, 3.0)
    # The Short band edge constant agrees with the band table (I-8).
    for weapon in (SB, RM, NAP, R3):
        assert T.range_band(weapon, T.SHORT_RANGE) is S
        assert T.range_band(weapon, T.VOLLEY_MARK) is S


# ---------------------------------------------------------------------------------------------
# Melee (ACW-PD-26)
# ---------------------------------------------------------------------------------------------


def _side(**kw):
    base = dict(experience=Experience.REGULAR, health=Health.FRESH, disordered=False, stands=5)
    base.update(kw)
    return MeleeSide(**base)


@pytest.mark.rule("ACW-PD-26")
def test_melee_modifier_single_terms():
    """ACW-PD-26: each table row on its own against an equal-sized enemy."""
    assert melee_modifier(_side(), 5) == 0
    assert melee_modifier(_side(charged=True), 5) == 1  # momentum
    assert melee_modifier(_side(charged=True, momentum_lost=True), 5) == 0
    assert melee_modifier(_side(charged=True, downhill=True), 5) == 2
    assert melee_modifier(_side(defends_favourable=True), 5) == 1
    assert melee_modifier(_side(flank_or_rear=True), 5) == 2
    assert melee_modifier(_side(rebel_yell=True), 5) == 1
    assert melee_modifier(_side(cavalry_shock=True), 5) == 1
    assert melee_modifier(_side(experience=Experience.VETERAN), 5) == 1
    assert melee_modifier(_side(experience=Experience.GREEN), 5) == -1
    assert melee_modifier(_side(disordered=True), 5) == -1
    assert melee_modifier(_side(health=Health.WORN), 5) == -1
    assert melee_modifier(_side(health=Health.SPENT), 5) == -2
    assert melee_modifier(_side(), 4) == 1  # more stands
    assert melee_modifier(_side(stands=3), 4) == 0
    assert melee_modifier(_side(stands=2, is_artillery=True), 5) == -2
    assert melee_modifier(_side(support=True), 5) == 1
    with pytest.raises(ParameterError, match="health"):
        melee_modifier(_side(health=Health.BROKEN), 5)


@pytest.mark.rule("ACW-PD-26")
@pytest.mark.rule("RULE-04-6.5")
@pytest.mark.rule("ACW-PD-34")
def test_melee_counter_charge_clash():
    """RULE-04-6.5 / ACW-PD-34: the counter-charged charger loses momentum and downhill; a
    Veteran Rebel Yell counter-charger gets +1 yell and +1 Veteran but no momentum."""
    charger = _side(charged=True, momentum_lost=True, downhill=False)
    counter = _side(experience=Experience.VETERAN, rebel_yell=True)
    assert melee_modifier(charger, counter.stands) == 0
    assert melee_modifier(counter, charger.stands) == 2
    # Flank charge by a Green, Disordered, Worn 3-stand unit against 5 stands.
    flank = _side(experience=Experience.GREEN, disordered=True, health=Health.WORN, stands=3,
                  charged=True, flank_or_rear=True)
    assert melee_modifier(flank, 5) == -1 - 1 - 1 + 1 + 2


@pytest.mark.rule("ACW-PD-26")
def test_melee_breakdown_sums_to_modifier():
    """ACW-PD-26: the log breakdown lists non-zero terms that sum to melee_modifier, for every
    flag combination."""
    flags = ("is_artillery", "charged", "momentum_lost", "downhill", "defends_favourable",
             "flank_or_rear", "rebel_yell", "cavalry_shock", "support", "disordered")
    n = 0
    for exp in Experience:
        for health in (Health.FRESH, Health.WORN, Health.SPENT):
            for values in itertools.product((False, True), repeat=len(flags)):
                side = _side(experience=exp, health=health, **dict(zip(flags, values)))
                for enemy in (4, 5):
                    terms = melee_modifier_breakdown(side, enemy)
                    assert sum(v for _, v in terms) == melee_modifier(side, enemy)
                    assert all(v != 0 for _, v in terms)
                    n += 1
    assert n == 3 * 3 * 2 ** len(flags) * 2
    labels = dict(melee_modifier_breakdown(_side(charged=True, flank_or_rear=True), 3))
    assert labels == {"charging momentum": 1, "flank or rear contact": 2, "more stands": 1}


@pytest.mark.rule("ACW-PD-26")
@pytest.mark.parametrize("diff", range(-8, 9))
def test_melee_result_bands(diff):
    """ACW-PD-26 outcome bands: 0 tie (1 hit each); 1-2: 1 stand, 3"; 3-4: 2 stands, 6";
    >=5 Broken."""
    r = melee_result(10 + diff, 10)
    assert r.margin == abs(diff)
    if diff == 0:
        assert (r.winner, r.tie_hits, r.loser_stands_lost, r.loser_broken) == (None, 1, 0, False)
        return
    assert r.winner == (0 if diff > 0 else 1)
    assert r.tie_hits == 0
    m = abs(diff)
    if m <= 2:
        assert (r.loser_stands_lost, r.loser_retreat, r.loser_broken) == (1, 3.0, False)
    elif m <= 4:
        assert (r.loser_stands_lost, r.loser_retreat, r.loser_broken) == (2, 6.0, False)
    else:
        assert r.loser_broken is True


# ---------------------------------------------------------------------------------------------
# Morale and rally (ACW-PD-27, ACW-PD-15)
# ---------------------------------------------------------------------------------------------


@pytest.mark.rule("ACW-PD-27")
def test_morale_modifier():
    """ACW-PD-27: Worn -1, Spent -2, heavy cover +1; Example A's Worn Regular needs 5+."""
    assert T.morale_modifier(Health.FRESH, False) == 0
    assert T.morale_modifier(Health.WORN, False) == -1
    assert T.morale_modifier(Health.SPENT, False) == -2
    assert T.morale_modifier(Health.SPENT, True) == -1
    assert T.morale_modifier(Health.FRESH, True) == 1
    mod = T.morale_modifier(T.health_state(5, 2), False)
    target = T.discipline_target(Experience.REGULAR)
    assert [check_passes(r, target, mod) for r in range(1, 7)] == [False] * 4 + [True] * 2
    with pytest.raises(ParameterError, match="health"):
        T.morale_modifier(Health.BROKEN, False)


@pytest.mark.rule("ACW-PD-15")
def test_rally_modifier():
    """ACW-PD-15: Worn -1, Spent -2, enemy in good order within 6" with us in its arc -1."""
    assert T.rally_modifier(Health.FRESH, False) == 0
    assert T.rally_modifier(Health.FRESH, True) == -1
    assert T.rally_modifier(Health.WORN, True) == -2
    assert T.rally_modifier(Health.SPENT, True) == -3
    # A Spent Green unit under threat rallies only on a natural 6.
    mod = T.rally_modifier(Health.SPENT, True)
    assert [check_passes(r, 5, mod) for r in range(1, 7)] == [False] * 5 + [True]


# ---------------------------------------------------------------------------------------------
# Worked examples as arithmetic chains (RULINGS item 2)
# ---------------------------------------------------------------------------------------------


@pytest.mark.rule("RULE-04-2.3")
@pytest.mark.rule("RULE-04-2.4")
@pytest.mark.rule("RULE-04-2.5")
def test_example_a_arithmetic():
    """RULE-04-2.3/2.4/2.5, Example A: 5 smoothbore stands at 4.0", dice [3,3,5,2,6] -> 4 hits,
    2 stands, Disorder, check triggered; a Regular rolls 2 and fails; 3 stands left, Worn."""
    dice = [3, 3, 5, 2, 6]
    assert len(dice) == 5 * T.dice_per_stand(UnitKind.INFANTRY)
    needed = T.to_hit_needed(SB, T.VOLLEY_MARK)
    hits = count_hits(dice, needed)
    unsaved = hits - count_saves(dice[:hits], T.save_needed(Cover.NONE, Formation.LINE))
    lost, counter = apply_hits(0, unsaved)
    dis = volley_disorders(dice, reaction=True, band=T.range_band(SB, T.VOLLEY_MARK), weapon=SB)
    assert (needed, hits, lost, counter, dis) == (3, 4, 2, 0, True)
    assert charge_check_needed(lost, dis)
    assert check_passes(2, T.discipline_target(Experience.REGULAR)) is False
    assert 5 - lost == 3 and T.health_state(5, lost) is Health.WORN


@pytest.mark.rule("RULE-04-3.3")
@pytest.mark.rule("RULE-04-3.5")
@pytest.mark.rule("I-5")
def test_example_c_arithmetic():
    """RULE-04-3.3/3.5 / I-5, Example C: rifles at 6.0" on an Assault Column in the open,
    [1,4,4,6,2] -> 3 hits, no save, 1 stand + 1 carried, Disorder, remaining move halved."""
    dice = [1, 4, 4, 6, 2]
    needed = T.to_hit_needed(RM, 6.0)
    hits = count_hits(dice, needed)
    assert T.save_needed(Cover.NONE, Formation.ASSAULT_COLUMN) is None
    lost, counter = apply_hits(0, hits)
    dis = volley_disorders(dice, reaction=True, band=T.range_band(RM, 6.0), weapon=RM)
    assert (needed, hits, lost, counter, dis) == (4, 3, 1, 1, True)
    full = T.movement_allowance(UnitKind.INFANTRY, Formation.ASSAULT_COLUMN)
    half = T.movement_allowance(UnitKind.INFANTRY, Formation.ASSAULT_COLUMN, disordered=True)
    assert half == full / 2 == 4.0


# ---------------------------------------------------------------------------------------------
# Quick odds of acw_fillins.md §2.16, by exact enumeration of 6^n outcomes
# ---------------------------------------------------------------------------------------------


def _closing_volley_odds(weapon: Weapon, kind: UnitKind, stands: int):
    """Exact (P(check triggered), E[stands lost]) of a Closing Volley at the 4.0" mark on a
    charger in the open with an empty hit counter, using only the functions under test."""
    n = stands * T.dice_per_stand(kind)
    needed = T.to_hit_needed(weapon, T.VOLLEY_MARK)
    band = T.range_band(weapon, T.VOLLEY_MARK)
    save = T.save_needed(Cover.NONE, Formation.LINE,
                         artillery_short=kind is UnitKind.ARTILLERY and band is S)
    assert save is None  # open ground: no save dice to enumerate
    triggered = 0
    lost_total = 0
    outcomes = 0
    for dice in itertools.product(range(1, 7), repeat=n):
        lost, _ = apply_hits(0, count_hits(dice, needed))
        dis = volley_disorders(dice, reaction=True, band=band, weapon=weapon)
        triggered += charge_check_needed(lost, dis)
        lost_total += lost
        outcomes += 1
    assert outcomes == 6 ** n
    return Fraction(triggered, outcomes), Fraction(lost_total, outcomes)


def _p_fail(experience: Experience) -> Fraction:
    target = T.discipline_target(experience)
    return Fraction(sum(not check_passes(r, target) for r in range(1, 7)), 6)


@pytest.mark.rule("ACW-PD-25")
@pytest.mark.rule("RULE-04-2.3")
@pytest.mark.rule("RULE-04-2.4")
@pytest.mark.rule("I-12")
def test_quick_odds_table():
    """RULE-04-2.3/2.4, I-12, ACW-PD-25: reproduce the §2.16 Quick odds table (2 decimals).

    Rifle Short: 0.86 / 1.00 / stall 0.43 (Veteran 0.29, Green 0.58); smoothbore 0.97 / 1.42 /
    0.48; 2-section Napoleon 1.00 / 1.47 / 0.50 (stall figures for a Regular charger)."""
    rifle = _closing_volley_odds(RM, UnitKind.INFANTRY, 5)
    smooth = _closing_volley_odds(SB, UnitKind.INFANTRY, 5)
    nap = _closing_volley_odds(NAP, UnitKind.ARTILLERY, 2)
    # exact values, derived by hand: rifle 1 - (1/32 + 5*(1/3)*(1/16)) = 83/96, E = 32/32 = 1;
    # smoothbore 1 - (1/243 + 5*(1/2)*(1/81)) = 469/486, E = 344/243; Napoleon 1, E = 1900/1296
    assert rifle == (Fraction(83, 96), Fraction(1))
    assert smooth == (Fraction(469, 486), Fraction(344, 243))
    assert nap == (Fraction(1), Fraction(1900, 1296))
    reg, vet, green = (_p_fail(e) for e in (Experience.REGULAR, Experience.VETERAN,
                                            Experience.GREEN))
    table = {
        "rifle": (rifle, {"regular": 0.43, "veteran": 0.29, "green": 0.58}, 0.86, 1.00),
        "smoothbore": (smooth, {"regular": 0.48}, 0.97, 1.42),
        "napoleon": (nap, {"regular": 0.50}, 1.00, 1.47),
    }
    p_fail = {"regular": reg, "veteran": vet, "green": green}
    for name, ((p_check, e_lost), stalls, want_p, want_e) in table.items():
        assert round(float(p_check), 2) == want_p, name
        assert round(float(e_lost), 2) == want_e, name
        for exp, want in stalls.items():
            assert round(float(p_check * p_fail[exp]), 2) == want, (name, exp)


# ---------------------------------------------------------------------------------------------
# Module plumbing
# ---------------------------------------------------------------------------------------------


@pytest.mark.rule("ACW-PD-25")
def test_combat_and_tables_keep_their_own_names():
    """ACW-PD-25 API: each name has one home. combat's arithmetic is not in tables (one-way
    dependency, tests/core/test_layering.py), and combat does not re-export the tables."""
    for name in ("check_passes", "count_hits", "apply_hits", "MeleeSide", "melee_result",
                 "volley_disorders", "charge_check_needed", "emergency_drill_passes"):
        assert name in C.__all__ and not hasattr(T, name)
    assert not set(C.__all__) & set(T.__all__)
    for name in ("Cover", "Formation", "UnitKind", "to_hit_needed"):
        assert name in T.__all__ and not hasattr(C, name), name
    with pytest.raises(AttributeError):
        T.no_such_name  # noqa: B018
