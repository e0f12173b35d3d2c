"""One test (at least) per seed rule AL-1 … AL-27 (research §1 and §6), on small scenarios set up
by hand. Duel: Rell (team 0, position 1) at (3, 1) facing N; Blix (team 1, position 2) at
(3, 6) facing S, on alert."""

from __future__ import annotations

import pytest

from envs.core.errors import IllegalActionError
from envs.core.protocol import State
from envs.rulesets.skirmish_alert.legality import why_not
from envs.rulesets.skirmish_alert.params import DIRECTIONS
from envs.rulesets.skirmish_alert.reactions import difficulty

from .helpers import DUEL_START, fighter, game, kinds, play, tweak

N, S, E = DIRECTIONS.index("N"), DIRECTIONS.index("S"), DIRECTIONS.index("E")


def duel(*labels: str, **params):
    return play("duel", DUEL_START + list(labels), **params)


def test_al1_alert_costs_one_ap_and_is_refused_without_ap() -> None:
    s = duel("move:+0:+1", "alert:decline", "face:N", "alert")
    rell = fighter(s, "Rell")
    assert rell.on_alert and rell.ap == 1  # 3 - move 1 - alert 1
    s = duel()
    rell = fighter(s, "Rell")
    rell.ap = 0
    why = why_not(s, rell, s.game.acts[s.game.actions.id("alert")])
    assert why is not None and "AL-PD-15" in why.rules


def test_al2_alert_ends_the_turn() -> None:
    s = duel("alert")
    assert fighter(s, "Rell").ap == 2
    assert s.current_player() == 1 and s.decision_name() == "maintain_alert"  # Blix's turn


def test_al3_only_alert_fighters_are_asked() -> None:
    s = duel()
    fighter(s, "Blix").on_alert = False
    tweak(s)
    s.apply_action(s.string_to_action("move:+0:+1"))
    assert s.current_player() == 0 and s.decision_name() == "facing"
    assert kinds(s, "window_opened") == []


def test_al4_each_declared_action_opens_one_window_and_q8_exceptions_open_none() -> None:
    s = duel("move:+0:+1", "alert:decline")
    assert len(kinds(s, "window_opened")) == 1
    s2 = duel("pass")
    assert kinds(s2, "window_opened") == []
    s3 = duel("alert")
    assert kinds(s3, "window_opened") == []
    # the parameter: a pass may be made to trigger too
    s4 = duel("pass", non_triggering_actions=["alert", "keep_alert"])
    assert len(kinds(s4, "window_opened")) == 1 and s4.decision_name() == "reaction"


def test_al5_al14_success_pauses_the_actor_until_the_reaction_is_resolved() -> None:
    s = duel("move:+0:+2", "alert:attempt:f0", "d6=6", "d6=6")  # 12 + 2 vs 12
    rell = fighter(s, "Rell")
    assert s.decision_name() == "react" and s.current_player() == 1
    assert rell.pos == (3, 1)  # the declared move waits
    s.apply_action(s.string_to_action("react:none"))
    assert s.decision_name() == "facing" and fighter(s, "Rell").pos == (3, 3)


def test_al6_an_alert_fighter_reacts_even_after_acting_this_round() -> None:
    s = duel("move:+0:+1", "alert:decline", "face:N", "alert", "drop_alert", "move:+0:-1")
    assert fighter(s, "Rell").activated
    assert s.current_player() == 0 and s.decision_name() == "reaction"
    assert s.legal_labels() == ["alert:attempt:f0", "alert:decline"]


def test_al7_al27_alert_is_kept_for_one_ap_or_dropped_at_the_start_of_the_turn() -> None:
    s = duel("alert")
    assert s.legal_labels() == ["keep_alert", "drop_alert"]
    kept = play("duel", DUEL_START + ["alert", "keep_alert"])
    blix = fighter(kept, "Blix")
    assert blix.on_alert and blix.ap == 2
    assert kept.is_chance_node() and kept.round == 2  # Q6: the turn (and round) ended
    dropped = play("duel", DUEL_START + ["alert", "drop_alert"])
    blix = fighter(dropped, "Blix")
    assert not blix.on_alert and blix.ap == 3 and dropped.decision_name() == "action"


def test_al7_alert_carried_into_the_next_round_allows_a_reaction_first() -> None:
    # round 1: Rell goes on alert; Blix passes. Round 2: Blix wins the track and acts first.
    s = duel("alert", "drop_alert", "pass", "d6=1", "d6=1", "d6=6", "d6=6")
    assert fighter(s, "Blix").track_pos == 1 and fighter(s, "Rell").on_alert
    s.apply_action(s.string_to_action("move:+0:-1"))
    assert s.current_player() == 0 and s.decision_name() == "reaction"


