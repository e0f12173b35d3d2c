"""Rule-by-rule tests of the ACW regimental engine (seed 003, I-n resolutions, ACW-PD-n).

Every test builds a small position from a TOML scenario written to ``tmp_path`` (schema:
``envs/rulesets/acw_regimental/params.py``), plays labels with ``play_labels`` (chance outcomes
are ``d6=N``: the test chooses the dice) and asserts the engine's effect: stands, hit counter,
positions (0.01"), flags, legal labels, ``why_illegal`` and the rule ids of the logged events.
Each test names the ids it checks with ``@pytest.mark.rule(...)`` and in its docstring.

This file: helpers, the 28 seed rule statements RULE-04-1.1 ... RULE-04-6.5 and the I-n
resolutions bound to them, and RULINGS-10 (a move that begins inside a trigger zone). House
rules are in ``test_rules_house.py``; the meta-test that every seed id is named is
``test_rules_house.py::test_every_seed_rule_id_is_named``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from envs.core.geometry import distance_to_front_edge, footprint_distance
from envs.core.replay import play_labels
from envs.rulesets import load_game
from envs.rulesets.acw_regimental.probes import (melee_terms, why_no_counter_charge,
                                                 why_no_reaction)
from envs.rulesets.acw_regimental.procedures.charge import Charge
from envs.rulesets.acw_regimental.procedures.window_a import TRIGGER_RULE
from envs.rulesets.acw_regimental.reactions import can_fire_reaction
from envs.rulesets.acw_regimental import queries

# -- helpers -----------------------------------------------------------------------------------


def _toml(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, str):
        return '"' + v + '"'
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_toml(x) for x in v) + "]"
    raise TypeError(f"cannot write {v!r} to TOML")


def unit(side: int, name: str, x: float, y: float, facing: float, kind: str = "infantry",
         formation: str = "line", stands: int = 5, **kw: Any) -> dict[str, Any]:
    """One ``[[units]]`` entry: front-edge centre (x, y) inches, facing in degrees (90 = up)."""
    d: dict[str, Any] = dict(side=side, name=name, kind=kind, stands=stands,
                             formation=formation, x=float(x), y=float(y),
                             facing_deg=float(facing))
    d.update(kw)
    return d


def scenario_file(path: Path, units: list[dict], start: dict | None = None,
                  terrain: dict | None = None, first_side: int = 0) -> Path:
    lines = ['name = "rule_test"', f"first_side = {first_side}", "[table]", "width = 48.0",
             "depth = 36.0"]
    if start:
        lines.append("[start]")
        lines += [f"{k} = {_toml(v)}" for k, v in start.items()]
    for kind, items in (terrain or {}).items():
        for it in items:
            lines.append(f"[[terrain.{kind}]]")
            lines += [f"{k} = {_toml(v)}" for k, v in it.items()]
    for u in units:
        lines.append("[[units]]")
        lines += [f"{k} = {_toml(v)}" for k, v in u.items()]
    path.write_text("\n".join(lines) + "\n")
    return path


def new_state(tmp_path: Path, units: list[dict], start: dict | None = None,
              terrain: dict | None = None, params: dict | None = None, first_side: int = 0,
              name: str = "s.toml"):
    """Initial state of a one-off scenario (``pips_fixed`` unless ``params`` says otherwise)."""
    p = scenario_file(tmp_path / name, units, start, terrain, first_side)
    g = load_game("acw_regimental", str(p), {"pips_fixed": True, **(params or {})})
    return g.new_initial_state()


def p2(active: int = 0, pips: int = 3, reserved: tuple[int, int] = (0, 0)) -> dict:
    """``[start]`` table: Phase 2 of turn 1 with ``active`` to move."""
    return dict(phase=2, active=active, pips=pips, reserved=list(reserved))


def play(s, labels: list[str]):
    return play_labels(s, labels)


def events(s, kind: str) -> list:
    return [e for e in s.events if e.kind == kind]


def dice(*vals: int) -> list[str]:
    return [f"d6={v}" for v in vals]


def roll_while_chance(s, v: int, limit: int = 40):
    """Feed ``d6=v`` while the state is at a chance node; returns how many dice were fed."""
    n = 0
    while s.is_chance_node() and n < limit:
        play(s, [f"d6={v}"])
        n += 1
    return n


def by_name(s, side: int, name: str):
    """The live unit of ``side`` called ``name`` (slots: regiments first, then screens)."""
    for u in s.units[side]:
        if u is not None and u.name == name:
            return u
    raise KeyError(name)


def legal(s) -> list[str]:
    return s.legal_labels()


def why(s, label: str):
    return s.why_illegal(s.string_to_action(label))


def union_line(y: float = 10.0, **kw):  # 5-stand Union Line at (24, y) facing up the table
    return unit(0, "Union", 24, y, 90, **kw)


def reb_line(y: float = 18.0, **kw):  # 5-stand Confederate Line facing down the table
    return unit(1, "Reb", 24, y, 270, **kw)


def charge_state(tmp_path, attacker=None, defender=None, reserved=(0, 0), extra=(),
                 terrain=None, params=None):
    """Union (slot 0) activated and charging the Confederate slot 0 from 8" (Example A shape)."""
    units = [attacker or union_line(), defender or reb_line(), *extra]
    s = new_state(tmp_path, units, p2(0, 3, reserved), terrain, params)
    play(s, ["activate:u0", "charge:e0"])
    return s


# ==============================================================================================
# Section 1: philosophy, windows, economy, one reaction per trigger
# ==============================================================================================
@pytest.mark.rule("RULE-04-1.1", "ACW-PD-12")
def test_igougo_defender_decides_inside_the_active_players_phase2(tmp_path):
    """RULE-04-1.1: the game is IGOUGO (one side's player-turn, then the other's), yet the
    non-active side makes decisions inside the active side's Phase 2 (its reactions)."""
    s = charge_state(tmp_path)
    assert s.active == 0 and s.phase == 2
    assert s.current_player() == 1 and s.decision_type() == "reaction"
    assert legal(s) == ["react:closing_volley", "react:decline"]
    play(s, ["react:decline", "d6=3", "d6=3", "melee:hold"])  # contact, melee roll, won: hold
    # the player-turn passes to the Confederates only after the Union Phase 5
    phases = [(e.data["phase"], e.side if e.side is not None else -1) for e in events(s, "phase")]
    assert [p for p, _ in phases][:5] == [2, 3, 4, 5, 1]
    assert s.active == 1


@pytest.mark.rule("RULE-04-1.2", "ACW-PD-25b", "ACW-PD-12")
def test_reactions_only_in_phase2_not_against_phase3_fire(tmp_path):
    """RULE-04-1.2: windows exist only in Phase 2. Union Phase 3 fire at a Confederate line
    gives the Confederates no decision at all (no window, no reaction)."""
    s = new_state(tmp_path, [union_line(), reb_line(y=16.0)], p2(0))
    play(s, ["end_phase"])
    assert s.phase == 3 and s.current_player() == 0
    play(s, ["fire:e0", *dice(1, 1, 1, 1, 1)])
    windows = [e for e in s.events if e.kind.startswith("window")]
    assert windows == []
    assert not [e for e in s.events if e.kind == "react"]
    # every decision the Confederates made so far: none
    assert all(p == 0 or p < 0 for p, _ in s.history)


