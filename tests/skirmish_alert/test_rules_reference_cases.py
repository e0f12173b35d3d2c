"""Tests of the skirmish alert rules that no test named before the rules reference was written
(docs/rules/skirmish_alert.md): the defaults AL-PD-n, the resolved ambiguities Qn and AL-28.
Each builds a small board (a scenario TOML written here) and plays it through the public
protocol: labels, chance outcomes ``d6=N`` chosen by the test, and the logged events.

Initiative: every fighter rolls two dice in the scenario's order, so ``INI_FIRST`` puts the
first fighter (INI 3) at position 1 and the second at position 2."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from envs import load_game
from envs.core.errors import IllegalActionError
from envs.core.replay import play_labels

#: two fighters: the first rolls 6+6 (+INI), the second 1+1
INI_FIRST = ["d6=6", "d6=6", "d6=1", "d6=1"]
F = 4  #: fighter slots per team (``gid = team * F + slot``)


def _toml(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml(item) for item in value) + "]"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{key} = {_toml(item)}" for key, item in value.items()) + " }"
    return repr(value)


def board(path: Path, fighters: list[dict[str, Any]], *, teams: tuple[str, ...] = ("Red", "Blue"),
          size: int = 8, rounds: int = 2, blocking: tuple = (), difficult: tuple = (),
          elements: tuple = ()) -> Path:
    lines = ['name = "case"', f"teams = {_toml(list(teams))}", f"rounds = {rounds}",
             f"board = {{ width = {size}, height = {size} }}"]
    if blocking:
        lines.append(f"blocking = {_toml([list(square) for square in blocking])}")
    if difficult:
        lines.append(f"difficult = {_toml([list(square) for square in difficult])}")
    for element in elements:
        lines.append("[[elements]]")
        lines += [f"{key} = {_toml(value)}" for key, value in element.items()]
    for fighter in fighters:
        lines.append("[[fighters]]")
        lines += [f"{key} = {_toml(value)}" for key, value in fighter.items()]
    path.write_text("\n".join(lines) + "\n")
    return path


def fighter(team: int, name: str, x: int, y: int, facing: str, **keys: Any) -> dict[str, Any]:
    """A ``[[fighters]]`` entry; ``keys`` may also override ``x``, ``y`` and ``facing``."""
    return {"team": team, "name": name, "x": x, "y": y, "facing": facing} | keys


def start(path: Path, labels: list[str], **params: Any):
    state = load_game("skirmish_alert", str(path), params or None).new_initial_state()
    return play_labels(state, labels)


def events(state, kind: str) -> list:
    return [event for event in state.events if event.kind == kind]


def named(state, name: str):
    return next(f for f in state.fighters if f is not None and f.name == name)


#: Rell (team 0, INI 3, position 1) at (3, 1) facing N; Blix (team 1, position 2) at (3, 6)
#: facing S, on alert, REF 2; both with crossbows
def duel(tmp_path: Path, rell: dict | None = None, blix: dict | None = None, **board_keys):
    rell_keys = {"ini": 3, "ref": 2, "sho": 2, "ranged_weapon": "crossbow"} | (rell or {})
    blix_keys = {"ref": 2, "sho": 2, "ranged_weapon": "crossbow", "on_alert": True} | (blix or {})
    return board(tmp_path / "duel.toml", [
        {"team": 0, "name": "Rell", "x": 3, "y": 1, "facing": "N"} | rell_keys,
        {"team": 1, "name": "Blix", "x": 3, "y": 6, "facing": "S"} | blix_keys], **board_keys)


#: Blix rolls 12 and acts first, Rell 1 + 1 + 3 = 5
BLIX_FIRST = ["d6=1", "d6=1", "d6=6", "d6=6"]


# -- terms and ambiguities -----------------------------------------------------------------------

@pytest.mark.rule("AL-28")
def test_the_engine_speaks_of_ap_positions_and_fighters(tmp_path):
    state = start(duel(tmp_path), INI_FIRST + ["move:+0:+1", "alert:attempt:f0"])
    assert events(state, "turn")[0].text == "Rell (team 0, position 1) starts its turn with 3 AP"
    assert events(state, "attempt")[0].text == ("Blix (position 2) attempts to react to Rell "
                                                "(position 1): difficulty 12")


@pytest.mark.rule("Q1", "AL-PD-20")
@pytest.mark.parametrize("timing, where", [("after_declaration", (3, 1)),
                                           ("before_effect", (3, 3))])
def test_the_window_opens_after_the_declaration(tmp_path, timing, where):
    """Q1: by default the declared Move waits for the window; with ``before_effect`` the
    movement is made first."""
    state = start(duel(tmp_path), INI_FIRST + ["move:+0:+2"], reaction_timing=timing)
    if timing == "before_effect":  # moved first: it sets its facing (AL-PD-15), then the window
        assert state.decision_name() == "facing"
        play_labels(state, ["face:N"])
    assert state.decision_name() == "reaction" and state.current_player() == 1
    assert named(state, "Rell").pos == where
    assert events(state, "declare")[-1].data["ap"] == 1  # paid on declaration


@pytest.mark.rule("Q2", "AL-8", "AL-PD-8")
@pytest.mark.parametrize("mode, expected", [("absolute", 12), ("relative", 10)])
def test_difficulty_mode(tmp_path, mode, expected):
    """Q2: absolute reads the actor's position (1: 12); relative compares the two positions
    (1 and 2, fewer than 3 apart: 10)."""
    state = start(duel(tmp_path), INI_FIRST + ["move:+0:+1", "alert:attempt:f0"],
                  difficulty_mode=mode)
    assert events(state, "attempt")[0].data["difficulty"] == expected


@pytest.mark.rule("Q4", "AL-15")
def test_the_reaction_itself_is_free_unless_the_parameter_says(tmp_path):
    """Blix, on alert from an earlier turn, has no AP before its own turn: its reaction is
    free by default, and cannot be paid when reactions cost 1 AP."""
    labels = INI_FIRST + ["move:+0:+1", "alert:attempt:f0", "d6=6", "d6=6"]
    state = start(duel(tmp_path), labels + ["react:move:+1:+0"])
    assert named(state, "Blix").pos == (4, 6) and named(state, "Blix").ap == 0
    state = start(duel(tmp_path), labels, reaction_action_costs_ap=True)
    assert state.legal_labels() == ["react:none"]
    why = state.why_illegal(state.string_to_action("react:move:+1:+0"))
    assert why is not None and "cannot pay 1 ap" in why.reason


@pytest.mark.rule("Q5", "AL-13")
@pytest.mark.parametrize("rearm, decision", [(False, "facing"), (True, "rearm")])
def test_no_rearm_after_a_failed_test_unless_the_parameter_says(tmp_path, rearm, decision):
    """Blix acts first and goes on alert with 2 AP left; it then fails its test in Rell's
    turn."""
    state = start(duel(tmp_path, blix={"on_alert": False}), BLIX_FIRST + [
        "alert", "move:+0:+1", "alert:attempt:f0", "d6=1", "d6=1"], rearm_after_failure=rearm)
    assert events(state, "aptitude_test")[-1].data["success"] is False
    assert events(state, "alert_lost")[-1].data == {"fighter": F}
    assert state.decision_name() == decision
    if rearm:
        assert state.legal_labels() == ["rearm", "rearm:decline"]


@pytest.mark.rule("Q8", "AL-4")
def test_which_declared_actions_open_a_window(tmp_path):
    state = start(duel(tmp_path), INI_FIRST + ["pivot:E"])
    assert len(events(state, "window_opened")) == 1 and state.decision_name() == "reaction"
    state = start(duel(tmp_path), INI_FIRST + ["pivot:E"],
                  non_triggering_actions=["pass", "alert", "keep_alert", "pivot"])
    assert events(state, "window_opened") == [] and state.decision_name() == "action"
    state = start(duel(tmp_path), INI_FIRST + ["pass"])
    assert events(state, "window_opened") == []


@pytest.mark.rule("Q9", "AL-PD-32")
@pytest.mark.parametrize("needs_los, eligible", [(False, [F]), (True, [])])
def test_a_reactor_needs_no_line_of_sight_by_default(tmp_path, needs_los, eligible):
    path = duel(tmp_path, blocking=[(2, 4), (3, 4), (4, 4)])  # a wall between them
    state = start(path, INI_FIRST + ["pivot:E"], reaction_requires_los=needs_los)
    assert events(state, "window_opened")[0].data["eligible"] == eligible


@pytest.mark.rule("Q10", "AL-PD-32", "AL-PD-33")
def test_eligibility_is_checked_again_at_every_slot(tmp_path):
    """Three teams: Rell (team 0) acts; Blix (team 1, position 2) reacts first and its shot
    knocks Quill (team 2, position 3) down, so Quill is no longer asked in its slot."""
    path = board(tmp_path / "three.toml", [
        fighter(0, "Rell", 1, 1, "N", ini=3),
        fighter(1, "Blix", 4, 6, "S", ini=2, ref=4, sho=4, ranged_weapon="crossbow",
                on_alert=True),
        fighter(2, "Quill", 4, 3, "W", ini=1, ref=4, w=6, on_alert=True)],
        teams=("Red", "Blue", "Green"))
    state = start(path, ["d6=6", "d6=6", "d6=5", "d6=5", "d6=4", "d6=4", "pivot:E"])
    opened = events(state, "window_opened")[0].data
    assert opened["eligible"] == [F, 2 * F]
    assert [slot[0] for slot in opened["slots"]] == [2, 3]  # track positions, ascending
    play_labels(state, ["alert:attempt:f0", "d6=6", "d6=6", "react:shoot:e0", "d6=6", "d6=6"])
    assert events(state, "knocked_down")[-1].data == {"fighter": 2 * F}
    assert [event.data["fighter"] for event in events(state, "attempt")] == [F]
    assert state.decision_name() == "action" and state.current_player() == 0


# -- dice and tests --------------------------------------------------------------------------

@pytest.mark.rule("AL-PD-1", "AL-PD-2")
@pytest.mark.parametrize("dice, success", [(("d6=4", "d6=6"), True), (("d6=4", "d6=5"), False)])
def test_an_aptitude_test_is_two_dice_plus_ref_against_the_difficulty(tmp_path, dice, success):
    state = start(duel(tmp_path), INI_FIRST + ["move:+0:+1", "alert:attempt:f0"])
    assert state.is_chance_node()
    play_labels(state, [dice[0]])
    assert state.is_chance_node()  # the second die
    play_labels(state, [dice[1]])
    test = events(state, "aptitude_test")[-1].data
    roll = sum(int(die.split("=")[1]) for die in dice)
    assert (test["roll"], test["total"], test["difficulty"]) == (roll, roll + 2, 12)
    assert test["success"] is success


def _track_of_eight(tmp_path: Path, **keys: Any) -> Path:
    """Eight fighters, two teams of four, each on its own column; Anvil (team 1) stands on
    alert facing the others. Initiative (``EIGHT_ROLLS``): Anvil last, Zed 7th."""
    fighters = [fighter(0, name, 1 + k, 1, "N") for k, name in enumerate(["Ash", "Bo", "Cy",
                                                                          "Zed"])]
    fighters += [fighter(1, name, 1 + k, 6, "S") for k, name in enumerate(["Dee", "Eli",
                                                                           "Fay"])]
    fighters.append(fighter(1, "Anvil", 6, 6, "S", ref=4, on_alert=True, **keys))
    return board(tmp_path / "eight.toml", fighters)


#: totals Ash 12, Bo 11, Cy 10, Zed 4, Dee 9, Eli 8, Fay 7, Anvil 2
EIGHT_ROLLS = ["d6=6", "d6=6", "d6=5", "d6=6", "d6=5", "d6=5", "d6=2", "d6=2",
               "d6=4", "d6=5", "d6=4", "d6=4", "d6=3", "d6=4", "d6=1", "d6=1"]


@pytest.mark.rule("AL-PD-5", "AL-PD-6", "AL-PD-7", "AL-PD-8", "AL-PD-12")
def test_eight_places_taken_by_total_and_played_in_order(tmp_path):
    state = start(_track_of_eight(tmp_path), EIGHT_ROLLS)
    track = events(state, "initiative")[0]
    assert track.rules == ("AL-PD-5", "AL-PD-6")
    names = [state.fighters[gid].name for gid in track.data["track"]]
    assert names == ["Ash", "Bo", "Cy", "Dee", "Eli", "Fay", "Zed", "Anvil"]
    # turns follow the track; each pass ends a turn (AL-PD-12)
    play_labels(state, ["pass"] * 6)
    assert [state.fighters[event.data["fighter"]].name for event in events(state, "turn")] == \
        names[:7]
    # Zed, 7th, moves: Anvil (REF 4) needs only 6 (AL-PD-8)
    play_labels(state, ["move:+0:+1", "alert:attempt:f3"])
    assert events(state, "attempt")[-1].data["difficulty"] == 6
    assert events(state, "attempt")[-1].data["actor_pos"] == 7


@pytest.mark.rule("AL-PD-2")
@pytest.mark.parametrize("extremes, success", [(False, True), (True, False)])
def test_a_double_one_fails_only_with_natural_extremes(tmp_path, extremes, success):
    state = start(_track_of_eight(tmp_path), EIGHT_ROLLS + ["pass"] * 6 + [
        "move:+0:+1", "alert:attempt:f3", "d6=1", "d6=1"], natural_extremes=extremes)
    test = events(state, "aptitude_test")[-1].data
    assert (test["total"], test["difficulty"], test["success"]) == (6, 6, success)


@pytest.mark.rule("AL-PD-6")
def test_initiative_ties_go_to_the_higher_ini_then_to_a_roll_off(tmp_path):
    path = board(tmp_path / "ties.toml", [fighter(0, "Low", 1, 1, "N", ini=0),
                                          fighter(1, "High", 5, 5, "S", ini=1)])
    # Low 6+6+0 = 12, High 5+6+1 = 12: High has the higher INI
    state = start(path, ["d6=6", "d6=6", "d6=5", "d6=6"])
    assert [state.fighters[gid].name for gid in events(state, "initiative")[0].data["track"]] \
        == ["High", "Low"]
    path = board(tmp_path / "even.toml", [fighter(0, "Ann", 1, 1, "N"),
                                          fighter(1, "Ben", 5, 5, "S")])
    # equal totals, equal INI, one fighter a team: a roll-off (again while tied)
    state = start(path, ["d6=3", "d6=3", "d6=2", "d6=4"])
    assert state.is_chance_node()
    play_labels(state, ["d6=2", "d6=2", "d6=1", "d6=5"])
    assert [state.fighters[gid].name for gid in events(state, "initiative")[0].data["track"]] \
        == ["Ben", "Ann"]


@pytest.mark.rule("AL-PD-3")
@pytest.mark.parametrize("cap, total", [(4, 6 + 1 + 1), (0, 6 + 1)])
def test_modifiers_are_capped(tmp_path, cap, total):
    """A blow into the target's back gets +1, unless the cap is 0."""
    path = board(tmp_path / "rear.toml", [fighter(0, "Rell", 3, 2, "N", ini=3),
                                          fighter(1, "Blix", 3, 3, "N")])
    state = start(path, INI_FIRST + ["melee:e0", "d6=3", "d6=3"], modifier_cap=cap)
    attack = events(state, "attack")[-1].data
    assert (attack["roll"], attack["total"]) == (6, total)