@pytest.mark.parametrize("pos,expected", [(1, 12), (2, 12), (3, 10), (4, 10), (5, 8), (6, 8),
                                          (7, 6), (8, 6), (9, 6), (12, 6)])
def test_al8_al10_difficulty_read_from_the_opponents_position(pos: int, expected: int) -> None:
    for reactor in (1, 3, 6, 8):
        assert difficulty("absolute", 8, pos, reactor) == expected


def test_al11_al12_difficulty_never_increases_and_the_relative_mode() -> None:
    ds = [difficulty("absolute", 8, p, 1) for p in range(1, 11)]
    assert all(a >= b for a, b in zip(ds, ds[1:]))
    assert difficulty("relative", 8, 1, 6) == 12 and difficulty("relative", 8, 6, 1) == 8
    assert difficulty("relative", 8, 3, 4) == 10


def test_al9_no_reaction_against_a_fighter_behind_the_back() -> None:
    s = duel()
    fighter(s, "Blix").facing = N  # Rell is straight behind
    tweak(s)
    s.apply_action(s.string_to_action("move:+1:+0"))
    assert s.decision_name() == "facing"  # nobody asked
    assert kinds(s, "window_opened")[0]["eligible"] == []
    s = duel()
    blix = fighter(s, "Blix")
    blix.facing = DIRECTIONS.index("W")
    blix.x, blix.y = 6, 1  # Rell due west: in front
    tweak(s)
    s.apply_action(s.string_to_action("move:+0:+1"))
    assert s.decision_name() == "reaction"
    s = duel()
    blix = fighter(s, "Blix")
    blix.facing, blix.x, blix.y = N, 6, 1  # Rell exactly at 90 degrees: allowed (AL-PD-18)
    tweak(s)
    s.apply_action(s.string_to_action("pivot:E"))
    assert s.decision_name() == "reaction"


def test_al13_failure_loses_alert_and_the_action_goes_ahead() -> None:
    s = duel("move:+0:+2", "alert:attempt:f0", "d6=1", "d6=1", "face:N")
    blix = fighter(s, "Blix")
    assert not blix.on_alert and blix.attempted_turn == s.turn_id
    assert fighter(s, "Rell").pos == (3, 3) and s.decision_name() == "action"
    assert "rearm" not in [e.kind for e in s.events]


def test_al13_q5_rearm_after_failure_is_a_parameter() -> None:
    s = duel("move:+0:+2", "alert:attempt:f0", "d6=1", "d6=1", rearm_after_failure=True)
    fighter(s, "Blix")
    # Blix starts with 0 AP, so the window is skipped; give him one and try again
    s = duel(rearm_after_failure=True)
    fighter(s, "Blix").ap = 1
    tweak(s)
    for lab in ("move:+0:+2", "alert:attempt:f0", "d6=1", "d6=1"):
        s.apply_action(s.string_to_action(lab))
    assert s.decision_name() == "rearm" and s.legal_labels() == ["rearm", "rearm:decline"]


def test_al15_al16_the_menu_is_filtered_by_engagement() -> None:
    # Blix carries a healing draught and is hurt, so only engagement can keep it off the menu
    s = duel()
    blix = fighter(s, "Blix")
    blix.x, blix.y = 3, 3  # two squares in front of Rell: not engaged
    blix.ap = 1
    blix.items["draught"], blix.wounds = 1, 2
    tweak(s)
    for lab in ("pivot:E", "alert:attempt:f0", "d6=6", "d6=6"):
        s.apply_action(s.string_to_action(lab))
    menu = s.legal_labels()
    assert "react:shoot:e0" in menu and any(m.startswith("react:move:") for m in menu)
    assert "react:use:draught" in menu  # AL-16f: equipment when not engaged
    assert not any(m.startswith(("react:melee", "react:disengage")) for m in menu)
    assert "react:none" in menu
    s = duel()
    blix = fighter(s, "Blix")
    blix.x, blix.y = 3, 2  # adjacent: engaged
    blix.items["draught"], blix.wounds = 1, 2
    tweak(s)
    for lab in ("pivot:E", "alert:attempt:f0", "d6=6", "d6=6"):
        s.apply_action(s.string_to_action(lab))
    menu = s.legal_labels()
    assert "react:melee:e0" in menu and any(m.startswith("react:disengage:") for m in menu)
    assert not any(m.startswith(("react:shoot", "react:move:", "react:use")) for m in menu)
    with pytest.raises(IllegalActionError, match="react:shoot:e0"):
        s.apply_action(s.string_to_action("react:shoot:e0"))
    with pytest.raises(IllegalActionError, match="react:use:draught"):
        s.apply_action(s.string_to_action("react:use:draught"))