@pytest.mark.rule("RULE-04-1.2", "RULE-04-2.1", "I-10", "I-25")
def test_window_b_is_split_b1_at_declaration_b2_at_the_4_inch_mark(tmp_path):
    """RULE-04-1.2 / I-10: Window B1 opens at the charge declaration (counter-charge offered),
    Window B2 at 4.0" from the defender's front edge (I-25, closing volley)."""
    s = charge_state(tmp_path, defender=reb_line(traits=["rebel_yell"]), reserved=(0, 1))
    assert events(s, "window_b1") and not events(s, "window_b2")
    assert legal(s) == ["react:counter_charge_2", "react:counter_charge_3", "react:decline"]
    attacker = s.units[0][0]
    assert distance_to_front_edge(s.units[1][0].fp, attacker.fp) == pytest.approx(8.0, abs=0.01)
    play(s, ["react:decline"])
    assert events(s, "window_b2")
    assert legal(s) == ["react:closing_volley", "react:decline"]
    assert distance_to_front_edge(s.units[1][0].fp, attacker.fp) == pytest.approx(4.0, abs=0.01)


@pytest.mark.rule("RULE-04-1.3", "I-3", "RULE-04-5.2")
def test_reaction_economy_free_versus_commanded(tmp_path):
    """RULE-04-1.3 / I-3: a Closing Volley or Opportunity Fire costs no pip; Refuse the Flank
    spends the reserved pip (or, without one, an Emergency Drill Check)."""
    s = charge_state(tmp_path, reserved=(0, 1))
    play(s, ["react:closing_volley", *dice(1, 1, 1, 1, 1)])
    assert s.reserved[1] == 1  # free reaction: reserved pip untouched
    # commanded: refuse with the reserved pip -> spent, no dice
    s2 = _refuse_window_state(tmp_path, reserved=(1, 0))
    play(s2, ["react:refuse_2"])
    assert s2.reserved[0] == 0 and not events(s2, "drill_check")
    assert s2.units[0][0].refused == "right" and s2.units[0][0].refused_n == 2


@pytest.mark.rule("RULE-04-1.4", "I-18", "I-28")
def test_one_reaction_per_unit_per_enemy_action(tmp_path):
    """RULE-04-1.4: a defender that fired Opportunity Fire at the Medium point is not asked
    again at the Short point of the same move; another defender (I-28) still may react."""
    s = _opp_fire_state(tmp_path, second_defender=True)
    assert [e.data["defender"] for e in events(s, "window_a")] == [0]
    play(s, ["react:opportunity_fire"])
    roll_while_chance(s, 1)
    # the next window belongs to the second defender (I-28); slot 0 is never asked again
    asked = [(e.data["defender"], e.data["trigger"]) for e in events(s, "window_a")]
    assert asked == [(0, "opp_medium"), (1, "refuse")]
    assert s.decision_type() == "reaction"
    assert why(s, "react:refuse_1") is None  # the second unit may react
    assert s.reacted == [0]
    play(s, ["react:decline"])
    assert [e.data["defender"] for e in events(s, "window_a")].count(0) == 1


@pytest.mark.rule("RULE-04-1.4", "I-10", "RULE-04-2.2")
def test_unit_that_reacted_in_b1_gets_no_closing_volley_in_b2(tmp_path):
    """RULE-04-1.4 / I-10: a line that refused its flank against the charge in B1 is not offered
    the Closing Volley at the 4.0" mark of the same charge; the charger contacts directly."""
    s = _flank_charge_state(tmp_path, reserved=(0, 1))
    assert "react:refuse_2" in legal(s)
    play(s, ["react:refuse_2"])
    assert not events(s, "window_b2")
    c = events(s, "contact")
    assert c and c[0].data["zone"] == "front"  # refused flank: frontal contact


# -- shared builders for later sections -------------------------------------------------------
def _opp_fire_state(tmp_path, second_defender=False, mover=None, defender=None, terrain=None):
    """Example C shape: a Confederate column marches across the Union line's front at 6"."""
    units = [defender or unit(0, "Wisconsin", 24, 10, 90)]
    if second_defender:
        units.append(unit(0, "Second", 32, 10, 90))
    units.append(mover or unit(1, "Georgia", 16, 17, 0, formation="assault_column"))
    s = new_state(tmp_path, units, p2(1), terrain)
    play(s, ["activate:u0", "advance:all"])
    return s


def _refuse_window_state(tmp_path, reserved=(1, 0)):
    """Example B: the North Carolinians advance into the Indiana's right flank zone."""
    units = [unit(0, "Indiana", 24, 12, 90),
             unit(1, "NC", 39.5, 11.625, 180)]
    s = new_state(tmp_path, units, p2(1, 3, reserved))
    play(s, ["activate:u0", "advance:all"])
    assert legal(s) == ["react:refuse_1", "react:refuse_2", "react:decline"]
    return s


def _flank_charge_state(tmp_path, reserved=(0, 0), defender=None):
    """A Union line charges the Confederate line's left flank zone from 6" to the side."""
    units = [unit(0, "Union", 14, 18.4, 0.0),  # facing +x, toward the Reb's (right-hand) end
             defender or reb_line()]
    s = new_state(tmp_path, units, p2(0, 3, reserved))
    play(s, ["activate:u0", "charge:e0"])
    return s


# ==============================================================================================
# Section 2: Closing Volley
# ==============================================================================================
@pytest.mark.rule("RULE-04-2.1", "I-25")
def test_closing_volley_trigger_at_4_inches_of_the_front_edge(tmp_path):
    """RULE-04-2.1 / I-25: the charger halts where its nearest point is 4.0" from the
    defender's front edge; the B2 window cites RULE-04-2.1."""
    s = charge_state(tmp_path)
    b2 = events(s, "window_b2")[0]
    assert "RULE-04-2.1" in b2.rules
    att, dfd = s.units[0][0], s.units[1][0]
    assert distance_to_front_edge(dfd.fp, att.fp) == pytest.approx(4.0, abs=0.01)
    assert att.fp.y == pytest.approx(14.0, abs=0.01) and att.fp.x == pytest.approx(24.0, abs=0.01)


@pytest.mark.rule("RULE-04-2.1", "RULE-04-2.2")
def test_no_closing_volley_for_a_charger_outside_the_forward_arc(tmp_path):
    """RULE-04-2.1/2.2: a charge from the defender's flank zone (charger not in its forward
    45-degree arc) gets no Window B2; the charger contacts the flank."""
    s = _flank_charge_state(tmp_path)  # no reserve, so B1 offers only the drill-check refuse
    play(s, ["react:decline"])
    assert not events(s, "window_b2")
    assert events(s, "contact")[0].data["zone"] == "right"  # charger west of a south-facing line


@pytest.mark.rule("RULE-04-2.2", "ACW-PD-31")
def test_disordered_defender_cannot_volley(tmp_path):
    """RULE-04-2.2: a Disordered defender is never offered the Closing Volley: no B2 window,
    the charger goes straight into contact; the engine's reason cites RULE-04-2.2."""
    s = new_state(tmp_path, [union_line(), reb_line(disordered=True)], p2(0))
    rules, text = can_fire_reaction(s.units[1][0])
    assert "RULE-04-2.2" in rules and "Disordered" in text
    w = why_no_reaction(s, "b2", s.units[1][0], "react:closing_volley")
    assert "RULE-04-2.2" in w.rules
    play(s, ["activate:u0", "charge:e0"])
    assert not events(s, "window_b2") and not events(s, "fire")
    assert events(s, "contact") and s.units[1][0].engaged == [0]