@pytest.mark.rule("AL-PD-4")
def test_the_profile_defaults_to_3_ap_and_a_move_of_4(tmp_path):
    state = start(duel(tmp_path), INI_FIRST)
    assert events(state, "turn")[0].text.endswith("with 3 AP")
    assert "move:+0:+4" in state.legal_labels() and "move:+0:+5" not in state.legal_labels()
    state = start(duel(tmp_path, rell={"ap": 2, "mov": 2}), INI_FIRST)
    assert events(state, "turn")[0].text.endswith("with 2 AP")
    assert "move:+0:+2" in state.legal_labels() and "move:+0:+3" not in state.legal_labels()


# -- rounds and turns ------------------------------------------------------------------------

@pytest.mark.rule("AL-PD-10")
def test_a_round_is_initiative_then_every_turn_then_its_end(tmp_path):
    state = start(duel(tmp_path, blix={"on_alert": False}), INI_FIRST + ["pass", "pass"])
    assert events(state, "round_end")[0].data["round"] == 1
    assert state.is_chance_node()  # round 2 rolls the track again
    play_labels(state, ["d6=1", "d6=1", "d6=6", "d6=6", "pass", "pass"])
    assert [state.fighters[gid].name for gid in events(state, "initiative")[1].data["track"]] \
        == ["Blix", "Rell"]
    assert state.is_terminal()  # the scenario's 2 rounds
    state = start(duel(tmp_path, blix={"on_alert": False}), INI_FIRST + ["pass", "pass"],
                  rounds=1)
    assert state.is_terminal()