@pytest.mark.parametrize("blocked", [True, False])
def test_al16f_no_equipment_in_a_reaction_while_engaged_whatever_the_parameter(
        blocked: bool) -> None:
    """AL-16f bans equipment in a reaction while engaged; ``equipment_blocked_when_engaged``
    (AL-PD-15) only extends that ban to the fighter's own turn."""
    s = duel(equipment_blocked_when_engaged=blocked)
    blix = fighter(s, "Blix")
    blix.x, blix.y = 3, 2  # adjacent to Rell: engaged
    blix.items["draught"], blix.wounds = 1, 2
    tweak(s)
    for lab in ("pivot:E", "alert:attempt:f0", "d6=6", "d6=6"):
        s.apply_action(s.string_to_action(lab))
    assert s.decision_name() == "react"
    menu = s.legal_labels()
    assert "react:melee:e0" in menu and "react:use:draught" not in menu
    why = why_not(s, blix, s.game.acts[s.game.actions.id("react:use:draught")])
    assert why is not None and "AL-16" in why.rules
    # the parameter governs the own turn only: engaged Rell (draught, hurt) on his turn
    s = duel(equipment_blocked_when_engaged=blocked)
    rell, blix = fighter(s, "Rell"), fighter(s, "Blix")
    blix.x, blix.y, blix.on_alert = 3, 2, False
    rell.wounds = 1
    tweak(s)
    assert ("use:draught" in s.legal_labels()) is (not blocked)
    if not blocked:
        s.apply_action(s.string_to_action("use:draught"))
        assert rell.wounds == 3 and rell.items["draught"] == 0


def test_al17_the_reaction_need_not_target_the_trigger() -> None:
    s = play("three_teams", ["d6=6", "d6=6", "d6=5", "d6=5", "d6=6", "d6=5", "d6=3", "d6=3",
                             "d6=4", "d6=4", "move:+0:+1", "alert:attempt:f0", "d6=6", "d6=6"])
    birk = fighter(s, "Birk")  # team B's rifleman reacts to Ash's move by shooting team C
    menu = s.legal_labels()
    cinder = fighter(s, "Cinder")
    label = f"react:shoot:e{s.enemy_slot(birk.team, cinder.gid)}"
    assert label in menu
    s.apply_action(s.string_to_action(label))
    assert kinds(s, "reaction")[0]["action"] == label


def test_al19_al20_al21_rearm_limits_and_one_attempt_per_enemy_turn() -> None:
    # worked example: Moera moves and goes on alert (1 AP left); Rook's turn: she reacts and
    # re-arms (0 left); Rook declares again: she may not attempt twice in his turn (AL-21);
    # Nib's turn: she attempts again but cannot re-arm (AL-19, AL-20).
    start = ["d6=6", "d6=6", "d6=5", "d6=5", "d6=4", "d6=4", "d6=1", "d6=1", "d6=5", "d6=4",
             "d6=3", "d6=4"]
    s = play("worked_example", start + ["move:+1:+0", "alert:decline", "face:E", "alert", "pass",
                                         "move:-1:+0", "alert:attempt:f0", "d6=6", "d6=6",
                                         "react:none"])
    moera = fighter(s, "Moera")
    assert not moera.on_alert and s.decision_name() == "rearm"
    s.apply_action(s.string_to_action("rearm"))
    assert moera.on_alert and moera.ap == 0
    apply(s, "face:W", "move:-1:+0")  # Rook again
    window = kinds(s, "window_opened")[-1]
    assert window["eligible"] == []  # AL-21, and the event says why
    assert window["ineligible"] == [{"fighter": moera.gid, "rules": ["AL-21"], "reason":
                                     "Moera has already attempted a reaction during Rook's "
                                     "turn"}]
    for lab in ("face:W", "pass", "pass", "move:-1:+0", "alert:attempt:f0", "d6=6", "d6=6",
                "react:none"):
        s.apply_action(s.string_to_action(lab))  # Rook ends, Pim passes, Nib moves
    assert not moera.on_alert and s.decision_name() == "facing"  # no re-arm without AP
    assert len(kinds(s, "rearm")) == 1


def test_al22_same_team_order_is_the_controllers_choice() -> None:
    labels = ["d6=6", "d6=6", "d6=5", "d6=5", "d6=6", "d6=5", "d6=3", "d6=3", "d6=4", "d6=4",
              "move:+0:+1"]
    s = play("three_teams", labels)
    assert s.current_player() == 1 and s.legal_labels() == [
        "alert:attempt:f0", "alert:attempt:f1", "alert:decline"]


