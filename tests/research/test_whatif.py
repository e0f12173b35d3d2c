"""evaluate.py whatif's estimator (agents.research.whatif) against an exact solution of the toy
duel, common random numbers against independent seeds, and the bad-input cases."""

from __future__ import annotations

import json

import numpy as np
import pytest

from agents.policies.base import RandomPolicy
from agents.research.whatif import (WhatIfError, decision_point, evaluate_options,
                                    variance_ratio)
from envs.core.protocol import CHANCE, TERMINAL
from envs.core.replay import ReplayScript

TOY = {"ruleset": "toy", "scenario": None, "params": {"turns": 2, "hp": 3},
       "actions": ["attack", "react:dodge", "d6=4", "pass"]}


def exact_values(state) -> dict[str, float]:
    """Exact expected return of the deciding side after each legal action when both sides play
    uniformly at random: value iteration over the toy's reachable states (attack/miss loops
    make the graph cyclic), iterated to a fixed point (change < 1e-14)."""
    key = lambda s: json.dumps(s.to_dict()["state"], sort_keys=True)  # noqa: E731
    nodes, edges, todo = {}, {}, [state.clone()]
    while todo:
        s = todo.pop()
        k = key(s)
        if k in nodes:
            continue
        nodes[k] = s
        p = s.current_player()
        if p == TERMINAL:
            edges[k] = []
            continue
        probs = s.chance_outcomes() if p == CHANCE else [
            (a, 1.0 / len(s.legal_actions())) for a in s.legal_actions()]
        out = []
        for a, pr in probs:
            c = s.clone()
            c.apply_action(a)
            out.append((pr, key(c)))
            todo.append(c)
        edges[k] = out
    side = state.current_player()
    v = {k: (s.returns()[side] if s.current_player() == TERMINAL else 0.0)
         for k, s in nodes.items()}
    for _ in range(10_000):
        delta = 0.0
        for k, out in edges.items():
            if out:
                nv = sum(pr * v[c] for pr, c in out)
                delta = max(delta, abs(nv - v[k]))
                v[k] = nv
        if delta < 1e-14:
            break
    res = {}
    for a in state.legal_actions():
        c = state.clone()
        c.apply_action(a)
        res[state.game.actions.labels[a]] = v[key(c)]
    return res


@pytest.fixture()
def toy_point():
    return decision_point(ReplayScript.from_mapping(TOY, "toy.toml"), 1)


def test_decision_point_is_the_state_before_label_k(toy_point):
    assert toy_point.current_player() == 1
    assert toy_point.decision_name() == "reaction"
    assert toy_point.legal_labels() == ["react:dodge", "react:decline"]


def test_estimate_matches_exact_values_within_its_interval(toy_point):
    exact = exact_values(toy_point)
    # dodging makes the first attack hit on 5+ instead of 4+: worth something to the defender
    assert exact["react:dodge"] > exact["react:decline"]
    res = evaluate_options(toy_point, [RandomPolicy(), RandomPolicy()], rollouts=800, seed=3)
    assert res.side == 1 and res.baseline == "react:decline"
    for o in res.options:
        d = o.to_dict()
        assert d["ci95"][0] <= exact[o.label] <= d["ci95"][1], (o.label, d, exact)
        assert d["ci95"][1] - d["ci95"][0] < 0.15
    dd = res.option("react:dodge").to_dict()
    true_diff = exact["react:dodge"] - exact["react:decline"]
    assert dd["diff_ci95"][0] <= true_diff <= dd["diff_ci95"][1], (dd, true_diff)
    assert res.option("react:decline").to_dict()["diff_to_baseline"] == 0.0
    # the state itself is untouched
    assert toy_point.legal_labels() == ["react:dodge", "react:decline"]