@pytest.mark.rule("RULE-04-2.2", "ACW-PD-32", "RULE-04-6.2")
def test_smoked_defender_cannot_volley_mask_and_why(tmp_path):
    """RULE-04-2.2: a smoked Rebel Yell line with a reserved pip is asked in B1 (counter-charge
    is legal) but the Closing Volley is masked there and why_illegal cites RULE-04-2.2; after
    declining B1 no B2 window opens because of the smoke."""
    s = new_state(tmp_path, [union_line(), reb_line(traits=["rebel_yell"])], p2(0, 3, (0, 1)))
    s.units[1][0].smoke = 0
    play(s, ["activate:u0", "charge:e0"])
    assert s.decision_type() == "reaction" and "react:closing_volley" not in legal(s)
    w = why(s, "react:closing_volley")
    assert w is not None and "RULE-04-2.2" in w.rules
    play(s, ["react:decline"])
    assert not events(s, "window_b2") and events(s, "contact")


@pytest.mark.rule("RULE-04-2.3", "I-13", "ACW-PD-25")
def test_volley_pool_and_short_range_numbers(tmp_path):
    """RULE-04-2.3: 1D6 per stand (rifle 4+), 2D6 per artillery section (3-inch canister 3+),
    always at Short range; 2 unsaved hits = 1 stand."""
    s = charge_state(tmp_path, defender=reb_line(weapon="rifled_musket"))
    play(s, ["react:closing_volley"])
    f = events(s, "fire")[0]
    assert (f.data["dice"], f.data["needed"], f.data["band"]) == (5, 4, "short")
    play(s, dice(4, 4, 3, 3, 3))  # 2 hits, no 6
    assert s.units[0][0].stands == 4 and s.units[0][0].hits == 0
    bat = unit(1, "Battery", 24, 18, 270, kind="artillery", formation="unlimbered", stands=2,
               weapon="rifle_3in")
    s2 = new_state(tmp_path, [union_line(), bat], p2(0), name="bat.toml")
    play(s2, ["activate:u0", "charge:e0", "react:closing_volley"])
    f2 = events(s2, "fire")[0]
    assert (f2.data["dice"], f2.data["needed"]) == (4, 3)  # 2 sections x 2D6 at 3+


@pytest.mark.rule("RULE-04-2.3", "RULE-04-2.4", "I-12")
def test_napoleon_canister_auto_disorders_and_forces_the_check(tmp_path):
    """RULE-04-2.3 / I-12: a Napoleon Closing Volley hits on 2+ and Disorders the charger even
    with no natural 6 and no stand lost, so the Charge Discipline Check is always taken."""
    bat = unit(1, "Napoleons", 24, 18, 270, kind="artillery", formation="unlimbered", stands=2,
               weapon="napoleon")
    s = charge_state(tmp_path, defender=bat)
    play(s, ["react:closing_volley"])
    f = events(s, "fire")[0]
    assert (f.data["dice"], f.data["needed"]) == (4, 2)
    play(s, dice(2, 1, 1, 1))  # one hit, no 6, no stand lost
    att = s.units[0][0]
    assert att.stands == 5 and att.hits == 1 and att.disordered
    dis = [e for e in events(s, "disorder") if e.side == 0][0]
    assert "I-12" in dis.rules
    assert s.is_chance_node()  # the Charge Discipline Check
    play(s, ["d6=4"])
    assert events(s, "charge_check")[0].data["passed"] is True
    assert events(s, "contact")


@pytest.mark.rule("RULE-04-2.3", "RULE-04-2.4")
def test_natural_six_disorders_the_charger_in_a_volley(tmp_path):
    """RULE-04-2.3: any natural 6 in the Closing Volley disorders the charger (here one hit,
    no stand lost) and so forces the check (RULE-04-2.4)."""
    s = charge_state(tmp_path, defender=reb_line(weapon="rifled_musket"))
    play(s, ["react:closing_volley", *dice(6, 1, 1, 1, 1)])
    att = s.units[0][0]
    assert att.disordered and att.stands == 5 and att.hits == 1
    assert s.is_chance_node()
    play(s, ["d6=1"])
    assert events(s, "charge_check")[0].data["passed"] is False


@pytest.mark.rule("RULE-04-2.4")
def test_no_check_without_loss_or_disorder(tmp_path):
    """RULE-04-2.4: one hit, no stand lost, no natural 6: no Charge Discipline Check, the
    charge goes home."""
    s = charge_state(tmp_path, defender=reb_line(weapon="smoothbore"))
    play(s, ["react:closing_volley", *dice(3, 1, 1, 1, 1)])
    assert not events(s, "charge_check")
    assert events(s, "charge_on") and events(s, "contact")
    assert s.units[0][0].engaged == [0] and s.units[1][0].engaged == [0]


@pytest.mark.rule("RULE-04-2.4", "I-19", "ACW-PD-7")
@pytest.mark.parametrize("exp,roll,passed", [("veteran", 3, True), ("regular", 3, False),
                                             ("regular", 4, True), ("green", 4, False),
                                             ("green", 5, True)])
def test_charge_check_graded_by_experience(tmp_path, exp, roll, passed):
    """RULE-04-2.4 / I-19: Veteran passes on 3+, Regular 4+, Green 5+ (no other modifier,
    even though the charger is Disordered by the volley)."""
    s = charge_state(tmp_path, attacker=union_line(experience=exp),
                     defender=reb_line(weapon="smoothbore"))
    play(s, ["react:closing_volley", *dice(3, 3, 1, 1, 1), f"d6={roll}"])
    chk = events(s, "charge_check")[0]
    assert chk.data["target"] == {"veteran": 3, "regular": 4, "green": 5}[exp]
    assert chk.data["passed"] is passed
    assert bool(events(s, "contact")) is passed


@pytest.mark.rule("RULE-04-2.5", "I-26", "I-14")
def test_pass_closes_into_contact_and_melee_in_phase4(tmp_path):
    """RULE-04-2.5 Pass / I-26: a charger disordered by the volley that passes still closes
    flush into contact; both are engaged and the Opposed Melee Roll comes in Phase 4."""
    s = charge_state(tmp_path, defender=reb_line(weapon="smoothbore"))
    play(s, ["react:closing_volley", *dice(6, 1, 1, 1, 1), "d6=5"])
    att, dfd = s.units[0][0], s.units[1][0]
    assert att.disordered and att.engaged == [0]
    assert distance_to_front_edge(dfd.fp, att.fp) == pytest.approx(0.0, abs=0.01)
    assert att.fp.y == pytest.approx(18.0, abs=0.01)
    assert s.phase == 4 and s.is_chance_node()  # melee dice
    play(s, ["d6=3", "d6=3"])
    m = events(s, "melee")[0]
    assert m.data["attackers"] == [0] and m.data["defender"] == 0


@pytest.mark.rule("RULE-04-2.5")
def test_fail_stalls_2_inches_away_disordered_and_finished(tmp_path):
    """RULE-04-2.5 Fail: halts 2.0" from the defender, Disordered, no melee, and the unit can
    do nothing more this turn (its activation is over; it cannot fire in Phase 3)."""
    s = charge_state(tmp_path, defender=reb_line(weapon="smoothbore"))
    play(s, ["react:closing_volley", *dice(3, 3, 1, 1, 1), "d6=1"])
    att, dfd = s.units[0][0], s.units[1][0]
    assert distance_to_front_edge(dfd.fp, att.fp) == pytest.approx(2.0, abs=0.01)
    assert att.disordered and att.stands == 4 and not att.engaged
    assert "activate:u0" not in legal(s)
    assert queries.can_fire_p3(s, att) is not None


