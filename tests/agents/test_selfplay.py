"""The self-play opponent pool: sampling weights, snapshots on disk, state round trip."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from agents import OpponentPool, PoolWeights
from agents.policies.base import AgentError

from .test_policies import random_decisions, toy_game  # noqa: F401 (fixture)


@pytest.fixture(scope="module")
def toy_model():
    from sb3_contrib import MaskablePPO

    from envs.adapters.single_agent import RiposteGymEnv

    return MaskablePPO("MlpPolicy", RiposteGymEnv("toy"), n_steps=64, batch_size=32, seed=0,
                       device="cpu", policy_kwargs={"net_arch": [16]})


BOTS = ("random", "never-react", "always-react")


def test_bots_only_pool_samples_bots_uniformly(toy_game):
    pool = OpponentPool(toy_game, bots=BOTS, seed=0)
    rng = np.random.default_rng(0)
    names = Counter(pool.sample_opponent(rng).name for _ in range(900))
    assert set(names) == set(BOTS)
    assert all(abs(c - 300) < 60 for c in names.values())
    assert pool.category_probabilities() == {"latest": 0.0, "snapshot": 0.0, "bot": 1.0}


def test_weights_decide_the_category(toy_game, toy_model, tmp_path):
    pool = OpponentPool(toy_game, bots=BOTS, weights=PoolWeights(0.5, 0.25, 0.25),
                        snapshot_dir=tmp_path, seed=1)
    pool.set_latest(toy_model)
    pool.add_snapshot(toy_model, 100)
    assert pool.category_probabilities() == {"latest": 0.5, "snapshot": 0.25, "bot": 0.25}
    rng = np.random.default_rng(2)
    picks = Counter()
    for _ in range(800):
        name = pool.sample_opponent(rng).name
        picks["latest" if name == "latest" else "snapshot" if name.startswith("snapshot")
              else "bot"] += 1
    assert abs(picks["latest"] - 400) < 60
    assert abs(picks["snapshot"] - 200) < 50 and abs(picks["bot"] - 200) < 50
    assert sum(pool.picks.values()) == 800
    # every sampled opponent plays legal moves
    opp = pool.sample_opponent(rng)
    for _, _, obs, mask in random_decisions(toy_game, 3, seed=0):
        assert mask[opp(obs, mask)]


def test_snapshots_are_atomic_windowed_and_restored(toy_game, toy_model, tmp_path):
    pool = OpponentPool(toy_game, bots=("random",), max_snapshots=2, snapshot_dir=tmp_path,
                        seed=0)
    for steps in (10, 20, 30):
        path = pool.add_snapshot(toy_model, steps)
        assert path.is_file() and path.name == f"snapshot_{steps:010d}.zip"
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "snapshot_0000000010.zip", "snapshot_0000000020.zip", "snapshot_0000000030.zip"]
    assert [p[-14:] for p in pool.window()] == ["0000000020.zip", "0000000030.zip"]
    pool.picks["random"] += 3
    pool.save(tmp_path / "pool.json")
    fresh = OpponentPool(toy_game, bots=("random",), max_snapshots=2, snapshot_dir=tmp_path)
    fresh.load_state(tmp_path / "pool.json")
    assert fresh.snapshots == pool.snapshots and fresh.picks["random"] == 3
    rng = np.random.default_rng(0)
    fresh.weights = PoolWeights(0.0, 1.0, 0.0)
    assert fresh.sample_opponent(rng).name.startswith("snapshot:snapshot_00000000")


def test_bad_pools(toy_game, tmp_path):
    with pytest.raises(AgentError, match="weights"):
        OpponentPool(toy_game, bots=BOTS, weights=PoolWeights(-1, 0, 1))
    empty = OpponentPool(toy_game, bots=())
    with pytest.raises(AgentError, match="empty"):
        empty.sample_opponent(np.random.default_rng(0))
    with pytest.raises(AgentError, match="snapshot_dir"):
        empty.add_snapshot(object(), 1)
    (tmp_path / "bad.json").write_text("{not json")
    with pytest.raises(AgentError, match="bad.json"):
        empty.load_state(tmp_path / "bad.json")


def test_bot_weights(toy_game):
    from agents.training.league.selfplay import parse_bot_spec

    assert parse_bot_spec("heuristic:2.5") == ("heuristic", 2.5)
    assert parse_bot_spec("random") == ("random", 1.0)
    assert parse_bot_spec("runs/x/model.zip") == ("runs/x/model.zip", 1.0)
    with pytest.raises(AgentError, match="weight"):
        parse_bot_spec("random:-1")
    for bad in ("random:nan", "random:inf"):
        with pytest.raises(AgentError, match="weight must be finite and >= 0"):
            parse_bot_spec(bad)
    with pytest.raises(AgentError, match=r"'heuristic:abc': weight 'abc' is not a number"):
        parse_bot_spec("heuristic:abc")
    # a name that is not built in keeps its colon (a checkpoint path may contain one)
    assert parse_bot_spec("runs/a:b/model.zip") == ("runs/a:b/model.zip", 1.0)
    pool = OpponentPool(toy_game, bots=("random:3", "never-react:1", "always-react:0"), seed=0)
    rng = np.random.default_rng(5)
    names = Counter(pool.sample_opponent(rng).name for _ in range(800))
    assert names["always-react"] == 0
    assert abs(names["random"] - 600) < 60 and abs(names["never-react"] - 200) < 60
    with pytest.raises(AgentError, match="distinct"):
        OpponentPool(toy_game, bots=("random", "random:2"))
