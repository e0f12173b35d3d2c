"""Checkpoint selection of train.py (agents.training.callbacks.SelfPlayCallback): the extra games
against the opponents the first evaluation found hard, no evaluation while the actor is frozen,
and the kept candidates."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

import agents.training.evaluations as evaluations
import agents.training.selection as selection
from agents.training.callbacks import SelfPlayCallback
from agents.training.selection import EXTRA_SEED_OFFSET


def _callback(tmp_path, monkeypatch, first, more, **kw):
    """A callback whose evaluations are scripted: ``first`` (the eval_games evaluation) and
    ``more`` (the extra games) map opponent names to scores; every call is recorded."""
    calls = []

    def fake_evaluate(model, game, opponents, games, seed, max_decisions=None, jobs=1):
        calls.append((sorted(opponents), games, seed))
        table = first if seed == 7 else more
        return {n: table[n] for n in opponents}

    saved = []
    monkeypatch.setattr(selection, "evaluate_model", fake_evaluate)
    monkeypatch.setattr(evaluations, "atomic_save_model",
                        lambda model, path, game=None: saved.append(path.name))
    opponents = {n: object() for n in first}
    cb = SelfPlayCallback(run_dir=tmp_path, pool=SimpleNamespace(snapshots=[]), game=None,
                          eval_opponents=opponents, snapshot_freq=10**9,
                          checkpoint_freq=10**9, eval_games=60, eval_seed=7, **kw)
    return cb, calls, saved


def test_extra_games_only_against_the_hard_opponents_and_pooled(tmp_path, monkeypatch):
    cb, calls, _ = _callback(tmp_path, monkeypatch,
                             first={"random": 1.0, "rush": 0.5, "heuristic": 0.85},
                             more={"rush": 0.75, "heuristic": 0.6}, eval_freq=0,
                             extra_games=140, extra_below=0.9)
    scores = cb.scores(model=object())
    assert calls == [(["heuristic", "random", "rush"], 60, 7),
                     (["heuristic", "rush"], 140, 7 + EXTRA_SEED_OFFSET)]
    assert scores["random"] == 1.0
    assert scores["rush"] == pytest.approx((0.5 * 60 + 0.75 * 140) / 200)
    assert scores["heuristic"] == pytest.approx((0.85 * 60 + 0.6 * 140) / 200)


def test_no_extra_games_when_none_is_hard_or_none_asked(tmp_path, monkeypatch):
    cb, calls, _ = _callback(tmp_path, monkeypatch, first={"random": 0.95, "rush": 0.9},
                             more={}, eval_freq=0, extra_games=140, extra_below=0.9)
    assert cb.scores(model=object()) == {"random": 0.95, "rush": 0.9}
    cb.extra_games = 0
    cb.extra_below = 1.0
    assert cb.scores(model=object()) == {"random": 0.95, "rush": 0.9}
    assert [c[1] for c in calls] == [60, 60]


def test_evaluations_at_rollout_boundaries_not_while_the_actor_is_frozen(tmp_path,
                                                                          monkeypatch):
    cb, calls, saved = _callback(tmp_path, monkeypatch, first={"rush": 0.5}, more={},
                                 eval_freq=200, eval_after=300,
                                 candidates_dir=tmp_path / "candidates")
    model = SimpleNamespace(num_timesteps=0, _total_timesteps=2000, get_env=lambda: None,
                            logger=SimpleNamespace(record=lambda k, v: None))
    cb.init_callback(model)
    cb.on_training_start({}, {})  # the warm start is evaluated at 0
    for t in range(64, 2000, 64):
        model.num_timesteps = t
        cb.locals = {}
        cb.on_step()  # in a rollout: never an evaluation
        if t % 128 == 0:
            cb.on_rollout_start()
    steps = [int(r.split(",")[0]) for r in
             (tmp_path / "metrics.csv").read_text().splitlines()[1:]]
    # the first boundary after each multiple of 200, from 300 on (200: the actor is frozen)
    assert steps == [0, 512, 640, 896, 1024, 1280, 1408, 1664, 1920]
    assert len(calls) == len(steps)
    # every evaluated policy is kept as a candidate, the best (ties: the later) as best_model
    assert saved.count("best_model.zip") == len(steps)
    assert sorted(n for n in saved if n.startswith("model_")) == [
        f"model_{t:010d}.zip" for t in steps]
    assert cb.best["timesteps"] == 1920