@pytest.mark.rule("RULE-04-2.5", "I-11")
def test_charge_from_inside_4_inches_volley_at_declaration_and_stall_in_place(tmp_path):
    """I-11: a charge declared from 3" has its B2 at declaration; on a failed check the charger
    stays where it stands (it is not moved to 2.0")."""
    s = charge_state(tmp_path, defender=reb_line(y=13.0, weapon="smoothbore"))
    att = s.units[0][0]
    assert events(s, "window_b2") and "I-11" in events(s, "window_b2")[0].rules
    assert att.fp.y == pytest.approx(10.0, abs=0.01)
    play(s, ["react:closing_volley", *dice(3, 3, 1, 1, 1), "d6=2"])
    assert att.fp.y == pytest.approx(10.0, abs=0.01) and att.disordered
    st = events(s, "charge_stalls")[0]
    assert st.data["dist"] == pytest.approx(3.0, abs=0.01) and "I-11" in st.rules


@pytest.mark.rule("RULE-04-2.6", "ACW-PD-32", "I-15")
def test_smoke_marker_after_the_volley_blocks_reaction_fire(tmp_path):
    """RULE-04-2.6: the volleying unit gets a Smoke Marker at once; being smoked, it can make
    no further reaction fire (I-15 merges smoke and counts-as-fired)."""
    s = charge_state(tmp_path, defender=reb_line(weapon="smoothbore"))
    assert s.units[1][0].smoke == -1
    play(s, ["react:closing_volley", *dice(1, 1, 1, 1, 1)])
    dfd = s.units[1][0]
    assert dfd.smoke >= 0 and dfd.fired
    sm = events(s, "smoke")[0]
    assert "RULE-04-2.6" in sm.rules
    assert can_fire_reaction(dfd) is not None


# ==============================================================================================
# Section 3: Opportunity Fire
# ==============================================================================================
def decline_until(s, label: str, limit: int = 6):
    """Decline reaction windows until ``label`` is legal (other triggers come first)."""
    for _ in range(limit):
        if label in legal(s):
            return s
        assert s.decision_type() == "reaction", legal(s)
        play(s, ["react:decline"])
    raise AssertionError(f"{label} never became legal: {legal(s)}")


WOODS = {"woods": [{"rect": [8.0, 15.0, 40.0, 19.0]}]}  # mover centre 1" inside (PD-17)


@pytest.mark.rule("RULE-04-3.1", "I-18", "ACW-PD-24")
def test_opportunity_fire_trigger_in_arc_within_8_inches(tmp_path):
    """RULE-04-3.1: the column crossing the line's front is stopped where it first enters the
    forward arc within 8.0" (Medium point); the defender may wait for Short (I-18)."""
    s = _opp_fire_state(tmp_path)
    w = events(s, "window_a")[0]
    assert w.data["trigger"] == "opp_medium" and "RULE-04-3.1" in w.rules
    wis, ga = s.units[0][0], s.units[1][0]
    assert footprint_distance(wis.fp, ga.fp) == pytest.approx(8.0, abs=0.01)
    assert legal(s) == ["react:opportunity_fire", "react:wait_short", "react:decline"]


@pytest.mark.rule("RULE-04-3.1")
def test_no_opportunity_fire_for_a_move_behind_the_defender(tmp_path):
    """RULE-04-3.1: a move that never enters the defender's forward arc (here behind it, > 12"
    from its flank zones' trigger) opens no window; the mover completes its 8"."""
    mover = unit(1, "Georgia", 10, 2, 0, formation="assault_column")
    s = _opp_fire_state(tmp_path, mover=mover)
    assert not events(s, "window_a")
    assert s.units[1][0].fp.x == pytest.approx(18.0, abs=0.01)


@pytest.mark.rule("RULE-04-3.1", "I-17", "ACW-PD-24")
def test_no_opportunity_fire_against_a_charge(tmp_path):
    """I-17: a charge crossing a second defender's forward arc within 8" opens no Window A for
    it (charges are answered only in Window B)."""
    other = unit(1, "Bystander", 30, 16, 180)  # faces -x, its arc covers the charge lane
    s = new_state(tmp_path, [union_line(), reb_line(), other], p2(0))
    play(s, ["activate:u0", "charge:e0"])
    assert not events(s, "window_a")
    assert [e.kind for e in s.events if e.kind.startswith("window")] == ["window_b2"]


@pytest.mark.rule("RULE-04-3.2", "I-22")
@pytest.mark.parametrize("state", ["disordered", "smoke", "engaged"])
def test_no_opportunity_fire_when_disordered_smoked_or_engaged(tmp_path, state):
    """RULE-04-3.2: a Disordered, smoked or engaged defender opens no Opportunity Fire window;
    the engine's reason names RULE-04-3.2."""
    units = [unit(0, "Wisconsin", 24, 10, 90),
             unit(1, "Georgia", 16, 17, 0, formation="assault_column")]
    s = new_state(tmp_path, units, p2(1))
    d = s.units[0][0]
    if state == "disordered":
        d.disordered = True
    elif state == "smoke":
        d.smoke = 0
    else:
        d.engaged = [5]
    w = can_fire_reaction(d)
    assert w is not None and "RULE-04-3.2" in w[0]
    play(s, ["activate:u0", "advance:all"])
    assert not [e for e in events(s, "window_a") if e.data["trigger"].startswith("opp")]
    assert not events(s, "fire")


@pytest.mark.rule("RULE-04-3.3", "I-8", "ACW-PD-25")
def test_opportunity_fire_medium_band_and_short_band(tmp_path):
    """RULE-04-3.3 / I-8: fired at the 8" point the rifle uses Medium (5+); waiting for the
    6.0" point gives Short (4+, the top of Short is inclusive)."""
    s = _opp_fire_state(tmp_path)
    play(s, ["react:opportunity_fire"])
    f = events(s, "fire")[0]
    assert (f.data["band"], f.data["needed"], f.data["mode"]) == ("medium", 5, "opp")
    s2 = _opp_fire_state(tmp_path)
    play(s2, ["react:wait_short", "react:opportunity_fire"])
    f2 = events(s2, "fire")[0]
    assert f2.data["band"] == "short" and f2.data["needed"] == 4
    assert f2.data["distance"] == pytest.approx(6.0, abs=0.01)


@pytest.mark.rule("RULE-04-3.3", "I-4", "ACW-PD-6", "ACW-PD-20")
@pytest.mark.parametrize("formation,save", [("road_column", None), ("assault_column", 6)])
def test_road_column_minus_2_save_in_light_cover(tmp_path, formation, save):
    """RULE-04-3.3 / I-4: a target moving through woods (light cover, 5+) saves on 6+ in
    Assault Column (-1) and not at all in Road Column (-2 makes 7+)."""
    mover = unit(1, "Georgia", 14, 16, 0, formation=formation)
    s = _opp_fire_state(tmp_path, mover=mover, terrain=WOODS)
    decline_until(s, "react:opportunity_fire")
    play(s, ["react:opportunity_fire"])
    roll_while_chance(s, 6)
    sv = events(s, "saves")
    if save is None:
        assert sv == []
        assert events(s, "hit_counter")[0].data["unsaved"] == events(s, "hits")[0].data["hits"]
    else:
        assert sv[0].data["needed"] == save and sv[0].data["cover"] == "light"