@pytest.mark.rule("AL-PD-12")
def test_a_turn_ends_when_the_ap_run_out(tmp_path):
    state = start(duel(tmp_path, blix={"on_alert": False}), INI_FIRST + ["pivot:E", "pivot:N",
                                                                         "pivot:W"])
    assert state.current_player() == 1 and state.decision_name() == "action"
    assert events(state, "turn")[-1].data["fighter"] == F


@pytest.mark.rule("AL-PD-13", "AL-7")
def test_an_alert_carried_from_an_earlier_turn_lasts_until_the_fighters_own_turn(tmp_path):
    state = start(duel(tmp_path), INI_FIRST + ["move:+0:+1", "alert:decline", "face:N", "pass"])
    assert named(state, "Blix").on_alert  # it reacted to nothing, still on alert
    assert state.decision_name() == "maintain_alert" and state.current_player() == 1
    play_labels(state, ["drop_alert"])
    assert not named(state, "Blix").on_alert


@pytest.mark.rule("AL-PD-14", "AL-19")
def test_ap_left_when_going_on_alert_pay_for_the_rearm(tmp_path):
    path = duel(tmp_path, blix={"on_alert": False})
    state = start(path, INI_FIRST + ["move:+0:+1", "face:N", "alert"])
    assert named(state, "Rell").ap == 1
    play_labels(state, ["move:+0:-1", "alert:attempt:f0", "d6=6", "d6=6", "react:none"])
    assert state.legal_labels() == ["rearm", "rearm:decline"]
    play_labels(state, ["rearm"])
    rell = named(state, "Rell")
    assert rell.on_alert and rell.ap == 0


