"""Reaction analytics (agents.evaluation.analytics) on the worked example and in tournaments."""

from __future__ import annotations

import json

import numpy as np
import pytest

from agents import make_agent
from agents.evaluation.analytics import ReactionAnalytics, format_summary
from agents.evaluation.tournament import round_robin
from envs import load_game
from envs.core.protocol import CHANCE
from envs.core.replay import ReplayScript


def _replay_with_tracker(path, agent_names=("union", "confederate")):
    script = ReplayScript.load(path)
    state = script.new_state()
    an = ReactionAnalytics()
    tr = an.new_game(agent_names)
    for lab in script.actions:
        a = state.string_to_action(lab)
        if state.current_player() != CHANCE:
            tr.on_decision(state, state.current_player(), state.legal_action_mask(), a)
        state.apply_action(a)
    return an, tr, state


@pytest.mark.slow
@pytest.mark.rule("RULE-04-2.5")
def test_closing_volley_of_example_a_stops_the_charge_and_costs_two_stands():
    an, tr, state = _replay_with_tracker("tests/acw/golden/example_a.toml")
    an.add_game(tr, state, [0.5, 0.5])
    (offer,) = tr.offers
    assert offer.taken == "react:closing_volley" and offer.charge
    assert offer.offered == ("react:closing_volley", "react:decline")
    d = an.to_dict(["union", "confederate"])["confederate"]["react:closing_volley"]
    assert d["offered"] == 1 and d["taken"] == 1 and d["taken_rate"] == 1.0
    out = d["taken_outcomes"]
    # seed Example A: 4 hits, 2 stands lost, Disorder, the charge stalls 2.0" away
    assert out["stands_lost"]["mean"] == 2.0
    assert out["disorder_caused"]["mean"] == 1.0
    assert out["charge_stopped"]["mean"] == 1.0
    assert d["declined_outcomes"] == {}
    assert d["score_when_taken"]["n"] == 1 and d["score_when_declined"]["n"] == 0
    assert an.to_dict(["union"]) == {"union": {}}


def test_declining_the_volley_lets_the_charge_contact():
    script = ReplayScript.load("tests/acw/golden/example_a.toml")
    state = script.new_state()
    an = ReactionAnalytics()
    tr = an.new_game(["u", "c"])
    for lab in script.actions[:2]:
        state.apply_action(state.string_to_action(lab))
    a = state.string_to_action("react:decline")
    tr.on_decision(state, 1, state.legal_action_mask(), a)
    state.apply_action(a)
    rng = np.random.default_rng(0)
    from envs.core.chance import resolve_chance
    resolve_chance(state, rng)
    an.add_game(tr, state, [1.0, 0.0])
    d = an.to_dict(["u", "c"])["c"]["react:closing_volley"]
    assert d["taken"] == 0 and d["offered"] == 1
    assert d["declined_outcomes"]["charge_stopped"]["mean"] == 0.0
    assert d["declined_outcomes"]["stands_lost"]["mean"] == 0.0
    assert d["score_when_declined"]["mean"] == 0.0


@pytest.mark.slow
def test_tournament_analytics_agree_with_decision_stats():
    game = load_game("acw_regimental")
    agents = {n: make_agent(n, game, i) for i, n in enumerate(["heuristic", "always-react"])}
    res = round_robin(game, agents, 4, seed=1)
    ra = res.reaction_analytics
    assert set(ra) == {"heuristic", "always-react"}
    for name, per in ra.items():
        stats = res.decision_stats[name].get("reaction", {})
        for lab, count in stats.items():
            assert ra[name][lab]["taken"] == count
        for lab, d in per.items():
            assert 0 <= d["taken"] <= d["offered"]
    json.dumps(ra, allow_nan=False)  # strict JSON
    assert "Reaction analytics" in format_summary(ra)


def test_toy_tournament_counts_every_reaction_decision():
    game = load_game("toy")
    agents = {n: make_agent(n, game, i) for i, n in enumerate(["random", "never-react"])}
    res = round_robin(game, agents, 6, seed=0)
    for name in agents:
        per = res.reaction_analytics[name]
        n_react = sum(res.decision_stats[name].get("reaction", {}).values())
        if n_react:
            assert per["react:decline"]["offered"] == n_react == per["react:dodge"]["offered"]
    assert res.reaction_analytics["never-react"].get("react:dodge", {"taken": 0})["taken"] == 0


@pytest.mark.slow
@pytest.mark.parametrize("ruleset, scenario, decline", [
    ("skirmish_alert", "default", "alert:decline"), ("atomic_africa", None, "react:none")])
def test_the_other_rulesets_reactions_are_counted(ruleset, scenario, decline):
    """Every choice of a reaction decision counts, whatever its label (skirmish's
    alert:attempt:f<k> were left out: "none offered"); the choice not to react is the
    decline, left out of the summary."""
    from agents.evaluation.analytics import is_decline

    game = load_game(ruleset, scenario)
    agents = {n: make_agent(n, game, i) for i, n in enumerate(["random", "heuristic"])}
    res = round_robin(game, agents, 2, seed=0)
    total = 0
    for name in agents:
        per = res.reaction_analytics[name]
        stats = res.decision_stats[name].get("reaction", {})
        n_react = sum(stats.values())
        total += n_react
        assert sum(d["taken"] for d in per.values()) == n_react
        for lab, count in stats.items():
            assert per[lab]["taken"] == count
        if n_react:
            assert per[decline]["offered"] == n_react  # declining is always a choice
    assert total > 0
    assert is_decline(decline) and not is_decline("alert:attempt:f1")
    text = format_summary(res.reaction_analytics)
    assert decline not in text and len(text.splitlines()) > 2


def test_mean_ci95_is_students_t_over_few_values():
    """Three seeds: t(0.975, 2) = 4.303, not the normal 1.96 (intervals 2.2 times wider)."""
    import math

    from agents.evaluation.ratings import mean_ci95

    m, lo, hi = mean_ci95([0.0, 1.0, 2.0])  # sd 1
    assert m == 1.0 and hi - m == pytest.approx(4.302653 / math.sqrt(3), abs=1e-6)
    assert m - lo == pytest.approx(hi - m)
    m, lo, hi = mean_ci95([0.0, 1.0] * 500)  # many values: close to the normal interval
    assert hi - m == pytest.approx(1.96 * 0.5002501 / math.sqrt(1000), rel=2e-3)
    m, lo, hi = mean_ci95([0.7])
    assert m == 0.7 and math.isnan(lo) and math.isnan(hi)