@pytest.mark.rule("RULE-04-3.4", "ACW-PD-32", "ACW-PD-22")
def test_counts_as_fired_blocks_phase3_unless_moved_an_inch(tmp_path):
    """RULE-04-3.4: a smoked unit that only faces about (no distance moved) may not fire in its
    Phase 3 (reason cites RULE-04-3.4); one that moves 1.0" leaves its smoke and may fire."""
    units = [union_line(), reb_line(y=20.0)]
    s = new_state(tmp_path, units, p2(0))
    s.units[0][0].smoke = 0
    play(s, ["activate:u0", "face:about", "end_activation"])
    if s.decision_type() == "maneuver":
        play(s, ["end_phase"])
    assert s.phase != 2 or s.active == 1
    assert not [e for e in events(s, "fire") if e.side == 0]
    s2 = new_state(tmp_path, [union_line(disordered=True), reb_line(y=20.0)], p2(0),
                   name="s2.toml")
    s2.units[0][0].smoke = 0
    rules, _ = queries.can_fire_p3(s2, s2.units[0][0])
    assert "RULE-04-3.4" in rules
    play(s2, ["activate:u0", "advance:third"])  # Disordered Line: 3" allowance, a third = 1"
    assert s2.units[0][0].fp.y == pytest.approx(11.0, abs=0.01)
    assert events(s2, "smoke_left") and s2.units[0][0].smoke == -1
    play(s2, ["end_activation"])
    if s2.decision_type() == "maneuver":
        play(s2, ["end_phase"])
    assert s2.decision_type() == "fire" and "fire:e0" in legal(s2)


@pytest.mark.rule("RULE-04-3.5", "ACW-PD-31")
def test_remaining_move_halved_after_a_natural_six(tmp_path):
    """RULE-04-3.5: Disordered by the Short-range volley at 5.5" into its 8" move, the column
    has 2.5" left, halved to 1.25": it ends at x = 16 + 5.5 + 1.25."""
    s = _opp_fire_state(tmp_path)
    play(s, ["react:wait_short", "react:opportunity_fire"])
    n = events(s, "fire")[0].data["dice"]
    play(s, dice(6, *([1] * (n - 1))))
    ga = s.units[1][0]
    assert ga.disordered
    h = events(s, "move_halved")[0]
    assert h.data["remaining"] == pytest.approx(1.25, abs=0.02)
    assert ga.fp.x == pytest.approx(16.0 + 5.5 + 1.25, abs=0.02)


@pytest.mark.rule("RULE-04-3.5", "I-16", "ACW-PD-31")
def test_remaining_move_halved_means_no_further_advance(tmp_path):
    """RULE-04-3.5 / I-16: the halved remainder is all the movement left this activation: after
    the halved move the column may not advance further (only end the activation)."""
    s = _opp_fire_state(tmp_path)
    play(s, ["react:wait_short", "react:opportunity_fire"])
    n = events(s, "fire")[0].data["dice"]
    play(s, dice(6, *([1] * (n - 1))))
    x_after = s.units[1][0].fp.x
    if "advance:all" in legal(s):
        play(s, ["advance:all"])
    assert s.units[1][0].fp.x == pytest.approx(x_after, abs=0.01)


@pytest.mark.rule("RULE-04-3.5", "I-16")
def test_already_disordered_mover_is_not_halved_again(tmp_path):
    """I-16: a column already Disordered (moving at half rate, 4") is not halved again by a
    natural 6: no move_halved event, it completes its 4"."""
    mover = unit(1, "Georgia", 18, 17, 0, formation="assault_column", disordered=True)
    s = _opp_fire_state(tmp_path, mover=mover)
    if s.decision_type() == "reaction":
        play(s, ["react:opportunity_fire"])
        roll_while_chance(s, 6)
    while s.decision_type() == "reaction":
        play(s, ["react:decline"])
    assert not events(s, "move_halved")
    assert s.units[1][0].fp.x == pytest.approx(22.0, abs=0.01)


# ==============================================================================================
# Section 4: Skirmisher & screen Evade
# ==============================================================================================
def screen_units(parent_y: float = 20.0, screen_y: float = 15.0, **screen_kw):
    """Union line at y = 8; Confederate 4-stand line (S0 = 5) with its skirmish stand ahead."""
    return [unit(0, "Union", 24, 8, 90),
            unit(1, "Reb", 24, parent_y, 270, stands=4),
            unit(1, "Skir", 24, screen_y, 270, formation="skirmish", stands=1,
                 detached_from="Reb", **screen_kw)]


@pytest.mark.rule("RULE-04-4.1", "ACW-PD-24")
def test_evade_trigger_formed_enemy_within_6_inches(tmp_path):
    """RULE-04-4.1: a formed line advancing toward the screen is stopped at 6.0" from it and
    the screen is offered Evade 4/5/6"."""
    s = new_state(tmp_path, screen_units(), p2(0))
    play(s, ["activate:u0", "advance:all"])
    w = events(s, "window_a")[0]
    assert w.data["trigger"] == "evade" and "RULE-04-4.1" in w.rules
    assert footprint_distance(s.units[0][0].fp, s.units[1][1].fp) == pytest.approx(6.0, abs=0.01)
    assert legal(s) == ["react:evade_4", "react:evade_5", "react:evade_6", "react:decline"]


@pytest.mark.rule("RULE-04-4.1")
def test_no_evade_trigger_from_an_unformed_mover(tmp_path):
    """RULE-04-4.1: only a formed line or column triggers Evade; an enemy skirmish stand
    closing to within 6" of the screen opens no window."""
    units = [unit(0, "Union", 24, 2, 90, stands=4),
             unit(0, "USkir", 24, 7, 90, formation="skirmish", stands=1, detached_from="Union"),
             unit(1, "Reb", 24, 26, 270, stands=4),
             unit(1, "Skir", 24, 21, 270, formation="skirmish", stands=1, detached_from="Reb")]
    s = new_state(tmp_path, units, p2(0))
    play(s, ["activate:u1", "advance:all"])
    assert footprint_distance(s.units[0][1].fp, s.units[1][1].fp) < 6.0
    assert not events(s, "window_a")


@pytest.mark.rule("RULE-04-4.2", "I-22", "ACW-PD-10")
@pytest.mark.parametrize("state", ["disordered", "pinned"])
def test_no_evade_for_a_disordered_or_pinned_screen(tmp_path, state):
    """RULE-04-4.2 / I-22: a Disordered screen is not offered Evade when charged (no B1
    window, the charge overruns it); a pinned (engaged) screen gets no Evade window when a line
    advances within 6" of it."""
    if state == "disordered":
        s = new_state(tmp_path, screen_units(disordered=True), p2(0))
        assert by_name(s, 1, "Skir").disordered
        play(s, ["activate:u0", "charge:e1"])
        assert not events(s, "window_b1")
        assert events(s, "overrun")
        assert s.units[1][1] is None or not s.units[1][1].alive
    else:
        s = new_state(tmp_path, screen_units(), p2(0))
        by_name(s, 1, "Skir").engaged = [7]
        play(s, ["activate:u0", "advance:all"])
        assert not [e for e in events(s, "window_a") if e.data["trigger"] == "evade"]
        assert by_name(s, 1, "Skir").alive


@pytest.mark.rule("RULE-04-4.3", "I-20", "ACW-PD-30")
def test_evade_rejoins_the_parent_and_restores_its_stand(tmp_path):
    """RULE-04-4.3 / I-20: withdrawing 5" straight back reaches the parent 5" behind: the stand
    rejoins (parent body 4 -> 5 stands) and leaves the table."""
    s = new_state(tmp_path, screen_units(), p2(0))
    play(s, ["activate:u0", "advance:all", "react:evade_5"])
    reb = s.units[1][0]
    assert reb.stands == 5 and reb.lost == 0
    assert s.units[1][1] is None or not s.units[1][1].alive
    assert events(s, "rejoin") and "RULE-04-4.3" in events(s, "rejoin")[0].rules