def test_al23_different_teams_by_track_position() -> None:
    labels = ["d6=6", "d6=6", "d6=5", "d6=5", "d6=6", "d6=5", "d6=3", "d6=3", "d6=4", "d6=4",
              "move:+0:+1", "alert:decline"]
    s = play("three_teams", labels)
    assert s.current_player() == 2  # Cinder (C) at 4 before Bale (B) at 5


def blocked_move(ap: int = 3, blix_at: tuple[int, int] = (5, 5)):
    """Rell (3, 1) declares move:+0:+4 (to (3, 5)) with ``ap`` AP; Blix (facing W, at
    ``blix_at``) passes his test and steps 2 squares west (by default onto (3, 5))."""
    s = duel()
    rell, blix = fighter(s, "Rell"), fighter(s, "Blix")
    rell.ap = ap
    blix.x, blix.y = blix_at
    blix.facing = DIRECTIONS.index("W")
    tweak(s)
    apply(s, "move:+0:+4", "alert:attempt:f0", "d6=6", "d6=6", "react:move:-2:+0", "face:S")
    return s, rell, blix


@pytest.mark.parametrize("ap", [3, 1])
def test_al25_al_pd_20_a_blocked_move_may_pick_another_destination(ap: int) -> None:
    s, rell, blix = blocked_move(ap)
    assert blix.pos == (3, 5) and rell.pos == (3, 1) and rell.ap == ap - 1
    # Rell is asked (an "action" decision of his own turn, about the blocked move:+0:+4):
    # any square he can reach within his MOV by a free path, the AP already paid (AL-PD-20,
    # AL-PD-35), or pass (stay): the 8 x 6 squares within 4 of (3, 1) but his own and Blix's
    assert s.current_player() == 0 and s.decision_name() == "action"
    assert s.stack.top.kind == "alert.redirect"
    redirects = s.legal_labels()[:-1]
    assert s.legal_labels()[-1] == "pass" and len(redirects) == 46
    assert "move:+0:+4" not in redirects and "move:+1:+4" in redirects
    ctx = s.decision_context(0)
    assert ctx.trigger == "move:+0:+4" and ctx.actor == rell.gid == ctx.fighter
    blocked = kinds(s, "move_blocked")
    assert blocked == [{"fighter": rell.gid, "action": "move:+0:+4", "options": redirects}]
    with pytest.raises(IllegalActionError):
        s.apply_action(s.string_to_action("move:+0:+4"))  # Blix stands on (3, 5)
    back = State.from_json(s.to_json())  # the waiting choice survives a JSON round trip
    assert back.stack.top.kind == "alert.redirect" and back.legal_labels()[:-1] == redirects
    apply(back, "move:+2:+2", "face:NE")
    assert fighter(back, "Rell").pos == (5, 3)
    apply(s, "move:+2:+2")
    assert s.decision_name() == "facing" and s.current_player() == 0  # AL-PD-15
    apply(s, "face:W")
    assert rell.pos == (5, 3) and DIRECTIONS[rell.facing] == "W" and rell.ap == ap - 1
    assert len(kinds(s, "window_opened")) == 1  # the new destination opens no window
    if ap > 1:  # AL-24: his turn goes on
        assert s.current_player() == 0 and s.decision_name() == "action"
        assert s.stack.top.kind == "alert.turn" and "alert" in s.legal_labels()
    else:  # no AP left: Blix's turn (his alert ended with his reaction, AL-19)
        assert s.current_player() == 1 and s.stack.top.kind == "alert.turn"
        assert s.stack.top.fighter == blix.gid and rell.ap == 0


def test_al25_a_blocked_move_may_stop_short_or_stay() -> None:
    s, rell, _ = blocked_move()
    apply(s, "move:+0:+3", "face:N")  # short of the square Blix took
    assert rell.pos == (3, 4) and rell.ap == 2
    assert s.stack.top.kind == "alert.turn" and s.decision_name() == "action"
    s, rell, _ = blocked_move()
    apply(s, "pass")  # here: keep the square; the turn is not ended (AL-24)
    assert rell.pos == (3, 1) and rell.ap == 2 and rell.facing == N
    assert kinds(s, "move_stopped") == [{"fighter": rell.gid, "action": "move:+0:+4",
                                         "at": [3, 1], "asked": True}]
    assert s.current_player() == 0 and s.stack.top.kind == "alert.turn"
    assert "alert" in s.legal_labels() and kinds(s, "pass") == []


def test_al25_a_move_goes_round_a_fighter_that_stepped_into_its_way() -> None:
    # AL-PD-15, AL-25: Blix steps onto (3, 3), on the straight line to (3, 5); a free path
    # round him still reaches (3, 5) within MOV 4, so the move goes ahead unasked
    s, rell, blix = blocked_move(blix_at=(5, 3))
    assert blix.pos == (3, 3) and s.decision_name() == "facing"
    assert rell.pos == (3, 5) and kinds(s, "move_blocked") == []


