"""Golden tests of seed 001: the worked example (AL-11, AL-12) as a unit test of the difficulty
and as a replay; the dodge (AL-18), knockdown (AL-26) and three-team ordering (AL-22, AL-23)
cases (research §6 items 1, 8, 9, 10)."""

from __future__ import annotations

from envs.rulesets.skirmish_alert.params import DIRECTIONS
from envs.rulesets.skirmish_alert.reactions import difficulty

from .helpers import fighter, kinds, replay


def test_worked_example_difficulty_unit() -> None:
    # AL-11: Gammeg at 6 reacting to Moera at 1 needs 12; AL-12: the reverse needs 8
    assert difficulty("absolute", 8, actor_pos=1, reactor_pos=6) == 12
    assert difficulty("absolute", 8, actor_pos=6, reactor_pos=1) == 8


def test_worked_example_replay() -> None:
    s = replay("worked_example")
    track = kinds(s, "initiative")[0]["track"]
    moera, gammeg = fighter(s, "Moera"), fighter(s, "Gammeg")
    assert (moera.track_pos, gammeg.track_pos) == (1, 6)
    assert track[0] == moera.gid and track[-1] == gammeg.gid
    decl = kinds(s, "declare")[0]
    assert decl["action"] == "charge:e0:SW" and decl["target"] == gammeg.gid
    window = kinds(s, "window_opened")[0]
    assert window["actor"] == moera.gid and window["eligible"] == [gammeg.gid]
    first, second = kinds(s, "attempt")
    assert (first["fighter"], first["actor"], first["difficulty"]) == (gammeg.gid, moera.gid, 12)
    assert (second["fighter"], second["actor"], second["difficulty"]) == (moera.gid, gammeg.gid, 8)
    tests = kinds(s, "aptitude_test")
    assert [(t["total"], t["difficulty"], t["success"]) for t in tests] == [(8, 12, False),
                                                                            (9, 8, True)]
    assert s.decision_name() == "react" and s.current_player() == moera.team


def test_dodge_cancels_the_attack_but_not_the_charges_move() -> None:
    s = replay("dodge", upto=10)  # Gammeg has moved away; the charge resolves
    moera, gammeg = fighter(s, "Moera"), fighter(s, "Gammeg")
    assert gammeg.pos == (5, 10)
    lost = kinds(s, "attack_lost")
    assert len(lost) == 1 and lost[0]["fighter"] == moera.gid
    assert kinds(s, "attack") == []  # no blow was rolled
    # AL-25, AL-PD-20: the movement part is still made, to the destination fixed when the
    # charge was declared (the square she chose next to Gammeg then, Q1), facing him
    assert kinds(s, "charge_move") == [{"fighter": moera.gid, "target": gammeg.gid,
                                        "to": [4, 5], "attack": False}]
    assert moera.ap == 1 and moera.pos == (4, 5)  # 2 AP spent
    assert DIRECTIONS[moera.facing] == "N"
    assert s.decision_name() == "action" and s.current_player() == moera.team
    s = replay("dodge")  # AL-24, AL-25: she goes on moving with her last AP
    assert fighter(s, "Moera").pos == (4, 9) and fighter(s, "Moera").ap == 0


def test_knockdown_cancels_the_action() -> None:
    s = replay("knockdown", upto=11)
    moera, gammeg = fighter(s, "Moera"), fighter(s, "Gammeg")
    assert gammeg.knocked_down
    lost = kinds(s, "action_lost")
    assert lost == [{"fighter": gammeg.gid, "action": "melee:e0"}]
    assert [a["attacker"] for a in kinds(s, "attack")] == [moera.gid]  # only her blow
    assert gammeg.ap == 2  # the blow's AP stays spent
    assert s.legal_labels() == ["stand_up", "pass"]  # AL-PD-11: stand up first
    s = replay("knockdown")
    assert not fighter(s, "Gammeg").knocked_down and fighter(s, "Gammeg").ap == 1


def test_three_team_ordering() -> None:
    s = replay("three_teams")
    birk, bale, cinder = (fighter(s, n) for n in ("Birk", "Bale", "Cinder"))
    assert (birk.track_pos, cinder.track_pos, bale.track_pos) == (2, 4, 5)
    window = kinds(s, "window_opened")[0]
    assert window["slots"] == [[2, 1], [4, 2], [5, 1]]  # AL-23: by track position
    # AL-22: team B used its first slot for Bale (its choice), then C, then B's Birk
    assert [a["fighter"] for a in kinds(s, "attempt")] == [bale.gid, cinder.gid, birk.gid]
    assert fighter(s, "Ash").pos == (6, 3)  # AL-24, AL-25: the move then goes ahead