@pytest.mark.rule("RULE-04-4.3", "ACW-PD-29", "I-20")
def test_evade_through_friends_without_passage_of_lines_test(tmp_path):
    """RULE-04-4.3: the screen withdraws 6" straight back through a friendly line with no
    Passage of Lines test and no Disorder; its parent is out of reach so it stays detached
    (I-20) 6.00" behind its start."""
    units = screen_units(parent_y=30.0)
    units.append(unit(1, "Friend", 24, 18, 270))
    s = new_state(tmp_path, units, p2(0))
    play(s, ["activate:u0", "advance:all", "react:evade_6"])
    sk, friend = by_name(s, 1, "Skir"), by_name(s, 1, "Friend")
    assert sk.alive and sk.fp.y == pytest.approx(21.0, abs=0.01)
    assert not events(s, "passage_test") and not events(s, "passage_of_lines")
    assert not friend.disordered and not sk.disordered


@pytest.mark.rule("RULE-04-4.4", "I-21", "RULE-04-2.1")
def test_evade_redirects_the_charge_to_the_parent_which_may_volley(tmp_path):
    """RULE-04-4.4 (evade chosen): the charge does not stop, it carries on toward the parent
    line, which is then offered the Closing Volley at 4.0" (I-28: a second unit reacts)."""
    s = new_state(tmp_path, screen_units(), p2(0))
    play(s, ["activate:u0", "charge:e1", "react:evade_5"])
    red = events(s, "redirect")[0]
    assert red.data["target"] == 0 and "RULE-04-4.4" in red.rules
    assert legal(s) == ["react:closing_volley", "react:decline"]
    assert distance_to_front_edge(s.units[1][0].fp, s.units[0][0].fp) == pytest.approx(4.0,
                                                                                       abs=0.01)


@pytest.mark.rule("RULE-04-4.4", "I-21", "ACW-PD-30", "ACW-PD-36")
def test_overrun_destroys_a_screen_that_did_not_evade(tmp_path):
    """RULE-04-4.4 (no evade): the screen is destroyed without a melee roll, counts as one
    stand lost by its parent, and the charger carries on with its remaining 2" (I-21)."""
    s = new_state(tmp_path, screen_units(), p2(0))
    play(s, ["activate:u0", "charge:e1", "react:decline"])
    sk, reb = s.units[1][1], s.units[1][0]
    assert not sk.alive and reb.lost == 1 and reb.stands == 4 and reb.starting_stands == 5
    assert not events(s, "melee")
    red = events(s, "redirect")[0]
    assert red.data == {"unit": 0, "target": 0}
    charge = next(f for f in s.stack if type(f) is Charge)  # 2" of its charge left (I-21)
    assert charge.redirected and charge.path_length == pytest.approx(2.0, abs=0.005)
    play(s, ["react:decline"])
    # 2" left from y = 15 does not reach the parent 5" away: the charger stops at y = 17
    assert events(s, "charge_short")
    assert s.units[0][0].fp.y == pytest.approx(17.0, abs=0.01)
    assert queries.victory_points(s)[0] >= 1


# ==============================================================================================
# Section 5: Refuse the Flank
# ==============================================================================================
def _melee_after_flank_charge(tmp_path, reserved, b1_label, rolls=(3, 3)):
    """The melee event of the flank charge and the attacking side's modifier terms."""
    s = _flank_charge_state(tmp_path, reserved=reserved)
    play(s, [b1_label])
    while not s.is_chance_node():
        play(s, [legal(s)[-1]])  # decline / end: on to Phase 4
    attacking, _ = melee_terms(s)
    play(s, dice(*rolls))
    return attacking, events(s, "melee")[0]


@pytest.mark.rule("RULE-04-5.1", "ACW-PD-33", "I-23")
def test_refuse_trigger_entering_a_lines_flank_zone(tmp_path):
    """RULE-04-5.1: the North Carolinians entering the Indiana's right flank zone within 12"
    (I-23) stop there and the Line is offered Refuse 1 or 2 stands."""
    s = _refuse_window_state(tmp_path)
    w = events(s, "window_a")[0]
    assert w.data["trigger"] == "refuse" and "RULE-04-5.1" in w.rules
    assert footprint_distance(s.units[0][0].fp, s.units[1][0].fp) <= 12.0 + 0.01


@pytest.mark.rule("RULE-04-5.1", "ACW-PD-33")
def test_refuse_only_for_lines(tmp_path):
    """RULE-04-5.1: the same move past a regiment in Assault Column opens no refuse window;
    the engine's reason cites RULE-04-5.1."""
    units = [unit(0, "Indiana", 24, 12, 90, formation="assault_column"),
             unit(1, "NC", 39.5, 11.625, 180)]
    s = new_state(tmp_path, units, p2(1, 3, (1, 0)))
    from envs.rulesets.acw_regimental.reactions import can_refuse
    assert "RULE-04-5.1" in can_refuse(s.units[0][0])[0]
    play(s, ["activate:u0", "advance:all"])
    assert not [e for e in events(s, "window_a") if e.data["trigger"] == "refuse"]
    assert s.reserved[0] == 1


@pytest.mark.rule("RULE-04-5.1", "I-23")
def test_no_refuse_trigger_beyond_12_inches(tmp_path):
    """I-23: an enemy moving inside the flank zone but never within 12" opens no window."""
    units = [unit(0, "Indiana", 20, 12, 90), unit(1, "NC", 47.0, 11.625, 180)]
    s = new_state(tmp_path, units, p2(1, 3, (1, 0)))
    play(s, ["activate:u0", "advance:third"])  # 2": from 20.5" away to 18.5" away
    assert footprint_distance(s.units[0][0].fp, s.units[1][0].fp) > 12.0
    assert not events(s, "window_a")


@pytest.mark.rule("RULE-04-5.2", "I-19", "RULE-04-1.3")
@pytest.mark.parametrize("roll,ok", [(4, True), (3, False)])
def test_emergency_drill_check_without_a_reserved_pip(tmp_path, roll, ok):
    """RULE-04-5.2 / I-19: no reserved pip -> flat 4+ Emergency Drill Check. Pass (4): the
    flank is refused. Fail (3): the regiment freezes, is Disordered and does not refuse."""
    s = _refuse_window_state(tmp_path, reserved=(0, 0))
    play(s, ["react:refuse_2"])
    assert s.is_chance_node()
    play(s, [f"d6={roll}"])
    ind = s.units[0][0]
    chk = events(s, "drill_check")[0]
    assert chk.data["roll"] == roll and chk.data["passed"] is ok and "I-19" in chk.rules
    if ok:
        assert ind.refused == "right" and ind.refused_n == 2 and not ind.disordered
    else:
        assert ind.refused == "" and ind.refused_n == 0 and ind.disordered
        dis = [e for e in events(s, "disorder") if e.side == 0][0]
        assert "RULE-04-5.2" in dis.rules


@pytest.mark.rule("RULE-04-5.2", "RULE-04-5.4")
def test_failed_drill_against_a_flank_charge_leaves_the_flank_open(tmp_path):
    """RULE-04-5.2: a failed Emergency Drill Check in B1 leaves no refusal: the charge still
    contacts the flank and gets the +2 flank modifier against a Disordered defender."""
    s = _flank_charge_state(tmp_path)
    play(s, ["react:refuse_1", "d6=2"])
    assert s.units[1][0].disordered and s.units[1][0].refused == ""
    assert events(s, "contact")[0].data["zone"] == "right"
    attacking, _ = melee_terms(s)
    play(s, ["d6=3", "d6=3"])
    m = events(s, "melee")[0]
    assert attacking["flank or rear contact"] == 2 and "RULE-04-5.4" in m.rules
    assert m.data["totals"] == [3 + 1 + 2, 3 - 1]  # momentum + flank; defender Disordered