def test_al25_a_blocked_move_with_no_legal_destination_stays_unasked() -> None:
    # Blix steps onto (3, 2): in contact with Rell, so every move of Rell's is illegal
    # (engaged: AL-PD-19); nobody is asked and Rell stays
    s, rell, blix = blocked_move(blix_at=(5, 2))
    assert blix.pos == (3, 2) and rell.pos == (3, 1)
    assert kinds(s, "move_blocked") == []
    assert kinds(s, "move_stopped") == [{"fighter": rell.gid, "action": "move:+0:+4",
                                         "at": [3, 1], "asked": False}]
    assert s.stack.top.kind == "alert.turn" and "melee:e0" in s.legal_labels()


def test_al25_al_pd_20_a_charge_whose_destination_is_taken_may_pick_another() -> None:
    # worked example: Moera charges Gammeg (5, 7); her destination, fixed on declaration, is
    # (4, 6). Rook (on alert by hand, at (3, 6) facing E) reacts first and steps onto (4, 6);
    # Gammeg then steps 4 north out of her reach: the attack is lost, the charge's move
    # cannot reach (4, 6), and Moera may pick another destination (AL-PD-20)
    s = play("worked_example", WORKED_START)
    moera, gammeg, rook = fighter(s, "Moera"), fighter(s, "Gammeg"), fighter(s, "Rook")
    rook.x, rook.y, rook.facing, rook.on_alert = 3, 6, DIRECTIONS.index("E"), True
    tweak(s)
    apply(s, "charge:e0:SW")
    assert (s.stack.top.kind, s.stack.frames[3].dest_x, s.stack.frames[3].dest_y) == (
        "alert.attempt_window", 4, 6)
    apply(s, "alert:attempt:f1", "d6=6", "d6=6", "react:move:+1:+0", "face:E",  # Rook: 12 + 1
          "alert:attempt:f0", "d6=6", "d6=5", "react:move:+0:+4", "face:N")  # Gammeg: 11 + 1
    assert rook.pos == (4, 6) and gammeg.pos == (5, 11) and moera.pos == (5, 3)
    assert [e["action"] for e in kinds(s, "attack_lost")] == ["charge:e0:SW"]
    assert kinds(s, "charge_move") == [] and moera.ap == 1
    assert s.stack.top.kind == "alert.redirect" and s.decision_name() == "action"
    assert s.decision_context(0).trigger == "charge:e0:SW"
    assert "move:+0:+4" in s.legal_labels() and "pass" in s.legal_labels()
    apply(s, "move:+0:+2", "face:N")
    assert moera.pos == (5, 5) and moera.ap == 1 and kinds(s, "attack") == []
    assert s.current_player() == 0 and s.stack.top.kind == "alert.turn"


def test_al26_knocked_down_actor_loses_a_move() -> None:
    s = duel()
    blix = fighter(s, "Blix")
    blix.x, blix.y, blix.facing = 3, 2, S
    blix.melee_weapon = "hammer"
    blix.mel = 4
    tweak(s)
    for lab in ("pivot:E", "alert:attempt:f0", "d6=6", "d6=6", "react:melee:e0", "d6=4",
                "d6=4"):
        s.apply_action(s.string_to_action(lab))
    rell = fighter(s, "Rell")
    assert rell.knocked_down and rell.facing == N  # the pivot was lost
    assert kinds(s, "action_lost")[0]["action"] == "pivot:E"


def test_before_effect_timing_moves_first() -> None:
    s = duel("move:+0:+2", reaction_timing="before_effect")
    assert fighter(s, "Rell").pos == (3, 3) and s.decision_name() == "facing"
    apply(s, "face:E")
    assert DIRECTIONS[fighter(s, "Rell").facing] == "E" and s.decision_name() == "reaction"


def test_reaction_action_cost_parameter() -> None:
    s = duel(reaction_action_costs_ap=True)
    blix = fighter(s, "Blix")
    blix.ap = 0
    tweak(s)
    for lab in ("move:+0:+1", "alert:attempt:f0", "d6=6", "d6=6"):
        s.apply_action(s.string_to_action(lab))
    assert s.legal_labels() == ["react:none"]  # nothing is affordable


def test_illegal_action_names_action_fighter_and_legal_labels() -> None:
    s = duel()
    with pytest.raises(IllegalActionError) as e:
        s.apply_action(s.string_to_action("melee:e0"))
    msg = str(e.value)
    assert "melee:e0" in msg and "Rell" in msg and "move:+0:+1" in msg


