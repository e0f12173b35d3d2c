"""Tournaments: common random numbers, result arithmetic, decision statistics, ratings."""

from __future__ import annotations

import os

import numpy as np
import pytest

from agents import AlwaysReact, NeverReact, RandomPolicy
from agents.policies.base import BasePolicy, legal_ids
from agents.evaluation.ratings import game_scores, plackett_luce_ratings, wilson_interval
from agents.evaluation.tournament import chance_seed, play_game, round_robin
from envs.core.errors import IllegalActionError

from .test_policies import toy_game  # noqa: F401 (fixture)


class FirstLegal(BasePolicy):
    """Deterministic: always the lowest legal id."""

    def act(self, observation, action_mask):
        return int(legal_ids(action_mask)[0])


class Cheater(BasePolicy):
    def act(self, observation, action_mask):
        return int(np.flatnonzero(~np.asarray(action_mask, bool))[0])


@pytest.mark.slow
def test_both_seatings_share_chance_seeds(toy_game):
    """Identical deterministic agents under different names: games 2k and 2k+1 of a pair (seats
    swapped) must draw exactly the same dice, and pairs k differ."""
    agents = {"a": FirstLegal(name="a"), "b": FirstLegal(name="b"), "c": FirstLegal(name="c")}
    rolls: dict[tuple[str, str, int], list[int]] = {}
    res = round_robin(toy_game, agents, games_per_pair=6, seed=11,
                      on_game=lambda a, b, i, rec: rolls.__setitem__((a, b, i), rec.chance))
    assert len(rolls) == 18
    for (a, b, i), seq in rolls.items():
        assert seq, "toy games always roll dice"
        partner = i + 1 if i % 2 == 0 else i - 1
        assert rolls[(a, b, partner)] == seq
        other = (i + 2) % 6
        assert rolls[(a, b, other)] != seq
        # every pair sees the same chance stream for the same game index
        assert rolls[("a", "b", i)] == seq
    # the recorded keys: same chance key for 2k and 2k+1, seats swapped
    keys = [k for k in res.chance_keys if k[:2] == ("a", "c")]
    assert [(i, seat, ck) for _, _, i, seat, ck in keys] == [
        (0, 0, 0), (1, 1, 0), (2, 0, 1), (3, 1, 1), (4, 0, 2), (5, 1, 2)]
    # and the stream is the documented one
    rec = play_game(toy_game, [FirstLegal(), FirstLegal()],
                    np.random.default_rng(chance_seed(11, 1)))
    assert rec.chance == rolls[("b", "c", 2)]


def test_results_arithmetic_and_reproducibility(toy_game):
    def run(seed):
        agents = {"random": RandomPolicy(0), "never": NeverReact(toy_game, 0),
                  "always": AlwaysReact(toy_game, 0)}
        return round_robin(toy_game, agents, games_per_pair=16, seed=seed)

    res = run(3)
    assert [(p.a, p.b) for p in res.pairs] == [("random", "never"), ("random", "always"),
                                               ("never", "always")]
    for p in res.pairs:
        d = p.to_dict()
        assert d["games"] == 16 == d["a_wins"] + d["b_wins"] + d["draws"]
        assert d["a_score"] == pytest.approx((d["a_wins"] + d["draws"] / 2) / 16)
        lo, hi = d["a_score_ci95"]
        assert 0 <= lo <= d["a_score"] <= hi <= 1
    assert len(res.games) == 48
    again = run(3)
    assert [p.to_dict() for p in again.pairs] == [p.to_dict() for p in res.pairs]
    assert again.decision_stats == res.decision_stats
    assert [p.to_dict() for p in run(4).pairs] != [p.to_dict() for p in res.pairs]


def test_decision_stats_count_every_decision(toy_game):
    total = {"n": 0}

    def count(a, b, i, rec):
        total["n"] += len(rec.decisions)

    agents = {"never": NeverReact(toy_game, 1), "always": AlwaysReact(toy_game, 1)}
    res = round_robin(toy_game, agents, 10, seed=0, on_game=count)
    counted = sum(c for by in res.decision_stats.values() for d in by.values() for c in d.values())
    assert counted == total["n"]
    assert set(res.decision_stats["never"]["reaction"]) == {"react:decline"}
    assert set(res.decision_stats["always"]["reaction"]) == {"react:dodge"}
    assert set(res.decision_stats["never"]["maneuver"]) <= {"attack", "rest", "pass"}
    out = res.reaction_outcomes["always"]["react:dodge"]
    assert 1 <= out["games"] <= 10 and 0 <= out["score"] <= 1


def test_truncated_games_are_draws(toy_game):
    res = round_robin(toy_game, {"x": RandomPolicy(0), "y": RandomPolicy(1)}, 4, seed=0,
                      max_decisions=2)
    assert res.truncated == 4
    assert res.pairs[0].draws == 4 and res.pairs[0].a_score == 0.5


def test_illegal_choice_raises_naming_the_agent(toy_game):
    with pytest.raises(IllegalActionError, match="'cheat'.*chose illegal"):
        round_robin(toy_game, {"cheat": Cheater(name="cheat"), "r": RandomPolicy(0)}, 2)


def test_game_scores_and_wilson():
    assert game_scores(1.0) == (1.0, 0.0)
    assert game_scores(-0.3) == (0.0, 1.0)
    assert game_scores(0.0) == (0.5, 0.5)
    lo, hi = wilson_interval(5, 10)
    assert lo == pytest.approx(0.2366, abs=1e-4) and hi == pytest.approx(0.7634, abs=1e-4)
    lo, hi = wilson_interval(10, 10)
    assert hi == 1.0 and lo == pytest.approx(0.7225, abs=1e-4)
    assert wilson_interval(0, 0) == (0.0, 1.0)
    with pytest.raises(ValueError):
        wilson_interval(11, 10)


