"""Units of the RLlib backend that need Ray RLlib installed but no Ray instance: the masked
module, its export to the policy protocol, the bot module, the policy mapping, the env wrapper on
irregular turn order, and the command line's bad input."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

if os.environ.get("CI"):  # CI installs the rllib extra (make test): never skip there
    import ray  # noqa: F401
else:
    pytest.importorskip("ray.rllib")

import torch  # noqa: E402
from ray.rllib.core.columns import Columns  # noqa: E402
from ray.rllib.core.rl_module.rl_module import RLModuleSpec  # noqa: E402

from agents import make_agent  # noqa: E402
from agents.policies.ppo import MaskablePPOPolicy  # noqa: E402
from agents.backends.rllib import (MAIN, RllibBackendError, check_address,  # noqa: E402
                                   episode_matchup, export_policy, make_env, opponent_table)
from agents.backends.rllib_modules import BotModule, MaskedActorCritic, masked_logits  # noqa: E402
from envs import load_game  # noqa: E402
from envs.adapters.aec import RiposteAECEnv  # noqa: E402
from agents.evaluation.tournament import play_game  # noqa: E402
from tests.test_scripts import IN_USE, live_run_lock  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def game():
    return load_game("acw_regimental")


def module_for(game, arch=(32, 16), seed=0):
    torch.manual_seed(seed)
    env = RiposteAECEnv("acw_regimental")
    return RLModuleSpec(module_class=MaskedActorCritic, observation_space=env.observation_space(
        "player_0"), action_space=env.action_space("player_0"),
        model_config={"net_arch": list(arch)}).build()


def test_masked_logits_give_illegal_actions_zero_probability():
    logits = torch.tensor([[3.0, -1.0, 0.5, 2.0], [0.0, 0.0, 0.0, 0.0]])
    mask = torch.tensor([[0, 1, 1, 0], [0, 0, 0, 0]], dtype=torch.int8)
    p = torch.softmax(masked_logits(logits, mask), -1)
    assert p[0, 0].item() == 0.0 and p[0, 3].item() == 0.0
    assert p[0, 1].item() == pytest.approx(np.exp(-1) / (np.exp(-1) + np.exp(0.5)))
    assert torch.allclose(p[1], torch.full((4,), 0.25))  # no legal action: uniform, not NaN


def test_module_sees_only_the_observation_and_masks_its_logits(game):
    mod = module_for(game)
    first = next(mod.mlp_extractor.policy_net.parameters())
    assert first.shape == (32, game.observation_size)  # the mask is no input feature
    env = RiposteAECEnv("acw_regimental")
    env.reset(seed=3)
    ob = env.observe(env.agent_selection)
    batch = {Columns.OBS: {"observation": torch.as_tensor(ob["observation"])[None],
                           "action_mask": torch.as_tensor(ob["action_mask"])[None]}}
    out = mod.forward_exploration(batch)[Columns.ACTION_DIST_INPUTS]
    probs = torch.softmax(out, -1)[0].detach().numpy()
    legal = ob["action_mask"].astype(bool)
    assert probs[~legal].max() == 0.0 and probs[legal].sum() == pytest.approx(1.0)
    v = mod.compute_values(batch)
    assert v.shape == (1,)


def test_export_plays_like_the_rllib_module(game, tmp_path):
    mod = module_for(game)
    path = export_policy(mod.state_dict(), tmp_path / "final_model.zip", game, [32, 16], 123)
    pol = MaskablePPOPolicy.load(path, game)  # no unpickling: weights_only + our JSON
    assert pol.model.num_timesteps == 123 and pol.model.config["trained_with"] == "rllib"
    env = RiposteAECEnv("acw_regimental")
    env.reset(seed=5)
    for _ in range(40):
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            break
        ob = env.observe(agent)
        batch = {Columns.OBS: {k: torch.as_tensor(v)[None] for k, v in ob.items()}}
        logits = mod.forward_inference(batch)[Columns.ACTION_DIST_INPUTS]
        ours = int(torch.argmax(logits, -1)[0])
        assert pol.act(ob["observation"], ob["action_mask"]) == ours
        sb3 = pol.model.policy.get_distribution(
            torch.as_tensor(ob["observation"])[None], action_masks=ob["action_mask"][None])
        assert torch.allclose(sb3.distribution.probs, torch.softmax(logits, -1), atol=1e-6)
        env.step(ours)


def test_exported_policy_is_legal_through_a_whole_game(game, tmp_path):
    path = export_policy(module_for(game, seed=1).state_dict(), tmp_path / "m.zip", game,
                         [32, 16], 0)
    pol = MaskablePPOPolicy.load(path, game, deterministic=False, seed=2)
    for k in range(2):  # play_game raises IllegalActionError on an illegal choice
        rec = play_game(game, [pol, make_agent("random", game, 9)][::1 - 2 * k],
                        np.random.default_rng(k))
        assert rec.returns is not None and len(rec.decisions) > 20


def test_export_refuses_weights_that_do_not_fit(game, tmp_path):
    from agents.policies.base import AgentLoadError

    with pytest.raises(AgentLoadError, match="does not fit"):
        export_policy(module_for(game).state_dict(), tmp_path / "x.zip", game, [64], 0)
    assert not list(tmp_path.iterdir())  # nothing half-written


def test_bot_module_acts_legally(game):
    env = RiposteAECEnv("acw_regimental")
    bot = RLModuleSpec(module_class=BotModule, observation_space=env.observation_space(
        "player_0"), action_space=env.action_space("player_0"), model_config={
        "agent": "heuristic", "ruleset": "acw_regimental", "seed": 0}).build()
    env.reset(seed=1)
    for _ in range(30):
        ob = env.observe(env.agent_selection)
        batch = {Columns.OBS: {k: torch.as_tensor(v)[None] for k, v in ob.items()}}
        a = int(bot.forward_inference(batch)[Columns.ACTIONS][0])
        assert ob["action_mask"][a] == 1
        env.step(a)


def test_policy_mapping_is_per_episode_and_covers_seats_and_opponents():
    agents, opps, w = ("player_0", "player_1"), (MAIN, "snapshot_0", "bot_random"), (1, 1, 2)
    picks = [episode_matchup(f"ep{i}", agents, opps, w) for i in range(400)]
    assert picks[7] == episode_matchup("ep7", agents, opps, w)  # same episode, same answer
    seats = [s for s, _ in picks]
    assert 150 < seats.count("player_0") < 250
    counts = {o: sum(1 for _, x in picks if x == o) for o in opps}
    assert counts["bot_random"] > counts[MAIN] > 50 and counts["snapshot_0"] > 50


def test_opponent_table_weights():
    class A:
        pool_latest_weight, pool_snapshot_weight, pool_bot_weight = 0.2, 0.1, 0.8
        max_snapshots = 2
        pool_bots = ["random:3", "heuristic"]

    ids, w, bots = opponent_table(A())
    assert ids == (MAIN, "snapshot_0", "snapshot_1", "bot_random", "bot_heuristic")
    assert np.allclose(w, [0.2, 0.05, 0.05, 0.6, 0.2])
    assert bots == {"bot_random": "random", "bot_heuristic": "heuristic"}


@pytest.mark.parametrize("ruleset,min_run", [("toy", 2), ("acw_regimental", 10)])
def test_wrapper_follows_irregular_turn_order(ruleset, min_run):
    """RLlib's PettingZooEnv over games where a side acts many times in a row (an ACW
    activation: 27-44 decisions in a row in these games) and the other side reacts inside its
    turn: every step returns the observation of the agent on move only (with its mask), and
    the end pays both agents, zero-sum."""
    import tests.conftest  # noqa: F401  (registers "toy")

    env = make_env({"ruleset": ruleset})
    rng = np.random.default_rng(0)
    obs, _ = env.reset(seed=0)
    movers, longest, run = [], 0, 0
    while True:
        (agent, ob), = obs.items()
        movers.append(agent)
        run = run + 1 if len(movers) > 1 and movers[-2] == agent else 1
        longest = max(longest, run)
        a = int(rng.choice(np.flatnonzero(ob["action_mask"])))
        obs, rew, term, trunc, _ = env.step({agent: a})
        if term["__all__"] or trunc["__all__"]:
            assert set(rew) == {"player_0", "player_1"} and sum(rew.values()) == 0
            break
    assert longest >= min_run
    assert len(set(movers)) == 2


def test_check_address_fails_fast_and_in_one_line():
    with socket.socket() as s:  # a free port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    t0 = time.monotonic()
    with pytest.raises(RllibBackendError, match="no Ray cluster reachable") as exc:
        check_address(f"127.0.0.1:{port}", timeout=2.0)
    assert time.monotonic() - t0 < 10 and "\n" not in str(exc.value)
    with pytest.raises(RllibBackendError, match="is not HOST:PORT"):
        check_address("nohost")


def run_train(*args, pre="pass", timeout=240):
    code = (f"import runpy, sys; {pre}; sys.argv = ['train.py', *sys.argv[1:]]; "
            "runpy.run_path('train.py', run_name='__main__')")
    return subprocess.run([sys.executable, "-c", code, *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=timeout)


@pytest.mark.slow
def test_unknown_backend_lists_the_known_ones(tmp_path):
    r = run_train("--backend", "jax", "--run-dir", str(tmp_path))
    assert r.returncode == 2
    assert r.stderr.strip() == "error: --backend 'jax' is not one of sb3, rllib"


@pytest.mark.slow
def test_missing_extra_names_the_install_command(tmp_path):
    r = run_train("--backend", "rllib", "--run-dir", str(tmp_path), pre="sys.modules['ray'] = None")
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: --backend rllib needs Ray RLlib")
    assert 'pip install -e ".[rllib]"' in lines[0]
    assert not (tmp_path / "config.json").exists()


@pytest.mark.slow
def test_unreachable_address_is_one_line(tmp_path):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    r = run_train("--backend", "rllib", "--address", f"127.0.0.1:{port}", "--run-dir",
                  str(tmp_path / "run"), "--eval-agents", "random")
    assert r.returncode == 2
    lines = [ln for ln in r.stderr.strip().splitlines() if ln.startswith("error:")]
    assert len(lines) == 1 and "no Ray cluster reachable" in lines[0]
    assert f"127.0.0.1:{port}" in lines[0]
    assert not (tmp_path / "run").exists()  # nothing written for a cluster never joined


@pytest.mark.slow
def test_overwrite_refused_for_a_bad_flag_deletes_nothing(tmp_path):
    run_dir = tmp_path / "run"
    (run_dir / "rllib_checkpoints" / "ckpt_0000000128").mkdir(parents=True)
    (run_dir / "final_model.zip").write_bytes(b"the previous run's model")
    r = run_train("--backend", "rllib", "--run-dir", str(run_dir), "--overwrite",
                  "--eval-agents", "skynet")
    assert r.returncode == 2, r.stderr
    assert (run_dir / "final_model.zip").read_bytes() == b"the previous run's model"
    assert (run_dir / "rllib_checkpoints" / "ckpt_0000000128").is_dir()


@pytest.mark.slow
@pytest.mark.parametrize("flag", ["--pool-bots", "--eval-agents"])
def test_a_bot_given_twice_is_refused(tmp_path, flag):
    """opponent_table and the evaluation's dict kept one of them, silently."""
    r = run_train("--backend", "rllib", "--run-dir", str(tmp_path / "run"), flag, "random",
                  "heuristic", "random")
    assert r.returncode == 2, r.stderr
    assert r.stderr.strip() == f"error: {flag} names must be distinct: 'random' is given twice"
    assert not (tmp_path / "run").exists()