def test_returns_sum_to_zero_for_any_team_count() -> None:
    import numpy as np
    from envs.core.chance import sample_chance_outcome

    for sc in ("duel", "three_teams", "ffa4"):
        g = game(sc)
        s = g.new_initial_state()
        rng = np.random.default_rng(1)
        while not s.is_terminal():
            if s.is_chance_node():
                s.apply_action(sample_chance_outcome(s, rng))
            else:
                s.apply_action(int(rng.choice(s.legal_actions())))
        r = s.returns()
        assert len(r) == g.num_players and abs(sum(r)) < 1e-9
        pl = s.placements()
        assert all(r[i] > r[j] for i in range(len(r)) for j in range(len(r)) if pl[i] < pl[j])


def test_q7_round_start_maintain_timing() -> None:
    """maintain_timing="round_start" (research Q7): the keep-or-drop of AL-27 is asked once the
    track is placed, before anyone acts; a kept alert costs 1 AP of the coming turn and (Q6)
    is that whole turn; a dropped one opens no window (AL-7)."""
    s = duel(maintain_timing="round_start")
    assert s.current_player() == 1 and s.decision_name() == "maintain_alert"  # Blix, pos 2
    assert fighter(s, "Rell").activated is False
    kept = play("duel", DUEL_START + ["keep_alert"], maintain_timing="round_start")
    assert kept.current_player() == 0 and kept.decision_name() == "action"  # Rell's turn
    kept.apply_action(kept.string_to_action("move:+0:+1"))
    assert kept.decision_name() == "reaction" and kept.current_player() == 1
    apply(kept, "alert:decline", "face:N", "pass")
    # Blix's turn began with 3 - 1 AP and ended at once, still on alert (asked nothing):
    # round 2's initiative rolls come next, then the round-start question again
    blix = fighter(kept, "Blix")
    turns = [e.format() for e in kept.events if e.kind == "turn" and "Blix" in e.format()]
    assert len(turns) == 1 and f"with {blix.ap_max - 1} AP" in turns[0]
    assert [e.data["fighter"] for e in kept.events if e.kind == "alert_kept"] == [blix.gid]
    assert blix.on_alert and kept.round == 2 and kept.is_chance_node()
    for lab in DUEL_START:
        kept.apply_action(kept.string_to_action(lab))
    assert kept.decision_name() == "maintain_alert" and kept.current_player() == 1
    dropped = play("duel", DUEL_START + ["drop_alert", "move:+0:+1"],
                   maintain_timing="round_start")
    assert not fighter(dropped, "Blix").on_alert
    assert dropped.decision_name() == "facing" and dropped.current_player() == 0
    assert kinds(dropped, "window_opened") == []
    # the default asks at the fighter's own turn instead (PD-11)
    s = duel()
    assert s.current_player() == 0 and s.decision_name() == "action"
    with pytest.raises(ValueError):
        game("duel", maintain_timing="never")


# -- AL-18, AL-24: a declared blow or shot resolves unless its target got out of reach -------
#: dodge scenario initiative: Moera 6+6+3 = 15 (position 1), Gammeg 1+1 = 2 (position 2)
DODGE_START = ["d6=6", "d6=6", "d6=1", "d6=1"]


def moera_vs_gammeg(ap: int, gammeg_at: tuple[int, int] = (5, 6), alert: bool = True):
    """The dodge scenario with Moera (5, 2) facing N given a pistol (range 6, SHO 2) and
    ``ap`` AP; Gammeg (REF 4, facing S) at ``gammeg_at``, on alert or not."""
    s = play("dodge", DODGE_START)
    m, g = fighter(s, "Moera"), fighter(s, "Gammeg")
    m.ranged_weapon, m.sho, m.ap = "pistol", 2, ap
    g.x, g.y = gammeg_at
    g.on_alert = alert
    tweak(s)
    return s, m, g


def apply(s, *labels: str) -> None:
    for lab in labels:
        s.apply_action(s.string_to_action(lab))


@pytest.mark.parametrize("ap", [1, 3])
def test_al18_al24_a_shot_resolves_even_when_paid_with_the_last_ap(ap: int) -> None:
    # no window: Gammeg is not on alert
    s, m, g = moera_vs_gammeg(ap, alert=False)
    apply(s, "shoot:e0")
    assert kinds(s, "attack_lost") == [] and s.is_chance_node() and m.ap == ap - 1
    apply(s, "d6=4", "d6=3")  # 7 + SHO 2 = 9 vs 7 + DEF 1 + long range (4 > 6/2) 1 = 9
    shot = kinds(s, "attack")
    assert [(a["roll"], a["total"], a["needed"], a["hit"], a["ranged"]) for a in shot] == [
        (7, 9, 9, True, True)]
    assert g.wounds == 3  # pistol dmg 1 - ARM 0
    # a window in which Gammeg passes his test and stays put (AL-14, AL-24)
    s, m, g = moera_vs_gammeg(ap)
    apply(s, "shoot:e0", "alert:attempt:f0", "d6=4", "d6=4", "react:none")
    assert kinds(s, "attack_lost") == [] and s.is_chance_node() and m.ap == ap - 1
    apply(s, "d6=4", "d6=3")
    assert [(a["total"], a["hit"]) for a in kinds(s, "attack")] == [(9, True)]
    assert g.wounds == 3