@pytest.mark.rule("AL-PD-16")
def test_diagonals_cost_one_and_difficult_ground_two(tmp_path):
    state = start(duel(tmp_path), INI_FIRST)
    assert "move:+4:+4" in state.legal_labels()  # four diagonal steps within MOV 4
    # a band of difficult ground across row 2: every path north pays 2 for it
    state = start(duel(tmp_path, difficult=[(x, 2) for x in range(8)]), INI_FIRST)
    assert "move:+0:+3" in state.legal_labels() and "move:+0:+4" not in state.legal_labels()


@pytest.mark.rule("AL-PD-16", "AL-PD-24")
def test_sight_is_blocked_by_blocking_squares_not_by_fighters(tmp_path):
    state = start(duel(tmp_path, blix={"on_alert": False}), INI_FIRST)
    assert "shoot:e0" in state.legal_labels()
    path = board(tmp_path / "screened.toml", [
        fighter(0, "Rell", 3, 1, "N", ini=3, sho=2, ranged_weapon="crossbow"),
        fighter(1, "Blix", 3, 6, "S"), fighter(1, "Wall", 3, 4, "S")])
    state = start(path, ["d6=6", "d6=6", "d6=1", "d6=1", "d6=1", "d6=2"])
    assert {"shoot:e0", "shoot:e1"} <= set(state.legal_labels())  # Wall does not hide Blix
    state = start(duel(tmp_path, blocking=[(3, 4)], blix={"on_alert": False}), INI_FIRST)
    assert "shoot:e0" not in state.legal_labels()