@pytest.mark.slow
def test_common_random_numbers_narrow_the_difference_interval(toy_point):
    agents = [RandomPolicy(), RandomPolicy()]
    crn = evaluate_options(toy_point, agents, rollouts=600, seed=5, crn=True)
    ind = evaluate_options(toy_point, agents, rollouts=600, seed=5, crn=False)
    ratio = variance_ratio(ind, crn)["react:dodge"]
    w = lambda r: np.subtract(*r.option("react:dodge").to_dict()["diff_ci95"][::-1])  # noqa
    print(f"variance ratio (independent / CRN) of dodge - decline: {ratio:.2f}")
    assert ratio > 2.0
    dec = evaluate_options(toy_point, agents, rollouts=600, seed=5, align="decision")
    assert variance_ratio(ind, dec)["react:dodge"] > 2.0
    ev = evaluate_options(toy_point, agents, rollouts=600, seed=5, align="event")
    assert variance_ratio(ind, ev)["react:dodge"] > 2.0
    d = crn.option("react:dodge").to_dict()
    assert 0.0 < d["corr_with_baseline"] < 1.0 and 0.0 < d["same_result_share"] <= 1.0
    assert w(crn) < w(ind)
    # the per-option means are estimates of the same values either way
    for lab in ("react:dodge", "react:decline"):
        a, b = crn.option(lab).returns.mean(), ind.option(lab).returns.mean()
        assert abs(a - b) < 0.2


def test_same_seed_same_numbers(toy_point):
    agents = [RandomPolicy(), RandomPolicy()]
    a = evaluate_options(toy_point, agents, rollouts=30, seed=9)
    b = evaluate_options(toy_point, agents, rollouts=30, seed=9)
    for oa, ob in zip(a.options, b.options):
        assert np.array_equal(oa.returns, ob.returns)


@pytest.mark.parametrize("at,message", [
    (4, "outside the replay's 4 labels"),
    (-1, "outside the replay's 4 labels"),
    (2, "is a chance outcome, not a decision"),
])
def test_bad_decision_points(at, message):
    with pytest.raises(WhatIfError, match=message):
        decision_point(ReplayScript.from_mapping(TOY, "toy.toml"), at)


def test_bad_baseline(toy_point):
    with pytest.raises(WhatIfError, match="not legal"):
        evaluate_options(toy_point, [RandomPolicy(), RandomPolicy()], rollouts=2,
                         baseline="attack")


def test_event_chance_keys_dice_by_what_they_are_for():
    """align="event": the uniform of a die depends on (turn, roll description, occurrence in
    the turn, die index), not on how many dice came before it."""
    from types import SimpleNamespace

    from agents.research.whatif import EventChance
    from envs.core.frames import RollDice
    from envs.core.procedure import FrameStack

    def at(what: str, turn: int = 3):
        return SimpleNamespace(turn=turn, stack=FrameStack([RollDice(3, what)]),
                               decision_name=lambda: "chance")

    a, b = EventChance(7, 0), EventChance(7, 0)
    for _ in range(4):  # rolls that only one rollout makes do not shift the others
        a.generator(at("U1 (Iowa) fire"))
    ua = a.generator(at("C0 (Georgia) saves")).random()
    ub = b.generator(at("C0 (Georgia) saves")).random()
    assert ua == ub
    second = b.generator(at("C0 (Georgia) saves")).random()  # its 2nd roll in the turn
    assert second != ub
    assert a.generator(at("C0 (Georgia) saves", turn=4)).random() != ua  # another turn
    c = EventChance(7, 0)
    roll = at("C0 (Georgia) saves")
    assert c.generator(roll).random() == ua
    roll.stack.top.values.append(2)
    die1 = c.generator(roll).random()  # the 2nd die of the same roll: same occurrence
    assert die1 != ua and die1 != second
    assert c.seen == {"3|C0 (Georgia) saves": 1}
    assert EventChance(7, 1).generator(at("C0 (Georgia) saves")).random() != ua  # rollout 1


def test_event_chance_on_an_acw_chance_node():
    """The ACW state keeps its frames in a plain list: the key is read from its top frame."""
    from agents.research.whatif import EventChance
    from envs import load_game

    s = load_game("acw_regimental", "two_farms_union_first").new_initial_state()  # no roll-off
    assert s.current_player() == CHANCE
    ec = EventChance(0, 0)
    ec.generator(s)
    assert ec.seen == {"1|Staff Pips roll": 1}
