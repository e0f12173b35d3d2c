"""Start positions a test can write down (scenario TOML): fighters that start on alert with AP
left (AL-PD-14), knocked down (AL-PD-26, AL-PD-29), with wounds taken (AL-PD-22), and weapons
given by their range and damage (AL-PD-22 .. AL-PD-24); each validated with an error that names
the file and the key."""

from __future__ import annotations

import pytest

from envs import load_game
from envs.core.errors import ScenarioError
from envs.core.replay import play_labels

from .test_rules_reference_cases import INI_FIRST, board, events, fighter, named, start

CROSSBOW = {"sho": 2, "ranged_weapon": "crossbow"}


@pytest.mark.rule("AL-PD-14", "AL-19")
def test_an_alert_fighter_may_start_with_ap_left_to_rearm(tmp_path):
    def window(**blix):
        path = board(tmp_path / "rearm.toml", [
            fighter(0, "Rell", 3, 1, "N", ini=3),
            fighter(1, "Blix", 3, 6, "S", on_alert=True, ref=2, **blix)])
        return start(path, INI_FIRST + ["move:+0:+1", "alert:attempt:f0", "d6=6", "d6=6",
                                        "react:none"])
    state = window(ap_left=2)
    assert named(state, "Blix").ap == 2
    assert state.decision_name() == "rearm" and state.legal_labels() == ["rearm",
                                                                          "rearm:decline"]
    play_labels(state, ["rearm"])
    assert named(state, "Blix").on_alert and named(state, "Blix").ap == 1
    state = window()  # by default an alert fighter holds no AP before its own turn
    assert named(state, "Blix").ap == 0 and state.decision_name() == "facing"


@pytest.mark.rule("AL-PD-26", "AL-PD-11")
def test_a_fighter_may_start_knocked_down(tmp_path):
    path = board(tmp_path / "down.toml", [
        fighter(0, "Rell", 3, 1, "N", ini=3, knocked_down=True), fighter(1, "Blix", 3, 6, "S")])
    state = start(path, INI_FIRST)
    assert named(state, "Rell").knocked_down
    assert state.legal_labels() == ["stand_up", "pass"]


@pytest.mark.rule("AL-PD-22")
def test_a_fighter_may_start_with_wounds_taken(tmp_path):
    path = board(tmp_path / "hurt.toml", [
        fighter(0, "Rell", 3, 1, "N", ini=3, **CROSSBOW),
        fighter(1, "Blix", 3, 6, "S", w=4, wounds_taken=3)])
    state = start(path, INI_FIRST)
    blix = named(state, "Blix")
    assert (blix.wounds, blix.w_max) == (1, 4)
    obs = state.game.layout.split(state.game.observation(state, 0))["fighters"]
    assert obs[4, state.game.feature_index["wounds"]] == pytest.approx(1 / 6)
    # a crossbow hit (dmg 2) takes him out: 6 + 6 + SHO 2 = 14 vs 7 + DEF 1 + long range 1
    play_labels(state, ["shoot:e0", "d6=6", "d6=6"])
    assert not blix.in_play and events(state, "out_of_action")[0].data == {"fighter": blix.gid}


@pytest.mark.rule("AL-PD-24", "AL-PD-22", "AL-PD-23")
def test_weapons_given_by_range_and_damage(tmp_path):
    path = board(tmp_path / "arms.toml", [
        fighter(0, "Rell", 3, 1, "N", ini=3, sho=2, ranged_weapon={"range": 4, "dmg": 3}),
        fighter(1, "Blix", 3, 6, "S", melee_weapon={"dmg": 3, "impact": True})])
    game = load_game("skirmish_alert", str(path))
    assert game.ranged_weapons["ranged(range=4, dmg=3)"].dmg == 3
    assert game.melee_weapons["melee(dmg=3, impact)"].impact
    state = start(path, INI_FIRST)
    assert "shoot:e0" not in state.legal_labels()  # 5 squares, range 4
    why = state.why_illegal(state.string_to_action("shoot:e0"))
    assert why is not None and why.reason == "Blix is out of range"
    play_labels(state, ["move:+0:+1", "face:N"])
    assert "shoot:e0" in state.legal_labels()  # 4 squares now
    play_labels(state, ["shoot:e0", "d6=6", "d6=6"])  # 14 vs 7 + 1 + long range 1: a hit
    assert named(state, "Blix").wounds == 1  # dmg 3 - ARM 0 from W 4
    row = game.layout.split(game.observation(state, 0))["fighters"][0]
    assert row[game.feature_index["range"]] == pytest.approx(0.4)
    assert row[game.feature_index["ranged_dmg"]] == pytest.approx(1.0)


@pytest.mark.parametrize("keys, key, problem", [
    ({"on_alert": True, "ap": 3, "ap_left": 4}, "fighters[1].ap_left", "profile has ap = 3"),
    ({"w": 4, "wounds_taken": 4}, "fighters[1].wounds_taken", "would start out of action"),
    ({"knocked_down": True, "on_alert": True}, "fighters[1].knocked_down", "AL-PD-29"),
    ({"ranged_weapon": "longbow"}, "fighters[1].ranged_weapon", "unknown ranged weapon"),
    ({"ranged_weapon": {"range": 30, "dmg": 2}}, "fighters[1].ranged_weapon.stats.range",
     "less than or equal to 16"),
    ({"ranged_weapon": {"reach": 3, "dmg": 2}}, "fighters[1].ranged_weapon.stats.reach",
     "Extra inputs are not permitted"),
    ({"melee_weapon": {"dmg": 0}}, "fighters[1].melee_weapon.stats.dmg",
     "greater than or equal to 1"),
    ({"ap_left": -1}, "fighters[1].ap_left", "greater than or equal to 0"),
])
def test_bad_start_keys_name_file_key_and_problem(tmp_path, keys, key, problem):
    path = board(tmp_path / "bad.toml", [fighter(0, "Rell", 3, 1, "N"),
                                          fighter(1, "Blix", 3, 6, "S", **keys)])
    with pytest.raises(ScenarioError) as error:
        load_game("skirmish_alert", str(path))
    message = str(error.value)
    assert str(path) in message and key in message and problem in message, message