@pytest.mark.rule("AL-PD-17")
def test_eight_facings(tmp_path):
    state = start(duel(tmp_path, blix={"on_alert": False}), INI_FIRST)
    pivots = [label for label in state.legal_labels() if label.startswith("pivot:")]
    assert pivots == ["pivot:NE", "pivot:E", "pivot:SE", "pivot:S", "pivot:SW", "pivot:W",
                      "pivot:NW"]
    play_labels(state, ["pivot:SE"])
    assert events(state, "pivot")[-1].data == {"fighter": 0, "facing": 3}


# -- melee, shooting and knock-downs -------------------------------------------------------------

def _blow(tmp_path: Path, dice: tuple[str, str], attacker: dict | None = None,
          target: dict | None = None, **params: Any):
    """Rell (MEL 1) strikes Blix face to face (DEF 1 by default: needs 8)."""
    path = board(tmp_path / "blow.toml", [
        fighter(0, "Rell", 3, 2, "N", ini=3, **(attacker or {})),
        fighter(1, "Blix", 3, 3, "S", **(target or {}))])
    return start(path, INI_FIRST + ["melee:e0", *dice], **params)


@pytest.mark.rule("AL-PD-21")
@pytest.mark.parametrize("dice, hit", [(("d6=3", "d6=4"), True), (("d6=3", "d6=3"), False)])
def test_a_blow_needs_7_plus_def(tmp_path, dice, hit):
    attack = events(_blow(tmp_path, dice), "attack")[-1]
    assert attack.rules == ("AL-PD-21",)
    assert (attack.data["needed"], attack.data["hit"]) == (7 + 1, hit)
    attack = events(_blow(tmp_path, dice, target={"def": 3}), "attack")[-1]
    assert attack.data["needed"] == 7 + 3


@pytest.mark.rule("AL-PD-22")
@pytest.mark.parametrize("weapon, arm, wounds", [("axe", 0, 3), ("axe", 2, 1), ("fists", 2, 1)])
def test_damage_is_weapon_less_armour_at_least_one(tmp_path, weapon, arm, wounds):
    state = _blow(tmp_path, ("d6=5", "d6=4"), attacker={"melee_weapon": weapon},
                  target={"arm": arm})
    assert events(state, "wounded")[-1].data == {"fighter": F, "wounds": wounds,
                                                  "left": 4 - wounds}