def test_ratings_order_a_synthetic_ladder():
    rng = np.random.default_rng(0)
    strength = {"strong": 2.0, "middle": 0.0, "weak": -2.0}
    games = []
    for _ in range(60):
        for a, b in [("strong", "middle"), ("middle", "weak"), ("strong", "weak")]:
            p = 1 / (1 + np.exp(strength[b] - strength[a]))
            games.append((a, b, 1.0 if rng.random() < p else 0.0))
    games.append(("weak", "strong", 0.5))
    r = plackett_luce_ratings(["weak", "middle", "strong", "idle"], games)
    assert r["strong"]["rating"] > r["middle"]["rating"] > r["weak"]["rating"]
    assert r["strong"]["ci95"][0] > r["weak"]["ci95"][1]
    assert r["idle"]["rating"] == pytest.approx(25.0)  # no games: the prior
    for v in r.values():
        assert v["ci95"][0] < v["rating"] < v["ci95"][1]
    with pytest.raises(ValueError, match="unknown agents"):
        plackett_luce_ratings(["x"], [("x", "y", 1.0)])


# -- worker processes (play_schedule) ---------------------------------------------------------
def _result_doc(res) -> dict:
    return {"pairs": [p.to_dict() for p in res.pairs], "games": res.games,
            "ratings": res.ratings, "decision_stats": res.decision_stats,
            "reaction_outcomes": res.reaction_outcomes, "chance_keys": res.chance_keys,
            "truncated": res.truncated, "analytics": res.reaction_analytics}


def test_worker_processes_give_the_same_tournament_on_acw():
    """Two forked workers play the same ACW games as one process: every pair count, rating,
    decision statistic, reaction analytic and chance key is equal (the reaction outcomes are
    measured in the workers, whose records come back without their state)."""
    from agents import make_agent
    from envs import load_game

    game = load_game("acw_regimental", "example_c_opportunity_fire")
    seen: dict[int, list] = {1: [], 2: []}

    def run(jobs):
        agents = {n: make_agent(n, game, 3) for n in ("heuristic", "random", "always-react")}
        return round_robin(game, agents, games_per_pair=6, seed=5, jobs=jobs,
                           on_game=lambda a, b, i, rec: seen[jobs].append(
                               (a, b, i, rec.chance, rec.decisions, rec.returns)))

    one, two = run(1), run(2)
    assert _result_doc(two) == _result_doc(one)
    assert seen[2] == seen[1] and len(seen[1]) == 18
    offered = sum(v["offered"] for per in one.reaction_analytics.values() for v in per.values())
    assert offered > 0, "the scenario must offer reactions for the analytics to be compared"


@pytest.mark.slow
def test_worker_processes_give_the_same_free_for_all():
    from agents import make_agent
    from agents.evaluation.free_for_all import free_for_all
    from envs import load_game

    game = load_game("skirmish_alert", "ffa3")

    def run(jobs):
        agents = {n: make_agent(n, game, 1) for n in ("heuristic", "random")}
        res = free_for_all(game, agents, 6, seed=2, max_decisions=60, jobs=jobs)
        return _result_doc(res), res.placements

    assert run(2) == run(1)


def test_worker_errors_reach_the_caller(toy_game):
    """An illegal choice made in a worker is raised in the parent with its message."""
    agents = {"random": RandomPolicy(0), "cheat": Cheater(name="cheat")}
    with pytest.raises(IllegalActionError, match="cheat"):
        round_robin(toy_game, agents, games_per_pair=4, seed=0, jobs=2)


def test_jobs_must_be_positive(toy_game):
    agents = {"a": FirstLegal(name="a"), "b": FirstLegal(name="b")}
    with pytest.raises(ValueError, match="jobs must be >= 1"):
        round_robin(toy_game, agents, games_per_pair=2, jobs=0)


_PARENT = os.getpid()


class DiesInAWorker(BasePolicy):
    """Kills its own process when it is not the test's (a worker killed by the OS)."""

    def act(self, observation, action_mask):
        if os.getpid() != _PARENT:
            os._exit(9)
        return int(legal_ids(action_mask)[0])


def test_a_worker_that_dies_is_an_error_not_a_hang(toy_game):
    """multiprocessing.Pool would replace the dead worker and wait for its games forever."""
    from envs.core.workers import WorkerDiedError

    agents = {"a": FirstLegal(name="a"), "dies": DiesInAWorker(name="dies")}
    with pytest.raises(WorkerDiedError, match=r"worker process died while playing one of games \d+\.\.\d+"):
        round_robin(toy_game, agents, games_per_pair=4, seed=0, jobs=2)
    assert round_robin(toy_game, agents, games_per_pair=4, seed=0, jobs=1).pairs[0].games == 4


def test_a_schedule_builds_its_games_only_when_asked():
    """A huge --games no longer builds every ScheduledGame before the first is played."""
    from agents.evaluation.tournament import Schedule

    made = []
    sched = Schedule(10**9, lambda k: made.append(k) or k)
    assert len(sched) == 10**9 and made == []
    assert sched[5] == 5 and sched[-1] == 10**9 - 1 and sched[3:6] == [3, 4, 5]
    assert made == [5, 10**9 - 1, 3, 4, 5]
    with pytest.raises(IndexError):
        sched[10**9]
