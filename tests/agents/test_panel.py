"""The ACW bot panel (agents/bots/acw_regimental.py): stand-and-fire never moves and shoots at every
chance, rush charges whenever a charge is legal; both are built-in names everywhere an agent name
is."""

from __future__ import annotations

import numpy as np
import pytest

from agents import BUILTIN_AGENTS, OpponentPool, PoolWeights, Rush, StandAndFire, make_agent
from agents.bots.acw_regimental import is_forward
from agents.policies.base import UnknownAgentError
from agents.evaluation.tournament import round_robin
from envs import load_game

from .test_policies import random_decisions, toy_game  # noqa: F401 (fixture)


@pytest.fixture(scope="module")
def crossroads():
    return load_game("acw_regimental", "crossroads")


@pytest.fixture(scope="module")
def decisions(crossroads):
    return random_decisions(crossroads, 12, seed=5, max_per_game=400)


@pytest.mark.slow
def test_stand_and_fire_never_moves_and_shoots_at_every_chance(crossroads, decisions):
    bot = make_agent("stand-and-fire", crossroads, seed=0)
    assert isinstance(bot, StandAndFire) and bot.name == "stand-and-fire"
    labels = crossroads.actions.labels
    seen = {"volley": 0, "opp": 0, "decline": 0, "fire": 0, "end_phase": 0, "end_act": 0}
    for st, _, obs, mask in decisions:
        legal = st.legal_labels()
        choice = labels[bot.act(obs, mask)]
        assert choice in legal
        assert not is_forward(choice), (legal, choice)
        assert not choice.startswith(("advance:", "charge:", "wheel:", "reserve:1", "reserve:2"))
        if "react:closing_volley" in legal:
            assert choice == "react:closing_volley"
            seen["volley"] += 1
        elif "react:opportunity_fire" in legal:
            assert choice == "react:opportunity_fire"  # at the first chance, never wait_short
            seen["opp"] += 1
        elif any(lab.startswith("react:") for lab in legal):
            assert choice == "react:decline"  # no evade, no commanded reaction
            seen["decline"] += 1
        elif any(lab.startswith("fire:e") for lab in legal):
            assert choice.startswith("fire:e")  # Phase 3: fires whenever it can
            seen["fire"] += 1
        elif "end_phase" in legal and any(lab.startswith("activate:") for lab in legal):
            assert choice == "end_phase"
            seen["end_phase"] += 1
        elif "end_activation" in legal:
            assert choice == "end_activation"  # ends an activation at once
            seen["end_act"] += 1
    assert seen["opp"] > 0 and seen["decline"] > 0 and seen["fire"] > 0
    assert seen["end_phase"] > 0 and seen["end_act"] > 0


def test_rush_charges_whenever_a_charge_is_legal(crossroads, decisions):
    bot = make_agent("rush", crossroads, seed=0)
    assert isinstance(bot, Rush)
    labels = crossroads.actions.labels
    charges = free = advances = 0
    for st, _, obs, mask in decisions:
        legal = st.legal_labels()
        choice = labels[bot.act(obs, mask)]
        assert choice in legal
        if any(lab.startswith("charge:e") for lab in legal):
            assert choice.startswith("charge:e"), (legal, choice)
            charges += 1
        elif any(lab.startswith(("react:closing", "react:opportunity", "react:evade"))
                 for lab in legal):
            assert choice.startswith(("react:closing", "react:opportunity", "react:evade"))
            assert choice != "react:wait_short"
            free += 1
        elif any(lab.startswith("react:") for lab in legal):
            assert choice == "react:decline"  # commanded reactions are declined
        elif any(lab.startswith("reserve:") for lab in legal):
            assert choice == "reserve:0"  # keeps its pips for charges
        elif "advance:all" in legal and "end_activation" in legal:
            advances += choice.startswith(("advance:", "wheel:"))
    assert charges > 0 and free > 0 and advances > 0