@pytest.mark.rule("AL-PD-22")
def test_a_fighter_at_no_wounds_is_out_of_action(tmp_path):
    state = _blow(tmp_path, ("d6=5", "d6=4"), attacker={"melee_weapon": "axe"},
                  target={"w": 3})
    assert events(state, "out_of_action")[-1].data == {"fighter": F}
    assert not named(state, "Blix").in_play


@pytest.mark.rule("AL-PD-23")
@pytest.mark.parametrize("weapon, dice, down", [("blade", ("d6=5", "d6=5"), True),
                                                ("blade", ("d6=5", "d6=4"), False),
                                                ("hammer", ("d6=3", "d6=4"), True)])
def test_a_knockdown_takes_a_margin_of_three_or_an_impact_weapon(tmp_path, weapon, dice,
                                                                 down):
    state = _blow(tmp_path, dice, attacker={"melee_weapon": weapon})
    assert events(state, "attack")[-1].data["hit"]
    assert bool(events(state, "knocked_down")) is down
    state = _blow(tmp_path, ("d6=5", "d6=4"), attacker={"melee_weapon": "blade"},
                  knockdown_margin=2)
    assert events(state, "knocked_down")


@pytest.mark.rule("AL-PD-24")
def test_a_shot_needs_7_plus_def_more_in_cover_or_beyond_half_range(tmp_path):
    def needed(rell_y: int, blix: dict | None = None) -> int:
        path = board(tmp_path / "shot.toml", [
            fighter(0, "Rell", 3, rell_y, "N", ini=3, sho=2, ranged_weapon="crossbow"),
            fighter(1, "Blix", 3, 6, "S", **(blix or {}))])
        state = start(path, INI_FIRST + ["shoot:e0", "d6=1", "d6=1"])
        attack = events(state, "attack")[-1]
        assert attack.rules == ("AL-PD-24",) and attack.data["ranged"]
        return attack.data["needed"]

    assert needed(3) == 7 + 1  # 3 squares: within half of the crossbow's 8
    assert needed(1) == 7 + 1 + 1  # 5 squares: beyond half range
    assert needed(3, {"def": 3}) == 7 + 3
    # a blocking square next to Blix on the line is the cover step's case, but it also blocks
    # the line of sight, so the shot cannot be declared at all
    path = board(tmp_path / "cover.toml", [
        fighter(0, "Rell", 3, 3, "N", ini=3, sho=2, ranged_weapon="crossbow"),
        fighter(1, "Blix", 3, 6, "S")], blocking=[(3, 5)])
    state = start(path, INI_FIRST)
    why = state.why_illegal(state.string_to_action("shoot:e0"))
    assert why is not None and why.rules == ("AL-PD-16",)


@pytest.mark.rule("AL-PD-25", "AL-PD-19")
def test_no_shooting_while_engaged_but_into_a_melee_by_default(tmp_path):
    path = board(tmp_path / "melee.toml", [
        fighter(0, "Rell", 3, 1, "N", ini=3, sho=2, ranged_weapon="crossbow"),
        fighter(0, "Kit", 3, 5, "N"), fighter(1, "Blix", 3, 6, "S")])
    rolls = ["d6=6", "d6=6", "d6=1", "d6=1", "d6=1", "d6=2"]
    state = start(path, rolls)
    assert "shoot:e0" in state.legal_labels()  # Blix is engaged with Kit: allowed
    state = start(path, rolls, allow_shoot_into_melee=False)
    assert "shoot:e0" not in state.legal_labels()
    path = board(tmp_path / "engaged.toml", [
        fighter(0, "Rell", 3, 5, "N", ini=3, sho=2, ranged_weapon="crossbow"),
        fighter(1, "Blix", 3, 6, "S"), fighter(1, "Far", 6, 6, "S")])
    state = start(path, ["d6=6", "d6=6", "d6=1", "d6=1", "d6=1", "d6=2"])
    assert not any(label.startswith("shoot:") for label in state.legal_labels())
    assert "melee:e0" in state.legal_labels()


def _knock_down_blix(tmp_path: Path, **params: Any):
    """Rell's hammer knocks Blix down in Rell's turn; Rell passes; Blix's turn comes."""
    state = _blow(tmp_path, ("d6=3", "d6=4"), attacker={"melee_weapon": "hammer"},
                  target={"w": 6}, **params)
    assert events(state, "knocked_down")[-1].data == {"fighter": F}
    return state


