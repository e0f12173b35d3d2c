"""Search agents in training: a member of the opponent pool and the league
(``--pool-bots search:MODEL:sims=N[:WEIGHT]``), the behaviour-cloning teacher
(``--bc-teacher search:MODEL``), and bad specs there as one error line."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch

from agents.search import NetworkEvaluator, SearchAgent, SearchConfig
from agents.training.bc import collect_demonstrations
from agents.training.league.pfsp import League
from agents.training.league.selfplay import OpponentPool, PoolWeights
from envs import load_game
from envs.adapters.single_agent import RiposteGymEnv
from tests.test_scripts import TINY, run

from .conftest import network


@pytest.fixture(scope="module")
def toy_model(tmp_path_factory):
    """A small untrained checkpoint of the toy ruleset in train.py's safe format."""
    from sb3_contrib import MaskablePPO

    from agents.policies.checkpoint import save_model

    model = MaskablePPO("MlpPolicy", RiposteGymEnv("toy", seat="random"), n_steps=64,
                        batch_size=32, seed=0, device="cpu", policy_kwargs={"net_arch": [16]})
    return str(save_model(model, tmp_path_factory.mktemp("m") / "toy.zip", load_game("toy")))


def _episode(pool, seed: int) -> dict:
    """One episode of the toy game against ``pool``, the learner taking its first legal action;
    the final ``info``."""
    env = RiposteGymEnv("toy", opponent=pool, seat="random")
    _, info = env.reset(seed=seed)
    while True:
        _, _, terminated, truncated, info = env.step(int(np.flatnonzero(env.action_masks())[0]))
        if terminated or truncated:
            return info


def test_a_league_member_is_a_search_agent(toy_model):
    spec = f"search:{toy_model}:sims=2"
    league = League(load_game("toy"), bots=(f"{spec}:3", "random"), seed=0)
    assert league.members() == {spec: 3.0, "random": 1.0}
    picked = league.sample_opponent(np.random.default_rng(1))
    assert isinstance(picked, SearchAgent) and picked.name == spec
    assert picked.config.simulations == 2
    asked = []
    step = picked.step
    picked.step = lambda state: asked.append(state.current_player()) or step(state)
    for seed in range(8):
        info = _episode(league, seed)
        assert league.record_episode(info)
        if info["opponent"] == spec:
            break
    else:
        pytest.fail("the league never drew its search member in 8 episodes")
    # the search decided the opponent's side from the state, its result is the member's
    assert asked and set(asked) == {1 - info["side"]}
    assert len(league.results[spec]) >= 1 and league.picks[spec] >= 1


def test_a_fixed_weight_pool_draws_its_search_bot_in_an_env_process(toy_model):
    import cloudpickle

    spec = f"search:{toy_model}:sims=2"
    pool = OpponentPool(load_game("toy"), bots=(spec,), weights=PoolWeights(0, 0, 1), seed=0)
    # --vec-env subproc sends each env process its own copy of the pool, as cloudpickle does
    pool = cloudpickle.loads(cloudpickle.dumps(pool))
    info = _episode(pool, 0)
    assert info["opponent"] == spec and "returns" in info and pool.picks[spec] == 1


def test_a_search_teacher_is_cloned_from_its_choices():
    # zero simulations: the search plays its network's arg-max, so every recorded action is
    # the arg-max of the masked logits at the recorded observation
    game = load_game("toy")
    policy = network(game, seed=5)
    teacher = SearchAgent(game, NetworkEvaluator(game, policy), SearchConfig(simulations=0),
                          seed=0, name="search")
    demos = collect_demonstrations(game, teacher, [SearchAgent(
        game, NetworkEvaluator(game, network(game, seed=6)), SearchConfig(simulations=0),
        seed=1)], n_games=3, seed=0)
    assert len(demos.actions) > 6
    with torch.no_grad():
        dist = policy.get_distribution(torch.as_tensor(demos.obs),
                                       action_masks=torch.as_tensor(demos.masks))
        argmax = dist.distribution.probs.argmax(dim=1).numpy()
    assert np.array_equal(argmax, np.asarray(demos.actions))
    assert demos.masks[np.arange(len(demos.actions)), demos.actions].all()


@pytest.mark.slow
def test_train_with_a_search_league_member_and_teacher(toy_model, tmp_path):
    spec = f"search:{toy_model}:sims=2"
    run_dir = tmp_path / "run"
    r = run("train.py", "--ruleset", "toy", "--total-timesteps", "128", "--seed", "1",
            "--run-dir", str(run_dir), "--eval-freq", "0", *TINY, "--n-envs", "2",
            "--pool-bots", f"{spec}:4", "random",
            "--eval-agents", "random", spec, "--bc-games", "2", "--bc-teacher", spec,
            "--bc-opponents", "random", "--bc-epochs", "1")
    assert r.returncode == 0, r.stderr
    pool = json.loads((run_dir / "pool.json").read_text())
    assert pool["bots"] == [f"{spec}:4", "random"]
    assert pool["pfsp"]["results"][spec], pool  # games against the search member were scored


@pytest.mark.slow
@pytest.mark.parametrize("flag, spec, needle", [
    ("--pool-bots", "search:{m}:bogus=1", "unknown option 'bogus'"),
    ("--pool-bots", "search:{m}:sims=0", "positive"),
    ("--pool-bots", "search:/no/such/model.zip:sims=2", "not found"),
    ("--bc-teacher", "search:{m}:ms=-1", "positive"),
])
def test_train_refuses_a_bad_search_spec(toy_model, tmp_path, flag, spec, needle):
    spec = spec.format(m=toy_model)
    extra = (["--pool-bots", "random", "--bc-games", "2", "--bc-opponents", "random",
              "--bc-teacher", spec] if flag == "--bc-teacher" else ["--pool-bots", "random", spec])
    r = run("train.py", "--ruleset", "toy", "--total-timesteps", "64",
            "--run-dir", str(tmp_path / "r"), *TINY, "--eval-agents", "random", *extra)
    assert r.returncode == 2, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: {flag}: ") and needle in lines[0], \
        lines
    assert spec in lines[0]