@pytest.mark.rule("RULE-04-5.3", "ACW-PD-33")
@pytest.mark.parametrize("n", [1, 2])
def test_refuse_one_or_two_outer_stands_rest_anchored(tmp_path, n):
    """RULE-04-5.3: the owner refuses the outer 1 or 2 stands of the threatened flank; the
    regiment's footprint (Color Stand and other flank) does not move."""
    s = _refuse_window_state(tmp_path)
    fp0 = s.units[0][0].fp
    play(s, [f"react:refuse_{n}"])
    ind = s.units[0][0]
    assert ind.refused == "right" and ind.refused_n == n
    assert (ind.fp.x, ind.fp.y, ind.fp.heading) == (fp0.x, fp0.y, fp0.heading)
    assert ind.stands == 5


@pytest.mark.rule("RULE-04-5.4", "ACW-PD-18")
def test_refused_flank_negates_enfilade_in_phase3(tmp_path):
    """RULE-04-5.4: Phase 3 fire from the refused flank gets no +1 enfilade (rifle Medium 5+);
    from the same spot without a refusal it is enfilade (4+)."""
    for refuse, needed, enf in (("react:refuse_2", 5, False), ("react:decline", 4, True)):
        s = _refuse_window_state(tmp_path)
        play(s, [refuse, "end_activation"])
        while s.decision_type() != "fire":
            play(s, [legal(s)[-1] if s.decision_type() != "command" else "reserve:0"])
        play(s, ["fire:e0"])
        f = [e for e in events(s, "fire") if e.data["mode"] == "p3"][0]
        assert f.data["needed"] == needed and f.data["enfilade"] is enf


@pytest.mark.rule("RULE-04-5.4", "ACW-PD-26")
def test_refused_flank_turns_a_flank_charge_frontal_no_plus_2(tmp_path):
    """RULE-04-5.4: refused in B1 with the reserved pip, the flank charge contacts frontally and
    the melee has no +2 flank modifier; unrefused, the same charge gets +2."""
    terms1, m1 = _melee_after_flank_charge(tmp_path, (0, 1), "react:refuse_2")
    assert "flank or rear contact" not in terms1 and "RULE-04-5.4" not in m1.rules
    assert m1.data["totals"] == [3 + 1, 3]
    terms2, m2 = _melee_after_flank_charge(tmp_path, (0, 0), "react:decline")
    assert terms2["flank or rear contact"] == 2 and "RULE-04-5.4" in m2.rules
    assert m2.data["totals"] == [3 + 3, 3]


# ==============================================================================================
# Section 6: Counter-Charge (printed 5.1-5.5, renumbered 6.1-6.5 by I-1)
# ==============================================================================================
RY = ["rebel_yell"]
FENCE = {"fences": [{"points": [[18.0, 14.0], [30.0, 14.0]]}]}


@pytest.mark.rule("RULE-04-6.1", "I-1", "I-10", "ACW-PD-34")
def test_counter_charge_offered_at_declaration_across_open_ground(tmp_path):
    """RULE-04-6.1: an infantry charge declared from 8" across open ground offers the Rebel
    Yell line Counter-Charge 2/3" in B1; the event cites the renumbered id (I-1)."""
    s = charge_state(tmp_path, defender=reb_line(traits=RY), reserved=(0, 1))
    assert "react:counter_charge_2" in legal(s) and "react:counter_charge_3" in legal(s)
    play(s, ["react:counter_charge_2"])
    assert "RULE-04-6.1" in [e for e in events(s, "react")][0].rules


@pytest.mark.rule("RULE-04-6.1", "ACW-PD-20", "ACW-PD-34")
def test_no_counter_charge_across_a_fence(tmp_path):
    """RULE-04-6.1: with a fence between the two lines the ground is not open: no B1 window,
    the charge runs on to the B2 Closing Volley; the engine's reason cites RULE-04-6.1."""
    s = charge_state(tmp_path, defender=reb_line(traits=RY), reserved=(0, 1), terrain=FENCE)
    assert not events(s, "window_b1") and events(s, "window_b2")
    assert "RULE-04-6.1" in why_no_counter_charge(s, s.units[0][0], s.units[1][0]).rules


@pytest.mark.rule("RULE-04-6.1", "ACW-PD-19")
def test_no_counter_charge_against_a_charge_from_beyond_9_inches(tmp_path):
    """RULE-04-6.1: with the 12" cavalry charge variant, a charge declared from 11" is beyond
    the standard 9" charge distance: no Counter-Charge is offered."""
    cav = unit(0, "Cav", 24, 10, 90, kind="cavalry", formation="mounted_line", stands=4)
    s = charge_state(tmp_path, attacker=cav, defender=reb_line(y=21.0, traits=RY),
                     reserved=(0, 1), params={"cavalry_charge_12": True})
    assert events(s, "charge")[0].data["dist"] == pytest.approx(11.0, abs=0.01)
    assert not events(s, "window_b1") and s.reserved[1] == 1


@pytest.mark.rule("RULE-04-6.2", "ACW-PD-9", "ACW-PD-8")
@pytest.mark.parametrize("kw,offered", [
    (dict(traits=RY), True),
    (dict(experience="veteran"), True),
    (dict(experience="veteran", stands=3, lost=2), False),  # Worn veteran
    (dict(experience="regular"), False),
    (dict(kind="cavalry", formation="mounted_line", stands=4, weapon="carbine"), True),
])
def test_counter_charge_eligibility(tmp_path, kw, offered):
    """RULE-04-6.2: Rebel Yell infantry, Veteran infantry while Fresh, or formed mounted
    cavalry may counter-charge; a Worn Veteran or a Regular without the trait may not."""
    lost = kw.pop("lost", 0)
    d = reb_line(**kw)
    s = new_state(tmp_path, [union_line(), d], p2(0, 3, (0, 1)))
    if lost:
        s.units[1][0].lost = lost
        s.units[1][0].starting_stands += lost
    play(s, ["activate:u0", "charge:e0"])
    assert ("react:counter_charge_2" in legal(s)) is offered
    if not offered:
        assert not events(s, "window_b1")
        w = why_no_counter_charge(s, s.units[0][0], s.units[1][0])
        assert "RULE-04-6.2" in w.rules


@pytest.mark.rule("RULE-04-6.3", "I-2", "RULE-04-1.3")
def test_counter_charge_without_reserved_pip_is_masked(tmp_path):
    """RULE-04-6.3 / I-2: with no reserved pip there is no 4+ check fallback: in the B1 window
    (open for the refuse option) Counter-Charge is masked and why_illegal cites RULE-04-6.3."""
    s = _flank_charge_state(tmp_path, reserved=(0, 0), defender=reb_line(traits=RY))
    assert s.decision_type() == "reaction"
    assert "react:counter_charge_2" not in legal(s) and "react:counter_charge_3" not in legal(s)
    w = why(s, "react:counter_charge_3")
    assert w is not None and "RULE-04-6.3" in w.rules
    # and a frontal charge on the same unit opens no B1 window at all (nothing legal)
    s2 = new_state(tmp_path, [union_line(), reb_line(traits=RY)], p2(0), name="front.toml")
    play(s2, ["activate:u0", "charge:e0"])
    assert not events(s2, "window_b1") and events(s2, "window_b2")


@pytest.mark.rule("RULE-04-6.3", "RULE-04-6.4", "ACW-PD-34")
@pytest.mark.parametrize("surge", [2, 3])
def test_counter_charge_surge_spends_the_pip_no_volley_no_check(tmp_path, surge):
    """RULE-04-6.3/6.4: the reserved pip is spent, the defender surges 2" or 3" straight ahead,
    the charger meets it there: no Closing Volley, no Charge Discipline Check, both engaged."""
    s = charge_state(tmp_path, defender=reb_line(traits=RY), reserved=(0, 1))
    play(s, [f"react:counter_charge_{surge}"])
    reb, att = s.units[1][0], s.units[0][0]
    assert s.reserved[1] == 0
    assert reb.fp.y == pytest.approx(18.0 - surge, abs=0.01) and reb.counter_charged
    assert att.fp.y == pytest.approx(18.0 - surge, abs=0.01)
    assert not events(s, "window_b2") and not events(s, "fire")
    assert not events(s, "charge_check")
    assert att.engaged == [0] and reb.engaged == [0]