@pytest.mark.rule("AL-PD-26")
def test_a_fighter_that_is_down_can_only_stand_up(tmp_path):
    state = _knock_down_blix(tmp_path)
    play_labels(state, ["pass"])
    assert state.current_player() == 1
    assert set(state.legal_labels()) == {"stand_up", "pass"}
    play_labels(state, ["stand_up"])
    assert events(state, "stand_up")[-1].data == {"fighter": F}
    assert "melee:e0" in state.legal_labels()


@pytest.mark.rule("AL-PD-27")
def test_striking_a_fighter_that_is_down_gets_two(tmp_path):
    state = _knock_down_blix(tmp_path)
    play_labels(state, ["melee:e0", "d6=2", "d6=2"])
    attack = events(state, "attack")[-1]
    assert "AL-PD-27" in attack.rules
    assert attack.data["total"] == 4 + 1 + 2  # roll + MEL + 2


@pytest.mark.rule("AL-PD-28", "AL-26")
def test_an_actor_knocked_down_by_a_reaction_loses_its_action(tmp_path):
    path = board(tmp_path / "trip.toml", [
        fighter(0, "Rell", 3, 2, "N", ini=3, w=6),
        fighter(1, "Blix", 3, 3, "S", ref=4, melee_weapon="hammer", on_alert=True)])
    state = start(path, INI_FIRST + ["melee:e0", "alert:attempt:f0", "d6=6", "d6=6",
                                     "react:melee:e0", "d6=3", "d6=4"])
    assert events(state, "knocked_down")[-1].data == {"fighter": 0}
    # Rell's blow was lost (only Blix's blow is logged), its AP stay spent
    assert [event.data["attacker"] for event in events(state, "attack")] == [F]
    rell = named(state, "Rell")
    assert rell.ap == 2 and state.current_player() == 0
    assert set(state.legal_labels()) == {"stand_up", "pass"}


@pytest.mark.rule("AL-PD-29")
def test_a_fighter_knocked_down_loses_its_alert(tmp_path):
    path = board(tmp_path / "alert_down.toml", [
        fighter(0, "Rell", 3, 2, "N", ini=3, melee_weapon="hammer"),
        fighter(1, "Blix", 3, 3, "S", w=6, on_alert=True)])
    state = start(path, INI_FIRST + ["melee:e0", "alert:decline", "d6=3", "d6=4"])
    assert events(state, "knocked_down")[-1].rules == ("AL-PD-23", "AL-PD-29")
    assert not named(state, "Blix").on_alert


# -- elements and equipment ----------------------------------------------------------------------

DOOR_AND_MACHINE = ({"kind": "door", "x": 3, "y": 3, "state": "closed"},
                    {"kind": "machine", "x": 4, "y": 2, "owner": 1})


@pytest.mark.rule("AL-PD-30")
def test_a_closed_door_blocks_and_is_opened_by_working_it(tmp_path):
    path = duel(tmp_path, blix={"on_alert": False}, elements=DOOR_AND_MACHINE,
                rell={"y": 2})
    state = start(path, INI_FIRST)
    assert "move:+0:+1" not in state.legal_labels() and "shoot:e0" not in state.legal_labels()
    play_labels(state, ["activate:x0"])
    assert events(state, "activate")[-1].data == {"fighter": 0, "element": 0}
    assert "move:+0:+1" in state.legal_labels() and "shoot:e0" in state.legal_labels()


@pytest.mark.rule("AL-PD-30")
@pytest.mark.parametrize("dice, success", [(("d6=3", "d6=4"), True), (("d6=3", "d6=3"), False)])
def test_sabotage_is_a_tec_test_against_eight(tmp_path, dice, success):
    path = duel(tmp_path, blix={"on_alert": False}, elements=DOOR_AND_MACHINE,
                rell={"y": 2})
    state = start(path, INI_FIRST + ["sabotage:x1", *dice])
    test = events(state, "tech_test")[-1].data
    assert (test["needed"], test["roll"], test["success"]) == (8, sum(
        int(die.split("=")[1]) for die in dice), success)
    assert named(state, "Rell").ap == 2  # spent either way
    state = start(path, INI_FIRST + ["sabotage:x1", *dice], machine_difficulty=9)
    assert events(state, "tech_test")[-1].data["needed"] == 9