@pytest.mark.parametrize("ap", [1, 3])
def test_al18_al24_a_blow_resolves_even_when_paid_with_the_last_ap(ap: int) -> None:
    s, m, g = moera_vs_gammeg(ap, gammeg_at=(5, 3), alert=False)
    apply(s, "melee:e0")
    assert kinds(s, "attack_lost") == [] and s.is_chance_node() and m.ap == ap - 1
    apply(s, "d6=3", "d6=2")  # 5 + MEL 3 = 8 vs 7 + DEF 1 = 8: hammer, dmg 2, impact
    assert [(a["roll"], a["total"], a["needed"], a["hit"]) for a in kinds(s, "attack")] == [
        (5, 8, 8, True)]
    assert g.wounds == 2 and g.knocked_down
    s, m, g = moera_vs_gammeg(ap, gammeg_at=(5, 3))
    apply(s, "melee:e0", "alert:attempt:f0", "d6=4", "d6=4", "react:none", "d6=3", "d6=2")
    assert kinds(s, "attack_lost") == [] and g.wounds == 2 and g.knocked_down


@pytest.mark.parametrize("ap", [1, 3])
def test_al18_a_shot_is_lost_only_when_the_target_leaves_its_range(ap: int) -> None:
    # Gammeg steps 1 north to (5, 7): 5 squares, still in the pistol's range 6 -> resolves
    s, m, g = moera_vs_gammeg(ap)
    apply(s, "shoot:e0", "alert:attempt:f0", "d6=4", "d6=4", "react:move:+0:+1", "face:N")
    assert g.pos == (5, 7) and kinds(s, "attack_lost") == [] and s.is_chance_node()
    apply(s, "d6=4", "d6=3")  # 7 + 2 + 1 (Moera is now behind him) = 10 vs 9
    assert [(a["total"], a["needed"], a["hit"]) for a in kinds(s, "attack")] == [(10, 9, True)]
    # Gammeg steps 4 north to (5, 10): 8 squares, out of range 6 -> lost, AP stays spent
    s, m, g = moera_vs_gammeg(ap)
    apply(s, "shoot:e0", "alert:attempt:f0", "d6=4", "d6=4", "react:move:+0:+4", "face:N")
    assert g.pos == (5, 10)
    lost = kinds(s, "attack_lost")
    assert len(lost) == 1 and lost[0]["action"] == "shoot:e0" and lost[0]["target"] == g.gid
    assert kinds(s, "attack") == [] and not s.is_chance_node() and m.ap == ap - 1


@pytest.mark.parametrize("ap", [1, 3])
def test_al18_a_blow_is_lost_only_when_the_target_leaves_contact(ap: int) -> None:
    # Gammeg disengages 2 north to (5, 5): no longer in contact -> the blow is lost
    s, m, g = moera_vs_gammeg(ap, gammeg_at=(5, 3))
    apply(s, "melee:e0", "alert:attempt:f0", "d6=4", "d6=4", "react:disengage:+0:+2",
          "face:N")
    assert g.pos == (5, 5)
    lost = kinds(s, "attack_lost")
    assert len(lost) == 1 and lost[0]["action"] == "melee:e0"
    assert kinds(s, "attack") == [] and not s.is_chance_node() and m.ap == ap - 1
    assert g.wounds == 4


#: worked example initiative: Moera 1, Ulf 2, Rook 3, Pim 4, Nib 5, Gammeg 6
WORKED_START = ["d6=6", "d6=6", "d6=5", "d6=5", "d6=4", "d6=4", "d6=1", "d6=1", "d6=5",
                "d6=4", "d6=3", "d6=4"]