@pytest.mark.rule("RULE-04-6.5", "I-14", "ACW-PD-26", "ACW-PD-34")
def test_counter_charge_melee_modifiers(tmp_path):
    """RULE-04-6.5: the charger loses Charging Momentum (+1); the Rebel Yell counter-charger
    adds +1; the melee is rolled in Phase 4 of the same turn (I-14)."""
    s = charge_state(tmp_path, defender=reb_line(traits=RY), reserved=(0, 1))
    play(s, ["react:counter_charge_3"])
    assert s.phase == 4 and s.is_chance_node()
    attacking, defending = melee_terms(s)
    play(s, dice(3, 3))
    m = events(s, "melee")[0]
    assert "charging momentum" not in attacking and defending["rebel yell"] == 1
    assert m.data["totals"] == [3, 4] and m.data["winner"] == 1
    assert "RULE-04-6.5" in m.rules


@pytest.mark.rule("RULE-04-6.5", "ACW-PD-34", "ACW-PD-7")
def test_veteran_counter_charge_gets_no_shock_bonus(tmp_path):
    """ACW-PD-34 / RULE-04-6.5: a Veteran without Rebel Yell cancels the charger's momentum
    and has only its Veteran +1 (no shock bonus, no momentum of its own)."""
    s = charge_state(tmp_path, defender=reb_line(experience="veteran"), reserved=(0, 1))
    play(s, ["react:counter_charge_2"])
    attacking, defending = melee_terms(s)
    play(s, dice(3, 3))
    m = events(s, "melee")[0]
    assert m.data["totals"] == [3, 4]
    assert defending == {"veteran": 1}
    assert "charging momentum" not in attacking and "rebel yell" not in attacking


# ==============================================================================================
# Section 7: a move that begins inside a trigger zone (RULINGS-10)
# ==============================================================================================
#: one position per Window A zone kind with the mover already inside the zone: (units, active
#: side, trigger, defender slot, footprint distance in inches at the start, the reactions
#: offered there). Opportunity Fire: Worked Example C's column moved to 5.0" of the line's
#: front, inside its forward arc; Evade: a formed Line 5.0" from a skirmish screen; Refuse the
#: Flank: a Line 7.5" off the Indiana's right flank, inside its flank zone and within 12".
INSIDE_A_ZONE = {
    "opportunity_fire_band": (
        [unit(0, "2nd Wisconsin", 24, 10, 90),
         unit(1, "8th Georgia", 22, 16, 0, formation="assault_column")],
        1, "opp_medium", 0, 5.0, ["react:opportunity_fire", "react:decline"]),
    "screen_6_inch_zone": (
        screen_units(parent_y=20.0, screen_y=15.0)[1:] + [unit(0, "Union", 24, 10, 90)],
        0, "evade", 1, 5.0, ["react:evade_4", "react:evade_5", "react:evade_6",
                             "react:decline"]),
    "flank_threat": (
        [unit(0, "Indiana", 24, 12, 90), unit(1, "NC", 34.0, 11.625, 180)],
        1, "refuse", 0, 7.5, ["react:refuse_1", "react:refuse_2", "react:decline"]),
}
#: where each mover ends its move once the window is declined: (primitive, x, y, the move's
#: logged length in inches); a retire goes half the allowance back, an advance all of it
#: (Evade advance: the mover next enters the parent Line's Opportunity Fire band; Refuse
#: advance: the Indiana's own; an ordinary "first enters" trigger, where it stops)
AFTER_DECLINE = {
    ("opportunity_fire_band", "retire"): (18.0, 16.0, 4.0),
    ("opportunity_fire_band", "advance:all"): (30.0, 16.0, 8.0),
    ("screen_6_inch_zone", "retire"): (24.0, 7.0, 3.0),
    ("screen_6_inch_zone", "advance:all"): (24.0, 12.0, None),
    ("flank_threat", "retire"): (37.0, 11.625, 3.0),
    ("flank_threat", "advance:all"): (28.625, 11.625, None),
}


@pytest.mark.rule("RULINGS-10", "ACW-PD-24", "RULE-04-1.2", "RULE-04-3.1", "RULE-04-4.1",
                  "RULE-04-5.1")
@pytest.mark.parametrize("primitive", ["retire", "advance:all"])
@pytest.mark.parametrize("zone", list(INSIDE_A_ZONE))
def test_a_move_that_begins_inside_a_trigger_zone_triggers_at_its_first_point(
        tmp_path, zone, primitive):
    """RULINGS-10: a mover that starts its move inside a defender's trigger zone (the
    Opportunity Fire band, a screen's 6.0", a Line's flank threat) is stopped at the first point
    of its path, retiring or advancing alike: the window opens with the mover where it started,
    its event cites RULINGS-10 beside the trigger's own rule, and a decline spends the
    trigger and lets the move go on (to its end, or to the next trigger point it enters)."""
    units, active, trigger, defender_slot, distance, offered = INSIDE_A_ZONE[zone]
    s = new_state(tmp_path, units, p2(active, 3, (1, 0)))
    mover = s.units[active][0]
    start = (mover.fp.x, mover.fp.y, mover.fp.heading)
    defender = s.units[1 - active][defender_slot]
    assert footprint_distance(defender.fp, mover.fp) == pytest.approx(distance, abs=1e-9)
    play(s, ["activate:u0", primitive])
    [window] = events(s, "window_a")
    assert window.data == {"defender": defender_slot, "mover": 0, "trigger": trigger}
    assert window.rules == ("RULE-04-1.2", "ACW-PD-24", TRIGGER_RULE[trigger], "RULINGS-10")
    assert (mover.fp.x, mover.fp.y, mover.fp.heading) == start  # the path's first point
    assert s.decision_type() == "reaction" and s.current_player() == 1 - active
    assert legal(s) == offered
    play(s, ["react:decline"])
    x, y, length = AFTER_DECLINE[(zone, primitive)]
    assert (mover.fp.x, mover.fp.y) == (pytest.approx(x, abs=0.01), pytest.approx(y, abs=0.01))
    later = events(s, "window_a")[1:]
    if length is None:  # stopped again, at an ordinary Opportunity Fire point (ACW-PD-24)
        assert [(w.data["defender"], w.data["trigger"], w.rules) for w in later] == [
            (0, "opp_medium", ("RULE-04-1.2", "ACW-PD-24", "RULE-04-3.1"))]
    else:
        [move] = events(s, "move")
        assert move.data["dist"] == pytest.approx(length, abs=0.001) and not later


@pytest.mark.rule("RULINGS-10", "RULE-04-3.1", "ACW-PD-24")
def test_a_move_that_enters_a_trigger_zone_does_not_cite_rulings_10(tmp_path):
    """RULINGS-10 covers only the mover that starts inside: Worked Example C's column, which
    starts outside the band and first enters it 8.0" from the line, triggers at that point
    (ACW-PD-24) and its window cites no RULINGS-10."""
    s = _opp_fire_state(tmp_path)
    [window] = events(s, "window_a")
    assert window.rules == ("RULE-04-1.2", "ACW-PD-24", "RULE-04-3.1")
    assert footprint_distance(s.units[0][0].fp, s.units[1][0].fp) == pytest.approx(8.0,
                                                                                   abs=0.01)