@pytest.mark.slow
@pytest.mark.parametrize("edit, message", [
    ({"n_envs": 0}, "has \"n_envs\": 0: --n-envs must be >= 1"),
    ({"eval_agents": ["random", "random"]},
     "has \"eval_agents\": [\"random\", \"random\"]: --eval-agents names must be distinct: "
     "'random' is given twice"),
])
def test_resume_checks_the_run_config_like_fresh_flags(tmp_path, edit, message):
    """The RLlib backend's --resume reads config.json through
    agents.training.train_cli.resume_config too."""
    import json

    run_dir = tmp_path / "run"
    ckpt = run_dir / "rllib_checkpoints" / "ckpt_128"
    ckpt.mkdir(parents=True)
    (ckpt / "riposte_state.json").write_text('{"timesteps": 128, "snapshots_taken": 0}')
    (run_dir / "config.json").write_text(json.dumps({"backend": "rllib", "args": {
        "backend": "rllib", "eval_agents": ["random"], **edit}}))
    r = run_train("--backend", "rllib", "--run-dir", str(run_dir), "--resume")
    assert r.returncode == 2, r.stderr
    assert r.stderr.strip() == (f"error: --resume: {str(run_dir / 'config.json')!r} (the run's "
                                f"configuration) {message}"), r.stderr


@pytest.mark.slow
@pytest.mark.skipif(sys.platform == "win32", reason="fcntl locks")
def test_a_run_directory_in_use_is_refused(tmp_path):
    """The SB3 backend's run_dir/.lock, now also the RLlib backend's: refused before Ray starts,
    nothing deleted by the --overwrite."""
    run_dir = tmp_path / "run"
    (run_dir / "rllib_checkpoints" / "ckpt_0000000128").mkdir(parents=True)
    (run_dir / "final_model.zip").write_bytes(b"the live run's model")
    with live_run_lock(run_dir):
        t0 = time.monotonic()
        r = run_train("--backend", "rllib", "--run-dir", str(run_dir), "--overwrite",
                      "--eval-agents", "random")
    assert r.returncode == 2, r.stderr
    assert r.stderr.strip() == IN_USE.format(str(run_dir))
    assert time.monotonic() - t0 < 60  # (Ray was not started)
    assert (run_dir / "final_model.zip").read_bytes() == b"the live run's model"
    assert (run_dir / "rllib_checkpoints" / "ckpt_0000000128").is_dir()
