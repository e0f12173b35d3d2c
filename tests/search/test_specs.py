"""Search agent specs (``search:MODEL[:key=value...]``): parsing, and bad specs as one
``error:`` line with exit status 2 from every command that takes an agent spec, before any game
starts: evaluate.py's tournament, evaluate.py exploit and python -m envs play."""

from __future__ import annotations

import os
import re

import numpy as np
import pytest

from agents import make_agent
from agents.builtin import agent_identity
from agents.search import SearchAgent, SearchConfig, SearchSpecError, parse_search_spec
from agents.search.config import describe


@pytest.fixture(scope="module")
def acw_model(tmp_path_factory):
    """A small untrained ACW checkpoint in train.py's safe format."""
    from sb3_contrib import MaskablePPO

    from agents.policies.checkpoint import save_model
    from envs import load_game
    from envs.adapters.single_agent import RiposteGymEnv

    env = RiposteGymEnv("acw_regimental", seat="random")
    model = MaskablePPO("MlpPolicy", env, n_steps=64, batch_size=32, seed=0, device="cpu",
                        policy_kwargs={"net_arch": [16]})
    return str(save_model(model, tmp_path_factory.mktemp("m") / "acw.zip",
                          load_game("acw_regimental")))


def test_parse_search_spec():
    assert parse_search_spec("search:runs/a.zip") == ("runs/a.zip", SearchConfig())
    path, cfg = parse_search_spec("search:runs/a.zip:sims=32:chance=expand:select=puct")
    assert path == "runs/a.zip"
    assert (cfg.simulations, cfg.chance, cfg.below_root) == (32, "expand", "puct")
    assert parse_search_spec("search:C:/m.zip:ms=50")[0] == "C:/m.zip"
    assert parse_search_spec("search:a.zip:ms=12.5")[1].milliseconds == 12.5
    assert describe(parse_search_spec("search:a.zip:sims=32:k=2")[1]) == "sims=32:k=2"
    assert parse_search_spec("search:a.zip:rollout=30")[1].rollout == 30
    assert parse_search_spec("search:a.zip:rollout=0")[1].rollout == 0  # the value head's
    assert describe(parse_search_spec("search:a.zip:rollout=10:c_scale=0.1")[1]) == \
        "c_scale=0.1:rollout=10"
    assert describe(parse_search_spec("search:a.zip:rollout=30:c_scale=1")[1]) == ""


@pytest.mark.parametrize("spec, needle", [
    ("search:a.zip:foo=1", "unknown option 'foo'"),
    ("search:a.zip:sims=0", "must be a positive number"),
    ("search:a.zip:sims=-3", "must be a positive number"),
    ("search:a.zip:ms=0", "must be a positive number"),
    ("search:a.zip:sims=2.5", "whole number"),
    ("search:a.zip:sims=many", "not a number"),
    ("search:a.zip:sims=nan", "not a finite number"),
    ("search:a.zip:chance=dice", "expected one of open, sample, expand"),
    ("search:a.zip:rollout=-1", "must be >= 0"),
    ("search:a.zip:confident=1.5", "a probability in (0, 1]"),
    ("search:a.zip:confident=0", "must be a positive number"),
    ("search:a.zip:sims=4:ms=10", "sims or ms, not both"),
    ("search:", "expected search:MODEL"),
    ("search:sims=4", "expected search:MODEL"),
    ("search:a.zip:=4", "is not key=value"),
])
def test_bad_specs_are_refused(spec, needle):
    with pytest.raises(SearchSpecError, match="agent spec") as err:
        parse_search_spec(spec)
    assert needle in str(err.value)


def test_make_agent_builds_the_search_agent(acw_model):
    from envs import load_game

    game = load_game("acw_regimental")
    agent = make_agent(f"search:{acw_model}:sims=3", game, seed=0)
    assert isinstance(agent, SearchAgent)
    assert agent.config.simulations == 3 and agent.name == f"search:{acw_model}:sims=3"
    assert agent_identity(f"search:{acw_model}:sims=3") == \
        agent_identity(f"search:{os.path.relpath(acw_model)}:sims=3")
    assert agent_identity(f"search:{acw_model}:sims=3") != agent_identity(
        f"search:{acw_model}:sims=4")
    assert agent_identity(f"search:{acw_model}") != agent_identity(acw_model)


def _one_error_line(code: int, err: str, *needles: str) -> None:
    assert code == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    for n in needles:
        assert n in lines[0], lines[0]


def _cases(model: str) -> list[tuple[str, str, tuple[str, ...]]]:
    """``(ruleset, spec, needles)``: every kind of bad spec."""
    return [
        ("acw_regimental", f"search:{model}:bogus=1", ("unknown option 'bogus'",)),
        ("acw_regimental", f"search:{model}:sims=0", ("sims='0'", "positive")),
        ("acw_regimental", f"search:{model}:ms=-1", ("positive",)),
        ("acw_regimental", "search:", ("expected search:MODEL",)),
        ("acw_regimental", "search:/no/such/model.zip:sims=4", ("not found",)),
        ("atomic_africa", f"search:{model}", ("acw",)),  # a checkpoint of another ruleset
    ]


