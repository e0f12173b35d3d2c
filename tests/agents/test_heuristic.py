"""The scripted ACW heuristic: its reaction doctrine on sampled windows, determinism in
(observation, mask), and its strength against the random policy."""

from __future__ import annotations

from agents import ACWHeuristic, RandomPolicy, make_agent
from agents.tournament import round_robin

from .test_policies import acw_game, random_decisions  # noqa: F401 (fixture)

FREE_ORDER = ("react:closing_volley", "react:opportunity_fire", "react:evade_6",
              "react:evade_5", "react:evade_4")


def test_reaction_doctrine_on_random_windows(acw_game):
    bot = ACWHeuristic(acw_game, seed=0)
    labels = acw_game.actions.labels
    res = acw_game.layout.slices["resources"]
    seen = {"free": 0, "other": 0}
    for st, side, obs, mask in random_decisions(acw_game, 10, seed=11, max_per_game=300):
        legal = st.legal_labels()
        if not any(lab.startswith("react:") for lab in legal):
            continue
        choice = labels[bot.act(obs, mask)]
        offered_free = [lab for lab in FREE_ORDER if lab in legal]
        if offered_free:  # RULE-04-2/3/4: free reactions first, in this order
            seen["free"] += 1
            assert choice == offered_free[0], (legal, choice)
            continue
        seen["other"] += 1
        assert choice != "react:wait_short"
        if choice.startswith("react:refuse"):  # RULE-04-5: only with a reserved pip
            assert obs[res][1] > 0
        if choice.startswith("react:counter_charge"):  # I-2: needs a reserved pip anyway
            assert obs[res][1] > 0
    assert seen["free"] > 0 and seen["other"] > 0


def test_heuristic_is_a_function_of_observation_and_mask(acw_game):
    a, b = ACWHeuristic(acw_game, seed=1), ACWHeuristic(acw_game, seed=2)
    points = random_decisions(acw_game, 3, seed=12, max_per_game=250)
    for _, _, obs, mask in points:
        assert a.act(obs, mask) == b.act(obs.copy(), mask.copy())


def test_fire_phase_picks_a_target_when_offered(acw_game):
    bot = make_agent("heuristic", acw_game, seed=0)
    labels = acw_game.actions.labels
    n = 0
    for st, _, obs, mask in random_decisions(acw_game, 6, seed=13, max_per_game=300):
        legal = st.legal_labels()
        if "hold_fire" in legal and any(lab.startswith("fire:e") for lab in legal):
            assert labels[bot.act(obs, mask)].startswith("fire:e")
            n += 1
    assert n > 0


def test_heuristic_beats_random(acw_game):
    res = round_robin(acw_game, {"heuristic": make_agent("heuristic", acw_game, 0),
                                 "random": RandomPolicy(1)}, games_per_pair=8, seed=21)
    assert res.pairs[0].a_score >= 0.8
    stats = res.decision_stats["heuristic"]
    assert set(stats) >= {"maneuver", "fire", "command"}
    assert "react:wait_short" not in stats.get("reaction", {})
    assert sum(stats["command"].values()) > 0