def test_rush_holds_the_objective_it_stands_on(tmp_path):
    """A regiment whose front stands on an objective ends its activation there (no charge is in
    reach); one 10" short of an objective advances on it."""
    body = """
[[objectives]]
name = "farm"
x = 10.0
y = 6.0

[[objectives]]
name = "mill"
x = 30.0
y = 16.0

[[units]]
side = 0
name = "A"
kind = "infantry"
stands = 5
formation = "line"
x = 10.0
y = 6.0
facing_deg = 90.0

[[units]]
side = 0
name = "C"
kind = "infantry"
stands = 5
formation = "line"
x = 30.0
y = 6.0
facing_deg = 90.0

[[units]]
side = 1
name = "B"
kind = "infantry"
stands = 5
formation = "line"
x = 38.0
y = 34.0
facing_deg = 270.0

[start]
phase = 2
pips = 3
"""
    p = tmp_path / "hold.toml"
    p.write_text(body)
    g = load_game("acw_regimental", str(p))
    bot = make_agent("rush", g, seed=0)
    labels = g.actions.labels
    s = g.new_initial_state()
    s.apply_action(s.string_to_action("activate:u0"))
    assert labels[bot.act(g.observation(s, 0), s.legal_action_mask())] == "end_activation"
    s.apply_action(s.string_to_action("end_activation"))
    s.apply_action(s.string_to_action("activate:u1"))
    assert labels[bot.act(g.observation(s, 0), s.legal_action_mask())] == "advance:all"


def test_rush_takes_the_objectives_that_stand_and_fire_leaves():
    """Over whole games of the default battle (objectives score every turn) rush advances and
    wins both seatings; stand-and-fire never leaves its start line."""
    g = load_game("acw_regimental")
    sf, rush = make_agent("stand-and-fire", g, 1), make_agent("rush", g, 2)
    res = round_robin(g, {"stand-and-fire": sf, "rush": rush}, games_per_pair=2, seed=3)
    stats = res.decision_stats
    taken = {a: {lab: n for per in stats[a].values() for lab, n in per.items()}
             for a in stats}
    assert sum(n for lab, n in taken["rush"].items() if lab.startswith("advance:")) > 0
    assert not any(lab.startswith(("advance:", "charge:", "wheel:"))
                   for lab in taken["stand-and-fire"])
    assert res.pairs[0].b_wins == 2


def test_panel_names_everywhere(crossroads, toy_game):
    assert {"stand-and-fire", "rush"} <= set(BUILTIN_AGENTS)
    pool = OpponentPool(crossroads, bots=("stand-and-fire:2", "rush"),
                        weights=PoolWeights(latest=0.0, snapshot=0.0, bot=1.0), seed=0)
    rng = np.random.default_rng(0)
    names = {pool.sample_opponent(rng).name for _ in range(40)}
    assert names == {"stand-and-fire", "rush"}
    with pytest.raises(UnknownAgentError, match="stand-and-fire, rush"):
        make_agent("stand_and_fire", crossroads)
    with pytest.raises(UnknownAgentError, match="'rush' plays acw_regimental only, not 'toy'"):
        make_agent("rush", toy_game)


def test_crossroads_keeps_the_v0_battle():
    g = load_game("acw_regimental", "crossroads")
    assert g.scenario_name == "crossroads"
    assert g.objectives == [(24.0, 18.0), (12.0, 18.0), (36.0, 18.0)]
    names = [[u.name for u in g.initial_units if u.side == s] for s in (0, 1)]
    assert names[0] == ["1st Minnesota", "14th Brooklyn", "5th New York", "24th Michigan",
                        "Battery B", "1st Maine Cavalry", "Brooklyn skirmishers"]
    assert names[1] == ["5th Virginia", "8th Georgia", "28th North Carolina", "2nd Mississippi",
                        "Rockbridge Artillery", "Georgia skirmishers"]
    assert g.turns == 10 and g.units_at_start == [6, 5]
