"""Golden tests: the seed's worked examples A, B and C (RULINGS item 2) replayed with their
exact dice from ``tests/acw/golden/*.toml``; every number the seed states is asserted."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from envs.core.geometry import distance_to_front_edge, footprint_distance
from envs.core.replay import ReplayScript, play_labels
from envs.rulesets.acw_regimental.probes import melee_side
from tests.events import assert_event
from envs.rulesets.acw_regimental import queries

GOLDEN = Path(__file__).parent / "golden"
ROOT = Path(__file__).resolve().parents[2]


def _play(name: str, extra: list[str] | None = None):
    script = ReplayScript.load(GOLDEN / f"{name}.toml")
    state = script.play()
    if extra:
        play_labels(state, extra)
    return state


def _events(state, kind):
    return [e for e in state.events if e.kind == kind]


def _play_until(name: str, kind: str, nth: int = 1):
    """The state of golden script ``name`` just after the label that logged its ``nth`` event
    of ``kind`` (the position the event describes)."""
    script = ReplayScript.load(GOLDEN / f"{name}.toml")
    state = script.new_state()
    for label in script.actions:
        play_labels(state, [label])
        if len(_events(state, kind)) >= nth:
            return state
    raise AssertionError(f"{name}: no {kind!r} event #{nth}")


# -- Example A: Closing Volley (RULE-04-2.1 .. 2.6) ---------------------------------------------
def test_example_a_closing_volley():
    s = _play("example_a")
    brooklyn = s.units[0][0]
    virginia = s.units[1][0]
    assert_event(s, "charge", count=1, side=0, unit=0, target=0, dist=pytest.approx(8.0))
    # 1 Staff Pip spent on the declaration, 2 left (ACW-PD-23)
    declared = _play_until("example_a", "charge")
    script = ReplayScript.load(GOLDEN / "example_a.toml")
    before = script.play(upto=len(declared.history) - 1)
    assert (before.pips[0], declared.pips[0]) == (3, 2)
    assert_event(s, "window_b2", count=1)
    # B2 opens with the charger halted 4.00" from the Virginians' front edge (I-25)
    at_b2 = _play_until("example_a", "window_b2")
    assert distance_to_front_edge(at_b2.units[1][0].fp, at_b2.units[0][0].fp) == pytest.approx(
        4.0, abs=0.005)
    assert_event(s, "fire", count=1, dice=5, needed=3, band="short", mode="cv",
                 rules=["RULE-04-2.3"])
    assert_event(s, "hits", dice=[3, 3, 5, 2, 6], hits=4)
    assert not _events(s, "saves")  # open pasture: no cover save
    lost = [e for e in _events(s, "stand_lost") if e.side == 0]
    assert lost[0].data["n"] == 2 and lost[0].data["left"] == 3
    dis = [e for e in _events(s, "disorder") if e.side == 0]
    assert dis and dis[0].data["why"] == "natural 6" and "RULE-04-2.3" in dis[0].rules
    assert_event(s, "charge_check", count=1, roll=2, target=4, passed=False,
                 rules=["RULE-04-2.4"])
    assert_event(s, "charge_stalls", dist=2.0)
    assert distance_to_front_edge(virginia.fp, brooklyn.fp) == pytest.approx(2.0, abs=0.01)
    assert brooklyn.stands == 3 and brooklyn.disordered and brooklyn.hits == 0
    assert brooklyn.health.value == "worn"
    assert virginia.smoke >= 0  # smoke on the firer (RULE-04-2.6)
    assert not brooklyn.engaged and not virginia.engaged
    assert not _events(s, "contact") and not _events(s, "melee")
    assert _events(s, "no_melee")
    assert_event(s, "morale", modifier=-1, target=4, roll=5, passed=True)  # needs 5+


@pytest.mark.slow
def test_example_a_replay_cli_prints_rule_ids():
    out = subprocess.run([sys.executable, "-m", "envs", "replay",
                          str(GOLDEN / "example_a.toml")], cwd=ROOT, capture_output=True,
                         text=True, check=True).stdout
    # the Charge Discipline Check's log line, rule ids first, as the engine formats it
    check = assert_event(_play("example_a"), "charge_check", rules=["RULE-04-2.4"])
    assert check.format() in out and check.format().startswith("[RULE-04-2.4")
    assert "[RULE-04-2.6" in out


# -- Example B: Refuse the Flank (RULE-04-5.1 .. 5.4) -------------------------------------------
def test_example_b_refuse_flank():
    s = _play("example_b")
    indiana = s.units[0][0]
    nc = s.units[1][0]
    refuse = assert_event(s, "refuse", count=1)
    assert refuse.data == {"unit": 0, "flank": "right", "stands": 2, "pip": True}
    # no dice at all before the North Carolinians' fire (no Emergency Drill Check)
    first_fire = s.events.index(_events(s, "fire")[0])
    assert not [e for e in s.events[:first_fire] if e.kind == "die"]
    assert not _events(s, "drill_check")
    assert indiana.refused == "right" and indiana.refused_n == 2
    assert s.reserved[0] == 0
    # rifled musket Medium 5+, no enfilade +1
    assert_event(s, "fire", firer=0, target=0, band="medium", enfilade=False, needed=5,
                 refused_flank=True, rules=["RULE-04-5.4"])
    assert_event(s, "hits", hits=2)
    # a charge from that flank contacts frontally (no +2), and without the refusal it would not
    assert queries.contact_zone(s, nc, indiana) == "front"
    assert not queries.enfilade(s, nc, indiana)
    c = s.clone()
    c.units[0][0].refused, c.units[0][0].refused_n = "", 0
    assert queries.contact_zone(c, c.units[1][0], c.units[0][0]) == "right"
    assert queries.enfilade(c, c.units[1][0], c.units[0][0])


def test_example_b_refused_flank_gives_no_flank_melee_bonus():
    s = _play("example_b")
    nc, indiana = s.units[1][0], s.units[0][0]
    nc.zone = queries.contact_zone(s, nc, indiana)
    nc.charged = True
    side = melee_side(s, [nc], [indiana], defending=False)
    assert side.flank_or_rear is False
    nc.zone = "right"
    assert melee_side(s, [nc], [indiana], defending=False).flank_or_rear is True


# -- Example C: Opportunity Fire (RULE-04-3.1 .. 3.5) -------------------------------------------
def test_example_c_opportunity_fire():
    s = _play("example_c")
    wis = s.units[0][0]
    ga = s.units[1][0]
    win = _events(s, "window_a")
    assert [e.data["trigger"] for e in win] == ["opp_medium", "opp_short"]
    assert_event(s, "window_a", 1, defender=0, mover=0, trigger="opp_short")
    # the Short window opens with the Georgians 6.00" from the Wisconsin line
    at_short = _play_until("example_c", "window_a", nth=2)
    assert footprint_distance(at_short.units[0][0].fp, at_short.units[1][0].fp) == \
        pytest.approx(6.0, abs=0.005)
    assert_event(s, "fire", mode="opp", band="short", needed=4, dice=5, distance=6.0)
    assert_event(s, "hits", dice=[1, 4, 4, 6, 2], hits=3)
    assert_event(s, "hit_counter", stands=1, counter=1)
    assert ga.stands == 4 and ga.hits == 1 and ga.lost == 1 and ga.disordered
    halved = assert_event(s, "move_halved", rules=["RULE-04-3.5"])
    assert halved.data["remaining"] == pytest.approx(1.25, abs=0.02)
    assert ga.fp.x == pytest.approx(16.0 + 5.5 + 1.25, abs=0.02)
    assert wis.smoke >= 0 and wis.fired


def _to_union_phase2(extra=()):
    # Georgia's Morale Test (4 = pass), then the Union turn: reserve nothing
    return _play("example_c", ["d6=4", "reserve:0", *extra])


def test_example_c_firer_cannot_fire_in_its_next_phase3():
    s = _to_union_phase2(["end_phase"])
    wis = s.units[0][0]
    assert not [e for e in _events(s, "fire") if e.side == 0 and e.data["mode"] == "p3"]
    assert wis.smoke == -1  # expired at the end of the Union's own turn (ACW-PD-32)
    # and while it was smoked the Phase 3 check cited RULE-04-3.4
    s2 = _to_union_phase2()
    rules, _ = queries.can_fire_p3(s2, s2.units[0][0])
    assert "RULE-04-3.4" in rules


def test_example_c_firer_moving_out_of_smoke_may_fire():
    s = _to_union_phase2(["activate:u0", "advance:third", "end_activation"])
    assert _events(s, "smoke_left")
    assert s.decision_type() == "fire" and "fire:e0" in s.legal_labels()
    play_labels(s, ["fire:e0"])
    fire = [e for e in _events(s, "fire") if e.side == 0 and e.data["mode"] == "p3"][0]
    assert fire.data["moved"] is True