def test_al20_two_rearms_in_one_turn_cycle_while_ap_lasts() -> None:
    # Moera goes on alert at once (2 AP left), reacts to Rook (position 3, difficulty 10) and
    # re-arms (1 left), then reacts to Nib (position 5, difficulty 8) and re-arms again (0
    # left): no cap but her AP (AL-20); each re-arm costs 1 AP (AL-19)
    s = play("worked_example", WORKED_START + ["alert", "pass", "move:-1:+0", "alert:attempt:f0",
                                               "d6=6", "d6=6", "react:none"])
    moera = fighter(s, "Moera")
    assert moera.ap == 2 and s.decision_name() == "rearm" and "rearm" in s.legal_labels()
    apply(s, "rearm")
    assert moera.on_alert and moera.ap == 1
    apply(s, "face:W", "pass", "pass", "move:-1:+0")  # Rook ends, Pim passes, Nib moves
    assert s.decision_name() == "reaction" and s.legal_labels() == ["alert:attempt:f0",
                                                                    "alert:decline"]
    apply(s, "alert:attempt:f0", "d6=3", "d6=3", "react:none")  # 6 + REF 2 = 8 vs 8
    assert [(t["total"], t["difficulty"]) for t in kinds(s, "aptitude_test")] == [(14, 10),
                                                                                 (8, 8)]
    assert s.decision_name() == "rearm" and "rearm" in s.legal_labels()
    apply(s, "rearm")
    assert moera.on_alert and moera.ap == 0
    assert [r["ap"] for r in kinds(s, "rearm")] == [1, 0]
    assert s.round == 1 and not fighter(s, "Gammeg").activated  # one turn cycle of Moera's


def test_al_pd_29_a_knocked_down_fighter_cannot_react() -> None:
    from envs.rulesets.skirmish_alert.reactions import why_not_eligible

    # control: Blix on alert and standing is eligible and asked
    s = duel("move:+0:+1")
    assert s.decision_name() == "reaction" and kinds(s, "window_opened")[0]["eligible"] == [
        fighter(s, "Blix").gid]
    # E5: knocked down (still flagged on alert), Blix is not eligible and nobody is asked
    s = duel()
    blix = fighter(s, "Blix")
    blix.knocked_down = True
    assert blix.on_alert
    tweak(s)
    s.apply_action(s.string_to_action("move:+0:+1"))
    assert kinds(s, "window_opened")[0]["eligible"] == [] and kinds(s, "attempt") == []
    assert kinds(s, "window_opened")[0]["ineligible"] == [
        {"fighter": blix.gid, "rules": ["AL-PD-29"], "reason": "Blix is knocked down"}]
    assert s.decision_name() == "facing" and s.current_player() == 0
    assert fighter(s, "Rell").pos == (3, 2)

    class Window:  # the declaration Rell made from (3, 2)
        subject, decl_x, decl_y = fighter(s, "Rell").gid, 3, 2
    why = why_not_eligible(s, blix.gid, Window)
    assert why is not None and why.rules == ("AL-PD-29",)
    # and a knocked-down fighter cannot go on alert either (AL-PD-29, AL-PD-11)
    s = duel()
    rell = fighter(s, "Rell")
    rell.knocked_down = True
    tweak(s)
    assert "alert" not in s.legal_labels() and s.legal_labels() == ["stand_up", "pass"]


def test_al18_q1_a_charge_follows_a_target_that_stays_within_its_reach() -> None:
    # Gammeg steps 1 north to (5, 7): 5 squares from Moera, and the square she chose, (4, 5),
    # is no longer next to him; but (4, 6), (5, 6) and (6, 6) are 4 away, within her MOV 4,
    # so the charge is not lost (AL-18): she picks one again (Q1, AL-PD-20) and strikes
    s = play("dodge", DODGE_START + ["charge:e0:SW", "alert:attempt:f0", "d6=4", "d6=4",
                                     "react:move:+0:+1", "face:N"])
    assert s.stack.top.kind == "alert.charge_square" and s.decision_name() == "action"
    assert s.legal_labels() == ["charge:e0:SE", "charge:e0:S", "charge:e0:SW"]
    assert s.decision_context(0).trigger == "charge:e0:SW"
    apply(s, "charge:e0:SW")
    moera, gammeg = fighter(s, "Moera"), fighter(s, "Gammeg")
    assert gammeg.pos == (5, 7) and moera.pos == (4, 6) and moera.ap == 1
    assert kinds(s, "attack_lost") == [] and s.is_chance_node()
    assert kinds(s, "charge_move") == [{"fighter": moera.gid, "target": gammeg.gid,
                                        "to": [4, 6], "attack": True}]
    apply(s, "d6=2", "d6=2")  # 4 + MEL 3 + 1 charging + 1 from his rear = 9 vs 7 + DEF 1
    blows = kinds(s, "attack")
    assert [(b["roll"], b["total"], b["needed"], b["hit"], b["charge"]) for b in blows] == [
        (4, 9, 8, True, True)]
    assert gammeg.wounds == 2 and gammeg.knocked_down  # hammer: dmg 2, impact