@pytest.mark.rule("AL-PD-31")
def test_equipment_draught_and_shield(tmp_path):
    state = _blow(tmp_path, ("d6=3", "d6=4"), target={"equipment": ["shield"]})
    assert events(state, "attack")[-1].data["needed"] == 7 + 1 + 1  # the shield's +1 DEF
    # the draught: +2 wounds back, once, and only for a fighter that is hurt
    path = duel(tmp_path, rell={"equipment": ["draught"], "w": 6})
    state = start(path, INI_FIRST)
    why = state.why_illegal(state.string_to_action("use:draught"))
    assert why is not None and why.rules == ("AL-PD-31",)
    play_labels(state, ["pivot:E", "alert:attempt:f0", "d6=6", "d6=6", "react:shoot:e0",
                        "d6=3", "d6=4"])  # 7 + SHO 2 = 9: a hit, no knock-down
    assert events(state, "wounded")[-1].data == {"fighter": 0, "wounds": 2, "left": 4}
    play_labels(state, ["use:draught"])
    assert events(state, "use")[-1].data == {"fighter": 0, "item": "draught"}
    assert named(state, "Rell").wounds == 6
    assert "use:draught" not in state.legal_labels()


@pytest.mark.rule("AL-PD-31")
def test_a_smoke_bomb_blocks_sight_until_the_round_ends(tmp_path):
    path = duel(tmp_path, rell={"equipment": ["smoke"]}, blix={"on_alert": False})
    state = start(path, INI_FIRST + ["use:smoke", "pass"])
    assert state.current_player() == 1
    assert "shoot:e0" not in state.legal_labels()
    play_labels(state, ["pass", "d6=6", "d6=6", "d6=1", "d6=1"])  # round 2
    assert "shoot:e0" in state.legal_labels()


# -- the reaction window -------------------------------------------------------------------------

@pytest.mark.rule("AL-PD-32", "AL-PD-33")
def test_team_mates_of_the_actor_are_not_eligible_and_slots_ascend(tmp_path):
    path = board(tmp_path / "mates.toml", [
        fighter(0, "Rell", 3, 1, "N", ini=3),
        fighter(0, "Mate", 1, 1, "N", on_alert=True),
        fighter(1, "Blix", 3, 6, "S", on_alert=True)])
    # Rell 15, Mate 2, Blix 10: track Rell, Blix, Mate
    state = start(path, ["d6=6", "d6=6", "d6=1", "d6=1", "d6=5", "d6=5", "pivot:E"])
    opened = events(state, "window_opened")[0].data
    assert opened["eligible"] == [F] and [slot[0] for slot in opened["slots"]] == [2]


@pytest.mark.rule("AL-PD-34")
def test_the_window_stops_when_the_actor_is_out_of_action(tmp_path):
    path = board(tmp_path / "stop.toml", [
        fighter(0, "Rell", 3, 2, "N", ini=3, w=3),
        fighter(1, "Blix", 3, 3, "S", ini=2, ref=4, mel=4, melee_weapon="axe", on_alert=True),
        fighter(1, "Cade", 5, 3, "W", ref=4, on_alert=True)])
    state = start(path, ["d6=6", "d6=6", "d6=5", "d6=5", "d6=1", "d6=1", "melee:e0"])
    assert events(state, "window_opened")[0].data["eligible"] == [F, F + 1]
    play_labels(state, ["alert:attempt:f0", "d6=6", "d6=6", "react:melee:e0", "d6=6", "d6=6"])
    assert events(state, "out_of_action")[-1].data == {"fighter": 0}
    assert [event.data["fighter"] for event in events(state, "attempt")] == [F]
    assert not any(event.kind == "attack" and event.data["attacker"] == 0
                   for event in state.events)


@pytest.mark.rule("AL-PD-35", "AL-16")
def test_the_reaction_menu_follows_engagement(tmp_path):
    state = start(duel(tmp_path), INI_FIRST + ["pivot:E", "alert:attempt:f0", "d6=6", "d6=6"])
    menu = state.legal_labels()
    assert "react:none" in menu and "react:shoot:e0" in menu
    assert any(label.startswith("react:move:") for label in menu)
    assert not any(label.startswith(("react:melee", "react:disengage")) for label in menu)
    path = board(tmp_path / "close.toml", [
        fighter(0, "Rell", 3, 2, "N", ini=3),
        fighter(1, "Blix", 3, 3, "S", ref=4, sho=2, ranged_weapon="crossbow", on_alert=True)])
    state = start(path, INI_FIRST + ["pivot:E", "alert:attempt:f0", "d6=6", "d6=6"])
    menu = state.legal_labels()
    assert "react:melee:e0" in menu and "react:none" in menu
    assert any(label.startswith("react:disengage:") for label in menu)
    assert not any(label.startswith(("react:shoot", "react:move")) for label in menu)
    play_labels(state, ["react:none"])  # declining after a success still spends the alert
    assert not named(state, "Blix").on_alert
    with pytest.raises(IllegalActionError):
        state.apply_action(state.string_to_action("react:none"))