def test_evaluate_refuses_bad_specs_before_any_game(acw_model, capsys, monkeypatch):
    import evaluate
    from agents.evaluation import tournament

    monkeypatch.setattr(tournament, "play_game", lambda *a, **k: pytest.fail("a game ran"))
    for ruleset, spec, needles in _cases(acw_model):
        code = evaluate.main(["--ruleset", ruleset, "--agents", spec, "random", "--games", "2"])
        _one_error_line(code, capsys.readouterr().err, spec, *needles)


def test_exploit_refuses_bad_specs_before_training(acw_model, capsys, monkeypatch):
    import evaluate
    from agents.training.league import exploit

    monkeypatch.setattr(exploit, "exploit", lambda *a, **k: pytest.fail("training started"))
    for ruleset, spec, needles in _cases(acw_model):
        code = evaluate.main(["exploit", spec, "--ruleset", ruleset, "--timesteps", "10"])
        _one_error_line(code, capsys.readouterr().err, *needles)


def test_play_refuses_bad_specs_before_serving(acw_model, capsys, monkeypatch):
    from envs import __main__ as envs_main
    from envs.cli import play

    monkeypatch.setattr(play, "make_server", lambda *a, **k: pytest.fail("a server started"))
    for ruleset, spec, needles in _cases(acw_model):
        code = envs_main.main(["play", "--ruleset", ruleset, "--opponent", spec, "--port", "0"])
        _one_error_line(code, capsys.readouterr().err, *needles)


def test_a_tournament_with_a_search_agent(acw_model, tmp_path):
    import json

    import evaluate

    out = tmp_path / "r.json"
    spec = f"search:{acw_model}:sims=2"
    code = evaluate.main(["--agents", spec, "random", "--games", "2", "--quiet", "--jobs", "1",
                          "--max-decisions", "40", "--json", str(out)])
    assert code == 0
    doc = json.loads(out.read_text())
    assert doc["agents"] == [spec, "random"]
    assert doc["pairs"][0]["games"] == 2


def test_the_single_agent_env_asks_a_search_agent_with_the_state(acw_model):
    from envs.adapters.single_agent import RiposteGymEnv
    from envs import load_game

    game = load_game("acw_regimental")
    agent = make_agent(f"search:{acw_model}:sims=2", game, seed=0)
    asked = []
    step = agent.step
    agent.step = lambda state: asked.append(state.current_player()) or step(state)
    env = RiposteGymEnv("acw_regimental", seat=0, opponent=agent, max_decisions=200)
    obs, info = env.reset(seed=0)
    rng = np.random.default_rng(0)
    done = False
    while not done:
        legal = np.flatnonzero(info["action_mask"])
        obs, _, term, trunc, info = env.step(int(rng.choice(legal)))
        done = term or trunc
    assert asked and set(asked) == {1}


def test_the_speed_benchmark_prints_ms_per_decision_and_the_costs(acw_model, capsys):
    from agents.search import bench

    assert bench.main([acw_model, "--games", "1", "--sims", "2"]) == 0
    out = capsys.readouterr().out
    assert "ms per searched decision" in out
    for label in ("apply_action", "network forward", "observations", "clone"):
        assert label in out
    overruled = re.search(r"overruled the network's arg-max at (\d+) of (\d+) searched", out)
    searched = re.search(r"(\d+) searched decisions, ", out)
    assert overruled and searched and overruled.group(2) == searched.group(1)
    assert 0 <= int(overruled.group(1)) <= int(overruled.group(2)) > 0
    assert bench.main(["/no/such/model.zip", "--games", "1"]) == 2
    _one_error_line(2, capsys.readouterr().err, "not found")
    assert bench.main([acw_model, "--games", "1", "--sims", "2", "--options",
                       "c_scale=3:rescale=1"]) == 0
    assert "sims=2 k=4 c_scale=3 rescale=1: " in capsys.readouterr().out
    assert bench.main([acw_model, "--games", "1", "--options", "c_scale=-1"]) == 2
    _one_error_line(2, capsys.readouterr().err, "c_scale='-1': must be >= 0")


def test_the_value_head_diagnostics_print_both_measurements(acw_model, capsys):
    from agents.search import diagnose

    assert diagnose.main([acw_model, "--games", "1", "--every", "400", "--rollouts", "2",
                          "--truncate", "2"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"1 self-play game\(s\) of acw_regimental/default, \d+ decisions with a "
                     r"choice, 1 valued positions", out)
    for label in ("first third", "last third", "value head after the action",
                  "2 arg-max decisions, then value", "Monte-Carlo halves correlate"):
        assert label in out
    assert diagnose.main([acw_model, "--rollouts", "0"]) == 2
    _one_error_line(2, capsys.readouterr().err, "--rollouts")


def test_the_options_help_gives_each_option_with_the_configs_default():
    from agents.search.config import OPTIONS, options_help

    text = options_help()
    assert [line.split("=")[0].strip() for line in text.splitlines()
            if not line.startswith("   ")] == list(OPTIONS)
    assert "sims=N          simulations per searched decision (default 8)" in text
    assert "c_scale=X       the weight of Q against the prior's logits (default 1)" in text
    assert "(0: the value head's\n                  at the node) (default 30)" in text
    assert max(len(line) for line in text.splitlines()) <= 88


@pytest.mark.parametrize("spec, want", [
    ("search:a.zip:confident=0.99", 0.99), ("search:a.zip:confident=1", 1.0)])
def test_confident_takes_a_probability(spec, want):
    assert parse_search_spec(spec)[1].confident == want
