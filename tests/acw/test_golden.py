"""Golden tests: the seed's worked examples A, B and C (RULINGS item 2) replayed with their
exact dice from ``tests/acw/golden/*.toml``; every number the seed states is asserted."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from envs.core.geometry import distance_to_front_edge
from envs.core.replay import ReplayScript, play_labels

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


# -- Example A: Closing Volley (RULE-04-2.1 .. 2.6) ---------------------------------------------
def test_example_a_closing_volley():
    s = _play("example_a")
    brooklyn = s.units[0][0]
    virginia = s.units[1][0]
    charge = _events(s, "charge")
    assert len(charge) == 1 and "1 Staff Pip spent, 2 left" in charge[0].text
    assert charge[0].data["dist"] == pytest.approx(8.0)
    b2 = _events(s, "window_b2")
    assert len(b2) == 1 and "4.00\"" in b2[0].text
    fire = _events(s, "fire")
    assert len(fire) == 1
    assert fire[0].data["dice"] == 5 and fire[0].data["needed"] == 3
    assert fire[0].data["band"] == "short" and fire[0].data["mode"] == "cv"
    assert "RULE-04-2.3" in fire[0].rules
    hits = _events(s, "hits")
    assert hits[0].data["dice"] == [3, 3, 5, 2, 6] and hits[0].data["hits"] == 4
    assert not _events(s, "saves")  # open pasture: no cover save
    lost = [e for e in _events(s, "stand_lost") if e.side == 0]
    assert lost[0].data["n"] == 2 and lost[0].data["left"] == 3
    dis = [e for e in _events(s, "disorder") if e.side == 0]
    assert dis and dis[0].data["why"] == "natural 6" and "RULE-04-2.3" in dis[0].rules
    check = _events(s, "charge_check")
    assert len(check) == 1
    assert check[0].data["roll"] == 2 and check[0].data["target"] == 4
    assert check[0].data["passed"] is False and "RULE-04-2.4" in check[0].rules
    stall = _events(s, "charge_stalls")
    assert stall[0].data["dist"] == pytest.approx(2.0, abs=0.01)
    assert distance_to_front_edge(virginia.fp, brooklyn.fp) == pytest.approx(2.0, abs=0.01)
    assert brooklyn.stands == 3 and brooklyn.disordered and brooklyn.hits == 0
    assert brooklyn.health.value == "worn"
    assert virginia.smoke >= 0  # smoke on the firer (RULE-04-2.6)
    assert not brooklyn.engaged and not virginia.engaged
    assert not _events(s, "contact") and not _events(s, "melee")
    assert _events(s, "no_melee")
    morale = _events(s, "morale")
    assert morale[0].data["modifier"] == -1 and morale[0].data["target"] == 4  # needs 5+
    assert morale[0].data["roll"] == 5 and morale[0].data["passed"] is True


def test_example_a_replay_cli_prints_rule_ids():
    out = subprocess.run([sys.executable, "-m", "envs", "replay",
                          str(GOLDEN / "example_a.toml")], cwd=ROOT, capture_output=True,
                         text=True, check=True).stdout
    assert "[RULE-04-2.4" in out and "Charge Discipline Check 2 vs 4+" in out
    assert "[RULE-04-2.6" in out


# -- Example B: Refuse the Flank (RULE-04-5.1 .. 5.4) -------------------------------------------
def test_example_b_refuse_flank():
    s = _play("example_b")
    indiana = s.units[0][0]
    nc = s.units[1][0]
    refuse = _events(s, "refuse")
    assert len(refuse) == 1
    assert refuse[0].data == {"unit": 0, "flank": "right", "stands": 2, "pip": True}
    # no dice at all before the North Carolinians' fire (no Emergency Drill Check)
    first_fire = s.events.index(_events(s, "fire")[0])
    assert not [e for e in s.events[:first_fire] if e.kind == "die"]
    assert not _events(s, "drill_check")
    assert indiana.refused == "right" and indiana.refused_n == 2
    assert s.reserved[0] == 0
    fire = _events(s, "fire")[0]
    assert fire.data["firer"] == 0 and fire.data["target"] == 0
    assert fire.data["band"] == "medium" and fire.data["enfilade"] is False
    assert fire.data["needed"] == 5  # rifled musket Medium 5+, no enfilade +1
    assert fire.data["refused_flank"] is True and "RULE-04-5.4" in fire.rules
    assert _events(s, "hits")[0].data["hits"] == 2
    # a charge from that flank contacts frontally (no +2), and without the refusal it would not
    assert s.contact_zone(nc, indiana) == "front"
    assert not s.enfilade(nc, indiana)
    c = s.clone()
    c.units[0][0].refused, c.units[0][0].refused_n = "", 0
    assert c.contact_zone(c.units[1][0], c.units[0][0]) == "right"
    assert c.enfilade(c.units[1][0], c.units[0][0])


def test_example_b_refused_flank_gives_no_flank_melee_bonus():
    s = _play("example_b")
    nc, indiana = s.units[1][0], s.units[0][0]
    nc.zone = s.contact_zone(nc, indiana)
    nc.charged = True
    side = s._melee_side([nc], [indiana], is_def=False)
    assert side.flank_or_rear is False
    nc.zone = "right"
    assert s._melee_side([nc], [indiana], is_def=False).flank_or_rear is True


# -- Example C: Opportunity Fire (RULE-04-3.1 .. 3.5) -------------------------------------------
def test_example_c_opportunity_fire():
    s = _play("example_c")
    wis = s.units[0][0]
    ga = s.units[1][0]
    win = _events(s, "window_a")
    assert [e.data["trigger"] for e in win] == ["opp_medium", "opp_short"]
    assert "(6.00\")" in win[1].text
    fire = _events(s, "fire")[0]
    assert fire.data["mode"] == "opp" and fire.data["band"] == "short"
    assert fire.data["needed"] == 4 and fire.data["dice"] == 5
    assert fire.data["distance"] == pytest.approx(6.0, abs=0.01)
    hits = _events(s, "hits")[0]
    assert hits.data["dice"] == [1, 4, 4, 6, 2] and hits.data["hits"] == 3
    hc = _events(s, "hit_counter")[0]
    assert hc.data["stands"] == 1 and hc.data["counter"] == 1
    assert ga.stands == 4 and ga.hits == 1 and ga.lost == 1 and ga.disordered
    halved = _events(s, "move_halved")[0]
    assert halved.data["remaining"] == pytest.approx(1.25, abs=0.02)
    assert "RULE-04-3.5" in halved.rules
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
    rules, _ = s2.can_fire_p3(s2.units[0][0])
    assert "RULE-04-3.4" in rules


def test_example_c_firer_moving_out_of_smoke_may_fire():
    s = _to_union_phase2(["activate:u0", "advance:third", "end_activation"])
    assert _events(s, "smoke_left")
    assert s.decision_type() == "fire" and "fire:e0" in s.legal_labels()
    play_labels(s, ["fire:e0"])
    fire = [e for e in _events(s, "fire") if e.side == 0 and e.data["mode"] == "p3"][0]
    assert fire.data["moved"] is True
